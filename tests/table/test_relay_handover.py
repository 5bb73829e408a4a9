"""The relay's failures, made to happen on purpose rather than by chance under load (issue 24),
against real PostgreSQL and NATS JetStream:

- two relays on one log: one leads (it holds the advisory lock), the other waits; when the
  leader goes, the other takes the lock and carries on from the saved cursor;
- a relay killed after JetStream acknowledged a round and before it saved its cursor: the next
  leader publishes that round again from the older cursor, and JetStream's duplicate window
  (``Nats-Msg-Id``) keeps each event once on the stream."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from okey.v1 import events_pb2
from okeyplatform.eventstore import NewEvent, PostgresEventStore, StoredEvent
from okeyplatform.relay import Relay
from table_helpers import jetstream_versions


def _payload(e: StoredEvent) -> bytes:
    return events_pb2.TableEvent(table_id=e.stream_id, version=e.version, kind=e.type).SerializeToString()


@pytest.fixture
async def stores(fresh_database_url: str) -> AsyncIterator[tuple[PostgresEventStore, PostgresEventStore]]:
    a = await PostgresEventStore.connect(fresh_database_url)
    b = await PostgresEventStore.connect(fresh_database_url)
    try:
        yield a, b
    finally:
        await a.close()
        await b.close()


def _start(store: PostgresEventStore, url: str, nats_url: str) -> tuple[Relay, asyncio.Task[Any]]:
    relay = Relay(store, url, nats_url, _payload, linger_s=0.0)
    return relay, asyncio.create_task(relay.run())


async def _until(check: Any, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.02)


async def test_the_waiting_relay_takes_over_when_the_leader_goes_and_nothing_is_lost_or_doubled(
    fresh_database_url: str, stores: tuple[PostgresEventStore, PostgresEventStore], nats_url: str
) -> None:
    a_store, b_store = stores
    a, a_task = _start(a_store, fresh_database_url, nats_url)
    await _until(lambda: a.leader, "the first relay never led")
    b, b_task = _start(b_store, fresh_database_url, nats_url)
    try:
        sid = f"handover-{uuid.uuid4().hex[:10]}"
        for v in range(3):
            await a_store.append(sid, v, [NewEvent("A", {"n": v})])
        assert await jetstream_versions(nats_url, sid, 3) == [1, 2, 3]
        assert not b.leader and b.published == 0  # one leader at a time: the other waits on the lock
        a.stop()
        await asyncio.wait_for(a_task, timeout=10)
        await _until(lambda: b.leader, "the waiting relay never took the lead")
        for v in range(3, 6):
            await b_store.append(sid, v, [NewEvent("A", {"n": v})])
        assert await jetstream_versions(nats_url, sid, 7, timeout=3) == [1, 2, 3, 4, 5, 6]
        assert b.published == 3  # it went on from the saved cursor: nothing again
    finally:
        b.stop()
        await asyncio.wait_for(b_task, timeout=10)


async def test_a_relay_killed_between_the_acks_and_its_cursor_save_costs_no_duplicate_on_the_stream(
    fresh_database_url: str, stores: tuple[PostgresEventStore, PostgresEventStore], nats_url: str
) -> None:
    a_store, b_store = stores
    published_not_saved = asyncio.Event()

    async def dies_before_saving(name: str, cursor: Any) -> None:
        # (a relay saves its cursor only after a round it published)
        published_not_saved.set()
        await asyncio.Event().wait()  # the process is gone before the cursor is written

    a_store.save_cursor = dies_before_saving  # type: ignore[method-assign]
    a, a_task = _start(a_store, fresh_database_url, nats_url)
    await _until(lambda: a.leader, "the relay never led")
    sid = f"killed-{uuid.uuid4().hex[:10]}"
    await a_store.append(sid, 0, [NewEvent("A", {"n": v}) for v in range(4)])  # one commit: one round
    await asyncio.wait_for(published_not_saved.wait(), timeout=20)
    assert await jetstream_versions(nats_url, sid, 4) == [1, 2, 3, 4]  # acknowledged by JetStream
    a_task.cancel()  # killed: the cursor still says before these events
    await asyncio.gather(a_task, return_exceptions=True)
    b, b_task = _start(b_store, fresh_database_url, nats_url)
    try:
        await _until(lambda: b.published >= 4, "the next leader did not publish the round again")
        await b_store.append(sid, 4, [NewEvent("A", {"n": 4})])
        # the round went out twice; the stream holds each event once, and the next after them
        assert await jetstream_versions(nats_url, sid, 6, timeout=3) == [1, 2, 3, 4, 5]
    finally:
        b.stop()
        await asyncio.wait_for(b_task, timeout=10)

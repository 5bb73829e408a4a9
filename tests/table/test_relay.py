"""The outbox relay's batching, against real PostgreSQL and NATS JetStream: a lone event goes
out at once whatever the linger, and a burst of commits is carried in a few rounds (each round
costs a read, a cursor save and a flush to NATS, however few events it carries)."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import nats
import pytest
from okey.v1 import events_pb2
from okeyplatform.eventstore import NewEvent, PostgresEventStore, StoredEvent
from okeyplatform.relay import TABLE_STREAM, Relay, table_subject
from table_helpers import jetstream_versions


def _payload(e: StoredEvent) -> bytes:
    """An envelope with no event in it: these tests' events are no okeycore events."""
    return events_pb2.TableEvent(table_id=e.stream_id, version=e.version, kind=e.type).SerializeToString()


@pytest.fixture
async def store(fresh_database_url: str) -> AsyncIterator[PostgresEventStore]:
    pg = await PostgresEventStore.connect(fresh_database_url)
    try:
        yield pg
    finally:
        await pg.close()


async def _leading(fresh_database_url: str, store: PostgresEventStore, nats_url: str, linger_s: float) -> Relay:
    relay = Relay(store, fresh_database_url, nats_url, _payload, linger_s=linger_s)
    relay.task = asyncio.create_task(relay.run())  # type: ignore[attr-defined]
    deadline = time.monotonic() + 20
    while not (relay.leader and relay.idle_reads):  # past its first (empty) read: now it waits for a NOTIFY
        assert time.monotonic() < deadline, "the relay never took the lead and read the (empty) log"
        await asyncio.sleep(0.02)
    return relay


async def _stop(relay: Relay) -> None:
    relay.stop()
    await asyncio.wait_for(relay.task, timeout=10)  # type: ignore[attr-defined]


async def test_a_lone_event_goes_out_at_once_even_with_a_long_linger(
    fresh_database_url: str, store: PostgresEventStore, nats_url: str
) -> None:
    # The linger follows a round; it never holds back the first event of a quiet log. A linger
    # far longer than the wait for the event tells the two apart however slow the machine is.
    relay = await _leading(fresh_database_url, store, nats_url, linger_s=60.0)
    try:
        sid = f"lone-{uuid.uuid4().hex[:10]}"
        await store.append(sid, 0, [NewEvent("A", {"n": 1})])
        assert await jetstream_versions(nats_url, sid, 1, timeout=30) == [1], "the lone event waited for the linger"
        # The round is counted once its cursor is saved, just after the publish the line above saw.
        for _ in range(200):
            if relay.rounds:
                break
            await asyncio.sleep(0.05)
        assert relay.rounds == 1
    finally:
        await _stop(relay)


async def test_a_burst_of_commits_goes_out_in_a_few_rounds_each_event_once_in_order(
    fresh_database_url: str, store: PostgresEventStore, nats_url: str
) -> None:
    linger_s = 0.5
    relay = await _leading(fresh_database_url, store, nats_url, linger_s=linger_s)
    try:
        streams = [f"burst-{i}-{uuid.uuid4().hex[:8]}" for i in range(6)]
        commits = 0
        t0 = time.monotonic()
        for version in range(5):  # 30 separate commits, 5 per table, each with its own NOTIFY
            for sid in streams:
                await store.append(sid, version, [NewEvent("A", {"n": version})])
                commits += 1
        committing_s = time.monotonic() - t0
        for sid in streams:
            assert await jetstream_versions(nats_url, sid, 5) == [1, 2, 3, 4, 5]
        assert relay.published == commits
        # Without the linger each NOTIFY would start a round of its own: about one per commit.
        # With it, a round starts at most once per linger while the commits go on, and one more
        # carries what came last: a bound from how long the commits took here, not a fixed count
        # that a slow machine (commits spread over more lingers) would break.
        most = 2 + int(committing_s / linger_s)
        assert relay.rounds <= min(most, commits), (
            f"{relay.rounds} rounds for {commits} commits in {committing_s:.2f} s"
        )
    finally:
        await _stop(relay)


async def test_a_round_does_not_wait_a_turn_of_the_event_loop_per_event(nats_url: str) -> None:
    """The relay shares its event loop with every Act in flight. Sending a round must not yield
    to the loop once per event (nats-py's wait_stall did: asyncio.wait_for runs a task per
    publish on Python 3.11), or under load each event waits behind every other task and the
    relay falls seconds behind. Counted in turns of the loop between the round's first and last
    publish (how long JetStream takes to acknowledge is another matter, and not counted)."""
    from datetime import UTC, datetime

    from okeyplatform.relay import ensure_table_stream

    nc = await nats.connect(nats_url)
    stop = asyncio.Event()
    turns = 0

    async def count_turns() -> None:
        nonlocal turns
        while not stop.is_set():
            turns += 1
            await asyncio.sleep(0)

    tag = uuid.uuid4().hex[:8]  # the tables turns-<tag>.<i>: one subject tree, purged at the end
    counter = asyncio.create_task(count_turns())
    try:
        js = nc.jetstream()
        await ensure_table_stream(js)
        at_publish: list[int] = []
        publish = js.publish_async

        async def counted(*args: Any, **kwargs: Any) -> Any:
            at_publish.append(turns)
            return await publish(*args, **kwargs)

        js.publish_async = counted  # type: ignore[method-assign]
        now = datetime.now(UTC)
        events = [StoredEvent(f"turns-{tag}.{i}", 1, "A", {}, 0, i, (i, i), now) for i in range(400)]
        relay = Relay(None, "", nats_url, _payload)  # type: ignore[arg-type]  # _publish needs NATS only
        await relay._publish(js, events)
        assert len(at_publish) == 400
        # one turn per event would be >= 399 (it was 1,420 with the wait_stall, crowded)
        assert at_publish[-1] - at_publish[0] < 40, f"{at_publish[-1] - at_publish[0]} turns to send 400 events"
    finally:
        stop.set()
        await counter
        with contextlib.suppress(nats.js.errors.NotFoundError):  # the session's stream outlives this test
            await nc.jetstream().purge_stream(TABLE_STREAM, subject=table_subject(f"turns-{tag}.>"))
        await nc.close()

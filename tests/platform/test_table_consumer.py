"""The one table event consumer over a real PostgreSQL and NATS: the applied-version record
makes a redelivered event a no-op, a version past a gap waits for the missing one, and the
handler's writes share the transaction that records the version; the concurrent applier (the
bots') hands back what cannot be done now and never moves a record back; a message that is no
table event is set aside without stopping anything."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import asyncpg
from nats.js.client import JetStreamContext
from okeycore.events import SeatLeft, event_to_dict
from okeyplatform.consumer import (
    APPLIED,
    DUPLICATE,
    HELD,
    PARKED,
    PROJECTION_LINGER_S,
    RETRY,
    BatchResult,
    ConcurrentApplier,
    ConsumerSpec,
    Item,
    RetryLater,
    TableEventConsumer,
    VersionedApplier,
    envelope_of,
    migrate_consumer_versions,
    parked_tables,
    record_versions,
)
from okeyplatform.contract import Envelope, encode_envelope, nats_headers
from okeyplatform.eventstore import StoredEvent
from okeyplatform.relay import ensure_table_stream, table_subject


def _stored(table_id: str, version: int) -> StoredEvent:
    event = SeatLeft(seat=0, player=f"p{version}")
    data = {k: v for k, v in event_to_dict(event).items() if k != "type"}
    return StoredEvent(table_id, version, event.type, data, 1, version, (1, version), datetime.now(UTC))


def _item(table_id: str, version: int) -> Item:
    return envelope_of(_stored(table_id, version))


@asynccontextmanager
async def _on(conn: asyncpg.Connection, _tables: Sequence[str]) -> AsyncIterator[asyncpg.Connection]:
    """The tests' unit of work: the transaction's connection itself."""
    yield conn


def _spec(
    apply: Callable[[asyncpg.Connection, Envelope], Awaitable[None]], name: str = "test", **tuning: Any
) -> ConsumerSpec[asyncpg.Connection]:
    return ConsumerSpec(name=name, apply=apply, unit=_on, component="test-consumer", **tuning)


def _record(pool: asyncpg.Pool, name: str = "test") -> VersionedApplier[asyncpg.Connection]:
    return VersionedApplier(_spec(_seen, name), pool)


async def _pool(url: str) -> asyncpg.Pool:
    pool = await asyncpg.create_pool(url, min_size=1, max_size=4)
    assert pool is not None
    async with pool.acquire() as conn:
        await migrate_consumer_versions(conn)
        await conn.execute("CREATE TABLE seen (table_id TEXT, version INT, PRIMARY KEY (table_id, version))")
    return pool


async def _started(
    pool: asyncpg.Pool, nats_url: str, table: str, linger_s: float = 0.0, applier: Any = None
) -> tuple[TableEventConsumer, asyncio.Task[None]]:
    """A consumer of one table's subject with the record over ``_seen``, bound and running."""
    spec = _spec(_seen, subject=table_subject(table), linger_s=linger_s)
    consumer = TableEventConsumer(spec, pool, nats_url, durable=f"test-{table}")
    if applier is not None:
        consumer.app = applier
    task = asyncio.create_task(consumer.run())
    await asyncio.wait_for(consumer.ready.wait(), 10)
    return consumer, task


async def _seen(conn: asyncpg.Connection, item: Envelope) -> None:
    """The handler's effect, on the consumer's transaction connection."""
    await conn.execute("INSERT INTO seen VALUES ($1, $2)", item.table_id, item.version)


async def test_a_redelivered_version_is_a_no_op_and_a_gap_is_held(fresh_database_url: str) -> None:
    pool = await _pool(fresh_database_url)
    try:
        applier = _record(pool)
        got = await applier.apply([_item("t1", 1), _item("t1", 3), _item("t1", 2), _item("t2", 2)])
        assert got.outcomes == [APPLIED, APPLIED, APPLIED, HELD]  # t2 starts at 1: version 2 waits
        assert got.versions == {"t1": 3, "t2": 0}
        again = await applier.apply([_item("t1", 2), _item("t1", 3), _item("t2", 1)])
        assert again.outcomes == [DUPLICATE, DUPLICATE, APPLIED]
        rows = await pool.fetch("SELECT table_id, version FROM seen ORDER BY 1, 2")
        assert [(r[0], r[1]) for r in rows] == [("t1", 1), ("t1", 2), ("t1", 3), ("t2", 1)]
    finally:
        await pool.close()


async def test_a_failing_handler_records_nothing(fresh_database_url: str) -> None:
    pool = await _pool(fresh_database_url)
    try:

        async def fails_on_two(conn: asyncpg.Connection, item: Envelope) -> None:
            await _seen(conn, item)
            if item.version == 2:
                raise RuntimeError("not now")

        applier = VersionedApplier(_spec(fails_on_two), pool)
        try:
            await applier.apply([_item("t", 1), _item("t", 2)])
        except RuntimeError:
            pass
        async with pool.acquire() as conn:
            assert await applier.versions(conn, ["t"]) == {}
        assert await pool.fetchval("SELECT count(*) FROM seen") == 0  # the effect went with the version
    finally:
        await pool.close()


async def test_an_event_the_handler_cannot_apply_parks_its_table_and_every_other_table_goes_on(
    fresh_database_url: str,
) -> None:
    pool = await _pool(fresh_database_url)
    try:

        class Unprojectable(Exception):
            pass

        async def picky(conn: asyncpg.Connection, item: Envelope) -> None:
            if item.table_id == "bad" and item.version == 2:
                raise Unprojectable("a number out of range")
            await _seen(conn, item)

        applier = VersionedApplier(_spec(picky, parks=(Unprojectable,)), pool)
        got = await applier.apply([_item("bad", 1), _item("bad", 2), _item("bad", 3), _item("ok", 1)])
        assert got.outcomes == [APPLIED, PARKED, PARKED, APPLIED]
        assert got.parked == {"bad": (2, "a number out of range")}
        assert (await applier.apply([_item("bad", 4), _item("ok", 2)])).outcomes == [PARKED, APPLIED]
        async with pool.acquire() as conn:
            assert await parked_tables(conn, "test") == [("bad", 2, "a number out of range")]
            assert await applier.versions(conn, ["bad", "ok"]) == {"bad": 1, "ok": 2}
        rows = await pool.fetch("SELECT table_id, version FROM seen ORDER BY 1, 2")
        assert [(r[0], r[1]) for r in rows] == [("bad", 1), ("ok", 1), ("ok", 2)]
    finally:
        await pool.close()


async def test_the_consumer_applies_in_order_once_across_redelivery(
    fresh_database_url: str, nats_url: str, jetstream: JetStreamContext
) -> None:
    await ensure_table_stream(jetstream)
    table = f"c-{uuid.uuid4().hex[:10]}"
    pool = await _pool(fresh_database_url)
    consumer, task = await _started(pool, nats_url, table)
    try:

        async def publish(version: int, msg_id: str | None = None) -> None:
            st = _stored(table, version)
            headers = nats_headers(st) | ({"Nats-Msg-Id": msg_id} if msg_id else {})
            await jetstream.publish(table_subject(table), encode_envelope(st), headers=headers)

        await publish(1)
        await publish(3)  # past a gap: held until 2 is there (read back from the stream)
        await publish(2)
        await publish(1, msg_id=f"{table}:1:again")  # published twice: a duplicate, no effect
        for _ in range(200):
            if await pool.fetchval("SELECT count(*) FROM seen") == 3 and consumer.duplicates >= 1:
                break
            await asyncio.sleep(0.05)
        rows = await pool.fetch("SELECT version FROM seen WHERE table_id = $1 ORDER BY 1", table)
        assert [r[0] for r in rows] == [1, 2, 3]
        assert consumer.duplicates >= 1 and consumer.applied == 3
    finally:
        consumer.stop()
        await asyncio.wait_for(task, 10)
        await pool.close()


async def test_two_replicas_given_a_tables_first_version_at_once_apply_it_once(fresh_database_url: str) -> None:
    # No record row yet for the table: the applier creates it before locking, so the second
    # transaction waits for the first and then sees version 1 as a duplicate.
    pool = await _pool(fresh_database_url)
    try:
        started = asyncio.Event()

        async def slow(conn: asyncpg.Connection, item: Envelope) -> None:
            started.set()
            await asyncio.sleep(0.3)
            await conn.execute("INSERT INTO seen VALUES ($1, $2) ON CONFLICT DO NOTHING", item.table_id, item.version)
            await conn.execute("CREATE TABLE IF NOT EXISTS calls (n INT)")
            await conn.execute("INSERT INTO calls VALUES (1)")

        a, b = VersionedApplier(_spec(slow), pool), VersionedApplier(_spec(slow), pool)
        first = asyncio.create_task(a.apply([_item("t", 1)]))
        await started.wait()
        second = await b.apply([_item("t", 1)])
        assert (await first).outcomes == [APPLIED]
        assert second.outcomes == [DUPLICATE]
        assert await pool.fetchval("SELECT count(*) FROM calls") == 1
    finally:
        await pool.close()


async def test_the_concurrent_applier_hands_back_what_cannot_be_done_now(fresh_database_url: str) -> None:
    pool = await _pool(fresh_database_url)
    try:
        done: list[tuple[str, int]] = []

        async def handler(_uow: None, item: Envelope) -> None:
            if item.table_id == "away" and item.version == 2:
                raise RetryLater("table service unreachable")
            if item.table_id == "buggy":
                raise KeyError("a bug")
            done.append((item.table_id, item.version))

        applier = ConcurrentApplier(ConsumerSpec(name="bots-test", apply=handler, external=True), pool)
        items = [_item("away", 1), _item("away", 2), _item("away", 3), _item("ok", 5), _item("buggy", 1)]
        got = await applier.apply(items)
        # away: 1 played, 2 handed back with the later 3 (a table's order holds); a gap (ok at 5)
        # does not matter; a handler's bug is logged and counted, the event handled.
        assert got.outcomes == [APPLIED, RETRY, RETRY, APPLIED, APPLIED]
        assert sorted(done) == [("away", 1), ("ok", 5)]
        assert applier.failed == 1
        async with pool.acquire() as conn:
            assert await _record(pool, "bots-test").versions(conn, ["away", "ok", "buggy"]) == {
                "away": 1,
                "ok": 5,
                "buggy": 1,
            }
        again = await applier.apply([_item("away", 1), _item("ok", 4), _item("ok", 5), _item("ok", 6)])
        assert again.outcomes == [DUPLICATE, DUPLICATE, DUPLICATE, APPLIED]
        # a replica that read the record before ``again`` wrote it, finishing later, never moves it back
        async with pool.acquire() as conn:
            await record_versions(conn, "bots-test", {"ok": 5})
            assert await _record(pool, "bots-test").versions(conn, ["ok"]) == {"ok": 6}
    finally:
        await pool.close()


async def test_a_message_that_is_no_table_event_is_set_aside_and_the_consumer_goes_on(
    fresh_database_url: str, nats_url: str, jetstream: JetStreamContext
) -> None:
    await ensure_table_stream(jetstream)
    table = f"r-{uuid.uuid4().hex[:10]}"
    pool = await _pool(fresh_database_url)
    consumer, task = await _started(pool, nats_url, table)
    try:
        await jetstream.publish(table_subject(table), b"not an envelope")
        await jetstream.publish(table_subject(table), b"\x00\xff" * 40, headers={"Okey-Version": "x"})
        for version in (1, 2):
            st = _stored(table, version)
            await jetstream.publish(table_subject(table), encode_envelope(st), headers=nats_headers(st))
        for _ in range(200):
            if await pool.fetchval("SELECT count(*) FROM seen WHERE table_id = $1", table) == 2:
                break
            await asyncio.sleep(0.05)
        assert await pool.fetchval("SELECT count(*) FROM seen WHERE table_id = $1", table) == 2
        assert consumer.rejected == 2 and consumer.error is None and not task.done()
    finally:
        consumer.stop()
        await asyncio.wait_for(task, 10)
        await pool.close()


class _CountingApplier(VersionedApplier[asyncpg.Connection]):
    """The record over ``_seen``, counting the batches (one transaction each)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        super().__init__(_spec(_seen), pool)
        self.batches = 0

    async def apply(self, items: Sequence[Item]) -> BatchResult:
        self.batches += 1
        return await super().apply(items)


async def _batches_for_a_trickle(
    pool: asyncpg.Pool, nats_url: str, jetstream: JetStreamContext, linger_s: float
) -> tuple[int, float]:
    """30 versions of a table published 20 ms apart to a consumer lingering ``linger_s``: the
    batches it applied them in, and how long after the last publish the last one was applied."""
    await ensure_table_stream(jetstream)
    table = f"l-{uuid.uuid4().hex[:10]}"
    applier = _CountingApplier(pool)
    consumer, task = await _started(pool, nats_url, table, linger_s, applier)
    try:
        for version in range(1, 31):
            st = _stored(table, version)
            await jetstream.publish(table_subject(table), encode_envelope(st), headers=nats_headers(st))
            await asyncio.sleep(0.02)
        published = time.monotonic()
        for _ in range(400):
            if await pool.fetchval("SELECT count(*) FROM seen WHERE table_id = $1", table) == 30:
                break
            await asyncio.sleep(0.01)
        late = time.monotonic() - published
        rows = await pool.fetch("SELECT version FROM seen WHERE table_id = $1 ORDER BY 1", table)
        assert [r[0] for r in rows] == list(range(1, 31)) and consumer.applied == 30
        return applier.batches, late
    finally:
        consumer.stop()
        await asyncio.wait_for(task, 10)


async def test_a_lingering_consumer_takes_a_trickle_in_few_batches_and_is_at_most_the_linger_behind(
    fresh_database_url: str, nats_url: str, jetstream: JetStreamContext
) -> None:
    pool = await _pool(fresh_database_url)
    try:
        # Without a linger every event 20 ms apart is a batch (a transaction) of its own.
        eager, _ = await _batches_for_a_trickle(pool, nats_url, jetstream, 0.0)
        assert eager >= 15
        # With 0.25 s the 0.6 s trickle comes in about three.
        lingering, late = await _batches_for_a_trickle(pool, nats_url, jetstream, 0.25)
        assert lingering <= 6
        assert late < 0.25 + 0.5  # the last event waited at most the linger (and a fetch)
    finally:
        await pool.close()


def test_a_linger_is_refused_unless_shorter_than_a_failover() -> None:
    # Lingering as long as a dead replica's events wait for another replica (ack_wait_s) would
    # make a live consumer as late as a failover; a negative one is a mistake.
    for bad in (-0.1, 60.0, 1e9):
        try:
            _spec(_seen, ack_wait_s=60.0, linger_s=bad)
        except ValueError as exc:
            assert "linger_s" in str(exc)
        else:
            raise AssertionError(f"linger_s={bad} was taken")
    assert 0 < PROJECTION_LINGER_S < 60.0

"""The one table event consumer over a real PostgreSQL and NATS: the applied-version record
makes a redelivered event a no-op, a version past a gap waits for the missing one, and the
handler's writes share the transaction that records the version."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

import asyncpg
from nats.js.client import JetStreamContext
from okeycore.events import SeatLeft, event_to_dict
from okeyplatform.consumer import (
    APPLIED,
    DUPLICATE,
    HELD,
    EventItem,
    TableEventConsumer,
    VersionedApplier,
    decode_item,
    migrate_consumer_versions,
)
from okeyplatform.contract import encode_envelope, nats_headers
from okeyplatform.eventstore import StoredEvent
from okeyplatform.relay import ensure_table_stream, table_subject


def _stored(table_id: str, version: int) -> StoredEvent:
    event = SeatLeft(seat=0, player=f"p{version}")
    data = {k: v for k, v in event_to_dict(event).items() if k != "type"}
    return StoredEvent(table_id, version, event.type, data, 1, version, (1, version), datetime.now(UTC))


def _item(table_id: str, version: int) -> EventItem:
    st = _stored(table_id, version)
    return decode_item(encode_envelope(st), nats_headers(st))


async def _pool(url: str) -> asyncpg.Pool:
    pool = await asyncpg.create_pool(url, min_size=1, max_size=4)
    assert pool is not None
    async with pool.acquire() as conn:
        await migrate_consumer_versions(conn)
        await conn.execute("CREATE TABLE seen (table_id TEXT, version INT, PRIMARY KEY (table_id, version))")
    return pool


async def _seen(conn: asyncpg.Connection, item: EventItem) -> None:
    """The handler's effect, on the consumer's transaction connection."""
    await conn.execute("INSERT INTO seen VALUES ($1, $2)", item.table_id, item.version)


async def test_a_redelivered_version_is_a_no_op_and_a_gap_is_held(fresh_database_url: str) -> None:
    pool = await _pool(fresh_database_url)
    try:
        applier = VersionedApplier(pool, "test", _seen)
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

        async def fails_on_two(conn: asyncpg.Connection, item: EventItem) -> None:
            await _seen(conn, item)
            if item.version == 2:
                raise RuntimeError("not now")

        applier = VersionedApplier(pool, "test", fails_on_two)
        try:
            await applier.apply([_item("t", 1), _item("t", 2)])
        except RuntimeError:
            pass
        async with pool.acquire() as conn:
            assert await applier.versions(conn, ["t"]) == {}
        assert await pool.fetchval("SELECT count(*) FROM seen") == 0  # the effect went with the version
    finally:
        await pool.close()


async def test_the_consumer_applies_in_order_once_across_redelivery(
    fresh_database_url: str, nats_url: str, jetstream: JetStreamContext
) -> None:
    await ensure_table_stream(jetstream)
    table = f"c-{uuid.uuid4().hex[:10]}"
    pool = await _pool(fresh_database_url)
    consumer = TableEventConsumer(
        VersionedApplier(pool, "test", _seen),
        nats_url,
        decode_item,
        durable=f"test-{table}",
        subject=table_subject(table),
        component="test-consumer",
    )
    task = asyncio.create_task(consumer.run())
    try:
        await asyncio.wait_for(consumer.ready.wait(), 10)

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

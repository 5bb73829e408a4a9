"""One contract, every event store: the in-memory store and PostgreSQL pass the same tests."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest
from okeyplatform.eventstore import (
    AppendResult,
    DuplicateCommand,
    EventStore,
    MemoryEventStore,
    NewEvent,
    PostgresEventStore,
    StoredEvent,
    VersionConflict,
)
from okeytools.embedded import with_database


async def _settled(store: EventStore, n: int, within_s: float = 10.0) -> list[StoredEvent]:
    """The global order once it shows at least ``n`` events. read_all stops at the oldest
    transaction still running on the whole server (pg_snapshot_xmin), and the server a worker
    starts is shared with the stacks its other tests run: one of their transactions may hold the
    order back for a moment, never for good."""
    deadline = time.monotonic() + within_s
    while True:
        got = await store.read_all(limit=1000)
        if len(got) >= n or time.monotonic() > deadline:
            return got
        await asyncio.sleep(0.05)


@pytest.fixture(params=["memory", "postgres"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[EventStore]:
    if request.param == "memory":
        yield MemoryEventStore()
        return
    base = request.getfixturevalue("database_url")  # session-scoped and synchronous
    name = f"okey_test_{uuid.uuid4().hex[:16]}"
    admin = await asyncpg.connect(base)
    await admin.execute(f'CREATE DATABASE "{name}"')
    pg = await PostgresEventStore.connect(with_database(base, name))
    try:
        yield pg
    finally:
        await pg.close()
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


def ev(kind: str, n: int = 0, hand: int = 0) -> NewEvent:
    return NewEvent(kind, {"n": n, "nested": {"list": [1, 2, n]}}, hand)


async def test_append_assigns_consecutive_versions_and_reads_back(store: EventStore) -> None:
    r = await store.append("s", 0, [ev("A", 1), ev("B", 2, hand=1)])
    assert (r.first_version, r.last_version) == (1, 2)
    r = await store.append("s", 2, [ev("C", 3)])
    assert (r.first_version, r.last_version) == (3, 3)
    got = await store.read_stream("s")
    assert [(e.version, e.type, e.data["n"], e.hand) for e in got] == [(1, "A", 1, 0), (2, "B", 2, 1), (3, "C", 3, 0)]
    assert got[1].data["nested"] == {"list": [1, 2, 2]}
    assert [e.version for e in await store.read_stream("s", after_version=1, limit=1)] == [2]
    assert await store.read_stream("nope") == []


async def test_what_an_append_returns_is_what_a_read_gives_back(store: EventStore) -> None:
    """The append's events are built from what was sent and what the store decided (position,
    transaction, time), not read back: they must equal the stored rows, field for field."""
    tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    first = await store.append("s", 0, [ev("A", 1), NewEvent("B", {"z": 1, "a": [3, {"k": None}]}, 2, 0b0101)], "c1")
    second = await store.append("s", 2, [ev("C", 3)], traceparent=tp)
    assert [*first.events, *second.events] == await store.read_stream("s")
    assert [e.bot_seats for e in first.events] == [None, 0b0101] and second.events[0].traceparent == tp


async def test_an_append_keeps_its_trace_context_with_every_event_it_wrote(store: EventStore) -> None:
    """The trace context of the command behind the events (the relay publishes it with them);
    none given, none kept."""
    tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    r = await store.append("s", 0, [ev("A"), ev("B")], traceparent=tp)
    assert [e.traceparent for e in r.events] == [tp, tp]
    await store.append("s", 2, [ev("C")])
    assert [e.traceparent for e in await store.read_stream("s")] == [tp, tp, None]
    assert [e.traceparent for e in await _settled(store, 3)] == [tp, tp, None]


async def test_wrong_expected_version_is_a_conflict_and_appends_nothing(store: EventStore) -> None:
    await store.append("s", 0, [ev("A")])
    with pytest.raises(VersionConflict):
        await store.append("s", 0, [ev("B")])  # taken
    with pytest.raises(VersionConflict):
        await store.append("s", 5, [ev("B")])  # would leave a gap
    assert [e.type for e in await store.read_stream("s")] == ["A"]


async def test_same_command_id_twice_returns_the_first_versions(store: EventStore) -> None:
    await store.append("s", 0, [ev("A"), ev("B")], command_id="c1")
    with pytest.raises(DuplicateCommand) as dup:
        await store.append("s", 2, [ev("C")], command_id="c1")
    assert (dup.value.first, dup.value.last) == (1, 2)
    assert await store.find_command("s", "c1") == (1, 2)
    assert await store.find_command("s", "c2") is None
    assert len(await store.read_stream("s")) == 2
    # command ids are per stream
    await store.append("other", 0, [ev("A")], command_id="c1")


async def test_concurrent_appends_exactly_one_wins(store: EventStore) -> None:
    await store.append("s", 0, [ev("A")])
    results = await asyncio.gather(*(store.append("s", 1, [ev("B", i)]) for i in range(8)), return_exceptions=True)
    assert sum(1 for r in results if not isinstance(r, BaseException)) == 1
    assert all(isinstance(r, VersionConflict) for r in results if isinstance(r, BaseException))
    assert [e.version for e in await store.read_stream("s")] == [1, 2]


async def test_read_all_pages_in_global_order(store: EventStore) -> None:
    for i in range(5):
        await store.append(f"s{i % 2}", i // 2, [ev("A", i)])
    await _settled(store, 5)
    seen = []
    cursor = (0, 0)
    while True:
        page = await store.read_all(cursor, limit=2)
        if not page:
            break
        seen += [e.data["n"] for e in page]
        cursor = page[-1].global_position
    assert seen == [0, 1, 2, 3, 4]


async def test_timers_are_claimed_once_and_cleared(store: EventStore) -> None:
    await store.append("a", 0, [ev("A")], due_at_ms=1_000)
    await store.append("b", 0, [ev("A")], due_at_ms=5_000)
    assert await store.claim_due_timers(2_000, lease_ms=10_000) == ["a"]
    assert await store.claim_due_timers(2_000, lease_ms=10_000) == []  # leased
    await store.append("a", 1, [ev("B")], due_at_ms=None)  # cleared with the next event
    assert await store.claim_due_timers(20_000, lease_ms=10_000) == ["b"]
    await store.set_timer("b", 30_000)
    assert await store.claim_due_timers(29_000, lease_ms=10) == []
    assert await store.claim_due_timers(30_000, lease_ms=10) == ["b"]


async def test_postgres_reader_never_skips_a_late_commit(fresh_database_url: str) -> None:
    """An append whose transaction is still open holds back everything after it in the global
    order, so a reader that pages on never passes it; it appears once it commits."""
    pg = await PostgresEventStore.connect(fresh_database_url)
    conn: asyncpg.Connection = await asyncpg.connect(fresh_database_url)
    try:
        tr = conn.transaction()
        await tr.start()
        await conn.execute("INSERT INTO okey_events (stream_id, version, type, data) VALUES ('late', 1, 'A', '{}')")
        await pg.append("early", 0, [ev("B")])  # commits after the open one started
        page = await pg.read_all((0, 0))
        assert page == []  # held back: an older transaction is still running
        await tr.commit()
        page = await _settled(pg, 2)
        assert [e.stream_id for e in page] == ["late", "early"]
    finally:
        await conn.close()
        await pg.close()


async def test_replicas_migrating_a_fresh_database_at_once_all_start(empty_database_url: str) -> None:
    """Replicas started together (OKEY_TABLE_WORKERS, a Deployment rolling out) migrate the same
    empty database at once: every one starts, and each migration is applied exactly once. (The
    bookkeeping table used to be created before the advisory lock was taken, and one of two
    replicas then died on pg_type's unique index.)"""
    from okeyplatform.eventstore import MIGRATIONS, migrate

    conns = [await asyncpg.connect(empty_database_url) for _ in range(6)]
    try:
        results = await asyncio.gather(*(migrate(c) for c in conns), return_exceptions=True)
        assert not [r for r in results if isinstance(r, BaseException)], results
        applied = sorted(v for r in results if isinstance(r, list) for v in r)
        assert applied == sorted(v for v, _ in MIGRATIONS)  # each once, by whichever got the lock first
        rows = await conns[0].fetch("SELECT version FROM okey_schema WHERE scope = 'eventstore'")
        assert sorted(r["version"] for r in rows) == applied
    finally:
        for c in conns:
            await c.close()


async def test_two_replicas_claiming_due_timers_at_once_never_claim_one_twice(fresh_database_url: str) -> None:
    """Two table replicas (two stores, two pools) claim due timers at the same moment, many
    claims in flight: every due timer is claimed by exactly one claim. And a claim does not wait
    for a timer another replica holds mid-claim (SKIP LOCKED): it takes the others (issue 24)."""
    a = await PostgresEventStore.connect(fresh_database_url)
    b = await PostgresEventStore.connect(fresh_database_url)
    try:
        due = [f"t{i:03d}" for i in range(240)]
        for i, sid in enumerate(due):
            await a.append(sid, 0, [ev("A")], due_at_ms=1_000 + i)
        claims = await asyncio.gather(
            *(store.claim_due_timers(10_000, lease_ms=60_000, limit=7) for _ in range(24) for store in (a, b))
        )
        claimed = [sid for got in claims for sid in got]
        assert len(claimed) == len(set(claimed))  # none twice
        rest = await a.claim_due_timers(10_000, lease_ms=60_000, limit=1_000)
        assert sorted(claimed + rest) == due  # and none lost
        assert {sid for got in claims[0::2] for sid in got} and {sid for got in claims[1::2] for sid in got}

        # A replica in the middle of its claim holds a due timer's row: the other skips it at once.
        await a.append("held", 0, [ev("A")], due_at_ms=1_000)
        await a.append("free", 0, [ev("A")], due_at_ms=1_000)
        conn = await asyncpg.connect(fresh_database_url)
        try:
            tx = conn.transaction()
            await tx.start()
            await conn.execute("SELECT 1 FROM okey_timers WHERE stream_id = 'held' FOR UPDATE")
            got = await asyncio.wait_for(b.claim_due_timers(70_000, lease_ms=60_000), timeout=5.0)
            assert "free" in got and "held" not in got
            await tx.rollback()
        finally:
            await conn.close()
        assert "held" in await b.claim_due_timers(70_000, lease_ms=60_000)
    finally:
        await a.close()
        await b.close()


async def test_appends_made_at_once_each_get_their_own_outcome(store: EventStore) -> None:
    """Appends that arrive together (the PostgreSQL store sends them as one group commit) are
    each what they would be alone: written, a version taken, or a command seen before; their
    commands and timers only with their events."""
    for i in range(12):
        await store.append(f"s{i}", 0, [ev("A", i)], command_id="c0", due_at_ms=1_000 + i)
    calls = []
    for i in range(12):
        if i % 4 == 1:  # a stale version: another writer was first
            calls.append(store.append(f"s{i}", 0, [ev("B", i)], command_id="late", due_at_ms=None))
        elif i % 4 == 2:  # a command seen before
            calls.append(store.append(f"s{i}", 1, [ev("B", i)], command_id="c0", due_at_ms=None))
        elif i % 4 == 3:  # the timer cleared
            calls.append(store.append(f"s{i}", 1, [ev("B", i), ev("C", i)], command_id="c1", due_at_ms=None))
        else:  # the timer moved, the command kept
            calls.append(store.append(f"s{i}", 1, [ev("B", i)], command_id="c1", due_at_ms=9_000 + i))
    results = await asyncio.gather(*calls, return_exceptions=True)
    for i, r in enumerate(results):
        kind = i % 4
        stored = await store.read_stream(f"s{i}")
        if kind == 1:
            assert isinstance(r, VersionConflict), r
            assert len(stored) == 1 and await store.find_command(f"s{i}", "late") is None
        elif kind == 2:
            assert isinstance(r, DuplicateCommand) and (r.first, r.last) == (1, 1), r
            assert len(stored) == 1
        else:
            assert isinstance(r, AppendResult), r
            assert r.events == stored[1:] and [e.data["n"] for e in r.events] == [i] * len(r.events)
            assert await store.find_command(f"s{i}", "c1") == (2, len(stored))
    if isinstance(store, PostgresEventStore):
        assert [await store.timer(f"s{i}") for i in range(4)] == [9_000, 1_001, 1_002, None]
    await _settled(store, 12 + 3 * 2 + 3 * 1)


async def test_an_append_given_up_before_it_is_sent_writes_nothing(fresh_database_url: str) -> None:
    """A caller that gives up (its deadline) while its append waits for the round trip under
    way takes it out of the group: nothing of it is written."""
    store = await PostgresEventStore.connect(fresh_database_url)
    try:
        first = asyncio.ensure_future(store.append("a", 0, [ev("A")]))
        waiting = asyncio.ensure_future(store.append("b", 0, [ev("A")], command_id="x", due_at_ms=5_000))
        await asyncio.sleep(0)  # both queued; the batch is taken once the round trip has a connection
        waiting.cancel()
        await first
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert len(await store.read_stream("a")) == 1
        assert await store.read_stream("b") == [] and await store.find_command("b", "x") is None
        assert await store.timer("b") is None
        await store.append("c", 0, [ev("A")])  # the store goes on
    finally:
        await store.close()


async def test_two_replicas_appending_the_same_tables_at_once_never_deadlock(fresh_database_url: str) -> None:
    """Two table-service replicas whose group commits write the same tables, in opposite orders
    of arrival: each batch takes its tables in stream-id order, so neither waits on the other
    in a cycle (PostgreSQL would end one after a second's deadlock timeout), and each version is
    written exactly once."""
    one = await PostgresEventStore.connect(fresh_database_url)
    two = await PostgresEventStore.connect(fresh_database_url)
    try:
        names = [f"t{i:02d}" for i in range(40)]
        for n in names:
            await one.append(n, 0, [ev("A")])
        for version in range(1, 4):
            got = await asyncio.gather(
                *(one.append(n, version, [ev("B")]) for n in names),
                *(two.append(n, version, [ev("B")]) for n in reversed(names)),
                return_exceptions=True,
            )
            assert not [g for g in got if isinstance(g, BaseException) and not isinstance(g, VersionConflict)]
            for n in names:
                assert [e.version for e in await one.read_stream(n)] == list(range(1, version + 2))
    finally:
        await one.close()
        await two.close()
    # A deadlock would not show in the outcomes (the batch PostgreSQL ends goes again, one append
    # at a time): the database's own count says. A backend's counts are in once it has exited.
    conn = await asyncpg.connect(fresh_database_url)
    try:
        for _ in range(100):
            if not await conn.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ):
                break
            await asyncio.sleep(0.05)
        await conn.execute("SELECT pg_stat_clear_snapshot()")
        deadlocks = await conn.fetchval("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")
        assert deadlocks == 0
    finally:
        await conn.close()


async def test_a_bad_append_in_a_batch_fails_alone_and_a_cancelled_flush_fails_its_callers(
    fresh_database_url: str,
) -> None:
    """One append PostgreSQL refuses (a NUL in its JSON) is that append's error, not its batch's;
    and a store stopped while a batch is under way tells every caller so: none waits for ever."""
    store = await PostgresEventStore.connect(fresh_database_url)
    try:
        got = await asyncio.gather(
            *(store.append(f"g{i}", 0, [ev("A", i)], command_id="c") for i in range(5)),
            store.append("bad", 0, [NewEvent("A", {"text": "\x00"})], command_id="c"),
            return_exceptions=True,
        )
        assert [isinstance(g, AppendResult) for g in got] == [True] * 5 + [False]
        assert isinstance(got[5], asyncpg.PostgresError), got[5]
        assert await store.read_stream("bad") == [] and await store.find_command("bad", "c") is None
        assert [len(await store.read_stream(f"g{i}")) for i in range(5)] == [1] * 5

        calls = [asyncio.ensure_future(store.append(f"h{i}", 0, [ev("A")])) for i in range(5)]
        while store._flusher is None:
            await asyncio.sleep(0)
        store._flusher.cancel()
        outcomes = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), timeout=10)
        assert all(isinstance(o, (AppendResult, ConnectionError)) for o in outcomes), outcomes
        await store.append("after", 0, [ev("A")])  # the next append starts a flush of its own
    finally:
        await store.close()


async def test_an_append_past_the_stream_s_end_writes_nothing_at_all(store: EventStore) -> None:
    """An expected version the stream has not reached: no events, and neither its command nor its
    timer (alone, or in a group commit)."""
    await store.append("s", 0, [ev("A")], command_id="c0", due_at_ms=1_000)
    await store.append("t", 0, [ev("A")], command_id="c0", due_at_ms=1_000)
    got = await asyncio.gather(
        store.append("s", 5, [ev("B")], command_id="c1", due_at_ms=None),
        store.append("t", 5, [ev("B")], command_id="c1", due_at_ms=2_000),
        return_exceptions=True,
    )
    assert all(isinstance(g, VersionConflict) for g in got), got
    with pytest.raises(VersionConflict):  # alone
        await store.append("s", 7, [ev("B")], command_id="c2", due_at_ms=None)
    for name in ("s", "t"):
        assert len(await store.read_stream(name)) == 1
        assert await store.find_command(name, "c1") is None and await store.find_command(name, "c2") is None
    if isinstance(store, PostgresEventStore):
        assert [await store.timer("s"), await store.timer("t")] == [1_000, 1_000]

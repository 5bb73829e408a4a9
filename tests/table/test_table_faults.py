"""The table service under faults: NATS down, the service killed, watchers reconnecting."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import pytest
from breaks import ready_all
from okeycore.classic.bots import GreedyBot
from okeycore.options import TableOptions
from okeyplatform.auth import issue_token, token_secret
from okeyplatform.client import TableClient
from okeyplatform.contract import classic_view_from_pb
from okeyplatform.eventstore import PostgresEventStore
from okeytools.embedded import EmbeddedNats, free_port
from okeytools.stack import wait_healthy
from table_helpers import create_as_lobby, jetstream_versions

from services.table.main import TableService

PLAYERS = ("ali", "ayse", "mehmet", "zeynep")


async def play_moves(clients: list[TableClient], table_id: str, n: int) -> None:
    """``n`` moves by the seat whose turn it is; a hand that ends on the way is followed by the
    next (every seat says Ready [P-BREAK-3], which is not a move), so a quick finish by the
    deal's luck does not end the test's play."""
    bots = [GreedyBot(i) for i in range(4)]
    played = 0
    while played < n:
        v = classic_view_from_pb(await clients[0].view(table_id, 0))
        if v.phase.value == "MATCH_OVER":
            return
        if await ready_all(clients, table_id, v):
            continue
        played += 1
        seat = v.turn
        view = classic_view_from_pb(await clients[seat].view(table_id, seat))
        await clients[seat].act(table_id, bots[seat].act(view))


async def test_nats_stopped_mid_match_commands_succeed_and_relay_catches_up(
    fresh_database_url: str, embedded_nats: EmbeddedNats
) -> None:
    svc = TableService(fresh_database_url, embedded_nats.url, "127.0.0.1:0", grace_ms=300)
    await svc.start()
    clients = [TableClient(f"127.0.0.1:{svc.port}", issue_token(p)) for p in PLAYERS]
    try:
        await create_as_lobby(f"127.0.0.1:{svc.port}", TableOptions(), PLAYERS, "t-nats")
        await play_moves(clients, "t-nats", 10)
        await asyncio.to_thread(embedded_nats.stop)
        await play_moves(clients, "t-nats", 20)  # commands keep succeeding with NATS down
        await asyncio.to_thread(embedded_nats.start)
        await play_moves(clients, "t-nats", 5)
        version = classic_view_from_pb(await clients[0].view("t-nats")).version
        versions = await jetstream_versions(embedded_nats.url, "t-nats", version)
        # every event exactly once, in order: nothing lost, nothing twice
        assert versions == list(range(1, version + 1))
    finally:
        for c in clients:
            await c.close()
        await svc.stop(grace_s=1.0)


async def test_watch_streams_the_seat_view_and_resumes_without_gap_or_duplicate(
    table_service: TableService, client_for: Callable[[str], TableClient]
) -> None:
    clients = [client_for(p) for p in PLAYERS]
    await client_for("lobby", "service").create_table(TableOptions(), PLAYERS, table_id="t-watch")
    seen: list[int] = []
    racks_seen: list[tuple[int, ...]] = []

    async def watch(after: int, count: int) -> None:
        stream: AsyncIterator = clients[1].watch("t-watch", seat=1, after_version=after)
        first = True
        got = 0
        async for msg in stream:
            if first:
                assert msg.HasField("snapshot")
                first = False
                continue
            seen.append(msg.event.version)
            got += 1
            v = msg.view
            racks_seen.append(tuple(t.id for t in v.rack))
            # no other seat's rack, ever, while the hand runs [section 7]
            if v.phase == 2:  # PLAYING
                assert all(len(s.rack) == 0 for s in v.seats)
            which = msg.event.WhichOneof("event")
            if which == "hand_started":
                for i, rack in enumerate(msg.event.hand_started.racks):
                    if i != 1:
                        assert all(t.id == -1 for t in rack.tiles)
                assert all(t.id == -1 for t in msg.event.hand_started.deck)
            if which == "tile_drawn" and msg.event.tile_drawn.seat != 1 and msg.event.tile_drawn.source == 1:
                assert msg.event.tile_drawn.tile.id == -1
            if got >= count:
                break

    # No wait for the watch to connect: it resumes after version 2, so it gets moves made before it is in place.
    task = asyncio.create_task(watch(2, 12))
    await play_moves(clients, "t-watch", 12)
    await asyncio.wait_for(task, timeout=20)
    assert seen == list(range(3, 15))
    # disconnect, more moves happen, reconnect from the last version seen
    await play_moves(clients, "t-watch", 6)
    task = asyncio.create_task(watch(seen[-1], 6))
    await asyncio.wait_for(task, timeout=20)
    assert seen == list(range(3, 21))


@pytest.fixture
def table_process_env(fresh_database_url: str, nats_url: str) -> dict[str, str]:
    token_secret()  # make sure the secret exists, so tests and the child share it
    env = dict(os.environ)
    env.update(
        OKEY_DATABASE_URL=fresh_database_url,
        OKEY_NATS_URL=nats_url,
        OKEY_TABLE_ADDR=f"127.0.0.1:{free_port()}",
        OKEY_TIMEOUT_GRACE_MS="300",
        OKEY_LOG_FORMAT="json",
    )
    return env


def start_table_process(env: dict[str, str]) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "okeytools.cli", "serve", "table"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_healthy(env["OKEY_TABLE_ADDR"], proc=proc)
    return proc


async def test_service_killed_mid_hand_resumes_state_and_timers(table_process_env: dict[str, str]) -> None:
    env = table_process_env
    proc = await asyncio.to_thread(start_table_process, env)
    clients = [TableClient(env["OKEY_TABLE_ADDR"], issue_token(p)) for p in PLAYERS]
    try:
        await create_as_lobby(env["OKEY_TABLE_ADDR"], TableOptions(turn_seconds=5), PLAYERS, "t-kill")
        await play_moves(clients, "t-kill", 7)
        before = classic_view_from_pb(await clients[0].view("t-kill", 0))
        proc.send_signal(signal.SIGKILL)  # kill -9 mid-hand
        proc.wait(timeout=10)
        # While it is down the turn's deadline passes. The timer lives in the database: read
        # there, and waited for until it is due by the clock the timers are claimed with (not the
        # view's deadline and half a second more).
        due_ms = await _stored_timer(env["OKEY_DATABASE_URL"], "t-kill")
        assert due_ms == before.deadline_ms, f"stored timer {due_ms}, turn deadline {before.deadline_ms}"
        while (left_ms := due_ms - _now_ms()) >= 0:
            await asyncio.sleep(left_ms / 1000 + 0.001)
        proc = await asyncio.to_thread(start_table_process, env)
        after = classic_view_from_pb(await clients[0].view("t-kill", 0))
        assert after.version >= before.version
        assert after.hand == before.hand
        # the timer survived the restart: the turn times out and its move is played [C-TIME-1]
        for _ in range(60):
            events = await clients[0].events("t-kill", after_version=before.version)
            kinds = [e.WhichOneof("event") for e in events]
            if "turn_timed_out" in kinds and "tile_discarded" in kinds:
                break
            await asyncio.sleep(0.25)
        assert "turn_timed_out" in kinds and "tile_discarded" in kinds
        timed = next(e for e in events if e.WhichOneof("event") == "turn_timed_out").turn_timed_out
        assert timed.seat == before.turn and timed.consecutive == 1
        # and play goes on: the next seat's turn is played through the restarted service
        now = classic_view_from_pb(await clients[0].view("t-kill", 0))
        assert now.turn == (before.turn + 1) % 4 and now.phase.value == "PLAYING", now
        await play_moves(clients, "t-kill", 2)  # its draw and its discard
        later = classic_view_from_pb(await clients[0].view("t-kill", 0))
        assert later.version >= now.version + 2 and later.turn == (now.turn + 1) % 4, later
    finally:
        for c in clients:
            await c.close()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)


async def _stored_timer(database_url: str, table_id: str) -> int | None:
    store = await PostgresEventStore.connect(database_url, min_size=1, max_size=1)
    try:
        return await store.timer(table_id)
    finally:
        await store.close()


def _now_ms() -> int:
    import time

    return int(time.time() * 1000)


def _worker_pids(parent: int) -> set[int]:
    """The supervisor's children: its workers (it starts nothing else)."""
    from okeybench.common import proc_table

    return {pid for pid, (_, ppid, _) in proc_table().items() if ppid == parent}


async def test_a_worker_killed_under_table_workers_is_started_again(table_process_env: dict[str, str]) -> None:
    """OKEY_TABLE_WORKERS=2: kill -9 one worker; the supervisor starts a new one, the service
    answers throughout (the other worker holds the port), and SIGTERM still stops them all."""
    import time

    env = dict(table_process_env, OKEY_TABLE_WORKERS="2")
    proc = await asyncio.to_thread(start_table_process, env)
    client: TableClient | None = None
    seen: set[int] = set()
    try:
        deadline = time.monotonic() + 30
        while len(first := _worker_pids(proc.pid)) < 2:
            assert time.monotonic() < deadline, "two workers never ran"
            await asyncio.sleep(0.1)
        victim = min(first)
        os.kill(victim, signal.SIGKILL)
        # The other worker answers: a new connection reaches the listener left on the port (one
        # open to the killed worker was reset: callers retry UNAVAILABLE, as gRPC clients do).
        client = TableClient(env["OKEY_TABLE_ADDR"], issue_token("ali"))
        for attempt in range(20):
            try:
                await create_as_lobby(env["OKEY_TABLE_ADDR"], TableOptions(), PLAYERS, "t-supervised")
                break
            except grpc.aio.AioRpcError as err:
                assert err.code() == grpc.StatusCode.UNAVAILABLE and attempt < 19, err
                await asyncio.sleep(0.1)
        deadline = time.monotonic() + 30
        while True:
            now = _worker_pids(proc.pid)
            seen |= first | now
            if len(now) == 2 and victim not in now:
                break
            assert time.monotonic() < deadline, f"the killed worker was not replaced: {now}"
            await asyncio.sleep(0.2)
        await asyncio.to_thread(wait_healthy, env["OKEY_TABLE_ADDR"], 30.0, proc)
        assert classic_view_from_pb(await client.view("t-supervised", 0)).version >= 1
    finally:
        if client is not None:
            await client.close()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
    assert len(seen) == 3
    assert not [p for p in seen if os.path.exists(f"/proc/{p}")], "workers left running after SIGTERM"


async def test_a_move_through_another_replica_reaches_a_watcher_at_once(
    fresh_database_url: str, nats_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two replicas on one database: a seat watches through replica A while every move goes
    through replica B. The append's NOTIFY wakes A's watcher, which gets each event at once; the
    store poll (stretched to 30 s here) would otherwise be the only way it hears of them."""

    from services.table import api

    monkeypatch.setattr(api, "WATCH_POLL_S", 30.0)
    a = TableService(fresh_database_url, nats_url, "127.0.0.1:0", grace_ms=300, listen_idle_s=0.3)
    b = TableService(fresh_database_url, nats_url, "127.0.0.1:0", grace_ms=300)
    await a.start()
    await b.start()

    async def until(cond: Callable[[], bool]) -> None:
        for _ in range(100):
            if cond():
                return
            await asyncio.sleep(0.05)
        raise AssertionError("not within 5 s")

    via_b = [TableClient(f"127.0.0.1:{b.port}", issue_token(p)) for p in PLAYERS]
    watcher = TableClient(f"127.0.0.1:{a.port}", issue_token(PLAYERS[1]))
    try:
        await create_as_lobby(f"127.0.0.1:{b.port}", TableOptions(), PLAYERS, "t-replicas-watch")
        # Nobody watches here: no listening connection to pay for. A listens only once a watch
        # sets its app's `watching`, so that unset is the reason, checked with no pause.
        assert not a.app.watching.is_set() and not a.listening
        stream: Any = watcher.watch("t-replicas-watch", seat=1)  # a grpc.aio stream call: read() the next
        first = await asyncio.wait_for(stream.read(), timeout=10)
        assert first.HasField("snapshot")
        await until(lambda: a.listening)
        last = first.snapshot.version
        for _ in range(6):
            await play_moves(via_b, "t-replicas-watch", 1)
            moved = classic_view_from_pb(await via_b[0].view("t-replicas-watch")).version
            while last < moved:
                # the store poll would take 30 s: well inside it means the NOTIFY woke the watcher
                msg = await asyncio.wait_for(stream.read(), timeout=10)
                assert msg.event.version == last + 1  # no gap, no duplicate
                last = msg.event.version
        # the listening connection dies (PostgreSQL restarted, a failover): A listens again
        import asyncpg

        listens = a.listens
        admin = await asyncpg.connect(fresh_database_url)
        try:
            killed = await admin.fetchval(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND query ILIKE 'LISTEN%'"
            )
        finally:
            await admin.close()
        assert killed >= 1
        await until(lambda: a.listens > listens and a.listening)  # set once its LISTEN is in place
        await play_moves(via_b, "t-replicas-watch", 1)
        moved = classic_view_from_pb(await via_b[0].view("t-replicas-watch")).version
        while last < moved:
            msg = await asyncio.wait_for(stream.read(), timeout=5)
            assert msg.event.version == last + 1
            last = msg.event.version
        stream.cancel()  # the seat stops watching: the replica hangs up after its idle time
        await until(lambda: not a.listening)
    finally:
        for c in [*via_b, watcher]:
            await c.close()
        await a.stop(grace_s=1.0)
        await b.stop(grace_s=1.0)


async def test_a_view_asked_with_min_version_catches_a_replica_s_older_cache_up(
    fresh_database_url: str, nats_url: str
) -> None:
    """Replica A caches a table; replica B then writes to it. A's cached view is still the old
    one (a read answers from the cache), but asked with ``min_version`` A catches up with the
    store first: how a bot called by an event reads the table the event came from."""
    a = TableService(fresh_database_url, nats_url, "127.0.0.1:0", grace_ms=300)
    b = TableService(fresh_database_url, nats_url, "127.0.0.1:0", grace_ms=300)
    await a.start()
    await b.start()
    via_b = [TableClient(f"127.0.0.1:{b.port}", issue_token(p)) for p in PLAYERS]
    via_a = TableClient(f"127.0.0.1:{a.port}", issue_token(PLAYERS[0]))
    tid = "t-min-version"
    try:
        await create_as_lobby(f"127.0.0.1:{b.port}", TableOptions(), PLAYERS, tid)
        cached = (await via_a.view(tid, seat=0)).version
        await play_moves(via_b, tid, 3)
        moved = (await via_b[0].view(tid, seat=0)).version
        assert moved > cached
        assert (await via_a.view(tid, seat=0)).version == cached  # the cache, as it was
        caught_up = await via_a.view(tid, seat=0, min_version=moved)
        assert caught_up.version == moved
        assert classic_view_from_pb(caught_up) == classic_view_from_pb(await via_b[0].view(tid, seat=0))
        # past the stream's end is no error: the latest view, whose version says how far it is
        assert (await via_a.view(tid, seat=0, min_version=moved + 1_000_000)).version == moved
        with pytest.raises(grpc.aio.AioRpcError) as bad:
            await via_a.view(tid, seat=0, min_version=-1)
        assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        for c in [*via_b, via_a]:
            await c.close()
        await a.stop(grace_s=1.0)
        await b.stop(grace_s=1.0)

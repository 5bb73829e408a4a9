"""``okey bench table``: moves through gRPC -> append -> publish, at N concurrent tables.

The table service runs in its own process (as in production); this process drives N tables
with a minimal bot per table (draw from the deck, discard the drawn tile) through the public
gRPC API, timing every Act call. The same run measures the raw asyncpg single-row
insert+commit rate on the same database, and how far the NATS relay lags at the end."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import time

import asyncpg
import grpc
from okey.v1 import table_service_pb2 as pb
from okey.v1 import table_service_pb2_grpc as pb_grpc
from okeycore.options import TableOptions
from okeyplatform.auth import issue_token, token_secret
from okeyplatform.embedded import free_port, resolve_infra, with_database
from okeyplatform.protoconv import options_pb
from okeyplatform.up import wait_healthy

from .common import machine, ms, percentile


class TableBot:
    """Plays all four seats of one table with the cheapest legal moves, tracking the turn
    from the events each Act returns (the acting seat sees its own drawn tile)."""

    def __init__(self, stub: pb_grpc.TableServiceStub, meta: tuple[tuple[str, str], ...], table_id: str) -> None:
        self.stub = stub
        self.meta = meta
        self.table_id = table_id
        self.turn = 0
        self.rack0: int | None = None  # the starter's discard at a new hand
        self.n = 0

    async def _act(self, seat: int, latencies: list[float], **kind: object) -> pb.ActResponse:
        self.n += 1
        req = pb.ActRequest(table_id=self.table_id, command_id=f"b{self.n}", seat=seat, **kind)  # type: ignore[arg-type]
        t0 = time.perf_counter()
        resp: pb.ActResponse = await self.stub.Act(req, metadata=self.meta)
        latencies.append(time.perf_counter() - t0)
        return resp

    async def start(self) -> None:
        view = (await self.stub.GetView(pb.GetViewRequest(table_id=self.table_id), metadata=self.meta)).view
        self.turn = view.turn
        await self._new_hand_rack()

    async def _new_hand_rack(self) -> None:
        v = (
            await self.stub.GetView(pb.GetViewRequest(table_id=self.table_id, seat=self.turn), metadata=self.meta)
        ).view
        self.rack0 = v.rack[0].id

    async def run(self, until: float, latencies: list[float], interval: float = 0.0) -> int:
        """Play until ``until``; with ``interval`` > 0, one move every ``interval`` seconds on
        average (a player's thinking time), otherwise back to back."""
        moves = 0
        next_at = time.perf_counter()
        while time.perf_counter() < until:
            if interval:
                next_at += 2 * interval  # two moves (draw, discard) per loop
                delay = next_at - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
            seat = self.turn
            if self.rack0 is not None:
                tile = self.rack0
                self.rack0 = None
            else:
                resp = await self._act(seat, latencies, draw=pb.DrawCommand())
                moves += 1
                tile = next(e.tile_drawn.tile.id for e in resp.events if e.WhichOneof("event") == "tile_drawn")
            resp = await self._act(seat, latencies, discard=pb.DiscardCommand(tile_id=tile))
            moves += 1
            for e in resp.events:
                which = e.WhichOneof("event")
                if which == "tile_discarded" and e.tile_discarded.next_seat >= 0:
                    self.turn = e.tile_discarded.next_seat
                elif which == "hand_started":
                    self.turn = e.hand_started.starter
                    await self._new_hand_rack()
        return moves


async def raw_commit_rate(dsn: str, seconds: float, concurrency: int) -> float:
    """Single-row INSERT + COMMIT (autocommit) from ``concurrency`` connections."""
    conn = await asyncpg.connect(dsn)
    await conn.execute("CREATE TABLE IF NOT EXISTS bench_raw (id BIGSERIAL PRIMARY KEY, v TEXT NOT NULL)")
    await conn.close()
    pool = await asyncpg.create_pool(dsn, min_size=concurrency, max_size=concurrency)
    assert pool is not None
    count = 0
    until = time.perf_counter() + seconds

    async def worker() -> None:
        nonlocal count
        async with pool.acquire() as c:
            while time.perf_counter() < until:
                await c.execute("INSERT INTO bench_raw (v) VALUES ($1)", "x")
                count += 1

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    rate = count / (time.perf_counter() - t0)
    await pool.close()
    return rate


async def relay_lag(dsn: str, timeout: float = 60.0) -> float:
    """Seconds until the relay's cursor reaches the last committed event."""
    conn = await asyncpg.connect(dsn)
    try:
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < timeout:
            done = await conn.fetchval(
                "SELECT coalesce((SELECT (c.tx, c.position) >= (e.tx, e.position) FROM okey_cursors c, "
                "(SELECT tx, position FROM okey_events ORDER BY tx DESC, position DESC LIMIT 1) e "
                "WHERE c.name = 'relay'), false)"
            )
            if done:
                return time.perf_counter() - t0
            await asyncio.sleep(0.05)
        return float("inf")
    finally:
        await conn.close()


async def one_level(
    target: str, token: str, n: int, seconds: float, offered: float | None = None, channels: int = 8
) -> tuple[float, list[float], int]:
    """N tables over ``channels`` connections; ``offered`` moves/s in total, or as fast as
    the service answers when None. Returns (moves/s, sorted Act latencies, moves)."""
    opts = [("grpc.use_local_subchannel_pool", 1)]
    chans = [grpc.aio.insecure_channel(target, options=opts) for _ in range(channels)]
    stubs = [pb_grpc.TableServiceStub(c) for c in chans]
    meta = (("authorization", f"Bearer {token}"),)
    stamp = int(time.time() * 1000)
    sem = asyncio.Semaphore(50)

    async def create(i: int) -> TableBot:
        async with sem:
            stub = stubs[i % channels]
            tid = f"bench-{n}-{stamp}-{i}"
            req = pb.CreateTableRequest(table_id=tid, options=options_pb(TableOptions(turn_seconds=120)))
            await stub.CreateTable(req, metadata=meta)
            bot = TableBot(stub, meta, tid)
            await bot.start()
            return bot

    bots = await asyncio.gather(*(create(i) for i in range(n)))
    latencies: list[float] = []
    interval = n / offered if offered else 0.0
    t0 = time.perf_counter()
    until = t0 + seconds
    counts = await asyncio.gather(*(b.run(until, latencies, interval) for b in bots))
    elapsed = time.perf_counter() - t0
    for c in chans:
        await c.close()
    latencies.sort()
    return sum(counts) / elapsed, latencies, sum(counts)


def run(args: argparse.Namespace) -> int:
    levels = [10, 100] if args.quick else [10, 100, 500]
    seconds = 5.0 if args.quick else 20.0
    workers = int(os.environ.get("OKEY_TABLE_WORKERS", "2"))
    print(
        f"okey bench table  ({'quick' if args.quick else 'full'}: {seconds:.0f} s per level, "
        f"{workers} table-service worker process(es), OKEY_TABLE_WORKERS to change)"
    )
    print(f"machine: {machine()}")
    with resolve_infra() as infra:
        print(
            f"PostgreSQL: {'embedded (fsync off)' if infra.postgres else 'OKEY_DATABASE_URL'}, "
            f"NATS: {'embedded' if infra.nats else 'OKEY_NATS_URL'}"
        )
        return asyncio.run(_run(infra.database_url, infra.nats_url, levels, seconds, workers))


async def _run(base_url: str, nats_url: str, levels: list[int], seconds: float, workers: int) -> int:
    name = f"okey_bench_{int(time.time())}"
    admin = await asyncpg.connect(base_url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    dsn = with_database(base_url, name)
    token_secret()
    env = dict(os.environ)
    addr = f"127.0.0.1:{free_port()}"
    env.update(
        OKEY_DATABASE_URL=dsn,
        OKEY_NATS_URL=nats_url,
        OKEY_TABLE_ADDR=addr,
        OKEY_LOG_LEVEL="WARNING",
        OKEY_TABLE_WORKERS=str(workers),
    )
    proc = subprocess.Popen([sys.executable, "-m", "okeyplatform.cli", "serve", "table"], env=env)
    try:
        await asyncio.to_thread(wait_healthy, addr, 60.0, proc)
        token = issue_token("bench-bots", "service")
        raw = await raw_commit_rate(dsn, min(seconds, 10.0), 20)
        print(f"\nraw asyncpg single-row INSERT+COMMIT, 20 connections: {raw:,.0f} commits/s")
        cols = ("tables", 7), ("offered", 9), ("moves/s", 9), ("p50", 10), ("p99", 10), ("max", 10), ("moves", 8)
        header = " ".join(f"{c:>{w}}" for c, w in cols) + f" {'of raw':>7}"
        print("\n" + header)
        plan: list[tuple[int, float | None]] = [(n, 1000.0) for n in levels] + [(levels[-1], None)]
        for n, offered in plan:
            label = f"{offered:,.0f}/s" if offered else "max"
            sys.stderr.write(f"  running {n} tables, offered {label}, for {seconds:.0f} s ...\n")
            rate, lat, moves = await one_level(addr, token, n, seconds, offered)
            print(
                f"{n:>7} {label:>9} {rate:>9,.0f} {ms(percentile(lat, 50)):>10} {ms(percentile(lat, 99)):>10} "
                f"{ms(lat[-1]):>10} {moves:>8,} {rate / raw:>6.0%}"
            )
        lag = await relay_lag(dsn)
        print(f"\nrelay: every committed event published to JetStream {lag:.2f} s after the load stopped")
        print("targets: >= 1,000 moves/s at 500 tables with p99 <= 50 ms, and >= 50% of the raw commit rate")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        admin = await asyncpg.connect(base_url)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
    return 0

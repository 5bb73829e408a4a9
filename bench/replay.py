"""``okey bench replay``: rebuilding the scoring projections from the event log, and the live
projection's lag under a load.

1. A log of bot matches (okeycore ``Simulator``, greedy bots, mixed table options, interleaved
   as tables interleave in a real log) is bulk-loaded into ``okey_events`` with COPY: 1,000,000
   events (``--quick``: 20,000).
2. ``okey replay``'s own code rebuilds every projection from it (PostgreSQL picks out the
   events a projection reads, project, COPY into fresh tables, swap): events/s, target
   ``REBUILD_TARGET``.
3. ``okey replay --verify``'s check alone (okeycore folds every stream and re-decides every
   result, in parallel partitions of whole tables, ``verify_log``) over the same log: events/s,
   target ``VERIFY_TARGET``. ``--one-pass`` also times the one-pass reader of both (the code
   before issue 48, ``partitions=0``) on the same log: before and after in one run.
4. ``okey export --all``'s own code over the same log into Parquet (every table: events, moves,
   hands, matches, seats), in as many processes as it uses by default: events/s.
5. Lag: the table service (its relay) and the scoring service run in this process while
   simulated tables append their events at a steady rate; for every event the projector
   applies, the time from its commit in the log to its projection is recorded."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
from okeycore.classic.bots import GreedyBot
from okeycore.events import Event, HandStarted, TableCreated, event_to_dict
from okeycore.options import TableOptions
from okeycore.simulate import Simulator
from okeyplatform.eventstore import NewEvent, PostgresEventStore
from okeytools.embedded import resolve_infra, with_database

from .common import machine, ms, percentile, servers_line
from .record import Section, Table, command_line, record

FULL_EVENTS = 1_000_000
QUICK_EVENTS = 20_000
REBUILD_TARGET = 150_000  # events/s, okey replay (issue 48)
VERIFY_TARGET = 50_000  # events/s, okey replay --verify's check (issue 48)
PLAYER_POOL = 3000
COLUMNS = ["stream_id", "version", "type", "data", "hand", "recorded_at"]


def bot_match(table_id: str, seed: int) -> list[Event]:
    """One classic match between greedy bots, with varied options and players per seat."""
    rng = random.Random(seed)
    options = TableOptions(
        match_points=rng.choice([10, 14, 20]),
        stake=rng.choice([0, 10, 25]),
        colored=rng.random() < 0.3,
        partners=rng.random() < 0.2,
        penalties=rng.random() < 0.3,
        hand_break_seconds=0,  # simulated without breaks: the players are written in afterwards
    )
    players = [f"p{rng.randrange(PLAYER_POOL)}" for _ in range(4)]
    if rng.random() < 0.25:
        players[3] = ""  # a bot seat
    events = Simulator(options, [GreedyBot(i) for i in range(4)], seed=seed, table_id=table_id).play_match().events
    first = events[0]
    assert isinstance(first, TableCreated)
    return [replace(first, players=tuple(players)), *events[1:]]


def _rows(table_id: str, events: list[Event], start: datetime) -> list[tuple[Any, ...]]:
    out = []
    hand = 0
    for v, e in enumerate(events, 1):
        if isinstance(e, HandStarted):
            hand = e.hand
        d = event_to_dict(e)
        d.pop("type")
        out.append((table_id, v, e.type, json.dumps(d, separators=(",", ":")), hand, start + timedelta(seconds=v)))
    return out


def _interleave(tables: list[list[tuple[Any, ...]]]) -> list[tuple[Any, ...]]:
    """Round-robin, a few events at a time: tables' events interleave as in a real log."""
    out: list[tuple[Any, ...]] = []
    pos = [0] * len(tables)
    rng = random.Random(len(tables))
    live = list(range(len(tables)))
    while live:
        i = rng.choice(live)
        rows = tables[i]
        step = rng.randint(1, 4)
        out += rows[pos[i] : pos[i] + step]
        pos[i] += step
        if pos[i] >= len(rows):
            live.remove(i)
    return out


def generate(dsn: str, worker: int, workers: int, target: int, seed: int) -> tuple[int, int]:
    """One generator process: simulate matches 40 at a time, COPY them interleaved, until its
    share of ``target`` events is written. Returns (events, matches)."""
    return asyncio.run(_generate(dsn, worker, workers, target, seed))


async def _generate(dsn: str, worker: int, workers: int, target: int, seed: int) -> tuple[int, int]:
    conn = await asyncpg.connect(dsn)
    share = target // workers + (1 if worker < target % workers else 0)
    written = matches = 0
    base = datetime.now(UTC) - timedelta(days=28)
    k = 0
    try:
        while written < share:
            group = []
            for _ in range(40):
                n = k * workers + worker
                k += 1
                events = bot_match(f"b{seed}-{n}", seed * 1_000_003 + n)
                start = base + timedelta(seconds=(n * 1013) % (28 * 86400))
                group.append(_rows(f"b{seed}-{n}", events, start))
                matches += 1
                if written + sum(len(g) for g in group) >= share:
                    break
            rows = _interleave(group)
            await conn.copy_records_to_table("okey_events", records=rows, columns=COLUMNS)
            written += len(rows)
    finally:
        await conn.close()
    return written, matches


MAX_EVENTS = 20_000_000  # a log the bench generates and loads in memory; more would not fit here


def run(args: argparse.Namespace) -> int:
    asked = getattr(args, "events", None)
    if asked is not None and not 1_000 <= asked <= MAX_EVENTS:
        print(f"okey bench replay: --events {asked}: give 1,000 to {MAX_EVENTS:,} events", file=sys.stderr)
        return 2
    target = asked or (QUICK_EVENTS if args.quick else FULL_EVENTS)
    print(f"okey bench replay  ({'quick' if args.quick else 'full'}: a log of {target:,} events of bot matches)")
    print(f"machine: {machine()}")
    with resolve_infra() as infra:
        servers = servers_line(infra)
        print(servers)
        one_pass = bool(getattr(args, "one_pass", False))
        rows = asyncio.run(_run(infra.database_url, infra.nats_url, target, args.seed, args.quick, one_pass))
    record(
        args,
        Section(
            "replay",
            command_line("replay", args),
            [Table(("measure", "target", "measured"), rows)],
            servers=servers + "; the log generated by okeycore's simulator (greedy bots) and loaded with COPY",
        ),
    )
    return 0


async def _fresh_db(base_url: str, name: str) -> str:
    admin = await asyncpg.connect(base_url)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return with_database(base_url, name)


async def _drop_db(base_url: str, name: str) -> None:
    admin = await asyncpg.connect(base_url)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


async def _run(
    base_url: str, nats_url: str, target: int, seed: int, quick: bool, one_pass: bool = False
) -> list[tuple[str, str, str]]:
    """The four steps; returns the rows of the record (measure, target, measured)."""
    from okeytools.replay import PARTITIONS, LogVerifier, replay, verify_log

    from services.scoring.store import ScoringStore

    stamp = int(time.time())
    name = f"okey_bench_replay_{stamp}"
    dsn = await _fresh_db(base_url, name)
    try:
        events = await PostgresEventStore.connect(dsn, min_size=1, max_size=3)
        scoring = await ScoringStore.connect(dsn, min_size=1, max_size=2)
        try:
            # 1. the log
            workers = 1 if quick else min(2, os.cpu_count() or 1)
            print(f"\ngenerating the log: bot matches simulated by okeycore in {workers} process(es), COPY ...")
            t0 = time.perf_counter()
            loop = asyncio.get_running_loop()
            with ProcessPoolExecutor(workers) as pool:
                parts = await asyncio.gather(
                    *(loop.run_in_executor(pool, generate, dsn, w, workers, target, seed) for w in range(workers))
                )
            total = sum(p[0] for p in parts)
            matches = sum(p[1] for p in parts)
            async with events.pool.acquire() as conn:
                await conn.execute("ANALYZE okey_events")
            print(f"  {total:,} events of {matches:,} matches written in {time.perf_counter() - t0:.0f} s")

            # 2. the rebuild, as `okey replay` runs it
            rows = []
            for label, parts in (("one pass, before issue 48", 0),) * one_pass + (("", None),):
                print(f"\nrebuilding every projection from the log (okey replay{'; ' + label if label else ''}) ...")
                report = await replay(events, scoring, swap=True, progress=_progress, partitions=parts, dsn=dsn)
                _clear()
                rebuilt = ", ".join(f"{n:,} {k.removeprefix('scoring_')}" for k, n in report.rows.items())
                print(f"  rebuilt {rebuilt}")
                print(
                    f"  read+project {report.read_s:.1f} s, COPY {report.write_s:.1f} s, swap {report.swap_s:.2f} s: "
                    f"{report.events:,} events in {report.seconds:.1f} s; load average {_load()}"
                )
                print(f"  replay: {report.rate:,.0f} events/s  (target >= {REBUILD_TARGET:,})")
                rows.append(
                    (
                        f"rebuilding every scoring projection from the log ({total:,} events of {matches:,} matches)"
                        + (f" ({label})" if label else ""),
                        "" if label else f">= {REBUILD_TARGET:,} events/s",
                        f"{report.rate:,.0f} events/s ({report.seconds:.1f} s: read + project {report.read_s:.1f} s, "
                        f"COPY {report.write_s:.1f} s, swap {report.swap_s:.2f} s)",
                    )
                )

            # 3. the verification alone
            if one_pass:
                print("\nverifying every stream with okeycore (one pass, before issue 48) ...")
                verify_rate, problems = await _verify(events, LogVerifier())
                _clear()
                print(f"  verify: {verify_rate:,.0f} events/s, {len(problems)} problems; load average {_load()}")
                rows.append(
                    (
                        "`--verify` (okeycore re-decides every recorded result) (one pass, before issue 48)",
                        "",
                        f"{verify_rate:,.0f} events/s, {len(problems)} problems",
                    )
                )
            print(f"\nverifying every stream with okeycore (okey replay --verify's check, {PARTITIONS} partitions) ...")
            checked = await verify_log(events, dsn=dsn, progress=_progress)
            _clear()
            print(
                f"  verify: {checked.rate:,.0f} events/s, {len(checked.problems)} problems; load average {_load()}"
                f"  (target >= {VERIFY_TARGET:,})"
            )
            rows.append(
                (
                    f"`--verify` (okeycore re-decides every recorded result; {PARTITIONS} processes)",
                    f">= {VERIFY_TARGET:,} events/s",
                    f"{checked.rate:,.0f} events/s ({checked.seconds:.1f} s), {len(checked.problems)} problems",
                )
            )

            # 4. the export to Parquet
            rows.append(await _export(events, dsn))
        finally:
            await scoring.close()
            await events.close()
    finally:
        await _drop_db(base_url, name)

    # 5. lag under load
    seconds, rate = (5.0, 300.0) if quick else (20.0, 1000.0)
    rows.append(await _lag(base_url, nats_url, seconds, rate, seed, stamp))
    return rows


EXPORT_TARGET = 100_000  # events/s, okey export --all to Parquet (issue 23)


async def _export(events: PostgresEventStore, dsn: str) -> tuple[str, str, str]:
    """``okey export --all --format parquet`` over the log, as the command runs it."""
    import shutil
    import tempfile
    from pathlib import Path

    from okeytools.export_all import ExportOptions, export_all

    workers = min(2, os.cpu_count() or 1)
    print(f"\nexporting the log to Parquet (okey export --all --no-coaching, {workers} process(es)) ...")
    out = Path(tempfile.mkdtemp(prefix="okey-bench-export-"))
    try:
        report = await export_all(
            # the export's own cost: coaching every hand (okeycore.coaching) is a cost of its own
            events,
            ExportOptions(out=out, workers=workers, coaching=False),
            progress=lambda n, s: _progress(n, 0, s),
            dsn=dsn,
        )
        size = sum(p.stat().st_size for p in out.rglob("*.parquet"))
    finally:
        shutil.rmtree(out, ignore_errors=True)
    _clear()
    written = ", ".join(f"{n:,} {t}" for t, n in report.written.items())
    print(f"  wrote {written} ({size / 2**20:,.1f} MiB in {len(report.files)} files)")
    print(f"  export: {report.rate:,.0f} events/s  (target >= {EXPORT_TARGET:,})")
    return (
        f"`okey export --all --no-coaching` to Parquet ({report.events:,} events; {workers} processes)",
        f">= {EXPORT_TARGET:,} events/s",
        f"{report.rate:,.0f} events/s ({report.seconds:.1f} s; {written}; {size / 2**20:,.1f} MiB)",
    )


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.2f} (1 min), {five:.2f} (5 min)"


def _progress(n: int, tables: int, seconds: float) -> None:
    import sys

    if sys.stderr.isatty():
        sys.stderr.write(f"\r  {n:,} events, {tables:,} tables, {n / max(seconds, 1e-9):,.0f} events/s   ")
        sys.stderr.flush()
    elif int(seconds) % 5 == 0:
        sys.stderr.write(f"  {n:,} events, {tables:,} tables, {n / max(seconds, 1e-9):,.0f} events/s\n")


def _clear() -> None:
    import sys

    if sys.stderr.isatty():
        sys.stderr.write("\r" + " " * 70 + "\r")
        sys.stderr.flush()


async def _verify(events: PostgresEventStore, verifier: Any) -> tuple[float, list[str]]:
    """The one-pass check (``--one-pass``): the whole log through one ``LogVerifier``."""
    from okeyplatform.eventstore import START

    cursor = START
    n = 0
    t0 = time.perf_counter()
    last = t0
    while True:
        batch = await events.read_all(cursor, 5000)
        if not batch:
            break
        cursor = batch[-1].global_position
        for e in batch:
            verifier.feed(e.stream_id, e.version, {"type": e.type, **e.data})
        n += len(batch)
        now = time.perf_counter()
        if now - last > 0.5:
            last = now
            _progress(n, len(verifier.streams), now - t0)
    problems = verifier.finish()
    return n / (time.perf_counter() - t0), problems


async def _lag(
    base_url: str, nats_url: str, seconds: float, rate: float, seed: int, stamp: int
) -> tuple[str, str, str]:
    """The live projection's lag under a steady load; returns its row of the record."""
    from services.scoring.main import ScoringService
    from services.table.main import TableService

    tables = 40
    print(f"\nprojection lag: {tables} tables appending {rate:,.0f} events/s for {seconds:.0f} s through the relay ...")
    need = int(rate * seconds * 1.3)
    streams: list[list[Event]] = []
    while sum(len(s) for s in streams) < need or len(streams) < tables:
        streams.append(bot_match(f"lag{stamp}-{len(streams)}", seed * 7919 + len(streams)))
    name = f"okey_bench_lag_{stamp}"
    dsn = await _fresh_db(base_url, name)
    lags: list[float] = []
    applied = 0

    def on_applied(items: Any) -> None:
        nonlocal applied
        now = datetime.now(UTC)
        applied += len(items)
        lags.extend((now - it.time).total_seconds() for it in items)

    table = TableService(dsn, nats_url, "127.0.0.1:0")
    scoring = ScoringService(dsn, nats_url, "127.0.0.1:0", durable=f"bench_{stamp}", on_applied=on_applied)
    await table.start()
    await scoring.start()
    store = table.store
    assert store is not None
    appended = 0
    try:
        queue = list(range(len(streams)))
        until = time.perf_counter() + seconds
        interval = tables * 2 / rate  # two events (a draw and a discard) per commit

        async def feed(slot: int) -> None:
            nonlocal appended
            next_at = time.perf_counter()
            while queue and time.perf_counter() < until:
                events = streams[queue.pop(0)]
                tid = events[0].table_id  # type: ignore[attr-defined]
                version = 0
                hand = 0
                for i in range(0, len(events), 2):
                    if time.perf_counter() >= until:
                        return
                    part = []
                    for e in events[i : i + 2]:
                        hand = e.hand if isinstance(e, HandStarted) else hand
                        d = event_to_dict(e)
                        d.pop("type")
                        part.append(NewEvent(e.type, d, hand))
                    version = (await store.append(tid, version, part)).last_version
                    appended += len(part)
                    next_at += interval
                    delay = next_at - time.perf_counter()
                    if delay > 0:
                        await asyncio.sleep(delay)

        t0 = time.perf_counter()
        await asyncio.gather(*(feed(i) for i in range(tables)))
        load_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        while applied < appended and time.perf_counter() - t1 < 120:
            await asyncio.sleep(0.02)
        catch_up = time.perf_counter() - t1
        lags.sort()
        print(f"  appended {appended:,} events ({appended / load_s:,.0f}/s), projected {applied:,}")
        print(
            f"  commit -> projected: p50 {ms(percentile(lags, 50))}, p99 {ms(percentile(lags, 99))}, "
            f"max {ms(lags[-1] if lags else float('nan'))}; caught up {catch_up:.2f} s after the load stopped"
        )
        return (
            f"projection lag, {appended / load_s:,.0f} events/s through the relay for {load_s:.0f} s",
            "",
            f"commit -> projection p50 {ms(percentile(lags, 50))}, p99 {ms(percentile(lags, 99))}; "
            f"caught up {catch_up:.1f} s after the load",
        )
    finally:
        await scoring.stop(grace_s=2.0)
        await table.stop(grace_s=2.0)
        await _drop_db(base_url, name)

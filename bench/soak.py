"""``okey bench soak``: many concurrent all-bot tables through the gateway, for minutes.

Starts PostgreSQL and NATS (embedded unless OKEY_DATABASE_URL / OKEY_NATS_URL are set) and every
service as its own process on free loopback ports, then keeps ``--tables`` tables (default 500)
open through the gateway, all four seats bots played by the bots service; a table whose match
ends is replaced by a new one. It runs for ``--minutes`` (default 10; ``--quick``: 20 tables for
half a minute) and stops by itself.

What it measures, following the event log (``read_all``, the relay's own reader):

- moves (appended commands: each bot move, and each timer move) and events per second;
- **move latency**: on each table, from the commit of one command to the commit of the next,
  that is the whole loop the bots go through: relay -> JetStream -> bots consumer -> GetView ->
  strategy -> Act -> append (p50, p99, max);
- **view latency**: GetView through the gateway, each table polled every few seconds as a
  client would;
- errors (failed gateway calls, services that exited), and **stuck tables**: tables that went
  ``stall_s`` seconds without a move (a lost event would leave one waiting for its turn timer).

``--faults`` injects, at even intervals, each fault of ``okeybench.faults`` (kill -9 of the
table, bots and scoring services, NATS down for ``--nats-down-seconds`` (default 30), PostgreSQL
restarted, PostgreSQL killed) and reports how long until every table moved again and the move
rate before and after. At the end the bots are stopped (the tables freeze) and the books are
checked (``okeybench.books``: log, JetStream, scoring projection, match results).

The same machinery (:class:`BotTables`) drives the load and fault tests in tests/resilience.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import random
import secrets
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc
from okeycore.classic.strategy import STRATEGIES
from okeycore.events import to_move
from okeycore.options import BOUNDS, TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeyplatform.contract import classic_view_from_pb
from okeyplatform.eventstore import GlobalPosition, PostgresEventStore

from services.bots.pacer import think_seconds

from .common import CpuMeter, machine, percentile, servers_line
from .record import Section, Table, command_line, record

if TYPE_CHECKING:
    from okeytools.embedded import EmbeddedNats, EmbeddedPostgres
    from okeytools.stack import Stack
    from okeytools.top import Samples

    from .books import BooksReport

__all__ = ["BotTables", "SoakReport", "run", "soak"]

DEFAULT_TABLES = 500
DEFAULT_MINUTES = 10.0
QUICK_TABLES = 20
QUICK_MINUTES = 0.5
PERSON_THINK_S = (2.0, 6.0)
"""--people: how long the simulated person at seat 0 thinks before each turn (uniform), well
within the turn's time (``turn_seconds``) so that the person's turns do not time out."""
PERSON_STRATEGY = STRATEGIES["greedy"]
TURN_BOUNDS_MAX = BOUNDS["turn_seconds"][1]


@dataclass
class _Track:
    table_id: str
    client: TableClient
    opened_at: float
    version: int = 0
    advanced_at: float = 0.0  # monotonic time the log reader last saw this table move
    last_tx: int = -1
    last_at: Any = None  # recorded_at of the table's last event (datetime)
    over: bool = False
    stalled: bool = False
    # --people: the simulated person at seat 0 playing (or asked to look again), and each bot
    # seat's earliest due time (the calling event's time plus the bots' think time for it).
    person_busy: bool = False
    person_again: bool = False
    bot_due: dict[int, Any] = field(default_factory=dict)


@dataclass
class SoakReport:
    tables_opened: int = 0
    matches_finished: int = 0
    moves: int = 0
    events: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)  # move latency, seconds
    view_latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    reader_errors: Counter[str] = field(default_factory=Counter)
    stalls: list[str] = field(default_factory=list)  # "<table>: no move for N s" (recovered or not)
    stuck: list[str] = field(default_factory=list)  # still without a move at the end
    exited: list[str] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds by process while the tables played
    # What the moves cost in calls while the tables played, from the services' own counters
    # (okey_* and grpc_server_* on /metrics): name -> count, over the same window as ``cpu``.
    work: dict[str, float] = field(default_factory=dict)
    people: bool = False  # --people: a simulated person at seat 0 of each table, the bots at its pace
    person_turns: int = 0
    bot_extra: list[float] = field(default_factory=list)  # seconds a paced bot moved after its think time
    bot_unpaced: int = 0  # bot turns played before their think time (the table's pace not known yet)

    def cpu_line(self) -> str:
        """CPU time per move by process (us), as ``okey bench table`` prints it; empty without /proc."""
        if not self.cpu or not self.moves:
            return ""
        parts = [f"{name} {sec / self.moves * 1e6:,.0f}" for name, sec in self.cpu.items()]
        return f"{', '.join(parts)}; all {sum(self.cpu.values()) / self.moves * 1e6:,.0f}"

    def work_line(self) -> str:
        """Calls and decisions per move (the table's GetView and Act, its duplicate and refused
        commands, the bots' decisions, turns handed on and looked at again): machine-independent,
        unlike the CPU line."""
        if not self.work or not self.moves:
            return ""
        return ", ".join(f"{name} {n / self.moves:.2f}" for name, n in self.work.items())

    @property
    def moves_per_s(self) -> float:
        return self.moves / self.seconds if self.seconds else 0.0

    def latency(self, q: float, which: str = "move") -> float:
        values = sorted(self.latencies if which == "move" else self.view_latencies)
        return percentile(values, q)

    def extra_line(self) -> str:
        """--people: the paced bots' delay beyond their think time, or empty."""
        if not self.people:
            return ""
        extra = sorted(self.bot_extra)

        def ms(v: float) -> str:
            return f"{v * 1e3:,.0f} ms" if v == v else "n/a"

        return (
            f"p50 {ms(percentile(extra, 50))}, p99 {ms(percentile(extra, 99))}, "
            f"max {ms(extra[-1] if extra else float('nan'))} ({len(extra):,} paced bot turns; "
            f"{self.bot_unpaced:,} played at once before the bots knew the table's pace; "
            f"{self.person_turns:,} turns of the simulated people)"
        )

    def rows(self) -> list[tuple[str, str]]:
        """The summary as (measure, measured) rows, for the record."""

        def ms(v: float) -> str:
            return f"{v * 1e3:,.0f} ms" if v == v else "n/a"

        lat = sorted(self.latencies)
        view = sorted(self.view_latencies)
        extra = [("bot's delay beyond its think time (target p99 <= 200 ms)", self.extra_line())] if self.people else []
        return [
            ("tables", f"{self.tables_opened:,} opened, {self.matches_finished:,} matches finished"),
            (
                "moves",
                f"{self.moves_per_s:,.1f} moves/s ({self.moves:,} in {self.seconds:,.0f} s; {self.events:,} events)",
            ),
            (
                "move latency (commit to the next commit on a table)",
                f"p50 {ms(percentile(lat, 50))}, p99 {ms(percentile(lat, 99))}, "
                f"max {ms(lat[-1] if lat else float('nan'))}",
            ),
            (
                "view latency (GetView through the gateway)",
                f"p50 {ms(percentile(view, 50))}, p99 {ms(percentile(view, 99))}, "
                f"max {ms(view[-1] if view else float('nan'))}",
            ),
            ("errors", f"{sum(self.errors.values()):,}"),
            ("stalls / stuck at the end", f"{len(self.stalls):,} / {len(self.stuck):,}"),
            ("services that exited", ", ".join(self.exited) or "none"),
            ("CPU per move by process (us, /proc)", self.cpu_line() or "n/a"),
            ("work per move (table calls, bots' decisions)", self.work_line() or "n/a"),
            *extra,
        ]

    def lines(self) -> list[str]:
        lat = sorted(self.latencies)
        view = sorted(self.view_latencies)

        def ms(v: float) -> str:
            return f"{v * 1e3:,.0f} ms" if v == v else "n/a"  # NaN when empty

        out = [
            f"  tables      {self.tables_opened:,} opened, {self.matches_finished:,} matches finished",
            f"  moves       {self.moves:,} in {self.seconds:,.0f} s: {self.moves_per_s:,.1f} moves/s "
            f"({self.events:,} events, {self.events / self.seconds if self.seconds else 0:,.1f}/s)",
            f"  move latency (commit to next commit on a table) p50 {ms(percentile(lat, 50))}  "
            f"p99 {ms(percentile(lat, 99))}  max {ms(lat[-1] if lat else float('nan'))}  ({len(lat):,} moves)",
            f"  view latency (GetView through the gateway)      p50 {ms(percentile(view, 50))}  "
            f"p99 {ms(percentile(view, 99))}  max {ms(view[-1] if view else float('nan'))}  ({len(view):,} calls)",
            f"  errors      {sum(self.errors.values()):,}"
            + (": " + ", ".join(f"{k} x{n}" for k, n in self.errors.most_common()) if self.errors else ""),
            f"  stalls      {len(self.stalls):,} tables went without a move for a while"
            + (f" ({'; '.join(self.stalls[:5])}{' ...' if len(self.stalls) > 5 else ''})" if self.stalls else ""),
            f"  stuck       {len(self.stuck):,} at the end" + (f": {', '.join(self.stuck[:10])}" if self.stuck else ""),
        ]
        if self.cpu_line():
            out.append(f"  CPU/move    (us, by process) {self.cpu_line()}")
        if self.work_line():
            out.append(f"  work/move   {self.work_line()}")
        if self.people:
            out.append(f"  bot pace    delay beyond the think time {self.extra_line()}")
        if self.reader_errors:
            out.append("  log reader  retried: " + ", ".join(f"{k} x{n}" for k, n in self.reader_errors.most_common()))
        if self.exited:
            out.append(f"  services    EXITED: {', '.join(self.exited)}")
        return out


def _code(err: BaseException) -> str:
    if isinstance(err, grpc.aio.AioRpcError):
        return err.code().name
    return type(err).__name__


class BotTables:
    """Keeps ``tables`` all-bot tables playing through the gateway (a finished match is replaced
    while ``replace`` is on), follows the event log to count moves and measure their latency,
    polls each table's view through the gateway every ``view_every_s`` (0: never), and notes
    tables that go ``stall_s`` seconds without a move. Every loop is bounded by ``run``'s
    duration or by ``stop()``."""

    def __init__(
        self,
        gateway: str,
        database_url: str,
        tables: int,
        options: TableOptions | None = None,
        *,
        prefix: str | None = None,
        stall_s: float = 15.0,
        view_every_s: float = 5.0,
        replace: bool = True,
        poll_s: float = 0.5,
        progress_s: float = 10.0,
        out: Callable[[str], None] | None = None,
        people: bool = False,
        person_think_s: tuple[float, float] = PERSON_THINK_S,
    ) -> None:
        self.gateway = gateway
        self.database_url = database_url
        self.target = tables
        self.options = options or TableOptions()
        self.prefix = prefix or f"soak-{secrets.token_hex(3)}"
        self.stall_s = stall_s
        self.view_every_s = view_every_s
        self.replace = replace
        self.poll_s = poll_s
        self.progress_s = progress_s
        self.out = out
        self.people = people
        self.person_think_s = person_think_s
        if people and options is None:
            # The longest turn: a person and the paced bots move well within it, and the books,
            # checked once the bots and the people stop, are read before any turn timer fires.
            self.options = TableOptions(turn_seconds=TURN_BOUNDS_MAX)
        self._rng = random.Random(1)
        self.report = SoakReport(people=people)
        self.tracks: dict[str, _Track] = {}
        self.all_tables: list[str] = []
        self._n = 0
        self._channel: grpc.aio.Channel | None = None
        self._store: PostgresEventStore | None = None
        self._cursor: GlobalPosition = (0, 0)
        self._stop = asyncio.Event()
        self._create_sem = asyncio.Semaphore(16)
        self._reading = asyncio.Lock()  # one log reader at a time: the cursor is shared
        self._tasks: set[asyncio.Task[Any]] = set()
        self._started = 0.0
        self.waiting: list[str] = []

    # ------------------------------------------------------------ set-up

    async def _connect_store(self) -> PostgresEventStore:
        if self._store is None:
            self._store = await PostgresEventStore.connect(self.database_url, min_size=1, max_size=2)
        return self._store

    async def start(self) -> None:
        """Open the log reader just before now and the first ``tables`` tables."""
        self._channel = grpc.aio.insecure_channel(self.gateway)
        store = await self._connect_store()
        async with store.pool.acquire() as conn:
            xmin = int(await conn.fetchval("SELECT pg_snapshot_xmin(pg_current_snapshot())::text"))
        # Every event of ours is written by a transaction that starts after this: its id is >= xmin.
        self._cursor = (xmin - 1, 2**62)
        self._started = time.monotonic()
        await asyncio.gather(*(self._open() for _ in range(self.target)))

    async def _open(self) -> None:
        if self._stop.is_set():
            return
        assert self._channel is not None
        self._n += 1
        name = f"{self.prefix}-{self._n}"
        client = TableClient(self.gateway, issue_token(name, "player"), channel=self._channel)
        table_id = ""
        async with self._create_sem:
            for attempt in range(20):  # bounded: about 20 s of retries while a service is down
                try:
                    # A retry with the same command id gets the table the first try made.
                    seats = (name, "", "", "") if self.people else ("",) * 4
                    created = await client.create_table(self.options, seats, command_id=name)
                    table_id = created.table_id
                    break
                except grpc.aio.AioRpcError as err:
                    self.report.errors[f"CreateTable {_code(err)}"] += 1
                    if attempt == 19 or self._stop.is_set():
                        return
                    await asyncio.sleep(1.0)
        now = time.monotonic()
        self.tracks[table_id] = _Track(table_id, client, now, advanced_at=now)
        self.all_tables.append(table_id)
        self.report.tables_opened += 1

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def stop(self) -> None:
        self._stop.set()

    async def close(self) -> None:
        self._stop.set()
        for t in list(self._tasks):
            t.cancel()
        for t in list(self._tasks):
            with contextlib.suppress(BaseException):
                await t
        if self._channel is not None:
            await self._channel.close()
        if self._store is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._store.close(), 5)

    # ------------------------------------------------------------ following the log

    async def poll_log(self) -> int:
        """Read what the log has committed since the last call; returns the events read."""
        async with self._reading:
            return await self._poll_log()

    async def _poll_log(self) -> int:
        store = await self._connect_store()
        read = 0
        for _ in range(50):  # bounded: at most 50 pages per call
            events = await store.read_all(self._cursor, 2000)
            if not events:
                break
            self._cursor = events[-1].global_position
            now = time.monotonic()
            for e in events:
                tr = self.tracks.get(e.stream_id)
                if tr is None:
                    continue
                read += 1
                self.report.events += 1
                tx = e.global_position[0]
                if tx != tr.last_tx:  # a new command (one append is one transaction)
                    if tr.last_at is not None:
                        self.report.moves += 1
                        self.report.latencies.append((e.recorded_at - tr.last_at).total_seconds())
                    tr.last_tx = tx
                tr.last_at = e.recorded_at
                tr.version = e.version
                if self.people:
                    self._paced(tr, e)
                tr.advanced_at = now
                if tr.stalled:
                    tr.stalled = False
                if e.type == "MatchEnded":
                    tr.over = True
                    self.report.matches_finished += 1
                    if self.replace and not self._stop.is_set():
                        self._spawn(self._open())
            if len(events) < 2000:
                break
        return read

    # ------------------------------------------------------------ --people

    def _paced(self, tr: _Track, e: Any) -> None:
        """One event of a table with a person at seat 0: the person's turn is played after a
        person's think time; a bot seat called is due at the event's time plus the think time
        the bots give it (``think_seconds``, the bots' own), and its draw says how much later
        it moved than that."""
        event = e.event()
        seat = int(e.data.get("seat", -1))
        if e.type == "TileDrawn" and seat in tr.bot_due:
            late = (e.recorded_at - tr.bot_due.pop(seat)).total_seconds()
            if late >= -0.05:  # the log's clock and the bots' loop clock, a few ms apart
                self.report.bot_extra.append(max(0.0, late))
            else:
                self.report.bot_unpaced += 1  # the bots had not seen this table's pace yet
        called = to_move(event)
        if called == 0:
            if tr.person_busy:
                tr.person_again = True
            elif not tr.over:
                tr.person_busy = True
                self._spawn(self._person(tr))
        elif called > 0 and called != seat:  # a seat's own event (its draw) calls nobody new
            due = e.recorded_at + timedelta(seconds=think_seconds(tr.table_id, e.version, called, e.type))
            known = tr.bot_due.get(called)
            tr.bot_due[called] = due if known is None or due < known else known

    async def _person(self, tr: _Track) -> None:
        """Seat 0's turn as a person plays it: a few seconds' thought, then the greedy bot's
        commands through the gateway with the person's own token, until the turn passes."""
        try:
            while True:
                tr.person_again = False
                await self._sleep(self._rng.uniform(*self.person_think_s))
                if self._stop.is_set():
                    return
                for _ in range(8):
                    view = classic_view_from_pb(await tr.client.view(tr.table_id, 0))
                    if view.phase.value != "PLAYING" or view.turn != 0:
                        break
                    await tr.client.act(tr.table_id, PERSON_STRATEGY(view.version).act(view))
                    self.report.person_turns += 1
                if not tr.person_again:
                    return
        except grpc.aio.AioRpcError as err:
            if not self._stop.is_set():
                self.report.errors[f"person {_code(err)}"] += 1
        finally:
            tr.person_busy = False

    def _check_stalls(self) -> None:
        now = time.monotonic()
        for tr in self.tracks.values():
            if tr.over or tr.stalled:
                continue
            if now - tr.advanced_at > self.stall_s:
                tr.stalled = True
                self.report.stalls.append(f"{tr.table_id} at version {tr.version}")

    def stuck(self, within_s: float | None = None) -> list[str]:
        """Tables not over that have not moved for ``within_s`` (default ``stall_s``) seconds."""
        limit = self.stall_s if within_s is None else within_s
        now = time.monotonic()
        return [t.table_id for t in self.tracks.values() if not t.over and now - t.advanced_at > limit]

    # ------------------------------------------------------------ polling views

    async def _views(self) -> None:
        if self.view_every_s <= 0:
            return
        while not self._stop.is_set():
            open_tables = [t for t in self.tracks.values() if not t.over]
            if not open_tables:
                await self._sleep(0.5)
                continue
            gap = self.view_every_s / len(open_tables)
            for tr in open_tables:
                if self._stop.is_set():
                    return
                self._spawn(self._view(tr))
                await self._sleep(gap)

    async def _view(self, tr: _Track) -> None:
        # At least the version read from the log, as a client that learnt of an event asks: the
        # table service remembers a command's state only once its append has answered, a moment
        # after the commit is in the log, so a view asked for without it may be one command behind.
        known = tr.version
        t = time.perf_counter()
        try:
            view = await tr.client.view(tr.table_id, None, min_version=known)
        except grpc.aio.AioRpcError as err:
            if not self._stop.is_set():
                self.report.errors[f"GetView {_code(err)}"] += 1
            return
        self.report.view_latencies.append(time.perf_counter() - t)
        if view.version < known:
            self.report.errors["GetView behind the log"] += 1

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop.wait(), timeout=seconds)

    # ------------------------------------------------------------ the run

    async def run(self, seconds: float, exited: Callable[[], list[str]] | None = None) -> SoakReport:
        """Play for ``seconds`` (or until ``stop()``), then stop opening tables and return."""
        t0 = time.monotonic()
        deadline = t0 + seconds
        next_progress = t0 + self.progress_s
        self._spawn(self._views())
        last_moves = 0
        last_t = t0
        while not self._stop.is_set() and time.monotonic() < deadline:
            try:
                await self.poll_log()
            except Exception as exc:  # PostgreSQL restarting under a fault test: read again later
                self.report.reader_errors[type(exc).__name__] += 1
            self._check_stalls()
            if exited is not None:
                for name in exited():
                    if name not in self.report.exited:
                        self.report.exited.append(name)
            now = time.monotonic()
            if self.out is not None and now >= next_progress:
                rate = (self.report.moves - last_moves) / (now - last_t)
                last_moves, last_t = self.report.moves, now
                lat = sorted(self.report.latencies[-20_000:])
                open_n = sum(1 for t in self.tracks.values() if not t.over)
                self.out(
                    f"  {now - t0:6.0f} s  open {open_n:,}  matches {self.report.matches_finished:,}  "
                    f"moves {self.report.moves:,} ({rate:,.0f}/s)  p50 {percentile(lat, 50) * 1e3:,.0f} ms  "
                    f"p99 {percentile(lat, 99) * 1e3:,.0f} ms  errors {sum(self.report.errors.values())}  "
                    f"stalled {sum(1 for t in self.tracks.values() if t.stalled)}"
                )
                next_progress = now + self.progress_s
            await self._sleep(self.poll_s)
        self.report.seconds = time.monotonic() - t0
        self.replace = False
        return self.report

    async def drain(self, timeout_s: float) -> list[str]:
        """Stop opening tables and wait (at most ``timeout_s``) until every open match has ended;
        returns the tables still playing."""
        self.replace = False
        t0 = time.monotonic()
        deadline = t0 + timeout_s
        while time.monotonic() < deadline:
            try:
                await self.poll_log()
            except Exception as exc:
                self.report.reader_errors[type(exc).__name__] += 1
            self._check_stalls()
            if all(t.over for t in self.tracks.values()):
                break
            await asyncio.sleep(self.poll_s)
        self.report.seconds += time.monotonic() - t0
        return [t.table_id for t in self.tracks.values() if not t.over]

    async def recovered(self, timeout_s: float) -> float | None:
        """Seconds until every table not yet over has moved past where it stood when called
        (None: not within ``timeout_s``; ``waiting`` then names the tables still waiting)."""
        await self._poll_quietly()
        before = {t.table_id: t.version for t in self.tracks.values() if not t.over}
        t0 = time.monotonic()
        while True:
            await self._poll_quietly()
            self.waiting = [t for t, v in before.items() if not self.tracks[t].over and self.tracks[t].version <= v]
            if not self.waiting:
                return time.monotonic() - t0
            if time.monotonic() - t0 > timeout_s:
                return None
            await asyncio.sleep(0.25)

    async def move_rate(self, seconds: float) -> float:
        """Moves per second over the next ``seconds``, as the log shows them."""
        await self._poll_quietly()
        n0, t0 = self.report.moves, time.monotonic()
        await asyncio.sleep(seconds)
        await self._poll_quietly()
        return (self.report.moves - n0) / (time.monotonic() - t0)

    async def _poll_quietly(self) -> None:
        for _ in range(20):  # bounded: about 10 s while the reader's own pool reconnects
            try:
                await self.poll_log()
                return
            except Exception as exc:
                self.report.reader_errors[type(exc).__name__] += 1
                await asyncio.sleep(0.5)

    def finish(self) -> SoakReport:
        """Fill in the tables still stuck now."""
        self.report.stuck = self.stuck()
        return self.report


# ------------------------------------------------------------------ the command


def _scrape_work(stack: Stack) -> dict[str, Samples] | None:
    """The table's and the bots' counters now (None where metrics are off or a service is away)."""
    from okeytools.top import scrape

    got = {name: scrape(name, stack.procs[name].metrics_address) for name in ("table", "bots") if name in stack.procs}
    if any(s.samples is None for s in got.values()):
        return None
    return {name: s.samples for name, s in got.items() if s.samples is not None}


def _work(before: dict[str, Samples] | None, after: dict[str, Samples] | None) -> dict[str, float]:
    """Calls and decisions between two scrapes: the table's GetView and Act RPCs, its commands
    answered as duplicates or refused, the bots' decisions."""
    from okeytools.top import counter_increase

    if not before or not after or set(before) != set(after):
        return {}

    def rpc(method: str) -> Callable[[Mapping[str, str]], bool]:
        return lambda labels: labels.get("grpc_method") == method

    def outcome(which: str) -> Callable[[Mapping[str, str]], bool]:
        return lambda labels: labels.get("outcome") == which

    t0, t1 = before["table"], after["table"]
    work = {
        "GetView": counter_increase(t0, t1, "grpc_server_started_total", rpc("GetView")),
        "Act": counter_increase(t0, t1, "grpc_server_started_total", rpc("Act")),
        "duplicate": counter_increase(t0, t1, "okey_table_commands_total", outcome("duplicate")),
        "refused": counter_increase(t0, t1, "okey_table_commands_total", outcome("refused")),
    }
    if "bots" in after:
        b0, b1 = before["bots"], after["bots"]
        work["decisions"] = counter_increase(b0, b1, "okey_bots_decisions_total")
        # turns played from a discard's answer, and turns a replica had to look at again (a rise
        # means bots replicas losing turns: dying, stalling, a call that hung)
        work["handed on"] = counter_increase(b0, b1, "okey_bots_turns_handed_on_total")
        work["looked again"] = counter_increase(b0, b1, "okey_bots_turns_looked_again_total")
    return work


def _meter(stack: Stack) -> CpuMeter:
    """CPU by process group: each service's process tree (its workers too), PostgreSQL, NATS and
    this process (the load generator and the log reader)."""
    trees = {name: sp.proc.pid for name, sp in stack.procs.items() if sp.proc is not None}
    return CpuMeter({"soak": os.getpid()}, trees, {"postgres": "postgres", "nats": "nats-server"})


async def soak(
    stack: Stack,
    postgres: EmbeddedPostgres | None,
    nats_server: EmbeddedNats | None,
    tables: int,
    seconds: float,
    out: Callable[[str], None],
    faults: Sequence[str] = (),
    nats_down_s: float = 30.0,
    options: TableOptions | None = None,
    people: bool = False,
) -> tuple[SoakReport, list[str], BooksReport | None]:
    """Play ``tables`` bot tables for ``seconds``, injecting ``faults`` at even intervals; then
    stop the bots (the tables freeze) and check the books. Returns the report, one line per
    fault, and the books."""
    from .books import check_books
    from .faults import inject

    bt = BotTables(
        stack.address("gateway"),
        stack.database_url,
        tables,
        options,
        stall_s=30.0 if tables > 100 else 15.0,
        view_every_s=10.0 if tables > 100 else 5.0,
        out=out,
        people=people,
    )
    faulting: set[str] = set()  # a service we killed on purpose is not a service that exited

    def exited() -> list[str]:
        return [f"{name} (exit {code})" for name, code in stack.exited() if name not in faulting]

    fault_lines: list[str] = []
    try:
        t0 = time.monotonic()
        await bt.start()
        out(f"  opened {bt.report.tables_opened:,} tables in {time.monotonic() - t0:.1f} s")
        meter = _meter(stack)
        work0 = await asyncio.to_thread(_scrape_work, stack)
        meter.start()
        player = asyncio.create_task(bt.run(seconds, exited))
        gap = seconds / (len(faults) + 1)
        for i, fault in enumerate(faults, 1):
            await asyncio.wait({player}, timeout=max(0.0, t0 + i * gap - time.monotonic()))
            if player.done():
                break
            before = await bt.move_rate(5.0)
            faulting.add(fault.removeprefix("kill-"))
            out(f"  fault: {fault} ...")
            try:
                lasted = await inject(fault, stack, postgres, nats_server, nats_down_s=nats_down_s)
            finally:
                faulting.discard(fault.removeprefix("kill-"))
            took = await bt.recovered(120.0)
            after = await bt.move_rate(5.0)
            moved = f"every table moved again {took:.1f} s later" if took is not None else "TABLES STILL WAITING"
            line = f"  {fault:<17} lasted {lasted:5.1f} s; {moved}; {before:,.0f} moves/s before, {after:,.0f} after"
            out(line)
            fault_lines.append(line)
        await player
        cpu, _ = meter.stop()
        work1 = await asyncio.to_thread(_scrape_work, stack)
        bt.stop()
        await bt._poll_quietly()
        report = bt.finish()
        report.cpu = cpu
        report.work = _work(work0, work1)
    finally:
        await bt.close()
    # Freeze the tables (no bots; the turn timers are 20 s away) and check the books.
    out("  stopping the bots and checking the books ...")
    await asyncio.to_thread(stack.stop_one, "bots")
    books = await check_books(stack.database_url, stack.nats_url, stack.address("scoring"), bt.all_tables, 180.0)
    return report, fault_lines, books


def run(args: argparse.Namespace) -> int:
    from okeytools.embedded import resolve_infra
    from okeytools.stack import Stack

    from .faults import FAULTS

    quick = bool(getattr(args, "quick", False))
    tables = getattr(args, "tables", None) or (QUICK_TABLES if quick else DEFAULT_TABLES)
    minutes = getattr(args, "minutes", None) or (QUICK_MINUTES if quick else DEFAULT_MINUTES)
    nats_down_s = float(getattr(args, "nats_down_seconds", None) or 30.0)
    faults = list(FAULTS) if getattr(args, "faults", False) else []
    people = bool(getattr(args, "people", False))

    def out(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    # The log reader's pool reconnecting under the PostgreSQL faults: counted, not printed.
    logging.getLogger("asyncpg.pool").setLevel(logging.CRITICAL)
    flags = f" --faults --nats-down-seconds {nats_down_s:g}" if faults else ""
    flags += " --people" if people else ""
    what = (
        f"a simulated person at seat 0 of each table (thinks {PERSON_THINK_S[0]:g}-{PERSON_THINK_S[1]:g} s a turn), "
        "three bots at the person's pace"
        if people
        else "all-bot tables"
    )
    out(f"okey bench soak --tables {tables} --minutes {minutes:g}{flags}: {what}, through the gateway")
    out(f"  machine: {machine()}")
    logs = Path(tempfile.mkdtemp(prefix="okey-soak-logs-"))
    with resolve_infra() as infra:
        servers = servers_line(infra)
        if faults and infra.postgres is None:
            out("  OKEY_DATABASE_URL is set: no PostgreSQL faults (they need the embedded server)")
            faults = [f for f in faults if not f.startswith("postgres")]
        if faults and infra.nats is None:
            out("  OKEY_NATS_URL is set: no NATS fault (it needs the embedded server)")
            faults = [f for f in faults if f != "nats-down"]
        # One address plays every table here: the gateway's per-address limit (for players behind
        # one NAT) would throttle the soak itself; each table's player keeps its per-player limit.
        env = {
            "OKEY_LOG_LEVEL": "WARNING",
            "OKEY_RATE_LIMIT_PER_ADDRESS": "1000000",
            "OKEY_RATE_BURST_PER_ADDRESS": "1000000",
        }
        stack = Stack(infra.database_url, infra.nats_url, log_dir=logs, extra_env=env)
        try:
            t = time.monotonic()
            stack.start()
            strategy = stack.env.get("OKEY_BOTS_STRATEGY") or "each table's bot_level"
            workers = stack.env.get("OKEY_BOTS_WORKERS") or "1"
            strategy += f", {workers} worker{'s' if workers != '1' else ''} (OKEY_BOTS_WORKERS)"
            calls = (stack.env.get("OKEY_BOTS_CALLS") or "stream").strip().lower()
            strategy += ", calls to the table " + (
                "on one Play stream a worker" if calls == "stream" else "one gRPC call each (OKEY_BOTS_CALLS=unary)"
            )
            out(f"  stack up in {time.monotonic() - t:.1f} s (bots: {strategy}; service logs in {logs})")
            report, fault_lines, books = asyncio.run(
                soak(stack, infra.postgres, infra.nats, tables, minutes * 60, out, faults, nats_down_s, people=people)
            )
        finally:
            stack.stop()
    out("summary:")
    for line in report.lines():
        out(line)
    if fault_lines:
        out("  faults (each undone; then every table must move again):")
        for line in fault_lines:
            out("  " + line)
    if books is not None:
        out(books.line())
        for p in books.problems[:20]:
            out(f"    {p}")
    recovered = all("STILL WAITING" not in line for line in fault_lines)
    # With faults, failed calls while a service is down are expected; the books and the tables are not.
    ok = (faults or not report.errors) and not report.stuck and not report.exited and recovered
    ok = ok and (books is None or not books.problems)
    out(f"okey bench soak: {'OK' if ok else 'PROBLEMS (see above)'}")
    section = Section(
        "soak",
        command_line("soak", args),
        [Table(("measure", "measured"), report.rows(), frozenset())],
        servers=f"{servers}; every service its own process (bots: {strategy})",
    )
    if fault_lines:
        section.tables.append(
            Table(
                ("fault", "what happened"),
                [(f.partition(" ")[0], f.partition(" ")[2].strip()) for f in (x.strip() for x in fault_lines)],
            )
        )
    if books is not None:
        section.notes.append(" ".join(books.line().split()))  # the printed line's column padding dropped
    section.notes.append(f"verdict: {'OK' if ok else 'PROBLEMS'}")
    record(args, section)
    return 0 if ok else 1

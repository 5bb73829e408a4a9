"""``okey replay``: rebuild every scoring projection from the PostgreSQL event log into fresh
tables and swap them in; with ``--verify``, first re-run okeycore over every stream and fail
loudly when a recorded result differs from what okeycore decides, and rebuild every tournament
from its commands and its tables' results (``replay_tournaments.py``).

The rebuild runs the live projector's own code (``services.scoring.projection.Projection``) over
each table's events in their order, writes the result with COPY into the schema
``okey_scoring_rebuild``, then, in one transaction that locks the live tables: catches the new
tables up with whatever the log (and the live projector) got meanwhile, counts the rows that
differ from the live tables, and moves the new tables over the old ones. Readers see the old
projection or the new, never a mix.

How the log is read (issue 48): up to its end when the replay starts (``log_end``), in
partitions of whole tables. The rebuild alone reads only the events a projection uses (and
each table's first): PostgreSQL leaves out the draws and discards, counts every table's events
meanwhile (their versions gap-free), and the tables are set to their last versions. ``--verify``
reads every event, decoded once, in a process per partition: okeycore re-decides each table's
results, and the findings merge in the log's global order. Anything only the whole log's order
can judge (a gap, an unknown event type) sends the replay back to the one-pass reader, which
reports it as it always has."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import gc
import json
import multiprocessing
import operator
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, fields, replace
from typing import Any

from okeycore.commands import Command, Discard, Finish, Pass, ShowIndicator
from okeycore.errors import RuleViolation
from okeycore.events import (
    Event,
    HandEnded,
    HandEndReason,
    IndicatorShown,
    MatchEnded,
    PenaltyApplied,
    TableCreated,
    TileDiscarded,
    TileDrawn,
    event_from_dict,
)
from okeycore.games import Engine
from okeycore.games import engine_for as engine
from okeycore.options import RULES_VERSION, Game
from okeyplatform.eventstore import START, GlobalPosition, PostgresEventStore, StoredEvent

from services.scoring.projection import (
    COUNTER_FIELDS,
    IGNORED,
    Changes,
    Counters,
    Projection,
    ProjectionError,
    TableAcc,
    UnknownEventType,
)
from services.scoring.store import REBUILD_SCHEMA, ScoringStore

from .replay_tournaments import TABLE_INPUT_TYPES, TableInputs, TournamentReport, verify_tournaments

__all__ = ["ReplayReport", "VerifyReport", "LogVerifier", "replay", "verify_log", "run_replay", "PARTITIONS"]


# ------------------------------------------------------------------ verification with okeycore


_CLOCK_FIELDS = ("deadline_ms", "due_ms")  # a turn's deadline, the break's end [P-BREAK-1]


def _norm(e: Event) -> Event:
    """Deadlines come from the caller's clock, not from the rules: left out of comparisons."""
    clock = {name: 0 for name in _CLOCK_FIELDS if hasattr(e, name)}
    return replace(e, **clock) if clock else e


@functools.cache
def _compared(cls: type[Event]) -> Callable[[Event], Any]:
    """The fields an equality of two events of ``cls`` compares, deadlines left out."""
    names = [f.name for f in fields(cls) if f.compare and f.name not in _CLOCK_FIELDS]
    return operator.attrgetter(*names) if names else (lambda e: ())


def _same(a: Event, b: Event) -> bool:
    """``_norm(a) == _norm(b)`` without building the two copies (a replay compares every
    decided event with its recorded one)."""
    if type(a) is not type(b):
        return False
    get = _compared(type(a))
    return bool(get(a) == get(b))


def _difference(recorded: Event, decided: Event) -> str:
    if recorded.type != decided.type:
        return f"recorded {recorded.type}, okeycore decides {decided.type}"
    for f in fields(recorded):
        a, b = getattr(recorded, f.name), getattr(decided, f.name)
        if a != b:
            return f"{recorded.type}.{f.name}: recorded {a!r}, okeycore decides {b!r}"
    return f"{recorded.type} differs"


@dataclass
class _Stream:
    engine: Engine
    state: Any = None
    recent: deque[tuple[Event, Any]] = field(default_factory=lambda: deque(maxlen=8))
    expect: list[tuple[Event, str]] = field(default_factory=list)
    over: bool = False
    broken: bool = False
    first: Any = None  # where the stream was first seen (LogVerifier.where), for merging partitions


class LogVerifier:
    """Folds every stream with okeycore and re-decides the command behind each recorded result:
    every ``Discard`` (what it costs, and the deck's end or a 101 hand's end it brings), ``Finish``
    for a finish, ``Pass`` for a declined last chance, ``ShowIndicator``, and the opening that
    voided a 101 hand. The events okeycore decides must equal the recorded ones (deadlines aside),
    ``MatchEnded`` included.

    Each table is re-decided under the rules it was created under (``TableCreated.rules_version``),
    so an old log still agrees. Where today's rules would decide an old table's move differently
    (a discard that is penalised now, say), that is a *rules-version difference*: reported in
    ``rules_differences``, never a problem."""

    def __init__(self, max_problems: int = 50) -> None:
        self.streams: dict[str, _Stream] = {}
        self.problems: list[str] = []
        self.rules_differences: list[str] = []
        self.rules_difference_count = 0
        self.max_problems = max_problems
        self.checked = {"discards": 0, "hand ends": 0, "match ends": 0, "indicator shows": 0, "penalties": 0}
        self.events = 0
        # A partitioned reader sets ``where`` (the event's place in the log's global order)
        # before each ``feed``: the problems and rules differences keep it, so the partitions'
        # findings merge in the order one reader of the whole log finds them (``merge_found``).
        self.where: Any = None
        self.found: list[tuple[Any, str]] = []  # (where, problem), as ``problems`` without the "..." line
        self.rules_found: list[tuple[Any, str]] = []  # (where, rules difference)

    def _problem(self, table_id: str, version: int, text: str) -> None:
        if len(self.problems) < self.max_problems:
            line = f"table {table_id} version {version}: {text}"
            self.problems.append(line)
            self.found.append((self.where, line))
        elif len(self.problems) == self.max_problems:
            self.problems.append("... (more problems not shown)")

    def feed(self, table_id: str, version: int, data: dict[str, Any]) -> None:
        self.events += 1
        st = self.streams.get(table_id)
        if st is not None and st.broken:
            return
        try:
            ev = event_from_dict(data)
        except (KeyError, ValueError, TypeError) as exc:
            self._problem(table_id, version, f"okeycore cannot read the {data.get('type')!r} event: {exc!r}")
            if st is not None:
                st.broken = True
            return
        if st is None:
            if not isinstance(ev, TableCreated):
                self._problem(table_id, version, f"the stream starts with {ev.type}, not TableCreated")
                self.streams[table_id] = _Stream(engine(Game.OKEY), broken=True, first=self.where)
                return
            st = self.streams[table_id] = _Stream(engine(ev.options.game), first=self.where)
        if st.over:
            self._problem(table_id, version, f"a {ev.type} event after the match ended")
            st.broken = True
            return
        before = st.state
        if st.expect:
            want, why = st.expect.pop(0)
            if not _same(want, ev):
                self._problem(table_id, version, f"{why}: {_difference(ev, want)}")
            else:
                self._count(ev)
        else:
            self._check(st, table_id, version, ev, before)
        try:
            st.state = st.engine.evolve(before, ev)
        except Exception as exc:  # a log okeycore cannot fold is as wrong as a wrong score
            self._problem(table_id, version, f"okeycore cannot apply the {ev.type} event: {exc!r}")
            st.broken = True
            return
        st.recent.append((ev, before))
        if isinstance(ev, MatchEnded):
            st.over = True
            st.state = None
            st.recent.clear()

    def _count(self, ev: Event) -> None:
        """A recorded event okeycore decided as part of an earlier command's events."""
        if ev.type in ("HandEnded", "HandEnded101", "HandVoided"):
            self.checked["hand ends"] += 1
        elif isinstance(ev, PenaltyApplied):
            self.checked["penalties"] += 1

    def _check(self, st: _Stream, table_id: str, version: int, ev: Event, before: Any) -> None:
        if type(ev) is TileDrawn:
            return  # a draw decides nothing to check (the commonest event, with the discard)
        if isinstance(ev, TileDiscarded):
            self.checked["discards"] += 1
            self._group(st, table_id, version, ev, 0, Discard(seat=ev.seat, tile=ev.tile), f"seat {ev.seat}'s discard")
        elif isinstance(ev, IndicatorShown):
            self.checked["indicator shows"] += 1
            self._group(st, table_id, version, ev, 0, ShowIndicator(seat=ev.seat), "showing the indicator")
        elif isinstance(ev, HandEnded) and ev.reason is HandEndReason.FINISHED:
            self.checked["hand ends"] += 1
            cmd: Command = Finish(seat=ev.finisher, tile=ev.final_tile, arrangement=ev.arrangement)
            self._group(st, table_id, version, ev, 0, cmd, f"seat {ev.finisher}'s finish")
        elif ev.type in ("HandEnded", "HandEnded101"):
            self.checked["hand ends"] += 1
            back = self._discard_back(st)
            if back is not None:
                seat, tile, k = back
                self._group(st, table_id, version, ev, k, Discard(seat=seat, tile=tile), f"seat {seat}'s last discard")
            elif isinstance(ev, HandEnded) and before is not None:
                self._group(st, table_id, version, ev, 0, Pass(seat=before.turn), "the declined last chance")
            else:
                self._problem(table_id, version, f"no discard before {ev.type}: cannot tell which move ended the hand")
        elif ev.type == "HandVoided":
            self.checked["hand ends"] += 1
            prev = st.recent[-1][0] if st.recent else None
            if prev is None or prev.type != "MeldsOpened":
                self._problem(table_id, version, "HandVoided does not follow an opening [O-PEN-4]")
                return
            from okeycore.okey101 import OpenMelds

            m: Any = prev
            cmd = OpenMelds(seat=m.seat, melds=tuple(x.tiles for x in m.melds), kinds=tuple(x.kind for x in m.melds))
            self._group(st, table_id, version, ev, 1, cmd, f"seat {m.seat}'s opening")
        elif isinstance(ev, PenaltyApplied) and ev.reason == "INVALID_FINISH":
            # The attempt's tile is not recorded: any tile whose finish okeycore refuses will do.
            self.checked["penalties"] += 1
            rack = before.seats[ev.seat].rack if before is not None and 0 <= ev.seat < len(before.seats) else ()
            for tile in rack:
                if st.engine.decide(before, Finish(seat=ev.seat, tile=tile)) == [ev]:
                    return
            self._problem(table_id, version, f"okeycore gives seat {ev.seat} no INVALID_FINISH penalty here")
        elif isinstance(ev, PenaltyApplied):
            self.checked["penalties"] += 1
            back = self._discard_back(st, any_discard=True)
            if back is None:
                self._problem(table_id, version, f"penalty {ev.reason} without the discard that caused it")
                return
            seat, tile, k = back
            self._group(st, table_id, version, ev, k, Discard(seat=seat, tile=tile), f"seat {seat}'s discard")
        elif isinstance(ev, MatchEnded):
            self._problem(table_id, version, "a MatchEnded okeycore does not decide: the match should go on")

    def _discard_back(self, st: _Stream, any_discard: bool = False) -> tuple[int, int, int] | None:
        """The discard just before (skipping penalties): (seat, tile, events back to it)."""
        k = 0
        for ev, _ in reversed(st.recent):
            k += 1
            if isinstance(ev, PenaltyApplied):
                continue
            if isinstance(ev, TileDiscarded) and (any_discard or ev.next_seat < 0):
                return ev.seat, ev.tile, k
            return None
        return None

    def _group(self, st: _Stream, table_id: str, version: int, ev: Event, back: int, cmd: Command, why: str) -> None:
        """Re-decide ``cmd`` on the state ``back`` events ago; the recorded events since then
        and ``ev`` must be what it decides; what it decides beyond is expected next."""
        if back:
            recent = list(st.recent)[-back:]
            state0 = recent[0][1]
            recorded = [e for e, _ in recent] + [ev]
        else:
            state0 = st.state
            recorded = [ev]
        got = st.engine.decide(state0, cmd)
        if isinstance(got, RuleViolation):
            self._problem(table_id, version, f"okeycore refuses {why}: {got.code}: {got.message}")
            return
        if getattr(state0, "rules_version", RULES_VERSION) < RULES_VERSION:
            self._rules_difference(st, table_id, version, state0, cmd, got, why)
        for r, d in zip(recorded, got, strict=False):
            if not _same(r, d):
                self._problem(table_id, version, f"{why}: {_difference(r, d)}")
                return
        if len(got) < len(recorded):
            self._problem(table_id, version, f"{why}: the log has a {ev.type} okeycore does not decide")
            return
        st.expect = [(d, why) for d in got[len(recorded) :]] if len(got) > len(recorded) else []
        for d in got:
            if isinstance(d, MatchEnded):
                self.checked["match ends"] += 1

    def _rules_difference(
        self, st: _Stream, table_id: str, version: int, state0: Any, cmd: Command, got: list[Event], why: str
    ) -> None:
        """At a table created under older rules: would today's rules decide ``cmd`` otherwise?"""
        old = getattr(state0, "rules_version", RULES_VERSION)
        if old >= RULES_VERSION:
            return
        now = st.engine.decide(replace(state0, rules_version=RULES_VERSION), cmd)
        if isinstance(now, RuleViolation):
            differs = f"today's rules refuse it ({now.code})"
        elif [_norm(e) for e in now] != [_norm(e) for e in got]:
            differs = f"today's rules decide {', '.join(e.type for e in now)}" + (
                f" (first difference: {_difference(got[0], now[0])})"
                if got and now and _norm(got[0]) != _norm(now[0])
                else f" instead of {', '.join(e.type for e in got)}"
            )
        else:
            return
        self.rules_difference_count += 1
        if len(self.rules_differences) < self.max_problems:
            line = f"table {table_id} version {version} (rules version {old}, now {RULES_VERSION}): {why}: {differs}"
            self.rules_differences.append(line)
            self.rules_found.append((self.where, line))

    def finish(self) -> list[str]:
        for table_id, st in self.streams.items():
            if st.expect and not st.broken:
                self.where = (1, st.first)  # after every problem found while reading, as a whole-log reader
                missing = ", ".join(e.type for e, _ in st.expect)
                self._problem(table_id, -1, f"okeycore decides {missing} after {st.expect[0][1]}, the log ends before")
        return self.problems


# ------------------------------------------------------------------ the rebuild


@dataclass
class ReplayReport:
    events: int = 0
    tables: int = 0
    rows: dict[str, int] = field(default_factory=dict)
    read_s: float = 0.0
    write_s: float = 0.0
    swap_s: float = 0.0
    caught_up: int = 0
    diff: dict[str, int] = field(default_factory=dict)
    live_behind: int = 0  # events the log has that the live projection had not applied yet
    swapped: bool = False
    verify_problems: list[str] = field(default_factory=list)
    verified: dict[str, int] = field(default_factory=dict)
    rules_differences: list[str] = field(default_factory=list)  # old tables today's rules would decide otherwise
    rules_difference_count: int = 0
    parked: dict[str, tuple[int, str]] = field(default_factory=dict)  # table -> (version, why) not projected
    tournaments: TournamentReport | None = None  # --verify: each tournament rebuilt from its inputs

    @property
    def seconds(self) -> float:
        return self.read_s + self.write_s + self.swap_s

    @property
    def rate(self) -> float:
        return self.events / self.seconds if self.seconds else 0.0


async def _catch_up(
    conn: Any, scoring: ScoringStore, stored: list[StoredEvent], parked: dict[str, tuple[int, str]]
) -> int:
    """Fold ``stored`` (the log's order) into the rebuilt tables, each table's next versions
    only; a table whose event cannot be projected is parked (in ``parked``). Returns how many
    events were applied."""
    tables = sorted({e.stream_id for e in stored} - parked.keys())
    proj = Projection(await scoring.load_tables(conn, tables, REBUILD_SCHEMA))
    applied = 0
    for e in stored:
        if e.stream_id in parked or e.version != proj.version(e.stream_id) + 1:
            continue  # folded already, or past a version a later read brings
        try:
            proj.apply_stored(e.stream_id, e.version, e.recorded_at, e.type, e.data)
        except UnknownEventType:
            raise
        except ProjectionError as exc:
            parked[e.stream_id] = (e.version, str(exc)[:500])
            continue
        applied += 1
    if not proj.changes.empty:
        await scoring.save(conn, proj.changes, REBUILD_SCHEMA)
    return applied


REPLAY_LOCK = 0x5C_0E_12_EB  # pg_advisory_lock key: one rebuild at a time

PARTITIONS = max(1, min(2, os.cpu_count() or 1))
"""How many partitions of the log (each a set of whole tables) a replay reads and projects at
once: one per core, two at most."""

_IGNORED_TYPES = sorted(cls.type for cls in IGNORED)
_IGNORED_NAMES = frozenset(_IGNORED_TYPES)
_MORE = "... (more problems not shown)"


async def replay(
    events: PostgresEventStore,
    scoring: ScoringStore,
    verify: bool = False,
    swap: bool = True,
    page: int = 5000,
    progress: Callable[[int, int, float], None] | None = None,
    partitions: int | None = None,
    dsn: str | None = None,
) -> ReplayReport:
    """Rebuild (and with ``verify`` check) from the log; swap the result in when ``swap`` and
    verification found nothing wrong. Raises ProjectionError when the log cannot be projected
    or another rebuild is running.

    The log is read in ``partitions`` partitions of whole tables at once (each table's events
    in their order in one partition; the rows merged exactly). With ``verify`` (default
    ``PARTITIONS``) each partition is a process of its own, as okeycore's checks are Python
    (``dsn``: the event log's URL, by default the one ``events`` connected with). The rebuild
    alone (default one partition) lets PostgreSQL pick out the few events a projection reads, in
    a parallel scan of its own: a partition more would only scan the log once more.
    ``partitions=0`` reads the whole log in one pass in its global order, as ``okey replay`` did
    before (the reference tests/scoring/test_replay_partitions.py checks the partitions against)."""
    async with scoring.pool.acquire() as conn:
        if not await conn.fetchval("SELECT pg_try_advisory_lock($1)", REPLAY_LOCK):
            raise ProjectionError("another okey replay is rebuilding the scoring tables right now; try again later")
        try:
            n = (PARTITIONS if verify else 1) if partitions is None else partitions
            return await _replay(conn, events, scoring, verify, swap, page, progress, n, dsn or _dsn_of(events))
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", REPLAY_LOCK)


def _dsn_of(events: PostgresEventStore) -> str | None:
    """The URL the event store's pool connects with (for the worker processes), if it says."""
    args = getattr(events.pool, "_connect_args", None)
    return args[0] if args and isinstance(args[0], str) else None


# ------------------------------------------------------------------ the partitions


class _Anomaly(Exception):
    """A partition met what only a reader of the whole log in its global order judges as
    ``okey replay`` always has (a gap in a table's versions, an event type scoring does not
    know): the replay then reads the log in one pass, which reports it in its own words."""


@dataclass
class _Part:
    """What one partition of the log (a set of whole tables) produced."""

    events: int = 0
    tables: dict[str, TableAcc] = field(default_factory=dict)
    changes: Changes = field(default_factory=Changes)
    parked: dict[str, tuple[int, str]] = field(default_factory=dict)
    anomaly: str = ""
    # --verify: the partition's LogVerifier findings, each with its place in the global order
    found: list[tuple[Any, str]] = field(default_factory=list)
    overflow: bool = False
    rules_found: list[tuple[Any, str]] = field(default_factory=list)
    rules_count: int = 0
    checked: dict[str, int] = field(default_factory=dict)
    inputs: TableInputs = field(default_factory=TableInputs)


def _part_sql(until: GlobalPosition, part: int, parts: int) -> str:
    """The events of partition ``part`` of ``parts`` up to ``until``: a table's events are all
    in one partition (by a hash of its id)."""
    sql = f"(tx, position) <= ('{int(until[0])}'::xid8, {int(until[1])})"
    if parts > 1:
        sql += f" AND (hashtext(stream_id) & 2147483647) % {int(parts)} = {int(part)}"
    return sql


async def _read_part(
    conn: Any,
    until: GlobalPosition,
    part: int,
    parts: int,
    verify: bool,
    page: int,
    tick: Callable[[int, int], None],
    other: Any = None,
) -> _Part:
    """Partition ``part`` of ``parts`` read on ``conn`` (and ``other``, a second connection the
    rebuild counts the events on meanwhile, when given)."""
    out = _Part()
    try:
        if verify:
            await _verify_part(conn, out, _part_sql(until, part, parts), page, tick)
        else:
            await _project_part(conn, out, _part_sql(until, part, parts), page, tick, other)
    except _Anomaly as exc:
        return _Part(anomaly=str(exc) or "anomaly")
    return out


async def _project_part(
    conn: Any, out: _Part, where: str, page: int, tick: Callable[[int, int], None], other: Any = None
) -> None:
    """The rebuild alone: only the events that change a projection are read and decoded (and
    every table's first); the draws and discards between, which change nothing but the table's
    version, are counted by PostgreSQL (and their versions checked gap-free), on ``other``
    meanwhile when given."""
    proj = Projection(out.tables)
    counting = (other or conn).fetch(
        f"SELECT stream_id, count(*)::int, min(version), max(version) FROM okey_events WHERE {where} GROUP BY stream_id"
    )
    pending = asyncio.ensure_future(counting) if other is not None else None
    try:
        await _project_rows(conn, out, proj, where, page, tick, [] if pending is not None else await counting)
        if pending is not None:
            _count_rows(out, await pending)
    finally:
        if pending is not None and not pending.done():
            pending.cancel()
            with contextlib.suppress(BaseException):
                await pending
    out.changes = proj.changes
    tick(0, len(out.tables))


async def _project_rows(
    conn: Any, out: _Part, proj: Projection, where: str, page: int, tick: Callable[[int, int], None], counts: Any
) -> None:
    if counts:
        _check_counts(counts)
    tables, parked, apply, loads = out.tables, out.parked, proj.apply_stored, json.loads
    sql = (
        "SELECT stream_id, version, type, data::text, recorded_at FROM okey_events "
        f"WHERE {where} AND (type <> ALL($1::text[]) OR version = 1) ORDER BY okey_events.tx, okey_events.position"
    )
    async with conn.transaction():
        cur = await conn.cursor(sql, _IGNORED_TYPES)
        while rows := await cur.fetch(page):
            for table_id, version, kind, data, at in rows:
                if table_id in parked:
                    continue
                acc = tables.get(table_id)
                if acc is not None:
                    if version <= acc.version:
                        raise _Anomaly("a table's versions out of the log's order")
                    acc.version = version - 1  # the events between change nothing but the version
                try:
                    apply(table_id, version, at, kind, loads(data))
                except ValueError as exc:
                    raise _Anomaly(str(exc)) from None
                except UnknownEventType as exc:
                    raise _Anomaly(str(exc)) from None
                except ProjectionError as exc:  # this table stops here; the others go on
                    parked[table_id] = (version, str(exc)[:500])
            tick(len(rows), 0)
    if counts:
        _count_rows(out, counts)


def _check_counts(counts: Any) -> None:
    for _, n, lo, hi in counts:
        if lo != 1 or hi != n:
            raise _Anomaly("a table's versions are not gap-free")


def _count_rows(out: _Part, counts: Any) -> None:
    """Each table at its last version (its draws and discards after its last projected event)."""
    _check_counts(counts)
    for table_id, n, _, hi in counts:
        out.events += n
        if table_id in out.parked:
            continue  # it stays at the version before the event that parked it
        acc = out.tables.get(table_id)
        if acc is None:
            raise _Anomaly(f"table {table_id!r} has no first event")
        acc.version = hi


async def _verify_part(conn: Any, out: _Part, where: str, page: int, tick: Callable[[int, int], None]) -> None:
    """``--verify``: every event, decoded once from its JSON, is projected and re-decided by
    okeycore (``LogVerifier``), as the one-pass reader does for the whole log."""
    proj = Projection(out.tables)
    verifier = LogVerifier()
    tables, parked, apply, loads = out.tables, out.parked, proj.apply_stored, json.loads
    feed, inputs, ignored = verifier.feed, out.inputs, _IGNORED_NAMES
    sql = (
        "SELECT stream_id, version, type, data::text, recorded_at, tx::text::bigint, position FROM okey_events "
        f"WHERE {where} ORDER BY okey_events.tx, okey_events.position"
    )
    async with conn.transaction():
        cur = await conn.cursor(sql)
        pending = asyncio.ensure_future(cur.fetch(page))
        try:
            while rows := await pending:
                pending = asyncio.ensure_future(cur.fetch(page))
                await asyncio.sleep(0)  # the next page is asked for: PostgreSQL sends it while this one is checked
                made = len(tables)
                for table_id, version, kind, text, at, tx, position in rows:
                    data = loads(text)
                    acc = tables.get(table_id)
                    if acc is not None and kind in ignored and version == acc.version + 1 and table_id not in parked:
                        acc.version = version  # all that applying a draw or a discard does
                    elif table_id not in parked:
                        try:
                            apply(table_id, version, at, kind, data)
                        except ValueError as exc:
                            raise _Anomaly(str(exc)) from None
                        except UnknownEventType as exc:
                            raise _Anomaly(str(exc)) from None
                        except ProjectionError as exc:
                            parked[table_id] = (version, str(exc)[:500])
                    data["type"] = kind  # the projection reads fields by name: the one dict serves both
                    verifier.where = (0, tx, position)
                    feed(table_id, version, data)
                    if kind in TABLE_INPUT_TYPES:
                        inputs.feed(table_id, kind, data)
                out.events += len(rows)
                tick(len(rows), len(tables) - made)
        finally:
            if not pending.done():  # a page asked for: let it come before the transaction ends
                with contextlib.suppress(Exception):
                    await pending
    verifier.finish()
    out.changes = proj.changes
    out.found = verifier.found
    out.overflow = len(verifier.problems) > verifier.max_problems
    out.rules_found = verifier.rules_found
    out.rules_count = verifier.rules_difference_count
    out.checked = dict(verifier.checked)


_counters: Any = None  # a worker process's shared progress counts (events, tables)


def _init_worker(counters: Any) -> None:
    global _counters
    _counters = counters


def _part_worker(dsn: str, until: GlobalPosition, part: int, parts: int, verify: bool, page: int) -> _Part:
    # What a worker holds (events, okeycore states, rows) makes few cycles: the collector need
    # not walk it every 700 allocations, nor the modules the fork brought along.
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)

    def tick(n: int, tables: int) -> None:
        with _counters.get_lock():
            _counters[0] += n
            _counters[1] += tables

    async def main() -> _Part:
        import asyncpg

        conn = await asyncpg.connect(dsn)
        try:
            return await _read_part(conn, until, part, parts, verify, page, tick)
        finally:
            await conn.close()

    return asyncio.run(main())


async def _read_parts(
    events: PostgresEventStore,
    dsn: str | None,
    until: GlobalPosition,
    parts: int,
    verify: bool,
    page: int,
    progress: Callable[[int, int, float], None] | None,
    t0: float,
) -> list[_Part]:
    """Every partition read and projected (and verified), at once: with ``verify`` each in a
    process of its own (okeycore's checks are Python), else each on a connection of its own in
    this process (PostgreSQL does most of the work: it picks out the events that matter)."""
    counts = [0, 0]

    def tick(n: int, tables: int) -> None:
        counts[0] += n
        counts[1] += tables

    shared: Any = None
    pool: ProcessPoolExecutor | None = None
    if verify and parts > 1 and dsn is not None:
        ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
        shared = ctx.Array("q", 2)
        pool = ProcessPoolExecutor(parts, mp_context=ctx, initializer=_init_worker, initargs=(shared,))

    async def one(part: int) -> _Part:
        if pool is not None:
            assert dsn is not None
            loop = asyncio.get_running_loop()
            try:
                return await loop.run_in_executor(pool, _part_worker, dsn, until, part, parts, verify, page)
            except Exception:  # e.g. a URL the worker cannot connect with: this process reads it
                pass
        async with events.pool.acquire() as conn:
            if parts == 1 and not verify and events.pool.get_max_size() > 1:
                async with events.pool.acquire() as other:
                    return await _read_part(conn, until, part, parts, verify, page, tick, other)
            return await _read_part(conn, until, part, parts, verify, page, tick)

    async def ticker() -> None:
        assert progress is not None
        while True:
            await asyncio.sleep(0.5)
            n, tables = (shared[0], shared[1]) if shared is not None else counts
            progress(n, tables, time.perf_counter() - t0)

    ticking = asyncio.create_task(ticker()) if progress is not None else None
    try:
        return list(await asyncio.gather(*(one(k) for k in range(parts))))
    finally:
        if ticking is not None:
            ticking.cancel()
        if pool is not None:
            pool.shutdown(cancel_futures=True)


@dataclass
class VerifyReport:
    events: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=dict)
    rules_differences: list[str] = field(default_factory=list)
    rules_difference_count: int = 0

    @property
    def rate(self) -> float:
        return self.events / self.seconds if self.seconds else 0.0


async def verify_log(
    events: PostgresEventStore,
    dsn: str | None = None,
    partitions: int | None = None,
    page: int = 5000,
    progress: Callable[[int, int, float], None] | None = None,
) -> VerifyReport:
    """``okey replay --verify``'s check alone (no tables written, no tournaments): okeycore
    re-decides every recorded result of the log as it stands now, in parallel partitions."""
    t0 = time.perf_counter()
    report = VerifyReport()
    until = await events.log_end()
    n = PARTITIONS if partitions is None else max(1, partitions)
    parts = (
        await _read_parts(events, dsn or _dsn_of(events), until, n, True, page, progress, t0) if until != START else []
    )
    if any(p.anomaly for p in parts):  # what only the whole log's order judges: one pass
        verifier = LogVerifier()
        cursor = START
        while batch := await events.read_all(cursor, page):
            cursor = batch[-1].global_position
            for e in batch:
                verifier.feed(e.stream_id, e.version, {"type": e.type, **e.data})
        report.events = verifier.events
        report.problems = verifier.finish()
        report.checked = dict(verifier.checked)
        report.rules_differences = list(verifier.rules_differences)
        report.rules_difference_count = verifier.rules_difference_count
    else:
        _verified(parts, report)
        report.events = sum(p.events for p in parts)
    report.seconds = time.perf_counter() - t0
    return report


def _verified(parts: Sequence[_Part], into: Any) -> None:
    """The partitions' okeycore findings merged into ``into`` (a ReplayReport or VerifyReport)."""
    problems = merge_found((f for p in parts for f in p.found), any(p.overflow for p in parts), 50, _MORE)
    checked = dict(LogVerifier().checked)
    for p in parts:
        for k, n in p.checked.items():
            checked[k] = checked.get(k, 0) + n
    rules = merge_found((f for p in parts for f in p.rules_found), False, 50, None)
    count = sum(p.rules_count for p in parts)
    if isinstance(into, ReplayReport):
        into.verify_problems, into.verified = problems, checked
    else:
        into.problems, into.checked = problems, checked
    into.rules_differences, into.rules_difference_count = rules, count


def _add(into: Counters, more: Counters) -> None:
    for name in COUNTER_FIELDS:
        setattr(into, name, getattr(into, name) + getattr(more, name))


def _merge(parts: Sequence[_Part]) -> Projection:
    """One projection of the partitions' disjoint tables: their rows side by side, the player and
    weekly counters (increments) added, the rated matches together (rated in their order)."""
    proj = Projection()
    into = proj.changes
    for p in parts:
        proj.tables.update(p.tables)
        ch = p.changes
        into.tables.update(ch.tables)
        into.hands += ch.hands
        into.matches += ch.matches
        into.seats += ch.seats
        into.rated += ch.rated
        for (player, game), c in ch.players.items():
            _add(into.player(player, game), c)
        for (week, game, player), c in ch.weekly.items():
            _add(into.week(week, game, player), c)
    return proj


def merge_found(found: Iterable[tuple[Any, str]], overflow: bool, limit: int, more: str | None) -> list[str]:
    """Findings of several partitions in the order a reader of the whole log finds them, cut at
    ``limit`` as one ``LogVerifier`` cuts them (``more``: its last line when there are more)."""
    ordered = sorted(found, key=lambda f: f[0])
    out = [line for _, line in ordered[:limit]]
    if more is not None and (overflow or len(ordered) > limit):
        out.append(more)
    return out


async def _read_in_one_pass(
    events: PostgresEventStore,
    proj: Projection,
    report: ReplayReport,
    verifier: LogVerifier | None,
    inputs: TableInputs,
    page: int,
    progress: Callable[[int, int, float], None] | None,
    t0: float,
) -> GlobalPosition:
    """The whole log in its global order, one page after the other; returns where it stopped."""
    cursor: GlobalPosition = START
    last_tick = t0
    pending = asyncio.create_task(events.read_all(cursor, page))
    try:
        while True:
            batch = await pending
            if not batch:
                break
            cursor = batch[-1].global_position
            pending = asyncio.create_task(events.read_all(cursor, page))  # the next page loads meanwhile
            apply = proj.apply_stored
            parked = report.parked
            for e in batch:
                if e.stream_id not in parked:
                    try:
                        apply(e.stream_id, e.version, e.recorded_at, e.type, e.data)
                    except ValueError as exc:
                        raise ProjectionError(f"the log is not gap-free: {exc}") from None
                    except UnknownEventType:
                        raise
                    except ProjectionError as exc:  # this table stops here; the others go on
                        parked[e.stream_id] = (e.version, str(exc)[:500])
                if verifier is not None:
                    verifier.feed(e.stream_id, e.version, {"type": e.type, **e.data})
                    if e.type in TABLE_INPUT_TYPES:
                        inputs.feed(e.stream_id, e.type, e.data)
            report.events += len(batch)
            now = time.perf_counter()
            if progress is not None and now - last_tick >= 0.5:
                last_tick = now
                progress(report.events, len(proj.tables), now - t0)
    finally:
        pending.cancel()
    return cursor


async def _replay(
    conn: Any,
    events: PostgresEventStore,
    scoring: ScoringStore,
    verify: bool,
    swap: bool,
    page: int,
    progress: Callable[[int, int, float], None] | None,
    partitions: int,
    dsn: str | None,
) -> ReplayReport:
    report = ReplayReport()
    t0 = time.perf_counter()
    parts: list[_Part] = []
    if partitions > 0:
        until = await events.log_end()
        if until != START:
            parts = await _read_parts(events, dsn, until, partitions, verify, page, progress, t0)
    if partitions > 0 and not any(p.anomaly for p in parts):
        cursor = until
        proj = _merge(parts)
        report.events = sum(p.events for p in parts)
        for p in parts:
            report.parked.update(p.parked)
        inputs = TableInputs()
        for p in parts:
            inputs.ended.update(p.inputs.ended)
            inputs.left.update(p.inputs.left)
        if verify:
            _verified(parts, report)
    else:  # one pass (asked, or a partition met what only it can judge)
        proj = Projection()
        report.parked = {}
        verifier = LogVerifier() if verify else None
        inputs = TableInputs()  # --verify: the tournament tables' results, for the tournaments' rebuild
        cursor = await _read_in_one_pass(events, proj, report, verifier, inputs, page, progress, t0)
        if verifier is not None:
            report.verify_problems = verifier.finish()
            report.verified = dict(verifier.checked)
            report.rules_differences = list(verifier.rules_differences)
            report.rules_difference_count = verifier.rules_difference_count
    report.read_s = time.perf_counter() - t0
    report.tables = len(proj.tables)
    if progress is not None:
        progress(report.events, report.tables, report.read_s)
    if verify:
        report.tournaments = await verify_tournaments(events, inputs)
        if report.verify_problems or report.tournaments.problems:
            return report  # the log disagrees with okeycore: keep the live projection as it is

    t1 = time.perf_counter()
    async with conn.transaction():
        await scoring.prepare_rebuild(conn)
        report.rows = await scoring.copy_all(conn, proj.tables, proj.changes, REBUILD_SCHEMA)
    report.write_s = time.perf_counter() - t1

    t2 = time.perf_counter()
    try:
        async with conn.transaction():
            await scoring.lock_live(conn)
            # Catch up: the log written while we rebuilt, then anything the live projector
            # applied that the log reader had not reached (it cannot pass a late commit).
            while True:
                more = await events.read_all(cursor, page)
                if not more:
                    break
                cursor = more[-1].global_position
                report.caught_up += await _catch_up(conn, scoring, more, report.parked)
                report.events += len(more)
            live = await scoring.versions(conn)
            rebuilt = await scoring.versions(conn, REBUILD_SCHEMA)
            for table_id, v in sorted(live.items()):
                have = rebuilt.get(table_id, 0)
                if v > have:
                    missing = await events.read_stream(table_id, after_version=have, limit=v - have)
                    report.caught_up += await _catch_up(conn, scoring, missing, report.parked)
            rebuilt = await scoring.versions(conn, REBUILD_SCHEMA)
            report.live_behind = sum(max(0, v - live.get(t, 0)) for t, v in rebuilt.items())
            await scoring.forget_erased(conn, REBUILD_SCHEMA)  # deleted accounts stay off the boards
            report.tables = len(rebuilt)
            report.diff = await scoring.diff(conn)
            if swap:
                await scoring.swap(conn)
                await scoring.replace_parked(conn, report.parked)  # what still cannot be projected
                report.swapped = True
    finally:
        if not report.swapped:
            await scoring.drop_rebuild(conn)
    report.swap_s = time.perf_counter() - t2
    return report


# ------------------------------------------------------------------ the command


def _progress_printer() -> Callable[[int, int, float], None]:
    tty = sys.stderr.isatty()

    def show(n: int, tables: int, seconds: float) -> None:
        rate = n / seconds if seconds else 0.0
        line = f"  read {n:,} events, {tables:,} tables, {rate:,.0f} events/s"
        sys.stderr.write(("\r" + line + "   ") if tty else line + "\n")
        sys.stderr.flush()

    return show


def run_replay(args: argparse.Namespace) -> int:
    url = args.database_url or os.environ.get("OKEY_DATABASE_URL")
    if not url:
        print("okey replay: set OKEY_DATABASE_URL or pass --database-url", file=sys.stderr)
        return 2
    scoring_url = args.scoring_database_url or os.environ.get("OKEY_SCORING_DATABASE_URL") or url
    return asyncio.run(_run(url, scoring_url, args.verify, not args.no_swap, args.page))


async def _run(url: str, scoring_url: str, verify: bool, swap: bool, page: int) -> int:
    out = sys.stdout
    out.write(f"okey replay: reading the event log{' and verifying every stream with okeycore' if verify else ''}\n")
    out.flush()
    events = await PostgresEventStore.connect(url, min_size=1, max_size=3)
    scoring = await ScoringStore.connect(scoring_url, min_size=1, max_size=2)
    try:
        try:
            report = await replay(
                events, scoring, verify=verify, swap=swap, page=page, progress=_progress_printer(), dsn=url
            )
        except ProjectionError as exc:
            if sys.stderr.isatty():
                sys.stderr.write("\n")
            print(f"okey replay: FAILED: {exc}", file=sys.stderr)
            return 1
    finally:
        await events.close()
        await scoring.close()
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    return _summary(report, verify, swap)


def _tournaments_summary(t: TournamentReport | None) -> bool:
    """The tournaments' lines of the summary; True when one differs from its inputs."""
    out = sys.stdout
    if t is None:
        return False
    if t.skipped:
        out.write(f"  tournaments: none checked ({t.skipped})\n")
        return False
    ledger = f"; {t.postings:,} prize and refund postings match the ledger" if t.postings else ""
    if t.problems:
        out.write(
            f"  tournaments: FAILED: {t.rebuilt:,} rebuilt from their registrations and table results; "
            "these differ from the stored log or the ledger:\n"
        )
        for p in t.problems:
            out.write(f"    {p}\n")
    elif not t.rebuilt:
        out.write("  tournaments: none in lobby_tournament_events\n")
    else:
        out.write(f"  tournaments: {t.rebuilt:,} rebuilt, all agree ({t.events:,} events{ledger})\n")
    for n in t.notes:
        out.write(f"    note: {n}\n")
    return bool(t.problems)


def _summary(r: ReplayReport, verify: bool, swap: bool) -> int:
    out = sys.stdout
    out.write(f"  events     {r.events:,} in {r.tables:,} tables, read and projected in {r.read_s:.1f} s\n")
    if verify:
        checked = ", ".join(f"{n:,} {k}" for k, n in r.verified.items())
        if r.verify_problems:
            out.write(f"  verify     FAILED: okeycore disagrees with the log ({checked} checked)\n")
            for p in r.verify_problems:
                out.write(f"    {p}\n")
        else:
            out.write(f"  verify     OK: okeycore re-decided {checked}: every recorded result matches\n")
            if r.rules_difference_count:
                out.write(
                    f"  rules      {r.rules_difference_count:,} moves of tables created under older rules would be "
                    "decided differently today (not corruption: each table keeps the rules it was created under):\n"
                )
                for d in r.rules_differences:
                    out.write(f"    {d}\n")
                if r.rules_difference_count > len(r.rules_differences):
                    out.write(f"    ... and {r.rules_difference_count - len(r.rules_differences):,} more\n")
        failed = _tournaments_summary(r.tournaments)
        if r.verify_problems or failed:
            what = " and ".join(
                w for w, bad in (("okeycore", r.verify_problems), ("the tournaments' inputs", failed)) if bad
            )
            out.write(f"okey replay: FAILED: the recorded results above differ from {what}; nothing was swapped\n")
            out.flush()
            print("okey replay: verification FAILED (see above)", file=sys.stderr)
            return 1
    if r.parked:
        out.write(
            f"  parked     {len(r.parked):,} tables stop at an event that cannot be projected "
            "(every other table is rebuilt):\n"
        )
        for table_id, (version, why) in sorted(r.parked.items())[:50]:
            out.write(f"    table {table_id} version {version}: {why}\n")
    rows = ", ".join(f"{n:,} {k.removeprefix('scoring_')}" for k, n in r.rows.items())
    out.write(f"  rebuilt    {rows} (COPY in {r.write_s:.1f} s)\n")
    differ = sum(r.diff.values())
    if differ == 0:
        out.write("  compared   the rebuilt projection equals the live one\n")
    else:
        detail = ", ".join(f"{k.removeprefix('scoring_')} {n}" for k, n in r.diff.items() if n)
        lag = f"; the live projection was {r.live_behind:,} events behind the log" if r.live_behind else ""
        out.write(f"  compared   {differ:,} rows differ from the live projection ({detail}){lag}\n")
    if r.caught_up:
        out.write(f"  caught up  {r.caught_up:,} events written while rebuilding\n")
    done = "swapped in" if r.swapped else "not swapped (--no-swap): the live projection is unchanged"
    out.write(f"okey replay: {done}; {r.events:,} events in {r.seconds:.1f} s ({r.rate:,.0f} events/s)\n")
    return 0

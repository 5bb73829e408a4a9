"""Do the books agree? Checks after load or faults, each against an independent source, for a
set of tables (``okey bench soak`` and tests/resilience):

- the event log (PostgreSQL): each table's versions are exactly 1..N, no gap, no repeat;
- JetStream (stream OKEY_TABLES, read from the start with an ordered consumer): each
  ``table:version`` of the log exactly once, in order;
- the scoring projection: the tables' rows (tables, hands, matches, seats) equal what the
  projection's own code makes from their events alone (player stats are totals over every
  table: the whole-log rebuild checks them), and ``okey replay --verify --no-swap``
  over the whole log finds okeycore agreeing with every recorded result and the rebuilt tables
  equal to the live ones (that last part only when the live projection is not behind the log:
  other tables may still be in flight);
- each finished match's standings from ScoringService.GetMatchResult: equal to okeycore's fold
  of the table's events (``MatchEnded`` scores, winners, pot and payout).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import asyncpg
import grpc
import nats
from okey.v1 import scoring_service_pb2 as spb
from okey.v1 import scoring_service_pb2_grpc as spb_grpc
from okeycore.events import MatchEnded
from okeycore.games import engine_for
from okeycore.kernel.state import Phase
from okeyplatform.auth import issue_token
from okeyplatform.contract import decode_envelope
from okeyplatform.eventstore import PostgresEventStore
from okeyplatform.relay import TABLE_STREAM
from okeytools.replay import replay

from services.scoring.projection import Projection
from services.scoring.store import HAND_COLS, MATCH_COLS, SEAT_COLS, TABLE_COLS, ScoringStore

__all__ = ["BooksReport", "check_books", "check_log_and_stream"]


@dataclass
class BooksReport:
    tables: int = 0
    events: int = 0  # in the log, for these tables
    jetstream_messages: int = 0  # of these tables, read back from the stream
    rebuilt_events: int = 0  # the whole log, replayed
    live_behind: int = 0
    results_checked: int = 0
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        verdict = "agree" if not self.problems else f"DISAGREE ({len(self.problems)} problems)"
        lag = f"; live projection {self.live_behind:,} events behind the log" if self.live_behind else ""
        return (
            f"  books       {verdict}: {self.tables:,} tables, {self.events:,} events in the log, "
            f"{self.jetstream_messages:,} on JetStream, rebuild of {self.rebuilt_events:,} events, "
            f"{self.results_checked:,} match results against okeycore{lag}"
        )


async def check_books(
    database_url: str,
    nats_url: str,
    scoring_addr: str,
    table_ids: Sequence[str],
    timeout_s: float = 90.0,
) -> BooksReport:
    report = BooksReport(tables=len(table_ids))
    versions = await _log_versions(database_url, table_ids, report)
    report.events = sum(versions.values())
    await _jetstream(nats_url, versions, report, timeout_s)
    if await _wait_projection(scoring_addr, versions, report, timeout_s):
        await _projection(database_url, table_ids, report)
    await _results(database_url, scoring_addr, table_ids, report)
    return report


async def check_log_and_stream(
    database_url: str, nats_url: str, table_ids: Sequence[str], timeout_s: float = 90.0
) -> BooksReport:
    """The first two books alone, for a check with no scoring service to ask (a restored install
    against the NATS it published to before): the log's versions 1..N per table, and JetStream
    holding each ``table:version`` of them exactly once, in order."""
    report = BooksReport(tables=len(table_ids))
    versions = await _log_versions(database_url, table_ids, report)
    report.events = sum(versions.values())
    await _jetstream(nats_url, versions, report, timeout_s)
    return report


async def _log_versions(database_url: str, table_ids: Sequence[str], report: BooksReport) -> dict[str, int]:
    conn = await asyncpg.connect(database_url)
    try:
        rows = await conn.fetch(
            "SELECT stream_id, count(*) AS n, count(DISTINCT version) AS d, min(version) AS lo, max(version) AS hi "
            "FROM okey_events WHERE stream_id = ANY($1::text[]) GROUP BY stream_id",
            list(table_ids),
        )
    finally:
        await conn.close()
    got = {r["stream_id"]: r for r in rows}
    missing = sorted(set(table_ids) - got.keys())
    if missing:
        report.problems.append(f"log: tables with no events: {missing[:10]}")
    for t, r in got.items():
        if not (r["n"] == r["d"] == r["hi"] and r["lo"] == 1):
            report.problems.append(f"log: {t} has {r['n']} rows, {r['d']} versions, {r['lo']}..{r['hi']}")
    return {t: int(r["hi"]) for t, r in got.items()}


async def _jetstream(nats_url: str, wanted: dict[str, int], report: BooksReport, timeout_s: float) -> None:
    """Read the stream from the start until every wanted version is there (the relay may still
    be catching up: read again, bounded by ``timeout_s``); each table's versions in stream order."""
    nc = await nats.connect(nats_url, connect_timeout=5)
    seen: dict[str, list[int]] = {}
    try:
        js = nc.jetstream()
        deadline = time.monotonic() + timeout_s
        while True:
            seen = {t: [] for t in wanted}
            sub = await js.subscribe("okey.table.>", stream=TABLE_STREAM, ordered_consumer=True)
            try:
                while time.monotonic() < deadline:
                    try:
                        msg = await sub.next_msg(timeout=2.0)
                    except nats.errors.TimeoutError:
                        break
                    env = decode_envelope(msg.data, msg.headers)
                    if env.table_id in seen:
                        seen[env.table_id].append(env.version)
                    if msg.metadata.num_pending == 0:
                        break
            finally:
                await sub.unsubscribe()
            if all(len(seen[t]) >= v for t, v in wanted.items()) or time.monotonic() >= deadline:
                break
            await asyncio.sleep(1.0)
    finally:
        await nc.close()
    # The log was read first: what a table's turn timer appended since (the bots are stopped, the
    # timers are not; a big soak's books take longer than a turn) is past it, not a disagreement.
    seen = {t: [v for v in vs if v <= wanted[t]] for t, vs in seen.items()}
    report.jetstream_messages = sum(len(v) for v in seen.values())
    for t, vs in seen.items():
        last = wanted[t]
        if vs != list(range(1, last + 1)):
            dup = sorted({v for v in vs if vs.count(v) > 1})
            lost = sorted(set(range(1, last + 1)) - set(vs))
            report.problems.append(
                f"JetStream: {t}: {len(vs)} messages for {last} versions; doubled {dup[:10]}, lost {lost[:10]}"
            )


async def _wait_projection(scoring_addr: str, wanted: dict[str, int], report: BooksReport, timeout_s: float) -> bool:
    """Until ListHands says the projection applied each table's last version."""
    metadata = (("authorization", f"Bearer {issue_token('books-checker')}"),)
    pending = dict(wanted)
    applied: dict[str, int] = {}
    async with grpc.aio.insecure_channel(scoring_addr) as ch:
        stub = spb_grpc.ScoringServiceStub(ch)
        deadline = time.monotonic() + timeout_s
        while pending and time.monotonic() < deadline:
            for t, v in list(pending.items()):
                try:
                    applied[t] = (await stub.ListHands(spb.ListHandsRequest(table_id=t), metadata=metadata)).version
                except grpc.aio.AioRpcError as err:
                    if err.code() not in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNAVAILABLE):
                        raise
                    applied[t] = 0
                if applied[t] >= v:
                    del pending[t]
            if pending:
                await asyncio.sleep(0.5)
    if pending:
        lag = {t: (applied.get(t), v) for t, v in list(pending.items())[:10]}
        report.problems.append(f"scoring: the projection did not catch up in {timeout_s:.0f} s (applied, log): {lag}")
    return not pending


async def _projection(database_url: str, table_ids: Sequence[str], report: BooksReport) -> None:
    """The live projection against a rebuild from the log, both as of the version scoring has
    applied for each table: the live rows are read first, in one snapshot, and each table's log
    is folded up to that version, so an event a turn timer appends meanwhile (the bots are
    stopped, the timers are not) is not taken for a disagreement."""
    events = await PostgresEventStore.connect(database_url, min_size=1, max_size=2)
    scoring = await ScoringStore.connect(database_url, min_size=1, max_size=2)
    try:
        names = {
            "scoring_tables": TABLE_COLS,
            "scoring_hands": HAND_COLS,
            "scoring_matches": MATCH_COLS,
            "scoring_match_seats": SEAT_COLS,
        }
        live: dict[str, list[tuple[object, ...]]] = {}
        async with scoring.pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            applied = {
                r["table_id"]: r["version"]
                for r in await conn.fetch(
                    "SELECT table_id, version FROM scoring_tables WHERE table_id = ANY($1::text[])", list(table_ids)
                )
            }
            for name, cols in names.items():
                sql = f"SELECT {', '.join(cols)} FROM {name} WHERE table_id = ANY($1::text[])"
                live[name] = [tuple(r.values()) for r in await conn.fetch(sql, list(table_ids))]
        proj = Projection()
        for t in table_ids:
            for e in await events.read_stream(t):
                if e.version <= applied.get(t, 0):
                    proj.apply_stored(t, e.version, e.recorded_at, e.type, e.data)
        expected = {
            "scoring_tables": list(proj.tables.values()),
            "scoring_hands": proj.changes.hands,
            "scoring_matches": proj.changes.matches,
            "scoring_match_seats": proj.changes.seats,
        }
        for name, objs in expected.items():
            want = sorted(_row(tuple(getattr(o, c) for c in names[name])) for o in objs)
            got = sorted(_row(r) for r in live[name])
            if got != want:
                extra, missing = len(set(got) - set(want)), len(set(want) - set(got))
                report.problems.append(
                    f"scoring: {name}: {extra} live rows not in a rebuild from the events, {missing} missing"
                )
        rebuilt = await replay(events, scoring, verify=True, swap=False)
    finally:
        await scoring.close()
        await events.close()
    report.rebuilt_events = rebuilt.events
    report.live_behind = rebuilt.live_behind
    report.problems += [f"okeycore: {p}" for p in rebuilt.verify_problems]
    if rebuilt.live_behind == 0 and sum(rebuilt.diff.values()):
        report.problems.append(f"scoring: the live projection differs from a rebuild of the whole log: {rebuilt.diff}")


def _row(values: tuple[object, ...]) -> str:
    return json.dumps(values, sort_keys=True, default=str)


async def _results(database_url: str, scoring_addr: str, table_ids: Sequence[str], report: BooksReport) -> None:
    store = await PostgresEventStore.connect(database_url, min_size=1, max_size=2)
    metadata = (("authorization", f"Bearer {issue_token('books-checker')}"),)
    try:
        async with grpc.aio.insecure_channel(scoring_addr) as ch:
            stub = spb_grpc.ScoringServiceStub(ch)
            for t in table_ids:
                events = [e.event() for e in await store.read_stream(t)]
                if not events or not isinstance(events[-1], MatchEnded):
                    continue
                ended = events[-1]
                state = engine_for(events[0].options.game).fold(None, events)  # type: ignore[attr-defined]
                try:
                    result = (
                        await stub.GetMatchResult(spb.GetMatchResultRequest(table_id=t), metadata=metadata)
                    ).result
                except grpc.aio.AioRpcError as err:
                    report.problems.append(f"results: {t}: GetMatchResult {err.code().name}: {err.details()}")
                    continue
                standings = sorted(result.standings, key=lambda s: s.seat)
                scores = [s.score for s in standings]
                checks = {
                    "the fold ends the match": state.phase is Phase.MATCH_OVER,
                    "scores = MatchEnded": scores == list(ended.scores),
                    "scores = the fold": scores == [s.score for s in state.seats],
                    "winners": sorted(result.winners) == sorted(ended.winners),
                    "winner flags": sorted(s.seat for s in standings if s.winner) == sorted(ended.winners),
                    "pot and payout": (result.pot, result.payout) == (ended.pot, ended.payout),
                }
                bad = [k for k, ok in checks.items() if not ok]
                if bad:
                    report.problems.append(f"results: {t}: GetMatchResult disagrees with okeycore: {', '.join(bad)}")
                report.results_checked += 1
    finally:
        await store.close()

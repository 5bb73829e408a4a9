"""Fair play review: pairs of players who sit together unusually often AND feed each other's
discards ("İkinci hesapla aynı masaya oturma, anlaşmalı oynama"), computed from the event log.

A *feed* is the next seat taking the discard: a ``TileDrawn`` with source ``DISCARD`` right
after the previous seat's ``TileDiscarded`` in the table's stream. A pair is flagged when

- they sat together at ``min_tables`` tables or more, ``min_lift`` times more often than
  chance (each player's tables spread at random over everyone's seats), and
- the next seat of the two took the other's discard far more often than all players do:
  a binomial z-score of at least ``min_z`` against the log's own take rate, and at least
  ``min_ratio`` times that rate.

``okey review collusion`` runs it over ``okey_events`` (okeyplatform.eventstore)."""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # the command's parser is built on every `okey` run: no database driver imports here
    from okeyplatform.eventstore import StoredEvent

__all__ = [
    "PairStats",
    "CollusionScan",
    "CollusionReport",
    "run_review_collusion",
    "scan_database",
    "format_report",
    "add_review_parser",
]


# Events that may come between a discard and the next seat's take without breaking the feed: a
# show of the indicator or a declaration (the seat does these before drawing). A timeout does
# break it: the take is then the table's or a bot's, not the player's choice.
_BETWEEN = frozenset({"IndicatorShown", "PairsDeclared", "TurnedToOkey"})


@dataclass
class PairStats:
    a: str
    b: str
    tables: int = 0
    expected_tables: float = 0.0
    feeds_ab: int = 0  # a discarded, b took it
    chances_ab: int = 0  # a discarded with b in the next seat
    feeds_ba: int = 0
    chances_ba: int = 0
    z: float = 0.0

    @property
    def feeds(self) -> int:
        return self.feeds_ab + self.feeds_ba

    @property
    def chances(self) -> int:
        return self.chances_ab + self.chances_ba

    @property
    def feed_rate(self) -> float:
        return self.feeds / self.chances if self.chances else 0.0

    @property
    def lift(self) -> float:
        return self.tables / self.expected_tables if self.expected_tables else math.inf


@dataclass
class CollusionReport:
    events: int
    tables: int
    players: int
    baseline_feeds: int
    baseline_chances: int
    pairs: list[PairStats]
    flagged: list[PairStats] = field(default_factory=list)

    @property
    def baseline_rate(self) -> float:
        return self.baseline_feeds / self.baseline_chances if self.baseline_chances else 0.0


class CollusionScan:
    """Fold events (of any number of tables, interleaved) into pair statistics."""

    def __init__(self) -> None:
        self.events = 0
        self.players: dict[str, tuple[str, ...]] = {}  # table -> player per seat ("" = bot)
        self._pending: dict[str, tuple[int, int]] = {}  # table -> (discarding seat, next seat)
        self._feeds: dict[tuple[str, str], int] = defaultdict(int)
        self._chances: dict[tuple[str, str], int] = defaultdict(int)

    def add(self, stream_id: str, type_: str, data: dict[str, Any]) -> None:
        self.events += 1
        if type_ == "TableCreated":
            self.players[stream_id] = tuple(str(p) for p in data.get("players") or ())
            return
        seats = self.players.get(stream_id)
        if type_ in _BETWEEN:
            return  # a show, a declaration or a timeout between a discard and its take: still "right after"
        pending = self._pending.pop(stream_id, None)
        if not seats:
            return
        if type_ == "TileDiscarded":
            s, n = int(data["seat"]), int(data["next_seat"])
            if 0 <= s < len(seats) and 0 <= n < len(seats):
                self._pending[stream_id] = (s, n)
                if seats[s] and seats[n] and seats[s] != seats[n]:
                    self._chances[(seats[s], seats[n])] += 1
        elif type_ == "TileDrawn" and pending is not None and data.get("source") == "DISCARD":
            s, n = pending
            if int(data["seat"]) == n and seats[s] and seats[n] and seats[s] != seats[n]:
                self._feeds[(seats[s], seats[n])] += 1

    def add_stored(self, events: Iterable[StoredEvent]) -> None:
        for e in events:
            self.add(e.stream_id, e.type, e.data)

    def report(
        self, min_tables: int = 3, min_lift: float = 2.0, min_z: float = 3.0, min_ratio: float = 1.5
    ) -> CollusionReport:
        humans = {t: sorted({p for p in ps if p}) for t, ps in self.players.items()}
        n: dict[str, int] = defaultdict(int)  # tables per player
        others: dict[str, int] = defaultdict(int)  # sum over a player's tables of the other people there
        together: dict[tuple[str, str], int] = defaultdict(int)
        for people in humans.values():
            for i, a in enumerate(people):
                n[a] += 1
                others[a] += len(people) - 1
                for b in people[i + 1 :]:
                    together[(a, b)] += 1
        slots = sum(n.values())
        base_feeds, base_chances = sum(self._feeds.values()), sum(self._chances.values())
        p0 = base_feeds / base_chances if base_chances else 0.0
        pairs = []
        for (a, b), t in together.items():
            # Chance of meeting: a's other seats filled at random from everyone else's seats.
            ea = others[a] * n[b] / max(1, slots - n[a])
            eb = others[b] * n[a] / max(1, slots - n[b])
            ps = PairStats(
                a,
                b,
                tables=t,
                expected_tables=(ea + eb) / 2,
                feeds_ab=self._feeds.get((a, b), 0),
                chances_ab=self._chances.get((a, b), 0),
                feeds_ba=self._feeds.get((b, a), 0),
                chances_ba=self._chances.get((b, a), 0),
            )
            if ps.chances and 0 < p0 < 1:
                ps.z = (ps.feeds - ps.chances * p0) / math.sqrt(ps.chances * p0 * (1 - p0))
            pairs.append(ps)
        pairs.sort(key=lambda p: (-p.z, -p.tables, p.a, p.b))
        flagged = [
            p
            for p in pairs
            if p.tables >= min_tables
            and p.lift >= min_lift
            and p.z >= min_z
            and p0 > 0
            and p.feed_rate >= min_ratio * p0
        ]
        return CollusionReport(self.events, len(self.players), len(n), base_feeds, base_chances, pairs, flagged)


async def scan_database(
    database_url: str, progress: TextIO | None = None, page: int = 5000
) -> tuple[CollusionScan, dict[str, str]]:
    """Read the whole log in its global order; also the players' display names when the lobby's
    tables are in the same database."""
    from okeyplatform.eventstore import START, GlobalPosition, PostgresEventStore

    store = await PostgresEventStore.connect(database_url, min_size=1, max_size=2)
    scan = CollusionScan()
    names: dict[str, str] = {}
    try:
        cursor: GlobalPosition = START
        while True:
            batch = await store.read_all(cursor, page)
            if not batch:
                break
            scan.add_stored(batch)
            cursor = batch[-1].global_position
            if progress is not None:
                progress.write(f"  ... {scan.events:,} events read, {len(scan.players):,} tables\n")
                progress.flush()
        async with store.pool.acquire() as conn:
            if await conn.fetchval("SELECT to_regclass('lobby_players') IS NOT NULL"):
                rows = await conn.fetch("SELECT player_id, display_name FROM lobby_players")
                names = {r["player_id"]: r["display_name"] for r in rows}
    finally:
        await store.close()
    return scan, names


def _who(pid: str, names: dict[str, str]) -> str:
    if pid not in names:
        return pid
    return f"{names[pid] or 'deleted player'} ({pid})"  # an account deleted: its name is gone


def format_report(report: CollusionReport, names: dict[str, str], min_tables: int, show_all: bool) -> str:
    lines = [
        f"read {report.events:,} events of {report.tables:,} tables ({report.players:,} players)",
        f"baseline: the next seat took a discard {report.baseline_rate:.1%} of the time "
        f"({report.baseline_feeds:,} of {report.baseline_chances:,} discards)",
    ]
    regular = [p for p in report.pairs if p.tables >= min_tables]
    lines.append(f"pairs who sat together at {min_tables} or more tables: {len(regular):,}")
    if report.flagged:
        lines.append(
            f"FLAGGED {len(report.flagged)} pair(s): sat together unusually often AND fed each other's discards"
        )
    else:
        lines.append("no pair flagged")
    for p in report.flagged if not show_all else regular:
        mark = "!" if p in report.flagged else " "
        lines.append(
            f" {mark} {_who(p.a, names)} & {_who(p.b, names)}: {p.tables} tables together "
            f"(expected {p.expected_tables:.1f}, x{p.lift:.1f}); took each other's discards {p.feeds} of "
            f"{p.chances} times ({p.feed_rate:.0%} vs {report.baseline_rate:.0%}, z={p.z:.1f}; "
            f"{p.a} -> {p.b}: {p.feeds_ab}/{p.chances_ab}, {p.b} -> {p.a}: {p.feeds_ba}/{p.chances_ba})"
        )
    return "\n".join(lines)


def run_review_collusion(args: argparse.Namespace) -> int:
    url = args.database_url or os.environ.get("OKEY_DATABASE_URL")
    if not url:
        print("okey review collusion: set OKEY_DATABASE_URL or pass --database-url", file=sys.stderr)
        return 2
    print("okey review collusion: reading the event log ...", file=sys.stderr)
    scan, names = asyncio.run(scan_database(url, progress=sys.stderr))
    report = scan.report(args.min_tables, args.min_lift, args.min_z, args.min_ratio)
    if args.json:
        out = {
            "events": report.events,
            "tables": report.tables,
            "players": report.players,
            "baseline_rate": report.baseline_rate,
            "flagged": [
                {**asdict(p), "feed_rate": p.feed_rate, "lift": p.lift, "names": [names.get(p.a), names.get(p.b)]}
                for p in report.flagged
            ],
        }
        print(json.dumps(out, indent=2))
    else:
        print(format_report(report, names, args.min_tables, args.all))
    return 0


def add_review_parser(sub: Any) -> None:
    """``okey review collusion`` (called by okeytools.cli)."""
    review = sub.add_parser(
        "review",
        help="fair-play reviews computed from the event log",
        description="Fair-play reviews computed from the event log (okey_events).",
    )
    kinds = review.add_subparsers(dest="review", metavar="<review>", required=True)
    col = kinds.add_parser(
        "collusion",
        help="flag pairs who sit together unusually often and feed each other's discards",
        description="Flag pairs of players who sat together unusually often AND whose discards fed each other "
        "(the next seat taking the discard: TileDrawn from DISCARD right after the previous seat's TileDiscarded), "
        "measured against the whole log's take rate. Reads OKEY_DATABASE_URL (or --database-url).",
    )
    col.add_argument("--database-url", help="PostgreSQL URL of the event store (default: OKEY_DATABASE_URL)")
    col.add_argument("--min-tables", type=int, default=3, help="tables together before a pair is judged (default 3)")
    col.add_argument("--min-lift", type=float, default=2.0, help="times more often together than chance (default 2)")
    col.add_argument("--min-z", type=float, default=3.0, help="z-score of their discard takes (default 3)")
    col.add_argument(
        "--min-ratio", type=float, default=1.5, help="their take rate over the log's take rate (default 1.5)"
    )
    col.add_argument("--all", action="store_true", help="list every pair that sat together enough, flagged or not")
    col.add_argument("--json", action="store_true", help="print the flagged pairs as JSON")
    col.set_defaults(func=run_review_collusion)

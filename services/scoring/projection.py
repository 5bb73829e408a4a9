"""The scoring projections as pure code: table events in, rows out (no I/O, no clock).

The live projector (NATS) and ``okey replay`` (the PostgreSQL log) run this same code, so a
rebuild equals the live projection. Events are told apart by their okeycore class (the typed
contract of okeyplatform.contract), never by a list of names. Every number is read from the
events (``HandEnded.deltas``, ``MatchEnded.winners``, ...): scoring never recomputes a rule.
Only fields the spectator's version of an event keeps are read, so the redacted events on NATS
and the private ones in the log project identically."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from datetime import UTC, date, datetime, timedelta
from typing import Any, ClassVar

from okeycore import okey101
from okeycore.events import (
    EVENT_TYPES,
    AutopilotEnded,
    BreakStarted,
    Event,
    HandEnded,
    HandStarted,
    IndicatorShown,
    MatchEnded,
    PairsDeclared,
    PenaltyApplied,
    SeatDisconnected,
    SeatLeft,
    SeatReady,
    SeatReconnected,
    TableCreated,
    TileDiscarded,
    TileDrawn,
    TileReturned,
    TurnedToOkey,
    TurnTimedOut,
    event_from_dict,
)
from okeycore.games import engine_for as engine
from okeycore.options import Game
from okeycore.ranking import competition_ranks

from .rating import RatedMatch, rated_match

__all__ = [
    "HANDLED",
    "IGNORED",
    "FinishKind",
    "Outcome",
    "ProjectionError",
    "UnknownEventType",
    "TableAcc",
    "HandRow",
    "MatchRow",
    "SeatRow",
    "Counters",
    "Changes",
    "Projection",
    "week_of",
]

IGNORED: frozenset[type[Event]] = frozenset(
    {
        TileDrawn,
        TileReturned,
        TileDiscarded,
        PairsDeclared,
        TurnedToOkey,
        okey101.MeldsOpened,
        okey101.TileAdded,
        okey101.OkeyTaken,
        BreakStarted,  # the pause between hands [P-BREAK-1]
        SeatReady,
        SeatDisconnected,  # a person's connection [D-11]: autopilot comes with TurnTimedOut, as ever
        SeatReconnected,
    }
)
"""Event classes known to change no score: they only move the table's applied version. Any
class neither projected (``HANDLED``) nor here stops the projector (tests/scoring checks every
okeycore event is one or the other)."""


class FinishKind:
    NORMAL = "NORMAL"
    OKEY = "OKEY"
    PAIRS = "PAIRS"
    COLORED = "COLORED"
    ELDEN = "ELDEN"


class Outcome:
    FINISHED = "FINISHED"
    DECK_EXHAUSTED = "DECK_EXHAUSTED"
    VOIDED = "VOIDED"


class ProjectionError(Exception):
    """An event the projection cannot apply (malformed, out of place, a number out of range):
    its table is parked (the projector and ``okey replay`` go on with every other table).
    ``table_id`` and ``version`` name the event when known."""

    def __init__(self, message: str, table_id: str | None = None, version: int | None = None) -> None:
        super().__init__(message)
        self.table_id = table_id
        self.version = version


class UnknownEventType(ProjectionError):
    """An event type scoring has never heard of: stopping is safer than guessing it changes nothing."""

    def __init__(self, table_id: str, version: int, event_type: object) -> None:
        super().__init__(
            f"unknown event type {event_type!r} at table {table_id!r} version {version}: the scoring "
            "projector does not know what it means for scores, so it stops instead of skipping it "
            "(the event stays unacknowledged; run a scoring service that knows this type, then restart)",
            table_id,
            version,
        )
        self.event_type = event_type


def week_of(moment: datetime) -> date:
    """The Monday (UTC) of the ISO week a moment falls in: the key of the weekly boards."""
    day = moment.astimezone(UTC).date()
    return day - timedelta(days=day.weekday())


# ------------------------------------------------------------------ rows


@dataclass(slots=True)
class TableAcc:
    """One table as the projection has folded it; ``version`` is the last event applied
    (the exactly-once tracking, stored in the same transaction as the rows it produced)."""

    table_id: str
    version: int
    game: str
    options: dict[str, Any]
    players: list[str]
    scores: list[int]
    hand: int
    hands_recorded: int
    shows: list[dict[str, Any]]  # indicator shows of the hand being played
    penalties: list[dict[str, Any]]  # flat penalties of the hand being played
    created_at: datetime
    ended_at: datetime | None = None
    autopilot: list[int] = field(default_factory=list)  # seats a bot plays for now [C-TIME-2]
    left_seats: list[int] = field(default_factory=list)  # seats whose player left mid-match [D-10]


@dataclass(frozen=True, slots=True)
class HandRow:
    table_id: str
    seq: int
    hand: int
    version: int
    outcome: str
    finisher: int
    finisher_player: str
    finish_kinds: list[str]
    final_tile: int
    multiplier: int
    deltas: list[int]
    points: list[int]
    indicator: list[int]
    penalties: list[int]
    total: list[int]
    scores: list[int]
    shows: list[dict[str, Any]]
    penalty_events: list[dict[str, Any]]
    chips: list[int]
    ended_at: datetime


@dataclass(frozen=True, slots=True)
class MatchRow:
    table_id: str
    game: str
    version: int
    hands: int
    scores: list[int]
    winners: list[int]
    players: list[str]
    pot: int
    payout: int
    remainder: int
    ended_at: datetime
    week: date


@dataclass(frozen=True, slots=True)
class SeatRow:
    table_id: str
    seat: int
    player_id: str
    score: int
    rank: int
    winner: bool
    payout: int


@dataclass(slots=True)
class Counters:
    """A player's stats for one game kind (all time), or one week's match counts."""

    matches: int = 0
    wins: int = 0
    score_sum: int = 0
    chips_won: int = 0
    hands_played: int = 0
    hands_won: int = 0
    won_normal: int = 0
    won_okey: int = 0
    won_pairs: int = 0
    won_colored: int = 0
    won_elden: int = 0
    indicator_shows: int = 0
    penalty_points: int = 0

    def values(self) -> tuple[int, ...]:
        return tuple(getattr(self, f.name) for f in fields(self))


COUNTER_FIELDS = tuple(f.name for f in fields(Counters))
WEEKLY_FIELDS = ("matches", "wins", "score_sum", "chips_won")
_WON = {
    FinishKind.NORMAL: "won_normal",
    FinishKind.OKEY: "won_okey",
    FinishKind.PAIRS: "won_pairs",
    FinishKind.COLORED: "won_colored",
    FinishKind.ELDEN: "won_elden",
}


@dataclass(slots=True)
class Changes:
    """What applying some events produced: the tables touched (their state after) and the new
    rows; player and weekly counters are increments."""

    tables: dict[str, TableAcc] = field(default_factory=dict)
    hands: list[HandRow] = field(default_factory=list)
    matches: list[MatchRow] = field(default_factory=list)
    seats: list[SeatRow] = field(default_factory=list)
    players: dict[tuple[str, str], Counters] = field(default_factory=dict)
    weekly: dict[tuple[date, str, str], Counters] = field(default_factory=dict)
    rated: list[RatedMatch] = field(default_factory=list)  # in the order they ended (rating.py folds them)

    def player(self, player_id: str, game: str) -> Counters:
        key = (player_id, game)
        c = self.players.get(key)
        if c is None:
            c = self.players[key] = Counters()
        return c

    def week(self, week: date, game: str, player_id: str) -> Counters:
        key = (week, game, player_id)
        c = self.weekly.get(key)
        if c is None:
            c = self.weekly[key] = Counters()
        return c

    @property
    def empty(self) -> bool:
        return not (self.tables or self.hands or self.matches or self.players or self.weekly or self.rated)


# ------------------------------------------------------------------ the projection


def _decode(table_id: str, version: int, event: dict[str, Any]) -> Any:
    try:
        return event_from_dict(event)
    except (KeyError, ValueError, TypeError) as exc:
        raise ProjectionError(
            f"cannot read the {event.get('type')!r} event at table {table_id!r} version {version}: {exc!r}",
            table_id,
            version,
        ) from None


class _Fields:
    """Attribute access to a stored event's JSON fields (``okey replay``'s path). Only the few
    fields a handler reads are touched: decoding a whole HandEnded (racks, deck and deal order)
    would cost more than projecting it, and a replay reads a million events."""

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getattr__(self, name: str) -> Any:
        return self._data[name]


class Projection:
    """Applies table events, in version order per table, to the tables it holds."""

    _handlers: ClassVar[dict[type[Event], Callable[[Projection, TableAcc, int, datetime, Any], None]]] = {}

    def __init__(self, tables: dict[str, TableAcc] | None = None) -> None:
        self.tables: dict[str, TableAcc] = tables if tables is not None else {}
        self.changes = Changes()

    def version(self, table_id: str) -> int:
        acc = self.tables.get(table_id)
        return acc.version if acc is not None else 0

    def apply(self, table_id: str, version: int, recorded_at: datetime, event: Event) -> None:
        """Apply the table's next event (``version`` must be the applied version + 1)."""
        self._apply(table_id, version, recorded_at, type(event), event, None)

    def apply_stored(self, table_id: str, version: int, recorded_at: datetime, kind: str, data: dict[str, Any]) -> None:
        """``apply`` for an event as the log stores it (its type and JSON fields): what ``okey
        replay`` reads. Only a TableCreated is decoded whole; the handlers read the few fields
        they need straight from the JSON."""
        cls = EVENT_TYPES.get(kind)
        if cls is None:
            raise UnknownEventType(table_id, version, kind)
        self._apply(table_id, version, recorded_at, cls, None, data)

    def pass_over(self, table_id: str, version: int) -> None:
        """``apply`` for an event of the IGNORED kinds, which changes nothing but the table's
        version: for a bulk reader that does not decode draws and discards (``okey export``)."""
        acc = self.tables.get(table_id)
        if acc is None or version != acc.version + 1:
            raise ValueError(f"{table_id}: version {version} is not the next one")
        acc.version = version
        self.changes.tables[table_id] = acc

    def _apply(
        self,
        table_id: str,
        version: int,
        recorded_at: datetime,
        cls: type[Event],
        event: Event | None,
        data: dict[str, Any] | None,
    ) -> None:
        """Either ``event``, or the stored ``data`` of an event of class ``cls``."""
        acc = self.tables.get(table_id)
        if version != (acc.version if acc else 0) + 1:
            raise ValueError(f"{table_id}: version {version} is not the next one")
        if acc is None:
            if cls is not TableCreated:
                raise ProjectionError(
                    f"table {table_id!r} starts with {cls.type!r} instead of TableCreated", table_id, version
                )
            created = event if data is None else _decode(table_id, version, {"type": cls.type, **data})
            self._table_created(table_id, recorded_at, created)  # type: ignore[arg-type]
            return
        if cls in IGNORED:
            acc.version = version
            self.changes.tables[table_id] = acc
            return
        handler = self._handlers.get(cls)
        if handler is None:
            if cls is TableCreated:
                raise ProjectionError(f"table {table_id!r} is created again at version {version}", table_id, version)
            raise UnknownEventType(table_id, version, cls.type)
        try:
            handler(self, acc, version, recorded_at, event if data is None else _Fields(data))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ProjectionError(
                f"cannot project the {cls.type!r} event at table {table_id!r} version {version}: {exc!r}",
                table_id,
                version,
            ) from None
        acc.version = version
        self.changes.tables[table_id] = acc

    # ---- handlers

    def _table_created(self, table_id: str, at: datetime, ev: TableCreated) -> None:
        game = ev.options.game
        start = engine(game).evolve(None, ev)  # the starting scores are okeycore's [C-SC-1]
        scores = [int(s.score) for s in start.seats]
        players = list(ev.players)[: len(scores)]
        players += [""] * (len(scores) - len(players))
        acc = TableAcc(
            table_id=table_id,
            version=1,
            game=game.value,
            options=ev.options.to_dict(),
            players=players,
            scores=scores,
            hand=0,
            hands_recorded=0,
            shows=[],
            penalties=[],
            created_at=at,
        )
        self.tables[table_id] = acc
        self.changes.tables[table_id] = acc

    def _turn_timed_out(self, acc: TableAcc, version: int, at: datetime, ev: Any) -> None:
        seat = _seat(ev.seat, acc)
        if ev.autopilot and seat not in acc.autopilot:
            acc.autopilot = sorted([*acc.autopilot, seat])

    def _autopilot_ended(self, acc: TableAcc, version: int, at: datetime, ev: Any) -> None:
        seat = _seat(ev.seat, acc)
        acc.autopilot = [s for s in acc.autopilot if s != seat]

    def _seat_left(self, acc: TableAcc, version: int, at: datetime, ev: Any) -> None:
        # The leaver stays the seat's player in the results: the match is theirs, and lost [D-10].
        seat = _seat(ev.seat, acc)
        if seat not in acc.left_seats:
            acc.left_seats = sorted([*acc.left_seats, seat])

    def _hand_started(self, acc: TableAcc, version: int, at: datetime, ev: Any) -> None:
        acc.hand = _whole(ev.hand)
        acc.shows = []
        acc.penalties = []

    def _indicator_shown(self, acc: TableAcc, version: int, at: datetime, ev: Any) -> None:
        deltas = _seats(ev.deltas, len(acc.scores))
        acc.shows = [*acc.shows, {"seat": _seat(ev.seat, acc), "deltas": deltas}]
        acc.scores = [s + d for s, d in zip(acc.scores, deltas, strict=True)]  # [C-SC-4] at once

    def _penalty(self, acc: TableAcc, version: int, at: datetime, ev: Any) -> None:
        seat, points = _seat(ev.seat, acc), _whole(ev.points)
        acc.penalties = [*acc.penalties, {"seat": seat, "points": points, "reason": str(ev.reason)}]
        if acc.game == Game.OKEY.value:
            # Classic: lost at once [C-SC-6]. 101 penalties reach the total through the hand
            # end's deltas [O-PEN-1..2].
            acc.scores = [s - points if i == seat else s for i, s in enumerate(acc.scores)]

    def _sums(self, acc: TableAcc) -> tuple[list[int], list[int]]:
        n = len(acc.scores)
        indicator = [0] * n
        for show in acc.shows:
            for i, d in enumerate(show["deltas"]):
                indicator[i] += d
        penalties = [0] * n
        for p in acc.penalties:
            penalties[p["seat"]] += p["points"]
        return indicator, penalties

    def _hand_ended(self, acc: TableAcc, version: int, at: datetime, ev: Any) -> None:
        indicator, penalties = self._sums(acc)
        deltas = _seats(ev.deltas, len(acc.scores))
        acc.scores = [s + d for s, d in zip(acc.scores, deltas, strict=True)]
        total = [d + i - p for d, i, p in zip(deltas, indicator, penalties, strict=True)]
        finished = ev.reason == Outcome.FINISHED
        kinds = []
        if finished:
            flags = ((ev.okey_finish, FinishKind.OKEY), (ev.pairs_finish, FinishKind.PAIRS))
            kinds = [k for on, k in (*flags, (ev.colored_finish, FinishKind.COLORED)) if on] or [FinishKind.NORMAL]
        self._hand_row(
            acc,
            version,
            at,
            _whole(ev.hand),
            ev.reason,
            _seat(ev.finisher, acc) if finished else -1,
            kinds,
            _whole(ev.final_tile),
            _whole(ev.multiplier),
            deltas,
            [],
            indicator,
            penalties,
            total,
            [],
        )

    def _hand_ended_101(self, acc: TableAcc, version: int, at: datetime, ev: Any) -> None:
        n = len(acc.scores)
        deltas = _seats(ev.deltas, n)
        acc.scores = _seats(ev.totals, n)
        finished = ev.reason == Outcome.FINISHED
        kinds = []
        if finished:
            flags = (
                (ev.okey_finish, FinishKind.OKEY),
                (ev.pair_finish, FinishKind.PAIRS),
                (ev.elden, FinishKind.ELDEN),
            )
            kinds = [k for on, k in flags if on] or [FinishKind.NORMAL]
        self._hand_row(
            acc,
            version,
            at,
            _whole(ev.hand),
            ev.reason,
            _seat(ev.finisher, acc) if finished else -1,
            kinds,
            _whole(ev.final_tile),
            _whole(ev.multiplier),
            deltas,
            _seats(ev.points, n),
            [0] * n,
            _seats(ev.penalties, n),
            deltas,
            _seats(ev.chips, n, CHIPS_LIMIT),
        )

    def _hand_voided(self, acc: TableAcc, version: int, at: datetime, ev: Any) -> None:
        n = len(acc.scores)
        zeros = [0] * n
        self._hand_row(
            acc,
            version,
            at,
            _whole(ev.hand),
            Outcome.VOIDED,
            -1,
            [],
            -1,
            0,
            zeros,
            [],
            zeros,
            _seats(ev.penalties, n),
            zeros,
            [],
        )

    def _hand_row(
        self,
        acc: TableAcc,
        version: int,
        at: datetime,
        hand: int,
        outcome: str,
        finisher: int,
        kinds: list[str],
        final_tile: int,
        multiplier: int,
        deltas: list[int],
        points: list[int],
        indicator: list[int],
        penalties: list[int],
        total: list[int],
        chips: list[int],
    ) -> None:
        acc.hands_recorded += 1
        row = HandRow(
            table_id=acc.table_id,
            seq=acc.hands_recorded,
            hand=hand,
            version=version,
            outcome=outcome,
            finisher=finisher,
            finisher_player=acc.players[finisher] if finisher >= 0 else "",
            finish_kinds=kinds,
            final_tile=final_tile if finisher >= 0 else -1,
            multiplier=multiplier,
            deltas=deltas,
            points=points,
            indicator=indicator,
            penalties=penalties,
            total=total,
            scores=list(acc.scores),
            shows=acc.shows,
            penalty_events=acc.penalties,
            chips=chips,
            ended_at=at,
        )
        self.changes.hands.append(row)
        if outcome != Outcome.VOIDED:
            for seat, player in enumerate(acc.players):
                if not player:
                    continue  # bots get no stats
                c = self.changes.player(player, acc.game)
                c.hands_played += 1
                if seat == finisher:
                    c.hands_won += 1
                    for k in kinds:
                        setattr(c, _WON[k], getattr(c, _WON[k]) + 1)
            for show in acc.shows:
                if acc.players[show["seat"]]:
                    self.changes.player(acc.players[show["seat"]], acc.game).indicator_shows += 1
            for p in acc.penalties:
                if acc.players[p["seat"]]:
                    self.changes.player(acc.players[p["seat"]], acc.game).penalty_points += p["points"]
        acc.shows = []
        acc.penalties = []

    def _match_ended(self, acc: TableAcc, version: int, at: datetime, ev: Any) -> None:
        scores = _seats(ev.scores, len(acc.scores))
        winners = sorted(_seat(w, acc) for w in ev.winners)
        pot, payout, remainder = (_whole(x, CHIPS_LIMIT) for x in (ev.pot, ev.payout, ev.remainder))
        acc.scores = scores
        acc.ended_at = at
        week = week_of(at)
        self.changes.matches.append(
            MatchRow(
                table_id=acc.table_id,
                game=acc.game,
                version=version,
                hands=acc.hands_recorded,
                scores=scores,
                winners=winners,
                players=list(acc.players),
                pot=pot,
                payout=payout,
                remainder=remainder,
                ended_at=at,
                week=week,
            )
        )
        ranks = _ranks(acc, scores, winners)
        ranked = is_ranked(acc.players)
        autopilot_win = False
        for seat, player in enumerate(acc.players):
            # A player who left mid-match lost it, even if the bot that played on won [D-10]; the
            # other seats' results are the event's, unchanged.
            won = seat in winners and seat not in acc.left_seats
            paid = payout if won else 0
            self.changes.seats.append(SeatRow(acc.table_id, seat, player, scores[seat], ranks[seat], won, paid))
            if not player or not ranked:
                continue  # bots get no stats; practice against bots alone is not ranked
            played_out = won and seat in acc.autopilot
            autopilot_win = autopilot_win or played_out
            for c in (self.changes.player(player, acc.game), self.changes.week(week, acc.game, player)):
                c.matches += 1
                c.score_sum += scores[seat]
                if won and not played_out:
                    c.wins += 1  # each co-winner gets a win [C-SC-7]; not one a bot played out
                    c.chips_won += paid
        if ranked and not autopilot_win:
            # The same two rules rate a match: two or more people, and no win a bot played out
            # (that order was a bot's, so nobody's rating moves).
            partners = bool(acc.options.get("partners"))
            rated = rated_match(acc.table_id, acc.game, at, week, acc.players, ranks, partners, acc.left_seats)
            if rated is not None:
                self.changes.rated.append(rated)


INT_LIMIT = 2**31  # scores, points and deltas go to INT columns
CHIPS_LIMIT = 2**62  # chip amounts go to BIGINT columns, and sums of them to counters: headroom


def _whole(value: Any, limit: int = INT_LIMIT) -> int:
    """A whole number that fits its column (an event out of range cannot be projected: its
    table is parked, never the projector stopped)."""
    out = int(value)
    if not -limit < out < limit:
        raise ValueError(f"{out} is out of range (|x| < {limit})")
    return out


def _seats(values: Any, n: int, limit: int = INT_LIMIT) -> list[int]:
    """A per-seat list of whole numbers, one per seat."""
    out = [_whole(v, limit) for v in values]
    if len(out) != n:
        raise ValueError(f"{n} seats, {len(out)} values")
    return out


def is_ranked(players: Sequence[str]) -> bool:
    """Does a match count for the leaderboards? Only with at least two different people at the
    table: a player alone against bots (a duel's side seats, an all-bot practice table) plays for
    fun, so nobody can farm wins from matches bots lose to them."""
    return len({p for p in players if p}) >= 2


def _seat(value: Any, acc: TableAcc) -> int:
    seat = int(value)
    if not 0 <= seat < len(acc.scores):
        raise ValueError(f"no seat {seat}")
    return seat


Projection._handlers = {
    HandStarted: Projection._hand_started,
    IndicatorShown: Projection._indicator_shown,
    PenaltyApplied: Projection._penalty,
    HandEnded: Projection._hand_ended,
    okey101.HandEnded101: Projection._hand_ended_101,
    okey101.HandVoided: Projection._hand_voided,
    MatchEnded: Projection._match_ended,
    TurnTimedOut: Projection._turn_timed_out,
    AutopilotEnded: Projection._autopilot_ended,
    SeatLeft: Projection._seat_left,
}

HANDLED: frozenset[type[Event]] = frozenset({TableCreated, *Projection._handlers})
"""Event classes that change a projection."""


def _ranks(acc: TableAcc, scores: list[int], winners: list[int]) -> list[int]:
    """Winners (from the event) rank 1; the others by score in the game's direction (classic:
    more points left is better, by team at a partners table; 101: fewer penalty points), as
    standard competition ranking: 1, 2, 2, 4."""
    n = len(scores)
    if acc.game == Game.OKEY.value and acc.options.get("partners") and n == 4:
        key = [scores[s] + scores[(s + 2) % 4] for s in range(n)]
    else:
        key = list(scores)
    return list(competition_ranks(key, set(winners), higher_is_better=acc.game == Game.OKEY.value))

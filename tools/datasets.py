"""The flattened tables of ``okey export --all`` (docs/analytics.md): their one schema, and the
pure code that turns the event log into their rows (no I/O, no clock).

Every table's state comes from okeycore's outline of it (``okeycore.outline.Outline``: whose
turn it is, whose pile a drawn tile came from, who is on autopilot; held to ``Engine.evolve`` by
its tests) and every score, finisher, finish kind and penalty from the scoring service's
projection code (``services.scoring.projection.Projection``, the code behind the live
projections and ``okey replay``): nothing here re-implements a rule. Draws and discards, 98% of
a log, are read straight from their stored JSON fields; every other event is decoded whole.
This is not a check of the log (``okey replay --verify`` is): a move the rules would refuse is
written as the log has it.

What a row says is what a spectator may see [RULES.md section 7]: a deck draw's tile is blank,
and the ``events`` table holds each event as ``public_event(event, None)`` gives it. Only with
``private=True`` does the ``racks`` table get the dealt racks, and only when a hand has ended.
Player ids are opaque (``PlayerIds``: a keyed hash), never the raw ids."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

import pyarrow as pa
from okeycore import okey101
from okeycore.events import (
    EVENT_TYPES,
    AutopilotEnded,
    DrawSource,
    Event,
    HandEnded,
    HandStarted,
    IndicatorShown,
    MatchEnded,
    PairsDeclared,
    SeatLeft,
    TableCreated,
    TileDiscarded,
    TileDrawn,
    TileReturned,
    TurnedToOkey,
    TurnTimedOut,
    event_from_dict,
    event_to_dict,
)
from okeycore.games import Phase
from okeycore.games import engine_for as engine
from okeycore.options import Game
from okeycore.outline import Outline
from okeycore.tiles import face_of_id

from services.scoring.projection import IGNORED, Changes, HandRow, MatchRow, Projection, ProjectionError, SeatRow

__all__ = ["SCHEMAS", "FILED_BY", "TABLES", "PRIVATE_TABLES", "PlayerIds", "Flattener", "schema_markdown", "tile_code"]

_TS = pa.timestamp("ms", tz="UTC")
_I32 = pa.int32()
_STR = pa.string()
_INTS = pa.list_(pa.int32())
_STRS = pa.list_(pa.string())

Column = tuple[str, pa.DataType, str]

SCHEMAS: dict[str, tuple[Column, ...]] = {
    "events": (
        ("table_id", _STR, "the table (the event stream)"),
        ("version", _I32, "the event's version in its table, 1 = TableCreated"),
        ("position", pa.int64(), "the event's row in the log (the global order is by commit, then position)"),
        ("type", _STR, "the event type, e.g. TileDiscarded"),
        ("hand", _I32, "the hand the event belongs to (0 before the first deal)"),
        ("recorded_at", _TS, "when the log recorded it (UTC)"),
        (
            "data",
            _STR,
            "the event as JSON, as a spectator sees it; tiles as ids 0..105, -1 where hidden; "
            "player ids replaced by opaque ids",
        ),
    ),
    "moves": (
        ("table_id", _STR, "the table"),
        ("hand", _I32, "the hand"),
        ("version", _I32, "the event's version in its table"),
        ("recorded_at", _TS, "when the move was recorded (UTC)"),
        ("seat", _I32, "the seat that moved (0..3)"),
        (
            "action",
            _STR,
            "draw, discard, finish, show_indicator, declare_pairs, turn_to_okey, open, add_tile, "
            "take_okey, return_tile, timeout",
        ),
        (
            "tile",
            _STR,
            "the tile's code (R7, K13, F for a fake okey); NULL where a spectator does not see it "
            "(a deck draw) or the move has no single tile",
        ),
        ("from_pile", _STR, "where the tile came from: deck, pile:S (seat S's discards), rack:S"),
        ("to_pile", _STR, "where it went: rack:S, pile:S, centre (a classic finish), table (101 melds), meld:M"),
        (
            "think_ms",
            pa.int64(),
            "milliseconds since the table's previous event, for a move of the seat whose "
            "turn it is (a draw: since the turn began; a discard: since the draw); NULL otherwise",
        ),
    ),
    "hands": (
        ("table_id", _STR, "the table"),
        ("game", _STR, "OKEY or OKEY101"),
        ("options", _STR, "the table's options as JSON (TableOptions.to_dict)"),
        ("hand", _I32, "the hand number (a voided 101 hand and its redeal share a number)"),
        ("seq", _I32, "the hand's place among the table's recorded hands, 1.."),
        ("starter", _I32, "the seat that started the hand"),
        ("outcome", _STR, "FINISHED, DECK_EXHAUSTED or VOIDED"),
        ("finisher", _I32, "the seat that finished; NULL when nobody did"),
        (
            "finish_kind",
            _STR,
            "the finish kinds joined by '+': NORMAL, OKEY, PAIRS, COLORED, ELDEN (OKEY+PAIRS); "
            "NULL when nobody finished",
        ),
        ("multiplier", _I32, "the finish's multiplier (0 when nobody finished)"),
        ("final_tile", _STR, "the finisher's last tile, as a code"),
        ("indicator", _STR, "the hand's indicator tile, as a code"),
        ("deltas", _INTS, "per seat: the hand's score change (classic: the hand's deltas; 101: points + penalties)"),
        ("total", _INTS, "per seat: the whole change in the hand (classic: deltas + indicator shows - penalties)"),
        ("scores", _INTS, "per seat: the match scores after the hand"),
        ("indicator_shows", _I32, "how many times the indicator was shown in the hand"),
        ("indicator_deltas", _INTS, "per seat: the score change of the indicator shows (classic)"),
        ("penalty_count", _I32, "how many flat penalties the hand had"),
        ("penalties", _INTS, "per seat: the penalty points of the hand"),
        ("moves", _I32, "the hand's rows in moves (draws, discards, finish, ...)"),
        ("seconds", pa.float64(), "from the deal to the hand's end"),
        ("started_at", _TS, "the deal (UTC)"),
        ("ended_at", _TS, "the hand's end (UTC)"),
    ),
    "matches": (
        ("table_id", _STR, "the table"),
        ("game", _STR, "OKEY or OKEY101"),
        ("options", _STR, "the table's options as JSON"),
        ("players", _STRS, "per seat: the opaque player id, NULL for a bot seat"),
        ("bots", pa.list_(pa.bool_()), "per seat: a bot played the seat from the start"),
        ("scores", _INTS, "per seat: the final score"),
        ("ranks", _INTS, "per seat: the rank, 1 = winner (competition ranking: 1, 2, 2, 4)"),
        ("winners", _INTS, "the winning seats (co-winners share the pot)"),
        ("pot", pa.int64(), "the chips at stake in all"),
        ("payout", pa.int64(), "what each winner got"),
        ("payouts", pa.list_(pa.int64()), "per seat: the chips the seat won (a player who left gets none)"),
        ("remainder", pa.int64(), "the chips an uneven split rounded away"),
        ("hands", _I32, "hands recorded, voided ones included"),
        ("started_at", _TS, "the table's creation (UTC)"),
        ("ended_at", _TS, "the match's end (UTC)"),
    ),
    "seats": (
        ("table_id", _STR, "the table"),
        ("seat", _I32, "the seat"),
        ("player", _STR, "the opaque player id; NULL for a bot seat"),
        ("kind", _STR, "player, bot (a bot from the start) or left (a player who left; a bot played on)"),
        ("bot_level", _STR, "the table's bot_level (HARD, NORMAL, EASY) where a bot played the seat; NULL otherwise"),
        ("autopilot_seconds", pa.float64(), "seconds the seat was on autopilot after three timeouts in a row"),
        ("score", _I32, "the final score"),
        ("rank", _I32, "the rank, 1 = winner"),
        ("winner", pa.bool_(), "the seat won (a player who left never does)"),
        ("payout", pa.int64(), "the chips the seat won"),
        ("ended_at", _TS, "the match's end (UTC)"),
    ),
    "coaching_notes": (
        ("table_id", _STR, "the table"),
        ("hand", _I32, "the hand the note is about (finished, voided or deck-exhausted hands, at their end)"),
        ("version", _I32, "the event the note is about: the seat's move, a penalty, or the hand's end"),
        ("seat", _I32, "the seat the note is for"),
        ("player", _STR, "the seat's opaque player id; NULL for a bot seat"),
        (
            "bot_level",
            _STR,
            "the table's bot_level (HARD, NORMAL, EASY) where a bot played the seat at that event (a bot "
            "from the start, or after the player left); NULL for a person",
        ),
        ("game", _STR, "OKEY or OKEY101"),
        ("kind", _STR, "MISSED_FINISH, GAVE_FINISH, MISSED_OPENING, OKEY_HELD or PENALISED_DISCARD"),
        ("hindsight", pa.bool_(), "the note needs what the seat could not see then (the deck order, another rack)"),
        ("tiles", _STRS, "the tiles concerned, as codes (e.g. the tiles that would have finished)"),
        ("points", _I32, "a missed opening's points (pairs when only pairs open), a penalty's points; else 0"),
        ("turns", _I32, "OKEY_HELD: the seat's turns ended holding the okey; else 0"),
        ("ended_at", _TS, "the hand's end (UTC)"),
    ),
    "racks": (
        ("table_id", _STR, "the table"),
        ("hand", _I32, "the hand (finished hands only: written at the hand's end)"),
        ("seq", _I32, "the hand's seq in hands (tells a voided 101 deal from its redeal)"),
        ("seat", _I32, "the seat"),
        ("rack", _STRS, "the tiles dealt to the seat, as codes"),
        ("ended_at", _TS, "the hand's end (UTC)"),
    ),
}
"""Every table's columns: name, Parquet type, meaning. docs/analytics.md carries
``schema_markdown()`` verbatim (tests/cli/test_export_all.py checks it is fresh)."""

FILED_BY = {"events": "recorded_at", "moves": "recorded_at", "hands": "ended_at", "matches": "ended_at",
            "seats": "ended_at", "coaching_notes": "ended_at", "racks": "ended_at"}  # fmt: skip
"""The column whose UTC day files a row (``DIR/<table>/day=YYYY-MM-DD/``): the time ``Emit`` gets."""

PRIVATE_TABLES = ("racks",)
"""Written only with ``--with-private``."""

TABLES = tuple(t for t in SCHEMAS if t not in PRIVATE_TABLES)


def arrow_schema(table: str) -> pa.Schema:
    return pa.schema([pa.field(name, kind) for name, kind, _ in SCHEMAS[table]])


def schema_markdown() -> str:
    """The schema as docs/analytics.md shows it."""
    out: list[str] = []
    for table, cols in SCHEMAS.items():
        private = " (only with `--with-private`)" if table in PRIVATE_TABLES else ""
        out.append(f"### `{table}`{private}\n\n| column | type | meaning |\n|---|---|---|")
        out.extend(f"| `{name}` | {kind} | {text} |" for name, kind, text in cols)
        out.append("")
    return "\n".join(out)


_CODES = tuple(str(face_of_id(i)) for i in range(106))
_CODE_OF = dict(enumerate(_CODES))
_RACK = tuple(f"rack:{seat}" for seat in range(4))
_PILE = tuple(f"pile:{seat}" for seat in range(4))
_PLAYING = Phase.PLAYING


def tile_code(tile: int) -> str | None:
    """``R7``, ``F``; None for a hidden tile (-1)."""
    return _CODES[tile] if 0 <= tile < len(_CODES) else None


class PlayerIds:
    """Opaque player ids: the first 16 hex digits of HMAC-SHA256(key, id). Stable for one key,
    so rows of two exports with the same key join; without the key, nobody can tell whose they
    are (a plain hash of a guessable id could be reversed by trying ids)."""

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._cache: dict[str, str] = {}

    def __call__(self, player_id: str) -> str | None:
        if not player_id:
            return None
        got = self._cache.get(player_id)
        if got is None:
            got = self._cache[player_id] = hmac.new(self._key, player_id.encode(), hashlib.sha256).hexdigest()[:16]
        return got


Row = tuple[Any, ...]

_HAND_ENDS = (HandEnded, okey101.HandEnded101, okey101.HandVoided)
_AUTOPILOT_EVENTS = frozenset({TurnTimedOut, AutopilotEnded, MatchEnded})  # where a seat's autopilot can change
_MOVE_ACTIONS: dict[type[Event], str] = {
    TileDrawn: "draw",
    TileDiscarded: "discard",
    IndicatorShown: "show_indicator",
    PairsDeclared: "declare_pairs",
    TurnedToOkey: "turn_to_okey",
    okey101.MeldsOpened: "open",
    okey101.TileAdded: "add_tile",
    okey101.OkeyTaken: "take_okey",
    TileReturned: "return_tile",
    TurnTimedOut: "timeout",
}


_DRAWN, _DISCARDED = TileDrawn.type, TileDiscarded.type
DRAW_OR_DISCARD = frozenset({_DRAWN, _DISCARDED})
assert {TileDrawn, TileDiscarded} <= IGNORED, "the scoring projection reads draws and discards now: apply them"
_DECK, _DISCARD = DrawSource.DECK.value, DrawSource.DISCARD.value


@cache
def _deck_draws(game: Game) -> tuple[str, ...]:
    """A deck draw as a spectator sees it, by seat: the ``data`` that the game's ``public_event``
    gives it in the events table, made once rather than for every deck draw."""
    out = []
    for seat in range(4):
        d = event_to_dict(engine(game).public_event(TileDrawn(seat, 0, DrawSource.DECK), None))
        d.pop("type")
        out.append(json.dumps(d, separators=(",", ":")))
    return tuple(out)


@dataclass(slots=True)
class _Table:
    outline: Outline
    bot_level: str
    options: str
    game: str
    created_at: datetime
    players: tuple[str | None, ...]
    bots: tuple[bool, ...]
    public: Callable[[Event, int | None], Event]
    last_ms: int  # the table's previous event (epoch milliseconds): think times
    deck_draws: tuple[str, ...]
    hand_started_at: datetime | None = None
    deal: HandStarted | None = None
    moves: int = 0
    autopilot_since: dict[int, datetime] = field(default_factory=dict)
    autopilot_s: list[float] = field(default_factory=list)
    left: set[int] = field(default_factory=set)


class Flattener:
    """Feeds each table's events, in version order, through okeycore's outline and the scoring
    projection, and adds the rows of SCHEMAS to ``rows`` (by table; their reader takes them
    away, and files each under the day of its ``FILED_BY`` column); a table's earlier events
    are fed with ``quiet=True`` (the state they build, no rows) when an export resumes in the
    middle of its match. A table whose events cannot be folded or projected is parked
    (``parked``: why) and the others go on."""

    def __init__(self, ids: PlayerIds, private: bool = False) -> None:
        self.rows: dict[str, list[Row]] = {table: [] for table in SCHEMAS}
        self._events, self._moves = self.rows["events"], self.rows["moves"]
        # An event fed with its ``index`` in its reader's page has its events row made by the
        # reader from the page's own columns (Arrow's, not Python's): its index, its hand, and
        # (by place in ``page_rows``) its data where a spectator sees other than the stored.
        self.page_rows: list[int] = []
        self.page_hands: list[int] = []
        self.page_texts: dict[int, str] = {}
        self.ids = ids
        self.private = private
        self.tables: dict[str, _Table] = {}
        self.projection = Projection()
        self.parked: dict[str, str] = {}

    def _row(self, table: str, row: Row) -> None:
        self.rows[table].append(row)

    def knows(self, table_id: str) -> bool:
        return table_id in self.tables or table_id in self.parked

    def feed(
        self,
        table_id: str,
        version: int,
        position: int,
        recorded_at: datetime,
        kind: str,
        data: dict[str, Any],
        quiet: bool = False,
        text: str | None = None,
        index: int | None = None,
    ) -> None:
        """One event of the table, the next in its order; ``text`` is ``data`` as the log stores
        it (JSON), written as it is where a spectator sees the event whole; ``index``: see
        ``page_rows``."""
        if table_id in self.parked:
            return
        try:
            self._feed(table_id, version, position, recorded_at, kind, data, quiet, text, index)
        except (ProjectionError, KeyError, ValueError, TypeError, IndexError, AssertionError) as exc:
            self._park(table_id, version, kind, exc)

    def _park(self, table_id: str, version: int, kind: str, exc: Exception) -> None:
        self.parked[table_id] = f"version {version} ({kind}): {exc}"
        self.tables.pop(table_id, None)
        self.projection.tables.pop(table_id, None)
        self.projection.changes = Changes()

    def _feed(
        self,
        table_id: str,
        version: int,
        position: int,
        at: datetime,
        kind: str,
        data: dict[str, Any],
        quiet: bool,
        text: str | None,
        index: int | None,
    ) -> None:
        t = self.tables.get(table_id)
        if t is not None and kind in DRAW_OR_DISCARD:
            if text is None and not quiet:
                text = json.dumps(data, separators=(",", ":"))
            seat, tile, source, nxt = data["seat"], data["tile"], data.get("source"), data.get("next_seat")
            ms = _epoch_ms(at)
            self.feed_move(table_id, version, position, ms, kind, seat, tile, source, nxt, text, quiet, index)
            return
        ms = _epoch_ms(at)
        cls = EVENT_TYPES.get(kind)
        if cls is None:
            raise ValueError(f"unknown event type {kind!r}")
        ev = event_from_dict({"type": kind, **data})
        move = _MOVE_ACTIONS.get(cls)
        on_turn, left, autopilot = False, -1, []
        if t is None:
            if not isinstance(ev, TableCreated):
                raise ValueError(f"the table starts with {kind}, not TableCreated")
            eng = engine(ev.options.game)
            n = ev.options.seat_count
            players = tuple(self.ids(p) for p in (*ev.players, *[""] * n)[:n])
            t = self.tables[table_id] = _Table(
                outline=Outline(ev.options),
                bot_level=ev.options.bot_level.value,
                options=json.dumps(ev.options.to_dict(), separators=(",", ":")),
                game=ev.options.game.value,
                created_at=at,
                players=players,
                bots=tuple(p is None for p in players),
                public=eng.public_event,
                last_ms=ms,
                deck_draws=_deck_draws(ev.options.game),
                autopilot_s=[0.0] * n,
            )
        else:
            o = t.outline
            if move is not None:
                seat = ev.seat  # type: ignore[attr-defined]
                on_turn, left = o.phase is Phase.PLAYING and o.turn == seat, o.left_of(seat)
            autopilot = list(o.autopilot)
            o.step(kind, data)
        self.projection.apply(table_id, version, at, ev)
        if not quiet:
            shown = self._event_text(t, ev, data, text)
            if index is None:
                self._events.append((table_id, version, position, kind, t.outline.hand, ms, shown))
            else:
                if shown is not text:
                    self.page_texts[len(self.page_rows)] = shown
                self.page_rows.append(index)
                self.page_hands.append(t.outline.hand)
        if cls is TableCreated:
            return
        if move is not None:
            t.moves += 1
            if not quiet:
                self._move(t, table_id, version, ms, ev, move, on_turn, left)
            if cls is not TurnTimedOut:
                t.last_ms = ms
                return  # a move is all a show, a meld, ... makes
        if cls in _AUTOPILOT_EVENTS:
            self._track_autopilot(t, autopilot, at)
        if isinstance(ev, SeatLeft):
            t.left.add(ev.seat)
        if isinstance(ev, HandStarted):
            t.hand_started_at, t.deal, t.moves = at, ev, 0
        if isinstance(ev, HandEnded) and ev.finisher >= 0:
            t.moves += 1
            if not quiet:
                self._row(
                    "moves",
                    (table_id, ev.hand, version, ms, ev.finisher, "finish", tile_code(ev.final_tile),
                     f"rack:{ev.finisher}", "centre", ms - t.last_ms),
                )  # fmt: skip
        changes = self.projection.changes
        if isinstance(ev, _HAND_ENDS):
            for row in changes.hands:
                if not quiet and row.table_id == table_id:
                    self._hand(t, row, at)
            changes.hands.clear()
        if isinstance(ev, MatchEnded):
            if not quiet:
                self._match(t, changes.matches[-1], changes.seats, at)
            del self.tables[table_id]
            self.projection.tables.pop(table_id, None)
            self.projection.changes = Changes()  # the rows are written; the counters are not ours
            return
        t.last_ms = ms

    def feed_move(
        self, table_id: str, version: int, position: int, ms: int, kind: str, seat: Any, tile: Any, source: Any,
        next_seat: Any, text: str | None, quiet: bool = False, index: int | None = None,
    ) -> bool:  # fmt: skip
        """``feed`` for a draw or a discard (``kind``) of a table this has folded so far, given
        its time in epoch milliseconds, its stored fields and JSON text (``data`` is not
        needed); False, and nothing done, for a table it has not met (``feed`` it the parsed
        event instead). The commonest events by far: the rows are those the decoded event
        gives (tests/cli/test_export_all.py), made here without decoding it."""
        t = self.tables.get(table_id)
        if t is None:
            return table_id in self.parked
        try:
            o = t.outline
            if type(seat) is not int or not 0 <= seat < o.seats:
                raise ValueError(f"no seat {seat!r}")
            code = _CODE_OF.get(tile)
            if code is None:
                raise ValueError(f"no tile {tile!r}")
            self.projection.pass_over(table_id, version)
            think = ms - t.last_ms if (o.phase is _PLAYING and o.turn == seat) else None
            t.moves += 1
            t.last_ms = ms
            if kind == _DRAWN:
                if source == _DECK:
                    text, code, src = t.deck_draws[seat], None, "deck"
                elif source == _DISCARD:
                    src = _PILE[o.left_of(seat)]
                else:
                    raise ValueError(f"no draw source {source!r}")
                action, dst = "draw", _RACK[seat]
            else:
                if type(next_seat) is not int:
                    raise ValueError(f"no next seat {next_seat!r}")
                o.discarded(next_seat)
                action, src, dst = "discard", _RACK[seat], _PILE[seat]
        except (ProjectionError, KeyError, ValueError, TypeError, IndexError) as exc:
            self._park(table_id, version, kind, exc)
            return True
        if not quiet:
            hand = o.hand
            if index is None:
                self._events.append((table_id, version, position, kind, hand, ms, text))
            else:
                if src == "deck":
                    self.page_texts[len(self.page_rows)] = text  # type: ignore[assignment]
                self.page_rows.append(index)
                self.page_hands.append(hand)
            self._moves.append((table_id, hand, version, ms, seat, action, code, src, dst, think))
        return True

    # ---- rows

    def _event_text(self, t: _Table, ev: Event, data: dict[str, Any], text: str | None) -> str:
        """The events row's ``data``: ``text`` itself where a spectator sees the event whole."""
        shown = t.public(ev, None)
        if shown is ev and not isinstance(ev, (TableCreated, SeatLeft)):
            if text is None:
                text = json.dumps(data, separators=(",", ":"))
        else:
            d = event_to_dict(shown)
            d.pop("type", None)
            if isinstance(ev, TableCreated):
                d["players"] = [self.ids(p) for p in ev.players]
            elif isinstance(ev, SeatLeft):
                d["player"] = self.ids(ev.player)
            text = json.dumps(d, separators=(",", ":"))
        return text

    def _move(
        self, t: _Table, table_id: str, version: int, ms: int, ev: Any, action: str, on_turn: bool, left: int
    ) -> None:
        """A move other than a draw or a discard; ``on_turn`` and ``left`` (the seat left of the
        mover) as they were before it."""
        seat = ev.seat
        tile: str | None = None
        src: str | None = f"rack:{seat}"
        dst: str | None = None
        if isinstance(ev, IndicatorShown):
            tile, dst = tile_code(ev.tile), f"rack:{seat}"
        elif isinstance(ev, okey101.MeldsOpened):
            dst = "table"
        elif isinstance(ev, (okey101.TileAdded, okey101.OkeyTaken)):
            tile, dst = tile_code(ev.tile), f"meld:{ev.meld}"
        elif isinstance(ev, TileReturned):
            tile, dst = tile_code(ev.tile), f"pile:{left}"
        else:
            src = None
        think = ms - t.last_ms if on_turn else None
        self._row("moves", (table_id, t.outline.hand, version, ms, seat, action, tile, src, dst, think))

    def _hand(self, t: _Table, h: HandRow, at: datetime) -> None:
        finished = h.finisher >= 0
        started = t.hand_started_at or at
        deal = t.deal
        indicator = tile_code(deal.indicator) if deal is not None else None
        self._row(
            "hands",
            (
                h.table_id, t.game, t.options, h.hand, h.seq, None if deal is None else deal.starter, str(h.outcome),
                h.finisher if finished else None, "+".join(h.finish_kinds) if finished else None, h.multiplier,
                tile_code(h.final_tile) if finished else None, indicator, h.deltas, h.total, h.scores, len(h.shows),
                h.indicator, len(h.penalty_events), h.penalties, t.moves, (at - started).total_seconds(), started, at,
            ),
        )  # fmt: skip
        if self.private and deal is not None:
            for seat, rack in enumerate(deal.racks):
                self._row("racks", (h.table_id, h.hand, h.seq, seat, [tile_code(x) for x in rack], at))
        t.deal = None

    def _match(self, t: _Table, m: MatchRow, seats: list[SeatRow], at: datetime) -> None:
        by_seat = sorted(seats, key=lambda s: s.seat)
        ranks, payouts = [s.rank for s in by_seat], [s.payout for s in by_seat]
        self._row(
            "matches",
            (m.table_id, m.game, t.options, list(t.players), list(t.bots), m.scores, ranks, m.winners, m.pot,
             m.payout, payouts, m.remainder, m.hands, t.created_at, at),
        )  # fmt: skip
        level = t.bot_level
        for s in seats:
            kind = "bot" if t.bots[s.seat] else ("left" if s.seat in t.left else "player")
            self._row(
                "seats",
                (m.table_id, s.seat, t.players[s.seat], kind, None if kind == "player" else level,
                 t.autopilot_s[s.seat], s.score, s.rank, s.winner, s.payout, at),
            )  # fmt: skip

    def _track_autopilot(self, t: _Table, before: list[bool], at: datetime) -> None:
        """Autopilot time from the outline's seats (``before`` the event, and now): on when a
        seat's ``autopilot`` turns on, off when it turns off or the match ends."""
        o = t.outline
        ended = o.phase is Phase.MATCH_OVER
        for i, (a, b) in enumerate(zip(before, o.autopilot, strict=True)):
            if b and not a:
                t.autopilot_since[i] = at
            if i in t.autopilot_since and (not b or ended):
                t.autopilot_s[i] += (at - t.autopilot_since.pop(i)).total_seconds()


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)


def _epoch_ms(at: datetime) -> int:
    """The events and moves rows hold their times as epoch milliseconds, which Arrow takes
    ten times faster than datetimes; the log's times are whole milliseconds."""
    return (at - _EPOCH) // _MS

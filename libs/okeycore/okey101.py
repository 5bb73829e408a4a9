"""Okey 101 as an event-sourced aggregate: ``decide``, ``evolve``, ``view`` and the seat's hints.

The flow follows ``classic``: commands in, events out (or a RuleViolation with a stable reason
code), state rebuilt by folding events. What can be formed is ``melds``; what a hand is worth
is ``scoring101``; this module owns the turn, the table melds and the match.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache
from itertools import combinations
from typing import Any

from . import melds as M
from .classic import Phase, effective_table, rack_packed, split_pot
from .classic import public_event as _classic_public_event
from .commands import (
    Command,
    CreateTable,
    Discard,
    Draw,
    ForceMove,
    StartHand,
    TakeBack,
    TakeDiscard,
    TimeOut,
)
from .errors import RuleViolation
from .events import (
    AutopilotEnded,
    DrawSource,
    Event,
    HandEndReason,
    HandStarted,
    MatchEnded,
    PenaltyApplied,
    TableCreated,
    TileDiscarded,
    TileDrawn,
    TileReturned,
    TurnTimedOut,
    register,
)
from .fairness import deal_commitment
from .melds import MeldKind
from .options import RULES_VERSION, Game, Mode101, OptionsError, TableOptions
from .scoring101 import (
    FLAT_PENALTY,
    Opening,
    match_winners,
    score_exhausted,
    score_finish,
)
from .tiles import TILE_COUNT, Colour, Face, face_from_index, face_of_id, okey_face, parse_face

__all__ = [
    # commands
    "OpenMelds",
    "AddTile",
    "TakeOkey",
    "ReturnSideTile",
    # events
    "TableMeld",
    "MeldsOpened",
    "TileAdded",
    "OkeyTaken",
    "HandEnded101",
    "HandVoided",
    # state and flow
    "Opening",
    "Stage",
    "Seat101",
    "Okey101State",
    "decide",
    "can",
    "evolve",
    "fold",
    "deal",
    # what a seat sees
    "SeatPublic101",
    "SeatView101",
    "view",
    "public_event",
    # table melds and hints
    "add_options",
    "take_option",
    "fits_table",
    "penalty_reason",
    "takes_okey_back",
    "is_real_okey",
    "ids_for",
    "side_use",
    "OpeningPreview",
    "TileHint",
    "Hints",
    "hints",
    "run_opening",
    "pair_opening",
    "RUN_THRESHOLD",
    "PAIR_THRESHOLD",
    "PAIR_OPENER_ADDS",
]

RUN_THRESHOLD = 101
"""The first run opening of a hand [O-OPEN-1] [O-OPEN-3]."""
PAIR_THRESHOLD = 5
"""The first pair opening of a hand [O-OPEN-2] [O-OPEN-3]."""
PAIR_OPENER_ADDS = 2
"""Tiles a pair opener may add to runs/groups per turn, okey take-backs included [O-ADD-3]."""

Decision = list[Event] | RuleViolation


# ------------------------------------------------------------ commands


@dataclass(frozen=True, slots=True)
class OpenMelds(Command):
    """Lay melds on the table (el açmak, per açmak). A seat's first lay-down is its opening: runs
    and groups worth the run threshold [O-OPEN-1], or at least the pair threshold of pairs
    [O-OPEN-2]; later lay-downs need no threshold [O-OPEN-3] and follow [O-ADD-2]. Each meld lists
    tile ids in the order laid out, which fixes what an okey stands for [M-OKEY-1]; ``kinds``
    optionally names each meld's kind (one tile and two okeys can be a run or a group)."""

    seat: int = -1
    melds: tuple[tuple[int, ...], ...] = ()
    kinds: tuple[MeldKind, ...] = ()


@dataclass(frozen=True, slots=True)
class AddTile(Command):
    """İşleme: add ``tile`` to the run or group ``meld`` (its index on the table) [O-ADD-1].
    ``at_start`` picks the end of a run; None: wherever it fits, the high end first."""

    seat: int = -1
    tile: int = -1
    meld: int = -1
    at_start: bool | None = None


@dataclass(frozen=True, slots=True)
class TakeOkey(Command):
    """Yerden okey almak: put ``tile`` in place of the okey it stands for in ``meld`` and take
    the okey into the rack [O-OKEY-1]."""

    seat: int = -1
    tile: int = -1
    meld: int = -1


@dataclass(frozen=True, slots=True)
class ReturnSideTile(Command):
    """Geri bırak: put the side tile back on the left seat's pile [O-SIDE-2]."""

    seat: int = -1


# ------------------------------------------------------------ events


@lru_cache(maxsize=8192)
def _parse_codes(codes: tuple[str, ...]) -> tuple[Face, ...]:
    return tuple(parse_face(c) for c in codes)


@dataclass(frozen=True, slots=True)
class TableMeld:
    """A meld on the table: who laid it, its kind, its tile ids in position order, and the face
    each tile plays as (``stands_for``, codes such as ``"R11"``: the okey values [M-OKEY-1])."""

    owner: int
    kind: MeldKind
    tiles: tuple[int, ...]
    stands_for: tuple[str, ...]

    @property
    def faces(self) -> tuple[Face, ...]:
        return _parse_codes(self.stands_for)

    @property
    def value(self) -> int:
        """Sum of what the tiles stand for; a 1 after 13 counts 1 [M-RUN-3]."""
        return sum(f.number for f in self.faces)


@dataclass(frozen=True, slots=True)
class MeldsOpened(Event):
    """Melds laid on the table. ``first``: this is the seat's opening, of kind ``opening``;
    ``value`` is the melds' sum (runs and groups) or the number of pairs."""

    type = "MeldsOpened"
    to_move_field = "seat"  # the turn goes on [O-OPEN-1] [O-ADD-1] [O-OKEY-1]
    seat: int
    melds: tuple[TableMeld, ...]
    opening: Opening
    first: bool
    value: int


@dataclass(frozen=True, slots=True)
class TileAdded(Event):
    """A tile added to table meld ``meld`` [O-ADD-1]; ``stands_for`` is the meld's faces after
    (an okey in a group may now stand for another colour)."""

    type = "TileAdded"
    to_move_field = "seat"  # the turn goes on [O-OPEN-1] [O-ADD-1] [O-OKEY-1]
    seat: int
    tile: int
    meld: int
    at_start: bool
    stands_for: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class OkeyTaken(Event):
    """``tile`` took the place of ``okey`` in table meld ``meld``; the okey went to the rack [O-OKEY-1]."""

    type = "OkeyTaken"
    to_move_field = "seat"  # the turn goes on [O-OPEN-1] [O-ADD-1] [O-OKEY-1]
    seat: int
    tile: int
    okey: int
    meld: int
    stands_for: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class HandEnded101(Event):
    """A 101 hand is over; racks and the rest of the deck are public from here on.

    ``points`` are the hand points [O-SC-1..5] [D-1] [D-2]; ``penalties`` the flat penalties of
    the hand [O-PEN-1..2], already shown as they happened; ``deltas`` = points + penalties, each
    seat's change of its match total; ``totals`` the match totals after the hand; ``chips`` the
    hand prize paid to the finisher [O-DEAL-3]."""

    type = "HandEnded101"
    hand: int
    reason: HandEndReason
    finisher: int
    final_tile: int
    okey_finish: bool
    pair_finish: bool
    elden: bool
    multiplier: int
    points: tuple[int, ...]
    penalties: tuple[int, ...]
    deltas: tuple[int, ...]
    totals: tuple[int, ...]
    chips: tuple[int, ...]
    racks: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]
    order: tuple[int, ...] = ()  # the hand's deal order and salt, revealed [C-DEAL-3]
    salt: str = ""


@dataclass(frozen=True, slots=True)
class HandVoided(Event):
    """Every seat opened with pairs: the hand does not count, ``penalties`` are erased and the
    same hand is dealt again by the same starter, with no new stake [O-PEN-4]."""

    type = "HandVoided"
    hand: int
    penalties: tuple[int, ...]
    racks: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]
    order: tuple[int, ...] = ()  # the voided deal's order and salt, revealed
    salt: str = ""


for _cls in (MeldsOpened, TileAdded, OkeyTaken, HandEnded101, HandVoided):
    register(_cls)


# ------------------------------------------------------------ state


class Stage(StrEnum):
    DRAW = "DRAW"  # draw from the deck or take the side tile first
    PLAY = "PLAY"  # drew (or the starter's first turn): lay, add, take okeys, then discard [O-TURN-1]


@dataclass(frozen=True, slots=True)
class Seat101:
    rack: tuple[int, ...] = ()
    pile: tuple[int, ...] = ()  # this seat's discards, top last
    score: int = 0  # match total of the hands played (penalty points; lower is better)
    penalties: int = 0  # flat penalties of the hand being played [O-PEN-1..2]
    opening: Opening = Opening.NONE
    opening_value: int = 0  # the opening's sum, or its number of pairs: all laid in the opening turn [O-OPEN-3]
    timeouts: int = 0
    autopilot: bool = False


@dataclass(frozen=True, slots=True)
class Okey101State:
    table_id: str
    options: TableOptions
    seats: tuple[Seat101, ...]
    version: int = 0
    phase: Phase = Phase.NEW
    hand: int = 0  # hands dealt and counted (a void hand keeps its number [O-PEN-4])
    starter: int = 0
    turn: int = 0
    stage: Stage = Stage.DRAW
    indicator: int = -1
    deck: tuple[int, ...] = ()
    deadline_ms: int = 0
    timed_out: bool = False
    melds: tuple[TableMeld, ...] = ()
    high_run: int = 0  # highest run opening of the hand [O-OPEN-3]
    most_pairs: int = 0  # most pairs opened at once this hand [O-OPEN-3]
    # The turn being played:
    side_tile: int = -1  # taken from the left seat this turn [O-SIDE-1]
    side_returnable: bool = False  # no table move since it was taken [O-SIDE-2] [O-SIDE-5]
    table_moved: bool = False  # opened, added or took an okey this turn
    opened_now: bool = False  # the seat opened this turn (elden [O-SC-2])
    run_adds: int = 0  # tiles put on runs/groups this turn [O-ADD-3]
    voided: bool = False  # the last hand was void: the next deal replays it [O-PEN-4]
    last_hand: HandEnded101 | None = None
    last_void: HandVoided | None = None
    result: MatchEnded | None = None
    deal_order: tuple[int, ...] = ()  # private until the hand ends
    deal_salt: str = ""
    players: tuple[str, ...] = ()  # who sits where ("" for a bot seat)
    rules_version: int = 1  # the rules the table was created under (TableCreated)

    @property
    def okey(self) -> Face:
        return okey_face(face_of_id(self.indicator))

    @property
    def seat_count(self) -> int:
        return len(self.seats)

    def left_of(self, seat: int) -> int:
        """The seat before ``seat`` in turn order [C-SEAT-1]."""
        return (seat - 1) % len(self.seats)

    @property
    def run_threshold(self) -> int:
        """101, or with FOLDING one more than the highest run opening so far [O-OPEN-3]."""
        if self.options.mode is Mode101.FOLDING and self.high_run:
            return max(RUN_THRESHOLD, self.high_run + 1)
        return RUN_THRESHOLD

    @property
    def pair_threshold(self) -> int:
        """5, or with FOLDING one more than the most pairs opened so far [O-OPEN-3]."""
        if self.options.mode is Mode101.FOLDING and self.most_pairs:
            return max(PAIR_THRESHOLD, self.most_pairs + 1)
        return PAIR_THRESHOLD

    @property
    def side_unused(self) -> bool:
        """The turn's seat holds the side tile it took and has not laid it yet [O-SIDE-2]."""
        return self.side_tile >= 0 and self.side_tile in self.seats[self.turn].rack


# ------------------------------------------------------------ table melds: what fits where


def is_real_okey(tile: int, indicator: int) -> bool:
    return effective_table(indicator)[tile] < 0


def _eff(tile: int, indicator: int) -> Face | None:
    """What a tile plays as: None for a real okey, the okey's face for a fake [T-FAKE-1]."""
    e = effective_table(indicator)[tile]
    return None if e < 0 else face_from_index(e)


def _codes(faces: Iterable[Face]) -> tuple[str, ...]:
    return tuple(str(f) for f in faces)


def add_options(meld: TableMeld, tile: int, indicator: int, wrap: bool) -> list[tuple[bool, tuple[str, ...]]]:
    """Where ``tile`` can be added to ``meld`` [O-ADD-1]: ``(at_start, the meld's faces after)``,
    the high end of a run first. Pairs take no tiles."""
    eff = _eff(tile, indicator)
    faces = meld.faces
    if meld.kind is MeldKind.GROUP:
        if len(faces) >= 4:
            return []
        n = faces[0].number
        jokers = [is_real_okey(t, indicator) for t in meld.tiles]
        used = {f.colour for f, j in zip(faces, jokers, strict=True) if not j}
        if eff is not None:
            if eff.number != n or eff.colour in used:
                return []
            used.add(eff.colour)
        # Okeys stand for the missing colours in colour order, as melds.interpret_meld reads a group.
        free = iter([c for c in Colour if c not in used])
        after = [Face(next(free), n) if j else f for f, j in zip(faces, jokers, strict=True)]
        after.append(eff if eff is not None else Face(next(free), n))
        return [(False, _codes(after))]
    if meld.kind is not MeldKind.RUN:
        return []
    colour = faces[0].colour
    assert colour is not None
    start = faces[0].number  # a run never starts with a 1 that follows 13, so positions are start..end
    end = start + len(faces) - 1
    out: list[tuple[bool, tuple[str, ...]]] = []
    if end <= 12 or (end == 13 and wrap and start >= 2):  # 13-1 only at the end [M-RUN-2]
        f = Face(colour, end + 1 if end <= 12 else 1)
        if eff is None or eff == f:
            out.append((False, meld.stands_for + (str(f),)))
    if start >= 2:
        f = Face(colour, start - 1)
        if eff is None or eff == f:
            out.append((True, (str(f), *meld.stands_for)))
    return out


def take_option(meld: TableMeld, tile: int, indicator: int) -> tuple[int, tuple[str, ...]] | None:
    """The okey ``tile`` can take back from ``meld``, and the meld's faces after, or None
    [O-OKEY-1]. In a group the okey must stand for the only missing colours of a full group."""
    eff = _eff(tile, indicator)
    if eff is None:
        return None
    okeys = [i for i, t in enumerate(meld.tiles) if is_real_okey(t, indicator)]
    if not okeys:
        return None
    faces = meld.faces
    if meld.kind is MeldKind.PAIR and len(okeys) == 2:
        return meld.tiles[0], (str(eff), str(eff))  # two okeys stand for each other [M-PAIR-1]
    if meld.kind is MeldKind.GROUP and len(faces) < 4:
        return None  # add the fourth colour first [O-OKEY-1]
    for i in okeys:
        if faces[i] == eff:
            return meld.tiles[i], meld.stands_for
    return None


def _group_needs_fourth(meld: TableMeld, tile: int, indicator: int) -> bool:
    """``tile`` would take the okey of this 3-tile group once its fourth colour is added [O-OKEY-1]."""
    eff = _eff(tile, indicator)
    if meld.kind is not MeldKind.GROUP or len(meld.tiles) != 3 or eff is None:
        return False
    if not any(is_real_okey(t, indicator) for t in meld.tiles):
        return False
    reals = {_eff(t, indicator) for t in meld.tiles if not is_real_okey(t, indicator)}
    return eff.number == meld.faces[0].number and all(r is not None and r.colour != eff.colour for r in reals)


def fits_table(melds: Sequence[TableMeld], tile: int, indicator: int, wrap: bool) -> bool:
    """Could ``tile`` be added to some run or group on the table? [O-PEN-1]"""
    return any(add_options(m, tile, indicator, wrap) for m in melds)


def takes_okey_back(melds: Sequence[TableMeld], tile: int, indicator: int) -> bool:
    """Could ``tile`` take an okey back from a meld on the table, now or once a group's fourth
    colour is added? [O-OKEY-1]"""
    return any(take_option(m, tile, indicator) is not None or _group_needs_fourth(m, tile, indicator) for m in melds)


def penalty_reason(
    tile: int,
    rack_size: int,
    melds: Sequence[TableMeld],
    indicator: int,
    options: TableOptions,
    rules_version: int = RULES_VERSION,
) -> str | None:
    """Why discarding ``tile`` from a rack of ``rack_size`` tiles costs 101, or None: a real okey
    [O-PEN-2] (once, not also [O-PEN-1]), else a tile that fits a table meld or could take an okey
    back from one (işleme, source 003) [O-PEN-1]; the finishing tile is exempt [O-PEN-3]. Tables
    created under rules version 1 did not penalise the okey take-back."""
    if rack_size == 1:
        return None
    if is_real_okey(tile, indicator):
        return "OKEY_DISCARDED"
    if not options.discard_penalty:
        return None
    if fits_table(melds, tile, indicator, options.wrap):
        return "ADDABLE_TILE_DISCARDED"
    if rules_version >= 2 and takes_okey_back(melds, tile, indicator):
        return "OKEY_TAKER_DISCARDED"
    return None


def _arrange(tiles: Sequence[int], meld: M.Meld, indicator: int) -> tuple[int, ...]:
    """Order tile ids to match ``meld.stands_for`` position by position."""
    okeys = [t for t in tiles if is_real_okey(t, indicator)]
    reals = [t for t in tiles if not is_real_okey(t, indicator)]
    out = []
    for face, joker in zip(meld.stands_for, meld.jokers, strict=True):
        if joker:
            out.append(okeys.pop(0))
        else:
            t = next(t for t in reals if _eff(t, indicator) == face)
            reals.remove(t)
            out.append(t)
    return tuple(out)


def ids_for(
    melds: Sequence[M.Meld], rack: Sequence[int], indicator: int, prefer: int = -1
) -> tuple[tuple[int, ...], ...]:
    """Solver melds as the rack's tile ids in position order; ``prefer`` is used for its face
    (or as the okey) before any twin."""
    table = effective_table(indicator)
    pool: dict[int, list[int]] = {}
    for t in rack:
        if t != prefer:
            pool.setdefault(table[t], []).append(t)
    if prefer >= 0:
        pool.setdefault(table[prefer], []).insert(0, prefer)
    out = []
    for meld in melds:
        out.append(tuple(pool[-1 if j else f.index].pop(0) for f, j in zip(meld.stands_for, meld.jokers, strict=True)))
    return tuple(out)


# ------------------------------------------------------------ deal


def deal(order: Sequence[int], starter: int, seats: int) -> tuple[tuple[tuple[int, ...], ...], int, tuple[int, ...]]:
    """Starter 22 tiles, the others 21, in turn order; then the first tile that is not a fake
    okey is the indicator [T-IND-1]; the rest is the deck, top first (62 or 20) [O-DEAL-1]."""
    racks: list[tuple[int, ...]] = [()] * seats
    pos = 0
    for k in range(seats):
        n = 22 if k == 0 else 21
        racks[(starter + k) % seats] = tuple(order[pos : pos + n])
        pos += n
    rest = list(order[pos:])
    idx = next(i for i, t in enumerate(rest) if t < 104)
    indicator = rest.pop(idx)
    return tuple(racks), indicator, tuple(rest)


# ------------------------------------------------------------ decide


def _is_int(x: object) -> bool:
    """A tile id, seat or meld index: an int, and not True or 1.0, which compare equal to 1."""
    return type(x) is int


def _v(code: str, message: str) -> RuleViolation:
    return RuleViolation(code, message)


def _my_turn(state: Okey101State, seat: int) -> RuleViolation | None:
    if not _is_int(seat) or not 0 <= seat < state.seat_count:
        return _v("INVALID_SEAT", f"seat must be 0..{state.seat_count - 1}, got {seat!r}")
    if state.phase is not Phase.PLAYING:
        return _v("NO_HAND_IN_PROGRESS", "no hand is being played at this table")
    if state.turn != seat:
        return _v("NOT_YOUR_TURN", f"it is seat {state.turn}'s turn")
    return None


def _playing(state: Okey101State, seat: int) -> RuleViolation | None:
    """The seat's turn, after its draw: the stage for table moves and the discard."""
    bad = _my_turn(state, seat)
    if bad:
        return bad
    if state.stage is not Stage.PLAY:
        return _v("MUST_DRAW_FIRST", "draw from the deck or take the side tile first [O-TURN-1]")
    return None


def _deadline(state: Okey101State, now_ms: int) -> int:
    return now_ms + state.options.turn_seconds * 1000


def _create(state: Okey101State | None, cmd: CreateTable) -> Decision:
    if state is not None:
        return _v("TABLE_EXISTS", "this table has already been created")
    if not cmd.table_id:
        return _v("INVALID_TABLE_ID", "a table needs an id")
    try:
        opts = cmd.options.validated()
    except OptionsError as exc:
        return _v("INVALID_OPTIONS", str(exc))
    if opts.game is not Game.OKEY101:
        return _v("WRONG_GAME", "this engine plays Okey 101; use the classic engine for OKEY")
    if cmd.players and len(cmd.players) != opts.seat_count:
        return _v("INVALID_SEATS", f"this table has exactly {opts.seat_count} seats")
    return [
        TableCreated(cmd.table_id, opts, tuple(cmd.players) or ("",) * opts.seat_count, rules_version=RULES_VERSION)
    ]


def _start_hand(state: Okey101State, cmd: StartHand) -> Decision:
    if state.phase is Phase.PLAYING:
        return _v("HAND_IN_PROGRESS", "a hand is already being played")
    order = cmd.order
    if (
        not isinstance(order, Sequence)
        or len(order) != TILE_COUNT
        or not all(_is_int(t) for t in order)
        or set(order) != set(range(TILE_COUNT))
    ):
        return _v("BAD_DEAL", "a deal must order each of the 106 tile ids exactly once")
    n = state.seat_count
    if state.hand == 0:
        if not _is_int(cmd.first_starter) or not 0 <= cmd.first_starter < n:
            return _v("INVALID_SEAT", f"the first starter must be seat 0..{n - 1}")
        starter, hand = cmd.first_starter, 1
    elif state.voided:
        starter, hand = state.starter, state.hand  # the same hand again [O-PEN-4]
    else:
        starter, hand = (state.starter + 1) % n, state.hand + 1  # the next seat starts [C-DEAL-2]
    racks, indicator, deck = deal(order, starter, n)
    return [
        HandStarted(
            hand,
            starter,
            racks,
            indicator,
            deck,
            _deadline(state, cmd.now_ms),
            commitment=deal_commitment(order, cmd.salt),
            order=tuple(order),
            salt=cmd.salt,
        )
    ]


def _draw(state: Okey101State, cmd: Draw) -> Decision:
    bad = _my_turn(state, cmd.seat)
    if bad:
        return bad
    if state.stage is not Stage.DRAW:
        return _v("ALREADY_DREW", "you have drawn this turn: lay, add or discard")
    if not state.deck:  # pragma: no cover - the hand ends when the deck runs out
        return _v("DECK_EMPTY", "the deck is empty")
    return [TileDrawn(cmd.seat, state.deck[0], DrawSource.DECK)]


def _take_discard(state: Okey101State, cmd: TakeDiscard) -> Decision:
    bad = _my_turn(state, cmd.seat)
    if bad:
        return bad
    if state.stage is not Stage.DRAW:
        return _v(
            "ALREADY_DREW", "you have drawn this turn; after a deck draw the side tile is out of reach [O-SIDE-4]"
        )
    if not state.deck:  # pragma: no cover - the hand ends when the deck runs out
        return _v("DECK_EMPTY", "the side tile may be taken only while the deck has tiles [O-SIDE-1]")
    pile = state.seats[state.left_of(cmd.seat)].pile
    if not pile:
        return _v("NO_DISCARD_TO_TAKE", "the seat on your left has no discard to take")
    return [TileDrawn(cmd.seat, pile[-1], DrawSource.DISCARD)]  # even before opening [O-SIDE-1]


def _return_side(state: Okey101State, cmd: ReturnSideTile) -> Decision:
    bad = _my_turn(state, cmd.seat)
    if bad:
        return bad
    if not state.side_unused:
        return _v("NO_SIDE_TILE", "you hold no side tile to put back")
    if not state.side_returnable:
        return _v(
            "CANNOT_RETURN_SIDE_TILE", "after opening or adding the side tile can no longer be put back [O-SIDE-5]"
        )
    return [TileReturned(cmd.seat, state.side_tile)]  # no penalty; the time runs on [O-SIDE-2]


def _table_move(state: Okey101State, events: list[Event]) -> Decision:
    """Accept a table move unless it leaves the side tile in the rack with no way left to lay it
    this turn [O-SIDE-2] (so a turn can never get stuck)."""
    after = fold(state, events)
    if after.side_unused and side_use(after) is None:
        return _v(
            "SIDE_TILE_NOT_USED",
            "the side tile must be laid this turn, in an opening or an add; after this move it could not be [O-SIDE-2]",
        )
    if all(s.opening is Opening.PAIRS for s in after.seats):
        seats = after.seats
        events.append(
            HandVoided(
                after.hand,
                tuple(s.penalties for s in seats),
                tuple(s.rack for s in seats),
                after.deck,
                order=after.deal_order,
                salt=after.deal_salt,
            )
        )  # [O-PEN-4]
    return events


def _side_first(state: Okey101State, tile: int, laid: Sequence[int] = ()) -> int:
    """Copies of a face are interchangeable in play: a move that names the twin of the unused
    side tile (and not the side tile itself) lays the side tile, which so counts as used
    [O-SIDE-2]; the twin stays in the rack."""
    side = state.side_tile
    if state.side_unused and tile != side and side not in laid and face_of_id(tile) == face_of_id(side):
        return side
    return tile


def _open_melds(state: Okey101State, cmd: OpenMelds) -> Decision:
    bad = _playing(state, cmd.seat)
    if bad:
        return bad
    me = state.seats[cmd.seat]
    if not cmd.melds:
        return _v("NO_MELDS", "name at least one meld to lay down")
    if not isinstance(cmd.melds, tuple | list) or not all(
        isinstance(m, tuple | list) and all(_is_int(t) for t in m) for m in cmd.melds
    ):
        return _v("INVALID_MELD", "each meld is a list of tile ids")
    if cmd.kinds and (len(cmd.kinds) != len(cmd.melds) or not all(isinstance(k, MeldKind) for k in cmd.kinds)):
        return _v("INVALID_MELD", "give a kind for every meld, or none")
    flat = [t for m in cmd.melds for t in m]
    if len(set(flat)) != len(flat):
        return _v("DUPLICATE_TILE", "a tile can be laid only once")
    missing = [t for t in flat if t not in me.rack]
    if missing:
        return _v("TILE_NOT_IN_RACK", f"tile {missing[0]!r} is not in your rack")
    if len(me.rack) - len(flat) < 1:
        return _v("MUST_KEEP_A_TILE", "keep at least one tile to end the turn with a discard [O-OPEN-5]")
    ind = state.indicator
    swap = next((t for t in flat if _side_first(state, t, flat) != t), -1)
    named = [tuple(state.side_tile if t == swap else t for t in m) for m in cmd.melds]
    laid: list[TableMeld] = []
    for i, tiles in enumerate(named):
        try:
            meld = M.interpret_meld(
                [_eff(t, ind) for t in tiles], state.options.wrap, cmd.kinds[i] if cmd.kinds else None
            )
        except M.MeldError as exc:
            return _v("INVALID_MELD", f"meld {i + 1}: {exc}")
        laid.append(TableMeld(cmd.seat, meld.kind, _arrange(tiles, meld, ind), _codes(meld.stands_for)))
    pairs = [m.kind is MeldKind.PAIR for m in laid]
    if any(pairs) and not all(pairs):
        return _v("MIXED_MELDS", "lay pairs and runs/groups separately")
    is_pairs = all(pairs)
    value = len(laid) if is_pairs else sum(m.value for m in laid)
    first = me.opening is Opening.NONE
    if first:
        opening = Opening.PAIRS if is_pairs else Opening.RUNS
        if is_pairs and value < state.pair_threshold:
            return _v(
                "TOO_FEW_PAIRS", f"a pair opening needs {state.pair_threshold} pairs, got {value} [O-OPEN-2] [O-OPEN-3]"
            )
        if not is_pairs and value < state.run_threshold:
            return _v(
                "BELOW_THRESHOLD", f"an opening needs {state.run_threshold} points, got {value} [O-OPEN-1] [O-OPEN-3]"
            )
    else:
        opening = me.opening
        if opening is Opening.PAIRS and not is_pairs:
            return _v("PAIR_OPENER_NO_RUNS", "a pair opener may lay new pairs, not runs or groups [O-ADD-2]")
        if opening is Opening.RUNS and is_pairs and not any(m.kind is MeldKind.PAIR for m in state.melds):
            return _v("NO_PAIRS_ON_TABLE", "a run opener may lay pairs once pairs are open on the table [O-ADD-2]")
    return _table_move(state, [MeldsOpened(cmd.seat, tuple(laid), opening, first, value)])


def _meld_move(state: Okey101State, seat: int, tile: int, meld: int) -> RuleViolation | None:
    """Checks shared by adding a tile and taking an okey."""
    bad = _playing(state, seat)
    if bad:
        return bad
    me = state.seats[seat]
    if not _is_int(tile) or tile not in me.rack:
        return _v("TILE_NOT_IN_RACK", f"tile {tile!r} is not in your rack")
    if me.opening is Opening.NONE:
        return _v("NOT_OPENED", "open your hand before adding to the table [O-ADD-1] [O-OKEY-1]")
    if not _is_int(meld) or not 0 <= meld < len(state.melds):
        return _v("NO_SUCH_MELD", f"there is no meld {meld!r} on the table")
    target = state.melds[meld]
    if me.opening is Opening.PAIRS and target.kind is not MeldKind.PAIR and state.run_adds >= PAIR_OPENER_ADDS:
        return _v("ADD_LIMIT_REACHED", "a pair opener adds at most 2 tiles per turn to runs and groups [O-ADD-3]")
    return None


def _add_tile(state: Okey101State, cmd: AddTile) -> Decision:
    bad = _meld_move(state, cmd.seat, cmd.tile, cmd.meld)
    if bad:
        return bad
    tile = _side_first(state, cmd.tile)
    target = state.melds[cmd.meld]
    if target.kind is MeldKind.PAIR:
        return _v("CANNOT_ADD_TO_PAIR", "a pair takes no more tiles; its okey can be taken back [O-OKEY-1]")
    if len(state.seats[cmd.seat].rack) <= 1:
        return _v("MUST_KEEP_A_TILE", "keep at least one tile to end the turn with a discard [O-OPEN-5]")
    opts = add_options(target, tile, state.indicator, state.options.wrap)
    if cmd.at_start is not None:
        opts = [o for o in opts if o[0] == cmd.at_start]
    if not opts:
        return _v("TILE_DOES_NOT_FIT", f"tile {tile} does not fit meld {cmd.meld}")
    at_start, faces = opts[0]
    return _table_move(state, [TileAdded(cmd.seat, tile, cmd.meld, at_start, faces)])


def _take_okey(state: Okey101State, cmd: TakeOkey) -> Decision:
    bad = _meld_move(state, cmd.seat, cmd.tile, cmd.meld)
    if bad:
        return bad
    tile = _side_first(state, cmd.tile)
    target = state.melds[cmd.meld]
    if not any(is_real_okey(t, state.indicator) for t in target.tiles):
        return _v("NO_OKEY_IN_MELD", f"meld {cmd.meld} holds no okey")
    if _group_needs_fourth(target, tile, state.indicator):
        return _v("GROUP_NEEDS_FOURTH", "add the group's fourth colour first, then take the okey [O-OKEY-1]")
    got = take_option(target, tile, state.indicator)
    if got is None:
        return _v("TILE_DOES_NOT_FIT", f"tile {tile} is not the tile the okey stands for [O-OKEY-1]")
    okey, faces = got
    return _table_move(state, [OkeyTaken(cmd.seat, tile, okey, cmd.meld, faces)])


def _discard(state: Okey101State, cmd: Discard) -> Decision:
    bad = _playing(state, cmd.seat)
    if bad:
        return bad
    if not _is_int(cmd.tile) or cmd.tile not in state.seats[cmd.seat].rack:
        return _v("TILE_NOT_IN_RACK", f"tile {cmd.tile!r} is not in your rack")
    if state.side_unused:
        if face_of_id(cmd.tile) == face_of_id(state.side_tile):
            return _v(
                "SIDE_TILE_DISCARD",
                "you may not discard the side tile, nor its twin, without opening or adding this turn [O-SIDE-3]",
            )
        return _v(
            "SIDE_TILE_NOT_USED",
            "lay the side tile in your opening or an add this turn, or put it back [O-SIDE-2]",
        )
    return _discard_events(state, cmd.seat, cmd.tile, cmd.now_ms)


def _discard_events(state: Okey101State, seat: int, tile: int, now_ms: int) -> list[Event]:
    """Every turn ends with a discard [O-TURN-1]; the last tile finishes the hand."""
    if len(state.seats[seat].rack) == 1:
        ev: list[Event] = [TileDiscarded(seat, tile, -1, 0)]
        return ev + _finish_events(fold(state, ev), seat, tile)
    reason = penalty_reason(
        tile, len(state.seats[seat].rack), state.melds, state.indicator, state.options, state.rules_version
    )
    last = not state.deck
    events: list[Event] = [
        TileDiscarded(
            seat, tile, -1 if last else (seat + 1) % state.seat_count, 0 if last else _deadline(state, now_ms)
        )
    ]
    if reason:
        events.append(PenaltyApplied(seat, FLAT_PENALTY, reason))  # [O-PEN-1] [O-PEN-2]
    if last:
        after = fold(state, events)
        points = score_exhausted([s.rack for s in after.seats], [s.opening for s in after.seats], after.indicator)
        events += _hand_end(after, HandEndReason.DECK_EXHAUSTED, -1, -1, False, False, False, 1, points)  # [D-2]
    return events


def _finish_events(state: Okey101State, seat: int, tile: int) -> list[Event]:
    """The seat discarded its last tile (the finishing tile is exempt from penalties [O-PEN-3])."""
    others_open = any(s.opening is not Opening.NONE for i, s in enumerate(state.seats) if i != seat)
    elden = state.opened_now and not others_open  # one single opening, nobody else open [O-SC-2]
    sc = score_finish(
        seat, tile, [s.rack for s in state.seats], [s.opening for s in state.seats], state.indicator, elden
    )
    return _hand_end(
        state, HandEndReason.FINISHED, seat, tile, sc.okey_finish, sc.pair_finish, sc.elden, sc.multiplier, sc.points
    )


def _hand_end(
    state: Okey101State,
    reason: HandEndReason,
    finisher: int,
    final_tile: int,
    okey_finish: bool,
    pair_finish: bool,
    elden: bool,
    multiplier: int,
    points: tuple[int, ...],
) -> list[Event]:
    opts = state.options
    n = state.seat_count
    penalties = tuple(s.penalties for s in state.seats)
    deltas = tuple(p + q for p, q in zip(points, penalties, strict=True))
    totals = tuple(s.score + d for s, d in zip(state.seats, deltas, strict=True))
    prize = opts.hand_prize if finisher >= 0 else 0
    chips = tuple(prize * (n - 1) if s == finisher else -prize for s in range(n))  # [O-DEAL-3]
    end = HandEnded101(
        hand=state.hand,
        reason=reason,
        finisher=finisher,
        final_tile=final_tile,
        okey_finish=okey_finish,
        pair_finish=pair_finish,
        elden=elden,
        multiplier=multiplier,
        points=points,
        penalties=penalties,
        deltas=deltas,
        totals=totals,
        chips=chips,
        racks=tuple(s.rack for s in state.seats),
        deck=state.deck,
        order=state.deal_order,
        salt=state.deal_salt,
    )
    if state.hand < opts.rounds:  # [O-DEAL-2]
        return [end]
    winners = match_winners(totals)  # [O-DEAL-3]
    pot = opts.stake * n
    payout, remainder = split_pot(pot, len(winners))
    return [end, MatchEnded(totals, winners, pot, payout, remainder)]


def _time_out(state: Okey101State, cmd: TimeOut) -> Decision:
    if state.phase is not Phase.PLAYING:
        return _v("NO_HAND_IN_PROGRESS", "no hand is being played at this table")
    if state.timed_out:
        return _v("ALREADY_TIMED_OUT", "this turn has already timed out")
    if cmd.now_ms < state.deadline_ms:
        return _v("NOT_DUE", "the turn's time has not run out yet")
    seat = state.seats[state.turn]
    n = seat.timeouts + 1
    events: list[Event] = [
        TurnTimedOut(state.turn, n, seat.autopilot or n >= 3, cmd.now_ms + max(0, cmd.grace_ms))  # [C-TIME-1..2]
    ]
    if state.side_unused and state.side_returnable:
        # The side tile goes back and a deck draw completes the turn [O-SIDE-6].
        events += [TileReturned(state.turn, state.side_tile), TileDrawn(state.turn, state.deck[0], DrawSource.DECK)]
    return events


def _force_move(state: Okey101State, cmd: ForceMove) -> Decision:
    """The minimal legal move when nobody played a timed-out turn: draw from the deck (putting a
    returnable side tile back first [O-SIDE-6]), lay a side tile that can no longer go back, then
    discard the drawn tile or another tile that costs no penalty where there is one."""
    if state.phase is not Phase.PLAYING:
        return _v("NO_HAND_IN_PROGRESS", "no hand is being played at this table")
    if not state.timed_out or cmd.now_ms < state.deadline_ms:
        return _v("NOT_DUE", "the turn has not timed out, or its grace period has not passed")
    seat = state.turn
    events: list[Event] = []
    s = state
    drawn = -1

    def run(c: Command) -> RuleViolation | None:
        nonlocal s
        got = decide(s, c)
        if isinstance(got, RuleViolation):  # pragma: no cover - an engine bug
            return got
        events.extend(got)
        s = fold(s, got)
        return None

    steps: list[Command] = []
    if s.side_unused and s.side_returnable:
        steps.append(ReturnSideTile(seat=seat))
    if s.stage is Stage.DRAW or steps:
        drawn = s.deck[0]
        steps.append(Draw(seat=seat))
    for c in steps:
        bad = run(c)
        if bad:
            return bad
    if s.side_unused:
        use = side_use(s)
        if use is None:  # pragma: no cover - table moves never leave it unusable
            return _v("SIDE_TILE_NOT_USED", "the side tile cannot be laid")
        bad = run(use)
        if bad:
            return bad
    if s.phase is not Phase.PLAYING:  # pragma: no cover
        return events
    rack = s.seats[seat].rack
    safe = [t for t in rack if not penalty_reason(t, len(rack), s.melds, s.indicator, s.options, s.rules_version)]
    choice = drawn if drawn in safe else (safe[-1] if safe else rack[-1])
    bad = run(Discard(seat=seat, tile=choice, now_ms=cmd.now_ms))
    return bad or events


def _take_back(state: Okey101State, cmd: TakeBack) -> Decision:
    if not _is_int(cmd.seat) or not 0 <= cmd.seat < state.seat_count:
        return _v("INVALID_SEAT", f"seat must be 0..{state.seat_count - 1}, got {cmd.seat!r}")
    if not state.seats[cmd.seat].autopilot:
        return _v("NOT_ON_AUTOPILOT", "this seat is not on autopilot")
    return [AutopilotEnded(cmd.seat)]  # [D-5]


_DECIDERS: dict[type[Command], Callable[[Any, Any], Decision]] = {
    StartHand: _start_hand,
    Draw: _draw,
    TakeDiscard: _take_discard,
    ReturnSideTile: _return_side,
    OpenMelds: _open_melds,
    AddTile: _add_tile,
    TakeOkey: _take_okey,
    Discard: _discard,
    TimeOut: _time_out,
    ForceMove: _force_move,
    TakeBack: _take_back,
}


def decide(state: Okey101State | None, command: Command) -> Decision:
    """The events a command produces, or the rule it breaks. Never raises on bad input."""
    if isinstance(command, CreateTable):
        return _create(state, command)
    if state is None:
        return _v("NO_TABLE", "the table does not exist")
    if state.phase is Phase.MATCH_OVER:
        return _v("MATCH_OVER", "the match is over")
    fn = _DECIDERS.get(type(command))
    if fn is None:
        return _v("UNKNOWN_COMMAND", f"{type(command).__name__} is not an Okey 101 command")
    return fn(state, command)


def can(state: Okey101State | None, command: Command) -> RuleViolation | None:
    """None when ``command`` would be accepted now, else the rule it breaks (ask before acting)."""
    got = decide(state, command)
    return got if isinstance(got, RuleViolation) else None


# ------------------------------------------------------------ side tile


def side_use(state: Okey101State) -> Command | None:
    """A move that lays the turn's unused side tile now, or None: an add or an okey take-back
    (within a pair opener's allowance [O-ADD-3]), or a new pair or meld with rack tiles
    [O-ADD-2]. An unopened seat uses it only in its opening, which this does not search."""
    if not state.side_unused:
        return None
    seat = state.turn
    me = state.seats[seat]
    tile = state.side_tile
    ind = state.indicator
    wrap = state.options.wrap
    if me.opening is Opening.NONE:
        return None
    runs_ok = me.opening is Opening.RUNS or state.run_adds < PAIR_OPENER_ADDS
    for i, meld in enumerate(state.melds):
        if meld.kind is not MeldKind.PAIR and not runs_ok:
            continue
        if len(me.rack) > 1 and add_options(meld, tile, ind, wrap):
            return AddTile(seat=seat, tile=tile, meld=i)
        if take_option(meld, tile, ind) is not None:
            return TakeOkey(seat=seat, tile=tile, meld=i)
    others = [t for t in me.rack if t != tile]
    pairs_ok = me.opening is Opening.PAIRS or any(m.kind is MeldKind.PAIR for m in state.melds)
    if pairs_ok and len(me.rack) >= 3:
        face = _eff(tile, ind)
        for t in others:
            e = _eff(t, ind)
            if face is None or e is None or e == face:
                return OpenMelds(seat=seat, melds=((tile, t),))
    if me.opening is Opening.RUNS and len(me.rack) >= 4:
        face = _eff(tile, ind)
        near = [t for t in others if _near(face, _eff(t, ind))]
        for a, b in combinations(near, 2):
            try:
                new = M.interpret_meld([face, _eff(a, ind), _eff(b, ind)], wrap)
            except M.MeldError:
                continue
            if new.kind is not MeldKind.PAIR:
                return OpenMelds(seat=seat, melds=(_arrange((tile, a, b), new, ind),), kinds=(new.kind,))
    return None


def _near(f: Face | None, g: Face | None) -> bool:
    """Could two tiles share a run or a group?"""
    return f is None or g is None or f.number == g.number or f.colour == g.colour


# ------------------------------------------------------------ evolve


def _set(seats: tuple[Seat101, ...], i: int, seat: Seat101) -> tuple[Seat101, ...]:
    return seats[:i] + (seat,) + seats[i + 1 :]


def _without(rack: tuple[int, ...], tiles: Iterable[int]) -> tuple[int, ...]:
    gone = set(tiles)
    return tuple(t for t in rack if t not in gone)


_TURN_RESET: dict[str, Any] = {
    "side_tile": -1,
    "side_returnable": False,
    "table_moved": False,
    "opened_now": False,
    "run_adds": 0,
    "timed_out": False,
}


def evolve(state: Okey101State | None, event: Event) -> Okey101State:
    """Apply one event. Pure; folding a table's events rebuilds its state exactly."""
    if isinstance(event, TableCreated):
        n = event.options.seat_count
        return Okey101State(
            table_id=event.table_id,
            options=event.options,
            seats=(Seat101(),) * n,
            version=1,
            players=event.players,
            rules_version=event.rules_version,
        )
    assert state is not None, "the first event of a table is TableCreated"
    s = state
    v = s.version + 1
    if isinstance(event, TileDiscarded):
        seat = s.seats[event.seat]
        timeouts = seat.timeouts if (s.timed_out or seat.autopilot) else 0
        seats = _set(
            s.seats,
            event.seat,
            replace(seat, rack=_without(seat.rack, (event.tile,)), pile=(*seat.pile, event.tile), timeouts=timeouts),
        )
        if event.next_seat < 0:
            return replace(s, seats=seats, version=v)
        return replace(
            s,
            seats=seats,
            version=v,
            turn=event.next_seat,
            stage=Stage.DRAW,
            deadline_ms=event.deadline_ms,
            **_TURN_RESET,
        )
    if isinstance(event, TileDrawn):
        seat = s.seats[event.seat]
        seats = _set(s.seats, event.seat, replace(seat, rack=seat.rack + (event.tile,)))
        if event.source is DrawSource.DECK:
            return replace(s, seats=seats, deck=s.deck[1:], stage=Stage.PLAY, version=v)
        li = s.left_of(event.seat)
        seats = _set(seats, li, replace(seats[li], pile=seats[li].pile[:-1]))
        return replace(s, seats=seats, stage=Stage.PLAY, side_tile=event.tile, side_returnable=True, version=v)
    if isinstance(event, TileReturned):
        seat = s.seats[event.seat]
        seats = _set(s.seats, event.seat, replace(seat, rack=_without(seat.rack, (event.tile,))))
        li = s.left_of(event.seat)
        seats = _set(seats, li, replace(seats[li], pile=seats[li].pile + (event.tile,)))
        return replace(s, seats=seats, stage=Stage.DRAW, side_tile=-1, side_returnable=False, version=v)
    if isinstance(event, MeldsOpened):
        seat = s.seats[event.seat]
        laid = [t for m in event.melds for t in m.tiles]
        seat = replace(seat, rack=_without(seat.rack, laid))
        high_run, most_pairs = s.high_run, s.most_pairs
        kind = Opening.PAIRS if all(m.kind is MeldKind.PAIR for m in event.melds) else Opening.RUNS
        if event.first:
            seat = replace(seat, opening=event.opening, opening_value=event.value)
        elif s.opened_now and s.rules_version >= 2 and kind is seat.opening:
            # The opening is everything laid in the opening turn, in one command or several [O-OPEN-3].
            seat = replace(seat, opening_value=seat.opening_value + event.value)
        if event.first or (s.opened_now and s.rules_version >= 2 and kind is seat.opening):
            if seat.opening is Opening.PAIRS:
                most_pairs = max(most_pairs, seat.opening_value)
            else:
                high_run = max(high_run, seat.opening_value)
        return replace(
            s,
            seats=_set(s.seats, event.seat, seat),
            melds=s.melds + event.melds,
            high_run=high_run,
            most_pairs=most_pairs,
            table_moved=True,
            side_returnable=False,
            opened_now=s.opened_now or event.first,
            version=v,
        )
    if isinstance(event, TileAdded):
        seat = s.seats[event.seat]
        meld = s.melds[event.meld]
        tiles = (event.tile, *meld.tiles) if event.at_start else (*meld.tiles, event.tile)
        melds = (
            s.melds[: event.meld]
            + (replace(meld, tiles=tiles, stands_for=event.stands_for),)
            + s.melds[event.meld + 1 :]
        )
        seat = replace(seat, rack=_without(seat.rack, (event.tile,)))
        high_run = s.high_run
        if s.opened_now and s.rules_version >= 2 and seat.opening is Opening.RUNS:
            # A tile added in the opening turn is part of the opening: the bar cannot be kept low
            # by laying a run short and extending it afterwards [O-OPEN-3].
            added = parse_face(event.stands_for[0 if event.at_start else -1]).number
            seat = replace(seat, opening_value=seat.opening_value + added)
            high_run = max(high_run, seat.opening_value)
        seats = _set(s.seats, event.seat, seat)
        return replace(
            s,
            seats=seats,
            melds=melds,
            high_run=high_run,
            run_adds=s.run_adds + 1,
            table_moved=True,
            side_returnable=False,
            version=v,
        )
    if isinstance(event, OkeyTaken):
        seat = s.seats[event.seat]
        meld = s.melds[event.meld]
        tiles = tuple(event.tile if t == event.okey else t for t in meld.tiles)
        melds = (
            s.melds[: event.meld]
            + (replace(meld, tiles=tiles, stands_for=event.stands_for),)
            + s.melds[event.meld + 1 :]
        )
        seats = _set(s.seats, event.seat, replace(seat, rack=_without(seat.rack, (event.tile,)) + (event.okey,)))
        adds = s.run_adds + (0 if meld.kind is MeldKind.PAIR else 1)  # take-backs count [O-ADD-3]
        return replace(s, seats=seats, melds=melds, run_adds=adds, table_moved=True, side_returnable=False, version=v)
    if isinstance(event, PenaltyApplied):
        seat = s.seats[event.seat]
        return replace(
            s, seats=_set(s.seats, event.seat, replace(seat, penalties=seat.penalties + event.points)), version=v
        )
    if isinstance(event, HandStarted):
        seats = tuple(
            Seat101(rack=event.racks[i], score=old.score, timeouts=old.timeouts, autopilot=old.autopilot)
            for i, old in enumerate(s.seats)
        )
        return replace(
            s,
            seats=seats,
            version=v,
            phase=Phase.PLAYING,
            hand=event.hand,
            starter=event.starter,
            turn=event.starter,
            stage=Stage.PLAY,  # the starter discards without drawing [O-TURN-1]
            indicator=event.indicator,
            deck=event.deck,
            deadline_ms=event.deadline_ms,
            melds=(),
            high_run=0,
            most_pairs=0,
            voided=False,
            deal_order=event.order,
            deal_salt=event.salt,
            **_TURN_RESET,
        )
    if isinstance(event, HandEnded101):
        seats = tuple(
            replace(seat, score=seat.score + d, penalties=0) for seat, d in zip(s.seats, event.deltas, strict=True)
        )
        return replace(s, seats=seats, version=v, phase=Phase.HAND_OVER, last_hand=event, deadline_ms=0)
    if isinstance(event, HandVoided):
        seats = tuple(replace(seat, penalties=0) for seat in s.seats)  # [O-PEN-4]
        return replace(s, seats=seats, version=v, phase=Phase.HAND_OVER, voided=True, last_void=event, deadline_ms=0)
    if isinstance(event, MatchEnded):
        return replace(s, version=v, phase=Phase.MATCH_OVER, result=event)
    if isinstance(event, TurnTimedOut):
        seat = s.seats[event.seat]
        seats = _set(s.seats, event.seat, replace(seat, timeouts=event.consecutive, autopilot=event.autopilot))
        return replace(s, seats=seats, version=v, timed_out=True, deadline_ms=event.grace_deadline_ms)
    if isinstance(event, AutopilotEnded):
        seat = s.seats[event.seat]
        return replace(s, seats=_set(s.seats, event.seat, replace(seat, autopilot=False, timeouts=0)), version=v)
    raise ValueError(f"Okey 101 cannot apply a {event.type} event")


def fold(state: Okey101State | None, events: Iterable[Event]) -> Okey101State:
    s = state
    for e in events:
        s = evolve(s, e)
    assert s is not None
    return s


# ------------------------------------------------------------ view


@dataclass(frozen=True, slots=True)
class SeatPublic101:
    """What everybody may know about one seat (RULES.md section 7)."""

    seat: int
    tiles: int
    pile: tuple[int, ...]  # discards, top last
    score: int  # match total of the hands played
    penalties: int  # flat penalties of this hand so far [O-PEN-1..2]
    opening: Opening
    opening_value: int
    autopilot: bool
    rack: tuple[int, ...] | None  # revealed only once the hand has ended


@dataclass(frozen=True, slots=True)
class SeatView101:
    """One seat's (or a spectator's, ``seat=None``) picture of a 101 table."""

    table_id: str
    version: int
    options: TableOptions
    phase: Phase
    hand: int
    seat: int | None
    rack: tuple[int, ...]
    indicator: int
    deck_count: int
    turn: int
    stage: Stage
    deadline_ms: int
    timed_out: bool
    melds: tuple[TableMeld, ...]  # with the okey values (stands_for)
    run_threshold: int
    pair_threshold: int
    side_tile: int  # the left seat's discard this seat could take now, else -1
    held_side_tile: int  # the side tile this seat holds and has not laid yet, else -1
    can_return_side: bool
    table_moved: bool  # this seat opened, added or took an okey this turn
    run_adds: int  # this seat's tiles put on runs/groups this turn [O-ADD-3]
    seats: tuple[SeatPublic101, ...]
    last_hand: HandEnded101 | None
    last_void: HandVoided | None
    result: MatchEnded | None
    rules_version: int = RULES_VERSION  # the rules the table plays under (penalties [O-PEN-1])

    @property
    def okey(self) -> Face | None:
        return okey_face(face_of_id(self.indicator)) if self.indicator >= 0 else None


def view(state: Okey101State, seat: int | None) -> SeatView101:
    """Only what ``seat`` may see: never another rack or the deck order while the hand runs."""
    playing = state.phase is Phase.PLAYING
    publics = tuple(
        SeatPublic101(
            seat=i,
            tiles=len(s.rack),
            pile=s.pile,
            score=s.score,
            penalties=s.penalties,
            opening=s.opening,
            opening_value=s.opening_value,
            autopilot=s.autopilot,
            rack=None if playing or state.phase is Phase.NEW else s.rack,
        )
        for i, s in enumerate(state.seats)
    )
    mine = playing and seat is not None and state.turn == seat
    side = -1
    if mine and state.stage is Stage.DRAW and state.deck:
        pile = state.seats[state.left_of(state.turn)].pile
        side = pile[-1] if pile else -1
    held = state.side_tile if mine and state.side_unused else -1
    return SeatView101(
        table_id=state.table_id,
        version=state.version,
        options=state.options,
        phase=state.phase,
        hand=state.hand,
        seat=seat,
        rack=state.seats[seat].rack if seat is not None else (),
        indicator=state.indicator,
        deck_count=len(state.deck),
        turn=state.turn,
        stage=state.stage,
        deadline_ms=state.deadline_ms,
        timed_out=state.timed_out,
        melds=state.melds,
        run_threshold=state.run_threshold,
        pair_threshold=state.pair_threshold,
        side_tile=side,
        held_side_tile=held,
        can_return_side=held >= 0 and state.side_returnable,
        table_moved=mine and state.table_moved,
        run_adds=state.run_adds if mine else 0,
        seats=publics,
        last_hand=state.last_hand,
        last_void=state.last_void,
        result=state.result,
        rules_version=state.rules_version,
    )


def public_event(event: Event, viewer: int | None) -> Event:
    """The event as ``viewer`` may receive it: others' dealt racks, the deck order and others'
    deck draws are blanked (-1) until the hand's end reveals them, as in classic Okey."""
    return _classic_public_event(event, viewer)


# ------------------------------------------------------------ hints (RULES.md section 7)


@dataclass(frozen=True, slots=True)
class OpeningPreview:
    """An opening the rack could lay now ("Seri Diz" / "Çift Diz"): tile ids per meld in position
    order, what each tile stands for, each meld's value, the total (points, or pairs), and
    whether it reaches this seat's threshold."""

    melds: tuple[tuple[int, ...], ...]
    kinds: tuple[MeldKind, ...]
    stands_for: tuple[tuple[str, ...], ...]
    values: tuple[int, ...]
    total: int
    enough: bool

    def command(self, seat: int) -> OpenMelds:
        return OpenMelds(seat=seat, melds=self.melds, kinds=self.kinds)


@dataclass(frozen=True, slots=True)
class TileHint:
    """Per rack tile: ``penalised`` (!) discarding it costs a penalty [O-PEN-1..3]; ``addable``
    (+) it fits a run or group on the table; ``takes_okey`` (<->) it can take an okey back."""

    tile: int
    penalised: bool
    addable: bool
    takes_okey: bool


@dataclass(frozen=True, slots=True)
class Hints:
    runs: OpeningPreview
    pairs: OpeningPreview
    tiles: tuple[TileHint, ...]


def run_opening(rack: Sequence[int], indicator: int, wrap: bool, threshold: int, prefer: int = -1) -> OpeningPreview:
    """The highest-valued runs and groups of ``rack`` that leave a tile for the discard
    [O-OPEN-1] [O-OPEN-5]; ``prefer`` is laid rather than its twin where its face is used."""
    x, j = rack_packed(rack, indicator)
    total, melds = M.best_points(x, j, wrap, okey_face(face_of_id(indicator)), must_leave=True)
    if total <= 0:
        return OpeningPreview((), (), (), (), 0, False)
    return OpeningPreview(
        ids_for(melds, rack, indicator, prefer),
        tuple(m.kind for m in melds),
        tuple(_codes(m.stands_for) for m in melds),
        tuple(m.value for m in melds),
        total,
        total >= threshold,
    )


def pair_opening(rack: Sequence[int], indicator: int, threshold: int, prefer: int = -1) -> OpeningPreview:
    """The most pairs of ``rack`` that leave a tile for the discard [O-OPEN-2] [O-OPEN-5]."""
    x, j = rack_packed(rack, indicator)
    melds = M.pair_melds(x, j)[: (len(rack) - 1) // 2]
    n = len(melds)
    return OpeningPreview(
        ids_for(melds, rack, indicator, prefer),
        (MeldKind.PAIR,) * n,
        tuple(_codes(m.stands_for) for m in melds),
        tuple(m.value for m in melds),
        n,
        n >= threshold and n > 0,
    )


def hints(v: SeatView101) -> Hints:
    """The seat's hints, computed from its own view only."""
    ind = v.indicator
    wrap = v.options.wrap
    rack = v.rack
    opened = v.seat is not None and v.seats[v.seat].opening is not Opening.NONE  # no threshold any more [O-OPEN-3]
    runs = run_opening(rack, ind, wrap, 1 if opened else v.run_threshold)
    pairs = pair_opening(rack, ind, 1 if opened else v.pair_threshold)
    out = []
    for t in rack:
        addable = fits_table(v.melds, t, ind, wrap)
        penalised = penalty_reason(t, len(rack), v.melds, ind, v.options, v.rules_version) is not None  # [O-PEN-1..3]
        takes = any(take_option(m, t, ind) is not None for m in v.melds)
        out.append(TileHint(t, penalised, addable, takes))
    return Hints(runs, pairs, tuple(out))

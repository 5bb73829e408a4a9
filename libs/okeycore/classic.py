"""Classic Okey as an event-sourced aggregate: ``decide``, ``evolve`` and ``view``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from . import melds as M
from .commands import (
    Command,
    CreateTable,
    DeclarePairs,
    Discard,
    Draw,
    Finish,
    ForceMove,
    Pass,
    ShowIndicator,
    StartHand,
    TakeBack,
    TakeDiscard,
    TimeOut,
    TurnToOkey,
)
from .errors import RuleViolation
from .events import (
    AutopilotEnded,
    DrawSource,
    Event,
    HandEnded,
    HandEndReason,
    HandStarted,
    IndicatorShown,
    MatchEnded,
    PairsDeclared,
    PenaltyApplied,
    TableCreated,
    TileDiscarded,
    TileDrawn,
    TurnedToOkey,
    TurnTimedOut,
)
from .fairness import deal_commitment
from .options import (
    RULES_VERSION,
    DeckEnd,
    DiscardHistory,
    Game,
    IndicatorScoring,
    IndicatorTiming,
    OptionsError,
    PairsDeclaration,
    TableOptions,
)
from .tiles import TILE_COUNT, Colour, Face, effective_face, face_from_index, face_of_id, okey_face

__all__ = [
    "Phase",
    "Stage",
    "SeatState",
    "ClassicState",
    "SeatPublic",
    "SeatView",
    "decide",
    "evolve",
    "fold",
    "view",
    "public_event",
    "FinishCheck",
    "check_finish",
    "finishing_tiles",
    "rack_packed",
    "effective_table",
    "split_pot",
    "deal",
]

Decision = list[Event] | RuleViolation


class Phase(StrEnum):
    NEW = "NEW"  # created, no hand dealt yet
    PLAYING = "PLAYING"
    HAND_OVER = "HAND_OVER"
    MATCH_OVER = "MATCH_OVER"


class Stage(StrEnum):
    DRAW = "DRAW"  # the seat must draw (deck or side tile) first
    DISCARD = "DISCARD"  # the seat holds 15 tiles: discard or finish
    LAST_CHANCE = "LAST_CHANCE"  # deck empty: take the side tile only to finish [C-DECK-3]
    LAST_CHANCE_TAKEN = "LAST_CHANCE_TAKEN"  # side tile taken at the last chance: finish or pass


@dataclass(frozen=True, slots=True)
class SeatState:
    rack: tuple[int, ...] = ()
    pile: tuple[int, ...] = ()  # this seat's discards, top last
    score: int = 0
    moved: bool = False  # has made a move this hand (for [C-IND-1])
    pairs: bool = False  # declared pairs this hand [C-PAIR-1]
    open_from: int = 0  # with pairs: the pile index from which discards are open to all [C-PAIR-2]
    turned: bool = False  # turned to okey this hand [C-DON-1]
    timeouts: int = 0  # consecutive timed-out turns [C-TIME-2]
    autopilot: bool = False


@dataclass(frozen=True, slots=True)
class ClassicState:
    table_id: str
    options: TableOptions
    seats: tuple[SeatState, ...]
    version: int = 0
    phase: Phase = Phase.NEW
    hand: int = 0
    starter: int = 0
    turn: int = 0
    stage: Stage = Stage.DRAW
    indicator: int = -1
    deck: tuple[int, ...] = ()
    deadline_ms: int = 0
    timed_out: bool = False
    indicator_shown: bool = False
    finish_penalised: bool = False  # an invalid finish was already penalised this turn [C-SC-6]
    last_hand: HandEnded | None = None
    result: MatchEnded | None = None
    deal_order: tuple[int, ...] = ()  # private until the hand ends [C-DEAL-3]
    deal_salt: str = ""
    players: tuple[str, ...] = ()  # who sits where ("" for a bot seat)
    rules_version: int = 1  # the rules the table was created under (TableCreated)

    @property
    def okey(self) -> Face:
        return okey_face(face_of_id(self.indicator))

    @property
    def left_of_turn(self) -> int:
        return (self.turn - 1) % 4


# ------------------------------------------------------------ helpers shared with bots and tests

_EFF: dict[int, tuple[int, ...]] = {}


def effective_table(indicator: int) -> tuple[int, ...]:
    """tile id -> effective face index (-1 for a wild okey) under this indicator, cached."""
    table = _EFF.get(indicator)
    if table is None:
        okey = okey_face(face_of_id(indicator))
        out = []
        for tid in range(TILE_COUNT):
            eff = effective_face(face_of_id(tid), okey)
            out.append(-1 if eff is None else eff.index)
        table = _EFF[indicator] = tuple(out)
    return table


def rack_packed(tiles: Iterable[int], indicator: int) -> M.Packed:
    """Solver state of a set of tile ids under an indicator."""
    table = effective_table(indicator)
    x = 0
    j = 0
    for t in tiles:
        e = table[t]
        if e < 0:
            j += 1
        else:
            x += 1 << (2 * e)
    return x, j


def _is_real_okey(tile: int, indicator: int) -> bool:
    return effective_table(indicator)[tile] < 0


@dataclass(frozen=True, slots=True)
class FinishCheck:
    arrangement: tuple[tuple[int, ...], ...]
    pairs: bool


def _ids_for(melds: Sequence[M.Meld], tiles: Sequence[int], indicator: int) -> tuple[tuple[int, ...], ...]:
    """Turn solver melds into the rack's physical tile ids."""
    table = effective_table(indicator)
    pool: dict[int, list[int]] = {}
    for t in tiles:
        pool.setdefault(table[t], []).append(t)
    out = []
    for meld in melds:
        ids = []
        for face, joker in zip(meld.stands_for, meld.jokers, strict=True):
            ids.append(pool[-1 if joker else face.index].pop())
        out.append(tuple(ids))
    return tuple(out)


def check_finish(
    tiles: Sequence[int],
    indicator: int,
    pairs_only: bool = False,
    proposed: tuple[tuple[int, ...], ...] | None = None,
) -> FinishCheck | None:
    """Do these 14 tiles finish, by runs and groups [C-FIN-1] or by seven pairs [C-FIN-2]?
    A proposed arrangement is used when valid [C-FIN-4]; otherwise the solver finds one,
    preferring seven pairs (which score double)."""
    if proposed is not None:
        got = _check_proposed(tiles, indicator, proposed, pairs_only)
        if got is not None:
            return got
    x, j = rack_packed(tiles, indicator)
    if M.count_pairs(x, j) >= 7:
        return FinishCheck(_ids_for(M.pair_melds(x, j), tiles, indicator), True)
    if pairs_only:
        return None
    if not M.can_cover(x, j, 0, True):
        return None
    _, melds = M.best_cover(x, j, True)
    return FinishCheck(_ids_for(melds, tiles, indicator), False)


def _check_proposed(
    tiles: Sequence[int], indicator: int, proposed: tuple[tuple[int, ...], ...], pairs_only: bool
) -> FinishCheck | None:
    try:
        melds = tuple(tuple(meld) for meld in proposed)
    except TypeError:
        return None  # not a list of melds: the server finds an arrangement itself
    flat = [t for meld in melds for t in meld]
    if any(type(t) is not int for t in flat) or sorted(flat) != sorted(tiles):
        return None
    table = effective_table(indicator)
    kinds = set()
    for meld in melds:
        eff = [None if table[t] < 0 else face_from_index(table[t]) for t in meld]
        try:
            kinds.add(M.interpret_meld(eff, True).kind)
        except M.MeldError:
            return None
    if kinds == {M.MeldKind.PAIR} and len(melds) == 7:
        return FinishCheck(melds, True)
    if M.MeldKind.PAIR not in kinds and not pairs_only:
        return FinishCheck(melds, False)
    return None


def finishing_tiles(rack: Sequence[int], indicator: int, pairs_only: bool = False) -> list[int]:
    """Which tiles of a 15-tile rack can be placed in the centre to finish (one id per face)."""
    x, j = rack_packed(rack, indicator)
    melds_ok = not pairs_only and M.can_cover(x, j, 1, True)
    if not melds_ok and M.count_pairs(x, j) < 7:
        return []
    out = []
    seen: set[int] = set()
    table = effective_table(indicator)
    for t in rack:
        e = table[t]
        if e in seen:
            continue
        seen.add(e)
        y, k = (x, j - 1) if e < 0 else (x - (1 << (2 * e)), j)
        if M.count_pairs(y, k) >= 7 or (melds_ok and M.can_cover(y, k, 0, True)):
            out.append(t)
    return out


def split_pot(pot: int, winners: int) -> tuple[int, int]:
    """Equal shares rounded down, and the remainder [C-SC-9]."""
    if winners <= 0:
        return 0, pot
    share = pot // winners
    return share, pot - share * winners


def deal(order: Sequence[int], starter: int) -> tuple[tuple[tuple[int, ...], ...], int, tuple[int, ...]]:
    """Starter 15 tiles, the others 14, then the first non-fake tile is the indicator
    [T-IND-1]; the other 48 form the deck, top first [C-DEAL-1]."""
    racks: list[tuple[int, ...]] = [()] * 4
    pos = 0
    for k in range(4):
        seat = (starter + k) % 4
        n = 15 if k == 0 else 14
        racks[seat] = tuple(order[pos : pos + n])
        pos += n
    rest = list(order[pos:])
    idx = next(i for i, t in enumerate(rest) if t < 104)
    indicator = rest.pop(idx)
    return tuple(racks), indicator, tuple(rest)


# ------------------------------------------------------------ decide


def _v(code: str, message: str) -> RuleViolation:
    return RuleViolation(code, message)


def _seat_ok(state: ClassicState, seat: int) -> RuleViolation | None:
    if type(seat) is not int or not 0 <= seat < 4:  # True and 1.0 are not seat 1
        return _v("INVALID_SEAT", f"seat must be 0..3, got {seat!r}")
    if state.phase is not Phase.PLAYING:
        return _v("NO_HAND_IN_PROGRESS", "no hand is being played at this table")
    return None


def _my_turn(state: ClassicState, seat: int) -> RuleViolation | None:
    bad = _seat_ok(state, seat)
    if bad:
        return bad
    if state.turn != seat:
        return _v("NOT_YOUR_TURN", f"it is seat {state.turn}'s turn")
    return None


def _deadline(state: ClassicState, now_ms: int) -> int:
    return now_ms + state.options.turn_seconds * 1000


def _create(state: ClassicState | None, cmd: CreateTable) -> Decision:
    if state is not None:
        return _v("TABLE_EXISTS", "this table has already been created")
    if not cmd.table_id:
        return _v("INVALID_TABLE_ID", "a table needs an id")
    try:
        opts = cmd.options.validated()
    except OptionsError as exc:
        return _v("INVALID_OPTIONS", str(exc))
    if opts.game is not Game.OKEY:
        return _v("WRONG_GAME", "this engine plays classic Okey; use the Okey 101 engine for OKEY101")
    if cmd.players and len(cmd.players) != 4:
        return _v("INVALID_SEATS", "a classic Okey table has exactly 4 seats")
    return [TableCreated(cmd.table_id, opts, tuple(cmd.players) or ("",) * 4, rules_version=RULES_VERSION)]


def _start_hand(state: ClassicState, cmd: StartHand) -> Decision:
    if state.phase is Phase.PLAYING:
        return _v("HAND_IN_PROGRESS", "a hand is already being played")
    if state.phase is Phase.MATCH_OVER:
        return _v("MATCH_OVER", "the match is over")
    order = cmd.order
    if (
        not isinstance(order, Sequence)
        or len(order) != TILE_COUNT
        or any(type(t) is not int for t in order)  # 1.0 and True would pass for tile 1
        or set(order) != set(range(TILE_COUNT))
    ):
        return _v("BAD_DEAL", "a deal must order each of the 106 tile ids exactly once")
    if state.hand == 0:
        if type(cmd.first_starter) is not int or not 0 <= cmd.first_starter < 4:
            return _v("INVALID_SEAT", "the first starter must be seat 0..3")
        starter = cmd.first_starter
    else:
        starter = (state.starter + 1) % 4  # [C-DEAL-2]
    racks, indicator, deck = deal(cmd.order, starter)
    return [
        HandStarted(
            state.hand + 1,
            starter,
            racks,
            indicator,
            deck,
            _deadline(state, cmd.now_ms),
            commitment=deal_commitment(cmd.order, cmd.salt),
            order=tuple(cmd.order),
            salt=cmd.salt,
        )
    ]


def _draw(state: ClassicState, cmd: Draw) -> Decision:
    bad = _my_turn(state, cmd.seat)
    if bad:
        return bad
    if state.stage in (Stage.LAST_CHANCE, Stage.LAST_CHANCE_TAKEN) or not state.deck:
        return _v("DECK_EMPTY", "the deck is empty; you may only take the side tile to finish [C-DECK-3]")
    if state.stage is not Stage.DRAW:
        return _v("ALREADY_DREW", "you hold 15 tiles: discard one or finish")
    return [TileDrawn(cmd.seat, state.deck[0], DrawSource.DECK)]


def _take_discard(state: ClassicState, cmd: TakeDiscard) -> Decision:
    bad = _my_turn(state, cmd.seat)
    if bad:
        return bad
    if state.stage not in (Stage.DRAW, Stage.LAST_CHANCE):
        return _v("ALREADY_DREW", "you hold 15 tiles: discard one or finish")
    left = state.seats[(cmd.seat - 1) % 4]
    if not left.pile:
        return _v("NO_DISCARD_TO_TAKE", "the seat on your left has no discard to take")
    tile = left.pile[-1]
    if state.stage is Stage.LAST_CHANCE:
        rack = state.seats[cmd.seat].rack + (tile,)
        if not finishing_tiles(rack, state.indicator, _pairs_only(state, cmd.seat)):
            return _v(
                "LAST_CHANCE_FINISH_ONLY", "the deck is empty: the side tile may only be taken to finish [C-DECK-3]"
            )
    return [TileDrawn(cmd.seat, tile, DrawSource.DISCARD)]


def _pairs_only(state: ClassicState, seat: int) -> bool:
    return state.options.pairs_declaration is PairsDeclaration.BINDING and state.seats[seat].pairs


def _discard(state: ClassicState, cmd: Discard) -> Decision:
    bad = _my_turn(state, cmd.seat)
    if bad:
        return bad
    if state.stage is Stage.DRAW:
        return _v("MUST_DRAW_FIRST", "draw from the deck or take the side tile first [C-TURN-2]")
    if state.stage in (Stage.LAST_CHANCE, Stage.LAST_CHANCE_TAKEN):
        return _v("DISCARD_NOT_ALLOWED", "the deck is empty: only a finish is accepted now [C-DECK-3]")
    if type(cmd.tile) is not int or cmd.tile not in state.seats[cmd.seat].rack:  # 1.0 == 1 but is no tile id
        return _v("TILE_NOT_IN_RACK", f"tile {cmd.tile!r} is not in your rack")
    return _discard_events(state, cmd.seat, cmd.tile, cmd.now_ms)


def _discard_events(state: ClassicState, seat: int, tile: int, now_ms: int) -> list[Event]:
    opts = state.options
    nxt = (seat + 1) % 4
    events: list[Event] = []
    penalty: Event | None = None
    if opts.penalties and _is_real_okey(tile, state.indicator):
        penalty = PenaltyApplied(seat, 2, "OKEY_DISCARDED")  # [C-SC-6]
    if state.deck:
        events.append(TileDiscarded(seat, tile, nxt, _deadline(state, now_ms)))
        if penalty:
            events.append(penalty)
        return events
    # The deck is exhausted [C-DECK-1] [C-DECK-3].
    if opts.deck_end is DeckEnd.LAST_CHANCE:
        nrack = state.seats[nxt].rack + (tile,)
        if finishing_tiles(nrack, state.indicator, _pairs_only(state, nxt)):
            events.append(TileDiscarded(seat, tile, nxt, _deadline(state, now_ms)))
            if penalty:
                events.append(penalty)
            return events
    events.append(TileDiscarded(seat, tile, -1, 0))
    if penalty:
        events.append(penalty)
    after = fold(state, events)
    return events + _dead_hand(after)


def _dead_hand(state: ClassicState) -> list[Event]:
    end = HandEnded(
        hand=state.hand,
        reason=HandEndReason.DECK_EXHAUSTED,
        finisher=-1,
        final_tile=-1,
        arrangement=(),
        okey_finish=False,
        pairs_finish=False,
        colored_finish=False,
        multiplier=0,
        deltas=(0, 0, 0, 0),
        racks=tuple(s.rack for s in state.seats),
        deck=state.deck,
        order=state.deal_order,
        salt=state.deal_salt,
    )
    return [end, *_match_end(state, (0, 0, 0, 0))]


def _finish(state: ClassicState, cmd: Finish) -> Decision:
    bad = _my_turn(state, cmd.seat)
    if bad:
        return bad
    if state.stage not in (Stage.DISCARD, Stage.LAST_CHANCE_TAKEN):
        return _v("MUST_DRAW_FIRST", "you finish after drawing, with 15 tiles [C-FIN-1]")
    rack = state.seats[cmd.seat].rack
    if type(cmd.tile) is not int or cmd.tile not in rack:
        return _v("TILE_NOT_IN_RACK", f"tile {cmd.tile!r} is not in your rack")
    rest = list(rack)
    rest.remove(cmd.tile)
    check = check_finish(rest, state.indicator, _pairs_only(state, cmd.seat), cmd.arrangement)
    if check is None:
        why = "the other 14 tiles do not form runs and groups, nor seven pairs [C-FIN-1] [C-FIN-2]"
        if _pairs_only(state, cmd.seat):
            why = "you declared pairs: only a seven-pairs finish is accepted [C-PAIR-1]"
        if state.options.penalties and not state.finish_penalised:
            return [PenaltyApplied(cmd.seat, 2, "INVALID_FINISH")]  # [C-SC-6]
        return _v("INVALID_FINISH", why)
    return _finish_events(state, cmd.seat, cmd.tile, check)


def _finish_events(state: ClassicState, seat: int, tile: int, check: FinishCheck) -> list[Event]:
    opts = state.options
    okey = state.okey
    okey_finish = _is_real_okey(tile, state.indicator)
    face = face_of_id(tile)
    colour = okey.colour if face.is_fake else face.colour  # a fake okey shows the okey's face [T-FAKE-1]
    colored = opts.colored and colour in (Colour.Y, Colour.B)
    mult = 1
    for flag in (okey_finish, check.pairs, colored):
        if flag:
            mult *= 2  # [C-SC-3]
    loss = 2 * mult
    partner = (seat + 2) % 4
    deltas = tuple(
        0 if s == seat or (opts.partners and s == partner) else -loss  # [C-SC-2] [C-SC-5]
        for s in range(4)
    )
    racks = tuple(s.rack for s in state.seats)
    end = HandEnded(
        hand=state.hand,
        reason=HandEndReason.FINISHED,
        finisher=seat,
        final_tile=tile,
        arrangement=check.arrangement,
        okey_finish=okey_finish,
        pairs_finish=check.pairs,
        colored_finish=colored,
        multiplier=mult,
        deltas=deltas,
        racks=racks,
        deck=state.deck,
        order=state.deal_order,
        salt=state.deal_salt,
    )
    return [end, *_match_end(state, deltas)]


def _match_end(state: ClassicState, deltas: tuple[int, ...]) -> list[Event]:
    """After a hand: the match ends once any score is 0 or below [C-SC-7] [D-3] [D-8]."""
    scores = tuple(s.score + d for s, d in zip(state.seats, deltas, strict=True))
    if min(scores) > 0:
        return []
    opts = state.options
    if opts.partners:
        teams = (scores[0] + scores[2], scores[1] + scores[3])
        if teams[0] == teams[1]:
            winners: tuple[int, ...] = (0, 1, 2, 3)
        else:
            winners = (0, 2) if teams[0] > teams[1] else (1, 3)
        paying = 4
    else:
        eligible = (0, 2) if opts.duel else (0, 1, 2, 3)  # [C-SC-8]
        best = max(scores[s] for s in eligible)
        winners = tuple(s for s in eligible if scores[s] == best)
        paying = len(eligible)
    pot = opts.stake * paying
    payout, remainder = split_pot(pot, len(winners))
    return [MatchEnded(scores, winners, pot, payout, remainder)]


def _show_indicator(state: ClassicState, cmd: ShowIndicator) -> Decision:
    bad = _seat_ok(state, cmd.seat)
    if bad:
        return bad
    if not state.options.indicator:
        return _v("INDICATOR_DISABLED", "this table does not score the indicator")
    if state.indicator_shown:
        return _v("INDICATOR_ALREADY_SHOWN", "the indicator has already been shown this hand [C-IND-2]")
    seat = state.seats[cmd.seat]
    if seat.moved:
        return _v("ALREADY_MOVED", "the indicator may only be shown before your first move [C-IND-1]")
    if state.options.indicator_timing is IndicatorTiming.FIRST_TURN and state.turn != cmd.seat:
        # Only on one's own first turn, before drawing (source 002): not yet moved and on turn.
        return _v(
            "NOT_YOUR_TURN", "at this table the indicator is shown on your own first turn, before drawing [C-IND-1]"
        )
    twin = state.indicator ^ 1
    if twin not in seat.rack:
        return _v("NO_INDICATOR_TWIN", "you do not hold the indicator's twin")
    if state.options.indicator_scoring is IndicatorScoring.SHOWER_PLUS_1:
        deltas = tuple(1 if s == cmd.seat else 0 for s in range(4))
    else:
        deltas = tuple(0 if s == cmd.seat else -1 for s in range(4))
    return [IndicatorShown(cmd.seat, twin, deltas)]  # [C-SC-4]


def _declare_pairs(state: ClassicState, cmd: DeclarePairs) -> Decision:
    bad = _seat_ok(state, cmd.seat)
    if bad:
        return bad
    if state.seats[cmd.seat].pairs:
        return _v("ALREADY_DECLARED", "you have already declared pairs this hand")
    return [PairsDeclared(cmd.seat)]


def _turn_to_okey(state: ClassicState, cmd: TurnToOkey) -> Decision:
    bad = _my_turn(state, cmd.seat)
    if bad:
        return bad
    seat = state.seats[cmd.seat]
    if seat.turned:
        return _v("ALREADY_TURNED", "you may turn to okey once per hand [C-DON-2]")
    if state.stage is not Stage.DISCARD:
        return _v("MUST_DRAW_FIRST", "you turn to okey holding 15 tiles, instead of finishing [C-DON-1]")
    if not any(_is_real_okey(t, state.indicator) for t in seat.rack):
        return _v("NO_OKEY", "you need to hold an okey to turn to okey [C-DON-1]")
    if not finishing_tiles(seat.rack, state.indicator, _pairs_only(state, cmd.seat)):
        return _v("CANNOT_FINISH", "you may turn to okey only when you could finish now [C-DON-1]")
    return [TurnedToOkey(cmd.seat)]


def _pass(state: ClassicState, cmd: Pass) -> Decision:
    bad = _my_turn(state, cmd.seat)
    if bad:
        return bad
    if state.stage not in (Stage.LAST_CHANCE, Stage.LAST_CHANCE_TAKEN):
        return _v("CANNOT_PASS", "passing is only for the last chance at the end of the deck [C-DECK-3]")
    return _dead_hand(state)


def _time_out(state: ClassicState, cmd: TimeOut) -> Decision:
    if state.phase is not Phase.PLAYING:
        return _v("NO_HAND_IN_PROGRESS", "no hand is being played at this table")
    if state.timed_out:
        return _v("ALREADY_TIMED_OUT", "this turn has already timed out")
    if cmd.now_ms < state.deadline_ms:
        return _v("NOT_DUE", "the turn's time has not run out yet")
    seat = state.seats[state.turn]
    n = seat.timeouts + 1
    return [TurnTimedOut(state.turn, n, seat.autopilot or n >= 3, cmd.now_ms + max(0, cmd.grace_ms))]


def _force_move(state: ClassicState, cmd: ForceMove) -> Decision:
    """The minimal legal move when nobody played a timed-out turn [C-TIME-1]: draw from the
    deck, then discard the drawn tile (or the first tile that is not an okey)."""
    if state.phase is not Phase.PLAYING:
        return _v("NO_HAND_IN_PROGRESS", "no hand is being played at this table")
    if not state.timed_out or cmd.now_ms < state.deadline_ms:
        return _v("NOT_DUE", "the turn has not timed out, or its grace period has not passed")
    seat = state.turn
    if state.stage in (Stage.LAST_CHANCE, Stage.LAST_CHANCE_TAKEN):
        return _dead_hand(state)
    events: list[Event] = []
    s = state
    drawn = -1
    if s.stage is Stage.DRAW:
        drawn = s.deck[0]
        events.append(TileDrawn(seat, drawn, DrawSource.DECK))
        s = fold(s, events)
    rack = s.seats[seat].rack
    choice = drawn if drawn >= 0 and not _is_real_okey(drawn, s.indicator) else -1
    if choice < 0:
        choice = next((t for t in reversed(rack) if not _is_real_okey(t, s.indicator)), rack[-1])
    return events + _discard_events(s, seat, choice, cmd.now_ms)


def _take_back(state: ClassicState, cmd: TakeBack) -> Decision:
    if type(cmd.seat) is not int or not 0 <= cmd.seat < 4:
        return _v("INVALID_SEAT", f"seat must be 0..3, got {cmd.seat!r}")
    if not state.seats[cmd.seat].autopilot:
        return _v("NOT_ON_AUTOPILOT", "this seat is not on autopilot")
    return [AutopilotEnded(cmd.seat)]


_DECIDERS: dict[type[Command], Callable[[Any, Any], Decision]] = {
    StartHand: _start_hand,
    Draw: _draw,
    TakeDiscard: _take_discard,
    Discard: _discard,
    Finish: _finish,
    ShowIndicator: _show_indicator,
    DeclarePairs: _declare_pairs,
    TurnToOkey: _turn_to_okey,
    Pass: _pass,
    TimeOut: _time_out,
    ForceMove: _force_move,
    TakeBack: _take_back,
}


def decide(state: ClassicState | None, command: Command) -> Decision:
    """The events a command produces, or the rule it breaks. Never raises on bad input."""
    if isinstance(command, CreateTable):
        return _create(state, command)
    if state is None:
        return _v("NO_TABLE", "the table does not exist")
    if state.phase is Phase.MATCH_OVER:
        return _v("MATCH_OVER", "the match is over")
    fn = _DECIDERS.get(type(command))
    if fn is None:
        return _v("UNKNOWN_COMMAND", f"{type(command).__name__} is not a classic Okey command")
    return fn(state, command)


# ------------------------------------------------------------ evolve


def _set_seat(seats: tuple[SeatState, ...], i: int, seat: SeatState) -> tuple[SeatState, ...]:
    return seats[:i] + (seat,) + seats[i + 1 :]


def _without(rack: tuple[int, ...], tile: int) -> tuple[int, ...]:
    i = rack.index(tile)
    return rack[:i] + rack[i + 1 :]


def evolve(state: ClassicState | None, event: Event) -> ClassicState:
    """Apply one event. Pure; folding a table's events rebuilds its state exactly."""
    if isinstance(event, TableCreated):
        opts = event.options
        return ClassicState(
            table_id=event.table_id,
            options=opts,
            seats=tuple(SeatState(score=opts.match_points) for _ in range(4)),
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
        seats = _set_seat(
            s.seats,
            event.seat,
            replace(
                seat, rack=_without(seat.rack, event.tile), pile=(*seat.pile, event.tile), moved=True, timeouts=timeouts
            ),
        )
        if event.next_seat < 0:
            return replace(s, seats=seats, version=v)
        last = not s.deck and s.options.deck_end is DeckEnd.LAST_CHANCE
        return replace(
            s,
            seats=seats,
            version=v,
            turn=event.next_seat,
            stage=Stage.LAST_CHANCE if last else Stage.DRAW,
            deadline_ms=event.deadline_ms,
            timed_out=False,
            finish_penalised=False,
        )
    if isinstance(event, TileDrawn):
        seat = s.seats[event.seat]
        seats = _set_seat(s.seats, event.seat, replace(seat, rack=seat.rack + (event.tile,), moved=True))
        deck = s.deck
        if event.source is DrawSource.DECK:
            deck = deck[1:]
        else:
            li = (event.seat - 1) % 4
            left = seats[li]
            pile = left.pile[:-1]
            seats = _set_seat(seats, li, replace(left, pile=pile, open_from=min(left.open_from, len(pile))))
        stage = Stage.LAST_CHANCE_TAKEN if s.stage is Stage.LAST_CHANCE else Stage.DISCARD
        return replace(s, seats=seats, deck=deck, stage=stage, version=v)
    if isinstance(event, HandStarted):
        seats = tuple(
            SeatState(rack=event.racks[i], score=old.score, timeouts=old.timeouts, autopilot=old.autopilot)
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
            stage=Stage.DISCARD,  # the starter discards without drawing [C-TURN-1]
            indicator=event.indicator,
            deck=event.deck,
            deadline_ms=event.deadline_ms,
            timed_out=False,
            indicator_shown=False,
            finish_penalised=False,
            deal_order=event.order,
            deal_salt=event.salt,
        )
    if isinstance(event, HandEnded):
        seats = tuple(replace(seat, score=seat.score + d) for seat, d in zip(s.seats, event.deltas, strict=True))
        if not (s.timed_out or seats[s.turn].autopilot):
            # The seat on turn ended the hand itself (a finish, a pass): its timeouts are no
            # longer consecutive [C-TIME-2], as after a discard of its own.
            seats = _set_seat(seats, s.turn, replace(seats[s.turn], timeouts=0))
        return replace(s, seats=seats, version=v, phase=Phase.HAND_OVER, last_hand=event, deadline_ms=0)
    if isinstance(event, MatchEnded):
        return replace(s, version=v, phase=Phase.MATCH_OVER, result=event)
    if isinstance(event, IndicatorShown):
        seats = tuple(replace(seat, score=seat.score + d) for seat, d in zip(s.seats, event.deltas, strict=True))
        return replace(s, seats=seats, version=v, indicator_shown=True)
    if isinstance(event, PairsDeclared):
        seat = s.seats[event.seat]
        seats = _set_seat(s.seats, event.seat, replace(seat, pairs=True, open_from=len(seat.pile)))
        return replace(s, seats=seats, version=v)
    if isinstance(event, TurnedToOkey):
        return replace(s, seats=_set_seat(s.seats, event.seat, replace(s.seats[event.seat], turned=True)), version=v)
    if isinstance(event, PenaltyApplied):
        seat = s.seats[event.seat]
        seats = _set_seat(s.seats, event.seat, replace(seat, score=seat.score - event.points))
        flag = s.finish_penalised or event.reason == "INVALID_FINISH"
        return replace(s, seats=seats, version=v, finish_penalised=flag)
    if isinstance(event, TurnTimedOut):
        seat = s.seats[event.seat]
        seats = _set_seat(s.seats, event.seat, replace(seat, timeouts=event.consecutive, autopilot=event.autopilot))
        return replace(s, seats=seats, version=v, timed_out=True, deadline_ms=event.grace_deadline_ms)
    if isinstance(event, AutopilotEnded):
        seat = s.seats[event.seat]
        return replace(s, seats=_set_seat(s.seats, event.seat, replace(seat, autopilot=False, timeouts=0)), version=v)
    raise ValueError(f"classic Okey cannot apply a {event.type} event")


def fold(state: ClassicState | None, events: Iterable[Event]) -> ClassicState:
    s = state
    for e in events:
        s = evolve(s, e)
    assert s is not None
    return s


# ------------------------------------------------------------ view


@dataclass(frozen=True, slots=True)
class SeatPublic:
    """What everybody may know about one seat (RULES.md section 7)."""

    seat: int
    tiles: int
    pile: tuple[int, ...]  # the visible part of the discard pile, top last
    pile_size: int
    score: int
    declared_pairs: bool
    turned_to_okey: bool
    autopilot: bool
    rack: tuple[int, ...] | None  # revealed only once the hand has ended


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's (or a spectator's, ``seat=None``) picture of the table."""

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
    indicator_shown: bool
    side_tile: int  # the left seat's discard this seat could take now, else -1
    seats: tuple[SeatPublic, ...]
    last_hand: HandEnded | None
    result: MatchEnded | None
    rules_version: int = RULES_VERSION  # the rules the table plays under
    moved: bool = False  # this seat has drawn or discarded this hand (it may no longer show the indicator)

    @property
    def okey(self) -> Face | None:
        return okey_face(face_of_id(self.indicator)) if self.indicator >= 0 else None


def _visible_pile(state: ClassicState, viewer: int | None, owner: int) -> tuple[int, ...]:
    """The part of ``owner``'s discard pile ``viewer`` sees while the hand runs: the top always
    [C-TURN-3]; older discards per ``discard_history``; a declarer's own history [C-PAIR-3] and
    a seat that turned to okey [C-DON-3] see everything; a binding declarer's discards from the
    declaration on are open to all, the ones before keep their visibility [C-PAIR-2]."""
    opts = state.options
    pile = state.seats[owner].pile
    if opts.discard_history is DiscardHistory.ALL:
        return pile
    if viewer is not None and (state.seats[viewer].pairs or state.seats[viewer].turned):
        return pile
    seat = state.seats[owner]
    if opts.pairs_declaration is PairsDeclaration.BINDING and seat.pairs:
        return pile[min(seat.open_from, max(len(pile) - 1, 0)) :]
    return pile[-1:]


def view(state: ClassicState, seat: int | None) -> SeatView:
    """Only what ``seat`` may see: never another rack or the deck order while the hand runs."""
    playing = state.phase is Phase.PLAYING
    publics = []
    for i, s in enumerate(state.seats):
        visible = _visible_pile(state, seat, i) if playing else s.pile
        publics.append(
            SeatPublic(
                seat=i,
                tiles=len(s.rack),
                pile=visible,
                pile_size=len(s.pile),
                score=s.score,
                declared_pairs=s.pairs,
                turned_to_okey=s.turned,
                autopilot=s.autopilot,
                rack=None if playing or state.phase is Phase.NEW else s.rack,
            )
        )
    side = -1
    if playing and seat is not None and state.turn == seat and state.stage in (Stage.DRAW, Stage.LAST_CHANCE):
        left = state.seats[(seat - 1) % 4].pile
        side = left[-1] if left else -1
    return SeatView(
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
        indicator_shown=state.indicator_shown,
        side_tile=side,
        seats=tuple(publics),
        last_hand=state.last_hand,
        result=state.result,
        rules_version=state.rules_version,
        moved=state.seats[seat].moved if seat is not None else False,
    )


def public_event(event: Event, viewer: int | None) -> Event:
    """The event as ``viewer`` may receive it: others' dealt racks, the deck order and deck
    draws of other seats are blanked (-1) until the hand's end reveals them."""
    if isinstance(event, HandStarted):
        racks = tuple(r if i == viewer else tuple(-1 for _ in r) for i, r in enumerate(event.racks))
        return replace(event, racks=racks, deck=tuple(-1 for _ in event.deck), order=(), salt="")
    if isinstance(event, TileDrawn) and event.source is DrawSource.DECK and event.seat != viewer:
        return replace(event, tile=-1)
    return event


# ------------------------------------------------------------ hints (RULES.md section 7)


@dataclass(frozen=True, slots=True)
class Arrangement:
    """An auto-arrangement of the rack ("Seri Diz": most tiles in runs and groups; "Çift Diz":
    most pairs): tile ids per meld, what each tile stands for, each meld's size, the tiles
    covered (or pairs), and whether it would finish."""

    melds: tuple[tuple[int, ...], ...]
    kinds: tuple[M.MeldKind, ...]
    stands_for: tuple[tuple[str, ...], ...]
    values: tuple[int, ...]
    total: int
    enough: bool


@dataclass(frozen=True, slots=True)
class TileHint:
    """Per rack tile: ``finishes``, placing it in the centre finishes the hand now."""

    tile: int
    finishes: bool
    penalised: bool = False
    addable: bool = False
    takes_okey: bool = False


@dataclass(frozen=True, slots=True)
class Hints:
    runs: Arrangement
    pairs: Arrangement
    tiles: tuple[TileHint, ...]


def _arrangement(melds: Sequence[M.Meld], rack: Sequence[int], indicator: int, total: int, enough: bool) -> Arrangement:
    return Arrangement(
        melds=_ids_for(melds, rack, indicator),
        kinds=tuple(m.kind for m in melds),
        stands_for=tuple(tuple(str(f) for f in m.stands_for) for m in melds),
        values=tuple(len(m) for m in melds),
        total=total,
        enough=enough,
    )


def hints(v: SeatView) -> Hints:
    """The seat's hints, from its own view only: Seri Diz, Çift Diz, and which tiles finish."""
    rack = v.rack
    if v.seat is None or not rack or v.indicator < 0:
        empty = Arrangement((), (), (), (), 0, False)
        return Hints(empty, empty, ())
    x, j = rack_packed(rack, v.indicator)
    covered, melds = M.best_cover(x, j, True)
    runs = _arrangement(melds, rack, v.indicator, covered, covered >= 14)
    pair_list = M.pair_melds(x, j)
    pairs = _arrangement(pair_list, rack, v.indicator, len(pair_list), len(pair_list) >= 7)
    finishing: set[int] = set()
    if len(rack) == 15:
        table = effective_table(v.indicator)
        faces = {table[t] for t in finishing_tiles(rack, v.indicator)}
        finishing = {t for t in rack if table[t] in faces}
    return Hints(runs, pairs, tuple(TileHint(t, t in finishing) for t in rack))

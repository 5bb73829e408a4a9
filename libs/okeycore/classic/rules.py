"""Classic Okey's own deciders on the kernel: drawing, discarding, finishing and the special moves.

``decide`` is the kernel's dispatcher with these deciders; ``can`` asks it before acting.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..kernel.automations import FollowUps, follow_ups_of
from ..kernel.commands import Command, Discard, Draw, TakeDiscard
from ..kernel.dealing import DealSpec
from ..kernel.events import DrawSource, Event, HandEndReason, PenaltyApplied, TileDiscarded, TileDrawn
from ..kernel.table import (
    DISCARD,
    Deciders,
    Decision,
    Dispatcher,
    GameRules,
    check_in_hand,
    check_turn,
    deadline,
    is_int,
    revealed,
    violation,
    with_argument,
)
from ..options import DeckEnd, Game, IndicatorTiming, PairsDeclaration
from ..racks import is_real_okey
from .commands import DeclarePairs, Finish, Pass, ShowIndicator, TurnToOkey
from .events import HandEnded, IndicatorShown, PairsDeclared, TurnedToOkey
from .evolve import fold
from .finish import FinishCheck, check_finish, finishing_tiles
from .scoring import colored_finish, finish_deltas, finish_multiplier, indicator_deltas, match_end
from .state import ClassicState, Stage

__all__ = ["DEAL", "DECIDERS", "RULES", "decide", "can", "allowed", "follow_ups", "pairs_only"]

DEAL = DealSpec(starter_tiles=15, other_tiles=14)
"""The starter 15 tiles, the others 14; 48 stay in the deck [C-DEAL-1]."""

_LAST_CHANCE = (Stage.LAST_CHANCE, Stage.LAST_CHANCE_TAKEN)
DECIDERS: Deciders[ClassicState] = Deciders()


def pairs_only(state: ClassicState, seat: int) -> bool:
    """A binding pairs declarer may finish only with seven pairs [C-PAIR-2]."""
    return state.options.pairs_declaration is PairsDeclaration.BINDING and state.seats[seat].pairs


@DECIDERS(Draw, needs=check_turn, seat=True)
def _draw(state: ClassicState, cmd: Draw) -> Decision:
    if state.stage in _LAST_CHANCE or not state.deck:
        return violation("DECK_EMPTY", "the deck is empty; you may only take the side tile to finish [C-DECK-3]")
    if state.stage is not Stage.DRAW:
        return violation("ALREADY_DREW", "you hold 15 tiles: discard one or finish")
    return [TileDrawn(cmd.seat, state.deck[0], DrawSource.DECK)]


@DECIDERS(TakeDiscard, needs=check_turn, seat=True)
def _take_discard(state: ClassicState, cmd: TakeDiscard) -> Decision:
    if state.stage not in (Stage.DRAW, Stage.LAST_CHANCE):
        return violation("ALREADY_DREW", "you hold 15 tiles: discard one or finish")
    left = state.seats[state.left_of(cmd.seat)]
    if not left.pile:
        return violation("NO_DISCARD_TO_TAKE", "the seat on your left has no discard to take")
    tile = left.pile[-1]
    if state.stage is Stage.LAST_CHANCE:
        rack = state.seats[cmd.seat].rack + (tile,)
        if not finishing_tiles(rack, state.indicator, pairs_only(state, cmd.seat)):
            return violation(
                "LAST_CHANCE_FINISH_ONLY", "the deck is empty: the side tile may only be taken to finish [C-DECK-3]"
            )
    return [TileDrawn(cmd.seat, tile, DrawSource.DISCARD)]


@DECIDERS(Discard, needs=check_turn, seat=DISCARD)
def _discard(state: ClassicState, cmd: Discard) -> Decision:
    if state.stage is Stage.DRAW:
        return violation("MUST_DRAW_FIRST", "draw from the deck or take the side tile first [C-TURN-2]")
    if state.stage in _LAST_CHANCE:
        return violation("DISCARD_NOT_ALLOWED", "the deck is empty: only a finish is accepted now [C-DECK-3]")
    if not is_int(cmd.tile) or cmd.tile not in state.seats[cmd.seat].rack:  # 1.0 == 1 but is no tile id
        return violation("TILE_NOT_IN_RACK", f"tile {cmd.tile!r} is not in your rack")
    return _discard_events(state, cmd.seat, cmd.tile, cmd.now_ms)


def _discard_events(state: ClassicState, seat: int, tile: int, now_ms: int) -> list[Event]:
    opts = state.options
    nxt = (seat + 1) % 4
    penalty: list[Event] = []
    if opts.penalties and is_real_okey(tile, state.indicator):
        penalty = [PenaltyApplied(seat, 2, "OKEY_DISCARDED")]  # [C-SC-6]
    if state.deck:
        return [TileDiscarded(seat, tile, nxt, deadline(state, now_ms)), *penalty]
    # The deck is exhausted [C-DECK-1] [C-DECK-3].
    if opts.deck_end is DeckEnd.LAST_CHANCE:
        nrack = state.seats[nxt].rack + (tile,)
        if finishing_tiles(nrack, state.indicator, pairs_only(state, nxt)):
            return [TileDiscarded(seat, tile, nxt, deadline(state, now_ms)), *penalty]
    events: list[Event] = [TileDiscarded(seat, tile, -1, 0), *penalty]
    return events + _dead_hand(fold(state, events))


def _dead_hand(state: ClassicState) -> list[Event]:
    """No points for anyone [C-DECK-1]; the indicator's already stand [C-DECK-2]."""
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
        **revealed(state),
    )
    return [end, *_match_end(state, (0, 0, 0, 0))]


def _finish_forms(state: ClassicState, seat: int) -> Iterator[Command]:
    """A finish with each tile that finishes; then any tile (a penalties table accepts, and
    penalises, a wrong finish [C-SC-6])."""
    rack = state.seats[seat].rack
    for t in finishing_tiles(rack, state.indicator, pairs_only(state, seat)):
        yield Finish(seat=seat, tile=t)
    if rack:
        yield Finish(seat=seat, tile=rack[0])


@DECIDERS(Finish, needs=check_turn, seat=with_argument("TILE_NOT_IN_RACK", _finish_forms))
def _finish(state: ClassicState, cmd: Finish) -> Decision:
    if state.stage not in (Stage.DISCARD, Stage.LAST_CHANCE_TAKEN):
        return violation("MUST_DRAW_FIRST", "you finish after drawing, with 15 tiles [C-FIN-1]")
    rack = state.seats[cmd.seat].rack
    if not is_int(cmd.tile) or cmd.tile not in rack:
        return violation("TILE_NOT_IN_RACK", f"tile {cmd.tile!r} is not in your rack")
    rest = list(rack)
    rest.remove(cmd.tile)
    only_pairs = pairs_only(state, cmd.seat)
    check = check_finish(rest, state.indicator, only_pairs, cmd.arrangement)
    if check is None:
        why = "the other 14 tiles do not form runs and groups, nor seven pairs [C-FIN-1] [C-FIN-2]"
        if only_pairs:
            why = "you declared pairs: only a seven-pairs finish is accepted [C-PAIR-1]"
        if state.options.penalties and not state.finish_penalised:
            return [PenaltyApplied(cmd.seat, 2, "INVALID_FINISH")]  # [C-SC-6]
        return violation("INVALID_FINISH", why)
    return _finish_events(state, cmd.seat, cmd.tile, check)


def _finish_events(state: ClassicState, seat: int, tile: int, check: FinishCheck) -> list[Event]:
    okey_finish = is_real_okey(tile, state.indicator)
    colored = colored_finish(tile, state.okey, state.options)
    mult = finish_multiplier(okey_finish, check.pairs, colored)
    deltas = finish_deltas(seat, mult, state.options)
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
        **revealed(state),
    )
    return [end, *_match_end(state, deltas)]


def _match_end(state: ClassicState, deltas: tuple[int, ...]) -> list[Event]:
    end = match_end(tuple(s.score + d for s, d in zip(state.seats, deltas, strict=True)), state.options)
    return [] if end is None else [end]


@DECIDERS(ShowIndicator, needs=check_in_hand, seat=True)
def _show_indicator(state: ClassicState, cmd: ShowIndicator) -> Decision:
    if not state.options.indicator:
        return violation("INDICATOR_DISABLED", "this table does not score the indicator")
    if state.indicator_shown:
        return violation("INDICATOR_ALREADY_SHOWN", "the indicator has already been shown this hand [C-IND-2]")
    seat = state.seats[cmd.seat]
    if seat.moved:
        return violation("ALREADY_MOVED", "the indicator may only be shown before your first move [C-IND-1]")
    if state.options.indicator_timing is IndicatorTiming.FIRST_TURN and state.turn != cmd.seat:
        # Only on one's own first turn, before drawing (source 002): not yet moved and on turn.
        return violation(
            "NOT_YOUR_TURN", "at this table the indicator is shown on your own first turn, before drawing [C-IND-1]"
        )
    twin = state.indicator ^ 1
    if twin not in seat.rack:
        return violation("NO_INDICATOR_TWIN", "you do not hold the indicator's twin")
    return [IndicatorShown(cmd.seat, twin, indicator_deltas(cmd.seat, state.options))]  # [C-SC-4]


@DECIDERS(DeclarePairs, needs=check_in_hand, seat=True)
def _declare_pairs(state: ClassicState, cmd: DeclarePairs) -> Decision:
    if state.seats[cmd.seat].pairs:
        return violation("ALREADY_DECLARED", "you have already declared pairs this hand")
    return [PairsDeclared(cmd.seat)]


@DECIDERS(TurnToOkey, needs=check_turn, seat=True)
def _turn_to_okey(state: ClassicState, cmd: TurnToOkey) -> Decision:
    seat = state.seats[cmd.seat]
    if seat.turned:
        return violation("ALREADY_TURNED", "you may turn to okey once per hand [C-DON-2]")
    if state.stage is not Stage.DISCARD:
        return violation("MUST_DRAW_FIRST", "you turn to okey holding 15 tiles, instead of finishing [C-DON-1]")
    if not any(is_real_okey(t, state.indicator) for t in seat.rack):
        return violation("NO_OKEY", "you need to hold an okey to turn to okey [C-DON-1]")
    if not finishing_tiles(seat.rack, state.indicator, pairs_only(state, cmd.seat)):
        return violation("CANNOT_FINISH", "you may turn to okey only when you could finish now [C-DON-1]")
    return [TurnedToOkey(cmd.seat)]


@DECIDERS(Pass, needs=check_turn, seat=True)
def _pass(state: ClassicState, cmd: Pass) -> Decision:
    if state.stage not in _LAST_CHANCE:
        return violation("CANNOT_PASS", "passing is only for the last chance at the end of the deck [C-DECK-3]")
    return _dead_hand(state)


def _forced_move(state: ClassicState, now_ms: int) -> Decision:
    """The minimal legal move when nobody played a timed-out turn [C-TIME-1]: draw from the
    deck, then discard the drawn tile (or the first tile that is not an okey)."""
    seat = state.turn
    if state.stage in _LAST_CHANCE:
        return _dead_hand(state)
    events: list[Event] = []
    s = state
    drawn = -1
    if s.stage is Stage.DRAW:
        drawn = s.deck[0]
        events.append(TileDrawn(seat, drawn, DrawSource.DECK))
        s = fold(s, events)
    rack = s.seats[seat].rack
    choice = drawn if drawn >= 0 and not is_real_okey(drawn, s.indicator) else -1
    if choice < 0:
        choice = next((t for t in reversed(rack) if not is_real_okey(t, s.indicator)), rack[-1])
    return events + _discard_events(s, seat, choice, now_ms)


RULES: GameRules[ClassicState] = GameRules(Game.OKEY, "classic Okey", DEAL, DECIDERS, _forced_move)
_DISPATCH = Dispatcher(RULES)
decide, can, allowed = _DISPATCH.decide, _DISPATCH.can, _DISPATCH.allowed
"""Classic's ``decide``, ``can`` and ``allowed``: the kernel's dispatcher on the deciders above."""
follow_ups: FollowUps[ClassicState] = follow_ups_of(decide)
"""What follows a command by itself: the next deal, with the host's shuffle (``kernel.automations``)."""

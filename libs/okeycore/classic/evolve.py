"""Classic Okey's own steps of ``evolve``, beside the kernel's."""

from __future__ import annotations

from ..kernel.events import DrawSource, HandEndReason, PenaltyApplied, TileDrawn
from ..kernel.evolve import Evolver, Steps, add_scores, hand_over
from ..kernel.lines import breakdown
from ..kernel.state import set_seat, update
from .events import HandEnded, IndicatorShown, PairsDeclared, TurnedToOkey
from .scoring import deck_lines, finish_lines, indicator_lines, penalty_line
from .state import ClassicState, SeatState, Stage

__all__ = ["STEPS", "evolve", "fold"]

STEPS: Steps[ClassicState] = Steps()


@STEPS(TileDrawn)
def _drawn(s: ClassicState, e: TileDrawn) -> ClassicState:
    seat = s.seats[e.seat]
    seats = set_seat(s.seats, e.seat, update(seat, rack=seat.rack + (e.tile,), moved=True))
    deck = s.deck
    if e.source is DrawSource.DECK:
        deck = deck[1:]
    else:
        li = s.left_of(e.seat)
        left = seats[li]
        pile = left.pile[:-1]
        seats = set_seat(seats, li, update(left, pile=pile, open_from=min(left.open_from, len(pile))))
    stage = Stage.LAST_CHANCE_TAKEN if s.stage is Stage.LAST_CHANCE else Stage.DISCARD
    return update(s, seats=seats, deck=deck, stage=stage, version=s.version + 1)


@STEPS(HandEnded)
def _hand_ended(s: ClassicState, e: HandEnded) -> ClassicState:
    seats = add_scores(s.seats, e.deltas)
    if not (s.timed_out or seats[s.turn].autopilot):
        # The seat on turn ended the hand itself (a finish, a pass): its timeouts are no
        # longer consecutive [C-TIME-2], as after a discard of its own.
        seats = set_seat(seats, s.turn, update(seats[s.turn], timeouts=0))
    # Every change of the hand, the indicator's and the penalties' too: its breakdown.
    ends = finish_lines(e.finisher, e.deltas) if e.reason is HandEndReason.FINISHED else deck_lines(len(seats))
    lines = breakdown(e.hand, (*s.hand_lines, *ends), tuple(seat.score for seat in seats))
    return hand_over(s, seats, last_hand=e, last_breakdown=lines, hand_lines=())


@STEPS(IndicatorShown)
def _indicator_shown(s: ClassicState, e: IndicatorShown) -> ClassicState:
    lines = (*s.hand_lines, *indicator_lines(e.seat, e.deltas))
    return update(s, seats=add_scores(s.seats, e.deltas), version=s.version + 1, indicator_shown=True, hand_lines=lines)


@STEPS(PairsDeclared)
def _pairs_declared(s: ClassicState, e: PairsDeclared) -> ClassicState:
    seat = s.seats[e.seat]
    seats = set_seat(s.seats, e.seat, update(seat, pairs=True, open_from=len(seat.pile)))
    return update(s, seats=seats, version=s.version + 1)


@STEPS(TurnedToOkey)
def _turned_to_okey(s: ClassicState, e: TurnedToOkey) -> ClassicState:
    seats = set_seat(s.seats, e.seat, update(s.seats[e.seat], turned=True))
    return update(s, seats=seats, version=s.version + 1)


@STEPS(PenaltyApplied)
def _penalty(s: ClassicState, e: PenaltyApplied) -> ClassicState:
    seat = s.seats[e.seat]
    seats = set_seat(s.seats, e.seat, update(seat, score=seat.score - e.points))
    flag = s.finish_penalised or e.reason == "INVALID_FINISH"
    lines = (*s.hand_lines, penalty_line(e.seat, e.points, e.reason))
    return update(s, seats=seats, version=s.version + 1, finish_penalised=flag, hand_lines=lines)


_EVOLVER: Evolver[ClassicState] = Evolver(
    "classic Okey",
    state=ClassicState,
    new_seat=lambda opts: SeatState(score=opts.match_points),  # [C-SC-1]
    own=STEPS,
    next_turn={"stage": Stage.DRAW, "finish_penalised": False},
    # A turn passes with the deck empty only at a LAST_CHANCE table: the side tile, to finish [C-DECK-3].
    next_turn_deck_empty={"stage": Stage.LAST_CHANCE, "finish_penalised": False},
    # The starter discards without drawing [C-TURN-1].
    new_hand={"stage": Stage.DISCARD, "indicator_shown": False, "finish_penalised": False},
    discard_seat={"moved": True},
)


evolve, fold = _EVOLVER.evolve, _EVOLVER.fold
"""``evolve`` one event, ``fold`` events in order (from None: a whole table), with the steps above."""

"""Okey 101's own steps of ``evolve``, beside the kernel's."""

from __future__ import annotations

from typing import Any

from ..kernel.events import DrawSource, PenaltyApplied, TileDrawn
from ..kernel.evolve import Evolver, Steps, add_scores, hand_over
from ..kernel.lines import ScoreLine, breakdown
from ..kernel.state import set_seat, update, without
from ..melds import MeldKind
from ..tiles import parse_face
from .events import HandEnded101, HandVoided, MeldsOpened, OkeyTaken, TableMeld, TileAdded, TileReturned
from .scoring import Opening, hand_lines, penalty_line
from .state import Okey101State, Seat101, Stage

__all__ = ["STEPS", "evolve", "fold"]

STEPS: Steps[Okey101State] = Steps()

_TURN_RESET: dict[str, Any] = {
    "side_tile": -1,
    "side_returnable": False,
    "table_moved": False,
    "opened_now": False,
    "run_adds": 0,
}


@STEPS(TileDrawn)
def _drawn(s: Okey101State, e: TileDrawn) -> Okey101State:
    seat = s.seats[e.seat]
    seats = set_seat(s.seats, e.seat, update(seat, rack=seat.rack + (e.tile,)))
    if e.source is DrawSource.DECK:
        return update(s, seats=seats, deck=s.deck[1:], stage=Stage.PLAY, version=s.version + 1)
    li = s.left_of(e.seat)
    seats = set_seat(seats, li, update(seats[li], pile=seats[li].pile[:-1]))
    return update(s, seats=seats, stage=Stage.PLAY, side_tile=e.tile, side_returnable=True, version=s.version + 1)


@STEPS(TileReturned)
def _returned(s: Okey101State, e: TileReturned) -> Okey101State:
    seat = s.seats[e.seat]
    seats = set_seat(s.seats, e.seat, update(seat, rack=without(seat.rack, e.tile)))
    li = s.left_of(e.seat)
    seats = set_seat(seats, li, update(seats[li], pile=seats[li].pile + (e.tile,)))
    return update(s, seats=seats, stage=Stage.DRAW, side_tile=-1, side_returnable=False, version=s.version + 1)


@STEPS(MeldsOpened)
def _melds_opened(s: Okey101State, e: MeldsOpened) -> Okey101State:
    seat = s.seats[e.seat]
    laid = {t for m in e.melds for t in m.tiles}
    seat = update(seat, rack=tuple(t for t in seat.rack if t not in laid))
    high_run, most_pairs = s.high_run, s.most_pairs
    kind = Opening.PAIRS if all(m.kind is MeldKind.PAIR for m in e.melds) else Opening.RUNS
    # The opening is everything laid in the opening turn, in one command or several [O-OPEN-3].
    more = s.opened_now and s.rules_version >= 2 and kind is seat.opening
    if e.first:
        seat = update(seat, opening=e.opening, opening_value=e.value)
    elif more:
        seat = update(seat, opening_value=seat.opening_value + e.value)
    if e.first or more:
        if seat.opening is Opening.PAIRS:
            most_pairs = max(most_pairs, seat.opening_value)
        else:
            high_run = max(high_run, seat.opening_value)
    return update(
        s,
        seats=set_seat(s.seats, e.seat, seat),
        melds=s.melds + e.melds,
        high_run=high_run,
        most_pairs=most_pairs,
        table_moved=True,
        side_returnable=False,
        opened_now=s.opened_now or e.first,
        version=s.version + 1,
    )


def _with_meld(
    melds: tuple[TableMeld, ...], i: int, tiles: tuple[int, ...], faces: tuple[str, ...]
) -> tuple[TableMeld, ...]:
    return melds[:i] + (update(melds[i], tiles=tiles, stands_for=faces),) + melds[i + 1 :]


@STEPS(TileAdded)
def _tile_added(s: Okey101State, e: TileAdded) -> Okey101State:
    seat = s.seats[e.seat]
    meld = s.melds[e.meld]
    tiles = (e.tile, *meld.tiles) if e.at_start else (*meld.tiles, e.tile)
    seat = update(seat, rack=without(seat.rack, e.tile))
    high_run = s.high_run
    if s.opened_now and s.rules_version >= 2 and seat.opening is Opening.RUNS:
        # A tile added in the opening turn is part of the opening: the bar cannot be kept low
        # by laying a run short and extending it afterwards [O-OPEN-3].
        added = parse_face(e.stands_for[0 if e.at_start else -1]).number
        seat = update(seat, opening_value=seat.opening_value + added)
        high_run = max(high_run, seat.opening_value)
    return update(
        s,
        seats=set_seat(s.seats, e.seat, seat),
        melds=_with_meld(s.melds, e.meld, tiles, e.stands_for),
        high_run=high_run,
        run_adds=s.run_adds + 1,
        table_moved=True,
        side_returnable=False,
        version=s.version + 1,
    )


@STEPS(OkeyTaken)
def _okey_taken(s: Okey101State, e: OkeyTaken) -> Okey101State:
    seat = s.seats[e.seat]
    meld = s.melds[e.meld]
    tiles = tuple(e.tile if t == e.okey else t for t in meld.tiles)
    seats = set_seat(s.seats, e.seat, update(seat, rack=without(seat.rack, e.tile) + (e.okey,)))
    adds = s.run_adds + (0 if meld.kind is MeldKind.PAIR else 1)  # take-backs count [O-ADD-3]
    return update(
        s,
        seats=seats,
        melds=_with_meld(s.melds, e.meld, tiles, e.stands_for),
        run_adds=adds,
        table_moved=True,
        side_returnable=False,
        version=s.version + 1,
    )


@STEPS(PenaltyApplied)
def _penalty(s: Okey101State, e: PenaltyApplied) -> Okey101State:
    seat = s.seats[e.seat]
    seats = set_seat(s.seats, e.seat, update(seat, penalties=seat.penalties + e.points))
    lines = (*s.hand_lines, penalty_line(e.seat, e.points, e.reason))
    return update(s, seats=seats, version=s.version + 1, hand_lines=lines)


@STEPS(HandEnded101)
def _hand_ended(s: Okey101State, e: HandEnded101) -> Okey101State:
    seats = add_scores(s.seats, e.deltas, penalties=0)
    lines = breakdown(e.hand, (*s.hand_lines, *_point_lines(s, e)), tuple(seat.score for seat in seats))
    return hand_over(s, seats, last_hand=e, last_breakdown=lines, hand_lines=())


def _point_lines(s: Okey101State, e: HandEnded101) -> tuple[ScoreLine, ...]:
    """The hand points of ``e`` as lines, split by the scoring rules; a seat whose points they
    would not give (a table of other rules) gets its points on one line: the event is the
    authority, the lines always add up to it."""
    mult = e.multiplier if e.finisher >= 0 else 1
    got = hand_lines(e.finisher, e.racks, [seat.opening for seat in s.seats], s.indicator, mult)
    out: list[ScoreLine] = []
    for i, points in enumerate(e.points):
        mine = [line for line in got if line.seat == i]
        out.extend(mine if sum(line.points for line in mine) == points else [ScoreLine(i, points, "HAND_POINTS")])
    return tuple(out)


@STEPS(HandVoided)
def _hand_voided(s: Okey101State, e: HandVoided) -> Okey101State:
    seats = tuple(update(seat, penalties=0) for seat in s.seats)  # [O-PEN-4]
    return hand_over(s, seats, voided=True, last_void=e, hand_lines=())


_EVOLVER: Evolver[Okey101State] = Evolver(
    "Okey 101",
    state=Okey101State,
    new_seat=lambda opts: Seat101(),
    own=STEPS,
    next_turn={"stage": Stage.DRAW, **_TURN_RESET},
    # The starter discards without drawing [O-TURN-1]; the table's melds and thresholds are new.
    new_hand={"stage": Stage.PLAY, "melds": (), "high_run": 0, "most_pairs": 0, "voided": False, **_TURN_RESET},
)


evolve, fold = _EVOLVER.evolve, _EVOLVER.fold
"""``evolve`` one event, ``fold`` events in order (from None: a whole table), with the steps above."""

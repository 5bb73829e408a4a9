"""What an Okey 101 seat is told (RULES.md section 7): the kernel's view, the table melds and the turn."""

from __future__ import annotations

from dataclasses import dataclass

from ..kernel.state import Phase
from ..kernel.view import SeatPublicBase, SeatPublics, TableView, seat_public, table_view
from .events import HandEnded101, HandVoided, TableMeld
from .rules import allowed
from .scoring import Opening
from .state import Okey101State, Seat101, Stage

__all__ = ["SeatPublic101", "SeatView101", "view"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatPublic101(SeatPublicBase):
    """What everybody may know about one seat (RULES.md section 7); ``score`` is the match total
    of the hands played, ``pile`` every discard."""

    penalties: int  # flat penalties of this hand so far [O-PEN-1..2]
    opening: Opening
    opening_value: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatView101(TableView):
    """One seat's (or a spectator's, ``seat=None``) picture of a 101 table."""

    stage: Stage
    melds: tuple[TableMeld, ...]  # with the okey values (stands_for)
    run_threshold: int
    pair_threshold: int
    held_side_tile: int  # the side tile this seat holds and has not laid yet, else -1
    can_return_side: bool
    table_moved: bool  # this seat opened, added or took an okey this turn
    run_adds: int  # this seat's tiles put on runs/groups this turn [O-ADD-3]
    seats: tuple[SeatPublic101, ...]
    last_hand: HandEnded101 | None
    last_void: HandVoided | None


def _public(i: int, s: Seat101, hidden: bool, pile: tuple[int, ...]) -> SeatPublic101:
    return SeatPublic101(
        **seat_public(i, s, hidden), pile=pile, penalties=s.penalties, opening=s.opening, opening_value=s.opening_value
    )


_PUBLICS = SeatPublics(_public)


def view(state: Okey101State, seat: int | None) -> SeatView101:
    """Only what ``seat`` may see: never another rack or the deck order while the hand runs."""
    publics = _PUBLICS(state)
    mine = state.phase is Phase.PLAYING and seat is not None and state.turn == seat
    side = -1
    if mine and state.stage is Stage.DRAW and state.deck:
        pile = state.seats[state.left_of(state.turn)].pile
        side = pile[-1] if pile else -1
    held = state.side_tile if mine and state.side_unused else -1
    return SeatView101(
        **table_view(state, seat, allowed(state, seat)),
        side_tile=side,
        stage=state.stage,
        melds=state.melds,
        run_threshold=state.run_threshold,
        pair_threshold=state.pair_threshold,
        held_side_tile=held,
        can_return_side=held >= 0 and state.side_returnable,
        table_moved=mine and state.table_moved,
        run_adds=state.run_adds if mine else 0,
        seats=publics,
        last_hand=state.last_hand,
        last_void=state.last_void,
    )

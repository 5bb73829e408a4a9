"""What a classic Okey seat is told (RULES.md section 7): the kernel's view and the game's own parts."""

from __future__ import annotations

from dataclasses import dataclass

from ..kernel.state import Phase
from ..kernel.view import SeatPublicBase, SeatPublics, TableView, seat_public, table_view
from ..options import DiscardHistory, PairsDeclaration
from .events import HandEnded
from .rules import allowed
from .state import ClassicState, SeatState, Stage

__all__ = ["SeatPublic", "SeatView", "view"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatPublic(SeatPublicBase):
    """What everybody may know about one seat (RULES.md section 7)."""

    pile_size: int
    declared_pairs: bool
    turned_to_okey: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatView(TableView):
    """One seat's (or a spectator's, ``seat=None``) picture of the table."""

    stage: Stage
    indicator_shown: bool
    seats: tuple[SeatPublic, ...]
    last_hand: HandEnded | None
    moved: bool = False  # this seat has drawn or discarded this hand (it may no longer show the indicator)


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


def _public(i: int, s: SeatState, hidden: bool, pile: tuple[int, ...]) -> SeatPublic:
    return SeatPublic(
        **seat_public(i, s, hidden), pile=pile, pile_size=len(s.pile), declared_pairs=s.pairs, turned_to_okey=s.turned
    )


_PUBLICS = SeatPublics(_public)


def view(state: ClassicState, seat: int | None) -> SeatView:
    """Only what ``seat`` may see: never another rack or the deck order while the hand runs."""
    playing = state.phase is Phase.PLAYING
    publics = _PUBLICS(state, (lambda i: _visible_pile(state, seat, i)) if playing else None)
    side = -1
    if playing and seat is not None and state.turn == seat and state.stage in (Stage.DRAW, Stage.LAST_CHANCE):
        left = state.seats[state.left_of(seat)].pile
        side = left[-1] if left else -1
    return SeatView(
        **table_view(state, seat, allowed(state, seat)),
        side_tile=side,
        stage=state.stage,
        indicator_shown=state.indicator_shown,
        seats=publics,
        last_hand=state.last_hand,
        moved=state.seats[seat].moved if seat is not None else False,
    )

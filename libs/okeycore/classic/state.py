"""A classic Okey table's state: the kernel's, and the turn's stage and the special moves."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..kernel.state import Seat, TableState
from .events import HandEnded

__all__ = ["Stage", "SeatState", "ClassicState"]


class Stage(StrEnum):
    DRAW = "DRAW"  # the seat must draw (deck or side tile) first
    DISCARD = "DISCARD"  # the seat holds 15 tiles: discard or finish
    LAST_CHANCE = "LAST_CHANCE"  # deck empty: take the side tile only to finish [C-DECK-3]
    LAST_CHANCE_TAKEN = "LAST_CHANCE_TAKEN"  # side tile taken at the last chance: finish or pass


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatState(Seat):
    moved: bool = False  # has made a move this hand (for [C-IND-1])
    pairs: bool = False  # declared pairs this hand [C-PAIR-1]
    open_from: int = 0  # with pairs: the pile index from which discards are open to all [C-PAIR-2]
    turned: bool = False  # turned to okey this hand [C-DON-1]


@dataclass(frozen=True, slots=True, kw_only=True)
class ClassicState(TableState[SeatState]):
    stage: Stage = Stage.DRAW
    indicator_shown: bool = False
    finish_penalised: bool = False  # an invalid finish was already penalised this turn [C-SC-6]
    last_hand: HandEnded | None = None

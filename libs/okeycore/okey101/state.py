"""An Okey 101 table's state: the kernel's, the melds on the table, the thresholds and the turn."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..kernel.state import Seat, TableState
from ..options import Mode101
from .events import HandEnded101, HandVoided, TableMeld
from .scoring import Opening

__all__ = ["RUN_THRESHOLD", "PAIR_THRESHOLD", "PAIR_OPENER_ADDS", "Stage", "Seat101", "Okey101State"]

RUN_THRESHOLD = 101
"""The first run opening of a hand [O-OPEN-1] [O-OPEN-3]."""
PAIR_THRESHOLD = 5
"""The first pair opening of a hand [O-OPEN-2] [O-OPEN-3]."""
PAIR_OPENER_ADDS = 2
"""Tiles a pair opener may add to runs/groups per turn, okey take-backs included [O-ADD-3]."""


class Stage(StrEnum):
    DRAW = "DRAW"  # draw from the deck or take the side tile first
    PLAY = "PLAY"  # drew (or the starter's first turn): lay, add, take okeys, then discard [O-TURN-1]


@dataclass(frozen=True, slots=True, kw_only=True)
class Seat101(Seat):
    # ``score`` is the match total of the hands played (penalty points; lower is better).
    penalties: int = 0  # flat penalties of the hand being played [O-PEN-1..2]
    opening: Opening = Opening.NONE
    opening_value: int = 0  # the opening's sum, or its number of pairs: all laid in the opening turn [O-OPEN-3]


@dataclass(frozen=True, slots=True, kw_only=True)
class Okey101State(TableState[Seat101]):
    # ``hand`` counts the hands dealt and counted (a void hand keeps its number [O-PEN-4]).
    stage: Stage = Stage.DRAW
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

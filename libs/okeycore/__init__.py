"""okeycore: the rules of Okey and Okey 101 as pure functions (no I/O, clocks or randomness)."""

from .classic import ClassicState, SeatView, decide, evolve, fold, public_event, view
from .errors import RuleViolation
from .options import Game, TableOptions

__all__ = [
    "ClassicState",
    "Game",
    "RuleViolation",
    "SeatView",
    "TableOptions",
    "decide",
    "evolve",
    "fold",
    "public_event",
    "view",
]

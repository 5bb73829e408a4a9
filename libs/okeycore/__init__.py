"""okeycore: the rules of Okey and Okey 101 as pure functions (no I/O, clocks or randomness)."""

from .classic import ClassicState, SeatView, can, decide, evolve, fold, public_event, view
from .errors import RuleViolation
from .kernel.state import Phase
from .options import Game, TableOptions

__all__ = [
    "ClassicState",
    "Game",
    "Phase",
    "RuleViolation",
    "SeatView",
    "TableOptions",
    "can",
    "decide",
    "evolve",
    "fold",
    "public_event",
    "view",
]

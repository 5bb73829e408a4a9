"""Classic Okey (RULES.md section 3): four seats, finish with 14 tiles in melds or seven pairs,
the indicator, pairs and turning to okey; the table around it is the kernel's (``okeycore.kernel``).

Modules: ``commands``, ``events``, ``state``, ``rules`` (the deciders), ``finish`` (the solver asked
about a rack), ``scoring``, ``evolve``, ``view``, ``hints``. Everything a caller needs is here.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..kernel.automations import automation, due_at, on_due
from ..kernel.dealing import deal as _deal
from ..kernel.state import Phase
from ..kernel.table import split_pot
from ..kernel.view import public_event
from ..racks import effective_table, rack_packed
from .commands import DeclarePairs, Finish, Pass, ShowIndicator, TurnToOkey
from .events import CLASSIC_EVENTS, HandEnded, IndicatorShown, PairsDeclared, TurnedToOkey
from .evolve import evolve, fold
from .finish import FinishCheck, check_finish, finishing_tiles
from .hints import Arrangement, Hints, TileHint, hints
from .rules import DEAL, RULES, allowed, can, decide, follow_ups
from .state import ClassicState, SeatState, Stage
from .view import SeatPublic, SeatView, view

__all__ = [
    "Phase",
    "Stage",
    "SeatState",
    "ClassicState",
    "SeatPublic",
    "SeatView",
    "decide",
    "can",
    "allowed",
    "evolve",
    "fold",
    "automation",
    "due_at",
    "on_due",
    "follow_ups",
    "view",
    "public_event",
    "hints",
    "Hints",
    "TileHint",
    "Arrangement",
    "FinishCheck",
    "check_finish",
    "finishing_tiles",
    "rack_packed",
    "effective_table",
    "split_pot",
    "deal",
    "DEAL",
    "RULES",
    "Finish",
    "ShowIndicator",
    "DeclarePairs",
    "TurnToOkey",
    "Pass",
    "IndicatorShown",
    "PairsDeclared",
    "TurnedToOkey",
    "HandEnded",
    "CLASSIC_EVENTS",
]


def deal(order: Sequence[int], starter: int) -> tuple[tuple[tuple[int, ...], ...], int, tuple[int, ...]]:
    """Starter 15 tiles, the others 14, then the first non-fake tile is the indicator
    [T-IND-1]; the other 48 form the deck, top first [C-DEAL-1]."""
    return _deal(order, starter, 4, DEAL)

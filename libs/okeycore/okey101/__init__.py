"""Okey 101 (RULES.md section 4): two or four seats, openings worth 101 or five pairs, adding
to the table's melds, taking okeys back, the side tile and flat penalties, on the kernel's table.

Its rooms: ``rules`` decides; ``table_melds`` (what fits where), ``side`` (the side tile) and
``openings`` serve it; ``scoring``, ``state``, ``evolve``, ``view``, ``hints``, ``commands``, ``events``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..kernel.automations import automation, due_at, on_due
from ..kernel.dealing import deal as _deal
from ..kernel.view import public_event
from ..racks import ids_for, is_real_okey
from .commands import AddTile, OpenMelds, ReturnSideTile, TakeOkey
from .events import OKEY101_EVENTS, HandEnded101, HandVoided, MeldsOpened, OkeyTaken, TableMeld, TileAdded, TileReturned
from .evolve import evolve, fold
from .hints import Hints, TileHint, hints
from .openings import OpeningPreview, pair_opening, run_opening
from .rules import DEAL, RULES, allowed, can, decide, follow_ups
from .scoring import Opening
from .side import side_use
from .state import PAIR_OPENER_ADDS, PAIR_THRESHOLD, RUN_THRESHOLD, Okey101State, Seat101, Stage
from .table_melds import add_options, fits_table, penalty_reason, take_option, takes_okey_back
from .view import SeatPublic101, SeatView101, view

__all__ = [
    # commands
    "OpenMelds",
    "AddTile",
    "TakeOkey",
    "ReturnSideTile",
    # events
    "TableMeld",
    "MeldsOpened",
    "TileAdded",
    "OkeyTaken",
    "TileReturned",
    "HandEnded101",
    "HandVoided",
    "OKEY101_EVENTS",
    # state and flow
    "Opening",
    "Stage",
    "Seat101",
    "Okey101State",
    "decide",
    "can",
    "allowed",
    "evolve",
    "fold",
    "automation",
    "due_at",
    "on_due",
    "follow_ups",
    "deal",
    "DEAL",
    "RULES",
    # what a seat sees
    "SeatPublic101",
    "SeatView101",
    "view",
    "public_event",
    # table melds and hints
    "add_options",
    "take_option",
    "fits_table",
    "penalty_reason",
    "takes_okey_back",
    "is_real_okey",
    "ids_for",
    "side_use",
    "OpeningPreview",
    "TileHint",
    "Hints",
    "hints",
    "run_opening",
    "pair_opening",
    "RUN_THRESHOLD",
    "PAIR_THRESHOLD",
    "PAIR_OPENER_ADDS",
]


def deal(order: Sequence[int], starter: int, seats: int) -> tuple[tuple[tuple[int, ...], ...], int, tuple[int, ...]]:
    """Starter 22 tiles, the others 21, in turn order; then the first tile that is not a fake
    okey is the indicator [T-IND-1]; the rest is the deck, top first (62 or 20) [O-DEAL-1]."""
    return _deal(order, starter, seats, DEAL)

"""Every event of both games, and the one registry that stores and reads them.

The kernel's events, classic Okey's and Okey 101's are listed here by hand, so what a stored log
can hold never depends on which modules were imported. ``event_to_dict`` is the stored form
(``{"type": ..., field: value, ...}``, fields in declaration order): logs in PostgreSQL hold it.
"""

from __future__ import annotations

from typing import Any

from .classic.events import CLASSIC_EVENTS, HandEnded, IndicatorShown, PairsDeclared, TurnedToOkey
from .kernel.codec import decode_event, event_to_dict
from .kernel.events import (
    KERNEL_EVENTS,
    AutopilotEnded,
    BreakStarted,
    DrawSource,
    Event,
    HandEndReason,
    HandStarted,
    MatchEnded,
    PenaltyApplied,
    SeatDisconnected,
    SeatLeft,
    SeatReady,
    SeatReconnected,
    TableCreated,
    TileDiscarded,
    TileDrawn,
    TurnTimedOut,
    gives_turn,
    played_by_seat,
    to_move,
)
from .okey101.events import (
    OKEY101_EVENTS,
    HandEnded101,
    HandVoided,
    MeldsOpened,
    OkeyTaken,
    TableMeld,
    TileAdded,
    TileReturned,
)

__all__ = [
    "Event",
    "DrawSource",
    "HandEndReason",
    # the kernel's
    "TableCreated",
    "HandStarted",
    "TileDrawn",
    "TileDiscarded",
    "TurnTimedOut",
    "AutopilotEnded",
    "SeatLeft",
    "PenaltyApplied",
    "MatchEnded",
    "BreakStarted",
    "SeatReady",
    "SeatDisconnected",
    "SeatReconnected",
    # classic Okey's
    "IndicatorShown",
    "PairsDeclared",
    "TurnedToOkey",
    "HandEnded",
    # Okey 101's
    "TableMeld",
    "MeldsOpened",
    "TileAdded",
    "OkeyTaken",
    "TileReturned",
    "HandEnded101",
    "HandVoided",
    # the registry
    "EVENT_TYPES",
    "event_to_dict",
    "event_from_dict",
    "to_move",
    "gives_turn",
    "played_by_seat",
]

EVENT_TYPES: dict[str, type[Event]] = {cls.type: cls for cls in (*KERNEL_EVENTS, *CLASSIC_EVENTS, *OKEY101_EVENTS)}
"""Every event type a table stream may hold, by its stored name."""


def event_from_dict(data: dict[str, Any]) -> Event:
    """Inverse of :func:`event_to_dict`; raises KeyError/ValueError on unknown types or fields."""
    return decode_event(EVENT_TYPES, data)

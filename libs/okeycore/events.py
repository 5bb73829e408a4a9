"""Classic Okey events: immutable facts, the only thing a table stream stores."""

from __future__ import annotations

import typing
from dataclasses import dataclass, fields
from enum import Enum, StrEnum
from typing import Any, ClassVar

from .options import TableOptions

__all__ = [
    "Event",
    "DrawSource",
    "HandEndReason",
    "TableCreated",
    "HandStarted",
    "TileDrawn",
    "TileReturned",
    "TileDiscarded",
    "IndicatorShown",
    "PairsDeclared",
    "TurnedToOkey",
    "TurnTimedOut",
    "AutopilotEnded",
    "PenaltyApplied",
    "HandEnded",
    "MatchEnded",
    "EVENT_TYPES",
    "event_to_dict",
    "event_from_dict",
    "to_move",
]


class DrawSource(StrEnum):
    DECK = "DECK"
    DISCARD = "DISCARD"


class HandEndReason(StrEnum):
    FINISHED = "FINISHED"
    DECK_EXHAUSTED = "DECK_EXHAUSTED"


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every event; ``type`` is the stable name stored with it. ``to_move_field`` names
    the field holding the seat that must (or may have to) move after this event ("": none), so
    a consumer such as the bots asks :func:`to_move` instead of keeping its own table."""

    type: ClassVar[str] = "Event"
    to_move_field: ClassVar[str] = ""


@dataclass(frozen=True, slots=True)
class TableCreated(Event):
    type: ClassVar[str] = "TableCreated"
    table_id: str
    options: TableOptions
    players: tuple[str, ...] = ()  # player id per seat, "" for a bot seat
    # The rules the table is played under (okeycore.options.RULES_VERSION when it was created);
    # a log written before versions were recorded is version 1.
    rules_version: int = 1


@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    """A deal: who starts, every rack, the indicator and the deck order (private until the
    hand ends [C-DEAL-3]); ``deadline_ms`` is the starter's time limit."""

    type: ClassVar[str] = "HandStarted"
    to_move_field: ClassVar[str] = "starter"
    hand: int
    starter: int
    racks: tuple[tuple[int, ...], ...]
    indicator: int
    deck: tuple[int, ...]
    deadline_ms: int
    commitment: str = ""  # SHA-256 of order + salt, public from the start [C-DEAL-3]
    order: tuple[int, ...] = ()  # the shuffled order dealt from (private until the hand ends)
    salt: str = ""  # private until the hand ends


@dataclass(frozen=True, slots=True)
class TileDrawn(Event):
    """A seat drew; a deck tile is known only to that seat until the hand ends."""

    type: ClassVar[str] = "TileDrawn"
    to_move_field: ClassVar[str] = "seat"
    seat: int
    tile: int
    source: DrawSource


@dataclass(frozen=True, slots=True)
class TileReturned(Event):
    """A side tile put back where it came from [O-SIDE-2] (101)."""

    type: ClassVar[str] = "TileReturned"
    to_move_field: ClassVar[str] = "seat"
    seat: int
    tile: int


@dataclass(frozen=True, slots=True)
class TileDiscarded(Event):
    type: ClassVar[str] = "TileDiscarded"
    to_move_field: ClassVar[str] = "next_seat"
    seat: int
    tile: int
    next_seat: int
    deadline_ms: int


@dataclass(frozen=True, slots=True)
class IndicatorShown(Event):
    """Göstergeyi göstermek: ``deltas`` are every seat's score change [C-SC-4]."""

    type: ClassVar[str] = "IndicatorShown"
    to_move_field: ClassVar[str] = "seat"
    seat: int
    tile: int
    deltas: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PairsDeclared(Event):
    """Çifte gitmek [C-PAIR-1]."""

    type: ClassVar[str] = "PairsDeclared"
    to_move_field: ClassVar[str] = "seat"
    seat: int


@dataclass(frozen=True, slots=True)
class TurnedToOkey(Event):
    """Okeye dönmek [C-DON-1]."""

    type: ClassVar[str] = "TurnedToOkey"
    to_move_field: ClassVar[str] = "seat"
    seat: int


@dataclass(frozen=True, slots=True)
class TurnTimedOut(Event):
    """The turn's time ran out [C-TIME-1]; ``grace_deadline_ms`` is when the table plays the
    minimal move itself; ``autopilot`` is set on the third timeout in a row [C-TIME-2]."""

    type: ClassVar[str] = "TurnTimedOut"
    to_move_field: ClassVar[str] = "seat"
    seat: int
    consecutive: int
    autopilot: bool
    grace_deadline_ms: int


@dataclass(frozen=True, slots=True)
class AutopilotEnded(Event):
    """The player took their seat back [D-5]."""

    type: ClassVar[str] = "AutopilotEnded"
    to_move_field: ClassVar[str] = "seat"
    seat: int


@dataclass(frozen=True, slots=True)
class PenaltyApplied(Event):
    """A flat penalty: ``points`` are lost (classic) or added (101); ``reason`` is a reason code."""

    type: ClassVar[str] = "PenaltyApplied"
    to_move_field: ClassVar[str] = "seat"
    seat: int
    points: int
    reason: str


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    """The hand is over; every rack and the rest of the deck are public from here on."""

    type: ClassVar[str] = "HandEnded"
    hand: int
    reason: HandEndReason
    finisher: int
    final_tile: int
    arrangement: tuple[tuple[int, ...], ...]
    okey_finish: bool
    pairs_finish: bool
    colored_finish: bool
    multiplier: int
    deltas: tuple[int, ...]
    racks: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]
    order: tuple[int, ...] = ()  # the hand's deal order and salt, revealed [C-DEAL-3]
    salt: str = ""


@dataclass(frozen=True, slots=True)
class MatchEnded(Event):
    """Final standings: ``winners`` (co-winners [C-SC-7]) share the pot, each getting
    ``payout``; ``remainder`` chips of an uneven split are rounded away [C-SC-9]."""

    type: ClassVar[str] = "MatchEnded"
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    pot: int
    payout: int
    remainder: int


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        TableCreated,
        HandStarted,
        TileDrawn,
        TileReturned,
        TileDiscarded,
        IndicatorShown,
        PairsDeclared,
        TurnedToOkey,
        TurnTimedOut,
        AutopilotEnded,
        PenaltyApplied,
        HandEnded,
        MatchEnded,
    )
}


def to_move(event: Event) -> int:
    """The seat that must (or may have to) move after ``event``, -1 for none: the starter after
    a deal, the next seat after a discard, the same seat while its turn goes on (a draw, a
    timeout, a show, a 101 opening ...). A consumer still asks the table whether it really is
    that seat's turn; this only says whom to ask about."""
    name = event.to_move_field
    seat = getattr(event, name, -1) if name else -1
    return seat if isinstance(seat, int) and seat >= 0 else -1


def register(cls: type[Event]) -> type[Event]:
    """Add an event class (the 101 module has its own) to the codec."""
    EVENT_TYPES[cls.type] = cls
    return cls


def _encode(v: Any) -> Any:
    if isinstance(v, Enum):
        return v.value
    if isinstance(v, TableOptions):
        return v.to_dict()
    if isinstance(v, tuple):
        return [_encode(x) for x in v]
    if hasattr(v, "__dataclass_fields__"):
        return {f.name: _encode(getattr(v, f.name)) for f in fields(v)}
    return v


def event_to_dict(event: Event) -> dict[str, Any]:
    """JSON-ready form: ``{"type": ..., field: value, ...}``."""
    out: dict[str, Any] = {"type": event.type}
    for f in fields(event):
        out[f.name] = _encode(getattr(event, f.name))
    return out


def _decode(hint: Any, v: Any) -> Any:
    origin = typing.get_origin(hint)
    if hint is TableOptions:
        return TableOptions.from_dict(v, stored=True)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(v)
    if origin is tuple:
        args = typing.get_args(hint)
        inner = args[0]
        return tuple(_decode(inner, x) for x in v)
    if isinstance(hint, type) and hasattr(hint, "__dataclass_fields__"):
        hints = typing.get_type_hints(hint)
        return hint(**{f.name: _decode(hints[f.name], v[f.name]) for f in fields(hint)})
    return v


_HINTS: dict[type[Event], dict[str, Any]] = {}


def event_from_dict(data: dict[str, Any]) -> Event:
    """Inverse of :func:`event_to_dict`; raises KeyError/ValueError on unknown types or fields."""
    name = data.get("type")
    cls = EVENT_TYPES.get(str(name))
    if cls is None:
        raise ValueError(f"unknown event type {name!r}")
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    # A field added later with a default may be missing from an older stored event.
    return cls(
        **{f.name: _decode(hints[f.name], data[f.name]) for f in fields(cls) if f.name in data or not _has_default(f)}
    )


def _has_default(f: Any) -> bool:
    from dataclasses import MISSING

    return f.default is not MISSING or f.default_factory is not MISSING

"""The table's own events, the same in both games: immutable facts, the only thing a stream stores."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from ..options import TableOptions

__all__ = [
    "Event",
    "SeatEvent",
    "DrawSource",
    "HandEndReason",
    "TableCreated",
    "HandStarted",
    "TileDrawn",
    "TileDiscarded",
    "TurnTimedOut",
    "AutopilotEnded",
    "SeatLeft",
    "PenaltyApplied",
    "HandEnd",
    "MatchEnded",
    "BreakStarted",
    "SeatReady",
    "SeatDisconnected",
    "SeatReconnected",
    "KERNEL_EVENTS",
    "to_move",
    "gives_turn",
    "played_by_seat",
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
class SeatEvent(Event):
    """An event about one seat, ``seat``: what it did, or what befell it. Every such event names
    the seat first (the stored form lists it first)."""

    type: ClassVar[str] = "SeatEvent"
    to_move_field: ClassVar[str] = "seat"  # the seat's turn goes on (a draw, a timeout, a show, a 101 opening ...)
    # The seat itself played it (a draw, a show, a 101 opening ...), in its turn or out of it;
    # False where the table did it to the seat (a timeout, a penalty) or a person came or went.
    played_by_seat: ClassVar[bool] = False
    seat: int


@dataclass(frozen=True, slots=True)
class TableCreated(Event):
    type: ClassVar[str] = "TableCreated"
    table_id: str
    options: TableOptions
    players: tuple[str, ...] = ()  # player id per seat, "" for a bot seat
    # The rules the table is played under (okeycore.options.RULES_VERSION when it was created);
    # a log written before versions were recorded is version 1.
    rules_version: int = 1
    # Listed in the lobby for anyone to sit or watch: its hands' replays are anyone's once the
    # match has ended [D-12]. Data only; no rule of play reads it.
    public: bool = False


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
class TileDrawn(SeatEvent):
    """A seat drew; a deck tile is known only to that seat until the hand ends."""

    type: ClassVar[str] = "TileDrawn"
    played_by_seat: ClassVar[bool] = True
    tile: int
    source: DrawSource


@dataclass(frozen=True, slots=True)
class TileDiscarded(SeatEvent):
    """``next_seat`` is -1 when the discard ends the hand (a 101 finish, the deck's end)."""

    type: ClassVar[str] = "TileDiscarded"
    to_move_field: ClassVar[str] = "next_seat"
    tile: int
    next_seat: int
    deadline_ms: int


@dataclass(frozen=True, slots=True)
class TurnTimedOut(SeatEvent):
    """The turn's time ran out [C-TIME-1]; ``grace_deadline_ms`` is when the table plays the
    minimal move itself; ``autopilot`` is set on the third timeout in a row [C-TIME-2]."""

    type: ClassVar[str] = "TurnTimedOut"
    consecutive: int
    autopilot: bool
    grace_deadline_ms: int


@dataclass(frozen=True, slots=True)
class AutopilotEnded(SeatEvent):
    """The player took their seat back [D-5]."""

    type: ClassVar[str] = "AutopilotEnded"


@dataclass(frozen=True, slots=True)
class SeatLeft(SeatEvent):
    """``player`` left the match [C-LEAVE-1]: from now on a bot plays the seat, which nobody can
    take back; scores and the turn are as they were [D-10]."""

    type: ClassVar[str] = "SeatLeft"
    player: str


@dataclass(frozen=True, slots=True)
class PenaltyApplied(SeatEvent):
    """A flat penalty: ``points`` are lost (classic) or added (101); ``reason`` is a reason code."""

    type: ClassVar[str] = "PenaltyApplied"
    points: int
    reason: str


@dataclass(frozen=True, slots=True)
class HandEnd(Event):
    """A hand's end, in every game: which hand, why, and who finished (-1: nobody) with which
    tile. Each game's own event (``HandEnded``, ``HandEnded101``) adds the scores and reveals
    every rack and the rest of the deck [C-DEAL-3]."""

    type: ClassVar[str] = "HandEnd"
    hand: int
    reason: HandEndReason
    finisher: int
    final_tile: int


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


@dataclass(frozen=True, slots=True)
class BreakStarted(Event):
    """Hand ``hand`` is over and the match goes on: the next hand is dealt at ``due_ms``, or as
    soon as every person seated is ready, whichever comes first [P-BREAK-1] [P-BREAK-3]."""

    type: ClassVar[str] = "BreakStarted"
    hand: int
    due_ms: int


@dataclass(frozen=True, slots=True)
class SeatReady(SeatEvent):
    """The person at ``seat`` is ready for the next hand [P-BREAK-2]. Nobody has to move after it."""

    type: ClassVar[str] = "SeatReady"
    to_move_field: ClassVar[str] = ""


@dataclass(frozen=True, slots=True)
class SeatDisconnected(SeatEvent):
    """The person at ``seat`` has no connection (the edge says so after a short grace): every
    seat sees them marked so, and their next turn that times out puts the seat on autopilot at
    once [D-11]. Nobody has to move after it."""

    type: ClassVar[str] = "SeatDisconnected"
    to_move_field: ClassVar[str] = ""


@dataclass(frozen=True, slots=True)
class SeatReconnected(SeatEvent):
    """The person at ``seat`` is connected again [D-11]; a seat put on autopilot meanwhile stays
    so until they take it back [D-5]. Nobody has to move after it."""

    type: ClassVar[str] = "SeatReconnected"
    to_move_field: ClassVar[str] = ""


KERNEL_EVENTS: tuple[type[Event], ...] = (
    TableCreated,
    HandStarted,
    TileDrawn,
    TileDiscarded,
    TurnTimedOut,
    AutopilotEnded,
    PenaltyApplied,
    MatchEnded,
    SeatLeft,
    BreakStarted,
    SeatReady,
    SeatDisconnected,
    SeatReconnected,
)
"""The kernel's events, in the order the registry lists them."""


def to_move(event: Event) -> int:
    """The seat that must (or may have to) move after ``event``, -1 for none: the starter after
    a deal, the next seat after a discard, the same seat while its turn goes on. A consumer
    still asks the table whether it really is that seat's turn; this only says whom to ask about."""
    name = event.to_move_field
    seat = getattr(event, name, -1) if name else -1
    return seat if isinstance(seat, int) and seat >= 0 else -1


def gives_turn(event: Event) -> bool:
    """Whether ``event`` hands the turn to the seat :func:`to_move` names (a deal's starter, a
    discard's next seat), rather than naming the seat that acted and whose turn, if it is its
    turn at all, goes on: an indicator shown or pairs declared out of turn [C-IND-1]
    [C-PAIR-1] names a seat that has no turn to play."""
    return event.to_move_field not in ("", SeatEvent.to_move_field)


def played_by_seat(event: Event) -> bool:
    """Whether ``event`` is a move the seat :func:`to_move` names played itself (a draw, a
    show, pairs declared, a 101 opening or addition ...): whoever played it goes on with that
    seat's turn, if it is its turn; nobody else is called to it."""
    return isinstance(event, SeatEvent) and event.played_by_seat

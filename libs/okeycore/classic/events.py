"""The events of classic Okey beyond the kernel's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..kernel.events import Event, HandEnd, SeatEvent

__all__ = ["IndicatorShown", "PairsDeclared", "TurnedToOkey", "HandEnded", "CLASSIC_EVENTS"]


@dataclass(frozen=True, slots=True)
class IndicatorShown(SeatEvent):
    """Göstergeyi göstermek: ``deltas`` are every seat's score change [C-SC-4]."""

    type: ClassVar[str] = "IndicatorShown"
    played_by_seat: ClassVar[bool] = True
    tile: int
    deltas: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PairsDeclared(SeatEvent):
    """Çifte gitmek [C-PAIR-1]."""

    type: ClassVar[str] = "PairsDeclared"
    played_by_seat: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class TurnedToOkey(SeatEvent):
    """Okeye dönmek [C-DON-1]."""

    type: ClassVar[str] = "TurnedToOkey"
    played_by_seat: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class HandEnded(HandEnd):
    """A classic hand is over; every rack and the rest of the deck are public from here on."""

    type: ClassVar[str] = "HandEnded"
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


CLASSIC_EVENTS: tuple[type[Event], ...] = (IndicatorShown, PairsDeclared, TurnedToOkey, HandEnded)

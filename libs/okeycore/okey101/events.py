"""The events of Okey 101 beyond the kernel's, and the melds on the table they carry."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from ..kernel.events import Event, HandEnd, SeatEvent
from ..melds import MeldKind
from ..tiles import Face, parse_face
from .scoring import Opening

__all__ = [
    "TableMeld",
    "MeldsOpened",
    "TileAdded",
    "OkeyTaken",
    "TileReturned",
    "HandEnded101",
    "HandVoided",
    "OKEY101_EVENTS",
]


@lru_cache(maxsize=8192)
def _parse_codes(codes: tuple[str, ...]) -> tuple[Face, ...]:
    return tuple(parse_face(c) for c in codes)


@dataclass(frozen=True, slots=True)
class TableMeld:
    """A meld on the table: who laid it, its kind, its tile ids in position order, and the face
    each tile plays as (``stands_for``, codes such as ``"R11"``: the okey values [M-OKEY-1])."""

    owner: int
    kind: MeldKind
    tiles: tuple[int, ...]
    stands_for: tuple[str, ...]

    @property
    def faces(self) -> tuple[Face, ...]:
        return _parse_codes(self.stands_for)

    @property
    def value(self) -> int:
        """Sum of what the tiles stand for; a 1 after 13 counts 1 [M-RUN-3]."""
        return sum(f.number for f in self.faces)


@dataclass(frozen=True, slots=True)
class MeldsOpened(SeatEvent):
    """Melds laid on the table. ``first``: this is the seat's opening, of kind ``opening``;
    ``value`` is the melds' sum (runs and groups) or the number of pairs."""

    type: ClassVar[str] = "MeldsOpened"
    played_by_seat: ClassVar[bool] = True
    melds: tuple[TableMeld, ...]
    opening: Opening
    first: bool
    value: int


@dataclass(frozen=True, slots=True)
class TileAdded(SeatEvent):
    """A tile added to table meld ``meld`` [O-ADD-1]; ``stands_for`` is the meld's faces after
    (an okey in a group may now stand for another colour)."""

    type: ClassVar[str] = "TileAdded"
    played_by_seat: ClassVar[bool] = True
    tile: int
    meld: int
    at_start: bool
    stands_for: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class OkeyTaken(SeatEvent):
    """``tile`` took the place of ``okey`` in table meld ``meld``; the okey went to the rack [O-OKEY-1]."""

    type: ClassVar[str] = "OkeyTaken"
    played_by_seat: ClassVar[bool] = True
    tile: int
    okey: int
    meld: int
    stands_for: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TileReturned(SeatEvent):
    """A side tile put back where it came from [O-SIDE-2]."""

    type: ClassVar[str] = "TileReturned"
    played_by_seat: ClassVar[bool] = True
    tile: int


@dataclass(frozen=True, slots=True)
class HandEnded101(HandEnd):
    """A 101 hand is over; racks and the rest of the deck are public from here on.

    ``points`` are the hand points [O-SC-1..5] [D-1] [D-2]; ``penalties`` the flat penalties of
    the hand [O-PEN-1..2], already shown as they happened; ``deltas`` = points + penalties, each
    seat's change of its match total; ``totals`` the match totals after the hand; ``chips`` the
    hand prize paid to the finisher [O-DEAL-3]."""

    type: ClassVar[str] = "HandEnded101"
    okey_finish: bool
    pair_finish: bool
    elden: bool
    multiplier: int
    points: tuple[int, ...]
    penalties: tuple[int, ...]
    deltas: tuple[int, ...]
    totals: tuple[int, ...]
    chips: tuple[int, ...]
    racks: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]
    order: tuple[int, ...] = ()  # the hand's deal order and salt, revealed [C-DEAL-3]
    salt: str = ""


@dataclass(frozen=True, slots=True)
class HandVoided(Event):
    """Every seat opened with pairs: the hand does not count, ``penalties`` are erased and the
    same hand is dealt again by the same starter, with no new stake [O-PEN-4]."""

    type: ClassVar[str] = "HandVoided"
    hand: int
    penalties: tuple[int, ...]
    racks: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]
    order: tuple[int, ...] = ()  # the voided deal's order and salt, revealed
    salt: str = ""


OKEY101_EVENTS: tuple[type[Event], ...] = (MeldsOpened, TileAdded, OkeyTaken, TileReturned, HandEnded101, HandVoided)

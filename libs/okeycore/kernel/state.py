"""The state both games keep: the phase of the match, the seats, whose turn it is, the deal."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, Generic, TypeVar, cast

from ..options import TableOptions
from ..tiles import Face, face_of_id, okey_face
from .events import MatchEnded
from .lines import HandBreakdown, ScoreLine

__all__ = ["Phase", "Seat", "TableState", "SeatT", "set_seat", "without", "update"]


class Phase(StrEnum):
    NEW = "NEW"  # created, no hand dealt yet
    PLAYING = "PLAYING"
    HAND_OVER = "HAND_OVER"
    MATCH_OVER = "MATCH_OVER"


@dataclass(frozen=True, slots=True, kw_only=True)
class Seat:
    """What every game keeps of a seat; each game's seat adds its own."""

    rack: tuple[int, ...] = ()
    pile: tuple[int, ...] = ()  # this seat's discards, top last
    score: int = 0
    timeouts: int = 0  # consecutive timed-out turns [C-TIME-2]
    autopilot: bool = False
    left: bool = False  # its player left the match: a bot plays it to the end [D-10]
    disconnected: bool = False  # its person has no connection now, as the edge said [D-11]


SeatT = TypeVar("SeatT", bound=Seat)


@dataclass(frozen=True, slots=True, kw_only=True)
class TableState(Generic[SeatT]):
    """What every game keeps of a table; each game's state adds its own (the turn's stage first)."""

    table_id: str
    options: TableOptions
    seats: tuple[SeatT, ...]
    version: int = 0
    phase: Phase = Phase.NEW
    hand: int = 0
    starter: int = 0
    turn: int = 0
    indicator: int = -1
    deck: tuple[int, ...] = ()
    deadline_ms: int = 0
    timed_out: bool = False
    result: MatchEnded | None = None
    deal_order: tuple[int, ...] = ()  # private until the hand ends [C-DEAL-3]
    deal_salt: str = ""
    players: tuple[str, ...] = ()  # who sits where ("" for a bot seat)
    rules_version: int = 1  # the rules the table was created under (TableCreated)
    break_due_ms: int = 0  # between hands: when the next hand is dealt (0: no break) [P-BREAK-1]
    ready: tuple[int, ...] = ()  # the seats whose person is ready for the next hand [P-BREAK-2]
    last_indicator: int = -1  # the indicator of the last hand that ended, once the next is dealt
    hand_lines: tuple[ScoreLine, ...] = ()  # the score changes of the hand being played, so far
    last_breakdown: HandBreakdown | None = None  # every score change of the last hand that ended

    @property
    def in_break(self) -> bool:
        """Between two hands of a match, waiting for the next deal [P-BREAK-1]."""
        return self.phase is Phase.HAND_OVER and self.break_due_ms > 0

    @property
    def bot_seats(self) -> int:
        """The seats a bot plays now, as a mask (bit i: seat i): no player (an empty seat, a
        duel's side seat, a player who left [D-10]), on autopilot [C-TIME-2], or the seat whose
        turn timed out [C-TIME-1] [D-4]. A disconnected person's seat is not one until its turn
        times out (which puts it on autopilot at once [D-11]). The table keeps it with each event, so the bots know
        whom an event calls without asking the table."""
        mask = 0
        for i, p in enumerate(self.players):
            if not p or self.seats[i].autopilot:
                mask |= 1 << i
        if self.timed_out and self.phase is Phase.PLAYING:
            mask |= 1 << self.turn
        return mask

    @property
    def persons(self) -> tuple[int, ...]:
        """The seats a person plays (not a bot's, not left) [P-BREAK-2]."""
        return tuple(i for i, p in enumerate(self.players) if p and not self.seats[i].left)

    @property
    def okey(self) -> Face:
        return okey_face(face_of_id(self.indicator))

    @property
    def seat_count(self) -> int:
        return len(self.seats)

    def left_of(self, seat: int) -> int:
        """The seat before ``seat`` in turn order [C-SEAT-1]."""
        return (seat - 1) % len(self.seats)

    @property
    def left_of_turn(self) -> int:
        return (self.turn - 1) % len(self.seats)


def set_seat(seats: tuple[SeatT, ...], i: int, seat: SeatT) -> tuple[SeatT, ...]:
    return seats[:i] + (seat,) + seats[i + 1 :]


def without(rack: tuple[int, ...], tile: int) -> tuple[int, ...]:
    """The rack less one tile id (ids are unique)."""
    i = rack.index(tile)
    return rack[:i] + rack[i + 1 :]


T = TypeVar("T")
_COPIERS: dict[type[Any], Callable[[Any, dict[str, Any]], Any]] = {}


def _copier(cls: type[Any]) -> Callable[[Any, dict[str, Any]], Any]:
    """A copy function for one frozen dataclass, written out field by field as ``dataclasses``
    writes ``__init__``: one dict display, no loop over ``fields`` per call."""
    names = [f.name for f in fields(cls)]
    src = "def copy(obj, changes):\n    d = {" + ", ".join(f"{n!r}: obj.{n}" for n in names) + "}\n"
    src += "    d.update(changes)\n    return cls(**d)\n"
    ns: dict[str, Any] = {"cls": cls}
    exec(src, ns)
    copy = cast(Callable[[Any, dict[str, Any]], Any], ns["copy"])
    _COPIERS[cls] = copy
    return copy


def update(obj: T, /, **changes: Any) -> T:
    """``dataclasses.replace`` for the states and seats folded once per event: the same shallow
    copy with ``changes``, at about two thirds of the cost (evolve is the table service's hot path)."""
    copy = _COPIERS.get(type(obj)) or _copier(type(obj))
    return cast(T, copy(obj, changes))

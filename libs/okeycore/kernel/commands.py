"""Commands every table accepts, whatever the game. Seat commands name the acting seat; system
commands come from the table service (deals, timers). ``now_ms`` is the caller's clock: the
engine reads none."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..options import TableOptions

__all__ = [
    "Command",
    "SeatCommand",
    "CreateTable",
    "StartHand",
    "Draw",
    "TakeDiscard",
    "Discard",
    "TimeOut",
    "ForceMove",
    "TakeBack",
    "LeaveSeat",
    "Ready",
    "SetConnection",
]


@dataclass(frozen=True, slots=True)
class Command:
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class SeatCommand(Command):
    """A command a seat sends (a player, a bot, the autopilot): ``seat`` is the acting seat."""

    seat: int = -1


@dataclass(frozen=True, slots=True)
class CreateTable(Command):
    table_id: str = ""
    options: TableOptions = field(default_factory=TableOptions)
    players: tuple[str, ...] = ()  # who sits where ("" for a bot seat); data only, no rule reads it
    public: bool = False  # listed by the lobby (TableCreated.public); data only


@dataclass(frozen=True, slots=True)
class StartHand(Command):
    """Deal from ``order``, a shuffled permutation of the 106 tile ids chosen by the caller.
    ``first_starter`` only matters for the first hand; later hands rotate [C-DEAL-2]."""

    order: tuple[int, ...] = ()
    first_starter: int = 0
    salt: str = ""  # secret mixed into the deal commitment, revealed when the hand ends


@dataclass(frozen=True, slots=True)
class Draw(SeatCommand):
    """Draw the top tile of the deck (orta deste)."""


@dataclass(frozen=True, slots=True)
class TakeDiscard(SeatCommand):
    """Take the left seat's last discard [C-TURN-2] (yandan almak [O-SIDE-1])."""


@dataclass(frozen=True, slots=True)
class Discard(SeatCommand):
    tile: int = -1


@dataclass(frozen=True, slots=True)
class TimeOut(Command):
    """System: the turn's deadline has passed; ``grace_ms`` is how long a bot may still play it."""

    grace_ms: int = 1000


@dataclass(frozen=True, slots=True)
class ForceMove(Command):
    """System: the grace period after a timeout has passed; the table plays the minimal move."""


@dataclass(frozen=True, slots=True)
class TakeBack(SeatCommand):
    """The player takes back a seat that is on autopilot [D-5]."""


@dataclass(frozen=True, slots=True)
class LeaveSeat(SeatCommand):
    """The player leaves the match: a bot plays the seat from now on, for good [C-LEAVE-1] [D-10]."""


@dataclass(frozen=True, slots=True)
class Ready(SeatCommand):
    """The person at the seat is ready for the next hand, during the break [P-BREAK-2]."""


@dataclass(frozen=True, slots=True)
class SetConnection(SeatCommand):
    """The edge (the gateway, a service) tells the table whether the person at the seat has a
    connection: ``connected=False`` after a short grace without one, True when they are back [D-11].
    Not a person's to send; saying the same twice changes nothing (no event)."""

    connected: bool = True

"""The seat commands of Okey 101 beyond the kernel's (draw, take the side tile, discard)."""

from __future__ import annotations

from dataclasses import dataclass

from ..kernel.commands import SeatCommand
from ..melds import MeldKind

__all__ = ["OpenMelds", "AddTile", "TakeOkey", "ReturnSideTile"]


@dataclass(frozen=True, slots=True)
class OpenMelds(SeatCommand):
    """Lay melds on the table (el açmak, per açmak). A seat's first lay-down is its opening: runs
    and groups worth the run threshold [O-OPEN-1], or at least the pair threshold of pairs
    [O-OPEN-2]; later lay-downs need no threshold [O-OPEN-3] and follow [O-ADD-2]. Each meld lists
    tile ids in the order laid out, which fixes what an okey stands for [M-OKEY-1]; ``kinds``
    optionally names each meld's kind (one tile and two okeys can be a run or a group)."""

    melds: tuple[tuple[int, ...], ...] = ()
    kinds: tuple[MeldKind, ...] = ()


@dataclass(frozen=True, slots=True)
class AddTile(SeatCommand):
    """İşleme: add ``tile`` to the run or group ``meld`` (its index on the table) [O-ADD-1].
    ``at_start`` picks the end of a run; None: wherever it fits, the high end first."""

    tile: int = -1
    meld: int = -1
    at_start: bool | None = None


@dataclass(frozen=True, slots=True)
class TakeOkey(SeatCommand):
    """Yerden okey almak: put ``tile`` in place of the okey it stands for in ``meld`` and take
    the okey into the rack [O-OKEY-1]."""

    tile: int = -1
    meld: int = -1


@dataclass(frozen=True, slots=True)
class ReturnSideTile(SeatCommand):
    """Geri bırak: put the side tile back on the left seat's pile [O-SIDE-2]."""

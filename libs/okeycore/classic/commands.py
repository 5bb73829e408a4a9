"""The seat commands of classic Okey beyond the kernel's (draw, take the side tile, discard)."""

from __future__ import annotations

from dataclasses import dataclass

from ..kernel.commands import SeatCommand

__all__ = ["Finish", "ShowIndicator", "DeclarePairs", "TurnToOkey", "Pass"]


@dataclass(frozen=True, slots=True)
class Finish(SeatCommand):
    """Finish (bitmek) by placing ``tile`` in the centre; ``arrangement`` optionally proposes the
    melds or pairs of the other tiles, as tile ids [C-FIN-4]."""

    tile: int = -1
    arrangement: tuple[tuple[int, ...], ...] | None = None


@dataclass(frozen=True, slots=True)
class ShowIndicator(SeatCommand):
    """Göstergeyi göstermek [C-IND-1]."""


@dataclass(frozen=True, slots=True)
class DeclarePairs(SeatCommand):
    """Çifte gitmek [C-PAIR-1]."""


@dataclass(frozen=True, slots=True)
class TurnToOkey(SeatCommand):
    """Okeye dönmek [C-DON-1]."""


@dataclass(frozen=True, slots=True)
class Pass(SeatCommand):
    """Decline the last chance to finish with the side tile [C-DECK-3]."""

"""Dealing, with the hand sizes as data: who gets how many tiles, the indicator, the deck."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..tiles import TILE_COUNT

__all__ = ["DealSpec", "deal", "is_full_order"]


@dataclass(frozen=True, slots=True)
class DealSpec:
    """The starter's tiles and every other seat's: classic 15/14 [C-DEAL-1], 101 22/21 [O-DEAL-1]."""

    starter_tiles: int
    other_tiles: int

    def sizes(self, seats: int) -> tuple[int, ...]:
        """Tiles dealt in turn order from the starter."""
        return (self.starter_tiles,) + (self.other_tiles,) * (seats - 1)


def deal(
    order: Sequence[int], starter: int, seats: int, spec: DealSpec
) -> tuple[tuple[tuple[int, ...], ...], int, tuple[int, ...]]:
    """Deal ``order`` in turn order from the starter, then the first tile that is not a fake
    okey is the indicator [T-IND-1]; the rest is the deck, top first."""
    racks: list[tuple[int, ...]] = [()] * seats
    pos = 0
    for k, n in enumerate(spec.sizes(seats)):
        racks[(starter + k) % seats] = tuple(order[pos : pos + n])
        pos += n
    rest = list(order[pos:])
    idx = next(i for i, t in enumerate(rest) if t < 104)
    indicator = rest.pop(idx)
    return tuple(racks), indicator, tuple(rest)


def is_full_order(order: object) -> bool:
    """Each of the 106 tile ids exactly once (1.0 and True would pass for tile 1: they do not)."""
    return (
        isinstance(order, Sequence)
        and len(order) == TILE_COUNT
        and all(type(t) is int for t in order)
        and set(order) == set(range(TILE_COUNT))
    )

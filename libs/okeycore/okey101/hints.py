"""A 101 seat's hints, from its own view only (RULES.md section 7): the best run and pair
openings of the rack, and per tile whether discarding it is penalised (!), whether it can be added
to a table meld (+) and whether it can take an okey back (<->)."""

from __future__ import annotations

from dataclasses import dataclass

from .openings import OpeningPreview, pair_opening, run_opening
from .scoring import Opening
from .table_melds import fits_table, penalty_reason, take_option
from .view import SeatView101

__all__ = ["OpeningPreview", "TileHint", "Hints", "hints", "run_opening", "pair_opening"]


@dataclass(frozen=True, slots=True)
class TileHint:
    """Per rack tile: ``penalised`` (!) discarding it costs a penalty [O-PEN-1..3]; ``addable``
    (+) it fits a run or group on the table; ``takes_okey`` (<->) it can take an okey back."""

    tile: int
    penalised: bool
    addable: bool
    takes_okey: bool


@dataclass(frozen=True, slots=True)
class Hints:
    runs: OpeningPreview
    pairs: OpeningPreview
    tiles: tuple[TileHint, ...]


def hints(v: SeatView101) -> Hints:
    """The seat's hints, computed from its own view only."""
    ind = v.indicator
    wrap = v.options.wrap
    rack = v.rack
    opened = v.seat is not None and v.seats[v.seat].opening is not Opening.NONE  # no threshold any more [O-OPEN-3]
    runs = run_opening(rack, ind, wrap, 1 if opened else v.run_threshold)
    pairs = pair_opening(rack, ind, 1 if opened else v.pair_threshold)
    out = []
    for t in rack:
        addable = fits_table(v.melds, t, ind, wrap)
        penalised = penalty_reason(t, len(rack), v.melds, ind, v.options, v.rules_version) is not None  # [O-PEN-1..3]
        takes = any(take_option(m, t, ind) is not None for m in v.melds)
        out.append(TileHint(t, penalised, addable, takes))
    return Hints(runs, pairs, tuple(out))

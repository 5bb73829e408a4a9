"""A 101 seat's hints, from its own view only (RULES.md section 7): the best run and pair
openings of the rack, and per tile whether discarding it is penalised (!), whether it can be added
to a table meld (+) and whether it can take an okey back (<->)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..melds import MeldKind
from .openings import OpeningPreview, pair_opening, run_opening
from .scoring import Opening
from .table_melds import add_options, penalty_reason, take_option
from .view import SeatView101

__all__ = ["OpeningPreview", "TileHint", "MeldFit", "Hints", "hints", "run_opening", "pair_opening"]


@dataclass(frozen=True, slots=True)
class MeldFit:
    """A place a tile can be added: table meld ``meld`` (its index), at its start or its end."""

    meld: int
    at_start: bool


@dataclass(frozen=True, slots=True)
class TileHint:
    """Per rack tile: ``penalised`` (!) discarding it costs a penalty [O-PEN-1..3]; ``addable``
    (+) it fits a run or group on the table, at ``add_to`` [O-ADD-1]; ``takes_okey`` (<->) it
    can take an okey back, from the melds ``take_from`` [O-OKEY-1]. The client shows the meld
    controls from these (it does not decide fits itself)."""

    tile: int
    penalised: bool
    addable: bool
    takes_okey: bool
    add_to: tuple[MeldFit, ...] = ()
    take_from: tuple[int, ...] = ()


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
    # What the seat's opening forbids it to lay is never offered as enough [O-ADD-2]: a pair
    # opener lays no runs or groups; a run opener lays pairs once pairs are open on the table.
    opening = v.seats[v.seat].opening if v.seat is not None else Opening.NONE
    if opening is Opening.PAIRS and runs.enough:
        runs = replace(runs, enough=False)
    if opening is Opening.RUNS and pairs.enough and not any(m.kind is MeldKind.PAIR for m in v.melds):
        pairs = replace(pairs, enough=False)
    out = []
    for t in rack:
        add_to = tuple(
            MeldFit(i, at_start) for i, m in enumerate(v.melds) for at_start, _ in add_options(m, t, ind, wrap)
        )
        penalised = penalty_reason(t, len(rack), v.melds, ind, v.options, v.rules_version) is not None  # [O-PEN-1..3]
        take_from = tuple(i for i, m in enumerate(v.melds) if take_option(m, t, ind) is not None)
        out.append(TileHint(t, penalised, bool(add_to), bool(take_from), add_to, take_from))
    return Hints(runs, pairs, tuple(out))

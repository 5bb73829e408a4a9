"""A classic seat's hints, from its own view only (RULES.md section 7): "Seri Diz" (most tiles in
runs and groups), "Çift Diz" (most pairs), and which tiles finish the hand now."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .. import melds as M
from ..racks import Arrangement, effective_table, rack_packed
from .finish import arrangement_ids, finishing_tiles
from .view import SeatView

__all__ = ["Arrangement", "TileHint", "Hints", "hints"]


@dataclass(frozen=True, slots=True)
class TileHint:
    """Per rack tile: ``finishes``, placing it in the centre finishes the hand now."""

    tile: int
    finishes: bool
    penalised: bool = False
    addable: bool = False
    takes_okey: bool = False


@dataclass(frozen=True, slots=True)
class Hints:
    runs: Arrangement
    pairs: Arrangement
    tiles: tuple[TileHint, ...]


def _arrangement(melds: Sequence[M.Meld], rack: Sequence[int], indicator: int, total: int, enough: bool) -> Arrangement:
    """``values`` are each meld's size; ``total`` the tiles covered (or the pairs)."""
    return Arrangement(
        melds=arrangement_ids(melds, rack, indicator),
        kinds=tuple(m.kind for m in melds),
        stands_for=tuple(tuple(str(f) for f in m.stands_for) for m in melds),
        values=tuple(len(m) for m in melds),
        total=total,
        enough=enough,
    )


def hints(v: SeatView) -> Hints:
    """The seat's hints, from its own view only: Seri Diz, Çift Diz, and which tiles finish."""
    rack = v.rack
    if v.seat is None or not rack or v.indicator < 0:
        empty = Arrangement((), (), (), (), 0, False)
        return Hints(empty, empty, ())
    x, j = rack_packed(rack, v.indicator)
    covered, melds = M.best_cover(x, j, True)
    runs = _arrangement(melds, rack, v.indicator, covered, covered >= 14)
    pair_list = M.pair_melds(x, j)
    pairs = _arrangement(pair_list, rack, v.indicator, len(pair_list), len(pair_list) >= 7)
    finishing: set[int] = set()
    if len(rack) == 15:
        table = effective_table(v.indicator)
        faces = {table[t] for t in finishing_tiles(rack, v.indicator)}
        finishing = {t for t in rack if table[t] in faces}
    return Hints(runs, pairs, tuple(TileHint(t, t in finishing) for t in rack))

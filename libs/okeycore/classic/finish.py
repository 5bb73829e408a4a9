"""Does a classic rack finish, and with which tile: the solver asked about 14 or 15 tile ids."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .. import melds as M
from ..racks import effective_table, ids_for, rack_packed
from ..tiles import face_from_index

__all__ = ["FinishCheck", "check_finish", "finishing_tiles", "arrangement_ids"]


@dataclass(frozen=True, slots=True)
class FinishCheck:
    arrangement: tuple[tuple[int, ...], ...]
    pairs: bool


def arrangement_ids(melds: Sequence[M.Meld], tiles: Sequence[int], indicator: int) -> tuple[tuple[int, ...], ...]:
    """Solver melds as the rack's tile ids; of two copies the later one in the rack first (as
    every stored classic arrangement has it)."""
    return ids_for(melds, tuple(reversed(tiles)), indicator)


def check_finish(
    tiles: Sequence[int],
    indicator: int,
    pairs_only: bool = False,
    proposed: tuple[tuple[int, ...], ...] | None = None,
) -> FinishCheck | None:
    """Do these 14 tiles finish, by runs and groups [C-FIN-1] or by seven pairs [C-FIN-2]?
    A proposed arrangement is used when valid [C-FIN-4]; otherwise the solver finds one,
    preferring seven pairs (which score double)."""
    if proposed is not None:
        got = _check_proposed(tiles, indicator, proposed, pairs_only)
        if got is not None:
            return got
    x, j = rack_packed(tiles, indicator)
    if M.count_pairs(x, j) >= 7:
        return FinishCheck(arrangement_ids(M.pair_melds(x, j), tiles, indicator), True)
    if pairs_only:
        return None
    if not M.can_cover(x, j, 0, True):
        return None
    _, melds = M.best_cover(x, j, True)
    return FinishCheck(arrangement_ids(melds, tiles, indicator), False)


def _check_proposed(
    tiles: Sequence[int], indicator: int, proposed: tuple[tuple[int, ...], ...], pairs_only: bool
) -> FinishCheck | None:
    try:
        melds = tuple(tuple(meld) for meld in proposed)
    except TypeError:
        return None  # not a list of melds: the server finds an arrangement itself
    flat = [t for meld in melds for t in meld]
    if any(type(t) is not int for t in flat) or sorted(flat) != sorted(tiles):
        return None
    table = effective_table(indicator)
    kinds = set()
    for meld in melds:
        eff = [None if table[t] < 0 else face_from_index(table[t]) for t in meld]
        try:
            kinds.add(M.interpret_meld(eff, True).kind)
        except M.MeldError:
            return None
    if kinds == {M.MeldKind.PAIR} and len(melds) == 7:
        return FinishCheck(melds, True)
    if M.MeldKind.PAIR not in kinds and not pairs_only:
        return FinishCheck(melds, False)
    return None


def finishing_tiles(rack: Sequence[int], indicator: int, pairs_only: bool = False) -> list[int]:
    """Which tiles of a 15-tile rack can be placed in the centre to finish (one id per face)."""
    x, j = rack_packed(rack, indicator)
    melds_ok = not pairs_only and M.can_cover(x, j, 1, True)
    if not melds_ok and M.count_pairs(x, j) < 7:
        return []
    out = []
    seen: set[int] = set()
    table = effective_table(indicator)
    for t in rack:
        e = table[t]
        if e in seen:
            continue
        seen.add(e)
        y, k = (x, j - 1) if e < 0 else (x - (1 << (2 * e)), j)
        if M.count_pairs(y, k) >= 7 or (melds_ok and M.can_cover(y, k, 0, True)):
            out.append(t)
    return out

"""Tile ids and the solver, for both games: what each id plays as under an indicator, a rack
packed for ``melds``, solver melds turned back into the rack's ids, and the arrangement a seat
is shown ("Seri Diz" / "Çift Diz")."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from . import melds as M
from .tiles import TILE_COUNT, Face, effective_face, face_from_index, face_of_id, okey_face

__all__ = ["effective_table", "effective", "is_real_okey", "rack_packed", "ids_for", "Arrangement"]

_EFF: dict[int, tuple[int, ...]] = {}


def effective_table(indicator: int) -> tuple[int, ...]:
    """tile id -> effective face index (-1 for a wild okey) under this indicator, cached."""
    table = _EFF.get(indicator)
    if table is None:
        okey = okey_face(face_of_id(indicator))
        out = []
        for tid in range(TILE_COUNT):
            eff = effective_face(face_of_id(tid), okey)
            out.append(-1 if eff is None else eff.index)
        table = _EFF[indicator] = tuple(out)
    return table


def effective(tile: int, indicator: int) -> Face | None:
    """What a tile plays as: None for a real okey, the okey's face for a fake [T-FAKE-1]."""
    e = effective_table(indicator)[tile]
    return None if e < 0 else face_from_index(e)


def is_real_okey(tile: int, indicator: int) -> bool:
    return effective_table(indicator)[tile] < 0


def rack_packed(tiles: Iterable[int], indicator: int) -> M.Packed:
    """Solver state of a set of tile ids under an indicator."""
    table = effective_table(indicator)
    x = 0
    j = 0
    for t in tiles:
        e = table[t]
        if e < 0:
            j += 1
        else:
            x += 1 << (2 * e)
    return x, j


def ids_for(
    melds: Sequence[M.Meld], rack: Sequence[int], indicator: int, prefer: int = -1
) -> tuple[tuple[int, ...], ...]:
    """Solver melds as the rack's tile ids in position order: of two copies of a face the one
    earlier in ``rack`` first, ``prefer`` (used for its face, or as the okey) before any twin."""
    table = effective_table(indicator)
    pool: dict[int, list[int]] = {}
    for t in rack:
        if t != prefer:
            pool.setdefault(table[t], []).append(t)
    if prefer >= 0:
        pool.setdefault(table[prefer], []).insert(0, prefer)
    out = []
    for meld in melds:
        out.append(tuple(pool[-1 if j else f.index].pop(0) for f, j in zip(meld.stands_for, meld.jokers, strict=True)))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Arrangement:
    """Melds of a rack a seat is shown: tile ids per meld in position order, each meld's kind,
    what each tile stands for, a value per meld, the total, and whether it is enough (to finish
    in classic Okey, to open in 101)."""

    melds: tuple[tuple[int, ...], ...]
    kinds: tuple[M.MeldKind, ...]
    stands_for: tuple[tuple[str, ...], ...]
    values: tuple[int, ...]
    total: int
    enough: bool

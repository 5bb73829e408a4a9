"""Test oracles written from the rules text alone, independently of the engine: what a meld is,
and which ints of an event or view name tiles. The table driver and scripted deals are the
library's (``okeycore.testing``)."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterator, Sequence

from okeycore.tiles import Face, face_of_id


def tile_ids(obj: object) -> Iterator[int]:
    """Every int in an event or view that names a tile (fields called tile/tiles/rack/racks/
    pile/deck/order/arrangement/indicator/final_tile), recursively."""
    names = {"tile", "rack", "racks", "pile", "deck", "order", "arrangement", "indicator", "final_tile", "side_tile"}
    yield from _walk(obj, names, False)


def _walk(obj: object, names: set[str], inside: bool) -> Iterator[int]:
    if isinstance(obj, bool | enum.Enum | str) or obj is None:
        return
    if isinstance(obj, int):
        if inside and obj >= 0:
            yield obj
        return
    if isinstance(obj, tuple | list):
        for x in obj:
            yield from _walk(x, names, inside)
        return
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from _walk(getattr(obj, f.name), names, inside or f.name in names)


def faces_by_code(rack: Sequence[int]) -> dict[str, list[int]]:
    """Tile code -> the ids of that face in a rack."""
    out: dict[str, list[int]] = {}
    for t in rack:
        out.setdefault(str(face_of_id(t)), []).append(t)
    return out


def meld_kind(ids: Sequence[int], indicator: int, wrap: bool = True) -> str | None:
    """RUN, GROUP or PAIR if the tiles form one (in any order), else None. Written from the
    rules text alone, independently of the solver: an okey fills any one place [T-OKEY-2],
    a fake okey is the okey's face [T-FAKE-1], 12-13-1 but never 13-1-2 [M-RUN-2]."""
    okey = face_of_id(indicator).next()
    reals: list[Face] = []
    jokers = 0
    for t in ids:
        f = face_of_id(t)
        if f == okey:
            jokers += 1
        else:
            reals.append(okey if f.is_fake else f)
    n = len(ids)
    if n == 2:
        return "PAIR" if jokers or reals[0] == reals[1] else None
    if n < 3 or not reals:
        return None
    if n <= 4 and len({f.number for f in reals}) == 1 and len({f.colour for f in reals}) == len(reals):
        return "GROUP"
    if len({f.colour for f in reals}) != 1:
        return None
    for s in range(1, 15):
        e = s + n - 1
        if e > 14 or (e == 14 and (not wrap or s < 2)):
            continue
        window = [p if p <= 13 else 1 for p in range(s, e + 1)]
        if sorted(window) != sorted(set(window)):
            continue
        nums = [f.number for f in reals]
        if len(set(nums)) == len(nums) and set(nums) <= set(window):
            return "RUN"
    return None

"""Melds on a 101 table: where a tile can be added (işleme), which okey it can take back, and
which discards cost a penalty."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .. import melds as M
from ..melds import MeldKind
from ..options import RULES_VERSION, TableOptions
from ..racks import effective, is_real_okey
from ..tiles import Colour, Face
from .events import TableMeld

__all__ = [
    "codes",
    "add_options",
    "take_option",
    "group_needs_fourth",
    "fits_table",
    "takes_okey_back",
    "penalty_reason",
    "arrange",
]


def codes(faces: Iterable[Face]) -> tuple[str, ...]:
    return tuple(str(f) for f in faces)


def add_options(meld: TableMeld, tile: int, indicator: int, wrap: bool) -> list[tuple[bool, tuple[str, ...]]]:
    """Where ``tile`` can be added to ``meld`` [O-ADD-1]: ``(at_start, the meld's faces after)``,
    the high end of a run first. Pairs take no tiles."""
    eff = effective(tile, indicator)
    faces = meld.faces
    if meld.kind is MeldKind.GROUP:
        if len(faces) >= 4:
            return []
        n = faces[0].number
        jokers = [is_real_okey(t, indicator) for t in meld.tiles]
        used = {f.colour for f, j in zip(faces, jokers, strict=True) if not j}
        if eff is not None:
            if eff.number != n or eff.colour in used:
                return []
            used.add(eff.colour)
        # Okeys stand for the missing colours in colour order, as melds.interpret_meld reads a group.
        free = iter([c for c in Colour if c not in used])
        after = [Face(next(free), n) if j else f for f, j in zip(faces, jokers, strict=True)]
        after.append(eff if eff is not None else Face(next(free), n))
        return [(False, codes(after))]
    if meld.kind is not MeldKind.RUN:
        return []
    colour = faces[0].colour
    assert colour is not None
    start = faces[0].number  # a run never starts with a 1 that follows 13, so positions are start..end
    end = start + len(faces) - 1
    out: list[tuple[bool, tuple[str, ...]]] = []
    if end <= 12 or (end == 13 and wrap and start >= 2):  # 13-1 only at the end [M-RUN-2]
        f = Face(colour, end + 1 if end <= 12 else 1)
        if eff is None or eff == f:
            out.append((False, meld.stands_for + (str(f),)))
    if start >= 2:
        f = Face(colour, start - 1)
        if eff is None or eff == f:
            out.append((True, (str(f), *meld.stands_for)))
    return out


def take_option(meld: TableMeld, tile: int, indicator: int) -> tuple[int, tuple[str, ...]] | None:
    """The okey ``tile`` can take back from ``meld``, and the meld's faces after, or None
    [O-OKEY-1]. In a group the okey must stand for the only missing colours of a full group."""
    eff = effective(tile, indicator)
    if eff is None:
        return None
    okeys = [i for i, t in enumerate(meld.tiles) if is_real_okey(t, indicator)]
    if not okeys:
        return None
    faces = meld.faces
    if meld.kind is MeldKind.PAIR and len(okeys) == 2:
        return meld.tiles[0], (str(eff), str(eff))  # two okeys stand for each other [M-PAIR-1]
    if meld.kind is MeldKind.GROUP and len(faces) < 4:
        return None  # add the fourth colour first [O-OKEY-1]
    for i in okeys:
        if faces[i] == eff:
            return meld.tiles[i], meld.stands_for
    return None


def group_needs_fourth(meld: TableMeld, tile: int, indicator: int) -> bool:
    """``tile`` would take the okey of this 3-tile group once its fourth colour is added [O-OKEY-1]."""
    eff = effective(tile, indicator)
    if meld.kind is not MeldKind.GROUP or len(meld.tiles) != 3 or eff is None:
        return False
    if not any(is_real_okey(t, indicator) for t in meld.tiles):
        return False
    reals = {effective(t, indicator) for t in meld.tiles if not is_real_okey(t, indicator)}
    return eff.number == meld.faces[0].number and all(r is not None and r.colour != eff.colour for r in reals)


def fits_table(melds: Sequence[TableMeld], tile: int, indicator: int, wrap: bool) -> bool:
    """Could ``tile`` be added to some run or group on the table? [O-PEN-1]"""
    return any(add_options(m, tile, indicator, wrap) for m in melds)


def takes_okey_back(melds: Sequence[TableMeld], tile: int, indicator: int) -> bool:
    """Could ``tile`` take an okey back from a meld on the table, now or once a group's fourth
    colour is added? [O-OKEY-1]"""
    return any(take_option(m, tile, indicator) is not None or group_needs_fourth(m, tile, indicator) for m in melds)


def penalty_reason(
    tile: int,
    rack_size: int,
    melds: Sequence[TableMeld],
    indicator: int,
    options: TableOptions,
    rules_version: int = RULES_VERSION,
) -> str | None:
    """Why discarding ``tile`` from a rack of ``rack_size`` tiles costs 101, or None: a real okey
    [O-PEN-2] (once, not also [O-PEN-1]), else a tile that fits a table meld or could take an okey
    back from one (işleme, source 003) [O-PEN-1]; the finishing tile is exempt [O-PEN-3]. Tables
    created under rules version 1 did not penalise the okey take-back."""
    if rack_size == 1:
        return None
    if is_real_okey(tile, indicator):
        return "OKEY_DISCARDED"
    if not options.discard_penalty:
        return None
    if fits_table(melds, tile, indicator, options.wrap):
        return "ADDABLE_TILE_DISCARDED"
    if rules_version >= 2 and takes_okey_back(melds, tile, indicator):
        return "OKEY_TAKER_DISCARDED"
    return None


def arrange(tiles: Sequence[int], meld: M.Meld, indicator: int) -> tuple[int, ...]:
    """Order tile ids to match ``meld.stands_for`` position by position."""
    okeys = [t for t in tiles if is_real_okey(t, indicator)]
    reals = [t for t in tiles if not is_real_okey(t, indicator)]
    out = []
    for face, joker in zip(meld.stands_for, meld.jokers, strict=True):
        if joker:
            out.append(okeys.pop(0))
        else:
            t = next(t for t in reals if effective(t, indicator) == face)
            reals.remove(t)
            out.append(t)
    return tuple(out)

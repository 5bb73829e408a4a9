"""The side tile of a 101 turn (yandan almak): how a seat can still lay it [O-SIDE-2]."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from .. import melds as M
from ..kernel.commands import Command
from ..melds import MeldKind
from ..racks import effective
from ..tiles import Face, face_of_id
from .commands import AddTile, OpenMelds, TakeOkey
from .scoring import Opening
from .state import PAIR_OPENER_ADDS, Okey101State
from .table_melds import add_options, arrange, take_option

__all__ = ["side_use", "side_first"]


def side_first(state: Okey101State, tile: int, laid: Sequence[int] = ()) -> int:
    """Copies of a face are interchangeable in play: a move that names the twin of the unused
    side tile (and not the side tile itself) lays the side tile, which so counts as used
    [O-SIDE-2]; the twin stays in the rack."""
    side = state.side_tile
    if state.side_unused and tile != side and side not in laid and face_of_id(tile) == face_of_id(side):
        return side
    return tile


def side_use(state: Okey101State) -> Command | None:
    """A move that lays the turn's unused side tile now, or None: an add or an okey take-back
    (within a pair opener's allowance [O-ADD-3]), or a new pair or meld with rack tiles
    [O-ADD-2]. An unopened seat uses it only in its opening, which this does not search."""
    if not state.side_unused:
        return None
    seat = state.turn
    me = state.seats[seat]
    tile = state.side_tile
    ind = state.indicator
    wrap = state.options.wrap
    if me.opening is Opening.NONE:
        return None
    runs_ok = me.opening is Opening.RUNS or state.run_adds < PAIR_OPENER_ADDS
    for i, meld in enumerate(state.melds):
        if meld.kind is not MeldKind.PAIR and not runs_ok:
            continue
        if len(me.rack) > 1 and add_options(meld, tile, ind, wrap):
            return AddTile(seat=seat, tile=tile, meld=i)
        if take_option(meld, tile, ind) is not None:
            return TakeOkey(seat=seat, tile=tile, meld=i)
    others = [t for t in me.rack if t != tile]
    pairs_ok = me.opening is Opening.PAIRS or any(m.kind is MeldKind.PAIR for m in state.melds)
    if pairs_ok and len(me.rack) >= 3:
        face = effective(tile, ind)
        for t in others:
            e = effective(t, ind)
            if face is None or e is None or e == face:
                return OpenMelds(seat=seat, melds=((tile, t),))
    if me.opening is Opening.RUNS and len(me.rack) >= 4:
        face = effective(tile, ind)
        near = [t for t in others if _near(face, effective(t, ind))]
        for a, b in combinations(near, 2):
            try:
                new = M.interpret_meld([face, effective(a, ind), effective(b, ind)], wrap)
            except M.MeldError:
                continue
            if new.kind is not MeldKind.PAIR:
                return OpenMelds(seat=seat, melds=(arrange((tile, a, b), new, ind),), kinds=(new.kind,))
    return None


def _near(f: Face | None, g: Face | None) -> bool:
    """Could two tiles share a run or a group?"""
    return f is None or g is None or f.number == g.number or f.colour == g.colour

"""The openings a 101 rack could lay (el açmak): the best runs and groups, and the most pairs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .. import melds as M
from ..melds import MeldKind
from ..racks import Arrangement, ids_for, rack_packed
from ..tiles import face_of_id, okey_face
from .commands import OpenMelds
from .table_melds import codes

__all__ = ["OpeningPreview", "run_opening", "pair_opening"]


@dataclass(frozen=True, slots=True)
class OpeningPreview(Arrangement):
    """An opening the rack could lay now ("Seri Diz" / "Çift Diz"): tile ids per meld in position
    order, what each tile stands for, each meld's value, the total (points, or pairs), and
    whether it reaches this seat's threshold."""

    def command(self, seat: int) -> OpenMelds:
        return OpenMelds(seat=seat, melds=self.melds, kinds=self.kinds)


def run_opening(rack: Sequence[int], indicator: int, wrap: bool, threshold: int, prefer: int = -1) -> OpeningPreview:
    """The highest-valued runs and groups of ``rack`` that leave a tile for the discard
    [O-OPEN-1] [O-OPEN-5]; ``prefer`` is laid rather than its twin where its face is used."""
    x, j = rack_packed(rack, indicator)
    total, melds = M.best_points(x, j, wrap, okey_face(face_of_id(indicator)), must_leave=True)
    if total <= 0:
        return OpeningPreview((), (), (), (), 0, False)
    return OpeningPreview(
        ids_for(melds, rack, indicator, prefer),
        tuple(m.kind for m in melds),
        tuple(codes(m.stands_for) for m in melds),
        tuple(m.value for m in melds),
        total,
        total >= threshold,
    )


def pair_opening(rack: Sequence[int], indicator: int, threshold: int, prefer: int = -1) -> OpeningPreview:
    """The most pairs of ``rack`` that leave a tile for the discard [O-OPEN-2] [O-OPEN-5]."""
    x, j = rack_packed(rack, indicator)
    melds = M.pair_melds(x, j)[: (len(rack) - 1) // 2]
    n = len(melds)
    return OpeningPreview(
        ids_for(melds, rack, indicator, prefer),
        (MeldKind.PAIR,) * n,
        tuple(codes(m.stands_for) for m in melds),
        tuple(m.value for m in melds),
        n,
        n >= threshold and n > 0,
    )

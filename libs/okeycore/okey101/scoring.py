"""Okey 101 scoring: what a hand's end is worth to each seat, and who wins the match.

Pure functions of tiles and openings; the game flow (``rules``) decides when they apply.
Scores are penalty points: lower is better (RULES.md section 4.6).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from ..tiles import effective_face, face_of_id, okey_face

__all__ = [
    "Opening",
    "FINISH_POINTS",
    "UNOPENED_POINTS",
    "OKEY_POINTS",
    "FLAT_PENALTY",
    "HandScore",
    "tile_points",
    "rack_points",
    "finish_multiplier",
    "score_finish",
    "score_exhausted",
    "match_winners",
]

FINISH_POINTS = -101
"""A normal finish [O-SC-1]."""
UNOPENED_POINTS = 202
"""A seat that never opened [O-SC-3]."""
OKEY_POINTS = 101
"""A real okey left in an opened seat's hand [O-SC-4] [D-7]."""
FLAT_PENALTY = 101
"""An addable tile or a real okey discarded [O-PEN-1] [O-PEN-2]."""


class Opening(StrEnum):
    """How a seat opened its hand (el açmak) this hand."""

    NONE = "NONE"
    RUNS = "RUNS"  # seri açmak [O-OPEN-1]
    PAIRS = "PAIRS"  # çift açmak [O-OPEN-2]


@dataclass(frozen=True, slots=True)
class HandScore:
    """Each seat's hand points (flat penalties excluded) and what made the multiplier."""

    points: tuple[int, ...]
    multiplier: int
    okey_finish: bool
    pair_finish: bool
    elden: bool


def tile_points(tile: int, indicator: int) -> int:
    """A tile left in an opened hand: its number; a real okey 101 [O-SC-4] [D-7]; a fake okey the
    number of the okey's face [T-FAKE-1]."""
    okey = okey_face(face_of_id(indicator))
    eff = effective_face(face_of_id(tile), okey)
    return OKEY_POINTS if eff is None else eff.number


def rack_points(rack: Sequence[int], indicator: int) -> int:
    return sum(tile_points(t, indicator) for t in rack)


def _remaining(rack: Sequence[int], opening: Opening, indicator: int) -> int:
    if opening is Opening.NONE:
        return UNOPENED_POINTS  # [O-SC-3]
    total = rack_points(rack, indicator)  # [O-SC-4]
    return 2 * total if opening is Opening.PAIRS else total  # [O-SC-5]


def finish_multiplier(okey_finish: bool, pair_finish: bool, elden: bool) -> int:
    """x2 for finishing with an okey, x2 as a pair opener [O-SC-1], x2 again for elden [O-SC-2]."""
    mult = 1
    for flag in (okey_finish, pair_finish, elden):
        if flag:
            mult *= 2
    return mult


def score_finish(
    finisher: int,
    final_tile: int,
    racks: Sequence[Sequence[int]],
    openings: Sequence[Opening],
    indicator: int,
    elden: bool,
) -> HandScore:
    """Someone discarded their last tile. ``racks`` are the racks after that discard (the
    finisher's is empty). The multiplier also multiplies every other seat's points [D-1]."""
    okey_finish = effective_face(face_of_id(final_tile), okey_face(face_of_id(indicator))) is None
    pair_finish = openings[finisher] is Opening.PAIRS
    mult = finish_multiplier(okey_finish, pair_finish, elden)
    points = tuple(
        FINISH_POINTS * mult if s == finisher else _remaining(racks[s], openings[s], indicator) * mult
        for s in range(len(racks))
    )
    return HandScore(points, mult, okey_finish, pair_finish, elden)


def score_exhausted(racks: Sequence[Sequence[int]], openings: Sequence[Opening], indicator: int) -> tuple[int, ...]:
    """The deck ran out with no finisher: [O-SC-3..5] for every seat, no multiplier [D-2]."""
    return tuple(_remaining(racks[s], openings[s], indicator) for s in range(len(racks)))


def match_winners(totals: Sequence[int]) -> tuple[int, ...]:
    """Lowest total penalty wins; equal lowest share the win [O-DEAL-3]."""
    best = min(totals)
    return tuple(s for s, t in enumerate(totals) if t == best)

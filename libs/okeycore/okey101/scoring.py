"""Okey 101 scoring: what a hand's end is worth to each seat, and who wins the match.

Pure functions of tiles and openings; the game flow (``rules``) decides when they apply.
Scores are penalty points: lower is better (RULES.md section 4.6).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from ..kernel.lines import ScoreLine
from ..tiles import effective_face, face_of_id, okey_face

__all__ = [
    "Opening",
    "FINISH_POINTS",
    "UNOPENED_POINTS",
    "OKEY_POINTS",
    "FLAT_PENALTY",
    "LINE_REASONS",
    "HandScore",
    "tile_points",
    "rack_points",
    "finish_multiplier",
    "score_finish",
    "score_exhausted",
    "seat_lines",
    "hand_lines",
    "penalty_line",
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


LINE_REASONS: tuple[str, ...] = (
    "FINISHED",  # this seat finished: -101 x the multiplier [O-SC-1] [O-SC-2]
    "NOT_OPENED",  # never opened: 202 (x the multiplier [D-1]) [O-SC-3]
    "TILES_LEFT",  # opened: the tiles left in hand, okeys aside [O-SC-4] [D-1]
    "PAIRS_TILES_LEFT",  # opened with pairs: the tiles left, doubled [O-SC-5]
    "OKEY_HELD",  # a real okey left in an opened hand: 101 each [O-SC-4] [D-7]
    "HAND_POINTS",  # a hand's points these rules would not split (an older table's)
    "ADDABLE_TILE_DISCARDED",  # a penalty: +101 [O-PEN-1]
    "OKEY_TAKER_DISCARDED",  # a penalty: +101 [O-PEN-1]
    "OKEY_DISCARDED",  # a penalty: +101 [O-PEN-2]
)
"""Every reason a 101 hand's breakdown line may give (``kernel.lines``)."""


def seat_lines(
    seat: int, rack: Sequence[int], opening: Opening, indicator: int, multiplier: int
) -> tuple[ScoreLine, ...]:
    """What a seat that did not finish scores at the hand's end, times ``multiplier`` [D-1]: 202
    unopened [O-SC-3]; opened, the tiles left [O-SC-4] (doubled for a pair opener [O-SC-5]), a
    real okey among them on a line of its own (101 each [D-7])."""
    if opening is Opening.NONE:
        return (ScoreLine(seat, UNOPENED_POINTS * multiplier, "NOT_OPENED"),)
    factor = (2 if opening is Opening.PAIRS else 1) * multiplier
    okeys = [t for t in rack if tile_points(t, indicator) == OKEY_POINTS]  # no tile's number is 101
    rest = [t for t in rack if tile_points(t, indicator) != OKEY_POINTS]
    lines = []
    if rest or not okeys:
        why = "PAIRS_TILES_LEFT" if opening is Opening.PAIRS else "TILES_LEFT"
        lines.append(ScoreLine(seat, rack_points(rest, indicator) * factor, why, len(rest)))
    if okeys:
        lines.append(ScoreLine(seat, OKEY_POINTS * len(okeys) * factor, "OKEY_HELD", len(okeys)))
    return tuple(lines)


def hand_lines(
    finisher: int, racks: Sequence[Sequence[int]], openings: Sequence[Opening], indicator: int, multiplier: int
) -> tuple[ScoreLine, ...]:
    """Every seat's hand points at the hand's end as lines (``finisher`` -1 and ``multiplier`` 1:
    the deck ran out [D-2]); the penalties of the hand are lines of their own (:func:`penalty_line`)."""
    out: list[ScoreLine] = []
    for s in range(len(racks)):
        if s == finisher:
            out.append(ScoreLine(s, FINISH_POINTS * multiplier, "FINISHED"))  # [O-SC-1] [O-SC-2]
        else:
            out.extend(seat_lines(s, racks[s], openings[s], indicator, multiplier))
    return tuple(out)


def penalty_line(seat: int, points: int, reason: str) -> ScoreLine:
    """A flat penalty, added as it happens and never multiplied [O-PEN-1..2] [D-7]."""
    return ScoreLine(seat, points, reason)


def _remaining(rack: Sequence[int], opening: Opening, indicator: int) -> int:
    return sum(line.points for line in seat_lines(0, rack, opening, indicator, 1))  # [O-SC-3..5]


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

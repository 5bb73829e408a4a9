"""A hand's breakdown: every change of every seat's score in that hand, one line each, with why.

The rules make it (each game's ``scoring`` writes the lines of its own rules; ``evolve`` collects
them as the hand's events are applied: an indicator shown, a penalty, the hand's end), and the
views carry it. A client draws the lines as they are: it adds up nothing. For every seat the
points of its lines sum to its ``change`` of the hand, and ``totals`` are the scores before the
hand plus those changes (classic: the points left [C-SC-1]; 101: the penalty totals [O-DEAL-3]).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["ScoreLine", "HandBreakdown", "breakdown"]


@dataclass(frozen=True, slots=True)
class ScoreLine:
    """One change of one seat's score: ``points`` (signed, as the score moves), ``reason`` a
    stable code that clients key their text by, ``tiles`` the number of tiles it counts (the
    tiles left in a 101 hand, the okeys held), 0 where it counts none."""

    seat: int
    points: int
    reason: str
    tiles: int = 0


@dataclass(frozen=True, slots=True)
class HandBreakdown:
    """Hand ``hand``'s lines (by seat, each seat's in the order they happened), each seat's
    ``changes`` (the sum of its lines) and ``totals`` (its score after the hand)."""

    hand: int
    lines: tuple[ScoreLine, ...]
    changes: tuple[int, ...]
    totals: tuple[int, ...]


def breakdown(hand: int, lines: Iterable[ScoreLine], totals: tuple[int, ...]) -> HandBreakdown:
    """The breakdown of a hand from its lines and the scores after it: lines grouped by seat
    (stable: a seat's lines keep their order), each seat's change their sum."""
    ordered = tuple(sorted(lines, key=lambda line: line.seat))
    changes = [0] * len(totals)
    for line in ordered:
        changes[line.seat] += line.points
    return HandBreakdown(hand, ordered, tuple(changes), totals)

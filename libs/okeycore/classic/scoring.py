"""Classic Okey scoring: what a finish and the indicator are worth, and when and how the match ends.

Pure functions of tiles, seats and options; the game flow (``rules``) decides when they apply.
Scores count down from ``match_points`` (RULES.md section 3.7).
"""

from __future__ import annotations

from ..kernel.events import MatchEnded
from ..kernel.lines import ScoreLine
from ..kernel.table import match_ended
from ..options import IndicatorScoring, TableOptions
from ..tiles import Colour, Face, face_of_id

__all__ = [
    "FINISH_LOSS",
    "LINE_REASONS",
    "finish_multiplier",
    "colored_finish",
    "finish_deltas",
    "indicator_deltas",
    "indicator_lines",
    "penalty_line",
    "finish_lines",
    "deck_lines",
    "match_end",
]

FINISH_LOSS = 2
"""What each other seat loses for a normal finish [C-SC-2]."""


def finish_multiplier(okey_finish: bool, pairs_finish: bool, colored: bool) -> int:
    """An okey as the final tile, seven pairs, a colored finish: each doubles [C-SC-3]."""
    return 1 << sum((okey_finish, pairs_finish, colored))


def colored_finish(tile: int, okey: Face, options: TableOptions) -> bool:
    """At a ``colored`` table, a yellow or blue final tile (a fake okey shows the okey's face [T-FAKE-1])."""
    face = face_of_id(tile)
    colour = okey.colour if face.is_fake else face.colour
    return options.colored and colour in (Colour.Y, Colour.B)


def finish_deltas(finisher: int, multiplier: int, options: TableOptions) -> tuple[int, ...]:
    """Every other seat loses 2 x the multiplier; the finisher, and a partner, lose nothing
    [C-SC-2] [C-SC-5]."""
    loss = FINISH_LOSS * multiplier
    partner = (finisher + 2) % 4
    return tuple(0 if s == finisher or (options.partners and s == partner) else -loss for s in range(4))


def indicator_deltas(shower: int, options: TableOptions) -> tuple[int, ...]:
    """The others lose 1, or the shower gains 1 [C-SC-4]."""
    if options.indicator_scoring is IndicatorScoring.SHOWER_PLUS_1:
        return tuple(1 if s == shower else 0 for s in range(4))
    return tuple(0 if s == shower else -1 for s in range(4))


LINE_REASONS: tuple[str, ...] = (
    "INDICATOR_SHOWN",  # this seat showed the indicator: +1, or 0 when the others lose [C-SC-4]
    "INDICATOR_OTHER",  # another seat showed it: -1 [C-SC-4]
    "FINISHED",  # this seat finished: 0 [C-SC-2]
    "PARTNER_FINISHED",  # the partner finished: 0 [C-SC-5]
    "OTHER_FINISHED",  # another seat finished: -2 x the multiplier [C-SC-2] [C-SC-3]
    "DECK_EXHAUSTED",  # the deck ran out: 0 [C-DECK-1]
    "INVALID_FINISH",  # a penalty: -2 [C-SC-6]
    "OKEY_DISCARDED",  # a penalty: -2 [C-SC-6]
)
"""Every reason a classic hand's breakdown line may give (``kernel.lines``)."""


def indicator_lines(shower: int, deltas: tuple[int, ...]) -> tuple[ScoreLine, ...]:
    """What showing the indicator changed [C-SC-4]: the shower's line (even at 0), and one for
    every other seat it cost."""
    return tuple(
        ScoreLine(s, d, "INDICATOR_SHOWN" if s == shower else "INDICATOR_OTHER")
        for s, d in enumerate(deltas)
        if s == shower or d
    )


def penalty_line(seat: int, points: int, reason: str) -> ScoreLine:
    """A flat penalty, lost at once [C-SC-6]; the line's reason is the penalty's."""
    return ScoreLine(seat, -points, reason)


def finish_lines(finisher: int, deltas: tuple[int, ...]) -> tuple[ScoreLine, ...]:
    """A finish's deltas [C-SC-2] [C-SC-3], one line a seat: the finisher's 0, a partner's 0
    [C-SC-5], every other seat's loss."""
    return tuple(
        ScoreLine(s, d, "FINISHED" if s == finisher else "OTHER_FINISHED" if d else "PARTNER_FINISHED")
        for s, d in enumerate(deltas)
    )


def deck_lines(seats: int) -> tuple[ScoreLine, ...]:
    """The deck ran out: nobody scores [C-DECK-1] (what was shown stands [C-DECK-2])."""
    return tuple(ScoreLine(s, 0, "DECK_EXHAUSTED") for s in range(seats))


def match_end(scores: tuple[int, ...], options: TableOptions) -> MatchEnded | None:
    """After a hand with these scores: the match ends once any score is 0 or below; the highest
    score (team sum with partners) wins, equal leaders all win [C-SC-7] [D-3]; at a duel only the
    two players count [C-SC-8] [D-8]; the winners share the pot [C-SC-9]."""
    if min(scores) > 0:
        return None
    if options.partners:
        teams = (scores[0] + scores[2], scores[1] + scores[3])
        if teams[0] == teams[1]:
            winners: tuple[int, ...] = (0, 1, 2, 3)
        else:
            winners = (0, 2) if teams[0] > teams[1] else (1, 3)
        paying = 4
    else:
        eligible = (0, 2) if options.duel else (0, 1, 2, 3)
        best = max(scores[s] for s in eligible)
        winners = tuple(s for s in eligible if scores[s] == best)
        paying = len(eligible)
    return match_ended(scores, winners, options.stake * paying)

"""Bot strategies for classic Okey. A strategy decides from one seat's view only."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from ..classic import SeatView, Stage, effective_table, finishing_tiles, rack_packed
from ..commands import Command, DeclarePairs, Discard, Draw, Finish, ShowIndicator, TakeDiscard
from ..melds import count_pairs
from ..options import PairsDeclaration

__all__ = ["Strategy", "RandomBot", "GreedyBot", "STRATEGIES", "ALLOWED_ASKED", "usefulness"]

ALLOWED_ASKED: frozenset[str] = frozenset({"ShowIndicator", "TakeDiscard", "DeclarePairs", "TurnToOkey"})
"""Every seat-command name a strategy of this library (classic or 101, any level) asks of a
view's ``allowed``; the rest of a move it works out from the view itself. The bots ask the table
to check only these (``AllowedQuery``): each name costs the table a rules check."""


class Strategy(Protocol):
    """``act`` returns the seat's next command on its turn; ``off_turn`` what it does at the
    start of a hand whatever the turn (show the indicator, declare pairs), or None."""

    name: str

    def act(self, view: SeatView) -> Command: ...

    def off_turn(self, view: SeatView) -> Command | None: ...


def _eff(view: SeatView, tile: int) -> int:
    """Effective face index of a tile for this view's okey; -1 for a wild okey."""
    return effective_table(view.indicator)[tile]


def _neighbour_table() -> tuple[tuple[tuple[int, int], ...], ...]:
    """For each number 0..12 (zero-based): (number, weight) of run neighbours in its colour,
    on the line 1..13 plus a 1 after 13 [M-RUN-2]."""
    out = []
    for n in range(1, 14):
        best: dict[int, int] = {}
        for p in (n, 14) if n == 1 else (n,):
            for d, w in ((1, 3), (2, 1)):
                for q in (p - d, p + d):
                    if 1 <= q <= 14:
                        m = 1 if q == 14 else q
                        if m != n:
                            best[m - 1] = max(best.get(m - 1, 0), w)
        out.append(tuple(sorted(best.items())))
    return tuple(out)


_NEIGHBOURS = _neighbour_table()


def usefulness(effs: Sequence[int], i: int, pairs: bool = False) -> int:
    """How close tile ``effs[i]`` is to a meld with the others: same number in other colours,
    neighbours in its colour, and its twin (all that counts when going for pairs)."""
    f = effs[i]
    if f < 0:
        return 100
    present = set(effs)
    twin = sum(1 for e in effs if e == f) > 1
    if pairs:
        return 6 if twin else 0
    c, n0 = divmod(f, 13)
    score = 1 if twin else 0
    for c2 in range(4):
        if c2 != c and c2 * 13 + n0 in present:
            score += 2
    base = c * 13
    for m, w in _NEIGHBOURS[n0]:
        if base + m in present:
            score += w
    return score


FULL_DECK = 48  # a classic deck after the deal [C-DEAL-1]


def may_show_indicator(view: SeatView) -> bool:
    """Would showing the indicator be accepted now [C-IND-1]? The table says so: the view's
    ``allowed`` is asked of ``can`` (the twin in the rack, nobody showed it this hand, no move of
    the seat's yet, and at a ``FIRST_TURN`` table only on the seat's own turn)."""
    return "ShowIndicator" in view.allowed


class RandomBot:
    """Any legal move, at random; finishes whenever it can so hands end."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def off_turn(self, view: SeatView) -> Command | None:
        return None

    def act(self, view: SeatView) -> Command:
        seat = view.seat
        assert seat is not None
        if view.stage in (Stage.DRAW, Stage.LAST_CHANCE):
            if view.stage is Stage.LAST_CHANCE:
                return TakeDiscard(seat=seat)
            if "TakeDiscard" in view.allowed and self.rng.random() < 0.3:
                return TakeDiscard(seat=seat)
            return Draw(seat=seat)
        fin = finishing_tiles(view.rack, view.indicator)
        if fin:
            return Finish(seat=seat, tile=fin[0])
        return Discard(seat=seat, tile=self.rng.choice(view.rack))


class GreedyBot:
    """A simple baseline: keeps tiles close to melds, takes a side tile that helps, goes for
    pairs with five pairs in hand, shows the indicator, finishes as soon as it can."""

    name = "greedy"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def off_turn(self, view: SeatView) -> Command | None:
        seat = view.seat
        assert seat is not None
        if may_show_indicator(view):
            return ShowIndicator(seat=seat)
        if "DeclarePairs" in view.allowed:
            x, j = rack_packed(view.rack, view.indicator)
            if count_pairs(x, j) >= 5:
                return DeclarePairs(seat=seat)
        return None

    def act(self, view: SeatView) -> Command:
        seat = view.seat
        assert seat is not None
        if may_show_indicator(view):
            return ShowIndicator(seat=seat)  # on its own first turn (all a FIRST_TURN table allows)
        me = view.seats[seat]
        pairs_only = view.options.pairs_declaration is PairsDeclaration.BINDING and me.declared_pairs
        if view.stage is Stage.LAST_CHANCE:
            # The table offers the last chance only when the side tile finishes [C-DECK-3].
            return TakeDiscard(seat=seat)
        if view.stage in (Stage.DRAW, Stage.LAST_CHANCE):
            side = view.side_tile
            if side >= 0:
                effs = [_eff(view, t) for t in view.rack] + [_eff(view, side)]
                use = usefulness(effs, len(effs) - 1, me.declared_pairs)
                if use >= 5 and view.stage is Stage.DRAW:
                    return TakeDiscard(seat=seat)
                if use > 0 and finishing_tiles(view.rack + (side,), view.indicator, pairs_only):
                    return TakeDiscard(seat=seat)
            return Draw(seat=seat)
        fin = finishing_tiles(view.rack, view.indicator, pairs_only)  # a binding declarer: pairs only
        if fin:
            okeys = [t for t in fin if _eff(view, t) < 0]
            return Finish(seat=seat, tile=(okeys or fin)[0])
        effs = [_eff(view, t) for t in view.rack]
        scores = [usefulness(effs, i, me.declared_pairs) for i in range(len(effs))]
        low = min(scores)
        worst = [view.rack[i] for i, s in enumerate(scores) if s == low]
        return Discard(seat=seat, tile=self.rng.choice(worst))


STRATEGIES = {"random": RandomBot, "greedy": GreedyBot}

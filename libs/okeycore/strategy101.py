"""Okey 101 strategies beyond the greedy baseline, and the registry of every 101 strategy by name.

Each decides from one seat's view only (RULES.md section 7). ``StrongBot101`` plays the turn
like the greedy baseline (open as soon as the threshold is met, lay and add everything, take
okeys back, take the side tile only to lay it) and differs where a hand's score is made: before
opening it keeps the tiles that build the highest opening (and pairs when pairs are nearer), after
opening it sheds the heaviest tiles it cannot lay, it never makes a penalised discard while
another tile is safe [O-PEN-1..3], and it keeps away from discards the right-hand seat could
take and lay.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .bots import usefulness
from .bots101 import GreedyBot101, Strategy101
from .commands import Command, Discard, Draw, TakeDiscard
from .handeval import Visible
from .melds import best_points, count_pairs
from .okey101 import (
    Opening,
    OpenMelds,
    ReturnSideTile,
    SeatView101,
    Stage,
    is_real_okey,
    pair_opening,
    penalty_reason,
    run_opening,
)
from .okey101.scoring import tile_points
from .racks import effective_table, rack_packed

__all__ = ["RandomBot101", "StrongBot101", "STRATEGIES_101", "strategy101", "penalised"]


def penalised(view: SeatView101, tile: int) -> bool:
    """Would discarding ``tile`` now cost a penalty [O-PEN-1] [O-PEN-2]? Never the last tile [O-PEN-3]."""
    return (
        penalty_reason(tile, len(view.rack), view.melds, view.indicator, view.options, view.rules_version) is not None
    )


class RandomBot101:
    """Any legal move, at random: draws (or takes a side tile it can lay), lays or adds now and
    then, and discards any tile, penalised or not."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self._helper = GreedyBot101(seed)

    def act(self, view: SeatView101) -> Command:
        seat = view.seat
        assert seat is not None
        if view.stage is Stage.DRAW:
            side = view.side_tile
            if side >= 0 and self.rng.random() < 0.3 and self._helper._side_move(view, side) is not None:
                return TakeDiscard(seat=seat)
            return Draw(seat=seat)
        if view.held_side_tile >= 0:
            use = self._helper._side_move(view, view.held_side_tile)
            if use is not None:
                return use
            return ReturnSideTile(seat=seat)
        if self.rng.random() < 0.5:
            me = view.seats[seat]
            move = self._helper._open(view) if me.opening is Opening.NONE else self._helper._table_move(view)
            if move is not None:
                return move
        return Discard(seat=seat, tile=self.rng.choice(view.rack))


class StrongBot101(GreedyBot101):
    """The greedy turn with a better eye for the opening, the hand's weight and the right-hand seat."""

    name = "strong"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)

    def act(self, view: SeatView101) -> Command:
        seat = view.seat
        assert seat is not None
        if view.stage is Stage.DRAW:
            side = view.side_tile
            if side >= 0 and self._side_move(view, side) is not None:
                return TakeDiscard(seat=seat)  # laid at once: a sure gain over a deck draw
            return Draw(seat=seat)
        return super().act(view)

    def _open(self, view: SeatView101) -> Command | None:
        """Runs when they reach the threshold [O-OPEN-1]; pairs [O-OPEN-2] when runs are far, or the
        deck is running out (an unopened hand costs 202 [O-SC-3])."""
        seat = view.seat
        assert seat is not None
        runs = run_opening(view.rack, view.indicator, view.options.wrap, view.run_threshold)
        if runs.enough:
            return runs.command(seat)
        pairs = pair_opening(view.rack, view.indicator, view.pair_threshold)
        if pairs.enough:
            seats = max(1, len(view.seats))
            if runs.total < view.run_threshold - 25 or view.deck_count < 2 * seats:
                return pairs.command(seat)
        return None

    def _discard(self, view: SeatView101) -> int:
        rack = view.rack
        if len(rack) == 1:
            return rack[0]  # the finishing tile [O-TURN-1]
        seat = view.seat
        assert seat is not None
        ind = view.indicator
        table = effective_table(ind)
        safe = [t for t in rack if not penalised(view, t)]
        if not safe:
            # Forced: every tile costs the same penalty; give away the least useful plain one.
            plain = [t for t in rack if not is_real_okey(t, ind)] or list(rack)
            effs = [table[t] for t in rack]
            return min(plain, key=lambda t: (usefulness(effs, rack.index(t)), -tile_points(t, ind), t))
        me = view.seats[seat]
        vis = _visible(view)
        right = view.seats[(seat + 1) % len(view.seats)]
        effs = [table[t] for t in rack]
        if me.opening is Opening.NONE:
            return self._discard_unopened(view, safe, effs, vis, right.opening is not Opening.NONE)
        # Opened: shed weight. A tile close to a meld may still be laid; the heaviest other goes.
        best = safe[0]
        best_key: tuple[float, ...] = ()
        for t in safe:
            i = rack.index(t)
            use = usefulness(effs, i, me.opening is Opening.PAIRS)
            keep_chance = min(0.8, use / 8)
            weight = tile_points(t, ind) * (1 - keep_chance)
            key = (weight - 0.3 * self._danger(view, t, vis), -t)
            if not best_key or key > best_key:
                best, best_key = t, key
        return best

    def _discard_unopened(
        self, view: SeatView101, safe: list[int], effs: list[int], vis: Visible, right_open: bool
    ) -> int:
        """Keep what builds the opening: never a tile of the highest run opening left when another
        will do, then the tile with fewest neighbours (the heavier first: a lone high tile rarely
        becomes a meld), and in pairs mode never a pair."""
        rack = view.rack
        ind = view.indicator
        wrap = view.options.wrap
        x, j = rack_packed(rack, ind)
        pairs_mode = count_pairs(x, j) >= 5
        scored: list[tuple[tuple[float, float, float, float], int]] = []
        seen_face: set[int] = set()
        for t in safe:
            e = effs[rack.index(t)]
            if e in seen_face:
                continue
            seen_face.add(e)
            y = x - (1 << (2 * e))
            points, _ = best_points(y, j, wrap, must_leave=True)
            pairs = count_pairs(y, j) if pairs_mode else 0
            use = usefulness(effs, rack.index(t))
            danger = self._danger(view, t, vis) if right_open else 0.0
            scored.append(((-pairs, -points, use + 0.1 * danger, -tile_points(t, ind)), t))
        return min(scored, key=lambda p: (p[0], p[1]))[1]

    def _danger(self, view: SeatView101, tile: int, vis: Visible) -> float:
        """How well a discard could serve the right-hand seat: unseen partners that would make a
        meld with it (that seat may take it only to lay it at once [O-SIDE-1..3])."""
        e = effective_table(view.indicator)[tile]
        if e < 0:
            return 10.0
        c, n0 = divmod(e, 13)
        u = vis.unseen
        score = 0.0
        for a, b in ((-2, -1), (-1, 1), (1, 2)):
            na, nb = n0 + a, n0 + b
            if 0 <= na < 13 and 0 <= nb < 13:
                score += u[c * 13 + na] * u[c * 13 + nb]
        others = [u[c2 * 13 + n0] for c2 in range(4) if c2 != c]
        score += others[0] * others[1] + others[0] * others[2] + others[1] * others[2]
        return score

    def _table_move(self, view: SeatView101) -> Command | None:
        move = super()._table_move(view)
        if isinstance(move, OpenMelds) and not move.melds:
            return None
        return move


def _visible(view: SeatView101) -> Visible:
    seen: list[int] = list(view.rack)
    for s in view.seats:
        seen.extend(s.pile)
    for m in view.melds:
        seen.extend(m.tiles)
    if view.indicator >= 0:
        seen.append(view.indicator)
    return Visible(view.indicator, seen)


STRATEGIES_101: dict[str, Callable[[int], Strategy101]] = {
    "random": RandomBot101,
    "greedy": GreedyBot101,
    "strong": StrongBot101,
}
"""Every Okey 101 strategy by name; each is built from a seed."""


def strategy101(name: str, seed: int = 0) -> Strategy101:
    """The Okey 101 strategy called ``name``, seeded."""
    try:
        return STRATEGIES_101[name](seed)
    except KeyError:
        raise KeyError(f"no Okey 101 strategy {name!r}; choose one of {', '.join(sorted(STRATEGIES_101))}") from None

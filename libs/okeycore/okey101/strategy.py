"""Okey 101 strategies beyond the greedy baseline, and the registry of every 101 strategy by name.

Each decides from one seat's view only (RULES.md section 7). ``StrongBot101`` plays the turn
like the greedy baseline (open as soon as the threshold is met, lay and add everything, take
okeys back, take the side tile only to lay it) and differs where a hand's score is made: before
opening it discards the tile whose loss least lowers its chance to open before the hand ends, on
both tracks (runs: the best opening left plus its likely near-melds; pairs: the pairs left and the
unseen twins of its singles), and it takes a side tile that completes a pair opening too; after
opening it sheds the heaviest tiles it cannot lay; it never makes a penalised discard while
another tile is safe [O-PEN-1..3]; and it keeps away from discards the right-hand seat, not yet
opened, could take to open with [O-SIDE-1].
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from ..classic.bots import usefulness
from ..commands import Command, Discard, Draw, TakeDiscard
from ..handeval import Visible
from ..melds import MeldKind, best_points, count_pairs
from ..okey101 import (
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
from ..okey101.bots import GreedyBot101, Strategy101
from ..okey101.scoring import tile_points
from ..racks import effective_table, rack_packed

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
    danger_weight = 40.0  # what the right seat's opening with our discard costs us, in points of our score
    open_danger_weight = 40.0  # the same once opened, against the weight of a tile kept
    keep_scale = 8.0  # once opened: a tile this close to a meld (usefulness) is kept as if sure to be laid
    keep_cap = 0.8  # ... but never counted surer than this
    pair_margin = 25  # open with pairs when the best run opening is further than this below the bar

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

    def _side_move(self, view: SeatView101, side: int) -> Command | None:
        """The greedy side moves, and also: before opening, a pair opening the side tile completes
        [O-OPEN-2]; after opening, a new run, group or pair it makes with rack tiles [O-ADD-2].
        Either lays it that turn, so it is used [O-SIDE-1] [O-SIDE-2]."""
        move = super()._side_move(view, side)
        if move is not None:
            return move
        seat = view.seat
        assert seat is not None
        me = view.seats[seat]
        rack = view.rack if side in view.rack else (*view.rack, side)
        ind = view.indicator
        if me.opening is Opening.RUNS and len(rack) >= 4:
            runs = run_opening(rack, ind, view.options.wrap, 1, prefer=side)
            if runs.enough and any(side in m for m in runs.melds):
                return runs.command(seat)
        pairs_open = me.opening is Opening.PAIRS or (
            me.opening is Opening.RUNS and any(m.kind is MeldKind.PAIR for m in view.melds)
        )
        if pairs_open and len(rack) >= 3:
            pairs = pair_opening(rack, ind, 1, prefer=side)
            if pairs.enough and any(side in m for m in pairs.melds):
                return pairs.command(seat)
        if me.opening is not Opening.NONE:
            return None
        pairs = pair_opening(rack, ind, view.pair_threshold, prefer=side)
        if not pairs.enough or not any(side in m for m in pairs.melds):
            return None
        runs = run_opening(rack, ind, view.options.wrap, view.run_threshold)
        if self._pairs_now(view, runs.total):
            return pairs.command(seat)
        return None

    def _pairs_now(self, view: SeatView101, run_total: int) -> bool:
        """Open with pairs rather than wait for runs: runs are far, or the deck is running out."""
        seats = max(1, len(view.seats))
        return run_total < view.run_threshold - self.pair_margin or view.deck_count < 2 * seats

    def _open(self, view: SeatView101) -> Command | None:
        """Runs when they reach the threshold [O-OPEN-1]; pairs [O-OPEN-2] when runs are far, or the
        deck is running out (an unopened hand costs 202 [O-SC-3])."""
        seat = view.seat
        assert seat is not None
        runs = run_opening(view.rack, view.indicator, view.options.wrap, view.run_threshold)
        if runs.enough:
            return runs.command(seat)
        pairs = pair_opening(view.rack, view.indicator, view.pair_threshold)
        if pairs.enough and self._pairs_now(view, runs.total):
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
        effs = [table[t] for t in rack]
        if me.opening is Opening.NONE:
            return self._discard_unopened(view, safe, effs, vis)
        # Opened: shed weight. A tile close to a meld may still be laid; the heaviest other goes,
        # unless the right-hand seat would likely open with it.
        best = safe[0]
        best_key: tuple[float, ...] = ()
        for t in safe:
            i = rack.index(t)
            use = usefulness(effs, i, me.opening is Opening.PAIRS)
            keep_chance = min(self.keep_cap, use / self.keep_scale)
            weight = tile_points(t, ind) * (1 - keep_chance)
            key = (weight - self.open_danger_weight * self._danger(view, t, vis), -t)
            if not best_key or key > best_key:
                best, best_key = t, key
        return best

    def _discard_unopened(self, view: SeatView101, safe: list[int], effs: list[int], vis: Visible) -> int:
        """The discard that leaves the rack likeliest to open before the hand ends. For each
        candidate (one per face) the rest is judged on both tracks: the highest run opening left
        [O-OPEN-1] plus the points its near-melds would likely add with the draws still to come,
        and the pairs left with the chance that the singles still unseen complete five [O-OPEN-2].
        The expected hand score (202 unopened [O-SC-3], a pair opener's doubled rest [O-SC-5])
        plus what the discard may give the right-hand seat decides; ties go to the heavier."""
        rack = view.rack
        ind = view.indicator
        wrap = view.options.wrap
        x, j = rack_packed(rack, ind)
        draws = _draws_left(view)
        scored: list[tuple[tuple[float, float, float], int]] = []
        seen_face: set[int] = set()
        for t in safe:
            e = effs[rack.index(t)]
            if e in seen_face:
                continue
            seen_face.add(e)
            if e < 0:
                continue  # a real okey is never the discard of choice [O-PEN-2]
            y = x - (1 << (2 * e))
            points, melds = best_points(y, j, wrap, must_leave=True)
            rest = [f for f in effs if f >= 0]
            rest.remove(e)
            for m in melds:
                for face, joker in zip(m.stands_for, m.jokers, strict=True):
                    if not joker:
                        rest.remove(face.index)
            p_runs = _run_chance(points, _run_potential(rest, vis, draws, wrap), view.run_threshold)
            p_pairs = _pair_chance(y, j, vis, draws, view.pair_threshold)
            expected = (1 - p_runs) * (UNOPENED - (UNOPENED - PAIR_OPENED) * p_pairs)
            danger = self._danger(view, t, vis)
            scored.append(((expected + self.danger_weight * danger, danger, -tile_points(t, ind)), t))
        if not scored:
            return safe[0]
        return min(scored, key=lambda p: (p[0], p[1]))[1]

    def _danger(self, view: SeatView101, tile: int, vis: Visible) -> float:
        """About the chance that the right-hand seat, not yet opened, takes this discard to open
        with: it may take it only to use it at once [O-SIDE-1..3], so it must make a run or a group
        with tiles that seat may hold, and the heavier the tile the likelier it lifts that seat
        over the bar [O-OPEN-1] (in bot play a discarded 13 was taken five times as often as a 3).
        Once that seat has opened it could only add the tile, and such a discard is penalised
        anyway [O-PEN-1]."""
        seat = view.seat
        assert seat is not None
        right = view.seats[(seat + 1) % len(view.seats)]
        if right.opening is not Opening.NONE:
            return 0.0
        e = effective_table(view.indicator)[tile]
        if e < 0:
            return TAKE_RATE
        u = vis.unseen
        total = max(1, vis.total_unseen)
        share = min(1.0, right.tiles / total)  # of each unseen tile, the chance it is in that rack
        jokers = 1.0 - (1.0 - share) ** u[52]

        def held(f: int) -> float:
            return 1.0 - (1.0 - share) ** u[f]

        c, n0 = divmod(e, 13)
        miss = 1.0
        for a, b in ((-2, -1), (-1, 1), (1, 2)):
            na, nb = n0 + a, n0 + b
            if 0 <= na < 13 and 0 <= nb < 13:
                pa, pb = held(c * 13 + na), held(c * 13 + nb)
                miss *= 1.0 - (pa * pb + (pa + pb) * jokers * 0.5)
        others = [held(c2 * 13 + n0) for c2 in range(4) if c2 != c]
        for i in range(3):
            for k in range(i + 1, 3):
                miss *= 1.0 - others[i] * others[k]
        return TAKE_RATE * (1.0 - miss) * (n0 + 1) / 13

    def _table_move(self, view: SeatView101) -> Command | None:
        move = super()._table_move(view)
        if isinstance(move, OpenMelds) and not move.melds:
            return None
        return move


TAKE_RATE = 0.25
"""Of the discards the right-hand seat could meld, about the share it takes to open (a 13)."""
UNOPENED = 202.0
"""What a hand left unopened costs [O-SC-3]."""
PAIR_OPENED = 80.0
"""About what a pair opener's hand costs (its rest doubled [O-SC-5]), measured in bot play."""


def _draws_left(view: SeatView101) -> float:
    """About how many tiles this seat will still draw (and see as side tiles) this hand."""
    seats = max(1, len(view.seats))
    return SIDE_LOOKS * view.deck_count / seats


SIDE_LOOKS = 1.0
"""Tiles seen per turn that could complete an opening: the deck draw (and the side tile)."""


def _hit(outs: float, unseen: int, draws: float) -> float:
    """The chance that one of ``outs`` unseen tiles comes within ``draws`` draws."""
    if outs <= 0 or unseen <= 0 or draws <= 0:
        return 0.0
    return 1.0 - math.pow(1.0 - min(1.0, outs / unseen), draws)


def _run_potential(rest: list[int], vis: Visible, draws: float, wrap: bool) -> float:
    """Points the tiles outside the best opening would likely add: each two-tile start of a run
    or a group, weighted by the chance its third tile (or an okey) comes, disjoint starts only."""
    u = vis.unseen
    total = vis.total_unseen
    jokers = u[52]
    starts: list[tuple[float, int, int]] = []
    faces = sorted(set(rest))
    for a_i, a in enumerate(faces):
        ca, na = divmod(a, 13)
        for b in faces[a_i + 1 :]:
            cb, nb = divmod(b, 13)
            missing: list[int] = []
            if ca == cb and nb - na == 1:
                missing = [ca * 13 + k for k in (na - 1, nb + 1) if 0 <= k < 13]
                value = (na + 1) + (nb + 1) + (na + 2)
            elif ca == cb and nb - na == 2:
                missing = [ca * 13 + na + 1]
                value = 3 * (na + 2)
            elif na == nb:
                missing = [c * 13 + na for c in range(4) if c not in (ca, cb)]
                value = 3 * (na + 1)
            if not missing:
                continue
            outs = sum(u[f] for f in missing) + jokers
            starts.append((value * _hit(outs, total, draws), a, b))
    starts.sort(reverse=True)
    used: set[int] = set()
    gain = 0.0
    for v, a, b in starts:
        if a in used or b in used:
            continue
        used.update((a, b))
        gain += v
    return gain


def _run_chance(points: int, potential: float, threshold: int) -> float:
    """A rough chance of reaching the run threshold from ``points`` now and ``potential`` likely."""
    if points >= threshold:
        return 1.0
    return 1.0 / (1.0 + math.exp(-(points + potential - threshold) / RUN_SPREAD))


RUN_SPREAD = 20.0


def _pair_chance(x: int, j: int, vis: Visible, draws: float, threshold: int) -> float:
    """The chance of completing ``threshold`` pairs: each draw that pairs a single (its twin
    unseen) or is an okey adds one [O-OPEN-2]."""
    have = count_pairs(x, j)
    need = threshold - have
    if need <= 0:
        return 1.0
    u = vis.unseen
    outs = u[52]
    y = x
    while y:
        low = ((y & -y).bit_length() - 1) >> 1
        if (y >> (2 * low)) & 3 == 1:
            outs += u[low]
        y &= ~(3 << (2 * low))
    total = vis.total_unseen
    if total <= 0 or outs <= 0:
        return 0.0
    q = min(1.0, outs / total)
    n = round(draws * PAIR_TRIES)
    if n < need:
        return 0.0
    return sum(math.comb(n, k) * q**k * (1 - q) ** (n - k) for k in range(need, n + 1))


PAIR_TRIES = 1.0
"""Deck draws plus the side tiles that could complete a pair opening, per draw."""


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

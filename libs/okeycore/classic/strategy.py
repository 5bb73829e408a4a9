"""The strong classic Okey strategy, and the registry of every classic strategy by name.

``StrongBot`` decides from one seat's view only (RULES.md section 7). On each move it weighs,
for every tile it could discard, how far the other 14 are from a finish by runs and groups and
by seven pairs (``handeval``), and how many still-unseen tiles would bring each closer: the
tiles it can see (its rack, the discards, the indicator) cannot be drawn. It finishes with the
highest multiplier it can, takes the side tile only when it brings the hand closer, keeps away
from discards the right-hand seat could use (that seat takes them [C-TURN-2]), shows the
indicator, goes for pairs when pairs are nearer, and turns to okey when an okey finish is likely
soon enough to be worth waiting for.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..classic import SeatView, Stage, check_finish, effective_table, finishing_tiles, rack_packed
from ..classic.bots import FULL_DECK, GreedyBot, RandomBot, Strategy, may_show_indicator
from ..classic.scoring import colored_finish, finish_multiplier
from ..commands import Command, DeclarePairs, Discard, Draw, Finish, Pass, ShowIndicator, TakeDiscard, TurnToOkey
from ..handeval import (
    Visible,
    meld_distance,
    meld_distances,
    near_faces,
    nearer,
    pair_distance,
    pair_distances,
    waits_without,
)
from ..melds import can_cover
from ..options import PairsDeclaration
from ..racks import is_real_okey

__all__ = ["StrongBot", "STRATEGIES", "strategy", "DiscardChoice"]

"""Tiles in the deck after a classic deal [C-DEAL-1]."""


def _bit(face: int) -> int:
    return 1 << (2 * face)


def _expected_draws(distance: int, useful: float, unseen: int, decay: float) -> float:
    """Draws until ``distance`` exchanges are made when ``useful`` of ``unseen`` tiles help now
    and fewer help at each later step."""
    total = 0.0
    u = useful
    for _ in range(distance):
        total += unseen / max(u, 0.5)
        u *= decay
    return total


@dataclass(frozen=True, slots=True)
class DiscardChoice:
    """A discard and why: distances by melds and by pairs, useful unseen tiles, danger, cost."""

    tile: int
    melds: int
    pairs: int
    useful: float
    danger: float
    cost: float


class StrongBot:
    """Tile efficiency with what it can see, a careful eye on the right-hand seat, and the
    special moves (indicator, pairs, turning to okey) when they pay."""

    name = "strong"

    MELD_DECAY = 0.75
    PAIR_DECAY = 0.8
    PAIR_BONUS = 0.8  # a pairs finish doubles what others lose [C-SC-3]: its draws count less

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    # ------------------------------------------------------------------ public

    def off_turn(self, view: SeatView) -> Command | None:
        seat = view.seat
        assert seat is not None
        if may_show_indicator(view):
            return ShowIndicator(seat=seat)  # [C-IND-1]: others lose 1, it costs nothing
        if self._should_declare(view):
            return DeclarePairs(seat=seat)
        return None

    def act(self, view: SeatView) -> Command:
        seat = view.seat
        assert seat is not None
        if may_show_indicator(view):
            return ShowIndicator(seat=seat)  # on its own first turn (all a FIRST_TURN table allows)
        if self._should_declare(view):
            return DeclarePairs(seat=seat)
        if view.stage is Stage.LAST_CHANCE:
            side = view.side_tile
            if side >= 0 and finishing_tiles((*view.rack, side), view.indicator, _pairs_only(view)):
                return TakeDiscard(seat=seat)
            return Pass(seat=seat)  # [C-DECK-3]
        if view.stage is Stage.LAST_CHANCE_TAKEN:
            fin = finishing_tiles(view.rack, view.indicator, _pairs_only(view))
            return Finish(seat=seat, tile=self._best_finish(view, fin)) if fin else Pass(seat=seat)
        if view.stage is Stage.DRAW:
            return TakeDiscard(seat=seat) if self._take_side(view) else Draw(seat=seat)
        fin = finishing_tiles(view.rack, view.indicator, _pairs_only(view))
        if fin:
            return self._finish_or_wait(view, fin)
        return Discard(seat=seat, tile=self.choose_discard(view).tile)

    # ------------------------------------------------------------------ drawing

    def _take_side(self, view: SeatView) -> bool:
        """Take the left seat's discard only when it surely brings the hand closer (a deck draw
        might too, and hides what the hand needs)."""
        side = view.side_tile
        if side < 0:
            return False
        rack = view.rack
        ind = view.indicator
        pairs_only = _pairs_only(view)
        if finishing_tiles((*rack, side), ind, pairs_only):
            return True
        me = view.seats[view.seat or 0]
        if me.turned_to_okey:
            return False
        x, j = rack_packed(rack, ind)
        e = effective_table(ind)[side]
        if e < 0:
            return True  # an okey on the pile: always worth having
        x2 = x + _bit(e)
        dp_now, dp_side = pair_distance(x, j), pair_distance(x2, j)
        if pairs_only:
            return dp_side < dp_now
        dm_now = meld_distance(x, j)
        if dp_now + 1 < dm_now and dp_side < dp_now:
            return True
        return nearer(x2, j, dm_now)  # the side tile brings the melds closer

    # ------------------------------------------------------------------ finishing

    def _multiplier(self, view: SeatView, tile: int) -> int:
        """The finish's multiplier with ``tile`` as the final tile, as the engine scores it
        (okeycore.classic.scoring's functions, not a copy of them) [C-SC-3]."""
        ind = view.indicator
        rest = list(view.rack)
        rest.remove(tile)
        check = check_finish(rest, ind, _pairs_only(view))
        okey = view.okey
        colored = okey is not None and colored_finish(tile, okey, view.options)
        return finish_multiplier(is_real_okey(tile, ind), check is not None and check.pairs, colored)

    def _best_finish(self, view: SeatView, fin: Sequence[int]) -> int:
        return max(fin, key=lambda t: (self._multiplier(view, t), -t))

    def _finish_or_wait(self, view: SeatView, fin: list[int]) -> Command:
        seat = view.seat
        assert seat is not None
        ind = view.indicator
        table = effective_table(ind)
        best = self._best_finish(view, fin)
        okeys = [t for t in view.rack if table[t] < 0]
        if not okeys or table[best] < 0 or self._multiplier(view, best) > 1 or _pairs_only(view):
            return Finish(seat=seat, tile=best)
        spares = [t for t in fin if table[t] >= 0]
        if not spares:
            return Finish(seat=seat, tile=best)
        spare, outs = max(((t, self._okey_outs(view, t)) for t in spares), key=lambda p: (p[1], -p[0]))
        if not self._worth_waiting(view, outs):
            return Finish(seat=seat, tile=best)
        if "TurnToOkey" in view.allowed:
            return TurnToOkey(seat=seat)  # okeye dönmek [C-DON-1]; the discard follows
        return Discard(seat=seat, tile=spare)

    def _okey_outs(self, view: SeatView, spare: int) -> int:
        """Unseen tiles that, drawn after discarding ``spare``, let an okey be the final tile."""
        ind = view.indicator
        rest = list(view.rack)
        rest.remove(spare)
        x, j = rack_packed(rest, ind)
        vis = _visible(view)
        outs = 0
        for f in near_faces(_faces(x), True):
            if vis.of(f) and (x >> (2 * f)) & 3 < 2 and can_cover(x + _bit(f), j - 1, 0, True):
                outs += vis.of(f)
        return outs

    def _worth_waiting(self, view: SeatView, outs: int) -> bool:
        """Waiting a round doubles the win [C-SC-3] with chance ~outs/unseen per draw, and loses
        it if someone else finishes first, likelier as the deck runs down."""
        if view.deck_count < 12 or outs == 0:
            return False
        unseen = max(1, _visible(view).total_unseen)
        p_free = min(1.0, outs * 1.3 / unseen)
        progress = 1 - view.deck_count / FULL_DECK
        p_other = 0.04 + 0.2 * progress
        return p_free * 2 > p_other * 4

    # ------------------------------------------------------------------ discarding

    def choose_discard(self, view: SeatView) -> DiscardChoice:
        """The discard that leaves the hand fewest expected draws from a finish, with the risk of
        feeding the right-hand seat added."""
        rack = view.rack
        ind = view.indicator
        table = effective_table(ind)
        x, j = rack_packed(rack, ind)
        vis = _visible(view)
        unseen = max(1, vis.total_unseen)
        pairs_only = _pairs_only(view)
        by_face: dict[int, int] = {}
        for t in sorted(rack):
            e = table[t]
            if e >= 0:
                by_face.setdefault(e, t)
        if not by_face:  # only okeys (cannot happen with 15 tiles): any will do
            return DiscardChoice(rack[0], 0, 0, 0.0, 0.0, 0.0)
        dm = dict.fromkeys(by_face, 99) if pairs_only else meld_distances(x, j, by_face)
        dp = pair_distances(x, j, by_face)
        best_m = min(dm.values())
        best_p = min(dp.values())
        progress = 1 - view.deck_count / FULL_DECK
        lam = 0.05 + 0.35 * progress
        right = view.seats[((view.seat or 0) + 1) % 4]
        right_faces = {table[t] for t in right.pile}
        choices: list[DiscardChoice] = []
        for e, t in by_face.items():
            y = x - _bit(e)
            cost = float("inf")
            useful = 0.0
            if dm[e] == best_m and not pairs_only:
                useful = self._meld_useful(x, e, j, dm[e], vis)
                cost = _expected_draws(dm[e], useful, unseen, self.MELD_DECAY)
            if dp[e] == best_p and (pairs_only or best_p <= best_m + 1):
                pu = self._pair_useful(y, vis)
                pc = _expected_draws(dp[e], pu, unseen, self.PAIR_DECAY) * self.PAIR_BONUS
                if pc < cost:
                    cost, useful = pc, pu
            if cost == float("inf"):
                cost = 1e6 + dm[e] * 1e3
            danger = _danger(e, vis, right_faces, True)
            choices.append(DiscardChoice(t, dm[e], dp[e], useful, danger, cost + lam * danger))
        return min(choices, key=lambda c: (c.cost, c.danger, c.tile))

    def _meld_useful(self, x: int, e: int, j: int, distance: int, vis: Visible) -> float:
        """Unseen tiles that would bring the 14-tile hand left by discarding ``e`` one exchange
        closer (ukeire)."""
        if distance == 0:
            return float(vis.total_unseen)
        useful = float(vis.unseen[52])  # a drawn okey always helps
        y = x - _bit(e)
        mask = waits_without(x, j, e)
        while mask:
            f = (mask & -mask).bit_length() - 1
            mask &= mask - 1
            if (y >> (2 * f)) & 3 < 2:
                useful += vis.unseen[f]
        return useful

    def _pair_useful(self, y: int, vis: Visible) -> float:
        useful = float(vis.unseen[52])
        z = y
        while z:
            low = ((z & -z).bit_length() - 1) >> 1
            if (z >> (2 * low)) & 3 == 1:
                useful += vis.of(low)
            z &= ~(3 << (2 * low))
        return useful

    # ------------------------------------------------------------------ pairs

    def _should_declare(self, view: SeatView) -> bool:
        """Declare pairs [C-PAIR-1] once pairs are clearly the nearer finish; at a BINDING table
        only when the hand is one pair away and runs are far."""
        seat = view.seat
        assert seat is not None
        if "DeclarePairs" not in view.allowed:
            return False
        x, j = rack_packed(view.rack, view.indicator)
        dp = pair_distance(x, j)
        # The meld distance (a search) only when the pairs are near enough for it to matter.
        if view.options.pairs_declaration is PairsDeclaration.BINDING:
            return dp <= 1 and meld_distance(x, j) >= 3
        return dp <= 2 and meld_distance(x, j) >= dp + 2


# ---------------------------------------------------------------------- helpers


def _pairs_only(view: SeatView) -> bool:
    seat = view.seat
    return (
        seat is not None
        and view.options.pairs_declaration is PairsDeclaration.BINDING
        and view.seats[seat].declared_pairs
    )


def _visible(view: SeatView) -> Visible:
    seen: list[int] = list(view.rack)
    for s in view.seats:
        seen.extend(s.pile)
    if view.indicator >= 0:
        seen.append(view.indicator)
    return Visible(view.indicator, seen)


def _faces(x: int) -> list[int]:
    out = []
    y = x
    while y:
        low = ((y & -y).bit_length() - 1) >> 1
        out.append(low)
        y &= ~(3 << (2 * low))
    return out


@functools.cache
def _run_windows(n: int, wrap: bool) -> tuple[tuple[int, int], ...]:
    """The other two numbers of every three-tile run holding number ``n`` (13-1 at the end);
    fixed by ``n`` and ``wrap``, so worked out once (every discard weighs every face's danger)."""
    positions = [n, 14] if (wrap and n == 1) else [n]
    top = 14 if wrap else 13
    out = []
    for p in positions:
        for s in range(p - 2, p + 1):
            if s < 1 or s + 2 > top:
                continue
            others = [q for q in range(s, s + 3) if q != p]
            out.append((others[0] if others[0] <= 13 else 1, others[1] if others[1] <= 13 else 1))
    return tuple(out)


def _danger(face: int, vis: Visible, right_faces: set[int], wrap: bool) -> float:
    """How well a discard could serve the seat that may take it: the unseen partners it would
    make a run or group with, less where that seat has thrown the face or its neighbours away."""
    c, n0 = divmod(face, 13)
    n = n0 + 1
    u = vis.unseen
    score = 0.0
    single = 0
    base = c * 13 - 1
    for a, b in _run_windows(n, wrap):
        ua, ub = u[base + a], u[base + b]
        score += ua * ub
        single += ua + ub
    others = [u[c2 * 13 + n0] for c2 in range(4) if c2 != c]
    score += others[0] * others[1] + others[0] * others[2] + others[1] * others[2]
    single += sum(others)
    score += u[52] * single * 0.5
    if face in right_faces:
        score *= 0.3
    elif any(f in right_faces for f in (face - 1, face + 1, face - 2, face + 2) if 0 <= f < 52 and f // 13 == c):
        score *= 0.7
    return score


STRATEGIES: dict[str, Callable[[int], Strategy]] = {"random": RandomBot, "greedy": GreedyBot, "strong": StrongBot}
"""Every classic strategy by name; each is built from a seed."""


def strategy(name: str, seed: int = 0) -> Strategy:
    """The classic strategy called ``name``, seeded."""
    try:
        return STRATEGIES[name](seed)
    except KeyError:
        raise KeyError(f"no classic strategy {name!r}; choose one of {', '.join(sorted(STRATEGIES))}") from None

"""The strong classic bot's hand evaluation made cheaper (issue 21) decides exactly as before.

The oracle is the evaluation as it was before: ``handeval``'s search (one full search per rack,
ties kept) and the four ``StrongBot`` methods that called it, copied here unchanged. The tests
check the new ``handeval`` values against it on random racks and on racks from simulated games,
and that ``StrongBot`` answers every view of simulated games with the command the oracle bot
gives (the corpus is played by the oracle in the test run itself).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from okeycore import handeval
from okeycore.classic import SeatView, effective_table, finishing_tiles, rack_packed
from okeycore.classic.bots import FULL_DECK
from okeycore.classic.strategy import (
    DiscardChoice,
    StrongBot,
    _danger,
    _expected_draws,
    _pairs_only,
    _visible,
    strategy,
)
from okeycore.commands import Command
from okeycore.handeval import Visible, pair_distance
from okeycore.options import DiscardHistory, PairsDeclaration, TableOptions
from okeycore.simulate import Simulator

# ---------------------------------------------------------------------- the oracle: handeval as it was

FINISH_SIZE = 14
_LOW = int("01" * 64, 2)
_HIGH = _LOW << 1
_M26 = (1 << 26) - 1
_MEMO: dict[int, tuple[int, int, int]] = {}
_MEMO_LIMIT = 1_500_000
_BLOCKS: dict[int, tuple[tuple[int, int, int, int, int], ...]] = {}

Block = tuple[int, int, int, int, int]
Solved = tuple[int, int, int]


def tile_count(x: int) -> int:
    return (x & _LOW).bit_count() + 2 * (x & _HIGH).bit_count()


def _near_mask(f: int, wrap: bool) -> int:
    c, n0 = divmod(f, 13)
    m = 0
    for d in (-2, -1, 1, 2):
        k = n0 + d
        if wrap:
            k %= 13
        if 0 <= k < 13:
            m |= 1 << (c * 13 + k)
    for c2 in range(4):
        if c2 != c:
            m |= 1 << (c2 * 13 + n0)
    return m


def _run_block(c: int, lo: int, hi: int, taken: int, r: int, gaps: int, wrap_end: bool, wrap: bool) -> Block:
    """A run block of colour ``c`` over numbers ``lo..hi`` (0-based; with ``wrap_end`` a 1 follows
    ``hi`` = 12); ``gaps`` is the mask of the wild places inside it."""
    base = c * 13
    length = hi - lo + 1 + wrap_end
    below = 1 << (base + lo - 1) if lo >= 1 else 0
    above = 0
    if not wrap_end:
        if hi <= 11:
            above = 1 << (base + hi + 1)
        elif wrap and lo >= 1:
            above = 1 << base  # the 1 after 13 [M-RUN-2]
    ends = below | above
    w = gaps.bit_count()
    if length >= 3:
        return (taken, r, w, gaps, ends)
    return (taken, r, w + 1, gaps | ends, ends)


def _make_blocks(xr: int, f: int, wrap: bool) -> tuple[Block, ...]:
    c, n0 = divmod(f, 13)
    near = _near_mask(f, wrap)
    out: list[Block] = [(0, 1, 2, near, near)]  # the tile alone, two wild slots beside it
    # Groups: the same number in other colours (lower colours are already used up) [M-GRP-1].
    others = [c2 for c2 in range(c + 1, 4) if (xr >> (2 * (c2 * 13 + n0))) & 3]
    for mask in range(1, 1 << len(others)):
        taken = 0
        used = {c}
        for i, c2 in enumerate(others):
            if mask >> i & 1:
                taken += 1 << (2 * (c2 * 13 + n0))
                used.add(c2)
        r = len(used)
        missing = 0
        for c2 in range(4):
            if c2 not in used:
                missing |= 1 << (c2 * 13 + n0)
        w = max(0, 3 - r)
        out.append((taken, r, w, missing if w else 0, missing))
    base = c * 13
    # Runs upward from the tile: each later place a rack tile or a wild slot (at most two) [M-RUN-1].
    stack = [(n0 + 1, 0, 1, 0)]
    while stack:
        p, taken, r, gaps = stack.pop()
        if p > 12:
            continue
        if (xr >> (2 * (base + p))) & 3:
            nt = taken + (1 << (2 * (base + p)))
            out.append(_run_block(c, n0, p, nt, r + 1, gaps, False, wrap))
            stack.append((p + 1, nt, r + 1, gaps))
        if gaps.bit_count() < 2:
            stack.append((p + 1, taken, r, gaps | (1 << (base + p))))
    if wrap and n0 == 0:
        # The 1 after 13, at a run's end only [M-RUN-2]: places 13, 12, ... downward.
        stack = [(12, 0, 1, 0)]
        while stack:
            p, taken, r, gaps = stack.pop()
            if p < 1:
                continue
            if (xr >> (2 * (base + p))) & 3:
                nt = taken + (1 << (2 * (base + p)))
                out.append(_run_block(c, p, 12, nt, r + 1, gaps, True, wrap))
                stack.append((p - 1, nt, r + 1, gaps))
            if gaps.bit_count() < 2:
                stack.append((p - 1, taken, r, gaps | (1 << (base + p))))
    out.sort(key=lambda b: (-b[1], b[2]))
    return tuple(out)


def _blocks(xr: int, f: int, wrap: bool) -> tuple[Block, ...]:
    """Blocks holding the lowest tile ``f``; they depend only on ``f``'s colour and number, so
    they are cached by those bits."""
    c, n0 = divmod(f, 13)
    seg = (xr >> (26 * c)) & _M26
    grp = 0
    for c2 in range(c + 1, 4):
        grp |= ((xr >> (2 * (c2 * 13 + n0))) & 3) << (2 * c2)
    key = (((seg << 8) | grp) << 7 | f) << 1 | wrap
    hit = _BLOCKS.get(key)
    if hit is None:
        if len(_BLOCKS) > _MEMO_LIMIT:
            _BLOCKS.clear()
        hit = _BLOCKS[key] = _make_blocks(xr, f, wrap)
    return hit


def solve(x: int, places: int, wrap: bool) -> Solved:
    """The most tiles of packed rack ``x`` (okeys left out) that blocks fitting in ``places`` can
    hold; the faces that, added, would let one more be held (they fill a wild slot, or lengthen a
    block into a spare place, in some best arrangement); and the most places left spare."""
    if x == 0 or places < 3:
        return (0, 0, places)
    key = (x << 6) | (places << 1) | wrap
    hit = _MEMO.get(key)
    if hit is not None:
        return hit
    if len(_MEMO) > _MEMO_LIMIT:
        _MEMO.clear()
    low = ((x & -x).bit_length() - 1) >> 1
    xr = x - (1 << (2 * low))
    best, waits, spare = solve(xr, places, wrap)  # the tile is not kept
    for taken, r, w, fill, ends in _blocks(xr, low, wrap):
        need = r + w
        if need > places:
            continue
        y = xr - taken
        if r + min(tile_count(y), places - need) < best:
            continue
        v, m, s = solve(y, places - need, wrap)
        v += r
        if v < best:
            continue
        if v > best:
            best, waits, spare = v, 0, -1
        waits |= m | fill | (ends if s >= 1 else 0)
        spare = max(spare, s)
    out = (best, waits, spare)
    _MEMO[key] = out
    return out


def keep(x: int, places: int, wrap: bool) -> int:
    """Most tiles of packed rack ``x`` (okeys left out) that blocks fitting in ``places`` can hold."""
    return solve(x, places, wrap)[0]


def waits(x: int, j: int, wrap: bool = True, size: int = FINISH_SIZE) -> int:
    """The faces (a 52-bit mask) that, drawn, bring a ``size``-tile rack one exchange closer to a
    finish by runs and groups; every face when the rack has room for a new meld."""
    kept, mask, spare = solve(x, size, wrap)
    if min(kept, size - j) >= size - j:
        return 0
    if spare >= 3:
        return (1 << 52) - 1
    return mask


def meld_distance(x: int, j: int, wrap: bool = True, size: int = FINISH_SIZE) -> int:
    """Tiles still to exchange before ``size`` tiles of the rack (``x`` packed, ``j`` okeys) lie
    in runs and groups. For a 15-tile rack this is the distance after the best discard; 0 means
    it finishes now. An okey fills any wild slot, and a spare okey any meld's end."""
    kept = min(keep(x, size, wrap), size - j)
    return max(0, size - j - kept)


# ---------------------------------------------------------------------- the oracle: StrongBot as it was


def _bit(face: int) -> int:
    return 1 << (2 * face)


class OracleBot(StrongBot):
    """``StrongBot`` with the methods that evaluate hands as they were, on the oracle above."""

    def _take_side(self, view: SeatView) -> bool:
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
            return True
        x2 = x + _bit(e)
        dp_now, dp_side = pair_distance(x, j), pair_distance(x2, j)
        if pairs_only:
            return dp_side < dp_now
        dm_now, dm_side = meld_distance(x, j), meld_distance(x2, j)
        if dp_now + 1 < dm_now and dp_side < dp_now:
            return True
        return dm_side < dm_now

    def choose_discard(self, view: SeatView) -> DiscardChoice:
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
        if not by_face:
            return DiscardChoice(rack[0], 0, 0, 0.0, 0.0, 0.0)
        dm = {e: (99 if pairs_only else meld_distance(x - _bit(e), j)) for e in by_face}
        dp = {e: pair_distance(x - _bit(e), j) for e in by_face}
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
                useful = self._old_meld_useful(y, j, dm[e], vis)
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

    def _old_meld_useful(self, y: int, j: int, distance: int, vis: Visible) -> float:
        if distance == 0:
            return float(vis.total_unseen)
        useful = float(vis.unseen[52])
        mask = waits(y, j)
        while mask:
            f = (mask & -mask).bit_length() - 1
            mask &= mask - 1
            if (y >> (2 * f)) & 3 < 2:
                useful += vis.unseen[f]
        return useful

    def _should_declare(self, view: SeatView) -> bool:
        seat = view.seat
        assert seat is not None
        if "DeclarePairs" not in view.allowed:
            return False
        x, j = rack_packed(view.rack, view.indicator)
        dp = pair_distance(x, j)
        dm = meld_distance(x, j)
        if view.options.pairs_declaration is PairsDeclaration.BINDING:
            return dp <= 1 and dm >= 3
        return dp <= 2 and dm >= dp + 2


# ---------------------------------------------------------------------- the checks


def _face_bits(x: int) -> list[int]:
    return [f for f in range(52) if (x >> (2 * f)) & 3]


def _check_rack(x: int, j: int, wrap: bool = True) -> None:
    """Every value the strategy reads, new against the oracle: for the rack and for the rack
    less each of its faces (what a discard leaves)."""
    for places in (FINISH_SIZE, 11, 8):
        assert handeval.solve(x, places, wrap) == solve(x, places, wrap)
        assert handeval.keep(x, places, wrap) == keep(x, places, wrap)
    assert handeval.meld_distance(x, j, wrap) == meld_distance(x, j, wrap)
    assert handeval.waits(x, j, wrap) == waits(x, j, wrap)
    d = meld_distance(x, j, wrap)
    assert [handeval.nearer(x, j, k, wrap) for k in range(8)] == [d < k for k in range(8)]
    faces = _face_bits(x)
    want = {e: meld_distance(x - _bit(e), j, wrap) for e in faces}
    assert handeval.meld_distances(x, j, faces, wrap) == want
    for e in faces:
        assert handeval.waits_without(x, j, e, wrap) == waits(x - _bit(e), j, wrap), e
        # meld_distances remembers the count of each rack less a face: a later search reads it.
        assert handeval.keep(x - _bit(e), FINISH_SIZE, wrap) == keep(x - _bit(e), FINISH_SIZE, wrap), e
    assert handeval.pair_distances(x, j, faces) == {e: pair_distance(x - _bit(e), j) for e in faces}


def _clear_new() -> None:
    for memo in (handeval._MEMO, handeval._KEEP, handeval._FACE, handeval._BOUND, handeval._KEPT):
        memo.clear()


@st.composite
def _racks(draw: st.DrawFn) -> tuple[int, int]:
    """A rack of 13 to 15 tiles (two copies of each face, two okeys), packed, and its okeys."""
    size = draw(st.integers(13, 15))
    tiles = draw(st.lists(st.integers(0, 105), min_size=size, max_size=size, unique=True))
    x = 0
    j = 0
    for t in tiles:
        if t >= 104:
            j += 1
        else:
            x += _bit(t % 52)
    return x, j


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rack=_racks(), wrap=st.booleans(), cold=st.booleans())
def test_random_racks_evaluate_as_the_oracle_does(rack: tuple[int, int], wrap: bool, cold: bool) -> None:
    if cold:
        _clear_new()
    _check_rack(rack[0], rack[1], wrap)


class _Twin:
    """Plays the oracle bot's commands; asks the new bot for each on the same view and checks
    that it answers the same. Keeps each 15-tile rack it sees to check its values too."""

    def __init__(self, seed: int, views: list[int], racks: list[tuple[int, int]]) -> None:
        self.oracle = OracleBot(seed)
        self.new = StrongBot(seed)
        self.name = "strong"
        self.views = views
        self.racks = racks

    def act(self, view: SeatView) -> Command:
        want = self.oracle.act(view)
        assert self.new.act(view) == want, view
        self.views.append(1)
        if len(view.rack) == 15:
            self.racks.append(rack_packed(view.rack, view.indicator))
        return want

    def off_turn(self, view: SeatView) -> Command | None:
        want = self.oracle.off_turn(view)
        assert self.new.off_turn(view) == want, view
        return want


OPTIONS = {
    "default": TableOptions(match_points=1000),
    "binding": TableOptions(match_points=1000, pairs_declaration=PairsDeclaration.BINDING),
    "pairs-only": TableOptions(
        match_points=1000, discard_history=DiscardHistory.PAIRS_ONLY, pairs_declaration=PairsDeclaration.BINDING
    ),
    "colored": TableOptions(match_points=1000, colored=True),
}


def _play(options: TableOptions, seed: int, hands: int, strong_seats: int) -> tuple[list[int], list[tuple[int, int]]]:
    views: list[int] = []
    racks: list[tuple[int, int]] = []
    bots: list[Any] = [strategy("greedy", seed * 4 + i) for i in range(4)]
    for seat in range(strong_seats):
        bots[seat] = _Twin(seed * 4 + seat, views, racks)
    sim = Simulator(options, bots, seed)
    for _ in range(hands):
        sim.play_hand()
    return views, racks


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_the_strong_bot_decides_as_the_oracle_on_every_view_of_simulated_games(name: str) -> None:
    views, racks = _play(OPTIONS[name], 1000 + sorted(OPTIONS).index(name), hands=12, strong_seats=4)
    assert len(views) > 600
    # And a rack corpus: what each 15-tile rack and its discards evaluate to, memo warm and cold.
    for i, (x, j) in enumerate(racks[::2]):
        if i % 2:
            _clear_new()
        _check_rack(x, j)


def test_values_hold_when_the_memos_overflow(monkeypatch: pytest.MonkeyPatch) -> None:
    # A memo over its limit is cleared, even in the middle of a search: nothing may change.
    for limit in ("_MEMO_LIMIT", "_KEEP_LIMIT", "_BOUND_LIMIT", "_FACE_LIMIT", "_BLOCKS_LIMIT", "_KEPT_LIMIT"):
        monkeypatch.setattr(handeval, limit, 40)
    _clear_new()
    rng = random.Random(7)
    _, racks = _play(OPTIONS["default"], 77, hands=1, strong_seats=1)
    for x, j in rng.sample(racks, min(12, len(racks))):
        _check_rack(x, j)


def test_the_rack_a_discard_leaves_is_counted_once_even_after_the_search_memos_are_cleared() -> None:
    # A seat's next draw asks for the count of the rack its discard left. With many tables in one
    # process the search memos are cleared in between; the count must come from the kept counts
    # (no search: the search memos stay empty) and equal the oracle's.
    _clear_new()
    _, racks = _play(OPTIONS["default"], 78, hands=1, strong_seats=1)
    x, j = racks[0]
    faces = _face_bits(x)
    want = {e: meld_distance(x - _bit(e), j) for e in faces}  # the oracle's
    assert handeval.meld_distances(x, j, faces) == want
    for memo in (handeval._MEMO, handeval._KEEP, handeval._FACE, handeval._BOUND):
        memo.clear()
    assert {e: handeval.meld_distance(x - _bit(e), j) for e in faces} == want
    assert not handeval._KEEP and not handeval._MEMO and not handeval._BOUND

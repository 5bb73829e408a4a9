"""Properties of Okey 101: tiles are conserved, folding the (JSON round-tripped) events rebuilds
the table, no view or event leaks a rack, every hand ends; the best opening equals a slow
brute-force search and every meld it returns is valid and made of rack tiles."""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st
from okeycore import melds as M
from okeycore import okey101 as O
from okeycore.classic import Phase, effective_table
from okeycore.events import DrawSource, Event, HandStarted, TileDrawn, event_from_dict, event_to_dict
from okeycore.okey101.bots import GreedyBot101
from okeycore.okey101.simulate import Simulator101
from okeycore.options import Game, Mode101, TableOptions
from okeycore.tiles import face_from_index, ids_of_face, parse_face

# ------------------------------------------------------------ whole matches


def _all_tiles(s: O.Okey101State) -> list[int]:
    out = [s.indicator, *s.deck]
    for seat in s.seats:
        out += [*seat.rack, *seat.pile]
    for meld in s.melds:
        out += meld.tiles
    return out


def _visible(v: O.SeatView101) -> set[int]:
    seen = {*v.rack, v.indicator, v.side_tile, v.held_side_tile}
    for p in v.seats:
        seen.update(p.pile)
        seen.update(p.rack or ())
    for meld in v.melds:
        seen.update(meld.tiles)
    return seen - {-1}


def _check(state: O.Okey101State, event: Event) -> None:
    if state.phase is Phase.NEW:
        return
    assert sorted(_all_tiles(state)) == list(range(106))  # 106 tiles conserved
    n = state.seat_count
    for viewer in range(n):
        redacted = O.public_event(event, viewer)
        if isinstance(event, HandStarted):
            assert isinstance(redacted, HandStarted)
            assert all(t == -1 for t in redacted.deck)
            assert all(all(t == -1 for t in r) for i, r in enumerate(redacted.racks) if i != viewer)
        if isinstance(event, TileDrawn) and event.source is DrawSource.DECK and event.seat != viewer:
            assert isinstance(redacted, TileDrawn) and redacted.tile == -1
        if state.phase is not Phase.PLAYING:
            continue
        v = O.view(state, viewer)
        assert v.rack == state.seats[viewer].rack
        assert all(p.rack is None for p in v.seats)
        others = {t for i, s in enumerate(state.seats) if i != viewer for t in s.rack}
        assert not (_visible(v) & others), "a view shows another seat's tile"
        assert not (_visible(v) & set(state.deck))


def _roundtrip(events: Sequence[Event]) -> list[Event]:
    return [event_from_dict(json.loads(json.dumps(event_to_dict(e)))) for e in events]


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    seats=st.sampled_from([2, 4]),
    mode=st.sampled_from(list(Mode101)),
    wrap=st.booleans(),
    penalty=st.booleans(),
)
def test_bot_matches_conserve_tiles_rebuild_from_events_and_never_leak(
    seed: int, seats: int, mode: Mode101, wrap: bool, penalty: bool
) -> None:
    opts = TableOptions(game=Game.OKEY101, seats=seats, mode=mode, wrap=wrap, discard_penalty=penalty, rounds=3)
    sim = Simulator101(opts, [GreedyBot101(seed + i) for i in range(seats)], seed, on_event=_check)
    rec = sim.play_match()  # raises if a hand does not end or a bot's move is refused
    assert rec.state.phase is Phase.MATCH_OVER
    ended = [e for e in rec.events if isinstance(e, O.HandEnded101)]
    assert [e.hand for e in ended] == [1, 2, 3]
    assert ended[-1].totals == tuple(s.score for s in rec.state.seats)
    assert O.fold(None, _roundtrip(rec.events)) == rec.state  # events rebuild the table exactly


# ------------------------------------------------------------ the best opening


def _meld_value(faces: Sequence[int], okeys: int, wrap: bool) -> int:
    """Best value of these real face indices and okeys as one run or group, or -1: straight
    from the definitions [M-RUN-1] [M-RUN-2] [M-GRP-1], trying every window."""
    size = len(faces) + okeys
    if size < 3 or not faces:
        return -1
    best = -1
    cols = [f // 13 for f in faces]
    nums = [f % 13 + 1 for f in faces]
    if size <= 4 and len(set(nums)) == 1 and len(set(cols)) == len(cols):
        best = nums[0] * size
    if len(set(cols)) == 1 and len(set(nums)) == len(nums):
        top = 14 if wrap else 13
        for s in range(1, top - size + 2):
            e = s + size - 1
            if e == 14 and s == 1:
                continue
            window = [p if p <= 13 else 1 for p in range(s, e + 1)]
            if set(nums) <= set(window):
                best = max(best, sum(window))
    return best


def _brute_best(tiles: Sequence[int | None], wrap: bool) -> int:
    """Every partition into melds by brute force (None = okey); at least one tile stays out."""
    n = len(tiles)
    memo: dict[int, int] = {}

    def value(mask: int) -> int:
        faces = [t for i, t in enumerate(tiles) if mask >> i & 1 and t is not None]
        okeys = sum(1 for i, t in enumerate(tiles) if mask >> i & 1 and t is None)
        return _meld_value(faces, okeys, wrap)

    def rec(free: int) -> int:
        if free == 0:
            return 0
        if free in memo:
            return memo[free]
        low = (free & -free).bit_length() - 1
        rest = free & ~(1 << low)
        best = rec(rest)  # the lowest free tile stays in hand
        others = [i for i in range(n) if rest >> i & 1]
        for k in range(2, len(others) + 1):
            for combo in combinations(others, k):
                mask = 1 << low
                for i in combo:
                    mask |= 1 << i
                v = value(mask)
                if v >= 0:
                    best = max(best, v + rec(free & ~mask))
        memo[free] = best
        return best

    full = (1 << n) - 1
    return max(rec(full & ~(1 << i)) for i in range(n))  # one tile is kept for the discard


def _ids(codes: str) -> list[int]:
    return [t for c in codes.split() for t in ids_of_face(parse_face(c))]


# Dense racks: two colours around the 13-1 seam, the fakes, and indicators whose okey is among
# them (R13, Y1) or apart (K2), so runs, groups, wraps and okeys meet often.
_POOL = _ids("R1 R2 R3 R10 R11 R12 R13 Y1 Y2 Y3 Y10 Y11 Y12 Y13 B12 K2 K12") + [104, 105]
_INDICATORS = _ids("R12 Y13 K1 B9")[::2]


@settings(max_examples=250, deadline=None)
@given(
    rack=st.one_of(
        st.lists(st.sampled_from(_POOL), min_size=1, max_size=9, unique=True),
        st.lists(st.integers(0, 105), min_size=1, max_size=9, unique=True),
    ),
    indicator=st.sampled_from(_INDICATORS),
    wrap=st.booleans(),
)
def test_best_opening_is_never_below_a_brute_force_search(rack: list[int], indicator: int, wrap: bool) -> None:
    rack = [t for t in rack if t != indicator] or [indicator ^ 1]
    table = effective_table(indicator)
    tiles = [None if table[t] < 0 else table[t] for t in rack]
    brute = _brute_best(tiles, wrap)
    got = O.run_opening(rack, indicator, wrap, 101)
    assert got.total >= brute
    assert got.total == brute  # and it is reachable: the melds below are valid


@settings(max_examples=150, deadline=None)
@given(
    rack=st.lists(st.integers(0, 105), min_size=1, max_size=22, unique=True),
    indicator=st.integers(0, 103),
    wrap=st.booleans(),
)
def test_every_returned_meld_is_valid_and_uses_rack_tiles(rack: list[int], indicator: int, wrap: bool) -> None:
    rack = [t for t in rack if t != indicator] or [indicator ^ 1]
    table = effective_table(indicator)
    got = O.run_opening(rack, indicator, wrap, 101)
    used = [t for m in got.melds for t in m]
    assert len(set(used)) == len(used) and set(used) <= set(rack)
    assert len(used) < len(rack)  # a tile is left for the discard [O-OPEN-5]
    total = 0
    for tiles, kind, faces, value in zip(got.melds, got.kinds, got.stands_for, got.values, strict=True):
        eff = [None if table[t] < 0 else face_from_index(table[t]) for t in tiles]
        meld = M.interpret_meld(eff, wrap, kind)  # laid in this order it is this meld
        assert meld.kind is kind and meld.value == value and tuple(str(f) for f in meld.stands_for) == faces
        total += value
    assert total == got.total
    pairs = O.pair_opening(rack, indicator, 5)
    flat = [t for m in pairs.melds for t in m]
    assert len(set(flat)) == len(flat) and set(flat) <= set(rack) and len(flat) < len(rack)
    for tiles in pairs.melds:
        eff = [None if table[t] < 0 else face_from_index(table[t]) for t in tiles]
        assert M.interpret_meld(eff, wrap, M.MeldKind.PAIR).kind is M.MeldKind.PAIR

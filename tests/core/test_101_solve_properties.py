"""Property tests of the fast best-points search behind 101's best opening (``melds.best_points``,
``okey solve``'s OKEY101 ``points`` and ``melds``): on dense racks of up to 22 tiles, okeys
standing in and both wraps, it gives exactly what the plain memoised search of every meld
(``melds._maximise`` scoring points) gives, the total and the very same melds in the same
order [O-OPEN-1] [O-OPEN-5] [M-RUN-2] [M-OKEY-1]. The small racks' brute force is
tests/core/test_properties.py."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from okeycore import melds as M
from test_properties import Counts, _check_arrangement, _pack


@st.composite
def dense_racks(draw: st.DrawFn) -> tuple[Counts, int, bool]:
    """8-22 tiles (0-2 of them okeys) from a few colours over a window of numbers, twins
    allowed: many overlapping runs and groups; windows often cross 13-1."""
    wrap = draw(st.booleans())
    j = draw(st.integers(0, 2))
    colours = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True))
    start = draw(st.sampled_from([0, 3, 6, 8, 9, 10, 11, 12]))
    width = draw(st.integers(4, 9))
    faces = [c * 13 + (start + k) % 13 for c in colours for k in range(width)]
    n_real = draw(st.integers(8 - j, 22 - j))
    counts: Counts = Counter()
    picks = draw(st.lists(st.sampled_from(faces), min_size=n_real, max_size=3 * n_real))
    for f in picks:
        if sum(counts.values()) < n_real and counts[f] < 2:
            counts[f] += 1
    return counts, j, wrap


def _key(melds: list[M.Meld]) -> list[tuple[str, tuple[int, ...], tuple[bool, ...]]]:
    return [(m.kind.value, tuple(f.index for f in m.stands_for), m.jokers) for m in melds]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dense_racks(), st.booleans())
def test_O_OPEN_1_best_points_is_the_plain_search_total_and_melds(rack: tuple[Counts, int, bool], leave: bool) -> None:
    counts, j, wrap = rack
    x = _pack(counts)
    want_total, descs = M._maximise(x, j, wrap, lambda _size, pts: pts, leave)
    want = [M._describe(d, None) for d in descs]
    got_total, got = M.best_points(x, j, wrap, must_leave=leave)
    assert got_total == want_total, (dict(counts), j, wrap, leave)
    assert _key(got) == _key(want), (dict(counts), j, wrap, leave)
    if got_total > M.NEG:
        _check_arrangement(got, counts, j, wrap)
        assert sum(m.value for m in got) == got_total
        if leave:  # [O-OPEN-5]: a tile stays for the discard
            assert sum(len(m) for m in got) < sum(counts.values()) + j

"""Property tests of the arrangement ``okey solve`` gives for a classic rack, read off the finish
check's own search (``melds.find_cover``): it exists exactly when the tiles form runs and groups
[C-FIN-1], every meld in it is a run or a group by the rules [M-RUN-1] [M-RUN-2] [M-GRP-1], and it
lays exactly the rack's tiles (a real okey as its own face, a fake as ``F``) [T-OKEY-2]
[T-FAKE-1]. The oracles are a brute force over every set of melds on small racks, and the old
finish check with the old way of getting an arrangement (``can_cover`` and ``best_cover``'s
maximisation) on 14-tile racks."""

from __future__ import annotations

import json
from collections import Counter

from hypothesis import HealthCheck, given, settings
from okeycore import melds as M
from okeycore.classic import effective_table, rack_packed
from okeycore.solve import solve_line, solve_request
from okeycore.tiles import face_of_id, parse_face, resolve_ids
from oracles import meld_kind
from test_properties import Counts, _pack, all_packings, explicit_meld_ok, near_meld_racks, racks15


def _laid(melds: list[M.Meld]) -> tuple[Counts, int]:
    """The real faces (by index) and the number of okeys an arrangement lays."""
    used: Counts = Counter()
    jokers = 0
    for meld in melds:
        for face, joker in zip(meld.stands_for, meld.jokers, strict=True):
            if joker:
                jokers += 1
            else:
                used[face.index] += 1
    return used, jokers


def _cold() -> None:
    for table in M._COVER_MEMO.values():
        table.clear()


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_meld_racks())
def test_C_FIN_1_a_cover_is_found_exactly_when_a_brute_force_lays_every_tile(rack: tuple[Counts, int, bool]) -> None:
    counts, j, wrap = rack
    x = _pack(counts)
    total = sum(counts.values()) + j
    coverable = max(used for used, _ in all_packings(counts, j, wrap)) == total
    _cold()
    melds = M.find_cover(x, j, wrap)
    assert (melds is not None) is coverable is M.can_cover(x, j, 0, wrap), (dict(counts), j, wrap)
    if melds is not None:
        assert all(explicit_meld_ok(m, wrap) and m.kind is not M.MeldKind.PAIR for m in melds), melds
        assert _laid(melds) == (+counts, j)  # every tile, each once; every okey
        assert M.find_cover(x, j, wrap) == melds  # a warm memo gives the same arrangement


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(racks15())
def test_C_FIN_1_the_arrangement_of_every_14_tiles_of_a_rack_agrees_with_the_old_check(
    rack: tuple[tuple[int, ...], int],
) -> None:
    """Each discard of a 15-tile rack leaves 14 tiles: solved from a cold and from a warm memo,
    the arrangement is there exactly when the old check says they finish by melds, when the old
    maximisation lays all 14, and it lays exactly the rack minus the discard."""
    tiles, indicator = rack
    table = effective_table(indicator)
    for t in tiles:
        rest = [u for u in tiles if u != t]
        x, j = rack_packed(rest, indicator)
        old = M.can_cover(x, j, 0, True)
        assert (M.best_cover(x, j, True)[0] == 14) is old
        _cold()
        cold = M.find_cover(x, j, True)
        assert (cold is not None) is old, (rest, indicator)
        assert M.find_cover(x, j, True) == cold
        if cold is not None:
            assert all(explicit_meld_ok(m, True) for m in cold), cold
            want: Counts = Counter(table[u] for u in rest if table[u] >= 0)
            assert _laid(cold) == (want, j)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(racks15())
def test_C_FIN_1_okey_solve_answers_every_14_tiles_of_a_rack_with_a_valid_arrangement(
    rack: tuple[tuple[int, ...], int],
) -> None:
    """Through the line protocol, by tile codes: ``melds`` is the old check, and the
    arrangement's codes are the request's tiles, each row a run or a group read by the rules
    text's own oracle (the okey in any place [T-OKEY-2], a fake okey as the okey's face
    [T-FAKE-1], 12-13-1 but never 13-1-2 [M-RUN-2])."""
    tiles, indicator = rack
    ind = face_of_id(indicator)
    for t in tiles:
        rest = [u for u in tiles if u != t]
        codes = [str(face_of_id(u)) for u in rest]
        req = {"game": "OKEY", "indicator": str(ind), "tiles": codes}
        got = solve_request(req)
        x, j = rack_packed(rest, indicator)
        assert got["melds"] is M.can_cover(x, j, 0, True)
        assert got["pairs"] is (_old_count_pairs(rest, indicator) >= 7)  # [C-FIN-2]
        assert json.loads(solve_line(json.dumps(req))) == got
        rows = got["arrangement"]
        if not (got["melds"] or got["pairs"]):
            assert rows is None
            continue
        assert sorted(c for row in rows for c in row) == sorted(codes)  # exactly the tiles given
        kinds = {meld_kind(resolve_ids([parse_face(c) for c in row], exclude=[indicator]), indicator) for row in rows}
        if got["melds"]:  # melds first, whether or not the tiles are also seven pairs
            assert kinds <= {"RUN", "GROUP"}, (rows, str(ind))
        else:
            assert kinds == {"PAIR"} and len(rows) == 7, (rows, str(ind))


def _old_count_pairs(tiles: list[int], indicator: int) -> int:
    """Most pairs, as the solver counted them before it went bit-parallel: twins, then each
    okey completing a single, then two okeys together [M-PAIR-1]."""
    table = effective_table(indicator)
    counts = Counter(table[t] for t in tiles if table[t] >= 0)
    okeys = sum(1 for t in tiles if table[t] < 0)
    singles = sum(n % 2 for n in counts.values())
    used = min(okeys, singles)
    return sum(n // 2 for n in counts.values()) + used + (okeys - used) // 2

"""``okey solve`` OKEY101 lines against ARCHITECTURE.md section 5: the best opening that leaves a
tile, the most pairs that leave a tile, and an error line for a bad request."""

from __future__ import annotations

import json
import random

from okeycore import okey101 as O
from okeycore.solve import solve_line
from okeycore.tiles import face_of_id


def solve(tiles: str, indicator: str = "B7", wrap: bool | None = False) -> dict[str, object]:
    req: dict[str, object] = {"game": "OKEY101", "indicator": indicator, "tiles": tiles.split()}
    if wrap is not None:
        req["wrap"] = wrap
    out = json.loads(solve_line(json.dumps(req)))
    assert isinstance(out, dict)
    return out


def test_solve_101_answers_points_pairs_melds_exactly() -> None:
    out = solve("R10 B8 R12 R12 R13")
    assert list(out) == ["points", "pairs", "melds"]
    assert out == {"points": 46, "pairs": 2, "melds": [["R10", "B8", "R12", "R13"]]}


def test_solve_101_worked_examples_okey_values() -> None:
    assert solve("R10 B8 R12 K1")["points"] == 33
    assert solve("R12 R13 B8 K1")["points"] == 36  # the okey is an R11
    assert solve("R12 R13 B8 K1", wrap=True)["points"] == 36  # wrap may, but need not, make it 12-13-1
    assert solve("R9 K9 B8 Y1")["points"] == 27
    assert solve("R12 R13 R1 K5", wrap=True)["points"] == 26
    assert solve("R12 R13 R1 K5", wrap=None)["points"] == 0  # wrap defaults to off


def test_solve_101_always_leaves_a_tile() -> None:
    assert solve("R1 R2 R3") == {"points": 0, "pairs": 0, "melds": []}
    assert solve("R1 R2 R3 R4")["points"] == 9  # R2 R3 R4, R1 kept
    assert solve("R5 R5 Y5 Y5")["pairs"] == 1
    assert solve("R5 R5 Y5 Y5 K1")["pairs"] == 2
    assert solve("B8 B8")["pairs"] == 0  # two okeys pair, but nothing would be left


def test_solve_101_bad_lines_get_an_error() -> None:
    assert "error" in solve(" ".join(["R1"] * 3))
    assert "error" in solve(" ".join("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12".split() * 2))  # 24 tiles
    assert "error" in json.loads(solve_line('{"game":"OKEY101","indicator":"F","tiles":["R1"]}'))
    assert "error" in json.loads(solve_line('{"game":"OKEY101","indicator":"B7","tiles":["R1"],"wrap":"no"}'))


def test_solve_101_agrees_with_the_engines_opening_preview() -> None:
    rng = random.Random(11)
    for _ in range(200):
        ids = rng.sample(range(106), 23)
        indicator = next(t for t in ids if t < 104)
        rack = [t for t in ids if t != indicator][:22]
        out = solve(" ".join(str(face_of_id(t)) for t in rack), str(face_of_id(indicator)))
        preview = O.run_opening(rack, indicator, False, 101)
        assert out["points"] == preview.total
        assert out["pairs"] == O.pair_opening(rack, indicator, 5).total
        melds = out["melds"]
        assert isinstance(melds, list)
        assert sorted(len(m) for m in melds) == sorted(len(m) for m in preview.melds)

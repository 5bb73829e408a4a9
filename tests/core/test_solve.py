"""The solver's line protocol (``okey solve``): answers, and clear errors for bad requests."""

from __future__ import annotations

import json
from typing import Any

import pytest
from okeycore.melds import Meld, MeldKind, interpret_meld
from okeycore.solve import SolveError, solve_line, solve_request
from okeycore.tiles import Face, okey_face, parse_face

READY = "R1 R2 R3 Y4 Y5 Y6 K7 K8 K9 B10 B11 B12 B13 B9".split()


def okey(tiles: list[str] | str, indicator: Any = "B5", **extra: Any) -> dict[str, Any]:
    return {
        "game": "OKEY",
        "indicator": indicator,
        "tiles": tiles.split() if isinstance(tiles, str) else tiles,
        **extra,
    }


def melds_of(
    arrangement: list[list[str]], indicator: str = "B5", kind: MeldKind | None = None, wrap: bool = True
) -> list[Meld]:
    """Each group of an answer read back by okeycore's own meld check (interpret_meld raises
    MeldError on a group that is not a run, group or pair): the okey's code is wild, F plays the
    okey's face [T-FAKE-1]."""
    wild = okey_face(parse_face(indicator))

    def effective(code: str) -> Face | None:
        return None if code == str(wild) else wild if code == "F" else parse_face(code)

    return [interpret_meld([effective(c) for c in group], wrap, kind) for group in arrangement]


def test_okey_melds_answer_with_an_arrangement() -> None:
    got = solve_request(okey(READY))
    assert got["melds"] is True and got["pairs"] is False
    assert sorted(c for m in got["arrangement"] for c in m) == sorted(READY)
    assert all(m.kind is not MeldKind.PAIR for m in melds_of(got["arrangement"]))


def test_okey_pairs_only_and_nothing() -> None:
    got = solve_request(okey("R1 R1 R2 R2 R3 R3 Y4 Y4 Y5 Y5 K6 K6 K7 K7"))
    assert got["pairs"] is True
    assert got["melds"] is False and all(len(m) == 2 for m in got["arrangement"])
    assert len(melds_of(got["arrangement"], kind=MeldKind.PAIR)) == 7
    got = solve_request(okey("R1 R3 R5 R7 R9 R11 R13 Y2 Y4 Y6 Y8 Y10 Y12 K1"))
    assert got == {"melds": False, "pairs": False, "arrangement": None}


def test_okey_real_okey_and_fake_okey_are_written_as_such() -> None:
    # Indicator B5: B6 is the okey (stands for R4 here), F plays the plain B6 in B4 B5 F.
    tiles = "R1 R2 R3 B6 Y4 Y5 Y6 K7 K8 K9 B3 B4 B5 F"
    got = solve_request(okey(tiles))
    assert got["melds"] is True
    flat = [c for m in got["arrangement"] for c in m]
    assert flat.count("B6") == 1 and flat.count("F") == 1
    assert ["B3", "B4", "B5", "F"] in got["arrangement"]
    assert sorted(c for m in got["arrangement"] for c in m) == sorted(
        "R1 R2 R3 B6 Y4 Y5 Y6 K7 K8 K9 B3 B4 B5 F".split()
    )
    assert all(m.kind is not MeldKind.PAIR for m in melds_of(got["arrangement"]))


def test_okey101_points_and_pairs() -> None:
    got = solve_request({"game": "OKEY101", "indicator": "B7", "tiles": "R10 B8 R12 R12 R13".split(), "wrap": False})
    assert got == {"points": 46, "pairs": 2, "melds": [["R10", "B8", "R12", "R13"]]}
    assert [m.kind for m in melds_of(got["melds"], "B7", wrap=False)] == [MeldKind.RUN]


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (okey(READY[:13]), "expected 14 tiles, got 13"),
        (okey([*READY, "R5"]), "expected 14 tiles, got 15"),
        (okey([]), "expected 14 tiles, got 0"),
        (okey([*READY[:13], "Z9"]), "unknown tile code 'Z9'"),
        (okey([*READY[:13], "R14"]), "unknown tile code 'R14'"),
        (okey([*READY[:13], 7]), "must be a string"),
        (okey(READY, indicator="X1"), "unknown tile code 'X1'"),
        (okey(READY, indicator="F"), "never a fake okey"),
        (okey(READY, indicator=None), '"indicator" must be a tile code'),
        (okey(READY, indicator=["B5", "R3"]), '"indicator" must be a tile code'),  # two indicators
        (okey("R1 R1 R1 R2 R3 Y4 Y5 Y6 K7 K8 K9 B10 B11 B12"), "3 copies of R1"),
        (okey("F F F R2 R3 Y4 Y5 Y6 K7 K8 K9 B10 B11 B12"), "3 copies of F"),
        (okey("B5 B5 R1 R2 R3 Y4 Y5 Y6 K7 K8 K9 B10 B11 B12"), "(the indicator is one of them)"),
        ({"game": "OKEY", "indicator": "B5", "tiles": "R1 R2"}, '"tiles" must be a list'),
        ({"game": "OKEY", "indicator": "B5"}, '"tiles" must be a list'),
        ({"game": "CHESS", "indicator": "B5", "tiles": READY}, '"game" must be'),
        ({"indicator": "B5", "tiles": READY}, '"game" must be'),
        ({"game": "OKEY101", "indicator": "B5", "tiles": READY, "wrap": "yes"}, '"wrap" must be true or false'),
        ({"game": "OKEY101", "indicator": "B5", "tiles": []}, "expected 1 to 22 tiles, got 0"),
        ({"game": "OKEY101", "indicator": "B5", "tiles": ["R1"] * 23}, "expected 1 to 22 tiles, got 23"),
        ([1, 2, 3], "JSON object"),
    ],
)
def test_bad_requests_raise_a_readable_SolveError(request_: Any, message: str) -> None:
    with pytest.raises(SolveError) as exc:
        solve_request(request_)
    assert message in str(exc.value)
    # The line protocol answers with the same reason and never raises.
    answer = json.loads(solve_line(json.dumps(request_)))
    assert answer == {"error": str(exc.value)}


@pytest.mark.parametrize("line", ["", "not json", "{", '{"game": "OKEY"', "[", "null", "42", '"OKEY"'])
def test_lines_that_are_not_requests_get_an_error_line(line: str) -> None:
    answer = json.loads(solve_line(line))
    assert set(answer) == {"error"} and answer["error"]


def test_solve_line_answers_a_good_line() -> None:
    answer = json.loads(solve_line(json.dumps(okey(READY))))
    assert answer["melds"] is True and answer["pairs"] is False

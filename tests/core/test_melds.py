"""Melds: runs, groups, pairs and what an okey stands for (RULES.md section 2), and tables of
example racks for the solver."""

from __future__ import annotations

import pytest
from okeycore.melds import (
    NEG,
    Meld,
    MeldError,
    MeldKind,
    best_cover,
    best_points,
    can_cover,
    count_pairs,
    interpret_meld,
    pack,
    pair_melds,
)
from okeycore.tiles import Face, effective_face, okey_face, parse_face

OK = None  # a wild okey in an effective-face list


def eff(text: str, indicator: str | None = None) -> list[Face | None]:
    """Tile codes to effective faces; ``*`` is a wild okey; with an indicator, real codes are
    resolved as the table would (the okey's face is wild, ``F`` plays as the okey's face)."""
    out: list[Face | None] = []
    okey = okey_face(parse_face(indicator)) if indicator else None
    for c in text.split():
        if c == "*":
            out.append(None)
        elif okey is not None:
            out.append(effective_face(parse_face(c), okey))
        else:
            out.append(parse_face(c))
    return out


def packed(text: str, indicator: str | None = None) -> tuple[int, int]:
    return pack(eff(text, indicator))


def covers(text: str, wrap: bool = True, skips: int = 0) -> bool:
    x, j = packed(text)
    return can_cover(x, j, skips, wrap)


def meld(text: str, wrap: bool = True, kind: MeldKind | None = None) -> Meld:
    return interpret_meld(eff(text), wrap, kind)


def faces(m: Meld) -> str:
    return " ".join(str(f) for f in m.stands_for)


# ------------------------------------------------------------------ [M-RUN-1]


@pytest.mark.parametrize("text", ["R3 R4 R5", "K1 K2 K3", "Y11 Y12 Y13", "B1 B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 B12 B13"])
def test_M_RUN_1_three_or_more_consecutive_of_one_colour_is_a_run(text: str) -> None:
    m = meld(text)
    assert m.kind is MeldKind.RUN
    assert faces(m) == text
    assert covers(text) and covers(text, wrap=False)


@pytest.mark.parametrize("text", ["R3 R4", "R3 R4 R6", "R3 Y4 R5", "R3 R3 R4", "R5 R4 R3 R2 R2"])
def test_M_RUN_1_not_a_run(text: str) -> None:
    with pytest.raises(MeldError):
        meld(text, kind=MeldKind.RUN)
    assert not covers(text)


def test_M_RUN_1_runs_may_be_laid_in_any_order_and_split_any_way() -> None:
    assert faces(meld("R5 R3 R4")) == "R3 R4 R5"
    # Six consecutive tiles: one run of six, or two of three.
    assert covers("K4 K5 K6 K7 K8 K9")
    assert covers("K4 K4 K5 K5 K6 K6")  # two identical runs
    assert not covers("K4 K5 K6 K7 K8 K9 K10 K12")


# ------------------------------------------------------------------ [M-RUN-2]


@pytest.mark.parametrize("text", ["R12 R13 R1", "R11 R12 R13 R1", "Y10 Y11 Y12 Y13 Y1"])
def test_M_RUN_2_13_may_be_followed_by_1_at_the_end_when_wrap_is_on(text: str) -> None:
    m = meld(text, wrap=True)
    assert m.kind is MeldKind.RUN and faces(m) == text
    assert covers(text, wrap=True)
    # Okey 101 without wrap: not a run.
    with pytest.raises(MeldError):
        meld(text, wrap=False, kind=MeldKind.RUN)
    assert not covers(text, wrap=False)


def test_M_RUN_2_thirteen_numbers_laid_2_to_13_then_1() -> None:
    text = "Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 Y10 Y11 Y12 Y13 Y1"
    assert faces(meld(text, wrap=True)) == text  # the 1 stays after 13 as laid
    # Without wrap the same tiles are still a run, read as 1..13.
    assert faces(meld(text, wrap=False)) == "Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 Y10 Y11 Y12 Y13"
    assert meld(text, wrap=True).value == meld(text, wrap=False).value == 91


@pytest.mark.parametrize("text", ["R13 R1 R2", "R12 R13 R1 R2", "R13 R1 R2 R3", "B13 B1 B2 B3 B4"])
def test_M_RUN_2_13_1_2_is_never_a_run(text: str) -> None:
    for wrap in (True, False):
        with pytest.raises(MeldError):
            meld(text, wrap=wrap, kind=MeldKind.RUN)
        assert not covers(text, wrap=wrap)


def test_M_RUN_2_a_run_never_passes_1_in_the_middle_even_with_okeys() -> None:
    # 13 okey 2: the okey would have to be a 1 in the middle.
    with pytest.raises(MeldError):
        meld("R13 * R2", kind=MeldKind.RUN)
    assert not covers("R13 * R2")
    assert not covers("R13 R2 * *")  # okeys extend either tile, never bridge 13 and 2
    assert not covers("R13 R2 *")
    # 13 1 okey: the okey can only be the 12 before (12-13-1), never a 2 after.
    m = meld("R13 R1 *")
    assert faces(m) == "R12 R13 R1" and m.jokers == (True, False, False)
    # 1 .. 13 then 1 again would pass 1: fourteen tiles are never one run.
    with pytest.raises(MeldError):
        meld("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R1", kind=MeldKind.RUN)
    # (as fourteen tiles of a finish they still cover: 1..11 and 12-13-1)
    assert covers("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R1")


def test_M_RUN_2_the_solver_never_lays_1_to_13_and_then_1() -> None:
    x, j = packed("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 *")
    for solve, total in ((best_cover, 14), (best_points, 103)):
        got, melds = solve(x, j, True, must_leave=False)
        assert got == total
        for m in melds:
            assert not (m.stands_for[0].number == 1 and len(m) == 14)
            assert interpret_meld(list(m.stands_for), True).kind is MeldKind.RUN


def test_M_RUN_2_classic_finish_with_a_wrapped_run_but_not_13_1_2() -> None:
    from okeycore.classic import check_finish
    from okeycore.testing import tid

    ind = tid("K5")  # okey K6, out of the way
    good = "R12 R13 R1 Y4 Y5 Y6 B7 B8 B9 K9 K10 K11 K12 K13"
    bad = "R13 R1 R2 Y4 Y5 Y6 B7 B8 B9 K9 K10 K11 K12 K13"
    assert check_finish([tid(c) for c in good.split()], ind) is not None
    assert check_finish([tid(c) for c in bad.split()], ind) is None


# ------------------------------------------------------------------ [M-RUN-3]


def test_M_RUN_3_a_1_after_13_is_worth_1() -> None:
    assert meld("R12 R13 R1").value == 12 + 13 + 1
    assert meld("R11 R12 R13 R1").value == 37
    x, j = packed("R12 R13 R1")
    assert best_points(x, j, True, must_leave=False)[0] == 26
    # Laid after 13 the okey stands for the 1 (worth 1); the solver prefers it as the 11.
    assert meld("R12 R13 *").value == 26
    x, j = packed("R12 R13 *")
    total, melds = best_points(x, j, True, must_leave=False)
    assert total == 36 and faces(melds[0]) == "R11 R12 R13"


# ------------------------------------------------------------------ [M-GRP-1]


@pytest.mark.parametrize("text", ["R7 Y7 B7", "R7 Y7 B7 K7", "K1 B1 Y1", "R13 K13 Y13 B13"])
def test_M_GRP_1_three_or_four_of_one_number_all_different_colours(text: str) -> None:
    m = meld(text)
    assert m.kind is MeldKind.GROUP
    assert m.value == len(m) * m.stands_for[0].number
    assert covers(text)


@pytest.mark.parametrize("text", ["R7 R7 Y7", "R7 Y7", "R7 Y7 B8", "R7 Y7 B7 K7 R7", "R7 R7 Y7 Y7"])
def test_M_GRP_1_not_a_group(text: str) -> None:
    with pytest.raises(MeldError):
        meld(text, kind=MeldKind.GROUP)
    assert not covers(text)


def test_M_GRP_1_an_okey_in_a_group_of_four() -> None:
    m = meld("R7 Y7 B7 *")
    assert m.kind is MeldKind.GROUP and len(m) == 4
    assert faces(m) == "R7 Y7 B7 K7" and m.jokers == (False, False, False, True)
    assert m.value == 28
    assert covers("R7 Y7 B7 *")
    # A fifth tile never fits a group, okey or not.
    with pytest.raises(MeldError):
        meld("R7 Y7 B7 K7 *", kind=MeldKind.GROUP)
    assert not covers("R7 Y7 B7 K7 *")
    # Group of four with both okeys: two real colours plus two okeys.
    assert faces(meld("R7 Y7 * *", kind=MeldKind.GROUP)) == "R7 Y7 B7 K7"


# ------------------------------------------------------------------ [M-PAIR-1]


def test_M_PAIR_1_pairs_two_identical_faces_okey_completes_two_okeys_pair() -> None:
    assert meld("R5 R5").kind is MeldKind.PAIR
    assert meld("R5 *").kind is MeldKind.PAIR
    assert meld("* *").kind is MeldKind.PAIR  # two okeys are a pair
    with pytest.raises(MeldError):
        meld("R5 Y5")
    with pytest.raises(MeldError):
        meld("R5 R6")
    x, j = packed("R5 R5 Y6 Y6 K1")
    assert count_pairs(x, j) == 2
    assert count_pairs(x, j + 1) == 3  # okey completes K1
    assert count_pairs(x, j + 2) == 3  # second okey has no partner
    assert count_pairs(*packed("* *")) == 1
    assert count_pairs(*packed("R1 * *")) == 1
    assert count_pairs(*packed("R1 Y2 * *")) == 2
    # A pair never forms from two different faces, however many there are.
    assert count_pairs(*packed("R1 R2 R3 R4 Y1 Y2 Y3 Y4")) == 0
    assert [m.jokers for m in pair_melds(*packed("R5 R5 * *"))] == [(False, False), (True, True)]
    assert [m.jokers for m in pair_melds(*packed("R5 R5 K1 *"))] == [(False, False), (False, True)]


def test_M_PAIR_1_seven_pairs_count_with_fakes_as_okey_face() -> None:
    # Indicator B5: B6 is wild, F plays B6; two fakes are a pair of B6s.
    x, j = packed("F F R1 R1 Y2 Y2 K3 K3 B4 B4 R9 R9 Y10 Y10", "B5")
    assert j == 0 and count_pairs(x, j) == 7
    x, j = packed("B6 B6 R1 R1 Y2 Y2 K3 K3 B4 B4 R9 R9 Y10 Y10", "B5")
    assert j == 2 and count_pairs(x, j) == 7


# ------------------------------------------------------------------ [M-OKEY-1]


def test_M_OKEY_1_examples_from_the_rules_okey_B7_no_wrap() -> None:
    ind = "B6"  # okey B7
    assert okey_face(parse_face(ind)) == parse_face("B7")
    r10_ok_r12 = interpret_meld(eff("R10 B7 R12", ind), wrap=False)
    assert r10_ok_r12.value == 33 and faces(r10_ok_r12) == "R10 R11 R12"
    r12_r13_ok = interpret_meld(eff("R12 R13 B7", ind), wrap=False)
    assert r12_r13_ok.value == 36 and faces(r12_r13_ok) == "R11 R12 R13"  # okey placed before
    r9_k9_ok = interpret_meld(eff("R9 K9 B7", ind), wrap=False)
    assert r9_k9_ok.value == 27 and r9_k9_ok.kind is MeldKind.GROUP
    # A meld may hold both okeys: Y1 okey okey is a group (the engine reads it as one).
    y1 = interpret_meld(eff("Y1 B7 B7", ind), wrap=False)
    assert y1.kind is MeldKind.GROUP and y1.jokers == (False, True, True)
    assert interpret_meld(eff("Y1 B7 B7", ind), wrap=False, kind=MeldKind.RUN).value == 6


def test_M_OKEY_1_the_arrangement_fixes_what_the_okey_stands_for() -> None:
    assert faces(meld("R4 * R6")) == "R4 R5 R6"
    assert faces(meld("* R4 R5")) == "R3 R4 R5"
    assert faces(meld("R4 R5 *")) == "R4 R5 R6"
    # Out of order: the highest window that fits.
    assert faces(meld("R5 R4 *", wrap=False)) == "R4 R5 R6"
    # The solver's choice maximises the points (101 openings count the okey's value).
    x, j = packed("R10 R12 *")
    assert best_points(x, j, False, must_leave=False)[0] == 33
    x, j = packed("R12 R13 *")
    assert best_points(x, j, False, must_leave=False)[0] == 36


# ------------------------------------------------------------------ solver tables


@pytest.mark.parametrize(
    ("text", "wrap", "expected"),
    [
        ("R1 R2 R3 Y4 Y5 Y6 K7 K8 K9 B10 B11 B12 B13 B9", True, True),
        ("R1 R2 R3 Y4 Y5 Y6 K7 K8 K9 B10 B11 B12 B13 B8", True, False),
        ("R1 R2 R3 Y4 Y5 Y6 K7 K8 K9 B10 B11 B12 B13 *", True, True),
        ("R1 Y1 B1 K1 R2 Y2 B2 K2 R3 Y3 B3 K3 R4 Y4", True, True),  # runs 1-4 1-4 1-3 1-3
        ("R1 Y1 B1 K1 R2 Y2 B2 K2 R3 Y3 B3 K3 R5 Y5", True, False),
        ("R1 Y1 B1 K1 R2 Y2 B2 K2 R3 Y3 B3 K3 R5 *", True, True),
        ("R1 Y1 B1 K1 R2 Y2 B2 K2 R3 Y3 B3 R4 * *", True, True),
        ("R1 R2 R3 R1 R2 R3 Y5 B5 K5 R12 R13 Y12 Y13 *", True, False),
        ("R1 R2 R3 R1 R2 R3 Y5 B5 K5 R11 R12 R13 * *", True, True),
        ("R12 R13 R1 Y12 Y13 Y1 B12 B13 B1 K12 K13 K1 * *", True, True),
        ("R12 R13 R1 Y12 Y13 Y1 B12 B13 B1 K12 K13 K1 * *", False, True),  # groups of 1, 12, 13
        ("R12 R13 R1 R12 R13 R1 B12 B13 B1 K2 K3 K4 * *", False, False),
    ],
)
def test_can_cover_examples(text: str, wrap: bool, expected: bool) -> None:
    x, j = packed(text)
    assert can_cover(x, j, 0, wrap) is expected
    total, melds = best_cover(x, j, wrap)
    assert (total == len(text.split())) is expected
    assert sum(len(m) for m in melds) == total
    for m in melds:  # every meld returned is valid as laid out
        assert interpret_meld(list(m.stands_for), wrap).kind is m.kind


@pytest.mark.parametrize(
    ("text", "skips", "expected"),
    [
        ("R1 R2 R3 K9", 0, False),
        ("R1 R2 R3 K9", 1, True),
        ("R1 R2 R3 K9 K11", 1, False),
        ("R1 R2 R3 K9 K11", 2, True),
        ("*", 0, False),
        ("*", 1, True),
        ("", 0, True),
    ],
)
def test_can_cover_with_skipped_tiles(text: str, skips: int, expected: bool) -> None:
    x, j = packed(text)
    assert can_cover(x, j, skips, True) is expected


def test_best_points_101_example_of_okey_solve_in_the_docs() -> None:
    x, j = packed("R10 B8 R12 R12 R13", "B7")
    total, melds = best_points(x, j, False)
    assert total == 46
    assert [faces(m) for m in melds] == ["R10 R11 R12 R13"]
    assert count_pairs(x, j) == 2


def test_best_points_and_cover_must_leave_one_tile() -> None:
    x, j = packed("R1 R2 R3")
    assert best_points(x, j, True, must_leave=False)[0] == 6
    assert best_points(x, j, True, must_leave=True)[0] == 0
    assert best_cover(x, j, True, must_leave=True)[0] == 0
    x, j = packed("R1 R2 R3 R4")
    assert best_points(x, j, True, must_leave=True)[0] == 9  # R2 R3 R4, R1 stays
    assert best_cover(x, j, True, must_leave=True)[0] == 3
    assert best_cover(0, 0, True, must_leave=True)[0] == NEG


@pytest.mark.parametrize(
    ("laid", "message"),
    [
        ("R5", "at least three"),
        ("* * *", "not an okey"),
        ("R5 Y5 B5 K5 R5", "at most four"),
        ("R5 R6 R8", "run"),
    ],
)
def test_interpret_meld_errors_say_why(laid: str, message: str) -> None:
    with pytest.raises(MeldError, match=message):
        meld(laid)


def test_interpret_meld_refuses_a_raw_fake() -> None:
    with pytest.raises(MeldError, match="fake okey"):
        interpret_meld([parse_face("F"), parse_face("R1"), parse_face("R2")], True)

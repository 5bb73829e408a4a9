"""Tiles, notation, the indicator and the okey (RULES.md section 1)."""

from __future__ import annotations

import pytest
from okeycore.classic import Phase, check_finish, deal, effective_table
from okeycore.commands import Discard, Finish, ShowIndicator
from okeycore.events import HandEnded, PenaltyApplied
from okeycore.melds import can_cover, count_pairs, interpret_meld, pack
from okeycore.testing import Table, build_order, tid
from okeycore.tiles import (
    FAKE,
    TILE_COUNT,
    Colour,
    Face,
    TileError,
    all_faces,
    effective_face,
    face_from_index,
    face_of_id,
    ids_of_face,
    is_fake_id,
    okey_face,
    parse_face,
    parse_faces,
    resolve_ids,
)

# ------------------------------------------------------------------ the set and the notation


def test_the_set_has_106_tiles_two_of_each_face_and_two_fakes() -> None:
    assert TILE_COUNT == 106
    faces = [face_of_id(t) for t in range(TILE_COUNT)]
    for f in all_faces()[:52]:
        assert faces.count(f) == 2
    assert faces.count(FAKE) == 2
    assert len(all_faces()) == 53


@pytest.mark.parametrize("index", range(53))
def test_face_index_and_physical_ids_agree(index: int) -> None:
    f = face_from_index(index)
    assert f.index == index
    a, b = ids_of_face(f)
    assert (a, b) == (2 * index, 2 * index + 1)
    assert face_of_id(a) == face_of_id(b) == f
    assert is_fake_id(a) == f.is_fake
    assert parse_face(str(f)) == f


def test_notation_colour_letters_and_numbers() -> None:
    assert parse_face("R7") == Face(Colour.R, 7)
    assert parse_face("K13") == Face(Colour.K, 13)
    assert parse_face("Y1") == Face(Colour.Y, 1)
    assert parse_face("B10") == Face(Colour.B, 10)
    assert parse_face("F") == FAKE and FAKE.is_fake
    # Lenient about case and surrounding blanks, strict about everything else.
    assert parse_face(" b5 ") == Face(Colour.B, 5)
    assert [str(f) for f in parse_faces(["R1", "F", "K13"])] == ["R1", "F", "K13"]


@pytest.mark.parametrize("bad", ["", "R", "R0", "R14", "G5", "5R", "RR5", "F1", "FF", "R 5", "R-1", "okey"])
def test_unknown_tile_codes_are_refused_with_a_readable_reason(bad: str) -> None:
    with pytest.raises(TileError) as exc:
        parse_face(bad)
    assert repr(bad) in str(exc.value)
    assert "R, Y, B or K" in str(exc.value)


@pytest.mark.parametrize("bad", [5, None, ["R5"], b"R5"])
def test_a_tile_code_must_be_a_string(bad: object) -> None:
    with pytest.raises(TileError, match="must be a string"):
        parse_face(bad)


@pytest.mark.parametrize("bad", [-1, 106, 1000])
def test_tile_ids_outside_the_set_are_refused(bad: int) -> None:
    with pytest.raises(TileError, match="outside"):
        face_of_id(bad)


def test_resolve_ids_refuses_a_third_copy_and_respects_exclusions() -> None:
    r5 = parse_face("R5")
    assert resolve_ids([r5, r5]) == [8, 9]
    with pytest.raises(TileError, match="too many copies of R5"):
        resolve_ids([r5, r5, r5])
    with pytest.raises(TileError, match="too many copies of F"):
        resolve_ids([FAKE, FAKE, FAKE])
    # The indicator uses up one copy of its face.
    assert resolve_ids([r5], exclude=[8]) == [9]
    with pytest.raises(TileError):
        resolve_ids([r5, r5], exclude=[8])


# ------------------------------------------------------------------ [T-IND-1]


def test_T_IND_1_indicator_is_never_a_fake_okey_the_next_tile_is_taken() -> None:
    order = list(build_order({}, indicator="B5"))
    # Put both fakes right where the indicator would be turned up.
    for k, fake in enumerate((104, 105)):
        order.remove(fake)
        order.insert(57 + k, fake)
    _, indicator, deck = deal(order, 0)
    assert not is_fake_id(indicator)
    assert indicator == order[59]
    assert len(deck) == 48 and 104 in deck and 105 in deck
    assert deck[:2] == (104, 105)  # the skipped fakes stay, in order, on top of the deck
    with pytest.raises(TileError, match="T-IND-1"):
        okey_face(FAKE)
    t = Table()
    t.deal(order)
    assert not is_fake_id(t.state.indicator)
    assert t.state.okey == okey_face(face_of_id(order[59]))


# ------------------------------------------------------------------ [T-OKEY-1]


@pytest.mark.parametrize(
    ("indicator", "okey"), [("B5", "B6"), ("R13", "R1"), ("Y1", "Y2"), ("K12", "K13"), ("K13", "K1")]
)
def test_T_OKEY_1_okey_is_indicator_colour_next_number_13_wraps_to_1(indicator: str, okey: str) -> None:
    assert okey_face(parse_face(indicator)) == parse_face(okey)


@pytest.mark.parametrize("ind_index", range(52))
def test_T_OKEY_1_both_copies_of_the_okey_face_and_nothing_else_are_wild(ind_index: int) -> None:
    indicator = 2 * ind_index
    ok = okey_face(face_from_index(ind_index))
    table = effective_table(indicator)
    wild = [t for t in range(TILE_COUNT) if table[t] < 0]
    assert wild == list(ids_of_face(ok))
    assert ok.colour == face_from_index(ind_index).colour


# ------------------------------------------------------------------ [T-OKEY-2]


def test_T_OKEY_2_okey_substitutes_in_a_run_a_group_and_a_pair() -> None:
    def r(code: str) -> Face:
        return parse_face(code)

    # run R3 _ R5, group R9 Y9 _, pair K4 _ : each needs the okey
    run = pack([r("R3"), r("R5")])
    group = pack([r("R9"), r("Y9")])
    assert not can_cover(run[0], 0, 0, True)
    assert can_cover(run[0], 1, 0, True)
    assert not can_cover(group[0], 0, 0, True)
    assert can_cover(group[0], 1, 0, True)
    assert count_pairs(pack([r("K4")])[0], 0) == 0
    assert count_pairs(pack([r("K4")])[0], 1) == 1
    assert interpret_meld([r("R3"), None, r("R5")], True).stands_for[1] == r("R4")
    assert interpret_meld([r("K4"), None], True).kind == "PAIR"
    # In a finish: the okey (B6 under indicator B5) completes R3 _ R5.
    ind = tid("B5")
    rest = [tid(c) for c in "R3 R5 Y7 Y8 Y9 K1 K2 K3 K4 B10 B11 B12 B13".split()] + [tid("B6")]
    assert check_finish(rest, ind) is not None


# ------------------------------------------------------------------ [T-FAKE-1]


def test_T_FAKE_1_fake_okey_is_not_wild_it_plays_as_the_okey_face() -> None:
    okey = parse_face("B6")
    assert effective_face(FAKE, okey) == okey
    assert effective_face(okey, okey) is None
    assert effective_face(parse_face("R6"), okey) == parse_face("R6")
    ind = tid("B5")
    table = effective_table(ind)
    assert table[104] == table[105] == okey.index
    # B4 B5 F is a run (F = B6) ...
    rest_ok = [tid(c, 1) for c in "B4 B5 Y7 Y8 Y9 K1 K2 K3 K4 R10 R11 R12 R13".split()] + [104]
    assert check_finish(rest_ok, ind) is not None
    # ... but R3 F R5 is not (a wild okey would have made it R3 R4 R5).
    rest_bad = [tid(c) for c in "R3 R5 Y7 Y8 Y9 K1 K2 K3 K4 B10 B11 B12 B13".split()] + [104]
    assert check_finish(rest_bad, ind) is None
    rest_bad[-1] = tid("B6")  # the real okey does make it
    assert check_finish(rest_bad, ind) is not None


# ------------------------------------------------------------------ [T-FAKE-2]


def test_T_FAKE_2_fake_and_real_okey_are_not_copies_of_each_other() -> None:
    # A rack may hold both real okeys and both fakes: four "B6" tiles, no third-copy error.
    b6 = parse_face("B6")
    assert sorted(resolve_ids([b6, b6, FAKE, FAKE])) == [2 * b6.index, 2 * b6.index + 1, 104, 105]
    # Discarding a fake is not discarding an okey [C-SC-6]; finishing with a fake is not an
    # okey finish [C-SC-3]; showing the indicator needs its real twin, not a fake [C-IND-1].
    order = build_order({0: "F R1 R2 R3 R4 Y4 Y5 Y6 K7 K8 K9 B10 B11 B12 B13", 1: "F B5"}, indicator="B5", avoid="B6")
    t = Table(penalties=True)
    t.deal(order)
    assert t.code(ShowIndicator(seat=0)) == "NO_INDICATOR_TWIN"  # holds a fake, not the twin
    assert t.state.seats[1].rack.count(tid("B5") ^ 1) == 1
    (end, *_) = t.do(Finish(seat=0, tile=104))
    assert isinstance(end, HandEnded)
    assert not end.okey_finish and end.multiplier == 1
    t2 = Table(penalties=True)
    t2.deal(order)
    events = t2.do(Discard(seat=0, tile=104))
    assert not any(isinstance(e, PenaltyApplied) for e in events)
    assert t2.scores == (20, 20, 20, 20)
    assert t2.state.phase is Phase.PLAYING

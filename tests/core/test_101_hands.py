"""Complete Okey 101 hands played move by move from the rules text, asserting every score:
one hand per ending (normal, okey, pair opener, elden, deck exhausted, void) [O-SC-1..5] [D-1]
[D-2] [D-7] [O-PEN-4]. Indicator K1 throughout: the okey is K2, a fake okey (F) is a plain K2."""

from __future__ import annotations

from okeycore import okey101 as O
from okeycore.classic import Phase
from okeycore.commands import Discard, Draw
from okeycore.events import HandEndReason, HandStarted, PenaltyApplied, TileDrawn
from okeycore.options import Game, TableOptions
from okeycore.testing import Table

IND = "K1"
OPENER = "R11 R12 R13 Y11 Y12 Y13 B11 B12 B13 R1 R2 R3 Y1 Y2 Y3 B1 B2 B3 R5 R6 K9 K7"
QUIET = "R5 R6 R8 R9 Y5 Y6 Y8 Y9 B5 B6 B8 B9 K3 K4 K5 K6 K8 K10 K11 K12 F"


def table(seats: int = 2) -> Table:
    return Table(TableOptions(game=Game.OKEY101, seats=seats))


def lay(t: Table, seat: int, *melds: str) -> None:
    seen: dict[str, int] = {}
    out = []
    for meld in melds:
        row = []
        for code in meld.split():
            row.append(t.tile(seat, code, seen.get(code, 0)))
            seen[code] = seen.get(code, 0) + 1
        out.append(tuple(row))
    t.apply(O.OpenMelds(seat=seat, melds=tuple(out)))


def discard(t: Table, seat: int, code: str) -> list[object]:
    return list(t.apply(Discard(seat=seat, tile=t.tile(seat, code))))


def draw_discard(t: Table, seat: int) -> list[object]:
    drawn = t.apply(Draw(seat=seat))[0]
    assert isinstance(drawn, TileDrawn)
    return list(t.apply(Discard(seat=seat, tile=drawn.tile)))


def ended(events: list[object]) -> O.HandEnded101:
    end = events[-1]
    assert isinstance(end, O.HandEnded101)
    return end


def normal_hand() -> tuple[Table, O.HandEnded101]:
    """Seat 0 opens 108, seat 1 never opens, seat 0 lays the rest and finishes with K9."""
    t = table()
    t.deal([OPENER, QUIET], IND, "K13 R7")
    lay(t, 0, "R11 R12 R13", "Y11 Y12 Y13", "B11 B12 B13")
    discard(t, 0, "K7")
    draw_discard(t, 1)
    t.apply(Draw(seat=0))
    lay(t, 0, "R1 R2 R3", "Y1 Y2 Y3", "B1 B2 B3", "R5 R6 R7")
    return t, ended(discard(t, 0, "K9"))


def okey_hand() -> tuple[Table, O.HandEnded101]:
    """Seat 1 opens 102 and throws an addable R10 (+101); seat 0 finishes by discarding the okey."""
    t = table()
    t.deal(
        [OPENER.replace("K9", "K2"), "R7 R8 R9 R10 Y7 Y8 Y9 Y10 B7 B8 B9 B10 K4 K6 K8 K10 K12 K13 F Y5 B5"],
        IND,
        "R10 R7",
    )
    lay(t, 0, "R11 R12 R13", "Y11 Y12 Y13", "B11 B12 B13")
    discard(t, 0, "K7")
    t.apply(Draw(seat=1))
    lay(t, 1, "R7 R8 R9 R10", "Y7 Y8 Y9 Y10", "B7 B8 B9 B10")
    events = discard(t, 1, "R10")  # fits before R11-R13 [O-PEN-1]
    assert PenaltyApplied(1, 101, "ADDABLE_TILE_DISCARDED") in events
    t.apply(Draw(seat=0))
    lay(t, 0, "R1 R2 R3", "Y1 Y2 Y3", "B1 B2 B3", "R5 R6 R7")
    return t, ended(discard(t, 0, "K2"))


def pair_hand() -> tuple[Table, O.HandEnded101]:
    """Seat 0 opens five pairs, seat 1 opens 114 in runs; seat 0 lays five more pairs, adds K9
    to seat 1's K10-K13 and finishes with B12."""
    t = table()
    t.deal(
        [
            "R1 R1 R2 R2 R3 R3 R4 R4 R5 R5 Y1 Y1 Y2 Y2 Y3 Y3 Y4 Y4 Y5 Y5 K9 K7",
            "B7 B8 B9 B10 Y7 Y8 Y9 Y10 K10 K11 K12 K13 R7 R8 B5 B6 Y12 R12 K4 K6 F",
        ],
        IND,
        "R13 B12",
    )
    lay(t, 0, "R1 R1", "R2 R2", "R3 R3", "R4 R4", "R5 R5")
    discard(t, 0, "K7")
    t.apply(Draw(seat=1))
    lay(t, 1, "B7 B8 B9 B10", "Y7 Y8 Y9 Y10", "K10 K11 K12 K13")
    discard(t, 1, "R13")
    t.apply(Draw(seat=0))
    lay(t, 0, "Y1 Y1", "Y2 Y2", "Y3 Y3", "Y4 Y4", "Y5 Y5")
    t.apply(O.AddTile(seat=0, tile=t.tile(0, "K9"), meld=len(t.state.melds) - 6))  # onto K10-K13
    return t, ended(discard(t, 0, "B12"))


ELDEN = "R7 R8 R9 R10 R11 R12 R13 Y7 Y8 Y9 Y10 Y11 Y12 Y13 B7 B8 B9 B10 B11 B12 B13"


def elden_hand(final: str) -> tuple[Table, O.HandEnded101]:
    """The starter lays 21 tiles (210) in one opening and discards the 22nd: elden bitmek."""
    t = table()
    t.deal([f"{ELDEN} {final}", QUIET], IND)
    lay(t, 0, "R7 R8 R9 R10 R11 R12 R13", "Y7 Y8 Y9 Y10 Y11 Y12 Y13", "B7 B8 B9 B10 B11 B12 B13")
    return t, ended(discard(t, 0, final))


# ------------------------------------------------------------ finishes


def test_O_SC_1_normal_finish_minus_101() -> None:
    t, end = normal_hand()
    assert (end.reason, end.finisher, end.multiplier) == (HandEndReason.FINISHED, 0, 1)
    assert not (end.okey_finish or end.pair_finish or end.elden)
    assert end.points == (-101, 202) and end.penalties == (0, 0) and end.deltas == (-101, 202)
    assert end.totals == (-101, 202) and end.chips == (0, 0)
    assert [s.score for s in t.state.seats] == [-101, 202]
    assert t.state.phase is Phase.HAND_OVER and end.racks[0] == ()


def test_O_SC_1_okey_finish_minus_202() -> None:
    _, end = okey_hand()
    assert end.okey_finish and not end.pair_finish and not end.elden and end.multiplier == 2
    assert end.points[0] == -202


def test_O_SC_1_pair_opener_finish_minus_202() -> None:
    t, end = pair_hand()
    assert end.pair_finish and not end.okey_finish and end.multiplier == 2
    # Seat 1 opened runs; left R7 R8 B5 B6 Y12 R12 K4 K6 F = 62, x2 [D-1].
    assert end.points == (-202, 124) and end.deltas == (-202, 124)
    assert t.state.seats[0].opening is O.Opening.PAIRS


def test_O_SC_2_elden_doubles_the_finish_multiplier_again() -> None:
    _, end = elden_hand("K9")
    assert end.elden and end.multiplier == 2
    assert end.points == (-202, 404)
    _, end = elden_hand("K2")  # elden with the okey: the multipliers combine
    assert end.elden and end.okey_finish and end.multiplier == 4
    assert end.points == (-404, 808)


def test_O_SC_2_no_elden_once_another_seat_has_opened() -> None:
    t = table()
    t.deal(
        [
            "R7 R8 R9 R10 R11 R12 R13 Y7 Y8 Y9 Y10 Y11 Y12 Y13 B7 B8 B9 B10 B11 B12 K9 K7",
            "R10 Y10 B10 K10 R11 Y11 B11 K11 R12 Y12 B12 K12 R1 R3 Y1 Y3 B1 B3 K4 K6 K8",
        ],
        IND,
        "K3 B13",
    )
    discard(t, 0, "K7")
    t.apply(Draw(seat=1))
    lay(t, 1, "R10 Y10 B10 K10", "R11 Y11 B11 K11", "R12 Y12 B12 K12")  # 132
    discard(t, 1, "K3")
    t.apply(Draw(seat=0))
    lay(t, 0, "R7 R8 R9 R10 R11 R12 R13", "Y7 Y8 Y9 Y10 Y11 Y12 Y13", "B7 B8 B9 B10 B11 B12 B13")
    end = ended(discard(t, 0, "K9"))
    assert not end.elden and end.multiplier == 1
    assert end.points == (-101, 30)  # R1 R3 Y1 Y3 B1 B3 K4 K6 K8


def test_O_SC_3_a_seat_that_never_opened_scores_202() -> None:
    _, end = normal_hand()
    assert end.points[1] == 202


def test_D_1_the_finish_multiplier_multiplies_every_other_seat() -> None:
    _, end = okey_hand()
    # Seat 1 opened and kept K4 K6 K8 K10 K12 K13 F Y5 B5 = 65 (the fake okey counts 2), x2.
    assert end.points == (-202, 130)
    _, end = elden_hand("K9")
    assert end.points[1] == 2 * 202  # the 202 of an unopened seat is multiplied too


def test_D_7_flat_penalties_are_never_multiplied() -> None:
    t, end = okey_hand()
    assert end.penalties == (0, 101)
    assert end.deltas == (-202, 130 + 101) and end.totals == (-202, 231)
    assert [s.score for s in t.state.seats] == [-202, 231]
    assert [s.penalties for s in t.state.seats] == [0, 0]  # settled into the totals


# ------------------------------------------------------------ deck exhausted, void hand


def exhausted_hand() -> tuple[Table, O.HandEnded101]:
    """Four seats: seat 0 opens 108 keeping the okey and a fake, seat 1 opens five pairs, seats
    2 and 3 never open; the 20 deck tiles (all black, fitting nothing) are drawn and thrown back."""
    t = table(4)
    t.deal(
        [
            "R11 R12 R13 Y11 Y12 Y13 B11 B12 B13 R1 R2 R3 K2 F Y5 B5 R7 Y7 B7 R9 Y9 B9",
            "R4 R4 R5 R5 R6 R6 Y1 Y1 Y2 Y2 B1 B2 B3 Y3 Y4 B4 R8 Y8 B8 Y6 B6",
            "",
            "",
        ],
        IND,
        "K1 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13 K3 K4 K5 K6 K7 K8 K9 K10",
    )
    lay(t, 0, "R11 R12 R13", "Y11 Y12 Y13", "B11 B12 B13")
    discard(t, 0, "R9")
    t.apply(Draw(seat=1))
    lay(t, 1, "R4 R4", "R5 R5", "R6 R6", "Y1 Y1", "Y2 Y2")
    events = discard(t, 1, "K1")
    draws = 1
    while t.state.phase is Phase.PLAYING:
        events = draw_discard(t, t.state.turn)
        draws += 1
    assert draws == 20
    assert not any(isinstance(e, PenaltyApplied) for e in t.events)
    return t, ended(events)


def test_D_2_deck_exhausted_scores_everyone_without_multiplier() -> None:
    t, end = exhausted_hand()
    assert end.reason is HandEndReason.DECK_EXHAUSTED and end.finisher == -1 and end.final_tile == -1
    assert end.multiplier == 1 and not (end.okey_finish or end.pair_finish or end.elden)
    assert end.points == (158, 106, 202, 202) and end.deltas == end.points
    assert end.chips == (0, 0, 0, 0) and end.deck == ()
    assert [s.score for s in t.state.seats] == [158, 106, 202, 202]


def test_O_SC_4_remaining_tiles_sum_real_okey_101_fake_okey_its_face() -> None:
    _, end = exhausted_hand()
    # R1 R2 R3 K2(okey) F Y5 B5 R7 Y7 B7 Y9 B9 = 1+2+3+101+2+5+5+7+7+7+9+9 [D-7]
    assert end.points[0] == 158
    assert len(end.racks[0]) == 12


def test_O_SC_5_a_pair_openers_remaining_sum_is_doubled() -> None:
    _, end = exhausted_hand()
    # B1 B2 B3 Y3 Y4 B4 R8 Y8 B8 Y6 B6 = 53, doubled
    assert end.points[1] == 106


def test_O_PEN_4_void_hand_when_every_seat_opened_with_pairs() -> None:
    t = table()
    t.deal(["R1 R1 R2 R2 R3 R3 R4 R4 R5 R5 K2 K7", "Y1 Y1 Y2 Y2 Y3 Y3 Y4 Y4 Y5 Y5"], IND, "K13")
    lay(t, 0, "R1 R1", "R2 R2", "R3 R3", "R4 R4", "R5 R5")
    events = discard(t, 0, "K2")
    assert PenaltyApplied(0, 101, "OKEY_DISCARDED") in events
    assert O.view(t.state, 1).seats[0].penalties == 101
    t.apply(Draw(seat=1))
    melds = tuple((t.tile(1, code, 0), t.tile(1, code, 1)) for code in ("Y1", "Y2", "Y3", "Y4", "Y5"))
    events = list(t.apply(O.OpenMelds(seat=1, melds=melds)))
    void = events[-1]
    assert isinstance(void, O.HandVoided)
    assert void.hand == 1 and void.penalties == (101, 0)  # erased
    s = t.state
    assert s.phase is Phase.HAND_OVER and s.voided
    assert [x.score for x in s.seats] == [0, 0] and [x.penalties for x in s.seats] == [0, 0]
    # The same hand is dealt again, by the same starter, and counts as hand 1.
    t.deal([OPENER, QUIET], IND, "K13 R7")
    started = next(e for e in reversed(t.events) if isinstance(e, HandStarted))
    assert (started.hand, started.starter) == (1, 0)
    lay(t, 0, "R11 R12 R13", "Y11 Y12 Y13", "B11 B12 B13")
    discard(t, 0, "K7")
    draw_discard(t, 1)
    t.apply(Draw(seat=0))
    lay(t, 0, "R1 R2 R3", "Y1 Y2 Y3", "B1 B2 B3", "R5 R6 R7")
    end = ended(discard(t, 0, "K9"))
    assert end.hand == 1 and end.totals == (-101, 202)


def test_O_PEN_4_not_void_while_one_seat_opened_with_runs() -> None:
    pairs = {1: "K3 K4 K5 K6 K8", 2: "Y4 Y5 Y6 Y7 Y8", 3: "B4 B5 B6 B7 B8"}
    t = table(4)
    t.deal([OPENER, *(" ".join(f"{c} {c}" for c in pairs[s].split()) for s in (1, 2, 3))], IND, "K13 K12 K11")
    lay(t, 0, "R11 R12 R13", "Y11 Y12 Y13", "B11 B12 B13")
    discard(t, 0, "K7")
    for seat in (1, 2, 3):
        t.apply(Draw(seat=seat))
        lay(t, seat, *(f"{c} {c}" for c in pairs[seat].split()))
        t.apply(Discard(seat=seat, tile=t.state.seats[seat].rack[-1]))
    assert [s.opening for s in t.state.seats] == [O.Opening.RUNS] + [O.Opening.PAIRS] * 3
    assert t.state.phase is Phase.PLAYING and not t.state.voided

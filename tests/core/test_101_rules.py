"""Okey 101 rules, one test per rule id of RULES.md section 4 (scoring ids: test_101_hands.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from okeycore import melds as M
from okeycore import okey101 as O
from okeycore.classic import Phase
from okeycore.commands import DeclarePairs, Discard, Draw, ForceMove, StartHand, TakeDiscard, TimeOut
from okeycore.errors import RuleViolation
from okeycore.events import DrawSource, HandStarted, MatchEnded, PenaltyApplied, TileDrawn, TileReturned, TurnTimedOut
from okeycore.melds import MeldKind
from okeycore.okey101.bots import GreedyBot101
from okeycore.okey101.simulate import Simulator101
from okeycore.options import Game, Mode101, TableOptions
from okeycore.testing import Table
from okeycore.tiles import parse_face

# Indicator K1 throughout: the okey is K2 and a fake okey (F) plays as a plain K2.
IND = "K1"
# A starter who opens 108 (R11-13, Y11-13, B11-13), discards K7, and can lay the rest next turn.
OPENER = "R11 R12 R13 Y11 Y12 Y13 B11 B12 B13 R1 R2 R3 Y1 Y2 Y3 B1 B2 B3 R5 R6 K9 K7"
OPENING = ("R11 R12 R13", "Y11 Y12 Y13", "B11 B12 B13")
# A second seat that cannot open and whose tiles fit nothing the opener lays.
QUIET = "R5 R6 R8 R9 Y5 Y6 Y8 Y9 B5 B6 B8 B9 K3 K4 K5 K6 K8 K10 K11 K12 F"


def table(seats: int = 2, **options: object) -> Table:
    return Table(TableOptions(game=Game.OKEY101, seats=seats, **options))  # type: ignore[arg-type]


def ids(t: Table, seat: int, *melds: str) -> tuple[tuple[int, ...], ...]:
    """Tile ids of each meld's codes in ``seat``'s rack; a code named again takes the other copy."""
    seen: dict[str, int] = {}
    out = []
    for meld in melds:
        row = []
        for code in meld.split():
            row.append(t.tile(seat, code, seen.get(code, 0)))
            seen[code] = seen.get(code, 0) + 1
        out.append(tuple(row))
    return tuple(out)


def tile(t: Table, seat: int, code: str) -> int:
    return t.tile(seat, code)


def lay(t: Table, seat: int, *melds: str, kinds: tuple[MeldKind, ...] = ()) -> list[object]:
    return list(t.apply(O.OpenMelds(seat=seat, melds=ids(t, seat, *melds), kinds=kinds)))


def refused(t: Table, command: object) -> str:
    got = t.attempt(command)  # type: ignore[arg-type]
    assert isinstance(got, RuleViolation), got
    return got.code


def discard(t: Table, seat: int, code: str) -> list[object]:
    return list(t.apply(Discard(seat=seat, tile=t.tile(seat, code))))


def draw_discard(t: Table, seat: int) -> list[object]:
    """Draw from the deck and throw the drawn tile back out."""
    drawn = t.apply(Draw(seat=seat))[0]
    assert isinstance(drawn, TileDrawn)
    return list(t.apply(Discard(seat=seat, tile=drawn.tile)))


def opened_table(other: str = QUIET, deck: str = "K13 R7", **options: object) -> Table:
    """Seat 0 has opened 108 and discarded K7; it is seat 1's turn to draw."""
    t = table(**options)
    t.deal([OPENER, other], IND, deck)
    lay(t, 0, *OPENING)
    discard(t, 0, "K7")
    return t


# ------------------------------------------------------------ 4.1 table and deal


@pytest.mark.parametrize(("seats", "deck"), [(2, 62), (4, 20)])
def test_O_DEAL_1_deal_sizes_and_indicator(seats: int, deck: int) -> None:
    t = table(seats)
    dealt = 22 + 21 * (seats - 1)
    plain = [i for i in range(104)]
    # The fakes come right after the racks: the indicator must skip them [T-IND-1].
    order = (*plain[:dealt], 104, 105, *plain[dealt:])
    t.apply(StartHand(order=order, first_starter=1))
    s = t.state
    assert [len(x.rack) for x in s.seats] == [21 if i != 1 else 22 for i in range(seats)]
    assert s.starter == 1 and s.turn == 1
    assert len(s.deck) == deck
    assert s.indicator == plain[dealt] and s.indicator < 104
    assert {104, 105} <= set(s.deck)
    everything = [t for x in s.seats for t in x.rack] + [s.indicator, *s.deck]
    assert sorted(everything) == list(range(106))
    assert refused(t, StartHand(order=order)) == "HAND_IN_PROGRESS"


def test_O_DEAL_2_rounds_per_match_and_starter_rotation() -> None:
    opts = TableOptions(game=Game.OKEY101, seats=2, rounds=3)
    sim = Simulator101(opts, [GreedyBot101(1), GreedyBot101(2)], seed=5)
    rec = sim.play_match()
    ended = [e for e in rec.events if isinstance(e, O.HandEnded101)]
    voids = [e for e in rec.events if isinstance(e, O.HandVoided)]
    assert [e.hand for e in ended] == [1, 2, 3]
    starts = [e for e in rec.events if isinstance(e, HandStarted)]
    assert len(starts) == 3 + len(voids)  # a void hand is dealt again under its own number
    assert [e.starter for e in starts] == [(e.hand - 1) % 2 for e in starts]  # the next seat starts
    assert isinstance(rec.events[-1], MatchEnded)
    assert rec.state.phase is Phase.MATCH_OVER
    assert refused(sim, StartHand(order=tuple(range(106)))) == "MATCH_OVER"


def _starter_finishes(t: Table) -> O.HandEnded101:
    """The hand's starter opens 108, the three others draw and discard, the starter lays the
    rest and finishes with K9; nobody else opens."""
    s0 = 0 if t.state.hand == 0 else (t.state.starter + 1) % 4
    racks = ["", "", "", ""]
    racks[s0] = OPENER
    t.deal(racks, IND, "K13 K12 K11 R7")
    lay(t, s0, *OPENING)
    discard(t, s0, "K7")
    for k in (1, 2, 3):
        draw_discard(t, (s0 + k) % 4)
    t.apply(Draw(seat=s0))
    lay(t, s0, "R1 R2 R3", "Y1 Y2 Y3", "B1 B2 B3", "R5 R6 R7")
    events = discard(t, s0, "K9")
    end = next(e for e in events if isinstance(e, O.HandEnded101))
    return end


def test_O_DEAL_3_lowest_total_wins_ties_share_pot_and_hand_prize() -> None:
    t = table(4, rounds=3, stake=10, hand_prize=5)
    totals = []
    for finisher in (0, 1, 2):
        end = _starter_finishes(t)
        assert end.finisher == finisher
        assert end.chips == tuple(15 if s == finisher else -5 for s in range(4))  # the hand prize
        totals.append(end.totals)
    assert totals == [(-101, 202, 202, 202), (101, 101, 404, 404), (303, 303, 303, 606)]
    result = t.state.result
    assert result is not None and t.state.phase is Phase.MATCH_OVER
    assert result.scores == (303, 303, 303, 606)
    assert result.winners == (0, 1, 2)  # equal lowest totals share the win
    assert (result.pot, result.payout, result.remainder) == (40, 13, 1)  # remainder rounded down


def test_O_TURN_1_starter_discards_without_drawing_every_turn_ends_with_a_discard() -> None:
    t = table()
    t.deal([OPENER, QUIET], IND, "K13 R7 R8")
    assert refused(t, Draw(seat=0)) == "ALREADY_DREW"  # the starter does not draw
    lay(t, 0, *OPENING)
    assert t.state.turn == 0  # a table move does not end the turn
    discard(t, 0, "K7")
    assert t.state.turn == 1 and t.state.stage is O.Stage.DRAW
    assert refused(t, Discard(seat=1, tile=t.state.seats[1].rack[0])) == "MUST_DRAW_FIRST"
    assert refused(t, O.OpenMelds(seat=1, melds=((0, 1, 2),))) == "MUST_DRAW_FIRST"
    draw_discard(t, 1)
    t.apply(Draw(seat=0))
    lay(t, 0, "R1 R2 R3", "Y1 Y2 Y3", "B1 B2 B3", "R5 R6 R7")
    assert t.state.turn == 0 and t.state.seats[0].rack == (tile(t, 0, "K9"),)
    assert refused(t, Draw(seat=0)) == "ALREADY_DREW"  # nothing to do but the discard
    events = discard(t, 0, "K9")  # even with one tile left, the turn ends with a discard
    assert isinstance(events[-1], O.HandEnded101) and events[-1].finisher == 0


# ------------------------------------------------------------ 4.2 opening


def test_O_OPEN_1_run_opening_threshold_counts_the_okey_as_what_it_stands_for() -> None:
    t = table()
    t.deal(["R10 K2 R12 Y10 Y11 Y12 B5 B6 B7 B8 B9 K7", QUIET], IND)
    short = ids(t, 0, "R10 K2 R12", "Y10 Y11 Y12", "B5 B6 B7 B8")  # 33 + 33 + 26 = 92
    got = t.attempt(O.OpenMelds(seat=0, melds=short))
    assert isinstance(got, RuleViolation) and got.code == "BELOW_THRESHOLD" and "got 92" in got.message
    bad = ids(t, 0, "R10 Y11 B5")
    assert refused(t, O.OpenMelds(seat=0, melds=bad)) == "INVALID_MELD"
    events = lay(t, 0, "R10 K2 R12", "Y10 Y11 Y12", "B5 B6 B7 B8 B9")  # 33 + 33 + 35 = 101
    opened = events[0]
    assert isinstance(opened, O.MeldsOpened)
    assert opened.first and opened.opening is O.Opening.RUNS and opened.value == 101
    assert opened.melds[0].stands_for == ("R10", "R11", "R12")  # the okey is an R11
    assert t.state.seats[0].opening is O.Opening.RUNS


def test_O_OPEN_1_worked_examples_okey_value_follows_the_arrangement() -> None:
    # RULES.md [M-OKEY-1], okey B7, no wrap.
    b7, r = None, parse_face
    assert M.interpret_meld([r("R10"), b7, r("R12")], False).value == 33
    assert M.interpret_meld([r("R12"), r("R13"), b7], False).value == 36
    assert M.interpret_meld([r("R9"), r("K9"), b7], False).value == 27
    t = table()
    t.deal(["R10 B7 R12 R12 R13 B7 Y11 Y12 Y13 K5", QUIET], "B6")
    events = lay(t, 0, "R10 B7 R12", "R12 R13 B7", "Y11 Y12 Y13")
    opened = events[0]
    assert isinstance(opened, O.MeldsOpened)
    assert [m.value for m in opened.melds] == [33, 36, 36] and opened.value == 105
    placed = opened.melds[1]
    assert placed.stands_for == ("R11", "R12", "R13")  # the okey is placed before R12
    assert O.is_real_okey(placed.tiles[0], t.state.indicator)  # tiles are kept in position order


def test_O_OPEN_1_wrap_option_allows_12_13_1() -> None:
    for wrap, value in ((False, 36), (True, 26)):
        t = table(wrap=wrap)
        t.deal(["R12 R13 B7 Y11 Y12 Y13 B11 B12 B13 K5", QUIET], "B6")
        got = t.attempt(O.OpenMelds(seat=0, melds=ids(t, 0, "R12 R13 B7", "Y11 Y12 Y13", "B11 B12 B13")))
        if wrap:  # R12 R13 okey reads as 12-13-1 (26): 98 is not enough
            assert isinstance(got, RuleViolation) and "got 98" in got.message
        else:
            assert not isinstance(got, RuleViolation) and t.state.melds[0].value == value
    t = table(wrap=True)
    t.deal(["R12 R13 R1 R2 Y11 Y12 Y13 B10 B11 B12 B13 K5", QUIET], "B6")
    assert refused(t, O.OpenMelds(seat=0, melds=ids(t, 0, "R13 R1 R2"))) == "INVALID_MELD"  # never 13-1-2
    lay(t, 0, "R12 R13 R1", "Y11 Y12 Y13", "B10 B11 B12 B13")  # 26 + 36 + 46
    assert t.state.seats[0].opening_value == 108
    assert t.state.melds[0].stands_for == ("R12", "R13", "R1")
    t2 = table(wrap=False)
    t2.deal(["R12 R13 R1 Y11 Y12 Y13 K5", QUIET], "B6")
    assert refused(t2, O.OpenMelds(seat=0, melds=ids(t2, 0, "R12 R13 R1"))) == "INVALID_MELD"


def test_O_OPEN_2_pair_opening_needs_five_pairs_an_okey_completes_one() -> None:
    t = table()
    t.deal(["R1 R1 R2 R2 Y3 Y3 B4 B4 K2 K5 K7", QUIET], IND)
    four = ids(t, 0, "R1 R1", "R2 R2", "Y3 Y3", "B4 B4")
    assert refused(t, O.OpenMelds(seat=0, melds=four)) == "TOO_FEW_PAIRS"
    mixed = ids(t, 0, "R1 R1", "R2 R2", "Y3 Y3", "B4 B4")
    assert refused(t, O.OpenMelds(seat=0, melds=(*mixed, (99,)))) == "TILE_NOT_IN_RACK"
    events = lay(t, 0, "R1 R1", "R2 R2", "Y3 Y3", "B4 B4", "K5 K2")
    opened = events[0]
    assert isinstance(opened, O.MeldsOpened)
    assert opened.opening is O.Opening.PAIRS and opened.value == 5
    assert opened.melds[-1].stands_for == ("K5", "K5")


def _folding_table(mode: Mode101) -> Table:
    t = table(4, mode=mode)
    t.deal(
        [
            "R11 R12 R13 B11 B12 B13 R11 Y11 B11 K11 K7",
            "B1 B2 B3 B4 B5 B6 B7 B8 B9 Y6 Y7 Y8 Y9 Y10 Y11 Y12 R2 R3 R4",
            "R5 R5 R6 R6 R7 R7 R8 R8 R9 R9",
            "Y1 Y1 Y2 Y2 Y3 Y3 Y4 Y4 Y5 Y5 K5 K5",
        ],
        IND,
        "K8 K9 K10",
    )
    lay(t, 0, "R11 R12 R13", "B11 B12 B13", "R11 Y11 B11 K11")  # 36 + 36 + 44 = 116
    discard(t, 0, "K7")
    return t


def test_O_OPEN_3_folding_thresholds() -> None:
    t = _folding_table(Mode101.FOLDING)
    t.apply(Draw(seat=1))
    assert O.view(t.state, 1).run_threshold == 117  # an opening of 116 makes the next need 117
    got = t.attempt(
        O.OpenMelds(seat=1, melds=ids(t, 1, "B2 B3 B4 B5 B6 B7 B8 B9", "Y6 Y7 Y8 Y9 Y10 Y11 Y12", "R2 R3 R4"))
    )
    assert isinstance(got, RuleViolation) and got.code == "BELOW_THRESHOLD" and "117" in got.message
    lay(t, 1, "B1 B2 B3 B4 B5 B6 B7 B8 B9", "Y6 Y7 Y8 Y9 Y10 Y11 Y12", "R2 R3 R4")  # 117
    discard(t, 1, "K8")
    assert t.state.run_threshold == 118
    t.apply(Draw(seat=2))
    assert O.view(t.state, 2).pair_threshold == 5
    lay(t, 2, "R5 R5", "R6 R6", "R7 R7", "R8 R8", "R9 R9")
    discard(t, 2, "K9")
    t.apply(Draw(seat=3))
    assert O.view(t.state, 3).pair_threshold == 6  # 5 pairs, then 6
    five = ids(t, 3, "Y1 Y1", "Y2 Y2", "Y3 Y3", "Y4 Y4", "Y5 Y5")
    assert refused(t, O.OpenMelds(seat=3, melds=five)) == "TOO_FEW_PAIRS"
    lay(t, 3, "Y1 Y1", "Y2 Y2", "Y3 Y3", "Y4 Y4", "Y5 Y5", "K5 K5")
    discard(t, 3, "K10")
    assert (t.state.run_threshold, t.state.pair_threshold) == (118, 7)
    # A player who has opened never meets a threshold again.
    t.apply(Draw(seat=0))
    assert t.state.seats[0].rack  # (K7 gone; the padding tiles are whatever is left)
    # Play the hand out; the next hand starts again at 101 and 5.
    while t.state.phase is Phase.PLAYING:
        if t.state.stage is O.Stage.DRAW:
            draw_discard(t, t.state.turn)
        else:
            t.apply(Discard(seat=t.state.turn, tile=t.state.seats[t.state.turn].rack[-1]))
    t.apply(StartHand(order=tuple(range(106))))
    v = O.view(t.state, 1)
    assert (v.run_threshold, v.pair_threshold) == (101, 5)


def test_O_OPEN_3_plain_mode_keeps_101_and_5() -> None:
    t = _folding_table(Mode101.PLAIN)
    assert (t.state.run_threshold, t.state.pair_threshold) == (101, 5)


def test_O_OPEN_3_an_opened_seat_lays_new_melds_without_threshold() -> None:
    t = opened_table()
    draw_discard(t, 1)
    t.apply(Draw(seat=0))
    events = lay(t, 0, "R1 R2 R3")  # 6 points, no threshold any more
    assert isinstance(events[0], O.MeldsOpened) and not events[0].first


def test_O_OPEN_4_open_and_add_in_the_same_turn() -> None:
    t = table()
    t.deal(["R11 R12 R13 Y11 Y12 Y13 B11 B12 B13 R10 Y10 K7", QUIET], IND)
    lay(t, 0, *OPENING)
    events = t.apply(O.AddTile(seat=0, tile=tile(t, 0, "R10"), meld=0))
    added = events[0]
    assert isinstance(added, O.TileAdded) and added.at_start and added.stands_for == ("R10", "R11", "R12", "R13")
    t.apply(O.AddTile(seat=0, tile=tile(t, 0, "Y10"), meld=1, at_start=True))
    assert t.state.melds[1].value == 46
    discard(t, 0, "K7")


def test_O_OPEN_5_keep_a_tile_for_the_discard() -> None:
    t = opened_table(other=QUIET, deck="K13 R7")
    draw_discard(t, 1)
    t.apply(Draw(seat=0))
    # 13 tiles: R1-3 Y1-3 B1-3 R5 R6 R7 K9. Laying all 13 is impossible (K9), so try with an add.
    lay(t, 0, "R1 R2 R3", "Y1 Y2 Y3", "B1 B2 B3")
    everything = ids(t, 0, "R5 R6 R7 K9")
    got = t.attempt(O.OpenMelds(seat=0, melds=everything))
    assert isinstance(got, RuleViolation) and got.code == "MUST_KEEP_A_TILE"
    lay(t, 0, "R5 R6 R7")
    assert refused(t, O.AddTile(seat=0, tile=tile(t, 0, "K9"), meld=0)) == "MUST_KEEP_A_TILE"


# ------------------------------------------------------------ 4.3 adding and taking the okey

ADDER = "Y7 Y8 Y9 Y10 B7 B8 B9 B10 K10 K11 K12 K13 R10"  # opens 34 + 34 + 46 = 114, holds R10


def test_O_ADD_1_add_to_any_meld_after_opening() -> None:
    t = opened_table(other=ADDER, deck="K3")
    t.apply(Draw(seat=1))
    r10 = tile(t, 1, "R10")
    assert refused(t, O.AddTile(seat=1, tile=r10, meld=0)) == "NOT_OPENED"
    lay(t, 1, "Y7 Y8 Y9 Y10", "B7 B8 B9 B10", "K10 K11 K12 K13")
    assert refused(t, O.AddTile(seat=1, tile=r10, meld=99)) == "NO_SUCH_MELD"
    assert refused(t, O.AddTile(seat=1, tile=tile(t, 1, "K3"), meld=1)) == "TILE_DOES_NOT_FIT"
    assert refused(t, O.AddTile(seat=1, tile=r10, meld=0, at_start=False)) == "TILE_DOES_NOT_FIT"
    events = t.apply(O.AddTile(seat=1, tile=r10, meld=0))  # seat 0's meld
    assert isinstance(events[0], O.TileAdded)
    assert t.state.melds[0].owner == 0 and t.state.melds[0].stands_for == ("R10", "R11", "R12", "R13")
    assert r10 not in t.state.seats[1].rack


def test_O_ADD_2_run_opener_lays_pairs_once_pairs_are_open_pair_opener_no_runs() -> None:
    t = table()
    t.deal(
        ["R11 R12 R13 Y11 Y12 Y13 B11 B12 B13 Y5 Y5 K7", "R1 R1 R2 R2 R3 R3 R4 R4 R5 R5 B6 B6 B7 B8 B9"],
        IND,
        "K13 K12",
    )
    lay(t, 0, *OPENING)
    assert refused(t, O.OpenMelds(seat=0, melds=ids(t, 0, "Y5 Y5"))) == "NO_PAIRS_ON_TABLE"
    discard(t, 0, "K7")
    t.apply(Draw(seat=1))
    lay(t, 1, "R1 R1", "R2 R2", "R3 R3", "R4 R4", "R5 R5")
    assert refused(t, O.OpenMelds(seat=1, melds=ids(t, 1, "B7 B8 B9"))) == "PAIR_OPENER_NO_RUNS"
    assert refused(t, O.AddTile(seat=1, tile=tile(t, 1, "B6"), meld=3)) == "CANNOT_ADD_TO_PAIR"
    lay(t, 1, "B6 B6")  # a pair opener may open new pairs
    discard(t, 1, "K13")
    t.apply(Draw(seat=0))
    events = lay(t, 0, "Y5 Y5")  # pairs are open now
    assert isinstance(events[0], O.MeldsOpened) and events[0].opening is O.Opening.RUNS
    assert t.state.seats[0].opening is O.Opening.RUNS  # still a run opener


def test_O_ADD_3_pair_opener_adds_at_most_two_tiles_per_turn() -> None:
    t = table()
    t.deal(
        ["R11 K2 R13 Y11 Y12 Y13 B11 B12 B13 K7", "R1 R1 R2 R2 R3 R3 R4 R4 R5 R5 R12 Y10 B10 Y9 Y9"],
        IND,
        "K13 K12 K11",
    )
    lay(t, 0, "R11 K2 R13", "Y11 Y12 Y13", "B11 B12 B13")
    discard(t, 0, "K7")
    t.apply(Draw(seat=1))
    lay(t, 1, "R1 R1", "R2 R2", "R3 R3", "R4 R4", "R5 R5")
    t.apply(O.TakeOkey(seat=1, tile=tile(t, 1, "R12"), meld=0))  # a take-back counts (1)
    t.apply(O.AddTile(seat=1, tile=tile(t, 1, "Y10"), meld=1))  # (2)
    assert refused(t, O.AddTile(seat=1, tile=tile(t, 1, "B10"), meld=2)) == "ADD_LIMIT_REACHED"
    lay(t, 1, "Y9 Y9")  # new pairs do not count
    discard(t, 1, "K13")
    draw_discard(t, 0)
    t.apply(Draw(seat=1))
    t.apply(O.AddTile(seat=1, tile=tile(t, 1, "B10"), meld=2))  # the allowance renews every turn
    assert t.state.run_adds == 1


def test_O_OKEY_1_take_the_okey_back_group_needs_its_fourth_colour_first() -> None:
    t = table()
    t.deal(
        ["R10 B10 K2 R11 R12 R13 Y11 Y12 Y13 B4 K2 B6 K7", "Y7 Y8 Y9 Y10 B7 B8 B9 B10 K10 K11 K12 K13 Y10 K10 B5"],
        IND,
        "R3",
    )
    lay(t, 0, "R10 B10 K2", "R11 R12 R13", "Y11 Y12 Y13", "B4 K2 B6")  # 30 + 36 + 36 + 15 = 117
    assert t.state.melds[0].stands_for == ("R10", "B10", "Y10")
    discard(t, 0, "K7")
    t.apply(Draw(seat=1))
    k10 = t.tile(1, "K10", 1)
    assert refused(t, O.TakeOkey(seat=1, tile=k10, meld=0)) == "NOT_OPENED"
    lay(t, 1, "Y7 Y8 Y9 Y10", "B7 B8 B9 B10", "K10 K11 K12 K13")
    assert refused(t, O.TakeOkey(seat=1, tile=k10, meld=0)) == "GROUP_NEEDS_FOURTH"
    assert refused(t, O.TakeOkey(seat=1, tile=k10, meld=1)) == "NO_OKEY_IN_MELD"
    t.apply(O.AddTile(seat=1, tile=tile(t, 1, "Y10"), meld=0))  # R10 B10 okey + Y10
    assert t.state.melds[0].stands_for == ("R10", "B10", "K10", "Y10")  # the okey is the K10 now
    assert refused(t, O.TakeOkey(seat=1, tile=tile(t, 1, "B5"), meld=0)) == "TILE_DOES_NOT_FIT"
    events = t.apply(O.TakeOkey(seat=1, tile=k10, meld=0))
    taken = events[0]
    assert isinstance(taken, O.OkeyTaken) and O.is_real_okey(taken.okey, t.state.indicator)
    assert taken.okey in t.state.seats[1].rack and k10 in t.state.melds[0].tiles
    t.apply(O.TakeOkey(seat=1, tile=tile(t, 1, "B5"), meld=3))  # in a run the single tile suffices
    assert sum(O.is_real_okey(x, t.state.indicator) for x in t.state.seats[1].rack) == 2
    assert t.state.melds[3].stands_for == ("B4", "B5", "B6")


def test_O_OKEY_1_pair_okey_is_taken_by_the_matching_tile() -> None:
    ind = parse_face(IND)
    okey = ind.next()
    pair = O.TableMeld(0, MeldKind.PAIR, (2 * parse_face("R5").index, 2 * okey.index), ("R5", "R5"))
    indicator = 2 * ind.index
    r5 = 2 * parse_face("R5").index + 1
    assert O.take_option(pair, r5, indicator) == (2 * okey.index, ("R5", "R5"))
    assert O.take_option(pair, 2 * parse_face("R6").index, indicator) is None


# ------------------------------------------------------------ 4.4 the side tile

SIDER = "K5 K6 K7 R7 R8 R9 R10 Y7 Y8 Y9 Y10 B8 B9 B10 R1 Y3 B5 K12 K13 B1 R4"
SIDE_OPENING = ("K5 K6 K7", "R7 R8 R9 R10", "Y7 Y8 Y9 Y10", "B8 B9 B10")  # 113, needs the side K7


def test_O_SIDE_1_take_the_side_tile_before_opening() -> None:
    t = opened_table(other=SIDER, deck="K3")
    v = O.view(t.state, 1)
    assert v.side_tile == t.state.seats[0].pile[-1]
    events = t.apply(TakeDiscard(seat=1))
    drawn = events[0]
    assert isinstance(drawn, TileDrawn) and drawn.source is DrawSource.DISCARD
    assert t.state.seats[1].opening is O.Opening.NONE
    assert O.view(t.state, 1).held_side_tile == drawn.tile


def test_O_SIDE_2_side_tile_must_be_used_may_go_back_and_be_taken_again() -> None:
    t = opened_table(other=SIDER, deck="K3")
    deadline = t.state.deadline_ms
    side = t.apply(TakeDiscard(seat=1))[0]
    assert isinstance(side, TileDrawn)
    assert refused(t, Discard(seat=1, tile=tile(t, 1, "K13"))) == "SIDE_TILE_NOT_USED"
    back = t.apply(O.ReturnSideTile(seat=1))
    assert back == [TileReturned(1, side.tile)]
    assert t.state.seats[0].pile[-1] == side.tile and t.state.stage is O.Stage.DRAW
    assert refused(t, O.ReturnSideTile(seat=1)) == "NO_SIDE_TILE"
    t.apply(TakeDiscard(seat=1))  # again, as often as time allows
    assert t.state.deadline_ms == deadline  # time is not renewed
    # Naming the twin K7 lays the side tile: copies are interchangeable, the side tile is used.
    lay(t, 1, *SIDE_OPENING)
    assert side.tile in t.state.melds[3].tiles


def test_O_SIDE_2_a_move_that_leaves_the_side_tile_unusable_is_refused() -> None:
    # Opens 45 + 34 + 27 = 106 without the side K7, which then fits nowhere.
    t = opened_table(other="K6 R7 R8 R9 R10 R11 Y7 Y8 Y9 Y10 B8 B9 B10 R1 Y3 B5 K12 K13 B1 R4", deck="K3")
    t.apply(TakeDiscard(seat=1))
    opening = ("R7 R8 R9 R10 R11", "Y7 Y8 Y9 Y10", "B8 B9 B10")
    got = t.attempt(O.OpenMelds(seat=1, melds=ids(t, 1, *opening)))
    assert isinstance(got, RuleViolation) and got.code == "SIDE_TILE_NOT_USED"
    t.apply(O.ReturnSideTile(seat=1))
    t.apply(Draw(seat=1))
    lay(t, 1, *opening)


def test_O_SIDE_3_neither_the_side_tile_nor_its_twin_is_discarded_without_a_table_move() -> None:
    t = opened_table(other=SIDER, deck="K3")
    side = t.apply(TakeDiscard(seat=1))[0]
    assert isinstance(side, TileDrawn)
    twin = next(x for x in t.state.seats[1].rack if x != side.tile and x // 2 == side.tile // 2)
    assert refused(t, Discard(seat=1, tile=side.tile)) == "SIDE_TILE_DISCARD"
    assert refused(t, Discard(seat=1, tile=twin)) == "SIDE_TILE_DISCARD"
    k5, k6 = tile(t, 1, "K5"), tile(t, 1, "K6")
    t.apply(O.OpenMelds(seat=1, melds=((k5, k6, side.tile), *ids(t, 1, *SIDE_OPENING[1:]))))
    events = t.apply(Discard(seat=1, tile=twin))  # opened this turn: the twin may go
    assert not any(isinstance(e, PenaltyApplied) for e in events)


def test_O_SIDE_4_no_side_tile_after_a_deck_draw() -> None:
    t = opened_table(other=SIDER, deck="K3")
    t.apply(Draw(seat=1))
    assert O.view(t.state, 1).side_tile == -1
    assert refused(t, TakeDiscard(seat=1)) == "ALREADY_DREW"


def test_O_SIDE_5_a_table_move_ends_the_right_to_put_it_back() -> None:
    t = opened_table(other=SIDER, deck="K3 K4")
    t.apply(TakeDiscard(seat=1))
    lay(t, 1, *SIDE_OPENING)  # 113 with the side K7
    discard(t, 1, "R4")  # R4 fits no meld on the table
    # Seat 0 (opened) takes R4, which fits after the R1-R3 it is about to lay.
    side = t.apply(TakeDiscard(seat=0))[0]
    assert isinstance(side, TileDrawn)
    lay(t, 0, "R1 R2 R3")
    assert O.view(t.state, 0).held_side_tile == side.tile
    assert refused(t, O.ReturnSideTile(seat=0)) == "CANNOT_RETURN_SIDE_TILE"
    assert refused(t, Discard(seat=0, tile=tile(t, 0, "K9"))) == "SIDE_TILE_NOT_USED"
    t.apply(O.AddTile(seat=0, tile=side.tile, meld=len(t.state.melds) - 1))
    assert refused(t, O.ReturnSideTile(seat=0)) == "NO_SIDE_TILE"
    discard(t, 0, "K9")


def test_O_SIDE_6_timeout_returns_the_side_tile_and_draws_from_the_deck() -> None:
    t = opened_table(other=SIDER, deck="K3")
    side = t.apply(TakeDiscard(seat=1))[0]
    assert isinstance(side, TileDrawn)
    deadline = t.state.deadline_ms
    assert refused(t, TimeOut(now_ms=deadline - 1)) == "NOT_DUE"
    events = t.apply(TimeOut(now_ms=deadline, grace_ms=500))
    assert [type(e) for e in events] == [TurnTimedOut, TileReturned, TileDrawn]
    drawn = events[2]
    assert isinstance(drawn, TileDrawn) and drawn.source is DrawSource.DECK
    assert t.state.seats[0].pile[-1] == side.tile
    assert refused(t, ForceMove(now_ms=deadline + 499)) == "NOT_DUE"
    done = t.apply(ForceMove(now_ms=deadline + 500))  # the minimal move: discard
    assert t.state.turn == 0 and len(t.state.seats[1].rack) == 21
    assert not any(isinstance(e, PenaltyApplied) for e in done)


# ------------------------------------------------------------ 4.5 penalties


@pytest.mark.parametrize("on", [True, False])
def test_O_PEN_1_discarding_an_addable_tile_costs_101_even_unopened(on: bool) -> None:
    t = opened_table(deck="R10", discard_penalty=on)
    events = draw_discard(t, 1)  # R10 fits before seat 0's R11-R13
    pens = [e for e in events if isinstance(e, PenaltyApplied)]
    assert pens == ([PenaltyApplied(1, 101, "ADDABLE_TILE_DISCARDED")] if on else [])
    assert O.view(t.state, 0).seats[1].penalties == (101 if on else 0)


def test_O_PEN_2_discarding_a_real_okey_costs_101_once() -> None:
    t = table()
    t.deal(["R11 R12 R13 Y11 Y12 Y13 B11 B12 B13 K2 K7", QUIET], IND)
    lay(t, 0, *OPENING)  # the okey would fit these melds too: still one penalty
    events = discard(t, 0, "K2")
    assert [e for e in events if isinstance(e, PenaltyApplied)] == [PenaltyApplied(0, 101, "OKEY_DISCARDED")]


def test_O_PEN_3_the_finishing_tile_is_exempt() -> None:
    opener = OPENER.replace("K9", "R8")
    t = table()
    t.deal([opener, QUIET], IND, "K13 R7")
    lay(t, 0, *OPENING)
    discard(t, 0, "K7")
    draw_discard(t, 1)
    t.apply(Draw(seat=0))
    lay(t, 0, "R1 R2 R3", "Y1 Y2 Y3", "B1 B2 B3", "R5 R6 R7")
    assert O.fits_table(t.state.melds, tile(t, 0, "R8"), t.state.indicator, False)  # R8 fits R5-R7
    events = discard(t, 0, "R8")
    assert not any(isinstance(e, PenaltyApplied) for e in events)
    end = events[-1]
    assert isinstance(end, O.HandEnded101) and end.penalties == (0, 0)


# ------------------------------------------------------------ decisions


def test_D_6_going_for_pairs_is_the_pair_opening_itself() -> None:
    t = table()
    t.deal([OPENER, QUIET], IND)
    assert refused(t, DeclarePairs(seat=0)) == "UNKNOWN_COMMAND"


def test_commands_are_refused_with_stable_reason_codes() -> None:
    t = table()
    assert refused(t, Draw(seat=0)) == "NO_HAND_IN_PROGRESS"
    assert refused(t, StartHand(order=(1, 2, 3))) == "BAD_DEAL"
    t.deal([OPENER, QUIET], IND)
    assert refused(t, Draw(seat=1)) == "NOT_YOUR_TURN"
    assert refused(t, Draw(seat=7)) == "INVALID_SEAT"
    assert refused(t, Discard(seat=0, tile=105 if 105 not in t.state.seats[0].rack else 104)) == "TILE_NOT_IN_RACK"
    assert refused(t, O.OpenMelds(seat=0)) == "NO_MELDS"
    dup = ids(t, 0, "R11 R12 R13")[0]
    assert refused(t, O.OpenMelds(seat=0, melds=(dup, dup))) == "DUPLICATE_TILE"
    assert O.can(t.state, O.OpenMelds(seat=0, melds=ids(t, 0, *OPENING))) is None
    assert O.decide(None, Draw(seat=0)) == RuleViolation("NO_TABLE", "the table does not exist")
    classic = O.decide(None, __import__("okeycore.commands").commands.CreateTable(table_id="x"))
    assert isinstance(classic, RuleViolation) and classic.code == "WRONG_GAME"


# ------------------------------------------------------------------ the referee's audit (issue 14)


def _split_opening_table(rules_version: int = 2) -> Table:
    """A 4-seat FOLDING table; seat 0 can open 102 (R11-R13, Y11-Y13, R10 Y10 K10) and also holds
    B9 B10 B11 (30 more) and B10's twin for an add."""
    t = table(4, mode=Mode101.FOLDING)
    if rules_version != 2:
        t.state = replace(t.state, rules_version=rules_version)  # as folded from an older log
    t.deal(
        [
            "R11 R12 R13 Y11 Y12 Y13 R10 Y10 K10 B9 B10 B11 B10 K7",
            "B1 B2 B3 B4 B5 B6 B7 B8 Y6 Y7 Y8 Y9 R2 R3 R4",
            "R5 R5 R6 R6 R7 R7 R8 R8 R9 R9",
            "Y1 Y1 Y2 Y2 Y3 Y3 Y4 Y4 Y5 Y5 K5 K5",
        ],
        IND,
        "K8 K9 K10",
    )
    return t


OPEN_102 = ("R11 R12 R13", "Y11 Y12 Y13", "R10 Y10 K10")


def test_O_OPEN_3_the_opening_is_everything_laid_in_the_opening_turn() -> None:
    # Laid in one command: 102 + 30 = 132, so the next run opening needs 133.
    t = _split_opening_table()
    lay(t, 0, *OPEN_102, "B9 B10 B11")
    assert t.state.seats[0].opening_value == 132 and t.state.run_threshold == 133
    # Split over two commands in the same turn: the same bar, not 103.
    t = _split_opening_table()
    lay(t, 0, *OPEN_102)
    assert t.state.run_threshold == 103
    events = lay(t, 0, "B9 B10 B11")
    opened = events[0]
    assert isinstance(opened, O.MeldsOpened) and not opened.first  # the event still says it is a later lay
    assert t.state.seats[0].opening_value == 132 and t.state.run_threshold == 133
    discard(t, 0, "K7")
    assert O.view(t.state, 1).run_threshold == 133
    # An add in the opening turn is part of the opening too (B10 makes the group a four).
    t = _split_opening_table()
    lay(t, 0, *OPEN_102)
    t.apply(O.AddTile(seat=0, tile=tile(t, 0, "B10"), meld=2))
    assert t.state.seats[0].opening_value == 112 and t.state.run_threshold == 113
    # A lay in a later turn is no part of it.
    t = _split_opening_table()
    lay(t, 0, *OPEN_102)
    discard(t, 0, "K7")
    for seat in (1, 2, 3):
        draw_discard(t, seat)
    t.apply(Draw(seat=0))
    lay(t, 0, "B9 B10 B11")
    assert t.state.seats[0].opening_value == 102 and t.state.run_threshold == 103


def test_O_OPEN_3_pair_openings_count_every_pair_laid_in_the_opening_turn() -> None:
    t = table(4, mode=Mode101.FOLDING)
    t.deal(["R5 R5 R6 R6 R7 R7 R8 R8 R9 R9 Y1 Y1 K7", "", "", ""], IND)
    lay(t, 0, "R5 R5", "R6 R6", "R7 R7", "R8 R8", "R9 R9")
    assert t.state.pair_threshold == 6
    lay(t, 0, "Y1 Y1")  # a sixth pair in the same turn
    assert t.state.seats[0].opening_value == 6 and t.state.pair_threshold == 7


def test_O_OPEN_3_a_table_created_under_rules_version_1_keeps_the_old_bar() -> None:
    t = _split_opening_table(rules_version=1)
    lay(t, 0, *OPEN_102)
    lay(t, 0, "B9 B10 B11")
    assert t.state.seats[0].opening_value == 102 and t.state.run_threshold == 103


# A seat that cannot open (no run, no group, four pairs) and holds the R12 of R11-okey-R13.
HOLDS_R12 = "R1 R4 R4 R7 R7 K1 R12 Y2 Y5 Y8 Y8 Y11 Y13 B3 B6 B6 B7 B13 K5 K8 K11"


def _okey_in_run_table(rules_version: int = 2, **options: object) -> Table:
    """Seat 0 opened R11-okey-R13 (the okey K2 stands for R12), Y11-13, B11-13; seat 1 holds
    the R12 that could take the okey back, fits nothing, cannot open, and has drawn."""
    t = table(**options)
    if rules_version != 2:
        t.state = replace(t.state, rules_version=rules_version)
    t.deal([OPENER.replace("R12", "K2"), HOLDS_R12], IND, "R5 K13")
    lay(t, 0, "R11 K2 R13", "Y11 Y12 Y13", "B11 B12 B13")
    discard(t, 0, "K7")
    t.apply(Draw(seat=1))
    return t


def test_O_PEN_1_discarding_a_tile_that_could_take_the_okey_back_costs_101() -> None:
    t = _okey_in_run_table()
    r12 = tile(t, 1, "R12")
    melds, ind = t.state.melds, t.state.indicator
    assert not O.fits_table(melds, r12, ind, False) and O.take_option(melds[0], r12, ind) is not None
    # The ! hint marks it (as well as <->), for the seat that holds it.
    hint = next(h for h in O.hints(O.view(t.state, 1)).tiles if h.tile == r12)
    assert hint.takes_okey and hint.penalised and not hint.addable
    events = discard(t, 1, "R12")
    assert [e for e in events if isinstance(e, PenaltyApplied)] == [PenaltyApplied(1, 101, "OKEY_TAKER_DISCARDED")]
    # Only with the discard_penalty option, as for an addable tile.
    t = _okey_in_run_table(discard_penalty=False)
    assert not any(isinstance(e, PenaltyApplied) for e in discard(t, 1, "R12"))


def test_O_PEN_1_a_table_created_under_rules_version_1_keeps_the_free_take_back_discard() -> None:
    t = _okey_in_run_table(rules_version=1)
    r12 = tile(t, 1, "R12")
    assert not next(h for h in O.hints(O.view(t.state, 1)).tiles if h.tile == r12).penalised
    assert not any(isinstance(e, PenaltyApplied) for e in discard(t, 1, "R12"))


@pytest.mark.parametrize("name", ["greedy", "strong"])
def test_O_PEN_1_bots_never_discard_a_tile_that_could_take_the_okey_back_while_a_safe_one_is_left(name: str) -> None:
    from okeycore.okey101.strategy import strategy101

    t = _okey_in_run_table()
    r12 = tile(t, 1, "R12")
    v = O.view(t.state, 1)
    safe = [x for x in v.rack if not O.penalty_reason(x, len(v.rack), v.melds, v.indicator, v.options)]
    assert r12 not in safe and safe
    for seed in range(20):
        move = strategy101(name, seed).act(v)
        assert isinstance(move, Discard) and move.tile != r12
    if name == "strong":
        # At an old (version 1) table the strong bot throws the isolated R12 freely: the rule is what stops it.
        old = O.view(_okey_in_run_table(rules_version=1).state, 1)
        assert all(strategy101(name, seed).act(old) == Discard(seat=1, tile=r12) for seed in range(5))

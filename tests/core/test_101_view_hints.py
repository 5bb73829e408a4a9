"""What an Okey 101 seat sees and is told (RULES.md section 7), the event codec, timers, and the bots."""

from __future__ import annotations

import json

from okeycore import okey101 as O
from okeycore.classic import Phase
from okeycore.commands import Discard, Draw, ForceMove, TakeBack, TimeOut
from okeycore.events import (
    AutopilotEnded,
    DrawSource,
    HandEndReason,
    HandStarted,
    TileDiscarded,
    TileDrawn,
    TurnTimedOut,
    event_from_dict,
    event_to_dict,
)
from okeycore.melds import MeldKind
from okeycore.okey101.bots import GreedyBot101
from okeycore.okey101.simulate import Simulator101
from okeycore.options import Game, TableOptions
from okeycore.testing import Table
from okeycore.tiles import face_of_id, ids_of_face, parse_face

IND = "K1"  # okey K2


def ids(codes: str) -> list[int]:
    seen: dict[str, int] = {}
    out = []
    for c in codes.split():
        out.append(ids_of_face(parse_face(c))[seen.get(c, 0)])
        seen[c] = seen.get(c, 0) + 1
    return out


def hinted_table() -> Table:
    """Seat 0 opened R10-okey-R12, Y10-Y12, B5-B9 (101); seat 1 is about to draw."""
    t = Table(TableOptions(game=Game.OKEY101, seats=2))
    t.deal(
        [
            "R10 K2 R12 Y10 Y11 Y12 B5 B6 B7 B8 B9 K7",
            "R11 Y9 B4 K2 R1 R2 R3 Y5 Y5 B13 K13 K11 R7 Y7 B1 K3 K5 K6 K9 K12 F",
        ],
        IND,
        "K4",
    )
    melds = []
    for m in ("R10 K2 R12", "Y10 Y11 Y12", "B5 B6 B7 B8 B9"):
        melds.append(tuple(t.tile(0, c) for c in m.split()))
    t.apply(O.OpenMelds(seat=0, melds=tuple(melds)))
    t.apply(Discard(seat=0, tile=t.tile(0, "K7")))
    return t


def test_hints_best_run_opening_with_okey_values() -> None:
    ind = ids(IND)[0]
    got = O.run_opening(ids("R10 K2 R12 Y11 Y12 Y13 K5"), ind, False, 101)
    assert got.total == 69 and not got.enough  # 33 + 36, below 101
    assert sorted(zip(got.stands_for, got.values, strict=True)) == [
        (("R10", "R11", "R12"), 33),
        (("Y11", "Y12", "Y13"), 36),
    ]
    assert got.kinds == (MeldKind.RUN, MeldKind.RUN)


def test_hints_best_pair_opening_leaves_a_tile() -> None:
    ind = ids(IND)[0]
    got = O.pair_opening(ids("R5 R5 Y3 Y3 B7 B7 K9 K9 R1 R1 K2"), ind, 5)
    assert got.total == 5 and got.enough  # 11 tiles: the okey is left for the discard
    got = O.pair_opening(ids("R5 R5 Y3 Y3 B7 B7 K9 K9 R1 R1 K2 Y8"), ind, 5)
    assert got.total == 5 and len(got.melds) == 5  # 12 tiles: 6 pairs would leave nothing


def test_hints_mark_penalised_addable_and_okey_taking_tiles() -> None:
    t = hinted_table()
    v = O.view(t.state, 1)
    marks = {str(face_of_id(h.tile)): h for h in O.hints(v).tiles}
    # <-> taking the okey back is işleme, so its discard costs 101 too [O-PEN-1] (rules version 2).
    assert marks["R11"].takes_okey and not marks["R11"].addable and marks["R11"].penalised
    assert marks["Y9"].addable and marks["Y9"].penalised  # + and !
    assert marks["B4"].addable and marks["B4"].penalised
    assert marks["K2"].penalised  # a real okey [O-PEN-2]
    assert not marks["R1"].addable and not marks["R1"].penalised
    h = O.hints(v)
    assert h.runs.total > 0 and all(tile in v.rack for m in h.runs.melds for tile in m)
    assert h.pairs.total >= 1  # Y5 Y5 (and the okey completes another)


def test_view_shows_the_seats_own_rack_and_the_public_table_only() -> None:
    t = hinted_table()
    v0, v1, spectator = O.view(t.state, 0), O.view(t.state, 1), O.view(t.state, None)
    assert v1.rack == t.state.seats[1].rack and spectator.rack == ()
    assert v0.seats[1].rack is None and v1.seats[0].rack is None
    assert v1.side_tile == t.state.seats[0].pile[-1] and v0.side_tile == -1
    assert v1.deck_count == len(t.state.deck) and not hasattr(v1, "deck")
    assert v1.melds[0].stands_for == ("R10", "R11", "R12")  # the okey's value
    assert (v1.run_threshold, v1.pair_threshold) == (101, 5)
    assert v1.seats[0].opening is O.Opening.RUNS and v1.seats[0].opening_value == 101
    assert v1.seats[0].tiles == 10 and v1.seats[1].tiles == 21  # 22 - 11 laid - 1 discarded


def test_public_event_blanks_what_a_seat_may_not_see() -> None:
    t = hinted_table()
    start = next(e for e in t.events if isinstance(e, HandStarted))
    mine = O.public_event(start, 1)
    assert isinstance(mine, HandStarted)
    assert mine.racks[1] == start.racks[1] and set(mine.racks[0]) == {-1} and set(mine.deck) == {-1}
    drawn = t.apply(Draw(seat=1))[0]
    assert isinstance(drawn, TileDrawn) and drawn.source is DrawSource.DECK
    seen_by_0 = O.public_event(drawn, 0)
    assert isinstance(seen_by_0, TileDrawn) and seen_by_0.tile == -1
    assert O.public_event(drawn, 1) == drawn


def test_101_events_round_trip_through_json() -> None:
    t = hinted_table()
    t.apply(Draw(seat=1))
    kinds = set()
    for e in t.events:
        back = event_from_dict(json.loads(json.dumps(event_to_dict(e))))
        assert back == e
        kinds.add(type(e).__name__)
    assert {"MeldsOpened", "HandStarted", "TileDiscarded", "TileDrawn"} <= kinds
    for e in (
        O.TileAdded(1, 5, 0, True, ("R3", "R4", "R5")),
        O.OkeyTaken(1, 20, 80, 0, ("R10", "R11", "R12")),
        O.HandVoided(1, (101, 0), ((1, 2), (3,)), (4, 5)),
        O.HandEnded101(
            2,
            HandEndReason.DECK_EXHAUSTED,
            -1,
            -1,
            False,
            False,
            False,
            1,
            (5, 6),
            (0, 101),
            (5, 107),
            (9, 9),
            (0, 0),
            ((1,), (2,)),
            (),
        ),
    ):
        assert event_from_dict(json.loads(json.dumps(event_to_dict(e)))) == e


def test_timeouts_play_the_minimal_move_and_autopilot_after_three() -> None:
    t = hinted_table()
    for seat, n in ((1, 1), (0, 1), (1, 2), (0, 2), (1, 3)):
        deadline = t.state.deadline_ms
        got = t.apply(TimeOut(now_ms=deadline, grace_ms=0))
        assert got == [TurnTimedOut(seat, n, n >= 3, deadline)]  # [C-TIME-1] [C-TIME-2]
        if n < 3:
            events = t.apply(ForceMove(now_ms=deadline))
            assert isinstance(events[0], TileDrawn) and isinstance(events[-1], TileDiscarded)
    assert t.state.seats[1].autopilot and O.view(t.state, 0).seats[1].autopilot
    assert t.apply(TakeBack(seat=1)) == [AutopilotEnded(1)]


def test_greedy_bots_play_full_matches_at_both_table_sizes() -> None:
    for seats in (2, 4):
        opts = TableOptions(game=Game.OKEY101, seats=seats, rounds=3, stake=10, hand_prize=2)
        rec = Simulator101(opts, [GreedyBot101(7 + i) for i in range(seats)], seed=seats).play_match()
        assert rec.state.phase is Phase.MATCH_OVER
        result = rec.state.result
        assert result is not None and result.pot == 10 * seats
        assert min(result.scores) == min(s.score for s in rec.state.seats)


def test_O_ADD_2_the_hints_never_offer_an_opening_the_seat_s_own_opening_forbids() -> None:
    """A pair opener may not lay runs or groups, a run opener lays pairs only once pairs are
    open on the table [O-ADD-2]: the hints' previews say "not enough" for what the rules refuse
    (the page offered a run opening to a pair opener, and the table refused it)."""
    other = "R2 Y2 B2 K8 K10 R6 Y6 B4"
    pairs = Table(TableOptions(game=Game.OKEY101, seats=2))
    pairs.deal(["R5 R5 Y3 Y3 B7 B7 K9 K9 R1 R1 B10 B11 B12 B13 K7", other], IND, "K4")
    laid = tuple(tuple(pairs.tile(0, c, n) for n in (0, 1)) for c in ("R5", "Y3", "B7", "K9", "R1"))
    pairs.apply(O.OpenMelds(seat=0, melds=laid))
    run = tuple(pairs.tile(0, c) for c in ("B10", "B11", "B12", "B13"))
    assert pairs.code(O.OpenMelds(seat=0, melds=(run,))) == "PAIR_OPENER_NO_RUNS"
    got = O.hints(pairs.view(0))
    assert got.runs.total > 0 and not got.runs.enough  # the run is shown, not offered

    runs = Table(TableOptions(game=Game.OKEY101, seats=2))
    runs.deal(["R10 K2 R12 Y10 Y11 Y12 B5 B6 B7 B8 B9 R3 R3 Y4 Y4 K7", other], IND, "K4")
    melds = tuple(tuple(runs.tile(0, c) for c in m.split()) for m in ("R10 K2 R12", "Y10 Y11 Y12", "B5 B6 B7 B8 B9"))
    runs.apply(O.OpenMelds(seat=0, melds=melds))
    twos = tuple(tuple(runs.tile(0, c, n) for n in (0, 1)) for c in ("R3", "Y4"))
    assert runs.code(O.OpenMelds(seat=0, melds=twos)) == "NO_PAIRS_ON_TABLE"
    got = O.hints(runs.view(0))
    assert got.pairs.total >= 2 and not got.pairs.enough  # shown, not offered

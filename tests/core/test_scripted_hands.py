"""Complete classic hands played move by move from scripted deals, one per finish kind, and a
full match to its end; every score change is checked (the pokerkit way)."""

from __future__ import annotations

from okeycore.classic import Phase, Stage, view
from okeycore.commands import (
    DeclarePairs,
    Discard,
    Draw,
    Finish,
    ShowIndicator,
    StartHand,
    TakeDiscard,
    TurnToOkey,
)
from okeycore.events import (
    DrawSource,
    HandEnded,
    HandEndReason,
    HandStarted,
    IndicatorShown,
    MatchEnded,
    PairsDeclared,
    PenaltyApplied,
    TileDiscarded,
    TileDrawn,
    TurnedToOkey,
)
from okeycore.options import IndicatorScoring, PairsDeclaration, TableOptions
from okeycore.testing import Table, build_order
from okeycore.tiles import face_of_id
from oracles import meld_kind

T = 20_000  # turn_seconds (20, the default) in ms


def only_end(events: list[object]) -> HandEnded:
    ends = [e for e in events if isinstance(e, HandEnded)]
    assert len(ends) == 1
    return ends[0]


def check_end(t: Table, end: HandEnded, finisher: int, final: int, flags: tuple[bool, bool, bool], mult: int) -> None:
    """The HandEnded of a finish: flags, multiplier, deltas and the revealed hand all agree."""
    assert end.reason is HandEndReason.FINISHED and end.hand == t.state.hand
    assert (end.finisher, end.final_tile) == (finisher, final)
    assert (end.okey_finish, end.pairs_finish, end.colored_finish) == flags
    assert end.multiplier == mult
    partners = t.state.options.partners
    assert end.deltas == tuple(
        0 if s == finisher or (partners and s == (finisher + 2) % 4) else -2 * mult for s in range(4)
    )
    assert end.racks == tuple(s.rack for s in t.state.seats)
    assert end.deck == t.state.deck
    rest = sorted(x for x in t.rack(finisher) if x != final)
    assert sorted(x for m in end.arrangement for x in m) == rest
    kinds = {meld_kind(m, t.state.indicator) for m in end.arrangement}
    assert None not in kinds
    assert (kinds == {"PAIR"}) is end.pairs_finish
    assert t.state.phase in (Phase.HAND_OVER, Phase.MATCH_OVER)


def test_hand_normal_finish_after_a_deck_draw_with_the_indicator_shown() -> None:
    t = Table()
    order = build_order(
        {
            0: "R9",
            1: "R3 R4 R5 Y7 Y8 Y9 B10 B11 B12 K5 K6 K7 K8 Y1",  # needs K9 or K4
            2: "K1",  # the indicator's twin
        },
        indicator="K1",
        deck="K9",
        avoid="K1 K2 K4 K9",
    )
    (hs,) = t.deal(order, now_ms=1_000)
    assert isinstance(hs, HandStarted) and hs.deadline_ms == 1_000 + T and t.state.okey == face_of_id(2 * 40)
    twin = t.tile(2, "K1")
    assert t.do(ShowIndicator(seat=2, now_ms=2_000)) == [IndicatorShown(2, twin, (-1, -1, 0, -1))]
    assert t.scores == (19, 19, 20, 19)
    r9 = t.tile(0, "R9")
    assert t.do(Discard(seat=0, tile=r9, now_ms=3_000)) == [TileDiscarded(0, r9, 1, 3_000 + T)]
    k9 = t.state.deck[0]
    assert t.do(Draw(seat=1, now_ms=4_000)) == [TileDrawn(1, k9, DrawSource.DECK)]
    y1 = t.tile(1, "Y1")
    end = only_end(t.do(Finish(seat=1, tile=y1, now_ms=5_000)))
    check_end(t, end, 1, y1, (False, False, False), 1)
    assert end.deltas == (-2, 0, -2, -2)
    assert t.scores == (17, 19, 18, 17)
    assert t.state.last_hand == end and t.state.result is None


def test_hand_okey_finish_turned_to_okey_then_placed_the_okey_taking_the_side_tile() -> None:
    t = Table()
    order = build_order(
        {
            0: "R4",
            1: "R1 R2 R3 Y7 Y8 Y9 K7 K8 K9 R11 Y11 K11 B11 B6",  # B6 is the okey: complete already
        },
        indicator="B5",
        deck="Y13 Y12 K13 K12",
        avoid="B5 B6 R4",
    )
    t.deal(order)
    okey = t.tile(1, "B6")
    assert t.state.okey == face_of_id(okey)
    first = next(x for x in t.rack(0) if str(face_of_id(x)) != "R4")
    assert t.do(Discard(seat=0, tile=first)) == [TileDiscarded(0, first, 1, T)]
    (drawn,) = t.do(Draw(seat=1))
    assert isinstance(drawn, TileDrawn) and str(face_of_id(drawn.tile)) == "Y13"
    # Seat 1 could finish now; it turns to okey and plays on instead.
    assert t.do(TurnToOkey(seat=1)) == [TurnedToOkey(1)]
    assert t.do(Discard(seat=1, tile=drawn.tile)) == [TileDiscarded(1, drawn.tile, 2, T)]
    for seat in (2, 3):
        (d,) = t.do(Draw(seat=seat))
        assert t.do(Discard(seat=seat, tile=d.tile)) == [TileDiscarded(seat, d.tile, (seat + 1) % 4, T)]  # type: ignore[attr-defined]
    t.do(Draw(seat=0))
    r4 = t.tile(0, "R4")
    t.do(Discard(seat=0, tile=r4))
    assert view(t.state, 1).side_tile == r4
    assert t.do(TakeDiscard(seat=1)) == [TileDrawn(1, r4, DrawSource.DISCARD)]
    end = only_end(t.do(Finish(seat=1, tile=okey)))
    check_end(t, end, 1, okey, (True, False, False), 2)
    assert end.deltas == (-4, 0, -4, -4)
    assert t.scores == (16, 20, 16, 16)


def test_hand_seven_pairs_finish_with_the_side_tile() -> None:
    t = Table()
    order = build_order(
        {
            1: "Y11",
            2: "Y1 Y1 B2 B2 K3 K3 Y5 Y5 B9 B9 K12 K12 Y11 B13",  # six pairs, Y11 and B13
        },
        indicator="R7",
        deck="R1",
        avoid="R7 R8",
    )
    t.deal(order)
    assert t.do(DeclarePairs(seat=2)) == [PairsDeclared(2)]  # a marker: no score
    x = t.rack(0)[0]
    t.do(Discard(seat=0, tile=x))
    t.do(Draw(seat=1))
    y11 = t.tile(1, "Y11")
    assert t.do(Discard(seat=1, tile=y11)) == [TileDiscarded(1, y11, 2, T)]
    assert t.do(TakeDiscard(seat=2)) == [TileDrawn(2, y11, DrawSource.DISCARD)]
    b13 = t.tile(2, "B13")
    end = only_end(t.do(Finish(seat=2, tile=b13)))
    check_end(t, end, 2, b13, (False, True, False), 2)
    assert end.deltas == (-4, -4, 0, -4)
    assert t.scores == (16, 16, 20, 16)


def test_hand_colored_finish_placing_a_blue_tile_after_showing_the_indicator_for_plus_1() -> None:
    t = Table(colored=True, indicator_scoring=IndicatorScoring.SHOWER_PLUS_1)
    order = build_order(
        {
            0: "K1",  # the indicator's twin, shown by the starter
            3: "R5 R6 R7 Y5 Y6 Y7 K9 K10 K11 R12 Y12 B12 K12 B1",  # needs K8; B1 to place
        },
        indicator="K1",
        deck="Y3 Y4 K8",
        avoid="K1 K2 K8",
    )
    t.deal(order)
    twin = t.tile(0, "K1")
    assert t.do(ShowIndicator(seat=0)) == [IndicatorShown(0, twin, (1, 0, 0, 0))]
    assert t.scores == (21, 20, 20, 20)
    t.do(Discard(seat=0, tile=twin))
    for seat in (1, 2):
        (d,) = t.do(Draw(seat=seat))
        t.do(Discard(seat=seat, tile=d.tile))  # type: ignore[attr-defined]
    (d,) = t.do(Draw(seat=3))
    assert str(face_of_id(d.tile)) == "K8"  # type: ignore[attr-defined]
    # Placing a red tile would not be coloured; but R5 is needed: that is no finish at all.
    assert t.refuse(Finish(seat=3, tile=t.tile(3, "R5"))).code == "INVALID_FINISH"
    b1 = t.tile(3, "B1")
    end = only_end(t.do(Finish(seat=3, tile=b1)))
    check_end(t, end, 3, b1, (False, False, True), 2)
    assert end.deltas == (-4, -4, -4, 0)
    assert t.scores == (17, 16, 16, 20)


def test_hand_seven_pairs_and_okey_binding_declarer_after_a_penalised_attempt() -> None:
    t = Table(penalties=True, pairs_declaration=PairsDeclaration.BINDING)
    order = build_order(
        {1: "R2 R2 B4 B4 K6 K6 R9 R9 B10 B10 K11 K11 R13 K1"},  # six pairs, R13 and K1
        indicator="Y12",  # the okey is Y13
        deck="Y13 Y1 Y2 Y3 R13",
        avoid="Y12 Y13 R13 K1",
    )
    t.deal(order)
    assert t.do(DeclarePairs(seat=1)) == [PairsDeclared(1)]
    t.do(Discard(seat=0, tile=t.rack(0)[0]))
    (d,) = t.do(Draw(seat=1))
    okey = d.tile  # type: ignore[attr-defined]
    assert face_of_id(okey) == t.state.okey
    # Placing the okey now leaves R13 and K1 unpaired: refused and penalised once [C-SC-6].
    assert t.do(Finish(seat=1, tile=okey)) == [PenaltyApplied(1, 2, "INVALID_FINISH")]
    assert t.scores == (20, 18, 20, 20)
    assert t.refuse(Finish(seat=1, tile=okey)).code == "INVALID_FINISH"
    assert t.scores == (20, 18, 20, 20)
    k1 = t.tile(1, "K1")
    assert t.do(Discard(seat=1, tile=k1)) == [TileDiscarded(1, k1, 2, T)]
    for _ in range(3):
        t.draw_and_discard()
    (d,) = t.do(Draw(seat=1))
    assert str(face_of_id(d.tile)) == "R13"  # type: ignore[attr-defined]
    end = only_end(t.do(Finish(seat=1, tile=okey)))
    check_end(t, end, 1, okey, (True, True, False), 4)
    assert end.deltas == (-8, 0, -8, -8)
    assert t.scores == (12, 18, 12, 12)


def test_hand_all_three_okey_seven_pairs_colored_is_x16() -> None:
    t = Table(colored=True, penalties=True)
    order = build_order(
        {
            2: "B10",  # the okey (indicator B9), which seat 2 throws away
            3: "R1 R1 Y3 Y3 K5 K5 R7 R7 Y8 Y8 K12 K12 R13 R13",  # seven pairs already
        },
        indicator="B9",
        deck="Y1 Y2",
        avoid="B9 B10",
    )
    t.deal(order)
    okey = t.tile(2, "B10")
    t.do(Discard(seat=0, tile=t.rack(0)[0]))
    (d,) = t.do(Draw(seat=1))
    t.do(Discard(seat=1, tile=d.tile))  # type: ignore[attr-defined]
    t.do(Draw(seat=2))
    assert t.do(Discard(seat=2, tile=okey)) == [
        TileDiscarded(2, okey, 3, T),
        PenaltyApplied(2, 2, "OKEY_DISCARDED"),
    ]
    assert t.scores == (20, 20, 18, 20)
    t.do(TakeDiscard(seat=3))
    end = only_end(t.do(Finish(seat=3, tile=okey)))
    check_end(t, end, 3, okey, (True, True, True), 8)
    assert end.deltas == (-16, -16, -16, 0)
    assert t.scores == (4, 4, 2, 20)


def test_full_match_to_its_end_with_three_co_winners_sharing_the_pot() -> None:
    t = Table(TableOptions(match_points=6, stake=10))
    assert t.scores == (6, 6, 6, 6)
    # Hand 1: the starter finishes on its first move, 15 tiles and no draw [C-FIN-3].
    t.deal(build_order({0: "R1 R2 R3 Y4 Y5 Y6 B7 B8 B9 B10 K10 K11 K12 K13 R10"}, "Y12", avoid="Y12 Y13"))
    r10 = t.tile(0, "R10")
    end = only_end(t.do(Finish(seat=0, tile=r10)))
    check_end(t, end, 0, r10, (False, False, False), 1)
    assert t.scores == (6, 4, 4, 4) and t.state.phase is Phase.HAND_OVER
    # Hand 2: seat 1 starts [C-DEAL-2] and finishes after a full round, drawing R4.
    (hs,) = t.do(
        StartHand(
            order=build_order(
                {1: "R1 R2 R3 Y4 Y5 Y6 B7 B8 B9 K10 K11 K12 K13 R13 Y1"},
                "Y12",
                starter=1,
                deck="K1 K2 K3 R4",
                avoid="Y12 Y13 R4",
            )
        )
    )
    assert isinstance(hs, HandStarted) and hs.hand == 2 and hs.starter == 1
    t.do(Discard(seat=1, tile=t.tile(1, "Y1")))
    for _ in range(3):
        t.draw_and_discard()
    (d,) = t.do(Draw(seat=1))
    assert str(face_of_id(d.tile)) == "R4"  # type: ignore[attr-defined]
    r13 = t.tile(1, "R13")
    end = only_end(t.do(Finish(seat=1, tile=r13)))
    check_end(t, end, 1, r13, (False, False, False), 1)
    assert t.scores == (4, 4, 2, 2)
    # Hand 3: seat 2 starts and finishes with seat 1's discard; seat 3 reaches 0.
    t.deal(
        build_order(
            {2: "R1 R2 R3 R4 Y4 Y5 Y6 B7 B8 B9 K10 K11 K12 B2 B1", 1: "K13"}, "Y12", starter=2, avoid="Y12 Y13 K13"
        )
    )
    assert t.state.starter == 2
    t.do(Discard(seat=2, tile=t.tile(2, "B1")))
    t.draw_and_discard()  # seat 3
    t.draw_and_discard()  # seat 0
    t.do(Draw(seat=1))
    k13 = t.tile(1, "K13")
    t.do(Discard(seat=1, tile=k13))
    t.do(TakeDiscard(seat=2))
    b2 = t.tile(2, "B2")
    events = t.do(Finish(seat=2, tile=b2))
    end = only_end(events)
    check_end(t, end, 2, b2, (False, False, False), 1)
    assert t.scores == (2, 2, 2, 0)
    result = events[-1]
    assert result == MatchEnded(scores=(2, 2, 2, 0), winners=(0, 1, 2), pot=40, payout=13, remainder=1)
    assert t.state.phase is Phase.MATCH_OVER and t.state.result == result
    assert view(t.state, 3).result == result
    assert t.state.stage is Stage.DISCARD  # nothing moved after the finish
    assert t.refuse(StartHand(order=tuple(range(106)))).code == "MATCH_OVER"
    assert t.refuse(ShowIndicator(seat=0)).code == "MATCH_OVER"

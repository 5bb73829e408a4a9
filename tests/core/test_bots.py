"""The bot strategies play by the rules from their own seat's view only (RULES.md section 7)."""

from __future__ import annotations

import pytest
from okeycore import decide, fold
from okeycore.classic import Phase, Stage, effective_table, view
from okeycore.classic.bots import GreedyBot, RandomBot, usefulness
from okeycore.commands import DeclarePairs, Finish, ShowIndicator, TakeDiscard
from okeycore.errors import RuleViolation
from okeycore.events import HandEnded
from okeycore.options import DeckEnd, PairsDeclaration
from okeycore.testing import Table, build_order
from okeycore.tiles import face_of_id

MELDS14 = "R1 R2 R3 R4 Y4 Y5 Y6 B7 B8 B9 R10 Y10 B10 K10"


def last_chance_table() -> Table:
    """Seat 1 holds a finished hand; the last deck tile, K13, fits nothing it holds."""
    order = list(build_order({1: MELDS14}, "K5", avoid="K5 K6 K13"))
    k13 = next(x for x in order if str(face_of_id(x)) == "K13")
    order.remove(k13)
    order.append(k13)  # the bottom of the deck
    t = Table(deck_end=DeckEnd.LAST_CHANCE)
    t.deal(order)
    t.run_down_deck()
    assert t.state.stage is Stage.LAST_CHANCE and t.state.turn == 1
    assert str(face_of_id(view(t.state, 1).side_tile)) == "K13"
    return t


def test_C_DECK_3_bots_take_the_last_chance_even_with_a_side_tile_they_would_not_keep() -> None:
    for bot in (GreedyBot(0), RandomBot(0)):
        t = last_chance_table()
        v = view(t.state, 1)
        effs = [effective_table(v.indicator)[x] for x in (*v.rack, v.side_tile)]
        assert usefulness(effs, len(effs) - 1) == 0  # a tile the greedy bot would never take
        cmd = bot.act(v)
        assert cmd == TakeDiscard(seat=1)
        t.do(cmd)
        cmd = bot.act(view(t.state, 1))
        assert isinstance(cmd, Finish)
        end = t.do(cmd)[0]
        assert isinstance(end, HandEnded) and end.finisher == 1


def test_C_PAIR_1_a_binding_pairs_declarer_bot_never_proposes_a_melds_finish() -> None:
    t = Table(pairs_declaration=PairsDeclaration.BINDING)
    t.deal(build_order({0: MELDS14 + " Y13"}, "K5", avoid="K5 K6"))
    t.do(DeclarePairs(seat=0))
    cmd = GreedyBot(0).act(view(t.state, 0))
    assert not isinstance(cmd, Finish), cmd
    got = decide(t.state, cmd)
    assert not isinstance(got, RuleViolation), got
    after = fold(t.state, got)  # the bot's move applied: the hand goes on
    assert after.phase is Phase.PLAYING and after.hand == t.state.hand, got
    assert not any(isinstance(e, HandEnded) for e in got), got
    # Without the declaration the same rack finishes at once.
    t = Table(pairs_declaration=PairsDeclaration.BINDING)
    t.deal(build_order({0: MELDS14 + " Y13"}, "K5", avoid="K5 K6"))
    cmd = GreedyBot(0).act(view(t.state, 0))
    assert isinstance(cmd, Finish)
    assert isinstance(t.do(cmd)[0], HandEnded)


def test_C_IND_1_the_greedy_bot_shows_the_indicator_it_holds_once() -> None:
    t = Table()
    t.deal(build_order({2: "K5"}, "K5", avoid="K5 K6"))
    assert GreedyBot(0).off_turn(view(t.state, 2)) == ShowIndicator(seat=2)
    assert GreedyBot(0).off_turn(view(t.state, 1)) != ShowIndicator(seat=1)  # no twin
    t.do(ShowIndicator(seat=2))
    assert GreedyBot(0).off_turn(view(t.state, 2)) != ShowIndicator(seat=2)


@pytest.mark.parametrize("name", ["greedy", "strong"])
def test_C_IND_1_at_a_first_turn_table_bots_show_the_indicator_on_their_own_first_turn(name: str) -> None:
    from okeycore.classic.strategy import strategy
    from okeycore.options import IndicatorTiming

    t = Table(indicator_timing=IndicatorTiming.FIRST_TURN)
    t.deal(build_order({2: "K5"}, "K5", avoid="K5 K6"))
    bot = strategy(name, 0)
    assert t.state.turn == 0
    assert bot.off_turn(view(t.state, 2)) != ShowIndicator(seat=2)  # not yet: it is not its turn
    t.draw_and_discard()  # seat 0
    t.draw_and_discard()  # seat 1
    assert bot.act(view(t.state, 2)) == ShowIndicator(seat=2)  # its own first turn, before drawing
    t.do(ShowIndicator(seat=2))
    assert t.scores == (19, 19, 20, 19)
    assert not isinstance(bot.act(view(t.state, 2)), ShowIndicator)  # once


def test_bots_only_ever_see_their_own_view() -> None:
    # Two deals that differ only in the tiles of seats 2 and 3: seat 1's view, and so its
    # bot's move, are the same.
    racks = {0: "R1 R2 R3 Y4 Y5 Y6 B7 B8 B9 K10 K11 K12 R13 Y13 B13", 1: MELDS14}
    a = Table()
    a.deal(build_order({**racks, 2: "R5 R6 R7", 3: "Y8 Y9"}, "K5", deck="Y12", avoid="K5 K6"))
    b = Table()
    b.deal(build_order({**racks, 2: "Y8 Y9", 3: "R5 R6 R7"}, "K5", deck="Y12", avoid="K5 K6"))
    assert a.rack(2) != b.rack(2)
    for t in (a, b):
        t.draw_and_discard()
    va, vb = view(a.state, 1), view(b.state, 1)
    assert va.rack == vb.rack and va.side_tile == vb.side_tile
    assert GreedyBot(5).act(va) == GreedyBot(5).act(vb)

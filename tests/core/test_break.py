"""The break between hands [P-BREAK-1..4] (docs/rules-and-engine.md): a hand's end that does not
end the match starts a break of ``hand_break_seconds`` while a person is seated; each person may
say Ready; the last Ready, or the break's end, lets the next hand be dealt; a bot-only table, a
break of 0 seconds and a table of older rules deal at once."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from okeycore.classic.bots import GreedyBot
from okeycore.commands import LeaveSeat, Ready, StartHand
from okeycore.events import (
    EVENT_TYPES,
    BreakStarted,
    Event,
    HandStarted,
    MatchEnded,
    SeatReady,
    TableCreated,
    event_from_dict,
    event_to_dict,
    to_move,
)
from okeycore.kernel.state import Phase
from okeycore.okey101.bots import GreedyBot101
from okeycore.options import RULES_VERSION, Game, OptionsError, TableOptions
from okeycore.testing import Table
from okeycore.tiles import TILE_COUNT

GAMES = [TableOptions(match_points=20), TableOptions(game=Game.OKEY101, seats=4, rounds=5)]
ORDER = tuple(range(TILE_COUNT))


def _table(options: TableOptions, players: tuple[str, ...] = ("ali", "", "", "")) -> Table:
    return Table(options, players=players[: options.seat_count])


def _end_hand(t: Table) -> list[Event]:
    """Deal and run the deck down to the hand's end (a dead hand: the match goes on), every
    command at time 0."""
    t.deal(ORDER, now_ms=0)
    before = len(t.events)
    t.run_down_deck()
    assert t.state.phase is Phase.HAND_OVER
    return t.events[before:]


@pytest.mark.parametrize("options", GAMES)
def test_P_BREAK_1_a_hand_end_starts_a_break_and_the_next_hand_waits_for_it(options: TableOptions) -> None:
    t = _table(options)
    ended = _end_hand(t)
    brk = ended[-1]
    assert brk == BreakStarted(1, 0 + 6 * 1000)  # the default break, from the ending command's clock
    assert event_to_dict(brk) == {"type": "BreakStarted", "hand": 1, "due_ms": 6000}
    assert to_move(brk) == -1  # nobody is called to move
    assert t.state.in_break and t.state.break_due_ms == 6000
    view = t.view(0)
    assert view.break_due_ms == 6000 and view.ready == ()
    assert view.indicator == t.events[1].indicator  # the finished hand's indicator and okey stay shown
    assert t.code(StartHand(order=ORDER, now_ms=5999)) == "NOT_DUE"
    t.deal(ORDER, now_ms=6000)  # the table service's timer, when the break is due
    assert t.state.phase is Phase.PLAYING and t.state.hand == 2
    assert not t.state.in_break and t.view(0).break_due_ms == 0 and t.state.ready == ()


def test_P_BREAK_1_the_option_is_bounded_and_belongs_to_both_games() -> None:
    assert TableOptions(hand_break_seconds=30).validated().hand_break_seconds == 30
    assert TableOptions(game=Game.OKEY101, hand_break_seconds=0).validated().to_dict()["hand_break_seconds"] == 0
    for bad in (-1, 31):
        with pytest.raises(OptionsError, match="hand_break_seconds"):
            TableOptions(hand_break_seconds=bad).validated()
    with pytest.raises(OptionsError, match="whole number"):
        TableOptions.from_dict({"hand_break_seconds": 1.5})
    assert TableOptions.from_dict({"game": "OKEY101", "hand_break_seconds": 12}).hand_break_seconds == 12


@pytest.mark.parametrize("options", GAMES)
def test_P_BREAK_2_only_a_person_may_say_ready_and_only_once_during_a_break(options: TableOptions) -> None:
    t = _table(options, ("ali", "", "ayse", ""))
    t.deal(ORDER)
    assert t.code(Ready(seat=0)) == "NOT_IN_BREAK"  # during a hand
    assert "Ready" not in t.view(0).allowed
    t.run_down_deck()
    assert t.code(Ready(seat=1)) == "BOT_SEAT"  # a bot is never waited for
    assert t.code(Ready(seat=9)) == "INVALID_SEAT"
    assert "Ready" in t.view(0).allowed and "Ready" not in t.view(1).allowed
    assert t.do(Ready(seat=0)) == [SeatReady(0)]
    assert to_move(SeatReady(0)) == -1
    assert t.code(Ready(seat=0)) == "ALREADY_READY"
    assert "Ready" not in t.view(0).allowed
    assert t.view(2).ready == (0,) and t.view(None).ready == (0,)
    t.do(LeaveSeat(seat=2))
    assert t.code(Ready(seat=2)) == "BOT_SEAT"  # the leaver is no longer a person here


@pytest.mark.parametrize("options", GAMES)
def test_P_BREAK_3_every_person_ready_cuts_the_break_short(options: TableOptions) -> None:
    t = _table(options, ("ali", "", "ayse", ""))
    _end_hand(t)
    assert t.state.break_due_ms == 6000
    t.do(Ready(seat=0))
    assert t.code(StartHand(order=ORDER, now_ms=1000)) == "NOT_DUE"  # ayse has not said so yet
    t.do(Ready(seat=2))
    assert t.engine.can(t.state, StartHand(order=ORDER, now_ms=1000)) is None  # dealt at once
    t.deal(ORDER, now_ms=1000)
    assert t.state.hand == 2 and t.state.ready == ()


@pytest.mark.parametrize("options", GAMES)
def test_P_BREAK_3_the_last_person_leaving_ends_the_break(options: TableOptions) -> None:
    t = _table(options)
    _end_hand(t)
    t.do(LeaveSeat(seat=0))
    assert t.state.persons == ()
    assert t.engine.can(t.state, StartHand(order=ORDER, now_ms=0)) is None  # nobody left to wait for


@pytest.mark.parametrize("options", GAMES)
def test_P_BREAK_4_bot_only_tables_and_a_break_of_zero_deal_at_once(options: TableOptions) -> None:
    for t in (_table(options, ("", "", "", "")), _table(replace(options, hand_break_seconds=0))):
        ended = _end_hand(t)
        assert not any(isinstance(e, BreakStarted) for e in ended)
        assert not t.state.in_break and t.view(0).break_due_ms == 0
        assert t.engine.can(t.state, StartHand(order=ORDER, now_ms=0)) is None
        assert t.code(Ready(seat=0)) == "NOT_IN_BREAK"


@pytest.mark.parametrize("options", GAMES)
def test_P_BREAK_4_a_table_of_older_rules_deals_at_once_as_its_log_was_decided(options: TableOptions) -> None:
    assert RULES_VERSION == 3
    t = _table(options)
    created = t.events[0]
    assert isinstance(created, TableCreated) and created.rules_version == RULES_VERSION
    t.state = t.engine.fold(None, [replace(created, rules_version=2)])
    ended = _end_hand(t)
    assert not any(isinstance(e, BreakStarted) for e in ended)
    assert t.engine.can(t.state, StartHand(order=ORDER, now_ms=0)) is None


def test_P_BREAK_1_no_break_after_the_match_ends() -> None:
    t = _table(TableOptions(match_points=1, penalties=True))
    t.deal(ORDER)
    while t.state.phase is Phase.PLAYING:
        t.draw_and_discard()
    # A dead hand moves no score: play hands until one ends the match (a finish, with bots).
    bot = GreedyBot(1)
    for _ in range(40):
        if t.state.phase is Phase.MATCH_OVER:
            break
        t.deal(random.Random(len(t.events)).sample(range(TILE_COUNT), TILE_COUNT))
        while t.state.phase is Phase.PLAYING:
            t.apply(bot.act(t.view(t.state.turn)))
    assert t.state.phase is Phase.MATCH_OVER
    last = t.events[-1]
    assert isinstance(last, MatchEnded) and not isinstance(t.events[-2], BreakStarted)
    assert t.code(Ready(seat=0)) == "MATCH_OVER"


# ------------------------------------------------------------ folding breaks


def _tiles_hold(state: Any) -> None:
    tiles = [t for s in state.seats for t in s.rack + s.pile] + list(state.deck) + [state.indicator]
    if hasattr(state, "melds"):
        tiles += [t for m in state.melds for t in m.tiles]
    assert sorted(tiles) == list(range(TILE_COUNT))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from([Game.OKEY, Game.OKEY101]),
    persons=st.lists(st.booleans(), min_size=4, max_size=4),
    seconds=st.integers(0, 30),
    seed=st.integers(0, 2**32 - 1),
)
def test_P_BREAK_1_folding_a_match_with_breaks_rebuilds_it_and_the_106_tiles_hold(
    game: Game, persons: list[bool], seconds: int, seed: int
) -> None:
    options = (
        TableOptions(match_points=3, hand_break_seconds=seconds)
        if game is Game.OKEY
        else TableOptions(game=game, rounds=3, hand_break_seconds=seconds)
    )
    rng = random.Random(seed)
    players = tuple(f"p{i}" if person else "" for i, person in enumerate(persons))
    t = Table(options, players=players)
    bots = [GreedyBot(seed + i) if game is Game.OKEY else GreedyBot101(seed + i) for i in range(4)]
    now = 0
    for _ in range(4):
        if t.state.phase is Phase.MATCH_OVER:
            break
        order = list(range(TILE_COUNT))
        rng.shuffle(order)
        got = t.attempt(StartHand(order=tuple(order), now_ms=now))
        assert isinstance(got, list) and isinstance(got[0], HandStarted)
        moves = 0
        while t.state.phase is Phase.PLAYING and moves < 2000:
            now += 1000
            cmd = bots[t.state.turn].act(t.view(t.state.turn))
            t.apply(replace(cmd, now_ms=now))
            _tiles_hold(t.state)
            moves += 1
        if t.state.phase is not Phase.HAND_OVER:
            continue
        assert t.state.in_break is (seconds > 0 and any(persons))
        if t.state.in_break:
            assert t.state.break_due_ms == now + seconds * 1000
            for seat in t.state.persons:  # some say Ready, the others wait for the timer
                if rng.random() < 0.5:
                    t.do(Ready(seat=seat))
            if not set(t.state.persons) <= set(t.state.ready):
                assert t.code(StartHand(order=tuple(order), now_ms=now)) == "NOT_DUE"
                now = t.state.break_due_ms
            _tiles_hold(t.state)
    events = t.events
    assert t.engine.fold(None, events) == t.state
    decoded = [event_from_dict(json.loads(json.dumps(event_to_dict(e)))) for e in events]
    assert t.engine.fold(None, decoded) == t.state
    assert t.state.version == len(events)
    assert {"BreakStarted", "SeatReady"} <= set(EVENT_TYPES)


@pytest.mark.parametrize("options", GAMES)
def test_P_BREAK_1_the_finished_hand_keeps_its_own_indicator_after_the_next_deal(options: TableOptions) -> None:
    """Issue 18.6: the last hand's result is drawn with that hand's indicator and okey."""
    t = _table(options)
    assert t.view(0).last_hand_indicator == -1 and t.view(0).last_hand_okey is None
    _end_hand(t)
    first = t.state.indicator
    assert t.view(0).last_hand_indicator == first == t.view(0).indicator
    t.deal(random.Random(7).sample(range(TILE_COUNT), TILE_COUNT))
    v = t.view(0)
    assert v.indicator != first and v.last_hand_indicator == first
    assert v.last_hand_okey == t.engine.fold(None, t.events[:2]).okey and v.last_hand_okey != v.okey


def test_C_IND_1_C_PAIR_1_only_a_deal_and_a_discard_give_a_turn() -> None:
    """``gives_turn``: the starter after a deal and the next seat after a discard are handed a
    turn; every other event that names a seat names the one that acted (a draw goes on with
    its turn; a show [C-IND-1] or pairs declared [C-PAIR-1] may come out of turn), and the
    bots time a person's think pause only from the events that hand a turn."""
    from okeycore.events import EVENT_TYPES, gives_turn

    handing = {name for name, cls in EVENT_TYPES.items() if gives_turn(cls.__new__(cls))}
    assert handing == {"HandStarted", "TileDiscarded"}

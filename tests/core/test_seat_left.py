"""Leaving mid-match [C-LEAVE-1] is a table event, the same in both games [D-10]: from it on a
bot plays the seat for the rest of the match, the leaver cannot take it back, and nothing else
changes (scores, the turn, the other seats)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from okeycore.classic.bots import GreedyBot
from okeycore.commands import Discard, Draw, ForceMove, LeaveSeat, TakeBack, TimeOut
from okeycore.errors import RuleViolation
from okeycore.events import EVENT_TYPES, SeatLeft, event_from_dict, event_to_dict
from okeycore.games import engine_for
from okeycore.kernel.state import Phase
from okeycore.options import Game, TableOptions
from okeycore.testing import Table, mixed_bots, table_tiles
from okeycore.tiles import TILE_COUNT

PLAYERS = ("ali", "ayse", "mehmet", "zeynep")
GAMES = [TableOptions(match_points=2), TableOptions(game=Game.OKEY101, seats=2, rounds=3)]


def _table(options: TableOptions, players: tuple[str, ...] = PLAYERS) -> Table:
    return Table(options, players=players[: options.seat_count])


@pytest.mark.parametrize("options", GAMES)
def test_D_10_a_seat_left_on_its_turn_is_a_bot_seat_with_the_same_turn_and_scores(options: TableOptions) -> None:
    t = _table(options)
    t.deal(tuple(range(TILE_COUNT)))
    seat = t.state.turn
    before = t.state
    (left,) = t.do(LeaveSeat(seat=seat))
    assert left == SeatLeft(seat, PLAYERS[seat])
    assert event_to_dict(left) == {"type": "SeatLeft", "seat": seat, "player": PLAYERS[seat]}
    after = t.state
    assert after.players[seat] == "" and after.seats[seat].left  # the leaver may no longer act
    assert [p for i, p in enumerate(after.players) if i != seat] == [
        p for i, p in enumerate(before.players) if i != seat
    ]
    assert after.turn == seat and after.deadline_ms == before.deadline_ms  # the bots play the turn at once
    assert t.scores == tuple(s.score for s in before.seats)
    assert [s.rack for s in after.seats] == [s.rack for s in before.seats]
    assert t.view(None).seats[seat].left and not t.view(None).seats[seat - 1].left
    # The turn goes on as the seat's turn: a bot sends the seat's move.
    mover = t.rack(seat)[-1]
    assert t.engine.can(t.state, Discard(seat=seat, tile=mover)) is None


@pytest.mark.parametrize("options", GAMES)
def test_D_10_the_leaver_cannot_take_the_seat_back_even_from_autopilot(options: TableOptions) -> None:
    t = _table(options)
    t.deal(tuple(range(TILE_COUNT)))
    seat = t.state.turn
    now = 10**9
    for _ in range(3 * t.state.seat_count):  # three timeouts in a row put every seat on autopilot
        now += 10**6
        t.do(TimeOut(now_ms=now, grace_ms=0))
        t.do(ForceMove(now_ms=now))
    assert t.state.seats[seat].autopilot
    assert t.engine.can(t.state, TakeBack(seat=seat)) is None  # [D-5]
    t.do(LeaveSeat(seat=seat))
    assert t.code(TakeBack(seat=seat)) == "SEAT_LEFT"
    assert "TakeBack" not in t.view(seat).allowed
    other = (seat + 1) % t.state.seat_count
    assert t.code(TakeBack(seat=seat)) == "SEAT_LEFT" and t.engine.can(t.state, TakeBack(seat=other)) is None


@pytest.mark.parametrize("options", GAMES)
def test_D_10_leaving_twice_a_bot_seat_or_no_seat_is_refused(options: TableOptions) -> None:
    t = _table(options, ("ali", "") + PLAYERS[2:])
    t.deal(tuple(range(TILE_COUNT)))
    assert t.code(LeaveSeat(seat=1)) == "BOT_SEAT"
    assert t.code(LeaveSeat(seat=7)) == "INVALID_SEAT"
    assert t.code(LeaveSeat(seat=True)) == "INVALID_SEAT"  # True is no seat 1
    assert "LeaveSeat" in t.view(0).allowed and "LeaveSeat" not in t.view(1).allowed
    t.do(LeaveSeat(seat=0))
    assert t.code(LeaveSeat(seat=0)) == "ALREADY_LEFT"
    assert "LeaveSeat" not in t.view(0).allowed


@pytest.mark.parametrize("options", GAMES)
def test_C_LEAVE_1_a_player_may_leave_before_the_first_hand_and_between_hands(options: TableOptions) -> None:
    t = _table(options)
    assert t.state.phase is Phase.NEW
    t.do(LeaveSeat(seat=1))
    t.deal(tuple(range(TILE_COUNT)))
    assert t.state.seats[1].left and t.state.players[1] == ""  # a new hand keeps the seat a bot's
    t.run_down_deck()  # the deck runs out: the hand ends [C-DECK-1] [D-2]
    assert t.state.phase is Phase.HAND_OVER
    t.do(LeaveSeat(seat=0))
    t.deal(tuple(range(TILE_COUNT)))
    assert [s.left for s in t.state.seats][:2] == [True, True]


def test_C_LEAVE_1_nobody_leaves_a_match_that_is_over() -> None:
    t = _table(TableOptions(game=Game.OKEY101, seats=2, rounds=3))
    while t.state.phase is not Phase.MATCH_OVER:
        t.deal(tuple(range(TILE_COUNT)))
        t.run_down_deck()
    assert t.code(LeaveSeat(seat=0)) == "MATCH_OVER"


def test_D_10_seat_left_is_a_registered_event_of_the_proto_shape() -> None:
    assert EVENT_TYPES["SeatLeft"] is SeatLeft
    assert event_from_dict({"type": "SeatLeft", "seat": 2, "player": "p-2"}) == SeatLeft(2, "p-2")
    assert list(event_to_dict(SeatLeft(2, "p-2"))) == ["type", "seat", "player"]  # okey.v1: seat int, player string


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from([Game.OKEY, Game.OKEY101]),
    seats=st.sampled_from([2, 4]),
    seed=st.integers(0, 2**32 - 1),
    leave_rate=st.sampled_from([0.01, 0.05, 0.2]),
)
def test_D_10_random_games_with_random_leaves_keep_106_tiles_and_replay_exactly(
    game: Game, seats: int, seed: int, leave_rate: float
) -> None:
    options = TableOptions(match_points=3) if game is Game.OKEY else TableOptions(game=game, seats=seats, rounds=3)
    n = options.seat_count
    t = _table(options, tuple(f"p-{i}" for i in range(4)))
    engine = engine_for(game)
    bots = mixed_bots(game, n, seed)
    rng = random.Random(seed)
    order = list(range(TILE_COUNT))
    incremental = t.state
    for _ in range(3):  # hands
        if t.state.phase is Phase.MATCH_OVER:
            break
        rng.shuffle(order)
        for e in t.deal(tuple(order)):
            incremental = engine.evolve(incremental, e)
        for _ in range(2_000):
            if t.state.phase is not Phase.PLAYING:
                break
            if rng.random() < leave_rate:
                before = t.state
                got = t.attempt(LeaveSeat(seat=rng.randrange(n)))  # accepted, or ALREADY_LEFT
                assert not isinstance(got, RuleViolation) or got.code == "ALREADY_LEFT"
                after = t.state
                assert (after.turn, after.stage, after.deadline_ms) == (before.turn, before.stage, before.deadline_ms)
                assert [s.score for s in after.seats] == [s.score for s in before.seats]
            else:
                seat = t.state.turn
                cmd = bots[seat].act(t.view(seat))  # a left seat's bot plays on [D-10]
                got = t.apply(cmd)
            if not isinstance(got, RuleViolation):
                for e in got:
                    incremental = engine.evolve(incremental, e)
            if t.state.phase is Phase.PLAYING:
                assert sorted(table_tiles(t.state)) == list(range(TILE_COUNT))
        assert t.state.phase is not Phase.PLAYING, "a hand did not end"
        left = [i for i, s in enumerate(t.state.seats) if s.left]
        assert [p for i, p in enumerate(t.state.players) if i in left] == [""] * len(left)
        assert all(t.state.players[i] == f"p-{i}" for i in range(n) if i not in left)
    assert incremental == t.state
    decoded = [event_from_dict(json.loads(json.dumps(event_to_dict(e)))) for e in t.events]
    assert engine.fold(None, decoded) == t.state
    assert t.state.version == len(t.events)


def test_D_10_a_left_seat_is_played_by_its_bot_to_the_hand_s_end() -> None:
    t = _table(TableOptions(match_points=2))
    t.deal(tuple(range(TILE_COUNT)))
    t.do(LeaveSeat(seat=t.state.turn))
    bots = [GreedyBot(i) for i in range(4)]
    while t.state.phase is Phase.PLAYING:
        seat = t.state.turn
        t.apply(bots[seat].act(t.view(seat)))
    assert t.state.phase in (Phase.HAND_OVER, Phase.MATCH_OVER)
    assert t.engine.can(t.state, Draw(seat=0)) is not None

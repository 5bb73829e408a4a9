"""The automations the engine declares (``okeycore.kernel.automations``): what follows a command by
itself (the next deal [C-DEAL-2] [P-BREAK-3] [P-BREAK-4] [O-PEN-4]) and what the clock triggers
(the turn's TimeOut and ForceMove [C-TIME-1] [D-4], the deal at the break's end [P-BREAK-3]). The
host supplies only the shuffle and the clock: these tests are such a host."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from okeycore import okey101 as O
from okeycore.classic.bots import GreedyBot
from okeycore.commands import Discard, Draw, ForceMove, Ready, StartHand, TimeOut
from okeycore.events import Event, HandStarted, MatchEnded, TileDiscarded, TurnTimedOut
from okeycore.fairness import deal_commitment
from okeycore.games import Automation, Shuffle
from okeycore.kernel.state import Phase
from okeycore.okey101.bots import GreedyBot101
from okeycore.options import Game, TableOptions
from okeycore.testing import Table
from okeycore.tiles import TILE_COUNT

GAMES = [TableOptions(match_points=20), TableOptions(game=Game.OKEY101, seats=4, rounds=5)]
ORDER = tuple(range(TILE_COUNT))


class Shuffler:
    """The host's randomness, counting how often the engine asked for it."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.asked = 0

    def __call__(self) -> Shuffle:
        self.asked += 1
        order = list(range(TILE_COUNT))
        self.rng.shuffle(order)
        return Shuffle(tuple(order), f"salt{self.asked}")


def _follow(t: Table, now_ms: int, shuffle: Shuffler) -> list[Event]:
    """Apply what the engine says follows by itself, as the table service does, until nothing does."""
    out: list[Event] = []
    while got := t.engine.follow_ups(t.state, now_ms, shuffle):
        for e in got:
            t.state = t.engine.evolve(t.state, e)
            t.events.append(e)
        out += got
    return out


def _to_hand_end(t: Table) -> None:
    t.deal(ORDER, now_ms=0)
    t.run_down_deck()
    assert t.state.phase is Phase.HAND_OVER


@pytest.mark.parametrize("options", GAMES)
def test_C_DEAL_3_a_new_table_is_dealt_at_once_from_the_hosts_shuffle(options: TableOptions) -> None:
    t = Table(options, players=("ali", "", "", "")[: options.seat_count])
    assert t.engine.automation(t.state, 0) is Automation.DEAL
    assert t.engine.due_at(t.state) is None  # due now, with nothing to wait for
    shuffle = Shuffler()
    (started,) = _follow(t, 5000, shuffle)
    deck = Shuffler()()  # the same seed: the shuffle the engine was given
    assert shuffle.asked == 1 and isinstance(started, HandStarted)
    assert started.order == deck.order and started.salt == deck.salt and started.hand == 1
    assert started.commitment == deal_commitment(deck.order, deck.salt)
    assert started.deadline_ms == 5000 + options.turn_seconds * 1000
    assert t.engine.follow_ups(t.state, 5000, shuffle) == [] and shuffle.asked == 1  # asked only for a deal


def test_C_TIME_1_the_clock_triggers_the_timeout_then_the_forced_move() -> None:
    t = Table(TableOptions(turn_seconds=10))
    shuffle = Shuffler()
    t.deal(ORDER, now_ms=1000)
    deadline = t.state.deadline_ms
    assert deadline == 11_000 and t.engine.due_at(t.state) == deadline
    assert t.engine.automation(t.state, deadline - 1) is None
    assert t.engine.on_due(t.state, deadline - 1, shuffle, 500) is None  # not due yet
    assert t.engine.automation(t.state, deadline) is Automation.TIME_OUT
    cmd = t.engine.on_due(t.state, deadline, shuffle, 500)
    assert cmd == TimeOut(now_ms=deadline, grace_ms=500)
    assert t.do(cmd) == [TurnTimedOut(0, 1, False, deadline + 500)]
    assert t.engine.due_at(t.state) == deadline + 500  # the grace's end
    assert t.engine.on_due(t.state, deadline + 499, shuffle, 500) is None
    assert t.engine.automation(t.state, deadline + 500) is Automation.FORCE_MOVE
    cmd = t.engine.on_due(t.state, deadline + 500, shuffle, 500)
    assert cmd == ForceMove(now_ms=deadline + 500)
    (disc,) = t.do(cmd)  # the starter's minimal move: a discard
    assert isinstance(disc, TileDiscarded) and disc.seat == 0
    assert t.engine.due_at(t.state) == deadline + 500 + 10_000 and shuffle.asked == 0


def test_D_4_a_timed_out_turn_is_left_to_the_clock_not_followed_at_once() -> None:
    """Nothing but a deal follows a command by itself: a turn timed out with no grace waits for
    the clock's ForceMove, so the seat's bot may still play it [D-4]."""
    t = Table(TableOptions(turn_seconds=10))
    shuffle = Shuffler()
    t.deal(ORDER, now_ms=0)
    t.do(TimeOut(now_ms=t.state.deadline_ms, grace_ms=0))
    assert t.engine.automation(t.state, t.state.deadline_ms) is Automation.FORCE_MOVE
    assert _follow(t, t.state.deadline_ms + 10_000, shuffle) == [] and shuffle.asked == 0
    t.do(Discard(seat=0, tile=t.state.seats[0].rack[0]))  # the starter's bot plays it in the grace
    assert t.state.turn == 1 and not t.state.timed_out


@pytest.mark.parametrize("options", GAMES)
def test_P_BREAK_3_the_break_holds_the_deal_until_it_is_due_or_everyone_is_ready(options: TableOptions) -> None:
    t = Table(options, players=("ali", "", "ayse", "")[: options.seat_count])
    _to_hand_end(t)
    shuffle = Shuffler()
    due = t.state.break_due_ms
    assert t.state.in_break and t.engine.due_at(t.state) == due
    assert t.engine.automation(t.state, due - 1) is None
    assert _follow(t, due - 1, shuffle) == [] and shuffle.asked == 0  # a person is not ready
    assert t.engine.on_due(t.state, due - 1, shuffle, 1000) is None
    t.do(Ready(seat=0))
    assert _follow(t, due - 1, shuffle) == []  # ayse is not ready yet
    t.do(Ready(seat=2))
    (started,) = _follow(t, due - 1, shuffle)  # the last Ready deals at once
    assert isinstance(started, HandStarted) and started.hand == 2 and shuffle.asked == 1


@pytest.mark.parametrize("options", GAMES)
def test_P_BREAK_3_the_clock_deals_when_the_break_is_due(options: TableOptions) -> None:
    t = Table(options, players=("ali", "", "", "")[: options.seat_count])
    _to_hand_end(t)
    shuffle = Shuffler()
    due = t.state.break_due_ms
    assert t.engine.automation(t.state, due) is Automation.DEAL
    cmd = t.engine.on_due(t.state, due, shuffle, 1000)
    assert isinstance(cmd, StartHand) and cmd.now_ms == due and shuffle.asked == 1
    (started,) = t.do(cmd)
    assert isinstance(started, HandStarted) and started.hand == 2
    assert t.engine.due_at(t.state) == t.state.deadline_ms


@pytest.mark.parametrize("options", GAMES)
def test_P_BREAK_4_a_bot_only_table_is_dealt_the_next_hand_at_once(options: TableOptions) -> None:
    t = Table(options)
    _to_hand_end(t)
    assert not t.state.in_break and t.engine.due_at(t.state) is None
    assert t.engine.automation(t.state, 0) is Automation.DEAL
    (started,) = _follow(t, 0, Shuffler())
    assert isinstance(started, HandStarted) and started.hand == 2


def test_O_PEN_4_a_void_hand_is_dealt_again_at_once_even_with_persons_seated() -> None:
    t = Table(TableOptions(game=Game.OKEY101, seats=2), players=("ali", "ayse"))
    t.deal(["R1 R1 R2 R2 R3 R3 R4 R4 R5 R5 K2 K7", "Y1 Y1 Y2 Y2 Y3 Y3 Y4 Y4 Y5 Y5"], "K1", "K13")
    t.apply(O.OpenMelds(seat=0, melds=tuple((t.tile(0, c, 0), t.tile(0, c, 1)) for c in "R1 R2 R3 R4 R5".split())))
    t.apply(Discard(seat=0, tile=t.tile(0, "K2")))
    t.apply(Draw(seat=1))
    t.apply(O.OpenMelds(seat=1, melds=tuple((t.tile(1, c, 0), t.tile(1, c, 1)) for c in "Y1 Y2 Y3 Y4 Y5".split())))
    assert isinstance(t.events[-1], O.HandVoided) and not t.state.in_break
    (started,) = _follow(t, 0, Shuffler())
    assert isinstance(started, HandStarted) and (started.hand, started.starter) == (1, 0)


def test_C_SC_7_nothing_is_automated_once_the_match_is_over() -> None:
    t = Table(TableOptions(match_points=1, penalties=True))
    shuffle = Shuffler(1)
    bot = GreedyBot(1)
    _follow(t, 0, shuffle)
    while t.state.phase is not Phase.MATCH_OVER:
        t.apply(bot.act(t.view(t.state.turn)))
        _follow(t, 0, shuffle)
    assert isinstance(t.events[-1], MatchEnded)
    asked = shuffle.asked
    assert t.engine.automation(t.state, 2**62) is None and t.engine.due_at(t.state) is None
    assert t.engine.on_due(t.state, 2**62, shuffle, 1000) is None
    assert t.engine.follow_ups(t.state, 2**62, shuffle) == [] and shuffle.asked == asked


def _tiles_hold(state: Any) -> None:
    tiles = [t for s in state.seats for t in s.rack + s.pile] + list(state.deck) + [state.indicator]
    if hasattr(state, "melds"):
        tiles += [t for m in state.melds for t in m.tiles]
    assert sorted(tiles) == list(range(TILE_COUNT))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from([Game.OKEY, Game.OKEY101]),
    persons=st.lists(st.booleans(), min_size=4, max_size=4),
    seconds=st.integers(0, 30),
    patience=st.floats(0.0, 0.5),
    seed=st.integers(0, 2**32 - 1),
)
def test_C_TIME_1_P_BREAK_3_a_host_of_shuffle_and_clock_alone_plays_a_match_and_106_tiles_hold(
    game: Game, persons: list[bool], seconds: int, patience: float, seed: int
) -> None:
    """A host that only shuffles and runs the clock: it appends what the engine declares follows,
    and when a seat is slow (``patience``) or a break runs, moves the clock to ``due_at`` and
    sends what ``on_due`` gives. The engine accepts every command it declared, a table is never
    left waiting for nothing (``due_at`` is set unless the match is over or a deal is due), nothing
    is due before ``due_at``, the 106 tiles hold at every step, and folding rebuilds the state."""
    options = (
        TableOptions(match_points=3, hand_break_seconds=seconds)
        if game is Game.OKEY
        else TableOptions(game=game, seats=4, rounds=3, hand_break_seconds=seconds)
    )
    rng = random.Random(seed)
    players = tuple(f"p{i}" if person else "" for i, person in enumerate(persons))
    t = Table(options, table_id="t", players=players)
    shuffle = Shuffler(seed)
    bots = [GreedyBot(seed + i) if game is Game.OKEY else GreedyBot101(seed + i) for i in range(4)]
    now = 0
    _follow(t, now, shuffle)
    for _ in range(3000):
        s = t.state
        if s.phase is Phase.MATCH_OVER or s.hand > 3:
            break
        due = t.engine.due_at(s)
        assert due is not None, "a table waits for nothing"
        assert t.engine.automation(s, due - 1) is None
        if s.in_break and rng.random() < 0.5 and (waiting := [p for p in s.persons if p not in s.ready]):
            t.do(Ready(seat=rng.choice(waiting), now_ms=now))
        elif s.in_break or rng.random() < patience:
            now = max(now, due)
            cmd = t.engine.on_due(s, now, shuffle, rng.choice((0, 500)))
            assert cmd is not None
            t.do(cmd)
        else:
            now += 100
            t.do(replace(bots[s.turn].act(t.view(s.turn)), now_ms=now))
        _follow(t, now, shuffle)
        _tiles_hold(t.state)
    else:
        raise AssertionError("the match did not move on")
    assert t.engine.fold(None, t.events) == t.state

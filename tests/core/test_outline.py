"""The outline (okeycore.outline) is the engine's state in little: folded from the stored events of
simulated matches of both games, with timeouts, autopilot, take-backs and leaves mixed in, it
agrees with ``Engine.evolve`` on the phase, the hand, the turn, the seat left of each seat and
every seat's autopilot after every event."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from okeycore.classic.bots import GreedyBot
from okeycore.commands import ForceMove, LeaveSeat, TakeBack, TimeOut
from okeycore.errors import RuleViolation
from okeycore.events import Event, TableCreated, event_to_dict
from okeycore.games import engine_for
from okeycore.kernel.state import Phase
from okeycore.okey101.bots import GreedyBot101
from okeycore.okey101.simulate import Simulator101
from okeycore.options import Game, TableOptions
from okeycore.outline import Outline
from okeycore.simulate import Simulator
from okeycore.testing import Table, mixed_bots
from okeycore.tiles import TILE_COUNT


def _agree(events: list[Event], game: Game) -> None:
    engine = engine_for(game)
    state: Any = None
    outline: Outline | None = None
    for e in events:
        state = engine.evolve(state, e)
        stored = json.loads(json.dumps(event_to_dict(e)))  # as the log holds it
        kind = stored.pop("type")
        if isinstance(e, TableCreated):
            outline = Outline(e.options)
        else:
            assert outline is not None
            outline.step(kind, stored)
        assert (outline.phase, outline.hand, outline.turn) == (state.phase, state.hand, state.turn), kind
        assert outline.autopilot == [s.autopilot for s in state.seats], kind
        assert [outline.left_of(i) for i in range(outline.seats)] == [state.left_of(i) for i in range(len(state.seats))]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), game=st.sampled_from([Game.OKEY, Game.OKEY101]))
def test_the_outline_of_a_simulated_match_is_the_engine_s(seed: int, game: Game) -> None:
    if game is Game.OKEY:
        options = TableOptions(match_points=4, partners=bool(seed & 1), colored=bool(seed & 2))
        sim: Simulator = Simulator(options, [GreedyBot(i) for i in range(4)], seed=seed)
    else:
        options = TableOptions(game=game, seats=2 + 2 * (seed & 1), rounds=3)
        sim = Simulator101(options, [GreedyBot101(i) for i in range(options.seat_count)], seed=seed)
    _agree(sim.play_match().events, game)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from([Game.OKEY, Game.OKEY101]),
    seats=st.sampled_from([2, 4]),
    seed=st.integers(0, 2**32 - 1),
    rate=st.sampled_from([0.02, 0.1, 0.3]),
)
def test_the_outline_follows_timeouts_autopilot_take_backs_and_leaves(
    game: Game, seats: int, seed: int, rate: float
) -> None:
    options = TableOptions(match_points=3) if game is Game.OKEY else TableOptions(game=game, seats=seats, rounds=3)
    n = options.seat_count
    t = Table(options, players=tuple(f"p-{i}" for i in range(n)))
    bots = mixed_bots(game, n, seed)
    rng = random.Random(seed)
    order = list(range(TILE_COUNT))
    for _ in range(3):  # hands
        if t.state.phase is Phase.MATCH_OVER:
            break
        rng.shuffle(order)
        t.deal(tuple(order))
        for _ in range(3_000):
            if t.state.phase is not Phase.PLAYING:
                break
            roll = rng.random()
            if roll < rate:  # the turn's time runs out; sometimes the table plays it at once
                got = t.attempt(TimeOut(now_ms=t.state.deadline_ms, grace_ms=0))
                if not isinstance(got, RuleViolation) and rng.random() < 0.5:
                    t.attempt(ForceMove(now_ms=t.state.deadline_ms))
            elif roll < rate * 1.3:
                t.attempt(TakeBack(seat=rng.randrange(n)))
            elif roll < rate * 1.4:
                t.attempt(LeaveSeat(seat=rng.randrange(n)))
            else:
                seat = t.state.turn
                t.attempt(bots[seat].act(t.view(seat)))
    _agree(list(t.events), game)

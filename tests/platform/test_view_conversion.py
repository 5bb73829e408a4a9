"""A seat's view survives the trip through its message: okeycore's view -> ``view_pb`` ->
``classic_view_from_pb`` / ``view101_from_pb`` gives the view back, equal field for field, for
every seat and the spectator at every point of random matches of both games. This is what a bot
decides from (RULES.md section 7: only its own seat's view), so a field lost or mistranslated
here is a bot deciding on a table that is not as it is."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from okey.v1 import table_service_pb2
from okeycore.classic.strategy import STRATEGIES
from okeycore.events import Event
from okeycore.okey101.bots import GreedyBot101
from okeycore.okey101.simulate import Simulator101
from okeycore.options import Game, TableOptions
from okeycore.simulate import Simulator
from okeyplatform.contract import classic_view_from_pb, view101_from_pb, view_pb


def _check_views(game: Game, seed: int, every: int) -> int:
    checked = 0
    count = 0

    def on_event(state: Any, _e: Event) -> None:
        nonlocal checked, count
        count += 1
        if count % every:
            return
        engine = sim.engine
        for seat in (None, *range(len(state.players))):
            view = engine.view(state, seat)
            msg = view_pb(view, state.players)
            back = table_service_pb2.SeatView.FromString(msg.SerializeToString())  # as a bot receives it
            got = (classic_view_from_pb if game is Game.OKEY else view101_from_pb)(back)
            assert got == view, (seat, type(view).__name__)
            checked += 1

    if game is Game.OKEY:
        sim: Any = Simulator(
            TableOptions(), [STRATEGIES["greedy"](seed + i) for i in range(4)], seed, on_event=on_event
        )
    else:
        sim = Simulator101(
            TableOptions(game=Game.OKEY101, rounds=3),
            [GreedyBot101(seed + i) for i in range(4)],
            seed,
            on_event=on_event,
        )
    sim.play_match(20)
    return checked


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), every=st.integers(3, 17))
def test_a_classic_seat_view_comes_back_from_its_message_unchanged(seed: int, every: int) -> None:
    assert _check_views(Game.OKEY, seed, every) > 10


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), every=st.integers(5, 23))
def test_an_okey_101_seat_view_comes_back_from_its_message_unchanged(seed: int, every: int) -> None:
    assert _check_views(Game.OKEY101, seed, every) > 10

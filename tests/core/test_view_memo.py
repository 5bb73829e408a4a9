"""A view shares each seat's public record with earlier views while that seat's state is the
same object (``kernel.view.SeatPublics``); it must never differ from a view built from scratch,
whatever order the states are viewed in, and never show a rack or discards the fresh view hides
(RULES.md section 7)."""

from __future__ import annotations

import importlib
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from okeycore.classic.bots import GreedyBot
from okeycore.kernel.state import Phase
from okeycore.kernel.view import SeatPublics
from okeycore.okey101.bots import GreedyBot101
from okeycore.okey101.simulate import Simulator101
from okeycore.options import DiscardHistory, Game, OptionsError, PairsDeclaration, TableOptions
from okeycore.simulate import Simulator

# the modules, not the ``view`` functions the game packages export under the same name
classic_view_module = importlib.import_module("okeycore.classic.view")
view101_module = importlib.import_module("okeycore.okey101.view")


def _all_states(sim: Any, hands: int) -> list[Any]:
    """Every state the match passed through, one per event."""
    seen: list[Any] = []
    orig = sim.apply

    def apply(cmd: Any) -> Any:
        got = orig(cmd)
        seen.append(sim.state)
        return got

    sim.apply = apply
    for _ in range(hands):
        sim.play_hand()
        if sim.state.phase is Phase.MATCH_OVER:
            break
    return seen


def _check(module: Any, states: list[Any], order: list[int]) -> None:
    seats = len(states[0].seats)
    for k in order:
        state = states[k]
        for viewer in [None, *range(seats)]:
            shared = module.view(state, viewer)
            module._PUBLICS.clear()
            fresh = module.view(state, viewer)
            assert shared == fresh, (k, viewer)
            if state.phase is Phase.PLAYING:
                for p in shared.seats:
                    assert p.rack is None  # [C-DEAL-3]: no rack while the hand runs, memo or not


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    history=st.sampled_from(list(DiscardHistory)),
    pairs=st.sampled_from(list(PairsDeclaration)),
    data=st.randoms(use_true_random=False),
)
def test_classic_views_with_shared_seat_records_equal_fresh_views(
    seed: int, history: DiscardHistory, pairs: PairsDeclaration, data: Any
) -> None:
    opts = TableOptions(discard_history=history, pairs_declaration=pairs)
    try:
        opts.validated()
    except OptionsError:
        assume(False)
    sim = Simulator(opts, [GreedyBot(seed + i) for i in range(4)], seed)
    states = _all_states(sim, 2)
    order = list(range(len(states)))
    data.shuffle(order)  # earlier, later and other seats' views fill the memo in any order
    _check(classic_view_module, states, order)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), seats=st.sampled_from([2, 4]), data=st.randoms(use_true_random=False))
def test_101_views_with_shared_seat_records_equal_fresh_views(seed: int, seats: int, data: Any) -> None:
    opts = TableOptions(game=Game.OKEY101, seats=seats)
    sim = Simulator101(opts, [GreedyBot101(seed + i) for i in range(seats)], seed)
    states = _all_states(sim, 1)
    order = list(range(len(states)))
    data.shuffle(order)
    _check(view101_module, states, order)


def test_the_memo_is_bounded() -> None:

    built: list[int] = []
    memo = SeatPublics(
        lambda i, s, hidden, pile: built.append(i) or classic_view_module._public(i, s, hidden, pile), size=8
    )
    sim = Simulator(TableOptions(), [GreedyBot(i) for i in range(4)], 1)
    states = _all_states(sim, 1)
    for s in states:
        memo(s)
    assert len(memo._memo) <= 8
    assert len(built) > len(states)  # records were rebuilt after the memo was emptied
    memo(states[-1])
    before = len(built)
    again = memo(states[-1])  # the same state again: every record is shared, none built
    assert len(built) == before
    assert again == memo(states[-1])

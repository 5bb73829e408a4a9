"""Okey 101 bot strategies: always legal, deterministic given a seed, blind to hidden tiles, and
the strong one never makes a penalised discard while another tile is safe [O-PEN-1..3]."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from okeycore.commands import Command, Discard
from okeycore.errors import RuleViolation
from okeycore.melds import MeldKind
from okeycore.okey101 import Okey101State, Opening, OpenMelds, SeatView101, view
from okeycore.okey101.simulate import Simulator101
from okeycore.okey101.strategy import STRATEGIES_101, penalised, strategy101
from okeycore.options import Game, Mode101, TableOptions

NAMES = sorted(STRATEGIES_101)


def _options(seats: int, wrap: bool = False, folding: bool = False, penalty: bool = True) -> TableOptions:
    return TableOptions(
        game=Game.OKEY101,
        seats=seats,
        wrap=wrap,
        mode=Mode101.FOLDING if folding else Mode101.PLAIN,
        rounds=3,
        discard_penalty=penalty,
    )


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31),
    seats=st.sampled_from([2, 4]),
    wrap=st.booleans(),
    folding=st.booleans(),
    penalty=st.booleans(),
    data=st.data(),
)
def test_every_101_strategy_only_makes_legal_moves(
    seed: int, seats: int, wrap: bool, folding: bool, penalty: bool, data: st.DataObject
) -> None:
    names = data.draw(st.lists(st.sampled_from(NAMES), min_size=seats, max_size=seats))
    bots = [strategy101(n, seed + i) for i, n in enumerate(names)]
    rec = Simulator101(_options(seats, wrap, folding, penalty), bots, seed).play_match(max_deals=4)
    assert rec.deals >= 1


@pytest.mark.parametrize("name", NAMES)
def test_a_101_strategy_is_deterministic_given_its_seed(name: str) -> None:
    def play(seed: int) -> list[object]:
        bots = [strategy101(name, seed * 4 + i) for i in range(4)]
        return Simulator101(_options(4), bots, seed).play_match(max_deals=2).events

    assert play(5) == play(5)


class _Checked:
    """Wraps the strong strategy and checks each discard it makes from the view it was given."""

    name = "checked"

    def __init__(self, seed: int) -> None:
        self.inner = strategy101("strong", seed)
        self.discards = 0
        self.forced = 0

    def act(self, v: SeatView101) -> Command:
        cmd = self.inner.act(v)
        if isinstance(cmd, Discard):
            self.discards += 1
            if penalised(v, cmd.tile):
                assert all(penalised(v, t) for t in v.rack), "a penalised discard while a safe tile was left"
                self.forced += 1
        return cmd


@pytest.mark.parametrize("seats", [2, 4])
def test_O_PEN_1_strong_never_makes_a_penalised_discard_when_it_has_an_alternative(seats: int) -> None:
    checked = [_Checked(s) for s in range(seats)]
    for seed in range(3):
        Simulator101(_options(seats, wrap=seed % 2 == 1), checked, seed).play_match()
    assert sum(c.discards for c in checked) > 50


def _reshuffle_hidden(state: Okey101State, seat: int, rng: random.Random) -> Okey101State:
    n = len(state.seats)
    others = [i for i in range(n) if i != seat]
    pool = [t for i in others for t in state.seats[i].rack] + list(state.deck)
    rng.shuffle(pool)
    seats = list(state.seats)
    for i in others:
        k = len(seats[i].rack)
        seats[i] = replace(seats[i], rack=tuple(pool[:k]))
        pool = pool[k:]
    return replace(state, seats=tuple(seats), deck=tuple(pool))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), moves=st.integers(0, 60), shuffle=st.integers(0, 10**6), name=st.sampled_from(NAMES))
def test_a_101_decision_depends_only_on_the_seat_view(seed: int, moves: int, shuffle: int, name: str) -> None:
    sim = Simulator101(_options(4), [strategy101("greedy", seed + i) for i in range(4)], seed)
    sim.deal_random()
    for _ in range(moves):
        state = sim.state
        nxt = sim.strategies[state.turn].act(view(state, state.turn))
        got = sim.attempt(nxt)
        assert isinstance(got, list), got
        if sim.state.phase.value != "PLAYING":
            sim.state = state
            break
    state = sim.state
    seat = state.turn
    other = _reshuffle_hidden(state, seat, random.Random(shuffle))
    assert view(state, seat) == view(other, seat)
    assert strategy101(name, seed).act(view(state, seat)) == strategy101(name, seed).act(view(other, seat))


class _Audited:
    """The strong strategy, each command first put to the engine's ``decide`` on the live state:
    a refusal (a RuleViolation) is counted by its code, and the table moves are tallied."""

    name = "audited"

    def __init__(self, sim: Simulator101, seed: int) -> None:
        self.sim = sim
        self.inner = strategy101("strong", seed)
        self.refused: list[str] = []
        self.moves: Counter[str] = Counter()

    def act(self, v: SeatView101) -> Command:
        cmd = self.inner.act(v)
        got = self.sim.engine.decide(self.sim.state, cmd)
        if isinstance(got, RuleViolation):
            self.refused.append(f"{type(cmd).__name__}: {got.code}")
        self.moves[type(cmd).__name__] += 1
        if isinstance(cmd, OpenMelds) and v.seat is not None and v.seats[v.seat].opening is Opening.NONE:
            self.moves["pair opening" if MeldKind.PAIR in cmd.kinds else "run opening"] += 1
        return cmd


@pytest.mark.parametrize(("seats", "wrap", "folding"), [(4, False, False), (4, True, True), (2, False, True)])
def test_O_OPEN_1_O_ADD_3_strong_101_never_opens_or_adds_in_a_way_the_rules_refuse(
    seats: int, wrap: bool, folding: bool
) -> None:
    """Many seeded hands with the strong bot in every seat: no command it issues is refused by
    the engine, not its openings by runs or pairs [O-OPEN-1] [O-OPEN-2] with the threshold and
    the tile kept for the discard [O-OPEN-3] [O-OPEN-5], nor its adds and okey take-backs
    [O-ADD-1] [O-ADD-2] [O-ADD-3] [O-OKEY-1], nor its side-tile moves [O-SIDE-1] [O-SIDE-3]."""
    hands = 0
    refused: list[str] = []
    moves: Counter[str] = Counter()
    table = 0
    while hands < 60:
        opts = _options(seats, wrap=wrap, folding=folding)
        sim = Simulator101(opts, [strategy101("greedy", 0)] * seats, 7_000 + table)
        bots = [_Audited(sim, 31 * table + i) for i in range(seats)]
        sim.strategies = list(bots)
        sim.play_match(max_deals=3)
        hands += sim.record.deals
        for b in bots:
            refused += b.refused
            moves.update(b.moves)
        table += 1
    assert refused == [], Counter(refused)
    # The run covered what it claims to: openings, adds and side tiles, in numbers.
    assert moves["OpenMelds"] >= 100
    assert moves["run opening"] >= 30 and moves["pair opening"] >= 10
    assert moves["AddTile"] >= 50
    assert moves["TakeDiscard"] >= 20

"""``can`` beside ``decide`` in both games, and every view's ``allowed``: the seat commands a
seat may send now, which must be exactly those a search of every form of every command finds
accepted (the web client enables its buttons by it; the bots read it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from okeycore import classic, okey101
from okeycore.classic.bots import GreedyBot, RandomBot
from okeycore.commands import (
    AddTile,
    Command,
    DeclarePairs,
    Discard,
    Draw,
    Finish,
    ForceMove,
    LeaveSeat,
    OpenMelds,
    Pass,
    ReturnSideTile,
    ShowIndicator,
    TakeBack,
    TakeDiscard,
    TakeOkey,
    TimeOut,
    TurnToOkey,
)
from okeycore.errors import RuleViolation
from okeycore.games import engine_for
from okeycore.kernel.state import Phase
from okeycore.okey101.bots import GreedyBot101
from okeycore.okey101.simulate import Simulator101
from okeycore.okey101.strategy import RandomBot101
from okeycore.options import DeckEnd, Game, IndicatorTiming, Mode101, PairsDeclaration, TableOptions
from okeycore.simulate import Simulator
from okeycore.testing import Table


def _classic_forms(state: classic.ClassicState, seat: int) -> Iterator[tuple[str, Command]]:
    yield "Draw", Draw(seat=seat)
    yield "TakeDiscard", TakeDiscard(seat=seat)
    for t in state.seats[seat].rack:
        yield "Discard", Discard(seat=seat, tile=t)
        yield "Finish", Finish(seat=seat, tile=t)
    yield "ShowIndicator", ShowIndicator(seat=seat)
    yield "DeclarePairs", DeclarePairs(seat=seat)
    yield "TurnToOkey", TurnToOkey(seat=seat)
    yield "Pass", Pass(seat=seat)
    yield "TakeBack", TakeBack(seat=seat)
    yield "LeaveSeat", LeaveSeat(seat=seat)


def _101_forms(state: okey101.Okey101State, seat: int) -> Iterator[tuple[str, Command]]:
    """Every form but OpenMelds (too many to list; see the opening tests below)."""
    yield "Draw", Draw(seat=seat)
    yield "TakeDiscard", TakeDiscard(seat=seat)
    yield "ReturnSideTile", ReturnSideTile(seat=seat)
    for t in state.seats[seat].rack:
        yield "Discard", Discard(seat=seat, tile=t)
        for m in range(len(state.melds)):
            yield "AddTile", AddTile(seat=seat, tile=t, meld=m)
            yield "TakeOkey", TakeOkey(seat=seat, tile=t, meld=m)
    yield "TakeBack", TakeBack(seat=seat)
    yield "LeaveSeat", LeaveSeat(seat=seat)


def _searched(game: Game, state: Any, seat: int) -> set[str]:
    engine = engine_for(game)
    forms = _classic_forms if game is Game.OKEY else _101_forms
    return {name for name, cmd in forms(state, seat) if engine.can(state, cmd) is None}


def _states(sim: type[Simulator], options: TableOptions, bots: list[Any], seed: int, every: int) -> list[Any]:
    """Every ``every``-th state of the first two hands of a simulated match."""
    seen: list[Any] = []
    sim(options, bots, seed, on_event=lambda state, e: seen.append(state)).play_match(2)
    return seen[::every]


CLASSIC_TABLES = [
    TableOptions(),
    TableOptions(penalties=True, deck_end=DeckEnd.LAST_CHANCE, match_points=3),
    TableOptions(
        pairs_declaration=PairsDeclaration.BINDING, indicator_timing=IndicatorTiming.FIRST_TURN, match_points=3
    ),
]


@pytest.mark.parametrize("options", CLASSIC_TABLES)
def test_classic_allowed_is_what_can_accepts_in_some_form(options: TableOptions) -> None:
    for seed in range(6):
        bots = [GreedyBot(seed), RandomBot(seed + 1), GreedyBot(seed + 2), RandomBot(seed)]
        for state in _states(Simulator, options, bots, seed, 2):
            for seat in range(4):
                assert set(classic.view(state, seat).allowed) == _searched(Game.OKEY, state, seat), (seat, state)
            assert classic.view(state, None).allowed == ()


@pytest.mark.parametrize("seats", [2, 4])
def test_101_allowed_is_what_can_accepts_in_some_form(seats: int) -> None:
    opts = TableOptions(game=Game.OKEY101, seats=seats, rounds=3, mode=Mode101.FOLDING)
    bots = [GreedyBot101(1), RandomBot101(2), GreedyBot101(3), RandomBot101(4)][:seats]
    for state in _states(Simulator101, opts, bots, seats, 2):
        for seat in range(seats):
            allowed = set(okey101.view(state, seat).allowed)
            assert allowed - {"OpenMelds"} == _searched(Game.OKEY101, state, seat), (seat, state)
        assert okey101.view(state, None).allowed == ()
        # An unopened seat on turn, after its draw, with no side tile to lay: it may open exactly
        # when its rack holds an opening, as the hints' previews find it [O-OPEN-1] [O-OPEN-2].
        me = state.seats[state.turn]
        if state.stage is okey101.Stage.PLAY and not state.side_unused and me.opening is okey101.Opening.NONE:
            runs = okey101.run_opening(me.rack, state.indicator, opts.wrap, state.run_threshold)
            pairs = okey101.pair_opening(me.rack, state.indicator, state.pair_threshold)
            assert ("OpenMelds" in okey101.view(state, state.turn).allowed) is (runs.enough or pairs.enough)


@pytest.mark.parametrize("game", [Game.OKEY, Game.OKEY101])
def test_allowed_through_timeouts_autopilot_and_the_deck_end(game: Game) -> None:
    """Timed-out turns put seats on autopilot (TakeBack allowed) [C-TIME-2] [D-5]; the deck runs
    out (a classic LAST_CHANCE table offers Pass) [C-DECK-3]: allowed still matches the search."""
    options = TableOptions(deck_end=DeckEnd.LAST_CHANCE) if game is Game.OKEY else TableOptions(game=game, seats=2)
    t = Table(options, players=("ali", "ayse", "", "")[: options.seat_count])
    t.deal(tuple(range(106)))
    view = classic.view if game is Game.OKEY else okey101.view
    now = 10**9
    seen: set[str] = set()
    while t.state.phase is Phase.PLAYING:
        for seat in range(t.state.seat_count):
            allowed = set(view(t.state, seat).allowed)
            seen |= allowed
            assert allowed - {"OpenMelds"} == _searched(game, t.state, seat), (seat, t.state)
        now += 10**6
        t.do(TimeOut(now_ms=now, grace_ms=0))
        t.do(ForceMove(now_ms=now))
    assert "TakeBack" in seen and "LeaveSeat" in seen
    assert game is Game.OKEY101 or "Pass" in seen or "TakeDiscard" in seen


def test_101_allowed_opens_when_the_rack_holds_an_opening() -> None:
    t = Table(TableOptions(game=Game.OKEY101, seats=2))
    t.deal(["R10 R11 R12 R13 B10 B11 B12 B13 K10 K11 K12", "R1 Y3 B5"], "K5", "Y9")
    assert {"OpenMelds", "Discard"} <= set(t.view(0).allowed)  # 125 points at least [O-OPEN-1]
    assert not {"Draw", "OpenMelds", "Discard"} & set(t.view(1).allowed)  # not its turn
    t.do(Discard(seat=0, tile=t.tile(0, "R1")))
    assert set(t.view(1).allowed) == {"Draw", "TakeDiscard"}  # [O-TURN-1] [O-SIDE-1]


def test_can_beside_decide_in_both_games() -> None:
    """``can`` is None exactly when ``decide`` accepts, and then names the rule it breaks."""
    for game, cmd in ((Game.OKEY, Draw(seat=1)), (Game.OKEY101, OpenMelds(seat=1))):
        t = Table(TableOptions(game=game))
        t.deal(tuple(range(106)))
        got = t.engine.can(t.state, cmd)
        assert isinstance(got, RuleViolation) and got.code == "NOT_YOUR_TURN"
        assert got == t.engine.decide(t.state, cmd)
        starter = t.state.turn
        assert t.engine.can(t.state, Discard(seat=starter, tile=t.rack(starter)[0])) is None
    assert classic.can is not okey101.can

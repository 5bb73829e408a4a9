"""Issue 21: the bot levels of the ``bot_level`` option. The easy bot skips the side tile and
pairs and plays only legal moves (the simulator refuses anything the rules refuse); each level
maps to a strategy of each game."""

from __future__ import annotations

from typing import Any

from okeycore.classic import Stage
from okeycore.commands import DeclarePairs, TakeDiscard
from okeycore.levels import CLASSIC_LEVELS, LEVELS_101, EasyBot, EasyBot101
from okeycore.okey101.simulate import Simulator101
from okeycore.options import BotLevel, Game, TableOptions
from okeycore.simulate import Simulator


class _Recorder:
    def __init__(self, inner: Any, seen: list[tuple[Any, Any]]) -> None:
        self.inner, self.seen, self.name = inner, seen, inner.name

    def act(self, view: Any) -> Any:
        cmd = self.inner.act(view)
        self.seen.append((view.stage, cmd))
        return cmd

    def off_turn(self, view: Any) -> Any:
        cmd = self.inner.off_turn(view)
        self.seen.append((None, cmd))
        return cmd


def test_every_level_has_a_strategy_in_each_game() -> None:
    assert set(CLASSIC_LEVELS) == set(LEVELS_101) == set(BotLevel)
    assert {CLASSIC_LEVELS[level](1).name for level in BotLevel} == {"strong", "greedy", "easy"}
    assert TableOptions().bot_level is BotLevel.HARD  # today's strongest, unless the table asks


def test_the_easy_bot_never_takes_the_side_tile_to_build_nor_goes_for_pairs() -> None:
    seen: list[tuple[Any, Any]] = []
    bots = [_Recorder(EasyBot(i), seen) for i in range(4)]
    sim = Simulator(TableOptions(match_points=1000), bots, 7)  # [C-TURN-1]: it refuses an illegal move
    for _ in range(40):
        sim.play_hand()
    assert len(seen) > 1000
    assert not any(isinstance(cmd, DeclarePairs) for _, cmd in seen)  # [C-PAIR-1] never declared
    # the side tile only when the table offers it to finish [C-DECK-3], never to build
    assert not any(isinstance(cmd, TakeDiscard) and stage is Stage.DRAW for stage, cmd in seen)


def test_the_easy_101_bot_plays_legal_hands_without_the_side_tile() -> None:
    seen: list[tuple[Any, Any]] = []
    bots = [_Recorder(EasyBot101(i), seen) for i in range(4)]
    for b in bots:
        b.off_turn = None  # type: ignore[assignment]  # 101 strategies have no off-turn moves
    sim = Simulator101(TableOptions(game=Game.OKEY101, rounds=11), bots, 3)
    for _ in range(10):
        sim.play_hand()
    assert len(seen) > 300
    assert not any(isinstance(cmd, TakeDiscard) for _, cmd in seen)

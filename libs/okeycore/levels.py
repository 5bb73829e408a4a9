"""Bot levels (the ``bot_level`` table option): which strategy plays a table's bot seats.

HARD is the strongest strategy of each game, NORMAL the greedy baseline, EASY a beginner built
on the greedy one: it never takes the side tile (in classic Okey nor in 101) unless the table
offers it only to finish, never goes for pairs, and now and then throws a good tile instead of
its worst, so a person can win hands against it. Every level decides from its own seat's view
only, as every strategy does (RULES.md section 7)."""

from __future__ import annotations

import random
from collections.abc import Callable

from .classic import SeatView, Stage, effective_table, finishing_tiles
from .classic.bots import GreedyBot, Strategy
from .classic.strategy import StrongBot
from .commands import Command, DeclarePairs, Discard, Draw, Finish, TakeDiscard
from .okey101 import SeatView101
from .okey101 import Stage as Stage101
from .okey101.bots import GreedyBot101, Strategy101
from .okey101.strategy import StrongBot101
from .options import BotLevel

__all__ = ["EasyBot", "EasyBot101", "CLASSIC_LEVELS", "LEVELS_101"]

SLIP = 0.35
"""How often the easy bot throws a random tile instead of its worst one."""


class EasyBot:
    """A beginner at classic Okey: draws from the deck, never declares pairs, keeps bad tiles
    now and then; still finishes when it can (hands end) and shows the indicator."""

    name = "easy"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self._greedy = GreedyBot(seed)

    def off_turn(self, view: SeatView) -> Command | None:
        cmd = self._greedy.off_turn(view)
        return None if isinstance(cmd, DeclarePairs) else cmd

    def act(self, view: SeatView) -> Command:
        seat = view.seat
        assert seat is not None
        if view.stage is Stage.LAST_CHANCE:
            return TakeDiscard(seat=seat)  # offered only when the side tile finishes [C-DECK-3]
        if view.stage is Stage.DRAW:
            cmd = self._greedy.act(view)
            return cmd if not isinstance(cmd, TakeDiscard) else Draw(seat=seat)
        fin = finishing_tiles(view.rack, view.indicator)
        if fin:
            return Finish(seat=seat, tile=fin[0])
        cmd = self._greedy.act(view)
        if isinstance(cmd, Discard) and self.rng.random() < SLIP:
            table = effective_table(view.indicator)
            plain = [t for t in view.rack if table[t] >= 0] or list(view.rack)  # never the okey
            return Discard(seat=seat, tile=self.rng.choice(plain))
        return cmd


class EasyBot101:
    """A beginner at 101: never takes the side tile, opens and adds as the greedy bot does, and
    now and then throws a random tile instead of its worst."""

    name = "easy"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self._greedy = GreedyBot101(seed)

    def act(self, view: SeatView101) -> Command:
        seat = view.seat
        assert seat is not None
        if view.stage is Stage101.DRAW:
            return Draw(seat=seat)
        cmd = self._greedy.act(view)
        if isinstance(cmd, Discard) and self.rng.random() < SLIP:
            table = effective_table(view.indicator)
            plain = [t for t in view.rack if table[t] >= 0] or list(view.rack)
            return Discard(seat=seat, tile=self.rng.choice(plain))
        return cmd


CLASSIC_LEVELS: dict[BotLevel, Callable[[int], Strategy]] = {
    BotLevel.HARD: StrongBot,
    BotLevel.NORMAL: GreedyBot,
    BotLevel.EASY: EasyBot,
}
"""The classic strategy of each level, built from a seed."""

LEVELS_101: dict[BotLevel, Callable[[int], Strategy101]] = {
    BotLevel.HARD: StrongBot101,
    BotLevel.NORMAL: GreedyBot101,
    BotLevel.EASY: EasyBot101,
}
"""The Okey 101 strategy of each level, built from a seed."""

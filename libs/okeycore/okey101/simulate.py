"""Okey 101 matches between bot strategies: the simulator of either game, under the names and
defaults the 101 callers know."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..events import Event
from ..okey101.bots import Strategy101
from ..options import Game, TableOptions
from ..simulate import MatchRecord, SimulationError, Simulator
from ..testing import arrange_deal

__all__ = ["MatchRecord101", "Simulator101", "play_match_101", "arrange_deal"]

MatchRecord101 = MatchRecord


class Simulator101(Simulator):
    """Plays 101 hands between strategies, each deciding from its own seat's view only."""

    max_moves = 20_000

    def __init__(
        self,
        options: TableOptions,
        strategies: Sequence[Strategy101],
        seed: int,
        table_id: str = "sim101",
        on_event: Callable[[Any, Event], None] | None = None,
        now_ms: int = 0,
    ) -> None:
        if options.game is not Game.OKEY101:
            raise SimulationError("a 101 table plays OKEY101")
        super().__init__(options, strategies, seed, table_id, on_event, now_ms)

    def play_match(self, max_deals: int = 1_000) -> MatchRecord:
        return super().play_match(max_deals)


def play_match_101(
    options: TableOptions, strategies: Sequence[Strategy101], seed: int, max_deals: int = 1_000
) -> MatchRecord:
    return Simulator101(options, strategies, seed).play_match(max_deals)

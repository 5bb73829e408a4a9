"""One engine per game kind, behind the same four functions."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from . import classic, okey101
from .options import Game

__all__ = ["Engine", "engine_for", "ENGINES"]


@dataclass(frozen=True, slots=True)
class Engine:
    game: Game
    decide: Callable[[Any, Any], Any]
    evolve: Callable[[Any, Any], Any]
    view: Callable[[Any, int | None], Any]
    public_event: Callable[[Any, int | None], Any]
    hints: Callable[[Any], Any]

    def fold(self, state: Any, events: Iterable[Any]) -> Any:
        for e in events:
            state = self.evolve(state, e)
        return state


ENGINES: dict[Game, Engine] = {
    Game.OKEY: Engine(Game.OKEY, classic.decide, classic.evolve, classic.view, classic.public_event, classic.hints),
    Game.OKEY101: Engine(
        Game.OKEY101, okey101.decide, okey101.evolve, okey101.view, okey101.public_event, okey101.hints
    ),
}


def engine_for(game: Game) -> Engine:
    engine = ENGINES.get(game)
    if engine is None:
        raise KeyError(f"no engine for {game.value}")
    return engine

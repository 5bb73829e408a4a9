"""One engine per game kind, behind the same typed functions (``Engine``)."""

from __future__ import annotations

from typing import Any, Literal, overload

from . import classic, okey101
from .kernel.automations import Automation, Shuffle
from .kernel.engine import Engine, GameEngine
from .kernel.state import Phase
from .options import Game

__all__ = ["Engine", "GameEngine", "Automation", "Shuffle", "Phase", "CLASSIC", "OKEY101", "ENGINES", "engine_for"]

CLASSIC: GameEngine[classic.ClassicState, classic.SeatView, classic.Hints] = GameEngine(
    Game.OKEY,
    classic.decide,
    classic.can,
    classic.evolve,
    classic.fold,
    classic.view,
    classic.public_event,
    classic.hints,
    classic.automation,
    classic.due_at,
    classic.on_due,
    classic.follow_ups,
)
OKEY101: GameEngine[okey101.Okey101State, okey101.SeatView101, okey101.Hints] = GameEngine(
    Game.OKEY101,
    okey101.decide,
    okey101.can,
    okey101.evolve,
    okey101.fold,
    okey101.view,
    okey101.public_event,
    okey101.hints,
    okey101.automation,
    okey101.due_at,
    okey101.on_due,
    okey101.follow_ups,
)

ENGINES: dict[Game, Engine[Any, Any, Any]] = {Game.OKEY: CLASSIC, Game.OKEY101: OKEY101}


@overload
def engine_for(game: Literal[Game.OKEY]) -> Engine[classic.ClassicState, classic.SeatView, classic.Hints]: ...


@overload
def engine_for(game: Literal[Game.OKEY101]) -> Engine[okey101.Okey101State, okey101.SeatView101, okey101.Hints]: ...


@overload
def engine_for(game: Game) -> Engine[Any, Any, Any]: ...


def engine_for(game: Game) -> Engine[Any, Any, Any]:
    engine = ENGINES.get(game)
    if engine is None:
        raise KeyError(f"no engine for {game.value}")
    return engine

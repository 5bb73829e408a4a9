"""In-process matches between bot strategies: the demo, the benchmarks and the property tests."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .bots import Strategy
from .classic import ClassicState, Phase, decide, evolve, view
from .commands import Command, CreateTable, StartHand
from .errors import RuleViolation
from .events import Event
from .options import TableOptions

__all__ = ["SimulationError", "MatchRecord", "Simulator", "play_match"]


class SimulationError(RuntimeError):
    """A strategy asked for a move the rules refused: a bug in the strategy or the engine."""


@dataclass
class MatchRecord:
    state: ClassicState
    events: list[Event] = field(default_factory=list)
    hands: int = 0
    moves: int = 0


class Simulator:
    """Drives one table: deals from its own seeded shuffle, asks each seat's strategy for moves."""

    def __init__(
        self,
        options: TableOptions,
        strategies: Sequence[Strategy],
        seed: int,
        table_id: str = "sim",
        on_event: Callable[[ClassicState, Event], None] | None = None,
        now_ms: int = 0,
    ) -> None:
        self.rng = random.Random(seed)
        self.strategies = list(strategies)
        self.on_event = on_event
        self.now_ms = now_ms
        self.record = MatchRecord(state=self._bootstrap(options, table_id))

    def _bootstrap(self, options: TableOptions, table_id: str) -> ClassicState:
        state: ClassicState | None = None
        self.events: list[Event] = []
        got = decide(None, CreateTable(table_id=table_id, options=options))
        if isinstance(got, RuleViolation):
            raise SimulationError(str(got))
        for e in got:
            state = evolve(state, e)
            self.events.append(e)
        assert state is not None
        return state

    def apply(self, command: Command) -> list[Event]:
        rec = self.record
        got = decide(rec.state, command)
        if isinstance(got, RuleViolation):
            raise SimulationError(f"{type(command).__name__} refused: {got}")
        for e in got:
            rec.state = evolve(rec.state, e)
            self.events.append(e)
            if self.on_event:
                self.on_event(rec.state, e)
        return got

    def play_hand(self, max_moves: int = 10_000) -> None:
        rec = self.record
        order = list(range(106))
        self.rng.shuffle(order)
        self.apply(StartHand(order=tuple(order), now_ms=self.now_ms))
        rec.hands += 1
        for seat in range(4):
            cmd = self.strategies[seat].off_turn(view(rec.state, seat))
            if cmd is not None:
                self.apply(cmd)
        moves = 0
        while rec.state.phase is Phase.PLAYING:
            seat = rec.state.turn
            self.apply(self.strategies[seat].act(view(rec.state, seat)))
            moves += 1
            if moves > max_moves:
                raise SimulationError("a hand did not end")
        rec.moves += moves

    def play_match(self, max_hands: int = 10_000) -> MatchRecord:
        while self.record.state.phase is not Phase.MATCH_OVER:
            if self.record.hands >= max_hands:
                break
            self.play_hand()
        self.record.events = self.events
        return self.record


def play_match(
    options: TableOptions, strategies: Sequence[Strategy], seed: int, max_hands: int = 10_000
) -> MatchRecord:
    return Simulator(options, strategies, seed).play_match(max_hands)

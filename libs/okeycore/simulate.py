"""In-process matches between bot strategies, either game: the demo, the benchmarks and the
property tests. Each seat's strategy sees only that seat's view."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .classic.bots import Strategy
from .events import Event
from .kernel.commands import StartHand
from .kernel.state import Phase
from .okey101.bots import Strategy101
from .options import TableOptions
from .testing import Table
from .tiles import TILE_COUNT

__all__ = ["SimulationError", "MatchRecord", "Simulator", "play_match"]


class SimulationError(RuntimeError):
    """A strategy asked for a move the rules refused: a bug in the strategy or the engine."""


@dataclass
class MatchRecord:
    state: Any
    events: list[Event] = field(default_factory=list)
    hands: int = 0  # hands dealt, void ones included
    moves: int = 0

    @property
    def deals(self) -> int:
        """Okey 101's name for ``hands``: a void hand is dealt again [O-PEN-4]."""
        return self.hands


class Simulator(Table):
    """Drives one table: deals from its own seeded shuffle, asks each seat's strategy for moves."""

    error = SimulationError
    max_moves = 10_000  # per hand: more means a hand that never ends

    def __init__(
        self,
        options: TableOptions,
        strategies: Sequence[Strategy | Strategy101],
        seed: int,
        table_id: str = "sim",
        on_event: Callable[[Any, Event], None] | None = None,
        now_ms: int = 0,
        players: Sequence[str] = (),
    ) -> None:
        def track(state: Any, e: Event) -> None:
            self.record.state = state
            if on_event:
                on_event(state, e)

        super().__init__(options, table_id, track, players=players)
        if len(strategies) != options.seat_count:
            raise SimulationError(f"{options.seat_count} seats need {options.seat_count} strategies")
        self.rng = random.Random(seed)
        self.strategies = list(strategies)
        self.now_ms = now_ms
        self.record = MatchRecord(state=self.state, events=self.events)

    def deal_random(self) -> None:
        order = list(range(TILE_COUNT))
        self.rng.shuffle(order)
        # A table with people seated waits out the break between hands [P-BREAK-3].
        now = max(self.now_ms, self.state.break_due_ms) if self.state.in_break else self.now_ms
        self.apply(StartHand(order=tuple(order), now_ms=now))
        self.record.hands += 1

    def play_turns(self, max_moves: int | None = None) -> None:
        """Play the dealt hand to its end: first what each seat does whatever the turn (a classic
        strategy's ``off_turn``: show the indicator, declare pairs), then turn by turn."""
        for seat, strategy in enumerate(self.strategies):
            off_turn = getattr(strategy, "off_turn", None)  # a classic strategy's
            cmd = off_turn(self.view(seat)) if off_turn else None
            if cmd is not None:
                self.apply(cmd)
        limit = self.max_moves if max_moves is None else max_moves
        moves = 0
        while self.state.phase is Phase.PLAYING:
            seat = self.state.turn
            self.apply(self.strategies[seat].act(self.view(seat)))
            moves += 1
            if moves > limit:
                raise SimulationError("a hand did not end")
        self.record.moves += moves

    def play_hand(self) -> None:
        self.deal_random()
        self.play_turns()

    def play_match(self, max_hands: int = 10_000) -> MatchRecord:
        while self.state.phase is not Phase.MATCH_OVER and self.record.hands < max_hands:
            self.play_hand()
        return self.record


def play_match(
    options: TableOptions, strategies: Sequence[Strategy | Strategy101], seed: int, max_hands: int = 10_000
) -> MatchRecord:
    return Simulator(options, strategies, seed).play_match(max_hands)

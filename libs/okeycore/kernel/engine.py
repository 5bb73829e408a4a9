"""The engine of a game: the functions a service calls, typed over the game's state and view."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from ..errors import RuleViolation
from ..options import Game
from .automations import Automation, Shuffler
from .commands import Command
from .events import Event
from .state import TableState
from .table import Decision
from .view import TableView

__all__ = ["Engine", "GameEngine"]

S = TypeVar("S", bound=TableState[Any])
V = TypeVar("V", bound=TableView)
H = TypeVar("H")
H_co = TypeVar("H_co", covariant=True)


class Engine(Protocol[S, V, H_co]):
    """One game behind the same functions: ``decide``/``can`` a command, ``evolve``/``fold``
    events into state ``S``, ``view`` it for a seat as ``V``, redact an event for a seat, the
    seat's hints from its view, and the table's automations: which is due (``automation``),
    when the clock makes the next one due (``due_at``), the command it then triggers
    (``on_due``) and the events that follow a command by themselves (``follow_ups``). The host
    supplies only the shuffle and the clock (``kernel.automations``)."""

    @property
    def game(self) -> Game: ...

    def decide(self, state: S | None, command: Command, /) -> Decision: ...

    def can(self, state: S | None, command: Command, /) -> RuleViolation | None: ...

    def evolve(self, state: S | None, event: Event, /) -> S: ...

    def fold(self, state: S | None, events: Iterable[Event], /) -> S: ...

    def view(self, state: S, seat: int | None, /) -> V: ...

    def public_event(self, event: Event, viewer: int | None, /) -> Event: ...

    def hints(self, view: V, /) -> H_co: ...

    def automation(self, state: S, now_ms: int, /) -> Automation | None: ...

    def due_at(self, state: S, /) -> int | None: ...

    def on_due(self, state: S, now_ms: int, shuffle: Shuffler, grace_ms: int, /) -> Command | None: ...

    def follow_ups(self, state: S, now_ms: int, shuffle: Shuffler, /) -> list[Event]: ...


@dataclass(frozen=True, slots=True)
class GameEngine(Generic[S, V, H]):
    """An ``Engine`` made of a game's module functions."""

    game: Game
    decide: Callable[[S | None, Command], Decision]
    can: Callable[[S | None, Command], RuleViolation | None]
    evolve: Callable[[S | None, Event], S]
    fold: Callable[[S | None, Iterable[Event]], S]
    view: Callable[[S, int | None], V]
    public_event: Callable[[Event, int | None], Event]
    hints: Callable[[V], H]
    automation: Callable[[S, int], Automation | None]
    due_at: Callable[[S], int | None]
    on_due: Callable[[S, int, Shuffler, int], Command | None]
    follow_ups: Callable[[S, int, Shuffler], list[Event]]

"""A table's outline: the few fields of its state a reader of the whole log needs (the phase, the
hand, whose turn it is, who is on autopilot), folded from events as the log stores them.

``okey export --all`` reads a million events, 98% of them draws and discards. Folding each
through ``Engine.evolve`` (racks, piles, a new state object an event) cost more than all else
it does; an outline folds one in well under a microsecond, without decoding it. It is not a
second reading of the rules: each step below mirrors the kernel's step of the same event
(kernel/evolve.py, and each game's hand end: ``hand_over``), and tests/core/test_outline.py folds both
games' simulated logs, timeouts, autopilot, take-backs and leaves included, through both and
checks they agree after every event."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .classic.events import HandEnded
from .kernel.events import AutopilotEnded, HandStarted, MatchEnded, TileDiscarded, TurnTimedOut
from .kernel.state import Phase
from .okey101.events import HandEnded101, HandVoided
from .options import TableOptions

__all__ = ["Outline"]


class Outline:
    """``phase``, ``hand``, ``turn`` and every seat's ``autopilot`` as ``TableState`` has them.

    Mutable, and changed in place by ``step(type, data)``: ``data`` is the event's stored JSON
    fields (``event_to_dict`` without its type), not an ``Event``."""

    __slots__ = ("autopilot", "hand", "phase", "seats", "turn")

    def __init__(self, options: TableOptions) -> None:
        """A table as its ``TableCreated`` opens it."""
        self.seats = options.seat_count
        self.phase = Phase.NEW
        self.hand = 0
        self.turn = 0
        self.autopilot = [False] * self.seats

    def left_of(self, seat: int) -> int:
        """The seat before ``seat`` in turn order [C-SEAT-1] (``TableState.left_of``)."""
        return (seat - 1) % self.seats

    def discarded(self, next_seat: int) -> None:
        """``step`` of a ``TileDiscarded``, given its ``next_seat``: the commonest event."""
        if next_seat >= 0:  # -1: the discard ended the hand, the hand's end event follows
            self.turn = next_seat

    def step(self, kind: str, data: Mapping[str, Any]) -> None:
        """Fold the table's next event, of type ``kind``; an event that changes none of the
        outline's fields (a draw, a show, a meld, a penalty, a leave, a break) is passed over."""
        step = _STEPS.get(kind)
        if step is not None:
            step(self, data)


def _discarded(o: Outline, d: Mapping[str, Any]) -> None:
    o.discarded(d["next_seat"])


def _hand_started(o: Outline, d: Mapping[str, Any]) -> None:
    o.phase, o.hand, o.turn = Phase.PLAYING, int(d["hand"]), int(d["starter"])


def _timed_out(o: Outline, d: Mapping[str, Any]) -> None:
    o.autopilot[d["seat"]] = bool(d["autopilot"])


def _autopilot_ended(o: Outline, d: Mapping[str, Any]) -> None:
    o.autopilot[d["seat"]] = False


def _hand_over(o: Outline, d: Mapping[str, Any]) -> None:
    o.phase = Phase.HAND_OVER


def _match_ended(o: Outline, d: Mapping[str, Any]) -> None:
    o.phase = Phase.MATCH_OVER


_STEPS: dict[str, Callable[[Outline, Mapping[str, Any]], None]] = {
    TileDiscarded.type: _discarded,
    HandStarted.type: _hand_started,
    TurnTimedOut.type: _timed_out,
    AutopilotEnded.type: _autopilot_ended,
    HandEnded.type: _hand_over,
    HandEnded101.type: _hand_over,
    HandVoided.type: _hand_over,
    MatchEnded.type: _match_ended,
}

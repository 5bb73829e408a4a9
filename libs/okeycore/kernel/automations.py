"""What a table does by itself: the automations the rules declare, and when the clock makes one due.

As pokerkit's state declares its ``Automation`` values, the engine says which automation is due
(``automation``), when the next one will be (``due_at``), the command the clock triggers
(``on_due``) and the events that follow a command at once (``follow_ups``). The host supplies
only what the rules cannot: randomness (a secure shuffle for each deal, ``Shuffle``) and the
clock (``now_ms``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from .commands import Command, ForceMove, StartHand, TimeOut
from .events import Event
from .state import Phase, TableState
from .table import Decision, break_holds

__all__ = ["Automation", "Shuffle", "Shuffler", "FollowUps", "automation", "due_at", "on_due", "follow_ups_of"]

S = TypeVar("S", bound=TableState[Any])


class Automation(StrEnum):
    """A move no seat sends: the table makes it when the rules say."""

    DEAL = "DEAL"
    """The next hand: at once after a hand that does not end the match [C-DEAL-2] [P-BREAK-4], or
    when the break between hands is over or every person is ready [P-BREAK-3]. The only automation
    that follows a command in the same commit (``follow_ups``)."""
    TIME_OUT = "TIME_OUT"
    """The turn's time ran out: the seat's bot may still play it during the grace [C-TIME-1] [D-4]."""
    FORCE_MOVE = "FORCE_MOVE"
    """The grace of a timed-out turn ran out: the table plays the minimal legal move [C-TIME-1]."""


@dataclass(frozen=True, slots=True)
class Shuffle:
    """The host's randomness for one deal: a shuffled order of the 106 tile ids, and the secret
    salt of the deal's commitment, revealed when the hand ends [C-DEAL-3]."""

    order: tuple[int, ...]
    salt: str = ""


Shuffler = Callable[[], Shuffle]
"""Asked for a shuffle only when a deal is due: the host's secure shuffle [C-DEAL-3]."""
FollowUps = Callable[[S, int, Shuffler], list[Event]]
"""A game's ``follow_ups``: (state, now_ms, shuffle) -> the events that follow by themselves."""


def automation(state: TableState[Any], now_ms: int) -> Automation | None:
    """The automation due at ``now_ms``, if any: a deal between hands that nothing holds back, or a
    turn's timer that ran out (its timeout, then its forced move)."""
    if state.phase is Phase.NEW or state.phase is Phase.HAND_OVER:
        return None if break_holds(state, now_ms) else Automation.DEAL
    if state.phase is Phase.PLAYING and now_ms >= state.deadline_ms:
        return Automation.FORCE_MOVE if state.timed_out else Automation.TIME_OUT
    return None


def due_at(state: TableState[Any]) -> int | None:
    """When the clock next makes an automation due: the turn's deadline (or its grace's end)
    [C-TIME-1], or the end of the break between hands [P-BREAK-3]; None when only a seat's
    command can move the table on (or the match is over)."""
    if state.phase is Phase.PLAYING and state.deadline_ms:
        return state.deadline_ms
    if state.in_break:
        return state.break_due_ms
    return None


def on_due(state: TableState[Any], now_ms: int, shuffle: Shuffler, grace_ms: int) -> Command | None:
    """The command the clock triggers at ``now_ms``, or None when nothing is due yet: a deal
    (``shuffle`` is asked only then), a ``TimeOut`` whose grace lasts ``grace_ms`` (the host's
    patience with a seat's bot), or a ``ForceMove``."""
    due = automation(state, now_ms)
    if due is Automation.DEAL:
        return _deal(shuffle, now_ms)
    if due is Automation.TIME_OUT:
        return TimeOut(now_ms=now_ms, grace_ms=grace_ms)
    if due is Automation.FORCE_MOVE:
        return ForceMove(now_ms=now_ms)
    return None


def follow_ups_of(decide: Callable[[S | None, Command], Decision]) -> FollowUps[S]:
    """A game's ``follow_ups`` from its ``decide``."""

    def follow_ups(state: S, now_ms: int, shuffle: Shuffler) -> list[Event]:
        """The events that follow the last ones by themselves, decided at ``now_ms``: the next
        deal when a hand is over and no break holds it back [C-DEAL-2] [P-BREAK-3] [P-BREAK-4].
        A timer's automation is not one of them: it waits for the clock (``on_due``), as its own
        command, so that a seat's bot has the grace to play a timed-out turn [D-4]."""
        if automation(state, now_ms) is not Automation.DEAL:
            return []
        got = decide(state, _deal(shuffle, now_ms))
        return got if isinstance(got, list) else []

    return follow_ups


def _deal(shuffle: Shuffler, now_ms: int) -> StartHand:
    deck = shuffle()
    return StartHand(order=deck.order, salt=deck.salt, now_ms=now_ms)

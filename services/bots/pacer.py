"""The bots' pace: how long a bot thinks before a turn where its table keeps a person's pace, and
the timers that wait for it (one a seat).

``bot_pace`` AUTO (the default) waits like a person where one is seated and moves at once at an
all-bot table; HUMAN always waits; INSTANT never. The wait is a timer of the event loop: the
consumer has acknowledged the event and goes on, so waiting bots cost no capacity."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from okeycore.events import gives_turn
from okeycore.options import BotPace
from okeyplatform import metrics as M
from okeyplatform.contract import Envelope

from .table import Known, seed_for

__all__ = ["Pacer", "keeps_pace", "think_seconds"]

PlayLater = Callable[[str, int, int], Coroutine[Any, Any, None]]
"""Play ``seat``'s turn of the table that the event at ``seen`` gave it: (table, seat, seen)."""


def think_seconds(table_id: str, version: int, seat: int, kind: str) -> float:
    """A person's think time for the bot at ``seat`` called by the event ``kind`` at ``version``
    (where the table's pace is kept): 0.8-2.5 s, 0.7 s more at a deal, none for a timed-out
    turn [C-TIME-1]. Fixed by the event, so replicas (and ``okey bench soak --people``, which
    measures the delay beyond it) agree."""
    if kind == "TurnTimedOut":
        return 0.0
    rng = random.Random(seed_for(table_id, version, seat))
    return rng.uniform(0.8, 2.5) + (0.7 if kind == "HandStarted" else 0.0)


def keeps_pace(known: Known | None, bot_seats: int | None, instant: bool = False) -> bool:
    """Whether the bots at a table move at a person's pace: HUMAN, or AUTO with a person seated
    (a seat no bot plays); never at an INSTANT table, with ``instant`` (tests, demos), or before
    the table's pace is known (its first view tells)."""
    if known is None or instant or known.pace is BotPace.INSTANT:
        return False
    return known.pace is BotPace.HUMAN or (bot_seats is not None and bot_seats != (1 << known.seats) - 1)


class Pacer:
    """Times the turns of tables that keep a person's pace. ``known`` is what each table's latest
    view told (its pace and seats); ``play`` plays a turn when its timer fires."""

    def __init__(self, known: Mapping[str, Known], play: PlayLater, instant: bool = False) -> None:
        self.known = known
        self.play = play
        self.instant = instant
        # (table, seat) -> the timer of that seat's turn waiting for its think time (one a seat:
        # the event that gives the seat a new turn makes the old one's timer stale)
        self.waiting: dict[tuple[str, int], asyncio.TimerHandle] = {}
        self._pending: set[asyncio.Task[None]] = set()

    def keeps_pace(self, env: Envelope) -> bool:
        return keeps_pace(self.known.get(env.table_id), env.bot_seats, self.instant)

    def think_time(self, env: Envelope, seat: int) -> float:
        """Seconds the bot at ``seat`` waits before the turn ``env`` gives it where the table
        keeps a person's pace: a person's think time, 0.8-2.5 s, longer at a deal; 0 for a
        timed-out turn (the person's time is up: it is played at once, within its grace
        [C-TIME-1]) and for an event that hands no turn (``gives_turn``: an indicator shown or
        pairs declared out of turn [C-IND-1] [C-PAIR-1] leaves no timer that could fire in a
        later turn)."""
        if env.kind == "TurnTimedOut" or not gives_turn(env.event) or not self.keeps_pace(env):
            return 0.0
        return think_seconds(env.table_id, env.version, seat, env.kind)

    def schedule(self, delay: float, table_id: str, seat: int, seen: int) -> None:
        """Play ``seat``'s turn after ``delay`` (replacing the seat's stale timer, if any)."""
        loop = asyncio.get_running_loop()
        due = loop.time() + delay
        key = (table_id, seat)
        self.cancel(table_id, seat)  # that turn of the seat's is over: a new one is given

        def fire() -> None:
            if self.waiting.get(key) is handle:
                del self.waiting[key]
            M.BOT_PACE_LATE.observe(max(0.0, loop.time() - due))
            task = loop.create_task(self.play(table_id, seat, seen))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

        handle = loop.call_at(due, fire)
        self.waiting[key] = handle

    def thinking(self, table_id: str, seat: int) -> bool:
        """Whether ``seat``'s turn is waiting for its think time."""
        return (table_id, seat) in self.waiting

    def cancel(self, table_id: str, seat: int) -> None:
        stale = self.waiting.pop((table_id, seat), None)
        if stale is not None:
            stale.cancel()

    async def close(self) -> None:
        """Cancel the timers (their tables' turn timers play those turns) and wait for the turns
        being played."""
        for handle in self.waiting.values():
            handle.cancel()
        self.waiting.clear()
        if self._pending:
            await asyncio.wait(set(self._pending), timeout=5.0)

"""The bots' watchdog: a turn that a bot of some replica is playing is looked at again a while
later, and played here if the table still stands where it stood (that replica died mid-turn).

A seat's own move (a draw, a show, a 101 opening: okeycore's ``played_by_seat``) calls nobody:
the bot that made it goes on with the turn in its own loop. Were its replica to die mid-turn,
the event that called it would be redelivered, but a later event of the table recorded meanwhile
makes that a duplicate; so the replica given the move looks again ``HAND_ON_WATCH_S`` later, only
if it was given no later event of that table, and plays the turn if the table still stands at the
move (``only_as_of``; were both to play it, the command id makes the second a duplicate)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from okeyplatform import metrics as M

from .table import Bounded

__all__ = ["HAND_ON_WATCH_S", "Watchdog"]

HAND_ON_WATCH_S = 5.0
"""How long after a seat's own move a replica that was given no later event of the table looks
whether the turn was lost; the event consumer's ack wait (``consumer.ACK_WAIT_S``) is the same,
so a lost turn is played as soon whichever way it was lost."""

LookAgain = Callable[[str, int, int], Coroutine[Any, Any, None]]
"""Play ``seat``'s turn only if the table still stands at ``seen``: (table, seat, seen)."""


class Watchdog:
    def __init__(self, look_again: LookAgain) -> None:
        self.look_again = look_again
        self._latest: Bounded = Bounded()  # table -> the latest version this replica was given
        self._pending: set[asyncio.Task[None]] = set()
        self._closing = False
        self.watched = 0  # turns looked at again: the table had not moved on

    def saw(self, table_id: str, version: int) -> None:
        """This replica was given the event at ``version`` of the table."""
        if version > self._latest.get(table_id, 0):
            self._latest[table_id] = version

    def watch(self, table_id: str, seat: int, seen: int, delay: float | None = None) -> None:
        """The event at ``seen`` leaves ``seat``'s turn to the bot playing it. Past ``delay``
        (``HAND_ON_WATCH_S``), if this replica was given no later event of the table, look."""
        loop = asyncio.get_running_loop()

        def look() -> None:
            if self._closing or self._latest.get(table_id, 0) > seen:
                return  # the table moved on: nothing was lost
            self.watched += 1
            M.BOT_LOOKED_AGAIN.inc()
            task = loop.create_task(self.look_again(table_id, seat, seen))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

        loop.call_later(HAND_ON_WATCH_S if delay is None else delay, look)

    async def close(self) -> None:
        """No more looks; wait for the ones being played."""
        self._closing = True
        if self._pending:
            await asyncio.wait(set(self._pending), timeout=5.0)

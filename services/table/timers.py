"""The due-timer poller: a table whose timer is due gets the command its engine declares (``on_due``)."""

from __future__ import annotations

import asyncio
import time

from okeyplatform import metrics as M
from okeyplatform.eventstore import EventStore
from okeyplatform.logs import get_logger

from .app import TableApp

__all__ = ["TimerPoller"]


class TimerPoller:
    """Claims due timers (``FOR UPDATE SKIP LOCKED``, so replicas share them) every
    ``interval_s`` and fires each (a turn's TimeOut or ForceMove, the deal at a break's end); the
    command it appends sets the table's next timer (the engine's ``due_at``)."""

    def __init__(self, app: TableApp, store: EventStore, interval_s: float = 0.2, lease_ms: int = 5000) -> None:
        self.app = app
        self.store = store
        self.interval_s = interval_s
        self.lease_ms = lease_ms
        self.fired = 0
        self._stop = asyncio.Event()
        self._sem = asyncio.Semaphore(64)
        self.log = get_logger(component="timers")

    def stop(self) -> None:
        self._stop.set()

    async def _fire(self, table_id: str) -> None:
        async with self._sem:
            try:
                await self.app.fire_timer(table_id)
                self.fired += 1
            except Exception as exc:
                self.log.warning("timer_failed", table_id=table_id, error=repr(exc))

    async def run(self) -> None:
        tasks: set[asyncio.Task[None]] = set()
        while not self._stop.is_set():
            try:
                due = await self.store.claim_due_timers(int(time.time() * 1000), self.lease_ms)
            except Exception as exc:
                self.log.warning("timer_poll_failed", error=repr(exc))
                due = []
            M.TIMERS_OVERDUE.set(len(due))
            for table_id in due:
                t = asyncio.create_task(self._fire(table_id))
                tasks.add(t)
                t.add_done_callback(tasks.discard)
            try:
                await asyncio.wait_for(self._stop.wait(), timeout=self.interval_s)
            except TimeoutError:
                pass
        for t in list(tasks):
            t.cancel()

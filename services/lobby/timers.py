"""The lobby's timers, one background task on the service host: the retry of match starts that
failed for a passing reason and the tournaments' turn (scheduled starts, round tables to
launch; every ``retry_every_s``), the other services' forgetting of
deleted accounts they missed and the catch-up from the PostgreSQL log for
tables in play (every ``reconcile_every_s``) and, hourly, the pruning of past days' quotas. A
timer that fails is logged and tried again at its next turn."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from okeyplatform.bus import pause
from okeyplatform.eventstore import PostgresEventStore
from okeyplatform.logs import get_logger

from .app import LobbyApp
from .consumer import reconcile_from_log

__all__ = ["LobbyTimers"]

PRUNE_EVERY_S = 3600.0


@dataclass
class LobbyTimers:
    app: LobbyApp
    events: PostgresEventStore  # the log the catch-up reads
    retry_every_s: float = 2.0
    reconcile_every_s: float = 60.0
    log: Any = field(default_factory=lambda: get_logger(component="lobby"), repr=False)
    _stop: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    def stop(self) -> None:
        self._stop.set()

    async def run(self) -> None:
        pruned_at = float("-inf")
        reconciled_at = time.monotonic()
        while not self._stop.is_set():
            await pause(self._stop, self.retry_every_s)
            if self._stop.is_set():
                return
            await self._try("retry_starts_failed", self.app.retry_starting)
            await self._try("tournament_tick_failed", self.app.tournament_tick)
            if time.monotonic() - pruned_at > PRUNE_EVERY_S:
                pruned_at = time.monotonic()
                await self._try("forget_quotas_failed", self.app.forget_old_quotas)
            if time.monotonic() - reconciled_at > self.reconcile_every_s:
                reconciled_at = time.monotonic()
                await self._try("reconcile_failed", self.reconcile)
                # a deletion scoring could not take at once (DeleteAccount asks straight away)
                await self._try("forget_elsewhere_failed", self.app.forget_elsewhere)

    async def _try(self, failed: str, timer: Callable[[], Awaitable[Any]]) -> None:
        try:
            await timer()
        except Exception as exc:
            self.log.warning(failed, error=repr(exc))

    async def reconcile(self) -> int:
        """Match ends and hand prizes the stream may no longer hold (aged out while the lobby was
        away), read from the PostgreSQL log for the tables still in play [issue 15.4]."""
        since = self.app.clock() - timedelta(seconds=self.reconcile_every_s)
        changed = await reconcile_from_log(self.app, self.events, since)
        if changed:
            self.log.warning("reconciled_from_log", changed=changed)
        return changed

"""Notifications (issue 44.4): each player's list (friend requests, acceptances, table
invitations, a table of theirs starting), read as pages, marked read, and watched live
(WatchNotifications). The rows are notifications_repo's; who adds them is friends.py (requests,
acceptances, invitations) and tables.py (a match starting); their live delivery notify_bus.py's."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from okeyplatform.auth import Identity, still_valid

from .errors import Invalid
from .notifications_repo import TABLE_INVITE, NotificationRow
from .notify_bus import NotificationHub
from .policy import Limits
from .store import LobbyStore, Unit
from .tables import WAITING, TableCard, Tables

__all__ = ["Notifications", "NotificationView", "MARK_IDS_MAX"]

PAGE_MAX = 100
MARK_IDS_MAX = 500
BATCH = 100  # what a stream reads from the store at once


@dataclass(frozen=True)
class NotificationView:
    """A notification as its recipient sees it: the row, the table's card (as the recipient
    may see it; a private table's invite code only in an invitation) and whether an invitation
    has expired (its table no longer waits)."""

    row: NotificationRow
    card: TableCard | None
    expired: bool
    expires_at: datetime | None


class Notifications:
    def __init__(
        self, store: LobbyStore, tables: Tables, hub: NotificationHub, clock: Callable[[], datetime], limits: Limits
    ) -> None:
        self.store = store
        self.tables = tables
        self.hub = hub
        self.clock = clock
        self.limits = limits
        self.wait_s = 1.0  # a stream checks its token at least this often
        self.poll_s = 3.0  # and reads the store at least this often

    async def views(self, uow: Unit, rows: Sequence[NotificationRow]) -> list[NotificationView]:
        if not rows:
            return []
        recipient = Identity(rows[0].player_id, "player")
        cards = await self.tables.cards(uow, [r.table_id for r in rows if r.table_id], recipient)
        out = []
        for r in rows:
            card = cards.get(r.table_id)
            expired, expires_at = False, None
            if card is not None:
                if r.kind == TABLE_INVITE:
                    card = replace(card, show_invite=bool(r.invite_code))
                    expired = card.table.status != WAITING
                    expires_at = card.table.started_at if expired else None
            elif r.kind == TABLE_INVITE:
                expired = True  # a table the lobby no longer lists
            out.append(NotificationView(r, card, expired, expires_at))
        return out

    async def list(
        self, who: Identity, before_id: int, limit: int, unread_only: bool
    ) -> tuple[list[NotificationView], int]:
        """A page, newest first, older than ``before_id`` (0: the newest); and the unread count."""
        if before_id < 0:
            raise Invalid("before_notification_id: 0 or an id", "INVALID_ARGUMENT")
        size = max(1, min(limit or 50, PAGE_MAX))
        async with self.store.unit() as uow:
            await uow.players.known(who.subject)
            rows = await uow.notifications.page(who.subject, before_id, size, unread_only)
            return await self.views(uow, rows), await uow.notifications.unread(who.subject)

    async def mark_read(self, who: Identity, ids: Sequence[int], up_to: int) -> int:
        """The caller's notifications among ``ids``, and every one up to ``up_to``, are read
        (another player's ids are passed over); returns the unread count."""
        if len(ids) > MARK_IDS_MAX:
            raise Invalid(f"at most {MARK_IDS_MAX} notification ids at once", "INVALID_ARGUMENT")
        async with self.store.unit() as uow:
            await uow.players.known(who.subject)
            await uow.notifications.mark_read(who.subject, sorted(set(ids)), max(0, up_to), self.clock())
            return await uow.notifications.unread(who.subject)

    async def prune(self) -> int:
        """Notifications older than notification_keep_days (the lobby's timer)."""
        async with self.store.unit() as uow:
            return await uow.notifications.prune(self.clock() - timedelta(days=self.limits.notification_keep_days))

    async def watch(self, who: Identity, after_id: int) -> AsyncGenerator[tuple[NotificationView | None, int], None]:
        """First the unread count alone (None: so that a client learns it, and that the stream is
        open, at once), then the caller's unread notifications after ``after_id``, oldest first, then each new one
        as it comes, each with the unread count then. Every one is read from the store (a nudge
        names only an id), which is also polled every ``poll_s``; a token revoked meanwhile ends
        the stream (TokenError: UNAUTHENTICATED) within ``wait_s``."""
        queue = self.hub.open(who.subject)  # TOO_MANY_STREAMS past the cap
        try:
            async with self.store.unit() as uow:
                await uow.players.known(who.subject)
                last = max(after_id, await uow.notifications.newest_id(who.subject))
                first = await uow.notifications.after(who.subject, max(0, after_id), True, BATCH)
                views = await self.views(uow, first)
                unread = await uow.notifications.unread(who.subject)
            sent: deque[int] = deque(maxlen=4 * BATCH)
            yield None, unread
            for v in views:
                sent.append(v.row.notification_id)
                yield v, unread
            polled = time.monotonic()
            while True:
                nudged: set[int] = set()
                try:
                    nudged.add(await asyncio.wait_for(queue.get(), timeout=self.wait_s))
                    while not queue.empty():
                        nudged.add(queue.get_nowait())
                except TimeoutError:
                    pass
                still_valid(who)
                nudged -= set(sent)
                due = time.monotonic() - polled >= self.poll_s
                if not nudged and not due:
                    continue
                async with self.store.unit() as uow:
                    rows = await uow.notifications.by_ids(who.subject, sorted(nudged)) if nudged else []
                    if due:
                        polled = time.monotonic()
                        rows += await uow.notifications.after(who.subject, last, False, BATCH)
                    fresh = {r.notification_id: r for r in rows if r.notification_id not in sent}
                    views = await self.views(uow, [fresh[k] for k in sorted(fresh)])
                    unread = await uow.notifications.unread(who.subject) if views else 0
                for v in views:
                    sent.append(v.row.notification_id)
                    last = max(last, v.row.notification_id)
                    yield v, unread
        finally:
            self.hub.close(who.subject, queue)

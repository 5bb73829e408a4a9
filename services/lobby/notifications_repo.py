"""Notifications (``lobby_notifications``): one row per recipient, its kind, who it is from, the
table and an invitation's invite code, when it was made and read. Each one a unit adds is
remembered in ``added``, which the store hands on once the unit has committed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from .repository import Repository

__all__ = [
    "NotificationsRepo",
    "NotificationRow",
    "FRIEND_REQUEST",
    "FRIEND_ACCEPTED",
    "TABLE_INVITE",
    "TABLE_STARTING",
]

# The kinds, as okey.v1.NotificationKind names them without its prefix.
FRIEND_REQUEST, FRIEND_ACCEPTED, TABLE_INVITE, TABLE_STARTING = (
    "FRIEND_REQUEST",
    "FRIEND_ACCEPTED",
    "TABLE_INVITE",
    "TABLE_STARTING",
)


@dataclass(frozen=True, slots=True)
class NotificationRow:
    notification_id: int
    player_id: str
    kind: str
    from_id: str
    from_name: str
    table_id: str
    invite_code: str
    created_at: datetime
    read_at: datetime | None


def _row(r: asyncpg.Record) -> NotificationRow:
    return NotificationRow(
        r["notification_id"],
        r["player_id"],
        r["kind"],
        r["from_id"],
        r["from_name"] or "",
        r["table_id"],
        r["invite_code"],
        r["created_at"],
        r["read_at"],
    )


_SELECT = (
    "SELECT n.notification_id, n.player_id, n.kind, n.from_id, p.display_name AS from_name, n.table_id, "
    "n.invite_code, n.created_at, n.read_at FROM lobby_notifications n "
    "LEFT JOIN lobby_players p ON p.player_id = NULLIF(n.from_id, '') "
)


class NotificationsRepo(Repository):
    def __init__(self, conn: asyncpg.Connection) -> None:
        super().__init__(conn)
        self.added: list[tuple[str, int]] = []  # (recipient, id) of each one this unit added

    async def add(
        self,
        player_id: str,
        kind: str,
        now: datetime,
        keep: int,
        kept_since: datetime,
        from_id: str = "",
        table_id: str = "",
        invite_code: str = "",
    ) -> int:
        """A new notification for ``player_id``; their oldest go past the newest ``keep``, and
        those made before ``kept_since``."""
        nid = int(
            await self.conn.fetchval(
                "INSERT INTO lobby_notifications (player_id, kind, from_id, table_id, invite_code, created_at) "
                "VALUES ($1, $2, $3, $4, $5, $6) RETURNING notification_id",
                player_id,
                kind,
                from_id,
                table_id,
                invite_code,
                now,
            )
        )
        await self.conn.execute(
            "DELETE FROM lobby_notifications WHERE player_id = $1 AND (created_at < $2 OR notification_id <= "
            "(SELECT notification_id FROM lobby_notifications WHERE player_id = $1 "
            "ORDER BY notification_id DESC OFFSET $3 LIMIT 1))",
            player_id,
            kept_since,
            max(1, keep),
        )
        self.added.append((player_id, nid))
        return nid

    async def page(self, player_id: str, before_id: int, limit: int, unread_only: bool) -> list[NotificationRow]:
        """Newest first, older than ``before_id`` (0: from the newest)."""
        rows = await self.conn.fetch(
            _SELECT + "WHERE n.player_id = $1 AND ($2::bigint = 0 OR n.notification_id < $2::bigint) "
            "AND (NOT $3 OR n.read_at IS NULL) ORDER BY n.notification_id DESC LIMIT $4",
            player_id,
            before_id,
            unread_only,
            limit,
        )
        return [_row(r) for r in rows]

    async def after(self, player_id: str, after_id: int, unread_only: bool, limit: int) -> list[NotificationRow]:
        """Oldest first, newer than ``after_id``."""
        rows = await self.conn.fetch(
            _SELECT + "WHERE n.player_id = $1 AND n.notification_id > $2 AND (NOT $3 OR n.read_at IS NULL) "
            "ORDER BY n.notification_id LIMIT $4",
            player_id,
            after_id,
            unread_only,
            limit,
        )
        return [_row(r) for r in rows]

    async def by_ids(self, player_id: str, ids: Sequence[int]) -> list[NotificationRow]:
        """Those of ``ids`` that are the player's, oldest first."""
        rows = await self.conn.fetch(
            _SELECT + "WHERE n.player_id = $1 AND n.notification_id = ANY($2::bigint[]) ORDER BY n.notification_id",
            player_id,
            list(ids),
        )
        return [_row(r) for r in rows]

    async def newest_id(self, player_id: str) -> int:
        got = await self.conn.fetchval(
            "SELECT max(notification_id) FROM lobby_notifications WHERE player_id = $1", player_id
        )
        return int(got or 0)

    async def unread(self, player_id: str) -> int:
        return int(
            await self.conn.fetchval(
                "SELECT count(*) FROM lobby_notifications WHERE player_id = $1 AND read_at IS NULL", player_id
            )
        )

    async def mark_read(self, player_id: str, ids: Sequence[int], up_to: int, now: datetime) -> None:
        """Ids that are not the player's are passed over."""
        await self.conn.execute(
            "UPDATE lobby_notifications SET read_at = $4 WHERE player_id = $1 AND read_at IS NULL "
            "AND (notification_id = ANY($2::bigint[]) OR notification_id <= $3)",
            player_id,
            list(ids),
            up_to,
            now,
        )

    async def invited_since(self, from_id: str, to_id: str, table_id: str, since: datetime) -> bool:
        return bool(
            await self.conn.fetchval(
                "SELECT 1 FROM lobby_notifications WHERE player_id = $1 AND from_id = $2 AND table_id = $3 "
                "AND kind = 'TABLE_INVITE' AND created_at > $4 LIMIT 1",
                to_id,
                from_id,
                table_id,
                since,
            )
        )

    async def requested_since(self, from_id: str, to_id: str, since: datetime) -> bool:
        """Did ``from_id`` send ``to_id`` a friend request (its notification still kept) after ``since``?"""
        return bool(
            await self.conn.fetchval(
                "SELECT 1 FROM lobby_notifications WHERE player_id = $1 AND from_id = $2 "
                "AND kind = 'FRIEND_REQUEST' AND created_at > $3 LIMIT 1",
                to_id,
                from_id,
                since,
            )
        )

    async def drop_earlier(self, player_id: str, from_id: str, kind: str, table_id: str = "") -> None:
        """``player_id``'s notifications of ``kind`` from ``from_id`` (about ``table_id``): a new one
        takes their place, so one sender holds one line of a player's list, however often they send."""
        await self.conn.execute(
            "DELETE FROM lobby_notifications WHERE player_id = $1 AND from_id = $2 AND kind = $3 AND table_id = $4",
            player_id,
            from_id,
            kind,
            table_id,
        )

    async def invited(self, player_id: str, table_id: str) -> bool:
        """Has ``player_id`` an invitation to ``table_id`` (one not yet pruned)?"""
        return bool(
            await self.conn.fetchval(
                "SELECT 1 FROM lobby_notifications WHERE player_id = $1 AND table_id = $2 AND kind = 'TABLE_INVITE' "
                "LIMIT 1",
                player_id,
                table_id,
            )
        )

    async def drop_from(self, player_id: str, from_id: str) -> None:
        """What ``from_id`` sent ``player_id`` (a block takes their requests and invitations away)."""
        await self.conn.execute(
            "DELETE FROM lobby_notifications WHERE player_id = $1 AND from_id = $2", player_id, from_id
        )

    async def prune(self, before: datetime) -> int:
        done = await self.conn.execute("DELETE FROM lobby_notifications WHERE created_at < $1", before)
        return int(done.split()[-1])

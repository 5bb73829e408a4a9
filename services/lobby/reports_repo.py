"""Reports on players (``lobby_reports``) and the sanctions an admin gives: warnings, mutes and
bans on the player's row, and bans of a device (``lobby_device_bans``).

The queue (issue 39.6) is read in pages by a key kept on each row: open before resolved, then
``severity`` (from the reason, fixed), then ``reporters`` (how many players have an open report
against the same player: kept on that player's open rows as reports come and go, frozen when a
report is resolved), then newest first (``report_id``). A page starts after the key of the last
row of the one before (:class:`QueueKey`), through the indexes of migration 11; a resolve touches
only the report and the open reports against the same player, whatever the queue's size."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from .repository import Repository

__all__ = ["ReportsRepo", "ReportRow", "QueueKey"]


@dataclass(frozen=True, slots=True)
class ReportRow:
    report_id: int
    reporter_id: str
    reporter_name: str
    player_id: str
    player_name: str
    reason: str
    details: str
    message_ids: tuple[int, ...]
    table_id: str
    status: str
    created_at: datetime
    action: str
    duration_minutes: int
    note: str
    resolved_by: str
    resolved_at: datetime | None
    severity: int = 0
    reporters: int = 1

    @property
    def key(self) -> QueueKey:
        return QueueKey(self.status == "OPEN", self.severity, self.reporters, self.report_id)


@dataclass(frozen=True, slots=True)
class QueueKey:
    """A report's place in the queue: the order is by these fields, each descending."""

    open: bool
    severity: int
    reporters: int
    report_id: int


def _report(r: asyncpg.Record) -> ReportRow:
    return ReportRow(
        r["report_id"],
        r["reporter_id"],
        r["reporter_name"],
        r["player_id"],
        r["player_name"],
        r["reason"],
        r["details"],
        tuple(r["message_ids"]),
        r["table_id"],
        r["status"],
        r["created_at"],
        r["action"],
        r["duration_minutes"],
        r["note"],
        r["resolved_by"],
        r["resolved_at"],
        r["severity"],
        r["reporters"],
    )


_REPORT_SELECT = """
    SELECT r.*, a.display_name AS reporter_name, b.display_name AS player_name
    FROM lobby_reports r
    JOIN lobby_players a ON a.player_id = r.reporter_id
    JOIN lobby_players b ON b.player_id = r.player_id
"""


class ReportsRepo(Repository):
    async def insert_report(
        self,
        reporter_id: str,
        player_id: str,
        reason: str,
        details: str,
        message_ids: Sequence[int],
        table_id: str,
        now: datetime,
        severity: int = 0,
    ) -> int:
        """A new open report; the open reports against the same player are counted again (the
        caller holds that player's row locked, so two reports on one player count in turn)."""
        report_id: int = await self.conn.fetchval(
            "INSERT INTO lobby_reports (reporter_id, player_id, reason, details, message_ids, table_id, created_at, "
            "severity) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING report_id",
            reporter_id,
            player_id,
            reason,
            details,
            list(message_ids),
            table_id,
            now,
            severity,
        )
        await self.recount(player_id)
        return report_id

    async def recount(self, player_id: str) -> None:
        """``reporters`` of each open report against the player: the players who reported them
        and whose report is open (lobby_reports_target_open: as many rows as those reports)."""
        await self.conn.execute(
            "UPDATE lobby_reports SET reporters = c.n FROM (SELECT count(DISTINCT reporter_id)::int AS n "
            "FROM lobby_reports WHERE player_id = $1 AND status = 'OPEN') c "
            "WHERE player_id = $1 AND status = 'OPEN' AND reporters <> c.n",
            player_id,
        )

    async def open_report_exists(self, reporter_id: str, player_id: str) -> bool:
        return bool(
            await self.conn.fetchval(
                "SELECT 1 FROM lobby_reports WHERE reporter_id = $1 AND player_id = $2 AND status = 'OPEN'",
                reporter_id,
                player_id,
            )
        )

    async def report(self, report_id: int, lock: bool = False) -> ReportRow | None:
        if lock:
            await self.conn.execute("SELECT 1 FROM lobby_reports WHERE report_id = $1 FOR UPDATE", report_id)
        r = await self.conn.fetchrow(_REPORT_SELECT + "WHERE r.report_id = $1", report_id)
        return _report(r) if r else None

    async def reports(self, include_resolved: bool, limit: int, after: QueueKey | None = None) -> list[ReportRow]:
        """A page of the queue: at most ``limit`` reports in its order (open first, then most
        severe, most reporters, newest), after ``after`` (the key of the previous page's last)."""
        args: list[object] = []
        if include_resolved:
            key = "(r.status = 'OPEN'), r.severity, r.reporters, r.report_id"
            where = "TRUE"
            cursor = [after.open, after.severity, after.reporters, after.report_id] if after else []
        else:  # the partial index lobby_reports_queue
            key = "r.severity, r.reporters, r.report_id"
            where = "r.status = 'OPEN'"
            if after is not None and not after.open:
                return []  # past the open reports
            cursor = [after.severity, after.reporters, after.report_id] if after else []
        if cursor:
            args += cursor
            where += f" AND ({key}) < ({', '.join(f'${i + 1}' for i in range(len(cursor)))})"
        args.append(limit)
        order = ", ".join(f"{k} DESC" for k in key.split(", "))
        rows = await self.conn.fetch(_REPORT_SELECT + f"WHERE {where} ORDER BY {order} LIMIT ${len(args)}", *args)
        return [_report(r) for r in rows]

    async def earlier_reports(self, player_id: str, before_id: int) -> int:
        n: int = await self.conn.fetchval(
            "SELECT count(*) FROM lobby_reports WHERE player_id = $1 AND report_id < $2", player_id, before_id
        )
        return n

    async def resolve_report(
        self, report_id: int, action: str, minutes: int, note: str, admin_id: str, now: datetime
    ) -> None:
        await self.conn.execute(
            "UPDATE lobby_reports SET status = 'RESOLVED', action = $2, duration_minutes = $3, note = $4, "
            "resolved_by = $5, resolved_at = $6 WHERE report_id = $1",
            report_id,
            action,
            minutes,
            note,
            admin_id,
            now,
        )
        player_id = await self.conn.fetchval("SELECT player_id FROM lobby_reports WHERE report_id = $1", report_id)
        if player_id is not None:
            await self.recount(player_id)

    async def sanction(
        self,
        player_id: str,
        muted_until: datetime | None = None,
        banned_until: datetime | None = None,
        warn: bool = False,
    ) -> None:
        await self.conn.execute(
            "UPDATE lobby_players SET muted_until = COALESCE($2, muted_until), "
            "banned_until = COALESCE($3, banned_until), warnings = warnings + $4 WHERE player_id = $1",
            player_id,
            muted_until,
            banned_until,
            1 if warn else 0,
        )

    async def unban(self, player_id: str, device_id: str) -> None:
        """Lift the player's ban and their device's."""
        await self.conn.execute("UPDATE lobby_players SET banned_until = NULL WHERE player_id = $1", player_id)
        if device_id:
            await self.conn.execute("DELETE FROM lobby_device_bans WHERE device_id = $1", device_id)

    async def ban_device(self, device_id: str, until: datetime) -> None:
        await self.conn.execute(
            "INSERT INTO lobby_device_bans (device_id, banned_until) VALUES ($1, $2) "
            "ON CONFLICT (device_id) DO UPDATE SET banned_until = GREATEST(lobby_device_bans.banned_until, $2)",
            device_id,
            until,
        )

    async def device_banned_until(self, device_id: str) -> datetime | None:
        if not device_id:
            return None
        value: datetime | None = await self.conn.fetchval(
            "SELECT banned_until FROM lobby_device_bans WHERE device_id = $1", device_id
        )
        return value

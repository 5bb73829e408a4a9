"""Staff roles (``lobby_staff``: a player who is a moderator or an admin) and the audit log of
staff actions (``lobby_audit``: who did what to whom, when and why)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from .repository import Repository

__all__ = ["StaffRepo", "StaffRow", "AuditRow"]


@dataclass(frozen=True, slots=True)
class StaffRow:
    player_id: str
    display_name: str
    role: str
    granted_by: str
    granted_at: datetime


@dataclass(frozen=True, slots=True)
class AuditRow:
    audit_id: int
    at: datetime
    actor_id: str
    actor_role: str
    action: str
    target_id: str
    reason: str
    detail: dict[str, Any]


def _audit(r: asyncpg.Record) -> AuditRow:
    detail = r["detail"]
    return AuditRow(
        r["audit_id"],
        r["at"],
        r["actor_id"],
        r["actor_role"],
        r["action"],
        r["target_id"],
        r["reason"],
        json.loads(detail) if isinstance(detail, str) else dict(detail),
    )


class StaffRepo(Repository):
    async def role(self, player_id: str) -> str:
        """The player's staff role, "" for none."""
        value: str | None = await self.conn.fetchval("SELECT role FROM lobby_staff WHERE player_id = $1", player_id)
        return value or ""

    async def set_role(self, player_id: str, role: str, granted_by: str, now: datetime) -> str:
        """Give the player ``role``; returns the role they had before ("" for none)."""
        before = await self.conn.fetchval("SELECT role FROM lobby_staff WHERE player_id = $1 FOR UPDATE", player_id)
        await self.conn.execute(
            "INSERT INTO lobby_staff (player_id, role, granted_by, granted_at) VALUES ($1, $2, $3, $4) "
            "ON CONFLICT (player_id) DO UPDATE SET role = EXCLUDED.role, granted_by = EXCLUDED.granted_by, "
            "granted_at = EXCLUDED.granted_at",
            player_id,
            role,
            granted_by,
            now,
        )
        return str(before or "")

    async def drop_role(self, player_id: str) -> str:
        """Take the player's staff role away; returns it ("" when they had none)."""
        value: str | None = await self.conn.fetchval(
            "DELETE FROM lobby_staff WHERE player_id = $1 RETURNING role", player_id
        )
        return value or ""

    async def staff(self) -> list[StaffRow]:
        rows = await self.conn.fetch(
            "SELECT s.*, p.display_name FROM lobby_staff s JOIN lobby_players p USING (player_id) "
            "ORDER BY s.role, s.granted_at"
        )
        return [StaffRow(r["player_id"], r["display_name"], r["role"], r["granted_by"], r["granted_at"]) for r in rows]

    async def audit(
        self,
        actor_id: str,
        actor_role: str,
        action: str,
        target_id: str,
        reason: str,
        now: datetime,
        detail: dict[str, Any] | None = None,
    ) -> int:
        """One line of the audit log, in the caller's unit: it commits with the action or not at all."""
        audit_id: int = await self.conn.fetchval(
            "INSERT INTO lobby_audit (at, actor_id, actor_role, action, target_id, reason, detail) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb) RETURNING audit_id",
            now,
            actor_id,
            actor_role,
            action,
            target_id,
            reason,
            json.dumps(detail or {}),
        )
        return audit_id

    async def audit_log(self, limit: int, target_id: str = "") -> list[AuditRow]:
        rows = await self.conn.fetch(
            "SELECT * FROM lobby_audit WHERE $1 = '' OR target_id = $1 ORDER BY audit_id DESC LIMIT $2",
            target_id,
            limit,
        )
        return [_audit(r) for r in rows]

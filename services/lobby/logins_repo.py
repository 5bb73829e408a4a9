"""The rows of linked logins: an account's e-mail and password hash (``lobby_logins``) with its
failed attempts, the one-time link codes (``lobby_link_codes``), and the account's devices (its
device credentials, by their public ``device_ref``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg

from .repository import Repository

__all__ = ["LoginsRepo", "LoginRow", "DeviceRow"]


@dataclass(frozen=True, slots=True)
class LoginRow:
    player_id: str
    email: str
    password_hash: str
    failures: int
    locked_until: datetime | None


@dataclass(frozen=True, slots=True)
class DeviceRow:
    device_ref: str
    created_at: datetime
    last_used_at: datetime


class LoginsRepo(Repository):
    async def add_login(self, player_id: str, email_key: str, email: str, password_hash: str, now: datetime) -> None:
        """Raises ``UniqueTaken`` when the e-mail (or the account) has a login already."""
        await self.insert_unique(
            "INSERT INTO lobby_logins (player_id, email_key, email, password_hash, linked_at) "
            "VALUES ($1, $2, $3, $4, $5)",
            player_id,
            email_key,
            email,
            password_hash,
            now,
        )

    async def login_of(self, player_id: str) -> LoginRow | None:
        r = await self.conn.fetchrow("SELECT * FROM lobby_logins WHERE player_id = $1 FOR UPDATE", player_id)
        return _login(r) if r else None

    async def login_by_email(self, email_key: str) -> LoginRow | None:
        """Locked to the end of the unit: concurrent attempts on one account queue, so each
        failure is counted."""
        r = await self.conn.fetchrow("SELECT * FROM lobby_logins WHERE email_key = $1 FOR UPDATE", email_key)
        return _login(r) if r else None

    async def attempt(self, player_id: str, failures: int, locked_until: datetime | None) -> None:
        await self.conn.execute(
            "UPDATE lobby_logins SET failures = $2, locked_until = $3 WHERE player_id = $1",
            player_id,
            failures,
            locked_until,
        )

    async def set_password(self, player_id: str, password_hash: str) -> None:
        await self.conn.execute(
            "UPDATE lobby_logins SET password_hash = $2, failures = 0, locked_until = NULL WHERE player_id = $1",
            player_id,
            password_hash,
        )

    # ------------------------------------------------------------ link codes

    async def add_code(self, code_hash: bytes, player_id: str, now: datetime, expires_at: datetime) -> None:
        # one live code per account: a new one replaces the last
        await self.conn.execute("DELETE FROM lobby_link_codes WHERE player_id = $1 OR expires_at <= $2", player_id, now)
        await self.conn.execute(
            "INSERT INTO lobby_link_codes (code_hash, player_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
            code_hash,
            player_id,
            now,
            expires_at,
        )

    async def take_code(self, code_hash: bytes, now: datetime) -> str | None:
        """The account of a live code, which is used up (deleted) by this: once only."""
        return await self.conn.fetchval(
            "DELETE FROM lobby_link_codes WHERE code_hash = $1 RETURNING (CASE WHEN expires_at > $2 "
            "THEN player_id END)",
            code_hash,
            now,
        )

    # ------------------------------------------------------------ devices

    async def devices(self, player_id: str) -> list[DeviceRow]:
        rows = await self.conn.fetch(
            "SELECT device_ref, created_at, last_used_at FROM lobby_device_credentials WHERE player_id = $1 "
            "ORDER BY last_used_at DESC LIMIT 50",
            player_id,
        )
        return [DeviceRow(r["device_ref"], r["created_at"], r["last_used_at"]) for r in rows]

    async def unlink(self, player_id: str, device_ref: str, now: datetime) -> bool:
        """Forget one of the account's device credentials and end that device's sessions."""
        done = await self.conn.execute(
            "DELETE FROM lobby_device_credentials WHERE player_id = $1 AND device_ref = $2", player_id, device_ref
        )
        if done.split()[-1] == "0":
            return False
        await self.conn.execute(
            "UPDATE lobby_sessions SET revoked_at = $3 WHERE player_id = $1 AND device_ref = $2 AND revoked_at IS NULL",
            player_id,
            device_ref,
            now,
        )
        return True


def _login(r: asyncpg.Record) -> LoginRow:
    return LoginRow(r["player_id"], r["email"], r["password_hash"], r["failures"], r["locked_until"])

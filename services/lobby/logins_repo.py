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

    async def drop_codes(self, player_id: str) -> None:
        """The account's live link code, if any, is no longer good (everything ended)."""
        await self.conn.execute("DELETE FROM lobby_link_codes WHERE player_id = $1", player_id)

    async def unlink_login(self, player_id: str) -> bool:
        """Remove the account's e-mail login (the owner's choice): the e-mail signs nobody in."""
        done = await self.conn.execute("DELETE FROM lobby_logins WHERE player_id = $1", player_id)
        return done.split()[-1] != "0"

    async def take_code(self, code_hash: bytes, now: datetime) -> str | None:
        """The account of a live code, which is used up (deleted) by this: once only."""
        return await self.conn.fetchval(
            "DELETE FROM lobby_link_codes WHERE code_hash = $1 RETURNING (CASE WHEN expires_at > $2 "
            "THEN player_id END)",
            code_hash,
            now,
        )

    # ------------------------------------------------------------ devices

    async def devices(self, player_id: str, limit: int, after: tuple[datetime, str] | None = None) -> list[DeviceRow]:
        """A page of the account's devices, newest use first (then by ref): those after
        ``after`` (the last row of the page before), at most ``limit``."""
        if after is None:
            rows = await self.conn.fetch(
                "SELECT device_ref, created_at, last_used_at FROM lobby_device_credentials WHERE player_id = $1 "
                "ORDER BY last_used_at DESC, device_ref LIMIT $2",
                player_id,
                limit,
            )
        else:
            rows = await self.conn.fetch(
                "SELECT device_ref, created_at, last_used_at FROM lobby_device_credentials WHERE player_id = $1 "
                "AND (last_used_at < $3 OR (last_used_at = $3 AND device_ref > $4)) "
                "ORDER BY last_used_at DESC, device_ref LIMIT $2",
                player_id,
                limit,
                after[0],
                after[1],
            )
        return [DeviceRow(r["device_ref"], r["created_at"], r["last_used_at"]) for r in rows]

    async def drop_devices(self, player_id: str, keep_ref: str, since: datetime | None = None) -> list[str]:
        """Forget the account's device credentials but ``keep_ref`` (those created at or after
        ``since`` only, when given), with their sessions; returns the refs forgotten."""
        rows = await self.conn.fetch(
            "DELETE FROM lobby_device_credentials WHERE player_id = $1 AND device_ref <> $2 "
            "AND ($3::timestamptz IS NULL OR created_at >= $3) RETURNING device_ref",
            player_id,
            keep_ref,
            since,
        )
        return [r["device_ref"] for r in rows]

    # ------------------------------------------------------------ failed logins and known addresses

    async def throttles(self, keys: list[bytes], now: datetime) -> dict[bytes, tuple[int, datetime | None]]:
        """The failure counts and locks of ``keys``, each row locked to the end of the unit (in
        the keys' order: callers sort them), made when missing. A count an hour old with no lock
        in force reads as 0."""
        out: dict[bytes, tuple[int, datetime | None]] = {}
        for key in keys:
            await self.conn.execute(
                "INSERT INTO lobby_login_throttle (key, failures, last_at) VALUES ($1, 0, $2) "
                "ON CONFLICT (key) DO NOTHING",
                key,
                now,
            )
            r = await self.conn.fetchrow(
                "SELECT failures, locked_until, last_at FROM lobby_login_throttle WHERE key = $1 FOR UPDATE", key
            )
            locked = r["locked_until"] if r["locked_until"] is not None and r["locked_until"] > now else None
            stale = locked is None and (now - r["last_at"]).total_seconds() > 3600
            out[key] = (0 if stale else r["failures"], locked)
        return out

    async def set_throttle(self, key: bytes, failures: int, locked_until: datetime | None, now: datetime) -> None:
        await self.conn.execute(
            "UPDATE lobby_login_throttle SET failures = $2, locked_until = $3, last_at = $4 WHERE key = $1",
            key,
            failures,
            locked_until,
            now,
        )

    async def forget_throttles(self, before: datetime) -> int:
        done = await self.conn.execute(
            "DELETE FROM lobby_login_throttle WHERE last_at < $1 AND (locked_until IS NULL OR locked_until < $1)",
            before,
        )
        return int(done.split()[-1])

    async def know_address(self, player_id: str, address_hash: bytes, now: datetime) -> None:
        """The account signed in from this address (kept for 90 days after its last use)."""
        await self.conn.execute(
            "INSERT INTO lobby_known_addresses (player_id, address_hash, last_at) VALUES ($1, $2, $3) "
            "ON CONFLICT (player_id, address_hash) DO UPDATE SET last_at = EXCLUDED.last_at",
            player_id,
            address_hash,
            now,
        )

    async def known_address(self, player_id: str, address_hash: bytes) -> bool:
        return bool(
            await self.conn.fetchval(
                "SELECT EXISTS (SELECT 1 FROM lobby_known_addresses WHERE player_id = $1 AND address_hash = $2)",
                player_id,
                address_hash,
            )
        )

    async def forget_addresses(self, before: datetime) -> int:
        done = await self.conn.execute("DELETE FROM lobby_known_addresses WHERE last_at < $1", before)
        return int(done.split()[-1])

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

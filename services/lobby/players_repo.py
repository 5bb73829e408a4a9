"""The players' rows (``lobby_players``), their device credentials, their token revocations and
the daily quotas per device and address that sign-ups and chip grants take from."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

import asyncpg

from .errors import NotFound
from .repository import Repository

__all__ = ["PlayersRepo", "PlayerRow", "SessionRow"]


@dataclass(frozen=True, slots=True)
class PlayerRow:
    player_id: str
    display_name: str
    device_id: str
    created_at: datetime
    muted_until: datetime | None
    banned_until: datetime | None
    warnings: int
    avatar: int | None = None  # okey.v1.Avatar's number the player picked; None: the default


@dataclass(frozen=True, slots=True)
class SessionRow:
    family_id: str
    player_id: str
    device_ref: str  # the device credential the session was started with ('' without one)
    issued_at: datetime
    expires_at: datetime
    used_at: datetime | None  # rotated: the next token of the family was issued
    revoked_at: datetime | None


def _player(r: asyncpg.Record) -> PlayerRow:
    return PlayerRow(
        r["player_id"],
        r["display_name"],
        r["device_id"],
        r["created_at"],
        r["muted_until"],
        r["banned_until"],
        r["warnings"],
        r["avatar"],
    )


class PlayersRepo(Repository):
    async def insert_player(self, row: PlayerRow, name_key: str) -> None:
        """Raises ``UniqueTaken`` when the name (its folded key) is taken; the unit goes on."""
        await self.insert_unique(
            "INSERT INTO lobby_players (player_id, display_name, name_key, device_id, created_at) "
            "VALUES ($1, $2, $3, $4, $5)",
            row.player_id,
            row.display_name,
            name_key,
            row.device_id,
            row.created_at,
        )

    async def player(self, player_id: str, lock: bool = False) -> PlayerRow | None:
        sql = "SELECT * FROM lobby_players WHERE player_id = $1" + (" FOR UPDATE" if lock else "")
        r = await self.conn.fetchrow(sql, player_id)
        return _player(r) if r else None

    async def known(self, player_id: str, lock: bool = False) -> PlayerRow:
        """The caller's own row: a token's player the lobby does not know has to sign in first."""
        player = await self.player(player_id, lock=lock)
        if player is None:
            raise NotFound("sign in first: this token's player is not known to the lobby", "PLAYER_NOT_FOUND")
        return player

    async def set_avatar(self, player_id: str, avatar: int) -> None:
        await self.conn.execute("UPDATE lobby_players SET avatar = $2 WHERE player_id = $1", player_id, avatar)

    async def revoke(self, player_id: str, not_before: datetime, expires_at: datetime) -> None:
        """Refuse the player's tokens issued before ``not_before`` (until ``expires_at``)."""
        await self.conn.execute(
            "INSERT INTO lobby_revocations (player_id, not_before, expires_at) VALUES ($1, $2, $3) "
            "ON CONFLICT (player_id) DO UPDATE SET not_before = GREATEST(lobby_revocations.not_before, "
            "EXCLUDED.not_before), expires_at = GREATEST(lobby_revocations.expires_at, EXCLUDED.expires_at)",
            player_id,
            not_before,
            expires_at,
        )

    async def revocations(self, now: datetime) -> list[tuple[str, datetime]]:
        """Every revocation still in force (a token it refuses may not have expired yet)."""
        await self.conn.execute("DELETE FROM lobby_revocations WHERE expires_at <= $1", now)
        rows = await self.conn.fetch("SELECT player_id, not_before FROM lobby_revocations WHERE expires_at > $1", now)
        return [(r["player_id"], r["not_before"]) for r in rows]

    # ------------------------------------------------------------ device credentials

    async def add_credential(self, secret_hash: bytes, device_ref: str, player_id: str, now: datetime) -> None:
        await self.conn.execute(
            "INSERT INTO lobby_device_credentials (secret_hash, device_ref, player_id, created_at, last_used_at) "
            "VALUES ($1, $2, $3, $4, $4)",
            secret_hash,
            device_ref,
            player_id,
            now,
        )

    async def credential_ref(self, secret_hash: bytes) -> tuple[str, str] | None:
        """The (player, device ref) of a device credential, or None; its use is not recorded."""
        r = await self.conn.fetchrow(
            "SELECT player_id, device_ref FROM lobby_device_credentials WHERE secret_hash = $1", secret_hash
        )
        return (r["player_id"], r["device_ref"]) if r else None

    async def by_credential(self, secret_hash: bytes, now: datetime) -> tuple[PlayerRow, str] | None:
        """The player a device credential signs in and the device's public ref (its last use
        moved to ``now``), or None."""
        r = await self.conn.fetchrow(
            "WITH used AS (UPDATE lobby_device_credentials SET last_used_at = $2 WHERE secret_hash = $1 "
            "RETURNING player_id, device_ref) SELECT p.*, used.device_ref AS used_ref "
            "FROM lobby_players p JOIN used USING (player_id)",
            secret_hash,
            now,
        )
        return (_player(r), r["used_ref"]) if r else None

    # ------------------------------------------------------------ sessions (refresh tokens)

    async def add_session(
        self, token_hash: bytes, family_id: str, player_id: str, device_ref: str, now: datetime, expires_at: datetime
    ) -> None:
        await self.conn.execute(
            "INSERT INTO lobby_sessions (token_hash, family_id, player_id, device_ref, issued_at, expires_at) "
            "VALUES ($1, $2, $3, $4, $5, $6)",
            token_hash,
            family_id,
            player_id,
            device_ref,
            now,
            expires_at,
        )

    async def session(self, token_hash: bytes) -> SessionRow | None:
        """The refresh token's row, locked to the end of the unit (two uses of one token queue)."""
        r = await self.conn.fetchrow("SELECT * FROM lobby_sessions WHERE token_hash = $1 FOR UPDATE", token_hash)
        if r is None:
            return None
        return SessionRow(
            r["family_id"],
            r["player_id"],
            r["device_ref"],
            r["issued_at"],
            r["expires_at"],
            r["used_at"],
            r["revoked_at"],
        )

    async def family_began(self, family_id: str) -> datetime | None:
        """When the session (the family of refresh tokens) began: its sign-in."""
        began: datetime | None = await self.conn.fetchval(
            "SELECT min(issued_at) FROM lobby_sessions WHERE family_id = $1", family_id
        )
        return began

    async def use_session(self, token_hash: bytes, now: datetime) -> None:
        await self.conn.execute("UPDATE lobby_sessions SET used_at = $2 WHERE token_hash = $1", token_hash, now)

    async def revoke_family(self, family_id: str, now: datetime) -> int:
        done = await self.conn.execute(
            "UPDATE lobby_sessions SET revoked_at = $2 WHERE family_id = $1 AND revoked_at IS NULL", family_id, now
        )
        return int(done.split()[-1])

    async def revoke_sessions(self, player_id: str, now: datetime) -> int:
        """Every session of the player (sign-out everywhere, a ban)."""
        done = await self.conn.execute(
            "UPDATE lobby_sessions SET revoked_at = $2 WHERE player_id = $1 AND revoked_at IS NULL", player_id, now
        )
        return int(done.split()[-1])

    async def forget_sessions(self, now: datetime) -> int:
        """Drop the rows of refresh tokens past their expiry (their family cannot be refreshed
        through them any more; a reuse of one is refused as unknown)."""
        done = await self.conn.execute("DELETE FROM lobby_sessions WHERE expires_at <= $1", now)
        return int(done.split()[-1])

    # ------------------------------------------------------------ daily quotas

    async def take_quotas(self, day: date, quotas: Sequence[tuple[str, str, int]]) -> tuple[str, int] | None:
        """One more use of each ``(kind, holder, limit)`` on ``day``, all or none: None when each
        had room, else the ``(kind, limit)`` that had none (the uses already taken are given back).
        Each row stays locked to the end of the unit, so concurrent takers queue on it."""
        taken: list[tuple[str, str]] = []
        for kind, holder, limit in quotas:
            used = await self.conn.fetchval(
                "INSERT INTO lobby_quotas AS q (kind, holder, day, used) VALUES ($1, $2, $3, 1) "
                "ON CONFLICT (kind, holder, day) DO UPDATE SET used = q.used + 1 WHERE q.used < $4 "
                "RETURNING used",
                kind,
                holder,
                day,
                limit,
            )
            if used is None or used > limit:
                if used is not None:
                    taken.append((kind, holder))
                await self.give_back_quotas(day, taken)
                return kind, limit
            taken.append((kind, holder))
        return None

    async def give_back_quotas(self, day: date, quotas: Sequence[tuple[str, str]]) -> None:
        for kind, holder in quotas:
            await self.conn.execute(
                "UPDATE lobby_quotas SET used = used - 1 WHERE kind = $1 AND holder = $2 AND day = $3",
                kind,
                holder,
                day,
            )

    async def quota_used(self, kind: str, holder: str, day: date) -> int:
        used = await self.conn.fetchval(
            "SELECT used FROM lobby_quotas WHERE kind = $1 AND holder = $2 AND day = $3", kind, holder, day
        )
        return int(used or 0)

    async def forget_quotas(self, before: date) -> int:
        """Drop the quota rows of days before ``before`` (they hold device ids and addresses)."""
        done = await self.conn.execute("DELETE FROM lobby_quotas WHERE day < $1", before)
        return int(done.split()[-1])

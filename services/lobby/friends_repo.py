"""Friendships (``lobby_friends``: one row per pair, ids in order), friend requests
(``lobby_friend_requests``: one row per direction), blocks (``lobby_blocks``: one player's of
another) and the name search that finds players to befriend."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from .repository import Repository

__all__ = ["FriendsRepo", "PersonRow", "FoundRow"]


@dataclass(frozen=True, slots=True)
class PersonRow:
    """Another player on the caller's lists: a friend (``at``: since), a request (sent at) or a
    block (since)."""

    player_id: str
    display_name: str
    at: datetime
    avatar: int | None = None  # the okey.v1.Avatar number the player picked; None: the default


@dataclass(frozen=True, slots=True)
class FoundRow:
    player_id: str
    display_name: str
    friend: bool
    request_pending: bool
    avatar: int | None = None


def pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


_EITHER_BLOCK = (
    "SELECT 1 FROM lobby_blocks WHERE (player_id = $1 AND blocked_id = ANY($2::text[])) "
    "OR (blocked_id = $1 AND player_id = ANY($2::text[])) LIMIT 1"
)


class FriendsRepo(Repository):
    async def lock_pair(self, a: str, b: str) -> None:
        """One unit at a time changes what is between ``a`` and ``b`` (to the end of the unit):
        two requests crossing each other are seen one after the other, so they end as one
        friendship. The first lock a unit that takes it takes (see store.py's lock order)."""
        x, y = pair(a, b)
        key = int.from_bytes(hashlib.blake2b(f"friends:{x}:{y}".encode(), digest_size=8).digest(), "big", signed=True)
        await self.conn.execute("SELECT pg_advisory_xact_lock($1)", key)

    # ------------------------------------------------------------ blocks

    async def blocked_between(self, player_id: str, others: Sequence[str]) -> bool:
        """Is there a block, either way, between ``player_id`` and any of ``others``?"""
        others = [o for o in others if o and o != player_id]
        if not others:
            return False
        return bool(await self.conn.fetchval(_EITHER_BLOCK, player_id, others))

    async def has_blocked(self, player_id: str, blocked_id: str) -> bool:
        return bool(
            await self.conn.fetchval(
                "SELECT 1 FROM lobby_blocks WHERE player_id = $1 AND blocked_id = $2", player_id, blocked_id
            )
        )

    async def block(self, player_id: str, blocked_id: str, now: datetime) -> None:
        await self.conn.execute(
            "INSERT INTO lobby_blocks (player_id, blocked_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            player_id,
            blocked_id,
            now,
        )

    async def unblock(self, player_id: str, blocked_id: str) -> None:
        await self.conn.execute(
            "DELETE FROM lobby_blocks WHERE player_id = $1 AND blocked_id = $2", player_id, blocked_id
        )

    async def blocks_of(self, player_id: str) -> int:
        return int(await self.conn.fetchval("SELECT count(*) FROM lobby_blocks WHERE player_id = $1", player_id))

    async def blocked(self, player_id: str) -> list[PersonRow]:
        rows = await self.conn.fetch(
            "SELECT b.blocked_id AS id, p.display_name, b.created_at AS at, p.avatar FROM lobby_blocks b "
            "JOIN lobby_players p ON p.player_id = b.blocked_id WHERE b.player_id = $1 ORDER BY b.created_at, id",
            player_id,
        )
        return [PersonRow(r["id"], r["display_name"], r["at"], r["avatar"]) for r in rows]

    # ------------------------------------------------------------ friendships

    async def are_friends(self, a: str, b: str) -> bool:
        x, y = pair(a, b)
        return bool(await self.conn.fetchval("SELECT 1 FROM lobby_friends WHERE player_a = $1 AND player_b = $2", x, y))

    async def befriend(self, a: str, b: str, now: datetime) -> None:
        x, y = pair(a, b)
        await self.conn.execute(
            "INSERT INTO lobby_friends (player_a, player_b, since) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            x,
            y,
            now,
        )

    async def unfriend(self, a: str, b: str) -> bool:
        x, y = pair(a, b)
        done = await self.conn.execute("DELETE FROM lobby_friends WHERE player_a = $1 AND player_b = $2", x, y)
        return done != "DELETE 0"

    async def friend_count(self, player_id: str) -> int:
        return int(
            await self.conn.fetchval(
                "SELECT count(*) FROM lobby_friends WHERE player_a = $1 OR player_b = $1", player_id
            )
        )

    async def friends(self, player_id: str) -> list[PersonRow]:
        rows = await self.conn.fetch(
            "SELECT f.id, p.display_name, f.since, p.avatar FROM ("
            "SELECT player_b AS id, since FROM lobby_friends WHERE player_a = $1 UNION ALL "
            "SELECT player_a AS id, since FROM lobby_friends WHERE player_b = $1) f "
            "JOIN lobby_players p ON p.player_id = f.id ORDER BY lower(p.display_name), f.id",
            player_id,
        )
        return [PersonRow(r["id"], r["display_name"], r["since"], r["avatar"]) for r in rows]

    async def friend(self, player_id: str, friend_id: str) -> PersonRow | None:
        x, y = pair(player_id, friend_id)
        r = await self.conn.fetchrow(
            "SELECT p.display_name, f.since, p.avatar FROM lobby_friends f JOIN lobby_players p ON p.player_id = $3 "
            "WHERE f.player_a = $1 AND f.player_b = $2",
            x,
            y,
            friend_id,
        )
        return PersonRow(friend_id, r["display_name"], r["since"], r["avatar"]) if r else None

    async def seated_at(self, player_ids: Sequence[str], statuses: Sequence[str]) -> dict[str, str]:
        """The table each of ``player_ids`` sits at (a seat not left) among tables in
        ``statuses``: the newest, when several."""
        rows = await self.conn.fetch(
            "SELECT DISTINCT ON (s.player_id) s.player_id, t.table_id FROM lobby_seats s "
            "JOIN lobby_tables t ON t.table_id = s.table_id WHERE s.player_id = ANY($1::text[]) "
            "AND s.left_at IS NULL AND t.status = ANY($2::text[]) ORDER BY s.player_id, t.created_at DESC, t.table_id",
            list(player_ids),
            list(statuses),
        )
        return {r["player_id"]: r["table_id"] for r in rows}

    # ------------------------------------------------------------ requests

    async def request_exists(self, from_id: str, to_id: str) -> bool:
        return bool(
            await self.conn.fetchval(
                "SELECT 1 FROM lobby_friend_requests WHERE from_id = $1 AND to_id = $2", from_id, to_id
            )
        )

    async def add_request(self, from_id: str, to_id: str, now: datetime) -> None:
        await self.conn.execute(
            "INSERT INTO lobby_friend_requests (from_id, to_id, sent_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            from_id,
            to_id,
            now,
        )

    async def drop_request(self, from_id: str, to_id: str) -> bool:
        done = await self.conn.execute(
            "DELETE FROM lobby_friend_requests WHERE from_id = $1 AND to_id = $2", from_id, to_id
        )
        return done != "DELETE 0"

    async def pending_from(self, player_id: str) -> int:
        return int(await self.conn.fetchval("SELECT count(*) FROM lobby_friend_requests WHERE from_id = $1", player_id))

    async def requests(self, player_id: str, incoming: bool) -> list[PersonRow]:
        """Requests to the player (``incoming``) or from them, oldest first."""
        mine, other = ("to_id", "from_id") if incoming else ("from_id", "to_id")
        rows = await self.conn.fetch(
            f"SELECT r.{other} AS id, p.display_name, r.sent_at, p.avatar FROM lobby_friend_requests r "
            f"JOIN lobby_players p ON p.player_id = r.{other} WHERE r.{mine} = $1 ORDER BY r.sent_at, id",
            player_id,
        )
        return [PersonRow(r["id"], r["display_name"], r["sent_at"], r["avatar"]) for r in rows]

    async def sever(self, a: str, b: str) -> None:
        """What a block ends: the friendship and the requests between the two, both ways."""
        await self.unfriend(a, b)
        await self.conn.execute(
            "DELETE FROM lobby_friend_requests WHERE (from_id = $1 AND to_id = $2) OR (from_id = $2 AND to_id = $1)",
            a,
            b,
        )

    # ------------------------------------------------------------ finding players

    async def find(self, player_id: str, prefix: str, limit: int) -> list[FoundRow]:
        """Live players whose name starts with ``prefix`` (any case), not the caller and not in a
        block with them; by name. Served by the index on lower(display_name)."""
        pattern = prefix.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = await self.conn.fetch(
            "SELECT p.player_id, p.display_name, p.avatar, "
            "EXISTS (SELECT 1 FROM lobby_friends f WHERE (f.player_a = $1 AND f.player_b = p.player_id) "
            "OR (f.player_b = $1 AND f.player_a = p.player_id)) AS friend, "
            "EXISTS (SELECT 1 FROM lobby_friend_requests r WHERE (r.from_id = $1 AND r.to_id = p.player_id) "
            "OR (r.to_id = $1 AND r.from_id = p.player_id)) AS pending "
            "FROM lobby_players p WHERE p.deleted_at IS NULL AND lower(p.display_name) LIKE $2 "
            "AND p.display_name <> '' AND p.player_id <> $1 "
            "AND NOT EXISTS (SELECT 1 FROM lobby_blocks b WHERE (b.player_id = $1 AND b.blocked_id = p.player_id) "
            "OR (b.blocked_id = $1 AND b.player_id = p.player_id)) "
            "ORDER BY lower(p.display_name), p.player_id LIMIT $3",
            player_id,
            pattern,
            limit,
        )
        return [FoundRow(r["player_id"], r["display_name"], r["friend"], r["pending"], r["avatar"]) for r in rows]

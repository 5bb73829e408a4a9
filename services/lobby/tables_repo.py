"""The tables directory (``lobby_tables``) and its seats (``lobby_seats``: a player's, or a
bot's with no player; the stake each held at the start; whether the player left mid-match)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from .repository import Repository

__all__ = ["TablesRepo", "TableRow", "SeatRow", "RoomCount"]


@dataclass(frozen=True, slots=True)
class TableRow:
    table_id: str
    game: str
    options: dict[str, Any]
    stake: int
    private: bool
    invite_code: str | None
    creator_id: str
    status: str
    created_at: datetime
    started_at: datetime | None
    result: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    player_id: str | None  # None: a bot
    display_name: str
    device_id: str
    stake_held: int
    left: bool
    avatar: int | None = None  # the okey.v1.Avatar number the player picked; None: the default

    @property
    def bot(self) -> bool:
        return self.player_id is None


@dataclass(frozen=True, slots=True)
class RoomCount:
    """One room's public tables: the people playing, the people waiting, the tables waiting."""

    people_playing: int = 0
    people_waiting: int = 0
    tables_waiting: int = 0


def _table(r: asyncpg.Record) -> TableRow:
    return TableRow(
        r["table_id"],
        r["game"],
        json.loads(r["options"]),
        r["stake"],
        r["private"],
        r["invite_code"],
        r["creator_id"],
        r["status"],
        r["created_at"],
        r["started_at"],
        json.loads(r["result"]) if r["result"] else None,
    )


def _seat(r: asyncpg.Record) -> SeatRow:
    return SeatRow(
        r["seat"], r["player_id"], r["display_name"], r["device_id"], r["stake_held"], r["left"], r["avatar"]
    )


_TABLE_COLS = (
    "table_id, game, options::text AS options, stake, private, invite_code, creator_id, status, "
    "created_at, started_at, result::text AS result"
)
_SEAT_SELECT = (
    "SELECT s.table_id, s.seat, s.player_id, COALESCE(p.display_name, '') AS display_name, s.device_id, "
    "s.stake_held, s.left_at IS NOT NULL AS left, p.avatar FROM lobby_seats s "
    "LEFT JOIN lobby_players p ON p.player_id = s.player_id "
)


class TablesRepo(Repository):
    async def insert_table(self, row: TableRow) -> None:
        await self.conn.execute(
            "INSERT INTO lobby_tables (table_id, game, options, stake, private, invite_code, creator_id, status, "
            "created_at) VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8, $9)",
            row.table_id,
            row.game,
            json.dumps(row.options),
            row.stake,
            row.private,
            row.invite_code,
            row.creator_id,
            row.status,
            row.created_at,
        )

    async def table(self, table_id: str, lock: bool = False) -> TableRow | None:
        sql = f"SELECT {_TABLE_COLS} FROM lobby_tables WHERE table_id = $1" + (" FOR UPDATE" if lock else "")
        r = await self.conn.fetchrow(sql, table_id)
        return _table(r) if r else None

    async def tables_by_ids(self, table_ids: Sequence[str]) -> list[TableRow]:
        rows = await self.conn.fetch(
            f"SELECT {_TABLE_COLS} FROM lobby_tables WHERE table_id = ANY($1::text[]) ORDER BY table_id",
            list(table_ids),
        )
        return [_table(r) for r in rows]

    async def table_by_invite(self, code: str) -> TableRow | None:
        r = await self.conn.fetchrow(f"SELECT {_TABLE_COLS} FROM lobby_tables WHERE invite_code = $1", code)
        return _table(r) if r else None

    async def open_tables_of(self, creator_id: str) -> int:
        """Tables ``creator_id`` opened that are waiting, starting or being played."""
        return int(
            await self.conn.fetchval(
                "SELECT count(*) FROM lobby_tables WHERE creator_id = $1 "
                "AND status IN ('WAITING', 'STARTING', 'PLAYING')",
                creator_id,
            )
        )

    async def tables(
        self,
        statuses: Sequence[str],
        game: str | None,
        limit: int,
        offset: int = 0,
        public_only: bool = True,
        options: dict[str, Any] | None = None,
    ) -> list[TableRow]:
        rows = await self.conn.fetch(
            f"SELECT {_TABLE_COLS} FROM lobby_tables WHERE status = ANY($1::text[]) "
            "AND ($2::text IS NULL OR game = $2) AND (NOT $3 OR NOT private) "
            "AND ($4::jsonb IS NULL OR options = $4::jsonb) "
            "ORDER BY created_at, table_id LIMIT $5 OFFSET $6",
            list(statuses),
            game,
            public_only,
            json.dumps(options) if options is not None else None,
            limit,
            offset,
        )
        return [_table(r) for r in rows]

    async def set_status(self, table_id: str, status: str, now: datetime, result: dict[str, Any] | None = None) -> None:
        await self.conn.execute(
            "UPDATE lobby_tables SET status = $2, "
            "started_at = CASE WHEN $2 = 'STARTING' THEN $3 ELSE started_at END, "
            "ended_at = CASE WHEN $2 IN ('FINISHED', 'CANCELLED') THEN $3 ELSE ended_at END, "
            "result = COALESCE($4::jsonb, result) WHERE table_id = $1",
            table_id,
            status,
            now,
            json.dumps(result) if result is not None else None,
        )

    async def set_creator(self, table_id: str, creator_id: str) -> None:
        await self.conn.execute("UPDATE lobby_tables SET creator_id = $2 WHERE table_id = $1", table_id, creator_id)

    async def seats(self, table_id: str) -> list[SeatRow]:
        rows = await self.conn.fetch(_SEAT_SELECT + "WHERE s.table_id = $1 ORDER BY s.seat", table_id)
        return [_seat(r) for r in rows]

    async def seats_of_tables(self, table_ids: Sequence[str]) -> dict[str, list[SeatRow]]:
        rows = await self.conn.fetch(
            _SEAT_SELECT + "WHERE s.table_id = ANY($1::text[]) ORDER BY s.table_id, s.seat", list(table_ids)
        )
        out: dict[str, list[SeatRow]] = {t: [] for t in table_ids}
        for r in rows:
            out[r["table_id"]].append(_seat(r))
        return out

    async def insert_seat(self, table_id: str, seat: int, player_id: str | None, device_id: str = "") -> None:
        """Raises ``UniqueTaken`` (naming the seat, player or device constraint); the unit goes on."""
        await self.insert_unique(
            "INSERT INTO lobby_seats (table_id, seat, player_id, device_id) VALUES ($1, $2, $3, $4)",
            table_id,
            seat,
            player_id,
            device_id,
        )

    async def delete_seats(self, table_id: str, player_ids: Sequence[str]) -> None:
        await self.conn.execute(
            "DELETE FROM lobby_seats WHERE table_id = $1 AND player_id = ANY($2::text[])", table_id, list(player_ids)
        )

    async def hold_stakes(self, table_id: str, stake: int) -> None:
        await self.conn.execute(
            "UPDATE lobby_seats SET stake_held = $2 WHERE table_id = $1 AND player_id IS NOT NULL", table_id, stake
        )

    async def mark_left(self, table_id: str, player_id: str, now: datetime) -> None:
        await self.conn.execute(
            "UPDATE lobby_seats SET left_at = $3 WHERE table_id = $1 AND player_id = $2", table_id, player_id, now
        )

    async def tables_of_player(self, player_id: str, statuses: Sequence[str], limit: int) -> list[TableRow]:
        """The tables in ``statuses`` where ``player_id`` holds a seat they have not left, newest
        first, at most ``limit`` (public and private alike: they are the player's own)."""
        rows = await self.conn.fetch(
            # From the player's seats (lobby_seats_player), not from every table in play.
            f"SELECT {_TABLE_COLS} FROM lobby_tables WHERE table_id IN (SELECT s.table_id FROM lobby_seats s "
            "WHERE s.player_id = $1 AND s.left_at IS NULL) AND status = ANY($2::text[]) "
            "ORDER BY created_at DESC, table_id LIMIT $3",
            player_id,
            list(statuses),
            limit,
        )
        return [_table(r) for r in rows]

    async def quick_candidates(self, game: str, options: dict[str, Any], limit: int) -> list[TableRow]:
        """Public tables waiting with exactly ``options``: those with the most people seated
        first (the closest to starting), then the oldest."""
        rows = await self.conn.fetch(
            f"SELECT {_TABLE_COLS} FROM lobby_tables t WHERE t.status = 'WAITING' AND NOT t.private "
            "AND t.game = $1 AND t.options = $2::jsonb ORDER BY (SELECT count(*) FROM lobby_seats s "
            "WHERE s.table_id = t.table_id AND s.player_id IS NOT NULL) DESC, t.created_at, t.table_id LIMIT $3",
            game,
            json.dumps(options),
            limit,
        )
        return [_table(r) for r in rows]

    async def waiting_tables_of(self, player_id: str) -> list[str]:
        rows = await self.conn.fetch(
            "SELECT t.table_id FROM lobby_seats s JOIN lobby_tables t ON t.table_id = s.table_id "
            "WHERE s.player_id = $1 AND t.status = 'WAITING' ORDER BY t.table_id",
            player_id,
        )
        return [r["table_id"] for r in rows]

    async def room_counts(self, games: Sequence[str], stakes: Sequence[int]) -> dict[tuple[str, int], RoomCount]:
        """The public tables waiting, starting or being played in the rooms ``games`` × ``stakes``,
        counted in one statement: per (game, stake), the people (seats with a player, not left)
        at tables being played or starting, the people at waiting tables, and the waiting tables.
        Bots are no people; private tables are not counted. The open tables are found by the
        index on (status, private, game, created_at); their seats by the seats' primary key."""
        rows = await self.conn.fetch(
            "SELECT t.game, t.stake, "
            "count(s.player_id) FILTER (WHERE t.status <> 'WAITING' AND s.left_at IS NULL) AS playing, "
            "count(s.player_id) FILTER (WHERE t.status = 'WAITING') AS waiting, "
            "count(DISTINCT t.table_id) FILTER (WHERE t.status = 'WAITING') AS tables_waiting "
            "FROM lobby_tables t LEFT JOIN lobby_seats s ON s.table_id = t.table_id AND s.player_id IS NOT NULL "
            "WHERE t.status = ANY(ARRAY['WAITING', 'STARTING', 'PLAYING']) AND NOT t.private "
            "AND t.game = ANY($1::text[]) AND t.stake = ANY($2::bigint[]) GROUP BY t.game, t.stake",
            list(games),
            list(stakes),
        )
        return {(r["game"], r["stake"]): RoomCount(r["playing"], r["waiting"], r["tables_waiting"]) for r in rows}

"""Tournaments' rows: the event log of each tournament (``lobby_tournament_events``, its one
truth) and a summary row per tournament (``lobby_tournaments``) that lists, locks and finds
them. The summary is written in the transaction that appends the events it follows."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .repository import Repository

__all__ = ["TournamentsRepo", "TournamentRow", "tournament_account"]


def tournament_account(tournament_id: str) -> str:
    """The ledger account that holds a tournament's entry fees until its prizes are paid."""
    return f"tournament:{tournament_id}"


@dataclass(frozen=True, slots=True)
class TournamentRow:
    tournament_id: str
    status: str
    version: int
    registered: int
    created_at: datetime
    starts_at: datetime | None
    started_at: datetime | None
    ended_at: datetime | None


_COLS = "tournament_id, status, version, registered, created_at, starts_at, started_at, ended_at"


def _row(r: Any) -> TournamentRow:
    return TournamentRow(
        r["tournament_id"],
        r["status"],
        r["version"],
        r["registered"],
        r["created_at"],
        r["starts_at"],
        r["started_at"],
        r["ended_at"],
    )


class TournamentsRepo(Repository):
    async def insert(
        self, tournament_id: str, name: str, event: dict[str, Any], starts_at: datetime | None, now: datetime
    ) -> bool:
        """A new tournament with its first event; False when the id is taken."""
        inserted = await self.conn.fetchval(
            "INSERT INTO lobby_tournaments (tournament_id, name, status, version, registered, created_at, starts_at) "
            "VALUES ($1, $2, 'REGISTERING', 1, 0, $3, $4) ON CONFLICT (tournament_id) DO NOTHING RETURNING 1",
            tournament_id,
            name,
            now,
            starts_at,
        )
        if not inserted:
            return False
        await self.conn.execute(
            "INSERT INTO lobby_tournament_events (tournament_id, version, kind, data, at) "
            "VALUES ($1, 1, $2, $3::jsonb, $4)",
            tournament_id,
            event["kind"],
            json.dumps(event),
            now,
        )
        return True

    async def row(self, tournament_id: str, lock: bool = False) -> TournamentRow | None:
        sql = f"SELECT {_COLS} FROM lobby_tournaments WHERE tournament_id = $1" + (" FOR UPDATE" if lock else "")
        r = await self.conn.fetchrow(sql, tournament_id)
        return _row(r) if r else None

    async def events(self, tournament_id: str, after: int = 0) -> list[dict[str, Any]]:
        rows = await self.conn.fetch(
            "SELECT data::text AS data FROM lobby_tournament_events WHERE tournament_id = $1 AND version > $2 "
            "ORDER BY version",
            tournament_id,
            after,
        )
        return [json.loads(r["data"]) for r in rows]

    async def append(
        self,
        tournament_id: str,
        version: int,
        events: Sequence[dict[str, Any]],
        status: str,
        registered: int,
        now: datetime,
    ) -> None:
        """``events`` after ``version`` (the tournament's row locked by the unit), and the summary."""
        if not events:
            return
        await self.conn.execute(
            "INSERT INTO lobby_tournament_events (tournament_id, version, kind, data, at) "
            "SELECT $1, v, k, d::jsonb, $5 FROM unnest($2::int[], $3::text[], $4::text[]) AS e(v, k, d)",
            tournament_id,
            list(range(version + 1, version + 1 + len(events))),
            [e["kind"] for e in events],
            [json.dumps(e) for e in events],
            now,
        )
        await self.conn.execute(
            "UPDATE lobby_tournaments SET version = $2, status = $3, registered = $4, "
            "ended_at = CASE WHEN $3 IN ('FINISHED', 'CANCELLED') THEN $5 ELSE ended_at END "
            "WHERE tournament_id = $1",
            tournament_id,
            version + len(events),
            status,
            registered,
            now,
        )

    async def listed(self, statuses: Sequence[str], limit: int) -> list[TournamentRow]:
        """Registering and running first (soonest first), then the newest ended."""
        rows = await self.conn.fetch(
            f"SELECT {_COLS} FROM lobby_tournaments WHERE status = ANY($1::text[]) "
            "ORDER BY status IN ('FINISHED', 'CANCELLED'), "
            "CASE WHEN status IN ('FINISHED', 'CANCELLED') THEN -extract(epoch FROM created_at) "
            "ELSE extract(epoch FROM coalesce(starts_at, created_at)) END, tournament_id LIMIT $2",
            list(statuses),
            limit,
        )
        return [_row(r) for r in rows]

    async def due(self, now: datetime, limit: int = 50) -> list[str]:
        """Scheduled tournaments still registering whose start time has come."""
        rows = await self.conn.fetch(
            "SELECT tournament_id FROM lobby_tournaments WHERE status = 'REGISTERING' AND starts_at <= $1 "
            "ORDER BY starts_at LIMIT $2",
            now,
            limit,
        )
        return [r["tournament_id"] for r in rows]

    async def mark_started(self, tournament_id: str, now: datetime) -> None:
        await self.conn.execute(
            "UPDATE lobby_tournaments SET started_at = $2 WHERE tournament_id = $1", tournament_id, now
        )

    async def names(self, player_ids: Sequence[str]) -> dict[str, str]:
        rows = await self.conn.fetch(
            "SELECT player_id, display_name FROM lobby_players WHERE player_id = ANY($1::text[])", list(player_ids)
        )
        return {r["player_id"]: r["display_name"] or "" for r in rows}

    async def starting_tables(self, creator: str = "") -> list[str]:
        """Tournament tables (of one creator, or of any tournament) still STARTING, oldest first."""
        rows = await self.conn.fetch(
            "SELECT table_id FROM lobby_tables WHERE status = 'STARTING' AND creator_id LIKE $1 "
            "ORDER BY started_at, table_id LIMIT 500",
            (creator or "tournament:") + ("" if creator else "%"),
        )
        return [r["table_id"] for r in rows]

    async def add_player(self, tournament_id: str, player_id: str, device_id: str) -> None:
        """Raises ``UniqueTaken`` when another account of the device is registered."""
        await self.insert_unique(
            "INSERT INTO lobby_tournament_players (tournament_id, player_id, device_id) VALUES ($1, $2, $3)",
            tournament_id,
            player_id,
            device_id,
        )

    async def drop_player(self, tournament_id: str, player_id: str) -> None:
        await self.conn.execute(
            "DELETE FROM lobby_tournament_players WHERE tournament_id = $1 AND player_id = $2",
            tournament_id,
            player_id,
        )

    async def open_entries_of(self, player_id: str) -> int:
        """Tournaments the player is registered in that are registering or running."""
        return int(
            await self.conn.fetchval(
                "SELECT count(*) FROM lobby_tournament_players p JOIN lobby_tournaments t USING (tournament_id) "
                "WHERE p.player_id = $1 AND t.status IN ('REGISTERING', 'RUNNING')",
                player_id,
            )
        )

    async def all_ids(self) -> list[str]:
        rows = await self.conn.fetch("SELECT tournament_id FROM lobby_tournaments ORDER BY created_at, tournament_id")
        return [r["tournament_id"] for r in rows]

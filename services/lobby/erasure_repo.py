"""What deleting an account does to the lobby's rows (issue 19.4): the names, contact data,
credentials, chat texts and report texts of the player go, and their friendships, friend
requests, blocks and notifications (sent and received); the rows others need (the ledger's
amounts, the seats and reports by opaque id) stay; ``lobby_erasures`` keeps what the other
services still have to forget."""

from __future__ import annotations

from datetime import datetime

from .repository import Repository

__all__ = ["ErasureRepo"]


class ErasureRepo(Repository):
    async def seated_in_play(self, player_id: str) -> int:
        """The tables where the player holds a seat that is waiting, starting or being played."""
        n = await self.conn.fetchval(
            "SELECT count(*) FROM lobby_seats s JOIN lobby_tables t USING (table_id) "
            "WHERE s.player_id = $1 AND s.left_at IS NULL AND t.status IN ('WAITING', 'STARTING', 'PLAYING')",
            player_id,
        )
        return int(n or 0)

    async def scrub(self, player_id: str, device_id: str, now: datetime) -> None:
        conn, p = self.conn, player_id
        await conn.execute(
            "UPDATE lobby_players SET display_name = '', name_key = 'deleted:' || player_id, device_id = '', "
            "deleted_at = $2, avatar = NULL WHERE player_id = $1",
            p,
            now,
        )
        for table in (
            "lobby_device_credentials",
            "lobby_sessions",
            "lobby_logins",
            "lobby_link_codes",
            "lobby_known_addresses",
        ):
            await conn.execute(f"DELETE FROM {table} WHERE player_id = $1", p)
        await conn.execute("DELETE FROM lobby_mutes WHERE player_id = $1 OR muted_id = $1", p)
        # friends, requests, blocks and notifications, as owner and as the other side
        await conn.execute("DELETE FROM lobby_friends WHERE player_a = $1 OR player_b = $1", p)
        await conn.execute("DELETE FROM lobby_friend_requests WHERE from_id = $1 OR to_id = $1", p)
        await conn.execute("DELETE FROM lobby_blocks WHERE player_id = $1 OR blocked_id = $1", p)
        await conn.execute("DELETE FROM lobby_notifications WHERE player_id = $1 OR from_id = $1", p)
        await conn.execute("UPDATE lobby_messages SET text = '', text_key = '', emote = NULL WHERE player_id = $1", p)
        await conn.execute("UPDATE lobby_reports SET details = '' WHERE reporter_id = $1", p)
        await conn.execute("UPDATE lobby_seats SET device_id = '' WHERE player_id = $1", p)
        if device_id:
            await conn.execute("DELETE FROM lobby_quotas WHERE holder = $1", device_id)
        await conn.execute(
            "INSERT INTO lobby_erasures (player_id, requested_at) VALUES ($1, $2) ON CONFLICT DO NOTHING", p, now
        )

    async def pending(self, limit: int = 100) -> list[str]:
        rows = await self.conn.fetch(
            "SELECT player_id FROM lobby_erasures WHERE scoring_done_at IS NULL ORDER BY requested_at LIMIT $1", limit
        )
        return [r["player_id"] for r in rows]

    async def scoring_done(self, player_id: str, now: datetime) -> None:
        await self.conn.execute("UPDATE lobby_erasures SET scoring_done_at = $2 WHERE player_id = $1", player_id, now)

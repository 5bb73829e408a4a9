"""Chat (``lobby_messages``: a table's channel, or the lobby's with channel "") and each player's
mutes of others (``lobby_mutes``); a list leaves out what the reader muted and what a block
(``lobby_blocks``, either way) hides. A message is a text or a quick emote (``emote``: the number of
okey.v1.Emote, its text ''); the reports' evidence and context are texts only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from .repository import Repository

__all__ = ["ChatRepo", "MessageRow"]


@dataclass(frozen=True, slots=True)
class MessageRow:
    message_id: int
    channel: str
    player_id: str
    display_name: str
    text: str
    sent_at: datetime
    emote: int = 0  # okey.v1.Emote's number; 0 for a text
    avatar: int | None = None  # the sender's picked okey.v1.Avatar number; None: the default


def _message(r: asyncpg.Record) -> MessageRow:
    return MessageRow(
        r["message_id"],
        r["channel"],
        r["player_id"],
        r["display_name"],
        r["text"],
        r["sent_at"],
        r["emote"] or 0,
        r["avatar"],
    )


_MESSAGE_SELECT = """
    SELECT m.message_id, m.channel, m.player_id, p.display_name, m.text, m.sent_at, m.emote, p.avatar
    FROM lobby_messages m JOIN lobby_players p ON p.player_id = m.player_id
"""


class ChatRepo(Repository):
    async def insert_message(self, channel: str, player_id: str, text: str, text_key: str, now: datetime) -> MessageRow:
        r = await self.conn.fetchrow(
            "WITH m AS (INSERT INTO lobby_messages (channel, player_id, text, text_key, sent_at) "
            "VALUES ($1, $2, $3, $4, $5) RETURNING *) "
            "SELECT m.message_id, m.channel, m.player_id, p.display_name, m.text, m.sent_at, m.emote, p.avatar "
            "FROM m JOIN lobby_players p ON p.player_id = m.player_id",
            channel,
            player_id,
            text,
            text_key,
            now,
        )
        return _message(r)

    async def insert_emote(self, channel: str, player_id: str, emote: int, now: datetime) -> MessageRow:
        r = await self.conn.fetchrow(
            "WITH m AS (INSERT INTO lobby_messages (channel, player_id, text, text_key, sent_at, emote) "
            "VALUES ($1, $2, '', '', $3, $4) RETURNING *) "
            "SELECT m.message_id, m.channel, m.player_id, p.display_name, m.text, m.sent_at, m.emote, p.avatar "
            "FROM m JOIN lobby_players p ON p.player_id = m.player_id",
            channel,
            player_id,
            now,
            emote,
        )
        return _message(r)

    async def recent_messages(self, player_id: str, since: datetime) -> list[tuple[str, datetime]]:
        """A player's texts since ``since`` (their keys and times): the text flood limits'."""
        rows = await self.conn.fetch(
            "SELECT text_key, sent_at FROM lobby_messages WHERE player_id = $1 AND sent_at > $2 AND emote IS NULL "
            "ORDER BY sent_at",
            player_id,
            since,
        )
        return [(r["text_key"], r["sent_at"]) for r in rows]

    async def recent_emotes(self, player_id: str, since: datetime) -> int:
        """How many emotes a player sent since ``since``: the emote limit's."""
        return int(
            await self.conn.fetchval(
                "SELECT count(*) FROM lobby_messages WHERE player_id = $1 AND sent_at > $2 AND emote IS NOT NULL",
                player_id,
                since,
            )
        )

    async def messages(self, channel: str, after_id: int, limit: int, viewer: str) -> list[MessageRow]:
        rows = await self.conn.fetch(
            _MESSAGE_SELECT + "WHERE m.channel = $1 AND m.message_id > $2 AND (m.text <> '' OR m.emote IS NOT NULL) "
            "AND NOT EXISTS ("
            "SELECT 1 FROM lobby_mutes u WHERE u.player_id = $4 AND u.muted_id = m.player_id) "
            # a block hides both ways (friends_repo): neither reads the other
            "AND NOT EXISTS (SELECT 1 FROM lobby_blocks b WHERE (b.player_id = $4 AND b.blocked_id = m.player_id) "
            "OR (b.player_id = m.player_id AND b.blocked_id = $4)) "
            "ORDER BY m.message_id LIMIT $3",
            channel,
            after_id,
            limit,
            viewer,
        )
        return [_message(r) for r in rows]

    async def messages_by_id(self, ids: Sequence[int]) -> list[MessageRow]:
        rows = await self.conn.fetch(
            _MESSAGE_SELECT + "WHERE m.message_id = ANY($1::bigint[]) AND m.emote IS NULL", list(ids)
        )
        return [_message(r) for r in rows]

    async def messages_around(self, channel: str, message_id: int, span: int) -> list[MessageRow]:
        rows = await self.conn.fetch(
            "(" + _MESSAGE_SELECT + "WHERE m.channel = $1 AND m.message_id <= $2 AND m.emote IS NULL "
            "ORDER BY m.message_id DESC LIMIT $3) UNION (" + _MESSAGE_SELECT + "WHERE m.channel = $1 "
            "AND m.message_id > $2 AND m.emote IS NULL ORDER BY m.message_id LIMIT $3) ORDER BY message_id",
            channel,
            message_id,
            span,
        )
        return [_message(r) for r in rows]

    async def latest_messages_of(self, player_id: str, limit: int) -> list[MessageRow]:
        rows = await self.conn.fetch(
            "SELECT * FROM (" + _MESSAGE_SELECT + "WHERE m.player_id = $1 AND m.emote IS NULL "
            "ORDER BY m.message_id DESC LIMIT $2) x "
            "ORDER BY message_id",
            player_id,
            limit,
        )
        return [_message(r) for r in rows]

    async def mute(self, player_id: str, muted_id: str, now: datetime) -> None:
        await self.conn.execute(
            "INSERT INTO lobby_mutes (player_id, muted_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            player_id,
            muted_id,
            now,
        )

    async def unmute(self, player_id: str, muted_id: str) -> None:
        await self.conn.execute("DELETE FROM lobby_mutes WHERE player_id = $1 AND muted_id = $2", player_id, muted_id)

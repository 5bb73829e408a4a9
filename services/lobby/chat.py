"""Chat under the house rules: a table's channel (its seated players read and write it) and the
lobby's; the text rules (moderation.py), mutes, flood and repeat limits; each player's own
mutes of others; and the quick emotes of a table (issue 44.6), which are messages of its chat."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from okey.v1.lobby_service_pb2 import Emote
from okeyplatform import metrics as M
from okeyplatform.auth import Identity, can
from okeyplatform.errors import AppError
from okeyplatform.logs import get_logger

from . import moderation
from .chat_repo import MessageRow
from .errors import Flood, Invalid, NotFound, Refused
from .players import active_player
from .policy import Limits, when
from .store import LobbyStore, Unit

__all__ = ["Chat", "EMOTES", "text_key"]

# The quick emotes: okey.v1.Emote is their one list (number -> name, UNSPECIFIED left out); the
# lobby stores the number, clients show the name's text.
EMOTES: dict[int, str] = {v.number: v.name for v in Emote.DESCRIPTOR.values if v.number != 0}


class Chat:
    def __init__(self, store: LobbyStore, clock: Callable[[], datetime], limits: Limits) -> None:
        self.store = store
        self.clock = clock
        self.limits = limits
        self.log = get_logger(component="lobby-chat")

    async def send_message(self, who: Identity, table_id: str, text: str) -> MessageRow:
        """Post to a table's chat (seated players) or the lobby's, under the house rules."""
        try:
            row = await self._send_message(who, table_id, text)
        except AppError as err:
            M.CHAT_MESSAGES.labels("blocked").inc()
            M.CHAT_BLOCKED.labels(err.reason).inc()
            raise
        M.CHAT_MESSAGES.labels("sent").inc()
        return row

    async def _send_message(self, who: Identity, table_id: str, text: str) -> MessageRow:
        text = " ".join(text.split())
        if not text:
            raise Invalid("the message is empty", "EMPTY_MESSAGE")
        if len(text) > self.limits.message_max:
            raise Invalid(
                f"Mesaj en çok {self.limits.message_max} karakter. (At most {self.limits.message_max} characters.)",
                "MESSAGE_TOO_LONG",
            )
        verdict = moderation.check_message(text)
        if verdict is not None:
            self.log.info("message_blocked", player_id=who.subject, reason=verdict.reason, table_id=table_id)
            raise Refused(verdict.message, verdict.reason)
        now = self.clock()
        async with self.store.unit() as uow:
            player = await active_player(uow, who, now, lock=True)  # one send at a time per player
            _not_muted(player.muted_until, now)
            if table_id:
                await self._seated_at(uow, table_id, who)
            recent = await uow.chat.recent_messages(
                who.subject, now - max(self.limits.flood_window, self.limits.repeat_window)
            )
            if sum(1 for _, t in recent if t > now - self.limits.flood_window) >= self.limits.flood_max:
                raise Flood("Çok hızlı yazıyorsun; biraz bekle. (Too many messages: wait a moment.)", "FLOOD")
            key = text_key(text)
            repeats = sum(1 for k, t in recent if k == key and t > now - self.limits.repeat_window)
            if repeats >= self.limits.repeat_max:
                raise Flood("Aynı mesajı tekrar tekrar yazma. (Do not repeat the same message.)", "FLOOD")
            return await uow.chat.insert_message(table_id, who.subject, text, key, now)

    async def send_emote(self, who: Identity, table_id: str, emote: int) -> MessageRow:
        """A quick emote at a table the caller sits at (staff: any table), into its chat: no free
        text, so no text rule, but the sanctions, the seat and a limit of its own."""
        if emote not in EMOTES:
            raise Invalid(f"no emote {emote}: one of okey.v1.Emote", "UNKNOWN_EMOTE")
        if not table_id:
            raise Invalid("an emote is sent at a table: table_id", "INVALID_ARGUMENT")
        now = self.clock()
        async with self.store.unit() as uow:
            player = await active_player(uow, who, now, lock=True)  # one send at a time per player
            _not_muted(player.muted_until, now)
            await self._seated_at(uow, table_id, who)
            if await uow.chat.recent_emotes(who.subject, now - self.limits.emote_window) >= self.limits.emote_max:
                raise Flood("Çok sık ifade gönderiyorsun; biraz bekle. (Too many emotes: wait a moment.)", "FLOOD")
            return await uow.chat.insert_emote(table_id, who.subject, emote, now)

    async def _seated_at(self, uow: Unit, table_id: str, who: Identity) -> None:
        if can(who, "tables.inspect"):
            if await uow.tables.table(table_id) is None:
                raise NotFound("no such table", "TABLE_NOT_FOUND")
            return
        seats = await uow.tables.seats(table_id)
        if not any(s.player_id == who.subject for s in seats):
            raise Refused("only the players at a table read and write its chat", "NOT_SEATED")

    async def list_messages(self, who: Identity, table_id: str, after_id: int, limit: int) -> list[MessageRow]:
        async with self.store.unit() as uow:
            if table_id:
                await self._seated_at(uow, table_id, who)
            return await uow.chat.messages(table_id, after_id, max(1, min(limit or 50, 200)), who.subject)

    async def mute(self, who: Identity, player_id: str, muted: bool) -> None:
        if player_id == who.subject:
            raise Invalid("you cannot mute yourself", "INVALID_ARGUMENT")
        async with self.store.unit() as uow:
            await uow.players.known(who.subject)
            if await uow.players.player(player_id) is None:
                raise NotFound(f"no player {player_id!r}", "PLAYER_NOT_FOUND")
            if muted:
                await uow.chat.mute(who.subject, player_id, self.clock())
            else:
                await uow.chat.unmute(who.subject, player_id)


def _not_muted(muted_until: datetime | None, now: datetime) -> None:
    """A player muted by staff sends neither texts nor emotes (MUTED)."""
    if muted_until is not None and muted_until > now:
        raise Refused(f"Sohbetin {when(muted_until)} tarihine kadar kapalı. (You are muted until then.)", "MUTED")


def text_key(text: str) -> str:
    """Two messages are the same for the flood rule when they read the same."""
    return re.sub(r"[\W_]+", "", moderation.fold(moderation.turkish_lower(text)))

"""Deleting an account (issue 19.4, KVKK and GDPR's right to erasure) in a log that never
changes: the event log names players only by opaque id, so what identifies a person lives in
the lobby and goes. The player's row stays as a tombstone with no name and no device; the
device credentials, sessions, linked e-mail and password, link codes, mutes, friends, friend
requests, blocks, notifications (the player's and those they sent) and daily quotas of the
device go; the player's chat messages and the texts of their reports are emptied (the
rows stay, so moderation history keeps its shape); every token ends. The ledger keeps its
amounts (chips are money-like records: their entries name the opaque account) and the seats
and match results keep the opaque id. The scoring service drops the player's stats and
leaderboard rows: ``lobby_erasures`` remembers each deletion until scoring has confirmed it,
and the lobby's timers ask again until it does."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from okeyplatform.auth import Identity
from okeyplatform.logs import get_logger

from . import moderation
from .errors import Invalid, NotFound, Refused
from .players import Players
from .store import LobbyStore

__all__ = ["Erasure", "PlayerForgetter"]


class PlayerForgetter(Protocol):
    """Another service that keeps something of a player by id (scoring's stats)."""

    async def forget(self, player_id: str) -> None: ...


class Erasure:
    def __init__(
        self,
        store: LobbyStore,
        players: Players,
        clock: Callable[[], datetime],
        forgetter: PlayerForgetter | None = None,
    ) -> None:
        self.store = store
        self.players = players
        self.clock = clock
        self.forgetter = forgetter
        self.log = get_logger(component="lobby-erasure")

    async def delete_account(self, who: Identity, confirm_name: str) -> None:
        """Delete the caller's account for good. ``confirm_name``: the account's name as shown,
        typed again (INVALID_ARGUMENT CONFIRM_MISMATCH otherwise); a seat at a table that waits
        or plays must be left first (FAILED_PRECONDITION LEAVE_TABLES_FIRST). Needs a recent proof
        (FAILED_PRECONDITION REAUTH_REQUIRED): a stolen token deletes nobody."""
        self.players.recent_proof(who)
        now = self.clock()
        async with self.store.unit() as uow:
            player = await uow.players.player(who.subject, lock=True)
            if player is None or not player.display_name:
                raise NotFound("no such account", "PLAYER_NOT_FOUND")
            if moderation.name_key(confirm_name.strip()) != moderation.name_key(player.display_name):
                raise Invalid(
                    "Onay için hesabının adını aynen yaz. (Type your account's name to confirm.)", "CONFIRM_MISMATCH"
                )
            if await uow.erasure.seated_in_play(who.subject):
                raise Refused(
                    "Önce oturduğun masalardan kalk. (Leave the tables you sit at first.)", "LEAVE_TABLES_FIRST"
                )
            before = await self.players.revoke(uow, who.subject, now)
            await uow.erasure.scrub(who.subject, player.device_id, now)
            await uow.staff.drop_role(who.subject)  # a deleted account is nobody's staff
        await self.players.revoked(who.subject, before)
        self.log.info("account_deleted", player_id=who.subject)
        await self.forget_elsewhere()

    async def forget_elsewhere(self) -> int:
        """Ask the other services to forget the deleted players they may still hold; returns how
        many confirmed (the rest are asked again at the next turn of the lobby's timers)."""
        if self.forgetter is None:
            return 0
        async with self.store.unit() as uow:
            pending = await uow.erasure.pending()
        done = 0
        for player_id in pending:
            try:
                await self.forgetter.forget(player_id)
            except Exception as exc:  # scoring away: the next turn asks again
                self.log.warning("forget_elsewhere_failed", player_id=player_id, error=repr(exc))
                break
            async with self.store.unit() as uow:
                await uow.erasure.scoring_done(player_id, self.clock())
            done += 1
        return done

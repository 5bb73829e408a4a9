"""Reports and bans: a player reports another (with the messages in question), a moderator reads
the reports with their chat context and resolves them: dismiss, warn, mute for a time or ban; or
bans and unbans a player directly. A ban reaches every service (the player's tokens are revoked)
and frees the seats the player holds at tables still waiting, in the ban's own unit of work, as
does its line in the staff audit log.

Issue 39: every action against a player here needs a rank above theirs (staff.outrank: only an
admin sanctions a moderator, only the operator an admin; refusals are audited). A player files
at most ``Limits.reports_per_day`` reports a Turkish day (TOO_MANY_REPORTS), and the queue is
read in pages, most severe first (:data:`REPORT_SEVERITY`), then by how many players reported
the same player, then newest, so no one reporter's flood pushes the others' reports away."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from okeyplatform.auth import Identity
from okeyplatform.logs import get_logger

from .chat_repo import MessageRow
from .errors import Flood, Invalid, NotFound, Refused
from .players import Players
from .policy import FOREVER, Limits, grant_day, next_day_start, when
from .reports_repo import QueueKey, ReportRow
from .staff import audit, need_reason, outrank, refusals_audited, require
from .store import LobbyStore, Unit
from .tables import WAITING, Tables

__all__ = ["Reports", "REPORT_REASONS", "REPORT_ACTIONS", "REPORT_SEVERITY", "PAGE_MAX", "ReportPage"]

REPORT_REASONS = ("ABUSE", "PERSONAL_INFO", "ADVERTISING", "COLLUSION", "STALLING", "OTHER")
REPORT_ACTIONS = ("DISMISS", "WARN", "MUTE", "BAN")
# The queue's first order: a player's safety (their address or phone shown; threats, abuse),
# then the chips (collusion), then nuisance. Migration 11 wrote the same into existing rows.
REPORT_SEVERITY = {"PERSONAL_INFO": 5, "ABUSE": 4, "COLLUSION": 3, "ADVERTISING": 2, "STALLING": 1, "OTHER": 1}
PAGE_DEFAULT, PAGE_MAX = 50, 200
REPORTS_QUOTA = "reports:player"  # lobby_quotas kind: a reporter's reports of the day

ReportPage = tuple[list[tuple[ReportRow, list[MessageRow], int]], str]


def _page_token(key: QueueKey) -> str:
    text = f"{int(key.open)}.{key.severity}.{key.reporters}.{key.report_id}"
    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()


def _page_key(token: str) -> QueueKey | None:
    if not token:
        return None
    try:
        parts = [int(p) for p in base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode().split(".")]
    except (binascii.Error, UnicodeDecodeError, ValueError):
        parts = []
    if len(parts) != 4 or parts[0] not in (0, 1):
        raise Invalid("page_token: not one ListReports gave", "INVALID_ARGUMENT")
    return QueueKey(bool(parts[0]), parts[1], parts[2], parts[3])


class Reports:
    def __init__(
        self, store: LobbyStore, players: Players, tables: Tables, clock: Callable[[], datetime], limits: Limits
    ) -> None:
        self.store = store
        self.players = players
        self.tables = tables
        self.clock = clock
        self.limits = limits
        self.log = get_logger(component="lobby-reports")

    async def report(
        self, who: Identity, player_id: str, reason: str, details: str, message_ids: Sequence[int], table_id: str
    ) -> int:
        if player_id == who.subject:
            raise Invalid("you cannot report yourself", "INVALID_ARGUMENT")
        if reason not in REPORT_REASONS:
            raise Invalid(f"reason must be one of {', '.join(REPORT_REASONS)}", "INVALID_ARGUMENT")
        if len(details) > self.limits.details_max:
            raise Invalid(f"details: at most {self.limits.details_max} characters", "INVALID_ARGUMENT")
        if len(message_ids) > 20:
            raise Invalid("at most 20 message ids", "INVALID_ARGUMENT")
        now = self.clock()
        async with self.store.unit() as uow:
            await uow.players.known(who.subject)
            # Locked: reports on one player are counted in turn (reports_repo.recount).
            if await uow.players.player(player_id, lock=True) is None:
                raise NotFound(f"no player {player_id!r}", "PLAYER_NOT_FOUND")
            found = {m.message_id: m for m in await uow.chat.messages_by_id(sorted(set(message_ids)))}
            for mid in message_ids:
                if mid not in found or found[mid].player_id != player_id:
                    raise Invalid(f"message {mid} is not a message of that player", "INVALID_ARGUMENT")
            if await uow.reports.open_report_exists(who.subject, player_id):
                raise Refused("your earlier report on this player is still open", "ALREADY_REPORTED")
            cap = self.limits.reports_per_day
            if cap > 0 and await uow.players.take_quotas(grant_day(now), [(REPORTS_QUOTA, who.subject, cap)]):
                raise Flood(
                    f"Bugün en çok {cap} şikâyet gönderebilirsin; {when(next_day_start(now))} sonra yine. "
                    f"(At most {cap} reports a day.)",
                    "TOO_MANY_REPORTS",
                )
            report_id = await uow.reports.insert_report(
                who.subject,
                player_id,
                reason,
                details.strip(),
                sorted(set(message_ids)),
                table_id,
                now,
                REPORT_SEVERITY[reason],
            )
        self.log.info("player_reported", report_id=report_id, reason=reason)
        return report_id

    async def reports(
        self, who: Identity, include_resolved: bool, limit: int
    ) -> list[tuple[ReportRow, list[MessageRow], int]]:
        """The first page of the queue (:meth:`report_page`)."""
        return (await self.report_page(who, include_resolved, limit, ""))[0]

    async def report_page(self, who: Identity, include_resolved: bool, page_size: int, page_token: str) -> ReportPage:
        """A page of reports with their chat context: each reported message with the three
        before and after it, or the player's ten latest messages; and how often the player was
        reported before. Open first, then most severe, then most players reporting the same
        player, then newest; the page after this one from the token returned ("" at the end).
        Every report whose place does not change while the pages are read is on exactly one."""
        require(who, "reports.read")
        after = _page_key(page_token)
        size = max(1, min(page_size or PAGE_DEFAULT, PAGE_MAX))
        async with self.store.unit() as uow:
            rows = await uow.reports.reports(include_resolved, size + 1, after)
            out = [await self._with_context(uow, r) for r in rows[:size]]
        return out, (_page_token(rows[size - 1].key) if len(rows) > size else "")

    async def _with_context(self, uow: Unit, r: ReportRow) -> tuple[ReportRow, list[MessageRow], int]:
        context: dict[int, MessageRow] = {}
        if r.message_ids:
            for m in await uow.chat.messages_by_id(r.message_ids):
                for c in await uow.chat.messages_around(m.channel, m.message_id, 4):
                    context[c.message_id] = c
        else:
            context = {m.message_id: m for m in await uow.chat.latest_messages_of(r.player_id, 10)}
        earlier = await uow.reports.earlier_reports(r.player_id, r.report_id)
        return r, [context[k] for k in sorted(context)], earlier

    async def resolve_report(
        self, who: Identity, report_id: int, action: str, minutes: int, note: str
    ) -> tuple[ReportRow, list[MessageRow], int]:
        """Dismiss, warn, mute for a time or ban (0 minutes: for good). A ban also bans the
        player's device and frees the seats they hold at tables still waiting. A report against
        staff is resolved only by staff of a higher rank (OUTRANKED, audited), dismissed or not.
        Returns the report as resolved: it alone is read again, whatever the queue's size."""
        require(who, "reports.resolve")
        if action not in REPORT_ACTIONS:
            raise Invalid(f"action must be one of {', '.join(REPORT_ACTIONS)}", "INVALID_ARGUMENT")
        if action == "MUTE" and not 1 <= minutes <= self.limits.mute_max_minutes:
            raise Invalid(f"a mute lasts 1 to {self.limits.mute_max_minutes} minutes", "INVALID_ARGUMENT")
        if action == "BAN" and not 0 <= minutes <= self.limits.ban_max_minutes:
            raise Invalid(f"a ban lasts 0 (for good) to {self.limits.ban_max_minutes} minutes", "INVALID_ARGUMENT")
        now = self.clock()
        why = note.strip()[:500]
        async with refusals_audited(self.store, who, self.clock), self.store.unit() as uow:
            report = await uow.reports.report(report_id, lock=True)
            if report is None:
                raise NotFound(f"no report {report_id}", "REPORT_NOT_FOUND")
            if report.status != "OPEN":
                raise Refused("this report was already resolved", "ALREADY_RESOLVED")
            await outrank(uow, who, report.player_id, action, why, report_id=report_id, minutes=minutes)
            await uow.players.player(report.player_id, lock=True)  # its open reports are counted again
            if action == "WARN":
                await uow.reports.sanction(report.player_id, warn=True)
            elif action == "MUTE":
                await uow.reports.sanction(report.player_id, muted_until=now + timedelta(minutes=minutes))
            elif action == "BAN":
                _, revoked = await self._ban(uow, report.player_id, minutes, now)
            await uow.reports.resolve_report(report_id, action, minutes, why, who.subject, now)
            await audit(uow, who, action, report.player_id, why, now, report_id=report_id, minutes=minutes)
            resolved = await uow.reports.report(report_id)
            assert resolved is not None
            out = await self._with_context(uow, resolved)
        if action == "BAN":
            await self.players.revoked(report.player_id, revoked)
        self.log.info("report_resolved", report_id=report_id, action=action, minutes=minutes)
        return out

    async def _ban(self, uow: Unit, player_id: str, minutes: int, now: datetime) -> tuple[datetime, float]:
        """Ban the player and their device for ``minutes`` (0: for good), end every session and
        token and the live link code at every service (nothing signs in while the ban lasts; the
        device credentials stay, so an unban, an upheld appeal, gives the owner the account
        back), and free the seats they hold at tables still waiting; returns the ban's end and
        the revocation to publish once the unit commits."""
        until = now + timedelta(minutes=minutes) if minutes else FOREVER
        await uow.reports.sanction(player_id, banned_until=until)
        revoked = await self.players.end_everything(uow, player_id, now, keep_devices=True)
        player = await uow.players.player(player_id)
        if player is not None and player.device_id:
            await uow.reports.ban_device(player.device_id, until)
        for table_id in await uow.tables.waiting_tables_of(player_id):
            table = await uow.tables.table(table_id, lock=True)
            if table is not None and table.status == WAITING:
                await self.tables.unseat_waiting(uow, table, await uow.tables.seats(table_id), player_id, now)
        return until, revoked

    async def ban(self, who: Identity, player_id: str, minutes: int, reason: str) -> datetime:
        """Ban a player (and their device) without a report, for ``minutes`` (0: for good)."""
        require(who, "players.sanction")
        why = need_reason(reason)
        if not 0 <= minutes <= self.limits.ban_max_minutes:
            raise Invalid(f"a ban lasts 0 (for good) to {self.limits.ban_max_minutes} minutes", "INVALID_ARGUMENT")
        if player_id == who.subject:
            raise Invalid("you cannot ban yourself", "INVALID_ARGUMENT")
        now = self.clock()
        async with refusals_audited(self.store, who, self.clock), self.store.unit() as uow:
            player = await uow.players.player(player_id, lock=True)
            if player is None or not player.display_name:
                raise NotFound(f"no player {player_id!r}", "PLAYER_NOT_FOUND")
            await outrank(uow, who, player_id, "BAN", why, minutes=minutes)
            until, revoked = await self._ban(uow, player_id, minutes, now)
            await audit(uow, who, "BAN", player_id, why, now, minutes=minutes)
        await self.players.revoked(player_id, revoked)
        self.log.info("player_banned", player_id=player_id, minutes=minutes)
        return until

    async def unban(self, who: Identity, player_id: str, reason: str) -> None:
        """Lift the player's ban and their device's: they may sign in and sit again."""
        require(who, "players.sanction")
        why = need_reason(reason)
        now = self.clock()
        async with refusals_audited(self.store, who, self.clock), self.store.unit() as uow:
            player = await uow.players.player(player_id, lock=True)
            if player is None or not player.display_name:
                raise NotFound(f"no player {player_id!r}", "PLAYER_NOT_FOUND")
            await outrank(uow, who, player_id, "UNBAN", why)
            device_until = await uow.reports.device_banned_until(player.device_id)
            banned = any(u is not None and u > now for u in (player.banned_until, device_until))
            if not banned:
                raise Refused(f"{player_id} is not banned", "NOT_BANNED")
            await uow.reports.unban(player_id, player.device_id)
            await audit(uow, who, "UNBAN", player_id, why, now)
        self.log.info("player_unbanned", player_id=player_id)

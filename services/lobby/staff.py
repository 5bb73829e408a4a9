"""Staff: who may do what (:func:`require`, over ``okeyplatform.auth.can``: the one place that
says what a moderator and an admin may), staff roles given and taken away, chips adjusted by an
admin, and the audit log every staff action writes in its own unit of work.

A role is the lobby's (``lobby_staff``); sign-in and refresh put it in the player's token. Taking
it away (or lowering it) revokes the player's tokens at every service, so a token that still says
"moderator" is refused at once, within its lifetime; the player's sessions go on, and their next
refresh carries the role the store gives them then."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import datetime
from typing import Any

from okeyplatform.auth import PERMISSIONS, STAFF_ROLES, Identity, can
from okeyplatform.logs import get_logger

from .errors import Forbidden, InsufficientChips, Invalid, NotFound, Refused
from .ledger_repo import BANK, player_account
from .players import Players
from .staff_repo import AuditRow, StaffRow
from .store import LobbyStore, Unit

__all__ = ["Staff", "require", "need_reason", "audit", "AUDIT_ACTIONS", "REASON_MAX", "CHIPS_ADJUST_MAX"]

AUDIT_ACTIONS = ("GRANT_ROLE", "REVOKE_ROLE", "DISMISS", "WARN", "MUTE", "BAN", "UNBAN", "ADJUST_CHIPS")
REASON_MAX = 500
CHIPS_ADJUST_MAX = 100_000_000  # one adjustment, either way


def require(who: Identity, action: str) -> None:
    """PERMISSION_DENIED unless the caller's role may do ``action`` (okeyplatform.auth.PERMISSIONS):
    ADMIN_ONLY for what only an admin may, STAFF_ONLY for the rest."""
    if can(who, action):
        return
    if action in PERMISSIONS["moderator"]:
        raise Forbidden("Bunu yalnız görevliler yapabilir. (Only the staff may do this.)", "STAFF_ONLY")
    raise Forbidden("Bunu yalnız yöneticiler yapabilir. (Only an admin may do this.)", "ADMIN_ONLY")


def need_reason(reason: str) -> str:
    """The reason of a staff action, trimmed: required, at most REASON_MAX characters."""
    text = " ".join(reason.split())
    if not text:
        raise Invalid("a staff action needs a reason (it is kept in the audit log)", "REASON_REQUIRED")
    if len(text) > REASON_MAX:
        raise Invalid(f"reason: at most {REASON_MAX} characters", "INVALID_ARGUMENT")
    return text


async def audit(
    uow: Unit, who: Identity, action: str, target_id: str, reason: str, now: datetime, **detail: Any
) -> int:
    """Write one staff action to the audit log, in the action's own unit of work."""
    if action not in AUDIT_ACTIONS:
        raise ValueError(f"unknown audit action {action!r}")
    return await uow.staff.audit(who.subject, who.role, action, target_id, reason, now, detail)


_RANK = {"": 0, **{r: i + 1 for i, r in enumerate(STAFF_ROLES)}}  # moderator < admin


class Staff:
    def __init__(self, store: LobbyStore, players: Players, clock: Callable[[], datetime]) -> None:
        self.store = store
        self.players = players
        self.clock = clock
        self.log = get_logger(component="lobby-staff")

    async def _target(self, uow: Unit, player_id: str) -> None:
        player = await uow.players.player(player_id) if player_id else None
        if player is None or not player.display_name:
            raise NotFound(f"no player {player_id!r}", "PLAYER_NOT_FOUND")

    async def grant_role(self, who: Identity, player_id: str, role: str, reason: str) -> str:
        """Make the player a moderator or an admin (their next sign-in or refresh carries it);
        returns the role they had. Lowering an admin to moderator revokes their tokens, as
        :meth:`revoke_role` does."""
        require(who, "roles.grant")
        if role not in STAFF_ROLES:
            raise Invalid(f"role must be one of {', '.join(STAFF_ROLES)}", "INVALID_ARGUMENT")
        why = " ".join(reason.split())[:REASON_MAX]
        now = self.clock()
        revoked: float | None = None
        async with self.store.unit() as uow:
            await self._target(uow, player_id)
            before = await uow.staff.set_role(player_id, role, who.subject, now)
            if _RANK[before] > _RANK[role]:
                revoked = await self.players.revoke(uow, player_id, now, sessions=False)
            await audit(uow, who, "GRANT_ROLE", player_id, why, now, role=role, before=before)
        if revoked is not None:
            await self.players.revoked(player_id, revoked)
        self.log.info("staff_role_granted", player_id=player_id, role=role)
        return before

    async def revoke_role(self, who: Identity, player_id: str, reason: str) -> str:
        """Take the player's staff role away; every token of theirs issued so far is refused at
        every service from now on (their sessions go on: a refresh gives a player's token)."""
        require(who, "roles.grant")
        why = " ".join(reason.split())[:REASON_MAX]
        now = self.clock()
        async with self.store.unit() as uow:
            await self._target(uow, player_id)
            role = await uow.staff.drop_role(player_id)
            if not role:
                raise Refused(f"{player_id} has no staff role", "NOT_STAFF")
            revoked = await self.players.revoke(uow, player_id, now, sessions=False)
            await audit(uow, who, "REVOKE_ROLE", player_id, why, now, role=role)
        await self.players.revoked(player_id, revoked)
        self.log.info("staff_role_revoked", player_id=player_id, role=role)
        return role

    async def staff(self, who: Identity) -> list[StaffRow]:
        require(who, "roles.grant")
        async with self.store.unit() as uow:
            return await uow.staff.staff()

    async def adjust_chips(self, who: Identity, player_id: str, amount: int, reason: str) -> int:
        """Chips from the bank to the player (or back, ``amount`` < 0) as one ledger posting,
        never a balance edited; returns the player's balance after it."""
        require(who, "chips.adjust")
        why = need_reason(reason)
        if amount == 0 or abs(amount) > CHIPS_ADJUST_MAX:
            raise Invalid(f"amount: not 0, at most {CHIPS_ADJUST_MAX} either way", "INVALID_ARGUMENT")
        now = self.clock()
        account = player_account(player_id)
        async with self.store.unit() as uow:
            await self._target(uow, player_id)
            key = f"adjust:{player_id}:{secrets.token_hex(8)}"
            memo = {"reason": why, "by": who.subject}
            try:
                await uow.ledger.post(key, "adjustment", [(BANK, -amount), (account, amount)], now, memo=memo)
            except InsufficientChips as exc:
                raise Refused(
                    f"{player_id} has {exc.balance} chips: at most that can be taken back", "INSUFFICIENT_CHIPS"
                ) from None
            await audit(uow, who, "ADJUST_CHIPS", player_id, why, now, amount=amount, txn=key)
            balance = (await uow.ledger.balances([account]))[account]
        self.log.info("chips_adjusted", player_id=player_id, amount=amount)
        return balance

    async def audit_log(self, who: Identity, limit: int, target_id: str = "") -> list[AuditRow]:
        require(who, "audit.read")
        async with self.store.unit() as uow:
            return await uow.staff.audit_log(max(1, min(limit or 50, 500)), target_id)

"""Staff: who may do what (:func:`require`, over ``okeyplatform.auth.can``: the one place that
says what a moderator and an admin may), staff roles given and taken away, chips adjusted by an
admin, and the audit log every staff action writes in its own unit of work.

A role is the lobby's (``lobby_staff``); sign-in and refresh put it in the player's token. Taking
it away (or lowering it) revokes the player's tokens at every service, so a token that still says
"moderator" is refused at once, within its lifetime; the player's sessions go on, and their next
refresh carries the role the store gives them then.

Rank (issue 39.5): player < moderator < admin < operator. The operator is whoever holds the token
secret: an admin token whose subject starts with ``cli:``, which only ``okey admin`` mints (the
lobby never gives a player such a subject: player ids are ``p-...``, and sign-in puts in a token
only the role ``lobby_staff`` gives the player). A staff action against a player (a ban, an
unban, a report resolved, a role granted or taken away) needs a rank above the target's staff
role as the store gives it; a role granted needs a rank above that role too (only the operator
makes, demotes or removes an admin). A refusal is PERMISSION_DENIED ``OUTRANKED``, written to
the audit log (action ``REFUSED``) in a unit of its own, so it stays when the action does not."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

from okeyplatform.auth import PERMISSIONS, STAFF_ROLES, Identity, can
from okeyplatform.logs import get_logger

from .errors import Forbidden, InsufficientChips, Invalid, NotFound, Refused
from .ledger_repo import BANK, player_account
from .players import Players
from .staff_repo import AuditRow, StaffRow
from .store import LobbyStore, Unit

__all__ = [
    "Staff",
    "require",
    "need_reason",
    "audit",
    "AUDIT_ACTIONS",
    "REASON_MAX",
    "CHIPS_ADJUST_MAX",
    "OPERATOR",
    "OPERATOR_PREFIX",
    "Outranked",
    "rank",
    "outrank",
    "refusals_audited",
]

AUDIT_ACTIONS = (
    "GRANT_ROLE",
    "REVOKE_ROLE",
    "DISMISS",
    "WARN",
    "MUTE",
    "BAN",
    "UNBAN",
    "ADJUST_CHIPS",
    "CREATE_TOURNAMENT",
    "CANCEL_TOURNAMENT",
    "REFUSED",  # a staff action refused for rank (OUTRANKED): who tried what on whom
)
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


OPERATOR = "operator"  # the holder of the token secret: above every admin (never a stored role)
OPERATOR_PREFIX = "cli:"  # the subject of the tokens `okey admin` signs with the secret
_RANK = {"": 0, **{r: i + 1 for i, r in enumerate(STAFF_ROLES)}, OPERATOR: len(STAFF_ROLES) + 1}


def rank(who: Identity) -> int:
    """The caller's rank by its token: 0 a player (or a service), then moderator, admin, and the
    operator (an admin token with a ``cli:`` subject: only the token secret's holder signs one)."""
    if who.role == "admin" and who.subject.startswith(OPERATOR_PREFIX):
        return _RANK[OPERATOR]
    return _RANK[who.role] if who.role in STAFF_ROLES else 0


class Outranked(Forbidden):
    """A staff action against staff of the caller's rank or above (PERMISSION_DENIED OUTRANKED)."""

    default_reason = "OUTRANKED"

    def __init__(self, *, target_id: str, target_role: str, attempted: str, why: str, detail: dict[str, Any]) -> None:
        super().__init__(
            "Bu görevli senin yetkinle işlem göremez. "
            "(Only staff of a higher rank may do this to a moderator or an admin.)",
            "OUTRANKED",
        )
        self.target_id = target_id
        self.target_role = target_role
        self.attempted = attempted
        self.why = why
        self.detail = detail


async def outrank(
    uow: Unit, who: Identity, target_id: str, attempted: str, why: str = "", role: str = "", **detail: Any
) -> str:
    """Refuse (:class:`Outranked`) unless the caller's rank is above the target's staff role
    (the store's, read in ``uow``) and above ``role`` (the role a grant gives). Returns the
    target's role ("" for a player)."""
    target_role = await uow.staff.role(target_id)
    need = max(_RANK.get(target_role, 0), _RANK.get(role, 0))
    if rank(who) > need:
        return target_role
    raise Outranked(
        target_id=target_id,
        target_role=target_role,
        attempted=attempted,
        why=why,
        detail={**({"role": role} if role else {}), **detail},
    )


@asynccontextmanager
async def refusals_audited(store: LobbyStore, who: Identity, clock: Callable[[], datetime]) -> AsyncIterator[None]:
    """Around a staff action's unit of work: an :class:`Outranked` refusal rolls the action
    back, then is written to the audit log in a unit of its own, and raised on."""
    try:
        yield
    except Outranked as exc:
        async with store.unit() as uow:
            await audit(
                uow,
                who,
                "REFUSED",
                exc.target_id,
                exc.why,
                clock(),
                attempted=exc.attempted,
                target_role=exc.target_role,
                refusal="OUTRANKED",
                **exc.detail,
            )
        raise


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
        async with refusals_audited(self.store, who, self.clock), self.store.unit() as uow:
            await self._target(uow, player_id)
            await outrank(uow, who, player_id, "GRANT_ROLE", why, role=role)
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
        async with refusals_audited(self.store, who, self.clock), self.store.unit() as uow:
            await self._target(uow, player_id)
            await outrank(uow, who, player_id, "REVOKE_ROLE", why)
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
        never a balance edited; returns the player's balance after it. Staff of the caller's
        rank or above (the caller included) are out of reach: an admin moves no admin's chips,
        nor their own; only the operator does (refusals audited)."""
        require(who, "chips.adjust")
        why = need_reason(reason)
        if amount == 0 or abs(amount) > CHIPS_ADJUST_MAX:
            raise Invalid(f"amount: not 0, at most {CHIPS_ADJUST_MAX} either way", "INVALID_ARGUMENT")
        now = self.clock()
        account = player_account(player_id)
        async with refusals_audited(self.store, who, self.clock), self.store.unit() as uow:
            await self._target(uow, player_id)
            await outrank(uow, who, player_id, "ADJUST_CHIPS", why, amount=amount)
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

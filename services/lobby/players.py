"""Players and their accounts: guest sign-in (a valid unique name, the sock-puppet quotas per
device and address, the first daily chips, a signed token, and a device credential that signs the
same device in to the same account again), profiles, signing out everywhere and the token
revocations every service asks for; and the check every other subdomain makes before a player
sits or writes: known to the lobby, not banned."""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from okeyplatform import metrics as M
from okeyplatform.auth import Identity, can, device_key, issue_token, revoke
from okeyplatform.logs import get_logger

from . import moderation
from .avatars import AVATARS
from .errors import Exists, Flood, Forbidden, Invalid, NotFound, Raced, Refused, Unauthenticated, UniqueTaken
from .ledger import DailyChips, Ledger, daily_chips
from .ledger_repo import player_account
from .players_repo import PlayerRow
from .policy import Limits, banned_text, grant_day, later, quotas
from .store import LobbyStore, Unit

__all__ = [
    "Players",
    "Profile",
    "Session",
    "SignedIn",
    "active_player",
    "signing_in",
    "credential_hash",
    "address_hash",
]

DEVICE_ID = re.compile(r"^[^\s\x00-\x1f\x7f]{1,128}$")  # what a client says its device is: no spaces
DEVICE_SECRET = re.compile(r"^[A-Za-z0-9_-]{32,128}$")  # what the lobby issues: token_urlsafe(32), 43 characters


def credential_hash(secret: str) -> bytes:
    """What is stored of a device credential (256 random bits: SHA-256 is enough, OWASP's advice
    for high-entropy secrets; a password would want argon2id)."""
    return hashlib.sha256(secret.encode()).digest()


def address_hash(address: str) -> bytes:
    """What is stored of a client address an account signed in from (its known addresses)."""
    return hashlib.sha256(b"address\0" + address.encode()).digest()


REFRESH_TOKEN = DEVICE_SECRET  # the same shape: token_urlsafe(32)


@dataclass(frozen=True)
class Session:
    """What a sign-in or a refresh hands the client: a short-lived access token (the bearer
    token every service checks) and the refresh token that gets the next one."""

    token: str
    expires_at: datetime
    refresh_token: str
    refresh_expires_at: datetime


@dataclass(frozen=True)
class SignedIn:
    player: PlayerRow
    session: Session
    chips_granted: int
    device_secret: str  # keep it: signing in with it returns this account
    returning: bool  # an existing account (a device credential, a login, a link code)
    device_ref: str = ""  # the device credential's public id (ListDevices, UnlinkDevice)

    @property
    def token(self) -> str:
        return self.session.token

    @property
    def expires_at(self) -> datetime:
        return self.session.expires_at


@dataclass(frozen=True)
class Profile:
    player: PlayerRow
    chips: int | None  # None: not the caller's to see
    next_daily_chips_at: datetime | None
    staff_role: str = ""  # the caller's own staff role ("moderator", "admin"), in their own profile only
    daily: DailyChips | None = None  # the caller's own: can the day's chips be had now, else why


async def banned_until(uow: Unit, player: PlayerRow, now: datetime, device: str = "") -> datetime | None:
    """When the player's ban or their device's (``device``, else the account's) ends, if one
    holds now."""
    until = later(player.banned_until, await uow.reports.device_banned_until(device or player.device_id))
    return until if until is not None and until > now else None


async def signing_in(uow: Unit, player: PlayerRow, now: datetime) -> None:
    """FORBIDDEN BANNED for an account (or its device) banned now: no sign-in while it lasts."""
    until = await banned_until(uow, player, now)
    if until is not None:
        raise Forbidden(banned_text(until), "BANNED")


async def active_player(uow: Unit, who: Identity, now: datetime, lock: bool = False) -> PlayerRow:
    """The caller's row, when the caller may sit at a table or write: known to the lobby and
    neither the player nor the device banned (FAILED_PRECONDITION BANNED)."""
    player = await uow.players.known(who.subject, lock=lock)
    until = await banned_until(uow, player, now, who.device)
    if until is not None:
        raise Refused(banned_text(until), "BANNED")
    return player


class Players:
    def __init__(
        self,
        store: LobbyStore,
        ledger: Ledger,
        clock: Callable[[], datetime],
        limits: Limits,
        token_secret: bytes | None = None,
    ) -> None:
        self.store = store
        self.ledger = ledger
        self.clock = clock
        self.limits = limits
        self.token_secret = token_secret
        # Called after a revocation is committed (the service publishes it to every service).
        self.on_revoked: Callable[[str, float], Awaitable[None]] | None = None
        self.log = get_logger(component="lobby-players")

    # ------------------------------------------------------------ revoking tokens

    async def revoke(self, uow: Unit, player_id: str, now: datetime, sessions: bool = True) -> float:
        """Every token of the player issued until now is refused from here on, by every service
        (once the unit commits; then call :meth:`revoked`), and (``sessions``) every session of
        the player ends: none of its refresh tokens gets a new access token. Without, a refresh
        still gets one, with the role the store gives the player then (a staff role taken away)."""
        await uow.players.revoke(player_id, now, now + timedelta(seconds=self.limits.token_ttl_s))
        if sessions:
            await uow.players.revoke_sessions(player_id, now)
        return now.timestamp()

    async def revoked(self, player_id: str, before: float) -> None:
        revoke(player_id, before)  # this process at once
        if self.on_revoked is not None:
            await self.on_revoked(player_id, before)
        self.log.info("tokens_revoked", player_id=player_id)

    async def revocations(self) -> list[tuple[str, float]]:
        """Every revocation in force: what a starting service asks for."""
        async with self.store.unit() as uow:
            rows = await uow.players.revocations(self.clock())
        return [(p, nb.timestamp()) for p, nb in rows]

    async def sign_out(self, who: Identity) -> None:
        """Sign out: every token and session of the player issued so far is refused by every
        service within seconds (the lobby publishes the revocation). The devices stay linked:
        each signs in again with its credential (:meth:`sign_out_everywhere` ends those too)."""
        async with self.store.unit() as uow:
            before = await self.revoke(uow, who.subject, self.clock())
        await self.revoked(who.subject, before)

    def recent_proof(self, who: Identity) -> None:
        """FAILED_PRECONDITION REAUTH_REQUIRED unless the caller's token carries a proof (a device
        credential or the password, given to Reauthenticate; a sign-in's token carries none) of the last
        ``Limits.reauth_s``: a bearer token alone (a stolen one, a refreshed one) makes no
        sensitive change."""
        if who.authenticated_at <= 0 or self.clock().timestamp() - who.authenticated_at > self.limits.reauth_s:
            raise Refused(
                "Bu değişiklik için kimliğini yeniden doğrula. (Confirm it is you again for this change.)",
                "REAUTH_REQUIRED",
            )

    async def end_everything(
        self,
        uow: Unit,
        player_id: str,
        now: datetime,
        keep_ref: str = "",
        since: datetime | None = None,
        keep_devices: bool = False,
    ) -> float:
        """Every way into the account ends but the device ``keep_ref``: every token and session,
        the live link code, and every device credential (those linked at or after ``since`` only,
        when given; none with ``keep_devices``: a ban). Once the unit commits, call
        :meth:`revoked` with the returned moment."""
        before = await self.revoke(uow, player_id, now)
        await uow.logins.drop_codes(player_id)
        if keep_devices:
            return before
        dropped = await uow.logins.drop_devices(player_id, keep_ref, since)
        if dropped:
            self.log.info("devices_ended", player_id=player_id, devices=len(dropped))
        return before

    async def sign_out_everywhere(self, who: Identity) -> Session:
        """Sign out everywhere: every device credential but the caller's, every session and every
        token of the account end at every service within seconds; the caller's device gets a new
        session. Needs a recent proof (else a thief with a token would cut the owner out)."""
        self.recent_proof(who)
        now = self.clock()
        async with self.store.unit() as uow:
            player = await active_player(uow, who, now)
            before = await self.end_everything(uow, who.subject, now, who.credential)
            session = await self.start_session(uow, player, who.credential, now)
        await self.revoked(who.subject, before)
        self.log.info("signed_out_everywhere", player_id=who.subject)
        return session

    async def revoke_device(self, uow: Unit, player_id: str, device_ref: str, now: datetime) -> tuple[str, float]:
        """Every token issued to one device of the player is refused from here on (once the unit
        commits: then call :meth:`revoked` with the returned key and moment)."""
        key = device_key(player_id, device_ref)
        await uow.players.revoke(key, now, now + timedelta(seconds=self.limits.token_ttl_s))
        return key, now.timestamp()

    # ------------------------------------------------------------ guests and profiles

    async def sign_in(self, display_name: str, device_id: str, address: str = "", device_secret: str = "") -> SignedIn:
        """With ``device_secret`` (a device credential this lobby issued): that account again, with
        its chips and stats, a new token and the day's chips if not yet claimed (UNAUTHENTICATED
        DEVICE_UNKNOWN for a credential it does not know). Without: a new account
        (:meth:`sign_in_guest`) and its device credential."""
        if not device_secret:
            return await self._new_guest(display_name, device_id, address)
        if not DEVICE_SECRET.match(device_secret):
            raise Invalid("device_secret: the credential a sign-in returned, unchanged", "INVALID_ARGUMENT")
        now = self.clock()
        async with self.store.unit() as uow:
            found = await uow.players.by_credential(credential_hash(device_secret), now)
            if found is None:
                raise Unauthenticated(
                    "Bu cihazın hesabı bulunamadı; yeni bir hesapla devam et. "
                    "(This device's account was not found: continue with a new account.)",
                    "DEVICE_UNKNOWN",
                )
            player, device_ref = found
            await signing_in(uow, player, now)
            granted = await self.ledger.grant_daily(uow, player.player_id, now, player.device_id, address)
            session = await self.start_session(uow, player, device_ref, now)
            if address:
                await uow.logins.know_address(player.player_id, address_hash(address), now)
        self.log.info("guest_signed_in_again", player_id=player.player_id)
        return SignedIn(player, session, granted, device_secret, True, device_ref)

    async def start_session(
        self,
        uow: Unit,
        player: PlayerRow,
        device_ref: str,
        now: datetime,
        family: str = "",
    ) -> Session:
        """An access token and a new refresh token (of ``family``, else of a new family: a
        sign-in) for the device ``device_ref``. The access token carries no proof: only
        :meth:`access_token` with a proof mints one, for the one sensitive call it is asked for."""
        refresh = secrets.token_urlsafe(32)
        refresh_expires = now + timedelta(seconds=self.limits.refresh_ttl_s)
        family = family or "f-" + secrets.token_hex(12)
        await uow.players.add_session(
            credential_hash(refresh), family, player.player_id, device_ref, now, refresh_expires
        )
        role = await uow.staff.role(player.player_id) or "player"  # the store's, at every sign-in and refresh
        token = self.access_token(player, role, device_ref)
        return Session(token, now + timedelta(seconds=self.limits.token_ttl_s), refresh, refresh_expires)

    def access_token(self, player: PlayerRow, role: str, device_ref: str, proven: datetime | None = None) -> str:
        """A signed access token of the player's device ``device_ref``. With ``proven`` (the
        moment of a proof: Reauthenticate), a short-lived one (``Limits.reauth_s``) that carries
        it: what a sensitive call needs (:meth:`recent_proof`); a client sends it with that call
        alone and goes on with its session's token."""
        return issue_token(
            player.player_id,
            role,
            ttl_s=self.limits.token_ttl_s if proven is None else self.limits.reauth_s,
            secret=self.token_secret,
            device=player.device_id,
            credential=device_ref,
            authenticated_at=None if proven is None else proven.timestamp(),
        )

    @M.counts_sign_in("refresh")
    async def refresh(self, refresh_token: str) -> Session:
        """The next access token and refresh token of a session; the one given is used up. A
        refresh token used a second time is a copy someone else holds: the whole session (its
        family) ends, with every access token of the player issued so far, and the call gets
        UNAUTHENTICATED REFRESH_REUSED (but ABORTED REFRESH_RACED, with nothing revoked and no
        tokens, within ``Limits.refresh_race_s`` of its first use). An unknown, expired or ended
        one: REFRESH_INVALID."""
        if not REFRESH_TOKEN.match(refresh_token):
            raise Invalid("refresh_token: the one the last sign-in or refresh returned", "INVALID_ARGUMENT")
        now = self.clock()
        key = credential_hash(refresh_token)
        reused: str | None = None
        async with self.store.unit() as uow:
            row = await uow.players.session(key)
            if row is None or row.revoked_at is not None or row.expires_at <= now:
                raise Unauthenticated(
                    "Oturumun sona erdi; yeniden giriş yap. (Your session has ended: sign in again.)",
                    "REFRESH_INVALID",
                )
            if row.used_at is not None and (now - row.used_at).total_seconds() < self.limits.refresh_race_s:
                raise Raced(
                    "Oturum az önce başka bir sekmede yenilendi. "
                    "(The session was renewed in another tab a moment ago.)",
                    "REFRESH_RACED",
                )
            if row.used_at is not None:
                # A stolen copy: the session ends, every token of the account, the live link code,
                # and every device linked since the session began (a thief's device could only
                # come from it) but the session's own device, whose credential was not in it.
                began = await uow.players.family_began(row.family_id)
                await uow.players.revoke_family(row.family_id, now)
                before = await self.end_everything(uow, row.player_id, now, row.device_ref, since=began or now)
                reused = row.player_id
            else:
                player = await active_player(uow, Identity(row.player_id, "player"), now)
                await uow.players.use_session(key, now)
                session = await self.start_session(uow, player, row.device_ref, now, row.family_id)
        if reused is not None:
            await self.revoked(reused, before)
            self.log.warning("refresh_token_reused", player_id=reused)
            raise Unauthenticated(
                "Bu oturum başka bir yerde kullanıldı ve güvenlik için kapatıldı; yeniden giriş yap. "
                "(This session was used elsewhere and was closed to keep your account safe: sign in again.)",
                "REFRESH_REUSED",
            )
        return session

    async def sign_in_guest(
        self, display_name: str, device_id: str, address: str = ""
    ) -> tuple[PlayerRow, str, datetime, int]:
        """A new guest account (:meth:`sign_in` without a credential), as a tuple."""
        s = await self._new_guest(display_name, device_id, address)
        return s.player, s.token, s.expires_at, s.chips_granted

    async def _new_guest(self, display_name: str, device_id: str, address: str) -> SignedIn:
        """A new guest: a unique valid name, the first daily chips, a signed token, a device
        credential. A device and an address open a few accounts a day, and the daily chips go to a
        few of them (Limits): past that, RESOURCE_EXHAUSTED TOO_MANY_ACCOUNTS, or an account
        without the day's chips."""
        try:
            shown = moderation.check_display_name(display_name)
        except moderation.NameRejected as exc:
            raise Invalid(exc.message, exc.reason) from None
        device = device_id.strip() or "g-" + secrets.token_hex(12)
        if not DEVICE_ID.match(device):
            raise Invalid("device_id: 1 to 128 characters, no spaces", "INVALID_ARGUMENT")
        now = self.clock()
        row = PlayerRow("p-" + secrets.token_hex(8), shown, device, now, None, None, 0)
        async with self.store.unit() as uow:
            until = await uow.reports.device_banned_until(device)
            if until is not None and until > now:
                raise Forbidden(banned_text(until), "BANNED")
            full = await uow.players.take_quotas(grant_day(now), quotas(self.limits, "accounts", device, address))
            if full is not None:
                self.log.info("guest_refused", reason="TOO_MANY_ACCOUNTS", quota=full[0])
                raise Flood(_too_many_accounts(*full), "TOO_MANY_ACCOUNTS")
            try:
                await uow.players.insert_player(row, moderation.name_key(shown))
            except UniqueTaken:
                raise Exists(f"'{shown}' adı alınmış; başka bir ad seç. (That name is taken.)", "NAME_TAKEN") from None
            await uow.ledger.open_account(player_account(row.player_id))
            granted = await self.ledger.grant_daily(uow, row.player_id, now, device, address)
            secret, device_ref = await self.new_device(uow, row.player_id, now)
            session = await self.start_session(uow, row, device_ref, now)
            if address:
                await uow.logins.know_address(row.player_id, address_hash(address), now)
        self.log.info("guest_signed_in", player_id=row.player_id)
        return SignedIn(row, session, granted, secret, False, device_ref)

    async def new_device(self, uow: Unit, player_id: str, now: datetime) -> tuple[str, str]:
        """A device credential for the account: the secret (for the client only) and its public ref."""
        secret, device_ref = secrets.token_urlsafe(32), "d-" + secrets.token_hex(8)
        await uow.players.add_credential(credential_hash(secret), device_ref, player_id, now)
        return secret, device_ref

    async def profile(self, who: Identity, player_id: str, address: str = "") -> Profile:
        """A player's profile; the caller's own has the chips and whether the day's chips can be
        claimed now (from ``address``, the caller's), decided as the claim decides it."""
        target = player_id or who.subject
        async with self.store.unit() as uow:
            player = await uow.players.player(target)
            if player is None:
                raise NotFound(f"no player {target!r}", "PLAYER_NOT_FOUND")
            if target != who.subject and not can(who, "players.inspect"):
                return Profile(
                    PlayerRow(
                        player.player_id, player.display_name, "", player.created_at, None, None, 0, player.avatar
                    ),
                    None,
                    None,
                )
            chips = (await uow.ledger.balances([player_account(target)]))[player_account(target)]
            now = self.clock()
            own = target == who.subject
            device = (who.device if own else "") or player.device_id
            daily = await daily_chips(uow, self.limits, target, now, device, address if own else "")
            role = await uow.staff.role(target) if own else ""
        return Profile(player, chips, daily.next_at or now, role, daily if own else None)

    async def set_avatar(self, who: Identity, avatar: int, address: str = "") -> Profile:
        """The caller picks their face, one of okey.v1.Avatar (issue 47.3); their own profile
        after it."""
        if avatar not in AVATARS:
            raise Invalid(f"no avatar {avatar}: one of okey.v1.Avatar", "UNKNOWN_AVATAR")
        async with self.store.unit() as uow:
            await uow.players.known(who.subject, lock=True)
            await uow.players.set_avatar(who.subject, avatar)
        return await self.profile(who, "", address)

    async def forget_old_quotas(self) -> int:
        """Drop the daily quotas of days before yesterday (the device ids and addresses in them),
        and the rows of refresh tokens past their expiry."""
        async with self.store.unit() as uow:
            now = self.clock()
            return await uow.players.forget_quotas(grant_day(now) - timedelta(days=1)) + (
                await uow.players.forget_sessions(now)
            )


def _too_many_accounts(quota: str, limit: int) -> str:
    if quota.endswith(":device"):
        return (
            f"Bu cihazdan bugün açılabilecek {limit} hesap açıldı; yarın tekrar dene. "
            f"(This device opened {limit} new accounts today, the most allowed per device: try again tomorrow.)"
        )
    return (
        f"Bu bağlantıdan bugün açılabilecek {limit} hesap açıldı; yarın tekrar dene. "
        f"(Your network opened {limit} new accounts today, the most allowed per address: try again tomorrow.)"
    )

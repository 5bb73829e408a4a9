"""Opening one account on many devices (issue 19.3): an e-mail and a password linked to the
account, a one-time link code shown on one device and typed on another, and the account's list
of devices (its device credentials), any of which can be unlinked.

Passwords follow OWASP's password storage and authentication guidance: argon2id with OWASP's
parameters (19 MiB, 2 passes, 1 lane), hashed off the event loop and at most two at a time; 8 to
128 characters with no composition rules; the common passwords of ``common_passwords.txt``
refused, and so is one that is the account's name or e-mail; a wrong e-mail and a wrong
password get the same answer after the same work (an unknown e-mail is checked against a dummy
hash, and counted and locked as a known one is); failures are throttled per (e-mail, address),
per address, and per e-mail over the addresses the account never signed in from, so a stranger
can neither lock the owner out of their known addresses nor learn from a lock that an e-mail
has an account. A password change ends every other device, session and token of the account
and starts a new session for the caller's device.

Sensitive changes (an e-mail linked or removed, a link code, a password, a device unlinked) need
a recent proof behind the caller's token (``Players.recent_proof``; :meth:`Logins.reauthenticate`
gives one for this device's credential or the password): a stolen bearer token alone makes none
(issue 39)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
import secrets
import unicodedata
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from okeyplatform import metrics as M
from okeyplatform.auth import Identity
from okeyplatform.logs import get_logger

from .errors import Exists, Flood, Invalid, Refused, Unauthenticated, UniqueTaken
from .logins_repo import DeviceRow
from .players import Players, Session, SignedIn, active_player, address_hash, credential_hash, signing_in
from .policy import Limits
from .store import LobbyStore

__all__ = ["Logins", "check_password", "email_key", "PASSWORD_MIN", "PASSWORD_MAX", "LINK_CODE_TTL", "DEVICES_PAGE"]

PASSWORD_MIN, PASSWORD_MAX = 8, 128
LOCK_MAX = timedelta(hours=1)
DEVICES_PAGE = 50  # ListDevices' page when the caller names none; at most DEVICES_PAGE_MAX
DEVICES_PAGE_MAX = 200
LINK_CODE_TTL = timedelta(minutes=10)
LINK_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32: no I, L, O, U
LINK_CODE_LEN = 10  # 50 bits
EMAIL = re.compile(r"^[^@\s\x00-\x1f\x7f]{1,64}@[^@\s\x00-\x1f\x7f.]+(\.[^@\s\x00-\x1f\x7f.]+)+$")

_HASHER = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)  # OWASP's argon2id minimum
_HASHING = asyncio.Semaphore(2)  # each hash takes 19 MiB and some 20-50 ms of a core


@cache
def _dummy() -> str:
    """What an unknown e-mail is checked against (made at the first sign-in that needs it, not
    at every import of the lobby)."""
    return _HASHER.hash(secrets.token_urlsafe(16))


@cache
def _common() -> frozenset[str]:
    text = (Path(__file__).with_name("common_passwords.txt")).read_text(encoding="utf-8")
    return frozenset(line.strip().casefold() for line in text.splitlines() if line.strip() and not line.startswith("#"))


def email_key(email: str) -> str:
    return unicodedata.normalize("NFKC", email).strip().casefold()


def check_password(password: str, *personal: str) -> None:
    """INVALID_ARGUMENT WEAK_PASSWORD (with why) for a password OWASP would refuse."""
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise Invalid(
            f"Şifre {PASSWORD_MIN}-{PASSWORD_MAX} karakter olmalı. "
            f"(A password has {PASSWORD_MIN} to {PASSWORD_MAX} characters.)",
            "WEAK_PASSWORD",
            why="length",
        )
    folded = password.casefold()
    if folded in _common():
        raise Invalid(
            "Bu şifre çok yaygın; tahmin edilir. (This password is too common: it would be guessed.)",
            "WEAK_PASSWORD",
            why="common",
        )
    for p in personal:
        p = p.casefold().split("@")[0]
        if len(p) >= 3 and (p in folded and len(folded) - len(p) < 4):
            raise Invalid(
                "Şifre adına ya da e-postana fazla benziyor. (The password is too close to your name or e-mail.)",
                "WEAK_PASSWORD",
                why="personal",
            )


async def _hash(password: str) -> str:
    async with _HASHING:
        return await asyncio.to_thread(_HASHER.hash, password)


async def _verify(password_hash: str, password: str) -> bool:
    async with _HASHING:
        try:
            return await asyncio.to_thread(_HASHER.verify, password_hash, password)
        except (VerificationError, InvalidHashError):
            return False


def _normal_code(code: str) -> str:
    return re.sub(r"[\s-]", "", code).upper().translate(str.maketrans("ILO", "110"))


def _throttle_keys(key: str, address: str) -> tuple[bytes, bytes, bytes]:
    """The three failure counts an attempt at e-mail ``key`` from ``address`` takes from: the
    pair's, the address's and the e-mail's (hashed: an unknown e-mail has rows like a known one)."""

    def h(*parts: str) -> bytes:
        return hashlib.sha256("\0".join(parts).encode()).digest()

    return h("pair", key, address), h("address", address), h("email", key)


def _locked(until: datetime, now: datetime) -> Flood:
    wait = max(1, int((until - now).total_seconds() // 60) + 1)
    return Flood(
        f"Çok fazla yanlış deneme; {wait} dakika sonra tekrar dene. "
        f"(Too many wrong attempts: try again in {wait} minutes.)",
        "LOGIN_LOCKED",
        retry_after_s=str(int((until - now).total_seconds()) + 1),
    )


def _lock_for(failures: int, limit: int) -> timedelta | None:
    """How long a count of ``failures`` against ``limit`` locks: 1 minute at the limit, doubling
    with each failure after it, at most an hour; None below it."""
    if limit <= 0 or failures < limit:
        return None
    return min(LOCK_MAX, timedelta(minutes=2 ** min(failures - limit, 10)))


def _page_token(last: DeviceRow) -> str:
    raw = f"{last.last_used_at.isoformat()}|{last.device_ref}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _after(token: str) -> tuple[datetime, str] | None:
    if not token:
        return None
    try:
        when, ref = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode().split("|", 1)
        return datetime.fromisoformat(when), ref
    except ValueError:
        raise Invalid("page_token: the next_page_token of the page before, unchanged", "INVALID_ARGUMENT") from None


def _login_failed() -> Unauthenticated:
    return Unauthenticated(
        "E-posta ya da şifre yanlış. (The e-mail or the password is wrong.)",
        "LOGIN_FAILED",
    )


class Logins:
    def __init__(self, store: LobbyStore, players: Players, clock: Callable[[], datetime], limits: Limits) -> None:
        self.store = store
        self.players = players
        self.clock = clock
        self.limits = limits
        self.log = get_logger(component="lobby-logins")

    # ------------------------------------------------------------ e-mail and password

    async def link_email(self, who: Identity, email: str, password: str) -> None:
        """Link an e-mail and a password to the caller's account (once; then change_password, or
        unlink_email first). Needs a recent proof."""
        self.players.recent_proof(who)
        shown = unicodedata.normalize("NFKC", email).strip()
        if len(shown) > 254 or not EMAIL.match(shown):
            raise Invalid("Bu bir e-posta adresi değil. (That is not an e-mail address.)", "INVALID_EMAIL")
        now = self.clock()
        async with self.store.unit() as uow:
            player = await active_player(uow, who, now)
        check_password(password, shown, player.display_name)
        hashed = await _hash(password)
        async with self.store.unit() as uow:
            if await uow.logins.login_of(who.subject) is not None:
                raise Refused(
                    "Bu hesabın zaten bir e-postası var. (This account has an e-mail already.)", "ALREADY_LINKED"
                )
            try:
                await uow.logins.add_login(who.subject, email_key(shown), shown, hashed, now)
            except UniqueTaken:
                raise Exists(
                    "Bu e-posta başka bir hesaba bağlı. (That e-mail belongs to another account.)", "EMAIL_TAKEN"
                ) from None
        self.log.info("email_linked", player_id=who.subject)

    async def unlink_email(self, who: Identity) -> None:
        """Remove the account's e-mail login: the e-mail and its password sign nobody in any more
        (the devices stay). Needs a recent proof; NOT_LINKED when there is none."""
        self.players.recent_proof(who)
        async with self.store.unit() as uow:
            await active_player(uow, who, self.clock())
            if not await uow.logins.unlink_login(who.subject):
                raise Refused("Bu hesabın e-postası yok. (This account has no e-mail linked.)", "NOT_LINKED")
        self.log.info("email_unlinked", player_id=who.subject)

    async def change_password(self, who: Identity, current: str, new: str, address: str = "") -> Session:
        """A new password, proven by the current one (its failures count as a sign-in's do):
        every other device, every session and every token of the account end; the caller's
        device gets a new session."""
        now = self.clock()
        async with self.store.unit() as uow:
            login = await uow.logins.login_of(who.subject)
            player = await active_player(uow, who, now)
        if login is None:
            raise Refused("Bu hesabın e-postası yok. (This account has no e-mail linked.)", "NOT_LINKED")
        if await self._attempt(login.email, current, address) is None:
            raise Unauthenticated("Şu anki şifre yanlış. (The current password is wrong.)", "LOGIN_FAILED")
        check_password(new, login.email, player.display_name)
        hashed = await _hash(new)
        async with self.store.unit() as uow:
            await uow.logins.set_password(who.subject, hashed)
            before = await self.players.end_everything(uow, who.subject, now, who.credential)
            session = await self.players.start_session(uow, player, who.credential, now)
        await self.players.revoked(who.subject, before)
        self.log.info("password_changed", player_id=who.subject)
        return session

    async def _attempt(self, email: str, password: str, address: str) -> str | None:
        """One password attempt at ``email`` from ``address``: the account's player id when the
        password is right, None when wrong (LOGIN_LOCKED when a count in force forbids trying).
        An unknown e-mail takes the same work, and is counted and locked as a known one is."""
        key = email_key(email)
        now = self.clock()
        pair, by_address, by_email = _throttle_keys(key, address)
        async with self.store.unit() as uow:
            login = await uow.logins.login_by_email(key) if len(key) <= 254 else None
            known = await uow.logins.known_address(login.player_id if login else "", address_hash(address))
            counts = await uow.logins.throttles(sorted((pair, by_address, by_email)), now)
            locks = [counts[pair][1], counts[by_address][1]]
            if not known:  # the owner's own addresses are not locked out by strangers elsewhere
                locks.append(counts[by_email][1])
            until = max((u for u in locks if u is not None), default=None)
            if until is not None:
                raise _locked(until, now)
            ok = await _verify(login.password_hash if login else _dummy(), password[:PASSWORD_MAX])
            if login is not None and ok:
                await uow.logins.set_throttle(pair, 0, None, now)
                if address:
                    await uow.logins.know_address(login.player_id, address_hash(address), now)
                return login.player_id
            lim = self.limits
            for k, limit in (
                (pair, lim.login_failures_per_address),
                (by_address, lim.login_failures_from_address),
                (by_email, lim.login_failures_per_email),
            ):
                failures = counts[k][0] + 1
                lock = _lock_for(failures, limit)
                await uow.logins.set_throttle(k, failures, now + lock if lock else None, now)
        self.log.info("login_failed", player_id=login.player_id if login else "")
        return None

    @M.counts_sign_in("password")
    async def sign_in_email(self, email: str, password: str, address: str = "") -> SignedIn:
        """The account of a linked e-mail, on a new device (a new device credential)."""
        player_id = await self._attempt(email, password, address)
        if player_id is None:
            raise _login_failed()
        return await self._on_new_device(player_id, self.clock(), "login", address)

    async def reauthenticate(self, who: Identity, device_secret: str, password: str, address: str = "") -> str:
        """A proof that the caller is the owner: this device's credential (the one the caller's
        token was issued to) or the account's password. Returns an access token that carries the
        proof, good for ``Limits.reauth_s`` (:meth:`Players.recent_proof`)."""
        now = self.clock()
        if device_secret:
            async with self.store.unit() as uow:
                found = await uow.players.credential_ref(credential_hash(device_secret))
            mine = found is not None and found[0] == who.subject
            if not mine or (who.credential and found is not None and found[1] != who.credential):
                raise Unauthenticated(
                    "Bu cihazın kimliği doğrulanamadı; yeniden giriş yap. "
                    "(This device's credential does not prove this account: sign in again.)",
                    "PROOF_FAILED",
                )
            device_ref = found[1] if found is not None else ""
        elif password:
            async with self.store.unit() as uow:
                login = await uow.logins.login_of(who.subject)
            if login is None:
                raise Refused("Bu hesabın e-postası yok. (This account has no e-mail linked.)", "NOT_LINKED")
            if await self._attempt(login.email, password, address) != who.subject:
                raise Unauthenticated("Şifre yanlış. (The password is wrong.)", "LOGIN_FAILED")
            device_ref = who.credential
        else:
            raise Invalid("device_secret or password: the proof that it is you", "INVALID_ARGUMENT")
        async with self.store.unit() as uow:
            player = await active_player(uow, who, now)
            role = await uow.staff.role(player.player_id) or "player"
        self.log.info("reauthenticated", player_id=who.subject, how="device" if device_secret else "password")
        return self.players.access_token(player, role, device_ref, proven=now)

    # ------------------------------------------------------------ link codes

    async def create_link_code(self, who: Identity) -> tuple[str, datetime]:
        """A one-time code (10 characters, 10 minutes) that opens the account on another device.
        A new code replaces the last. Needs a recent proof."""
        self.players.recent_proof(who)
        now = self.clock()
        code = "".join(secrets.choice(LINK_ALPHABET) for _ in range(LINK_CODE_LEN))
        async with self.store.unit() as uow:
            await active_player(uow, who, now)
            await uow.logins.add_code(credential_hash(code), who.subject, now, now + LINK_CODE_TTL)
        return f"{code[:5]}-{code[5:]}", now + LINK_CODE_TTL

    @M.counts_sign_in("link")
    async def sign_in_link_code(self, code: str, address: str = "") -> SignedIn:
        normal = _normal_code(code)
        if len(normal) != LINK_CODE_LEN or any(c not in LINK_ALPHABET for c in normal):
            raise Invalid(
                "Bağlantı kodu 10 harf ve rakamdır. (A link code has 10 letters and digits.)", "INVALID_ARGUMENT"
            )
        now = self.clock()
        async with self.store.unit() as uow:
            player_id = await uow.logins.take_code(credential_hash(normal), now)
        if player_id is None:
            raise Unauthenticated(
                "Bu kod geçersiz ya da süresi doldu; yeni bir kod al. "
                "(This code is wrong or has expired: get a new one.)",
                "LINK_CODE_INVALID",
            )
        return await self._on_new_device(player_id, now, "link_code", address)

    async def _on_new_device(self, player_id: str, now: datetime, how: str, address: str = "") -> SignedIn:
        async with self.store.unit() as uow:
            player = await uow.players.known(player_id)
            await signing_in(uow, player, now)
            secret, device_ref = await self.players.new_device(uow, player_id, now)
            session = await self.players.start_session(uow, player, device_ref, now)
            if address:
                await uow.logins.know_address(player_id, address_hash(address), now)
        self.log.info("signed_in_on_new_device", player_id=player_id, how=how)
        return SignedIn(player, session, 0, secret, True, device_ref)

    # ------------------------------------------------------------ devices

    async def devices(
        self, who: Identity, page_size: int = 0, page_token: str = ""
    ) -> tuple[list[DeviceRow], str, str]:
        """A page of the account's devices (newest use first), its linked e-mail ('' for none)
        and the next page's token ('' after the last page)."""
        if not 0 <= page_size <= DEVICES_PAGE_MAX:
            raise Invalid(f"page_size: 0 to {DEVICES_PAGE_MAX} (0: {DEVICES_PAGE})", "INVALID_ARGUMENT")
        size = page_size or DEVICES_PAGE
        after = _after(page_token)
        async with self.store.unit() as uow:
            await uow.players.known(who.subject)
            login = await uow.logins.login_of(who.subject)
            rows = await uow.logins.devices(who.subject, size + 1, after)
        more = len(rows) > size
        rows = rows[:size]
        return rows, login.email if login else "", _page_token(rows[-1]) if more else ""

    async def unlink_device(self, who: Identity, device_ref: str) -> None:
        """Forget a device: its credential signs nobody in any more, its sessions end, and every
        token issued to it is refused at every service within seconds. Needs a recent proof."""
        self.players.recent_proof(who)
        now = self.clock()
        async with self.store.unit() as uow:
            if not await uow.logins.unlink(who.subject, device_ref, now):
                raise Invalid("Bu hesabın böyle bir cihazı yok. (This account has no such device.)", "DEVICE_NOT_FOUND")
            key, before = await self.players.revoke_device(uow, who.subject, device_ref, now)
        await self.players.revoked(key, before)
        self.log.info("device_unlinked", player_id=who.subject)

    async def forget_old(self) -> int:
        """Drop failure counts idle for a day and known addresses unused for 90 days."""
        now = self.clock()
        async with self.store.unit() as uow:
            return await uow.logins.forget_throttles(now - timedelta(days=1)) + (
                await uow.logins.forget_addresses(now - timedelta(days=90))
            )

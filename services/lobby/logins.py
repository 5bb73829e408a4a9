"""Opening one account on many devices (issue 19.3): an e-mail and a password linked to the
account, a one-time link code shown on one device and typed on another, and the account's list
of devices (its device credentials), any of which can be unlinked.

Passwords follow OWASP's password storage and authentication guidance: argon2id with OWASP's
parameters (19 MiB, 2 passes, 1 lane), hashed off the event loop and at most two at a time; 8 to
128 characters with no composition rules; the common passwords of ``common_passwords.txt``
refused, and so is one that is the account's name or e-mail; a wrong e-mail and a wrong
password get the same answer after the same work (an unknown e-mail is checked against a dummy
hash); five failures in a row lock the login for 1 minute, then 2, 4, ... up to an hour. A
password change ends every session and token of the account and starts a new one for the
caller."""

from __future__ import annotations

import asyncio
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
from .players import Players, Session, SignedIn, active_player, credential_hash, signing_in
from .policy import Limits
from .store import LobbyStore

__all__ = ["Logins", "check_password", "email_key", "PASSWORD_MIN", "PASSWORD_MAX", "LINK_CODE_TTL"]

PASSWORD_MIN, PASSWORD_MAX = 8, 128
LOCK_AFTER = 5  # failures in a row
LOCK_MAX = timedelta(hours=1)
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
        """Link an e-mail and a password to the caller's account (once; then change_password)."""
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

    async def change_password(self, who: Identity, current: str, new: str) -> Session:
        """A new password: every session and token of the account ends; the caller gets a new
        session (the other devices sign in again)."""
        now = self.clock()
        async with self.store.unit() as uow:
            login = await uow.logins.login_of(who.subject)
            player = await active_player(uow, who, now)
        if login is None:
            raise Refused("Bu hesabın e-postası yok. (This account has no e-mail linked.)", "NOT_LINKED")
        if not await _verify(login.password_hash, current):
            raise Unauthenticated("Şu anki şifre yanlış. (The current password is wrong.)", "LOGIN_FAILED")
        check_password(new, login.email, player.display_name)
        hashed = await _hash(new)
        async with self.store.unit() as uow:
            await uow.logins.set_password(who.subject, hashed)
            before = await self.players.revoke(uow, who.subject, now)
            session = await self.players.start_session(uow, player, "", now)
        await self.players.revoked(who.subject, before)
        self.log.info("password_changed", player_id=who.subject)
        return session

    @M.counts_sign_in("password")
    async def sign_in_email(self, email: str, password: str) -> SignedIn:
        """The account of a linked e-mail, on a new device (a new device credential)."""
        key = email_key(email)
        now = self.clock()
        async with self.store.unit() as uow:
            login = await uow.logins.login_by_email(key) if len(key) <= 254 else None
            if login is not None and login.locked_until is not None and login.locked_until > now:
                wait = max(1, int((login.locked_until - now).total_seconds() // 60) + 1)
                raise Flood(
                    f"Çok fazla yanlış deneme; {wait} dakika sonra tekrar dene. "
                    f"(Too many wrong attempts: try again in {wait} minutes.)",
                    "LOGIN_LOCKED",
                    retry_after_s=str(int((login.locked_until - now).total_seconds()) + 1),
                )
            # The same work for an unknown e-mail: its answer takes as long as a wrong password.
            ok = await _verify(login.password_hash if login else _dummy(), password[:PASSWORD_MAX])
            if login is None:
                raise _login_failed()
            if not ok:
                failures = login.failures + 1
                locked = None
                if failures >= LOCK_AFTER:
                    locked = now + min(LOCK_MAX, timedelta(minutes=2 ** (failures - LOCK_AFTER)))
                await uow.logins.attempt(login.player_id, failures, locked)
                failed = True
            else:
                await uow.logins.attempt(login.player_id, 0, None)
                failed = False
            player_id = login.player_id
        if failed:
            self.log.info("login_failed", player_id=player_id)
            raise _login_failed()
        return await self._on_new_device(player_id, now, "login")

    # ------------------------------------------------------------ link codes

    async def create_link_code(self, who: Identity) -> tuple[str, datetime]:
        """A one-time code (10 characters, 10 minutes) that opens the account on another device.
        A new code replaces the last."""
        now = self.clock()
        code = "".join(secrets.choice(LINK_ALPHABET) for _ in range(LINK_CODE_LEN))
        async with self.store.unit() as uow:
            await active_player(uow, who, now)
            await uow.logins.add_code(credential_hash(code), who.subject, now, now + LINK_CODE_TTL)
        return f"{code[:5]}-{code[5:]}", now + LINK_CODE_TTL

    @M.counts_sign_in("link")
    async def sign_in_link_code(self, code: str) -> SignedIn:
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
        return await self._on_new_device(player_id, now, "link_code")

    async def _on_new_device(self, player_id: str, now: datetime, how: str) -> SignedIn:
        async with self.store.unit() as uow:
            player = await uow.players.known(player_id)
            await signing_in(uow, player, now)
            secret, device_ref = await self.players.new_device(uow, player_id, now)
            session = await self.players.start_session(uow, player, device_ref, now)
        self.log.info("signed_in_on_new_device", player_id=player_id, how=how)
        return SignedIn(player, session, 0, secret, True, device_ref)

    # ------------------------------------------------------------ devices

    async def devices(self, who: Identity) -> tuple[list[DeviceRow], str]:
        """The account's devices (newest use first) and its linked e-mail ('' for none)."""
        async with self.store.unit() as uow:
            await uow.players.known(who.subject)
            login = await uow.logins.login_of(who.subject)
            return await uow.logins.devices(who.subject), login.email if login else ""

    async def unlink_device(self, who: Identity, device_ref: str) -> None:
        """Forget a device: its credential signs nobody in any more, and its sessions end."""
        async with self.store.unit() as uow:
            if not await uow.logins.unlink(who.subject, device_ref, self.clock()):
                raise Invalid("Bu hesabın böyle bir cihazı yok. (This account has no such device.)", "DEVICE_NOT_FOUND")
        self.log.info("device_unlinked", player_id=who.subject)

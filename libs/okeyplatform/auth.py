"""Signed bearer tokens: ``v1.<payload>.<signature>``, HMAC-SHA256 over the payload.

The payload is base64url JSON ``{"sub": player or service id, "role": "player" | "service" |
"moderator" | "admin", "exp": unix seconds, "iat": issued at (unix seconds, to the microsecond), "dev":
optional device id, "cred": optional device credential ref (the device the token was issued to),
"auth": optional unix seconds of the last proof (a device credential or the password) behind
it}``. Every service that accepts tokens is given the same secret (``OKEY_TOKEN_SECRET``).

Revocation: the lobby revokes a player's tokens when they sign out or are banned (every token
issued before that moment), and one device's tokens when it is unlinked (the key
:func:`device_key`); every service that checks tokens follows those revocations
(``okeyplatform.revocations``) into this process's table, which ``verify_token`` consults.

Staff: a moderator or an admin is a player whose row the lobby's store gives that role
(``lobby_staff``); sign-in and refresh put it in the token. What each staff role may do is
:data:`PERMISSIONS`, asked through :func:`can` (and :func:`is_staff`) by every service: the one
place that says so. Revoking a role revokes the player's tokens, so the old role ends with them."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import os
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = [
    "Identity",
    "TokenError",
    "issue_token",
    "verify_token",
    "token_secret",
    "identity_from_metadata",
    "client_address_from_metadata",
    "CLIENT_ADDRESS_KEY",
    "ROLES",
    "revoke",
    "revoked_before",
    "device_key",
    "still_valid",
    "ServiceCredential",
    "STAFF_ROLES",
    "PERMISSIONS",
    "ACTIONS",
    "can",
    "is_staff",
]

STAFF_ROLES = ("moderator", "admin")
ROLES = ("player", "service", *STAFF_ROLES)

_MODERATOR = frozenset(
    {
        "reports.read",  # the report queue, with its chat context
        "reports.resolve",  # dismiss, warn, mute or ban through a report
        "players.sanction",  # ban and unban a player directly
        "players.inspect",  # a player's private profile (chips, sanctions), a private table's card
        "tables.inspect",  # read a table's chat and card without a seat
        "audit.read",  # the staff audit log
    }
)
PERMISSIONS: dict[str, frozenset[str]] = {
    "moderator": _MODERATOR,
    "admin": _MODERATOR | {"roles.grant", "chips.adjust", "tournaments.manage"},  # roles; chips; tournaments
}
"""What each staff role may do; a player or a service token may do none of these."""
ACTIONS = frozenset().union(*PERMISSIONS.values())

# The caller's network address, as the gateway saw it (the TCP peer, or X-Forwarded-For from a
# trusted proxy; an IPv6 address as its /64). Only the gateway sets it: it drops any a client
# sends. The services behind it count per-address limits by it (issue 15.7).
CLIENT_ADDRESS_KEY = "x-okey-client-addr"


class TokenError(Exception):
    """A token that is missing, malformed, forged or expired; the message says which."""


@dataclass(frozen=True, slots=True)
class Identity:
    subject: str
    role: str
    device: str = ""
    expires_at: int = field(default=0, compare=False, repr=False)  # the token's exp (unix seconds)
    issued_at: float = field(default=0.0, compare=False, repr=False)  # its iat: revocations cut by it
    credential: str = field(default="", compare=False)  # the device credential (ref) it was issued to
    authenticated_at: float = field(default=0.0, compare=False, repr=False)  # its last proof ("auth")

    @property
    def is_service(self) -> bool:
        return self.role == "service"


def is_staff(who: Identity) -> bool:
    """A moderator or an admin: watches tables as a spectator, never plays a seat."""
    return who.role in STAFF_ROLES


def can(who: Identity, action: str) -> bool:
    """May ``who`` (by its token's role) do ``action``, one of :data:`ACTIONS`."""
    if action not in ACTIONS:
        raise ValueError(f"unknown staff action {action!r}: one of {sorted(ACTIONS)}")
    return action in PERMISSIONS.get(who.role, frozenset())


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def token_secret() -> bytes:
    """The signing secret from ``OKEY_TOKEN_SECRET``; a dev stack without one gets a random
    secret per process tree (set by ``okey up`` for its children)."""
    value = os.environ.get("OKEY_TOKEN_SECRET")
    if not value:
        value = secrets.token_hex(32)
        os.environ["OKEY_TOKEN_SECRET"] = value
    return value.encode("utf-8")


def issue_token(
    subject: str,
    role: str = "player",
    ttl_s: int = 86400,
    secret: bytes | None = None,
    device: str = "",
    now: float | None = None,
    credential: str = "",
    authenticated_at: float | None = None,
) -> str:
    """A signed token of ``subject``, issued at ``now`` (unix seconds; the clock by default, a
    test's moment otherwise) and good for ``ttl_s`` seconds."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}")
    if not subject:
        raise ValueError("a token needs a subject")
    # iat to the microsecond, rounded down: a revocation cuts by it (see _not_revoked), and a
    # token issued a fraction of a millisecond before one (a sign-in, then a role taken away)
    # must fall before the cut; rounded to the millisecond, one could land after it.
    micros = time.time_ns() // 1000 if now is None else math.floor(now * 1_000_000)
    iat = micros / 1_000_000
    payload: dict[str, object] = {"sub": subject, "role": role, "exp": micros // 1_000_000 + ttl_s, "iat": iat}
    if device:
        payload["dev"] = device
    if credential:
        payload["cred"] = credential
    if authenticated_at is not None:
        payload["auth"] = int(authenticated_at)
    body = _b64(json.dumps(payload, separators=(",", ":")).encode("utf-8"))
    sig = hmac.new(secret or token_secret(), body.encode("ascii"), hashlib.sha256).digest()
    return f"v1.{body}.{_b64(sig)}"


def verify_token(token: str, secret: bytes | None = None, now: float | None = None) -> Identity:
    parts = token.split(".")
    if len(parts) != 3 or parts[0] != "v1":
        raise TokenError("malformed token: expected v1.<payload>.<signature>")
    body, sig = parts[1], parts[2]
    if not token.isascii():  # a header or query parameter in any other script: not one of ours
        raise TokenError("malformed token: expected v1.<payload>.<signature>")
    want = hmac.new(secret or token_secret(), body.encode("ascii"), hashlib.sha256).digest()
    try:
        got = _unb64(sig)
    except (ValueError, TypeError):
        raise TokenError("malformed token signature") from None
    if not hmac.compare_digest(want, got):
        raise TokenError("token signature does not match")
    try:
        payload = json.loads(_unb64(body))
    except (ValueError, TypeError):
        raise TokenError("malformed token payload") from None
    if not isinstance(payload, dict):
        raise TokenError("malformed token payload")
    exp = payload.get("exp")
    if not isinstance(exp, int) or exp < (now if now is not None else time.time()):
        raise TokenError("token has expired: sign in again")
    sub, role = payload.get("sub"), payload.get("role")
    if not isinstance(sub, str) or not sub or role not in ROLES:
        raise TokenError("token payload lacks a subject or a valid role")
    iat = payload.get("iat", 0)
    issued = float(iat) if isinstance(iat, int | float) and not isinstance(iat, bool) else 0.0
    cred = payload.get("cred", "")
    cred = cred if isinstance(cred, str) else ""
    _not_revoked(sub, issued, cred)
    dev = payload.get("dev", "")
    proof = payload.get("auth", 0)
    proven = float(proof) if isinstance(proof, int) and not isinstance(proof, bool) else 0.0
    return Identity(sub, str(role), dev if isinstance(dev, str) else "", exp, issued, cred, proven)


# subject -> every token of it issued before this moment (unix seconds) is refused
_REVOKED: dict[str, float] = {}


def revoke(subject: str, before: float) -> None:
    """Refuse every token of ``subject`` issued before ``before`` (a sign-out, a ban). Later
    revocations only move the moment forward."""
    if before > _REVOKED.get(subject, 0.0):
        _REVOKED[subject] = before


def revoked_before(subject: str) -> float:
    """The moment before which ``subject``'s tokens are refused (0: none is)."""
    return _REVOKED.get(subject, 0.0)


def still_valid(who: Identity) -> None:
    """TokenError when ``who``'s token has been revoked since it was checked (a sign-out, a ban,
    its device unlinked): what a long-lived stream asks before each message it sends."""
    _not_revoked(who.subject, who.issued_at, who.credential)


def device_key(subject: str, credential: str) -> str:
    """The revocation key of one device of ``subject``: its tokens (those naming ``credential``)
    are refused as a revoked subject's are, the account's other devices' are not."""
    return f"{subject}/{credential}"


def _micros(seconds: float) -> int:
    return round(seconds * 1_000_000)


def _not_revoked(subject: str, issued_at: float, credential: str = "") -> None:
    """Refuse a token issued before its subject's revocation, or its device's (an unlinked
    device), compared in whole microseconds (the lobby's cut is a timestamp to the microsecond);
    one of the same microsecond is refused too."""
    cut = _REVOKED.get(subject)
    if cut is not None and _micros(issued_at) <= _micros(cut):
        raise TokenError("token was revoked (signed out, or banned): sign in again")
    if credential:
        cut = _REVOKED.get(device_key(subject, credential))
        if cut is not None and _micros(issued_at) <= _micros(cut):
            raise TokenError("token was revoked (its device was unlinked): sign in again")


_VERIFIED: dict[tuple[str, bytes | None], tuple[Identity, float]] = {}
RECHECK_S = 60.0


def identity_from_metadata(
    metadata: Iterable[tuple[str, str | bytes]] | None, secret: bytes | None = None, now: float | None = None
) -> Identity:
    """The caller of a gRPC request from its ``authorization: Bearer <token>`` metadata.
    A verified token is remembered for a minute (then verified again, expiry included), so a
    busy service does not redo the HMAC on every call. ``now`` is the clock (unix seconds; the
    time by default), as for ``verify_token``."""
    auth = ""
    for key, value in metadata or ():
        if key == "authorization" and isinstance(value, str):
            auth = value
    if not auth.lower().startswith("bearer "):
        raise TokenError("missing 'authorization: Bearer <token>' metadata")
    token = auth[7:].strip()
    key = (token, secret)
    now = time.time() if now is None else now
    hit = _VERIFIED.get(key)
    if hit is not None and hit[1] > now:
        # a revocation is honoured at once, cache or not
        _not_revoked(hit[0].subject, hit[0].issued_at, hit[0].credential)
        return hit[0]
    identity = verify_token(token, secret, now)
    if len(_VERIFIED) > 50_000:
        _VERIFIED.clear()
    _VERIFIED[key] = (identity, min(now + RECHECK_S, identity.expires_at))  # never past its expiry
    return identity


def client_address_from_metadata(metadata: Iterable[tuple[str, str | bytes]] | None) -> str:
    """The gateway's ``x-okey-client-addr`` of a gRPC request, or "" when the call did not come
    through the gateway (an internal caller, a test): such calls are not limited per address."""
    for key, value in metadata or ():
        if key == CLIENT_ADDRESS_KEY and isinstance(value, str):
            return value.strip()[:64]
    return ""


class ServiceCredential:
    """A service's own bearer token, issued again once half its lifetime has passed, so a
    long-running service never calls with an expired one. :class:`okeyplatform.client.TableClient`
    takes one in place of a fixed token (the bots use it; the lobby's starter will)."""

    def __init__(self, subject: str, ttl_s: int = 24 * 3600, secret: bytes | None = None) -> None:
        self.subject = subject
        self.ttl_s = ttl_s
        self.secret = secret
        self._token = ""
        self._issued = 0.0

    def token(self) -> str:
        if not self._token or time.monotonic() - self._issued > self.ttl_s / 2:
            self._token = issue_token(self.subject, "service", ttl_s=self.ttl_s, secret=self.secret)
            self._issued = time.monotonic()
        return self._token

    def metadata(self) -> tuple[tuple[str, str], ...]:
        """The ``authorization`` metadata of a call, with a fresh token when due."""
        return (("authorization", f"Bearer {self.token()}"),)

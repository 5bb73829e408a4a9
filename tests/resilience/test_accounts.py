"""Issue 19.1: a device signs in to the same account again. On the whole stack through the public
gateway: the first sign-in returns a device credential; after signing out, signing in with it
returns the same player and chips with a token that works; an unknown, a malformed or a banned
account's credential is refused with a stable reason; only the credential's hash is stored."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from typing import Any

import asyncpg
import httpx
from resilience_stack import ResilienceStack

HTTP_TIMEOUT_S = 10.0
SIGN_IN = "/okey.v1.LobbyService/SignInGuest"


def _post(http: httpx.Client, path: str, body: dict[str, Any], token: str | None = None) -> httpx.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return http.post(f"/api{path}", json=body, headers=headers)


def _chips(http: httpx.Client, token: str) -> int:
    r = _post(http, "/okey.v1.LobbyService/GetChips", {}, token)
    assert r.status_code == 200, r.text
    return int(r.json().get("balance", 0))


def _stored_hashes(database_url: str) -> list[bytes]:
    async def read() -> list[bytes]:
        conn = await asyncpg.connect(database_url)
        try:
            return [r[0] for r in await conn.fetch("SELECT secret_hash FROM lobby_device_credentials")]
        finally:
            await conn.close()

    return asyncio.run(read())


def test_19_1_signing_in_again_with_the_device_credential_returns_the_same_account(stack: ResilienceStack) -> None:
    stack.ensure_up()
    name = f"Donen {uuid.uuid4().hex[:4]}"
    with httpx.Client(base_url=stack.http, timeout=HTTP_TIMEOUT_S) as http:
        first = _post(http, SIGN_IN, {"displayName": name, "deviceId": uuid.uuid4().hex})
        assert first.status_code == 200, first.text
        body = first.json()
        player, token, secret = body["player"]["playerId"], body["token"], body["deviceSecret"]
        assert len(secret) >= 43 and not body.get("returning", False)
        chips = _chips(http, token)  # 0 when the suite's address has had its daily grants

        assert _post(http, "/okey.v1.LobbyService/SignOut", {}, token).status_code == 200
        # The same name without the credential is someone else's: taken, as before.
        taken = _post(http, SIGN_IN, {"displayName": name, "deviceId": uuid.uuid4().hex})
        assert taken.status_code == 409 and taken.json()["reason"] == "NAME_TAKEN", taken.text

        again = _post(http, SIGN_IN, {"deviceSecret": secret})
        assert again.status_code == 200, again.text
        back = again.json()
        assert back["player"]["playerId"] == player and back["player"]["displayName"] == name
        assert back["returning"] is True and back["deviceSecret"] == secret
        assert back["token"] != token
        assert _chips(http, back["token"]) == chips  # the day's chips were claimed at the first sign-in

        # Stored hashed: the table holds SHA-256 of the secret, never the secret.
        hashes = _stored_hashes(stack.database_url)
        assert hashlib.sha256(secret.encode()).digest() in hashes
        assert all(secret.encode() not in h for h in hashes)

        unknown = _post(http, SIGN_IN, {"deviceSecret": "A" * 43})
        assert unknown.status_code == 401 and unknown.json()["reason"] == "DEVICE_UNKNOWN", unknown.text
        bad = _post(http, SIGN_IN, {"deviceSecret": "not a credential!"})
        assert bad.status_code == 400 and bad.json()["reason"] == "INVALID_ARGUMENT", bad.text

        # A banned player's credential signs nobody in while the ban lasts.
        reporter = _post(http, SIGN_IN, {"displayName": f"Gozcu {uuid.uuid4().hex[:4]}", "deviceId": "r"}).json()
        r = _post(
            http,
            "/okey.v1.LobbyService/ReportPlayer",
            {"playerId": player, "reason": "REPORT_REASON_ABUSE", "details": "küfür"},
            reporter["token"],
        )
        assert r.status_code == 200, r.text
        r = _post(
            http,
            "/okey.v1.LobbyService/ResolveReport",
            {"reportId": r.json()["reportId"], "action": "REPORT_ACTION_BAN", "durationMinutes": 60},
            stack.token("moderator-1", "admin"),
        )
        assert r.status_code == 200, r.text
        banned = _post(http, SIGN_IN, {"deviceSecret": secret})
        assert banned.status_code == 403 and banned.json()["reason"] == "BANNED", banned.text

"""Staff through the gateway's HTTP/JSON API (issue 22.1), on the real services (table, lobby,
gateway; PostgreSQL and NATS): an admin token minted from the token secret (as ``okey admin``
does) grants a player the moderator role; their next refresh carries it; the moderator reads
the report queue with its chat context, resolves a report, bans a player, and the audit log
shows both; when the role is taken away, the moderator's token is refused at once (within its
lifetime) by the gateway and the lobby, and the session's next token is a player's."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
from okeyplatform.auth import issue_token, verify_token
from okeytools import stack as okeystack

LOBBY = "okey.v1.LobbyService"


def _post(http: httpx.Client, method: str, body: dict[str, Any], token: str = "") -> httpx.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return http.post(f"/api/{LOBBY}/{method}", json=body, headers=headers)


def _ok(http: httpx.Client, method: str, body: dict[str, Any], token: str = "") -> dict[str, Any]:
    r = _post(http, method, body, token)
    assert r.status_code == 200, (method, r.text)
    out: dict[str, Any] = r.json()
    return out


def _refused_within(http: httpx.Client, method: str, token: str, seconds: float = 10.0) -> httpx.Response:
    """The call with ``token`` until the gateway refuses it 401 (a revocation travels by NATS)."""
    deadline = time.monotonic() + seconds
    while True:
        r = _post(http, method, {}, token)
        if r.status_code == 401 or time.monotonic() > deadline:
            return r
        time.sleep(0.1)


def test_a_granted_moderator_resolves_and_bans_and_a_revoked_one_is_refused(
    make_stack: Callable[..., okeystack.Stack],
) -> None:
    env = {"OKEY_RATE_LIMIT": "1000", "OKEY_RATE_BURST": "1000"}
    st = make_stack(("table", "lobby", "gateway"), env=env, label="staff", private_nats=True)
    root = issue_token("cli:test", "admin", ttl_s=300)
    with httpx.Client(base_url=f"http://{st.http_address}", timeout=10) as http:
        mod = _ok(http, "SignInGuest", {"displayName": "Selin", "deviceId": "dev-mod"})
        victim = _ok(http, "SignInGuest", {"displayName": "Kerem", "deviceId": "dev-vic"})
        rude = _ok(http, "SignInGuest", {"displayName": "Hırçın", "deviceId": "dev-rude"})
        cheat = _ok(http, "SignInGuest", {"displayName": "Sinsi", "deviceId": "dev-cheat"})
        mod_id = mod["player"]["playerId"]

        # A player's token reads no queue; an admin's grants the role; the next refresh carries it.
        refused = _post(http, "ListReports", {}, mod["token"])
        assert refused.status_code == 403 and refused.json()["reason"] == "STAFF_ONLY"
        assert _post(http, "GrantRole", {"playerId": mod_id, "role": "moderator"}, mod["token"]).status_code == 403
        _ok(http, "GrantRole", {"playerId": mod_id, "role": "moderator", "reason": "gönüllü"}, root)
        session = _ok(http, "RefreshSession", {"refreshToken": mod["refreshToken"]})
        token = session["token"]
        assert verify_token(token).role == "moderator"
        assert _ok(http, "GetPlayer", {}, token)["player"]["staffRole"] == "moderator"

        sent = _ok(http, "SendMessage", {"text": "oyunu bozuyorsun"}, rude["token"])["message"]
        report = _ok(
            http,
            "ReportPlayer",
            {
                "playerId": rude["player"]["playerId"],
                "reason": "REPORT_REASON_ABUSE",
                "details": "sürekli laf atıyor",
                "messageIds": [sent["messageId"]],
            },
            victim["token"],
        )
        [queued] = _ok(http, "ListReports", {}, token)["reports"]
        assert queued["reportId"] == report["reportId"] and queued["playerName"] == "Hırçın"
        assert [m["text"] for m in queued["context"]] == ["oyunu bozuyorsun"]
        resolved = _ok(
            http,
            "ResolveReport",
            {"reportId": report["reportId"], "action": "REPORT_ACTION_WARN", "note": "ilk uyarı"},
            token,
        )["report"]
        assert resolved["status"] == "REPORT_STATUS_RESOLVED" and resolved["resolvedBy"] == mod_id

        no_reason = _post(http, "BanPlayer", {"playerId": cheat["player"]["playerId"]}, token)
        assert no_reason.status_code == 400 and no_reason.json()["reason"] == "REASON_REQUIRED"
        banned = _ok(http, "BanPlayer", {"playerId": cheat["player"]["playerId"], "reason": "anlaşmalı oyun"}, token)
        assert banned["bannedUntil"]
        assert _refused_within(http, "GetChips", cheat["token"]).status_code == 401  # the ban ended its tokens

        log = _ok(http, "ListAuditLog", {"limit": 10}, token)["entries"]
        assert [(e["action"], e["actorId"], e["targetId"], e.get("reason")) for e in log] == [
            ("BAN", mod_id, cheat["player"]["playerId"], "anlaşmalı oyun"),
            ("WARN", mod_id, rude["player"]["playerId"], "ilk uyarı"),
            ("GRANT_ROLE", "cli:test", mod_id, "gönüllü"),
        ]
        # Only an admin moves chips.
        adjust = {"playerId": victim["player"]["playerId"], "amount": 5, "reason": "hediye"}
        assert _post(http, "AdjustChips", adjust, token).json()["reason"] == "ADMIN_ONLY"

        # The role taken away: the moderator's token is refused now, long before it expires.
        assert verify_token(token).expires_at > time.time() + 600
        assert _ok(http, "RevokeRole", {"playerId": mod_id, "reason": "görev bitti"}, root)["role"] == "moderator"
        r = _refused_within(http, "ListReports", token)
        assert r.status_code == 401 and r.json()["reason"] == "BAD_TOKEN", r.text
        nxt = _ok(http, "RefreshSession", {"refreshToken": session["refreshToken"]})
        assert verify_token(nxt["token"]).role == "player"
        assert _post(http, "ListReports", {}, nxt["token"]).json()["reason"] == "STAFF_ONLY"
        assert _ok(http, "ListAuditLog", {"limit": 1}, root)["entries"][0]["action"] == "REVOKE_ROLE"

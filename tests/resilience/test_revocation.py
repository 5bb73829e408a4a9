"""Issue 15.11: a sign-out and a ban take effect at every service within seconds, on the whole
stack (every service its own process) through the public gateway: the lobby revokes, the table
and scoring services follow the revocation over NATS."""

from __future__ import annotations

import time
import uuid
from typing import Any

import httpx
from names import unique_name
from resilience_stack import ResilienceStack

HTTP_TIMEOUT_S = 10.0


def _post(http: httpx.Client, path: str, body: dict[str, Any], token: str | None) -> httpx.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return http.post(f"/api{path}", json=body, headers=headers)


def _sign_in(http: httpx.Client, name: str) -> tuple[str, str]:
    r = _post(http, "/okey.v1.LobbyService/SignInGuest", {"displayName": name, "deviceId": uuid.uuid4().hex}, None)
    assert r.status_code == 200, r.text
    return r.json()["player"]["playerId"], r.json()["token"]


def _calls(player: str) -> list[tuple[str, dict[str, Any]]]:
    """One call to each service that checks the token itself: table, scoring, lobby."""
    return [
        (
            "/okey.v1.TableService/CreateTable",
            {"options": {"game": "GAME_OKEY"}, "seats": [{"playerId": player}, {}, {}, {}]},
        ),
        ("/okey.v1.ScoringService/GetLeaderboard", {"game": "GAME_OKEY"}),
        ("/okey.v1.LobbyService/GetChips", {}),
    ]


def _refused_everywhere_within(http: httpx.Client, player: str, token: str, seconds: float) -> float:
    """How long until every service refuses ``token`` (401 BAD_TOKEN); fails after ``seconds``."""
    t0 = time.monotonic()
    pending = _calls(player)
    while pending and time.monotonic() - t0 < seconds:
        still = []
        for path, body in pending:
            r = _post(http, path, body, token)
            if not (r.status_code == 401 and r.json()["reason"] == "BAD_TOKEN"):
                still.append((path, body))
        pending = still
        if pending:
            time.sleep(0.1)
    assert not pending, f"still accepted after {seconds} s: {[p for p, _ in pending]}"
    return time.monotonic() - t0


def test_15_11_a_sign_out_and_a_ban_are_honoured_by_every_service_within_seconds(stack: ResilienceStack) -> None:
    stack.ensure_up()
    with httpx.Client(base_url=stack.http, timeout=HTTP_TIMEOUT_S) as http:
        # Sign-out: the token works everywhere, then nowhere.
        player, token = _sign_in(http, unique_name("Cikan"))
        for path, body in _calls(player)[1:]:
            assert _post(http, path, body, token).status_code == 200, path
        assert _post(http, "/okey.v1.LobbyService/SignOut", {}, token).status_code == 200
        took = _refused_everywhere_within(http, player, token, 5.0)
        print(f"sign-out honoured by table, scoring and lobby in {took:.2f} s")
        # A new sign-in is a new token (and account) that works.
        _, fresh = _sign_in(http, unique_name("Yeni"))
        assert _post(http, "/okey.v1.LobbyService/GetChips", {}, fresh).status_code == 200
        # Ban: a moderator bans a reported player; their token stops working everywhere.
        bad, bad_token = _sign_in(http, unique_name("Kotu"))
        _, reporter = _sign_in(http, unique_name("Sikayet"))
        assert (
            _post(http, "/okey.v1.ScoringService/GetLeaderboard", {"game": "GAME_OKEY"}, bad_token).status_code == 200
        )
        r = _post(
            http,
            "/okey.v1.LobbyService/ReportPlayer",
            {"playerId": bad, "reason": "REPORT_REASON_ABUSE", "details": "küfür etti"},
            reporter,
        )
        assert r.status_code == 200, r.text
        report_id = r.json()["reportId"]
        admin = stack.token("moderator-1", "admin")
        r = _post(
            http,
            "/okey.v1.LobbyService/ResolveReport",
            {"reportId": report_id, "action": "REPORT_ACTION_BAN", "durationMinutes": 60},
            admin,
        )
        assert r.status_code == 200, r.text
        took = _refused_everywhere_within(http, bad, bad_token, 5.0)
        print(f"ban honoured by table, scoring and lobby in {took:.2f} s")
        # Others are not touched.
        assert _post(http, "/okey.v1.LobbyService/GetChips", {}, reporter).status_code == 200

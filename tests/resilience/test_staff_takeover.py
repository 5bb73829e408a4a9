"""Issue 39 items 5 and 6 on the whole stack, through the public gateway.

Hole 6: a moderator banned an admin (every admin, for good; only the operator's token secret
undid it). Now staff are ranked (moderator < admin < operator, the holder of the token secret:
an admin token with a ``cli:`` subject, as ``okey admin`` mints): nobody bans, mutes, warns,
unbans, resolves a report against, or changes the role of staff of their own rank or above;
each refusal is PERMISSION_DENIED ``OUTRANKED`` and is written to the audit log.

Hole 7: one account filed 200 reports and ListReports returned the oldest 200 open reports with
no paging, so later real reports never reached a moderator. Now a reporter files at most 20 a
(Turkish) day (RESOURCE_EXHAUSTED ``TOO_MANY_REPORTS``), the queue is ordered most severe first,
then by how many players reported the same player, then newest, and pages with page tokens."""

from __future__ import annotations

import json
import random
import string
import uuid
from typing import Any

import httpx
from gateway_calls import lobby_post
from resilience_stack import ResilienceStack

from services.lobby.moderation import NameRejected, check_display_name

HTTP_TIMEOUT_S = 10.0


def _ok(http: httpx.Client, method: str, body: dict[str, Any], token: str | None = None) -> dict[str, Any]:
    r = lobby_post(http, method, body, token)
    assert r.status_code == 200, (method, r.text)
    out: dict[str, Any] = r.json()
    return out


def _refused(r: httpx.Response, status: int, reason: str) -> None:
    assert r.status_code == status and r.json().get("reason") == reason, r.text


def _guest(http: httpx.Client, name: str) -> dict[str, Any]:
    while True:  # six random letters can spell a word the lobby refuses: keep one it accepts
        shown = f"{name} {''.join(random.choices(string.ascii_lowercase, k=6))}"
        try:
            check_display_name(shown)
        except NameRejected:
            continue
        return _ok(http, "SignInGuest", {"displayName": shown, "deviceId": uuid.uuid4().hex})


def _staff(http: httpx.Client, operator: str, name: str, role: str) -> tuple[str, str]:
    """A real staff member: a guest given ``role`` by the operator; their refreshed token carries it."""
    g = _guest(http, name)
    pid = g["player"]["playerId"]
    _ok(http, "GrantRole", {"playerId": pid, "role": role, "reason": "test"}, operator)
    token = _ok(http, "RefreshSession", {"refreshToken": g["refreshToken"]})["token"]
    assert _ok(http, "GetPlayer", {}, token)["player"]["staffRole"] == role
    return pid, token


def _refusals(http: httpx.Client, operator: str, target: str) -> list[dict[str, Any]]:
    log = _ok(http, "ListAuditLog", {"limit": 500, "targetId": target}, operator)["entries"]
    return [e for e in log if e["action"] == "REFUSED"]


def test_39_6_a_moderator_cannot_ban_an_admin(stack: ResilienceStack) -> None:
    stack.ensure_up()
    operator = stack.token(f"cli:op-{uuid.uuid4().hex[:6]}", "admin")  # what `okey admin` mints
    with httpx.Client(base_url=stack.http, timeout=HTTP_TIMEOUT_S) as http:
        admin, admin_token = _staff(http, operator, "Ayse", "admin")
        admin2, admin2_token = _staff(http, operator, "Fatma", "admin")
        mod, mod_token = _staff(http, operator, "Mehmet", "moderator")
        mod2, _ = _staff(http, operator, "Ali", "moderator")
        player = _guest(http, "Oyuncu")
        pid = player["player"]["playerId"]

        # The attack: a moderator bans an admin. Refused, audited, and the admin still works.
        attack = {"playerId": admin, "durationMinutes": 0, "reason": "darbe"}
        _refused(lobby_post(http, "BanPlayer", attack, mod_token), 403, "OUTRANKED")
        assert lobby_post(http, "GetChips", {}, admin_token).status_code == 200
        [refusal] = _refusals(http, operator, admin)
        assert refusal["actorId"] == mod and refusal["actorRole"] == "moderator"
        detail = json.loads(refusal["detail"])
        assert (detail["attempted"], detail["target_role"], detail["refusal"]) == ("BAN", "admin", "OUTRANKED")
        # Nor a moderator of equal rank; nor an admin another admin; nor unban, nor through a report.
        _refused(lobby_post(http, "BanPlayer", {**attack, "playerId": mod2}, mod_token), 403, "OUTRANKED")
        _refused(lobby_post(http, "BanPlayer", {**attack, "playerId": admin2}, admin_token), 403, "OUTRANKED")
        _refused(lobby_post(http, "UnbanPlayer", {"playerId": admin2, "reason": "x"}, mod_token), 403, "OUTRANKED")
        report = _ok(
            http, "ReportPlayer", {"playerId": admin, "reason": "REPORT_REASON_ABUSE", "details": "?"}, player["token"]
        )["reportId"]
        for action, minutes in (("BAN", 0), ("MUTE", 60), ("WARN", 0)):
            body = {"reportId": report, "action": f"REPORT_ACTION_{action}", "durationMinutes": minutes, "note": "x"}
            _refused(lobby_post(http, "ResolveReport", body, mod_token), 403, "OUTRANKED")
        # Roles: a moderator grants none; an admin neither demotes nor removes another admin.
        _refused(lobby_post(http, "RevokeRole", {"playerId": admin2, "reason": "x"}, mod_token), 403, "ADMIN_ONLY")
        _refused(lobby_post(http, "RevokeRole", {"playerId": admin2, "reason": "x"}, admin_token), 403, "OUTRANKED")
        demote = {"playerId": admin2, "role": "moderator", "reason": "x"}
        _refused(lobby_post(http, "GrantRole", demote, admin_token), 403, "OUTRANKED")
        assert lobby_post(http, "GetChips", {}, admin2_token).status_code == 200  # untouched
        assert len(_refusals(http, operator, admin)) == 4  # the ban and the three resolutions
        assert {e["actorId"] for e in _refusals(http, operator, admin2)} == {mod, admin}

        # A moderator still bans a player; an admin sanctions a moderator; the operator an admin.
        _ok(http, "BanPlayer", {"playerId": pid, "durationMinutes": 60, "reason": "küfür"}, mod_token)
        _ok(http, "BanPlayer", {"playerId": mod2, "durationMinutes": 60, "reason": "yetki kötüye"}, admin_token)
        _ok(http, "UnbanPlayer", {"playerId": mod2, "reason": "itiraz"}, admin_token)
        _ok(http, "ResolveReport", {"reportId": report, "action": "REPORT_ACTION_WARN", "note": "uyarı"}, operator)
        _ok(http, "BanPlayer", {"playerId": admin2, "durationMinutes": 60, "reason": "devir"}, operator)
        _ok(http, "UnbanPlayer", {"playerId": admin2, "reason": "geri"}, operator)
        _ok(http, "RevokeRole", {"playerId": admin2, "reason": "görev bitti"}, operator)
        log = _ok(http, "ListAuditLog", {"limit": 500, "targetId": admin2}, operator)["entries"]
        assert [e["action"] for e in log][:3] == ["REVOKE_ROLE", "UNBAN", "BAN"]


def test_39_7_a_report_flood_cannot_bury_real_reports(stack: ResilienceStack) -> None:
    stack.ensure_up()
    operator = stack.token(f"cli:op-{uuid.uuid4().hex[:6]}", "admin")
    with httpx.Client(base_url=stack.http, timeout=HTTP_TIMEOUT_S) as http:
        _, mod_token = _staff(http, operator, "Selim", "moderator")
        flooder = _guest(http, "Sel")
        targets = [_guest(http, "Hedef")["player"]["playerId"] for _ in range(200)]

        # The attack: 200 reports, each against another player. Past 20 a day: refused.
        codes = []
        flood_ids = []
        for target in targets:
            r = lobby_post(
                http, "ReportPlayer", {"playerId": target, "reason": "REPORT_REASON_ABUSE"}, flooder["token"]
            )
            codes.append((r.status_code, r.json().get("reason", "")))
            if r.status_code == 200:
                flood_ids.append(int(r.json()["reportId"]))
        assert codes[:20] == [(200, "")] * 20, codes[:21]
        assert set(codes[20:]) == {(429, "TOO_MANY_REPORTS")}, set(codes[20:])

        # A later real report, by players who were not flooding, is on the first page.
        offender = _guest(http, "Kaba")["player"]["playerId"]
        real = [
            int(
                _ok(
                    http,
                    "ReportPlayer",
                    {"playerId": offender, "reason": "REPORT_REASON_ABUSE", "details": "tehdit"},
                    _guest(http, "Tanik")["token"],
                )["reportId"]
            )
            for _ in range(2)
        ]
        first = _ok(http, "ListReports", {"pageSize": 10}, mod_token)
        assert len(first["reports"]) == 10 and first["nextPageToken"]
        top = [int(r["reportId"]) for r in first["reports"]]
        assert set(real) <= set(top[:2]), (real, top)

        # Paging through the page tokens reaches every open report exactly once.
        seen: list[int] = []
        token = ""
        for _ in range(100):
            page = _ok(http, "ListReports", {"pageSize": 7, "pageToken": token}, mod_token)
            seen += [int(r["reportId"]) for r in page["reports"]]
            token = page.get("nextPageToken", "")
            if not token:
                break
        assert not token
        assert len(seen) == len(set(seen)), "a report came twice"
        assert set(flood_ids) | set(real) <= set(seen)
        whole = _ok(http, "ListReports", {"pageSize": 200}, mod_token)
        if not whole.get("nextPageToken"):
            assert [int(r["reportId"]) for r in whole["reports"]] == seen
        bad = lobby_post(http, "ListReports", {"pageToken": "not-a-token"}, mod_token)
        _refused(bad, 400, "INVALID_ARGUMENT")

        # Resolving works, and the report leaves the open queue.
        resolved = _ok(
            http,
            "ResolveReport",
            {"reportId": flood_ids[0], "action": "REPORT_ACTION_DISMISS", "note": "asılsız"},
            mod_token,
        )["report"]
        assert resolved["status"] == "REPORT_STATUS_RESOLVED" and int(resolved["reportId"]) == flood_ids[0]
        again = _ok(http, "ListReports", {"pageSize": 200}, mod_token)["reports"]
        assert flood_ids[0] not in {int(r["reportId"]) for r in again}

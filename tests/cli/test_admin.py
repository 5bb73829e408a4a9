"""``okey admin`` as a person runs it (issue 22.1), against a real ``okey up`` (its data
directory's token-secret signs the command's own admin token; OKEY_LOBBY_ADDR finds the lobby):
the first moderator granted, the report queue read and resolved, a ban and an unban, chips
adjusted through the ledger, a token for scripts, the audit log of it all, a role revoked; and
the expected failures, each one line on stderr with exit 2."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from okey_up import call, down, free_ports, reachable_dir, up, up_env
from okeyplatform.auth import verify_token

ADMIN_COMMANDS = [
    ["grant"],
    ["revoke"],
    ["staff"],
    ["token"],
    ["reports"],
    ["resolve"],
    ["ban"],
    ["unban"],
    ["chips"],
    ["chips", "adjust"],
    ["audit"],
]


def okey(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "okeytools.cli", *args], env=env, capture_output=True, text=True, timeout=60
    )


def _one_line_error(got: subprocess.CompletedProcess[str], *words: str) -> None:
    assert got.returncode == 2, (got.stdout, got.stderr)
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("okey admin "), got.stderr
    for w in words:
        assert w in lines[0], lines[0]


@pytest.mark.parametrize("sub", ADMIN_COMMANDS, ids=" ".join)
def test_every_admin_subcommand_has_help(sub: list[str]) -> None:
    got = okey(dict(os.environ), "admin", *sub, "--help")
    assert got.returncode == 0, got.stderr
    assert "usage: okey admin " + " ".join(sub) in got.stdout


def test_without_a_token_secret_or_a_lobby_it_says_so_in_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OKEY_TOKEN_SECRET"}
    _one_line_error(okey({**env, "OKEY_DATA_DIR": str(tmp_path)}, "admin", "audit"), "no token secret", "--data-dir")
    away = {**env, "OKEY_TOKEN_SECRET": "s" * 64, "OKEY_LOBBY_ADDR": "127.0.0.1:9"}
    _one_line_error(okey(away, "admin", "reports"), "not reachable", "OKEY_LOBBY_ADDR")
    _one_line_error(okey(away, "admin", "token", "--ttl", "5"), "--ttl")


def test_okey_admin_runs_the_staff_work_and_the_tournaments_against_okey_up() -> None:
    """One ``okey up`` for both (its start is the expensive part): the staff work, then
    ``okey admin tournament`` (test_admin_tournaments.py)."""
    from test_admin_tournaments import tournaments  # it imports this module's helpers

    data = reachable_dir("okey-admin-")
    try:
        ports, http_addr = free_ports()
        # the two parts' guests are more than one address may open (and be granted chips) a day
        quotas = {"OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0", "OKEY_DAILY_GRANTS_PER_ADDRESS": "0"}
        env = up_env(data / "okey", ports) | quotas
        proc = up(env)
        try:
            with httpx.Client(base_url=f"http://{http_addr}", timeout=20) as http:
                _staff_work(env, http, data / "okey" / "token-secret")
                tournaments(env, http)
        finally:
            down(proc)
    finally:
        shutil.rmtree(data, ignore_errors=True)


def _staff_work(env: dict[str, str], http: httpx.Client, secret_file: Path) -> None:
    lobby = "okey.v1.LobbyService/"
    mod = call(http, lobby + "SignInGuest", {"displayName": "Defne"})
    victim = call(http, lobby + "SignInGuest", {"displayName": "Umut"})
    rude = call(http, lobby + "SignInGuest", {"displayName": "Asabi"})
    mod_id, victim_id, rude_id = (p["player"]["playerId"] for p in (mod, victim, rude))

    assert "no staff yet" in okey(env, "admin", "staff").stdout
    got = okey(env, "admin", "grant", mod_id, "moderator", "--reason", "ilk moderatör")
    assert got.returncode == 0 and f"{mod_id} is now moderator" in got.stdout, got.stderr
    assert f"{mod_id}  moderator  Defne  (by cli:" in okey(env, "admin", "staff").stdout
    refreshed = call(http, lobby + "RefreshSession", {"refreshToken": mod["refreshToken"]})
    assert verify_token(refreshed["token"], secret_file.read_text().strip().encode()).role == "moderator"

    sent = call(http, lobby + "SendMessage", {"text": "bu masada oyun olmaz"}, rude["token"])["message"]
    report_id = call(
        http,
        lobby + "ReportPlayer",
        {"playerId": rude_id, "reason": "REPORT_REASON_ABUSE", "messageIds": [sent["messageId"]]},
        victim["token"],
    )["reportId"]
    queue = okey(env, "admin", "reports")
    assert f"#{report_id} OPEN ABUSE: Asabi ({rude_id}) reported by Umut" in queue.stdout, queue.stdout
    assert f"> [{sent['messageId']}] Asabi: bu masada oyun olmaz" in queue.stdout
    got = okey(env, "admin", "resolve", str(report_id), "mute", "--minutes", "30", "--reason", "laf atma")
    assert got.returncode == 0 and f"report #{report_id} resolved: MUTE Asabi" in got.stdout, got.stderr
    _one_line_error(okey(env, "admin", "resolve", str(report_id), "warn", "--reason", "x"), "ALREADY_RESOLVED")
    assert "no open reports" in okey(env, "admin", "reports").stdout

    got = okey(env, "admin", "ban", rude_id, "--minutes", "60", "--reason", "tekrar eden hakaret")
    assert got.returncode == 0 and "banned until" in got.stdout, got.stderr
    assert http.post("/api/" + lobby + "GetChips", json={}, headers=_auth(rude["token"])).status_code == 401
    assert okey(env, "admin", "unban", rude_id, "--reason", "itiraz kabul").returncode == 0
    _one_line_error(okey(env, "admin", "unban", rude_id, "--reason", "yine"), "NOT_BANNED")
    _one_line_error(okey(env, "admin", "ban", "p-nobody", "--reason", "x"), "PLAYER_NOT_FOUND")
    assert okey(env, "admin", "ban", rude_id).returncode == 2  # --reason is required

    before = int(call(http, lobby + "GetChips", {}, victim["token"])["balance"])
    got = okey(env, "admin", "chips", "adjust", victim_id, "500", "--reason", "kayıp jeton iadesi")
    assert got.returncode == 0 and f"balance {before + 500}" in got.stdout, got.stderr
    chips = call(http, lobby + "GetChips", {}, victim["token"])
    assert int(chips["balance"]) == before + 500 and chips["entries"][0]["kind"] == "adjustment"
    _one_line_error(
        okey(env, "admin", "chips", "adjust", victim_id, "-99999999", "--reason", "fazla"), "INSUFFICIENT_CHIPS"
    )

    token = okey(env, "admin", "token", "--ttl", "120").stdout.strip()
    assert verify_token(token, secret_file.read_text().strip().encode()).role == "admin"
    scripted = call(http, lobby + "ListAuditLog", {"limit": 20}, token)["entries"]
    assert [e["action"] for e in scripted] == ["ADJUST_CHIPS", "UNBAN", "BAN", "MUTE", "GRANT_ROLE"]

    _one_line_error(okey(env, "admin", "revoke", mod_id, "admin"), "is moderator, not admin")
    got = okey(env, "admin", "revoke", mod_id, "moderator", "--reason", "ayrıldı")
    assert got.returncode == 0 and "no longer moderator" in got.stdout, got.stderr
    denied = http.post("/api/" + lobby + "ListReports", json={}, headers=_auth(refreshed["token"]))
    assert denied.status_code == 401  # revoked at once, the token not yet expired

    audit = okey(env, "admin", "audit").stdout.splitlines()
    assert [line.split("  ")[2] for line in audit] == [
        "REVOKE_ROLE",
        "ADJUST_CHIPS",
        "UNBAN",
        "BAN",
        "MUTE",
        "GRANT_ROLE",
    ], audit
    assert audit[-1].endswith("- ilk moderatör") and "(admin)" in audit[-1] and " cli:" in " " + audit[-1]
    assert "kayıp jeton iadesi" in audit[1] and '"amount":500' in audit[1]
    assert len(okey(env, "admin", "audit", "--player", rude_id).stdout.splitlines()) == 3

    # The queue a page at a time (issue 39.6): most severe first; the last line gives the next page.
    older = call(http, lobby + "ReportPlayer", {"playerId": mod_id, "reason": "REPORT_REASON_OTHER"}, victim["token"])
    witness = call(http, lobby + "SignInGuest", {"displayName": "Tanik"})
    newer = call(http, lobby + "ReportPlayer", {"playerId": rude_id, "reason": "REPORT_REASON_ABUSE"}, witness["token"])
    first = okey(env, "admin", "reports", "--limit", "1").stdout.splitlines()
    assert first[0].startswith(f"#{newer['reportId']} OPEN ABUSE") and first[-1].startswith("more: "), first
    page_token = first[-1].split("--page-token ")[1]
    second = okey(env, "admin", "reports", "--limit", "1", "--page-token", page_token).stdout
    assert second.startswith(f"#{older['reportId']} OPEN OTHER") and "more: " not in second, second
    both = okey(env, "admin", "reports", "--limit", "1", "--all-pages").stdout
    assert both.index(f"#{newer['reportId']} ") < both.index(f"#{older['reportId']} ") and "more: " not in both


def _auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}

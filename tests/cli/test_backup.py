"""Issue 22.4: ``okey backup FILE`` then ``okey restore FILE`` into a fresh data directory gives
the same standings and results, a player signs in again with their device credential and finds
their chips, ``okey replay --verify`` agrees on the restored log, and a restore never goes over
a database that holds data."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import httpx
from okey_up import bot_match, call, down, free_ports, reachable_dir, up, up_env


def _okey(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "okeytools.cli", *args], env=env, capture_output=True, text=True, timeout=300
    )


def _board(http: httpx.Client, token: str) -> list[object]:
    got = call(http, "okey.v1.ScoringService/GetLeaderboard", {"game": "GAME_OKEY"}, token)
    return list(got.get("entries", []))


def test_a_backup_restored_into_a_fresh_data_directory_is_the_same_install() -> None:
    root = reachable_dir("okey-backup-")
    try:
        ports, http_addr = free_ports()
        first = up_env(root / "first", ports)
        proc = up(first)
        try:
            with httpx.Client(base_url=f"http://{http_addr}", timeout=20) as http:
                guest = call(http, "okey.v1.LobbyService/SignInGuest", {"displayName": "Yedek Ayse"})
                token, secret = guest["token"], guest["deviceSecret"]
                chips = call(http, "okey.v1.LobbyService/GetChips", {}, token)["balance"]
                table_id, result = bot_match(http, token, "backup-1")
                board = _board(http, token)
        finally:
            down(proc)
        dump = root / "okey.dump"
        got = _okey(first, "backup", str(dump), "--data-dir", str(root / "first"))
        assert got.returncode == 0, got.stderr
        assert dump.stat().st_size > 0 and re.search(r"[\d,]+ events", got.stdout), got.stdout
        assert _okey(first, "backup", str(dump), "--data-dir", str(root / "first")).returncode == 2  # no overwrite

        second = up_env(root / "second", ports)
        got = _okey(second, "restore", str(dump), "--data-dir", str(root / "second"))
        assert got.returncode == 0, got.stderr
        again = _okey(second, "restore", str(dump), "--data-dir", str(root / "second"))
        assert again.returncode == 2 and "fresh data directory" in again.stderr  # never over data

        proc = up(second)
        try:
            printed = "".join(proc.seen)  # type: ignore[attr-defined]
            url = re.search(r"PostgreSQL\s+(postgresql://\S+)", printed)
            assert url, printed
            with httpx.Client(base_url=f"http://{http_addr}", timeout=20) as http:
                back = call(http, "okey.v1.LobbyService/SignInGuest", {"deviceSecret": secret})
                assert back["player"]["playerId"] == guest["player"]["playerId"]
                assert call(http, "okey.v1.LobbyService/GetChips", {}, back["token"])["balance"] == chips
                kept = call(http, "okey.v1.ScoringService/GetMatchResult", {"tableId": table_id}, back["token"])
                assert kept["result"] == result
                assert _board(http, back["token"]) == board
            verify = _okey({**os.environ, "OKEY_DATABASE_URL": url.group(1)}, "replay", "--verify", "--no-swap")
            assert verify.returncode == 0, verify.stdout + verify.stderr
        finally:
            down(proc)
    finally:
        shutil.rmtree(root, ignore_errors=True)

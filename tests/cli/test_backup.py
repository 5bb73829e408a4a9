"""Issues 22.3 and 22.4 on one ``okey up`` install (one test: each ``okey up`` start is the
expensive part).

- 22.3: stopped and started again on the same data directory, a guest's token still works, their
  chips are where they were, and a finished match's result (a bot match and a ranked one) and the
  standings (every leaderboard, with the players of the ranked match on it) are still there
  (PostgreSQL with fsync on, the tokens' key kept beside it).
- 22.4: ``okey backup FILE`` then ``okey restore FILE`` into a fresh data directory gives the same
  install: every leaderboard, a ranked match's result, a player who signs in again with their
  device credential and finds their chips, the same figures from ``okey replay --verify`` before
  the backup and on the restored log; a relay started on the restored database, against the NATS
  it published to before, publishes nothing twice (its cursor came back with the log); and a
  restore never goes over a database that holds data."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
import time

import httpx
from okey_up import boards, bot_match, call, down, free_ports, ranked_match, reachable_dir, up, up_env
from okeybench.books import check_log_and_stream
from okeytools.embedded import EmbeddedNats


def _okey(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "okeytools.cli", *args], env=env, capture_output=True, text=True, timeout=300
    )


def _database_url(proc: subprocess.Popen[str]) -> str:
    """The PostgreSQL URL ``okey up`` printed at start."""
    printed = "".join(proc.seen)  # type: ignore[attr-defined]
    url = re.search(r"PostgreSQL\s+(postgresql://\S+)", printed)
    assert url, printed
    return url.group(1)


def _verify(url: str) -> list[str]:
    """What ``okey replay --verify --no-swap`` found on the log at ``url``, without its timings."""
    got = _okey({**os.environ, "OKEY_DATABASE_URL": url}, "replay", "--verify", "--no-swap")
    assert got.returncode == 0, got.stdout + got.stderr
    assert "verify     OK" in got.stdout and "equals the live one" in got.stdout, got.stdout
    assert not re.search(r"events +0 in", got.stdout), got.stdout  # a log it could not see passes vacuously
    lines = [line for line in got.stdout.splitlines() if line.strip()]
    return [re.sub(r"\([\d,.]+ events/s\)|[\d,.]+ s\b", "", line) for line in lines]


def _log_count(url: str) -> int:
    import asyncpg

    async def go() -> int:
        conn = await asyncpg.connect(url)
        try:
            return int(await conn.fetchval("SELECT count(*) FROM okey_events"))
        finally:
            await conn.close()

    return asyncio.run(go())


def _published(metrics_addr: str) -> float:
    """The table service's ``okey_relay_published_total``: events JetStream acknowledged (a
    duplicate it dropped is acknowledged too, so a republished event counts here)."""
    text = httpx.get(f"http://{metrics_addr}/metrics", timeout=10).text
    found = re.findall(r"^okey_relay_published_total(?:\{[^}]*\})? ([\d.e+]+)$", text, re.M)
    return sum(float(x) for x in found)


def test_okey_up_keeps_its_data_across_a_restart_and_a_backup_restored_elsewhere_is_the_same_install() -> None:
    root = reachable_dir("okey-backup-")
    try:
        with EmbeddedNats() as nats:  # one NATS for both installs: the restored one publishes where the first did
            ports, http_addr = free_ports()
            first = {**up_env(root / "first", ports), "OKEY_NATS_URL": nats.url}
            proc = up(first)
            try:
                with httpx.Client(base_url=f"http://{http_addr}", timeout=20) as http:
                    guest = call(http, "okey.v1.LobbyService/SignInGuest", {"displayName": "Yedek Ayse"})
                    token, secret = guest["token"], guest["deviceSecret"]
                    other = call(http, "okey.v1.LobbyService/SignInGuest", {"displayName": "Yedek Bora"})["token"]
                    bot_table, bot_result = bot_match(http, token, "keep-1")
                    table_id, result = ranked_match(http, (token, other))
                    chips = call(http, "okey.v1.LobbyService/GetChips", {}, token)["balance"]
                    standings = boards(http, token)
                    on_board = standings["GAME_OKEY LEADERBOARD_PERIOD_ALL_TIME"].get("entries", [])
                    assert guest["player"]["playerId"] in {e["playerId"] for e in on_board}, standings
                before = _verify(_database_url(proc))
            finally:
                down(proc)
            assert (root / "first" / "postgres").is_dir() and (root / "first" / "token-secret").is_file()

            # 22.3: started again on the same data, everything is where it was
            proc = up(first)
            try:
                with httpx.Client(base_url=f"http://{http_addr}", timeout=20) as http:
                    again = call(http, "okey.v1.LobbyService/GetChips", {}, token)  # the same token: the same key
                    assert again["balance"] == chips
                    me = call(http, "okey.v1.LobbyService/GetPlayer", {}, token)["player"]
                    assert me["displayName"] == "Yedek Ayse"
                    for tid, kept in ((bot_table, bot_result), (table_id, result)):
                        got = call(http, "okey.v1.ScoringService/GetMatchResult", {"tableId": tid}, token)
                        assert got["result"] == kept
                    assert boards(http, token) == standings  # every leaderboard, each entry as it was
            finally:
                down(proc)
            dump = root / "okey.dump"
            got = _okey(first, "backup", str(dump), "--data-dir", str(root / "first"))
            assert got.returncode == 0, got.stderr
            assert dump.stat().st_size > 0 and re.search(r"[\d,]+ events", got.stdout), got.stdout
            assert _okey(first, "backup", str(dump), "--data-dir", str(root / "first")).returncode == 2  # no overwrite

            second = {**up_env(root / "second", ports), "OKEY_NATS_URL": nats.url}
            got = _okey(second, "restore", str(dump), "--data-dir", str(root / "second"))
            assert got.returncode == 0, got.stderr
            again = _okey(second, "restore", str(dump), "--data-dir", str(root / "second"))
            assert again.returncode == 2 and "fresh data directory" in again.stderr  # never over data

            proc = up(second)
            try:
                url = _database_url(proc)
                restored = _log_count(url)
                with httpx.Client(base_url=f"http://{http_addr}", timeout=20) as http:
                    back = call(http, "okey.v1.LobbyService/SignInGuest", {"deviceSecret": secret})
                    assert back["player"]["playerId"] == guest["player"]["playerId"]
                    assert call(http, "okey.v1.LobbyService/GetChips", {}, back["token"])["balance"] == chips
                    kept = call(http, "okey.v1.ScoringService/GetMatchResult", {"tableId": table_id}, back["token"])
                    assert kept["result"] == result
                    assert boards(http, back["token"]) == standings  # every board, each entry as it was
                    assert _verify(url) == before  # the same figures, not only exit 0
                    # New events after the restore: the relay publishes them, and only them.
                    new_table, _ = bot_match(http, back["token"], "after-restore")
                metrics = ports["OKEY_TABLE_METRICS_ADDR"]
                deadline = time.monotonic() + 60
                while _published(metrics) < _log_count(url) - restored and time.monotonic() < deadline:
                    time.sleep(0.5)
                assert _published(metrics) == _log_count(url) - restored  # nothing from before the backup again
                books = asyncio.run(check_log_and_stream(url, nats.url, [table_id, new_table]))
                assert not books.problems and books.jetstream_messages == books.events, books.problems
            finally:
                down(proc)
    finally:
        shutil.rmtree(root, ignore_errors=True)

"""Issue 22.3: ``okey up`` keeps its data. Stopped and started again on the same data directory,
a guest's token still works, their chips are where they were, and a finished match's result is
still there (PostgreSQL with fsync on, NATS's store, the tokens' key kept beside them)."""

from __future__ import annotations

import shutil

import httpx
from okey_up import bot_match, call, down, free_ports, reachable_dir, up, up_env


def test_okey_up_stopped_and_started_again_keeps_players_chips_and_results() -> None:
    data = reachable_dir("okey-up-data-")
    try:
        ports, http_addr = free_ports()
        env = up_env(data / "okey", ports)
        proc = up(env)
        try:
            with httpx.Client(base_url=f"http://{http_addr}", timeout=20) as http:
                token = call(http, "okey.v1.LobbyService/SignInGuest", {"displayName": "Kalici Ali"})["token"]
                chips = call(http, "okey.v1.LobbyService/GetChips", {}, token)
                assert int(chips["balance"]) > 0
                table_id, result = bot_match(http, token, "keep-1")
        finally:
            down(proc)
        assert (data / "okey" / "postgres").is_dir() and (data / "okey" / "token-secret").is_file()

        proc = up(env)
        try:
            with httpx.Client(base_url=f"http://{http_addr}", timeout=20) as http:
                again = call(http, "okey.v1.LobbyService/GetChips", {}, token)  # the same token: the same key
                assert again["balance"] == chips["balance"]
                assert call(http, "okey.v1.LobbyService/GetPlayer", {}, token)["player"]["displayName"] == "Kalici Ali"
                kept = call(http, "okey.v1.ScoringService/GetMatchResult", {"tableId": table_id}, token)["result"]
                assert kept == result
        finally:
            down(proc)
    finally:
        shutil.rmtree(data, ignore_errors=True)

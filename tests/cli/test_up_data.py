"""Issue 22.3: ``okey up`` keeps its data. Stopped and started again on the same data directory,
a guest's token still works, their chips are where they were, and a finished match's result and
the standings (every leaderboard, with the players of a ranked match on it) are still there
(PostgreSQL with fsync on, NATS's store, the tokens' key kept beside them)."""

from __future__ import annotations

import shutil

import httpx
from okey_up import boards, bot_match, call, down, free_ports, ranked_match, reachable_dir, up, up_env


def test_okey_up_stopped_and_started_again_keeps_players_chips_results_and_standings() -> None:
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
                other = call(http, "okey.v1.LobbyService/SignInGuest", {"displayName": "Kalici Veli"})["token"]
                ranked_id, ranked = ranked_match(http, (token, other))
                chips = call(http, "okey.v1.LobbyService/GetChips", {}, token)
                standings = boards(http, token)
                entries = standings["GAME_OKEY LEADERBOARD_PERIOD_ALL_TIME"].get("entries", [])
                ids = {s["playerId"] for s in ranked["standings"] if s.get("playerId")}
                assert len(ids) == 2 and ids <= {e["playerId"] for e in entries}, standings
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
                again_ranked = call(http, "okey.v1.ScoringService/GetMatchResult", {"tableId": ranked_id}, token)
                assert again_ranked["result"] == ranked
                assert boards(http, token) == standings  # every leaderboard, each entry as it was
        finally:
            down(proc)
    finally:
        shutil.rmtree(data, ignore_errors=True)

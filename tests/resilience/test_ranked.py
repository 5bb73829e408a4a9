"""Issue 15.6, leaderboard farming, on the whole stack through the public gateway: a guest opens
an all-bot table with match points 1 and never moves (the seat goes on autopilot and the bots
play it out). The match ends and is recorded, but it is practice: no ranked match, no win, no
place on the leaderboard; the hands still count in the player's hand stats."""

from __future__ import annotations

import time
import uuid
from typing import Any

import httpx
from names import unique_name
from resilience_stack import ResilienceStack


def _post(http: httpx.Client, path: str, body: dict[str, Any], token: str) -> httpx.Response:
    return http.post(f"/api{path}", json=body, headers={"authorization": f"Bearer {token}"})


def test_15_6_a_match_against_bots_on_autopilot_earns_no_ranked_win(stack: ResilienceStack) -> None:
    stack.ensure_up()
    with httpx.Client(base_url=stack.http, timeout=10.0) as http:
        r = http.post(
            "/api/okey.v1.LobbyService/SignInGuest",
            json={"displayName": unique_name("Ciftci"), "deviceId": uuid.uuid4().hex},
        )
        assert r.status_code == 200, r.text
        player, token = r.json()["player"]["playerId"], r.json()["token"]
        options = {"game": "GAME_OKEY", "matchPoints": 1, "turnSeconds": 5}
        r = _post(
            http,
            "/okey.v1.TableService/CreateTable",
            {"options": options, "seats": [{"playerId": player}, {}, {}, {}]},
            token,
        )
        assert r.status_code == 200, r.text
        table_id = r.json()["tableId"]
        deadline = time.monotonic() + 150
        result = None
        while time.monotonic() < deadline:  # the player never moves: timeouts, autopilot, bots
            r = _post(http, "/okey.v1.ScoringService/GetMatchResult", {"tableId": table_id}, token)
            if r.status_code == 200:
                result = r.json()["result"]
                break
            time.sleep(1.0)
        assert result is not None, "the match did not end"
        mine = next(s for s in result["standings"] if s.get("playerId") == player)
        stats = _post(http, "/okey.v1.ScoringService/GetPlayerStats", {"playerId": player}, token)
        assert stats.status_code == 200, stats.text
        (okey,) = stats.json()["stats"]
        assert int(okey.get("matches", 0)) == 0 and int(okey.get("wins", 0)) == 0  # practice: not ranked
        assert int(okey.get("handsPlayed", 0)) >= 1  # the hands are still the player's
        board = _post(http, "/okey.v1.ScoringService/GetLeaderboard", {"game": "GAME_OKEY", "pageSize": 100}, token)
        assert board.status_code == 200 and player not in {e.get("playerId") for e in board.json().get("entries", [])}
        print(f"match ended, seat 0 {'won' if mine.get('winner') else 'lost'}: recorded, not ranked")

"""Calls of the lobby through the public gateway's HTTP/JSON route, as the account and staff
attack tests make them: many in a row, so a call the gateway's rate limit refuses
(RATE_LIMITED) is sent again a moment later rather than failing the test."""

from __future__ import annotations

import time
from typing import Any

import httpx

__all__ = ["LOBBY", "lobby_post"]

LOBBY = "/okey.v1.LobbyService"


def lobby_post(http: httpx.Client, method: str, body: dict[str, Any], token: str | None = None) -> httpx.Response:
    """``LobbyService/<method>`` with ``body`` (protobuf's JSON) and the bearer ``token``, if any."""
    headers = {"authorization": f"Bearer {token}"} if token else {}
    for _ in range(100):
        r = http.post(f"/api{LOBBY}/{method}", json=body, headers=headers)
        if r.status_code != 429 or r.json().get("reason") != "RATE_LIMITED":
            return r
        time.sleep(0.1)
    return r

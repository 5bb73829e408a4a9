"""Running ``okey up`` as a person does, for the tests of its data directory and its backups: a
data directory the embedded PostgreSQL's user can reach, every address on a free port."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from okeytools.embedded import free_port
from okeytools.stack import ADDR_ENV, METRICS_ENV


def free_ports() -> tuple[dict[str, str], str]:
    """Every service's gRPC and metrics address and the gateway's HTTP one on free ports; and the HTTP one."""
    ports = {ADDR_ENV[name]: f"127.0.0.1:{free_port()}" for name in ADDR_ENV}
    ports |= {METRICS_ENV[name]: f"127.0.0.1:{free_port()}" for name in METRICS_ENV}
    http_addr = f"127.0.0.1:{free_port()}"
    ports["OKEY_GATEWAY_HTTP_ADDR"] = http_addr
    return ports, http_addr


# The services' waits that are a person's, not the system's: bots that move at once instead of
# thinking like a person where one is seated (the pace has tests of its own, tests/bots), and a
# timed-out turn played 0.5 s after its deadline instead of 3 s (the grace: tests/table).
QUICK = {"OKEY_BOTS_PACE": "instant", "OKEY_TIMEOUT_GRACE_MS": "500"}


def up_env(data: Path, ports: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OKEY_DATABASE_URL", "OKEY_NATS_URL", "OKEY_TOKEN_SECRET")}
    return {**env, **ports, **QUICK, "OKEY_DATA_DIR": str(data), "OKEY_LOG_LEVEL": "WARNING"}


def up(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "okeytools.cli", "up", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 120
    seen = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if line.startswith("ready."):
            proc.seen = seen  # type: ignore[attr-defined]  # what it printed: the URLs
            return proc
    proc.kill()
    raise AssertionError("okey up did not become ready:\n" + "".join(seen[-30:]))


def down(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    assert proc.returncode == 0


def call(http: httpx.Client, rpc: str, body: dict[str, Any], token: str = "") -> dict[str, Any]:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    r = http.post(f"/api/{rpc}", json=body, headers=headers)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def bot_match(http: httpx.Client, token: str, command_id: str) -> tuple[str, dict[str, Any]]:
    """Open an all-bot table (the guest's own: four bots, one point) and wait for its result."""
    made = call(
        http,
        "okey.v1.TableService/CreateTable",
        {"options": {"game": "GAME_OKEY", "matchPoints": 1}, "seats": [{}, {}, {}, {}], "commandId": command_id},
        token,
    )
    table_id = str(made["tableId"])
    return table_id, _result(http, token, table_id, seconds=150)  # four bots play at once


def _result(http: httpx.Client, token: str, table_id: str, seconds: float) -> dict[str, Any]:
    """The table's match result from the scoring service, once the match has ended."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        r = http.post(
            "/api/okey.v1.ScoringService/GetMatchResult",
            json={"tableId": table_id},
            headers={"authorization": f"Bearer {token}"},
        )
        if r.status_code == 200 and r.json().get("result"):
            return dict(r.json()["result"])
        time.sleep(0.5)
    raise AssertionError(f"the match at {table_id} did not end")


def ranked_match(http: httpx.Client, tokens: tuple[str, str]) -> tuple[str, dict[str, Any]]:
    """Two people at one lobby table, bots on the other seats, a one-point match, and its result.
    Neither person moves: their turns time out, their seats go on autopilot and the bots play
    the match out. Two people make it ranked, so both are on the leaderboards (a match each, no
    win a bot played), unlike an all-bot table's practice."""
    first, second = tokens
    options = {"game": "GAME_OKEY", "matchPoints": 1, "turnSeconds": 5, "stake": "0"}
    opened = call(http, "okey.v1.LobbyService/OpenTable", {"options": options}, first)
    table_id = str(opened["table"]["tableId"])
    call(http, "okey.v1.LobbyService/JoinTable", {"tableId": table_id}, second)
    call(http, "okey.v1.LobbyService/FillWithBots", {"tableId": table_id}, first)
    return table_id, _result(http, first, table_id, seconds=240)


BOARDS = [
    (game, period)
    for game in ("GAME_OKEY", "GAME_OKEY101")
    for period in ("LEADERBOARD_PERIOD_ALL_TIME", "LEADERBOARD_PERIOD_WEEKLY")
]
"""Every leaderboard the scoring API offers: each game's, all time and this week's."""


def boards(http: httpx.Client, token: str) -> dict[str, dict[str, Any]]:
    """Each of :data:`BOARDS` as ScoringService.GetLeaderboard gives it (a page of 100)."""
    out = {}
    for game, period in BOARDS:
        got = call(
            http, "okey.v1.ScoringService/GetLeaderboard", {"game": game, "period": period, "pageSize": 100}, token
        )
        out[f"{game} {period}"] = got
    return out


def reachable_dir(prefix: str) -> Path:
    """A directory the unprivileged user of the embedded PostgreSQL can reach (pytest's are 0700)."""
    import tempfile

    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o711)
    return path

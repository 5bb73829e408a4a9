"""Issue 22.3: ``okey up`` keeps its data. Stopped and started again on the same data directory,
a guest's token still works, their chips are where they were, and a finished match's result is
still there (PostgreSQL with fsync on, NATS's store, the tokens' key kept beside them)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from okeytools.embedded import free_port
from okeytools.stack import ADDR_ENV, METRICS_ENV


def _env(data: Path, ports: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OKEY_DATABASE_URL", "OKEY_NATS_URL", "OKEY_TOKEN_SECRET")}
    return {**env, **ports, "OKEY_DATA_DIR": str(data), "OKEY_LOG_LEVEL": "WARNING"}


def _up(env: dict[str, str]) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "okeytools.cli", "up"],
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
            return proc
    proc.kill()
    raise AssertionError("okey up did not become ready:\n" + "".join(seen[-30:]))


def _down(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    assert proc.returncode == 0


def _call(http: httpx.Client, rpc: str, body: dict[str, Any], token: str = "") -> dict[str, Any]:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    r = http.post(f"/api/{rpc}", json=body, headers=headers)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def test_okey_up_stopped_and_started_again_keeps_players_chips_and_results() -> None:
    # A directory the unprivileged user of the embedded PostgreSQL can reach (pytest's are 0700).
    data = Path(tempfile.mkdtemp(prefix="okey-up-data-"))
    data.chmod(0o711)
    try:
        _keeps(data)
    finally:
        shutil.rmtree(data, ignore_errors=True)


def _keeps(tmp_path: Path) -> None:
    ports = {ADDR_ENV[name]: f"127.0.0.1:{free_port()}" for name in ADDR_ENV}
    ports |= {METRICS_ENV[name]: f"127.0.0.1:{free_port()}" for name in METRICS_ENV}
    http_addr = f"127.0.0.1:{free_port()}"
    ports["OKEY_GATEWAY_HTTP_ADDR"] = http_addr
    env = _env(tmp_path / "okey", ports)
    proc = _up(env)
    try:
        with httpx.Client(base_url=f"http://{http_addr}", timeout=20) as http:
            guest = _call(http, "okey.v1.LobbyService/SignInGuest", {"displayName": "Kalici Ali"})
            token = guest["token"]
            chips = _call(http, "okey.v1.LobbyService/GetChips", {}, token)
            assert int(chips["balance"]) > 0
            made = _call(
                http,
                "okey.v1.TableService/CreateTable",
                {"options": {"game": "GAME_OKEY", "matchPoints": 1}, "seats": [{}, {}, {}, {}], "commandId": "keep-1"},
                token,
            )
            table_id = made["tableId"]
            result: dict[str, Any] = {}
            for _ in range(300):  # four bots play the match (an all-bot table: at once)
                r = http.post(
                    "/api/okey.v1.ScoringService/GetMatchResult",
                    json={"tableId": table_id},
                    headers={"authorization": f"Bearer {token}"},
                )
                if r.status_code == 200 and r.json().get("result"):
                    result = r.json()["result"]
                    break
                time.sleep(0.5)
            assert result, "the bot match did not end"
    finally:
        _down(proc)
    assert (tmp_path / "okey" / "postgres").is_dir() and (tmp_path / "okey" / "token-secret").is_file()

    proc = _up(env)
    try:
        with httpx.Client(base_url=f"http://{http_addr}", timeout=20) as http:
            again = _call(http, "okey.v1.LobbyService/GetChips", {}, token)  # the same token: the same key
            assert again["balance"] == chips["balance"]
            assert _call(http, "okey.v1.LobbyService/GetPlayer", {}, token)["player"]["displayName"] == "Kalici Ali"
            kept = _call(http, "okey.v1.ScoringService/GetMatchResult", {"tableId": table_id}, token)["result"]
            assert kept == result
    finally:
        _down(proc)

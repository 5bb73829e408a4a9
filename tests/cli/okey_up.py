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


def up_env(data: Path, ports: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OKEY_DATABASE_URL", "OKEY_NATS_URL", "OKEY_TOKEN_SECRET")}
    return {**env, **ports, "OKEY_DATA_DIR": str(data), "OKEY_LOG_LEVEL": "WARNING"}


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
    for _ in range(300):  # four bots play the match (an all-bot table: at once)
        r = http.post(
            "/api/okey.v1.ScoringService/GetMatchResult",
            json={"tableId": table_id},
            headers={"authorization": f"Bearer {token}"},
        )
        if r.status_code == 200 and r.json().get("result"):
            return table_id, dict(r.json()["result"])
        time.sleep(0.5)
    raise AssertionError("the bot match did not end")


def reachable_dir(prefix: str) -> Path:
    """A directory the unprivileged user of the embedded PostgreSQL can reach (pytest's are 0700)."""
    import tempfile

    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o711)
    return path

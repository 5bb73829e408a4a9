"""Issue 41.1: the README's "Talking to a running stack" snippets work as a reader runs them. The
blocks marked ``<!-- runnable ... -->`` are read from the README at test time (never copied
here) and run with bash, the venv's bin first on the PATH (what ``. .venv/bin/activate`` does),
against ``okey up``: twice in a row, and again after ``okey up`` was stopped and started on the
same data. Each run must sign in (the same player every time, by the kept device credential)
and every command must succeed. The only change to the text is the addresses: this stack's
free ports instead of the default ones, which a developer's own ``okey up`` may hold."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from okey_up import down, free_ports, reachable_dir, up, up_env

ROOT = Path(__file__).resolve().parents[2]
RUNNABLE = re.compile(r"^<!-- runnable\b[^\n]*-->\n```(?:sh|bash)\n(.*?)^```$", re.M | re.S)


def runnable_blocks(text: str) -> list[str]:
    """The shell blocks the README marks runnable, in order."""
    return RUNNABLE.findall(text)


def _subject(token: str) -> str:
    """The player a bearer token names (its payload is unpadded base64url JSON)."""
    payload = token.split(".")[1]  # v1.<payload>.<signature>
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return str(claims["sub"])


def _run(script: str, home: Path) -> str:
    """The blocks as one bash script (stopping at the first failing command), and the token it left."""
    venv_bin = str(Path(sys.executable).parent)
    env = {**os.environ, "HOME": str(home), "PATH": venv_bin + os.pathsep + os.environ.get("PATH", "")}
    env.pop("TOKEN", None)
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script + '\nprintf "\\nTOKEN=%s\\n" "$TOKEN"\n'],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"the README's snippets failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    token = done.stdout.rsplit("\nTOKEN=", 1)[1].strip()
    assert token, f"the sign-in left TOKEN empty:\n{done.stdout}\n{done.stderr}"
    assert "okey.v1.LobbyService" in done.stdout, done.stdout  # grpcurl's list, through reflection
    assert '"balance"' in done.stdout, done.stdout  # GetChips with the token
    return token


def test_the_readmes_runnable_snippets_work_twice_and_after_a_restart_on_kept_data(tmp_path: Path) -> None:
    blocks = runnable_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 2, "the README marks its sign-in and grpcurl blocks <!-- runnable -->"
    script = "\n".join(blocks)
    assert "SignInGuest" in script and "grpcurl" in script, script
    home = tmp_path / "home"
    home.mkdir()
    for tool in ("grpcurl", "okey"):  # what `. .venv/bin/activate` puts on the PATH
        assert (Path(sys.executable).parent / tool).exists(), f"`pip install -e '.[dev]'` puts {tool} in the venv"
    # A credential kept from another stack (data since wiped): the snippet must make a new account.
    (home / ".okey-guest").write_text("x" * 43)
    data = reachable_dir("okey-readme-")
    try:
        ports, http_addr = free_ports()
        grpc_addr = ports["OKEY_GATEWAY_GRPC_ADDR"]
        assert script.count("127.0.0.1:8080") and script.count("127.0.0.1:50051"), script
        script = script.replace("127.0.0.1:8080", http_addr).replace("127.0.0.1:50051", grpc_addr)
        env = up_env(data / "okey", ports)
        players = []
        proc = up(env)
        try:
            players.append(_subject(_run(script, home)))
            kept = (home / ".okey-guest").read_text()
            assert kept != "x" * 43
            players.append(_subject(_run(script, home)))  # the same name again: no NAME_TAKEN
        finally:
            down(proc)
        proc = up(env)  # stopped and started on the same data
        try:
            players.append(_subject(_run(script, home)))
        finally:
            down(proc)
        assert len(set(players)) == 1, players  # one account, signed in again each time
        assert (home / ".okey-guest").read_text() == kept
        assert (home / ".okey-guest").stat().st_mode & 0o077 == 0  # a credential: the user's alone
    finally:
        shutil.rmtree(data, ignore_errors=True)

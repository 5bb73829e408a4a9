"""Issue 41.4: ``okey demo`` leaves nothing in the temporary directory after a good run (its
services' logs are kept only when the run fails, and it says where), and ``okey up`` names its
data folder when it stops as well as when it starts (after ``--for-seconds`` and after Ctrl-C)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from okey_up import free_ports, reachable_dir, up, up_env


def _demo(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "okeytools.cli", "demo", "-o", "match_points=1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _demo_env(tmp: Path, database_url: str, nats_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OKEY_TOKEN_SECRET",)}
    return {**env, "TMPDIR": str(tmp), "OKEY_DATABASE_URL": database_url, "OKEY_NATS_URL": nats_url, **extra}


def test_a_good_demo_through_the_stack_leaves_nothing_in_the_temporary_directory(
    tmp_path: Path, database_url: str, nats_url: str
) -> None:
    # Through the stack (``--in-process`` makes no folder): the path that keeps the services' logs.
    got = _demo(_demo_env(tmp_path, database_url, nats_url))
    assert got.returncode == 0, got.stdout + got.stderr
    assert "standings from the scoring service" in got.stdout
    assert list(tmp_path.iterdir()) == [], "left in the temporary directory: " + ", ".join(
        p.name for p in tmp_path.iterdir()
    )
    assert "okey-demo-logs-" not in got.stdout + got.stderr  # a folder that is gone is not named


def test_a_failed_demo_keeps_the_services_logs_and_says_where(tmp_path: Path, database_url: str, nats_url: str) -> None:
    got = _demo(_demo_env(tmp_path, database_url, nats_url, OKEY_BOTS_WORKERS="many"))
    assert got.returncode == 1, got.stdout + got.stderr
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("okey-demo-logs-")]
    assert len(kept) == 1, list(tmp_path.iterdir())
    assert f"okey demo: the services' logs are kept in {kept[0]}" in got.stderr.splitlines(), got.stderr
    assert (kept[0] / "bots.log").read_text().strip(), "the failed service's log is empty"


def test_okey_up_names_its_data_folder_when_it_stops_after_for_seconds() -> None:
    data = reachable_dir("okey-up-stop-")
    try:
        ports, _ = free_ports()
        env = up_env(data / "okey", ports)
        got = subprocess.run(
            [sys.executable, "-m", "okeytools.cli", "up", "--for-seconds", "1"],
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert got.returncode == 0, got.stdout + got.stderr
        last = got.stdout.strip().splitlines()[-1]
        assert last.startswith("okey up: stopped") and str(data / "okey") in last, got.stdout
    finally:
        shutil.rmtree(data, ignore_errors=True)


def test_okey_up_names_its_data_folder_when_it_stops_on_ctrl_c() -> None:
    data = reachable_dir("okey-up-stop-")
    try:
        ports, _ = free_ports()
        proc = up(up_env(data / "okey", ports))
        proc.send_signal(signal.SIGINT)  # as Ctrl-C does
        rest, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0, rest
        last = rest.strip().splitlines()[-1]
        assert last.startswith("okey up: stopped") and str(data / "okey") in last, rest
    finally:
        shutil.rmtree(data, ignore_errors=True)

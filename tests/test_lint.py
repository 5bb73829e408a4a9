"""Static checks are part of the tests: ruff on everything, mypy --strict on okeycore."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_check_is_clean() -> None:
    got = _run("ruff", "check", ".")
    assert got.returncode == 0, got.stdout + got.stderr


def test_ruff_format_is_clean() -> None:
    got = _run("ruff", "format", "--check", ".")
    assert got.returncode == 0, got.stdout + got.stderr


def test_mypy_strict_on_okeycore() -> None:
    got = _run("mypy", "--strict", "libs/okeycore")
    assert got.returncode == 0, got.stdout + got.stderr

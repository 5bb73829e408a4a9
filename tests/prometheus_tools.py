"""Debian's ``prometheus`` package for the tests: ``promtool`` checks and unit-tests the alert
rules (tests/deploy), ``prometheus`` scrapes a running stack (tests/observability). One package,
found on PATH (or /usr/bin), installed with apt-get when missing and the tests run as root."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

__all__ = ["prometheus_tool"]


def _find(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    debian = Path("/usr/bin") / name
    return str(debian) if debian.is_file() and os.access(debian, os.X_OK) else None


def prometheus_tool(name: str) -> str:
    """The path of ``promtool`` or ``prometheus``; fails the test (saying how to get it) when it
    is missing and cannot be installed here."""
    assert name in ("promtool", "prometheus"), name
    found = _find(name)
    if found:
        return found
    if hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, timeout=900, check=False)
        subprocess.run(["apt-get", "install", "-y", "-qq", "prometheus"], env=env, capture_output=True, timeout=1800)
        found = _find(name)
    if not found:
        pytest.fail(f"{name} comes with Debian's prometheus package: apt-get install prometheus")
    return found

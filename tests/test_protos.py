"""The public contract: protos lint clean with buf, stay compatible with main, and the
generated Python code is up to date."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
from pathlib import Path

from okeytools.protogen import generate

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / ".tools"


def buf() -> str:
    """The buf CLI from npm (@bufbuild/buf), installed into .tools/ on first use."""
    found = shutil.which("buf")
    if found:
        return found
    local = TOOLS / "node_modules" / ".bin" / "buf"
    if not local.exists():
        TOOLS.mkdir(exist_ok=True)
        subprocess.run(
            ["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(TOOLS), "@bufbuild/buf@1"],
            check=True,
            timeout=600,
        )
    return str(local)


def test_buf_lint_is_clean() -> None:
    got = subprocess.run([buf(), "lint"], cwd=ROOT / "protos", capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, got.stdout + got.stderr


def test_buf_breaking_against_main() -> None:
    has_main = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", "main:protos"], cwd=ROOT, capture_output=True, timeout=60
    )
    against = ".git#branch=main,subdir=protos" if has_main.returncode == 0 else "protos"
    env = dict(os.environ)
    got = subprocess.run(
        [buf(), "breaking", "protos", "--against", against],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert got.returncode == 0, got.stdout + got.stderr


def test_generated_code_is_up_to_date(tmp_path: Path) -> None:
    generate(tmp_path)
    committed = ROOT / "libs" / "okeyproto"
    for fresh in tmp_path.rglob("*.py*"):
        rel = fresh.relative_to(tmp_path)
        assert filecmp.cmp(fresh, committed / rel, shallow=False), (
            f"{rel} is stale: run `python -m okeytools.protogen` and commit the result"
        )

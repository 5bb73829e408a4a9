"""The public contract: protos lint clean with buf, stay compatible with the committed baseline
(protos/baseline.binpb, updated on purpose with `python -m okeytools.protogen --baseline`), and
the generated Python code is up to date."""

from __future__ import annotations

import filecmp
import re
import shutil
import subprocess
from pathlib import Path

from okeytools.protogen import BASELINE, PROTOS, breaking, generate
from tools_setup import buf_tool  # buf is installed before the first test, never inside one

ROOT = Path(__file__).resolve().parents[1]


def test_buf_lint_is_clean() -> None:
    got = subprocess.run([buf_tool(), "lint"], cwd=PROTOS, capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, got.stdout + got.stderr


def test_buf_breaking_against_the_committed_baseline() -> None:
    buf_tool()  # here (else the test fails naming what to install), so breaking() installs nothing
    got = breaking()
    assert got.returncode == 0, (
        got.stdout
        + got.stderr
        + "\nthe protos break the API baseline: keep the change compatible, or record it on purpose with "
        "`python -m okeytools.protogen --baseline --accept-breaking` (docs/design.md, Changing the protos)"
    )


def test_the_baseline_catches_a_removed_field(tmp_path: Path) -> None:
    """The check has teeth: a copy of the protos with one field removed breaks the baseline."""
    copy = tmp_path / "protos"
    shutil.copytree(PROTOS, copy, ignore=shutil.ignore_patterns(BASELINE.name))
    events = copy / "okey" / "v1" / "events.proto"
    text = events.read_text()
    field = re.search(r"^\s+\w+ \w+ = \d+;\n", text, re.M)
    assert field, "no scalar field to remove in events.proto"
    events.write_text(text.replace(field.group(0), "", 1))
    buf_tool()
    got = breaking(protos=copy)
    assert got.returncode != 0, "removing a field did not break the baseline: " + got.stdout + got.stderr
    assert "deleted" in got.stdout + got.stderr, got.stdout + got.stderr


def test_generated_code_is_up_to_date(tmp_path: Path) -> None:
    generate(tmp_path)
    committed = ROOT / "libs" / "okeyproto"
    for fresh in tmp_path.rglob("*.py*"):
        rel = fresh.relative_to(tmp_path)
        assert filecmp.cmp(fresh, committed / rel, shallow=False), (
            f"{rel} is stale: run `python -m okeytools.protogen` and commit the result"
        )


def test_buf_is_installed_by_the_setup_before_the_first_test() -> None:
    """This module holds the buf lookup, so the session's setup (tests/tools_setup.py) installs
    buf when it is missing, before any test runs; no test body installs it."""
    import sys

    from tools_setup import needed_by

    assert "buf" in needed_by([sys.modules[__name__]])

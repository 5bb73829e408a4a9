"""``okey bench <kind> --record``: a bench writes its own section of docs/benchmarks.md between
its markers, replaces it on the next run, and leaves every other byte of the file alone; without
being asked it writes nothing."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from okeybench import BENCHES
from okeybench.record import (
    DEFAULT_PATH,
    ENV,
    MAX_LOAD,
    MAX_LOAD_ENV,
    Section,
    Table,
    record,
    render,
    target,
    too_busy,
    write,
)

OKEY = shutil.which("okey") or ""
START, END = "<!-- bench:solver:start -->", "<!-- bench:solver:end -->"
BEFORE = "# Benchmarks\n\nProse before, kept as it is.\n\n"
AFTER = "\n\nProse after, kept too.\n\n<!-- bench:table:start -->\ntable figures\n<!-- bench:table:end -->\n"


def _okey(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    cmd = [OKEY, *args] if OKEY else [sys.executable, "-m", "okeytools.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)


def _split(text: str, start: str = START, end: str = END) -> tuple[str, str, str]:
    """(before the section, the section with its markers, after it)."""
    assert text.count(start) == 1 and text.count(end) == 1, text
    i, j = text.index(start), text.index(end) + len(end)
    return text[:i], text[i:j], text[j:]


def test_a_bench_with_recording_on_writes_its_section_between_the_markers_and_replaces_it(tmp_path: Path) -> None:
    """Through the envelope bench (two seconds: what is tested is the recording, not a bench)."""
    start, end = "<!-- bench:envelope:start -->", "<!-- bench:envelope:end -->"
    doc = tmp_path / "benchmarks.md"
    doc.write_text(BEFORE + start + "\nfigures of an earlier run\n" + end + AFTER, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != ENV} | {MAX_LOAD_ENV: "1000"}  # the suite's own load

    got = _okey("bench", "envelope", "--quick", "--record", str(doc), env=env)  # asked by flag
    assert got.returncode == 0, got.stdout + got.stderr
    before, first, after = _split(doc.read_text(encoding="utf-8"), start, end)
    assert (before, after) == (BEFORE, AFTER)  # the rest of the file, byte for byte
    assert "earlier run" not in first
    assert "`okey bench envelope --quick`" in first  # the command line
    assert re.search(r"Recorded \d{4}-\d\d-\d\d \d\d:\d\d UTC", first)  # the date
    assert re.search(r"machine: .+, \d+ cores.*Python 3\.\d+", first)  # the machine
    assert "| per event | protobuf envelope |" in first
    assert re.search(r"\| encode .* \| [\d.,]+ us \| [\d.,]+ us \|", first)  # a figure just measured

    got = _okey("bench", "envelope", "--quick", env={**env, ENV: str(doc)})  # asked by the environment
    assert got.returncode == 0, got.stdout + got.stderr
    before, second, after = _split(doc.read_text(encoding="utf-8"), start, end)  # one section: replaced
    assert (before, after) == (BEFORE, AFTER)
    assert second.count("| per event | protobuf envelope |") == 1


def _section(note: str) -> Section:
    return Section("solver", "okey bench solver", [Table(("measure", "measured"), [("x", note)])])


def test_write_appends_a_missing_section_once_and_refuses_unbalanced_markers(tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text(BEFORE, encoding="utf-8")
    write(doc, "solver", render(_section("1")))
    write(doc, "solver", render(_section("2")))
    text = doc.read_text(encoding="utf-8")
    assert text.startswith(BEFORE) and text.count(START) == 1 and "| x | 2 |" in text and "| x | 1 |" not in text

    doc.write_text(BEFORE + START + "\nno end marker\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unbalanced"):
        write(doc, "solver", render(_section("3")))
    assert doc.read_text(encoding="utf-8") == BEFORE + START + "\nno end marker\n"  # untouched


def test_recording_is_off_unless_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests and anyone running a bench rewrite no docs unless they ask (flag or environment)."""
    monkeypatch.delenv(ENV, raising=False)
    assert target(argparse.Namespace(record=None)) is None
    assert record(argparse.Namespace(record=None), _section("x")) is None
    monkeypatch.setenv(ENV, str(tmp_path / "b.md"))
    assert target(argparse.Namespace(record=None)) == tmp_path / "b.md"
    assert target(argparse.Namespace(record="")) == DEFAULT_PATH  # a bare --record: the repository's page


@pytest.mark.parametrize("kind", sorted(BENCHES))
def test_docs_benchmarks_has_one_section_per_bench_for_it_to_replace(kind: str) -> None:
    text = DEFAULT_PATH.read_text(encoding="utf-8")
    start, end = f"<!-- bench:{kind}:start -->", f"<!-- bench:{kind}:end -->"
    assert text.count(start) == 1 and text.count(end) == 1 and text.index(start) < text.index(end)


def test_48_5_a_bench_refuses_to_record_on_a_busy_machine_and_says_so(tmp_path: Path) -> None:
    """Above the load bound a bench asked to --record refuses before it runs (exit 2, one line that
    says why and what to do) and writes nothing; without --record the same machine runs it."""
    doc = tmp_path / "benchmarks.md"
    doc.write_text(BEFORE, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != ENV} | {MAX_LOAD_ENV: "-1"}  # any load is above it
    got = _okey("bench", "envelope", "--quick", "--record", str(doc), env=env)
    assert got.returncode == 2, got.stdout + got.stderr
    assert "not recording: the load average is" in got.stderr and "uptime" in got.stderr, got.stderr
    assert got.stdout == "" and doc.read_text(encoding="utf-8") == BEFORE  # refused before it ran
    assert MAX_LOAD == 1.5


def test_the_load_bound_applies_only_to_recording(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setenv(MAX_LOAD_ENV, "-1")
    assert too_busy(argparse.Namespace(record=None)) is None  # not recording: any load runs
    assert "not recording" in (too_busy(argparse.Namespace(record="x.md")) or "")
    monkeypatch.setenv(MAX_LOAD_ENV, "1000")
    assert too_busy(argparse.Namespace(record="x.md")) is None
    monkeypatch.setenv(MAX_LOAD_ENV, "quiet")
    assert "is not a number" in (too_busy(argparse.Namespace(record="x.md")) or "")

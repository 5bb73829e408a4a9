"""Writes a bench's figures into its own section of docs/benchmarks.md, so the tables there are
what a bench measured, never copied by hand.

Recording is off unless asked for: ``okey bench <kind> --record [FILE]`` (FILE defaults to this
repository's docs/benchmarks.md) or ``OKEY_BENCH_RECORD=FILE``. A bench's section lies between

    <!-- bench:<kind>:start -->
    ...
    <!-- bench:<kind>:end -->

and only those lines are replaced: the rest of the file stays byte for byte as it was. A file
without the markers gets the section appended; markers that are unbalanced or repeated are an
error (a guess could overwrite prose)."""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from okeycore import native

from .common import cpu_model

__all__ = [
    "ENV",
    "DEFAULT_PATH",
    "MAX_LOAD",
    "MAX_LOAD_ENV",
    "Table",
    "Section",
    "target",
    "too_busy",
    "render",
    "write",
    "record",
    "command_line",
]

ENV = "OKEY_BENCH_RECORD"
# A figure is recorded only from a quiet machine: above this 1-minute load average at the start, a
# bench asked to --record refuses before it runs (a crowded run's figures are the machine's queue,
# not the code's). OKEY_BENCH_MAX_LOAD changes the bound (the tests of recording raise it).
MAX_LOAD = 1.5
MAX_LOAD_ENV = "OKEY_BENCH_MAX_LOAD"
DEFAULT_PATH = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"


@dataclass(frozen=True)
class Table:
    """A Markdown table: ``right`` names the columns aligned right (the figures)."""

    headers: Sequence[str]
    rows: Sequence[Sequence[str]]
    right: frozenset[int] = frozenset()
    caption: str = ""

    def lines(self) -> list[str]:
        out = [self.caption, ""] if self.caption else []
        out.append("| " + " | ".join(self.headers) + " |")
        out.append("|" + "|".join("---:" if i in self.right else "---" for i in range(len(self.headers))) + "|")
        out.extend("| " + " | ".join(_cell(c) for c in row) + " |" for row in self.rows)
        return out


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


@dataclass
class Section:
    """What one bench run measured: its tables and a few lines of verdicts (targets met or not)."""

    kind: str
    command: str
    tables: list[Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    servers: str = ""  # where PostgreSQL and NATS ran, for the benches that use them
    in_process: bool = False  # the whole bench runs in this process: its CPU share says how crowded it was


def command_line(kind: str, args: argparse.Namespace) -> str:
    """The command that reproduces this run (the flags given, ``--record`` left out)."""
    parts = ["okey", "bench", kind]
    if getattr(args, "quick", False):
        parts.append("--quick")
    if getattr(args, "seed", 1) not in (None, 1):
        parts += ["--seed", str(args.seed)]
    for name in ("tables", "offered", "seconds", "minutes"):
        value = getattr(args, name, None)
        if value is not None:
            parts += [f"--{name}", f"{value:g}" if isinstance(value, float) else str(value)]
    if getattr(args, "events", None) is not None:
        parts += ["--events", str(args.events)]
    if getattr(args, "one_pass", False):
        parts.append("--one-pass")
    if getattr(args, "faults", False):
        parts.append("--faults")
    if getattr(args, "nats_down_seconds", None) is not None:
        parts += ["--nats-down-seconds", f"{args.nats_down_seconds:g}"]
    return " ".join(parts)


def _writer(section: Section) -> str:
    """The command that writes this section: ``okey bench table --observability`` for the
    section ``table-observability`` (a bench's mode), else ``okey bench <kind>``."""
    bench, _, mode = section.kind.partition("-")
    return f"okey bench {bench}" + (f" --{mode}" if mode else "")


def target(args: argparse.Namespace) -> Path | None:
    """Where to record, or None (the default: a bench run by a test rewrites nothing)."""
    value = getattr(args, "record", None)
    if value is None:
        value = os.environ.get(ENV) or None
    if value is None:
        return None
    return DEFAULT_PATH if value == "" else Path(value)


def too_busy(args: argparse.Namespace) -> str | None:
    """Why this run may not record (the machine is busier than the bound), or None: recording is
    off, or the 1-minute load average is at most ``MAX_LOAD`` (``OKEY_BENCH_MAX_LOAD``)."""
    if target(args) is None or not hasattr(os, "getloadavg"):
        return None
    raw = os.environ.get(MAX_LOAD_ENV, "")
    try:
        bound = float(raw) if raw else MAX_LOAD
    except ValueError:
        return f"{MAX_LOAD_ENV}={raw!r} is not a number: set a load average such as {MAX_LOAD}"
    one = os.getloadavg()[0]
    if one <= bound:
        return None
    return (
        f"not recording: the load average is {one:.2f} (1 min), above {bound:g}, so the figures would be the "
        f"machine's queue, not the code's. Stop what else runs, wait until `uptime` shows at most {bound:g}, "
        f"and run again; or leave out --record (and {ENV}) to see the figures without writing them"
    )


def machine_lines(in_process: bool = False) -> list[str]:
    """The machine the figures come from (CPU model, cores, memory, OS, Python), then how busy it
    was: the load average and, for a bench that runs in this process alone, the share of its wall
    time it got a CPU (the project's machine is shared, so a figure needs its context)."""
    cpu = cpu_model()
    mem = ""
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                mem = f", {int(line.split()[1]) / 1024**2:.0f} GiB"
                break
    except OSError:
        pass
    system = platform.system()
    try:
        for line in Path("/etc/os-release").read_text(encoding="utf-8").splitlines():
            if line.startswith("PRETTY_NAME="):
                system = line.partition("=")[2].strip('"')
    except OSError:
        pass
    cores = os.cpu_count()
    lines = [
        f"{cpu}, {cores} cores{mem}, {system}, Python {platform.python_version()} "
        f"({platform.python_implementation()}; {native.describe()})"
    ]
    busy = []
    if hasattr(os, "getloadavg"):
        one, five, _ = os.getloadavg()
        busy.append(f"load average at the end {one:.2f} (1 min), {five:.2f} (5 min) on {cores} cores")
    share = _own_share() if in_process else None
    if share is not None:
        busy.append(f"the bench's own process was on a CPU {share:.0%} of its wall time")
    if busy:
        lines.append("; ".join(busy))
    return lines


def _own_share() -> float | None:
    """CPU time this process used over the wall time since it started (Linux /proc)."""
    try:
        stat = Path("/proc/self/stat").read_text(encoding="utf-8").rpartition(")")[2].split()
        uptime = float(Path("/proc/uptime").read_text(encoding="utf-8").split()[0])
    except (OSError, ValueError, IndexError):
        return None
    tick = os.sysconf("SC_CLK_TCK")
    wall = uptime - int(stat[19]) / tick  # field 22, starttime, in clock ticks since boot
    return time.process_time() / wall if wall > 0 else None


def tree() -> str:
    """The commit the bench ran from (`+ changes` when the code differs from it: docs/ does not
    count), or "" outside git."""
    root = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!docs"],  # not the page itself
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    if head.returncode != 0:
        return ""
    return head.stdout.strip() + (" + changes" if dirty.stdout.strip() else "")


def render(
    section: Section, when: datetime | None = None, machine: Sequence[str] | None = None, commit: str | None = None
) -> str:
    """The section's text, markers included, ending with a newline."""
    when = when or datetime.now(UTC)
    machine = machine_lines(section.in_process) if machine is None else machine
    commit = tree() if commit is None else commit
    at = f" at `{commit}`" if commit else ""
    out = [
        f"<!-- bench:{section.kind}:start -->",
        f"<!-- written by `{_writer(section)} --record`; edits between these markers are replaced -->",
        f"Recorded {when:%Y-%m-%d %H:%M} UTC by `{section.command}`{at}.",
        "",
        f"- machine: {machine[0]}" if machine else "- machine: unknown",
        *(f"- how busy: {line}" for line in machine[1:]),
    ]
    if section.servers:
        out.append(f"- servers: {section.servers}")
    for table in section.tables:
        out += ["", *table.lines()]
    if section.notes:
        out += ["", *(f"- {n}" for n in section.notes)]
    out.append(f"<!-- bench:{section.kind}:end -->")
    return "\n".join(out) + "\n"


def _markers(kind: str) -> tuple[str, str]:
    return f"<!-- bench:{kind}:start -->", f"<!-- bench:{kind}:end -->"


def write(path: Path, kind: str, block: str) -> None:
    """Replace ``kind``'s section in ``path`` with ``block`` (or append it), atomically."""
    start, end = _markers(kind)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    starts = [m.start() for m in re.finditer(re.escape(start), text)]
    ends = [m.end() for m in re.finditer(re.escape(end), text)]
    if not starts and not ends:
        sep = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        new = text + sep + block
    elif len(starts) == 1 and len(ends) == 1 and starts[0] < ends[0]:
        tail = text[ends[0] :]
        new = text[: starts[0]] + block.removesuffix("\n") + tail
    else:
        raise ValueError(f"{path}: the markers of bench {kind!r} are unbalanced or repeated; fix them by hand")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(new)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def record(args: argparse.Namespace, section: Section) -> Path | None:
    """Record ``section`` where ``args`` / the environment ask (see :func:`target`); returns
    the file written, or None when recording is off."""
    path = target(args)
    if path is None:
        return None
    if not path.parent.is_dir():
        raise FileNotFoundError(f"cannot record into {path}: no directory {path.parent} (pass --record FILE)")
    write(path, section.kind, render(section))
    print(f"recorded the figures in {path} (section bench:{section.kind})")
    return path

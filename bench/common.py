"""Helpers for benchmarks: timing, percentiles, progress and the machine they ran on."""

from __future__ import annotations

import os
import platform
import sys
import time
from collections.abc import Sequence
from typing import Any

from okeycore import native


def percentile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(q / 100 * (len(sorted_values) - 1))))
    return sorted_values[k]


def cpu_model() -> str:
    """The CPU's model name (Linux /proc/cpuinfo), else what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> str:
    python = f"Python {platform.python_version()} ({native.describe()})"
    return f"{cpu_model()}, {os.cpu_count()} cores, {python}, {platform.system()}"


class Progress:
    """A one-line progress indicator on stderr (only when it is a terminal)."""

    def __init__(self, label: str, total: int) -> None:
        self.label = label
        self.total = total
        self.tty = sys.stderr.isatty()
        self.last = 0.0
        self.start = time.perf_counter()

    def update(self, done: int) -> None:
        now = time.perf_counter()
        if now - self.last < 0.5 and done < self.total:
            return
        self.last = now
        if self.tty:
            sys.stderr.write(f"\r  {self.label}: {done}/{self.total}")
            sys.stderr.flush()
        elif done == self.total or (now - self.start > 5 and int(now - self.start) % 10 == 0):
            sys.stderr.write(f"  {self.label}: {done}/{self.total}\n")

    def done(self) -> None:
        if self.tty:
            sys.stderr.write("\r" + " " * (len(self.label) + 30) + "\r")
            sys.stderr.flush()


def us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} us"


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.2f} ms"


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def proc_table() -> dict[int, tuple[str, int, float]]:
    """pid -> (command name, parent pid, CPU seconds used: user + system), from /proc."""
    out: dict[int, tuple[str, int, float]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="utf-8", errors="replace") as fh:
                raw = fh.read()
        except OSError:
            continue  # gone meanwhile
        # "pid (comm) state ppid ... utime stime ...": comm may hold spaces and parentheses
        head, _, rest = raw.rpartition(")")
        comm = head.partition("(")[2]
        fields = rest.split()
        out[int(name)] = (comm, int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICK)
    return out


def _machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    with open("/proc/stat", encoding="utf-8") as fh:
        values = [int(v) for v in fh.readline().split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
    total = sum(values[:8])  # guest time is already counted in user
    return (total - idle) / _TICK, total / _TICK


class CpuMeter:
    """CPU time used by groups of processes between two readings (Linux /proc): one process
    (the client: this one alone, not its children), a service's process tree, and processes
    by name (PostgreSQL, NATS).
    Readings elsewhere come back empty, so a benchmark still runs."""

    def __init__(self, pids: dict[str, int], trees: dict[str, int], names: dict[str, str]) -> None:
        self.pids = pids  # group -> one process alone
        self.trees = trees  # group -> root pid (the root and all its descendants)
        self.names = names  # group -> command name (every process of that name)
        self._start: dict[str, float] = {}
        self._busy0 = (0.0, 0.0)
        self.available = os.path.isdir("/proc/self")

    def _read(self) -> dict[str, float]:
        table = proc_table()
        children: dict[int, list[int]] = {}
        for pid, (_, ppid, _) in table.items():
            children.setdefault(ppid, []).append(pid)
        used: dict[str, float] = {g: table[pid][2] if pid in table else 0.0 for g, pid in self.pids.items()}
        for group, root in self.trees.items():
            todo, total = [root], 0.0
            while todo:
                pid = todo.pop()
                if pid in table:
                    total += table[pid][2]
                todo.extend(children.get(pid, ()))
            used[group] = total
        for group, comm in self.names.items():
            used[group] = sum(cpu for c, _, cpu in table.values() if c == comm)
        return used

    def start(self) -> None:
        if self.available:
            self._start = self._read()
            self._busy0 = _machine_busy()

    def stop(self) -> tuple[dict[str, float], float]:
        """CPU seconds per group since start(), and the share of the whole machine that was busy."""
        if not self.available:
            return {}, float("nan")
        now = self._read()
        busy, total = _machine_busy()
        used = {g: max(0.0, now[g] - self._start.get(g, 0.0)) for g in now}
        span = total - self._busy0[1]
        # A share, so within [0, 1]: two sums of /proc/stat's floats can differ by a rounding
        # error (1.0000000000003668 was seen on a machine busy the whole time).
        return used, (min(1.0, max(0.0, (busy - self._busy0[0]) / span)) if span > 0 else float("nan"))


def servers_line(infra: Any) -> str:
    """Where PostgreSQL and NATS ran for a bench (embedded, or the URLs given), as it prints it."""
    return (
        f"PostgreSQL: {'embedded (fsync off)' if infra.postgres else 'OKEY_DATABASE_URL'}, "
        f"NATS: {'embedded' if infra.nats else 'OKEY_NATS_URL'}"
    )


INTERLEAVED_TABLES = 1_000
"""``okey bench bots``: tables one process decides for at once in the interleaved measurement
(``--tables``): about a bots worker's share of ``okey bench soak``'s 500 tables with two workers,
times two. Here, not in ``okeybench.bots``, so that ``okey``'s help reads it without loading the
strategies (every ``okey`` command builds the parser)."""
QUICK_INTERLEAVED_TABLES = 200
MAX_INTERLEAVED_TABLES = 100_000
"""More tables than this would only fill the memory (each holds its own deal and four strategies)."""

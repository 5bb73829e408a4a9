"""Helpers for benchmarks: timing, percentiles, progress and the machine they ran on."""

from __future__ import annotations

import os
import platform
import sys
import time
from collections.abc import Sequence


def percentile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(q / 100 * (len(sorted_values) - 1))))
    return sorted_values[k]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


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

"""``okey bench presence`` (issue 44): replicas of the gateway's presence in one process on a real
NATS server, simulated players churning over them. Run as a user runs it, at a tiny size on a
private NATS: a row per (players, replicas) with figures in them that agree with each other and
with the system's own timers, and a killed replica's players OFFLINE elsewhere in time."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

import pytest
from okeybench.presence import OFFLINE_BOUND_S, run
from okeyplatform.presence import BEAT_S, DEAD_AFTER_S
from okeytools.cli import build_parser
from okeytools.embedded import EmbeddedNats

OKEY = shutil.which("okey") or ""
PLAYERS = 60
REPLICAS = (1, 2)


def _okey(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    cmd = [OKEY, *args] if OKEY else [sys.executable, "-m", "okeytools.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=env)


def _table(out: str, title: str) -> list[dict[str, str]]:
    """The table printed under the line starting with ``title``: its rows by column name (the
    columns are parted by two spaces or more; a cell may hold one, as in ``2.95 s``)."""
    lines = out[out.index(title) :].splitlines()[1:]
    head = re.split(r"\s{2,}", lines[0].strip())
    rows = []
    for line in lines[1:]:
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line.strip())
        assert len(cells) == len(head), (head, line)
        rows.append(dict(zip(head, cells, strict=True)))
    return rows


def _number(cell: str) -> float:
    return float(cell.replace(",", "").removesuffix("%").removesuffix(" ms").removesuffix(" s"))


def test_a_tiny_run_prints_a_row_per_level_with_consistent_figures_and_the_takeover_in_time(
    embedded_nats: EmbeddedNats,
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OKEY_BENCH_RECORD"}
    env["OKEY_NATS_URL"] = embedded_nats.url  # a private server: no other presence on its subjects
    got = _okey(
        "bench", "presence", "--players", str(PLAYERS), "--replicas", "1,2", "--seconds", "3", "--changes", "6", env=env
    )
    assert got.returncode == 0, got.stdout + got.stderr
    out = got.stdout
    assert "NATS: OKEY_NATS_URL" in out

    published = _table(out, "published, per connected player per minute")
    cost = _table(out, "received by each replica")
    levels = [(PLAYERS, r) for r in REPLICAS]
    assert [(int(_number(r["players"])), int(r["replicas"])) for r in published] == levels, out
    assert [(int(_number(r["players"])), int(r["replicas"])) for r in cost] == levels, out

    for row in published:
        replicas = int(row["replicas"])
        changes, change_bytes, beats, beat_bytes, total = (
            _number(row[c]) for c in ("changes", "change bytes", "beats", "beat bytes", "all bytes")
        )
        assert min(changes, change_bytes, beats, beat_bytes) > 0, row
        assert abs(total - change_bytes - beat_bytes) <= 1, row  # the sum, give or take the rounding
        # Each replica beats every BEAT_S in one part (under 1,000 players): R * 60 / P a player a
        # minute; a late event loop only stretches the beat, never adds one.
        every = replicas * 60 / BEAT_S / PLAYERS
        assert 0.5 * every <= beats <= 1.1 * every, row

    for row in cost:
        assert _number(row["recv msg/s/replica"]) > 0 and _number(row["recv KB/s/replica"]) > 0, row
        assert _number(row["CPU ms/player/min"]) > 0 and _number(row["CPU/replica"]) > 0, row
        assert 0 <= _number(row["change arrives p50"]) <= _number(row["p99"]) < 1000, row
        if row["replicas"] == "1":
            assert row["OFFLINE after kill"] == "-", row  # no other board to look at
            continue
        offline, after_beat = _number(row["OFFLINE after kill"]), _number(row["after last beat"])
        # A board drops a replica DEAD_AFTER_S (3 s) after its last message, never sooner: at
        # least that after its last beat, and at least DEAD_AFTER_S - BEAT_S after the kill (the
        # beat before it came at most BEAT_S earlier). At most 3 s plus the beat after the kill
        # (the bench's OFFLINE_BOUND_S: the board's 0.25 s tick, and slack for a late loop).
        assert after_beat >= DEAD_AFTER_S - 0.005, row
        assert DEAD_AFTER_S - BEAT_S <= offline <= OFFLINE_BOUND_S, row

    made, sent = (int(x.replace(",", "")) for x in re.findall(r"(?:made while measuring|published): ([\d,]+)", out))
    assert made > 0 and abs(made - sent) <= 5 + made // 10, out  # each change is published once (a few in flight)
    assert "its players OFFLINE everywhere" in got.stderr  # the progress


def test_the_help_lists_every_option_and_a_bad_size_is_refused_before_anything_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["bench"]
    kinds = next(a for a in bench._actions if isinstance(a, argparse._SubParsersAction))
    text = kinds.choices["presence"].format_help()
    for option in ("--players", "--replicas", "--seconds", "--changes", "--calls", "--table-messages", "--record"):
        assert option in text, text
    for players, replicas in (("0", None), ("1000,x", None), (None, "0"), (None, "17")):
        args = argparse.Namespace(quick=False, record=None, players=players, replicas=replicas, seconds=None)
        assert run(args) == 2
        assert "okey bench presence: --" in capsys.readouterr().err

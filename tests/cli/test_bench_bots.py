"""``okey bench bots``' interleaved timing: the strong classic strategy deciding for many tables in
one process, a move of each in turn (a bots worker's load in ``okey bench soak``)."""

from __future__ import annotations

import argparse

import pytest
from okeybench.bots import interleaved_times, run


def test_the_interleaved_timing_times_each_decision_after_the_warm_up_by_stage() -> None:
    times = interleaved_times(tables=6, decisions=400, seed=3)
    assert set(times) == {"draw", "discard"}
    # the first fifth warms the memos up and is not timed; every later decision is, in one stage
    assert len(times["draw"]) + len(times["discard"]) == 400 - 400 // 5
    # a turn is a draw and a discard (a starter's first turn, a finish, a show add to the discards)
    assert times["draw"] and len(times["discard"]) >= len(times["draw"])
    assert all(0 < t < 5 for stage in times.values() for t in stage)


def test_a_table_count_out_of_bounds_is_refused_before_anything_runs(capsys: pytest.CaptureFixture[str]) -> None:
    for tables in (0, -5, 1_000_000):  # with no table the timing would never end
        assert run(argparse.Namespace(tables=tables, quick=True, seed=1, record=None)) == 2
        assert f"--tables {tables}: give 1 to 100,000 tables" in capsys.readouterr().err

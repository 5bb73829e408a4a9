"""``okey bench solver``'s `okey solve` lines (issue 48.4): both games, the bench's racks and the
hard set, each row against its target, 101 before and after in the same run with no answer that
differs. A quick run, in this process."""

from __future__ import annotations

import argparse

from okeybench.solver import run_solve_lines


def test_the_solve_lines_are_timed_against_their_targets_and_answer_as_the_old_search() -> None:
    rows = run_solve_lines(argparse.Namespace(quick=True, seed=7))
    names = [name for name, _, _ in rows]
    assert any("classic, bench racks" in n for n in names) and any("classic, hard set" in n for n in names)
    now_101 = [n for n in names if "101" in n and "now" in n]
    assert len(now_101) == 2 and all("(0 answers differ)" in n for n in now_101), names
    assert len([n for n in names if "before issue 48" in n]) == 2
    for name, goal, measured in rows:
        assert goal in ("mean <= 120 us", "mean <= 2.5 ms"), (name, goal)
        assert measured.startswith("p50 ") and "mean" in measured, (name, measured)

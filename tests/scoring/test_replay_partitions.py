"""Issue 48.3: ``okey replay`` reads the log in partitions of whole tables (the rebuild lets
PostgreSQL pick out the events a projection reads; ``--verify`` runs a process per partition),
and what it builds is exactly what the one-pass reader of the whole log builds: every row of
every projection table, the parked tables, okeycore's findings in the same order, the same
failure for a log that is not gap-free."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest
from okeyplatform.eventstore import PostgresEventStore
from okeytools.replay import ReplayReport, replay, verify_log
from scoring_helpers import append, match_a, match_b, simulated, simulated_101

from services.scoring.projection import ProjectionError
from services.scoring.store import ScoringStore

PLAYERS = ("ali", "ayse", "", "zeynep")


async def _log(events: PostgresEventStore) -> dict[str, int]:
    """Tables of every kind, on both sides of the partitioning: scripted classic matches (an
    indicator shown, penalties, a deck run out, co-winners), simulated ones with mixed options,
    Okey 101 matches, tournament-like ids, and a table still being played."""
    streams: dict[str, list[Any]] = {}
    a, b = match_a(), match_b()
    streams[a.table_id], streams[b.table_id] = list(a.events), list(b.events)
    for i in range(6):
        opts: dict[str, Any] = {"penalties": i % 2 == 0, "stake": 5 * i, "partners": i == 3, "colored": i == 4}
        streams[f"t{i:02x}"] = simulated(f"t{i:02x}", 300 + i, PLAYERS if i % 3 else ("p1", "p2", "p3", "p4"), **opts)
    for i in range(2):
        streams[f"tour{i}-r1-t1"] = simulated_101(f"tour{i}-r1-t1", 40 + i, ("p1", "ali", "p3", ""), stake=3)
    ongoing = simulated("t-ongoing", 77, PLAYERS)
    streams["t-ongoing"] = ongoing[: len(ongoing) // 2]
    for table_id, evs in streams.items():
        await append(events, table_id, evs, chunk=40)
    return {t: len(e) for t, e in streams.items()}


def _summary(r: ReplayReport) -> dict[str, Any]:
    return {
        "events": r.events,
        "tables": r.tables,
        "rows": r.rows,
        "parked": r.parked,
        "verify_problems": r.verify_problems,
        "verified": r.verified,
        "rules_differences": r.rules_differences,
        "rules_difference_count": r.rules_difference_count,
        "swapped": r.swapped,
    }


async def _each_way(
    events: PostgresEventStore, store: ScoringStore, verify: bool
) -> dict[int, tuple[dict[str, Any], dict[str, Any]]]:
    """The replay with the one-pass reader (0), one partition and two: (report, every row)."""
    out = {}
    for parts in (0, 1, 2):
        report = await replay(events, store, verify=verify, swap=True, partitions=parts, page=300)
        out[parts] = (_summary(report), await store.snapshot())
    return out


async def test_48_3_partitions_build_every_projection_row_as_one_pass_does(fresh_database_url: str) -> None:
    events = await PostgresEventStore.connect(fresh_database_url)
    store = await ScoringStore.connect(fresh_database_url)
    conn = await asyncpg.connect(fresh_database_url)
    try:
        lengths = await _log(events)
        total = sum(lengths.values())
        for verify in (False, True):
            ways = await _each_way(events, store, verify)
            summary, rows = ways[0]
            assert summary["events"] == total and summary["tables"] == len(lengths) and not summary["parked"]
            assert summary["rows"]["scoring_matches"] == len(lengths) - 1  # every table but the one in play
            assert rows["scoring_hands"] and rows["scoring_players"] and rows["scoring_match_ratings"]
            if verify:
                assert summary["verify_problems"] == [] and summary["verified"]["discards"] > 1000
            for parts in (1, 2):
                assert ways[parts][0] == summary, (verify, parts)
                assert ways[parts][1] == rows, (verify, parts)  # every row of every table
        versions = dict(await conn.fetch("SELECT table_id, version FROM scoring_tables"))
        assert versions == lengths  # the draws and discards after a table's last result count too

        # Results changed in the log: one table's cannot be projected (parked), others' differ
        # from what okeycore decides; the partitions park the same and find the same, in order.
        await conn.execute(
            "UPDATE okey_events SET data = jsonb_set(data, '{deltas}', '[1, 2]') "
            "WHERE stream_id = 't01' AND type = 'HandEnded' AND hand = 2"
        )
        await conn.execute(
            "UPDATE okey_events SET data = jsonb_set(data, '{deltas,0}', '-99') "
            "WHERE stream_id IN ('t00', 't02', 't03', 't04', 't05', 'match-a') AND type = 'HandEnded' AND hand = 1"
        )
        rebuilt = await _each_way(events, store, verify=False)
        assert set(rebuilt[0][0]["parked"]) == {"t01"}
        assert rebuilt[1] == rebuilt[0] and rebuilt[2] == rebuilt[0]
        checked = {}
        for parts in (0, 1, 2):
            report = await replay(events, store, verify=True, swap=False, partitions=parts)
            assert not report.swapped
            checked[parts] = _summary(report)
        problems = checked[0]["verify_problems"]
        assert len(problems) >= 7 and any("table t01 " in p for p in problems)
        assert checked[1] == checked[0] and checked[2] == checked[0]
        alone = await verify_log(events, partitions=2)
        assert alone.problems == problems and alone.events == total
        assert alone.checked == checked[0]["verified"]

        # A gap in a table's versions: the same failure whichever way the log is read.
        await conn.execute("DELETE FROM okey_events WHERE stream_id = 't04' AND version = 10")
        messages = set()
        for verify in (False, True):
            for parts in (0, 1, 2):
                with pytest.raises(ProjectionError) as failed:
                    await replay(events, store, verify=verify, swap=False, partitions=parts)
                messages.add(str(failed.value))
        assert len(messages) == 1 and "not gap-free" in messages.pop()
    finally:
        await conn.close()
        await store.close()
        await events.close()


def test_the_replay_bench_refuses_an_events_count_out_of_bounds_before_anything_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import argparse

    from okeybench.replay import MAX_EVENTS, run

    for events in (0, -5, MAX_EVENTS + 1):  # 0 would mean the default; a huge log would not fit
        args = argparse.Namespace(events=events, quick=True, seed=1, record=None, one_pass=False)
        assert run(args) == 2
        assert f"--events {events}: give 1,000 to {MAX_EVENTS:,} events" in capsys.readouterr().err

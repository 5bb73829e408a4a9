"""Load, the short version of ``okey bench soak``: concurrent all-bot tables through the gateway
on the whole stack (every service its own process) for about 20 seconds.

No error, no service exits, no table goes without a move for long, finished matches are replaced
by new tables, and afterwards the books agree: the log, JetStream, the scoring projection and
every finished match's standings (okeybench.books)."""

from __future__ import annotations

import os

from okeybench.soak import BotTables
from okeycore.options import TableOptions
from resilience_checks import assert_books, settle
from resilience_stack import ResilienceStack

TABLES = int(os.environ.get("OKEY_LOAD_TABLES", "20"))
SECONDS = float(os.environ.get("OKEY_LOAD_SECONDS", "12"))  # past STALL_S, so a stall can show
DRAIN_S = 60.0
STALL_S = 10.0  # a table without a move for this long counts as a stall (bots move in well under 1 s)


async def test_bot_tables_under_load_keep_moving_without_errors(stack: ResilienceStack) -> None:
    stack.ensure_up()
    bt = BotTables(
        stack.gateway,
        stack.database_url,
        TABLES,
        TableOptions(match_points=4),  # short matches: several end (and are replaced) during the run
        prefix="load",
        stall_s=STALL_S,
        view_every_s=3.0,
        progress_s=5.0,
        out=print,
    )
    try:
        await bt.start()
        assert bt.report.tables_opened == TABLES, bt.report.errors
        await bt.run(SECONDS, lambda: [f"{n} ({c})" for n, c in stack.stack.exited()])
        # every table moved in the last seconds of the run, or its match was over
        assert bt.stuck(within_s=5.0) == []
        # then no new tables: every match in flight plays to its end
        playing = await bt.drain(DRAIN_S)
        bt.stop()
        report = bt.finish()
    finally:
        await settle(stack, bt)
    print("\nload:", TABLES, "concurrent bot tables through the gateway for", SECONDS, "s")
    for line in report.lines():
        print(line)

    assert not report.exited, report.exited
    assert not report.errors, report.errors
    assert not report.reader_errors, report.reader_errors
    assert not report.stalls, f"tables without a move for {STALL_S} s: {report.stalls}"
    assert not report.stuck, report.stuck
    assert report.matches_finished >= 1, "no match finished: replacement and results not exercised"
    # (how many moves a second the tables make is ``okey bench soak``'s business, not a test's)
    assert not playing, f"matches not over {DRAIN_S} s after the run: {playing}"

    books = await assert_books(stack, bt.all_tables)
    assert books.results_checked == report.matches_finished

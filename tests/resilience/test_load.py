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

from services.bots.consumer import ACK_WAIT_S

# The liveness bounds are the system's own timers, not numbers of the test's. A table's next move
# is a bot's, at once; or, when a bots replica did not ack the event, a bot's after JetStream
# redelivers it (ACK_WAIT_S, 5 s); or, when the bots never play it, the table's turn timer's,
# TURN_S (20 s) after the last move. A table past a redelivery by as much again (STALL_S) was
# left to its timer: an event the bots lost. The bound stays under TURN_S, where the timer's
# move would hide the loss, and the run lasts longer than it, so that a stall can show.
TURN_S = TableOptions().turn_seconds
STALL_S = 2 * ACK_WAIT_S
assert ACK_WAIT_S < STALL_S < TURN_S, (ACK_WAIT_S, STALL_S, TURN_S)

TABLES = int(os.environ.get("OKEY_LOAD_TABLES", "20"))
SECONDS = max(float(os.environ.get("OKEY_LOAD_SECONDS", "12")), STALL_S + 2)
DRAIN_S = 60.0


async def test_bot_tables_under_load_keep_moving_without_errors(stack: ResilienceStack) -> None:
    stack.ensure_up()
    bt = BotTables(
        stack.gateway,
        stack.database_url,
        TABLES,
        # short matches: several end (and are replaced) during the run
        TableOptions(match_points=4, turn_seconds=TURN_S),
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
        # at the end too, no table waits past a redelivery for its move (or its match was over)
        assert bt.stuck(within_s=STALL_S) == []
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

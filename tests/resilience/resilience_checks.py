"""What every resilience test does at its end: ``settle`` (no table of the test still moving,
even when it failed half-way) and ``assert_books`` (okeybench.books: the log, JetStream, the
scoring projection and each finished match's standings agree)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence

from okeybench.books import BooksReport, check_books
from okeybench.soak import BotTables
from resilience_stack import ResilienceStack


async def settle(stack: ResilienceStack, bt: BotTables, timeout_s: float = 90.0) -> None:
    """Services up again, no new tables, and every match in flight played to its end, so
    nothing of this test is still moving during the next."""
    if not all(t.over for t in bt.tracks.values()):
        with contextlib.suppress(Exception):
            await asyncio.to_thread(stack.ensure_up)
            await bt.drain(timeout_s)
    bt.stop()
    await bt.close()


async def assert_books(stack: ResilienceStack, table_ids: Sequence[str]) -> BooksReport:
    report = await check_books(stack.database_url, stack.nats_url, stack.address("scoring"), table_ids)
    print(report.line())
    assert not report.problems, "\n".join(report.problems)
    assert report.jetstream_messages == report.events
    return report

"""Faults while bot tables play, on the whole stack (every service its own process, private
embedded PostgreSQL and NATS): ``kill -9`` of the table, bots, scoring, lobby and gateway services
(each started again), NATS stopped for a while, PostgreSQL restarted (same port, same data) or killed.

For each fault: several all-bot tables are in flight through the gateway (finished matches are
replaced); after the fault every table moves again, the move rate comes back (at least 30% of
what it was before: not limping on turn timers or polling), every match in flight then plays to its end,
and the books agree (okeybench.books): the log's versions are 1..N per table, JetStream holds
each ``table:version`` exactly once, the scoring projection equals a fresh rebuild from the log
(okeycore re-deciding every recorded result), and each finished match's standings from
ScoringService.GetMatchResult equal okeycore's fold of its events. After every fault the clients
reach the services through the gateway again: the channels opened before the fault (the tables'
own clients) read their tables' views, and a new guest signs in at the lobby through it.

``OKEY_FAULT_NATS_DOWN_S`` sets how long NATS stays down (default 6 s; ``okey bench soak
--faults`` keeps it down 30 s)."""

from __future__ import annotations

import asyncio
import os
import time

import grpc
import pytest
from okey.v1 import lobby_service_pb2 as lpb
from okey.v1 import lobby_service_pb2_grpc as lpb_grpc
from okeybench.faults import FAULTS, inject
from okeybench.soak import BotTables
from okeycore.options import TableOptions
from resilience_checks import assert_books, settle
from resilience_stack import ResilienceStack

TABLES = 6
NATS_DOWN_S = float(os.environ.get("OKEY_FAULT_NATS_DOWN_S", "6"))
RATE_S = 1.0  # moves counted this long (some 300 at 6 tables) before the fault and once every table moved again
RECOVERED_SHARE = 0.3  # after the fault, at least this share of the move rate before it (a lost LISTEN: ~0.1)
RECOVER_S = 60.0  # a hang guard: every table moves again within this after the fault ends (a bot turn lost in a
# kill is redelivered after the 5 s ack wait, at worst the table's own timer, turn_seconds 20 + grace, plays it;
# how soon is ``okey bench soak --faults``'s measure, not this test's)
DRAIN_S = 90.0
# Short matches so several end during a test; the default 20-second turns, so a table whose bot
# event was lost (a bots process killed mid-event) must be saved by redelivery, not its timer.
OPTIONS = TableOptions(match_points=4)


async def _through_gateway(stack: ResilienceStack, bt: BotTables, timeout_s: float) -> str:
    """Every table's view read on the channel its client opened before the fault (it reconnects
    by itself), and a new guest signed in at the lobby through the gateway; '' when both came
    through within ``timeout_s``, else the last error."""
    deadline = time.monotonic() + timeout_s
    last = ""
    async with grpc.aio.insecure_channel(stack.gateway) as channel:
        lobby = lpb_grpc.LobbyServiceStub(channel)
        while time.monotonic() < deadline:
            try:
                for tr in list(bt.tracks.values()):
                    view = await tr.client.view(tr.table_id)
                    assert view.version > 0
                n = time.monotonic_ns()
                resp = await lobby.SignInGuest(
                    lpb.SignInGuestRequest(display_name=f"Geri {n % 10**4}", device_id=f"fault-{n}"), timeout=5
                )
                assert resp.token
                return ""
            except grpc.aio.AioRpcError as err:
                last = f"{err.code().name}: {err.details()}"
                await asyncio.sleep(0.5)
    return last or "timed out"


async def _tables_in_play(bt: BotTables, n: int, timeout_s: float) -> bool:
    """Until ``n`` matches are in play (the player replaces finished ones); False after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while sum(not t.over for t in bt.tracks.values()) < n:
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


async def _rate_comes_back(bt: BotTables, target: float, timeout_s: float) -> float:
    """The move rate over successive windows of ``RATE_S`` until one reaches ``target`` or
    ``timeout_s`` passes; the best window's rate. A table limping on turn timers or polling never
    gets there; a pool or a consumer that is still reconnecting just after the fault (a window
    with no move at all on a loaded machine) does, a window or two later."""
    deadline = time.monotonic() + timeout_s
    best = 0.0
    while True:
        best = max(best, await bt.move_rate(RATE_S))
        if best >= target or time.monotonic() > deadline:
            return best


@pytest.mark.parametrize("fault", FAULTS)
async def test_tables_survive_fault_and_books_agree(stack: ResilienceStack, fault: str) -> None:
    stack.ensure_up()
    bt = BotTables(
        stack.gateway,
        stack.database_url,
        TABLES,
        OPTIONS,
        prefix=f"fault-{fault}",
        stall_s=RECOVER_S,
        view_every_s=0,
        poll_s=0.25,
    )
    try:
        await bt.start()
        assert bt.report.tables_opened == TABLES, bt.report.errors
        player = asyncio.create_task(bt.run(3600))  # replaces finished matches until stopped
        before = await bt.move_rate(RATE_S)
        assert before > 0, "the tables did not start moving"
        lasted = await inject(fault, stack.stack, stack.postgres, stack.nats, nats_down_s=NATS_DOWN_S)
        took = await bt.recovered(RECOVER_S)
        assert took is not None, f"tables that did not move within {RECOVER_S} s of the fault: {bt.waiting}"
        unreached = await _through_gateway(stack, bt, RECOVER_S)
        assert not unreached, f"clients did not get through the gateway after {fault}: {unreached}"
        # The rate is compared at the same number of tables: matches that ended while the
        # gateway was away are replaced (CreateTable goes through it) only once it is back.
        assert await _tables_in_play(bt, TABLES, RECOVER_S), f"{TABLES} tables not in play again after {fault}"
        after = await _rate_comes_back(bt, RECOVERED_SHARE * before, RECOVER_S)
        t_drain = time.monotonic()
        playing = await bt.drain(DRAIN_S)
        t_drain = time.monotonic() - t_drain
        bt.stop()
        await player
    finally:
        await settle(stack, bt)
    exited = stack.stack.exited()
    print(
        f"\n{fault}: lasted {lasted:.1f} s; every table moved again {took:.1f} s later; "
        f"{before:.0f} moves/s before, {after:.0f} after; last matches over in {t_drain:.1f} s; "
        f"{bt.report.tables_opened} tables, {bt.report.matches_finished} matches, {bt.report.moves:,} moves"
    )
    assert not exited, f"services exited: {exited}\n" + "\n".join(stack.log_tail(n) for n, _ in exited)
    assert not playing, f"matches not over {DRAIN_S} s after the fault: {playing}"
    # back to speed, not limping along on timers or polling
    assert after >= RECOVERED_SHARE * before, f"{after:.0f} moves/s after the fault, {before:.0f} before"
    # (Errors of the log reader's own connection are not the system's: the books below are.)
    books = await assert_books(stack, bt.all_tables)
    assert books.results_checked == len(bt.all_tables) == bt.report.matches_finished

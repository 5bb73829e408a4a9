"""Issue 21: bots keep a person's pace where a person sits (``bot_pace`` AUTO or HUMAN), move at
once at all-bot and INSTANT tables, and never delay a timed-out turn's move [C-TIME-1]; the
wait is a timer of the event loop, not a handler that sleeps."""

from __future__ import annotations

import asyncio
import itertools
import json
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import asyncpg
from okeybench.soak import BotTables
from okeycore.commands import Discard, Draw
from okeycore.events import DrawSource, IndicatorShown, PairsDeclared, TileDiscarded, TileDrawn
from okeycore.options import BotPace, Game, TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeyplatform.contract import Envelope, classic_view_from_pb
from stacks import StackFactory

from services.bots.app import BotsApp
from services.bots.main import BotsService
from services.bots.table import Known
from services.table.main import TableService


def _env(kind: str, bot_seats: int | None, table_id: str = "t", version: int = 9) -> Envelope:
    return Envelope(table_id, version, 1, datetime.now(UTC), kind, 1, None, TileDiscarded(0, 5, 1, 0), bot_seats)


def test_the_think_time_follows_the_table_s_pace() -> None:
    app = BotsApp(client=None)  # type: ignore[arg-type]
    assert app.pacer.think_time(_env("TileDiscarded", 0b1110), 1) == 0  # the table's pace not known yet: at once
    app.table.known["t"] = Known(BotPace.AUTO, 4, Game.OKEY)
    auto = app.pacer.think_time(_env("TileDiscarded", 0b1110), 1)
    assert 0.8 <= auto <= 2.5  # a person sits at seat 0
    assert app.pacer.think_time(_env("TileDiscarded", 0b1110), 1) == auto  # fixed by the event: replicas agree
    assert app.pacer.think_time(_env("TileDiscarded", 0b1111), 1) == 0  # nobody to keep pace with
    assert app.pacer.think_time(_env("TurnTimedOut", 0b1111), 1) == 0  # [C-TIME-1]: the person's time is up
    assert app.pacer.think_time(_env("TurnTimedOut", 0b1110), 1) == 0
    app.table.known["t"] = Known(BotPace.HUMAN, 4, Game.OKEY)
    assert app.pacer.think_time(_env("TileDiscarded", 0b1111), 1) > 0.8  # HUMAN even with no person
    assert app.pacer.think_time(_env("HandStarted", 0b1110), 1) >= 1.5  # a deal takes a moment longer
    app.table.known["t"] = Known(BotPace.INSTANT, 4, Game.OKEY)
    assert app.pacer.think_time(_env("TileDiscarded", 0b1110), 1) == 0


def test_C_IND_1_C_PAIR_1_an_out_of_turn_show_or_declaration_gives_the_seat_no_think_timer() -> None:
    """A bot that shows the indicator at the deal [C-IND-1] or declares pairs out of turn
    [C-PAIR-1] is named by the event (``to_move``) but has no turn to play: no timer may wait
    for it, or that timer fires in the middle of the seat's next turn and plays it at once,
    without the think time its own turn gave it (a 0.57 s bot move at a person's table)."""
    app = BotsApp(client=None)  # type: ignore[arg-type]
    app.table.known["t"] = Known(BotPace.HUMAN, 4, Game.OKEY)
    at = datetime.now(UTC)
    for event in (IndicatorShown(3, 5, (0, 0, 0, 0)), PairsDeclared(3), TileDrawn(3, 7, DrawSource.DECK)):
        env = Envelope("t", 4, 1, at, event.type, 3, None, event, 0b1110)
        assert app.pacer.think_time(env, 3) == 0, event.type
    # the discard that gives seat 3 its turn does wait
    discard = Envelope("t", 8, 1, at, "TileDiscarded", 3, None, TileDiscarded(2, 5, 3, 0), 0b1110)
    assert app.pacer.think_time(discard, 3) >= 0.8


async def test_a_new_turn_s_timer_replaces_the_seat_s_stale_one_and_an_off_turn_event_plays_no_later_turn() -> None:
    """One timer a seat: the event that gives a seat a new turn cancels the timer of its old
    one; an event of the seat's own while its turn thinks starts nothing (no call, no move);
    and an out-of-turn show [C-IND-1] calls nobody at once: only where the table still stood
    at it a while later would the bot look (here the table moved on: the discard that handed the
    seat its turn times it, and nothing is asked). Seat 2 is the person's."""
    from okey.v1 import table_service_pb2 as tpb

    asked: list[int] = []

    class Table:
        async def view(self, table_id: str, seat: int | None, min_version: int = 0, **_: Any) -> Any:
            asked.append(min_version)
            seats = [tpb.SeatPublic(), tpb.SeatPublic(), tpb.SeatPublic(player_id="ali"), tpb.SeatPublic()]
            # the person discarded after the show: seat 3's turn now, at version 6
            return tpb.SeatView(table_id="t", version=6, phase=tpb.PHASE_PLAYING, turn=3, seats=seats)

        async def act(self, *a: Any, **k: Any) -> Any:
            raise AssertionError("no move may be played: the turn was handed after the event")

    app = BotsApp(client=Table())  # type: ignore[arg-type]
    app.table.known["t"] = Known(BotPace.HUMAN, 4, Game.OKEY)
    at = datetime.now(UTC)
    try:
        await app.handle(Envelope("t", 5, 1, at, "IndicatorShown", 3, None, IndicatorShown(3, 5, (0, 0, 0, 0)), 0b1010))
        assert asked == [] and not app.pacer.waiting
        await app.handle(Envelope("t", 6, 1, at, "TileDiscarded", 3, None, TileDiscarded(2, 5, 3, 0), 0b1010))
        first = app.pacer.waiting[("t", 3)]
        await app.handle(Envelope("t", 7, 1, at, "PairsDeclared", 3, None, PairsDeclared(3), 0b1010))
        assert app.pacer.waiting[("t", 3)] is first and not first.cancelled() and asked == []
        await app.handle(Envelope("t", 9, 1, at, "TileDiscarded", 3, None, TileDiscarded(2, 6, 3, 0), 0b1010))
        assert first.cancelled() and app.pacer.waiting[("t", 3)] is not first
    finally:
        await app.close()
    assert not app.pacer.waiting


async def _gaps(conn: Any, table_id: str) -> list[tuple[str, int, float]]:
    """(type, seat, seconds since the event before) for each event of the table after the first."""
    rows = await conn.fetch(
        "SELECT type, data, recorded_at FROM okey_events WHERE stream_id = $1 ORDER BY version", table_id
    )
    return [
        (b["type"], int(json.loads(b["data"]).get("seat", -1)), (b["recorded_at"] - a["recorded_at"]).total_seconds())
        for a, b in itertools.pairwise(rows)
    ]


async def test_bots_wait_like_a_person_where_one_sits_and_not_where_none_does(
    table_service: TableService,
    start_bots: Callable[..., Awaitable[BotsService]],
    admin: TableClient,
    fresh_database_url: str,
) -> None:
    await start_bots(strategy="greedy")
    person = f"pace-{uuid.uuid4().hex[:8]}"
    instant = f"fast-{uuid.uuid4().hex[:8]}"
    await admin.create_table(TableOptions(turn_seconds=60), ("ali", "", "", ""), table_id=person)
    await admin.create_table(
        TableOptions(turn_seconds=60, bot_pace=BotPace.INSTANT), ("ali", "", "", ""), table_id=instant
    )
    ali = TableClient(f"127.0.0.1:{table_service.port}", issue_token("ali"))

    async def play(table_id: str, turns: int) -> None:
        done = 0
        for _ in range(2000):
            view = classic_view_from_pb(await ali.view(table_id, 0))
            if view.turn == 0 and "Discard" in view.allowed:
                await ali.act(table_id, Discard(seat=0, tile=next(t for t in view.rack if t >= 0)))
                done += 1
                if done == turns:
                    return
            elif view.turn == 0 and "Draw" in view.allowed:
                await ali.act(table_id, Draw(seat=0))
            else:
                await asyncio.sleep(0.05)
        raise AssertionError(f"{table_id}: ali played {done} of {turns} turns")

    try:
        await asyncio.gather(play(person, 3), play(instant, 3))
    finally:
        await ali.close()
    conn = await asyncpg.connect(fresh_database_url)
    try:
        slow = await _gaps(conn, person)
        fast = await _gaps(conn, instant)
    finally:
        await conn.close()
    # a bot's first move of a turn comes after the person's discard or the previous bot's; the
    # table's first bot turn too (the bots learn its pace at the deal, from the seats' views)
    waits = [g for kind, seat, g in slow if kind in ("TileDrawn", "TileTaken") and seat != 0]
    assert waits and min(waits) >= 0.7, waits  # 0.8 s at least (the log's clock, rounded)
    assert max(waits) <= 4.0, waits
    quick = [g for kind, seat, g in fast[4:] if kind in ("TileDrawn", "TileTaken") and seat != 0]
    assert quick and max(quick) < 0.7, quick


async def test_the_soak_s_people_mode_plays_the_person_and_measures_the_paced_bots(make_stack: StackFactory) -> None:
    """``okey bench soak --people`` (issue 21.2): the simulated person plays seat 0 through the
    gateway with its own token, and each paced bot turn's delay is measured against the think
    time the bots gave it (``think_seconds``): never before it, once the bots know the pace."""
    stack = make_stack(("table", "bots", "gateway"), env={"OKEY_BOTS_PACE": "table"}, private_nats=True)
    tables = 3
    bt = BotTables(
        stack.address("gateway"),
        stack.database_url,
        tables,
        TableOptions(turn_seconds=30),
        people=True,
        person_think_s=(0.1, 0.3),
        view_every_s=0,
        stall_s=20.0,
    )
    try:
        await bt.start()
        await bt.run(14.0)
        report = bt.finish()
    finally:
        bt.stop()
        await bt.close()
    assert report.tables_opened == tables and not report.errors, report.errors
    assert report.person_turns >= 2 * tables  # a draw and a discard at each table at least
    assert len(report.bot_extra) >= 2 * tables, report.extra_line()
    assert all(x >= 0 for x in report.bot_extra)
    # Only a table's first calls come before the bots have seen its pace (one view a table).
    assert report.bot_unpaced <= tables, report.extra_line()
    assert report.stuck == []

"""The bots service end to end: real table service, PostgreSQL and NATS JetStream."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest
from okey.v1.table_service_pb2 import PHASE_MATCH_OVER
from okeycore.classic import ClassicState, Stage, evolve
from okeycore.commands import Draw, LeaveSeat, TakeBack
from okeycore.events import Event, MatchEnded, SeatLeft, TileDiscarded, TileDrawn, TurnTimedOut
from okeycore.options import BotPace, Game, TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeyplatform.contract import classic_view_from_pb
from okeyplatform.eventstore import PostgresEventStore

from services.bots.main import BotsService
from services.table.main import TableService

BOTS = ("", "", "", "")


def _table_id() -> str:
    return f"bots-{uuid.uuid4().hex[:10]}"


async def _wait_for_match_end(admin: TableClient, table_id: str, timeout_s: float = 150.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        view = classic_view_from_pb(await admin.view(table_id))
        if view.phase.value == "MATCH_OVER":
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"the match at {table_id} did not end in {timeout_s:.0f}s")


async def _events(svc: TableService, table_id: str) -> list[Event]:
    assert svc.app is not None
    return [event for _, event in await svc.app.events(table_id)]


def _assert_each_turn_played_once(events: list[Event]) -> None:
    """Every draw and discard is made by the seat on turn, at the stage that allows it: a turn
    played twice would show a second draw or discard out of turn."""
    state: ClassicState | None = None
    for e in events:
        if state is not None and isinstance(e, TileDrawn):
            assert e.seat == state.turn and state.stage is Stage.DRAW, e
        if state is not None and isinstance(e, TileDiscarded):
            assert e.seat == state.turn and state.stage is Stage.DISCARD, e
        state = evolve(state, e)


async def test_a_table_of_bot_seats_plays_to_the_end_with_only_the_bots_service(
    table_service: TableService, start_bots: Callable[..., Awaitable[BotsService]], admin: TableClient
) -> None:
    bots = await start_bots()
    table_id = _table_id()
    await admin.create_table(TableOptions(match_points=2, turn_seconds=20), BOTS, table_id=table_id)
    await _wait_for_match_end(admin, table_id)
    events = await _events(table_service, table_id)
    assert any(isinstance(e, MatchEnded) for e in events)
    assert not any(isinstance(e, TurnTimedOut) for e in events)  # no turn was left to the timers
    _assert_each_turn_played_once(events)
    # every move was the bots' (a lucky deal may end a 2-point match in a few turns: no fixed count)
    moves = sum(isinstance(e, (TileDrawn, TileDiscarded)) for e in events)
    assert bots.app is not None and moves > 0 and bots.app.player.commands >= moves


@pytest.mark.parametrize("pace", [BotPace.AUTO, BotPace.HUMAN])
async def test_C_TIME_1_a_timed_out_human_turn_is_played_by_a_bot_within_a_second(
    table_service: TableService, start_bots: Callable[..., Awaitable[BotsService]], admin: TableClient, pace: BotPace
) -> None:
    """Also issue 21.2: with the bots keeping a person's pace (AUTO with a person seated, or
    HUMAN), a timed-out turn gets no think time: it is played at once, well within its grace."""
    bots = await start_bots()
    assert bots.app is not None and not bots.app.instant  # the pace is kept by these bots
    said: list[tuple[str, dict[str, Any]]] = []

    class Heard:
        """The bots' log, heard: each line's name and fields."""

        def bind(self, **_: Any) -> Heard:
            return self

        def __getattr__(self, level: str) -> Callable[..., None]:
            return lambda event, **kw: said.append((event, kw))

    bots.app.player.log = Heard()
    table_id = _table_id()
    # Seat 0 (the first starter) is a human who never moves; the grace is 3 s, so only a bot
    # can have played the turn within a second of the timeout.
    await admin.create_table(TableOptions(turn_seconds=5, bot_pace=pace), ("ali", "", "", ""), table_id=table_id)
    deadline = time.monotonic() + 20
    timed_out_at = played_at = None
    while time.monotonic() < deadline and played_at is None:
        await asyncio.sleep(0.2)
        assert table_service.app is not None
        for stored, event in await table_service.app.events(table_id):
            if isinstance(event, TurnTimedOut) and event.seat == 0 and timed_out_at is None:
                timed_out_at = stored.recorded_at
            if isinstance(event, TileDiscarded) and event.seat == 0 and timed_out_at is not None:
                played_at = stored.recorded_at
                break
    assert timed_out_at is not None and played_at is not None, "the human's turn was not played"
    # Who played it, not how fast: the table's own forced move comes only after the grace, so a
    # discard inside the grace is the bots' (how fast they are is ``okey bench``'s business).
    waited = (played_at - timed_out_at).total_seconds()
    assert waited < table_service.grace_ms / 1000, (
        f"the turn was played {waited:.1f} s after its timeout: by the timer, not a bot"
    )
    _assert_each_turn_played_once(await _events(table_service, table_id))
    # [D-4]: the decision made for the person is logged with its kind, and no tile with it
    mine = [kw for event, kw in said if event == "played_for_person" and kw["table_id"] == table_id]
    assert mine and mine[0]["kind"] == "timeout" and mine[0]["seat"] == 0, said
    assert mine[-1]["command"] in ("Discard", "Finish")  # the turn it played for them ended
    assert not any("tile" in m or "rack" in m for m in mine)


async def test_two_replicas_share_the_work_and_never_play_a_turn_twice(
    table_service: TableService, start_bots: Callable[..., Awaitable[BotsService]], admin: TableClient
) -> None:
    a = await start_bots("shared")
    b = await start_bots("shared")
    table_id = _table_id()
    await admin.create_table(TableOptions(match_points=2), BOTS, table_id=table_id)
    await _wait_for_match_end(admin, table_id)
    events = await _events(table_service, table_id)
    assert not any(isinstance(e, TurnTimedOut) for e in events)
    _assert_each_turn_played_once(events)
    assert a.consumer is not None and b.consumer is not None
    assert a.consumer.applied > 0 and b.consumer.applied > 0  # the shared durable split the events


async def test_replicas_that_both_see_every_event_still_play_each_turn_once(
    table_service: TableService, start_bots: Callable[..., Awaitable[BotsService]], admin: TableClient
) -> None:
    # Two independent consumers: both replicas try every turn; the command ids derived from
    # (table, version, seat) make the table keep one of each pair.
    a = await start_bots("first")
    b = await start_bots("second")
    table_id = _table_id()
    await admin.create_table(TableOptions(match_points=2), BOTS, table_id=table_id)
    await _wait_for_match_end(admin, table_id)
    events = await _events(table_service, table_id)
    assert not any(isinstance(e, TurnTimedOut) for e in events)
    _assert_each_turn_played_once(events)
    assert a.app is not None and b.app is not None
    apps = (a.app, b.app)
    # Both replicas were live and given every event. Which one plays a turn is a race (at a deal
    # both try; the one that played a discard goes on from its answer), so in a short match one
    # may win every race: CI once saw [0, 61] commands. What must hold is the table's side: each
    # turn once (above), and every command it kept is one replica's, the other's a duplicate.
    assert a.consumer is not None and b.consumer is not None
    assert a.consumer.applied > 0 and b.consumer.applied > 0
    assert sum(app.player.commands for app in apps) > 0
    # Every command the table applied for a bot (one row of okey_commands each) is exactly one
    # replica's command that was not a duplicate: the other replica's copy got "duplicate".
    assert table_service.app is not None
    store = table_service.app.store
    assert isinstance(store, PostgresEventStore)

    async def table_commands() -> int:
        async with store.pool.acquire() as conn:
            return int(
                await conn.fetchval(
                    "SELECT count(*) FROM okey_commands WHERE stream_id = $1 AND command_id LIKE '%:bot:%'", table_id
                )
            )

    def fresh() -> int:
        return sum(app.player.commands - app.player.duplicates for app in apps)

    # The last command's answer may still be on its way back to its replica: wait for it.
    deadline = time.monotonic() + 5
    while fresh() != await table_commands() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    applied = await table_commands()
    assert fresh() == applied, (fresh(), applied)
    moves = sum(isinstance(e, TileDrawn | TileDiscarded) for e in events)
    assert applied >= moves > 0  # each draw and discard came from a bot's command


async def test_an_okey_101_table_of_bot_seats_plays_to_the_end(
    table_service: TableService, start_bots: Callable[..., Awaitable[BotsService]], admin: TableClient
) -> None:
    await start_bots()
    table_id = _table_id()
    options = TableOptions(game=Game.OKEY101, seats=2, rounds=3)
    await admin.create_table(options, ("", ""), table_id=table_id)
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        view = await admin.view(table_id)
        if view.phase == PHASE_MATCH_OVER:
            break
        await asyncio.sleep(0.3)
    events = await _events(table_service, table_id)
    assert any(isinstance(e, MatchEnded) for e in events)
    bad = [i for i, e in enumerate(events) if isinstance(e, TurnTimedOut)]
    assert not bad, [type(e).__name__ + str(getattr(e, "seat", "")) for e in events[max(0, bad[0] - 8) : bad[0] + 2]]


async def test_D_10_a_seat_left_on_its_turn_is_played_by_a_bot_at_once_and_is_no_longer_the_leaver_s(
    table_service: TableService, start_bots: Callable[..., Awaitable[BotsService]], admin: TableClient
) -> None:
    """[C-LEAVE-1] [D-10]: from SeatLeft on a bot plays the seat at once (not after three
    timeouts, not after the turn's time), and the leaver may neither see nor move for it."""
    await start_bots()
    table_id = _table_id()
    # Seat 0 (the first starter) is ali; a minute a turn, so only a bot can play it soon.
    await admin.create_table(TableOptions(match_points=2, turn_seconds=60), ("ali", "", "", ""), table_id=table_id)
    ali = TableClient(f"127.0.0.1:{table_service.port}", issue_token("ali", "player"))
    try:
        view = classic_view_from_pb(await ali.view(table_id, 0))
        assert view.turn == 0 and "LeaveSeat" in view.allowed
        await ali.act(table_id, LeaveSeat(seat=0), command_id="leave-1")
        deadline = time.monotonic() + 30
        left_at = played_at = None
        while time.monotonic() < deadline and played_at is None:
            await asyncio.sleep(0.1)
            assert table_service.app is not None
            for stored, event in await table_service.app.events(table_id):
                if isinstance(event, SeatLeft):
                    assert (event.seat, event.player) == (0, "ali")
                    left_at = stored.recorded_at
                if isinstance(event, TileDiscarded) and event.seat == 0 and left_at is not None:
                    played_at = stored.recorded_at
                    break
        assert left_at is not None and played_at is not None, "the left seat's turn was not played"
        waited = (played_at - left_at).total_seconds()
        assert waited < 30, f"the left seat was played {waited:.1f} s later: the bots did not take it"  # turn: 60 s
        for call in (ali.view(table_id, 0), ali.act(table_id, Draw(seat=0)), ali.act(table_id, TakeBack(seat=0))):
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await call
            assert err.value.code() is grpc.StatusCode.PERMISSION_DENIED
        await _wait_for_match_end(admin, table_id)
        events = await _events(table_service, table_id)
        assert not any(isinstance(e, TurnTimedOut) for e in events)  # no turn was left to the timers
        _assert_each_turn_played_once(events)
    finally:
        await ali.close()


async def test_bots_on_a_replica_with_an_older_cache_play_the_turn_an_event_gave_them(
    table_service: TableService,
    start_bots: Callable[..., Awaitable[BotsService]],
    admin: TableClient,
    fresh_database_url: str,
    nats_url: str,
) -> None:
    """The bots read views from replica A while the human plays through replica B, so A's cache
    is older than the event that calls the bots. They ask for a view that includes that event
    (``min_version``), so they play at once instead of finding "not our turn" and leaving the
    table to the turn timer (30 s here)."""
    from okeycore.classic.bots import GreedyBot

    await start_bots()
    b = TableService(fresh_database_url, nats_url, "127.0.0.1:0", grace_ms=3000)
    await b.start()
    human = TableClient(f"127.0.0.1:{b.port}", issue_token("ali"))
    table_id = _table_id()
    try:
        await admin.create_table(TableOptions(turn_seconds=30), ("ali", "", "", ""), table_id=table_id)
        assert classic_view_from_pb(await admin.view(table_id)).turn == 0  # A now caches the new table
        bot = GreedyBot(0)
        discarded_at = time.monotonic()
        for _ in range(4):  # the first starter's turn: discard (or show the indicator first)
            view = classic_view_from_pb(await human.view(table_id, 0))
            if view.turn != 0:
                break
            await human.act(table_id, bot.act(view))
            discarded_at = time.monotonic()
        deadline = discarded_at + 10
        while time.monotonic() < deadline:
            seats = {e.seat for e in await _events(table_service, table_id) if isinstance(e, TileDiscarded)}
            if {1, 2, 3} <= seats:
                break
            await asyncio.sleep(0.1)
        assert {1, 2, 3} <= seats, "the bot seats did not play after the human's discard"
        assert time.monotonic() - discarded_at < 10  # long before the 30 s turn timer
        events = await _events(table_service, table_id)
        assert not any(isinstance(e, TurnTimedOut) for e in events)
        _assert_each_turn_played_once(events)
    finally:
        await human.close()
        await b.stop(grace_s=1.0)

"""A disconnected seat at the table service [D-11]: the edge's ``set_connection`` (a service
credential only) appends SeatDisconnected / SeatReconnected, which every seat and spectator sees
in GetEvents and GetView; saying it twice appends nothing; the table's own timer then puts the
seat on autopilot at its first timeout. Over gRPC on real PostgreSQL and NATS, and in process
over the memory store with a clock the test sets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest
from okeycore.commands import SetConnection
from okeycore.events import SeatDisconnected, SeatReconnected, TurnTimedOut
from okeycore.options import TableOptions
from okeyplatform.auth import Identity
from okeyplatform.client import TableClient
from okeyplatform.contract import classic_view_from_pb
from okeyplatform.eventstore import MemoryEventStore
from okeyplatform.grpcserver import error_reason

from services.table.app import Forbidden, RuleError, TableApp
from services.table.main import TableService

PLAYERS = ("ali", "ayse", "mehmet", "")
EDGE = Identity("edge", "service")


def _slot(event: Any) -> tuple[str | None, str, int]:
    """(oneof slot, kind, to_move) of a TableEvent."""
    return event.WhichOneof("event"), event.kind, event.to_move


async def test_D_11_only_a_service_sets_a_connection_and_every_seat_sees_it_over_grpc(
    table_service: TableService, client_for: Callable[[str, str], TableClient], unique_id: str
) -> None:
    table_id = f"t-presence-{unique_id}"
    edge = client_for("edge", "service")
    await edge.create_table(TableOptions(), PLAYERS, table_id=table_id)
    people = {i: client_for(p, "player") for i, p in enumerate(PLAYERS) if p}
    before = classic_view_from_pb(await people[0].view(table_id, 0)).version

    # A person may not say who is connected, not even about their own seat (another's seat is not
    # theirs to begin with, nor any seat staff's).
    for seat, caller, reason in (
        (1, people[1], "SERVICE_ONLY"),
        (0, people[1], "NOT_YOUR_SEAT"),
        (1, client_for("admin-1", "admin"), "NOT_YOUR_SEAT"),
    ):
        for connected in (False, True):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await caller.act(table_id, SetConnection(seat=seat, connected=connected))
            assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert error_reason(refused.value) == reason

    res = await edge.act(table_id, SetConnection(seat=1, connected=False), command_id="away-1")
    assert res.version == before + 1 and not res.duplicate
    (ev,) = res.events
    assert _slot(ev) == ("seat_disconnected", "SeatDisconnected", -1) and ev.seat_disconnected.seat == 1

    # Every seat, and a spectator, gets the event and sees the seat marked.
    for seat, client in [*people.items(), (None, people[0])]:
        events = await client.events(table_id, seat=seat, after_version=before)
        assert [(_slot(e), e.seat_disconnected.seat) for e in events] == [(_slot(ev), 1)]
        view = await client.view(table_id, seat)
        assert [p.disconnected for p in view.seats] == [False, True, False, False]

    # The edge may say it twice: nothing is appended; the same command id is the first answer.
    again = await edge.act(table_id, SetConnection(seat=1, connected=False), command_id="away-2")
    assert again.version == res.version and list(again.events) == [] and not again.duplicate
    retry = await edge.act(table_id, SetConnection(seat=1, connected=False), command_id="away-1")
    assert retry.duplicate and [_slot(e) for e in retry.events] == [_slot(ev)]
    assert len(await people[0].events(table_id, after_version=before)) == 1

    with pytest.raises(grpc.aio.AioRpcError) as bot:
        await edge.act(table_id, SetConnection(seat=3, connected=False))
    assert bot.value.code() == grpc.StatusCode.FAILED_PRECONDITION and error_reason(bot.value) == "BOT_SEAT"

    back = await edge.act(table_id, SetConnection(seat=1, connected=True))
    assert [_slot(e) for e in back.events] == [("seat_reconnected", "SeatReconnected", -1)]
    view = await people[2].view(table_id, 2)
    assert not any(p.disconnected for p in view.seats) and view.version == back.version


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


async def test_D_11_the_table_s_timer_puts_a_disconnected_seat_on_autopilot_at_its_first_timeout() -> None:
    clock = Clock()
    store = MemoryEventStore()
    app = TableApp(store, clock=clock, grace_ms=0)
    await app.create_table("t-away", TableOptions(), PLAYERS)
    state = (await app.load("t-away")).state
    seat = state.turn
    person = Identity(PLAYERS[seat], "player")

    def away(now: int) -> SetConnection:
        return SetConnection(seat=seat, connected=False, now_ms=now)

    with pytest.raises(Forbidden) as refused:  # the app refuses a person too, whatever the transport
        await app.act("t-away", "p", away, person, seat)
    assert refused.value.reason == "SERVICE_ONLY"
    got = await app.act("t-away", "a", away, EDGE, seat)
    assert [e for _, e in got.events] == [SeatDisconnected(seat)]
    assert got.events[0][0].bot_seats == 1 << 3  # the empty seat's bot only, until the timeout
    clock.now = state.deadline_ms
    fired = await app.fire_timer("t-away")
    assert fired is not None
    (stored, timed_out), *_ = fired.events
    assert timed_out == TurnTimedOut(seat, 1, True, clock.now)  # at once, not on the third [C-TIME-2]
    assert stored.bot_seats == (1 << 3) | (1 << seat)
    fired = await app.fire_timer("t-away")  # the grace (0 here) is over: the table's minimal move
    assert fired is not None and not isinstance(fired.events[0][1], TurnTimedOut)
    after = (await app.load("t-away")).state
    assert after.turn != seat and after.seats[seat].autopilot and after.bot_seats >> seat & 1
    assert fired.events[-1][0].bot_seats == after.bot_seats

    # The next seat's person is connected: its first timeout is the first of three.
    clock.now = after.deadline_ms
    fired = await app.fire_timer("t-away")
    assert fired is not None and fired.events[0][1] == TurnTimedOut(after.turn, 1, False, clock.now)


async def test_D_11_a_replica_behind_the_store_decides_the_connection_on_the_store_s_table() -> None:
    """Two replicas over one store: what one appended, the other's stale cache does not hide. A
    disconnection the cache already shows is checked against the store before nothing is written,
    and one the cache does not show yet appends nothing twice."""
    store = MemoryEventStore()
    mine, other = TableApp(store, clock=Clock()), TableApp(store, clock=Clock())
    await mine.create_table("t-two", TableOptions(), PLAYERS)

    def tell(seat: int, connected: bool) -> Callable[[int], SetConnection]:
        return lambda now: SetConnection(seat=seat, connected=connected, now_ms=now)

    await mine.act("t-two", "a1", tell(0, False), EDGE, 0)  # mine caches seat 0 as away
    await other.act("t-two", "b1", tell(0, True), EDGE, 0)  # the other replica hears them back
    again = await mine.act("t-two", "a2", tell(0, False), EDGE, 0)  # the cache says "already away"
    assert [e for _, e in again.events] == [SeatDisconnected(0)]
    await other.act("t-two", "b2", tell(1, False), EDGE, 1)  # the other replica: seat 1 is away
    twice = await mine.act("t-two", "a3", tell(1, False), EDGE, 1)  # mine's cache did not know it
    assert twice.events == [] and twice.version == (await mine.load("t-two", fresh=True)).state.version
    kinds = [e.type for e in await store.read_stream("t-two")]
    assert kinds.count(SeatDisconnected.type) == 3 and kinds.count(SeatReconnected.type) == 1
    with pytest.raises(RuleError) as bot:
        await mine.act("t-two", "a4", tell(3, True), EDGE, 3)
    assert bot.value.code == "BOT_SEAT"

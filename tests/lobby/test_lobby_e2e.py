"""The lobby end to end over gRPC with the real table service, PostgreSQL and NATS: guests sign
in, open and fill a table, the match starts on the table service with the stakes held, is played
to the end with the lobby's tokens, and the pot is paid when MatchEnded arrives over NATS."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest
from breaks import ready_all
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
from lobby_helpers import Stack
from okey.v1 import common_pb2
from okey.v1 import lobby_service_pb2 as pb
from okeycore.classic.bots import GreedyBot
from okeyplatform.client import TableClient
from okeyplatform.contract import classic_view_from_pb
from okeyplatform.eventstore import PostgresEventStore
from okeyplatform.grpcserver import error_reason
from okeytools.collusion import CollusionScan

from services.lobby.ledger_repo import HOUSE
from services.lobby.store import LobbyStore


def auth(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


async def sign_in(stack: Stack, name: str) -> pb.SignInGuestResponse:
    resp: pb.SignInGuestResponse = await stack.stub.SignInGuest(
        pb.SignInGuestRequest(display_name=name, device_id=f"device-{name}")
    )
    return resp


async def play_to_end(clients: list[TableClient], table_id: str) -> int:
    bots = [GreedyBot(i) for i in range(4)]
    for moves in range(5000):
        v = classic_view_from_pb(await clients[0].view(table_id, 0))
        if v.phase.value == "MATCH_OVER":
            return moves
        if await ready_all(clients, table_id, v):  # the break between hands [P-BREAK-3]
            continue
        seat = v.turn
        view = classic_view_from_pb(await clients[seat].view(table_id, seat))
        await clients[seat].act(table_id, bots[seat].act(view))
    raise AssertionError("the match did not end")


async def wait_for_status(stack: Stack, token: str, table_id: str, status: int, timeout: float = 20.0) -> pb.LobbyTable:
    deadline = time.monotonic() + timeout
    while True:
        card = (await stack.stub.GetTableCard(pb.GetTableCardRequest(table_id=table_id), metadata=auth(token))).table
        if card.status == status or time.monotonic() > deadline:
            return card
        await asyncio.sleep(0.1)


async def test_full_flow_four_guests_stakes_held_match_played_pot_paid_C_SC_9(stack: Stack) -> None:
    guests = [await sign_in(stack, n) for n in ("Ayşe", "Barış", "Çiğdem", "Doğan")]
    tokens = [g.token for g in guests]
    assert all(g.chips_granted == 1000 and g.player.chips == 1000 for g in guests)
    opened = await stack.stub.OpenTable(
        pb.OpenTableRequest(options=common_pb2.TableOptions(game=common_pb2.GAME_OKEY, match_points=1, stake=101)),
        metadata=auth(tokens[0]),
    )
    table_id = opened.table.table_id
    assert opened.table.status == pb.LOBBY_TABLE_STATUS_WAITING and opened.table.stake == 101
    assert {r.option for r in opened.table.rules} >= {"match_points", "indicator", "duel", "stake", "deck_end"}
    listed = await stack.stub.ListTables(pb.ListTablesRequest(), metadata=auth(tokens[1]))
    assert [t.table_id for t in listed.tables] == [table_id]
    for token in tokens[1:]:
        joined = await stack.stub.JoinTable(pb.JoinTableRequest(table_id=table_id), metadata=auth(token))
    assert joined.started and joined.table.status == pb.LOBBY_TABLE_STATUS_PLAYING
    assert joined.table.pot == 404 and joined.table.seats_taken == 4
    for token in tokens:  # stakes held at the start
        assert (await stack.stub.GetChips(pb.GetChipsRequest(), metadata=auth(token))).balance == 899

    # The table service has the match, with the lobby's seats; players act with the lobby's tokens.
    clients = [TableClient(stack.table_addr, t) for t in tokens]
    try:
        view = await clients[0].view(table_id, 0)
        assert [s.player_id for s in view.seats] == [s.player_id for s in joined.table.seats]
        assert [s.player_id for s in view.seats] == [g.player.player_id for g in guests]
        moves = await play_to_end(clients, table_id)
        final = classic_view_from_pb(await clients[0].view(table_id))
    finally:
        for c in clients:
            await c.close()
    assert moves > 0 and final.result is not None
    # The fair-play scan reads this real log: every take of a discard is a feed between two players.
    # read as an operator would: the table's log in PostgreSQL
    events = await PostgresEventStore.connect(stack.database_url, min_size=1, max_size=1)
    try:
        log = await events.read_stream(table_id)
    finally:
        await events.close()
    scan = CollusionScan()
    scan.add_stored(log)
    report = scan.report()
    takes = [e for e in log if e.type == "TileDrawn" and e.data["source"] == "DISCARD"]
    assert report.baseline_feeds == len(takes)
    # a discard onto an empty deck (next_seat -1) can be taken by nobody [C-DECK-1]
    assert report.baseline_chances == sum(1 for e in log if e.type == "TileDiscarded" and e.data["next_seat"] >= 0)
    assert len(report.pairs) == 6 and all(p.tables == 1 for p in report.pairs)

    card = await wait_for_status(stack, tokens[0], table_id, pb.LOBBY_TABLE_STATUS_FINISHED)
    assert card.status == pb.LOBBY_TABLE_STATUS_FINISHED and card.pot == 0
    winners = set(final.result.winners)
    share, remainder = divmod(404, len(winners))
    for seat, token in enumerate(tokens):
        chips = await stack.stub.GetChips(pb.GetChipsRequest(limit=5), metadata=auth(token))
        assert chips.balance == 899 + (share if seat in winners else 0)
        if seat in winners:
            assert chips.entries[0].kind == "payout" and chips.entries[0].amount == share
    store = await LobbyStore.connect(stack.database_url, min_size=1, max_size=1)  # the lobby's books
    try:
        async with store.unit() as tx:
            assert (await tx.ledger.balances([HOUSE]))[HOUSE] == remainder
    finally:
        await store.close()


async def test_errors_carry_a_stable_reason_and_a_readable_message(stack: Stack) -> None:
    me = await sign_in(stack, "Ece")
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stack.stub.SendMessage(pb.SendMessageRequest(text="siktir git"), metadata=auth(me.token))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION and error_reason(err.value) == "PROFANITY"
    assert "küfür" in (err.value.details() or "")
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stack.stub.OpenTable(
            pb.OpenTableRequest(options=common_pb2.TableOptions(game=common_pb2.GAME_OKEY, partners=True, duel=True)),
            metadata=auth(me.token),
        )
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and error_reason(err.value) == "INVALID_OPTIONS"
    assert "partners" in (err.value.details() or "")
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stack.stub.SignInGuest(pb.SignInGuestRequest(display_name="ECE", device_id="x"))
    assert err.value.code() == grpc.StatusCode.ALREADY_EXISTS and error_reason(err.value) == "NAME_TAKEN"
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stack.stub.ListReports(pb.ListReportsRequest(), metadata=auth(me.token))
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED and error_reason(err.value) == "STAFF_ONLY"
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stack.stub.GetChips(pb.GetChipsRequest())
    assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
    sent = await stack.stub.SendMessage(pb.SendMessageRequest(text="Selam, iyi oyunlar!"), metadata=auth(me.token))
    assert sent.message.display_name == "Ece" and sent.message.message_id > 0


async def test_health_and_reflection_are_on(stack: Stack) -> None:
    health = health_pb2_grpc.HealthStub(stack.channel)
    got = await health.Check(health_pb2.HealthCheckRequest(service="okey.v1.LobbyService"))
    assert got.status == health_pb2.HealthCheckResponse.SERVING
    with grpc.insecure_channel(stack.lobby_addr) as sync_channel:
        services = await asyncio.to_thread(ProtoReflectionDescriptorDatabase(sync_channel).get_services)
    assert "okey.v1.LobbyService" in services

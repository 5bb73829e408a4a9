"""The table service end to end over gRPC, on real PostgreSQL and NATS JetStream."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from breaks import ready_all
from nats.js.client import JetStreamContext
from okeycore.classic.bots import GreedyBot
from okeycore.commands import Discard, Draw
from okeycore.events import DrawSource, HandStarted, TileDiscarded, TileDrawn
from okeycore.options import TableOptions
from okeyplatform.auth import STAFF_ROLES
from okeyplatform.client import TableClient
from okeyplatform.contract import CONTENT_TYPE, classic_view_from_pb, decode_envelope
from okeyplatform.grpcserver import error_reason
from okeyplatform.relay import TABLE_STREAM, table_subject

from services.table.main import TableService

PLAYERS = ("ali", "ayse", "mehmet", "zeynep")


async def play_to_end(
    clients: list[TableClient], table_id: str, max_moves: int = 5000, service: TableService | None = None
) -> int:
    bots = [GreedyBot(i) for i in range(4)]
    moves = 0
    while moves < max_moves:
        v = classic_view_from_pb(await clients[0].view(table_id, 0))
        if v.phase.value == "MATCH_OVER":
            return moves
        if await ready_all(clients, table_id, v):  # the break between hands [P-BREAK-3]
            continue
        seat = v.turn
        view = classic_view_from_pb(await clients[seat].view(table_id, seat))
        if service is not None and service.app is not None:
            loaded = await service.app.load(table_id)
            assert view == loaded.engine.view(loaded.state, seat)  # exactly okeycore's view, allowed included
        await clients[seat].act(table_id, bots[seat].act(view))
        moves += 1
    raise AssertionError("the match did not end")


async def stream_messages(js: JetStreamContext, table_id: str, expected: int) -> list[Any]:
    sub = await js.subscribe(table_subject(table_id), ordered_consumer=True)
    out: list[Any] = []
    try:
        while len(out) < expected:
            out.append(await sub.next_msg(timeout=10))
    finally:
        await sub.unsubscribe()
    return out


async def test_full_classic_match_through_grpc_reaches_nats_in_order(
    table_service: TableService,
    client_for: Callable[[str], TableClient],
    jetstream: JetStreamContext,
    unique_id: str,
) -> None:
    table_id = f"full-match-{unique_id}"  # the session's stream outlives this test: an id of its own
    clients = [client_for(p) for p in PLAYERS]
    created = await client_for("lobby", "service").create_table(
        TableOptions(match_points=4), PLAYERS, table_id=table_id
    )
    assert created.version == 2  # TableCreated + HandStarted
    moves = await play_to_end(clients, table_id, service=table_service)
    assert moves > 10
    final = classic_view_from_pb(await clients[0].view(table_id))
    assert final.result is not None and final.result.winners
    assert min(final.result.scores) <= 0  # [C-SC-7] the match ends once a score reaches 0
    # Every committed event reaches JetStream once, in version order, without private tiles.
    version = final.version
    msgs = await stream_messages(jetstream, table_id, version)
    # the okey.v1.TableEvent envelope, binary, with its content type and de-duplication id
    assert all(m.headers["Content-Type"] == CONTENT_TYPE for m in msgs)
    assert [m.headers["Nats-Msg-Id"] for m in msgs] == [f"{table_id}:{v}" for v in range(1, version + 1)]
    envs = [decode_envelope(m.data, m.headers) for m in msgs]
    assert [e.version for e in envs] == list(range(1, version + 1))
    info = await jetstream.stream_info(TABLE_STREAM)
    assert info.state.messages >= version
    # one envelope builder: NATS carries exactly what GetEvents gives a spectator
    spectator = await clients[0].events(table_id)
    assert [m.data for m in msgs] == [e.SerializeToString() for e in spectator]
    for env in envs:
        ev: Any = env.event
        if isinstance(ev, HandStarted):
            assert all(t == -1 for rack in ev.racks for t in rack)
            assert all(t == -1 for t in ev.deck) and ev.order == () and ev.salt == ""
            assert env.to_move == ev.starter
        if isinstance(ev, TileDrawn) and ev.source is DrawSource.DECK:
            assert ev.tile == -1
        if isinstance(ev, TileDiscarded):
            assert env.to_move == ev.next_seat


async def test_a_command_s_trace_context_is_kept_with_its_events_and_published(
    table_service: TableService,
    client_for: Callable[[str], TableClient],
    jetstream: JetStreamContext,
    unique_id: str,
) -> None:
    """``traceparent`` metadata on Act is stored with the events the command appends and goes
    out with them (header and envelope field); a command without one, or with a malformed one,
    publishes none."""
    table_id = f"t-trace-{unique_id}"
    clients = [client_for(p) for p in PLAYERS]
    await client_for("lobby", "service").create_table(TableOptions(), PLAYERS, table_id=table_id)
    v = classic_view_from_pb(await clients[0].view(table_id, 0))
    seat = v.turn
    mine = classic_view_from_pb(await clients[seat].view(table_id, seat))
    tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    discard = next(t for t in mine.rack if t >= 0)
    res = await clients[seat].act(table_id, Discard(seat=seat, tile=discard), traceparent=tp)
    assert [e.traceparent for e in res.events] == [tp]
    nxt = (seat + 1) % 4
    await clients[nxt].act(table_id, Draw(seat=nxt), traceparent="not-a-trace-context")
    msgs = await stream_messages(jetstream, table_id, res.version + 1)
    traced, plain = msgs[res.version - 1], msgs[res.version]
    assert traced.headers.get("traceparent") == tp and decode_envelope(traced.data, traced.headers).traceparent == tp
    assert "traceparent" not in plain.headers and decode_envelope(plain.data, plain.headers).traceparent is None
    assert [e.traceparent for e in await clients[0].events(table_id, after_version=res.version - 1)] == [tp, ""]


async def test_rule_violation_is_failed_precondition_with_reason(
    table_service: TableService, client_for: Callable[[str], TableClient]
) -> None:
    clients = [client_for(p) for p in PLAYERS]
    await client_for("lobby", "service").create_table(TableOptions(), PLAYERS, table_id="t-errors")
    v = classic_view_from_pb(await clients[0].view("t-errors", 0))
    other = (v.turn + 1) % 4
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await clients[other].act("t-errors", Draw(seat=other))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_reason(err.value) == "NOT_YOUR_TURN"
    # acting for someone else's seat
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await clients[other].act("t-errors", Draw(seat=v.turn))
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await clients[0].view("no-such-table")
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    bad = TableClient(f"127.0.0.1:{table_service.port}", "v1.forged.token")
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await bad.view("t-errors")
    assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
    await bad.close()


async def test_duplicate_command_id_returns_first_result_and_appends_nothing(
    table_service: TableService, client_for: Callable[[str], TableClient]
) -> None:
    clients = [client_for(p) for p in PLAYERS]
    await client_for("lobby", "service").create_table(TableOptions(), PLAYERS, table_id="t-dup")
    v = classic_view_from_pb(await clients[0].view("t-dup", 0))
    seat = v.turn
    mine = classic_view_from_pb(await clients[seat].view("t-dup", seat))
    cmd = Discard(seat=seat, tile=mine.rack[0])
    first = await clients[seat].act("t-dup", cmd, command_id="c-1")
    again = await clients[seat].act("t-dup", cmd, command_id="c-1")
    assert not first.duplicate and again.duplicate
    assert again.version == first.version
    assert [e.version for e in again.events] == [e.version for e in first.events]
    after = classic_view_from_pb(await clients[0].view("t-dup", 0))
    assert after.version == first.version


async def test_conflicting_commands_exactly_one_wins(
    table_service: TableService, client_for: Callable[[str], TableClient]
) -> None:
    clients = [client_for(p) for p in PLAYERS]
    await client_for("lobby", "service").create_table(TableOptions(), PLAYERS, table_id="t-race")
    v = classic_view_from_pb(await clients[0].view("t-race", 0))
    seat = v.turn
    mine = classic_view_from_pb(await clients[seat].view("t-race", seat))
    a, b = mine.rack[0], mine.rack[1]
    results = await asyncio.gather(
        clients[seat].act("t-race", Discard(seat=seat, tile=a), command_id="race-a"),
        clients[seat].act("t-race", Discard(seat=seat, tile=b), command_id="race-b"),
        return_exceptions=True,
    )
    wins = [r for r in results if not isinstance(r, BaseException)]
    losses = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
    assert len(wins) == 1 and len(losses) == 1
    assert losses[0].code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_reason(losses[0]) == "NOT_YOUR_TURN"  # re-decided on the new state: the turn moved on


async def test_two_replicas_conflict_one_wins_the_other_redecides(fresh_database_url: str) -> None:
    """Two table-service replicas (separate caches) on one database: the store's version check
    keeps one writer; the loser reloads, decides again on the new state and is refused."""
    from okeyplatform.eventstore import PostgresEventStore

    from services.table.app import RuleError, TableApp

    store = await PostgresEventStore.connect(fresh_database_url)
    try:
        a, b = TableApp(store), TableApp(store)
        await a.create_table("t-replicas", TableOptions(), PLAYERS)
        loaded_a = await a.load("t-replicas")
        await b.load("t-replicas")  # both replicas now cache version 2
        seat = loaded_a.state.turn
        rack = loaded_a.state.seats[seat].rack
        results = await asyncio.gather(
            a.act("t-replicas", "ra", lambda now: Discard(seat=seat, tile=rack[0], now_ms=now)),
            b.act("t-replicas", "rb", lambda now: Discard(seat=seat, tile=rack[1], now_ms=now)),
            return_exceptions=True,
        )
        ok = [r for r in results if not isinstance(r, BaseException)]
        refused = [r for r in results if isinstance(r, RuleError)]
        assert len(ok) == 1 and len(refused) == 1
        assert refused[0].code == "NOT_YOUR_TURN"
        events = await store.read_stream("t-replicas")
        assert [e.version for e in events] == [1, 2, 3]
    finally:
        await store.close()


async def test_full_okey101_match_through_grpc_with_exact_views(
    table_service: TableService, client_for: Callable[[str], TableClient]
) -> None:
    from okeycore.okey101.bots import GreedyBot101
    from okeycore.options import Game
    from okeyplatform.contract import seat_view_from_pb

    players = ("ali", "ayse")
    clients = [client_for(p) for p in players]
    opts = TableOptions(game=Game.OKEY101, seats=2, rounds=3)
    created = await client_for("lobby", "service").create_table(opts, players, table_id="match-101")
    assert created.version == 2
    bots = [GreedyBot101(i) for i in range(2)]
    assert table_service.app is not None
    moves = 0
    kinds: set[str] = set()
    while moves < 5000:
        spectator = seat_view_from_pb(await clients[0].view("match-101"))
        if spectator.phase.value == "MATCH_OVER":
            break
        if await ready_all(clients, "match-101", spectator):  # the break between hands [P-BREAK-3]
            kinds.add("break")
            continue
        seat = spectator.turn
        view = seat_view_from_pb(await clients[seat].view("match-101", seat))
        # what came over the wire is exactly okeycore's view of that seat
        loaded = await table_service.app.load("match-101")
        assert view == loaded.engine.view(loaded.state, seat)
        resp = await clients[seat].act("match-101", bots[seat].act(view))
        kinds.update(e.WhichOneof("event") for e in resp.events)
        moves += 1
    final = seat_view_from_pb(await clients[0].view("match-101"))
    assert final.phase.value == "MATCH_OVER" and final.result is not None
    assert final.hand == 3  # [O-DEAL-2] a fixed number of hands
    assert "melds_opened" in kinds and "hand_ended101" in kinds
    # Each hand's end started a break, and Ready through gRPC ended it [P-BREAK-1] [P-BREAK-3].
    assert "break" in kinds and "break_started" in kinds
    logged = [e.WhichOneof("event") for e in await clients[0].events("match-101")]
    assert logged.count("break_started") == 2 and logged.count("seat_ready") == 4
    assert logged.index("seat_ready") < logged.index("hand_started", logged.index("break_started"))
    # the winners have the lowest total [O-DEAL-3]
    assert all(final.result.scores[w] == min(final.result.scores) for w in final.result.winners)


async def test_hints_for_a_seat_classic_and_101(
    table_service: TableService, client_for: Callable[[str], TableClient]
) -> None:
    from okey.v1 import table_service_pb2 as pb
    from okeycore.options import Game

    clients = [client_for(p) for p in PLAYERS]
    await client_for("lobby", "service").create_table(TableOptions(), PLAYERS, table_id="t-hints")
    v = classic_view_from_pb(await clients[0].view("t-hints", 0))
    seat = v.turn
    resp = await clients[seat].stub.GetHints(
        pb.GetHintsRequest(table_id="t-hints", seat=seat), metadata=clients[seat].metadata
    )
    h = resp.hints
    rack = {t.id for t in (await clients[seat].view("t-hints", seat)).rack}
    laid = [t.id for g in h.runs.melds for t in g.tiles]
    assert set(laid) <= rack and len(laid) == len(set(laid)) == h.runs.total  # Seri Diz uses rack tiles once
    assert all(len(g.tiles) >= 3 for g in h.runs.melds)
    assert all(len(g.tiles) == 2 for g in h.pairs.melds) and h.pairs.total == len(h.pairs.melds)
    assert {t.tile.id for t in h.tiles} == rack
    # another seat's hints are not yours to ask for
    other = (seat + 1) % 4
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await clients[seat].stub.GetHints(
            pb.GetHintsRequest(table_id="t-hints", seat=other), metadata=clients[seat].metadata
        )
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    await client_for("lobby", "service").create_table(
        TableOptions(game=Game.OKEY101, seats=2), ("ali", "ayse"), table_id="t-hints-101"
    )
    resp = await clients[0].stub.GetHints(
        pb.GetHintsRequest(table_id="t-hints-101", seat=0), metadata=clients[0].metadata
    )
    assert len(resp.hints.tiles) in (21, 22)
    assert resp.hints.runs.total == sum(resp.hints.runs.values)


async def test_a_player_may_open_a_table_only_for_themself_and_bots(
    table_service: TableService, client_for: Callable[..., TableClient]
) -> None:
    """Seating is the lobby's: a player's own CreateTable may hold no one else (or the same
    player twice, to play every hand into the leaderboards); themself and bots is the web
    client's lobby-less table, and a table of bots alone is a match to watch."""
    ali = client_for("ali")
    for seats in (PLAYERS, ("ali", "ali", "", ""), ("", "ayse", "", "")):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await ali.create_table(TableOptions(), seats, command_id=f"t-seat-{len(set(seats))}-{seats[1]}")
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert error_reason(refused.value) == "SEATS_NOT_YOURS"
    mine = await ali.create_table(TableOptions(), ("ali", "", "", ""))
    assert mine.version >= 1 and mine.table_id  # the server named it
    assert classic_view_from_pb(await ali.view(mine.table_id, 0)).seat == 0  # and it is ali's seat
    assert (await ali.create_table(TableOptions(), ("", "", "", ""))).version >= 1
    # nothing was written for the refused ones: the same command id opens a table now
    assert (await ali.create_table(TableOptions(), ("ali", "", "", ""), command_id="t-seat-4-ayse")).version >= 1


async def test_table_ids_are_the_servers_and_a_creation_retried_is_the_same_table(
    table_service: TableService, client_for: Callable[..., TableClient]
) -> None:
    """A player never names a table id; the same caller's command id twice is one table; an id
    that holds another creation (another caller, other options or seats) is TABLE_EXISTS."""
    ali = client_for("ali")
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await ali.create_table(TableOptions(), ("ali", "", "", ""), table_id="t-chosen")
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert error_reason(refused.value) == "TABLE_ID_NOT_ALLOWED"
    first = await ali.create_table(TableOptions(), ("ali", "", "", ""), command_id="open-1")
    again = await ali.create_table(TableOptions(), ("ali", "", "", ""), command_id="open-1")
    assert (again.table_id, again.version) == (first.table_id, first.version)
    other = await client_for("ayse").create_table(TableOptions(), ("ayse", "", "", ""), command_id="open-1")
    assert other.table_id != first.table_id  # another caller's command ids are its own
    lobby, other_service = client_for("lobby", "service"), client_for("bots", "service")
    made = await lobby.create_table(TableOptions(), PLAYERS, table_id="t-lobby", command_id="start")
    retried = await lobby.create_table(TableOptions(), PLAYERS, table_id="t-lobby", command_id="start")
    assert (retried.table_id, retried.version) == ("t-lobby", made.version)
    for client, options, players, cid in [
        (other_service, TableOptions(), PLAYERS, "start"),  # another caller
        (lobby, TableOptions(match_points=5), PLAYERS, "start"),  # other options
        (lobby, TableOptions(), ("", "", "", ""), "start"),  # other seats
        (lobby, TableOptions(), PLAYERS, "again"),  # another command
    ]:
        with pytest.raises(grpc.aio.AioRpcError) as exists:
            await client.create_table(options, players, table_id="t-lobby", command_id=cid)
        assert exists.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert error_reason(exists.value) == "TABLE_EXISTS"
    view = classic_view_from_pb(await lobby.view("t-lobby"))
    assert view.version >= 2 and view.options == TableOptions()


async def test_command_ids_are_scoped_to_the_caller_and_seat(
    table_service: TableService, client_for: Callable[..., TableClient]
) -> None:
    """A player who sends the timer's or the bots' next command id (they are predictable)
    does not make their command a duplicate: each caller's ids are its own."""
    clients = [client_for(p) for p in PLAYERS]
    lobby = client_for("lobby", "service")
    await lobby.create_table(TableOptions(), PLAYERS, table_id="t-scoped")
    v = classic_view_from_pb(await clients[0].view("t-scoped", 0))
    seat = v.turn
    mine = classic_view_from_pb(await clients[seat].view("t-scoped", seat))
    # Another seat's player spends the ids the timer and a bot would use next: refused, nothing stored.
    spoiler = clients[(seat + 1) % 4]
    for cid in (f"timer:{v.version}", f"bot:turn:t-scoped:{v.version}:{seat}"):
        with pytest.raises(grpc.aio.AioRpcError):
            await spoiler.act("t-scoped", Discard(seat=(seat + 1) % 4, tile=0), command_id=cid)
    # The seat's own service (a bot) acts with that id: applied, not a "duplicate".
    res = await lobby.act(
        "t-scoped", Discard(seat=seat, tile=mine.rack[0]), command_id=f"bot:turn:t-scoped:{v.version}:{seat}"
    )
    assert not res.duplicate and res.version > v.version
    # The same id by another caller is that caller's own command, decided on its own.
    nxt = (seat + 1) % 4
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await clients[nxt].act(
            "t-scoped", Discard(seat=nxt, tile=0), command_id=f"bot:turn:t-scoped:{v.version}:{seat}"
        )
    assert error_reason(err.value) in ("MUST_DRAW_FIRST", "TILE_NOT_IN_RACK")


@pytest.mark.parametrize("role", STAFF_ROLES)
async def test_staff_watch_as_a_spectator_and_never_see_or_move_a_seat(
    table_service: TableService, client_for: Callable[..., TableClient], role: str
) -> None:
    """A staff token (a moderator's, an admin's) is not a seat, even when its player sits at the
    table: no rack, no move for anyone, before the hand ends [section 7]. Only the service
    credential (bots, autopilot, timeouts) acts for any seat."""
    await client_for("lobby", "service").create_table(TableOptions(), PLAYERS, table_id=f"t-{role}")
    admin = client_for(PLAYERS[0], role)  # seat 0's own player, signed in as staff
    spectator = classic_view_from_pb(await admin.view(f"t-{role}"))  # no seat: the public view
    assert spectator.rack == () and spectator.phase.value == "PLAYING"
    for seat in range(4):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await admin.view(f"t-{role}", seat)
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert error_reason(refused.value) == "NOT_YOUR_SEAT"
    turn = spectator.turn
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await admin.act(f"t-{role}", Draw(seat=turn))
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert classic_view_from_pb(await admin.view(f"t-{role}")).version == spectator.version  # nothing moved
    mine = classic_view_from_pb(await client_for(PLAYERS[turn]).view(f"t-{role}", turn))
    assert len(mine.rack) in (14, 15)  # the seat's own player still sees it


async def test_acts_on_unknown_tables_leave_no_lock_behind(
    table_service: TableService, client_for: Callable[..., TableClient]
) -> None:
    """Acts on 300 made-up table ids (valid-looking, too long, with a trailing newline) are
    NOT_FOUND and leave no per-table lock behind (they used to pile up for ever: a memory leak
    any caller could drive). The resilience suite sends them on every route, to the processes;
    the locks are counted here, in the service itself."""
    assert table_service.app is not None
    locks_before = len(table_service.app._locks)
    player = client_for(PLAYERS[1])
    for i in range(300):
        table_id = [f"ghost-{i}", f"g{i}" * 40, f"ghost-{i}\n"][i % 3]
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await player.act(table_id, Draw(seat=1))
        assert err.value.code() == grpc.StatusCode.NOT_FOUND and error_reason(err.value) == "TABLE_NOT_FOUND"
    assert len(table_service.app._locks) <= locks_before

"""The scoring service end to end: table events through the relay and JetStream into the
projections on PostgreSQL, read back through ScoringService over gRPC."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import nats
import okeycore.okey101  # noqa: F401  (registers the 101 events; an import error must fail, not skip)
import pytest
from breaks import ready_all
from okey.v1 import common_pb2
from okey.v1 import scoring_service_pb2 as pb
from okeycore.classic.bots import GreedyBot
from okeycore.events import Event, MatchEnded, event_from_dict, event_to_dict
from okeycore.options import TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeyplatform.consumer import APPLIED, DUPLICATE, HELD, applier_for
from okeyplatform.contract import Envelope, classic_view_from_pb
from okeyplatform.grpcserver import error_reason
from okeyplatform.relay import TABLE_STREAM
from okeytools.replay import replay
from scoring_helpers import Stack, append, match_a, match_b, publish, run_okey_replay, simulated, wait_version

from services.scoring.consumer import projection_spec
from services.scoring.main import ScoringService


def _envelope(table_id: str, version: int, event: Event) -> Envelope:
    """An event as the consumer hands it on (what the relay publishes, decoded)."""
    return Envelope(
        table_id=table_id,
        version=version,
        hand=0,
        time=datetime.now(UTC),
        kind=event.type,
        to_move=-1,
        traceparent=None,
        event=event,
    )


PLAYERS = ("ali", "ayse", "mehmet", "zeynep")
Client = tuple[Any, Any]


async def test_scripted_classic_matches_through_nats_equal_the_hand_computed_standings(
    stack: Stack, scoring_client: Client
) -> None:
    stub, meta = scoring_client
    a, b = match_a(), match_b()
    for sc in (a, b):
        await wait_version(stack.store, sc.table_id, await append(stack.events, sc.table_id, sc.events))

    res = (await stub.GetMatchResult(pb.GetMatchResultRequest(table_id="match-a"), metadata=meta)).result
    assert res.game == common_pb2.GAME_OKEY
    assert [(s.seat, s.player_id, s.score, s.rank, s.winner, s.payout) for s in res.standings] == [
        (0, "ali", 13, 1, True, 40),
        (1, "ayse", -3, 3, False, 0),
        (2, "mehmet", 2, 2, False, 0),
        (3, "", -3, 3, False, 0),
    ]
    assert (list(res.winners), res.pot, res.payout, res.remainder, res.hands) == ([0], 40, 40, 0, 5)

    hands = await stub.ListHands(pb.ListHandsRequest(table_id="match-a"), metadata=meta)
    assert hands.match_over and list(hands.players) == ["ali", "ayse", "mehmet", ""]
    assert hands.version == len(a.events)
    got = [
        (h.hand, h.finisher, h.finisher_player_id, list(h.finish_kinds), h.multiplier, list(h.scores))
        for h in hands.hands
    ]
    okey, pairs, normal = pb.FINISH_KIND_OKEY, pb.FINISH_KIND_PAIRS, pb.FINISH_KIND_NORMAL
    assert got == [
        (1, 0, "ali", [okey, pairs], 4, [19, 11, 12, 11]),
        (2, 1, "ayse", [normal], 1, [17, 9, 10, 9]),
        (3, 2, "mehmet", [okey], 2, [13, 5, 10, 5]),
        (4, -1, "", [], 0, [13, 5, 10, 5]),
        (5, 0, "ali", [okey, pairs], 4, [13, -3, 2, -3]),
    ]
    h1, h2, h4 = hands.hands[0], hands.hands[1], hands.hands[3]
    assert list(h1.deltas) == [0, -8, -8, -8] and list(h1.total) == [-1, -9, -8, -9]
    assert [(s.seat, list(s.deltas)) for s in h1.indicator_shows] == [(2, [-1, -1, 0, -1])]
    assert h1.final_tile.code == "K13"
    assert [(p.seat, p.points, p.reason) for p in h2.penalty_events] == [(1, 2, "INVALID_FINISH")]
    assert h4.outcome == pb.HAND_OUTCOME_DECK_EXHAUSTED

    # co-winners share the pot, rounding down [C-SC-7] [C-SC-9]
    res = (await stub.GetMatchResult(pb.GetMatchResultRequest(table_id="match-b"), metadata=meta)).result
    assert (list(res.winners), res.pot, res.payout, res.remainder) == ([0, 1, 2], 20, 6, 2)
    assert [(s.winner, s.payout) for s in res.standings] == [(True, 6), (True, 6), (True, 6), (False, 0)]

    stats = (await stub.GetPlayerStats(pb.GetPlayerStatsRequest(player_id="ali"), metadata=meta)).stats
    (ali,) = stats
    assert (ali.matches, ali.wins, ali.average_score, ali.hands_played, ali.hands_won, ali.chips_won) == (
        2,
        2,
        7.5,
        8,
        3,
        46,
    )
    by_kind = {f.kind: f.hands for f in ali.hands_won_by_finish}
    assert by_kind[normal] == 1 and by_kind[okey] == 2 and by_kind[pairs] == 2
    (ayse,) = (await stub.GetPlayerStats(pb.GetPlayerStatsRequest(player_id="ayse"), metadata=meta)).stats
    assert (ayse.wins, ayse.penalty_points) == (1, 2)

    # leaderboards: by wins, then fewer matches, then id; paged
    req = pb.GetLeaderboardRequest(game=common_pb2.GAME_OKEY, page_size=2)
    page1 = await stub.GetLeaderboard(req, metadata=meta)
    assert [(e.rank, e.player_id, e.wins, e.matches) for e in page1.entries] == [(1, "ali", 2, 2), (2, "ayse", 1, 2)]
    assert page1.next_page_token
    req.page_token = page1.next_page_token
    page2 = await stub.GetLeaderboard(req, metadata=meta)
    assert [(e.rank, e.player_id) for e in page2.entries] == [(3, "mehmet"), (4, "zeynep")]
    assert page2.next_page_token == ""
    weekly = pb.GetLeaderboardRequest(game=common_pb2.GAME_OKEY, period=pb.LEADERBOARD_PERIOD_WEEKLY)
    this_week = await stub.GetLeaderboard(weekly, metadata=meta)
    assert [e.player_id for e in this_week.entries] == ["ali", "ayse", "mehmet", "zeynep"]
    weekly.week = (datetime.now(UTC) - timedelta(days=7)).date().isoformat()
    last_week = await stub.GetLeaderboard(weekly, metadata=meta)
    assert list(last_week.entries) == [] and last_week.week_start < this_week.week_start
    none_101 = await stub.GetLeaderboard(pb.GetLeaderboardRequest(game=common_pb2.GAME_OKEY101), metadata=meta)
    assert list(none_101.entries) == []


async def test_errors_are_status_codes_with_reasons(stack: Stack, scoring_client: Client) -> None:
    stub, meta = scoring_client
    sc = match_b()
    half = sc.events[:4]  # the match has not ended yet
    await wait_version(stack.store, sc.table_id, await append(stack.events, sc.table_id, half))
    cases = [
        (stub.GetMatchResult(pb.GetMatchResultRequest(table_id="nope"), metadata=meta), "NOT_FOUND", "TABLE_NOT_FOUND"),
        (
            stub.GetMatchResult(pb.GetMatchResultRequest(table_id=sc.table_id), metadata=meta),
            "FAILED_PRECONDITION",
            "MATCH_IN_PROGRESS",
        ),
        (stub.ListHands(pb.ListHandsRequest(table_id="nope"), metadata=meta), "NOT_FOUND", "TABLE_NOT_FOUND"),
        (
            stub.GetPlayerStats(pb.GetPlayerStatsRequest(player_id="ghost"), metadata=meta),
            "NOT_FOUND",
            "PLAYER_NOT_FOUND",
        ),
        (stub.GetLeaderboard(pb.GetLeaderboardRequest(), metadata=meta), "INVALID_ARGUMENT", "INVALID_ARGUMENT"),
        (
            stub.GetLeaderboard(pb.GetLeaderboardRequest(game=common_pb2.GAME_OKEY, page_token="x!"), metadata=meta),
            "INVALID_ARGUMENT",
            "INVALID_ARGUMENT",
        ),
        (stub.ListHands(pb.ListHandsRequest(table_id=sc.table_id)), "UNAUTHENTICATED", "BAD_TOKEN"),
    ]
    for call, code, reason in cases:
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await call
        assert err.value.code().name == code and error_reason(err.value) == reason
    hands = await stub.ListHands(pb.ListHandsRequest(table_id=sc.table_id), metadata=meta)
    assert len(hands.hands) == 1 and not hands.match_over


async def test_okey_101_match_projects_the_numbers_its_events_carry(stack: Stack, scoring_client: Client) -> None:
    from scoring_helpers import simulated_101

    stub, meta = scoring_client
    events = simulated_101("t-101", 7, ("ali", "ayse", "", "zeynep"), rounds=3, stake=7, hand_prize=2)
    await wait_version(stack.store, "t-101", await append(stack.events, "t-101", events))  # through the relay
    ends = [e for e in events if e.type in ("HandEnded101", "HandVoided")]
    hands = (await stub.ListHands(pb.ListHandsRequest(table_id="t-101"), metadata=meta)).hands
    assert len(hands) == len(ends)
    for h, e in zip(hands, ends, strict=True):
        if e.type == "HandEnded101":
            assert list(h.deltas) == list(e.deltas) and list(h.scores) == list(e.totals)  # type: ignore[attr-defined]
            assert list(h.points) == list(e.points) and list(h.chips) == list(e.chips)  # type: ignore[attr-defined]
            assert list(h.penalties) == list(e.penalties)  # type: ignore[attr-defined]
        else:
            assert h.outcome == pb.HAND_OUTCOME_VOIDED
    end = events[-1]
    assert isinstance(end, MatchEnded)
    res = (await stub.GetMatchResult(pb.GetMatchResultRequest(table_id="t-101"), metadata=meta)).result
    assert res.game == common_pb2.GAME_OKEY101
    assert [s.score for s in res.standings] == list(end.scores) and list(res.winners) == sorted(end.winners)
    assert (res.pot, res.payout, res.remainder) == (end.pot, end.payout, end.remainder)
    counted = sum(1 for e in ends if e.type == "HandEnded101")
    (zeynep,) = (await stub.GetPlayerStats(pb.GetPlayerStatsRequest(player_id="zeynep"), metadata=meta)).stats
    assert zeynep.game == common_pb2.GAME_OKEY101 and zeynep.hands_played == counted and zeynep.matches == 1
    assert zeynep.wins == (1 if 3 in end.winners else 0) and zeynep.average_score == end.scores[3]


async def play_to_end(clients: list[TableClient], table_id: str) -> int:
    bots = [GreedyBot(i) for i in range(4)]
    for _ in range(5000):
        v = classic_view_from_pb(await clients[0].view(table_id, 0))
        if v.phase.value == "MATCH_OVER":
            return v.version
        if await ready_all(clients, table_id, v):  # the break between hands [P-BREAK-3]
            continue
        seat = v.turn
        await clients[seat].act(
            table_id, bots[seat].act(classic_view_from_pb(await clients[seat].view(table_id, seat)))
        )
    raise AssertionError("the match did not end")


async def test_rebuild_from_the_log_equals_the_live_projection_and_swaps_in(stack: Stack) -> None:
    # a bot match played through the table service, scripted and simulated ones written to the log
    clients = [TableClient(stack.address("table"), issue_token(p)) for p in PLAYERS]
    try:
        lobby = TableClient(stack.address("table"), issue_token("lobby", "service"))
        await lobby.create_table(TableOptions(match_points=6, stake=3), PLAYERS, table_id="grpc-match")
        await lobby.close()
        last = await play_to_end(clients, "grpc-match")
    finally:
        for c in clients:
            await c.close()
    tables = {"grpc-match": last}
    for sc in (match_a(), match_b()):
        tables[sc.table_id] = await append(stack.events, sc.table_id, sc.events)
    for i in range(2):
        events = simulated(f"sim-{i}", i, ("ali", "", "zeynep", "mehmet"), stake=4, colored=True)
        tables[f"sim-{i}"] = await append(stack.events, f"sim-{i}", events)
    for table_id, version in tables.items():
        await wait_version(stack.store, table_id, version)
    live = await stack.store.snapshot()
    assert len(live["scoring_matches"]) == 5

    report = await replay(stack.events, stack.store, verify=True, swap=False)
    assert report.verify_problems == [] and report.verified["match ends"] == 5
    assert report.diff == dict.fromkeys(report.diff, 0), report.diff
    report = await replay(stack.events, stack.store, swap=True)
    assert report.swapped and sum(report.diff.values()) == 0
    assert await stack.store.snapshot() == live

    # the live projector goes on writing into the swapped-in tables
    sc = match_b("after-swap")
    await wait_version(stack.store, "after-swap", await append(stack.events, "after-swap", sc.events))
    (ali,) = await stack.store.player("ali", "OKEY")
    assert ali[1].matches == 6  # the bot match, a, b, sim-0, sim-1 and after-swap: each counted once
    # and the command line agrees: verify and rebuild, exit 0
    text = await run_okey_replay(stack.database_url)
    assert "swapped in" in text


async def test_duplicated_and_redelivered_events_change_nothing(stack: Stack) -> None:
    sc = match_a()
    last = await append(stack.events, sc.table_id, sc.events)
    await wait_version(stack.store, sc.table_id, last)
    before = await stack.store.snapshot()
    # every event again, under new message ids (so JetStream's own de-duplication lets them through)
    nc = await nats.connect(stack.nats_url)
    try:
        js = nc.jetstream()
        for v, e in enumerate(sc.events, 1):
            await publish(js, sc.table_id, v, e, msg_id=f"again:{v}")
        last_seq = (await js.stream_info(TABLE_STREAM)).state.last_seq
        for _ in range(200):
            info = await js.consumer_info(TABLE_STREAM, "scoring")
            if info.num_pending == 0 and info.num_ack_pending == 0:
                break
            await asyncio.sleep(0.05)
        # the scoring process took every copy and acknowledged it (none held back, none parked)
        assert info.num_pending == 0 and info.num_ack_pending == 0
        assert info.ack_floor.stream_seq >= last_seq
    finally:
        await nc.close()
    assert await stack.store.snapshot() == before
    assert await stack.store.parked() == []
    # the same batch applied twice by the use case itself (on the service's database): the
    # second time, all duplicates
    applier = applier_for(projection_spec(stack.store), stack.store.pool)
    items = [_envelope("direct", v, e) for v, e in enumerate(match_b().events, 1)]
    first = await applier.apply(items)
    again = await applier.apply(list(reversed(items)))
    assert set(first.outcomes) == {APPLIED} and set(again.outcomes) == {DUPLICATE}
    held = await applier.apply([_envelope("direct2", 2, match_b().events[1])])
    assert held.outcomes == [HELD] and await stack.store.table("direct2") is None


async def test_an_event_ahead_of_a_gap_is_held_back_until_the_gap_fills(scoring_only: ScoringService) -> None:
    sc = match_b("gap")
    events = sc.events  # v1 TableCreated, v2 HandStarted, v3 HandEnded, v4 HandStarted, v5 HandEnded, ...
    store, projector = scoring_only.store, scoring_only.projector
    assert store is not None and projector is not None
    await asyncio.wait_for(projector.ready.wait(), 10)
    nc = await nats.connect(scoring_only.nats_url)
    try:
        js = nc.jetstream()
        for v in (1, 2, 4, 5):  # v3 (the first hand's end) is missing
            await publish(js, "gap", v, events[v - 1])
        await wait_version(store, "gap", 2)
        deadline = time.monotonic() + 10
        while projector.held < 2:  # v4 and v5 came, and were held back
            assert time.monotonic() < deadline, f"v4 and v5 were not both held back: {projector.held} held"
            await asyncio.sleep(0.05)
        table = await store.table("gap")
        assert table is not None and table.version == 2 and table.hand == 1
        assert await store.hands("gap") == []  # v5's hand end was not applied ahead of v3's
        for v in range(3, len(events) + 1):
            if v not in (4, 5):
                await publish(js, "gap", v, events[v - 1])
        await wait_version(store, "gap", len(events), timeout=20)
    finally:
        await nc.close()
    hands = await store.hands("gap")
    assert [(h.seq, h.hand, h.finisher) for h in hands] == [(1, 1, 0), (2, 2, 1), (3, 3, 2)]
    assert (await store.match("gap")) is not None


async def test_a_gap_is_filled_from_the_stream_when_the_missing_event_is_already_there(
    fresh_database_url: str, embedded_nats: Any
) -> None:
    sc = match_b("fill")
    nc = await nats.connect(embedded_nats.url)
    js = nc.jetstream()
    from okeyplatform.relay import ensure_table_stream

    await ensure_table_stream(js)
    order = [1, 2, 4, 3, *range(5, len(sc.events) + 1)]  # v4 sits before v3 in the stream
    for v in order:
        await publish(js, "fill", v, sc.events[v - 1])
    # One message a fetch from the first: v4 arrives alone, ahead of its gap (set after the start,
    # a first fetch of 500 could take v3 with it and leave no gap to fill).
    svc = ScoringService(fresh_database_url, embedded_nats.url, "127.0.0.1:0", batch=1)
    await svc.start()
    assert svc.projector is not None and svc.projector.batch == 1
    try:
        assert svc.store is not None
        await wait_version(svc.store, "fill", len(sc.events), timeout=5)  # no nak delay needed
        assert len(await svc.store.hands("fill")) == 3
        assert svc.projector.gap_fills >= 1 and svc.projector.held == 0
    finally:
        await svc.stop(grace_s=1.0)
        await nc.close()


async def test_an_unknown_event_type_stops_the_projector_with_a_clear_error(scoring_only: ScoringService) -> None:
    sc = match_b("odd")
    store, projector = scoring_only.store, scoring_only.projector
    assert store is not None and projector is not None
    nc = await nats.connect(scoring_only.nats_url)
    try:
        js = nc.jetstream()
        await asyncio.wait_for(projector.ready.wait(), 10)
        await publish(js, "odd", 1, sc.events[0])
        await publish(js, "odd", 2, {"type": "MeteorStrike", "seat": 2})
        await publish(js, "odd", 3, sc.events[1])
        await asyncio.wait_for(scoring_only.failed.wait(), 10)
        info = await js.consumer_info(TABLE_STREAM, "scoring")
        assert info.num_ack_pending >= 1  # the unknown event was not acknowledged: it is not skipped
    finally:
        await nc.close()
    err = str(scoring_only.error)
    assert "unknown event type 'MeteorStrike'" in err and "table 'odd' version 2" in err
    table = await store.table("odd")
    assert table is not None and table.version == 1
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    async with grpc.aio.insecure_channel(f"127.0.0.1:{scoring_only.port}") as ch:
        got = await health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest())
    assert got.status == health_pb2.HealthCheckResponse.NOT_SERVING


async def test_grpcurl_sees_the_scoring_service_by_reflection_and_health(stack: Stack) -> None:
    grpcurl = os.path.join(os.path.dirname(sys.executable), "grpcurl")
    target = stack.address("scoring")

    async def run(*args: str) -> tuple[int, str, str]:
        proc = await asyncio.create_subprocess_exec(
            grpcurl, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
        return proc.returncode or 0, out.decode(), err.decode()

    code, out, err = await run("-plaintext", target, "list")
    assert code == 0 and {"okey.v1.ScoringService", "grpc.health.v1.Health"} <= set(out.split()), err
    sc = match_b()
    await wait_version(stack.store, sc.table_id, await append(stack.events, sc.table_id, sc.events))
    token = issue_token("ali")
    code, out, err = await run(
        "-plaintext",
        "-H",
        f"authorization: Bearer {token}",
        "-d",
        '{"table_id": "match-b"}',
        target,
        "okey.v1.ScoringService/GetMatchResult",
    )
    assert code == 0, err
    result = json.loads(out)["result"]
    assert result["winners"] == [0, 1, 2] and result["remainder"] == "2"


def _poisoned(table_id: str) -> list[dict[str, Any]]:
    """match_b as an older table service could have written it before stakes were bounded:
    stake 2**63 - 1, so the pot of its MatchEnded is past int64 (what once stopped scoring)."""
    out = [event_to_dict(e) for e in match_b(table_id).events]
    huge = 2**63 - 1
    out[0]["options"]["stake"] = huge
    end = out[-1]
    assert end["type"] == "MatchEnded"
    end["pot"], end["payout"], end["remainder"] = huge * 4, huge * 4 // 3, huge * 4 % 3
    return out


@pytest.mark.parametrize("wire", ["protobuf", "old-json"])
async def test_15_2_an_event_scoring_cannot_project_parks_its_table_and_every_other_table_goes_on(
    scoring_only: ScoringService, wire: str
) -> None:
    """The poisoned pot is past int64: the relay sends that MatchEnded without its event
    (protobuf), or an old stream holds it as JSON; either way its table is parked."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    from services.scoring.main import PARKED_HEALTH

    store, projector = scoring_only.store, scoring_only.projector
    assert store is not None and projector is not None
    good, later = match_b("good"), match_a("later")
    poisoned = _poisoned("poisoned")
    nc = await nats.connect(scoring_only.nats_url)
    try:
        js = nc.jetstream()
        await asyncio.wait_for(projector.ready.wait(), 10)
        for v, e in enumerate(good.events, 1):
            await publish(js, "good", v, e)
        for v, d in enumerate(poisoned, 1):
            await publish(js, "poisoned", v, event_from_dict(d) if wire == "protobuf" else d)
        for v, e in enumerate(later.events, 1):
            await publish(js, "later", v, e)
        await wait_version(store, "good", len(good.events))
        await wait_version(store, "later", len(later.events))  # published after the bad event
    finally:
        await nc.close()
    assert not scoring_only.failed.is_set() and scoring_only.error is None
    (parked,) = await store.parked()
    why = "came without its content" if wire == "protobuf" else "out of range"
    assert parked[0] == "poisoned" and parked[1] == len(poisoned) and why in parked[2], parked
    table = await store.table("poisoned")
    assert table is not None and table.version == len(poisoned) - 1  # every hand before the bad event
    assert await store.match("good") is not None and await store.match("poisoned") is None
    async with grpc.aio.insecure_channel(f"127.0.0.1:{scoring_only.port}") as ch:
        health = health_pb2_grpc.HealthStub(ch)
        assert (await health.Check(health_pb2.HealthCheckRequest())).status == health_pb2.HealthCheckResponse.SERVING
        got = await health.Check(health_pb2.HealthCheckRequest(service=PARKED_HEALTH))
        assert got.status == health_pb2.HealthCheckResponse.NOT_SERVING
    # A restart on the same data starts and serves (no crash loop), and still shows the parked table.
    again = ScoringService(scoring_only.database_url, scoring_only.nats_url, "127.0.0.1:0", durable="scoring")
    await again.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{again.port}") as ch:
            got = await health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(service=PARKED_HEALTH))
        assert got.status == health_pb2.HealthCheckResponse.NOT_SERVING and not again.failed.is_set()
    finally:
        await again.stop(grace_s=1.0)


async def test_15_2_okey_replay_parks_what_it_cannot_project_and_rebuilds_the_rest(stack: Stack) -> None:
    good = match_b("good")
    await append(stack.events, "good", good.events)
    bad = [event_from_dict(d) for d in _poisoned("poisoned")]
    await append(stack.events, "poisoned", bad)
    await wait_version(stack.store, "good", len(good.events))
    await wait_version(stack.store, "poisoned", len(bad) - 1)
    report = await replay(stack.events, stack.store, verify=True)
    assert report.swapped and report.verify_problems == []
    assert set(report.parked) == {"poisoned"} and report.parked["poisoned"][0] == len(bad)
    assert [p[0] for p in await stack.store.parked()] == ["poisoned"]
    assert sum(report.diff.values()) == 0  # the rebuild equals the live projection, parked table included


async def test_15_4_events_aged_out_of_the_stream_are_caught_up_from_the_postgresql_log(
    scoring_only: ScoringService,
) -> None:
    """The stream keeps events for OKEY_STREAM_MAX_AGE only. A consumer that finds a table's
    early versions gone (only the later ones are in the stream) catches up from the log, never
    skips them: every hand of the match is projected."""
    from okeyplatform.contract import encode_envelope, nats_headers
    from okeyplatform.eventstore import PostgresEventStore
    from okeyplatform.relay import table_subject

    store, projector = scoring_only.store, scoring_only.projector
    assert store is not None and projector is not None
    sc = match_a("aged")
    events = await PostgresEventStore.connect(scoring_only.database_url)
    nc = await nats.connect(scoring_only.nats_url)
    try:
        await append(events, "aged", sc.events)
        stored = await events.read_stream("aged")
        js = nc.jetstream()
        await asyncio.wait_for(projector.ready.wait(), 10)
        half = len(stored) // 2
        for e in stored[half:]:  # the first half has aged out of the stream
            await js.publish(table_subject("aged"), encode_envelope(e), headers=nats_headers(e))
        await wait_version(store, "aged", len(stored), timeout=30)
    finally:
        await nc.close()
        await events.close()
    assert projector.log_fills == half and not scoring_only.failed.is_set()
    assert len(await store.hands("aged")) == 5 and await store.match("aged") is not None


async def test_a_player_erased_before_their_match_reaches_scoring_gets_no_row_back(stack: Stack) -> None:
    """The erasure race, made deterministic: ali deletes the account (ForgetPlayer) while the
    match ali played is still on its way to the projection. When it lands, ali gets no stats or
    weekly row back (a rebuild from the log, which drops the erased, has none either), the others
    are counted, and the live projection equals a rebuild."""
    await stack.store.forget_player("ali")
    sc = match_a("erased-in-flight")
    await wait_version(stack.store, sc.table_id, await append(stack.events, sc.table_id, sc.events))

    assert await stack.store.player("ali") == []
    (ayse,) = await stack.store.player("ayse", "OKEY")
    assert ayse[1].matches == 1
    live = await stack.store.snapshot()
    assert not [r for r in live["scoring_players"] if "ali" in r], live["scoring_players"]
    assert not [r for r in live["scoring_weekly"] if "ali" in r], live["scoring_weekly"]
    # the match's own result keeps the opaque id, as the log does
    res = await stack.store.match(sc.table_id)
    assert res is not None and res[1][0].player_id == "ali"

    report = await replay(stack.events, stack.store, verify=True, swap=False)
    assert report.diff == dict.fromkeys(report.diff, 0), report.diff

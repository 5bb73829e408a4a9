"""Presence through a gateway in this process, without NATS (one replica: its own board), in
front of a fake table service that records what it is told: ``GET /api/presence`` (a token, at
most 100 ids, the rate limit), a watch of a seat on every transport making its player AT_TABLE,
and the disconnected-seat signal the table gets from the gateway's own service credential [D-11]."""

from __future__ import annotations

import asyncio
import json
import struct
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import httpx
import pytest
import websockets
from in_process import start_gateway, upstream_server
from okey.v1 import lobby_service_pb2 as lpb
from okey.v1 import lobby_service_pb2_grpc as lpb_grpc
from okey.v1 import table_service_pb2 as tpb
from okey.v1 import table_service_pb2_grpc as tpb_grpc
from okeyplatform.auth import identity_from_metadata, issue_token
from okeyplatform.errors import FailedPrecondition, PermissionDenied, to_status

from services.gateway.api import MAX_PRESENCE_PLAYERS
from services.gateway.main import Gateway

GRACE_S = 0.3  # the gateway's grace, shortened for these tests (2 s in service)


class _Table(tpb_grpc.TableServiceServicer):
    """Watch: a snapshot of the asked seat (``disconnected`` as ``self.away`` says), then nothing
    until the client goes; seat 3 is refused. Act: records each request with its caller."""

    def __init__(self) -> None:
        self.away: set[tuple[str, int]] = set()
        self.acts: list[tuple[str, str, tpb.ActRequest]] = []  # (role, subject, request)

    async def Watch(self, request: tpb.WatchRequest, context: Any) -> AsyncIterator[tpb.WatchResponse]:
        if request.HasField("seat") and request.seat == 3:
            await context.abort_with_status(to_status(PermissionDenied("seat 3 is not yours")))
        seats = [tpb.SeatPublic(seat=s, disconnected=(request.table_id, s) in self.away) for s in range(4)]
        view = tpb.SeatView(table_id=request.table_id, version=7, seats=seats)
        yield tpb.WatchResponse(snapshot=view)
        await asyncio.Event().wait()  # open until cancelled

    async def Act(self, request: tpb.ActRequest, context: Any) -> tpb.ActResponse:
        who = identity_from_metadata(context.invocation_metadata())
        self.acts.append((who.role, who.subject, request))
        if request.table_id == "bots-only":
            await context.abort_with_status(to_status(FailedPrecondition("a bot plays this seat", "BOT_SEAT")))
        key = (request.table_id, request.seat)
        (self.away.discard if request.set_connection.connected else self.away.add)(key)
        return tpb.ActResponse(version=8)

    def told(self) -> list[tuple[str, int, bool, str]]:
        return [(r.table_id, r.seat, r.set_connection.connected, r.command_id) for _, _, r in self.acts]


class _Lobby(lpb_grpc.LobbyServiceServicer):
    """AuthorizeWatch: anyone may watch, as many as like."""

    async def AuthorizeWatch(self, request: lpb.AuthorizeWatchRequest, context: Any) -> lpb.AuthorizeWatchResponse:
        return lpb.AuthorizeWatchResponse()


@pytest.fixture
async def table() -> AsyncIterator[tuple[_Table, int]]:
    fake = _Table()
    async with upstream_server(lobby=_Lobby(), table=fake) as port:
        yield fake, port


async def _gateway(port: int, **env: str) -> Gateway:
    gw = await start_gateway(port, **env)
    gw.presence.grace_s = GRACE_S
    return gw


@pytest.fixture
async def gw(table: tuple[_Table, int]) -> AsyncIterator[Gateway]:
    gw = await _gateway(table[1], OKEY_RATE_LIMIT="1000", OKEY_RATE_BURST="1000")
    try:
        yield gw
    finally:
        await gw.stop(grace_s=1.0)


def _http(gw: Gateway) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=f"http://127.0.0.1:{gw.http_port}", timeout=10)


def _bearer(player: str, role: str = "player") -> dict[str, str]:
    return {"authorization": f"Bearer {issue_token(player, role)}"}


async def _states(gw: Gateway, *players: str) -> dict[str, tuple[str, str]]:
    """Each player's state as another player sees it through the route (never a table id: that
    is for the player themselves), with the table the player themselves would see (asked of the
    board directly: asking through the route would be a call of theirs, making them ONLINE)."""
    own = {p: gw.presence.lookup([p], asker=p)[0]["tableId"] for p in players}
    async with _http(gw) as http:
        r = await http.get("/api/presence", params={"players": ",".join(players)}, headers=_bearer("observer"))
    assert r.status_code == 200, r.text
    assert all(p["tableId"] == "" for p in r.json()["players"]), r.text
    return {p["playerId"]: (p["state"], own[p["playerId"]]) for p in r.json()["players"]}


async def _until(what: str, check: Callable[[], Awaitable[bool]], within_s: float = 5.0) -> None:
    """Poll ``check`` until it holds, or fail naming ``what``."""
    deadline = asyncio.get_running_loop().time() + within_s
    while not await check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"not within {within_s} s: {what}")
        await asyncio.sleep(0.05)


def _ws(gw: Gateway, player: str, table_id: str, seat: int | None) -> Any:
    where = f"&seat={seat}" if seat is not None else ""
    url = f"ws://127.0.0.1:{gw.http_port}/ws/okey.v1.TableService/Watch?tableId={table_id}{where}"
    return websockets.connect(f"{url}&token={issue_token(player)}")


# ------------------------------------------------------------------ the route


async def test_the_presence_route_needs_a_token_takes_at_most_100_ids_and_is_rate_limited(
    table: tuple[_Table, int],
) -> None:
    gw = await _gateway(table[1], OKEY_RATE_LIMIT="0.01", OKEY_RATE_BURST="4")
    try:
        async with _http(gw) as http:
            r = await http.get("/api/presence", params={"players": "ali"})
            assert r.status_code == 401 and r.json()["reason"] == "BAD_TOKEN", r.text
            r = await http.get("/api/presence", params={"players": "ali"}, headers={"authorization": "Bearer v1.x.y"})
            assert r.status_code == 401 and r.json()["reason"] == "BAD_TOKEN", r.text
            me = _bearer("asker")
            many = ",".join(f"p{i}" for i in range(MAX_PRESENCE_PLAYERS + 1))
            r = await http.get("/api/presence", params={"players": many}, headers=me)
            assert r.status_code == 400 and r.json()["reason"] == "INVALID_ARGUMENT", r.text
            r = await http.get("/api/presence", params={"players": " , "}, headers=me)
            assert r.status_code == 400 and r.json()["reason"] == "INVALID_ARGUMENT", r.text
            exactly = ",".join(f"p{i}" for i in range(MAX_PRESENCE_PLAYERS)) + ",p0"  # a repeat is one id
            r = await http.get("/api/presence", params={"players": exactly}, headers=me)
            assert r.status_code == 200, r.text
            got = r.json()["players"]
            assert len(got) == MAX_PRESENCE_PLAYERS and got[0] == {"playerId": "p0", "state": "OFFLINE", "tableId": ""}
            r = await http.get("/api/presence", params={"players": "asker"}, headers=me)
            # asking is a call of the asker's
            assert r.json() == {"players": [{"playerId": "asker", "state": "ONLINE", "tableId": ""}]}
            r = await http.get("/api/presence", params={"players": "asker"}, headers=me)
            assert r.status_code == 429 and r.json()["reason"] == "RATE_LIMITED", r.text  # the fifth call of 4
            r = await http.post("/api/presence", headers=me)
            assert r.status_code == 405 and r.json()["reason"] == "METHOD_NOT_ALLOWED", r.text
    finally:
        await gw.stop(grace_s=1.0)


# ------------------------------------------------------------------ streams on every transport


async def test_a_watch_of_a_seat_is_at_table_on_every_transport_and_a_spectators_watch_is_online(
    gw: Gateway, table: tuple[_Table, int]
) -> None:
    async with _ws(gw, "ws-player", "t-ws", 1) as ws, _ws(gw, "spectator", "t-ws", None) as spec:
        json.loads(await ws.recv())
        json.loads(await spec.recv())
        got = await _states(gw, "ws-player", "spectator")
        assert got == {"ws-player": ("AT_TABLE", "t-ws"), "spectator": ("ONLINE", "")}
    async with grpc.aio.insecure_channel(f"127.0.0.1:{gw.grpc_port}") as ch:
        call = tpb_grpc.TableServiceStub(ch).Watch(
            tpb.WatchRequest(table_id="t-grpc", seat=2), metadata=tuple(_bearer("grpc-player").items())
        )
        assert (await call.read()).HasField("snapshot")
        assert (await _states(gw, "grpc-player"))["grpc-player"] == ("AT_TABLE", "t-grpc")
        call.cancel()
    body = tpb.WatchRequest(table_id="t-connect", seat=0).SerializeToString()
    h = {"content-type": "application/connect+proto", **_bearer("connect-player")}
    async with (
        _http(gw) as http,
        http.stream(
            "POST", "/okey.v1.TableService/Watch", content=struct.pack(">BI", 0, len(body)) + body, headers=h
        ) as held,
    ):
        async for _ in held.aiter_raw():
            break
        assert (await _states(gw, "connect-player"))["connect-player"] == ("AT_TABLE", "t-connect")

    async def all_gone() -> bool:
        got = await _states(gw, "ws-player", "spectator", "grpc-player", "connect-player")
        return {s for s, _ in got.values()} == {"OFFLINE"}

    await _until("every closed stream's player OFFLINE (no call of theirs came)", all_gone)


async def test_a_watch_the_table_refuses_is_never_at_table_and_its_end_tells_the_table_nothing(
    gw: Gateway, table: tuple[_Table, int]
) -> None:
    fake, _ = table
    async with _ws(gw, "intruder", "t-x", 3) as ws:
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                msg = json.loads(await ws.recv())
                assert "error" in msg, msg
    assert (await _states(gw, "intruder"))["intruder"] == ("OFFLINE", "")
    await asyncio.sleep(GRACE_S * 3)  # long past the grace: nothing may come (an absence, so a wait)
    assert fake.told() == []


# ------------------------------------------------------------------ the table's signal [D-11]


async def test_D_11_a_closed_watch_tells_the_table_after_the_grace_and_a_new_one_that_sees_it_tells_it_back(
    gw: Gateway, table: tuple[_Table, int]
) -> None:
    fake, _ = table
    async with _ws(gw, "ali", "t-d11", 2) as ws:
        first = json.loads(await ws.recv())
        assert first["snapshot"]["seats"][2].get("disconnected") is None
    closed_at = asyncio.get_running_loop().time()

    async def told_away() -> bool:
        return any(not connected for _, _, connected, _ in fake.told())

    await _until("the table told the seat is disconnected", told_away)
    assert asyncio.get_running_loop().time() - closed_at >= GRACE_S * 0.9  # not before the grace
    ((role, subject, req),) = fake.acts
    assert (role, subject) == ("service", "gateway")  # the gateway's own service credential
    assert (req.table_id, req.seat, req.set_connection.connected) == ("t-d11", 2, False)
    assert req.command_id.startswith("presence:disconnected:")
    async with _ws(gw, "ali", "t-d11", 2) as ws:
        again = json.loads(await ws.recv())
        assert again["snapshot"]["seats"][2]["disconnected"] is True

        async def told_back() -> bool:
            return len(fake.acts) == 2

        await _until("the table told the seat is back", told_back)
        assert fake.told()[1] == ("t-d11", 2, True, "presence:connected:v7")
    assert fake.acts[1][:2] == ("service", "gateway")


async def test_D_11_a_watch_reopened_within_the_grace_tells_the_table_nothing(
    gw: Gateway, table: tuple[_Table, int]
) -> None:
    fake, _ = table
    async with _ws(gw, "ayse", "t-blink", 0) as ws:
        await ws.recv()
    async with _ws(gw, "ayse", "t-blink", 0) as ws:
        await ws.recv()
        await asyncio.sleep(GRACE_S * 3)  # an absence to show: long past the first watch's grace
        assert fake.told() == []
        assert (await _states(gw, "ayse"))["ayse"] == ("AT_TABLE", "t-blink")


async def test_D_11_a_refusal_such_as_a_bots_seat_is_normal_and_told_once(
    gw: Gateway, table: tuple[_Table, int]
) -> None:
    fake, _ = table
    async with _ws(gw, "can", "bots-only", 1) as ws:
        await ws.recv()

    async def refused() -> bool:
        return len(fake.acts) == 1

    await _until("the gateway tried to tell the table", refused)
    await asyncio.sleep(GRACE_S * 3)  # no retry of a refusal
    assert len(fake.acts) == 1 and not gw.presence.notifier.sent

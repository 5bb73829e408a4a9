"""Issue 44.5, watching, at the edge (a gateway in this process in front of fake upstreams): a
spectator's watch (a table's Watch with no seat) opens only past the lobby's AuthorizeWatch,
asked with the caller's own token, and the table's cap on distinct spectators (SPECTATORS_FULL),
on every route (WebSocket, Connect, gRPC-Web, the gRPC proxy); a spectator's GetView and
GetEvents (the same view, polled) go upstream only past the same question on every unary route
(/api JSON, Connect, gRPC-Web, the gRPC proxy), with no cap; a seat's watch or read and a
service's are not checked; ``GET /api/presence?tables=`` counts a table's spectators; a
notifications stream counts as the player being ONLINE. tests/gateway/test_watching.py runs the
same against the real lobby and table service."""

from __future__ import annotations

import asyncio
import base64
import json
import struct
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import grpc
import httpx
import pytest
import websockets
from google.rpc import error_details_pb2, status_pb2
from in_process import start_gateway, upstream_server
from okey.v1 import events_pb2 as epb
from okey.v1 import lobby_service_pb2 as lpb
from okey.v1 import lobby_service_pb2_grpc as lpb_grpc
from okey.v1 import table_service_pb2 as tpb
from okey.v1 import table_service_pb2_grpc as tpb_grpc
from okeyplatform.auth import CLIENT_ADDRESS_KEY, identity_from_metadata, issue_token
from okeyplatform.grpcserver import error_reason, rich_error

from services.gateway.api import MAX_PRESENCE_TABLES
from services.gateway.main import Gateway

WATCH = "/okey.v1.TableService/Watch"
GET_VIEW = "/okey.v1.TableService/GetView"
GET_EVENTS = "/okey.v1.TableService/GetEvents"
NOTIFICATIONS = "/okey.v1.LobbyService/WatchNotifications"
CAP = 2


class _Lobby(lpb_grpc.LobbyServiceServicer):
    """AuthorizeWatch: ``private-*`` tables need an invitation, ``blocked-*`` ones have a player
    in a block with the caller, any other takes CAP spectators; each question is recorded with
    the identity and the address it came with. WatchNotifications: one, then open."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str, str]] = []  # (subject, client address, table)

    async def AuthorizeWatch(self, request: lpb.AuthorizeWatchRequest, context: Any) -> lpb.AuthorizeWatchResponse:
        md = context.invocation_metadata()
        who = identity_from_metadata(md)
        self.asked.append((who.subject, dict(md).get(CLIENT_ADDRESS_KEY, ""), request.table_id))
        if request.table_id.startswith("private-"):
            await context.abort_with_status(
                rich_error(
                    grpc.StatusCode.PERMISSION_DENIED, "INVITE_REQUIRED", "this private table needs an invitation"
                )
            )
        if request.table_id.startswith("blocked-"):
            await context.abort_with_status(rich_error(grpc.StatusCode.FAILED_PRECONDITION, "BLOCKED", "blocked"))
        return lpb.AuthorizeWatchResponse(spectators_max=CAP)

    async def WatchNotifications(
        self, request: lpb.WatchNotificationsRequest, context: Any
    ) -> AsyncIterator[lpb.WatchNotificationsResponse]:
        yield lpb.WatchNotificationsResponse(notification=lpb.Notification(notification_id=7), unread=1)
        await asyncio.Event().wait()


class _Table(tpb_grpc.TableServiceServicer):
    async def Watch(self, request: tpb.WatchRequest, context: Any) -> AsyncIterator[tpb.WatchResponse]:
        yield tpb.WatchResponse(snapshot=tpb.SeatView(table_id=request.table_id, version=1))
        await asyncio.Event().wait()  # open until cancelled

    async def GetView(self, request: tpb.GetViewRequest, context: Any) -> tpb.GetViewResponse:
        return tpb.GetViewResponse(view=tpb.SeatView(table_id=request.table_id, version=1))

    async def GetEvents(self, request: tpb.GetEventsRequest, context: Any) -> tpb.GetEventsResponse:
        return tpb.GetEventsResponse(events=[epb.TableEvent(table_id=request.table_id, version=1)])


@pytest.fixture
async def lobby_and_gw() -> AsyncIterator[tuple[_Lobby, Gateway]]:
    lobby = _Lobby()
    async with upstream_server(lobby=lobby, table=_Table()) as port:
        gw = await start_gateway(port, OKEY_RATE_LIMIT="1000", OKEY_RATE_BURST="1000")
        try:
            yield lobby, gw
        finally:
            await gw.stop(grace_s=1.0)


def _bearer(player: str, role: str = "player") -> dict[str, str]:
    return {"authorization": f"Bearer {issue_token(player, role)}"}


def _http(gw: Gateway) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=f"http://127.0.0.1:{gw.http_port}", timeout=10)


def _ws(gw: Gateway, player: str, table_id: str, seat: int | None = None, role: str = "player") -> Any:
    where = f"&seat={seat}" if seat is not None else ""
    url = f"ws://127.0.0.1:{gw.http_port}/ws/okey.v1.TableService/Watch?tableId={table_id}{where}"
    return websockets.connect(f"{url}&token={issue_token(player, role)}")


async def _ws_refusal(gw: Gateway, player: str, table_id: str) -> tuple[str, str, int]:
    """The error a spectator's WebSocket gets (status name, reason) and its close code."""
    async with _ws(gw, player, table_id) as ws:
        msg = json.loads(await ws.recv())
        assert "error" in msg and "snapshot" not in msg, msg
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await ws.recv()
    return msg["error"]["code"], msg["error"]["reason"], closed.value.rcvd.code  # type: ignore[union-attr]


def _envelope(payload: bytes) -> bytes:
    return struct.pack(">BI", 0, len(payload)) + payload


def _frames(body: bytes) -> list[tuple[int, bytes]]:
    out = []
    while body:
        flags, size = struct.unpack(">BI", body[:5])
        out.append((flags, body[5 : 5 + size]))
        body = body[5 + size :]
    return out


def _reason_of_details(value: str) -> str:
    st = status_pb2.Status.FromString(base64.b64decode(value + "=" * (-len(value) % 4)))
    info = error_details_pb2.ErrorInfo()
    assert st.details and st.details[0].Unpack(info)
    return str(info.reason)


async def _connect_refusal(gw: Gateway, player: str, table_id: str) -> tuple[str, str]:
    """A spectator's Watch over a Connect stream: the end-of-stream error's code and reason."""
    body = _envelope(tpb.WatchRequest(table_id=table_id).SerializeToString())
    h = {"content-type": "application/connect+proto", **_bearer(player)}
    async with _http(gw) as http:
        r = await http.post(WATCH, content=body, headers=h)
    ((flags, payload),) = _frames(r.content)
    assert flags == 0x02, r.content
    error = json.loads(payload)["error"]
    value = error["details"][0]["value"]  # an ErrorInfo, unpadded base64
    return error["code"], error_details_pb2.ErrorInfo.FromString(
        base64.b64decode(value + "=" * (-len(value) % 4))
    ).reason


async def _grpc_web_refusal(gw: Gateway, player: str, table_id: str) -> tuple[str, str]:
    """The same over gRPC-Web: the trailer's status and the ErrorInfo's reason."""
    body = _envelope(tpb.WatchRequest(table_id=table_id).SerializeToString())
    h = {"content-type": "application/grpc-web+proto", **_bearer(player)}
    async with _http(gw) as http:
        r = await http.post(WATCH, content=body, headers=h)
    ((flags, payload),) = _frames(r.content)
    assert flags == 0x80, r.content
    lines = [line for line in payload.decode().split("\r\n") if line]
    trailers = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return trailers["grpc-status"], _reason_of_details(trailers["grpc-status-details-bin"])


async def _grpc_refusal(gw: Gateway, player: str, table_id: str) -> tuple[grpc.StatusCode, str | None]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{gw.grpc_port}") as ch:
        call = tpb_grpc.TableServiceStub(ch).Watch(
            tpb.WatchRequest(table_id=table_id), metadata=tuple(_bearer(player).items())
        )
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await call.read()
    return refused.value.code(), error_reason(refused.value)


@asynccontextmanager
async def _grpc_watch(gw: Gateway, player: str, req: tpb.WatchRequest, role: str = "player") -> AsyncIterator[None]:
    """A watch held open over the gRPC proxy (its first message read)."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{gw.grpc_port}") as ch:
        call = tpb_grpc.TableServiceStub(ch).Watch(req, metadata=tuple(_bearer(player, role).items()))
        assert (await call.read()).HasField("snapshot")
        try:
            yield
        finally:
            call.cancel()


async def _presence(gw: Gateway, **params: str) -> dict[str, Any]:
    async with _http(gw) as http:
        r = await http.get("/api/presence", params=params, headers=_bearer("observer"))
    assert r.status_code == 200, r.text
    got: dict[str, Any] = r.json()
    return got


async def _until(what: str, check: Callable[[], Awaitable[bool]], within_s: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + within_s
    while not await check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"not within {within_s} s: {what}")
        await asyncio.sleep(0.05)


# ------------------------------------------------------------------ the lobby's word


async def test_the_lobbys_refusal_of_a_spectator_comes_back_as_it_came_on_every_route(
    lobby_and_gw: tuple[_Lobby, Gateway],
) -> None:
    lobby, gw = lobby_and_gw
    assert await _ws_refusal(gw, "stranger", "private-1") == ("PERMISSION_DENIED", "INVITE_REQUIRED", 4403)
    assert await _ws_refusal(gw, "stranger", "blocked-1") == ("FAILED_PRECONDITION", "BLOCKED", 4409)
    assert await _connect_refusal(gw, "stranger", "private-1") == ("permission_denied", "INVITE_REQUIRED")
    assert await _grpc_web_refusal(gw, "stranger", "private-1") == (
        str(grpc.StatusCode.PERMISSION_DENIED.value[0]),
        "INVITE_REQUIRED",
    )
    assert await _grpc_refusal(gw, "stranger", "blocked-1") == (grpc.StatusCode.FAILED_PRECONDITION, "BLOCKED")
    # asked with the caller's own token (as the caller) and the address the gateway saw
    tables = ["private-1", "blocked-1", "private-1", "private-1", "blocked-1"]
    assert lobby.asked == [("stranger", "127.0.0.1", t) for t in tables]
    # a refused watch holds nothing: no spectator counted, no stream place kept
    assert (await _presence(gw, tables="private-1,blocked-1"))["tables"] == [
        {"tableId": "private-1", "spectators": 0},
        {"tableId": "blocked-1", "spectators": 0},
    ]
    assert gw.host is not None and gw.host.parts is not None and gw.host.parts.streams is not None
    assert gw.host.parts.streams.callers == {}


async def test_a_seats_watch_and_a_services_watch_are_not_a_spectators_and_the_lobby_is_not_asked(
    lobby_and_gw: tuple[_Lobby, Gateway],
) -> None:
    lobby, gw = lobby_and_gw
    async with _ws(gw, "ali", "private-2", seat=1) as ws:
        assert "snapshot" in json.loads(await ws.recv())
    async with _grpc_watch(gw, "ayse", tpb.WatchRequest(table_id="private-2", seat=2)):
        pass
    async with _grpc_watch(gw, "bots", tpb.WatchRequest(table_id="private-2"), role="service"):
        pass
    async with _ws(gw, "bots", "private-2", role="service") as ws:
        assert "snapshot" in json.loads(await ws.recv())
    assert lobby.asked == []


# ------------------------------------------------------------------ a spectator's unary reads


_READS: dict[str, type[tpb.GetViewRequest] | type[tpb.GetEventsRequest]] = {
    GET_VIEW: tpb.GetViewRequest,
    GET_EVENTS: tpb.GetEventsRequest,
}


async def _unary_reads(
    gw: Gateway, path: str, player: str, table_id: str, seat: int | None = None, role: str = "player"
) -> dict[str, tuple[str, str]]:
    """A read of ``table_id`` at ``path`` (GetView or GetEvents) on every unary route: for each
    route, ("OK", "") when it was answered, else the refusal's code (as the route names it) and
    reason."""
    req = _READS[path](table_id=table_id, seat=seat) if seat is not None else _READS[path](table_id=table_id)
    auth = {"authorization": f"Bearer {issue_token(player, role)}"}
    out: dict[str, tuple[str, str]] = {}
    async with _http(gw) as http:
        body: dict[str, Any] = {"tableId": table_id} | ({"seat": seat} if seat is not None else {})
        r = await http.post(f"/api{path}", json=body, headers=auth)
        out["api"] = ("OK", "") if r.status_code == 200 else (r.json()["code"], r.json()["reason"])
        for codec, payload in (("proto", req.SerializeToString()), ("json", json.dumps(body).encode())):
            r = await http.post(path, content=payload, headers={"content-type": f"application/{codec}", **auth})
            if r.status_code == 200:
                out[f"connect+{codec}"] = ("OK", "")
            else:
                value = r.json()["details"][0]["value"]
                reason = error_details_pb2.ErrorInfo.FromString(base64.b64decode(value + "=" * (-len(value) % 4)))
                out[f"connect+{codec}"] = (r.json()["code"], reason.reason)
        web = {"content-type": "application/grpc-web+proto", **auth}
        r = await http.post(path, content=_envelope(req.SerializeToString()), headers=web)
        frames = _frames(r.content)
        lines = [line for line in frames[-1][1].decode().split("\r\n") if line]
        trailers = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
        if trailers["grpc-status"] == "0":
            assert frames[0][0] == 0x00, frames
            out["grpc-web"] = ("OK", "")
        else:
            code = grpc.StatusCode(next(c for c in grpc.StatusCode if str(c.value[0]) == trailers["grpc-status"]))
            out["grpc-web"] = (code.name, _reason_of_details(trailers["grpc-status-details-bin"]))
    async with grpc.aio.insecure_channel(f"127.0.0.1:{gw.grpc_port}") as ch:
        stub = tpb_grpc.TableServiceStub(ch)
        rpc = stub.GetView if path == GET_VIEW else stub.GetEvents
        try:
            await rpc(req, metadata=tuple(auth.items()), timeout=10)
            out["grpc"] = ("OK", "")
        except grpc.aio.AioRpcError as err:
            out["grpc"] = (err.code().name, error_reason(err) or "")
    return out


ROUTES = ("api", "connect+proto", "connect+json", "grpc-web", "grpc")


def _every(code: str, reason: str) -> dict[str, tuple[str, str]]:
    """The same answer on each route, its code as that route names it (Connect: lower case)."""
    return {r: (code.lower() if r.startswith("connect") and code != "OK" else code, reason) for r in ROUTES}


async def test_a_spectators_get_view_and_get_events_ask_the_lobby_on_every_unary_route(
    lobby_and_gw: tuple[_Lobby, Gateway],
) -> None:
    """The hole this closes: the lobby refused a blocked player's or a stranger's Watch, but the
    same view came by polling GetView or GetEvents without a seat."""
    lobby, gw = lobby_and_gw
    for path in (GET_VIEW, GET_EVENTS):
        assert await _unary_reads(gw, path, "stranger", "private-3") == _every("PERMISSION_DENIED", "INVITE_REQUIRED")
        assert await _unary_reads(gw, path, "stranger", "blocked-3") == _every("FAILED_PRECONDITION", "BLOCKED")
        assert await _unary_reads(gw, path, "stranger", "public-3") == _every("OK", "")
    # asked each time, as the caller, with the address the gateway saw
    asked = [t for t in ("private-3", "blocked-3", "public-3") for _ in ROUTES]
    assert lobby.asked == [("stranger", "127.0.0.1", t) for t in asked * 2]


async def test_a_seats_read_and_a_services_read_are_not_a_spectators_and_the_lobby_is_not_asked(
    lobby_and_gw: tuple[_Lobby, Gateway],
) -> None:
    lobby, gw = lobby_and_gw
    for path in (GET_VIEW, GET_EVENTS):
        assert await _unary_reads(gw, path, "ali", "private-4", seat=0) == _every("OK", "")
        assert await _unary_reads(gw, path, "bots", "private-4", role="service") == _every("OK", "")
    assert lobby.asked == []


async def test_a_spectators_unary_reads_need_a_token_and_are_not_held_by_the_cap(
    lobby_and_gw: tuple[_Lobby, Gateway],
) -> None:
    lobby, gw = lobby_and_gw
    async with _http(gw) as http:
        r = await http.post(f"/api{GET_VIEW}", json={"tableId": "t-open"})
        assert r.status_code == 401 and r.json()["code"] == "UNAUTHENTICATED", r.text
        r = await http.post(GET_EVENTS, content=b"{}", headers={"content-type": "application/json"})
        assert r.status_code == 401 and r.json()["code"] == "unauthenticated", r.text
    assert lobby.asked == []
    async with _ws(gw, "s1", "t-full") as a, _ws(gw, "s2", "t-full") as b:
        assert "snapshot" in json.loads(await a.recv()) and "snapshot" in json.loads(await b.recv())
        assert await _ws_refusal(gw, "s3", "t-full") == ("RESOURCE_EXHAUSTED", "SPECTATORS_FULL", 4429)
        # a poll holds nothing open: the lobby's word alone (a stream of polls is the rate limit's)
        assert await _unary_reads(gw, GET_VIEW, "s3", "t-full") == _every("OK", "")
        assert (await _presence(gw, tables="t-full"))["tables"] == [{"tableId": "t-full", "spectators": CAP}]


# ------------------------------------------------------------------ the cap


async def test_the_table_refuses_one_more_distinct_spectator_than_its_cap_with_SPECTATORS_FULL(
    lobby_and_gw: tuple[_Lobby, Gateway],
) -> None:
    _, gw = lobby_and_gw
    async with _ws(gw, "s1", "t-cap") as a, _ws(gw, "s2", "t-cap") as b:
        assert "snapshot" in json.loads(await a.recv()) and "snapshot" in json.loads(await b.recv())
        assert (await _presence(gw, tables="t-cap"))["tables"] == [{"tableId": "t-cap", "spectators": CAP}]
        assert await _ws_refusal(gw, "s3", "t-cap") == ("RESOURCE_EXHAUSTED", "SPECTATORS_FULL", 4429)
        assert await _connect_refusal(gw, "s3", "t-cap") == ("resource_exhausted", "SPECTATORS_FULL")
        assert await _grpc_web_refusal(gw, "s3", "t-cap") == (
            str(grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]),
            "SPECTATORS_FULL",
        )
        assert await _grpc_refusal(gw, "s3", "t-cap") == (grpc.StatusCode.RESOURCE_EXHAUSTED, "SPECTATORS_FULL")
        # one already watching is not one more (a second tab); staff are not held by the cap
        async with _ws(gw, "s1", "t-cap") as again, _ws(gw, "mod", "t-cap", role="moderator") as staff:
            assert "snapshot" in json.loads(await again.recv())
            assert "snapshot" in json.loads(await staff.recv())
            assert (await _presence(gw, tables="t-cap"))["tables"][0]["spectators"] == CAP + 1  # staff count
        # another table is another count
        async with _grpc_watch(gw, "s3", tpb.WatchRequest(table_id="t-other")):
            assert (await _presence(gw, tables="t-cap,t-other"))["tables"][1] == {"tableId": "t-other", "spectators": 1}
    # both gone: s3 comes in

    async def none_left() -> bool:
        return (await _presence(gw, tables="t-cap"))["tables"] == [{"tableId": "t-cap", "spectators": 0}]

    await _until("the spectators' count back to 0 once they left", none_left)
    async with _ws(gw, "s3", "t-cap") as c:
        assert "snapshot" in json.loads(await c.recv())


# ------------------------------------------------------------------ the presence route


async def test_the_presence_route_counts_tables_with_or_without_players_within_its_bounds(
    lobby_and_gw: tuple[_Lobby, Gateway],
) -> None:
    _, gw = lobby_and_gw
    async with _ws(gw, "ali", "t-p", seat=0) as seat, _ws(gw, "can", "t-p") as spectator:
        await seat.recv()
        await spectator.recv()
        assert await _presence(gw, tables="t-p") == {"tables": [{"tableId": "t-p", "spectators": 1}]}
        got = await _presence(gw, players="ali,can", tables="t-p,t-none")
        assert got == {
            "players": [
                {"playerId": "ali", "state": "AT_TABLE", "tableId": ""},  # another's table: not said
                {"playerId": "can", "state": "ONLINE", "tableId": ""},
            ],
            "tables": [{"tableId": "t-p", "spectators": 1}, {"tableId": "t-none", "spectators": 0}],
        }
        async with _http(gw) as http:
            r = await http.get("/api/presence", params={"players": "ali"}, headers=_bearer("ali"))
            assert r.json()["players"] == [{"playerId": "ali", "state": "AT_TABLE", "tableId": "t-p"}]  # one's own
            too_many = ",".join(f"t{i}" for i in range(MAX_PRESENCE_TABLES + 1))
            r = await http.get("/api/presence", params={"tables": too_many}, headers=_bearer("observer"))
            assert r.status_code == 400 and r.json()["reason"] == "INVALID_ARGUMENT", r.text
            r = await http.get("/api/presence", params={"tables": "t" * 129}, headers=_bearer("observer"))
            assert r.status_code == 400 and r.json()["reason"] == "INVALID_ARGUMENT", r.text
            r = await http.get("/api/presence", params={"tables": "t-p"})
            assert r.status_code == 401, r.text


# ------------------------------------------------------------------ notifications


async def test_a_notifications_stream_passes_every_route_and_counts_as_online(
    lobby_and_gw: tuple[_Lobby, Gateway],
) -> None:
    lobby, gw = lobby_and_gw
    url = f"ws://127.0.0.1:{gw.http_port}/ws{NOTIFICATIONS}?afterNotificationId=0&token={issue_token('nur')}"
    async with websockets.connect(url) as ws:
        assert json.loads(await ws.recv()) == {"notification": {"notificationId": "7"}, "unread": 1}
        assert (await _presence(gw, players="nur"))["players"][0]["state"] == "ONLINE"
    h = {"content-type": "application/connect+json", **_bearer("nil")}
    body = _envelope(b"{}")
    async with _http(gw) as http, http.stream("POST", NOTIFICATIONS, content=body, headers=h) as held:
        async for chunk in held.aiter_raw():
            ((flags, payload),) = _frames(chunk)
            assert flags == 0 and json.loads(payload)["unread"] == 1
            break
        assert (await _presence(gw, players="nil"))["players"][0]["state"] == "ONLINE"
    async with grpc.aio.insecure_channel(f"127.0.0.1:{gw.grpc_port}") as ch:
        call = lpb_grpc.LobbyServiceStub(ch).WatchNotifications(
            lpb.WatchNotificationsRequest(), metadata=tuple(_bearer("naz").items())
        )
        assert (await call.read()).notification.notification_id == 7
        assert (await _presence(gw, players="naz"))["players"][0]["state"] == "ONLINE"
        call.cancel()
    assert lobby.asked == []  # not a watch of a table: nothing to authorise

    async def all_offline() -> bool:
        got = await _presence(gw, players="nur,nil,naz")
        return {p["state"] for p in got["players"]} == {"OFFLINE"}

    await _until("each closed notifications stream's player OFFLINE (no call of theirs came)", all_offline)


async def test_a_notifications_stream_counts_against_the_stream_caps_like_any_stream() -> None:
    lobby = _Lobby()
    async with upstream_server(lobby=lobby, table=_Table()) as port:
        gw = await start_gateway(port, OKEY_RATE_LIMIT="1000", OKEY_RATE_BURST="1000", OKEY_MAX_STREAMS_PER_PLAYER="1")
        try:
            url = f"ws://127.0.0.1:{gw.http_port}/ws{NOTIFICATIONS}?token={issue_token('nur')}"
            async with websockets.connect(url) as first:
                assert "notification" in json.loads(await first.recv())
                async with websockets.connect(url) as second:
                    msg = json.loads(await second.recv())
                    assert msg["error"]["reason"] == "TOO_MANY_STREAMS", msg
                assert await _ws_refusal(gw, "nur", "t-any") == ("RESOURCE_EXHAUSTED", "TOO_MANY_STREAMS", 4429)
            assert lobby.asked == []  # refused by the cap before the lobby was asked
        finally:
            await gw.stop(grace_s=1.0)

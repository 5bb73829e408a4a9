"""The gateway's edges: oversized and malformed requests, bad tokens on every transport, and the
WebSocket watch resumed from the last version seen (no gap, no duplicate)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import httpx
import pytest
import websockets
from gateway_helpers import GatewayStack
from okeycore.commands import Discard, Draw
from okeycore.options import TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeyplatform.grpcserver import error_reason

from services.gateway.api import MAX_BODY_BYTES

PLAYERS = ("ali", "ayse", "mehmet", "zeynep")
GET_VIEW = "/api/okey.v1.TableService/GetView"


def _auth(player: str = "ali", **kw: Any) -> dict[str, str]:
    return {"authorization": f"Bearer {issue_token(player, **kw)}"}


async def _open(gw: GatewayStack, table_id: str) -> TableClient:
    """A table of four players; returns a service client (it may act for any seat)."""
    svc = TableClient(gw.grpc, issue_token("edge-tests", "service"))
    await svc.create_table(TableOptions(turn_seconds=120), PLAYERS, table_id=table_id)
    return svc


async def _moves(svc: TableClient, table_id: str, n: int) -> int:
    """Play ``n`` commands (draw, or discard the last tile) for whoever's turn it is; the version after."""
    version = 0
    for _ in range(n):
        spectator = await svc.view(table_id)
        seat = spectator.turn
        v = await svc.view(table_id, seat)
        cmd = Draw(seat=seat) if v.stage == 1 else Discard(seat=seat, tile=v.rack[-1].id)  # STAGE_DRAW
        version = (await svc.act(table_id, cmd)).version
    return version


def _json_error(r: httpx.Response, status: int, reason: str) -> None:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"code", "reason", "message"} and body["reason"] == reason, body
    assert body["message"]


# ------------------------------------------------------------------ oversized


async def test_oversized_bodies_are_refused_with_413_whether_declared_or_streamed(
    stack: GatewayStack,
) -> None:
    gw = stack
    svc = await _open(gw, "gw-big")
    await svc.close()
    async with httpx.AsyncClient(base_url=f"http://{gw.http}", timeout=10) as http:
        # exactly at the limit: read and answered
        body = b'{"tableId": "gw-big", "seat": 0' + b" " * MAX_BODY_BYTES
        body = body[: MAX_BODY_BYTES - 1] + b"}"
        assert len(body) == MAX_BODY_BYTES
        r = await http.post(GET_VIEW, content=body, headers=_auth())
        assert r.status_code == 200, r.text
        # one byte over, declared in Content-Length: refused before it is read
        r = await http.post(GET_VIEW, content=body + b" ", headers=_auth())
        _json_error(r, 413, "REQUEST_TOO_LARGE")

        # streamed (chunked, no Content-Length): refused once the limit is passed
        async def chunks() -> AsyncIterator[bytes]:
            yield b'{"tableId": "gw-big", "seat": 0'
            for _ in range(20):
                yield b" " * 8192
            yield b"}"

        r = await http.post(GET_VIEW, content=chunks(), headers=_auth())
        assert "content-length" not in r.request.headers
        _json_error(r, 413, "REQUEST_TOO_LARGE")
        # and the server goes on serving
        r = await http.post(GET_VIEW, json={"tableId": "gw-big", "seat": 0}, headers=_auth())
        assert r.status_code == 200


# ------------------------------------------------------------------ malformed


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b"\xff\xfe{}",  # not UTF-8
        b"[]",  # not an object
        b'"tableId"',
        b'{"tableId": "gw-bad"} trailing',
        b'{"tableId": "a", "tableId": "b"}',  # a duplicate key
        b'{"tableId": 5}',  # a wrong type
        b'{"tableId": "gw-bad", "seat": "north"}',
        b'{"tableId": "gw-bad", "nope": 1}',  # an unknown field
        b"[" * 30_000 + b"]" * 30_000,  # nesting deeper than any parser's stack
    ],
    ids=["syntax", "utf8", "array", "string", "trailing", "duplicate", "type", "int", "unknown", "deep"],
)
async def test_malformed_json_is_a_400_with_a_reason(stack: GatewayStack, body: bytes) -> None:
    gw = stack
    async with httpx.AsyncClient(base_url=f"http://{gw.http}", timeout=10) as http:
        r = await http.post(GET_VIEW, content=body, headers={**_auth(), "content-type": "application/json"})
        _json_error(r, 400, "MALFORMED_JSON")


async def test_malformed_act_commands_and_watch_parameters(stack: GatewayStack) -> None:
    gw = stack
    svc = await _open(gw, "gw-act")
    await svc.close()
    async with httpx.AsyncClient(base_url=f"http://{gw.http}", timeout=10) as http:
        # two commands of the oneof at once, an unknown enum value, a command the table cannot decode
        r = await http.post(
            "/api/okey.v1.TableService/Act",
            json={"tableId": "gw-act", "commandId": "c1", "seat": 0, "draw": {}, "pass": {}},
            headers=_auth(),
        )
        _json_error(r, 400, "MALFORMED_JSON")
        r = await http.post(
            "/api/okey.v1.TableService/CreateTable",
            json={"options": {"game": "GAME_CHESS"}, "seats": [{"playerId": "ali"}]},
            headers=_auth(),
        )
        _json_error(r, 400, "MALFORMED_JSON")
        r = await http.post(
            "/api/okey.v1.TableService/Act", json={"tableId": "gw-act", "commandId": "c2", "seat": 0}, headers=_auth()
        )
        assert r.status_code == 400 and r.json()["code"] == "INVALID_ARGUMENT"
        r = await http.post("/api/okey.v1.TableService/Watch", json={}, headers=_auth())
        _json_error(r, 400, "USE_WEBSOCKET")
    base = f"ws://{gw.http}/ws/okey.v1.TableService/Watch?token={issue_token('ali')}"
    for query in ("&tableId=gw-act&seat=north", "&tableId=gw-act&seat=0&nope=1", "&tableId=gw-act&afterVersion=x"):
        async with websockets.connect(base + query) as ws:
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4400, query
    async with websockets.connect(f"ws://{gw.http}/ws/okey.v1.TableService/Nope") as ws:
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404


async def test_a_table_id_of_digits_can_be_watched(stack: GatewayStack) -> None:
    """Query parameters are typed by the request's fields: tableId=12345 stays a string."""
    gw = stack
    svc = await _open(gw, "12345")
    await svc.close()
    url = f"ws://{gw.http}/ws/okey.v1.TableService/Watch?tableId=12345&seat=0&token={issue_token('ali')}"
    async with websockets.connect(url) as ws:
        first = json.loads(await asyncio.wait_for(ws.recv(), 10))
    assert first["snapshot"]["tableId"] == "12345"


# ------------------------------------------------------------------ bad tokens


BAD_TOKENS = {
    "forged": lambda: issue_token("ali", secret=b"not-the-gateway-secret"),
    "expired": lambda: issue_token("ali", ttl_s=-60),
    "garbage": lambda: "v1.bm90LWpzb24.c2ln",
    "truncated": lambda: issue_token("ali")[:-6],
}


@pytest.mark.parametrize("kind", sorted(BAD_TOKENS))
async def test_bad_tokens_are_refused_on_http_grpc_and_websocket(stack: GatewayStack, kind: str) -> None:
    gw = stack
    svc = await _open(gw, f"gw-tok-{kind}")
    await svc.close()
    token = BAD_TOKENS[kind]()
    async with httpx.AsyncClient(base_url=f"http://{gw.http}", timeout=10) as http:
        r = await http.post(
            GET_VIEW, json={"tableId": f"gw-tok-{kind}", "seat": 0}, headers={"authorization": f"Bearer {token}"}
        )
        _json_error(r, 401, "BAD_TOKEN")
    client = TableClient(gw.grpc, token)
    try:
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await client.view(f"gw-tok-{kind}", 0)
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED and error_reason(err.value) == "BAD_TOKEN"
    finally:
        await client.close()
    url = f"ws://{gw.http}/ws/okey.v1.TableService/Watch?tableId=gw-tok-{kind}&seat=0&token={token}"
    async with websockets.connect(url) as ws:
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401


async def test_missing_or_misused_credentials(stack: GatewayStack) -> None:
    gw = stack
    svc = await _open(gw, "gw-cred")
    await svc.close()
    body = {"tableId": "gw-cred", "seat": 0}
    async with httpx.AsyncClient(base_url=f"http://{gw.http}", timeout=10) as http:
        for header in ("Basic YWxpOnNlY3JldA==", "Bearer", "token-without-scheme"):
            r = await http.post(GET_VIEW, json=body, headers={"authorization": header})
            _json_error(r, 401, "BAD_TOKEN")
        r = await http.post(GET_VIEW, json=body)  # no token: the table service refuses
        assert r.status_code == 401 and r.json()["code"] == "UNAUTHENTICATED"
        r = await http.post(GET_VIEW, json=body, headers=_auth("ayse"))  # a valid token, another player's seat
        assert r.status_code == 403 and r.json()["code"] == "PERMISSION_DENIED"
        r = await http.post(
            "/api/okey.v1.TableService/Act",
            json={"tableId": "gw-cred", "commandId": "x", "seat": 0, "declarePairs": {}},
            headers=_auth("ayse"),
        )
        assert r.status_code == 403
    # the WebSocket without a token: the upstream's refusal arrives as an error message, then 4401
    url = f"ws://{gw.http}/ws/okey.v1.TableService/Watch?tableId=gw-cred&seat=0"
    async with websockets.connect(url) as ws:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert msg["error"]["code"] == "UNAUTHENTICATED"
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    # another player's seat over the WebSocket
    url = f"ws://{gw.http}/ws/okey.v1.TableService/Watch?tableId=gw-cred&seat=0&token={issue_token('ayse')}"
    async with websockets.connect(url) as ws:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert msg["error"]["code"] == "PERMISSION_DENIED"


# ------------------------------------------------------------------ WebSocket resume


async def _recv_until(ws: Any, version: int) -> list[dict[str, Any]]:
    """Messages until one carries ``version`` (each message is checked to be an event with its view)."""
    got: list[dict[str, Any]] = []
    while not got or int(got[-1]["event"]["version"]) < version:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert "event" in msg and "view" in msg and "snapshot" not in msg, msg
        assert msg["view"]["version"] == msg["event"]["version"]
        got.append(msg)
    return got


async def test_websocket_resume_from_the_last_version_seen_has_no_gap_and_no_duplicate(
    stack: GatewayStack,
) -> None:
    gw = stack
    svc = await _open(gw, "gw-resume")
    token = issue_token("ali")

    def url(after: int) -> str:
        return (
            f"ws://{gw.http}/ws/okey.v1.TableService/Watch?tableId=gw-resume&seat=0&afterVersion={after}&token={token}"
        )

    try:
        seen: list[int] = []
        async with websockets.connect(url(0)) as ws:
            snap = json.loads(await asyncio.wait_for(ws.recv(), 10))["snapshot"]
            start = int(snap["version"])
            now = await _moves(svc, "gw-resume", 5)
            seen += [int(m["event"]["version"]) for m in await _recv_until(ws, now)]
        last = seen[-1]
        # while away: more moves, and one more right as the socket reconnects
        now = await _moves(svc, "gw-resume", 7)
        async with websockets.connect(url(last)) as ws:
            first = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert int(first["snapshot"]["version"]) == last  # the view at the version resumed from
            now = await _moves(svc, "gw-resume", 1)
            missed = await _recv_until(ws, now)
            seen += [int(m["event"]["version"]) for m in missed]
            # live again: the next moves arrive as they happen
            now = await _moves(svc, "gw-resume", 3)
            live = await _recv_until(ws, now)
            seen += [int(m["event"]["version"]) for m in live]
            # the last view is the seat's view now, rack and all
            final = live[-1]["view"]
        assert seen == list(range(start + 1, now + 1)), seen
        mine = await TableClient(gw.grpc, token).view("gw-resume", 0)
        assert sorted(t.get("id", 0) for t in final["rack"]) == sorted(t.id for t in mine.rack)
        # resuming from the very first version replays the whole table, in order
        async with websockets.connect(url(1)) as ws:
            assert int(json.loads(await asyncio.wait_for(ws.recv(), 10))["snapshot"]["version"]) == 1
            replay = await _recv_until(ws, now)
        assert [int(m["event"]["version"]) for m in replay] == list(range(2, now + 1))
        # a socket that only resumes sees no event before its version
        async with websockets.connect(url(now)) as ws:
            assert int(json.loads(await asyncio.wait_for(ws.recv(), 10))["snapshot"]["version"]) == now
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(ws.recv(), 0.5)
    finally:
        await svc.close()


async def test_service_to_service_calls_are_not_forwarded_by_the_edge(stack: GatewayStack) -> None:
    # ScoringService.ForgetPlayer is the lobby's call when an account is deleted: even with a
    # service token the public edge neither lists it nor forwards it.
    async with httpx.AsyncClient(base_url=f"http://{stack.http}", timeout=10) as http:
        listed = {r["path"] for r in (await http.get("/api")).json()["rpcs"]}
        assert "/okey.v1.ScoringService/GetLeaderboard" in listed
        assert "/okey.v1.ScoringService/ForgetPlayer" not in listed
        r = await http.post(
            "/api/okey.v1.ScoringService/ForgetPlayer", json={"playerId": "p-1"}, headers=_auth("lobby", role="service")
        )
        _json_error(r, 404, "UNKNOWN_METHOD")


# ------------------------------------------------------------------ an upstream down


async def test_with_the_table_service_down_calls_are_503_and_watches_close_4503_then_recover(
    make_stack: Any,
) -> None:
    """The gateway with its upstream gone: an HTTP call is 503 UNAVAILABLE (a JSON error, not a
    hang or a 500), a new WebSocket watch and one already open end with the error and close code
    4503, and once the table service is back the same calls work again (issue 24)."""
    gw = GatewayStack(make_stack(("table", "gateway"), env={"OKEY_RATE_LIMIT": "1000"}, label="upstream-down"))
    table_id = "gw-upstream-down"
    svc = await _open(gw, table_id)
    await svc.close()
    url = f"ws://{gw.http}/ws/okey.v1.TableService/Watch?tableId={table_id}&seat=0&token={issue_token('ali')}"
    async with websockets.connect(url) as open_ws:
        first = json.loads(await asyncio.wait_for(open_ws.recv(), 10))
        assert "snapshot" in first  # the watch is live before the upstream goes
        await asyncio.to_thread(gw.stack.stop_one, "table")
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:  # the error message, then the close
                last = json.loads(await asyncio.wait_for(open_ws.recv(), 30))
                assert last["error"]["code"] == "UNAVAILABLE", last
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4503
    async with httpx.AsyncClient(base_url=f"http://{gw.http}", timeout=30) as http:
        r = await http.post(GET_VIEW, json={"tableId": table_id, "seat": 0}, headers=_auth())
        assert r.status_code == 503 and r.json()["code"] == "UNAVAILABLE", r.text
        assert r.json()["message"]
        async with websockets.connect(url) as ws:
            got = json.loads(await asyncio.wait_for(ws.recv(), 30))
            assert got["error"]["code"] == "UNAVAILABLE", got
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 30)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4503
        await asyncio.to_thread(gw.stack.start_one, "table")
        for _ in range(100):  # the gateway's channel reconnects on its own
            r = await http.post(GET_VIEW, json={"tableId": table_id, "seat": 0}, headers=_auth())
            if r.status_code != 503:
                break
            await asyncio.sleep(0.2)
        assert r.status_code == 200 and r.json()["view"]["tableId"] == table_id, r.text


# ------------------------------------------------------------------ streams at once [issue 39.8]


async def test_39_8_websockets_and_streams_at_once_are_capped_per_player_and_per_address(
    stack: GatewayStack,
) -> None:
    """A gateway with OKEY_MAX_STREAMS_PER_PLAYER=2 and OKEY_MAX_STREAMS_PER_ADDRESS=3 (in this
    process, in front of the module's table service): a player's third WebSocket is refused with
    an error message (RESOURCE_EXHAUSTED, TOO_MANY_STREAMS) and close 4429 whose reason says so,
    while the first two keep receiving the table's events; a second token from the same address
    fills the address's third place and a third token is refused there; a stream over the
    gateway's gRPC proxy counts the same (RESOURCE_EXHAUSTED, TOO_MANY_STREAMS); closing one
    frees its place at once."""
    import os

    from services.gateway.main import Gateway

    svc = await _open(stack, "gw-caps")
    env = dict(os.environ) | {
        "OKEY_TABLE_ADDR": stack.stack.address("table"),
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_STREAMS_PER_PLAYER": "2",
        "OKEY_MAX_STREAMS_PER_ADDRESS": "3",
    }
    gw = Gateway(grpc_address="127.0.0.1:0", http_address="127.0.0.1:0", environ=env)
    await gw.start()
    tokens = {p: issue_token(p) for p in PLAYERS}

    def url(player: str) -> str:
        seat = PLAYERS.index(player)
        return f"ws://127.0.0.1:{gw.http_port}/ws/okey.v1.TableService/Watch?tableId=gw-caps&seat={seat}&token={tokens[player]}"

    async def opened(player: str, retry: bool = False) -> Any:
        """A watch that opens; with ``retry``, asked again while a place just freed is still
        held (the gateway has not yet seen that close), up to 10 s, not after a fixed pause."""
        deadline = asyncio.get_running_loop().time() + 10
        while True:
            ws = await websockets.connect(url(player))
            first = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if "snapshot" in first or not retry:
                assert "snapshot" in first, first
                return ws
            await ws.close()
            assert first["error"]["reason"] == "TOO_MANY_STREAMS", first
            assert asyncio.get_running_loop().time() < deadline, "a closed stream did not free its place in 10 s"
            await asyncio.sleep(0.05)

    async def refused(player: str, limit: str) -> None:
        async with websockets.connect(url(player)) as ws:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert msg["error"]["code"] == "RESOURCE_EXHAUSTED" and msg["error"]["reason"] == "TOO_MANY_STREAMS", msg
            assert f"per {limit}" in msg["error"]["message"], msg
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
            assert closed.value.rcvd.reason.startswith("TOO_MANY_STREAMS"), closed.value.rcvd.reason

    socks: list[Any] = []
    grpc_client = TableClient(f"127.0.0.1:{gw.grpc_port}", tokens["ali"])
    try:
        socks += [await opened("ali"), await opened("ali")]
        await refused("ali", "player")
        for _ in range(3):  # refused again and again: a refusal holds no place
            await refused("ali", "player")
        with pytest.raises(grpc.aio.AioRpcError) as err:
            async for _ in grpc_client.watch("gw-caps", 0):
                break
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert error_reason(err.value) == "TOO_MANY_STREAMS"
        # the first two keep working
        now = await _moves(svc, "gw-caps", 2)
        for ws in socks:
            assert int((await _recv_until(ws, now))[-1]["event"]["version"]) == now
        socks.append(await opened("ayse"))  # the address's third place
        await refused("mehmet", "address")
        # one closed frees its place at once: for that player, and for the address
        await socks.pop(0).close()
        socks.append(await opened("ali", retry=True))
        await refused("ali", "player")
        await socks.pop().close()
        socks.append(await opened("mehmet", retry=True))
    finally:
        for ws in socks:
            await ws.close()
        await grpc_client.close()
        await svc.close()
        await gw.stop(grace_s=1.0)

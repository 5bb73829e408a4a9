"""Issue 43: the gateway speaks Connect and gRPC-Web at the standard paths
(``POST /okey.v1.LobbyService/SignInGuest``), unary and server streaming, JSON and binary, with
the same token check, limits (rate, streams, body size) and refusals (ErrorInfo) as gRPC and
/api; a protocol error gets that protocol's own shape. The upstreams here are fakes."""

from __future__ import annotations

import asyncio
import base64
import json
import struct
from collections.abc import AsyncIterator
from typing import Any

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2, status_pb2
from in_process import start_gateway, upstream_server
from okey.v1 import lobby_service_pb2 as lpb
from okey.v1 import lobby_service_pb2_grpc as lpb_grpc
from okey.v1 import scoring_service_pb2 as spb
from okey.v1 import scoring_service_pb2_grpc as spb_grpc
from okey.v1 import table_service_pb2 as tpb
from okey.v1 import table_service_pb2_grpc as tpb_grpc
from okeyplatform import metrics as M
from okeyplatform.auth import CLIENT_ADDRESS_KEY, issue_token
from okeyplatform.grpcserver import rich_error
from prometheus_client import REGISTRY

from services.gateway.main import Gateway

SIGN_IN = "/okey.v1.LobbyService/SignInGuest"
ACT = "/okey.v1.TableService/Act"
WATCH = "/okey.v1.TableService/Watch"


class _Lobby(lpb_grpc.LobbyServiceServicer):
    async def SignInGuest(self, request: lpb.SignInGuestRequest, context: Any) -> lpb.SignInGuestResponse:
        got = dict(context.invocation_metadata() or ())
        return lpb.SignInGuestResponse(device_id=got.get(CLIENT_ADDRESS_KEY, "-"), token=request.display_name)

    async def AuthorizeWatch(self, request: lpb.AuthorizeWatchRequest, context: Any) -> lpb.AuthorizeWatchResponse:
        return lpb.AuthorizeWatchResponse()  # a spectator may watch (tests/gateway/test_spectators_edge.py)


class _Table(tpb_grpc.TableServiceServicer):
    async def Act(self, request: tpb.ActRequest, context: Any) -> tpb.ActResponse:
        auth = dict(context.invocation_metadata() or ()).get("authorization", "")
        if not auth:
            await context.abort_with_status(rich_error(grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN", "no token"))
        await context.abort_with_status(
            rich_error(grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN", "not your turn: ç", seat="2")
        )
        return tpb.ActResponse()

    async def Watch(self, request: tpb.WatchRequest, context: Any) -> AsyncIterator[tpb.WatchResponse]:
        yield tpb.WatchResponse(snapshot=tpb.SeatView(table_id=request.table_id))
        if request.table_id == "hold":
            await asyncio.sleep(30)
        if request.table_id == "gone":
            await context.abort_with_status(rich_error(grpc.StatusCode.NOT_FOUND, "NO_SUCH_TABLE", "no table"))


class _Scoring(spb_grpc.ScoringServiceServicer):
    async def GetLeaderboard(self, request: Any, context: Any) -> spb.GetLeaderboardResponse:
        return spb.GetLeaderboardResponse()


@pytest.fixture
async def upstream() -> AsyncIterator[int]:
    async with upstream_server(lobby=_Lobby(), table=_Table(), scoring=_Scoring()) as port:
        yield port


@pytest.fixture
async def gw(upstream: int) -> AsyncIterator[Gateway]:
    gw = await start_gateway(upstream, OKEY_RATE_LIMIT="1000", OKEY_RATE_BURST="1000")
    try:
        yield gw
    finally:
        await gw.stop(grace_s=1.0)


def _http(gw: Gateway) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=f"http://127.0.0.1:{gw.http_port}", timeout=10)


def _envelope(payload: bytes, flags: int = 0) -> bytes:
    return struct.pack(">BI", flags, len(payload)) + payload


def _frames(body: bytes) -> list[tuple[int, bytes]]:
    out = []
    while body:
        flags, size = struct.unpack(">BI", body[:5])
        out.append((flags, body[5 : 5 + size]))
        body = body[5 + size :]
    return out


def _trailers(payload: bytes) -> dict[str, str]:
    lines = [line for line in payload.decode().split("\r\n") if line]
    return {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in lines)}


def _info_of_details_bin(value: str) -> error_details_pb2.ErrorInfo:
    st = status_pb2.Status.FromString(base64.b64decode(value + "=" * (-len(value) % 4)))
    info = error_details_pb2.ErrorInfo()
    assert st.details and st.details[0].Unpack(info)
    return info


def _connect_reason(error: dict[str, Any]) -> str:
    """The ErrorInfo reason of a Connect error, read from the binary ``value`` (as clients do)."""
    detail = error["details"][0]
    assert detail["type"] == "google.rpc.ErrorInfo"
    value = detail["value"]
    info = error_details_pb2.ErrorInfo.FromString(base64.b64decode(value + "=" * (-len(value) % 4)))
    assert detail["debug"]["reason"] == info.reason
    return str(info.reason)


async def test_connect_unary_in_json_and_proto_with_errors_as_connect_json(gw: Gateway) -> None:
    async with _http(gw) as http:
        r = await http.post(SIGN_IN, json={"displayName": "Ayşe"}, headers={"connect-protocol-version": "1"})
        assert r.status_code == 200 and r.headers["content-type"] == "application/json", r.text
        assert r.json() == {"deviceId": "127.0.0.1", "token": "Ayşe"}
        body = lpb.SignInGuestRequest(display_name="Ali").SerializeToString()
        r = await http.post(SIGN_IN, content=body, headers={"content-type": "application/proto"})
        assert r.status_code == 200 and r.headers["content-type"] == "application/proto"
        assert lpb.SignInGuestResponse.FromString(r.content).token == "Ali"
        # an upstream refusal: Connect's code and HTTP status, the ErrorInfo in the details
        h = {"authorization": f"Bearer {issue_token('ali')}"}
        r = await http.post(ACT, json={"tableId": "t"}, headers=h)
        assert r.status_code == 400 and r.headers["content-type"] == "application/json", r.text
        err = r.json()
        assert err["code"] == "failed_precondition" and err["message"] == "not your turn: ç"
        assert _connect_reason(err) == "NOT_YOUR_TURN"
        assert err["details"][0]["debug"] == {"reason": "NOT_YOUR_TURN", "domain": "okey.v1", "metadata": {"seat": "2"}}
        # the gateway's own refusals have the same shape
        r = await http.post(ACT, json={}, headers={"authorization": "Bearer v1.bad.token"})
        assert r.status_code == 401 and r.json()["code"] == "unauthenticated"
        assert _connect_reason(r.json()) == "BAD_TOKEN"
        r = await http.post(ACT, content=b"{not json", headers={"content-type": "application/json"})
        assert r.status_code == 400 and _connect_reason(r.json()) == "MALFORMED_JSON"
        r = await http.post(ACT, content=b"\xff\xff\xff", headers={"content-type": "application/proto"})
        assert r.status_code == 400 and _connect_reason(r.json()) == "MALFORMED_MESSAGE"
        # unknown fields are skipped (a newer client's field), as in the binary form
        r = await http.post(SIGN_IN, json={"displayName": "x", "someNewField": 1})
        assert r.status_code == 200, r.text
        # the /api route stays, as an alias with its own shape
        r = await http.post(f"/api{SIGN_IN}", json={"displayName": "Can"})
        assert r.status_code == 200 and r.json()["token"] == "Can"


async def test_grpc_web_unary_in_proto_text_and_json_with_status_trailers(gw: Gateway) -> None:
    async with _http(gw) as http:
        body = _envelope(lpb.SignInGuestRequest(display_name="Ali").SerializeToString())
        r = await http.post(SIGN_IN, content=body, headers={"content-type": "application/grpc-web+proto"})
        assert r.status_code == 200 and r.headers["content-type"] == "application/grpc-web+proto"
        (f1, data), (f2, trailer) = _frames(r.content)
        assert (f1, f2) == (0, 0x80) and lpb.SignInGuestResponse.FromString(data).token == "Ali"
        assert _trailers(trailer)["grpc-status"] == "0"
        # -text: the same, in base64
        r = await http.post(
            SIGN_IN, content=base64.b64encode(body), headers={"content-type": "application/grpc-web-text"}
        )
        raw = b"".join(base64.b64decode(chunk + b"=" * (-len(chunk) % 4)) for chunk in _b64_chunks(r.content))
        frames = _frames(raw)
        assert lpb.SignInGuestResponse.FromString(frames[0][1]).token == "Ali"
        r = await http.post(
            SIGN_IN,
            content=_envelope(b'{"displayName": "Zeynep"}'),
            headers={"content-type": "application/grpc-web+json"},
        )
        assert json.loads(_frames(r.content)[0][1]) == {"deviceId": "127.0.0.1", "token": "Zeynep"}
        # a refusal: 200 and the status in a trailer frame with the ErrorInfo
        h = {"content-type": "application/grpc-web+proto", "authorization": f"Bearer {issue_token('ali')}"}
        r = await http.post(ACT, content=_envelope(b""), headers=h)
        assert r.status_code == 200
        [(flags, trailer)] = _frames(r.content)
        got = _trailers(trailer)
        assert flags == 0x80 and got["grpc-status"] == str(grpc.StatusCode.FAILED_PRECONDITION.value[0])
        assert got["grpc-message"] == "not your turn: %C3%A7"
        assert _info_of_details_bin(got["grpc-status-details-bin"]).reason == "NOT_YOUR_TURN"


def _b64_chunks(text: bytes) -> list[bytes]:
    """gRPC-Web-text answers are base64 chunks, each padded: split after each padding run."""
    chunks, cur = [], b""
    for i, c in enumerate(text):
        cur += bytes([c])
        if c == ord("=") and (i + 1 == len(text) or text[i + 1] != ord("=")):
            chunks.append(cur)
            cur = b""
    return [*chunks, cur] if cur else chunks


async def test_watch_streams_over_connect_and_grpc_web(gw: Gateway) -> None:
    token = issue_token("ali")
    req = tpb.WatchRequest(table_id="t1").SerializeToString()
    async with _http(gw) as http:
        h = {"content-type": "application/connect+proto", "authorization": f"Bearer {token}"}
        r = await http.post(WATCH, content=_envelope(req), headers=h)
        assert r.status_code == 200 and r.headers["content-type"] == "application/connect+proto"
        (f1, data), (f2, end) = _frames(r.content)
        assert tpb.WatchResponse.FromString(data).snapshot.table_id == "t1"
        assert (f1, f2) == (0, 2) and json.loads(end) == {}
        h["content-type"] = "application/connect+json"
        r = await http.post(WATCH, content=_envelope(b'{"tableId": "gone"}'), headers=h)
        (_, data), (f2, end) = _frames(r.content)
        assert json.loads(data) == {"snapshot": {"tableId": "gone"}}
        error = json.loads(end)["error"]
        assert f2 == 2 and error["code"] == "not_found" and _connect_reason(error) == "NO_SUCH_TABLE"
        h["content-type"] = "application/grpc-web+proto"
        r = await http.post(WATCH, content=_envelope(req), headers=h)
        (f1, data), (f2, trailer) = _frames(r.content)
        assert (f1, f2) == (0, 0x80) and tpb.WatchResponse.FromString(data).snapshot.table_id == "t1"
        assert _trailers(trailer)["grpc-status"] == "0"


async def test_protocol_errors_get_the_protocols_own_shape(gw: Gateway) -> None:
    async with _http(gw) as http:
        # a Content-Type Connect does not serve: 415, and the ones it does
        r = await http.post(SIGN_IN, content=b"name=x", headers={"content-type": "application/x-www-form-urlencoded"})
        assert r.status_code == 415 and "application/proto" in r.headers["accept-post"]
        assert r.json()["code"] == "invalid_argument" and _connect_reason(r.json()) == "UNSUPPORTED_MEDIA_TYPE"
        r = await http.post(WATCH, json={"tableId": "t"})  # a unary type on a stream
        assert r.status_code == 415
        # an unknown method: unimplemented (Connect: 501 and JSON; gRPC-Web: grpc-status 12)
        r = await http.post("/okey.v1.TableService/Nope", json={})
        assert r.status_code == 501 and r.json()["code"] == "unimplemented"
        assert _connect_reason(r.json()) == "UNKNOWN_METHOD"
        r = await http.post(
            "/okey.v1.NoService/Nope", content=_envelope(b""), headers={"content-type": "application/grpc-web+proto"}
        )
        assert r.status_code == 200 and _trailers(_frames(r.content)[0][1])["grpc-status"] == "12"
        r = await http.post("/okey.v1.ScoringService/ForgetPlayer", json={})  # service-only: not served
        assert r.status_code == 501
        # an oversized message: resource_exhausted (Connect 429; gRPC-Web grpc-status 8)
        big = lpb.SignInGuestRequest(display_name="x" * 100_000).SerializeToString()
        r = await http.post(SIGN_IN, content=big, headers={"content-type": "application/proto"})
        assert r.status_code == 429 and r.json()["code"] == "resource_exhausted"
        assert _connect_reason(r.json()) == "REQUEST_TOO_LARGE"
        r = await http.post(SIGN_IN, content=_envelope(big), headers={"content-type": "application/grpc-web+proto"})
        got = _trailers(_frames(r.content)[0][1])
        assert got["grpc-status"] == "8"
        assert _info_of_details_bin(got["grpc-status-details-bin"]).reason == "REQUEST_TOO_LARGE"

        async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted as it comes
            for _ in range(20):
                yield b"\x00" * 8192

        r = await http.post(WATCH, content=chunks(), headers={"content-type": "application/connect+proto"})
        assert r.status_code == 200
        assert json.loads(_frames(r.content)[0][1])["error"]["code"] == "resource_exhausted"
        # a bad envelope, a GET
        r = await http.post(WATCH, content=b"\x00\x00", headers={"content-type": "application/connect+proto"})
        assert _connect_reason(json.loads(_frames(r.content)[0][1])["error"]) == "MALFORMED_MESSAGE"
        r = await http.get(SIGN_IN)
        assert r.status_code == 405 and r.headers["allow"] == "POST" and r.json()["code"] == "invalid_argument"
        # the web client's files are still served beside these routes
        r = await http.get("/app.js")
        assert r.status_code == 200


def _sample(name: str, labels: dict[str, str]) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_the_metrics_count_connect_and_grpc_web_as_the_api_route(gw: Gateway) -> None:
    """Requests by route template (``/{service}/{method}``, a bounded label), refusals by reason,
    and an open stream among the gateway's connections until its client goes."""
    if not M.RECORDING:
        pytest.skip("metrics are off (OKEY_METRICS)")
    ok = {"method": "POST", "route": "/{service}/{method}", "status": "200"}
    bad = {**ok, "status": "401"}
    before = (_sample("http_requests_total", ok), _sample("http_requests_total", bad))
    refused = _sample("okey_gateway_refused_total", {"reason": "BAD_TOKEN"})
    streams = _sample("okey_gateway_connections", {"kind": "stream"})
    async with _http(gw) as http:
        await http.post(SIGN_IN, json={})
        await http.post(SIGN_IN, json={}, headers={"authorization": "Bearer v1.bad.token"})
        hold = _envelope(tpb.WatchRequest(table_id="hold").SerializeToString())
        h = {"content-type": "application/connect+proto", "authorization": f"Bearer {issue_token('ali')}"}
        async with http.stream("POST", WATCH, content=hold, headers=h) as held:
            async for _ in held.aiter_raw():
                break
            assert _sample("okey_gateway_connections", {"kind": "stream"}) == streams + 1
    for _ in range(100):
        if _sample("okey_gateway_connections", {"kind": "stream"}) == streams:
            break
        await asyncio.sleep(0.05)
    assert _sample("okey_gateway_connections", {"kind": "stream"}) == streams
    assert _sample("http_requests_total", ok) >= before[0] + 1
    assert _sample("http_requests_total", bad) == before[1] + 1
    assert _sample("okey_gateway_refused_total", {"reason": "BAD_TOKEN"}) == refused + 1


async def test_the_limits_hold_over_every_protocol(upstream: int) -> None:
    """One rate-limit bucket for /api, Connect and gRPC-Web; one stream cap for Connect and
    gRPC-Web Watch (and gRPC, WebSocket); a closed stream gives its place back."""
    gw = await start_gateway(
        upstream,
        OKEY_RATE_LIMIT="0.01",
        OKEY_RATE_BURST="6",
        OKEY_MAX_STREAMS_PER_PLAYER="1",
    )
    token = issue_token("ali")
    try:
        async with _http(gw) as http:
            h = {"authorization": f"Bearer {token}"}
            hold = _envelope(tpb.WatchRequest(table_id="hold").SerializeToString())
            grpc_web = {**h, "content-type": "application/grpc-web+proto"}
            async with http.stream("POST", WATCH, content=hold, headers={**grpc_web}) as held:
                first = b""
                async for part in held.aiter_raw():
                    first += part
                    if len(first) >= 5:
                        break
                # a second stream of the same player, over Connect: TOO_MANY_STREAMS
                r = await http.post(WATCH, content=hold, headers={**h, "content-type": "application/connect+proto"})
                error = json.loads(_frames(r.content)[0][1])["error"]
                assert error["code"] == "resource_exhausted" and _connect_reason(error) == "TOO_MANY_STREAMS"
            await asyncio.sleep(0.3)  # the held stream's place is given back when it closes
            r = await http.post(
                WATCH,
                content=_envelope(tpb.WatchRequest(table_id="t").SerializeToString()),
                headers={**h, "content-type": "application/connect+proto"},
            )
            assert [f for f, _ in _frames(r.content)] == [0, 2], r.content
            # 6 in the burst, 3 used by the streams above: then every protocol is refused alike
            r = await http.post(SIGN_IN, json={}, headers=h)
            assert r.status_code == 200
            r = await http.post(f"/api{SIGN_IN}", json={}, headers=h)
            assert r.status_code == 200
            r = await http.post(SIGN_IN, content=_envelope(b""), headers=grpc_web)
            assert _trailers(_frames(r.content)[-1][1])["grpc-status"] == "0"
            r = await http.post(SIGN_IN, json={}, headers=h)
            assert r.status_code == 429 and _connect_reason(r.json()) == "RATE_LIMITED"
            assert r.json()["details"][0]["debug"]["metadata"] == {"limit": "player"}
            r = await http.post(SIGN_IN, content=_envelope(b""), headers=grpc_web)
            got = _trailers(_frames(r.content)[0][1])
            assert got["grpc-status"] == "8" and "per player" in got["grpc-message"]
            r = await http.post(f"/api{SIGN_IN}", json={}, headers=h)
            assert r.status_code == 429
    finally:
        await gw.stop(grace_s=1.0)

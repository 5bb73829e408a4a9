"""The gateway's limits per player and per address [issue 15.8], and the caller's address it
passes upstream (``x-okey-client-addr``) for the lobby's per-address limits [issue 15.7]: the
real peer's, never one the client wrote. The upstreams here are fakes that echo what they got."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import httpx
import pytest
import websockets
from in_process import start_gateway, upstream_server
from okey.v1 import lobby_service_pb2 as lpb
from okey.v1 import lobby_service_pb2_grpc as lpb_grpc
from okey.v1 import scoring_service_pb2 as spb
from okey.v1 import scoring_service_pb2_grpc as spb_grpc
from okey.v1 import table_service_pb2 as tpb
from okey.v1 import table_service_pb2_grpc as tpb_grpc
from okeyplatform.auth import CLIENT_ADDRESS_KEY, Identity, issue_token
from okeyplatform.grpcserver import error_reason

from services.gateway.api import _forward_metadata
from services.gateway.app import Caller, RateLimiter, caller_from_token, client_address
from services.gateway.main import Gateway

# ------------------------------------------------------------------ the limiter


def _player(subject: str, address: str = "203.0.113.7") -> Caller:
    return Caller(Identity(subject, "player"), address)


def test_each_request_takes_from_the_players_bucket_and_the_addresses() -> None:
    lim = RateLimiter(rate=1, burst=4, address_rate=2, address_burst=6)
    a, b, c = _player("a"), _player("b"), _player("c")
    assert [lim.admit(a, now=0) for _ in range(5)] == [None] * 4 + ["player"]
    # b has its own player bucket, but the address has 2 of its 6 left
    assert [lim.admit(b, now=0) for _ in range(3)] == [None, None, "address"]
    assert lim.admit(c, now=0) == "address"  # a third token of the same address: no more either
    assert lim.admit(_player("d", "198.51.100.1"), now=0) is None  # another address is not touched
    # a second later the address has 2 more, the players 1 each
    assert lim.admit(a, now=1) is None and lim.admit(b, now=1) is None and lim.admit(c, now=1) == "address"


def test_a_refused_request_takes_nothing() -> None:
    lim = RateLimiter(rate=1, burst=2, address_rate=1, address_burst=3)
    flooder, quiet = _player("flooder"), _player("quiet")
    assert [lim.admit(flooder, now=0) for _ in range(10)] == [None, None] + ["player"] * 8
    assert lim.admit(quiet, now=0) is None  # the flooder's refused requests did not drain the address


def test_anonymous_callers_are_limited_per_address_at_the_players_rate() -> None:
    lim = RateLimiter(rate=1, burst=3)
    anon = caller_from_token(None, "ipv4:203.0.113.9:40000")
    again = caller_from_token(None, "ipv4:203.0.113.9:40001")  # a new connection is no new caller
    assert anon.key == again.key == "peer:203.0.113.9"
    assert [lim.admit(anon if i % 2 else again, now=0) for i in range(4)] == [None, None, None, "address"]
    assert lim.address_rate == 5 and lim.address_burst == 15  # five times the player's by default
    assert "per address" in lim.refusal("address") and "per player" in lim.refusal("player")


def test_the_limiter_forgets_idle_buckets_and_stays_bounded() -> None:
    lim = RateLimiter(rate=10, burst=10, max_keys=1000)
    for i in range(5000):  # one request each from 5000 players of 5000 addresses, 1 ms apart
        assert lim.admit(_player(f"p{i}", f"10.0.{i // 250}.{i % 250}"), now=i / 1000) is None
    # a bucket is full again 0.1 s after its last request (and dropped): about 100 are left
    assert len(lim.callers) <= 101 and len(lim.addresses) <= 1000
    burst = RateLimiter(rate=0.001, burst=10, max_keys=50)  # buckets that refill slowly: the cap holds
    for i in range(500):
        burst.admit(_player(f"q{i}", f"10.1.0.{i % 200}"), now=0)
    assert len(burst.callers) <= 50 and len(burst.addresses) <= 50
    assert burst.admit(_player("q499", "10.1.0.99"), now=0) is None  # the most recent stay
    assert lim.allow("id:x", now=0) and len(lim.callers) <= 1000


@pytest.mark.parametrize(
    "peer, address",
    [
        ("ipv4:203.0.113.5:51234", "203.0.113.5"),
        ("203.0.113.5", "203.0.113.5"),
        ("ipv6:[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"),
        ("ipv6:[::ffff:198.51.100.4]:80", "198.51.100.4"),
        ("ipv6:[fe80::1%25eth0]:80", "fe80::/64"),
        ("ipv6:[::1]:5000", "::/64"),
        ("", "unknown"),
        ("unix:/tmp/okey.sock", "unix:/tmp/okey.sock"),
        ("  ş x\x00", "x"),
    ],
)
def test_the_address_is_the_host_and_an_ipv6_subscribers_64(peer: str, address: str) -> None:
    assert client_address(peer) == address


def test_a_clients_own_address_header_is_not_forwarded() -> None:
    caller = caller_from_token(None, "ipv4:198.51.100.20:1234")
    md = [("authorization", "Bearer x"), (CLIENT_ADDRESS_KEY, "10.9.9.9"), ("x-request-id", "r1"), ("cookie", "c")]
    assert _forward_metadata(md, caller) == [
        ("authorization", "Bearer x"),
        ("x-request-id", "r1"),
        (CLIENT_ADDRESS_KEY, "198.51.100.20"),
    ]


# ------------------------------------------------------------------ through a gateway, with fake upstreams


def _address(context: Any) -> str:
    got = [v for k, v in context.invocation_metadata() or () if k == CLIENT_ADDRESS_KEY]
    return ",".join(got) if got else "-"


class _Lobby(lpb_grpc.LobbyServiceServicer):
    async def SignInGuest(self, request: lpb.SignInGuestRequest, context: Any) -> lpb.SignInGuestResponse:
        return lpb.SignInGuestResponse(device_id=_address(context))  # echoes the address it was given

    async def AuthorizeWatch(self, request: lpb.AuthorizeWatchRequest, context: Any) -> lpb.AuthorizeWatchResponse:
        return lpb.AuthorizeWatchResponse()  # a spectator may watch (tests/gateway/test_spectators_edge.py)


class _Table(tpb_grpc.TableServiceServicer):
    async def Watch(self, request: tpb.WatchRequest, context: Any) -> AsyncIterator[tpb.WatchResponse]:
        yield tpb.WatchResponse(snapshot=tpb.SeatView(table_id=_address(context)))


class _Scoring(spb_grpc.ScoringServiceServicer):
    async def GetLeaderboard(self, request: Any, context: Any) -> spb.GetLeaderboardResponse:
        return spb.GetLeaderboardResponse()


@pytest.fixture
async def upstream() -> AsyncIterator[int]:
    async with upstream_server(lobby=_Lobby(), table=_Table(), scoring=_Scoring()) as port:
        yield port


def _http(gw: Gateway, source: str = "127.0.0.1") -> httpx.AsyncClient:
    """An HTTP client whose connections come from ``source`` (any 127.x.y.z is this machine)."""
    return httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{gw.http_port}",
        transport=httpx.AsyncHTTPTransport(local_address=source),
        timeout=10,
    )


async def _ws_first(gw: Gateway, token: str, source: str, **headers: str) -> Any:
    url = f"ws://127.0.0.1:{gw.http_port}/ws/okey.v1.TableService/Watch?tableId=t&token={token}"
    async with websockets.connect(url, local_addr=(source, 0), additional_headers=headers) as ws:
        return json.loads(await ws.recv())


async def test_the_gateway_passes_the_real_peer_address_upstream_on_every_route(upstream: int) -> None:
    gw = await start_gateway(upstream)
    try:
        spoof = {CLIENT_ADDRESS_KEY: "10.66.66.66", "x-forwarded-for": "10.77.77.77"}
        async with _http(gw, "127.0.0.42") as http:
            r = await http.post("/api/okey.v1.LobbyService/SignInGuest", json={}, headers=spoof)
            assert r.status_code == 200 and r.json()["deviceId"] == "127.0.0.42", r.text
        first = await _ws_first(gw, issue_token("ws-player"), "127.0.0.43", **spoof)
        assert first["snapshot"]["tableId"] == "127.0.0.43", first
        async with grpc.aio.insecure_channel(f"127.0.0.1:{gw.grpc_port}") as ch:
            resp = await lpb_grpc.LobbyServiceStub(ch).SignInGuest(
                lpb.SignInGuestRequest(), metadata=tuple(spoof.items())
            )
            assert resp.device_id == "127.0.0.1"  # one value: the client's own is dropped
    finally:
        await gw.stop(grace_s=1.0)
    # behind a trusted proxy, the forwarded client is the address (an IPv6 one as its /64)
    gw = await start_gateway(upstream, OKEY_TRUSTED_PROXIES="127.0.0.1")
    try:
        async with _http(gw) as http:
            for forwarded, want in (("198.51.100.8", "198.51.100.8"), ("2001:db8:5:6::99", "2001:db8:5:6::/64")):
                r = await http.post(
                    "/api/okey.v1.LobbyService/SignInGuest", json={}, headers={"x-forwarded-for": forwarded}
                )
                assert r.json()["deviceId"] == want, r.text
    finally:
        await gw.stop(grace_s=1.0)


async def test_three_tokens_of_one_address_share_its_bucket_on_grpc_http_and_websocket(upstream: int) -> None:
    """Per player 1/s with bursts of 10, per address 0.5/s with bursts of 12: three players
    calling 10 times each (gRPC, HTTP) get about 12 through between them, not 30; then the
    address's WebSocket watch is refused too (4429), while another address is served."""
    gw = await start_gateway(
        upstream,
        OKEY_RATE_LIMIT="1",
        OKEY_RATE_BURST="10",
        OKEY_RATE_LIMIT_PER_ADDRESS="0.5",
        OKEY_RATE_BURST_PER_ADDRESS="12",
    )
    tokens = [issue_token(f"player-{i}") for i in range(3)]
    try:
        ok = 0
        refused: list[str] = []
        async with grpc.aio.insecure_channel(f"127.0.0.1:{gw.grpc_port}") as ch, _http(gw, "127.0.0.1") as http:
            stub = spb_grpc.ScoringServiceStub(ch)
            for i in range(30):
                token = tokens[i % 3]
                if i % 2:
                    r = await http.post(
                        "/api/okey.v1.ScoringService/GetLeaderboard",
                        json={},
                        headers={"authorization": f"Bearer {token}"},
                    )
                    if r.status_code == 200:
                        ok += 1
                    else:
                        assert r.status_code == 429 and r.json()["reason"] == "RATE_LIMITED", r.text
                        refused.append(r.json()["message"])
                else:
                    try:
                        await stub.GetLeaderboard(
                            spb.GetLeaderboardRequest(), metadata=(("authorization", f"Bearer {token}"),)
                        )
                        ok += 1
                    except grpc.aio.AioRpcError as err:
                        assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                        assert error_reason(err) == "RATE_LIMITED"
                        refused.append(err.details() or "")
        assert 12 <= ok <= 14, ok  # the burst, and what 0.5/s refilled meanwhile
        assert refused and all("per address" in m for m in refused), refused
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await _ws_first(gw, issue_token("player-4"), "127.0.0.1")
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
        assert "per address" in closed.value.rcvd.reason
        first = await _ws_first(gw, tokens[0], "127.0.0.77")  # the same player from another address
        assert first["snapshot"]["tableId"] == "127.0.0.77"
    finally:
        await gw.stop(grace_s=1.0)

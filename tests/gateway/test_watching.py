"""Issue 44.5, watching, through the public gateway in front of the real lobby and table service
(processes on a NATS of their own, PostgreSQL): a spectator's WebSocket shows the spectator view
(no seat's tiles); ``GET /api/presence?tables=`` counts a table's spectators as they come and go,
over two gateway replicas; the (cap+1)-th distinct spectator is refused with SPECTATORS_FULL; a
private table refuses a stranger (INVITE_REQUIRED) and lets a friend of a seated player watch; a
player in a block with a seated one is refused (BLOCKED), and neither can poll the table with
GetView or GetEvents instead; another player's table is no longer in
``/api/presence``; and notifications arrive live through the WebSocket and Connect, the stream
counting as the player being ONLINE."""

from __future__ import annotations

import asyncio
import contextlib
import json
import struct
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest
import websockets
from names import unique_name
from okeytools.stack import Stack

LOBBY = "/api/okey.v1.LobbyService/"
SPECTATORS_MAX = 2  # the lobby's cap asked for this module (OKEY_MAX_SPECTATORS_PER_TABLE)
ENV = {
    "OKEY_RATE_LIMIT": "1000",
    "OKEY_RATE_BURST": "1000",
    "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",  # every guest signs in from 127.0.0.1
    "OKEY_DAILY_GRANTS_PER_ADDRESS": "0",
    "OKEY_MAX_STREAMS_PER_ADDRESS": "0",  # every spectator watches from 127.0.0.1
    "OKEY_MAX_SPECTATORS_PER_TABLE": str(SPECTATORS_MAX),
}


@pytest.fixture(scope="module")
def stack(make_module_stack: Callable[..., Stack]) -> Stack:
    return make_module_stack(("table", "lobby", "bots", "gateway"), env=ENV, label="watching", private_nats=True)


@pytest.fixture(scope="module")
def replica_b(make_module_stack: Callable[..., Stack], stack: Stack) -> Stack:
    """A second gateway replica on the same NATS, in front of the same lobby and table service."""
    env = {**ENV, "OKEY_TABLE_ADDR": stack.address("table"), "OKEY_LOBBY_ADDR": stack.address("lobby")}
    return make_module_stack(
        ("gateway",), env=env, database_url=stack.database_url, nats_url=stack.nats_url, label="watching-b"
    )


# ------------------------------------------------------------------ players


async def _post(http: httpx.AsyncClient, path: str, body: dict[str, Any], token: str = "") -> dict[str, Any]:
    r = await http.post(path, json=body, headers={"authorization": f"Bearer {token}"} if token else {})
    assert r.status_code == 200, (path, body, r.status_code, r.text)
    out: dict[str, Any] = r.json()
    return out


class Guest:
    """A guest signed in through the gateway's HTTP API."""

    def __init__(self, http: httpx.AsyncClient, token: str, player_id: str) -> None:
        self.http = http
        self.token = token
        self.player_id = player_id

    @classmethod
    async def sign_in(cls, http: httpx.AsyncClient, name: str) -> Guest:
        got = await _post(http, LOBBY + "SignInGuest", {"displayName": unique_name(name)})
        return cls(http, str(got["token"]), str(got["player"]["playerId"]))

    async def call(self, method: str, body: dict[str, Any]) -> dict[str, Any]:
        return await _post(self.http, LOBBY + method, body, self.token)

    async def open_table(self, private: bool = False) -> tuple[str, int]:
        """A table with three bots, started at once (long turns: nobody times out meanwhile)."""
        options = {"game": "GAME_OKEY", "turnSeconds": 120}
        visibility = "TABLE_VISIBILITY_PRIVATE" if private else "TABLE_VISIBILITY_PUBLIC"
        got = await self.call("OpenTable", {"options": options, "fillWithBots": True, "visibility": visibility})
        return str(got["table"]["tableId"]), int(got.get("seat", 0))

    async def presence(self, **params: str) -> dict[str, Any]:
        r = await self.http.get("/api/presence", params=params, headers={"authorization": f"Bearer {self.token}"})
        assert r.status_code == 200, r.text
        got: dict[str, Any] = r.json()
        return got


async def _guests(http: httpx.AsyncClient, *names: str) -> list[Guest]:
    return list(await asyncio.gather(*(Guest.sign_in(http, n) for n in names)))


def _http(address: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=f"http://{address}", timeout=15)


# ------------------------------------------------------------------ watches


def _watch_url(address: str, guest: Guest, table_id: str, seat: int | None = None) -> str:
    where = f"&seat={seat}" if seat is not None else ""
    return f"ws://{address}/ws/okey.v1.TableService/Watch?tableId={table_id}{where}&token={guest.token}"


@contextlib.asynccontextmanager
async def _watching(
    address: str, guest: Guest, table_id: str, seat: int | None = None
) -> AsyncIterator[tuple[Any, dict[str, Any]]]:
    """A watch over the WebSocket held open: the socket and its first message (the snapshot)."""
    async with websockets.connect(_watch_url(address, guest, table_id, seat)) as ws:
        first = json.loads(await asyncio.wait_for(ws.recv(), 15))
        assert "snapshot" in first, first
        yield ws, first


async def _refused(address: str, guest: Guest, table_id: str) -> tuple[str, str, int]:
    """A spectator's watch refused: the error's code and reason, and the close code."""
    async with websockets.connect(_watch_url(address, guest, table_id)) as ws:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 15))
        assert "error" in msg, msg
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 15)
    code = closed.value.rcvd.code if closed.value.rcvd is not None else 0
    return msg["error"]["code"], msg["error"]["reason"], code


async def _until(what: str, check: Callable[[], Awaitable[bool]], within_s: float = 10.0) -> float:
    t0 = time.monotonic()
    while not await check():
        if time.monotonic() - t0 > within_s:
            raise AssertionError(f"not within {within_s} s: {what}")
        await asyncio.sleep(0.1)
    return time.monotonic() - t0


async def _spectators(guest: Guest, table_id: str) -> int:
    ((got,),) = [(await guest.presence(tables=table_id))["tables"]]
    assert got["tableId"] == table_id
    return int(got["spectators"])


def _tiles_in(message: dict[str, Any]) -> list[str]:
    """Where a message shows tiles of a seat: a rack, a side tile held or on offer (the paths)."""
    found: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k in ("rack", "sideTile", "heldSideTile") and v:
                    found.append(f"{path}.{k}")
                walk(v, f"{path}.{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}[{i}]")

    walk(message, "")
    return found


# ------------------------------------------------------------------ the spectator view and the count


async def test_a_spectator_sees_no_seats_tiles_and_the_count_follows_spectators_coming_and_going(
    stack: Stack,
) -> None:
    async with _http(stack.http_address) as http:
        host, one, two = await _guests(http, "Ev Sahibi", "Seyirci Bir", "Seyirci Iki")
        table_id, seat = await host.open_table()
        async with _watching(stack.http_address, host, table_id, seat) as (_, mine):
            assert mine["snapshot"]["rack"], "the seated player's own view has their rack"
            assert await _spectators(host, table_id) == 0  # a seat's watch is not a spectator's
            async with _watching(stack.http_address, one, table_id) as (ws, first):
                view = first["snapshot"]
                assert "seat" not in view and len(view["seats"]) == 4, view
                assert _tiles_in(first) == [], first  # no seat's rack, not even the players' own
                assert await _spectators(host, table_id) == 1
                async with _watching(stack.http_address, two, table_id) as (_, also):
                    assert _tiles_in(also) == []
                    assert await _spectators(host, table_id) == 2
                    # whatever the bots play meanwhile, the spectators are sent no tiles of a seat
                    with contextlib.suppress(TimeoutError):
                        while True:
                            msg = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
                            assert _tiles_in(msg) == [], msg

                async def one_left() -> bool:
                    return await _spectators(host, table_id) == 1

                await _until("the count down to 1 once a spectator left", one_left)

            async def none_left() -> bool:
                return await _spectators(host, table_id) == 0

            await _until("the count down to 0 once the last spectator left", none_left)


async def test_the_next_distinct_spectator_past_the_cap_is_refused_with_SPECTATORS_FULL(stack: Stack) -> None:
    async with _http(stack.http_address) as http:
        (host,) = await _guests(http, "Ev Sahibi")
        table_id, _ = await host.open_table()
        # The cap is the lobby's (its answer to AuthorizeWatch): SPECTATORS_MAX where the lobby
        # reads it from the environment, else its default.
        cap = int((await host.call("AuthorizeWatch", {"tableId": table_id}))["spectatorsMax"])
        assert 0 < cap <= 60, cap
        names = [f"Seyirci {chr(97 + i % 26)}{chr(97 + i // 26)}" for i in range(cap + 1)]  # at most 4 digits
        *admitted, late = await _guests(http, *names)
        async with contextlib.AsyncExitStack() as held:
            for guest in admitted:
                await held.enter_async_context(_watching(stack.http_address, guest, table_id))
            assert await _spectators(host, table_id) == cap
            assert await _refused(stack.http_address, late, table_id) == (
                "RESOURCE_EXHAUSTED",
                "SPECTATORS_FULL",
                4429,
            )
            # one already watching opens a second watch (another tab): not one more
            async with _watching(stack.http_address, admitted[0], table_id):
                assert await _spectators(host, table_id) == cap
        # they left: there is room again

        async def room() -> bool:
            return await _spectators(host, table_id) == 0

        await _until("the spectators gone", room)
        async with _watching(stack.http_address, late, table_id):
            assert await _spectators(host, table_id) == 1


# ------------------------------------------------------------------ the lobby's word


async def test_a_private_table_refuses_a_stranger_and_lets_a_friend_of_a_seated_player_watch(stack: Stack) -> None:
    async with _http(stack.http_address) as http:
        host, stranger, friend = await _guests(http, "Ev Sahibi", "Yabanci", "Arkadas")
        table_id, _ = await host.open_table(private=True)
        assert await _refused(stack.http_address, stranger, table_id) == (
            "PERMISSION_DENIED",
            "INVITE_REQUIRED",
            4403,
        )
        await friend.call("SendFriendRequest", {"playerId": host.player_id})
        await host.call("AcceptFriendRequest", {"playerId": friend.player_id})
        async with _watching(stack.http_address, friend, table_id) as (_, first):
            assert _tiles_in(first) == []
            assert await _spectators(host, table_id) == 1

        async def nobody() -> bool:  # the friend gone, and the refused watch never counted
            return await _spectators(stranger, table_id) == 0

        await _until("the count back to 0 once the friend left", nobody)


async def test_a_player_in_a_block_with_a_seated_one_is_refused(stack: Stack) -> None:
    async with _http(stack.http_address) as http:
        host, blocked = await _guests(http, "Ev Sahibi", "Engelli")
        table_id, _ = await host.open_table()
        await host.call("BlockPlayer", {"playerId": blocked.player_id})
        got = await _refused(stack.http_address, blocked, table_id)
        assert got[1] == "BLOCKED" and got[0] == "FAILED_PRECONDITION", got


async def _read_refused(guest: Guest, method: str, body: dict[str, Any]) -> tuple[int, str, str]:
    """A TableService read over /api JSON, refused: the HTTP status, the code and the reason."""
    r = await guest.http.post(
        f"/api/okey.v1.TableService/{method}", json=body, headers={"authorization": f"Bearer {guest.token}"}
    )
    assert r.status_code != 200, (method, body, r.text)
    return r.status_code, r.json()["code"], r.json()["reason"]


async def test_a_refused_spectator_cannot_poll_the_table_with_get_view_or_get_events_instead(stack: Stack) -> None:
    """GetView and GetEvents with no seat are a spectator's view too: the same lobby question as a
    watch (the hole: the watch alone was asked about)."""
    async with _http(stack.http_address) as http:
        host, blocked, stranger, other = await _guests(http, "Ev Sahibi", "Engelli", "Yabanci", "Izleyici")
        table_id, seat = await host.open_table()
        private_id, _ = await host.open_table(private=True)
        await host.call("BlockPlayer", {"playerId": blocked.player_id})
        for method in ("GetView", "GetEvents"):
            got = await _read_refused(blocked, method, {"tableId": table_id})
            assert got == (409, "FAILED_PRECONDITION", "BLOCKED"), (method, got)
            got = await _read_refused(stranger, method, {"tableId": private_id})
            assert got == (403, "PERMISSION_DENIED", "INVITE_REQUIRED"), (method, got)
        # a seat's read is the table's to allow; a player with no block reads the public table
        table = "/api/okey.v1.TableService/"
        mine = await _post(http, table + "GetView", {"tableId": table_id, "seat": seat}, host.token)
        assert mine["view"]["rack"]
        view = await _post(http, table + "GetView", {"tableId": table_id}, other.token)
        assert _tiles_in(view) == [] and len(view["view"]["seats"]) == 4, view
        events = await _post(http, table + "GetEvents", {"tableId": table_id, "limit": 5}, other.token)
        assert events["events"] and _tiles_in(events) == [], events
        # the blocked player reading someone else's seat is the table's refusal, not a way round
        got = await _read_refused(blocked, "GetView", {"tableId": table_id, "seat": seat})
        assert got[1] == "PERMISSION_DENIED", got


# ------------------------------------------------------------------ two replicas


async def test_spectators_are_counted_across_two_gateway_replicas(stack: Stack, replica_b: Stack) -> None:
    async with _http(stack.http_address) as http_a, _http(replica_b.http_address) as http_b:
        host, on_a = await _guests(http_a, "Ev Sahibi", "Seyirci A")
        (on_b,) = await _guests(http_b, "Seyirci B")
        table_id, _ = await host.open_table()
        async with (
            _watching(stack.http_address, on_a, table_id),
            _watching(replica_b.http_address, on_b, table_id),
        ):

            async def both_everywhere() -> bool:
                return await _spectators(on_a, table_id) == 2 and await _spectators(on_b, table_id) == 2

            took = await _until("two spectators on both replicas' boards", both_everywhere)
            print(f"both spectators on both boards within {took:.2f} s")

        async def none_anywhere() -> bool:
            return await _spectators(on_a, table_id) == 0 and await _spectators(on_b, table_id) == 0

        await _until("no spectator left on either board", none_anywhere)


# ------------------------------------------------------------------ presence privacy


async def test_presence_shows_a_players_table_to_them_alone(stack: Stack) -> None:
    async with _http(stack.http_address) as http:
        host, other = await _guests(http, "Ev Sahibi", "Baska Biri")
        table_id, seat = await host.open_table()
        async with _watching(stack.http_address, host, table_id, seat):

            async def at_table() -> bool:
                got = (await host.presence(players=host.player_id))["players"]
                return bool(got == [{"playerId": host.player_id, "state": "AT_TABLE", "tableId": table_id}])

            await _until("the host AT_TABLE at their table, as they see it", at_table)
            got = (await other.presence(players=host.player_id))["players"]
            assert got == [{"playerId": host.player_id, "state": "AT_TABLE", "tableId": ""}]


# ------------------------------------------------------------------ notifications


def _envelope(payload: bytes) -> bytes:
    return struct.pack(">BI", 0, len(payload)) + payload


async def _frames(chunks: AsyncIterator[bytes]) -> AsyncIterator[dict[str, Any]]:
    """The JSON messages of a Connect stream's envelopes (flag 0), as they complete."""
    body = b""
    async for chunk in chunks:
        body += chunk
        while len(body) >= 5 and len(body) >= 5 + struct.unpack(">BI", body[:5])[1]:
            flags, size = struct.unpack(">BI", body[:5])
            assert flags == 0, body
            yield json.loads(body[5 : 5 + size])
            body = body[5 + size :]


async def test_notifications_arrive_live_through_the_websocket_and_connect(stack: Stack) -> None:
    async with _http(stack.http_address) as http:
        asker, by_ws, by_connect = await _guests(http, "Soran", "Web Soketli", "Connectli")
        url = f"ws://{stack.http_address}/ws/okey.v1.LobbyService/WatchNotifications?token={by_ws.token}"
        async with websockets.connect(url) as ws:
            opening = json.loads(await asyncio.wait_for(ws.recv(), 10))  # the stream is open upstream
            assert "notification" not in opening and opening.get("unread", 0) == 0, opening
            assert (await asker.presence(players=by_ws.player_id))["players"][0]["state"] == "ONLINE"
            await asker.call("SendFriendRequest", {"playerId": by_ws.player_id})
            got = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert got["notification"]["kind"] == "NOTIFICATION_KIND_FRIEND_REQUEST", got
            assert got["notification"]["fromPlayerId"] == asker.player_id and got["unread"] >= 1
        headers = {"content-type": "application/connect+json", "authorization": f"Bearer {by_connect.token}"}
        path = "/okey.v1.LobbyService/WatchNotifications"
        async with http.stream("POST", path, content=_envelope(b"{}"), headers=headers) as held:
            assert held.status_code == 200
            frames = _frames(held.aiter_raw())
            opening = await asyncio.wait_for(anext(frames), 10)  # the unread count alone: the stream is open
            assert "notification" not in opening, opening
            await asker.call("SendFriendRequest", {"playerId": by_connect.player_id})
            got = await asyncio.wait_for(anext(frames), 10)
            assert got["notification"]["kind"] == "NOTIFICATION_KIND_FRIEND_REQUEST", got
            assert got["notification"]["fromPlayerId"] == asker.player_id

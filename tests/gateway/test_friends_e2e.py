"""Friends, invitations, watching and blocking through the public gateway (issue 44), as processes
(table, lobby, bots, gateway on a NATS of their own), each person a guest over the gateway's HTTP
API and WebSockets:

- Ayla finds Berk by name and asks; Berk's notification stream gets the request live, he accepts,
  and Ayla's gets the acceptance. With their streams open, each sees the other online.
- Ayla opens a private table and invites Berk; the invitation (with the table's invite code) comes
  on his stream and he sits at the table from it. His friends list shows Ayla's table.
- Cem, Ayla's friend, watches the table once it plays: the spectator view, no rack anywhere, and the
  table's spectator count is 1; Deniz, nobody's friend, may not watch the private table.
- Berk blocks Deniz: Deniz can ask for none of it (a friend request, an invitation, a seat at
  Berk's table by JoinTable, JoinFriend or quick play, watching it), does not find him by name,
  and neither sees the other's chat."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import websockets
from names import unique_name
from okeytools.stack import Stack

LOBBY = "/api/okey.v1.LobbyService/"
LIVE_WITHIN_S = 5.0  # a notification on an open stream: the lobby's publish and the edge's way


@pytest.fixture(scope="module")
def stack(make_module_stack: Callable[..., Stack]) -> Stack:
    env = {
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",  # every guest signs in from 127.0.0.1
        "OKEY_DAILY_GRANTS_PER_ADDRESS": "0",
    }
    return make_module_stack(("table", "lobby", "bots", "gateway"), env=env, label="friends", private_nats=True)


class Refused(Exception):
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(f"{status} {body}")
        self.status = status
        self.reason = str(body.get("reason", ""))


class Person:
    """A guest signed in through the gateway's HTTP API, with a name others can find."""

    def __init__(self, http: httpx.AsyncClient, token: str, player_id: str, name: str) -> None:
        self.http, self.token, self.player_id, self.name = http, token, player_id, name

    @classmethod
    async def sign_in(cls, http: httpx.AsyncClient, name: str) -> Person:
        unique = unique_name(name)
        r = await http.post(LOBBY + "SignInGuest", json={"displayName": unique})
        assert r.status_code == 200, r.text
        got = r.json()
        return cls(http, str(got["token"]), str(got["player"]["playerId"]), unique)

    async def call(self, method: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        r = await self.http.post(LOBBY + method, json=body or {}, headers={"authorization": f"Bearer {self.token}"})
        if r.status_code != 200:
            raise Refused(r.status_code, r.json())
        out: dict[str, Any] = r.json()
        return out

    async def refused(self, method: str, body: dict[str, Any]) -> str:
        """The reason ``method`` is refused for (it must be)."""
        with pytest.raises(Refused) as err:
            await self.call(method, body)
        return err.value.reason

    async def presence(self, *, players: list[str] = (), tables: list[str] = ()) -> dict[str, Any]:  # type: ignore[assignment]
        params = {k: ",".join(v) for k, v in (("players", players), ("tables", tables)) if v}
        r = await self.http.get("/api/presence", params=params, headers={"authorization": f"Bearer {self.token}"})
        assert r.status_code == 200, r.text
        out: dict[str, Any] = r.json()
        return out

    async def state_of(self, other: Person) -> str:
        got = await self.presence(players=[other.player_id])
        (entry,) = got["players"]
        return str(entry.get("state", "OFFLINE"))


class Stream:
    """A WebSocket of the gateway's, every message (parsed) kept by a task of its own."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, address: str, path: str, token: str, **params: Any) -> Stream:
        query = "&".join(f"{k}={v}" for k, v in {**params, "token": token}.items())
        return cls(await websockets.connect(f"ws://{address}/ws/{path}?{query}"))

    async def _read(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for raw in self.ws:
                self.messages.append(json.loads(raw))

    async def close(self) -> None:
        await self.ws.close()
        await self.reader

    def notifications(self, kind: str) -> list[dict[str, Any]]:
        return [
            m["notification"]
            for m in self.messages
            if m.get("notification", {}).get("kind") == f"NOTIFICATION_KIND_{kind}"
        ]


async def _until(what: str, check: Callable[[], Any], within_s: float) -> float:
    t0 = time.monotonic()
    while not check():
        if time.monotonic() - t0 > within_s:
            raise AssertionError(f"not within {within_s} s: {what}")
        await asyncio.sleep(0.05)
    return time.monotonic() - t0


async def _eventually(what: str, check: Callable[[], Any], within_s: float) -> None:
    """``check`` is a coroutine function: polled until it returns true."""
    t0 = time.monotonic()
    while not await check():
        if time.monotonic() - t0 > within_s:
            raise AssertionError(f"not within {within_s} s: {what}")
        await asyncio.sleep(0.2)


def _notifications(address: str, person: Person) -> Any:
    return Stream.open(address, "okey.v1.LobbyService/WatchNotifications", person.token)


def _spectate(address: str, person: Person, table_id: str) -> Any:
    return Stream.open(address, "okey.v1.TableService/Watch", person.token, table_id=table_id)


async def _befriend(address: str, a: Person, b: Person) -> None:
    await a.call("SendFriendRequest", {"playerId": b.player_id})
    await b.call("AcceptFriendRequest", {"playerId": a.player_id})


async def test_friends_meet_invite_join_and_a_friend_watches_without_seeing_a_rack(stack: Stack) -> None:
    address = stack.http_address
    async with httpx.AsyncClient(base_url=f"http://{address}", timeout=10) as http:
        ayla, berk, cem, deniz = [await Person.sign_in(http, n) for n in ("Ayla", "Berk", "Cem", "Deniz")]
        ayla_in, berk_in = await _notifications(address, ayla), await _notifications(address, berk)
        streams = [ayla_in, berk_in]
        try:
            # ---- Ayla finds Berk by name and asks; he gets it live, accepts; she gets that live
            found = (await ayla.call("FindPlayers", {"prefix": berk.name[:8]}))["players"]
            assert [p["playerId"] for p in found] == [berk.player_id], found
            assert (await ayla.call("SendFriendRequest", {"playerId": berk.player_id})).get("accepted") is not True
            took = await _until("Berk's stream gets the request", lambda: berk_in.notifications("FRIEND_REQUEST"), 5)
            print(f"a friend request reached the other's stream in {took:.2f} s")
            (request,) = berk_in.notifications("FRIEND_REQUEST")
            assert request["fromPlayerId"] == ayla.player_id and request["fromDisplayName"] == ayla.name, request
            assert (await berk.call("ListFriends"))["incoming"][0]["playerId"] == ayla.player_id
            await berk.call("AcceptFriendRequest", {"playerId": ayla.player_id})
            await _until("Ayla's stream gets the acceptance", lambda: ayla_in.notifications("FRIEND_ACCEPTED"), 5)
            assert [f["playerId"] for f in (await ayla.call("ListFriends"))["friends"]] == [berk.player_id]

            # ---- with their notification streams open, each sees the other online
            assert await ayla.state_of(berk) == "ONLINE"
            assert await berk.state_of(ayla) == "ONLINE"

            # ---- Ayla invites Berk to her private table; he sits at it from the invitation
            opened = await ayla.call(
                "OpenTable", {"options": {"game": "GAME_OKEY"}, "visibility": "TABLE_VISIBILITY_PRIVATE"}
            )
            table_id = opened["table"]["tableId"]
            await ayla.call("InviteToTable", {"playerId": berk.player_id, "tableId": table_id})
            await _until("Berk's stream gets the invitation", lambda: berk_in.notifications("TABLE_INVITE"), 5)
            (invite,) = berk_in.notifications("TABLE_INVITE")
            assert invite["table"]["tableId"] == table_id and invite["table"]["inviteCode"], invite
            assert not invite.get("expired"), invite
            joined = await berk.call(
                "JoinTable", {"tableId": invite["table"]["tableId"], "inviteCode": invite["table"]["inviteCode"]}
            )
            assert berk.player_id in [s.get("playerId") for s in joined["table"]["seats"]], joined
            (friend,) = (await berk.call("ListFriends"))["friends"]
            assert friend["table"]["tableId"] == table_id and not friend["table"].get("inviteCode"), friend

            # ---- the match starts: the invitation has expired; Cem, Ayla's friend, watches it
            await ayla.call("FillWithBots", {"tableId": table_id})
            listed = (await berk.call("ListNotifications"))["notifications"]
            assert [n.get("expired") for n in listed if n["kind"] == "NOTIFICATION_KIND_TABLE_INVITE"] == [True]
            await _befriend(address, cem, ayla)
            watch = await _spectate(address, cem, table_id)
            streams.append(watch)
            await _until("the spectator's snapshot", lambda: watch.messages, 10)
            snapshot = watch.messages[0]["snapshot"]
            assert "seat" not in snapshot and not snapshot.get("rack"), snapshot  # no seat, no rack
            assert '"rack"' not in json.dumps(watch.messages)  # no seat's tiles, in any message
            assert all(isinstance(s.get("tiles", 0), int) for s in snapshot["seats"]), snapshot["seats"]  # counts only

            async def counted_one() -> bool:
                got = await ayla.presence(tables=[table_id])
                return bool(got["tables"] == [{"tableId": table_id, "spectators": 1}])

            await _eventually("the table counts one spectator", counted_one, 5)

            # ---- Deniz, nobody's friend, may not watch the private table
            stranger = await _spectate(address, deniz, table_id)
            streams.append(stranger)
            await _until("the stranger's watch is refused", lambda: stranger.messages, 5)
            assert stranger.messages[0].get("error", {}).get("reason") == "INVITE_REQUIRED", stranger.messages
        finally:
            for s in streams:
                await s.close()


async def test_a_blocked_player_can_do_none_of_it(stack: Stack) -> None:
    address = stack.http_address
    async with httpx.AsyncClient(base_url=f"http://{address}", timeout=10) as http:
        berk, deniz = await Person.sign_in(http, "Berk"), await Person.sign_in(http, "Deniz")
        berk_in = await _notifications(address, berk)
        streams = [berk_in]
        try:
            await berk.call("BlockPlayer", {"playerId": deniz.player_id})
            # Berk waits at a public table; Deniz opens one of his own, to invite from.
            berks = (await berk.call("OpenTable", {"options": {"game": "GAME_OKEY"}}))["table"]["tableId"]
            denizs = (await deniz.call("OpenTable", {"options": {"game": "GAME_OKEY"}}))["table"]["tableId"]

            assert await deniz.refused("SendFriendRequest", {"playerId": berk.player_id}) == "BLOCKED"
            assert await berk.refused("SendFriendRequest", {"playerId": deniz.player_id}) == "BLOCKED"
            invite = {"playerId": berk.player_id, "tableId": denizs}
            assert await deniz.refused("InviteToTable", invite) in ("BLOCKED", "NOT_FRIENDS")
            assert await deniz.refused("JoinTable", {"tableId": berks}) == "BLOCKED"
            assert await deniz.refused("JoinFriend", {"playerId": berk.player_id}) in ("BLOCKED", "NOT_FRIENDS")
            # Quick play with the options of Berk's waiting table never seats Deniz beside him.
            await deniz.call("LeaveTable", {"tableId": denizs})
            quick = await deniz.call("QuickPlay", {"options": {"game": "GAME_OKEY"}})
            assert quick["table"]["tableId"] != berks, quick
            await deniz.call("LeaveTable", {"tableId": quick["table"]["tableId"]})
            found = (await deniz.call("FindPlayers", {"prefix": berk.name[:8]})).get("players", [])
            assert berk.player_id not in [p["playerId"] for p in found], found

            watch = await _spectate(address, deniz, berks)
            streams.append(watch)
            await _until("the blocked player's watch is refused", lambda: watch.messages, 5)
            assert watch.messages[0].get("error", {}).get("reason") == "BLOCKED", watch.messages

            # Neither sees the other's chat (the lobby's room is shared by both).
            # Fixed words: random letters and digits can read as a listed word (leetspeak), and
            # the chat would refuse them (82 of the 65,536 four-digit hex strings after "selam").
            await deniz.call("SendMessage", {"text": "merhaba"})
            await berk.call("SendMessage", {"text": "selam"})
            seen_by_berk = (await berk.call("ListMessages", {"limit": 200}))["messages"]
            seen_by_deniz = (await deniz.call("ListMessages", {"limit": 200}))["messages"]
            assert deniz.player_id not in [m.get("playerId") for m in seen_by_berk]
            assert berk.player_id not in [m.get("playerId") for m in seen_by_deniz]
            assert deniz.player_id in [m.get("playerId") for m in seen_by_deniz]  # his own is there

            # Nothing of Deniz's reached Berk's notifications.
            await asyncio.sleep(0.5)
            assert not [m for m in berk_in.messages if m.get("notification", {}).get("fromPlayerId") == deniz.player_id]
            assert not (await berk.call("ListNotifications")).get("notifications")
        finally:
            for s in streams:
                await s.close()

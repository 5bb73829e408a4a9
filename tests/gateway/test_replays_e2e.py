"""Replays of finished hands through the public gateway [D-12] (issue 46), as processes (table,
lobby, bots, gateway): guests sign in over the gateway's HTTP API and open tables with three bots
through the lobby (the bots at the tests' instant pace, one hand's points end the match).

A public table: while hand 1 is played its player is refused FAILED_PRECONDITION HAND_NOT_ENDED
and a stranger PERMISSION_DENIED REPLAY_NOT_ALLOWED, and neither refusal holds a tile; a
spectator's GetEvents then shows no dealt rack. Once the match is over the player gets the
replay (the racks as dealt, the hand's events with nothing hidden, the fairness proof checked,
the coaching notes) and so does the stranger, over the HTTP route and the gRPC proxy alike. A
private table's replay stays its players' only, the match over or not."""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

import grpc
import httpx
import pytest
from names import unique_name
from okey.v1 import table_service_pb2 as tpb
from okey.v1 import table_service_pb2_grpc as tgrpc
from okeycore.tiles import okey_face, parse_face
from okeyplatform.grpcserver import error_reason
from okeytools.stack import Stack

TURN_SECONDS = 20  # the guest's own turns are played at once; the bots' are instant
MATCH_WITHIN_S = 40.0  # a classic hand of three instant bots and a guest who discards at once
LOBBY = "/api/okey.v1.LobbyService/"
TABLE = "/api/okey.v1.TableService/"
TILE_CODE = re.compile(r"\b[RBYK](?:1[0-3]|[1-9])\b")  # a tile's code: its colour and number
COACHING_KINDS = set(tpb.CoachingKind.keys()) - {"COACHING_KIND_UNSPECIFIED"}


@pytest.fixture(scope="module")
def stack(make_module_stack: Callable[..., Stack]) -> Stack:
    env = {
        "OKEY_TIMEOUT_GRACE_MS": "300",
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",  # every guest signs in from 127.0.0.1
        "OKEY_DAILY_GRANTS_PER_ADDRESS": "0",
    }
    return make_module_stack(("table", "lobby", "bots", "gateway"), env=env, label="replays")


# ------------------------------------------------------------------ the gateway's HTTP API


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

    async def post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        return await self.http.post(path, json=body, headers={"authorization": f"Bearer {self.token}"})

    async def call(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return await _post(self.http, path, body, self.token)

    async def act(self, table_id: str, seat: int, command: dict[str, Any]) -> dict[str, Any]:
        body = {"tableId": table_id, "seat": seat, "commandId": f"e2e-{uuid.uuid4().hex[:8]}", "returnView": True}
        return await self.call(TABLE + "Act", {**body, **command})

    async def view(self, table_id: str, seat: int) -> dict[str, Any]:
        return dict((await self.call(TABLE + "GetView", {"tableId": table_id, "seat": seat}))["view"])

    async def replay(self, table_id: str, hand: int) -> httpx.Response:
        return await self.post(TABLE + "GetReplay", {"tableId": table_id, "hand": hand})

    async def play_turn(self, table_id: str, seat: int, view: dict[str, Any]) -> None:
        """Draw if the turn has not drawn yet, then discard the last tile of the rack; with the
        deck empty (a last chance it does not take) pass."""
        allowed = view.get("allowed", [])
        if "Draw" in allowed:
            view = (await self.act(table_id, seat, {"draw": {}}))["view"]
            allowed = view.get("allowed", [])
        if "Discard" in allowed:
            await self.act(table_id, seat, {"discard": {"tileId": view["rack"][-1].get("id", 0)}})
        elif "Pass" in allowed:
            await self.act(table_id, seat, {"pass": {}})
        else:
            raise AssertionError(f"a turn the guest cannot play: {_brief(view)}")


async def _post(http: httpx.AsyncClient, path: str, body: dict[str, Any], token: str = "") -> dict[str, Any]:
    r = await http.post(path, json=body, headers={"authorization": f"Bearer {token}"} if token else {})
    assert r.status_code == 200, (path, body, r.status_code, r.text)
    out: dict[str, Any] = r.json()
    return out


async def _open_table(guest: Guest, visibility: str) -> tuple[str, int]:
    """A classic table with three bots, started at once, through the lobby, whose first hand's
    points end the match: (its id, the guest's seat)."""
    options = {"game": "GAME_OKEY", "matchPoints": 1, "turnSeconds": TURN_SECONDS, "handBreakSeconds": 0}
    body = {"options": options, "visibility": visibility, "fillWithBots": True}
    got = await guest.call(LOBBY + "OpenTable", body)
    return str(got["table"]["tableId"]), int(got.get("seat", 0))


def _turn(view: dict[str, Any]) -> int | None:
    return int(view.get("turn", 0)) if view.get("phase") == "PHASE_PLAYING" else None


def _brief(view: dict[str, Any]) -> dict[str, Any]:
    return {k: view.get(k) for k in ("version", "phase", "hand", "turn", "stage", "allowed")}


async def _my_turn(guest: Guest, table_id: str, seat: int, within_s: float = 15) -> dict[str, Any]:
    """Poll the seat's view until a turn of the seat's is on: that view (the hand in progress)."""
    t0 = time.monotonic()
    while True:
        view = await guest.view(table_id, seat)
        if _turn(view) == seat:
            return view
        assert view.get("phase") != "PHASE_MATCH_OVER", f"the match ended before a turn of seat {seat}'s"
        assert time.monotonic() - t0 < within_s, f"no turn of seat {seat}'s within {within_s} s: {_brief(view)}"
        await asyncio.sleep(0.02)


async def _play_to_match_end(guest: Guest, table_id: str, seat: int) -> dict[str, Any]:
    """The guest plays each of their turns at once until the match is over: the last view."""
    t0 = time.monotonic()
    while True:
        view = await guest.view(table_id, seat)
        if view.get("phase") == "PHASE_MATCH_OVER":
            return view
        took = time.monotonic() - t0
        assert took < MATCH_WITHIN_S, f"the match did not end within {MATCH_WITHIN_S} s: {_brief(view)}"
        if _turn(view) == seat:
            await guest.play_turn(table_id, seat, view)
        else:
            await asyncio.sleep(0.02)


def _refused(r: httpx.Response, status: int, code: str, reason: str) -> None:
    """The gateway's JSON refusal, and nothing of the hand in it: no tile, no rack, no note."""
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert body["code"] == code and body["reason"] == reason, body
    assert set(body) <= {"code", "reason", "message", "metadata"}, body
    assert not {"replay", "racks", "events", "notes", "tiles"} & set(body.get("metadata", {})), body
    assert not TILE_CODE.search(body["message"]), body  # no tile named in the words either


def _tiles_visible(group: dict[str, Any]) -> bool:
    """Every tile of a rack shown (a hidden tile is id -1 with no code)."""
    tiles = group.get("tiles", [])
    return bool(tiles) and all(t.get("code") and t.get("id", 0) >= 0 for t in tiles)


def _check_replay(replay: dict[str, Any], table_id: str, hand: int, players: list[str]) -> None:
    assert replay["tableId"] == table_id and replay.get("hand") == hand, {k: replay.get(k) for k in ("tableId", "hand")}
    for p in players:
        assert p in replay["players"], (p, replay["players"])
    # The racks as dealt: the starter's 15 tiles, the others' 14, every tile shown.
    racks = replay["racks"]
    assert len(racks) == 4 and all(_tiles_visible(r) for r in racks), racks
    assert sorted(len(r["tiles"]) for r in racks) == [14, 14, 14, 15], [len(r["tiles"]) for r in racks]
    assert len(racks[int(replay.get("starter", 0))]["tiles"]) == 15
    # The hand's events, HandStarted to its end, nothing hidden.
    events = replay["events"]
    assert events[0]["kind"] == "HandStarted" and events[-1]["kind"] in ("HandEnded", "HandVoided"), [
        e["kind"] for e in events
    ]
    assert all(int(e.get("hand", 0)) == hand for e in events), {e.get("hand") for e in events}
    versions = [int(e["version"]) for e in events]
    assert versions == sorted(versions) and len(set(versions)) == len(versions), versions
    dealt = events[0]["handStarted"]
    assert [len(r["tiles"]) for r in dealt["racks"]] == [len(r["tiles"]) for r in racks]
    assert all(_tiles_visible(r) for r in dealt["racks"]), dealt["racks"]
    assert dealt["racks"] == racks  # the replay's racks are the deal's
    # The fairness proof, checked by the server.
    assert replay["commitment"] == dealt["commitment"] and len(replay["commitment"]) == 64, replay["commitment"]
    assert len(replay["order"]) == 106 and replay["salt"], (len(replay["order"]), replay.get("salt"))
    assert replay.get("verified") is True, replay.get("verified")
    # The okey as the rules name it from the indicator [T-OKEY-1]: the client computes no rule.
    indicator = parse_face(replay["indicator"]["code"])
    assert replay["okey"] == {"id": -1, "code": str(okey_face(indicator))}, (replay["indicator"], replay.get("okey"))
    # The coaching notes: a list (maybe empty), each of a seat and a kind.
    notes = replay.get("notes", [])
    assert isinstance(notes, list)
    for n in notes:
        assert 0 <= int(n.get("seat", 0)) <= 3 and n.get("kind") in COACHING_KINDS, n
        assert n.get("text"), n


# ------------------------------------------------------------------ the tests


async def test_D_12_replays_through_the_gateway_public_and_private_tables(stack: Stack) -> None:
    started = time.monotonic()
    async with httpx.AsyncClient(base_url=f"http://{stack.http_address}", timeout=15) as http:
        player = await Guest.sign_in(http, "Oynayan")
        stranger = await Guest.sign_in(http, "Yabanci")
        table_id, seat = await _open_table(player, "TABLE_VISIBILITY_PUBLIC")

        # ---- 1. hand 1 in progress (a turn of the guest's waits for them): nothing of it to anyone
        view = await _my_turn(player, table_id, seat)
        assert view.get("hand") == 1, _brief(view)
        _refused(await player.replay(table_id, 1), 409, "FAILED_PRECONDITION", "HAND_NOT_ENDED")
        _refused(await stranger.replay(table_id, 1), 403, "PERMISSION_DENIED", "REPLAY_NOT_ALLOWED")

        # ---- 7. a spectator's GetEvents of the hand in progress shows no dealt rack
        logged = (await stranger.call(TABLE + "GetEvents", {"tableId": table_id}))["events"]
        (dealt,) = [e for e in logged if e["kind"] == "HandStarted"]
        racks = dealt["handStarted"]["racks"]
        assert len(racks) == 4 and not any(t.get("code") for r in racks for t in r.get("tiles", [])), racks
        assert all(t.get("id") == -1 for r in racks for t in r["tiles"]), racks
        assert not dealt["handStarted"].get("salt") and not dealt["handStarted"].get("order"), dealt
        # ... and the seat's own view of the hand is no way around the refusal either
        assert (await player.view(table_id, seat)).get("phase") == "PHASE_PLAYING"
        _refused(await player.replay(table_id, 1), 409, "FAILED_PRECONDITION", "HAND_NOT_ENDED")

        # ---- 2. the guest plays to the match's end: the replay, to the player and then to anyone
        last = await _play_to_match_end(player, table_id, seat)
        print(f"public table {table_id} over after hand {last.get('hand')}, {time.monotonic() - started:.1f} s in")
        r = await player.replay(table_id, 1)
        assert r.status_code == 200, r.text
        mine = r.json()["replay"]
        _check_replay(mine, table_id, 1, [player.player_id])
        notes = [n["kind"] for n in mine.get("notes", [])]
        print(f"hand 1: {len(mine['events'])} events to {mine['events'][-1]['kind']}, notes {notes}")
        assert stranger.player_id not in mine["players"]
        r = await stranger.replay(table_id, 1)
        assert r.status_code == 200, r.text  # a public table whose match is over [D-12]
        theirs = r.json()["replay"]
        _check_replay(theirs, table_id, 1, [player.player_id])
        assert theirs["racks"] == mine["racks"] and theirs["commitment"] == mine["commitment"]
        # A hand the table never dealt is no replay.
        r = await player.replay(table_id, 99)
        assert r.status_code == 404 and r.json()["reason"] == "HAND_NOT_FOUND", r.text

        # ---- 4. the gRPC proxy serves it too, with the same rule
        channel = grpc.aio.insecure_channel(stack.address("gateway"))
        try:
            stub = tgrpc.TableServiceStub(channel)
            got = await stub.GetReplay(
                tpb.GetReplayRequest(table_id=table_id, hand=1),
                metadata=(("authorization", f"Bearer {stranger.token}"),),
                timeout=15,
            )
            assert got.replay.table_id == table_id and got.replay.verified
            assert sorted(len(r.tiles) for r in got.replay.racks) == [14, 14, 14, 15]
            assert [t.code for r in got.replay.racks for t in r.tiles] == [
                t["code"] for r in mine["racks"] for t in r["tiles"]
            ]
            assert got.replay.events[0].kind == "HandStarted" and len(got.replay.events) == len(mine["events"])
        finally:
            await channel.close()

        # ---- 3. a private table: its player's replay, never a stranger's
        host = await Guest.sign_in(http, "Davetli")
        private_id, private_seat = await _open_table(host, "TABLE_VISIBILITY_PRIVATE")
        await _my_turn(host, private_id, private_seat)
        _refused(await host.replay(private_id, 1), 409, "FAILED_PRECONDITION", "HAND_NOT_ENDED")
        _refused(await stranger.replay(private_id, 1), 403, "PERMISSION_DENIED", "REPLAY_NOT_ALLOWED")
        await _play_to_match_end(host, private_id, private_seat)
        print(f"private table {private_id} over {time.monotonic() - started:.1f} s into the test")
        _refused(await stranger.replay(private_id, 1), 403, "PERMISSION_DENIED", "REPLAY_NOT_ALLOWED")
        _refused(await player.replay(private_id, 1), 403, "PERMISSION_DENIED", "REPLAY_NOT_ALLOWED")
        r = await host.replay(private_id, 1)
        assert r.status_code == 200, r.text
        _check_replay(r.json()["replay"], private_id, 1, [host.player_id])
        # ... over gRPC as over HTTP
        channel = grpc.aio.insecure_channel(stack.address("gateway"))
        try:
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await tgrpc.TableServiceStub(channel).GetReplay(
                    tpb.GetReplayRequest(table_id=private_id, hand=1),
                    metadata=(("authorization", f"Bearer {stranger.token}"),),
                    timeout=15,
                )
            assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert error_reason(err.value) == "REPLAY_NOT_ALLOWED"
        finally:
            await channel.close()
    print(f"the replay scenario took {time.monotonic() - started:.1f} s")

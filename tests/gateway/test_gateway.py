"""The gateway end to end: gRPC proxy, HTTP/JSON and WebSocket, over a real table service."""

from __future__ import annotations

import asyncio
import json

import grpc
import httpx
import pytest
import websockets
from gateway_helpers import GatewayStack
from okeycore.options import RULES_VERSION, TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeyplatform.contract import classic_view_from_pb
from okeyplatform.grpcserver import error_reason

PLAYERS = ("ali", "ayse", "mehmet", "zeynep")


async def test_grpc_through_the_gateway_keeps_rich_errors(stack: GatewayStack) -> None:
    gw = stack
    clients = [TableClient(gw.grpc, issue_token(p)) for p in PLAYERS]
    try:
        lobby = TableClient(gw.grpc, issue_token("lobby", "service"))
        await lobby.create_table(TableOptions(), PLAYERS, table_id="gw-grpc")
        await lobby.close()
        v = classic_view_from_pb(await clients[0].view("gw-grpc", 0))
        assert v.table_id == "gw-grpc" and len(v.rack) in (14, 15)
        other = (v.turn + 1) % 4
        from okeycore.commands import Draw

        with pytest.raises(grpc.aio.AioRpcError) as err:
            await clients[other].act("gw-grpc", Draw(seat=other))
        assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert error_reason(err.value) == "NOT_YOUR_TURN"
        bad = TableClient(gw.grpc, "v1.bad.token")
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await bad.view("gw-grpc")
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
        await bad.close()
    finally:
        for c in clients:
            await c.close()


async def test_http_json_and_websocket_watch(stack: GatewayStack) -> None:
    gw = stack
    base = f"http://{gw.http}"
    tokens = {p: issue_token(p) for p in PLAYERS}
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        h = {"authorization": f"Bearer {tokens['ali']}"}
        create = {"tableId": "gw-http", "options": {"game": "GAME_OKEY"}, "seats": [{"playerId": p} for p in PLAYERS]}
        mine = {k: v for k, v in create.items() if k != "tableId"}
        r = await http.post("/api/okey.v1.TableService/CreateTable", json=mine, headers=h)
        # a player may not seat other players (the lobby does, with its service credential) ...
        assert r.status_code == 403 and r.json()["reason"] == "SEATS_NOT_YOURS", r.text
        # ... nor name the table
        r = await http.post("/api/okey.v1.TableService/CreateTable", json=create, headers=h)
        assert r.status_code == 403 and r.json()["reason"] == "TABLE_ID_NOT_ALLOWED", r.text
        lobby = {"authorization": f"Bearer {issue_token('lobby', 'service')}"}
        r = await http.post("/api/okey.v1.TableService/CreateTable", json=create, headers=lobby)
        assert r.status_code == 200, r.text
        assert r.json()["tableId"] == "gw-http"
        r = await http.post("/api/okey.v1.TableService/GetView", json={"tableId": "gw-http", "seat": 0}, headers=h)
        assert r.status_code == 200
        view = r.json()["view"]
        turn = view.get("turn", 0)
        # a rule violation: 409 with the reason
        other = (turn + 1) % 4
        r = await http.post(
            "/api/okey.v1.TableService/Act",
            json={"tableId": "gw-http", "commandId": "x1", "seat": other, "draw": {}},
            headers={"authorization": f"Bearer {tokens[PLAYERS[other]]}"},
        )
        assert r.status_code == 409 and r.json()["reason"] == "NOT_YOUR_TURN"
        # malformed JSON, unknown fields, bad token, oversized body, unknown method: all clean
        r = await http.post("/api/okey.v1.TableService/GetView", content=b"{not json", headers=h)
        assert r.status_code == 400 and r.json()["reason"] == "MALFORMED_JSON"
        r = await http.post("/api/okey.v1.TableService/GetView", json={"tableId": "gw-http", "nope": 1}, headers=h)
        assert r.status_code == 400
        r = await http.post("/api/okey.v1.TableService/GetView", json={}, headers={"authorization": "Bearer v1.x.y"})
        assert r.status_code == 401 and r.json()["reason"] == "BAD_TOKEN"
        r = await http.post("/api/okey.v1.TableService/GetView", content=b"x" * 100_000, headers=h)
        assert r.status_code == 413
        r = await http.post("/api/okey.v1.NoService/Nope", json={}, headers=h)
        assert r.status_code == 404
        r = await http.post("/api/okey.v1.TableService/GetView", json={"tableId": "gw-http", "seat": 1}, headers=h)
        assert r.status_code == 403  # ali is not seat 1
    # WebSocket watch: snapshot first, then events as moves happen
    ws_url = f"ws://{gw.http}/ws/okey.v1.TableService/Watch?tableId=gw-http&seat=0&token={tokens['ali']}"
    async with websockets.connect(ws_url) as ws:
        first = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert "snapshot" in first and first["snapshot"]["tableId"] == "gw-http"
        seat = turn
        mine = classic_view_from_pb(await (c := TableClient(gw.grpc, tokens[PLAYERS[seat]])).view("gw-http", seat))
        from okeycore.commands import Discard

        await c.act("gw-http", Discard(seat=seat, tile=mine.rack[0]))
        await c.close()
        msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert msg["event"]["version"] == "3" and "tileDiscarded" in msg["event"]
    async with websockets.connect(ws_url.replace(tokens["ali"], "v1.bad.tok")) as ws:
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401


async def test_http_create_table_refuses_other_game_options_and_pairs_only_with_a_marker(
    stack: GatewayStack,
) -> None:
    """[D-9] and [C-PAIR-3] at the public edge: INVALID_OPTIONS naming the option(s); and the
    new indicator_timing option [C-IND-1] goes in and comes back in the view."""
    gw = stack
    lobby = {"authorization": f"Bearer {issue_token('lobby', 'service')}"}
    seats = [{"playerId": p} for p in PLAYERS]
    cases = [
        ({"game": "GAME_OKEY", "rounds": 3}, ["rounds", "Okey 101"]),
        ({"game": "GAME_OKEY", "mode": "MODE_PLAIN"}, ["mode"]),
        ({"game": "GAME_OKEY101", "seats": 4, "partners": False}, ["partners", "classic Okey"]),
        ({"game": "GAME_OKEY", "discardHistory": "DISCARD_HISTORY_PAIRS_ONLY"}, ["PAIRS_ONLY", "BINDING"]),
        (
            {
                "game": "GAME_OKEY",
                "discardHistory": "DISCARD_HISTORY_PAIRS_ONLY",
                "pairsDeclaration": "PAIRS_DECLARATION_MARKER",
            },
            ["discard_history", "pairs_declaration"],
        ),
    ]
    async with httpx.AsyncClient(base_url=f"http://{gw.http}", timeout=10) as http:
        for n, (options, words) in enumerate(cases):
            create = {"tableId": f"gw-opt-{n}", "options": options, "seats": seats}
            r = await http.post("/api/okey.v1.TableService/CreateTable", json=create, headers=lobby)
            assert r.status_code == 400 and r.json()["reason"] == "INVALID_OPTIONS", (options, r.text)
            assert all(w in r.json()["message"] for w in words), r.text
            r = await http.post("/api/okey.v1.TableService/GetView", json={"tableId": f"gw-opt-{n}"}, headers=lobby)
            assert r.status_code == 404  # nothing was created
        options = {
            "game": "GAME_OKEY",
            "indicatorTiming": "INDICATOR_TIMING_FIRST_TURN",
            "discardHistory": "DISCARD_HISTORY_PAIRS_ONLY",
            "pairsDeclaration": "PAIRS_DECLARATION_BINDING",
        }
        r = await http.post(
            "/api/okey.v1.TableService/CreateTable",
            json={"tableId": "gw-opt-ok", "options": options, "seats": seats},
            headers=lobby,
        )
        assert r.status_code == 200, r.text
        r = await http.post("/api/okey.v1.TableService/GetView", json={"tableId": "gw-opt-ok"}, headers=lobby)
        got = r.json()["view"]["options"]
        assert got["indicatorTiming"] == "INDICATOR_TIMING_FIRST_TURN" and "rounds" not in got, got
        assert r.json()["view"]["rulesVersion"] == RULES_VERSION

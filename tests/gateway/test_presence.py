"""Presence across gateway replicas, as processes on one NATS, in front of a real table service:
a player's watch on gateway A is AT_TABLE on gateway B's ``/api/presence`` (B started after the
watch opened: it learns it from A's beats); A killed (SIGKILL),
B has the player OFFLINE within 5 s and the table has the seat disconnected [D-11] within 5 s;
the player back through B is AT_TABLE again and the seat connected. And on one gateway: a
seated player's WebSocket closed is the seat disconnected for the other seats within 5 s,
reopened it is connected again."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import websockets
from okeycore.options import TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeytools.stack import Stack
from stacks import StackFactory

PLAYERS = ("ali", "ayse", "can", "deniz")
FAST = {"OKEY_RATE_LIMIT": "1000", "OKEY_RATE_BURST": "1000"}


async def _until(what: str, check: Callable[[], Awaitable[bool]], within_s: float) -> float:
    """Poll ``check`` until it holds and return the seconds it took, or fail naming ``what``."""
    t0 = time.monotonic()
    while not await check():
        if time.monotonic() - t0 > within_s:
            raise AssertionError(f"not within {within_s} s: {what}")
        await asyncio.sleep(0.1)
    return time.monotonic() - t0


async def _state(http_address: str, player: str, by_self: bool = False) -> tuple[str, str]:
    """``player``'s state and table on that gateway's board, asked by someone else (who is told
    no table: that is for the player themselves) or, ``by_self``, by the player (a call of theirs,
    which keeps them ONLINE on that replica for a minute)."""
    asker = player if by_self else "observer-" + uuid.uuid4().hex[:6]
    headers = {"authorization": f"Bearer {issue_token(asker)}"}
    async with httpx.AsyncClient(base_url=f"http://{http_address}", timeout=5) as http:
        r = await http.get("/api/presence", params={"players": player}, headers=headers)
    assert r.status_code == 200, r.text
    ((got,),) = [r.json()["players"]]
    return got["state"], got["tableId"]


def _watch(http_address: str, player: str, table_id: str, seat: int) -> Any:
    url = f"ws://{http_address}/ws/okey.v1.TableService/Watch?tableId={table_id}&seat={seat}"
    return websockets.connect(f"{url}&token={issue_token(player)}")


async def _table(stack: Stack) -> tuple[TableClient, str]:
    """A new table of four people (long turns: nobody times out meanwhile), and a service
    client of the table service to read it."""
    svc = TableClient(stack.address("table"), issue_token("presence-tests", "service"))
    table_id = f"presence-{uuid.uuid4().hex[:10]}"
    await svc.create_table(TableOptions(turn_seconds=120), PLAYERS, table_id=table_id)
    return svc, table_id


async def _disconnected(svc: TableClient, table_id: str, seat: int) -> bool:
    view = await svc.view(table_id)
    return next(s for s in view.seats if s.seat == seat).disconnected


async def test_D_11_a_killed_gateways_player_is_offline_on_the_other_within_5_s_and_back_through_it(
    make_stack: StackFactory,
) -> None:
    a = make_stack(("table", "gateway"), env=FAST, private_nats=True, label="gateway-a")
    svc, table_id = await _table(a)
    try:
        async with _watch(a.http_address, "ali", table_id, 0) as ws:
            assert "snapshot" in json.loads(await ws.recv())
            # B starts after ali's watch opened: it learns of it from A's beats
            b = await asyncio.to_thread(
                make_stack,
                ("gateway",),
                env={**FAST, "OKEY_TABLE_ADDR": a.address("table")},
                database_url=a.database_url,
                nats_url=a.nats_url,
                label="gateway-b",
            )

            async def at_table_on_b() -> bool:
                return await _state(b.http_address, "ali") == ("AT_TABLE", "")

            await _until("ali's watch on A is AT_TABLE on B's board", at_table_on_b, 5)
            # the table only to ali (asked on A: ali's call there dies with A)
            assert await _state(a.http_address, "ali", by_self=True) == ("AT_TABLE", table_id)
            a.kill("gateway")
            killed = time.monotonic()

            async def offline_on_b() -> bool:
                return await _state(b.http_address, "ali") == ("OFFLINE", "")

            await _until("ali OFFLINE on B once A is dead", offline_on_b, 5)
            print(f"ali OFFLINE on B {time.monotonic() - killed:.2f} s after A's SIGKILL")

            async def seat_disconnected() -> bool:
                return await _disconnected(svc, table_id, 0)

            left = 5 - (time.monotonic() - killed)
            await _until("B told the table ali's seat is disconnected", seat_disconnected, left)
            print(f"seat 0 disconnected {time.monotonic() - killed:.2f} s after A's SIGKILL")
        assert not await _disconnected(svc, table_id, 1)  # nobody watched seat 1: never told
        async with _watch(b.http_address, "ali", table_id, 0) as ws:
            first = json.loads(await ws.recv())
            assert first["snapshot"]["seats"][0]["disconnected"] is True  # as the table has it

            async def back() -> bool:
                mine = await _state(b.http_address, "ali", by_self=True)
                return mine == ("AT_TABLE", table_id) and not await _disconnected(svc, table_id, 0)

            took = await _until("ali AT_TABLE on B and the seat connected again", back, 5)
            print(f"seat 0 connected again {took:.2f} s after ali's watch opened on B")
    finally:
        await svc.close()


async def test_D_11_a_closed_websocket_is_the_seat_disconnected_for_the_others_and_reopened_connected(
    make_stack: StackFactory,
) -> None:
    stack = make_stack(("table", "gateway"), env=FAST, label="gateway")
    svc, table_id = await _table(stack)
    seen: list[dict[str, Any]] = []
    try:
        async with _watch(stack.http_address, "ayse", table_id, 1) as other:
            seen.append(json.loads(await other.recv()))

            async def seat_0(disconnected: bool) -> bool:
                """Whether ayse's watch (seat 1) has shown seat 0 ``disconnected`` yet."""
                try:
                    msg = json.loads(await asyncio.wait_for(other.recv(), 0.2))
                except TimeoutError:
                    return False
                seen.append(msg)
                view = msg.get("view") or {}
                return any(s.get("seat", 0) == 0 and bool(s.get("disconnected")) is disconnected for s in view["seats"])

            async with _watch(stack.http_address, "ali", table_id, 0) as ws:
                await ws.recv()
            took = await _until("ayse's watch shows seat 0 disconnected", lambda: seat_0(True), 5)
            print(f"seat 0 disconnected {took:.2f} s after ali's WebSocket closed")
            assert took >= 1.5  # the grace (2 s) came first
            assert seen[-1]["event"]["kind"] == "SeatDisconnected"
            assert await _disconnected(svc, table_id, 0)  # GetView agrees
            async with _watch(stack.http_address, "ali", table_id, 0) as ws:
                await ws.recv()
                took = await _until("ayse's watch shows seat 0 connected again", lambda: seat_0(False), 5)
                print(f"seat 0 connected again {took:.2f} s after ali's WebSocket reopened")
                assert seen[-1]["event"]["kind"] == "SeatReconnected"
        kinds = [m["event"]["kind"] for m in seen if "event" in m]
        assert kinds == ["SeatDisconnected", "SeatReconnected"], kinds  # each once, nothing else
    finally:
        await svc.close()

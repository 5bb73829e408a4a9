"""A disconnected seat through the public gateway [D-11], as processes (table, lobby, bots, gateway
on a NATS of their own): a guest signs in over the gateway's HTTP API and opens a table with three
bots through the lobby (turns of 5 s, no break between hands, the bots at a person's pace so that
a turn of the seat's starts before a bot plays it). The guest watches their seat over the
gateway's WebSocket; another guest watches the table as a spectator and sees every seat's public
part. The guest's WebSocket closed, the spectator sees the seat ``disconnected`` and the log a
SeatDisconnected within 5 s; the guest's turn that then times out puts the seat on autopilot on
the first timeout (consecutive 1) and the bots play it from then on; the watch reopened, the log
has SeatReconnected and the seat is connected again; at the start of a later turn of theirs the
guest takes the seat back (``take_back``) [D-5] and plays it. A guest whose watch stays open and
who lets a turn time out keeps the three-timeout rule: autopilot=false on the first [C-TIME-2]."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import websockets
from names import unique_name
from okeytools.stack import Stack

TURN_SECONDS = 5
# The gateway's grace (2 s) before it tells the table, plus the table's round trip and the event's
# way back to a watch: the bound on seeing a seat disconnected after its last watch closed.
DISCONNECT_WITHIN_S = 5.0
RECONNECT_WITHIN_S = 5.0  # a reopened watch tells the table at once: its round trip, with room
# Three bot turns at a person's pace (0.8-2.5 s each) and a turn of 5 s, with room on a busy machine.
ROUND_WITHIN_S = 3 * 2.5 + TURN_SECONDS + 12
LOBBY = "/api/okey.v1.LobbyService/"
TABLE = "/api/okey.v1.TableService/"


@pytest.fixture(scope="module")
def stack(make_module_stack: Callable[..., Stack]) -> Stack:
    env = {
        "OKEY_TIMEOUT_GRACE_MS": "300",  # a timed-out turn is the bots' at once; forced after 0.3 s
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",  # every guest signs in from 127.0.0.1
        "OKEY_DAILY_GRANTS_PER_ADDRESS": "0",
        "OKEY_BOTS_PACE": "table",  # each table's bot_pace (the tests' default is instant)
    }
    return make_module_stack(("table", "lobby", "bots", "gateway"), env=env, label="disconnected", private_nats=True)


# ------------------------------------------------------------------ the gateway's HTTP API


class Guest:
    """A guest signed in through the gateway's HTTP API."""

    def __init__(self, http: httpx.AsyncClient, token: str, player_id: str) -> None:
        self.http = http
        self.token = token
        self.player_id = player_id

    @classmethod
    async def sign_in(cls, http: httpx.AsyncClient, name: str) -> Guest:
        unique = unique_name(name)
        got = await _post(http, LOBBY + "SignInGuest", {"displayName": unique})
        return cls(http, str(got["token"]), str(got["player"]["playerId"]))

    async def call(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return await _post(self.http, path, body, self.token)

    async def act(self, table_id: str, seat: int, command: dict[str, Any]) -> dict[str, Any]:
        """One command of the seat's through the gateway, answered with the seat's view after it."""
        body = {"tableId": table_id, "seat": seat, "commandId": f"e2e-{uuid.uuid4().hex[:8]}", "returnView": True}
        return await self.call(TABLE + "Act", {**body, **command})

    async def view(self, table_id: str, seat: int) -> dict[str, Any]:
        return dict((await self.call(TABLE + "GetView", {"tableId": table_id, "seat": seat}))["view"])

    async def play_turn(self, table_id: str, seat: int) -> list[dict[str, Any]]:
        """Draw if the turn has not drawn yet, then discard the last tile of the rack: the events
        the two commands appended."""
        view = await self.view(table_id, seat)
        assert _turn(view) == seat, f"not seat {seat}'s turn: {_brief(view)}"
        events: list[dict[str, Any]] = []
        if "Draw" in view.get("allowed", []):
            got = await self.act(table_id, seat, {"draw": {}})
            events += got.get("events", [])
            view = got["view"]
        assert "Discard" in view.get("allowed", []), _brief(view)
        got = await self.act(table_id, seat, {"discard": {"tileId": view["rack"][-1].get("id", 0)}})
        return events + list(got.get("events", []))


async def _post(http: httpx.AsyncClient, path: str, body: dict[str, Any], token: str = "") -> dict[str, Any]:
    r = await http.post(path, json=body, headers={"authorization": f"Bearer {token}"} if token else {})
    assert r.status_code == 200, (path, body, r.status_code, r.text)
    out: dict[str, Any] = r.json()
    return out


async def _open_table(guest: Guest) -> tuple[str, int]:
    """A table with three bots, started at once, through the lobby: (its id, the guest's seat)."""
    options = {
        "game": "GAME_OKEY",
        "turnSeconds": TURN_SECONDS,
        "handBreakSeconds": 0,
        "botPace": "BOT_PACE_HUMAN",  # 0.8-2.5 s a bot move: a turn starts before a bot plays it
    }
    got = await guest.call(LOBBY + "OpenTable", {"options": options, "fillWithBots": True})
    return str(got["table"]["tableId"]), int(got.get("seat", 0))


# ------------------------------------------------------------------ the gateway's WebSocket


class Watch:
    """A watch over the gateway's WebSocket, its messages (parsed) kept by a task of its own."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, address: str, token: str, table_id: str, seat: int | None = None) -> Watch:
        url = f"ws://{address}/ws/okey.v1.TableService/Watch?table_id={table_id}&token={token}"
        watch = cls(await websockets.connect(url if seat is None else f"{url}&seat={seat}"))
        await _until("the watch's first message", lambda: bool(watch.messages), 10)
        assert "snapshot" in watch.messages[0], watch.messages[0]
        return watch

    async def _read(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for raw in self.ws:
                self.messages.append(json.loads(raw))

    async def close(self) -> None:
        await self.ws.close()
        await self.reader

    def view(self, i: int = -1) -> dict[str, Any]:
        msg = self.messages[i]
        return dict(msg.get("snapshot") or msg["view"])

    def seat(self, seat: int, i: int = -1) -> dict[str, Any]:
        """``seat``'s public part in the view of message ``i`` (protobuf's JSON leaves out zeros and falses)."""
        pub = dict(self.view(i)["seats"][seat])
        assert pub.get("seat", 0) == seat, pub
        return pub

    def events(self, since: int = 0) -> list[tuple[int, dict[str, Any]]]:
        """(message index, event) of every event from message ``since`` on."""
        return [(i, m["event"]) for i, m in enumerate(self.messages) if i >= since and "event" in m]


async def _until(what: str, check: Callable[[], bool], within_s: float) -> float:
    """Poll ``check`` until it holds and return the seconds it took, or fail naming ``what``."""
    t0 = time.monotonic()
    while not check():
        if time.monotonic() - t0 > within_s:
            raise AssertionError(f"not within {within_s} s: {what}")
        await asyncio.sleep(0.05)
    return time.monotonic() - t0


def _turn(view: dict[str, Any]) -> int | None:
    """The seat whose turn it is while a hand is played, else None."""
    return int(view.get("turn", 0)) if view.get("phase") == "PHASE_PLAYING" else None


def _brief(view: dict[str, Any]) -> dict[str, Any]:
    keys = ("version", "phase", "hand", "turn", "stage", "allowed")
    return {k: view.get(k) for k in keys} | {
        "seats": [{k: v for k, v in s.items() if k != "pile"} for s in view["seats"]]
    }


def _of(event: dict[str, Any], kind: str, seat: int) -> bool:
    """Whether ``event`` is a ``kind`` (its JSON slot: ``turnTimedOut``) of ``seat``'s."""
    slot = kind[0].lower() + kind[1:]
    return event.get("kind") == kind and int(event.get(slot, {}).get("seat", 0)) == seat


def _gives_turn(event: dict[str, Any], seat: int) -> bool:
    """An event that starts a turn of ``seat``'s: the discard before it, or a deal it starts."""
    if event.get("kind") == "TileDiscarded":
        return int(event["tileDiscarded"].get("nextSeat", 0)) == seat
    return event.get("kind") == "HandStarted" and int(event["handStarted"].get("starter", 0)) == seat


async def _my_turn(watch: Watch, seat: int, within_s: float) -> int:
    """Until a message from the next one on shows a turn of ``seat``'s started by its event (a
    discard handing it over, a deal it starts): that message's index."""
    start = len(watch.messages)

    def found() -> int | None:
        for i, ev in watch.events(start):
            if _gives_turn(ev, seat) and _turn(watch.view(i)) == seat:
                return i
        return None

    await _until(f"a turn of seat {seat}'s starts", lambda: found() is not None, within_s)
    i = found()
    assert i is not None
    return i


# ------------------------------------------------------------------ the tests


async def test_D_11_a_closed_watch_is_the_seat_disconnected_on_autopilot_at_its_first_timeout_and_taken_back(
    stack: Stack,
) -> None:
    async with httpx.AsyncClient(base_url=f"http://{stack.http_address}", timeout=10) as http:
        player = await Guest.sign_in(http, "Kopan")
        observer = await Guest.sign_in(http, "Bakan")
        table_id, seat = await _open_table(player)
        spectator = await Watch.open(stack.http_address, observer.token, table_id)  # no seat: every seat's public part
        mine = await Watch.open(stack.http_address, player.token, table_id, seat)
        watches = [spectator, mine]
        try:
            assert not spectator.seat(seat).get("disconnected"), spectator.seat(seat)
            assert not mine.seat(seat).get("disconnected")
            # The guest plays a turn of theirs while connected and closes the watch right after its
            # discard: their next turn is three bot turns away (at least 2.4 s) and times out 5 s
            # after it starts, well after the seat is told disconnected (2 s and a round trip).
            await _until("a turn of the guest's", lambda: _turn(mine.view()) == seat, ROUND_WITHIN_S)
            played = await player.play_turn(table_id, seat)
            assert any(_of(e, "TileDiscarded", seat) for e in played), played
            before = len(spectator.messages)
            await mine.close()
            closed = time.monotonic()

            # ---- within 5 s the spectator sees the seat disconnected, by a SeatDisconnected
            def shown_disconnected() -> bool:
                return any(spectator.seat(seat, i).get("disconnected") for i in range(before, len(spectator.messages)))

            took = await _until("the spectator sees the seat disconnected", shown_disconnected, DISCONNECT_WITHIN_S)
            print(f"seat {seat} disconnected on the spectator's watch {took:.2f} s after the player's WebSocket closed")
            assert took >= 1.5, took  # the gateway's grace (2 s) came first
            (at, gone), *more = [(i, e) for i, e in spectator.events(before) if e["kind"] == "SeatDisconnected"]
            assert not more and _of(gone, "SeatDisconnected", seat), gone
            assert spectator.seat(seat, at).get("disconnected") and not spectator.seat(seat, at - 1).get("disconnected")
            assert gone.get("toMove", -1) == -1, gone  # it calls no seat to move

            # ---- the turn of theirs that times out puts the seat on autopilot at once [D-11]
            def timed_out() -> list[tuple[int, dict[str, Any]]]:
                return [(i, e) for i, e in spectator.events(before) if _of(e, "TurnTimedOut", seat)]

            await _until("the disconnected seat's turn times out", lambda: bool(timed_out()), ROUND_WITHIN_S)
            (t_at, first), *_ = timed_out()
            print(f"seat {seat}'s turn timed out {time.monotonic() - closed:.2f} s after the WebSocket closed")
            assert t_at > at, "the turn timed out before the seat was disconnected: the test's timing is off"
            assert first["turnTimedOut"].get("consecutive") == 1, first  # the first timeout in a row
            assert first["turnTimedOut"].get("autopilot") is True, first
            assert spectator.seat(seat, t_at).get("autopilot") and spectator.seat(seat, t_at).get("disconnected")

            # ---- the bots play that seat from then on: the timed-out turn and the next, with no timeout
            def discards() -> list[int]:
                return [i for i, e in spectator.events(t_at) if _of(e, "TileDiscarded", seat)]

            await _until(
                "the bots play the timed-out turn and the seat's next one", lambda: len(discards()) >= 2, ROUND_WITHIN_S
            )
            later = discards()[1]
            assert [i for i, _ in timed_out()] == [t_at], "the seat on autopilot timed out again"
            assert spectator.seat(seat, later).get("autopilot"), spectator.seat(seat, later)

            # ---- the watch reopened: SeatReconnected, the seat connected (still on autopilot)
            before = len(spectator.messages)
            reopened = time.monotonic()
            mine = await Watch.open(stack.http_address, player.token, table_id, seat)
            watches.append(mine)
            assert mine.seat(seat, 0).get("disconnected") is True  # as the table had it when it opened

            def shown_connected() -> bool:
                return any(e["kind"] == "SeatReconnected" for _, e in spectator.events(before)) and not spectator.seat(
                    seat
                ).get("disconnected")

            await _until("the spectator sees the seat connected again", shown_connected, RECONNECT_WITHIN_S)
            took = time.monotonic() - reopened
            print(f"seat {seat} connected again on the spectator's watch {took:.2f} s after the watch was opened")
            ((_, back),) = [(i, e) for i, e in spectator.events(before) if e["kind"] == "SeatReconnected"]
            assert _of(back, "SeatReconnected", seat), back
            assert spectator.seat(seat).get("autopilot"), "a reconnected seat stays on autopilot until taken back [D-5]"

            # ---- at the start of a later turn of theirs the guest takes the seat back and plays it [D-5]
            start = await _my_turn(mine, seat, ROUND_WITHIN_S)
            started = mine.view(start)
            assert mine.seat(seat, start).get("autopilot"), mine.seat(seat, start)
            got = await player.act(table_id, seat, {"takeBack": {}})
            print(f"take_back answered {time.monotonic() - reopened:.2f} s after the watch reopened")
            assert [e["kind"] for e in got.get("events", [])] == ["AutopilotEnded"], got
            assert _of(got["events"][0], "AutopilotEnded", seat)
            view = got["view"]
            assert not view["seats"][seat].get("autopilot"), view["seats"][seat]
            # The bot thinks 0.8 s at least at a person's pace: the take-back came first, and the
            # turn is still the one that started, with no move of it made.
            assert _turn(view) == seat and view.get("hand") == started.get("hand"), (_brief(started), _brief(view))
            assert view.get("stage") == started.get("stage"), (_brief(started), _brief(view))
            played = await player.play_turn(table_id, seat)
            assert any(_of(e, "TileDiscarded", seat) for e in played), played  # the person's own discard

            def mine_since_start() -> list[str]:
                return [e["kind"] for _, e in mine.events(start + 1)]

            await _until("the watch has the person's discard", lambda: "TileDiscarded" in mine_since_start(), 5)
            kinds = mine_since_start()
            assert kinds[0] == "AutopilotEnded", kinds  # before any move of the turn
            assert kinds[: kinds.index("TileDiscarded") + 1] in (
                ["AutopilotEnded", "TileDrawn", "TileDiscarded"],
                ["AutopilotEnded", "TileDiscarded"],
            ), kinds
            assert not mine.seat(seat).get("autopilot") and not mine.seat(seat).get("disconnected")

            # ---- the table's log, as the seat reads it through the gateway, in that order
            logged = (await player.call(TABLE + "GetEvents", {"tableId": table_id, "seat": seat}))["events"]
            story = [
                e["kind"] + ("(autopilot)" if e.get("turnTimedOut", {}).get("autopilot") else "")
                for e in logged
                if any(
                    _of(e, k, seat) for k in ("SeatDisconnected", "TurnTimedOut", "SeatReconnected", "AutopilotEnded")
                )
            ]
            assert story == ["SeatDisconnected", "TurnTimedOut(autopilot)", "SeatReconnected", "AutopilotEnded"], story
        finally:
            for watch in watches:
                await watch.close()


async def test_C_TIME_2_a_connected_person_who_lets_a_turn_time_out_is_not_put_on_autopilot(stack: Stack) -> None:
    async with httpx.AsyncClient(base_url=f"http://{stack.http_address}", timeout=10) as http:
        player = await Guest.sign_in(http, "Bekleyen")
        table_id, seat = await _open_table(player)
        mine = await Watch.open(stack.http_address, player.token, table_id, seat)
        try:

            def timed_out() -> list[tuple[int, dict[str, Any]]]:
                return [(i, e) for i, e in mine.events() if _of(e, "TurnTimedOut", seat)]

            # The watch stays open and the guest does nothing: their first turn times out.
            await _until("the connected seat's turn times out", lambda: bool(timed_out()), ROUND_WITHIN_S)
            (at, first), *_ = timed_out()
            assert first["turnTimedOut"].get("consecutive") == 1, first
            assert not first["turnTimedOut"].get("autopilot"), first  # three timeouts in a row, not one [C-TIME-2]
            assert not mine.seat(seat, at).get("autopilot") and not mine.seat(seat, at).get("disconnected")
            # The bots play that one turn [C-TIME-1] [D-4]; the seat stays the person's.
            await _until(
                "the bots play the timed-out turn",
                lambda: any(_of(e, "TileDiscarded", seat) for _, e in mine.events(at)),
                5,
            )
            assert not mine.seat(seat).get("autopilot")
            kinds = {e["kind"] for _, e in mine.events()}
            assert not kinds & {"SeatDisconnected", "SeatReconnected"}, kinds  # the watch was open throughout
        finally:
            await mine.close()

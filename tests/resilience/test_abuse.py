"""Abuse by players who hold valid tokens: acting for another seat; reading another seat's rack
or the deck order through any route (GetView, GetEvents, GetHints, Watch over gRPC directly and
through the gateway, the gateway's HTTP/JSON and WebSocket, the scoring history, ``okey export``
without ``--with-private``) while a hand runs; chat floods and request floods; sitting twice at a
table or twice from one device, concurrently too; double-spending chips with concurrent
requests; a player token on the admin RPCs. Every refusal is clean and changes nothing."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import httpx
import pytest
import websockets.sync.client as ws_client
from edge_helpers import (
    RPC_TIMEOUT_S,
    Edge,
    GatewayAt,
    Outcome,
    Player,
    StackFactory,
    Tally,
    check_http,
    parallel,
    rpc,
    running_edge,
    send,
    tiles_in,
    ws_url,
)
from google.protobuf import json_format
from google.protobuf.message import Message
from okey.v1 import common_pb2, table_service_pb2_grpc
from okey.v1 import lobby_service_pb2 as lpb
from okey.v1 import table_service_pb2 as tpb
from okeycore.events import IndicatorShown, TileDiscarded
from okeycore.games import engine_for
from okeyplatform.auth import issue_token
from okeyplatform.grpcserver import error_reason
from okeytools.export import export_lines
from websockets.exceptions import ConnectionClosed

from services.lobby.policy import Limits

TALLY = Tally()
ROUTES = ("direct", "gateway", "http")
DENIED = {"direct": "PERMISSION_DENIED", "gateway": "PERMISSION_DENIED", "http": "403", "ws": "PERMISSION_DENIED"}


@pytest.fixture(scope="module")
def edge(make_module_stack: StackFactory, pytestconfig: pytest.Config) -> Iterator[Edge]:
    with running_edge(make_module_stack) as e:
        yield e
    TALLY.report(pytestconfig, "abuse")


def _svc(edge: Edge) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {edge.service_token}"),)


def _http(edge: Edge, path: str, body: dict[str, Any], token: str | None) -> httpx.Response:
    assert edge.http is not None
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return edge.http.post(f"/api{path}", json=body, headers=headers)


# ------------------------------------------------------------------ acting for another seat


def test_acting_for_another_seat_is_refused_on_every_route(edge: Edge) -> None:
    """Each seated player, and an outsider, sends every command for every other seat (including
    the draw the seat in turn could make) directly, through the gateway's gRPC and over HTTP:
    PERMISSION_DENIED / 403 NOT_YOUR_SEAT each time, and nothing changes. At the lobby, nobody
    may leave or fill another player's table."""
    assert edge.mallory is not None
    before = edge.snapshot()
    act = rpc("TableService.Act")
    commands = ["draw", "take_discard", "discard", "finish", "declare_pairs", "pass", "take_back", "turn_to_okey"]
    actors = [*((i, v) for i, v in enumerate(edge.victims)), (None, edge.mallory)]
    n = 0
    for own, player in actors:
        for seat in range(4):
            if seat == own:
                continue
            for i, command in enumerate(commands):
                req = tpb.ActRequest(table_id=edge.table_id, command_id=f"steal-{own}-{seat}-{i}", seat=seat)
                getattr(req, command).SetInParent()
                route = ROUTES[(seat + i) % 3]
                out = send(edge, act, "proto", route, player.token, req)
                TALLY.add("act-for-another-seat", out)
                n += 1
                assert out.code == DENIED[route] and out.reason == "NOT_YOUR_SEAT", (own, seat, command, route, out)
    stub = edge.lobby_stub()
    for name, req in (
        ("LeaveTable", lpb.LeaveTableRequest(table_id=edge.table_id)),
        ("FillWithBots", lpb.FillWithBotsRequest(table_id=edge.table_id)),
    ):
        with pytest.raises(grpc.RpcError) as err:
            getattr(stub, name)(req, metadata=edge.mallory.auth, timeout=RPC_TIMEOUT_S)
        assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION  # type: ignore[attr-defined]
        assert error_reason(err.value) in ("NOT_SEATED", "NOT_CREATOR", "NOT_WAITING")
        n += 1
    print(f"acting for another seat: {n} cases")
    assert edge.snapshot() == before
    edge.healthy()


# ------------------------------------------------------------------ reading another rack


@dataclass
class Truth:
    """The table as the store has it (every rack, the deck): what each viewer must not see."""

    edge: Edge
    table_id: str
    events: list[tuple[int, int, Any]] = field(default_factory=list)  # (version, hand, event)
    _memo: dict[tuple[int | None, int], set[int]] = field(default_factory=dict)

    def refresh(self) -> None:
        pairs = self.edge.stored_events(self.table_id)
        self.events = [(st.version, st.hand, ev) for st, ev in pairs]

    def hidden(self, viewer: int | None, version: int) -> set[int]:
        """Tile ids ``viewer`` (None: a spectator) may not know at ``version``: the other seats'
        racks and the deck, less what has been public (the indicator, every discard and shown
        indicator of the hand)."""
        key = (viewer, version)
        if key not in self._memo:
            upto = [(v, h, ev) for v, h, ev in self.events if v <= version]
            assert upto and upto[-1][0] == version, f"version {version} not in the log yet"
            engine = engine_for(upto[0][2].options.game)
            state = engine.fold(None, (ev for _, _, ev in upto))
            public = {state.indicator}
            public |= {
                ev.tile for _, h, ev in upto if h == state.hand and isinstance(ev, (TileDiscarded, IndicatorShown))
            }
            secret = set(state.deck)
            for i, seat in enumerate(state.seats):
                if i != viewer:
                    secret |= set(seat.rack)
            self._memo[key] = secret - public
        return self._memo[key]

    def check(self, msg: Message, viewer: int | None, version: int, where: str) -> int:
        """No hidden tile id in ``msg`` (a view, an event, hints, ...); a blanked tile carries no
        face. Returns how many tiles were looked at."""
        secret = self.hidden(viewer, version)
        tiles = tiles_in(msg)
        for tid, code, name in tiles:
            assert tid not in secret, f"{where}: viewer {viewer} saw hidden tile {tid} ({code}) at v{version} in {name}"
            if tid == -1 and name != "okey":
                assert code == "", f"{where}: a blanked tile shows its face {code}"
        return len(tiles)


def _versioned(resp: Message) -> list[tuple[int, Message]]:
    """The parts of an answer and the version each is as of."""
    name = resp.DESCRIPTOR.name
    if name == "GetViewResponse":
        return [(resp.view.version, resp)]  # type: ignore[attr-defined]
    if name == "GetEventsResponse":
        return [(e.version, e) for e in resp.events]  # type: ignore[attr-defined]
    if name == "WatchResponse":
        if resp.HasField("snapshot"):
            return [(resp.snapshot.version, resp)]  # type: ignore[attr-defined]
        return [(resp.event.version, resp)]  # type: ignore[attr-defined]
    raise AssertionError(name)


class Watcher(threading.Thread):
    """A Watch stream (gRPC on a channel, or the gateway's WebSocket) read in the background."""

    def __init__(self, edge: Edge, route: str, table_id: str, seat: int | None, token: str) -> None:
        super().__init__(daemon=True)
        self.edge, self.route, self.table_id, self.seat, self.token = edge, route, table_id, seat, token
        self.got: list[Message] = []
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self._call: Any = None

    def run(self) -> None:
        try:
            if self.route == "ws":
                params = {"tableId": self.table_id, "token": self.token}
                if self.seat is not None:
                    params["seat"] = str(self.seat)
                with ws_client.connect(ws_url(self.edge, rpc("TableService.Watch"), params), max_size=None) as ws:
                    while not self.stop.is_set():
                        try:
                            msg = json.loads(ws.recv(timeout=0.2))
                        except TimeoutError:
                            continue
                        assert "error" not in msg, msg
                        self.got.append(json_format.ParseDict(msg, tpb.WatchResponse()))
                return
            ch = self.edge.channels["okey.v1.TableService" if self.route == "direct" else "gateway"]
            req = tpb.WatchRequest(table_id=self.table_id)
            if self.seat is not None:
                req.seat = self.seat
            self._call = table_service_pb2_grpc.TableServiceStub(ch).Watch(
                req, metadata=(("authorization", f"Bearer {self.token}"),)
            )
            for item in self._call:
                self.got.append(item)
        except grpc.RpcError as err:
            if err.code() != grpc.StatusCode.CANCELLED:  # type: ignore[attr-defined]
                self.error = err
        except BaseException as exc:
            self.error = exc

    def last_version(self) -> int:
        return max((v for m in self.got for v, _ in _versioned(m)), default=0)

    def finish(self, version: int) -> list[Message]:
        deadline = time.monotonic() + 15
        while self.last_version() < version and time.monotonic() < deadline and self.error is None:
            time.sleep(0.05)
        self.stop.set()
        if self._call is not None:
            self._call.cancel()
        self.join(10)
        assert self.error is None, self.error
        assert self.last_version() == version, (self.route, self.seat, self.last_version(), version)
        return self.got


def _play(edge: Edge, table_id: str, turn_no: int, take_discards: bool) -> None:
    """One turn for whoever's it is, with the service credential: draw (from the deck, or every
    third turn the last discard when ``take_discards``), then discard the rack's first tile."""
    md = _svc(edge)
    stub = edge.table_stub()
    seat = edge.view(None, table_id).turn
    view = edge.view(seat, table_id)
    if view.stage == tpb.STAGE_DRAW:
        prev = edge.view(None, table_id).seats[(seat + 3) % 4].pile
        req = tpb.ActRequest(table_id=table_id, command_id=f"t{turn_no}-draw", seat=seat)
        if take_discards and turn_no % 3 == 2 and len(prev):
            req.take_discard.SetInParent()
        else:
            req.draw.SetInParent()
        stub.Act(req, metadata=md, timeout=RPC_TIMEOUT_S)
        view = edge.view(seat, table_id)
    stub.Act(
        tpb.ActRequest(
            table_id=table_id, command_id=f"t{turn_no}-discard", seat=seat, discard={"tile_id": view.rack[0].id}
        ),
        metadata=md,
        timeout=RPC_TIMEOUT_S,
    )


@pytest.mark.parametrize("game", ["GAME_OKEY", "GAME_OKEY101"])
def test_no_route_shows_another_seats_rack_or_the_deck_while_the_hand_runs(edge: Edge, game: str) -> None:
    """Four players and a spectator watch a hand (gRPC directly and through the gateway, and the
    WebSocket) and read it after every move (GetView, GetEvents, GetHints on every route, the
    scoring history); the table is exported with ``okey export`` (no --with-private). No answer
    holds a tile id of another seat's hidden rack or of the deck, and every attempt to read as
    another seat is PERMISSION_DENIED."""
    assert edge.mallory is not None
    table_id = f"peek-{game[5:].lower()}-{edge.table_id}"
    create = tpb.CreateTableRequest(
        table_id=table_id, options=common_pb2.TableOptions(game=common_pb2.Game.Value(game), turn_seconds=120)
    )
    for v in edge.victims:
        create.seats.add(player_id=v.player_id)
    edge.table_stub().CreateTable(create, metadata=_svc(edge), timeout=RPC_TIMEOUT_S)
    truth = Truth(edge, table_id)
    viewers: list[tuple[int | None, Player]] = [*enumerate(edge.victims), (None, edge.mallory)]
    watchers = [
        Watcher(edge, route, table_id, seat, p.token) for seat, p in viewers for route in ("direct", "gateway", "ws")
    ]
    for w in watchers:
        w.start()
    deadline = time.monotonic() + 10
    while any(not w.got for w in watchers) and time.monotonic() < deadline:
        time.sleep(0.05)
    reads = {"GetView": 0, "GetEvents": 0, "GetHints": 0, "ListHands": 0}
    tiles_seen = 0
    denied = 0
    get_view, get_events, get_hints = (
        rpc("TableService.GetView"),
        rpc("TableService.GetEvents"),
        rpc("TableService.GetHints"),
    )
    list_hands = rpc("ScoringService.ListHands")
    for turn_no in range(10):
        _play(edge, table_id, turn_no, take_discards=game == "GAME_OKEY")
        truth.refresh()
        version = truth.events[-1][0]
        if turn_no == 0:  # the checker itself: a seat's own view does show what it must find
            with pytest.raises(AssertionError, match="hidden tile"):
                truth.check(tpb.GetViewResponse(view=edge.view(1, table_id)), 0, version, "sanity")
        for (seat, player), route in ((sp, r) for sp in viewers for r in ROUTES):
            view_req = tpb.GetViewRequest(table_id=table_id)
            events_req = tpb.GetEventsRequest(table_id=table_id, after_version=turn_no % 3)
            if seat is not None:
                view_req.seat = seat
                events_req.seat = seat
            for name, r, req in (("GetView", get_view, view_req), ("GetEvents", get_events, events_req)):
                out = send(edge, r, "proto", route, player.token, req)
                assert out.ok, (name, seat, route, out)
                for v, part in _versioned(out.body):
                    tiles_seen += truth.check(part, seat, v, f"{name} {route}")
                reads[name] += 1
                TALLY.add("reads", out)
            if seat is not None:
                out = send(
                    edge, get_hints, "proto", route, player.token, tpb.GetHintsRequest(table_id=table_id, seat=seat)
                )
                assert out.ok, out
                tiles_seen += truth.check(out.body, seat, version, f"GetHints {route}")
                reads["GetHints"] += 1
                TALLY.add("reads", out)
            out = send(edge, list_hands, "proto", route, player.token, list_hands.request_cls(table_id=table_id))
            if out.ok:
                tiles_seen += truth.check(out.body, seat, version, f"ListHands {route}")
            reads["ListHands"] += 1
            TALLY.add("reads", out)
            # and as every other seat: refused on every route (every third turn: it is the same check)
            for other in range(4) if turn_no % 3 == 0 else ():
                if other == seat:
                    continue
                for name, r, req in (
                    ("GetView", get_view, tpb.GetViewRequest(table_id=table_id, seat=other)),
                    ("GetEvents", get_events, tpb.GetEventsRequest(table_id=table_id, seat=other)),
                    ("GetHints", get_hints, tpb.GetHintsRequest(table_id=table_id, seat=other)),
                ):
                    out = send(edge, r, "proto", route, player.token, req)
                    assert out.code == DENIED[route] and out.reason == "NOT_YOUR_SEAT", (name, seat, other, route, out)
                    TALLY.add("peek-other-seat", out)
                    denied += 1
        if turn_no == 0:
            watch = rpc("TableService.Watch")
            for seat, player in viewers:
                for other in range(4):
                    if other == seat:
                        continue
                    for route in ("direct", "gateway", "ws"):
                        out = send(
                            edge, watch, "proto", route, player.token, tpb.WatchRequest(table_id=table_id, seat=other)
                        )
                        assert out.code == DENIED[route] and out.reason == "NOT_YOUR_SEAT", (seat, other, route, out)
                        TALLY.add("peek-other-seat", out)
                        denied += 1
    final = truth.events[-1][0]
    assert edge.view(None, table_id).phase == tpb.PHASE_PLAYING  # the hand still runs: nothing revealed yet
    # replaying another caller's command id (with a command the rules refuse) is no replay at all:
    # command ids are each caller's own [issue 15.3], so it is decided as this player's own command
    # and refused, and no earlier result (no deal, no draw) comes back with it
    act = rpc("TableService.Act")
    command_ids = [f"create:{table_id}"] + [f"t{n}-{k}" for n in range(10) for k in ("draw", "discard")]
    for seat, player in enumerate(edge.victims):
        for i, cid in enumerate(command_ids):
            req = tpb.ActRequest(table_id=table_id, command_id=cid, seat=seat)
            getattr(req, "pass").SetInParent()
            out = send(edge, act, "proto", ROUTES[(seat + i) % 3], player.token, req)
            TALLY.add("replay-another-command", out)
            assert not out.ok and out.reason in ("CANNOT_PASS", "NOT_YOUR_TURN", "UNKNOWN_COMMAND"), out
    assert truth.events[-1][0] == final == edge.view(None, table_id).version
    streamed = 0
    for w in watchers:
        for msg in w.finish(final):
            for v, part in _versioned(msg):
                tiles_seen += truth.check(part, w.seat, v, f"Watch {w.route}")
            streamed += 1
    # okey export (the command) as a spectator sees it: no rack, no deck order
    env = dict(os.environ, OKEY_DATABASE_URL=edge.database_url)
    done = subprocess.run(
        [sys.executable, "-m", "okeytools.cli", "export", table_id],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [int(line["version"]) for line in lines] == list(range(1, final + 1))
    exported = sum(_check_export(truth, line) for line in lines)
    # the checker itself: the private export does show what it must find
    private = edge.call(_collect(export_lines(_store(edge), table_id, private=True)))
    with pytest.raises(AssertionError, match="hidden tile"):
        for line in private:
            _check_export(truth, json.loads(line))
    print(
        f"reading another rack: {sum(reads.values())} reads {reads}, {streamed} streamed messages on "
        f"{len(watchers)} watches, {len(lines)} exported events, {tiles_seen + exported} tiles checked, "
        f"{denied} reads as another seat refused, {4 * len(command_ids)} replays of others' command ids refused"
    )
    edge.healthy()


def _tiles(value: Any, where: str = "") -> Iterator[tuple[str, int]]:
    """Every okey.v1.Tile in a line of protobuf JSON (``{"id", "code"}``; the export writes zeros
    out, so an id 0 is there too), with where it was found."""
    if isinstance(value, dict):
        if set(value) == {"id", "code"}:
            yield where, int(value["id"])
            return
        for k, v in value.items():
            yield from _tiles(v, f"{where}.{k}" if where else k)
    elif isinstance(value, list):
        for v in value:
            yield from _tiles(v, where)


def _check_export(truth: Truth, line: dict[str, Any]) -> int:
    version = int(line["version"])
    secret = truth.hidden(None, version)
    n = 0
    for where, tid in _tiles(line):
        n += 1
        assert tid not in secret, f"export: hidden tile {tid} in {where} at v{version}"
    return n


def _store(edge: Edge) -> Any:
    assert edge.events is not None
    return edge.events


async def _collect(lines: Any) -> list[str]:
    return [line async for line in lines]


# ------------------------------------------------------------------ floods


def _send_chat(edge: Edge, token: str, text: str, table_id: str = "") -> httpx.Response:
    return _http(edge, "/okey.v1.LobbyService/SendMessage", {"tableId": table_id, "text": text}, token)


def test_chat_floods_are_refused_by_the_flood_limits(edge: Edge) -> None:
    """Five messages per 10 s, the same text at most twice a minute: past that a clean 429 FLOOD,
    sequentially and with twelve messages sent at once; nobody reads or writes the chat of a
    table they do not sit at."""
    send_message = rpc("LobbyService.SendMessage")

    def sent(r: httpx.Response) -> Outcome:
        out = check_http(r, send_message)
        TALLY.add("chat-flood", out)
        assert out.ok or (out.code == "429" and out.reason == "FLOOD"), out
        return out

    texts = ["selam", "nasılsınız", "iyi oyunlar", "hadi bakalım", "güzel el", "tebrikler", "bir el daha"]
    spammer = edge.sign_in("Spammer")
    outs = [sent(_send_chat(edge, spammer.token, t)) for t in texts]
    assert [o.ok for o in outs] == [True] * 5 + [False] * 2, outs
    parrot = edge.sign_in("Papagan")
    outs = [sent(_send_chat(edge, parrot.token, "iyi oyunlar")) for _ in range(3)]
    assert [o.ok for o in outs] == [True, True, False], outs
    burst = edge.sign_in("Burst")  # twelve at once, no text more than twice
    results = parallel(12, lambda i: _send_chat(edge, burst.token, f"{texts[i % 7]} {'!' * (i + 1)}"))
    assert sum(sent(r).ok for r in results) == 5, [r.status_code for r in results]
    listed = edge.lobby_stub().ListMessages(
        lpb.ListMessagesRequest(limit=200), metadata=burst.auth, timeout=RPC_TIMEOUT_S
    )
    assert sum(1 for m in listed.messages if m.player_id == burst.player_id) == 5
    # the victims' table chat: an outsider neither writes nor reads it
    r = _send_chat(edge, parrot.token, "merhaba", edge.table_id)
    assert r.status_code == 409 and r.json()["reason"] == "NOT_SEATED", r.text
    r = _http(edge, "/okey.v1.LobbyService/ListMessages", {"tableId": edge.table_id}, parrot.token)
    assert r.status_code == 409 and r.json()["reason"] == "NOT_SEATED", r.text
    print(f"chat floods: {7 + 3 + 12 + 2} requests")
    edge.healthy()


def test_a_request_flood_is_rate_limited_per_caller(edge: Edge) -> None:
    """A gateway at 1 request/s (burst 5): one caller's flood of 20 at once gets 429 RATE_LIMITED
    (HTTP) or RESOURCE_EXHAUSTED (gRPC) past what its bucket holds, while another caller is
    still served."""
    gw = edge.extra_gateway(OKEY_RATE_LIMIT="1", OKEY_RATE_BURST="5")
    leaderboard = rpc("ScoringService.GetLeaderboard")

    def allowed_at_most(elapsed: float) -> int:
        return 5 + int(elapsed * 1) + 1

    try:
        flooder = issue_token("flooder")
        with httpx.Client(base_url=f"http://127.0.0.1:{gw.http_port}", timeout=RPC_TIMEOUT_S) as http:
            t0 = time.monotonic()
            results = parallel(
                20,
                lambda i: http.post(
                    f"/api{leaderboard.path}",
                    json={"game": "GAME_OKEY"},
                    headers={"authorization": f"Bearer {flooder}"},
                ),
            )
            elapsed = time.monotonic() - t0
            outs = [check_http(r, leaderboard) for r in results]
            for o in outs:
                TALLY.add("request-flood", o)
            served = sum(o.ok for o in outs)
            assert 5 <= served <= allowed_at_most(elapsed), (served, elapsed)
            assert all(o.code == "429" and o.reason == "RATE_LIMITED" for o in outs if not o.ok), outs
            r = http.post(
                f"/api{leaderboard.path}",
                json={"game": "GAME_OKEY"},
                headers={"authorization": f"Bearer {issue_token('calm')}"},
            )
            assert r.status_code == 200
        grpc_flooder = (("authorization", f"Bearer {issue_token('flooder-grpc')}"),)
        with grpc.insecure_channel(f"127.0.0.1:{gw.grpc_port}") as ch:
            codes = []
            t0 = time.monotonic()
            for _ in range(12):
                try:
                    ch.unary_unary(leaderboard.path)(
                        leaderboard.request_cls(game=1).SerializeToString(),
                        metadata=grpc_flooder,
                        timeout=RPC_TIMEOUT_S,
                    )
                    codes.append("OK")
                except grpc.RpcError as err:
                    codes.append(err.code().name)  # type: ignore[attr-defined]
                    assert error_reason(err) == "RATE_LIMITED"
                TALLY.add("request-flood", Outcome("gateway", codes[-1] == "OK", codes[-1]))
            elapsed = time.monotonic() - t0
        assert set(codes) <= {"OK", "RESOURCE_EXHAUSTED"}, codes
        assert 5 <= codes.count("OK") <= allowed_at_most(elapsed), (codes, elapsed)
        print(f"request flood: {20 + 1 + 12} requests")
    finally:
        gw.stop()
    edge.healthy()


# ------------------------------------------------------------------ seats


def _join(edge: Edge, token: str, table_id: str, seat: int | None = None) -> httpx.Response:
    body: dict[str, Any] = {"tableId": table_id}
    if seat is not None:
        body["seat"] = seat
    return _http(edge, "/okey.v1.LobbyService/JoinTable", body, token)


def _open(edge: Edge, player: Player, **options: Any) -> str:
    body = {"options": {"game": "GAME_OKEY", **options}}
    r = _http(edge, "/okey.v1.LobbyService/OpenTable", body, player.token)
    assert r.status_code == 200, r.text
    return str(r.json()["table"]["tableId"])


def _seats(edge: Edge, table_id: str, player: Player) -> list[Any]:
    card = (
        edge.lobby_stub()
        .GetTableCard(lpb.GetTableCardRequest(table_id=table_id), metadata=player.auth, timeout=RPC_TIMEOUT_S)
        .table
    )
    return [s for s in card.seats if s.player_id]


def test_no_player_or_device_takes_two_seats_at_a_table_even_all_at_once(edge: Edge) -> None:
    """Joining twice, ten joins at once, a second account on the same device (in turn and at
    once), QuickPlay twice: one seat per player and per device, every other attempt a clean 409."""
    join_table = rpc("LobbyService.JoinTable")
    host = edge.sign_in("Ev Sahibi")
    table_id = _open(edge, host, match_points=5)
    r = _join(edge, host.token, table_id)
    assert r.status_code == 409 and r.json()["reason"] == "ALREADY_SEATED"
    eager = edge.sign_in("Aceleci")
    results = parallel(10, lambda i: _join(edge, eager.token, table_id))
    outs = [check_http(r, join_table) for r in results]
    for o in outs:
        TALLY.add("double-seat", o)
    assert sum(o.ok for o in outs) == 1, [o.reason for o in outs]
    assert {o.reason for o in outs if not o.ok} <= {"ALREADY_SEATED", "SEAT_TAKEN"}
    twin = edge.sign_in("Ikiz", device=eager.device)
    r = _join(edge, twin.token, table_id)
    assert r.status_code == 409 and r.json()["reason"] == "SAME_DEVICE", r.text
    # two accounts of one new device, at once, for the two free seats
    a = edge.sign_in("Cihaz Bir", device="shared-device-1")
    b = edge.sign_in("Cihaz Iki", device="shared-device-1")
    results = parallel(2, lambda i: _join(edge, (a, b)[i].token, table_id))
    outs = [check_http(r, join_table) for r in results]
    for o in outs:
        TALLY.add("double-seat", o)
    assert sum(o.ok for o in outs) == 1, outs
    assert [o.reason for o in outs if not o.ok] == ["SAME_DEVICE"]
    seated = _seats(edge, table_id, host)
    assert len({s.player_id for s in seated}) == len(seated) == 3
    # QuickPlay twice: the same seat, not a second one
    qp = edge.sign_in("Hizli")
    body = {"options": {"game": "GAME_OKEY", "matchPoints": 7}}
    first = _http(edge, "/okey.v1.LobbyService/QuickPlay", body, qp.token).json()
    again = _http(edge, "/okey.v1.LobbyService/QuickPlay", body, qp.token).json()
    assert first["table"]["tableId"] == again["table"]["tableId"] and first.get("seat", 0) == again.get("seat", 0)
    assert sum(s.player_id == qp.player_id for s in _seats(edge, first["table"]["tableId"], qp)) == 1
    print(f"double seats: {1 + 10 + 1 + 2 + 2} attempts")
    edge.ledger_invariants()
    edge.healthy()


# ------------------------------------------------------------------ chips


def _balance(edge: Edge, player: Player) -> int:
    return int(edge.lobby_stub().GetChips(lpb.GetChipsRequest(), metadata=player.auth, timeout=RPC_TIMEOUT_S).balance)


def test_chips_cannot_be_double_spent_with_concurrent_requests(edge: Edge) -> None:
    """A player with 1000 chips joins six 400-chip tables at once (each join starts the match and
    holds the stake): two succeed, four are refused. Another fills three 400-chip tables with bots
    at once: two start. Ten concurrent daily claims and ten concurrent sign-ins under one name
    grant nothing twice. No balance goes below zero and all chips still sum to zero."""
    join_table, fill = rpc("LobbyService.JoinTable"), rpc("LobbyService.FillWithBots")
    hosts = [edge.sign_in(f"Masa Sahibi {chr(65 + i)}") for i in range(6)]
    tables = [_open(edge, h, duel=True, stake=400) for h in hosts]  # duel: seats 0 and 2 are people
    spender = edge.sign_in("Harcayan")
    assert _balance(edge, spender) == 1000
    results = parallel(6, lambda i: _join(edge, spender.token, tables[i]))
    outs = [check_http(r, join_table) for r in results]
    for o in outs:
        TALLY.add("double-spend", o)
    assert sum(o.ok for o in outs) == 2, [(o.code, o.reason) for o in outs]
    assert {o.reason for o in outs if not o.ok} == {"INSUFFICIENT_CHIPS"}
    assert _balance(edge, spender) == 200
    for h, o in zip(hosts, outs, strict=True):
        assert _balance(edge, h) == (600 if o.ok else 1000)  # a host's stake is held only if the match started
    edge.ledger_invariants()

    filler = edge.sign_in("Doldurucu")
    own = [_open(edge, filler, stake=400) for _ in range(3)]  # three: the open-tables cap per player
    results = parallel(3, lambda i: _http(edge, fill.path, {"tableId": own[i]}, filler.token))
    outs = [check_http(r, fill) for r in results]
    for o in outs:
        TALLY.add("double-spend", o)
    assert sum(o.ok for o in outs) == 2, [(o.code, o.reason) for o in outs]
    assert _balance(edge, filler) == 200
    edge.ledger_invariants()

    claims = parallel(10, lambda i: _http(edge, "/okey.v1.LobbyService/ClaimDailyChips", {}, filler.token))
    for r in claims:
        TALLY.add("double-spend", check_http(r, rpc("LobbyService.ClaimDailyChips")))
    assert all(r.status_code == 200 for r in claims)
    assert sum(int(r.json().get("granted", 0)) for r in claims) == 0  # the day's grant came with the sign-in
    assert _balance(edge, filler) == 200
    signins = parallel(
        10,
        lambda i: _http(
            edge, "/okey.v1.LobbyService/SignInGuest", {"displayName": "Tekrar", "deviceId": f"d{i}"}, None
        ),
    )
    for r in signins:
        TALLY.add("double-spend", check_http(r, rpc("LobbyService.SignInGuest")))
    assert sorted(r.status_code for r in signins) == [200] + [409] * 9
    assert {r.json()["reason"] for r in signins if r.status_code == 409} == {"NAME_TAKEN"}
    edge.ledger_invariants()
    print(f"double spending: {6 + 3 + 10 + 10} concurrent requests")
    edge.healthy()


# ------------------------------------------------------------------ admin RPCs


def test_a_player_token_cannot_use_the_admin_rpcs(edge: Edge) -> None:
    """ListReports and ResolveReport with a player's token: PERMISSION_DENIED STAFF_ONLY on every
    route (the service role too); the same token rewritten to say admin, or an admin token signed
    with another secret: UNAUTHENTICATED. The report a player tried to resolve stays open and the
    reported player unbanned. Another player's profile shows no chips."""
    assert edge.mallory is not None
    victim = edge.victims[2]
    report_id = (
        edge.lobby_stub()
        .ReportPlayer(
            lpb.ReportPlayerRequest(player_id=victim.player_id, reason=lpb.REPORT_REASON_ABUSE, details="test"),
            metadata=edge.mallory.auth,
            timeout=RPC_TIMEOUT_S,
        )
        .report_id
    )
    list_reports, resolve = rpc("LobbyService.ListReports"), rpc("LobbyService.ResolveReport")
    resolve_req = lpb.ResolveReportRequest(report_id=report_id, action=lpb.REPORT_ACTION_BAN)
    _, body, sig = edge.mallory.token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    forged_body = base64.urlsafe_b64encode(json.dumps({**claims, "role": "admin"}).encode()).rstrip(b"=").decode()
    tampered = f"v1.{forged_body}.{sig}"
    foreign_admin = issue_token(edge.mallory.player_id, "admin", secret=b"not-our-secret")
    n = 0
    for route in ROUTES:
        for r, req in ((list_reports, lpb.ListReportsRequest()), (resolve, resolve_req)):
            for token, want in (
                (edge.mallory.token, ("PERMISSION_DENIED", "403")),
                (issue_token("some-service", "service"), ("PERMISSION_DENIED", "403")),
                (tampered, ("UNAUTHENTICATED", "401")),
                (foreign_admin, ("UNAUTHENTICATED", "401")),
            ):
                out = send(edge, r, "proto", route, token, req)
                TALLY.add("admin-rpc", out)
                n += 1
                assert out.code in want, (r.path, route, out)
                assert out.reason in ("STAFF_ONLY", "BAD_TOKEN"), out
    admin_md = (("authorization", f"Bearer {edge.admin_token}"),)
    reports = edge.lobby_stub().ListReports(lpb.ListReportsRequest(), metadata=admin_md, timeout=RPC_TIMEOUT_S).reports
    mine = next(r for r in reports if r.report_id == report_id)
    assert mine.status == lpb.REPORT_STATUS_OPEN
    profile = (
        edge.lobby_stub()
        .GetPlayer(lpb.GetPlayerRequest(player_id=victim.player_id), metadata=admin_md, timeout=RPC_TIMEOUT_S)
        .player
    )
    assert not profile.HasField("banned_until")
    seen = (
        edge.lobby_stub()
        .GetPlayer(lpb.GetPlayerRequest(player_id=victim.player_id), metadata=edge.mallory.auth, timeout=RPC_TIMEOUT_S)
        .player
    )
    assert seen.chips == 0 and not seen.HasField("muted_until") and not seen.HasField("banned_until")
    assert profile.chips == 900  # the stake is held; only an admin (and the player) see it
    print(f"admin RPCs: {n} attempts")
    edge.healthy()


# ------------------------------------------------------------------ issue 15: holes a single guest could use


def test_15_1_a_guest_cannot_take_over_a_lobby_table_by_creating_it_first(edge: Edge) -> None:
    """A waiting lobby table's id is public. A guest creates a table under that id with their own
    options (a huge hand prize, 11 rounds) and seats: refused, nothing is written, and when the
    others join, the match starts on the lobby's table with the lobby's options and seats."""
    host = edge.sign_in("Masa Kurucu")
    table_id = _open(edge, host, duel=True, stake=100)
    attacker = edge.sign_in("Korsan")
    before = (_balance(edge, host), _balance(edge, attacker))
    create = {
        "tableId": table_id,
        "options": {"game": "GAME_OKEY101", "handPrize": 1_000_000_000, "rounds": 11, "seats": 4},
        "seats": [{"playerId": attacker.player_id}, {}, {}, {}],
    }
    for path in ("/okey.v1.TableService/CreateTable",):
        r = _http(edge, path, create, attacker.token)
        assert r.status_code == 403 and r.json()["reason"] == "TABLE_ID_NOT_ALLOWED", r.text
    # ... and over gRPC through the gateway too.
    req = json_format.ParseDict(create, tpb.CreateTableRequest())
    with pytest.raises(grpc.RpcError) as err:
        edge.table_stub("gateway").CreateTable(req, metadata=attacker.auth, timeout=RPC_TIMEOUT_S)
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED  # type: ignore[attr-defined]
    r = _http(edge, "/okey.v1.TableService/GetView", {"tableId": table_id}, attacker.token)
    assert r.status_code == 404, r.text  # nothing was created under the lobby's id
    guest = edge.sign_in("Misafir Oyuncu")
    r = _join(edge, guest.token, table_id)
    assert r.status_code == 200 and r.json()["started"], r.text
    view = edge.view(None, table_id)
    assert view.options.game == common_pb2.GAME_OKEY and view.options.duel and view.options.stake == 100
    assert view.seats[0].player_id == host.player_id and view.seats[2].player_id == guest.player_id
    assert (_balance(edge, host), _balance(edge, attacker)) == (before[0] - 100, before[1])
    edge.ledger_invariants()
    edge.healthy()


def test_15_3_a_player_cannot_freeze_a_table_by_spending_the_timers_command_id(edge: Edge) -> None:
    """The timer's and the bots' command ids are predictable (``timer:<version>``). A player who
    plays their own move under the id the timer will use next must not turn the timeout into a
    "duplicate": the timer still appends its TimeOut, so the table keeps moving."""
    assert edge.mallory is not None
    m = edge.mallory
    create = tpb.CreateTableRequest(options=common_pb2.TableOptions(game=common_pb2.GAME_OKEY, turn_seconds=5))
    for p in (m.player_id, "", "", ""):
        create.seats.add(player_id=p)
    table_id = edge.table_stub().CreateTable(create, metadata=_svc(edge), timeout=RPC_TIMEOUT_S).table_id
    view = edge.view(None, table_id)
    if view.turn != 0:  # play the bot seats' turns until it is mallory's (seat 0) own turn
        while view.turn != 0:
            seat = view.turn
            rack = edge.view(seat, table_id).rack
            act = {"tableId": table_id, "commandId": f"setup-{view.version}", "seat": seat}
            if view.stage == tpb.STAGE_DRAW:
                act["draw"] = {}
            else:
                act["discard"] = {"tileId": rack[-1].id}
            r = _http(edge, "/okey.v1.TableService/Act", act, edge.service_token)
            assert r.status_code == 200, r.text
            view = edge.view(None, table_id)
    if view.stage == tpb.STAGE_DRAW:
        r = _http(
            edge, "/okey.v1.TableService/Act", {"tableId": table_id, "commandId": "d", "seat": 0, "draw": {}}, m.token
        )
        assert r.status_code == 200, r.text
        view = edge.view(None, table_id)
    tile = edge.view(0, table_id).rack[-1].id
    spent = f"timer:{view.version + 1}"  # the id the timer will use once the next seat's time runs out
    body = {"tableId": table_id, "commandId": spent, "seat": 0, "discard": {"tileId": tile}}
    r = _http(edge, "/okey.v1.TableService/Act", body, m.token)
    assert r.status_code == 200, r.text
    after = edge.view(None, table_id)
    assert after.version == view.version + 1 and after.turn == 1
    edge.let_timer_fire(table_id)  # the next seat's 5 s have run out: the table service's own timer fires
    deadline = time.monotonic() + 20
    while edge.view(None, table_id).version == after.version and time.monotonic() < deadline:
        time.sleep(0.1)
    timed = edge.view(None, table_id)
    assert timed.version > after.version and timed.timed_out  # the TimeOut was appended
    assert edge.private_events(table_id)[-1].type == "TurnTimedOut"
    edge.healthy()


def test_15_2_a_table_with_an_int64_stake_or_hand_prize_is_refused_everywhere(edge: Edge) -> None:
    """``stake`` 9223372036854775807 once reached scoring and overflowed it: the table service
    (the authority) refuses what is past okeycore's bounds, as the lobby does; scoring stays up."""
    from okeycore.options import MAX_CHIPS

    guest = edge.sign_in("Taşkın")
    huge = 2**63 - 1
    cases = [
        {"game": "GAME_OKEY", "stake": huge},
        {"game": "GAME_OKEY", "stake": MAX_CHIPS + 1},
        {"game": "GAME_OKEY101", "seats": 2, "handPrize": huge},
        {"game": "GAME_OKEY", "stake": -1},
    ]
    for options in cases:
        body = {"options": options, "seats": [{"playerId": guest.player_id}, {}, {}, {}][: options.get("seats", 4)]}
        r = _http(edge, "/okey.v1.TableService/CreateTable", body, guest.token)
        assert r.status_code == 400 and r.json()["reason"] == "INVALID_OPTIONS", r.text
        name = "hand_prize" if "handPrize" in options else "stake"
        assert name in r.json()["message"] and f"{MAX_CHIPS:,}" in r.json()["message"], r.text
        r = _http(edge, "/okey.v1.LobbyService/OpenTable", {"options": options}, guest.token)
        assert r.status_code == 400 and r.json()["reason"] == "INVALID_OPTIONS", r.text
    # at the bound itself the table service opens the table (the lobby's own cap may be lower)
    ok = {"options": {"game": "GAME_OKEY", "stake": MAX_CHIPS}, "seats": [{"playerId": guest.player_id}, {}, {}, {}]}
    r = _http(edge, "/okey.v1.TableService/CreateTable", ok, guest.token)
    assert r.status_code == 200, r.text
    edge.ledger_invariants()
    edge.healthy()


def _extra_gateway(edge: Edge, **env: str) -> GatewayAt:
    return edge.extra_gateway(**env)


def test_15_7_a_spoofed_x_forwarded_for_does_not_dodge_the_per_address_limit(edge: Edge) -> None:
    """Anonymous calls (sign-in) are limited per address. X-Forwarded-For is believed only from a
    configured proxy (OKEY_TRUSTED_PROXIES): a caller writing a new one per request is still one
    address, and is refused once its burst is spent."""
    gw = _extra_gateway(edge, OKEY_RATE_LIMIT="0.5", OKEY_RATE_BURST="3")
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{gw.http_port}", timeout=RPC_TIMEOUT_S) as http:
            codes = []
            for i in range(8):
                r = http.post(
                    "/api/okey.v1.LobbyService/SignInGuest",
                    json={"displayName": f"Kukla {i}", "deviceId": f"kukla-{i}"},
                    headers={"x-forwarded-for": f"203.0.113.{i + 1}"},
                )
                codes.append(r.status_code)
            assert codes.count(429) >= 4, codes
            assert all(c in (200, 429) for c in codes), codes
    finally:
        gw.stop()
    # From a configured proxy, the forwarded address is the caller's: each one has its own burst.
    gw = _extra_gateway(edge, OKEY_RATE_LIMIT="0.5", OKEY_RATE_BURST="3", OKEY_TRUSTED_PROXIES="127.0.0.1")
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{gw.http_port}", timeout=RPC_TIMEOUT_S) as http:
            codes = [
                http.post(
                    "/api/okey.v1.LobbyService/SignInGuest",
                    json={"displayName": f"Vekil {i}", "deviceId": f"vekil-{i}"},
                    headers={"x-forwarded-for": f"198.51.100.{i + 1}"},
                ).status_code
                for i in range(6)
            ]
            assert 429 not in codes, codes
    finally:
        gw.stop()


def test_15_9_silent_and_half_sent_connections_are_closed_and_capped(edge: Edge) -> None:
    """Slowloris: connections that never finish a request are closed after the header timeout
    (OKEY_HTTP_HEADER_TIMEOUT_S), while a real request on another connection is answered."""
    import socket

    gw = _extra_gateway(edge, OKEY_HTTP_HEADER_TIMEOUT_S="1")
    try:
        socks = []
        for i in range(60):
            s = socket.create_connection(("127.0.0.1", gw.http_port), timeout=5)
            if i % 3 == 1:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # headers never finished
            elif i % 3 == 2:
                s.sendall(b"POST /api/okey.v1.TableService/GetView HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
            socks.append(s)
        r = httpx.get(f"http://127.0.0.1:{gw.http_port}/healthz", timeout=5)
        assert r.status_code == 200
        # Each connection is read until the gateway closes it, within the header timeout (1 s)
        # and a margin for a loaded machine: the test waits for the closes, not a fixed 2.5 s.
        deadline = time.monotonic() + 1 + 10
        closed = 0
        for s in socks:
            s.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                closed += s.recv(1) == b""
            except TimeoutError:
                pass  # still open at the deadline
            except OSError:
                closed += 1  # reset
            s.close()
        assert closed == len(socks), f"{len(socks) - closed} of {len(socks)} slow connections still open after 11 s"
        # A connection that sends its request in time is served as usual, and then kept alive briefly.
        with httpx.Client(base_url=f"http://127.0.0.1:{gw.http_port}", timeout=5) as http:
            assert http.get("/healthz").status_code == 200
            assert http.get("/healthz").status_code == 200
    finally:
        gw.stop()


def test_15_10_the_web_page_cannot_be_framed_sniffed_or_fed_foreign_script(edge: Edge) -> None:
    assert edge.http is not None
    for path in ("/", "/app.js", "/healthz", "/api"):
        r = edge.http.get(path)
        assert r.status_code == 200, path
        csp = r.headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "object-src 'none'" in csp, path
        assert r.headers.get("x-frame-options") == "DENY" and r.headers.get("x-content-type-options") == "nosniff"
        assert r.headers.get("referrer-policy") == "no-referrer", path
    r = edge.http.post("/api/okey.v1.TableService/GetView", json={})
    assert r.status_code == 401 and r.headers.get("x-frame-options") == "DENY"
    page = edge.http.get("/").text
    assert "<script>" not in page and " style=" not in page and "onclick" not in page  # nothing inline to allow


def _watch_url(edge: Edge, table_id: str, token: str) -> str:
    return ws_url(edge, rpc("TableService.Watch"), {"tableId": table_id, "seat": "0", "token": token})


def test_15_5_a_player_cannot_open_tables_or_watch_streams_without_end(edge: Edge) -> None:
    """One guest opening all-bot tables, and holding watch streams open, stops at the caps
    (OKEY_MAX_TABLES_PER_PLAYER 3, OKEY_MAX_WATCHES_PER_PLAYER 8): a clean 429 / 4429 with the
    reason, nothing written, and the cap frees when a stream closes."""
    guest = edge.sign_in("Masa Toplayıcı")
    body = {"options": {"game": "GAME_OKEY", "matchPoints": 1000}, "seats": [{"playerId": guest.player_id}, {}, {}, {}]}
    made = []
    for _ in range(3):
        r = _http(edge, "/okey.v1.TableService/CreateTable", body, guest.token)
        assert r.status_code == 200, r.text
        made.append(r.json()["tableId"])
    r = _http(edge, "/okey.v1.TableService/CreateTable", body, guest.token)
    assert r.status_code == 429 and r.json()["reason"] == "TOO_MANY_TABLES", r.text
    other = edge.sign_in("Başka Oyuncu")  # a cap per player, not for everyone
    assert (
        _http(
            edge,
            "/okey.v1.TableService/CreateTable",
            body | {"seats": [{"playerId": other.player_id}, {}, {}, {}]},
            other.token,
        ).status_code
        == 200
    )
    # Watch streams: eight at once, the ninth refused; one closed frees a place. Each connection
    # is entered as a context manager (websockets' sync client requires it), on one ExitStack
    # that closes whichever are still open at the end.
    with contextlib.ExitStack() as open_streams:
        socks = []
        for i in range(8):
            ws = open_streams.enter_context(
                ws_client.connect(_watch_url(edge, made[i % 3], guest.token), open_timeout=RPC_TIMEOUT_S)
            )
            assert "snapshot" in json.loads(ws.recv(timeout=RPC_TIMEOUT_S))
            socks.append(ws)
        with ws_client.connect(_watch_url(edge, made[0], guest.token), open_timeout=RPC_TIMEOUT_S) as extra:
            refused = json.loads(extra.recv(timeout=RPC_TIMEOUT_S))
            assert refused["error"]["reason"] == "TOO_MANY_WATCHES", refused
            with pytest.raises(ConnectionClosed) as closed:
                extra.recv(timeout=RPC_TIMEOUT_S)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
        socks.pop().close()
        # The place is free once the gateway has seen that stream end: asked again until then (a
        # refused watch holds nothing), not after a fixed pause.
        deadline = time.monotonic() + 10
        while True:
            ws = open_streams.enter_context(
                ws_client.connect(_watch_url(edge, made[1], guest.token), open_timeout=RPC_TIMEOUT_S)
            )
            first = json.loads(ws.recv(timeout=RPC_TIMEOUT_S))
            if "snapshot" in first:
                break  # kept open, with the seven others, until the ExitStack ends
            ws.close()
            assert first.get("error", {}).get("reason") == "TOO_MANY_WATCHES", first
            assert time.monotonic() < deadline, "a closed watch stream did not free its place in 10 s"
            time.sleep(0.05)
    edge.healthy()


def _from(edge: Edge, source: str, gw: GatewayAt | None = None) -> httpx.Client:
    """An HTTP client of the gateway whose connections come from ``source`` (any 127.x.y.z is
    this machine): one address of its own, apart from the other tests' 127.0.0.1."""
    port = (gw or edge.gateway).http_port  # type: ignore[union-attr]
    return httpx.Client(
        base_url=f"http://127.0.0.1:{port}",
        transport=httpx.HTTPTransport(local_address=source),
        timeout=RPC_TIMEOUT_S,
    )


def test_15_7_one_device_or_address_cannot_mint_accounts_and_chips(edge: Edge) -> None:
    """Sock puppets: 25 sign-ins with one device id, then 25 with a new device id each, all from
    one address through the gateway: a few accounts a day per device and per address, past that
    429 TOO_MANY_ACCOUNTS; the daily chips once per device and a few times per address, whatever
    the accounts (a puppet's ClaimDailyChips: 429 DAILY_CHIPS_TAKEN). A client's own
    x-okey-client-addr or X-Forwarded-For changes nothing; another address is not limited by it."""
    daily_chips = Limits().daily_chips  # the lobby's (no environment overrides it here)
    sign_in = rpc("LobbyService.SignInGuest")
    refusals: dict[str, str] = {}
    with _from(edge, "127.0.0.57") as http:

        def attempt(name: str, device: str, headers: dict[str, str]) -> dict[str, Any] | None:
            r = http.post(f"/api{sign_in.path}", json={"displayName": name, "deviceId": device}, headers=headers)
            out = check_http(r, sign_in)
            TALLY.add("sock-puppets", out)
            if out.ok:
                return dict(r.json())
            assert out.code == "429" and out.reason == "TOO_MANY_ACCOUNTS", out
            refusals[device if device == "puppet-phone" else "address"] = r.json()["message"]
            return None

        one_device = [attempt(f"Kukla Cihaz {i}", "puppet-phone", {}) for i in range(25)]
        spoofed = {"x-okey-client-addr": "10.1.2.3", "x-forwarded-for": "10.3.4.5"}
        new_devices = [attempt(f"Kukla Adres {i}", f"puppet-{i}", spoofed) for i in range(25)]
        device_accounts = [a for a in one_device if a]
        address_accounts = [a for a in new_devices if a]
        assert len(device_accounts) == 3  # OKEY_MAX_ACCOUNTS_PER_DEVICE
        assert len(device_accounts) + len(address_accounts) == 10  # OKEY_MAX_ACCOUNTS_PER_ADDRESS
        assert "per device" in refusals["puppet-phone"] and "cihaz" in refusals["puppet-phone"]
        assert "per address" in refusals["address"] and "bağlantı" in refusals["address"]
        accounts = device_accounts + address_accounts
        granted = [int(a.get("chipsGranted", 0)) for a in accounts]
        balances = []
        for a in accounts:
            r = http.post(
                "/api/okey.v1.LobbyService/GetChips", json={}, headers={"authorization": f"Bearer {a['token']}"}
            )
            assert r.status_code == 200, r.text
            balances.append(int(r.json().get("balance", 0)))
        assert balances == granted
        assert sum(granted[: len(device_accounts)]) == daily_chips  # once for the device
        assert sum(balances) == daily_chips * 5  # OKEY_DAILY_GRANTS_PER_ADDRESS (not 35 grants)
        poor = next(a for a, g in zip(accounts, granted, strict=True) if g == 0)
        r = http.post(
            "/api/okey.v1.LobbyService/ClaimDailyChips", json={}, headers={"authorization": f"Bearer {poor['token']}"}
        )
        assert r.status_code == 429 and r.json()["reason"] == "DAILY_CHIPS_TAKEN", r.text
    with _from(edge, "127.0.0.58") as http:  # a neighbour on another address
        r = http.post(f"/api{sign_in.path}", json={"displayName": "Komşu Oyuncu", "deviceId": "neighbour-1"})
        assert r.status_code == 200 and int(r.json()["chipsGranted"]) == daily_chips, r.text
    print(f"sock puppets: 50 sign-ins from one address, {len(accounts)} accounts, {sum(balances)} chips")
    edge.ledger_invariants()
    edge.healthy()


def test_15_8_several_tokens_of_one_address_share_the_rate_limit(edge: Edge) -> None:
    """Three players' tokens from one address (gRPC and HTTP through a gateway at 1 request/s per
    player with bursts of 10, 0.2/s per address with bursts of 15) hammer GetLeaderboard at once:
    about 15 pass between them (the address's bucket), not 30; refusals are RATE_LIMITED, the
    HTTP ones saying "per address". The address's WebSocket watch is refused too (4429), while
    a player from another address is served, up to its own per-player burst."""
    from urllib.parse import urlencode

    from edge_helpers import grpc_call

    gw = _extra_gateway(
        edge,
        OKEY_RATE_LIMIT="1",
        OKEY_RATE_BURST="10",
        OKEY_RATE_LIMIT_PER_ADDRESS="0.2",
        OKEY_RATE_BURST_PER_ADDRESS="15",
    )
    leaderboard = rpc("ScoringService.GetLeaderboard")
    players = [edge.sign_in(f"Çoklu Jeton {i}") for i in range(3)]
    payload = leaderboard.request_cls(game=common_pb2.GAME_OKEY)
    channel = grpc.insecure_channel(f"127.0.0.1:{gw.grpc_port}")
    try:
        with _from(edge, "127.0.0.1", gw) as http:

            def call(i: int) -> Outcome:
                token = players[i % 3].token
                if i % 2:
                    r = http.post(
                        f"/api{leaderboard.path}",
                        json={"game": "GAME_OKEY"},
                        headers={"authorization": f"Bearer {token}"},
                    )
                    return check_http(r, leaderboard)
                return grpc_call(channel, leaderboard, payload.SerializeToString(), token, "gateway")

            t0 = time.monotonic()
            outs = parallel(60, call)
            elapsed = time.monotonic() - t0
        for o in outs:
            TALLY.add("shared-rate-limit", o)
        served = sum(o.ok for o in outs)
        assert all(o.reason == "RATE_LIMITED" and o.code in ("429", "RESOURCE_EXHAUSTED") for o in outs if not o.ok)
        assert 15 <= served <= 15 + int(elapsed * 0.2) + 1, (served, elapsed)  # 3 x 10 before [issue 15.8]
        assert all("per address" in o.body["message"] for o in outs if o.route == "http" and not o.ok)
        params = {"tableId": edge.table_id, "seat": "0", "token": edge.victims[0].token}
        url = f"ws://127.0.0.1:{gw.http_port}/ws{rpc('TableService.Watch').path}?{urlencode(params)}"
        with ws_client.connect(url, open_timeout=RPC_TIMEOUT_S) as ws, pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=RPC_TIMEOUT_S)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
        assert "per address" in closed.value.rcvd.reason
        # the same player from another address: the rest of its own per-player bucket, no more
        mine = sum(o.ok for i, o in enumerate(outs) if i % 3 == 0)
        with _from(edge, "127.0.0.59", gw) as other:
            answers = [
                other.post(
                    f"/api{leaderboard.path}",
                    json={"game": "GAME_OKEY"},
                    headers={"authorization": f"Bearer {players[0].token}"},
                )
                for _ in range(20)
            ]
        elapsed = time.monotonic() - t0
        theirs = sum(r.status_code == 200 for r in answers)
        assert 10 <= mine + theirs <= 10 + int(elapsed * 1) + 1, (mine, theirs, elapsed)
        assert all("per player" in r.json()["message"] for r in answers if r.status_code != 200)
    finally:
        channel.close()
        gw.stop()
    edge.healthy()


def test_15_12_chat_and_names_refuse_obfuscated_abuse_through_the_gateway(edge: Edge) -> None:
    """Issue 15 item 12: the chat filter and the name check read through the usual disguises
    (blank and invisible characters, a right-to-left override, I or | for l, punctuation between
    the letters, look-alike letters of other scripts, enclosed letters, glued digits, vowel-less
    spellings, spaced phone digits). Over the gateway's HTTP/JSON each message is a clean 409 with
    the rule's reason and is not posted; a name passing for staff (``Adrnin``) cannot sign in
    (400 INVALID_NAME); a clean message from the same players still goes through."""
    send_message, sign_in = rpc("LobbyService.SendMessage"), rpc("LobbyService.SignInGuest")
    disguised = [
        ("s\u2800a\u2800l\u2800a\u2800k", "INSULT"),  # braille blanks
        ("sen\u3164salak\u3164misin", "INSULT"),  # Hangul fillers for spaces
        ("s\u200ba\u2060l\ufeffa\u034fk", "INSULT"),  # zero-width characters
        ("s\u202ealak", "INSULT"),  # a right-to-left override
        ("saIak", "INSULT"),
        ("a+m+k", "PROFANITY"),
        ("s|a|l|a|k", "INSULT"),
        ("s(a)l(a)k", "INSULT"),
        ("օrospu", "PROFANITY"),  # Armenian o
        ("ꜱalak", "INSULT"),  # small capital S
        ("ƒuck", "PROFANITY"),
        ("fμck", "PROFANITY"),  # Greek mu
        ("🅢🅐🅛🅐🅚", "INSULT"),
        ("salak123", "INSULT"),
        ("şrfsz", "INSULT"),
        ("0 5 3 2 1 2 3 4 5 6 7", "PERSONAL_INFO"),
    ]
    players = []
    for i in range(4):  # a few messages each: the flood limit is five per ten seconds
        r = _http(edge, sign_in.path, {"displayName": f"Filtre Deneme {chr(65 + i)}", "deviceId": f"filtre-{i}"}, None)
        out = check_http(r, sign_in)
        assert out.ok, out
        players.append((out.body.player.player_id, out.body.token))
    for i, (text, reason) in enumerate(disguised):
        out = check_http(_send_chat(edge, players[i % 4][1], text), send_message)
        TALLY.add("obfuscated-abuse", out)
        assert (out.code, out.reason) == ("409", reason), (text, out)
        assert out.body["code"] == "FAILED_PRECONDITION" and "gönderilmedi" in out.body["message"], out.body
    for name in ("Adrnin", "AdrnIn", "Rnoderator", "Yonetlcl", "Destek Tearn", "Srfsz", "Salak123"):
        out = check_http(_http(edge, sign_in.path, {"displayName": name, "deviceId": f"ad-{name}"}, None), sign_in)
        TALLY.add("obfuscated-abuse", out)
        assert (out.code, out.reason) == ("400", "INVALID_NAME"), (name, out)
    out = check_http(_http(edge, sign_in.path, {"displayName": "Adrnin", "deviceId": "ad-staff"}, None), sign_in)
    assert "taklit" in out.body["message"], out.body  # refused as passing for the staff
    clean = "Sık sık gelirim, bu el eksiktir: iyi oyunlar"
    for player_id, token in players:
        out = check_http(_send_chat(edge, token, clean), send_message)
        TALLY.add("obfuscated-abuse", out)
        assert out.ok and out.body.message.text == clean and out.body.message.player_id == player_id, out
    r = _http(edge, "/okey.v1.LobbyService/ListMessages", {"limit": 200}, players[0][1])
    assert r.status_code == 200, r.text
    ids = {p for p, _ in players}
    posted = [m["text"] for m in r.json().get("messages", []) if m.get("playerId") in ids]
    assert posted == [clean] * 4, posted  # nothing disguised was posted
    print(f"obfuscated abuse: {len(disguised)} messages and 8 sign-ins refused, 4 clean messages posted")
    edge.healthy()

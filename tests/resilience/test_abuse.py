"""Abuse by players who hold valid tokens: acting for another seat; reading another seat's rack
or the deck order through any route (GetView, GetEvents, GetHints, Watch over gRPC directly and
through the gateway, the gateway's HTTP/JSON and WebSocket, the scoring history, ``okey export``
without ``--with-private``) while a hand runs; chat floods and request floods; sitting twice at a
table or twice from one device, concurrently too; double-spending chips with concurrent
requests; a player token on the admin RPCs. Every refusal is clean and changes nothing."""

from __future__ import annotations

import base64
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
    Outcome,
    Player,
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
from okeyplatform.export import export_lines
from okeyplatform.grpcserver import error_reason

from services.gateway.main import Gateway

TALLY = Tally()
ROUTES = ("direct", "gateway", "http")
DENIED = {"direct": "PERMISSION_DENIED", "gateway": "PERMISSION_DENIED", "http": "403", "ws": "PERMISSION_DENIED"}


@pytest.fixture(scope="module")
def edge(database_url: str, pytestconfig: pytest.Config) -> Iterator[Edge]:
    with running_edge(database_url) as e:
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
        assert self.edge.table is not None and self.edge.table.app is not None
        pairs = self.edge.call(self.edge.table.app.events(self.table_id))
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
    # replaying another seat's command id (with a command the rules refuse) returns that command's
    # first result, as the replaying seat may see it: the deal and the others' draws blanked
    act = rpc("TableService.Act")
    command_ids = [f"create:{table_id}"] + [f"t{n}-{k}" for n in range(10) for k in ("draw", "discard")]
    replays = 0
    for seat, player in enumerate(edge.victims):
        for i, cid in enumerate(command_ids):
            req = tpb.ActRequest(table_id=table_id, command_id=cid, seat=seat)
            getattr(req, "pass").SetInParent()
            out = send(edge, act, "proto", ROUTES[(seat + i) % 3], player.token, req)
            TALLY.add("replay-another-command", out)
            if not out.ok:
                continue  # that id was never used (the turn had no draw): the refusal itself
            assert out.body.duplicate and out.body.version <= final, out
            for event in out.body.events:
                tiles_seen += truth.check(event, seat, event.version, f"Act replay of {cid}")
            replays += 1
    assert replays >= 4 * 11 and truth.events[-1][0] == final == edge.view(None, table_id).version
    streamed = 0
    for w in watchers:
        for msg in w.finish(final):
            for v, part in _versioned(msg):
                tiles_seen += truth.check(part, w.seat, v, f"Watch {w.route}")
            streamed += 1
    # okey export (the command) as a spectator sees it: no rack, no deck order
    env = dict(os.environ, OKEY_DATABASE_URL=edge.database_url)
    done = subprocess.run(
        [sys.executable, "-m", "okeyplatform.cli", "export", table_id],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["version"] for line in lines] == list(range(1, final + 1))
    exported = sum(_check_export(truth, line) for line in lines)
    # the checker itself: the private export does show what it must find
    private = edge.call(_collect(export_lines(_store(edge), table_id, private=True)))
    with pytest.raises(AssertionError, match="hidden tile"):
        for line in private:
            _check_export(truth, json.loads(line))
    print(
        f"reading another rack: {sum(reads.values())} reads {reads}, {streamed} streamed messages on "
        f"{len(watchers)} watches, {len(lines)} exported events, {tiles_seen + exported} tiles checked, "
        f"{denied} reads as another seat refused, {replays} replays of others' command ids"
    )
    edge.healthy()


_TILE_KEYS = {"racks", "indicator", "deck", "order", "tile", "final_tile", "arrangement"}


def _ints(value: Any) -> Iterator[int]:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _ints(v)


def _check_export(truth: Truth, line: dict[str, Any]) -> int:
    secret = truth.hidden(None, line["version"])
    n = 0
    for key, value in line["event"].items():
        if key in _TILE_KEYS:
            for tid in _ints(value):
                n += 1
                assert tid not in secret, f"export: hidden tile {tid} in {key} at v{line['version']}"
    return n


def _store(edge: Edge) -> Any:
    assert edge.table is not None
    return edge.table.store


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
    gw = Gateway("127.0.0.1:0", "127.0.0.1:0", environ=edge.gateway_env(rate="1", burst="5"))
    edge.call(gw.start())
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
        edge.call(gw.stop(grace_s=1.0))
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
    holds the stake): two succeed, four are refused. Another fills five 300-chip tables with bots
    at once: three start. Ten concurrent daily claims and ten concurrent sign-ins under one name
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
    own = [_open(edge, filler, stake=300) for _ in range(5)]
    results = parallel(5, lambda i: _http(edge, fill.path, {"tableId": own[i]}, filler.token))
    outs = [check_http(r, fill) for r in results]
    for o in outs:
        TALLY.add("double-spend", o)
    assert sum(o.ok for o in outs) == 3, [(o.code, o.reason) for o in outs]
    assert _balance(edge, filler) == 100
    edge.ledger_invariants()

    claims = parallel(10, lambda i: _http(edge, "/okey.v1.LobbyService/ClaimDailyChips", {}, filler.token))
    for r in claims:
        TALLY.add("double-spend", check_http(r, rpc("LobbyService.ClaimDailyChips")))
    assert all(r.status_code == 200 for r in claims)
    assert sum(int(r.json().get("granted", 0)) for r in claims) == 0  # the day's grant came with the sign-in
    assert _balance(edge, filler) == 100
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
    print(f"double spending: {6 + 5 + 10 + 10} concurrent requests")
    edge.healthy()


# ------------------------------------------------------------------ admin RPCs


def test_a_player_token_cannot_use_the_admin_rpcs(edge: Edge) -> None:
    """ListReports and ResolveReport with a player's token: PERMISSION_DENIED ADMIN_ONLY on every
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
                assert out.reason in ("ADMIN_ONLY", "BAD_TOKEN"), out
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

"""Helpers of the bad-input and abuse tests: the public services (table, scoring, lobby) and the
gateway as processes (``make_module_stack`` of tests/conftest.py), called synchronously so that
tests and hypothesis run against them as any client would (a background event loop is kept for
what the tests read on the database: the event log, the ledger); a table in play seated by four
lobby guests; every public RPC enumerated from the
generated descriptors; callers on every route (each service directly, the gateway's gRPC proxy,
HTTP/JSON, WebSocket); and the checks every answer must pass."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode

import asyncpg
import grpc
import httpx
import websockets.sync.client as ws_client
from google.protobuf import descriptor_pool, json_format, message_factory
from google.protobuf.descriptor import FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from okey.v1 import common_pb2
from okey.v1 import lobby_service_pb2 as lpb
from okey.v1 import table_service_pb2 as tpb
from okeycore.events import Event, TableCreated
from okeycore.games import engine_for
from okeyplatform.auth import issue_token
from okeyplatform.eventstore import PostgresEventStore, StoredEvent
from okeyplatform.grpcserver import error_reason
from okeytools.stack import Stack
from websockets.exceptions import ConnectionClosed, InvalidStatus

from services.gateway.api import HTTP_STATUS
from services.gateway.app import PUBLIC_SERVICES, SERVICE_ONLY_METHODS

T = TypeVar("T")

# Codes a hostile request may get: a refusal, never an unhandled exception (UNKNOWN, INTERNAL),
# a hang (DEADLINE_EXCEEDED) or a service gone (UNAVAILABLE).
CLEAN_CODES = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.OUT_OF_RANGE,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.ALREADY_EXISTS,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}
CLEAN_HTTP = {s for c, s in HTTP_STATUS.items() if c in CLEAN_CODES}  # 400 401 403 404 409 429
CLEAN_HTTP.add(413)
ERROR_KEYS = {"code", "reason", "message"}
RPC_TIMEOUT_S = 10.0


# ------------------------------------------------------------------ the public RPCs


@dataclass(frozen=True)
class Rpc:
    service: str  # okey.v1.TableService
    name: str  # Act
    path: str  # /okey.v1.TableService/Act
    descriptor: MethodDescriptor
    request_cls: Any
    response_cls: Any

    @property
    def streaming(self) -> bool:
        return bool(self.descriptor.server_streaming)

    @property
    def short(self) -> str:
        return f"{self.service.rsplit('.', 1)[-1]}.{self.name}"


def public_rpcs() -> list[Rpc]:
    """Every method of every public service, from the generated descriptors (a new RPC is in
    this list, and so under test, as soon as its proto is generated)."""
    import importlib

    pool = descriptor_pool.Default()
    out = []
    for name, (module, _, _) in sorted(PUBLIC_SERVICES.items()):
        importlib.import_module(module)
        for m in pool.FindServiceByName(name).methods:
            if f"/{name}/{m.name}" in SERVICE_ONLY_METHODS:
                continue  # not public: the edge does not serve it (tested in test_gateway_edges.py)
            out.append(
                Rpc(
                    name,
                    m.name,
                    f"/{name}/{m.name}",
                    m,
                    message_factory.GetMessageClass(m.input_type),
                    message_factory.GetMessageClass(m.output_type),
                )
            )
    return out


def rpc(path: str) -> Rpc:
    """One public RPC by its short name (``TableService.GetView``) or path."""
    for r in public_rpcs():
        if path in (r.short, r.path):
            return r
    raise KeyError(path)


# ------------------------------------------------------------------ the stack on a background loop


@dataclass
class Player:
    name: str
    player_id: str
    token: str
    device: str

    @property
    def auth(self) -> tuple[tuple[str, str]]:
        return (("authorization", f"Bearer {self.token}"),)


EDGE_SERVICES = ("table", "scoring", "lobby", "gateway")
CHANNEL_NAMES = {
    "table": "okey.v1.TableService",
    "scoring": "okey.v1.ScoringService",
    "lobby": "okey.v1.LobbyService",
    "gateway": "gateway",
}
# The table's grace after a TimeOut is long, so a timer a test lets fire stops at its TimeOut.
EDGE_ENV = {"OKEY_TIMEOUT_GRACE_MS": "5000"}
StackFactory = Callable[..., Stack]


@dataclass
class GatewayAt:
    """A gateway process: its two ports, and the stack that runs it (``stop()`` ends it)."""

    stack: Stack

    @property
    def grpc_port(self) -> int:
        return int(self.stack.address("gateway").rsplit(":", 1)[1])

    @property
    def http_port(self) -> int:
        return int(self.stack.http_address.rsplit(":", 1)[1])

    def stop(self) -> None:
        self.stack.stop()


@dataclass
class Edge:
    """The public services and the gateway as processes; the tests' reads of the database on an
    event loop of their own, on a thread."""

    make: StackFactory
    loop: asyncio.AbstractEventLoop = field(default_factory=asyncio.new_event_loop)
    thread: threading.Thread | None = None
    stack: Stack | None = None
    gateway: GatewayAt | None = None
    events: PostgresEventStore | None = None  # the table service's log, read as an operator would
    timers_for: set[str] = field(default_factory=set)  # the tables whose turn timers may fire
    channels: dict[str, grpc.Channel] = field(default_factory=dict)
    http: httpx.Client | None = None
    # the world the tests attack
    victims: list[Player] = field(default_factory=list)  # seated at ``table_id``, seat i = victims[i]
    mallory: Player | None = None  # signed in, has chips, sits nowhere
    table_id: str = ""
    service_token: str = ""
    admin_token: str = ""
    _freezer: asyncio.Task[None] | None = None

    @property
    def database_url(self) -> str:
        assert self.stack is not None
        return self.stack.database_url

    # -------------------------------------------------------------- lifecycle

    def start(self) -> None:
        self.thread = threading.Thread(target=self.loop.run_forever, name="edge-reads", daemon=True)
        self.thread.start()
        rates = {"OKEY_RATE_LIMIT": "100000", "OKEY_RATE_BURST": "100000"}
        self.stack = self.make(EDGE_SERVICES, env=EDGE_ENV | rates, label="edge", private_nats=True)
        self.gateway = GatewayAt(self.stack)
        self.call(self._open())
        for name in EDGE_SERVICES:
            self.channels[CHANNEL_NAMES[name]] = grpc.insecure_channel(
                self.stack.address(name), options=[("grpc.max_send_message_length", 8 << 20)]
            )
        self.http = httpx.Client(base_url=f"http://{self.stack.http_address}", timeout=RPC_TIMEOUT_S)
        self.service_token = issue_token("resilience-tests", "service")
        self.admin_token = issue_token("resilience-admin", "admin")

    async def _open(self) -> None:
        self.events = await PostgresEventStore.connect(self.database_url, min_size=1, max_size=4)
        self._freezer = asyncio.create_task(self._freeze_timers())

    async def _freeze_timers(self) -> None:
        """No turn times out while a test runs (the requests are the only writers): every turn
        timer about to fall due is moved a day on, but those of ``timers_for``. The table service
        has no setting that turns its timers off, so this is done on its database."""
        assert self.events is not None
        while True:
            try:
                async with self.events.pool.acquire() as conn:
                    await conn.execute(
                        "UPDATE okey_timers SET due_at = now() + interval '1 day' "
                        "WHERE due_at < now() + interval '1 minute' AND NOT (stream_id = ANY($1::text[]))",
                        sorted(self.timers_for),
                    )
            except (OSError, asyncpg.PostgresError) as exc:  # the server restarting: try again
                print(f"edge: timers not frozen this round: {exc!r}")
            await asyncio.sleep(0.1)

    def let_timer_fire(self, table_id: str) -> None:
        """The table's turn timer is due now: the table service fires it (its own poller)."""
        self.timers_for.add(table_id)
        self.call(self._execute("UPDATE okey_timers SET due_at = now() WHERE stream_id = $1", table_id))

    def gateway_env(self, rate: str = "100000", burst: str = "100000") -> dict[str, str]:
        assert self.stack is not None
        return {
            "OKEY_TABLE_ADDR": self.stack.address("table"),
            "OKEY_SCORING_ADDR": self.stack.address("scoring"),
            "OKEY_LOBBY_ADDR": self.stack.address("lobby"),
            "OKEY_RATE_LIMIT": rate,
            "OKEY_RATE_BURST": burst,
        }

    def extra_gateway(self, **env: str) -> GatewayAt:
        """Another gateway process in front of the same services, with ``env`` (its limits, say)."""
        assert self.stack is not None
        stack = self.make(
            ("gateway",),
            env=EDGE_ENV | self.gateway_env() | env,
            database_url=self.database_url,
            nats_url=self.stack.nats_url,
            label=f"gateway-{uuid.uuid4().hex[:6]}",
        )
        return GatewayAt(stack)

    def stop(self) -> None:
        """The clients and the reads; the processes are the stack fixture's to stop."""
        if self.http is not None:
            self.http.close()
        for ch in self.channels.values():
            ch.close()

        async def _stop() -> None:
            if self._freezer is not None:
                self._freezer.cancel()
            if self.events is not None:
                await self.events.close()

        try:
            self.call(_stop(), timeout=60)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            if self.thread is not None:
                self.thread.join(timeout=10)
            self.loop.close()

    def call(self, coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
        """Run a coroutine on the reads' loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    # -------------------------------------------------------------- the world

    def sign_in(self, name: str, device: str = "") -> Player:
        stub = self.lobby_stub()
        resp = stub.SignInGuest(
            lpb.SignInGuestRequest(display_name=name, device_id=device or f"dev-{uuid.uuid4().hex[:10]}"),
            timeout=RPC_TIMEOUT_S,
        )
        return Player(name, resp.player.player_id, resp.token, resp.device_id)

    def build_world(self) -> None:
        """Four guests at a started lobby table (stake 100, no indicator scoring, 120 s turns);
        every seat has declared pairs (so no out-of-turn command is left that could succeed) and
        the starter has discarded: the turn's seat must draw next."""
        self.victims = [self.sign_in(n) for n in ("Ayşe", "Barış", "Cemile", "Doğan")]
        self.mallory = self.sign_in("Mallory")
        stub = self.lobby_stub()
        options = common_pb2.TableOptions(
            game=common_pb2.GAME_OKEY, indicator=False, turn_seconds=120, stake=100, match_points=20
        )
        opened = stub.OpenTable(
            lpb.OpenTableRequest(options=options, seat=0), metadata=self.victims[0].auth, timeout=RPC_TIMEOUT_S
        )
        self.table_id = opened.table.table_id
        for i, v in enumerate(self.victims[1:], start=1):
            joined = stub.JoinTable(
                lpb.JoinTableRequest(table_id=self.table_id, seat=i), metadata=v.auth, timeout=RPC_TIMEOUT_S
            )
        assert joined.started and joined.table.status == lpb.LOBBY_TABLE_STATUS_PLAYING
        svc = self.table_stub()
        md = (("authorization", f"Bearer {self.service_token}"),)
        for seat in range(4):
            svc.Act(
                tpb.ActRequest(table_id=self.table_id, command_id=f"pairs-{seat}", seat=seat, declare_pairs={}),
                metadata=md,
            )
        view = self.view(None)
        turn = view.turn
        rack = self.view(turn).rack
        svc.Act(
            tpb.ActRequest(
                table_id=self.table_id, command_id="first-discard", seat=turn, discard={"tile_id": rack[-1].id}
            ),
            metadata=md,
        )
        assert self.view(None).stage == tpb.STAGE_DRAW

    # -------------------------------------------------------------- stubs and reads

    def table_stub(self, via: str = "okey.v1.TableService") -> Any:
        from okey.v1 import table_service_pb2_grpc

        return table_service_pb2_grpc.TableServiceStub(self.channels[via])

    def lobby_stub(self, via: str = "okey.v1.LobbyService") -> Any:
        from okey.v1 import lobby_service_pb2_grpc

        return lobby_service_pb2_grpc.LobbyServiceStub(self.channels[via])

    def view(self, seat: int | None, table_id: str = "") -> Any:
        req = tpb.GetViewRequest(table_id=table_id or self.table_id)
        if seat is not None:
            req.seat = seat
        md = (("authorization", f"Bearer {self.service_token}"),)
        return self.table_stub().GetView(req, metadata=md, timeout=RPC_TIMEOUT_S).view

    def turn_player(self) -> Player:
        return self.victims[self.view(None).turn]

    def waiting_players(self) -> list[Player]:
        """The seated players whose turn it is not."""
        turn = self.view(None).turn
        return [v for i, v in enumerate(self.victims) if i != turn]

    def stored_events(self, table_id: str = "") -> list[tuple[StoredEvent, Event]]:
        """The table's log from PostgreSQL, each stored event with its okeycore event."""
        assert self.events is not None
        stored = self.call(self.events.read_stream(table_id or self.table_id))
        return [(st, st.event()) for st in stored]

    def private_state(self, table_id: str = "") -> Any:
        """The table's full state (every rack, the deck order): its log folded with okeycore."""
        events = [ev for _, ev in self.stored_events(table_id)]
        first = events[0]
        assert isinstance(first, TableCreated)
        return engine_for(first.options.game).fold(None, events)

    def private_events(self, table_id: str = "") -> list[Any]:
        return [ev for _, ev in self.stored_events(table_id)]

    def snapshot(self) -> dict[str, Any]:
        """Everything a refused request must leave as it was: the table's version and every seat's
        view (and the spectator's), the victims' chips and ledger entries, the lobby's card of
        the table, and the event log's length."""
        views = {str(s): self.view(s).SerializeToString(deterministic=True) for s in (None, 0, 1, 2, 3)}
        stub = self.lobby_stub()
        chips = {
            v.name: stub.GetChips(
                lpb.GetChipsRequest(limit=200), metadata=v.auth, timeout=RPC_TIMEOUT_S
            ).SerializeToString(deterministic=True)
            for v in self.victims
        }
        card = stub.GetTableCard(
            lpb.GetTableCardRequest(table_id=self.table_id), metadata=self.victims[0].auth, timeout=RPC_TIMEOUT_S
        ).SerializeToString(deterministic=True)
        return {
            "version": self.view(None).version,
            "views": views,
            "chips": chips,
            "card": card,
            "log": self.log_length(),
        }

    def log_length(self) -> int:
        return self.call(self._fetchval("SELECT count(*) FROM okey_events WHERE stream_id = $1", self.table_id))

    async def _fetchval(self, sql: str, *args: Any) -> Any:
        conn = await asyncpg.connect(self.database_url)
        try:
            return await conn.fetchval(sql, *args)
        finally:
            await conn.close()

    async def _execute(self, sql: str, *args: Any) -> None:
        conn = await asyncpg.connect(self.database_url)
        try:
            await conn.execute(sql, *args)
        finally:
            await conn.close()

    def ledger_invariants(self) -> None:
        """No chip made or lost (every account sums to zero), no balance below zero but the
        bank's, every balance the sum of its entries."""

        async def check() -> None:
            conn = await asyncpg.connect(self.database_url)
            try:
                assert await conn.fetchval("SELECT COALESCE(sum(balance), 0) FROM lobby_accounts") == 0
                assert (
                    await conn.fetchval("SELECT count(*) FROM lobby_accounts WHERE balance < 0 AND account <> 'bank'")
                    == 0
                )
                assert not await conn.fetch(
                    "SELECT txn_key FROM lobby_entries GROUP BY txn_key HAVING sum(amount) <> 0"
                )
                assert not await conn.fetch(
                    "SELECT a.account FROM lobby_accounts a LEFT JOIN lobby_entries e ON e.account = a.account "
                    "GROUP BY a.account, a.balance HAVING a.balance <> COALESCE(sum(e.amount), 0)"
                )
            finally:
                await conn.close()

        self.call(check())

    def healthy(self) -> None:
        """Every service and the gateway answer health SERVING; the gateway's /healthz too."""
        for name, ch in self.channels.items():
            resp = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=5)
            assert resp.status == health_pb2.HealthCheckResponse.SERVING, name
        assert self.http is not None
        r = self.http.get("/healthz")
        assert r.status_code == 200 and r.json()["status"] == "SERVING"


@contextmanager
def running_edge(make: StackFactory) -> Iterator[Edge]:
    """The services on a fresh database and a NATS of their own (from ``make``, a stack
    factory of tests/conftest.py), and the world."""
    edge = Edge(make)
    try:
        edge.start()
        edge.build_world()
        yield edge
    finally:
        edge.stop()


# ------------------------------------------------------------------ calling and checking


@dataclass
class Outcome:
    route: str
    ok: bool
    code: str  # gRPC status name, or HTTP status / WebSocket close code as text
    reason: str = ""
    body: Any = None  # the response message (gRPC), parsed JSON (HTTP), or the messages (WebSocket)


class Tally:
    """How many cases ran, per category, and what they got (printed by the tests)."""

    def __init__(self) -> None:
        self.cases: Counter[str] = Counter()
        self.outcomes: Counter[str] = Counter()
        self.reasons: Counter[str] = Counter()

    def add(self, category: str, outcome: Outcome) -> None:
        self.cases[category] += 1
        self.outcomes[f"{outcome.route}:{outcome.code}"] += 1
        self.reasons[f"{category}:{outcome.reason}"] += 1

    def summary(self) -> str:
        total = sum(self.cases.values())
        cats = ", ".join(f"{k}={v}" for k, v in sorted(self.cases.items()))
        return f"{total} cases ({cats})"

    def report(self, config: Any, name: str) -> None:
        """The counts on the terminal (also without -s) and in artifacts/resilience/<name>.json."""
        line = f"[resilience/{name}] {self.summary()}"
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        capture = config.pluginmanager.get_plugin("capturemanager")
        if reporter is not None and capture is not None:
            with capture.global_and_fixture_disabled():
                reporter.write_line("")
                reporter.write_line(line)
        else:
            print(line)
        out = Path(config.rootpath) / "artifacts" / "resilience" / f"{name}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(
            json.dumps(
                {
                    "cases": sum(self.cases.values()),
                    "by_category": dict(sorted(self.cases.items())),
                    "outcomes": dict(sorted(self.outcomes.items())),
                    "reasons": dict(sorted(self.reasons.items())),
                },
                indent=1,
                ensure_ascii=False,
            )
        )


def metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),) if token is not None else ()


def grpc_call(channel: grpc.Channel, rpc: Rpc, payload: bytes, token: str | None, route: str) -> Outcome:
    """One raw call (the request as bytes, which may be anything); a stream is read to its first
    message and cancelled. The answer must be OK or a clean refusal."""
    md = metadata(token)
    try:
        if rpc.streaming:
            it = channel.unary_stream(rpc.path)(payload, metadata=md, timeout=RPC_TIMEOUT_S)
            try:
                first = next(it)
            finally:
                it.cancel()
            body = rpc.response_cls.FromString(first)
        else:
            body = rpc.response_cls.FromString(
                channel.unary_unary(rpc.path)(payload, metadata=md, timeout=RPC_TIMEOUT_S)
            )
        return Outcome(route, True, "OK", body=body)
    except grpc.RpcError as err:
        code = err.code()  # type: ignore[attr-defined]
        details = err.details()  # type: ignore[attr-defined]
        assert code in CLEAN_CODES, f"{route} {rpc.path}: {code.name} {details!r}"
        reason = error_reason(err) or ""
        if code is not grpc.StatusCode.RESOURCE_EXHAUSTED:  # gRPC's own size limit carries no ErrorInfo
            assert reason, f"{route} {rpc.path}: {code.name} without ErrorInfo: {details!r}"
        return Outcome(route, False, code.name, reason)


def http_call(
    http: httpx.Client, rpc: Rpc, body: bytes, token: str | None, content_type: str = "application/json"
) -> Outcome:
    headers = {"content-type": content_type}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    r = http.post(f"/api{rpc.path}", content=body, headers=headers)
    return check_http(r, rpc)


def check_http(r: httpx.Response, rpc: Rpc) -> Outcome:
    if r.status_code == 200:
        assert not rpc.streaming
        body = json_format.Parse(r.text, rpc.response_cls(), ignore_unknown_fields=False)
        return Outcome("http", True, "200", body=body)
    assert r.status_code in CLEAN_HTTP, f"http {rpc.path}: {r.status_code} {r.text[:300]!r}"
    got = r.json()
    # {code, reason, message}, and the ErrorInfo's metadata when it has some (LOGIN_LOCKED's
    # retry_after_s, WEAK_PASSWORD's why): strings by name
    assert isinstance(got, dict) and set(got) - {"metadata"} == ERROR_KEYS, got
    meta = got.get("metadata", {})
    assert isinstance(meta, dict) and all(isinstance(v, str) for v in meta.values()), got
    assert got["code"] in {c.name for c in CLEAN_CODES}, got
    assert got["reason"] and isinstance(got["message"], str), got
    return Outcome("http", False, str(r.status_code), got["reason"], got)


def ws_url(edge: Edge, rpc: Rpc, params: dict[str, str]) -> str:
    assert edge.gateway is not None
    return f"ws://127.0.0.1:{edge.gateway.http_port}/ws{rpc.path}?{urlencode(params)}"


def ws_call(edge: Edge, rpc: Rpc, params: dict[str, str], messages: int = 1) -> Outcome:
    """Open the WebSocket route of a stream: it must send ``messages`` WatchResponses, or one
    clean error and a 44xx close, or close at once with 44xx (never 1011 or 4500)."""
    got: list[Any] = []
    try:
        with ws_client.connect(ws_url(edge, rpc, params), open_timeout=RPC_TIMEOUT_S, max_size=None) as ws:
            while len(got) < messages:
                msg = json.loads(ws.recv(timeout=RPC_TIMEOUT_S))
                if "error" in msg:
                    err = msg["error"]
                    assert err["code"] in {c.name for c in CLEAN_CODES}, err
                    assert err["reason"], err
                    try:
                        ws.recv(timeout=RPC_TIMEOUT_S)
                    except ConnectionClosed as closed:
                        code = closed.rcvd.code if closed.rcvd else 0
                        assert 4400 <= code < 4500, code
                    return Outcome("ws", False, err["code"], err["reason"], msg)
                got.append(json_format.ParseDict(msg, rpc.response_cls()))
        return Outcome("ws", True, "OK", body=got)
    except ConnectionClosed as closed:
        code = closed.rcvd.code if closed.rcvd else 0
        assert 4400 <= code < 4500, f"ws {rpc.path} {params}: closed with {code} {closed.rcvd}"
        return Outcome("ws", False, str(code), closed.rcvd.reason if closed.rcvd else "")
    except InvalidStatus as refused:  # the HTTP server refused the upgrade request itself
        status = refused.response.status_code
        assert 400 <= status < 500, f"ws {rpc.path}: upgrade refused with {status}"
        return Outcome("ws", False, str(status), "UPGRADE_REFUSED")


def ws_params(rpc: Rpc, msg: Message, token: str | None) -> dict[str, str]:
    """A stream's request as the WebSocket's query: each top-level scalar as text."""
    params = {}
    for k, v in json_format.MessageToDict(msg).items():
        params[k] = json.dumps(v) if isinstance(v, (dict, list)) else str(v)
    if token is not None:
        params["token"] = token
    return params


def send(edge: Edge, rpc: Rpc, kind: str, route: str, token: str | None, payload: Any) -> Outcome:
    """``payload`` is a Message (kind "proto"), bytes (kind "bytes", "json"), or query params."""
    assert edge.http is not None
    if route in ("direct", "gateway"):
        channel = edge.channels[rpc.service if route == "direct" else "gateway"]
        data = payload.SerializeToString() if isinstance(payload, Message) else payload
        return grpc_call(channel, rpc, data, token, route)
    if rpc.streaming and route == "ws":
        params = ws_params(rpc, payload, token) if isinstance(payload, Message) else payload
        return ws_call(edge, rpc, params)
    body = json_format.MessageToJson(payload).encode() if isinstance(payload, Message) else payload
    return http_call(edge.http, rpc, body, token)


def parallel(n: int, fn: Any, *args: Any) -> list[Any]:
    """``fn(i, *args)`` for i in 0..n-1 at once, on threads (requests that race)."""
    barrier = threading.Barrier(n)

    def run(i: int) -> Any:
        barrier.wait()
        return fn(i, *args)

    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(run, range(n)))


# ------------------------------------------------------------------ tiles in answers


def tiles_in(msg: Message) -> list[tuple[int, str, str]]:
    """Every Tile (id, code, field name) anywhere in a message."""
    out: list[tuple[int, str, str]] = []

    def walk(m: Message, name: str) -> None:
        if m.DESCRIPTOR.full_name == "okey.v1.Tile":
            out.append((m.id, m.code, name))  # type: ignore[attr-defined]
            return
        for fd, value in m.ListFields():
            if fd.type != FieldDescriptor.TYPE_MESSAGE:
                continue
            for v in value if fd.is_repeated else (value,):
                walk(v, fd.name)

    walk(msg, "")
    return out

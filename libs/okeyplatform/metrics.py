"""Prometheus metrics: the one catalogue of names, the gRPC interceptor, the exposition server.

Every metric any service records is declared here, once (docs/observability.md lists them with
what they mean); code elsewhere imports the objects and records. ``prometheus-client`` keeps the
values and writes the text format. A process serves them at ``GET /metrics`` on
``OKEY_METRICS_ADDR`` (:func:`serve_metrics`; unset: nothing listens, values are still kept).

Several worker processes of one service on one port (``OKEY_TABLE_WORKERS``,
``OKEY_BOTS_WORKERS``) each keep their values in memory and serve them on a loopback port the
supervisor gives them; the supervisor serves their sum on the service's metrics port
(:func:`serve_workers`). Gauges say how they add up across workers (``mode``). prometheus-client's
multiprocess mode was the first design: every count took a lock and a file write (5% of two
table workers' CPU in a profile under ``okey bench table --observability``).

Label values are bounded: methods and routes are the served ones (an unknown method is not
recorded by name), reasons are the stable reason codes, games and kinds come from okeycore."""

from __future__ import annotations

import asyncio
import functools
import inspect
import os
import threading
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, start_http_server

from .grpcserver import CALL_REASONS as _REASON
from .grpcserver import WrappingInterceptor
from .logs import get_logger

__all__ = [
    "METRIC_NAMES",
    "GrpcMetrics",
    "serve_metrics",
    "serve_workers",
    "WorkersCollector",
    "stream_request_done",
    "Sampler",
    "watch_nats",
    "metrics_address",
    "counts_sign_in",
    "RECORDING",
    "child",
]

# Seconds. Fast paths (a decide, an append, an RPC) from 0.5 ms; slow ones (a bot's reply as a
# person sees it, a timer's lateness) up to a minute.
FAST = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
SLOW = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0, 60.0)

_NAMES: set[str] = set()


def recording(environ: dict[str, str] | None = None) -> bool:
    """``OKEY_METRICS=off`` turns recording off for the process (read once, at import): every
    metric is then a stand-in that keeps nothing, no interceptor times the RPCs and nothing is
    served. For measuring what the metrics cost (``okey bench table --observability``) and for
    an install that wants none; the default is on."""
    value = (os.environ if environ is None else environ).get("OKEY_METRICS", "on").strip().lower()
    return value not in ("off", "0", "false", "no")


RECORDING = recording()


class _Off:
    """A metric while recording is off: the calls the services make, doing nothing."""

    def labels(self, *_: Any, **__: Any) -> _Off:
        return self

    def inc(self, *_: Any) -> None: ...

    def dec(self, *_: Any) -> None: ...

    def set(self, *_: Any) -> None: ...

    def observe(self, *_: Any) -> None: ...


_OFF: Any = _Off()


_CHILDREN: dict[tuple[int, tuple[str, ...]], Any] = {}


def child(metric: Any, *values: str) -> Any:
    """``metric.labels(*values)``, kept: prometheus-client looks a child up under a lock and
    checks its label values on every call; a hot path (each move's counters) asks once per
    combination. The values must come from a bounded set (as every label here does)."""
    key = (id(metric), values)
    got = _CHILDREN.get(key)
    if got is None:
        got = _CHILDREN[key] = metric.labels(*values)
    return got


def _counter(name: str, doc: str, labels: tuple[str, ...] = ()) -> Counter:
    _NAMES.add(name)
    return Counter(name.removesuffix("_total"), doc, labels) if RECORDING else _OFF


_GAUGE_MODES: dict[str, str] = {}


def _gauge(name: str, doc: str, labels: tuple[str, ...] = (), mode: str = "livesum") -> Gauge:
    _NAMES.add(name)
    _GAUGE_MODES[name] = mode
    return Gauge(name, doc, labels, multiprocess_mode=mode) if RECORDING else _OFF  # type: ignore[arg-type]


def _histogram(name: str, doc: str, labels: tuple[str, ...] = (), buckets: tuple[float, ...] = FAST) -> Histogram:
    _NAMES.add(name)
    return Histogram(name, doc, labels, buckets=buckets) if RECORDING else _OFF


# ---------------------------------------------------------------- every gRPC server
# The names and labels of grpc-ecosystem's go-grpc-prometheus, which dashboards already read.
_RPC = ("grpc_service", "grpc_method", "grpc_type")
GRPC_STARTED = _counter("grpc_server_started_total", "RPCs started on the server.", _RPC)
GRPC_HANDLED = _counter("grpc_server_handled_total", "RPCs completed on the server, by status.", (*_RPC, "grpc_code"))
GRPC_SECONDS = _histogram("grpc_server_handling_seconds", "Time to handle an RPC on the server.", _RPC)
GRPC_REFUSALS = _counter(
    "okey_grpc_server_refusals_total",
    "RPCs ended with a non-OK status, by its reason code (google.rpc.ErrorInfo; UNKNOWN without one).",
    ("grpc_service", "grpc_method", "grpc_code", "reason"),
)

# ---------------------------------------------------------------- every service
SERVICE_INFO = _gauge("okey_service_info", "1, with the service's name and version.", ("service", "version"), "livemax")
POOL_CONNECTIONS = _gauge(
    "okey_db_pool_connections", "PostgreSQL pool connections, by state (in_use, idle, max).", ("pool", "state")
)
DEPENDENCY_UP = _gauge(
    "okey_dependency_up", "1 when the dependency answered the last probe (every 5 s).", ("dependency",), "livemin"
)

# ---------------------------------------------------------------- table
TABLE_COMMANDS = _counter(
    "okey_table_commands_total",
    "Seat commands and timer moves, by outcome (applied, refused, duplicate, conflict).",
    ("game", "command", "outcome"),
)
TABLE_EVENTS = _counter("okey_table_events_total", "Events appended to the log, by kind.", ("game", "kind"))
TABLE_DECIDE = _histogram("okey_table_decide_seconds", "The rules deciding one command.", ("game",))
TABLE_APPEND = _histogram("okey_table_append_seconds", "One append transaction.")
TABLE_CONFLICTS = _counter("okey_table_version_conflicts_total", "Appends that lost the version race (retried).")
TIMERS_FIRED = _counter("okey_table_timers_fired_total", "Timers fired, by kind (turn, break).", ("kind",))
TIMER_LATENESS = _histogram("okey_table_timer_lateness_seconds", "A timer fired minus its due time.", buckets=SLOW)
TIMERS_OVERDUE = _gauge("okey_table_timers_overdue", "Timers due and claimed to fire at the last poll.")
TABLE_HANDS = _counter("okey_table_hands_total", "Hands ended, by finish (won, exhausted, voided).", ("game", "finish"))
TABLE_MATCHES = _counter("okey_table_matches_total", "Matches ended.", ("game",))
OPEN_TABLES = _gauge("okey_table_open_tables", "Tables in play (read from the store every 10 s).", mode="livemax")

# ---------------------------------------------------------------- relay
RELAY_LEADER = _gauge("okey_relay_leader", "1 in the replica that holds the relay lock.")
RELAY_PUBLISHED = _counter("okey_relay_published_total", "Events published and acknowledged by JetStream.")
RELAY_BEHIND_EVENTS = _gauge("okey_relay_behind_events", "Events in the log past the relay's cursor.", mode="livemax")
RELAY_BEHIND_SECONDS = _gauge(
    "okey_relay_behind_seconds", "Age of the oldest unpublished event (0 when caught up).", mode="livemax"
)
RELAY_PUBLISH = _histogram("okey_relay_publish_seconds", "A publishing round: all sent to all acknowledged.")

# ---------------------------------------------------------------- consumers
_C = ("consumer",)
CONSUMER_LAG = _gauge(
    "okey_consumer_lag_messages", "Messages of the stream not yet acknowledged by this consumer.", _C, "livemax"
)
CONSUMER_LAG_SECONDS = _gauge(
    "okey_consumer_lag_seconds",
    "Age of the newest event handled while messages were pending (0 caught up).",
    _C,
    "livemax",
)
CONSUMER_MESSAGES = _counter(
    "okey_consumer_messages_total",
    "Messages handled, by outcome (applied, duplicate, held, parked, retry, rejected).",
    (*_C, "outcome"),
)
CONSUMER_REDELIVERIES = _counter("okey_consumer_redeliveries_total", "Messages delivered more than once.", _C)
CONSUMER_PARKED = _gauge(
    "okey_consumer_parked_tables", "Tables parked on an event that cannot be applied.", _C, "livemax"
)
CONSUMER_BATCH = _histogram("okey_consumer_batch_seconds", "Applying one fetched batch.", _C)

# ---------------------------------------------------------------- bots
BOT_DECISIONS = _counter(
    "okey_bots_decisions_total",
    "Bot decisions, by kind (turn, timeout, autopilot, pre).",
    ("game", "strategy", "kind"),
)
BOT_DECISION_SECONDS = _histogram("okey_bots_decision_seconds", "A strategy deciding.", ("game", "strategy"))
BOT_REPLY = _histogram(
    "okey_bots_reply_seconds", "From the event that gave a bot its turn to its command accepted.", ("game",), SLOW
)
BOT_LATE = _counter("okey_bots_turns_late_total", "Bot turns answered after the turn's deadline.", ("game",))
BOT_HANDED_ON = _counter(
    "okey_bots_turns_handed_on_total", "Turns played from the view a bot's discard was answered with (no GetView)."
)
BOT_LOOKED_AGAIN = _counter(
    "okey_bots_turns_looked_again_total",
    "Turns looked at again: the table stood where a bot's move left it a while later (a lost bot?).",
)
BOT_PACE_LATE = _histogram(
    "okey_bots_pace_lateness_seconds",
    "A paced bot turn: how long after its chosen think time it began (the event loop's delay).",
    (),
    (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1.0, 2.5, 5.0),
)

# ---------------------------------------------------------------- gateway
HTTP_REQUESTS = _counter("http_requests_total", "HTTP requests, by route template.", ("method", "route", "status"))
HTTP_SECONDS = _histogram("http_request_duration_seconds", "Time to answer an HTTP request.", ("method", "route"))
GATEWAY_CONNECTIONS = _gauge("okey_gateway_connections", "Open now: http, websocket, stream.", ("kind",))
GATEWAY_RATE_LIMITED = _counter(
    "okey_gateway_rate_limited_total", "Requests refused by a rate limit or quota.", ("limit",)
)
GATEWAY_REFUSED = _counter("okey_gateway_refused_total", "Requests refused at the edge, by reason.", ("reason",))
GATEWAY_SPECTATORS = _gauge("okey_gateway_spectators", "Spectators' watches (no seat) open now.")

# ---------------------------------------------------------------- lobby
SIGN_INS = _counter("okey_lobby_sign_ins_total", "Sign-ins, by method and outcome.", ("method", "outcome"))
CHAT_MESSAGES = _counter("okey_lobby_chat_messages_total", "Chat messages, by outcome (sent, blocked).", ("outcome",))
CHAT_BLOCKED = _counter("okey_lobby_chat_blocked_total", "Chat messages the house rules refused.", ("reason",))
REPORTS_OPEN = _gauge("okey_lobby_reports_open", "Player reports not yet resolved.", mode="livemax")
BANK_CHIPS = _gauge("okey_lobby_bank_chips", "The bank's balance: minus the chips in circulation.", mode="livemax")

METRIC_NAMES: frozenset[str] = frozenset(_NAMES)
"""Every metric name as exposed (counters with ``_total``; histograms without their suffixes)."""


_F = TypeVar("_F", bound=Callable[..., Awaitable[Any]])


def counts_sign_in(method: str) -> Callable[[_F], _F]:
    """A sign-in use case counted in ``okey_lobby_sign_ins_total{method, outcome}``: ``ok`` when
    it returns, ``refused`` when it raises."""
    ok, refused = SIGN_INS.labels(method, "ok"), SIGN_INS.labels(method, "refused")

    def wrap(fn: _F) -> _F:
        @functools.wraps(fn)
        async def counted(*args: Any, **kwargs: Any) -> Any:
            try:
                got = await fn(*args, **kwargs)
            except Exception:
                refused.inc()
                raise
            ok.inc()
            return got

        return counted  # type: ignore[return-value]

    return wrap


# ---------------------------------------------------------------- the gRPC interceptor


def _code_name(context: Any, exc: BaseException | None) -> str:
    if exc is None:
        code = context.code() if hasattr(context, "code") else None
        return code.name if isinstance(code, grpc.StatusCode) else "OK"
    if isinstance(exc, asyncio.CancelledError):
        return "CANCELLED"
    code = context.code() if hasattr(context, "code") else None
    return code.name if isinstance(code, grpc.StatusCode) and code is not grpc.StatusCode.OK else "UNKNOWN"


@dataclass
class _Method:
    service: str
    method: str
    kind: str
    started: Any = None
    seconds: Any = None
    handled: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.started = GRPC_STARTED.labels(self.service, self.method, self.kind)
        self.seconds = GRPC_SECONDS.labels(self.service, self.method, self.kind)

    def done(self, code: str, reasons: list[str], elapsed: float) -> None:
        handled = self.handled.get(code)
        if handled is None:
            handled = self.handled[code] = GRPC_HANDLED.labels(self.service, self.method, self.kind, code)
        handled.inc()
        self.seconds.observe(elapsed)
        if code != "OK":
            reason = reasons[-1] if reasons else "UNKNOWN"
            child(GRPC_REFUSALS, self.service, self.method, code, reason).inc()


class _Observed:
    """One served call's count, status, reason and time (``with``: around the handler)."""

    __slots__ = ("box", "context", "m", "t0", "token")

    def __init__(self, m: _Method, context: Any) -> None:
        self.m, self.context = m, context

    def __enter__(self) -> None:
        self.m.started.inc()
        self.box: list[str] = []
        self.token = _REASON.set(self.box)
        self.t0 = time.perf_counter()

    def __exit__(self, _type: Any, exc: BaseException | None, _tb: Any) -> None:
        _REASON.reset(self.token)
        self.m.done(_code_name(self.context, exc), self.box, time.perf_counter() - self.t0)


_STREAM_REQUESTS: dict[tuple[str, str], _Method] = {}


def stream_request_done(service: str, method: str, code: str, reason: str, elapsed: float) -> None:
    """One request of a stream of calls (``TableService.Play``: an Act or a GetView), counted,
    timed and its refusal's reason recorded as a served RPC's are, under the kind
    ``stream_request`` (``code``: OK or the status name)."""
    m = _STREAM_REQUESTS.get((service, method))
    if m is None:
        m = _STREAM_REQUESTS[(service, method)] = _Method(service, method, "stream_request")
    m.started.inc()
    m.done(code, [reason] if reason else [], elapsed)


class GrpcMetrics(WrappingInterceptor):
    """Counts and times every served RPC (outermost, so it sees every status: the request
    reader's refusals, the use cases', faults). Unknown methods are not recorded by name."""

    def _wrap(self, handler: Any, full_method: str) -> Any:
        if handler is None or handler.request_streaming:
            return handler
        service, _, name = full_method.lstrip("/").partition("/")
        if handler.unary_unary is not None:
            m = _Method(service, name, "unary")
            inner = handler.unary_unary

            async def unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
                with _Observed(m, context):
                    return await inner(request, context)

            return grpc.unary_unary_rpc_method_handler(
                unary,
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            m = _Method(service, name, "server_stream")
            stream = handler.unary_stream
            if inspect.isasyncgenfunction(stream):

                async def items(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
                    with _Observed(m, context):
                        async for item in stream(request, context):
                            yield item

                served: Any = items
            else:

                async def writes(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
                    with _Observed(m, context):
                        return await stream(request, context)  # it writes with context.write

                served = writes
            return grpc.unary_stream_rpc_method_handler(
                served,
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler


# ---------------------------------------------------------------- serving


def metrics_address(environ: dict[str, str] | None = None) -> tuple[str, int] | None:
    """``OKEY_METRICS_ADDR`` as (host, port), None when unset. Raises ValueError naming the
    variable when it is not ``host:port``."""
    text = (os.environ if environ is None else environ).get("OKEY_METRICS_ADDR", "").strip()
    if not text:
        return None
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"OKEY_METRICS_ADDR={text!r} is not host:port (e.g. 127.0.0.1:9061 or 0.0.0.0:9090)")
    return (host.strip("[]") or "0.0.0.0"), int(port)


class MetricsServer:
    """The exposition server of one process (prometheus-client's, on a thread of its own)."""

    def __init__(self, host: str, port: int, registry: CollectorRegistry = REGISTRY) -> None:
        try:
            self._server, self._thread = start_http_server(port, host, registry=registry)
        except OSError as exc:
            raise OSError(
                f"cannot serve metrics on {host}:{port} ({exc.strerror or exc}); set OKEY_METRICS_ADDR to a free port"
            ) from None
        self.host = host
        self.port = int(self._server.server_port)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def serve_metrics(environ: dict[str, str] | None = None) -> MetricsServer | None:
    """Serve this process's metrics on ``OKEY_METRICS_ADDR`` (None when unset, or when this
    recording is off)."""
    env = os.environ if environ is None else environ
    addr = metrics_address(dict(env))
    if addr is None or not RECORDING:
        return None
    return MetricsServer(*addr)


class WorkersCollector:
    """The supervisor's view of its workers' metrics: each worker serves its own (in memory, the
    cheap path: prometheus-client's multiprocess mode costs every count a lock and a file write)
    on a port of the supervisor's choosing, and a scrape of the supervisor reads them all and adds
    them up: counters and histograms by sum, gauges as their catalogue entry says (``livesum`` a
    sum, ``livemin`` the least, ``max`` the most). A worker that restarts (its
    ``process_start_time_seconds`` changes) leaves its last counts counted, so totals never go
    back; a worker that does not answer counts as last seen (its gauges are left out)."""

    def __init__(self, ports: list[int], host: str = "127.0.0.1", timeout_s: float = 2.0) -> None:
        self.ports, self.host, self.timeout_s = ports, host, timeout_s
        self._last: dict[int, tuple[float, dict[tuple[str, str, tuple[tuple[str, str], ...]], float]]] = {}
        self._retired: dict[tuple[str, str, tuple[tuple[str, str], ...]], float] = {}
        self._lock = threading.Lock()

    def _scrape(self, port: int) -> list[Any]:
        import urllib.request

        from prometheus_client.parser import text_string_to_metric_families

        with urllib.request.urlopen(f"http://{self.host}:{port}/metrics", timeout=self.timeout_s) as r:
            return list(text_string_to_metric_families(r.read().decode("utf-8")))

    def collect(self) -> Iterator[Any]:
        from prometheus_client.metrics_core import Metric

        families: dict[str, tuple[str, str]] = {}
        sums: dict[tuple[str, str, tuple[tuple[str, str], ...]], list[float]] = {}
        with self._lock:
            for port in self.ports:
                try:
                    got = self._scrape(port)
                except OSError:  # a worker restarting: its counts as last seen, so no total dips
                    for key, value in self._last.get(port, (0.0, {}))[1].items():
                        sums.setdefault(key, []).append(value)
                    continue
                counted: dict[tuple[str, str, tuple[tuple[str, str], ...]], float] = {}
                started = 0.0
                for fam in got:
                    families.setdefault(fam.name, (fam.type, fam.documentation))
                    for smp in fam.samples:
                        if smp.name.endswith("_created"):
                            continue  # a timestamp per worker: no sum of them means anything
                        if smp.name == "process_start_time_seconds":
                            started = smp.value
                        key = (fam.name, smp.name, tuple(sorted(smp.labels.items())))
                        sums.setdefault(key, []).append(smp.value)
                        if fam.type in ("counter", "histogram", "summary"):
                            counted[key] = smp.value
                before = self._last.get(port)
                if before is not None and before[0] != started:  # it restarted: its counts stay
                    for key, value in before[1].items():
                        self._retired[key] = self._retired.get(key, 0.0) + value
                self._last[port] = (started, counted)
            for key, value in self._retired.items():
                sums.setdefault(key, []).append(value)
                families.setdefault(key[0], ("counter", ""))
        out: dict[str, Any] = {}
        for (family, sample, labels), values in sums.items():
            typ, doc = families[family]
            metric = out.get(family)
            if metric is None:
                metric = out[family] = Metric(family, doc, typ)
            mode = _GAUGE_MODES.get(family, "livesum") if typ == "gauge" else "sum"
            value = (
                min(values)
                if mode in ("livemin", "min")
                else max(values)
                if mode in ("livemax", "max")
                else sum(values)
            )
            metric.add_sample(sample, dict(labels), value)
        yield from out.values()


def serve_workers(ports: list[int], host: str, port: int) -> MetricsServer:
    """The supervisor's metrics server: its workers' metrics added up (:class:`WorkersCollector`)."""
    registry = CollectorRegistry()
    registry.register(WorkersCollector(ports))  # type: ignore[arg-type]
    return MetricsServer(host, port, registry)


# ---------------------------------------------------------------- sampled gauges

_NATS_CLIENTS: weakref.WeakSet[Any] = weakref.WeakSet()


def watch_nats(client: Any) -> None:
    """A NATS connection the ``nats`` dependency probe looks at."""
    _NATS_CLIENTS.add(client)


class Sampler:
    """A service's sampled gauges: every ``interval_s`` its pools' sizes, a ``SELECT 1`` on each
    (``okey_dependency_up{dependency="postgres"}``), its NATS connections' state, and the
    service's own samples (``every``: the open tables, the relay's backlog, the open reports)."""

    def __init__(self, interval_s: float = 5.0) -> None:
        self.interval_s = interval_s
        self.pools: dict[str, Any] = {}
        self.samples: list[tuple[float, Callable[[], Awaitable[None]]]] = []
        self._stop = asyncio.Event()
        self.log = get_logger(component="metrics")

    def pool(self, name: str, pool: Any) -> None:
        self.pools[name] = pool

    def every(self, seconds: float, sample: Callable[[], Awaitable[None]]) -> None:
        self.samples.append((seconds, sample))

    def stop(self) -> None:
        self._stop.set()

    async def run(self) -> None:
        last: dict[int, float] = {}
        while not self._stop.is_set():
            await self.sample_once(last)
            try:
                await asyncio.wait_for(self._stop.wait(), timeout=min([self.interval_s, *(s for s, _ in self.samples)]))
            except TimeoutError:
                pass

    async def sample_once(self, last: dict[int, float] | None = None) -> None:
        last = {} if last is None else last
        now = time.monotonic()
        if self.pools:
            up = 1
            for name, pool in self.pools.items():
                size, idle, most = pool.get_size(), pool.get_idle_size(), pool.get_max_size()
                POOL_CONNECTIONS.labels(name, "in_use").set(size - idle)
                POOL_CONNECTIONS.labels(name, "idle").set(idle)
                POOL_CONNECTIONS.labels(name, "max").set(most)
                try:
                    await asyncio.wait_for(pool.fetchval("SELECT 1"), timeout=2.0)
                except Exception:
                    up = 0
            DEPENDENCY_UP.labels("postgres").set(up)
        clients = list(_NATS_CLIENTS)
        if clients:
            DEPENDENCY_UP.labels("nats").set(1 if all(c.is_connected for c in clients) else 0)
        for i, (seconds, sample) in enumerate(self.samples):
            if now - last.get(i, -1e9) < seconds:
                continue
            last[i] = now
            try:
                await sample()
            except Exception as exc:  # a sample that fails (PostgreSQL away) leaves its gauge as it was
                self.log.debug("sample_failed", sample=getattr(sample, "__qualname__", "?"), error=repr(exc))

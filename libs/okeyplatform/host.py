"""The service host: what every service runs on, so a service only declares its parts.

A service's ``bootstrap(config)`` (its composition root) returns a :class:`ServiceHost` with a
``setup`` coroutine. ``setup`` opens the service's resources and registers its parts on the
host: gRPC servicers (:meth:`ServiceHost.serve`), background tasks (:meth:`background`: event
consumers, the relay, timers, listeners) and what to close at the end (:meth:`on_close`); it
returns the parts, which the host keeps as ``host.parts`` for the in-process wrappers and tests.

The host owns everything else, once for all services: the grpc.aio server (with the request
reader, :class:`~okeyplatform.errors.AppErrors`, health and reflection), the sign-out and ban
follower the token checks consult, health SERVING once started, graceful drain on stop
(NOT_SERVING, ``drain_s`` for balancers to notice, in-flight calls given ``grace_s``, then the
background tasks stopped and the resources closed), SIGTERM/SIGINT, logging and the event loop
(:func:`run_service`). A background task marked ``critical`` that fails turns the service
NOT_SERVING and ends :meth:`ServiceHost.run_until_signalled` with exit status 1."""

from __future__ import annotations

import asyncio
import inspect
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import grpc
from grpc_health.v1.health import aio as health_aio
from okeycore import native

from . import aioloop
from .errors import AppErrors
from .grpcserver import build_server, mark_not_serving, mark_serving
from .logs import configure_logging, fatal, get_logger, json_logs
from .metrics import RECORDING, SERVICE_INFO, GrpcMetrics, MetricsServer, Sampler, serve_metrics
from .revocations import RevocationFollower
from .tracing import TracingInterceptor, configure_tracing

__all__ = ["ServiceHost", "Background", "InProcess", "Part", "run_service", "ADDRESS_VARIABLES"]

ADDRESS_VARIABLES = {
    "table": "OKEY_TABLE_ADDR",
    "scoring": "OKEY_SCORING_ADDR",
    "lobby": "OKEY_LOBBY_ADDR",
    "bots": "OKEY_BOTS_ADDR",
    "gateway": "OKEY_GATEWAY_GRPC_ADDR",
}
"""The variable that sets each service's gRPC address (what an error about it names)."""

P = TypeVar("P")


class Background(Protocol):
    """A task started and stopped with its service: ``run`` until ``stop()`` is called."""

    async def run(self) -> None: ...

    def stop(self) -> None: ...


@dataclass
class _Task:
    runner: Background
    critical: bool
    ready: asyncio.Event | None
    task: asyncio.Task[None] | None = None


class ServiceHost(Generic[P]):
    def __init__(
        self,
        name: str,
        address: str,
        setup: Callable[[ServiceHost[P]], Awaitable[P]],
        *,
        reuse_port: bool = False,
        reflection_names: Sequence[str] = (),
        health_names: Sequence[str] = (),
        revocations_url: str | None = None,
        drain_s: float | None = None,
    ) -> None:
        """``health_names``: entries reported SERVING besides the servicers' own (the bots' and
        the gateway's, which serve no API of their own); ``revocations_url``: the NATS URL to
        follow sign-outs and bans from (every service that checks player tokens);
        ``drain_s``: seconds between NOT_SERVING and closing (default ``OKEY_DRAIN_S``, 0)."""
        self.name = name
        self.address = address
        self.setup = setup
        self.reuse_port = reuse_port
        self.reflection_names = list(reflection_names)
        self.health_names = list(health_names)
        self.revocations_url = revocations_url
        self.drain_s = float(os.environ.get("OKEY_DRAIN_S", "0")) if drain_s is None else drain_s
        self.parts: P | None = None
        self.port = 0
        self.server: grpc.aio.Server | None = None
        self.health: health_aio.HealthServicer | None = None
        self.revocations: RevocationFollower | None = None
        self.failed = asyncio.Event()
        self.error: BaseException | None = None
        self.log = get_logger(component=name)
        self._services: list[tuple[Callable[[Any, grpc.aio.Server], None], Any, str]] = []
        self._generic: list[grpc.GenericRpcHandler] = []
        self._tasks: list[_Task] = []
        self._closers: list[Callable[[], Any]] = []
        self._drains: list[Callable[[], Any]] = []
        self._started_hooks: list[Callable[[], Awaitable[None]]] = []
        self._stopped = False
        self.sampler = Sampler()
        self.metrics: MetricsServer | None = None

    # ------------------------------------------------------------ declaring (from setup)

    def serve(self, add: Callable[[Any, grpc.aio.Server], None], servicer: Any, name: str) -> None:
        """A gRPC service: ``add`` is the generated ``add_XServicer_to_server``."""
        self._services.append((add, servicer, name))

    def serve_generic(self, handler: grpc.GenericRpcHandler) -> None:
        """Generic handlers (the gateway's proxy); name them in ``reflection_names``."""
        self._generic.append(handler)

    def background(self, runner: Background, *, critical: bool = False, ready: asyncio.Event | None = None) -> None:
        """A task to run while the service runs. With ``ready``, the service is SERVING only once
        it is set; ``critical``: its failure fails the service (see the module's text)."""
        self._tasks.append(_Task(runner, critical, ready))

    def on_drain(self, drain: Callable[[], Any]) -> None:
        """Called at stop right after the service is marked NOT_SERVING, before the drain and the
        grace: what a long-lived stream needs to end gently (TableService.Play stops reading
        requests, answers those in flight and ends, so its caller moves to another replica)."""
        self._drains.append(drain)

    def on_close(self, close: Callable[[], Any]) -> None:
        """Called (and awaited when it returns an awaitable) at stop, the last registered first."""
        self._closers.append(close)

    def watch_pool(self, name: str, pool: Any) -> None:
        """A PostgreSQL pool whose size (``okey_db_pool_connections``) and reachability
        (``okey_dependency_up``) the metrics show."""
        self.sampler.pool(name, pool)

    def every(self, seconds: float, sample: Callable[[], Awaitable[None]]) -> None:
        """A gauge the service samples every ``seconds`` (open tables, open reports, ...)."""
        self.sampler.every(seconds, sample)

    def on_started(self, hook: Callable[[], Awaitable[None]]) -> None:
        """Run once the service is SERVING (to set health entries of its own, say)."""
        self._started_hooks.append(hook)

    @property
    def serving_names(self) -> list[str]:
        return [name for _, _, name in self._services] + self.health_names

    # ------------------------------------------------------------ running

    async def start(self) -> None:
        self.metrics = serve_metrics()  # first: a metrics port in use fails before anything opens
        if self.metrics is not None:
            self.on_close(self.metrics.close)
        SERVICE_INFO.labels(self.name, _version()).set(1)
        self.parts = await self.setup(self)
        try:
            server, health, port = build_server(
                self._services,
                self.address,
                interceptors=[TracingInterceptor(), AppErrors()],
                reuse_port=self.reuse_port,
                reflection_names=self.reflection_names,
                outer=[GrpcMetrics()] if RECORDING else [],
            )
        except OSError as exc:
            variable = ADDRESS_VARIABLES.get(self.name, "the service's address variable")
            raise OSError(f"{exc}; set {variable} to a free address") from None
        if self._generic:
            server.add_generic_rpc_handlers(tuple(self._generic))
        self.server, self.health, self.port = server, health, port
        if self.revocations_url:
            self.revocations = RevocationFollower(self.revocations_url)  # sign-outs and bans [issue 15.11]
            self.revocations.start()
        await server.start()
        if RECORDING:  # OKEY_METRICS=off: nothing is sampled either (no SELECT 1, no backlog query)
            self._tasks.append(_Task(self.sampler, False, None))
        for t in self._tasks:
            t.task = asyncio.create_task(self._run(t))
        for t in self._tasks:
            if t.ready is not None:
                await self._until_ready(t)
        await mark_serving(health, self.serving_names)
        for hook in self._started_hooks:
            await hook()
        metrics = f"{self.metrics.host}:{self.metrics.port}" if self.metrics else None
        self.log.info(
            f"{self.name}_service_started", address=self.address, port=port, metrics=metrics, build=native.describe()
        )

    async def _until_ready(self, t: _Task) -> None:
        assert t.ready is not None and t.task is not None
        waiting = asyncio.ensure_future(t.ready.wait())
        try:
            await asyncio.wait({waiting, t.task}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiting.cancel()
        if not t.ready.is_set() and t.task.done() and not t.task.cancelled():
            t.task.result()  # the task ended before it was ready: its error, if any

    async def _run(self, t: _Task) -> None:
        try:
            await t.runner.run()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not t.critical:
                raise
            # A critical task stopped (a consumer that cannot go on): the service says so
            # instead of serving stale data quietly.
            self.error = self.error or exc
            self.log.error("background_task_failed", task=type(t.runner).__name__, error=str(exc))
            if self.health is not None:
                await mark_not_serving(self.health, self.serving_names)
            self.failed.set()

    async def stop(self, grace_s: float = 5.0) -> None:
        """Drain: NOT_SERVING, ``drain_s``, in-flight calls given ``grace_s``, then the background
        tasks stopped (each given ``grace_s``, then cancelled) and the resources closed."""
        if self._stopped:
            return
        self._stopped = True
        if self.health is not None:
            await mark_not_serving(self.health, self.serving_names)
        for drain in self._drains:
            drain()
        if self.health is not None and self.drain_s > 0:
            await asyncio.sleep(self.drain_s)
        if self.server is not None:
            await self.server.stop(grace_s)
        for t in self._tasks:
            t.runner.stop()
        for t in self._tasks:
            if t.task is None:
                continue
            try:
                await asyncio.wait_for(t.task, timeout=grace_s)
            except (TimeoutError, asyncio.CancelledError, Exception):
                t.task.cancel()
        if self.revocations is not None:
            await self.revocations.stop()
        for close in reversed(self._closers):
            try:
                got = close()
                if inspect.isawaitable(got):
                    await got
            except Exception as exc:  # one resource failing to close must not keep the others open
                self.log.warning("close_failed", error=repr(exc))

    async def run_until_signalled(self) -> int:
        """Start, serve until SIGTERM or SIGINT (or a critical task's failure), drain. Returns the
        process's exit status: 0, or 1 when a critical task failed."""
        await self.start()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        waits = [asyncio.create_task(stop.wait()), asyncio.create_task(self.failed.wait())]
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for w in waits:
            w.cancel()
        error = self.error
        await self.stop()
        if error is not None:
            self.log.error(f"{self.name}_failed", error=str(error))
            if not json_logs():  # on a terminal, the cause once more as a plain line
                print(f"okey {self.name}: {error}", flush=True, file=sys.stderr)
            return 1
        return 0


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("okey-backend")
    except PackageNotFoundError:
        return "unknown"


def run_service(name: str, make: Callable[[], ServiceHost[Any]]) -> int:
    """A service's ``main``: logging for ``name``, the collector tuned for a long-lived service
    (:func:`okeyplatform.aioloop.tune_gc`), then the host ``make`` builds (inside the event loop)
    run until signalled, on the loop :mod:`okeyplatform.aioloop` picks."""
    configure_logging(name)
    configure_tracing(name)
    aioloop.tune_gc()

    async def go() -> int:
        try:
            return await make().run_until_signalled()
        except OSError as exc:  # a port in use or not local: say which, not a traceback
            fatal(name, str(exc))
            return 2

    return aioloop.run(go())


class InProcess(Generic[P]):
    """The base of the in-process service classes (``TableService`` and the others, which tests
    and ``okey up`` start): the host ``bootstrap`` built, its port, its parts by name."""

    host: ServiceHost[P] | None
    port: int

    async def launch(self, host: ServiceHost[P]) -> None:
        self.host = host
        await host.start()
        self.port = host.port

    async def stop(self, grace_s: float = 5.0) -> None:
        if self.host is not None:
            await self.host.stop(grace_s)

    def part(self, name: str) -> Any:
        """A part ``setup`` returned, None before the start."""
        parts = self.host.parts if self.host is not None else None
        return getattr(parts, name) if parts is not None else None

    @property
    def revocations(self) -> RevocationFollower | None:
        return self.host.revocations if self.host is not None else None


class Part:
    """``store = Part("store")`` in an :class:`InProcess` class: that part of the host, or None."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: InProcess[Any] | None, owner: type | None = None) -> Any:
        return self if obj is None else obj.part(self.name)

"""Wiring of the scoring service: its store, the live projector and the gRPC server."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from grpc_health.v1 import health_pb2
from okey.v1 import scoring_service_pb2_grpc as pb_grpc
from okeyplatform import aioloop
from okeyplatform.contract import encode_envelope, nats_headers
from okeyplatform.eventstore import PostgresEventStore
from okeyplatform.grpcserver import build_server, mark_not_serving, mark_serving
from okeyplatform.logs import configure_logging, get_logger
from okeyplatform.relay import TABLE_STREAM
from okeyplatform.revocations import RevocationFollower

from .api import SERVICE_NAME, ScoringServicer
from .app import Item, ScoringApp
from .consumer import DURABLE, Projector, decode_message
from .store import ScoringStore

__all__ = ["ScoringService", "DEFAULT_ADDR", "serve", "main"]

DEFAULT_ADDR = "127.0.0.1:50062"


PARKED_HEALTH = "okey.scoring.parked"
"""A health entry of its own: NOT_SERVING while any table is parked (``scoring_parked``)."""


@dataclass
class ScoringService:
    """``database_url`` holds the scoring tables (the same database as the event store by
    default; scoring never reads the table service's tables)."""

    database_url: str
    nats_url: str
    address: str = DEFAULT_ADDR
    durable: str = DURABLE
    stream: str = TABLE_STREAM
    on_applied: Callable[[Sequence[Item]], None] | None = None
    events_url: str | None = None  # the event log (OKEY_DATABASE_URL); default: database_url
    store: ScoringStore | None = None
    app: ScoringApp | None = None
    projector: Projector | None = None
    revocations: RevocationFollower | None = None
    port: int = 0
    failed: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None
    _server: Any = None
    _health: Any = None
    _events: PostgresEventStore | None = None

    async def start(self) -> None:
        self.store = await ScoringStore.connect(self.database_url, min_size=2, max_size=8)
        self.app = ScoringApp(self.store)
        self.projector = Projector(
            self.app,
            self.nats_url,
            durable=self.durable,
            stream=self.stream,
            on_applied=self.on_applied,
            log_reader=self._from_log,
        )
        server, health, port = build_server(
            [(pb_grpc.add_ScoringServiceServicer_to_server, ScoringServicer(self.app), SERVICE_NAME)], self.address
        )
        self._server, self._health, self.port = server, health, port
        self.revocations = RevocationFollower(self.nats_url)  # sign-outs and bans [issue 15.11]
        self.revocations.start()
        await server.start()
        await mark_serving(health, [SERVICE_NAME])
        self.projector.on_parked = self._on_parked
        await self._show_parked(await self.store.parked())
        self._task = asyncio.create_task(self._project())
        get_logger(component="scoring").info("scoring_service_started", address=self.address, port=port)

    async def _project(self) -> None:
        assert self.projector is not None
        try:
            await self.projector.run()
        except Exception as exc:
            # The projector stopped (an unknown event type, a message it cannot read, a bug):
            # the projection is no longer fed, so the service says so instead of serving stale data quietly.
            self.projector.error = self.projector.error or exc
            get_logger(component="scoring").error("projector_failed", error=str(exc))
            if self._health is not None:
                await mark_not_serving(self._health, [SERVICE_NAME])
            self.failed.set()

    async def _from_log(self, table_id: str, versions: set[int]) -> list[Item]:
        """Versions of a table read from the PostgreSQL event log (``events_url``), as the relay
        would have published them: for events the stream no longer holds."""
        if self._events is None:
            self._events = await PostgresEventStore.connect(
                self.events_url or self.database_url, min_size=1, max_size=2
            )
        low, high = min(versions), max(versions)
        stored = await self._events.read_stream(table_id, after_version=low - 1, limit=high - low + 1)
        return [decode_message(encode_envelope(e), nats_headers(e)) for e in stored if e.version in versions]

    async def _show_parked(self, parked: Sequence[tuple[str, int, str]]) -> None:
        """The ``okey.scoring.parked`` health entry: SERVING while no table is parked, NOT_SERVING
        (and a log line per table) once one is; the service itself keeps serving."""
        if self._health is None:
            return
        status = health_pb2.HealthCheckResponse.NOT_SERVING if parked else health_pb2.HealthCheckResponse.SERVING
        await self._health.set(PARKED_HEALTH, status)
        for table_id, version, reason in parked:
            get_logger(component="scoring").warning("table_parked", table_id=table_id, version=version, reason=reason)

    def _on_parked(self, parked: dict[str, tuple[int, str]]) -> None:
        asyncio.get_running_loop().create_task(self._show_parked([(t, v, r) for t, (v, r) in parked.items()]))

    @property
    def error(self) -> BaseException | None:
        return self.projector.error if self.projector else None

    async def stop(self, grace_s: float = 5.0) -> None:
        if self._health is not None:
            await mark_not_serving(self._health, [SERVICE_NAME])
        if self.projector is not None:
            self.projector.stop()
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, timeout=grace_s)
            except (TimeoutError, asyncio.CancelledError, Exception):
                self._task.cancel()
        if self._server is not None:
            await self._server.stop(grace_s)
        if self.revocations is not None:
            await self.revocations.stop()
        if self.store is not None:
            await self.store.close()
        if self._events is not None:
            await self._events.close()


async def serve(database_url: str, nats_url: str, address: str) -> int:
    svc = ScoringService(database_url, nats_url, address, events_url=os.environ.get("OKEY_DATABASE_URL"))
    await svc.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    waits = [asyncio.create_task(stop.wait()), asyncio.create_task(svc.failed.wait())]
    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for w in waits:
        w.cancel()
    error = svc.error
    await svc.stop()
    if error is not None:
        print(f"okey scoring: the projector stopped: {error}", file=sys.stderr)
        return 1
    return 0


def main() -> int:
    configure_logging("scoring")
    database_url = os.environ.get("OKEY_SCORING_DATABASE_URL") or os.environ["OKEY_DATABASE_URL"]
    nats_url = os.environ["OKEY_NATS_URL"]
    address = os.environ.get("OKEY_SCORING_ADDR", DEFAULT_ADDR)
    return aioloop.run(serve(database_url, nats_url, address))


if __name__ == "__main__":
    raise SystemExit(main())

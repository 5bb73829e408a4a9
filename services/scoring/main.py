"""The scoring service's composition root: ``bootstrap`` declares its parts (its store, the
live projector, the gRPC servicer, the parked-tables health entry) on an okeyplatform ServiceHost."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from okey.v1 import scoring_service_pb2_grpc as pb_grpc
from okeyplatform.consumer import Item, TableEventConsumer, parked_health
from okeyplatform.eventstore import PostgresEventStore
from okeyplatform.host import InProcess, Part, ServiceHost, run_service
from okeyplatform.relay import TABLE_STREAM

from .api import SERVICE_NAME, ScoringServicer
from .app import ScoringApp
from .consumer import DURABLE, projector
from .store import RECORD, ScoringStore

__all__ = ["ScoringService", "ScoringConfig", "ScoringParts", "bootstrap", "DEFAULT_ADDR", "main"]

DEFAULT_ADDR = "127.0.0.1:50062"


PARKED_HEALTH = parked_health(RECORD)
"""A health entry of its own: NOT_SERVING while any table is parked (the consumer's)."""


@dataclass(frozen=True)
class ScoringConfig:
    """``database_url`` holds the scoring tables (the same database as the event store by
    default; scoring never reads the table service's tables); ``events_url`` is the event log,
    read only for versions the stream no longer holds (default: ``database_url``)."""

    database_url: str
    nats_url: str
    address: str = DEFAULT_ADDR
    events_url: str | None = None
    durable: str = DURABLE
    stream: str = TABLE_STREAM
    on_applied: Callable[[Sequence[Item]], None] | None = None
    batch: int | None = None  # messages a fetch; None: the consumer's default

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ScoringConfig:
        e = os.environ if env is None else env
        return cls(
            database_url=e.get("OKEY_SCORING_DATABASE_URL") or e["OKEY_DATABASE_URL"],
            nats_url=e["OKEY_NATS_URL"],
            address=e.get("OKEY_SCORING_ADDR", DEFAULT_ADDR),
            events_url=e.get("OKEY_DATABASE_URL"),
            durable=e.get("OKEY_SCORING_DURABLE") or DURABLE,
        )


@dataclass
class ScoringParts:
    store: ScoringStore
    app: ScoringApp
    projector: TableEventConsumer


def bootstrap(config: ScoringConfig) -> ServiceHost[ScoringParts]:
    events: list[PostgresEventStore] = []  # the event log, opened when first needed

    async def log() -> PostgresEventStore:
        if not events:
            events.append(
                await PostgresEventStore.connect(config.events_url or config.database_url, min_size=1, max_size=2)
            )
        return events[0]

    async def setup(host: ServiceHost[ScoringParts]) -> ScoringParts:
        store = await ScoringStore.connect(config.database_url, min_size=2, max_size=8)
        host.on_close(store.close)
        host.on_close(lambda: events[0].close() if events else None)
        app = ScoringApp(store)
        consumer = projector(
            store, config.nats_url, config.durable, config.stream, log, config.on_applied, config.batch
        )
        host.serve(pb_grpc.add_ScoringServiceServicer_to_server, ScoringServicer(app), SERVICE_NAME)
        host.background(consumer, critical=True)
        consumer.serve_parked_health(host)
        return ScoringParts(store, app, consumer)

    return ServiceHost("scoring", config.address, setup, revocations_url=config.nats_url)


@dataclass
class ScoringService(InProcess[Any]):
    """The scoring service in this process (tests, ``okey up``): the host ``bootstrap`` builds."""

    database_url: str
    nats_url: str
    address: str = DEFAULT_ADDR
    durable: str = DURABLE
    stream: str = TABLE_STREAM
    on_applied: Callable[[Sequence[Item]], None] | None = None
    events_url: str | None = None  # the event log (OKEY_DATABASE_URL); default: database_url
    batch: int | None = None  # messages a fetch; None: the consumer's default
    port: int = 0
    host: ServiceHost[ScoringParts] | None = field(default=None, repr=False)
    _failed: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    async def start(self) -> None:
        await self.launch(
            bootstrap(
                ScoringConfig(
                    self.database_url,
                    self.nats_url,
                    self.address,
                    self.events_url,
                    self.durable,
                    self.stream,
                    self.on_applied,
                    self.batch,
                )
            )
        )

    store = Part("store")
    app = Part("app")
    projector = Part("projector")

    @property
    def failed(self) -> asyncio.Event:
        """Set when the projector stopped (the service is NOT_SERVING then)."""
        return self.host.failed if self.host is not None else self._failed

    @property
    def error(self) -> BaseException | None:
        return self.projector.error if self.projector else None


def main() -> int:
    return run_service("scoring", lambda: bootstrap(ScoringConfig.from_env()))


if __name__ == "__main__":
    raise SystemExit(main())

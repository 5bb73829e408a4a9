"""The table service's composition root: ``bootstrap`` declares its parts (store, app, relay,
timers, append listener, gRPC servicer) on an okeyplatform ServiceHost, which runs them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from okey.v1 import table_service_pb2_grpc as pb_grpc
from okeyplatform.eventstore import PostgresEventStore
from okeyplatform.host import InProcess, Part, ServiceHost, run_service
from okeyplatform.logs import configure_logging, fatal, get_logger
from okeyplatform.metrics import OPEN_TABLES
from okeyplatform.relay import Relay
from okeyplatform.workers import supervise, worker_count

from .api import SERVICE_NAME, TableServicer
from .app import TableApp
from .listener import AppendListener
from .timers import TimerPoller

__all__ = ["TableService", "TableConfig", "TableParts", "bootstrap", "DEFAULT_ADDR", "main"]

DEFAULT_ADDR = "127.0.0.1:50061"


@dataclass(frozen=True)
class TableConfig:
    database_url: str
    nats_url: str
    address: str = DEFAULT_ADDR
    grace_ms: int = 3000
    reuse_port: bool = False
    listen_idle_s: float = 5.0
    max_tables_per_player: int = 3
    max_watches_per_player: int = 8
    relay_linger_s: float = 0.01
    deal_seed: str = ""  # OKEY_INSECURE_DEAL_SEED: predictable deals, for tests only (never in production)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> TableConfig:
        e = os.environ if env is None else env
        return cls(
            database_url=e["OKEY_DATABASE_URL"],
            nats_url=e["OKEY_NATS_URL"],
            address=e.get("OKEY_TABLE_ADDR", DEFAULT_ADDR),
            grace_ms=int(e.get("OKEY_TIMEOUT_GRACE_MS", "3000")),
            reuse_port=e.get("OKEY_REUSE_PORT") == "1",
            max_tables_per_player=int(e.get("OKEY_MAX_TABLES_PER_PLAYER", "3")),
            max_watches_per_player=int(e.get("OKEY_MAX_WATCHES_PER_PLAYER", "8")),
            relay_linger_s=float(e.get("OKEY_RELAY_LINGER_MS", "10")) / 1000,
            deal_seed=e.get("OKEY_INSECURE_DEAL_SEED", ""),
        )


@dataclass
class TableParts:
    store: PostgresEventStore
    app: TableApp
    relay: Relay
    timers: TimerPoller
    listener: AppendListener


def bootstrap(config: TableConfig) -> ServiceHost[TableParts]:
    """The table service: a replica of it (the store keeps one writer per table)."""

    async def setup(host: ServiceHost[TableParts]) -> TableParts:
        store = await PostgresEventStore.connect(config.database_url, min_size=4, max_size=20)
        host.on_close(store.close)
        host.watch_pool("table", store.pool)
        app = TableApp(
            store,
            grace_ms=config.grace_ms,
            max_tables_per_player=config.max_tables_per_player,
            deal_seed=config.deal_seed,
        )
        if config.deal_seed:
            get_logger(component="table").warning(
                "insecure_deal_seed",
                message="OKEY_INSECURE_DEAL_SEED is set: deals are predictable: tests only, never in production",
            )
        relay = Relay(store, config.database_url, config.nats_url, linger_s=config.relay_linger_s)
        timers = TimerPoller(app, store)
        listener = AppendListener(app, config.database_url, config.listen_idle_s)
        servicer = TableServicer(app, max_watches=config.max_watches_per_player)
        host.serve(pb_grpc.add_TableServiceServicer_to_server, servicer, SERVICE_NAME)
        host.on_drain(servicer.drain)  # Play streams end gently: their callers go to another replica
        for task in (relay, timers, listener):
            host.background(task)

        async def open_tables() -> None:
            OPEN_TABLES.set(await store.open_tables())

        host.every(10.0, open_tables)
        host.every(2.0, relay.sample)
        return TableParts(store, app, relay, timers, listener)

    return ServiceHost("table", config.address, setup, reuse_port=config.reuse_port, revocations_url=config.nats_url)


@dataclass
class TableService(InProcess[Any]):
    """The table service in this process (tests, ``okey up``): the host ``bootstrap`` builds."""

    database_url: str
    nats_url: str
    # The options a test may set; their defaults are TableConfig's (one place).
    address: str = TableConfig.address
    grace_ms: int = TableConfig.grace_ms
    reuse_port: bool = TableConfig.reuse_port
    listen_idle_s: float = TableConfig.listen_idle_s
    port: int = 0
    host: ServiceHost[TableParts] | None = field(default=None, repr=False)

    async def start(self) -> None:
        urls = {"OKEY_DATABASE_URL": self.database_url, "OKEY_NATS_URL": self.nats_url}
        config = replace(
            TableConfig.from_env({**os.environ, **urls}),
            address=self.address,
            grace_ms=self.grace_ms,
            reuse_port=self.reuse_port,
            listen_idle_s=self.listen_idle_s,
        )
        await self.launch(bootstrap(config))

    store = Part("store")
    app = Part("app")
    relay = Part("relay")
    timers = Part("timers")

    @property
    def listening(self) -> bool:
        listener = self.part("listener")
        return bool(listener and listener.listening)

    @property
    def listens(self) -> int:
        listener = self.part("listener")
        return listener.listens if listener is not None else 0


def main() -> int:
    """Run the service; ``OKEY_TABLE_WORKERS`` > 1 runs that many replica processes sharing
    the port (SO_REUSEPORT): each is a full replica, the store keeps one writer per table."""
    try:
        workers = worker_count("table")
    except ValueError as exc:
        fatal("table", str(exc))
        return 2
    if workers > 1:
        configure_logging("table")
        return supervise("table", "services.table.main", workers)
    return run_service("table", lambda: bootstrap(TableConfig.from_env()))


if __name__ == "__main__":
    raise SystemExit(main())

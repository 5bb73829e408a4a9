"""The bots service's composition root: ``bootstrap`` declares its parts (the table client with
its renewing service credential, the pool of its applied-version record, the event consumer, the
health entry) on an okeyplatform ServiceHost."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from okeyplatform.auth import ServiceCredential
from okeyplatform.client import TableClient
from okeyplatform.consumer import TableEventConsumer
from okeyplatform.eventstore import open_pool
from okeyplatform.host import InProcess, Part, ServiceHost, run_service
from okeyplatform.logs import configure_logging, fatal
from okeyplatform.workers import supervise, worker_count

from .api import SERVICE_NAME
from .app import BotsApp
from .consumer import DURABLE, bots_consumer, migrate_schema

__all__ = ["BotsService", "BotsConfig", "BotsParts", "bootstrap", "DEFAULT_ADDR", "main"]

DEFAULT_ADDR = "127.0.0.1:50064"
TOKEN_TTL_S = 24 * 3600


@dataclass(frozen=True)
class BotsConfig:
    """``database_url`` holds the bots' applied-version record (one small table); ``durable`` is
    the JetStream durable every replica shares."""

    nats_url: str
    database_url: str
    table_addr: str = "127.0.0.1:50061"
    address: str = DEFAULT_ADDR
    strategy: str | None = None  # None: each table's bot_level chooses
    durable: str = DURABLE
    reuse_port: bool = False  # a worker of several on one port (OKEY_BOTS_WORKERS)
    instant: bool = False  # OKEY_BOTS_PACE=instant: every table's bots move at once
    stream: bool = True  # OKEY_BOTS_CALLS=stream (the default): Act and GetView on one Play stream; unary: a call each

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> BotsConfig:
        """``OKEY_NATS_URL``, ``OKEY_BOTS_DATABASE_URL`` (default ``OKEY_DATABASE_URL``),
        ``OKEY_TABLE_ADDR``, ``OKEY_BOTS_ADDR``, ``OKEY_BOTS_STRATEGY`` (random, greedy or strong
        for every table; unset, each table's ``bot_level`` chooses), ``OKEY_BOTS_DURABLE``,
        ``OKEY_BOTS_CALLS`` (``stream``, the default, or ``unary``); tokens are signed with
        ``OKEY_TOKEN_SECRET``."""
        e = os.environ if env is None else env
        return cls(
            nats_url=e["OKEY_NATS_URL"],
            database_url=e.get("OKEY_BOTS_DATABASE_URL") or e["OKEY_DATABASE_URL"],
            table_addr=e.get("OKEY_TABLE_ADDR", "127.0.0.1:50061"),
            address=e.get("OKEY_BOTS_ADDR", DEFAULT_ADDR),
            strategy=e.get("OKEY_BOTS_STRATEGY") or None,
            durable=e.get("OKEY_BOTS_DURABLE") or DURABLE,
            reuse_port=e.get("OKEY_REUSE_PORT") == "1",
            instant=_pace(e.get("OKEY_BOTS_PACE", "table")),
            stream=_calls(e.get("OKEY_BOTS_CALLS", "stream")),
        )


def _calls(value: str) -> bool:
    """``OKEY_BOTS_CALLS``: ``stream`` (Act and GetView on one Play stream, the default) or
    ``unary`` (a gRPC call each, as before the stream: to compare, or against a table service
    behind a proxy that cannot carry a bidirectional stream)."""
    value = value.strip().lower() or "stream"
    if value not in ("stream", "unary"):
        raise ValueError(f"OKEY_BOTS_CALLS={value!r}: use stream (one Play stream) or unary (a call each)")
    return value == "stream"


def _pace(value: str) -> bool:
    """``OKEY_BOTS_PACE``: ``table`` (each table's ``bot_pace``, the default) or ``instant``."""
    value = value.strip().lower() or "table"
    if value not in ("table", "instant"):
        raise ValueError(f"OKEY_BOTS_PACE={value!r}: use table (each table's bot_pace) or instant")
    return value == "instant"


@dataclass
class BotsParts:
    client: TableClient
    app: BotsApp
    consumer: TableEventConsumer


def bootstrap(config: BotsConfig) -> ServiceHost[BotsParts]:
    """The bots serve no API of their own: the host reports ``okey.v1.Bots`` SERVING once the
    consumer has bound to the stream."""

    async def setup(host: ServiceHost[BotsParts]) -> BotsParts:
        # Act and GetView on one long-lived Play stream, not a call each (issue 48).
        client = TableClient(config.table_addr, ServiceCredential("bots", ttl_s=TOKEN_TTL_S), stream=config.stream)
        app = BotsApp(client, config.strategy, instant=config.instant)
        host.on_close(app.client.close)
        host.on_close(app.close)  # before the client: its scheduled turns are cancelled first
        pool = await open_pool(config.database_url, migrate_schema, min_size=1, max_size=4)
        host.on_close(pool.close)
        consumer = bots_consumer(app, pool, config.nats_url, config.durable)
        host.background(consumer, ready=consumer.ready)
        return BotsParts(app.client, app, consumer)

    return ServiceHost("bots", config.address, setup, health_names=[SERVICE_NAME], reuse_port=config.reuse_port)


@dataclass
class BotsService(InProcess[Any]):
    """The bots service in this process (tests, ``okey up``): the host ``bootstrap`` builds."""

    nats_url: str
    database_url: str
    table_addr: str
    address: str = DEFAULT_ADDR
    strategy: str | None = None  # None: each table's bot_level chooses
    durable: str = DURABLE
    port: int = 0
    host: ServiceHost[BotsParts] | None = field(default=None, repr=False)

    async def start(self) -> None:
        config = BotsConfig(
            self.nats_url, self.database_url, self.table_addr, self.address, self.strategy, self.durable
        )
        await self.launch(bootstrap(config))

    app = Part("app")
    consumer = Part("consumer")
    client = Part("client")


def main() -> int:
    """Run the service; ``OKEY_BOTS_WORKERS`` > 1 runs that many replica processes on one port,
    sharing the durable consumer (JetStream hands each batch to one of them)."""
    try:
        workers = worker_count("bots")
    except ValueError as exc:
        fatal("bots", str(exc))
        return 2
    try:
        config = BotsConfig.from_env()
    except ValueError as exc:
        fatal("bots", str(exc))
        return 2
    if workers > 1:
        configure_logging("bots")
        return supervise("bots", "services.bots.main", workers)
    return run_service("bots", lambda: bootstrap(config))


if __name__ == "__main__":
    raise SystemExit(main())

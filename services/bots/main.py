"""The bots service's composition root: ``bootstrap`` declares its parts (the table client with
its renewing service credential, the event follower, the health entry) on an okeyplatform
ServiceHost."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from okeyplatform.auth import ServiceCredential
from okeyplatform.client import TableClient
from okeyplatform.host import InProcess, Part, ServiceHost, run_service

from .api import SERVICE_NAME
from .app import BotsApp
from .consumer import DURABLE, QUEUE, EventFollower

__all__ = ["BotsService", "BotsConfig", "BotsParts", "bootstrap", "DEFAULT_ADDR", "main"]

DEFAULT_ADDR = "127.0.0.1:50064"
TOKEN_TTL_S = 24 * 3600


@dataclass(frozen=True)
class BotsConfig:
    nats_url: str
    table_addr: str = "127.0.0.1:50061"
    address: str = DEFAULT_ADDR
    strategy: str = "strong"
    durable: str = DURABLE
    queue: str = QUEUE

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> BotsConfig:
        """``OKEY_NATS_URL``, ``OKEY_TABLE_ADDR``, ``OKEY_BOTS_ADDR``, ``OKEY_BOTS_STRATEGY``
        (random, greedy or strong; default strong); tokens are signed with ``OKEY_TOKEN_SECRET``."""
        e = os.environ if env is None else env
        return cls(
            nats_url=e["OKEY_NATS_URL"],
            table_addr=e.get("OKEY_TABLE_ADDR", "127.0.0.1:50061"),
            address=e.get("OKEY_BOTS_ADDR", DEFAULT_ADDR),
            strategy=e.get("OKEY_BOTS_STRATEGY", "strong"),
        )


@dataclass
class BotsParts:
    client: TableClient
    app: BotsApp
    follower: EventFollower


def bootstrap(config: BotsConfig) -> ServiceHost[BotsParts]:
    """The bots serve no API of their own: the host reports ``okey.v1.Bots`` SERVING once the
    follower has subscribed."""

    async def setup(host: ServiceHost[BotsParts]) -> BotsParts:
        client = TableClient(config.table_addr, ServiceCredential("bots", ttl_s=TOKEN_TTL_S))
        host.on_close(client.close)
        app = BotsApp(client, config.strategy)
        follower = EventFollower(app, config.nats_url, durable=config.durable, queue=config.queue)
        host.background(follower, ready=follower.ready)
        return BotsParts(client, app, follower)

    return ServiceHost("bots", config.address, setup, health_names=[SERVICE_NAME])


@dataclass
class BotsService(InProcess[Any]):
    """The bots service in this process (tests, ``okey up``): the host ``bootstrap`` builds."""

    nats_url: str
    table_addr: str
    address: str = DEFAULT_ADDR
    strategy: str = "strong"
    durable: str = DURABLE
    queue: str = QUEUE
    port: int = 0
    host: ServiceHost[BotsParts] | None = field(default=None, repr=False)

    async def start(self) -> None:
        config = BotsConfig(self.nats_url, self.table_addr, self.address, self.strategy, self.durable, self.queue)
        await self.launch(bootstrap(config))

    app = Part("app")
    follower = Part("follower")
    client = Part("client")


def main() -> int:
    return run_service("bots", lambda: bootstrap(BotsConfig.from_env()))


if __name__ == "__main__":
    raise SystemExit(main())

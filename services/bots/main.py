"""Wiring of the bots service: the table client with its service credential, the event follower
and the health server."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from dataclasses import dataclass, field
from typing import Any

from okeyplatform import aioloop
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeyplatform.grpcserver import mark_not_serving, mark_serving
from okeyplatform.logs import configure_logging, get_logger

from .api import SERVICE_NAME, build_health_server
from .app import BotsApp
from .consumer import DURABLE, QUEUE, EventFollower

__all__ = ["BotsService", "DEFAULT_ADDR", "serve", "main"]

DEFAULT_ADDR = "127.0.0.1:50064"
TOKEN_TTL_S = 24 * 3600


class _ServiceClient(TableClient):
    """A TableClient whose service token is renewed before it expires."""

    def __init__(self, target: str) -> None:
        super().__init__(target, issue_token("bots", "service", ttl_s=TOKEN_TTL_S))
        self._issued = time.monotonic()

    def _fresh(self) -> None:
        if time.monotonic() - self._issued > TOKEN_TTL_S / 2:
            self.metadata = (("authorization", f"Bearer {issue_token('bots', 'service', ttl_s=TOKEN_TTL_S)}"),)
            self._issued = time.monotonic()

    async def act(self, *args: Any, **kwargs: Any) -> Any:
        self._fresh()
        return await super().act(*args, **kwargs)

    async def view(self, *args: Any, **kwargs: Any) -> Any:
        self._fresh()
        return await super().view(*args, **kwargs)


@dataclass
class BotsService:
    nats_url: str
    table_addr: str
    address: str = DEFAULT_ADDR
    strategy: str = "strong"
    durable: str = DURABLE
    queue: str = QUEUE
    app: BotsApp | None = None
    follower: EventFollower | None = None
    client: TableClient | None = None
    port: int = 0
    _task: asyncio.Task[None] | None = None
    _server: Any = None
    _health: Any = None
    _names: list[str] = field(default_factory=lambda: [SERVICE_NAME])

    async def start(self) -> None:
        self.client = _ServiceClient(self.table_addr)
        self.app = BotsApp(self.client, self.strategy)
        self.follower = EventFollower(self.app, self.nats_url, durable=self.durable, queue=self.queue)
        server, health, port = build_health_server(self.address)
        self._server, self._health, self.port = server, health, port
        await server.start()
        self._task = asyncio.create_task(self.follower.run())
        await self.follower.ready.wait()
        await mark_serving(health, self._names)
        get_logger(component="bots").info("bots_service_started", address=self.address, port=port)

    async def stop(self, grace_s: float = 5.0) -> None:
        if self._health is not None:
            await mark_not_serving(self._health, self._names)
        if self.follower is not None:
            self.follower.stop()
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, timeout=grace_s)
            except (TimeoutError, asyncio.CancelledError, Exception):
                self._task.cancel()
        if self._server is not None:
            await self._server.stop(grace_s)
        if self.client is not None:
            await self.client.close()


async def serve(nats_url: str, table_addr: str, address: str, strategy: str) -> None:
    svc = BotsService(nats_url, table_addr, address, strategy)
    await svc.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await svc.stop()


def main() -> int:
    """Run the service: ``OKEY_NATS_URL``, ``OKEY_TABLE_ADDR``, ``OKEY_BOTS_ADDR``,
    ``OKEY_BOTS_STRATEGY`` (random, greedy or strong; default strong), ``OKEY_TOKEN_SECRET``."""
    configure_logging("bots")
    aioloop.run(
        serve(
            os.environ["OKEY_NATS_URL"],
            os.environ.get("OKEY_TABLE_ADDR", "127.0.0.1:50061"),
            os.environ.get("OKEY_BOTS_ADDR", DEFAULT_ADDR),
            os.environ.get("OKEY_BOTS_STRATEGY", "strong"),
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Wiring of the gateway: the gRPC proxy and the HTTP/WebSocket server in one process."""

from __future__ import annotations

import asyncio
import os
import signal
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from okeyplatform import aioloop
from okeyplatform.grpcserver import build_server, mark_not_serving, mark_serving
from okeyplatform.logs import configure_logging, get_logger
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .api import GrpcProxy, build_http_app
from .app import RateLimiter, Upstreams

__all__ = ["Gateway", "DEFAULT_GRPC_ADDR", "DEFAULT_HTTP_ADDR"]

DEFAULT_GRPC_ADDR = "127.0.0.1:50051"
DEFAULT_HTTP_ADDR = "127.0.0.1:8080"


class _WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, except that an upgrade request it cannot read (a request
    line or headers over websockets' 8 KiB limits) gets websockets' own answer (414, 431, 400)
    and is closed: uvicorn drops that answer and would leave the connection hanging for ever."""

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not self.handshake_initiated and self.conn.handshake_exc is not None and not self.transport.is_closing():
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.transport.close()


@dataclass
class Gateway:
    grpc_address: str = DEFAULT_GRPC_ADDR
    http_address: str = DEFAULT_HTTP_ADDR
    environ: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    grpc_port: int = 0
    http_port: int = 0
    upstreams: Upstreams | None = None
    _server: Any = None
    _health: Any = None
    _http: uvicorn.Server | None = None
    _http_task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        env = self.environ
        self.upstreams = Upstreams.from_env(env)
        limiter = RateLimiter(float(env.get("OKEY_RATE_LIMIT", "20")), float(env.get("OKEY_RATE_BURST", "40")))
        origins = [o.strip() for o in env.get("OKEY_CORS_ORIGINS", "").split(",") if o.strip()]
        server, health, port = build_server([], self.grpc_address, reflection_names=list(self.upstreams.addresses))
        server.add_generic_rpc_handlers((GrpcProxy(self.upstreams, limiter),))
        self._server, self._health, self.grpc_port = server, health, port
        await server.start()
        await mark_serving(health, list(self.upstreams.addresses))
        host, _, hport = self.http_address.rpartition(":")
        app = build_http_app(self.upstreams, limiter, origins)
        config = uvicorn.Config(
            app,
            host=host,
            port=int(hport),
            log_level="warning",
            access_log=False,
            lifespan="off",
            ws=_WebSocketProtocol,
        )
        self._http = uvicorn.Server(config)
        self._http_task = asyncio.create_task(self._http.serve())
        while not self._http.started:
            if self._http_task.done():
                self._http_task.result()
                raise OSError(f"cannot serve HTTP on {self.http_address}")
            await asyncio.sleep(0.02)
        self.http_port = self._http.servers[0].sockets[0].getsockname()[1]
        get_logger(component="gateway").info(
            "gateway_started",
            grpc=f"{self.grpc_address}",
            http=f"{host}:{self.http_port}",
            services=sorted(self.upstreams.addresses),
        )

    async def stop(self, grace_s: float = 5.0) -> None:
        if self._health is not None:
            await mark_not_serving(self._health, list(self.upstreams.addresses if self.upstreams else []))
        if self._http is not None:
            self._http.should_exit = True
            if self._http_task is not None:
                try:
                    await asyncio.wait_for(asyncio.shield(self._http_task), timeout=grace_s)
                except TimeoutError:
                    self._http.force_exit = True
                    await self._http_task
        if self._server is not None:
            await self._server.stop(grace_s)
        if self.upstreams is not None:
            await self.upstreams.close()


async def serve() -> None:
    gw = Gateway(
        os.environ.get("OKEY_GATEWAY_GRPC_ADDR", DEFAULT_GRPC_ADDR),
        os.environ.get("OKEY_GATEWAY_HTTP_ADDR", DEFAULT_HTTP_ADDR),
    )
    await gw.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await gw.stop()


def main() -> None:
    configure_logging("gateway")
    aioloop.run(serve())


if __name__ == "__main__":
    main()

"""Wiring of the gateway: the gRPC proxy and the HTTP/WebSocket server in one process."""

from __future__ import annotations

import asyncio
import os
import signal
from dataclasses import dataclass, field
from typing import Any

import h11
import uvicorn
from okeyplatform import aioloop
from okeyplatform.grpcserver import build_server, mark_not_serving, mark_serving
from okeyplatform.logs import configure_logging, get_logger
from uvicorn.protocols.http.h11_impl import H11Protocol
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


class _GuardedH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline for each request to arrive: a connection that
    has not sent a whole request (line, headers and body) within ``head_timeout_s`` of opening,
    or of its last answer, is closed. Silent and half-sent connections (slowloris) cannot pile
    up; a request being answered, and an upgraded WebSocket, are never cut by it."""

    head_timeout_s: float = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def _arm(self) -> None:
        old = getattr(self, "_head_timer", None)
        if old is not None:
            old.cancel()
        self._head_timer: asyncio.TimerHandle | None = self.loop.call_later(self.head_timeout_s, self._head_expired)

    def _head_expired(self) -> None:
        self._head_timer = None
        waiting = self.conn.their_state in (h11.IDLE, h11.SEND_BODY)
        answering = self.cycle is not None and not self.cycle.response_complete and self.conn.their_state is h11.DONE
        if waiting and not answering and not self.transport.is_closing():
            self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc: Exception | None) -> None:
        if getattr(self, "_head_timer", None) is not None:
            self._head_timer.cancel()  # type: ignore[union-attr]
            self._head_timer = None
        super().connection_lost(exc)


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
        rate, burst = float(env.get("OKEY_RATE_LIMIT", "20")), float(env.get("OKEY_RATE_BURST", "40"))
        # Every request takes from its player's bucket and from its address's (five times larger
        # by default): several tokens of one person share the address's allowance [issue 15.8].
        limiter = RateLimiter(
            rate,
            burst,
            address_rate=float(env.get("OKEY_RATE_LIMIT_PER_ADDRESS", str(rate * 5))),
            address_burst=float(env.get("OKEY_RATE_BURST_PER_ADDRESS", str(burst * 5))),
        )
        origins = [o.strip() for o in env.get("OKEY_CORS_ORIGINS", "").split(",") if o.strip()]
        server, health, port = build_server([], self.grpc_address, reflection_names=list(self.upstreams.addresses))
        server.add_generic_rpc_handlers((GrpcProxy(self.upstreams, limiter),))
        self._server, self._health, self.grpc_port = server, health, port
        await server.start()
        await mark_serving(health, list(self.upstreams.addresses))
        host, _, hport = self.http_address.rpartition(":")
        guarded = type(
            "GuardedH11", (_GuardedH11,), {"head_timeout_s": float(env.get("OKEY_HTTP_HEADER_TIMEOUT_S", "10"))}
        )
        trusted = ",".join(p.strip() for p in env.get("OKEY_TRUSTED_PROXIES", "").split(",") if p.strip())
        app = build_http_app(self.upstreams, limiter, origins)
        config = uvicorn.Config(
            app,
            host=host,
            port=int(hport),
            log_level="warning",
            access_log=False,
            lifespan="off",
            ws=_WebSocketProtocol,
            http=guarded,
            limit_concurrency=int(env.get("OKEY_HTTP_MAX_CONNECTIONS", "2000")),
            # X-Forwarded-For names the client only when it comes from a proxy we run (an
            # ingress): from anyone else it is a header a caller writes to dodge per-address limits.
            proxy_headers=bool(trusted),
            forwarded_allow_ips=trusted or None,
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

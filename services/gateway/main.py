"""The gateway's composition root: ``bootstrap`` declares the gRPC proxy and the HTTP/WebSocket
server (one process) on an okeyplatform ServiceHost."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import h11
import uvicorn
from okeyplatform.auth import ServiceCredential
from okeyplatform.host import InProcess, Part, ServiceHost, run_service
from okeyplatform.logs import get_logger
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .api import GrpcProxy, build_http_app
from .app import RateLimiter, StreamCaps, Upstreams
from .presence import Presence
from .seats import table_act
from .spectators import SpectatorGate

__all__ = ["Gateway", "GatewayParts", "bootstrap", "DEFAULT_GRPC_ADDR", "DEFAULT_HTTP_ADDR", "main"]

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


class HttpServer:
    """uvicorn as a background task of the host: ``ready`` once it listens (``port`` is then the
    port it got), ``stop`` lets it finish the requests in flight."""

    def __init__(self, config: uvicorn.Config, address: str) -> None:
        self.server = uvicorn.Server(config)
        self.address = address
        self.ready = asyncio.Event()
        self.port = 0

    async def run(self) -> None:
        serving = asyncio.create_task(self.server.serve())
        while not self.server.started:
            if serving.done():
                serving.result()
                raise OSError(f"cannot serve HTTP on {self.address}")
            await asyncio.sleep(0.02)
        self.port = self.server.servers[0].sockets[0].getsockname()[1]
        self.ready.set()
        await serving

    def stop(self) -> None:
        self.server.should_exit = True


@dataclass
class GatewayParts:
    upstreams: Upstreams
    limiter: RateLimiter
    http: HttpServer
    streams: StreamCaps | None = None
    presence: Presence | None = None


def bootstrap(
    environ: Mapping[str, str] | None = None, grpc_address: str | None = None, http_address: str | None = None
) -> ServiceHost[GatewayParts]:
    """The gateway, configured from ``environ`` (default: the process's): OKEY_*_ADDR of the
    upstreams, rate limits, CORS origins, trusted proxies, HTTP limits, and OKEY_NATS_URL for
    presence shared with the other replicas (without it, presence is this replica's alone)."""
    env = dict(os.environ if environ is None else environ)
    grpc_address = grpc_address or env.get("OKEY_GATEWAY_GRPC_ADDR", DEFAULT_GRPC_ADDR)
    http_address = http_address or env.get("OKEY_GATEWAY_HTTP_ADDR", DEFAULT_HTTP_ADDR)
    upstreams = Upstreams.from_env(env)

    async def setup(host: ServiceHost[GatewayParts]) -> GatewayParts:
        host.on_close(upstreams.close)
        rate, burst = float(env.get("OKEY_RATE_LIMIT", "20")), float(env.get("OKEY_RATE_BURST", "40"))
        # Every request takes from its player's bucket and from its address's (five times larger
        # by default): several tokens of one person share the address's allowance [issue 15.8].
        limiter = RateLimiter(
            rate,
            burst,
            address_rate=float(env.get("OKEY_RATE_LIMIT_PER_ADDRESS", str(rate * 5))),
            address_burst=float(env.get("OKEY_RATE_BURST_PER_ADDRESS", str(burst * 5))),
        )
        # Streams (Watch) open at once per player and per address: long-lived, so the rate limit,
        # which counts their opening only, does not bound them [issue 39.8]. 0: no cap.
        streams = StreamCaps(
            int(env.get("OKEY_MAX_STREAMS_PER_PLAYER", "16")), int(env.get("OKEY_MAX_STREAMS_PER_ADDRESS", "64"))
        )
        # Who is connected [D-11]: the table is told with the gateway's own service credential.
        table = "okey.v1.TableService"
        act = None
        if table in upstreams.addresses:
            act = table_act(lambda: upstreams.channel(table), ServiceCredential("gateway"))
        presence = Presence(nats_url=env.get("OKEY_NATS_URL") or None, act=act)
        host.background(presence)
        # Spectators' watches: the lobby's word and the table's cap, one check for every route.
        gate = SpectatorGate(upstreams, presence)
        host.serve_generic(GrpcProxy(upstreams, limiter, streams, presence, gate))
        origins = [o.strip() for o in env.get("OKEY_CORS_ORIGINS", "").split(",") if o.strip()]
        hhost, _, hport = http_address.rpartition(":")
        guarded = type(
            "GuardedH11", (_GuardedH11,), {"head_timeout_s": float(env.get("OKEY_HTTP_HEADER_TIMEOUT_S", "10"))}
        )
        trusted = ",".join(p.strip() for p in env.get("OKEY_TRUSTED_PROXIES", "").split(",") if p.strip())
        config = uvicorn.Config(
            build_http_app(upstreams, limiter, origins, streams, presence, gate),
            host=hhost,
            port=int(hport),
            log_level="warning",
            access_log=False,  # our own access line (api.py) is the one
            log_config=None,  # uvicorn's lines go to the root logger: the one format (okeyplatform.logs)
            lifespan="off",
            ws=_WebSocketProtocol,
            http=guarded,
            limit_concurrency=int(env.get("OKEY_HTTP_MAX_CONNECTIONS", "2000")),
            # X-Forwarded-For names the client only when it comes from a proxy we run (an
            # ingress): from anyone else it is a header a caller writes to dodge per-address limits.
            proxy_headers=bool(trusted),
            forwarded_allow_ips=trusted or None,
        )
        http = HttpServer(config, http_address)
        host.background(http, ready=http.ready)
        return GatewayParts(upstreams, limiter, http, streams, presence)

    names = list(upstreams.addresses)
    return ServiceHost("gateway", grpc_address, setup, reflection_names=names, health_names=names)


@dataclass
class Gateway(InProcess[Any]):
    """The gateway in this process (tests, ``okey up``): the host ``bootstrap`` builds."""

    grpc_address: str = DEFAULT_GRPC_ADDR
    http_address: str = DEFAULT_HTTP_ADDR
    environ: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    grpc_port: int = 0
    http_port: int = 0
    host: ServiceHost[GatewayParts] | None = field(default=None, repr=False)

    async def start(self) -> None:
        self.host = bootstrap(self.environ, self.grpc_address, self.http_address)
        await self.host.start()
        assert self.host.parts is not None
        self.grpc_port, self.http_port = self.host.port, self.host.parts.http.port
        get_logger(component="gateway").info(
            "gateway_started", http=self.http_address, services=sorted(self.host.parts.upstreams.addresses)
        )

    upstreams = Part("upstreams")
    presence = Part("presence")


def main() -> int:
    return run_service("gateway", bootstrap)


if __name__ == "__main__":
    raise SystemExit(main())

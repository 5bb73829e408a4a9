"""Gateway use cases: which upstream serves a method, who is calling, and how fast they may."""

from __future__ import annotations

import importlib
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from okeyplatform.auth import Identity, TokenError, verify_token

__all__ = ["PUBLIC_SERVICES", "Upstreams", "RateLimiter", "Caller", "caller_from_token", "Method"]

# service full name -> (generated module, env var of its address, default address)
PUBLIC_SERVICES: dict[str, tuple[str, str, str]] = {
    "okey.v1.TableService": ("okey.v1.table_service_pb2", "OKEY_TABLE_ADDR", "127.0.0.1:50061"),
    "okey.v1.ScoringService": ("okey.v1.scoring_service_pb2", "OKEY_SCORING_ADDR", "127.0.0.1:50062"),
    "okey.v1.LobbyService": ("okey.v1.lobby_service_pb2", "OKEY_LOBBY_ADDR", "127.0.0.1:50063"),
}


@dataclass(frozen=True)
class Method:
    service: str
    name: str
    path: str  # /okey.v1.TableService/Act
    descriptor: MethodDescriptor
    request_cls: Any
    response_cls: Any

    @property
    def server_streaming(self) -> bool:
        return bool(self.descriptor.server_streaming)

    @property
    def client_streaming(self) -> bool:
        return bool(self.descriptor.client_streaming)


@dataclass
class Upstreams:
    """The public services the gateway forwards to, found from the generated code."""

    addresses: dict[str, str]
    methods: dict[str, Method] = field(default_factory=dict)
    channels: dict[str, grpc.aio.Channel] = field(default_factory=dict)

    @classmethod
    def from_env(cls, environ: dict[str, str]) -> Upstreams:
        addresses: dict[str, str] = {}
        for name, (module, env, default) in PUBLIC_SERVICES.items():
            try:
                importlib.import_module(module)
            except ImportError:
                continue  # that service's protos are not part of this build
            addresses[name] = environ.get(env, default)
        up = cls(addresses)
        pool = descriptor_pool.Default()
        for name in addresses:
            svc: ServiceDescriptor = pool.FindServiceByName(name)
            for m in svc.methods:
                path = f"/{name}/{m.name}"
                up.methods[path] = Method(
                    service=name,
                    name=m.name,
                    path=path,
                    descriptor=m,
                    request_cls=message_factory.GetMessageClass(m.input_type),
                    response_cls=message_factory.GetMessageClass(m.output_type),
                )
        return up

    def channel(self, service: str) -> grpc.aio.Channel:
        ch = self.channels.get(service)
        if ch is None:
            ch = self.channels[service] = grpc.aio.insecure_channel(self.addresses[service])
        return ch

    async def close(self) -> None:
        for ch in self.channels.values():
            await ch.close()
        self.channels.clear()


@dataclass(frozen=True)
class Caller:
    """Who is calling: a verified identity, or an anonymous peer (sign-in and public reads)."""

    identity: Identity | None
    peer: str

    @property
    def key(self) -> str:
        return f"id:{self.identity.subject}" if self.identity else f"peer:{self.peer}"


def caller_from_token(authorization: str | None, peer: str) -> Caller:
    """Verify a bearer token if one is given (a bad one is refused here, at the edge)."""
    if not authorization:
        return Caller(None, peer)
    if not authorization.lower().startswith("bearer "):
        raise TokenError("authorization must be 'Bearer <token>'")
    return Caller(verify_token(authorization[7:].strip()), peer)


class RateLimiter:
    """A token bucket per caller: ``rate`` requests a second, bursts up to ``burst``."""

    def __init__(self, rate: float = 20.0, burst: float = 40.0, max_keys: int = 100_000) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, key: str, cost: float = 1.0, now: float | None = None) -> bool:
        t = time.monotonic() if now is None else now
        tokens, last = self._buckets.get(key, (self.burst, t))
        tokens = min(self.burst, tokens + (t - last) * self.rate)
        ok = tokens >= cost
        if ok:
            tokens -= cost
        self._buckets[key] = (tokens, t)
        self._buckets.move_to_end(key)
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
        return ok

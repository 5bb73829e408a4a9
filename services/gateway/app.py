"""Gateway use cases: which upstream serves a method, who is calling, and how fast they may."""

from __future__ import annotations

import importlib
import ipaddress
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from okeyplatform import metrics as M
from okeyplatform.auth import CLIENT_ADDRESS_KEY, Identity, TokenError, verify_token
from okeyplatform.tracing import current_traceparent

__all__ = [
    "PUBLIC_SERVICES",
    "Upstreams",
    "RateLimiter",
    "StreamCaps",
    "Caller",
    "caller_from_token",
    "client_address",
    "Method",
    "forward_metadata",
]

# service full name -> (generated module, env var of its address, default address)
PUBLIC_SERVICES: dict[str, tuple[str, str, str]] = {
    "okey.v1.TableService": ("okey.v1.table_service_pb2", "OKEY_TABLE_ADDR", "127.0.0.1:50061"),
    "okey.v1.ScoringService": ("okey.v1.scoring_service_pb2", "OKEY_SCORING_ADDR", "127.0.0.1:50062"),
    "okey.v1.LobbyService": ("okey.v1.lobby_service_pb2", "OKEY_LOBBY_ADDR", "127.0.0.1:50063"),
}

SERVICE_ONLY_METHODS = frozenset({"/okey.v1.ScoringService/ForgetPlayer", "/okey.v1.TableService/Play"})
"""Calls one service makes of another (the lobby's, when an account is deleted; the bots' stream
of moves): the edge does not forward them, nor list them, whatever token comes with them."""


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
                if path in SERVICE_ONLY_METHODS:
                    continue
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


def client_address(peer: str) -> str:
    """The caller's address as the limits count it, from gRPC's ``context.peer()``
    (``ipv4:203.0.113.5:51234``, ``ipv6:[2001:db8::1]:51234``) or an HTTP client host (uvicorn's,
    which honours X-Forwarded-For from OKEY_TRUSTED_PROXIES only): the host without the port (a
    new connection is not a new caller); an IPv6 address as its /64 (one subscriber holds a whole
    /64 and could otherwise pick a new address per request); an IPv4-mapped one as IPv4. A peer
    that names no address counts as ``unknown``: one address, never an unlimited one."""
    text = peer.strip()
    if text.startswith("ipv4:"):
        text = text[5:].rsplit(":", 1)[0]
    elif text.startswith("ipv6:"):
        text = text[5:]
        text = text[1:].split("]", 1)[0] if text.startswith("[") else text
    text = text.split("%", 1)[0]  # an IPv6 zone (%eth0, or %25eth0 percent-encoded)
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:  # not an address (a unix socket): printable ASCII, as gRPC metadata must be
        return "".join(c for c in text if 32 < ord(c) < 127)[:64] or "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


@dataclass(frozen=True)
class Caller:
    """Who is calling: a verified identity, or an anonymous peer (sign-in and public reads), and
    from which address (:func:`client_address`)."""

    identity: Identity | None
    peer: str

    @property
    def key(self) -> str:
        return f"id:{self.identity.subject}" if self.identity else f"peer:{self.peer}"

    @property
    def address(self) -> str:
        return self.peer


def caller_from_token(authorization: str | None, peer: str) -> Caller:
    """Verify a bearer token if one is given (a bad one is refused here, at the edge); ``peer``
    is the transport's (gRPC ``context.peer()`` or the HTTP client host)."""
    address = client_address(peer)
    if not authorization:
        return Caller(None, address)
    if not authorization.lower().startswith("bearer "):
        raise TokenError("authorization must be 'Bearer <token>'")
    return Caller(verify_token(authorization[7:].strip()), address)


class _Buckets:
    """Token buckets by key, ``rate`` a second up to ``burst``. Memory stays bounded: a bucket
    idle long enough to be full again is dropped (it is the same as no bucket), and past
    ``max_keys`` the least recently used go first."""

    def __init__(self, rate: float, burst: float, max_keys: int) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # key -> (tokens, at)

    def __len__(self) -> int:
        return len(self._buckets)

    def level(self, key: str, t: float) -> float:
        tokens, last = self._buckets.get(key, (self.burst, t))
        return min(self.burst, tokens + max(0.0, t - last) * self.rate)

    def set(self, key: str, tokens: float, t: float) -> None:
        self._buckets[key] = (tokens, t)
        self._buckets.move_to_end(key)
        self._evict(t)

    def _evict(self, t: float) -> None:
        while self._buckets:
            key, (tokens, last) = next(iter(self._buckets.items()))  # the least recently used
            full = self.rate > 0 and tokens + (t - last) * self.rate >= self.burst
            if not full and len(self._buckets) <= self.max_keys:
                return
            del self._buckets[key]


class RateLimiter:
    """Token buckets: one per caller (a player's id, or an anonymous caller's address) at ``rate``
    requests a second with bursts up to ``burst``, and one per address (``address_rate`` and
    ``address_burst``, by default five times those) shared by every caller from that address:
    a request takes one token from both, so several tokens of one person (or many guests from
    one address) do not multiply the allowance [issue 15.8]. A refused request takes nothing.

    The buckets live in this process: with N gateway replicas each keeps its own, so a caller
    spread over them gets up to N times the rate (the ingress's limiter is the global cap)."""

    def __init__(
        self,
        rate: float = 20.0,
        burst: float = 40.0,
        max_keys: int = 100_000,
        address_rate: float | None = None,
        address_burst: float | None = None,
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self.address_rate = rate * 5 if address_rate is None else address_rate
        self.address_burst = burst * 5 if address_burst is None else address_burst
        self.callers = _Buckets(rate, burst, max_keys)
        self.addresses = _Buckets(self.address_rate, self.address_burst, max_keys)

    def allow(self, key: str, cost: float = 1.0, now: float | None = None) -> bool:
        """One caller bucket only (no address): True if ``key`` may make a request now."""
        t = time.monotonic() if now is None else now
        tokens = self.callers.level(key, t)
        if tokens < cost:
            return False
        self.callers.set(key, tokens - cost, t)
        return True

    def admit(self, caller: Caller, cost: float = 1.0, now: float | None = None) -> str | None:
        """Take ``cost`` from the caller's bucket and from its address's: None when the request
        may go, else the limit that refuses it, ``"player"`` or ``"address"``."""
        t = time.monotonic() if now is None else now
        mine = self.callers.level(caller.key, t)
        if mine < cost:
            which = "player" if caller.identity is not None else "address"
            M.GATEWAY_RATE_LIMITED.labels(which).inc()
            return which
        shared = self.addresses.level(caller.address, t)
        if shared < cost:
            M.GATEWAY_RATE_LIMITED.labels("address").inc()
            return "address"
        self.callers.set(caller.key, mine - cost, t)
        self.addresses.set(caller.address, shared - cost, t)
        return None

    @staticmethod
    def refusal(which: str) -> str:
        """The message of a refusal by :meth:`admit`."""
        if which == "player":
            return "too many requests from this player (the per player limit): slow down"
        return "too many requests from this address (the per address limit): slow down"


class StreamCaps:
    """Open streams (a Watch over a WebSocket or the gRPC proxy) at once, per caller (a player's
    id, or an anonymous caller's address) and per address (every token from it), on this gateway
    replica: a stream is long-lived and holds a connection and an upstream call for as long as
    the client keeps it, so the rate limit (which counts its opening only) does not bound them
    [issue 39.8]. A service's token is not counted (the table service's own cap does likewise).
    ``0`` means no cap. A refused stream holds nothing; a closed one frees its place at once."""

    def __init__(self, per_player: int = 16, per_address: int = 64) -> None:
        self.per_player = per_player
        self.per_address = per_address
        self.callers: dict[str, int] = {}
        self.addresses: dict[str, int] = {}

    @staticmethod
    def _counted(caller: Caller) -> bool:
        return caller.identity is None or caller.identity.role != "service"

    def open(self, caller: Caller) -> str | None:
        """Take a place for one stream of ``caller``: None when it may open, else the limit that
        refuses it, ``"player"`` or ``"address"`` (then nothing is taken)."""
        if not self._counted(caller):
            return None
        if self.per_player and self.callers.get(caller.key, 0) >= self.per_player:
            which = "player" if caller.identity is not None else "address"
            M.GATEWAY_RATE_LIMITED.labels(f"{which}_streams").inc()
            return which
        if self.per_address and self.addresses.get(caller.address, 0) >= self.per_address:
            M.GATEWAY_RATE_LIMITED.labels("address_streams").inc()
            return "address"
        self.callers[caller.key] = self.callers.get(caller.key, 0) + 1
        self.addresses[caller.address] = self.addresses.get(caller.address, 0) + 1
        return None

    def close(self, caller: Caller) -> None:
        """Give back the place :meth:`open` took."""
        if not self._counted(caller):
            return
        for counts, key in ((self.callers, caller.key), (self.addresses, caller.address)):
            left = counts.get(key, 0) - 1
            if left > 0:
                counts[key] = left
            else:
                counts.pop(key, None)

    def refusal(self, which: str) -> str:
        """The message of a refusal by :meth:`open`."""
        if which == "player":
            return f"you have {self.per_player} streams open at once, the most per player: close one first"
        return f"{self.per_address} streams are open at once from your address, the most per address: close one first"


def forward_metadata(md: Any, caller: Caller) -> list[tuple[str, str]]:
    """What goes upstream: the token, the request id and the W3C trace context (``traceparent``,
    kept with the events a command appends) the client sent, and the caller's address as the
    gateway saw it (``x-okey-client-addr``, for the lobby's per-address limits). Nothing else
    passes: a client's own ``x-okey-client-addr`` is dropped here. Within a span of the gateway
    (the host's tracing interceptor on the gRPC proxy) its context goes up instead of the client's."""
    mine = current_traceparent()
    keep = []
    for k, v in md or ():
        wanted = k in ("authorization", "x-request-id") or (k == "traceparent" and not mine)
        if wanted and isinstance(v, str) and v:
            keep.append((k, v))
    if mine:
        keep.append(("traceparent", mine))
    keep.append((CLIENT_ADDRESS_KEY, caller.address))
    return keep

"""The HTTP server's wrappers of every request: the security headers of each answer, and the
access log with its metrics (by route template) and its SERVER span."""

from __future__ import annotations

import re
import time
from typing import Any

from okeyplatform import metrics as M
from okeyplatform.logs import get_logger
from okeyplatform.tracing import parent_context, start_span, valid_traceparent
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode
from starlette.types import ASGIApp, Receive, Scope, Send

from .connect import SERVICE_PATH

__all__ = ["AccessLog", "RPC_PATH", "SECURITY_HEADERS", "SecurityHeaders"]

log = get_logger(component="gateway")

RPC_PATH = re.compile(rf"/{SERVICE_PATH}/[^/]+")


def _route(path: str) -> str:
    """The route template of a path, for the metrics' ``route`` label (a bounded set: a caller
    choosing paths cannot make new series)."""
    if path in ("/healthz", "/api", "/api/presence"):
        return path
    if path.startswith("/api/"):
        return "/api/{service}/{method}"
    if path.startswith("/ws/"):
        return "/ws/{service}/{method}"
    if RPC_PATH.fullmatch(path):
        return "/{service}/{method}"  # Connect and gRPC-Web
    return "static"


def _http_span(scope: Scope, method: str, route: str) -> trace.Span:
    """A SERVER span for one HTTP/JSON call, its parent the client's ``traceparent`` header (a
    valid one): the upstream call then carries the gateway's span, so the table's Act hangs
    under it. Named by the route template (bounded); the handler adds the public RPC it called."""
    sent = next((v for k, v in scope.get("headers") or () if k == b"traceparent"), b"")
    parent = parent_context(valid_traceparent(sent.decode("latin-1")))
    span = start_span("okey.gateway", f"{method} {route}", parent, SpanKind.SERVER)
    if span.is_recording():
        span.set_attributes({"http.request.method": method, "http.route": route})
    return span


SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    # The web client is its own files only: no inline script or style, no frames, no plugins;
    # it talks to this origin (HTTP and the WebSocket watch). Icons may be data: URLs.
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; form-action 'self'; "
        b"frame-ancestors 'none'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
)


class SecurityHeaders:
    """Every HTTP answer carries the headers above (the page cannot be framed, sniffed into
    another type, or made to run script from elsewhere), unless the app set one itself."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                have = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in SECURITY_HEADERS if k not in have]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class AccessLog:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()
        status = {"code": 0}
        kind = "http" if scope["type"] == "http" else "websocket"
        method, route = scope.get("method", "WS"), _route(scope.get("path") or "")
        open_now = M.GATEWAY_CONNECTIONS.labels(kind)

        async def capture(msg: Any) -> None:
            if msg["type"] == "http.response.start":
                status["code"] = msg["status"]
            await send(msg)

        open_now.inc()
        traced = kind == "http" and route in ("/api/{service}/{method}", "/{service}/{method}")
        span = _http_span(scope, method, route) if traced else None
        token = otel_context.attach(trace.set_span_in_context(span)) if span is not None else None
        try:
            await self.app(scope, receive, capture)
        finally:
            if span is not None and token is not None:
                otel_context.detach(token)
                if span.is_recording():
                    span.set_attribute("http.response.status_code", status["code"])
                    if status["code"] >= 500:
                        span.set_status(Status(StatusCode.ERROR))
                span.end()
            open_now.dec()
            elapsed = time.perf_counter() - t0
            code = status["code"] or (101 if kind == "websocket" else 0)  # an accepted WebSocket sends no status
            M.HTTP_REQUESTS.labels(method, route, str(code)).inc()
            M.HTTP_SECONDS.labels(method, route).observe(elapsed)
            log.info(
                "access",
                method=scope.get("method", "WS"),
                path=scope.get("path"),
                status=status["code"],
                ms=round((time.perf_counter() - t0) * 1000, 2),
                client=(scope.get("client") or ("", 0))[0],
            )

"""The public edge: a gRPC proxy for the public services, HTTP/JSON for every public RPC
(protobuf's JSON mapping), and a WebSocket carrying a seat's watch stream."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError, Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from okeyplatform import metrics as M
from okeyplatform.auth import TokenError
from okeyplatform.errors import (
    HTTP_STATUS,
    AppError,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
    Unauthenticated,
    http_status,
    ws_close_code,
)
from okeyplatform.logs import get_logger
from okeyplatform.tracing import parent_context, start_span, valid_traceparent
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode
from starlette.applications import Starlette
from starlette.convertors import Convertor, register_url_convertor
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from .app import Caller, Method, RateLimiter, StreamCaps, Upstreams, caller_from_token
from .app import forward_metadata as _forward_metadata
from .connect import CONNECT_REQUEST_HEADERS, CONNECT_RESPONSE_HEADERS, SERVICE_PATH, ConnectProxy, Wire, refusal
from .presence import Presence, Watch

# HTTP_STATUS: okeyplatform.errors
__all__ = ["GrpcProxy", "build_http_app", "HTTP_STATUS", "MAX_BODY_BYTES", "MAX_PRESENCE_PLAYERS"]

MAX_BODY_BYTES = 64 * 1024
MAX_PRESENCE_PLAYERS = 100
MAX_PLAYER_ID = 128
UPSTREAM_TIMEOUT_S = 10.0
WEB_DIR = Path(__file__).parent / "web"


log = get_logger(component="gateway")


def _error_info(err: grpc.aio.AioRpcError) -> tuple[str, dict[str, str]]:
    """The refusal's stable reason and its ErrorInfo metadata (what a client may show: a
    password's ``why``, a lockout's ``retry_after_s``); the status name when it has none."""
    st = rpc_status.from_call(err)  # type: ignore[arg-type]
    if st is not None:
        for d in st.details:
            info = error_details_pb2.ErrorInfo()
            if d.Unpack(info):
                return str(info.reason), dict(info.metadata)
    return err.code().name, {}


# ------------------------------------------------------------------ gRPC


class GrpcProxy(grpc.GenericRpcHandler):
    """Forwards every public method as raw bytes to its upstream, after checking the token and
    the caller's rate; upstream errors (with their rich details) pass through unchanged. Each
    call and stream it lets through is the caller's presence."""

    def __init__(
        self,
        upstreams: Upstreams,
        limiter: RateLimiter,
        streams: StreamCaps | None = None,
        presence: Presence | None = None,
    ) -> None:
        self.upstreams = upstreams
        self.limiter = limiter
        self.streams = streams or StreamCaps(0, 0)
        self.presence = presence or Presence()

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        m = self.upstreams.methods.get(handler_call_details.method)  # type: ignore[attr-defined]
        if m is None or m.client_streaming:
            return None
        if m.server_streaming:
            return grpc.unary_stream_rpc_method_handler(self._stream_handler(m))
        return grpc.unary_unary_rpc_method_handler(self._unary_handler(m))

    async def _admit(
        self, m: Method, context: grpc.aio.ServicerContext[Any, Any]
    ) -> tuple[list[tuple[str, str]], Caller]:
        md = context.invocation_metadata() or ()
        auth = next((v for k, v in md if k == "authorization"), None)
        # A bad token (TokenError) and a refusal here become their status in the host's AppErrors.
        caller = caller_from_token(auth if isinstance(auth, str) else None, context.peer() or "")
        refused = self.limiter.admit(caller)
        if refused:
            raise ResourceExhausted(self.limiter.refusal(refused), "RATE_LIMITED", limit=refused)
        return _forward_metadata(md, caller), caller

    def _unary_handler(self, m: Method) -> Callable[[bytes, Any], Awaitable[bytes]]:
        async def handle(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
            md, caller = await self._admit(m, context)
            self.presence.call(caller)
            call = self.upstreams.channel(m.service).unary_unary(m.path)
            try:
                resp: bytes = await call(request, metadata=md, timeout=UPSTREAM_TIMEOUT_S)
                return resp
            except grpc.aio.AioRpcError as err:
                await context.abort(err.code(), err.details() or "", tuple(err.trailing_metadata() or ()))
                raise

        return handle

    def _stream_handler(self, m: Method) -> Callable[[bytes, Any], AsyncIterator[bytes]]:
        async def handle(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[bytes]:
            md, caller = await self._admit(m, context)
            capped = self.streams.open(caller)
            if capped:  # streams at once per player and address [issue 39.8]
                raise ResourceExhausted(self.streams.refusal(capped), "TOO_MANY_STREAMS", limit=capped)
            call = self.upstreams.channel(m.service).unary_stream(m.path)(request, metadata=md)
            streams = M.GATEWAY_CONNECTIONS.labels("stream")
            streams.inc()
            watch = self.presence.watch(caller, m.path, request)
            try:
                async for item in call:
                    watch.item(item)
                    yield item
            except grpc.aio.AioRpcError as err:
                await context.abort(err.code(), err.details() or "", tuple(err.trailing_metadata() or ()))
            finally:
                watch.close()
                call.cancel()
                streams.dec()
                self.streams.close(caller)

        return handle


# ------------------------------------------------------------------ HTTP / JSON


def _error(status: int, code: str, reason: str, message: str, metadata: dict[str, str] | None = None) -> JSONResponse:
    body: dict[str, object] = {"code": code, "reason": reason, "message": message}
    if metadata:
        body["metadata"] = metadata
    return JSONResponse(body, status_code=status)


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


def _route(path: str) -> str:
    """The route template of a path, for the metrics' ``route`` label (a bounded set: a caller
    choosing paths cannot make new series)."""
    if path in ("/healthz", "/api", "/api/presence"):
        return path
    if path.startswith("/api/"):
        return "/api/{service}/{method}"
    if path.startswith("/ws/"):
        return "/ws/{service}/{method}"
    if _RPC_PATH.fullmatch(path):
        return "/{service}/{method}"  # Connect and gRPC-Web
    return "static"


_RPC_PATH = re.compile(rf"/{SERVICE_PATH}/[^/]+")


def _refusal(err: AppError) -> JSONResponse:
    """An AppError in the API's JSON error shape, its HTTP status from the one table."""
    M.GATEWAY_REFUSED.labels(err.reason).inc()
    return _error(http_status(err.status), err.status.name, err.reason, err.message)


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


class BodyLimit:
    """Refuses request bodies over ``limit`` bytes with 413, before they are read whole."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.limit:
            await self._too_large(scope)(scope, receive, send)
            return
        seen = 0

        async def limited() -> Any:
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.limit:
                    raise _TooLarge()
            return msg

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await self._too_large(scope)(scope, receive, send)

    def _too_large(self, scope: Scope) -> Response:
        """413 in the /api shape; at a Connect or gRPC-Web path, that protocol's
        ``resource_exhausted`` (the code gRPC gives a message over its limit)."""
        wire = Wire.of(Headers(scope=scope).get("content-type"))
        if wire is not None and _RPC_PATH.fullmatch(scope.get("path") or ""):
            return refusal(wire, ResourceExhausted(f"request body over {self.limit} bytes", "REQUEST_TOO_LARGE"))
        return _error(413, "INVALID_ARGUMENT", "REQUEST_TOO_LARGE", f"request body over {self.limit} bytes")


class _TooLarge(Exception):
    pass


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


class _ServiceName(Convertor[str]):
    """A fully qualified service name as a path segment (the Connect and gRPC-Web routes)."""

    regex = SERVICE_PATH

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("rpcservice", _ServiceName())


def build_http_app(
    upstreams: Upstreams,
    limiter: RateLimiter,
    cors_origins: list[str],
    streams: StreamCaps | None = None,
    presence: Presence | None = None,
) -> Starlette:
    caps = streams or StreamCaps(0, 0)
    seen = presence or Presence()

    async def rpc(request: Request) -> Response:
        path = f"/{request.path_params['service']}/{request.path_params['method']}"
        m = upstreams.methods.get(path)
        if m is None or m.client_streaming:
            return _refusal(NotFound(f"no public RPC {path}", "UNKNOWN_METHOD"))
        if m.server_streaming:
            return _refusal(InvalidArgument(f"{path} is a stream: use the WebSocket at /ws{path}", "USE_WEBSOCKET"))
        span = trace.get_current_span()
        if span.is_recording():
            service, _, name = path[1:].partition("/")
            span.set_attributes({"rpc.system": "grpc", "rpc.service": service, "rpc.method": name})
        try:
            caller = caller_from_token(request.headers.get("authorization"), _peer(request))
        except TokenError as exc:
            return _refusal(Unauthenticated(str(exc)))
        refused = limiter.admit(caller)
        if refused:
            return _refusal(ResourceExhausted(limiter.refusal(refused), "RATE_LIMITED"))
        seen.call(caller)
        body = await request.body()
        req: Message = m.request_cls()
        try:
            if body.strip():
                if not body.lstrip().startswith(b"{"):
                    raise json_format.ParseError("the body must be a JSON object")
                json_format.Parse(body.decode("utf-8"), req)
        except (json_format.ParseError, UnicodeDecodeError, DecodeError, ValueError) as exc:
            return _refusal(
                InvalidArgument(f"request is not a valid {m.descriptor.input_type.name}: {exc}", "MALFORMED_JSON")
            )
        md = _forward_metadata([(k, request.headers.get(k, "")) for k in ("authorization", "traceparent")], caller)
        call = upstreams.channel(m.service).unary_unary(
            m.path, request_serializer=m.request_cls.SerializeToString, response_deserializer=m.response_cls.FromString
        )
        try:
            resp = await call(req, metadata=md, timeout=UPSTREAM_TIMEOUT_S)
        except grpc.aio.AioRpcError as err:
            reason, metadata = _error_info(err)
            return _error(http_status(err.code()), err.code().name, reason, err.details() or "", metadata)
        return Response(
            json_format.MessageToJson(resp, indent=None, always_print_fields_with_no_presence=False),
            media_type="application/json",
        )

    async def watch(ws: WebSocket) -> None:
        """``/ws/okey.v1.TableService/Watch?table_id=..&seat=..&after_version=..&token=..``:
        each message is a WatchResponse as JSON. Reconnect with the last version seen."""
        path = f"/{ws.path_params['service']}/{ws.path_params['method']}"
        m = upstreams.methods.get(path)
        await ws.accept()
        if m is None or not m.server_streaming:
            await ws.close(code=4404, reason="no such stream")
            return
        token = ws.query_params.get("token") or ""
        try:
            caller = caller_from_token(f"Bearer {token}" if token else None, _peer(ws))
        except TokenError as exc:
            await ws.close(code=4401, reason=_close_reason(str(exc)))
            return
        refused = limiter.admit(caller)
        if refused:
            await ws.close(code=4429, reason=_close_reason(limiter.refusal(refused)))
            return
        req: Message = m.request_cls()
        try:
            params = {k: v for k, v in ws.query_params.items() if k != "token"}
            json_format.ParseDict(_typed(params, m.request_cls.DESCRIPTOR), req)
        except (json_format.ParseError, ValueError) as exc:
            await ws.close(code=4400, reason=_close_reason(str(exc)))
            return
        capped = caps.open(caller)
        if capped:  # WebSockets at once per player and address [issue 39.8]
            message = caps.refusal(capped)
            M.GATEWAY_REFUSED.labels("TOO_MANY_STREAMS").inc()
            error = {"code": "RESOURCE_EXHAUSTED", "reason": "TOO_MANY_STREAMS", "message": message}
            await ws.send_text(json.dumps({"error": error}))
            await ws.close(code=4429, reason=_close_reason(f"TOO_MANY_STREAMS: {message}"))
            return
        watching = seen.watch(caller, m.path, req)
        try:
            await _pump(ws, upstreams, m, req, token, caller, watching)
        finally:
            watching.close()
            caps.close(caller)

    async def _pump(
        ws: WebSocket, upstreams: Upstreams, m: Method, req: Message, token: str, caller: Caller, watching: Watch
    ) -> None:
        """The upstream stream to the WebSocket until either ends."""
        md = _forward_metadata([("authorization", f"Bearer {token}" if token else "")], caller)
        call = upstreams.channel(m.service).unary_stream(
            m.path, request_serializer=m.request_cls.SerializeToString, response_deserializer=m.response_cls.FromString
        )(req, metadata=md)

        async def pump() -> None:
            async for item in call:
                watching.item(item)
                await ws.send_text(json_format.MessageToJson(item, indent=None))

        async def until_closed() -> None:
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    return

        pumping = asyncio.create_task(pump())
        closing = asyncio.create_task(until_closed())
        try:
            done, _ = await asyncio.wait({pumping, closing}, return_when=asyncio.FIRST_COMPLETED)
            if pumping in done:
                pumping.result()  # raises the upstream error, if any
        except grpc.aio.AioRpcError as err:
            error = {"code": err.code().name, "reason": _error_info(err)[0], "message": err.details()}
            await ws.send_text(json.dumps({"error": error}))
            await ws.close(code=ws_close_code(err.code()))
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            call.cancel()
            for t in (pumping, closing):
                t.cancel()

    async def presence_of(request: Request) -> Response:
        """``GET /api/presence?players=a,b``: each player's state on the merged board of every
        gateway replica (at most MAX_PRESENCE_PLAYERS ids, for a signed-in caller)."""
        try:
            caller = caller_from_token(request.headers.get("authorization"), _peer(request))
        except TokenError as exc:
            return _refusal(Unauthenticated(str(exc)))
        if caller.identity is None:
            return _refusal(Unauthenticated("sign in first: send 'authorization: Bearer <token>'"))
        refused = limiter.admit(caller)
        if refused:
            return _refusal(ResourceExhausted(limiter.refusal(refused), "RATE_LIMITED"))
        seen.call(caller)
        asked = list(dict.fromkeys(p.strip() for p in request.query_params.get("players", "").split(",") if p.strip()))
        if not asked:
            return _refusal(InvalidArgument(f"name the players: ?players=a,b (at most {MAX_PRESENCE_PLAYERS})"))
        if len(asked) > MAX_PRESENCE_PLAYERS:
            return _refusal(InvalidArgument(f"at most {MAX_PRESENCE_PLAYERS} players at once, not {len(asked)}"))
        if any(len(p) > MAX_PLAYER_ID for p in asked):
            return _refusal(InvalidArgument(f"a player id has at most {MAX_PLAYER_ID} characters"))
        return JSONResponse({"players": seen.lookup(asked)})

    async def health(_: Request) -> Response:
        return JSONResponse({"status": "SERVING", "services": sorted(upstreams.addresses)})

    async def methods(_: Request) -> Response:
        return JSONResponse(
            {
                "rpcs": [
                    {"path": p, "http": f"POST /api{p}" if not m.server_streaming else f"WS /ws{p}"}
                    for p, m in sorted(upstreams.methods.items())
                ]
            }
        )

    async def http_error(request: Request, exc: Exception) -> Response:
        """404 and 405 under /api in the API's JSON error shape (elsewhere, the usual text)."""
        status = int(getattr(exc, "status_code", 404))
        path = request.url.path
        if path != "/api" and not path.startswith("/api/"):
            return PlainTextResponse(
                str(getattr(exc, "detail", "")), status_code=status, headers=getattr(exc, "headers", None)
            )
        if path in ("/api", "/api/presence") or path[len("/api") :] in upstreams.methods:  # another HTTP method
            return _error(405, "INVALID_ARGUMENT", "METHOD_NOT_ALLOWED", f"{request.method} is not allowed here")
        return _refusal(NotFound("no such public RPC: GET /api lists them", "UNKNOWN_METHOD"))

    routes = [
        Route("/healthz", health),
        Route("/api", methods),
        Route("/api/presence", presence_of, methods=["GET"]),
        Route("/api/{service}/{method}", rpc, methods=["POST"]),
        WebSocketRoute("/ws/{service}/{method}", watch),
    ]
    connect = ConnectProxy(upstreams, limiter, caps, MAX_BODY_BYTES, UPSTREAM_TIMEOUT_S, seen)
    routes.append(Route("/{service:rpcservice}/{method}", connect, methods=None))
    if WEB_DIR.exists():
        routes.append(Mount("/", StaticFiles(directory=WEB_DIR, html=True), name="web"))
    middleware = [
        Middleware(AccessLog),
        Middleware(SecurityHeaders),
        Middleware(BodyLimit),
        Middleware(
            CORSMiddleware,
            allow_origins=cors_origins,
            allow_methods=["GET", "POST", "OPTIONS"],
            allow_headers=[
                "authorization",
                "content-type",
                "traceparent",
                "x-request-id",
                *CONNECT_REQUEST_HEADERS,
            ],
            expose_headers=list(CONNECT_RESPONSE_HEADERS),
            max_age=600,
        ),
    ]
    app = Starlette(routes=routes, middleware=middleware, exception_handlers={404: http_error, 405: http_error})
    # A trailing slash is not "almost a route": a redirect would answer an API path without the
    # JSON error shape (hypothesis found ``GET /api/%0A/`` -> 307 with an empty body).
    app.router.redirect_slashes = False
    return app


def _typed(params: dict[str, str], desc: Descriptor) -> dict[str, Any]:
    """Query parameters as the request's JSON. Numbers stay strings (the JSON mapping reads
    integers from strings), so a table id made of digits stays a string; booleans are read."""
    fields = {f.json_name: f for f in desc.fields} | {f.name: f for f in desc.fields}
    out: dict[str, Any] = {}
    for k, v in params.items():
        f = fields.get(k)
        if f is not None and f.type == FieldDescriptor.TYPE_BOOL and v.lower() in ("true", "false", "1", "0"):
            out[k] = v.lower() in ("true", "1")
        else:
            out[k] = v
    return out


def _close_reason(text: str) -> str:
    """A WebSocket close reason fits in 123 bytes of UTF-8 (not characters: a reason echoing
    Turkish or any other non-ASCII input would otherwise fail the close itself)."""
    return text.encode("utf-8")[:123].decode("utf-8", "ignore")


def _peer(conn: Request | WebSocket) -> str:
    return conn.client.host if conn.client else ""

"""The public edge: a gRPC proxy for the public services, HTTP/JSON for every public RPC
(protobuf's JSON mapping), and a WebSocket carrying each server stream (a table's watch, the notifications)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError, Message
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
from opentelemetry import trace
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
from .middleware import RPC_PATH, AccessLog, SecurityHeaders
from .presence import Presence, Watch
from .spectators import LobbyRefusal, SpectatorGate
from .spectators import error_info as _error_info

# HTTP_STATUS: okeyplatform.errors
__all__ = [
    "GrpcProxy",
    "build_http_app",
    "HTTP_STATUS",
    "MAX_BODY_BYTES",
    "MAX_PRESENCE_PLAYERS",
    "MAX_PRESENCE_TABLES",
]

MAX_BODY_BYTES = 64 * 1024
MAX_PRESENCE_PLAYERS = 100
MAX_PLAYER_ID = 128
UPSTREAM_TIMEOUT_S = 10.0
WEB_DIR = Path(__file__).parent / "web"
MAX_PRESENCE_TABLES = 20
MAX_TABLE_ID = 128


# ------------------------------------------------------------------ gRPC


class GrpcProxy(grpc.GenericRpcHandler):
    """Forwards every public method as raw bytes to its upstream, after checking the token and
    the caller's rate; upstream errors (with their rich details) pass through unchanged. Each
    call and stream it lets through is the caller's presence; a spectator's read of a table (a
    Watch, GetView or GetEvents with no seat) goes upstream only past the :class:`SpectatorGate`."""

    def __init__(
        self,
        upstreams: Upstreams,
        limiter: RateLimiter,
        streams: StreamCaps | None = None,
        presence: Presence | None = None,
        gate: SpectatorGate | None = None,
    ) -> None:
        self.upstreams = upstreams
        self.limiter = limiter
        self.streams = streams or StreamCaps(0, 0)
        self.presence = presence or Presence()
        self.gate = gate or SpectatorGate(upstreams, self.presence)

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
            await self.gate.admit(caller, m.path, request, md)  # a spectator's GetView, GetEvents
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
            try:
                await self.gate.admit(caller, m.path, request, md)
            except AppError:
                self.streams.close(caller)
                raise  # the host's AppErrors make it the status
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


def _refusal(err: AppError) -> JSONResponse:
    """An AppError in the API's JSON error shape, its HTTP status from the one table."""
    M.GATEWAY_REFUSED.labels(err.reason).inc()
    return _error(http_status(err.status), err.status.name, err.reason, err.message)


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
        if wire is not None and RPC_PATH.fullmatch(scope.get("path") or ""):
            return refusal(wire, ResourceExhausted(f"request body over {self.limit} bytes", "REQUEST_TOO_LARGE"))
        return _error(413, "INVALID_ARGUMENT", "REQUEST_TOO_LARGE", f"request body over {self.limit} bytes")


class _TooLarge(Exception):
    pass


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
    gate: SpectatorGate | None = None,
) -> Starlette:
    caps = streams or StreamCaps(0, 0)
    seen = presence or Presence()
    spectators = gate or SpectatorGate(upstreams, seen)

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
        try:
            await spectators.admit(caller, m.path, req, md)  # a spectator's GetView, GetEvents
        except LobbyRefusal as err:  # the lobby's, as it came (its metadata too)
            return _error(http_status(err.status), err.status.name, err.reason, err.message, err.metadata)
        except AppError as err:
            return _refusal(err)
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
        md = _forward_metadata([("authorization", f"Bearer {token}" if token else "")], caller)
        try:
            await spectators.admit(caller, m.path, req, md)
        except AppError as err:
            caps.close(caller)
            error = {"code": err.status.name, "reason": err.reason, "message": err.message}
            await ws.send_text(json.dumps({"error": error}))
            await ws.close(code=ws_close_code(err.status), reason=_close_reason(f"{err.reason}: {err.message}"))
            return
        watching = seen.watch(caller, m.path, req)
        try:
            await _pump(ws, upstreams, m, req, md, watching)
        finally:
            watching.close()
            caps.close(caller)

    async def _pump(
        ws: WebSocket, upstreams: Upstreams, m: Method, req: Message, md: list[tuple[str, str]], watching: Watch
    ) -> None:
        """The upstream stream to the WebSocket until either ends."""
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
        """``GET /api/presence?players=a,b&tables=c,d``: each player's state on the merged board
        of every gateway replica (a table only for the caller themselves), and each table's
        spectators (at most MAX_PRESENCE_PLAYERS and MAX_PRESENCE_TABLES ids, for a signed-in
        caller; either list, or both)."""
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
        asked, tables = _ids(request, "players"), _ids(request, "tables")
        if not asked and not tables:
            return _refusal(
                InvalidArgument(
                    f"name the players or the tables: ?players=a,b (at most {MAX_PRESENCE_PLAYERS})"
                    f" &tables=c,d (at most {MAX_PRESENCE_TABLES})"
                )
            )
        if len(asked) > MAX_PRESENCE_PLAYERS:
            return _refusal(InvalidArgument(f"at most {MAX_PRESENCE_PLAYERS} players at once, not {len(asked)}"))
        if any(len(p) > MAX_PLAYER_ID for p in asked):
            return _refusal(InvalidArgument(f"a player id has at most {MAX_PLAYER_ID} characters"))
        if len(tables) > MAX_PRESENCE_TABLES:
            return _refusal(InvalidArgument(f"at most {MAX_PRESENCE_TABLES} tables at once, not {len(tables)}"))
        if any(len(t) > MAX_TABLE_ID for t in tables):
            return _refusal(InvalidArgument(f"a table id has at most {MAX_TABLE_ID} characters"))
        out: dict[str, Any] = {}
        if asked or not tables:
            out["players"] = seen.lookup(asked, asker=caller.identity.subject)
        if tables:
            out["tables"] = [{"tableId": t, "spectators": seen.spectators(t)} for t in tables]
        return JSONResponse(out)

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
    connect = ConnectProxy(upstreams, limiter, caps, MAX_BODY_BYTES, UPSTREAM_TIMEOUT_S, seen, spectators)
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


def _ids(request: Request, name: str) -> list[str]:
    """A query parameter's comma-separated ids, each once, in order."""
    return list(dict.fromkeys(p.strip() for p in request.query_params.get(name, "").split(",") if p.strip()))


def _close_reason(text: str) -> str:
    """A WebSocket close reason fits in 123 bytes of UTF-8 (not characters: a reason echoing
    Turkish or any other non-ASCII input would otherwise fail the close itself)."""
    return text.encode("utf-8")[:123].decode("utf-8", "ignore")


def _peer(conn: Request | WebSocket) -> str:
    return conn.client.host if conn.client else ""

"""Connect and gRPC-Web at the standard paths (``POST /okey.v1.LobbyService/SignInGuest``): the
gRPC proxy's job (bytes to the upstream service, behind the gateway's token check, rate limit and
stream caps) in the two protocols that browsers and generated clients speak over HTTP/1.1.

Connect (https://connectrpc.com/docs/protocol): unary calls are ``application/proto`` or
``application/json`` bodies with errors as JSON and an HTTP status; streams (``Watch``) are
``application/connect+proto`` or ``+json`` envelopes ending with an end-of-stream message.
gRPC-Web: ``application/grpc-web`` (``+proto``, ``+json``, ``-text``) envelopes, the status in a
trailer frame (``grpc-status``, ``grpc-message``, ``grpc-status-details-bin``). A refusal carries
the same ``google.rpc.ErrorInfo`` (reason, domain ``okey.v1``, metadata) as on gRPC."""

from __future__ import annotations

import base64
import json
import struct
import urllib.parse
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from google.rpc import error_details_pb2, status_pb2
from okeyplatform import metrics as M
from okeyplatform.auth import TokenError
from okeyplatform.errors import AppError, InvalidArgument, ResourceExhausted, Unauthenticated, to_status
from opentelemetry import trace
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from .app import Method, RateLimiter, StreamCaps, Upstreams, caller_from_token, forward_metadata
from .presence import Presence, Watch
from .spectators import SpectatorGate

__all__ = [
    "CONNECT_REQUEST_HEADERS",
    "CONNECT_RESPONSE_HEADERS",
    "ConnectProxy",
    "SERVICE_PATH",
    "Unimplemented",
    "Wire",
    "protocol_error",
    "refusal",
]

SERVICE_PATH = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+"
"""A fully qualified service name (``okey.v1.TableService``): the first segment of a path this
module answers. Static files of the web client never sit under such a folder."""

UNARY_TYPES = ("application/proto", "application/json")
STREAM_TYPES = ("application/connect+proto", "application/connect+json")
GRPC_WEB_TYPES = (
    "application/grpc-web",
    "application/grpc-web+proto",
    "application/grpc-web+json",
    "application/grpc-web-text",
    "application/grpc-web-text+proto",
)
ACCEPT_POST = ", ".join(UNARY_TYPES + STREAM_TYPES + GRPC_WEB_TYPES)
# What a browser's generated client sends and must read (CORS, for the allowed origins).
CONNECT_REQUEST_HEADERS = (
    "connect-protocol-version",
    "connect-timeout-ms",
    "connect-content-encoding",
    "connect-accept-encoding",
    "grpc-timeout",
    "grpc-encoding",
    "grpc-accept-encoding",
    "x-grpc-web",
    "x-user-agent",
)
CONNECT_RESPONSE_HEADERS = ("grpc-status", "grpc-message", "grpc-status-details-bin")

# Connect's HTTP status of each code (the protocol's table, not the /api route's).
CONNECT_HTTP = {
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
    grpc.StatusCode.UNAUTHENTICATED: 401,
}

_DATA, _COMPRESSED, _END_STREAM, _TRAILER = 0x00, 0x01, 0x02, 0x80


@dataclass(frozen=True)
class Wire:
    """How one request speaks: ``protocol`` (``connect`` or ``grpc-web``), ``codec`` (``proto``
    or ``json``), ``streaming`` (Connect's enveloped form), ``text`` (gRPC-Web's base64 form),
    and the content type the answer carries."""

    protocol: str
    codec: str
    streaming: bool
    text: bool
    content_type: str

    @staticmethod
    def of(content_type: str | None) -> Wire | None:
        """The wire of a request's Content-Type, or None when it is neither protocol's."""
        base = (content_type or "").split(";", 1)[0].strip().lower()
        if base in UNARY_TYPES:
            return Wire("connect", base.rsplit("/", 1)[1], False, False, base)
        if base in STREAM_TYPES:
            return Wire("connect", base.rsplit("+", 1)[1], True, False, base)
        if base in GRPC_WEB_TYPES:
            codec = "json" if base.endswith("+json") else "proto"
            return Wire("grpc-web", codec, True, "-text" in base, base)
        return None

    @property
    def enveloped(self) -> bool:
        return self.streaming or self.protocol == "grpc-web"


# ------------------------------------------------------------------ errors


@dataclass(frozen=True)
class RpcError:
    """A status to send: its code, its message and its google.rpc.Status (with the details)."""

    code: grpc.StatusCode
    message: str
    status: status_pb2.Status

    @staticmethod
    def of_app(err: AppError) -> RpcError:
        st = to_status(err)
        return RpcError(err.status, st.details, _status_from(st.trailing_metadata, err.status, st.details))

    @staticmethod
    def of_upstream(err: grpc.aio.AioRpcError) -> RpcError:
        code, message = err.code(), err.details() or ""
        return RpcError(code, message, _status_from(err.trailing_metadata(), code, message))

    def connect_json(self) -> dict[str, Any]:
        """Connect's error object: code, message and details (each an Any as ``type``, unpadded
        base64 ``value`` and, for an ErrorInfo, its JSON as ``debug``)."""
        out: dict[str, Any] = {"code": self.code.name.lower(), "message": self.message}
        details = []
        for d in self.status.details:
            item: dict[str, Any] = {"type": d.type_url.rsplit("/", 1)[-1], "value": _b64(d.value)}
            info = error_details_pb2.ErrorInfo()
            if d.Unpack(info):
                item["debug"] = json_format.MessageToDict(info)
            details.append(item)
        if details:
            out["details"] = details
        return out

    def grpc_trailers(self) -> list[tuple[str, str]]:
        return [
            ("grpc-status", str(self.code.value[0])),
            ("grpc-message", urllib.parse.quote(self.message, safe=" !\"#$&'()*+,-./:;<=>?@[\\]^_`{|}~")),
            ("grpc-status-details-bin", _b64(self.status.SerializeToString())),
        ]


def _status_from(metadata: Any, code: grpc.StatusCode, message: str) -> status_pb2.Status:
    for k, v in metadata or ():
        if k == "grpc-status-details-bin" and isinstance(v, bytes):
            st = status_pb2.Status()
            try:
                st.ParseFromString(v)
                return st
            except DecodeError:
                break
    return status_pb2.Status(code=code.value[0], message=message)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii").rstrip("=")


def _envelope(flags: int, payload: bytes) -> bytes:
    return struct.pack(">BI", flags, len(payload)) + payload


def _grpc_web_trailer(trailers: list[tuple[str, str]]) -> bytes:
    return _envelope(_TRAILER, "".join(f"{k}: {v}\r\n" for k, v in trailers).encode("ascii"))


def _end_stream(error: RpcError | None) -> bytes:
    body: dict[str, Any] = {"error": error.connect_json()} if error is not None else {}
    return _envelope(_END_STREAM, json.dumps(body).encode("utf-8"))


def protocol_error(wire: Wire, error: RpcError) -> Response:
    """``error`` in the wire's own shape: Connect unary as a JSON body with the protocol's HTTP
    status; a Connect stream as 200 and an end-of-stream message; gRPC-Web as 200 and a trailer
    frame (in the headers too, as a trailers-only answer)."""
    if wire.protocol == "connect" and not wire.streaming:
        return JSONResponse(error.connect_json(), status_code=CONNECT_HTTP.get(error.code, 500))
    if wire.protocol == "connect":
        return Response(_end_stream(error), media_type=wire.content_type)
    body = _grpc_web_trailer(error.grpc_trailers())
    if wire.text:
        body = base64.b64encode(body)
    return Response(body, media_type=wire.content_type, headers=dict(error.grpc_trailers()))


def refusal(wire: Wire | None, err: AppError) -> Response:
    """A refusal of the gateway's own (counted in okey_gateway_refused_total), in the wire's
    shape; without a wire (an unknown Content-Type) in Connect's unary shape."""
    M.GATEWAY_REFUSED.labels(err.reason).inc()
    return protocol_error(wire or Wire("connect", "json", False, False, "application/json"), RpcError.of_app(err))


# ------------------------------------------------------------------ the proxy


class Unimplemented(AppError):
    """No such public RPC: ``unimplemented`` in both protocols (Connect's HTTP 501)."""

    status = grpc.StatusCode.UNIMPLEMENTED
    default_reason = "UNKNOWN_METHOD"


class _Refused(Exception):
    def __init__(self, err: AppError) -> None:
        self.err = err


def _timeout(headers: Headers, wire: Wire) -> float | None:
    """The client's deadline in seconds (Connect-Timeout-Ms, or gRPC-Web's grpc-timeout), if any."""
    if wire.protocol == "connect":
        ms = headers.get("connect-timeout-ms", "")
        return int(ms) / 1000 if ms.isdigit() and len(ms) <= 10 else None
    text = headers.get("grpc-timeout", "")
    units = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}
    if len(text) >= 2 and text[:-1].isdigit() and len(text) <= 9 and text[-1] in units:
        return int(text[:-1]) * units[text[-1]]
    return None


def _inflate(data: bytes, encoding: str, limit: int) -> bytes:
    """A compressed message, inflated to at most ``limit`` bytes (a small body may not unpack
    into a large one past the body limit)."""
    if encoding in ("", "identity"):
        return data
    if encoding != "gzip":
        raise _Refused(InvalidArgument(f"compression {encoding!r} is not supported: use gzip or none"))
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise _Refused(InvalidArgument(f"the gzip message cannot be read: {exc}", "MALFORMED_MESSAGE")) from exc
    if len(out) > limit:
        raise _Refused(ResourceExhausted(f"request message over {limit} bytes", "REQUEST_TOO_LARGE"))
    return out


class ConnectProxy:
    """The ASGI app of ``POST /<service>/<method>`` in Connect and gRPC-Web."""

    def __init__(
        self,
        upstreams: Upstreams,
        limiter: RateLimiter,
        streams: StreamCaps,
        max_bytes: int,
        timeout_s: float,
        presence: Presence | None = None,
        gate: SpectatorGate | None = None,
    ) -> None:
        self.upstreams = upstreams
        self.timeout_s = timeout_s
        self.limiter = limiter
        self.streams = streams
        self.max_bytes = max_bytes
        self.presence = presence or Presence()
        self.gate = gate or SpectatorGate(upstreams, self.presence)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        wire = Wire.of(request.headers.get("content-type"))
        m = self.upstreams.methods.get(request.url.path)
        if request.method != "POST":
            err = InvalidArgument(f"{request.method} is not allowed here: POST", "METHOD_NOT_ALLOWED")
            resp = refusal(None, err)
            resp.status_code = 405
            resp.headers["allow"] = "POST"
            await resp(scope, receive, send)
            return
        if m is None or m.client_streaming:
            await refusal(wire, Unimplemented(f"no public RPC {request.url.path}"))(scope, receive, send)
            return
        if wire is None or (wire.protocol == "connect" and wire.streaming != m.server_streaming):
            # Connect answers a Content-Type it does not serve (or a unary type on a stream, and
            # the reverse) with 415 and the types it does serve.
            kind = "application/connect+proto or +json" if m.server_streaming else "application/proto or json"
            got = request.headers.get("content-type", "none")
            err = InvalidArgument(f"content type {got!r} is not served here: use {kind}", "UNSUPPORTED_MEDIA_TYPE")
            resp = refusal(None, err)
            resp.status_code = 415
            resp.headers["accept-post"] = ACCEPT_POST
            await resp(scope, receive, send)
            return
        span = trace.get_current_span()
        if span.is_recording():
            span.set_attributes({"rpc.system": wire.protocol, "rpc.service": m.service, "rpc.method": m.name})
        ends: list[Callable[[], object]] = []  # a stream's place and upstream call, kept until its answer ends
        try:
            resp = await self._answer(request, wire, m, ends)
        except _Refused as refused:
            resp = refusal(wire, refused.err)
        try:
            await resp(scope, receive, send)
        finally:
            for end in ends:
                end()

    async def _answer(self, request: Request, wire: Wire, m: Method, ends: list[Callable[[], object]]) -> Response:
        try:
            caller = caller_from_token(
                request.headers.get("authorization"), request.client.host if request.client else ""
            )
        except TokenError as exc:
            raise _Refused(Unauthenticated(str(exc))) from exc
        refused = self.limiter.admit(caller)
        if refused:
            raise _Refused(ResourceExhausted(self.limiter.refusal(refused), "RATE_LIMITED", limit=refused))
        payload = await self._read(request, wire, m)
        sent = [(k, request.headers.get(k, "")) for k in ("authorization", "traceparent", "x-request-id")]
        md = forward_metadata(sent, caller)
        timeout = _timeout(request.headers, wire)
        if not m.server_streaming:
            self.presence.call(caller)
            try:
                await self.gate.admit(caller, m.path, payload, md)  # a spectator's GetView, GetEvents
            except AppError as err:  # counted by the gate when it is the gateway's own
                return protocol_error(wire, RpcError.of_app(err))
            call = self.upstreams.channel(m.service).unary_unary(m.path)
            try:
                got: bytes = await call(payload, metadata=md, timeout=min(timeout or self.timeout_s, self.timeout_s))
            except grpc.aio.AioRpcError as err:
                return protocol_error(wire, RpcError.of_upstream(err))
            out = self._encode(wire, m, got)
            if wire.protocol == "connect":
                return Response(out, media_type=wire.content_type)
            ok = [("grpc-status", "0"), ("grpc-message", "")]
            return self._grpc_web(wire, [_envelope(_DATA, out), _grpc_web_trailer(ok)])
        capped = self.streams.open(caller)
        if capped:  # streams at once per player and address [issue 39.8]
            raise _Refused(ResourceExhausted(self.streams.refusal(capped), "TOO_MANY_STREAMS", limit=capped))
        ends.append(lambda: self.streams.close(caller))
        try:
            await self.gate.admit(caller, m.path, payload, md)
        except AppError as err:  # counted by the gate when it is the gateway's own
            return protocol_error(wire, RpcError.of_app(err))
        watch = self.presence.watch(caller, m.path, payload)
        ends.append(watch.close)
        stream = self.upstreams.channel(m.service).unary_stream(m.path)(payload, metadata=md, timeout=timeout)
        ends.append(stream.cancel)
        return StreamingResponse(self._frames(wire, m, stream, watch), media_type=wire.content_type)

    async def _frames(self, wire: Wire, m: Method, call: Any, watch: Watch) -> AsyncIterator[bytes]:
        """The upstream stream as the wire's frames, closed by its end (or its error)."""
        gauge = M.GATEWAY_CONNECTIONS.labels("stream")
        gauge.inc()
        error: RpcError | None = None
        try:
            try:
                async for item in call:
                    watch.item(item)
                    frame = _envelope(_DATA, self._encode(wire, m, item))
                    yield base64.b64encode(frame) if wire.text else frame
            except grpc.aio.AioRpcError as err:
                error = RpcError.of_upstream(err)
            if wire.protocol == "connect":
                yield _end_stream(error)
            else:
                trailers = error.grpc_trailers() if error else [("grpc-status", "0"), ("grpc-message", "")]
                last = _grpc_web_trailer(trailers)
                yield base64.b64encode(last) if wire.text else last
        finally:
            call.cancel()
            gauge.dec()

    def _grpc_web(self, wire: Wire, frames: list[bytes]) -> Response:
        body = b"".join(base64.b64encode(f) if wire.text else f for f in frames)
        return Response(body, media_type=wire.content_type)

    async def _read(self, request: Request, wire: Wire, m: Method) -> bytes:
        """The request message as protobuf bytes for the upstream, checked against its type."""
        body = await request.body()
        if wire.text:
            try:
                body = base64.b64decode(b"".join(body.split()), validate=False)
            except ValueError as exc:
                raise _Refused(InvalidArgument(f"the base64 body cannot be read: {exc}", "MALFORMED_MESSAGE")) from exc
        if wire.enveloped:
            if len(body) < 5:
                raise _Refused(InvalidArgument("the body holds no enveloped message", "MALFORMED_MESSAGE"))
            flags, size = struct.unpack(">BI", body[:5])
            if size != len(body) - 5:
                raise _Refused(InvalidArgument("the body must hold exactly one enveloped message", "MALFORMED_MESSAGE"))
            body = body[5:]
            name = "connect-content-encoding" if wire.protocol == "connect" else "grpc-encoding"
            if flags & _COMPRESSED:
                body = _inflate(body, request.headers.get(name, "").lower(), self.max_bytes)
        else:
            body = _inflate(body, request.headers.get("content-encoding", "").lower(), self.max_bytes)
        req: Message = m.request_cls()
        try:
            if wire.codec == "json":
                text = body.decode("utf-8").strip() or "{}"
                if not text.startswith("{"):
                    raise json_format.ParseError("the body must be a JSON object")
                json_format.Parse(text, req, ignore_unknown_fields=True)
                return req.SerializeToString()
            req.ParseFromString(body)
        except (json_format.ParseError, UnicodeDecodeError, ValueError) as exc:
            what = m.descriptor.input_type.name
            raise _Refused(InvalidArgument(f"request is not a valid {what}: {exc}", "MALFORMED_JSON")) from exc
        except DecodeError as exc:
            what = m.descriptor.input_type.name
            raise _Refused(InvalidArgument(f"request is not a valid {what}: {exc}", "MALFORMED_MESSAGE")) from exc
        return body

    @staticmethod
    def _encode(wire: Wire, m: Method, data: bytes) -> bytes:
        if wire.codec == "proto":
            return data
        return json_format.MessageToJson(m.response_cls.FromString(data), indent=None).encode("utf-8")

"""gRPC server bootstrap: grpc.aio with the standard health service and reflection."""

from __future__ import annotations

import inspect
from abc import abstractmethod
from collections.abc import AsyncIterator, Callable, Sequence
from contextvars import ContextVar
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

__all__ = [
    "build_server",
    "rich_error",
    "RequestReader",
    "WrappingInterceptor",
    "DOMAIN",
    "MAX_MESSAGE_BYTES",
    "nul_field",
    "clip_message",
    "error_status",
]

DOMAIN = "okey.v1"
MAX_MESSAGE_BYTES = 1 << 20
MAX_ERROR_MESSAGE = 512  # characters of an error's message


def build_server(
    services: Sequence[tuple[Callable[[Any, grpc.aio.Server], None], Any, str]],
    address: str,
    interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
    reuse_port: bool = False,
    reflection_names: Sequence[str] = (),
    outer: Sequence[grpc.aio.ServerInterceptor] = (),
) -> tuple[grpc.aio.Server, health_aio.HealthServicer, int]:
    """A server with each (add_to_server, servicer, full service name), health and reflection,
    bound to ``address`` ("127.0.0.1:0" picks a free port). Returns (server, health, port).
    ``outer`` interceptors see every call before the request reader (metrics, traces);
    ``interceptors`` come after it."""
    server = grpc.aio.server(
        interceptors=[*outer, RequestReader(), *interceptors],
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", 16 * MAX_MESSAGE_BYTES),
            # Several worker processes of one service may share a port (okey serve --workers).
            ("grpc.so_reuseport", 1 if reuse_port else 0),
        ],
    )
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    names = [health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME]
    for add, servicer, name in services:
        add(servicer, server)
        names.append(name)
    names.extend(reflection_names)  # services served by generic handlers (the gateway's proxy)
    reflection.enable_server_reflection(names, server)
    try:
        port = server.add_insecure_port(address)
    except RuntimeError:  # grpcio: "Failed to bind to address ..."
        port = 0
    if port == 0:
        raise OSError(f"cannot listen on {address}: the port is taken or the address is not local")
    return server, health, port


class WrappingInterceptor(grpc.aio.ServerInterceptor):
    """An interceptor that wraps each method's handler (``_wrap``), once per method rather than
    on every call: a method's handler does not change, so its wrapper is built the first time and
    reused."""

    def __init__(self) -> None:
        # method -> (the service's handler, our wrapper of it): a method's handler does not
        # change, so the wrapper is built once, not on every call.
        self._wrapped: dict[str, tuple[Any, Any]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Any],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Any:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        cached = self._wrapped.get(method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        wrapped = self._wrap(handler, method)
        if handler is not None and len(self._wrapped) < 1024:  # known methods only: unknown names get None
            self._wrapped[method] = (handler, wrapped)
        return wrapped

    @abstractmethod
    def _wrap(self, handler: Any, method: str) -> Any:
        """The handler to serve in place of ``handler`` (None for an unknown method) of the full
        ``method`` name (``/okey.v1.TableService/Act``)."""


class RequestReader(WrappingInterceptor):
    """Reads every unary request itself, so that bytes which are not the method's message, or
    text no service can store (PostgreSQL refuses NUL characters), are INVALID_ARGUMENT with a
    reason (``MALFORMED_REQUEST``, ``INVALID_TEXT``) instead of an unhandled exception (UNKNOWN)."""

    def _wrap(self, handler: Any, method: str) -> Any:
        if handler is None or handler.request_deserializer is None or handler.request_streaming:
            return handler  # raw-bytes handlers (the gateway's proxy) and client streams as they are
        parse = handler.request_deserializer
        if handler.unary_unary is not None:
            inner = handler.unary_unary

            async def unary(raw: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
                return await inner(await _read(parse, raw, context), context)

            return grpc.unary_unary_rpc_method_handler(unary, response_serializer=handler.response_serializer)
        if handler.unary_stream is not None:
            stream = handler.unary_stream
            if inspect.isasyncgenfunction(stream):

                async def items(raw: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
                    async for item in stream(await _read(parse, raw, context), context):
                        yield item

                return grpc.unary_stream_rpc_method_handler(items, response_serializer=handler.response_serializer)

            async def writes(raw: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
                return await stream(await _read(parse, raw, context), context)  # it writes with context.write

            return grpc.unary_stream_rpc_method_handler(writes, response_serializer=handler.response_serializer)
        return handler


async def _read(parse: Callable[[bytes], Any], raw: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
    try:
        request = parse(raw)
    except Exception:
        kind = getattr(getattr(getattr(parse, "__self__", None), "DESCRIPTOR", None), "full_name", "request")
        await context.abort_with_status(
            rich_error(grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", f"the request is not a valid {kind}")
        )
        raise
    bad = nul_field(request) if isinstance(request, Message) else None
    if bad is not None:
        await context.abort_with_status(
            rich_error(grpc.StatusCode.INVALID_ARGUMENT, "INVALID_TEXT", f"{bad}: text may not contain NUL characters")
        )
    return request


def nul_field(msg: Message, prefix: str = "") -> str | None:
    """The first text field (path) holding a NUL character, anywhere in the message."""
    for fd, value in msg.ListFields():
        if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
            values = [*value.keys(), *value.values()]
        else:
            values = list(value) if fd.is_repeated else [value]
        for v in values:
            if isinstance(v, str) and "\x00" in v:
                return prefix + fd.name
            if isinstance(v, Message):
                found = nul_field(v, f"{prefix}{fd.name}.")
                if found is not None:
                    return found
    return None


async def mark_serving(health: health_aio.HealthServicer, names: Sequence[str]) -> None:
    await health.set("", health_pb2.HealthCheckResponse.SERVING)
    for n in names:
        await health.set(n, health_pb2.HealthCheckResponse.SERVING)


async def mark_not_serving(health: health_aio.HealthServicer, names: Sequence[str]) -> None:
    await health.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
    for n in names:
        await health.set(n, health_pb2.HealthCheckResponse.NOT_SERVING)


CALL_REASONS: ContextVar[list[str] | None] = ContextVar("okey_rpc_reason", default=None)
"""The reason codes of the rich statuses made while serving the current RPC (the metrics
interceptor sets a list per call: ``okey_grpc_server_refusals_total{reason}``)."""


def note_reason(reason: str) -> None:
    box = CALL_REASONS.get()
    if box is not None:
        box.append(reason)


def clip_message(message: str) -> str:
    """An error's message as it travels: a long one is cut (it goes in the trailers, which clients
    refuse past a few KiB; a message echoing a huge id would otherwise turn a clean refusal into
    an unreadable one)."""
    return message if len(message) <= MAX_ERROR_MESSAGE else message[: MAX_ERROR_MESSAGE - 1] + "…"


def rich_error(code: grpc.StatusCode, reason: str, message: str, **metadata: str) -> grpc.Status:
    """The status a served RPC ends with: :func:`error_status`, its reason noted for
    okey_grpc_server_refusals_total."""
    note_reason(reason)
    return error_status(code, reason, message, **metadata)


def error_status(code: grpc.StatusCode, reason: str, message: str, **metadata: str) -> grpc.Status:
    """A status carrying google.rpc.ErrorInfo(reason, domain, metadata) in its details, its
    message clipped (:func:`clip_message`)."""
    message = clip_message(message)
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    st = status_pb2.Status(code=getattr(code_pb2, code.name), message=message, details=[detail])
    return rpc_status.to_status(st)


def error_reason(err: grpc.aio.AioRpcError | grpc.RpcError) -> str | None:
    """The ErrorInfo reason of a rich error, for clients and tests."""
    st = rpc_status.from_call(err)  # type: ignore[arg-type]
    if st is None:
        return None
    for d in st.details:
        info = error_details_pb2.ErrorInfo()
        if d.Unpack(info):
            return str(info.reason)
    return None

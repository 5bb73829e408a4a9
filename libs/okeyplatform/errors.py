"""One error model: use cases raise an :class:`AppError`; the edges translate it, once.

An ``AppError`` carries a gRPC status, a stable ``reason`` (what clients and tests match on,
sent as ``google.rpc.ErrorInfo`` in domain ``okey.v1``) and a message for people. The service
host's :class:`AppErrors` interceptor turns it into the gRPC status; the gateway turns a gRPC
status into HTTP and WebSocket codes with :data:`HTTP_STATUS`. Nothing else maps errors, so a
reason means the same on every transport."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable
from typing import Any, ClassVar

import grpc
from okeycore.options import OptionsError

from .auth import TokenError
from .grpcserver import WrappingInterceptor, rich_error

__all__ = [
    "AppError",
    "InvalidArgument",
    "NotFound",
    "AlreadyExists",
    "FailedPrecondition",
    "PermissionDenied",
    "Unauthenticated",
    "ResourceExhausted",
    "Aborted",
    "DeadlineExceeded",
    "Unavailable",
    "as_app_error",
    "to_status",
    "AppErrors",
    "HTTP_STATUS",
    "http_status",
    "ws_close_code",
]


class AppError(Exception):
    """A refusal a caller may see: ``status`` (the gRPC code), ``reason`` (stable, upper snake
    case), ``message``; ``metadata`` travels in the ErrorInfo too. Subclasses fix the status and a
    default reason; a use case passes a more precise reason where clients tell cases apart."""

    status: ClassVar[grpc.StatusCode] = grpc.StatusCode.UNKNOWN
    default_reason: ClassVar[str] = "UNKNOWN"

    def __init__(self, message: str, reason: str | None = None, **metadata: str) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason or self.default_reason
        self.metadata = metadata


class InvalidArgument(AppError):
    status = grpc.StatusCode.INVALID_ARGUMENT
    default_reason = "INVALID_ARGUMENT"


class NotFound(AppError):
    status = grpc.StatusCode.NOT_FOUND
    default_reason = "NOT_FOUND"


class AlreadyExists(AppError):
    status = grpc.StatusCode.ALREADY_EXISTS
    default_reason = "ALREADY_EXISTS"


class FailedPrecondition(AppError):
    status = grpc.StatusCode.FAILED_PRECONDITION
    default_reason = "FAILED_PRECONDITION"


class PermissionDenied(AppError):
    status = grpc.StatusCode.PERMISSION_DENIED
    default_reason = "PERMISSION_DENIED"


class Unauthenticated(AppError):
    status = grpc.StatusCode.UNAUTHENTICATED
    default_reason = "BAD_TOKEN"


class ResourceExhausted(AppError):
    status = grpc.StatusCode.RESOURCE_EXHAUSTED
    default_reason = "RESOURCE_EXHAUSTED"


class Aborted(AppError):
    status = grpc.StatusCode.ABORTED
    default_reason = "ABORTED"


class DeadlineExceeded(AppError):
    status = grpc.StatusCode.DEADLINE_EXCEEDED
    default_reason = "DEADLINE_EXCEEDED"


class Unavailable(AppError):
    status = grpc.StatusCode.UNAVAILABLE
    default_reason = "UNAVAILABLE"


def as_app_error(exc: BaseException) -> AppError | None:
    """``exc`` as the refusal a caller sees, or None for a fault (it stays UNKNOWN, and logged).
    Two errors of lower layers are refusals too: a bad token (okeyplatform.auth) and options
    okeycore refuses (the same ``INVALID_OPTIONS`` okeycore and the lobby give [D-9] [C-PAIR-3])."""
    if isinstance(exc, AppError):
        return exc
    if isinstance(exc, TokenError):
        return Unauthenticated(str(exc))
    if isinstance(exc, OptionsError):
        return InvalidArgument(str(exc), "INVALID_OPTIONS")
    return None


def to_status(err: AppError) -> grpc.Status:
    """The gRPC status with its ErrorInfo (reason, domain okey.v1, metadata)."""
    return rich_error(err.status, err.reason, err.message, **err.metadata)


class AppErrors(WrappingInterceptor):
    """The one place an AppError becomes a gRPC status: every handler of the server is wrapped
    so that what :func:`as_app_error` recognises aborts the call with :func:`to_status`, and
    anything else propagates as before (UNKNOWN, logged by grpc)."""

    def _wrap(self, handler: Any, method: str) -> Any:
        if handler is None:
            return handler
        if handler.stream_stream is not None:  # TableService.Play: the requests are the first argument
            return grpc.stream_stream_rpc_method_handler(
                _stream(handler.stream_stream),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.request_streaming:
            return handler
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                _unary(handler.unary_unary),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                _stream(handler.unary_stream),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler


async def _abort(context: grpc.aio.ServicerContext[Any, Any], exc: Exception) -> None:
    err = as_app_error(exc)
    if err is None:
        raise exc
    await context.abort_with_status(to_status(err))


def _unary(inner: Callable[..., Any]) -> Callable[..., Any]:
    async def call(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        try:
            return await inner(request, context)
        except Exception as exc:
            await _abort(context, exc)
            raise

    return call


def _stream(inner: Callable[..., Any]) -> Callable[..., Any]:
    if inspect.isasyncgenfunction(inner):

        async def items(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
            stream = inner(request, context)
            try:
                async for item in stream:
                    yield item
            except Exception as exc:
                await _abort(context, exc)
                raise
            finally:
                await stream.aclose()  # a caller gone: the handler's own cleanup runs now, not at GC

        return items

    async def writes(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        try:
            return await inner(request, context)  # it writes with context.write
        except Exception as exc:
            await _abort(context, exc)
            raise

    return writes


HTTP_STATUS: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.UNIMPLEMENTED: 404,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
}
"""gRPC status -> HTTP status, the gateway's one table (anything else is 500)."""


def http_status(code: grpc.StatusCode) -> int:
    return HTTP_STATUS.get(code, 500)


def ws_close_code(code: grpc.StatusCode) -> int:
    """The WebSocket close code for a status: 4000 + the HTTP status's last three digits."""
    return 4000 + http_status(code) % 1000

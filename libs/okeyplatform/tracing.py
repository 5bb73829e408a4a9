"""Traces: OpenTelemetry set up once per process, and the few helpers the services use.

Off by default. :func:`configure_tracing` installs a real SDK provider (a BatchSpanProcessor and
the OTLP/gRPC exporter) only when ``OTEL_TRACES_EXPORTER`` is ``otlp`` or an OTLP endpoint is
set (``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) and
``OTEL_SDK_DISABLED`` is not true; sampling is the standard ``OTEL_TRACES_SAMPLER`` /
``OTEL_TRACES_SAMPLER_ARG`` (parentbased_always_on by default). Off, the API's no-op tracer still
hands an incoming ``traceparent`` on: a no-op span keeps its parent's context, so the next hop
(the stored event, the NATS header) keeps the caller's trace id.

The provider lives here, not only in OpenTelemetry's global (which can be set once per process):
tests swap it with :func:`install`. Nothing here ever records tiles, racks or the deck."""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Iterator, Mapping
from typing import Any

import grpc
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, Status, StatusCode, TraceFlags

from .grpcserver import WrappingInterceptor

__all__ = [
    "configure_tracing",
    "install",
    "tracer",
    "enabled",
    "current_traceparent",
    "traceparent_of",
    "parent_context",
    "TracingInterceptor",
    "start_span",
    "event_span",
    "passes_on",
    "server_span",
    "consumer_span",
    "valid_traceparent",
    "db_span",
    "internal_span",
    "PRODUCER",
    "CONSUMER",
]

PRODUCER, CONSUMER = SpanKind.PRODUCER, SpanKind.CONSUMER

_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")


def valid_traceparent(value: object) -> str | None:
    """A W3C ``traceparent`` as sent (``00-<trace id>-<span id>-<flags>``), or None when it is
    not one: a malformed trace context is dropped, never stored or passed on."""
    if not isinstance(value, str) or len(value) != 55 or not _TRACEPARENT.match(value):
        return None
    if value.startswith("ff") or value[3:35] == "0" * 32 or value[36:52] == "0" * 16:
        return None
    return value


_provider: Any = trace.NoOpTracerProvider()
_tracers: dict[str, trace.Tracer] = {}
_enabled = False
_follows_parent = False  # the sampler is a ParentBased one: an unsampled parent's child is never sampled
# A ParentBased sampler whose root sampler is the trace-id ratio (or always off): the bound a new
# trace id must fall under to be sampled, so that an unsampled root costs one random number
# instead of the SDK's span machinery (None: ask the SDK every time).
_root_bound: int | None = None
_id_generator: Any = None
_TRACE_ID_LIMIT = (1 << 64) - 1


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def enabled(environ: Mapping[str, str] | None = None) -> bool:
    """Does the environment ask for traces to be exported?"""
    env = os.environ if environ is None else environ
    if _truthy(env.get("OTEL_SDK_DISABLED")):
        return False
    exporters = {e.strip().lower() for e in env.get("OTEL_TRACES_EXPORTER", "").split(",")}
    return "otlp" in exporters or bool(
        env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    )


def configure_tracing(service: str, environ: Mapping[str, str] | None = None) -> bool:
    """The process's tracer provider for ``service`` (``OTEL_SERVICE_NAME``, default
    ``okey-<service>``): the SDK with the OTLP exporter when :func:`enabled`, else the no-op one.
    Returns whether spans are exported."""
    env = os.environ if environ is None else environ
    if not enabled(env):
        install(None)
        return False
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    from opentelemetry.sdk.trace.sampling import _get_from_env_or_default

    name = env.get("OTEL_SERVICE_NAME") or f"okey-{service}"
    # The sampler reads OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (parentbased_always_on unset).
    provider = TracerProvider(resource=Resource.create({"service.name": name}), sampler=_get_from_env_or_default())
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)  # for libraries that use the global (set once per process)
    install(provider)
    return True


def install(provider: Any | None) -> None:
    """Use ``provider`` for every span made through :func:`tracer` (None: the no-op one)."""
    global _provider, _enabled, _follows_parent, _root_bound, _id_generator
    _provider = provider if provider is not None else trace.NoOpTracerProvider()
    _enabled = provider is not None
    _follows_parent, _root_bound, _id_generator = False, None, None
    if provider is not None:
        from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ParentBased, TraceIdRatioBased

        sampler = getattr(provider, "sampler", None)
        _follows_parent = isinstance(sampler, ParentBased)
        root = getattr(sampler, "_root", None) if _follows_parent else None
        ids = getattr(provider, "id_generator", None)
        if ids is not None and not isinstance(ids, _ChosenIds):
            ids = provider.id_generator = _ChosenIds(ids)  # before any tracer of ours takes it
        _id_generator = ids
        if _id_generator is not None and isinstance(root, TraceIdRatioBased):
            _root_bound = root.bound
        elif _id_generator is not None and root is ALWAYS_OFF:
            _root_bound = 0
    _tracers.clear()


class _ChosenIds:
    """The provider's id generator, which can be told the next trace id (the one
    :func:`start_span` drew and found sampled), so that the SDK's sampler decides on that id
    rather than on a second draw. Per thread: a span is started within one call."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self._chosen = threading.local()

    def choose(self, trace_id: int) -> None:
        self._chosen.trace_id = trace_id

    def generate_trace_id(self) -> int:
        chosen: int | None = getattr(self._chosen, "trace_id", None)
        if chosen is not None:
            self._chosen.trace_id = None
            return chosen
        return int(self.inner.generate_trace_id())

    def generate_span_id(self) -> int:
        return int(self.inner.generate_span_id())

    def is_trace_id_random(self) -> bool:
        return bool(getattr(self.inner, "is_trace_id_random", lambda: False)())


def start_span(
    scope: str,
    name: str,
    context: otel_context.Context | None,
    kind: SpanKind = SpanKind.INTERNAL,
    attributes: Mapping[str, str | int] | None = None,
) -> trace.Span:
    """A span of ``scope`` under ``context`` (None: a new trace), as the tracer would start it,
    with the sampler's decision taken first where it is known without the SDK: under a
    ParentBased sampler an unsampled parent's child is its parent's context again, and an
    unsampled new trace (the ratio sampler's bound) is a non-recording span of a fresh trace id
    that the next hop carries on as unsampled. At 1 % sampling, 99 % of the spans cost a random
    number instead of the SDK's span (measured by ``okey bench table --observability``)."""
    if _follows_parent:
        if context is not None:
            sc = trace.get_current_span(context).get_span_context()
            if sc.is_valid and not sc.trace_flags.sampled:
                return NonRecordingSpan(sc)
        elif _root_bound is not None:
            trace_id = _id_generator.generate_trace_id()
            if trace_id & _TRACE_ID_LIMIT >= _root_bound:
                return NonRecordingSpan(
                    SpanContext(trace_id, _id_generator.generate_span_id(), is_remote=False, trace_flags=TraceFlags(0))
                )
            _id_generator.choose(trace_id)  # the SDK's sampler sees the id that was drawn: sampled
    return tracer(scope).start_span(name, context=context, kind=kind, attributes=attributes)


def tracer(scope: str) -> trace.Tracer:
    """The tracer of one component (``okey.table``, ``okey.relay``, ...), its instrumentation scope."""
    t = _tracers.get(scope)
    if t is None:
        t = _tracers[scope] = _provider.get_tracer(scope)
    return t


def traceparent_of(span: trace.Span) -> str | None:
    """A span's W3C ``traceparent`` (None for an invalid span)."""
    sc = span.get_span_context()
    if not sc.is_valid:
        return None
    return f"00-{sc.trace_id:032x}-{sc.span_id:016x}-{int(sc.trace_flags):02x}"


def current_traceparent() -> str | None:
    """The current span's ``traceparent``: what goes upstream and is stored with the events."""
    return traceparent_of(trace.get_current_span())


def parent_context(traceparent: str | None) -> otel_context.Context | None:
    """A context whose parent is the span ``traceparent`` names (a valid one, as
    :func:`valid_traceparent` checks), or None for a root span."""
    if not traceparent:
        return None
    try:
        trace_id, span_id = int(traceparent[3:35], 16), int(traceparent[36:52], 16)
        flags = TraceFlags(int(traceparent[53:55], 16) & 1)
    except ValueError:
        return None
    sc = SpanContext(trace_id, span_id, is_remote=True, trace_flags=flags)
    if not sc.is_valid:
        return None
    return trace.set_span_in_context(NonRecordingSpan(sc))


def _metadata_traceparent(context: grpc.aio.ServicerContext[Any, Any]) -> str | None:
    for k, v in context.invocation_metadata() or ():
        if k == "traceparent":
            return v if isinstance(v, str) else None
    return None


class TracingInterceptor(WrappingInterceptor):
    """A SERVER span per unary RPC (named after the method, ``okey.v1.TableService/Act``), its
    parent the caller's ``traceparent`` metadata, with the rpc.* attributes and the status; the
    span is current while the handler runs. Streams (Watch, long-lived) get no span."""

    def _wrap(self, handler: Any, full_method: str) -> Any:
        if handler is None or handler.request_streaming or handler.unary_unary is None:
            return handler
        inner = handler.unary_unary
        full = full_method.lstrip("/")

        async def unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            with server_span(full, valid_traceparent(_metadata_traceparent(context))) as done:
                try:
                    response = await inner(request, context)
                except BaseException as exc:
                    done(_status_code(context, exc), type(exc).__name__)
                    raise
                done(0)
                return response

        return grpc.unary_unary_rpc_method_handler(
            unary, request_deserializer=handler.request_deserializer, response_serializer=handler.response_serializer
        )


@contextlib.contextmanager
def server_span(full_method: str, traceparent: str | None) -> Iterator[Any]:
    """The SERVER span of one call, ``full_method`` naming it (``okey.v1.TableService/Act``), its
    parent ``traceparent`` (already checked), current inside the block. The block calls what it
    yields with the call's status number (and, when it failed, the error's name). A unary call's
    (the interceptor) and each request of a stream of calls (TableService.Play) alike."""
    service, _, method = full_method.partition("/")
    scope = "okey." + service.rsplit(".", 1)[-1].removesuffix("Service").lower()
    span = start_span(scope, full_method, parent_context(traceparent), SpanKind.SERVER)
    token = otel_context.attach(trace.set_span_in_context(span))

    def done(code: int, error: str = "") -> None:
        if span.is_recording():
            _rpc_attributes(span, service, method, code)
            if error:
                span.set_status(Status(StatusCode.ERROR, error))

    try:
        yield done
    finally:
        otel_context.detach(token)
        span.end()


def _rpc_attributes(span: trace.Span, service: str, method: str, code: int) -> None:
    span.set_attributes(
        {"rpc.system": "grpc", "rpc.service": service, "rpc.method": method, "rpc.grpc.status_code": code}
    )


def _status_code(context: grpc.aio.ServicerContext[Any, Any], exc: BaseException) -> int:
    """The call's status number: the one it was aborted with, else UNKNOWN (2)."""
    code = context.code() if hasattr(context, "code") else None
    if isinstance(code, grpc.StatusCode):
        return int(code.value[0])
    if isinstance(code, int):
        return code
    return 2


def passes_on(traceparent: str | None) -> bool:
    """Would a span under ``traceparent`` only hand its parent's context on? True with tracing
    off (the no-op span keeps its parent's context) and for an unsampled parent under a
    ParentBased sampler: a hop (the relay's publish) can then forward the traceparent as it is,
    with no span made at all."""
    if not _enabled:
        return True
    return traceparent is not None and _follows_parent and not int(traceparent[53:55], 16) & 1


def event_span(
    scope: str, name: str, kind: SpanKind, table_id: str, version: int, event_kind: str, parent: str | None
) -> trace.Span:
    """A span about one table event (the relay's publish, a consumer's handling), a child of the
    span ``parent`` names; attributes: the table, version and event kind only (never tiles)."""
    span = start_span(scope, name, parent_context(parent), kind)
    if span.is_recording():
        span.set_attributes({"okey.table_id": table_id, "okey.version": version, "okey.event.kind": event_kind})
    return span


@contextlib.contextmanager
def consumer_span(consumer: str, item: Any) -> Iterator[trace.Span]:
    """A CONSUMER span, current while ``consumer`` handles one item (an event envelope item:
    its parent is the message's ``traceparent``, the relay's publish); what the handler sends on
    (a bot's Act) continues the trace."""
    envelope = getattr(item, "envelope", item)
    parent = getattr(envelope, "traceparent", None)
    kind = getattr(envelope, "kind", "")
    span = event_span("okey.consumer", f"{consumer} handle", CONSUMER, item.table_id, item.version, kind, parent)
    token = otel_context.attach(trace.set_span_in_context(span))
    try:
        yield span
    except BaseException as exc:
        if span.is_recording():
            span.set_status(Status(StatusCode.ERROR, type(exc).__name__))
        raise
    finally:
        otel_context.detach(token)
        span.end()


@contextlib.contextmanager
def db_span(operation: str, collection: str, scope: str = "okey.eventstore") -> Iterator[None]:
    """A CLIENT span around one SQL statement on PostgreSQL (``INSERT okey_events``), a child
    of the current span, with the database semantic conventions' ``db.system``,
    ``db.operation.name`` and ``db.collection.name``; never the statement's values. Without a
    recording parent (tracing off, or this trace not sampled) nothing is made."""
    parent = trace.get_current_span()
    if not _enabled or not parent.is_recording():
        yield
        return
    span = tracer(scope).start_span(f"{operation} {collection}", kind=SpanKind.CLIENT)
    span.set_attributes({"db.system": "postgresql", "db.operation.name": operation, "db.collection.name": collection})
    token = otel_context.attach(trace.set_span_in_context(span))
    try:
        yield
    except BaseException as exc:
        span.set_status(Status(StatusCode.ERROR, type(exc).__name__))
        raise
    finally:
        otel_context.detach(token)
        span.end()


@contextlib.contextmanager
def internal_span(scope: str, name: str, **attributes: str | int) -> Iterator[None]:
    """An INTERNAL span for one step of a recording trace (the table's ``decide``); nothing
    when there is no recording parent, so an unsampled move pays one check."""
    parent = trace.get_current_span()
    if not _enabled or not parent.is_recording():
        yield
        return
    span = tracer(scope).start_span(name, attributes=attributes)
    token = otel_context.attach(trace.set_span_in_context(span))
    try:
        yield
    finally:
        otel_context.detach(token)
        span.end()

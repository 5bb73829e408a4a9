"""Traces (okeyplatform.tracing): one Act's spans in the table service and the relay, parent-linked
across NATS, with no tile in any attribute; log lines inside a span carry its trace id."""

from __future__ import annotations

import asyncio
import io
import json
import uuid
from collections.abc import Callable

import structlog
from okeycore.commands import Discard
from okeycore.options import TableOptions
from okeyplatform import tracing
from okeyplatform.client import TableClient
from okeyplatform.contract import classic_view_from_pb
from okeyplatform.logs import add_trace_ids
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from services.table.main import TableService

PLAYERS = ("ali", "ayse", "mehmet", "zeynep")
TRACE = "0af7651916cd43dd8448eb211c80319c"
CALLER = f"00-{TRACE}-b7ad6b7169203331-01"


async def _until(exporter: InMemorySpanExporter, name: str, timeout: float = 10.0, kind: str = "") -> ReadableSpan:
    """The first finished span called ``name`` (about an event of ``kind``, when given: the
    relay may still be publishing the table's creation)."""
    for _ in range(int(timeout / 0.05)):
        found = [
            s
            for s in exporter.get_finished_spans()
            if s.name == name and (not kind or (s.attributes or {}).get("okey.event.kind") == kind)
        ]
        if found:
            return found[0]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no span {name!r}: {[s.name for s in exporter.get_finished_spans()]}")


async def test_an_act_s_spans_are_one_trace_from_the_caller_to_the_relay_s_publish(
    spans: InMemorySpanExporter, table_service: TableService, client_for: Callable[[str], TableClient]
) -> None:
    clients = [client_for(p) for p in PLAYERS]
    traced = f"t-traced-{uuid.uuid4().hex[:8]}"
    await client_for("lobby", "service").create_table(TableOptions(), PLAYERS, table_id=traced)
    v = classic_view_from_pb(await clients[0].view(traced, 0))
    seat = v.turn
    rack = [t for t in classic_view_from_pb(await clients[seat].view(traced, seat)).rack if t >= 0]
    spans.clear()
    res = await clients[seat].act(traced, Discard(seat=seat, tile=rack[0]), traceparent=CALLER)
    act = await _until(spans, "okey.v1.TableService/Act")
    publish = await _until(spans, "okey.table publish", kind="TileDiscarded")
    assert act.kind is SpanKind.SERVER and publish.kind is SpanKind.PRODUCER
    assert f"{act.context.trace_id:032x}" == TRACE == f"{publish.context.trace_id:032x}"
    assert act.parent is not None and f"{act.parent.span_id:016x}" == "b7ad6b7169203331"
    # the stored trace context is the Act span's, so the relay's publish hangs under it
    assert res.events[0].traceparent == f"00-{TRACE}-{act.context.span_id:016x}-01"
    assert publish.parent is not None and publish.parent.span_id == act.context.span_id
    assert act.attributes["rpc.method"] == "Act" and act.attributes["rpc.grpc.status_code"] == 0
    assert publish.attributes["okey.table_id"] == traced
    assert publish.attributes["okey.event.kind"] == "TileDiscarded"
    # hidden information stays out of the tracing backend: no tile of the rack in any attribute
    # (numbers that are versions and status codes, not tiles, are left out: a rack may hold tile 0)
    numbers = {"okey.version", "rpc.grpc.status_code", "http.response.status_code"}
    texts = [str(v) for s in spans.get_finished_spans() for k, v in (s.attributes or {}).items() if k not in numbers]
    assert not any(str(t) == text for t in rack for text in texts)


async def test_tracing_off_keeps_the_caller_s_trace_id_on_the_stored_event(
    table_service: TableService, client_for: Callable[[str], TableClient]
) -> None:
    clients = [client_for(p) for p in PLAYERS]
    untraced = f"t-untraced-{uuid.uuid4().hex[:8]}"
    await client_for("lobby", "service").create_table(TableOptions(), PLAYERS, table_id=untraced)
    seat = classic_view_from_pb(await clients[0].view(untraced, 0)).turn
    rack = [t for t in classic_view_from_pb(await clients[seat].view(untraced, seat)).rack if t >= 0]
    res = await clients[seat].act(untraced, Discard(seat=seat, tile=rack[0]), traceparent=CALLER)
    assert res.events[0].traceparent == CALLER


def test_a_log_line_inside_a_span_carries_its_trace_id(spans: InMemorySpanExporter) -> None:
    out = io.StringIO()
    log = structlog.wrap_logger(
        structlog.PrintLogger(out), processors=[add_trace_ids, structlog.processors.JSONRenderer()]
    )
    with tracing.tracer("okey.test").start_as_current_span("work") as span:
        log.info("inside")
    log.info("outside")
    inside, outside = (json.loads(line) for line in out.getvalue().splitlines())
    assert inside["trace_id"] == f"{span.get_span_context().trace_id:032x}"
    assert inside["span_id"] == f"{span.get_span_context().span_id:016x}"
    assert "trace_id" not in outside


def test_tracing_is_off_unless_an_otlp_exporter_is_asked_for_and_samples_as_the_standard_variables_say() -> None:
    try:
        assert not tracing.configure_tracing("table", {})
        assert not tracing.configure_tracing("table", {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "true"})
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317",
            "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
            "OTEL_TRACES_SAMPLER_ARG": "0.01",
        }
        import os

        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)  # the SDK's sampler reads os.environ itself
        try:
            assert tracing.configure_tracing("table", env)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        assert "TraceIdRatioBased{0.01}" in tracing._provider.sampler.get_description()
        assert tracing._provider.resource.attributes["service.name"] == "okey-table"
    finally:
        tracing.install(None)


def test_an_event_of_an_unsampled_trace_gets_no_span_and_passes_the_decision_on(
    spans: InMemorySpanExporter,
) -> None:
    unsampled = f"00-{TRACE}-b7ad6b7169203331-00"
    span = tracing.event_span("okey.relay", "okey.table publish", SpanKind.PRODUCER, "t1", 3, "TileDrawn", unsampled)
    assert not span.is_recording() and tracing.traceparent_of(span) == unsampled
    span.end()
    sampled = tracing.event_span("okey.relay", "okey.table publish", SpanKind.PRODUCER, "t1", 3, "TileDrawn", CALLER)
    assert sampled.is_recording()
    sampled.end()
    assert [s.name for s in spans.get_finished_spans()] == ["okey.table publish"]


def test_new_traces_are_sampled_at_the_configured_ratio_with_one_draw_of_the_trace_id() -> None:
    """start_span takes the ratio sampler's decision itself for a new trace (a cheap unsampled
    root): the share sampled is still the ratio (not ratio squared by a second draw in the SDK),
    a sampled span is the SDK's own with the id that was drawn, and an unsampled one carries a
    fresh valid trace id with the sampled flag off, which its children keep."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.sampling import ParentBasedTraceIdRatio

    exporter = InMemorySpanExporter()
    provider = TracerProvider(sampler=ParentBasedTraceIdRatio(0.05))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.install(provider)
    try:
        n = 20_000
        made = [tracing.start_span("okey.test", "root", None, SpanKind.SERVER) for _ in range(n)]
        sampled = [s for s in made if s.get_span_context().trace_flags.sampled]
        # Binomial(20,000, 0.05): mean 1,000, sd ~31; squared sampling would give ~50.
        assert 850 < len(sampled) < 1150
        assert all(s.is_recording() for s in sampled)
        unsampled = [s for s in made if not s.get_span_context().trace_flags.sampled]
        assert all(not s.is_recording() and s.get_span_context().is_valid for s in unsampled)
        assert len({s.get_span_context().trace_id for s in made}) == n
        for s in made:
            s.end()
        assert len(exporter.get_finished_spans()) == len(sampled)
        parent = trace.set_span_in_context(unsampled[0])
        child = tracing.start_span("okey.test", "child", parent)
        assert not child.is_recording()
        assert child.get_span_context().trace_id == unsampled[0].get_span_context().trace_id
        kid = tracing.start_span("okey.test", "child", trace.set_span_in_context(sampled[0]))
        assert kid.is_recording() and kid.get_span_context().trace_id == sampled[0].get_span_context().trace_id
    finally:
        tracing.install(None)


def test_a_hop_forwards_the_trace_context_as_it_came_when_no_span_would_be_recorded() -> None:
    """``passes_on``: with tracing off, and for an unsampled parent under the ParentBased
    sampler, the relay forwards the stored traceparent without making a span (it would only hand
    the parent's context on); a sampled parent, or none, gets its span."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.sampling import ALWAYS_ON, ParentBasedTraceIdRatio

    unsampled, sampled = f"00-{TRACE}-b7ad6b7169203331-00", f"00-{TRACE}-b7ad6b7169203331-01"
    tracing.install(None)
    assert tracing.passes_on(unsampled) and tracing.passes_on(sampled) and tracing.passes_on(None)
    tracing.install(TracerProvider(sampler=ParentBasedTraceIdRatio(0.01)))
    try:
        assert tracing.passes_on(unsampled)
        assert not tracing.passes_on(sampled) and not tracing.passes_on(None)
        tracing.install(TracerProvider(sampler=ALWAYS_ON))  # not ParentBased: it decides itself
        assert not tracing.passes_on(unsampled)
    finally:
        tracing.install(None)

"""An OTLP/gRPC trace receiver that keeps nothing but counts: where a benchmark's services send
their spans, so exporting costs what it costs against a real collector (the spans are
serialised, sent and acknowledged) without running one."""

from __future__ import annotations

from typing import Any

import grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as tpb
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc as tpb_grpc

__all__ = ["OtlpSink"]


class OtlpSink(tpb_grpc.TraceServiceServicer):
    """``opentelemetry.proto.collector.trace.v1.TraceService/Export`` on 127.0.0.1: counts the
    export calls, the spans and the trace ids they carry."""

    def __init__(self) -> None:
        self.exports = 0
        self.spans = 0
        self.traces: set[bytes] = set()
        self.server: grpc.aio.Server | None = None
        self.port = 0

    async def Export(self, request: tpb.ExportTraceServiceRequest, context: Any) -> tpb.ExportTraceServiceResponse:
        self.exports += 1
        for rs in request.resource_spans:
            for ss in rs.scope_spans:
                self.spans += len(ss.spans)
                self.traces.update(s.trace_id for s in ss.spans)
        return tpb.ExportTraceServiceResponse()

    async def start(self) -> str:
        """Start serving; returns the endpoint for ``OTEL_EXPORTER_OTLP_ENDPOINT``."""
        self.server = grpc.aio.server()
        tpb_grpc.add_TraceServiceServicer_to_server(self, self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        await self.server.start()
        return f"http://127.0.0.1:{self.port}"

    async def stop(self) -> None:
        if self.server is not None:
            await self.server.stop(0)

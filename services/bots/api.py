"""The bots service serves no API of its own: only the standard gRPC health service (and
reflection), so probes and `okey up` can see it is following the tables."""

from __future__ import annotations

from typing import Any

import grpc
from grpc_health.v1.health import aio as health_aio
from okeyplatform.grpcserver import build_server

__all__ = ["SERVICE_NAME", "build_health_server"]

SERVICE_NAME = "okey.v1.Bots"
"""The name the health service reports the bots' state under (no such gRPC service exists)."""


def build_health_server(address: str) -> tuple[grpc.aio.Server, health_aio.HealthServicer, int]:
    services: list[Any] = []
    return build_server(services, address)

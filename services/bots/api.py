"""The bots service serves no API of its own: only the standard gRPC health service (and
reflection), so probes and `okey up` can see it is following the tables (the service host
serves them)."""

from __future__ import annotations

__all__ = ["SERVICE_NAME"]

SERVICE_NAME = "okey.v1.Bots"
"""The name the health service reports the bots' state under (no such gRPC service exists)."""

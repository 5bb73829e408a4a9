"""The handle the gateway tests get from their ``stack`` fixture (conftest.py)."""

from __future__ import annotations

from dataclasses import dataclass

from okeytools.stack import Stack


@dataclass(frozen=True)
class GatewayStack:
    stack: Stack

    @property
    def grpc(self) -> str:
        """The gateway's gRPC address (host:port)."""
        return self.stack.address("gateway")

    @property
    def http(self) -> str:
        """The gateway's HTTP/WebSocket address (host:port)."""
        return self.stack.http_address

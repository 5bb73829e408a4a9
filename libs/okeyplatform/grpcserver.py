"""gRPC server bootstrap: grpc.aio with the standard health service and reflection."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

__all__ = ["build_server", "rich_error", "DOMAIN", "MAX_MESSAGE_BYTES"]

DOMAIN = "okey.v1"
MAX_MESSAGE_BYTES = 1 << 20


def build_server(
    services: Sequence[tuple[Callable[[Any, grpc.aio.Server], None], Any, str]],
    address: str,
    interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
    reuse_port: bool = False,
    reflection_names: Sequence[str] = (),
) -> tuple[grpc.aio.Server, health_aio.HealthServicer, int]:
    """A server with each (add_to_server, servicer, full service name), health and reflection,
    bound to ``address`` ("127.0.0.1:0" picks a free port). Returns (server, health, port)."""
    server = grpc.aio.server(
        interceptors=list(interceptors),
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
    port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}: the port is taken or the address is not local")
    return server, health, port


async def mark_serving(health: health_aio.HealthServicer, names: Sequence[str]) -> None:
    await health.set("", health_pb2.HealthCheckResponse.SERVING)
    for n in names:
        await health.set(n, health_pb2.HealthCheckResponse.SERVING)


async def mark_not_serving(health: health_aio.HealthServicer, names: Sequence[str]) -> None:
    await health.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
    for n in names:
        await health.set(n, health_pb2.HealthCheckResponse.NOT_SERVING)


def rich_error(code: grpc.StatusCode, reason: str, message: str, **metadata: str) -> grpc.Status:
    """A status carrying google.rpc.ErrorInfo(reason, domain, metadata) in its details."""
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

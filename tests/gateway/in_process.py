"""A gateway in this test's process, in front of fake upstream services in this process too: for
the gateway's own logic (routes, wires, rate limits, presence) where the services' answers are
the test's to choose. One construction for every such test module."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
from okey.v1 import lobby_service_pb2_grpc as lpb_grpc
from okey.v1 import scoring_service_pb2_grpc as spb_grpc
from okey.v1 import table_service_pb2_grpc as tpb_grpc

from services.gateway.main import Gateway

__all__ = ["start_gateway", "upstream_server"]


@asynccontextmanager
async def upstream_server(lobby: Any = None, table: Any = None, scoring: Any = None) -> AsyncIterator[int]:
    """One gRPC server on a free port serving the servicers given; yields its port."""
    server = grpc.aio.server()
    if lobby is not None:
        lpb_grpc.add_LobbyServiceServicer_to_server(lobby, server)
    if table is not None:
        tpb_grpc.add_TableServiceServicer_to_server(table, server)
    if scoring is not None:
        spb_grpc.add_ScoringServiceServicer_to_server(scoring, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield port
    finally:
        await server.stop(0)


async def start_gateway(port: int, **env: str) -> Gateway:
    """A started gateway whose table, scoring and lobby are all the server on ``port``; ``env``
    adds to its environment (OKEY_RATE_LIMIT=..). The caller stops it."""
    addr = f"127.0.0.1:{port}"
    base = {"OKEY_TABLE_ADDR": addr, "OKEY_SCORING_ADDR": addr, "OKEY_LOBBY_ADDR": addr}
    gw = Gateway("127.0.0.1:0", "127.0.0.1:0", environ=base | env)
    await gw.start()
    return gw

"""A call of the bots to the table that never answers (a table replica stopping under it, a
connection lost without a reset) holds that seat's turn in the replica only for a deadline
(``CALL_DEADLINE_S``): the call then fails and is tried again, and the table plays on long before
its turn timer. Real table service, real gRPC; between them a proxy that swallows one call."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from okeycore.options import BotPace, TableOptions
from okeyplatform.client import TableClient
from stacks import leave_nats_clean

from services.bots import table as bots_table
from services.bots.main import BotsService
from services.table.main import TableService

SERVICE = "okey.v1.TableService"


class _Proxy:
    """Forwards every unary call to the table as bytes; the first ``Act`` after ``arm()`` is
    swallowed (never answered, never forwarded)."""

    def __init__(self, target: str) -> None:
        self.channel = grpc.aio.insecure_channel(target)
        self.server = grpc.aio.server()
        self.armed = False
        self.swallowed = 0
        self.port = 0

    def arm(self) -> None:
        self.armed = True

    def _handler(self, method: str) -> grpc.RpcMethodHandler:
        forward = self.channel.unary_unary(f"/{SERVICE}/{method}")

        async def call(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
            if method == "Act" and self.armed:
                self.armed = False
                self.swallowed += 1
                await asyncio.Event().wait()  # hangs until the caller gives up
            md = tuple((k, v) for k, v in context.invocation_metadata() if not k.startswith("grpc-"))
            try:
                answer: bytes = await forward(request, metadata=md)
            except grpc.aio.AioRpcError as err:
                await context.abort(err.code(), err.details() or "", err.trailing_metadata())
            return answer

        return grpc.unary_unary_rpc_method_handler(call)

    async def start(self) -> None:
        methods = ("Act", "GetView", "CreateTable", "GetEvents")
        self.server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(SERVICE, {m: self._handler(m) for m in methods}),)
        )
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        await self.server.start()

    async def stop(self) -> None:
        await self.server.stop(0)
        await self.channel.close()


@pytest.fixture
async def proxy(table_service: TableService) -> AsyncIterator[_Proxy]:
    p = _Proxy(f"127.0.0.1:{table_service.port}")
    await p.start()
    yield p
    await p.stop()


async def test_a_call_the_table_never_answers_holds_the_turn_only_for_the_deadline(
    table_service: TableService,
    proxy: _Proxy,
    admin: TableClient,
    nats_url: str,
    fresh_database_url: str,
    monkeypatch: Any,
) -> None:
    monkeypatch.setattr(bots_table, "CALL_DEADLINE_S", 0.5)
    durable = f"bots-{uuid.uuid4().hex[:8]}"
    bots = BotsService(
        nats_url, fresh_database_url, f"127.0.0.1:{proxy.port}", "127.0.0.1:0", "greedy", durable=durable
    )
    await bots.start()
    try:
        table_id = f"deadline-{uuid.uuid4().hex[:8]}"
        # a turn timer far beyond the test: only the deadline can free the swallowed turn
        await admin.create_table(
            TableOptions(turn_seconds=120, bot_pace=BotPace.INSTANT), ("", "", "", ""), table_id=table_id
        )
        assert table_service.app is not None

        async def discards() -> int:
            return sum(1 for _, e in await table_service.app.events(table_id) if e.type == "TileDiscarded")

        for _ in range(200):
            if await discards() >= 4:
                break
            await asyncio.sleep(0.05)
        proxy.arm()
        before = await discards()
        for _ in range(200):  # 10 s: the deadline (0.5 s) and a retry, not the turn timer (120 s)
            if await discards() >= before + 8:
                break
            await asyncio.sleep(0.05)
        assert proxy.swallowed == 1
        assert await discards() >= before + 8, "the table stopped at the swallowed call"
    finally:
        await bots.stop(grace_s=1.0)
        await leave_nats_clean(nats_url, [durable], ())

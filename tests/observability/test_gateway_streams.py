"""Issue 20: the gateway counts the gRPC streams it proxies (a seat's Watch) among its open
connections, and forgets them when the client goes."""

from __future__ import annotations

import asyncio
import uuid

from okeycore.options import TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from prometheus_client import REGISTRY

from services.gateway.main import Gateway
from services.table.main import TableService


def _streams() -> float:
    return REGISTRY.get_sample_value("okey_gateway_connections", {"kind": "stream"}) or 0.0


async def test_a_proxied_watch_is_an_open_stream_until_the_client_leaves(
    fresh_database_url: str, nats_url: str
) -> None:
    table = TableService(fresh_database_url, nats_url, "127.0.0.1:0")
    await table.start()
    gateway = Gateway("127.0.0.1:0", "127.0.0.1:0", environ={"OKEY_TABLE_ADDR": f"127.0.0.1:{table.port}"})
    await gateway.start()
    lobby = TableClient(f"127.0.0.1:{table.port}", issue_token("lobby", "service"))
    ali = TableClient(f"127.0.0.1:{gateway.grpc_port}", issue_token("ali"))
    table_id = f"streams-{uuid.uuid4().hex[:8]}"
    try:
        await lobby.create_table(TableOptions(), ("ali", "ayse", "can", "deniz"), table_id=table_id)
        before = _streams()
        call = ali.watch(table_id, seat=0)
        first = await asyncio.wait_for(call.read(), 10)  # type: ignore[attr-defined]  # the snapshot came through the gateway
        assert first.HasField("snapshot")
        assert _streams() == before + 1
        call.cancel()  # type: ignore[attr-defined]
        for _ in range(100):
            if _streams() == before:
                break
            await asyncio.sleep(0.05)
        assert _streams() == before
    finally:
        await ali.close()
        await lobby.close()
        await gateway.stop()
        await table.stop(grace_s=1.0)

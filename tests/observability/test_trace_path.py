"""Issue 20: one person's move is one trace, from the gateway's HTTP call through the table
service and its SQL, the relay's publish on NATS, the bots' handling of the event and the bot's
reply (its own Act on the table), every span parent-linked to the one before it."""

from __future__ import annotations

import asyncio
import uuid

import httpx
from okeycore.commands import Draw
from okeycore.options import TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeyplatform.contract import classic_view_from_pb
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from services.bots.main import BotsService
from services.gateway.main import Gateway
from services.table.main import TableService

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CLIENT_SPAN = "00f067aa0ba902b7"


def _in_trace(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    return [s for s in exporter.get_finished_spans() if f"{s.context.trace_id:032x}" == TRACE]


def _children(spans: list[ReadableSpan], parent: ReadableSpan) -> list[ReadableSpan]:
    return [s for s in spans if s.parent is not None and s.parent.span_id == parent.context.span_id]


async def test_a_move_and_the_bot_s_reply_are_one_trace_across_gateway_table_relay_and_bots(
    spans: InMemorySpanExporter, fresh_database_url: str, nats_url: str
) -> None:
    table = TableService(fresh_database_url, nats_url, "127.0.0.1:0", grace_ms=3000)
    await table.start()
    table_addr = f"127.0.0.1:{table.port}"
    bots = BotsService(
        nats_url, fresh_database_url, table_addr, "127.0.0.1:0", "strong", durable=f"bots-{uuid.uuid4().hex[:8]}"
    )
    await bots.start()
    gateway = Gateway("127.0.0.1:0", "127.0.0.1:0", environ={"OKEY_TABLE_ADDR": table_addr})
    await gateway.start()
    table_id = f"traced-{uuid.uuid4().hex[:8]}"
    ali = TableClient(table_addr, issue_token("ali"))
    lobby = TableClient(table_addr, issue_token("lobby", "service"))
    try:
        await lobby.create_table(TableOptions(turn_seconds=60), ("ali", "", "", ""), table_id=table_id)
        # the bots play until it is ali's turn; ali draws if the turn starts with a draw
        for _ in range(400):
            view = classic_view_from_pb(await ali.view(table_id, 0))
            if view.turn == 0 and ("Discard" in view.allowed or "Draw" in view.allowed):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError(f"never ali's turn: {view}")
        if "Draw" in view.allowed:
            await ali.act(table_id, Draw(seat=0))
            view = classic_view_from_pb(await ali.view(table_id, 0))
        tile = next(t for t in view.rack if t >= 0)
        spans.clear()
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{gateway.http_port}", timeout=10) as http:
            r = await http.post(
                "/api/okey.v1.TableService/Act",
                json={"tableId": table_id, "commandId": "traced-1", "seat": 0, "discard": {"tileId": tile}},
                headers={
                    "authorization": f"Bearer {issue_token('ali')}",
                    "traceparent": f"00-{TRACE}-{CLIENT_SPAN}-01",
                },
            )
        assert r.status_code == 200, r.text

        # wait until the bot's reply (an Act on the table whose caller is the bots' handling) is in
        def reply() -> ReadableSpan | None:
            got = _in_trace(spans)
            handles = [s for s in got if s.kind is SpanKind.CONSUMER]
            acts = [s for h in handles for s in _children(got, h) if s.name == "okey.v1.TableService/Act"]
            return acts[0] if acts else None

        for _ in range(200):
            if reply() is not None:
                break
            await asyncio.sleep(0.05)
        got = _in_trace(spans)
        by_name = sorted({s.name for s in got})
        bot_act = reply()
        assert bot_act is not None, by_name

        # the chain, each a child of the one before
        (edge,) = [s for s in got if s.name == "POST /api/{service}/{method}"]
        assert edge.kind is SpanKind.SERVER and edge.parent is not None
        assert f"{edge.parent.span_id:016x}" == CLIENT_SPAN
        assert edge.attributes["rpc.method"] == "Act" and edge.attributes["http.response.status_code"] == 200
        (act,) = [s for s in _children(got, edge) if s.name == "okey.v1.TableService/Act"]
        assert act.kind is SpanKind.SERVER
        steps = {s.name: s for s in _children(got, act)}
        assert steps["decide"].attributes["okey.command"] == "Discard"
        insert = steps["INSERT okey_events"]
        assert insert.kind is SpanKind.CLIENT and insert.attributes["db.system"] == "postgresql"
        publishes = [s for s in _children(got, act) if s.kind is SpanKind.PRODUCER]
        assert publishes and all(s.name == "okey.table publish" for s in publishes)
        handles = [s for p in publishes for s in _children(got, p) if s.kind is SpanKind.CONSUMER]
        assert handles, by_name
        assert bot_act.parent is not None and bot_act.parent.span_id in {h.context.span_id for h in handles}
        # the bot's own move is traced like the person's: its SQL and its publish hang under it
        assert {"decide", "INSERT okey_events"} <= {s.name for s in _children(got, bot_act)}
        # and nothing in the trace names a tile of anyone's rack
        racks = {str(t) for t in view.rack if t >= 0}
        numbers = {"okey.version", "rpc.grpc.status_code", "http.response.status_code"}
        values = {str(v) for s in got for k, v in (s.attributes or {}).items() if k not in numbers}
        assert not racks & values
    finally:
        for c in (ali, lobby):
            await c.close()
        await gateway.stop()
        await bots.stop(grace_s=1.0)
        await table.stop(grace_s=1.0)

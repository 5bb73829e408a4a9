"""Issue 20: every service of a stack serves Prometheus metrics; after a bot match the table's
counters agree with the event log, the relay and the bots' consumer are caught up."""

from __future__ import annotations

import asyncio
import time
import urllib.request
import uuid
from pathlib import Path

import asyncpg
import grpc
from okeycore.options import TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeyplatform.metrics import METRIC_NAMES, metrics_address
from prometheus_client.parser import text_string_to_metric_families
from stacks import StackFactory


def scrape(address: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = urllib.request.urlopen(f"http://{address}/metrics", timeout=5).read().decode()
    out: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def total(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return sum(v for (n, ls), v in samples.items() if n == name and all((k, v2) in ls for k, v2 in labels.items()))


def test_the_catalogue_names_are_prometheus_names_and_the_address_is_checked() -> None:
    assert "okey_table_events_total" in METRIC_NAMES and "grpc_server_handling_seconds" in METRIC_NAMES
    assert all(n.replace("_", "").isalnum() and n.islower() for n in METRIC_NAMES)
    assert metrics_address({}) is None
    assert metrics_address({"OKEY_METRICS_ADDR": "0.0.0.0:9090"}) == ("0.0.0.0", 9090)
    try:
        metrics_address({"OKEY_METRICS_ADDR": "nine"})
    except ValueError as exc:
        assert "OKEY_METRICS_ADDR" in str(exc)
    else:
        raise AssertionError("a bad OKEY_METRICS_ADDR must be refused")


async def test_a_bot_match_is_counted_as_the_log_holds_it(make_stack: StackFactory) -> None:
    stack = make_stack(("table", "bots"))
    token = issue_token("metrics-test", role="service")
    table_id = f"metrics-{uuid.uuid4().hex[:8]}"
    client = TableClient(stack.address("table"), token)
    try:
        await client.create_table(TableOptions(match_points=1, turn_seconds=20), ("", "", "", ""), table_id=table_id)
        deadline = time.monotonic() + 150
        conn = await asyncpg.connect(stack.database_url)
        try:
            while time.monotonic() < deadline:
                if await conn.fetchval(
                    "SELECT count(*) FROM okey_events WHERE stream_id = $1 AND type = 'MatchEnded'", table_id
                ):
                    break
                await asyncio.sleep(0.5)
            else:
                raise AssertionError("the bot match did not end")
            logged = dict(await conn.fetch("SELECT type, count(*) FROM okey_events GROUP BY type"))
        finally:
            await conn.close()
    finally:
        await client.close()
    # The relay publishes and the bots consume, then both are at 0 behind.
    deadline = time.monotonic() + 30
    while True:
        table = await asyncio.to_thread(scrape, stack.metrics_address("table"))
        bots = await asyncio.to_thread(scrape, stack.metrics_address("bots"))
        caught_up = (
            total(table, "okey_relay_published_total") == sum(logged.values())
            and total(table, "okey_relay_behind_events") == 0
            and total(bots, "okey_consumer_lag_messages") == 0
            # the NATS probe (every 5 s) has seen both services' connections
            and total(table, "okey_dependency_up", dependency="nats") == 1
            and total(bots, "okey_dependency_up", dependency="nats") == 1
        )
        if caught_up or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.5)
    for kind, n in logged.items():
        assert total(table, "okey_table_events_total", kind=kind) == n, kind
    assert total(table, "okey_relay_published_total") == sum(logged.values())
    assert total(table, "okey_relay_behind_events") == 0 and total(table, "okey_relay_behind_seconds") == 0
    assert total(table, "okey_relay_leader") == 1
    assert total(table, "okey_table_matches_total", game="OKEY") == 1
    assert total(table, "okey_table_hands_total", game="OKEY") == logged.get("HandEnded", 0)
    moves = total(table, "okey_table_commands_total", outcome="applied")
    assert moves >= logged["TileDiscarded"]  # every discard came from an applied command
    acts = total(table, "grpc_server_handled_total", grpc_method="Act", grpc_code="OK")
    assert acts >= logged["TileDiscarded"]
    assert total(table, "grpc_server_handling_seconds_count", grpc_method="Act") >= acts
    assert total(table, "okey_db_pool_connections", pool="table", state="max") == 20
    assert total(table, "okey_dependency_up", dependency="postgres") == 1
    assert total(table, "okey_dependency_up", dependency="nats") == 1
    assert total(bots, "okey_dependency_up", dependency="nats") == 1
    assert total(bots, "okey_consumer_lag_messages") == 0
    assert total(bots, "okey_consumer_messages_total") >= sum(logged.values())
    assert total(table, "okey_service_info", service="table") == 1
    # Every discard of this all-bot match was a bot's decision, and each call of the bots timed.
    assert total(bots, "okey_bots_decisions_total", game="OKEY", kind="turn") >= logged["TileDiscarded"]
    assert total(bots, "okey_bots_decision_seconds_count", game="OKEY") >= logged["TileDiscarded"]
    assert total(bots, "okey_bots_reply_seconds_count", game="OKEY") >= 1
    assert total(bots, "okey_bots_turns_late_total") == 0  # no person's turn ran out
    # most turns of an all-bot table are played from the discard's answer (return_next_view)
    assert total(bots, "okey_bots_turns_handed_on_total") >= logged["TileDiscarded"] / 2


async def test_a_refusal_is_counted_by_its_reason_code(make_stack: StackFactory) -> None:
    stack = make_stack(("table",))
    client = TableClient(stack.address("table"), issue_token("someone"))
    try:
        await client.view("no-such-table")
    except grpc.aio.AioRpcError as exc:
        assert exc.code() is grpc.StatusCode.NOT_FOUND
    else:
        raise AssertionError("a view of a table that does not exist must be refused")
    finally:
        await client.close()
    # The server counts a call as its handler returns, which may be just after the client has
    # the status: read until it is there (bounded).
    deadline = time.monotonic() + 10
    while True:
        samples = await asyncio.to_thread(scrape, stack.metrics_address("table"))
        refused = total(samples, "okey_grpc_server_refusals_total", grpc_method="GetView", reason="TABLE_NOT_FOUND")
        if refused or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.1)
    assert refused == 1
    assert total(samples, "grpc_server_handled_total", grpc_method="GetView", grpc_code="NOT_FOUND") == 1


async def test_table_workers_share_one_metrics_port_and_their_counts_add_up(make_stack: StackFactory) -> None:
    """OKEY_TABLE_WORKERS=2: the supervisor serves the sum of both workers, and keeps a killed
    worker's counts when it is started again."""
    stack = make_stack(("table",), env={"OKEY_TABLE_WORKERS": "2"})
    client = TableClient(stack.address("table"), issue_token("metrics-test", role="service"))
    try:
        for i in range(12):  # new channels' calls land on either worker (SO_REUSEPORT)
            one = TableClient(stack.address("table"), issue_token("metrics-test", role="service"))
            try:
                await one.create_table(TableOptions(), ("", "", "", ""), table_id=f"mw-{uuid.uuid4().hex[:6]}-{i}")
            finally:
                await one.close()
    finally:
        await client.close()
    conn = await asyncpg.connect(stack.database_url)
    try:
        logged = await conn.fetchval("SELECT count(*) FROM okey_events WHERE type = 'TableCreated'")
    finally:
        await conn.close()
    samples = await asyncio.to_thread(scrape, stack.metrics_address("table"))
    assert total(samples, "okey_table_events_total", kind="TableCreated") == logged == 12
    assert total(samples, "grpc_server_handled_total", grpc_method="CreateTable", grpc_code="OK") == 12
    # a worker killed and started again: its counts stay in the sum (totals never go back)
    import os
    import signal

    proc = stack.procs["table"].proc
    assert proc is not None
    kids = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _parent(p) == proc.pid]
    assert len(kids) == 2
    os.kill(kids[0], signal.SIGKILL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        now = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _parent(p) == proc.pid]
        if len(now) == 2 and kids[0] not in now:
            break
        await asyncio.sleep(0.2)
    for _ in range(20):  # while the new worker starts and once it answers: never fewer
        samples = await asyncio.to_thread(scrape, stack.metrics_address("table"))
        assert total(samples, "okey_table_events_total", kind="TableCreated") == 12
        await asyncio.sleep(0.25)


def _parent(p: Path) -> int:
    try:
        return int((p / "stat").read_text().rpartition(")")[2].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


async def test_the_gateway_counts_routes_refusals_and_rate_limits(make_stack: StackFactory) -> None:
    import httpx

    stack = make_stack(("table", "lobby", "gateway"), env={"OKEY_RATE_LIMIT": "1", "OKEY_RATE_BURST": "2"})
    base = f"http://{stack.http_address}"
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        assert (await http.get("/healthz")).status_code == 200
        assert (await http.post("/api/okey.v1.Nope/Nothing", json={})).status_code == 404
        codes = [(await http.post("/api/okey.v1.LobbyService/ListTables", json={})).status_code for _ in range(8)]
    assert 429 in codes
    samples = await asyncio.to_thread(scrape, stack.metrics_address("gateway"))
    assert total(samples, "http_requests_total", route="/healthz", status="200") == 1
    assert total(samples, "http_requests_total", route="/api/{service}/{method}") == 9
    assert total(samples, "okey_gateway_refused_total", reason="UNKNOWN_METHOD") == 1
    assert total(samples, "okey_gateway_rate_limited_total") == codes.count(429)
    assert total(samples, "okey_gateway_connections", kind="http") == 0  # none open after


async def test_the_lobby_counts_sign_ins_and_the_chat_it_blocks(make_stack: StackFactory) -> None:
    import httpx

    stack = make_stack(("table", "lobby", "gateway"))
    async with httpx.AsyncClient(base_url=f"http://{stack.http_address}", timeout=10) as http:
        got = await http.post("/api/okey.v1.LobbyService/SignInGuest", json={"displayName": "Metrik"})
        assert got.status_code == 200, got.text
        auth = {"authorization": f"Bearer {got.json()['token']}"}
        bad = await http.post("/api/okey.v1.LobbyService/SignInGuest", json={"displayName": "x"})
        assert bad.status_code == 400
        ok = await http.post("/api/okey.v1.LobbyService/SendMessage", json={"text": "iyi oyunlar"}, headers=auth)
        assert ok.status_code == 200, ok.text
        ad = await http.post("/api/okey.v1.LobbyService/SendMessage", json={"text": "ucuz chip satılır"}, headers=auth)
        assert ad.status_code >= 400
    samples = await asyncio.to_thread(scrape, stack.metrics_address("lobby"))
    assert total(samples, "okey_lobby_sign_ins_total", method="guest", outcome="ok") == 1
    assert total(samples, "okey_lobby_sign_ins_total", method="guest", outcome="refused") == 1
    assert total(samples, "okey_lobby_chat_messages_total", outcome="sent") == 1
    assert total(samples, "okey_lobby_chat_messages_total", outcome="blocked") == 1
    assert total(samples, "okey_lobby_chat_blocked_total", reason=ad.json()["reason"]) == 1
    assert total(samples, "okey_lobby_reports_open") == 0
    # The bank is the only account below zero: minus the chips in circulation (the guest's grant).
    assert total(samples, "okey_lobby_bank_chips") <= 0
    assert total(samples, "okey_db_pool_connections", pool="lobby", state="max") == 10


def test_table_workers_with_their_metrics_port_taken_say_so_in_one_line_and_exit_2() -> None:
    import os
    import socket
    import subprocess
    import sys

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {
            **os.environ,
            "OKEY_TABLE_WORKERS": "2",
            "OKEY_METRICS_ADDR": f"127.0.0.1:{port}",
            "OKEY_LOG_LEVEL": "WARNING",
        }
        done = subprocess.run(
            [sys.executable, "-m", "services.table.main"], env=env, capture_output=True, text=True, timeout=60
        )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"127.0.0.1:{port}" in done.stderr and "OKEY_METRICS_ADDR" in done.stderr


def test_okey_metrics_off_records_and_serves_nothing() -> None:
    import os
    import subprocess
    import sys

    code = (
        "from okeyplatform import metrics as M\n"
        "from prometheus_client import REGISTRY\n"
        "M.TABLE_COMMANDS.labels('OKEY', 'Discard', 'applied').inc()\n"
        "M.TABLE_APPEND.observe(0.1)\n"
        "served = M.serve_metrics({'OKEY_METRICS_ADDR': '127.0.0.1:0'})\n"
        "labels = {'game': 'OKEY', 'command': 'Discard', 'outcome': 'applied'}\n"
        "print(M.RECORDING, REGISTRY.get_sample_value('okey_table_commands_total', labels), served is not None)\n"
    )

    def run(value: str) -> str:
        env = {**os.environ, "OKEY_METRICS": value}
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert run("on") == "True 1.0 True"
    assert run("off") == "False None False"

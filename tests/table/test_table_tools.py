"""Tools people use against the table service: grpcurl (reflection, health) and verify-deal."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from collections.abc import Callable

from breaks import ready_all
from okeycore.classic.bots import GreedyBot
from okeycore.options import TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeyplatform.contract import classic_view_from_pb

from services.table.main import TableService

PLAYERS = ("ali", "ayse", "mehmet", "zeynep")


def _tool(name: str) -> str:
    here = os.path.join(os.path.dirname(sys.executable), name)
    found = here if os.path.exists(here) else shutil.which(name)
    assert found, f"{name} is installed by `pip install -e '.[dev]'`"
    return found


async def _run(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_grpcurl_lists_services_by_reflection_and_calls_an_rpc(
    table_service: TableService, client_for: Callable[[str], TableClient]
) -> None:
    target = f"127.0.0.1:{table_service.port}"
    grpcurl = _tool("grpcurl")
    code, out, err = await _run(grpcurl, "-plaintext", target, "list")
    assert code == 0, err
    assert {"okey.v1.TableService", "grpc.health.v1.Health"} <= set(out.split())
    code, out, err = await _run(grpcurl, "-plaintext", target, "grpc.health.v1.Health/Check")
    assert code == 0 and '"SERVING"' in out, err
    await client_for("lobby", "service").create_table(TableOptions(), PLAYERS, table_id="t-grpcurl")
    token = issue_token("ali")
    code, out, err = await _run(
        grpcurl,
        "-plaintext",
        "-H",
        f"authorization: Bearer {token}",
        "-d",
        json.dumps({"table_id": "t-grpcurl", "seat": 0}),
        target,
        "okey.v1.TableService/GetView",
    )
    assert code == 0, err
    view = json.loads(out)["view"]
    assert view.get("tableId", view.get("table_id")) == "t-grpcurl" and view["seat"] == 0
    assert len(view["rack"]) in (14, 15)
    # without a token: a clean UNAUTHENTICATED
    code, out, err = await _run(
        grpcurl, "-plaintext", "-d", '{"table_id": "t-grpcurl"}', target, "okey.v1.TableService/GetView"
    )
    assert code != 0 and "Unauthenticated" in err


async def test_verify_deal_checks_a_finished_hand(
    table_service: TableService, client_for: Callable[[str], TableClient], fresh_database_url: str
) -> None:
    clients = [client_for(p) for p in PLAYERS]
    await client_for("lobby", "service").create_table(TableOptions(match_points=20), PLAYERS, table_id="t-fair")
    bots = [GreedyBot(i) for i in range(4)]
    for _ in range(2000):
        v = classic_view_from_pb(await clients[0].view("t-fair", 0))
        if v.hand >= 2:
            break
        if await ready_all(clients, "t-fair", v):  # the break between hands [P-BREAK-3]
            continue
        seat = v.turn
        await clients[seat].act(
            "t-fair", bots[seat].act(classic_view_from_pb(await clients[seat].view("t-fair", seat)))
        )
    okey = _tool("okey")
    code, out, err = await _run(okey, "verify-deal", "t-fair", "1", "--database-url", fresh_database_url)
    assert code == 0, out + err
    assert "VERIFIED" in out and "matches sha256" in out
    # hand 2 is still being played: its deal is not revealed yet
    code, out, err = await _run(okey, "verify-deal", "t-fair", "2", "--database-url", fresh_database_url)
    assert code == 1 and "still being played" in out

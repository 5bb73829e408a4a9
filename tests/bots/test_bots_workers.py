"""Issue 21: OKEY_BOTS_WORKERS=2 runs two bots worker processes under one supervisor, sharing the
durable consumer and one metrics port; all-bot matches play to their end."""

from __future__ import annotations

import asyncio
import time
import urllib.request
import uuid
from pathlib import Path

import asyncpg
from okeycore.options import TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from prometheus_client.parser import text_string_to_metric_families
from stacks import StackFactory


def _children(pid: int) -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                stat = (p / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                out.append(int(p.name))
    return out


async def test_two_bots_workers_play_matches_to_the_end_and_share_one_metrics_port(make_stack: StackFactory) -> None:
    stack = make_stack(("table", "bots"), env={"OKEY_BOTS_WORKERS": "2"})
    proc = stack.procs["bots"].proc
    assert proc is not None
    assert len(_children(proc.pid)) == 2  # the supervisor and its two workers
    client = TableClient(stack.address("table"), issue_token("workers-test", role="service"))
    ids = [f"bw-{uuid.uuid4().hex[:8]}" for _ in range(6)]
    try:
        for tid in ids:
            await client.create_table(TableOptions(match_points=1, turn_seconds=30), ("", "", "", ""), table_id=tid)
    finally:
        await client.close()
    conn = await asyncpg.connect(stack.database_url)
    try:
        deadline = time.monotonic() + 180
        ended = 0
        while time.monotonic() < deadline:
            ended = await conn.fetchval(
                "SELECT count(*) FROM okey_events WHERE stream_id = ANY($1::text[]) AND type = 'MatchEnded'", ids
            )
            if ended == len(ids):
                break
            await asyncio.sleep(0.5)
        assert ended == len(ids), f"{ended} of {len(ids)} matches ended"
        discards = await conn.fetchval(
            "SELECT count(*) FROM okey_events WHERE stream_id = ANY($1::text[]) AND type = 'TileDiscarded'", ids
        )
    finally:
        await conn.close()
    text = await asyncio.to_thread(
        lambda: urllib.request.urlopen(f"http://{stack.metrics_address('bots')}/metrics", timeout=5).read().decode()
    )
    decisions = sum(
        s.value
        for f in text_string_to_metric_families(text)
        for s in f.samples
        if s.name == "okey_bots_decisions_total" and s.labels.get("kind") == "turn"
    )
    assert decisions >= discards  # the two workers' counts, summed by the supervisor

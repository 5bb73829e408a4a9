"""The command-line tools over the event log: ``okey replay`` (and ``--verify``) and ``okey export``."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

import asyncpg
from google.protobuf import json_format
from okey.v1 import events_pb2
from okeycore.events import DrawSource, HandEnded, HandStarted, TileDrawn
from okeyplatform.contract import envelope_from_pb
from okeyplatform.eventstore import PostgresEventStore
from scoring_helpers import append, match_a, simulated

from services.scoring.store import ScoringStore


async def okey(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "okeytools.cli",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(os.environ, OKEY_LOG_FORMAT="json"),
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_replay_verify_fails_loudly_when_a_recorded_result_differs(fresh_database_url: str) -> None:
    events = await PostgresEventStore.connect(fresh_database_url)
    try:
        sc = match_a()
        await append(events, sc.table_id, sc.events)
        await append(events, "sim", simulated("sim", 3, ("ali", "", "", "")))
    finally:
        await events.close()
    code, out, err = await okey("replay", "--verify", "--database-url", fresh_database_url)
    assert code == 0, out + err
    assert "every recorded result matches" in out and "swapped in" in out
    async with ScoringStore_(fresh_database_url) as store:
        before = await store.snapshot()
    # someone edits a recorded score in the log: seat 3 loses 5 instead of 4 in hand 3
    conn = await asyncpg.connect(fresh_database_url)
    try:
        version = await conn.fetchval(
            "UPDATE okey_events SET data = jsonb_set(data, '{deltas,3}', '-5') "
            "WHERE stream_id = 'match-a' AND type = 'HandEnded' AND hand = 3 RETURNING version"
        )
    finally:
        await conn.close()
    code, out, err = await okey("replay", "--verify", "--database-url", fresh_database_url)
    assert code == 1, out + err
    assert f"table match-a version {version}" in out and "HandEnded.deltas" in out
    assert "(0, -4, 0, -5)" not in out and "(-4, -4, 0, -5)" in out and "(-4, -4, 0, -4)" in out
    assert "FAILED" in out and "nothing was swapped" in out and "verification FAILED" in err
    async with ScoringStore_(fresh_database_url) as store:
        assert await store.snapshot() == before  # the live projection is untouched
    # without --verify the rebuild goes through and shows the changed number
    code, out, err = await okey("replay", "--no-swap", "--database-url", fresh_database_url)
    assert code == 0 and "rows differ from the live projection" in out and "not swapped" in out, out + err


async def test_export_is_the_spectator_view_unless_private_information_is_asked_for(
    fresh_database_url: str, tmp_path: Any
) -> None:
    events = await PostgresEventStore.connect(fresh_database_url)
    try:
        evs = simulated("exp", 5, ("ali", "ayse", "mehmet", "zeynep"))
        await append(events, "exp", evs)
    finally:
        await events.close()
    code, out, err = await okey("export", "exp", "--database-url", fresh_database_url)
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [int(m["version"]) for m in lines] == list(range(1, len(evs) + 1))
    # protobuf's JSON mapping of okey.v1.TableEvent, every field of the event written out
    assert {"tableId", "version", "hand", "time", "kind", "toMove", "tableCreated"} <= set(lines[0])
    assert lines[1]["kind"] == "HandStarted" and lines[1]["handStarted"]["starter"] == 0
    # ... read back with the published protos into the okeycore events
    envs = [envelope_from_pb(json_format.Parse(line, events_pb2.TableEvent())) for line in out.splitlines()]
    assert [e.event.type for e in envs] == [e.type for e in evs]
    in_hand = False
    for env in envs:
        ev: Any = env.event
        if isinstance(ev, HandStarted):
            in_hand = True
            assert all(t == -1 for rack in ev.racks for t in rack), "a dealt rack leaked"
            assert all(t == -1 for t in ev.deck) and ev.order == () and ev.salt == ""
        elif isinstance(ev, TileDrawn) and ev.source is DrawSource.DECK:
            assert ev.tile == -1, "a deck draw leaked"
        elif isinstance(ev, HandEnded):
            in_hand = False  # the hand's end reveals its racks to everyone [C-DEAL-3]
            assert ev == evs[env.version - 1]
        assert in_hand or not isinstance(ev, TileDrawn)
    assert "exported" not in out and "as a spectator sees them" in err
    target = tmp_path / "private.jsonl"
    code, out, err = await okey(
        "export", "exp", "--with-private", "-o", str(target), "--database-url", fresh_database_url
    )
    assert code == 0, err
    private = [envelope_from_pb(json_format.Parse(x, events_pb2.TableEvent())) for x in target.read_text().splitlines()]
    assert [e.event for e in private] == evs  # everything, nothing lost
    code, out, err = await okey("export", "no-such-table", "--database-url", fresh_database_url)
    assert code == 1 and "no table 'no-such-table'" in err


class ScoringStore_:
    """``async with``: a scoring store for one look."""

    def __init__(self, url: str) -> None:
        self.url = url

    async def __aenter__(self) -> ScoringStore:
        self.store = await ScoringStore.connect(self.url)
        return self.store

    async def __aexit__(self, *exc: object) -> None:
        await self.store.close()

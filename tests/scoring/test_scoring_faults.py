"""The scoring service under faults: killed mid-stream (kill -9) and restarted."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import asyncpg
from okeyplatform.eventstore import PostgresEventStore
from okeytools.embedded import EmbeddedNats
from okeytools.replay import replay
from okeytools.stack import Stack
from scoring_helpers import append, simulated, wait_version

from services.scoring.store import ScoringStore

StackFactory = Callable[..., Stack]

PLAYERS = ("ali", "ayse", "", "zeynep")


async def applied(conn: asyncpg.Connection) -> int:
    return int(await conn.fetchval("SELECT coalesce(sum(version), 0) FROM scoring_tables"))


async def test_scoring_killed_mid_stream_and_restarted_counts_every_event_once(
    make_stack: StackFactory, embedded_nats: EmbeddedNats
) -> None:
    stack = make_stack(("table", "scoring"), nats_url=embedded_nats.url, label="faults")
    matches = {f"m{i}": simulated(f"m{i}", 100 + i, PLAYERS, stake=2) for i in range(6)}
    total = sum(len(e) for e in matches.values())
    events = await PostgresEventStore.connect(stack.database_url, min_size=1, max_size=8)
    conn = await asyncpg.connect(stack.database_url)
    try:

        async def write() -> None:
            await asyncio.gather(*(append(events, t, ev, chunk=10) for t, ev in matches.items()))

        writer = asyncio.create_task(write())
        for _ in range(400):  # kill it once it is well into the stream
            if await applied(conn) > total // 3:
                break
            await asyncio.sleep(0.02)
        done = await applied(conn)
        assert 0 < done < total, "the kill should land mid-stream"
        await asyncio.to_thread(stack.kill, "scoring")
        await writer
        await asyncio.to_thread(stack.start_one, "scoring")
        store = await ScoringStore.connect(stack.database_url)
        try:
            for t, ev in matches.items():
                await wait_version(store, t, len(ev), timeout=60)
            # every hand and match once: the live projection equals a rebuild from the log
            report = await replay(events, store, swap=False)
            assert sum(report.diff.values()) == 0, report.diff
            ends = sum(1 for ev in matches.values() for e in ev if e.type == "HandEnded")
            assert await conn.fetchval("SELECT count(*) FROM scoring_hands") == ends
            assert await conn.fetchval("SELECT count(*) FROM scoring_matches") == len(matches)
            played = await conn.fetchval("SELECT hands_played FROM scoring_players WHERE player_id = 'ali'")
            assert played == ends
            assert await conn.fetchval("SELECT sum(matches) FROM scoring_players") == 3 * len(matches)
        finally:
            await store.close()
    finally:
        await conn.close()
        await events.close()


async def test_replay_through_the_event_store_api_reads_every_event_once(fresh_database_url: str) -> None:
    """The log reader pages in the global order (tx, position) whatever the ids' digits."""
    events = await PostgresEventStore.connect(fresh_database_url)
    store = await ScoringStore.connect(fresh_database_url)
    try:
        streams = {f"r{i}": simulated(f"r{i}", 200 + i, PLAYERS) for i in range(3)}
        for t, ev in streams.items():
            await append(events, t, ev, chunk=7)
        report = await replay(events, store, verify=True, page=97)
        assert report.events == sum(len(ev) for ev in streams.values())
        assert report.verify_problems == [] and report.swapped
        assert report.rows["scoring_matches"] == 3
    finally:
        await store.close()
        await events.close()

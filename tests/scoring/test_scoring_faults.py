"""The scoring service under faults: killed mid-stream (kill -9) and restarted."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys

import asyncpg
from okeyplatform.auth import token_secret
from okeyplatform.eventstore import PostgresEventStore
from okeytools.embedded import EmbeddedNats, free_port
from okeytools.replay import replay
from okeytools.stack import wait_healthy
from scoring_helpers import append, simulated, wait_version

from services.scoring.store import ScoringStore
from services.table.main import TableService

PLAYERS = ("ali", "ayse", "", "zeynep")


def start_scoring(env: dict[str, str]) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "okeytools.cli", "serve", "scoring"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_healthy(env["OKEY_SCORING_ADDR"], proc=proc)
    return proc


async def applied(conn: asyncpg.Connection) -> int:
    return int(await conn.fetchval("SELECT coalesce(sum(version), 0) FROM scoring_tables"))


async def test_scoring_killed_mid_stream_and_restarted_counts_every_event_once(
    fresh_database_url: str, embedded_nats: EmbeddedNats
) -> None:
    token_secret()
    env = dict(
        os.environ,
        OKEY_DATABASE_URL=fresh_database_url,
        OKEY_NATS_URL=embedded_nats.url,
        OKEY_SCORING_ADDR=f"127.0.0.1:{free_port()}",
        OKEY_LOG_FORMAT="json",
    )
    table = TableService(fresh_database_url, embedded_nats.url, "127.0.0.1:0")
    await table.start()
    assert table.store is not None
    matches = {f"m{i}": simulated(f"m{i}", 100 + i, PLAYERS, stake=2) for i in range(6)}
    total = sum(len(e) for e in matches.values())
    proc = await asyncio.to_thread(start_scoring, env)
    conn = await asyncpg.connect(fresh_database_url)
    try:

        async def write() -> None:
            await asyncio.gather(*(append(table.store, t, ev, chunk=10) for t, ev in matches.items()))

        writer = asyncio.create_task(write())
        for _ in range(400):  # kill it once it is well into the stream
            if await applied(conn) > total // 3:
                break
            await asyncio.sleep(0.02)
        done = await applied(conn)
        assert 0 < done < total, "the kill should land mid-stream"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        await writer
        proc = await asyncio.to_thread(start_scoring, env)
        store = await ScoringStore.connect(fresh_database_url)
        try:
            for t, ev in matches.items():
                await wait_version(store, t, len(ev), timeout=60)
            # every hand and match once: the live projection equals a rebuild from the log
            report = await replay(table.store, store, swap=False)
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
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=15)
        await table.stop(grace_s=1.0)


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

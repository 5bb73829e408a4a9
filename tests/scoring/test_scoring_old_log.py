"""Scoring and ``okey replay --verify`` on a log recorded by the JSON publisher of bc48906
(tests/fixtures/old_log): a JetStream stream that holds the old JSON messages, byte for byte and
with no content type, and then, after the upgrade in the middle of both matches, the protobuf
envelopes the new relay publishes for the same tables. The live projection of that stream must
be the one ``okey replay`` rebuilds from the PostgreSQL log (which the change leaves as it was),
and okeycore must agree with every recorded result."""

from __future__ import annotations

import asyncio

import asyncpg
import nats
from okeyplatform.contract import encode_envelope, nats_headers
from okeyplatform.eventstore import PostgresEventStore
from okeyplatform.relay import table_subject
from old_log import COLUMNS, messages, rows, stored
from scoring_helpers import run_okey_replay, wait_version

from services.scoring.main import ScoringService


async def test_an_old_json_stream_upgraded_mid_match_projects_what_okey_replay_verifies_and_rebuilds(
    scoring_only: ScoringService,
) -> None:
    store, projector = scoring_only.store, scoring_only.projector
    assert store is not None and projector is not None
    log, old = stored(), messages()
    last = {e.stream_id: e.version for e in log}
    assert set(last) == {"old-classic", "old-101"}
    # the log as the table service wrote it (the store's JSON has not changed)
    events = await PostgresEventStore.connect(scoring_only.database_url)  # migrates the schema
    await events.close()
    conn = await asyncpg.connect(scoring_only.database_url)
    try:
        await conn.copy_records_to_table("okey_events", records=rows(), columns=COLUMNS)
    finally:
        await conn.close()
    # the stream: the old relay's messages up to half of each match, the new relay's after
    nc = await nats.connect(scoring_only.nats_url)
    try:
        js = nc.jetstream()
        await asyncio.wait_for(projector.ready.wait(), 10)
        for msg, e in zip(old, log, strict=True):
            if e.version <= last[e.stream_id] // 2:
                assert msg.subject == table_subject(e.stream_id) and set(msg.headers) == {"Nats-Msg-Id"}
                await js.publish(msg.subject, msg.data, headers=msg.headers)
            else:
                await js.publish(table_subject(e.stream_id), encode_envelope(e), headers=nats_headers(e))
        for table_id, version in last.items():
            await wait_version(store, table_id, version)
    finally:
        await nc.close()
    assert not scoring_only.failed.is_set() and await store.parked() == []
    classic = await store.match("old-classic")
    assert classic is not None
    row, seats = classic
    assert (row.winners, row.pot, row.payout) == ([1, 2], 400, 200)
    assert [s.player_id for s in seats] == ["p-ana", "p-ben", "", "p-cem"]
    assert len(await store.hands("old-101")) == 3
    # okey replay --verify on the same database: okeycore agrees with the log, and the rebuild
    # equals what the live projector made of the mixed stream
    text = await run_okey_replay(scoring_only.database_url, "--no-swap")
    assert f"events     {len(log):,} in 2 tables" in text

"""The stack factory leaves the session's NATS as it found it (issue 24): each stack's consumers
get durables of their own, and at the end those durables are gone and its tables' subjects are
purged from OKEY_TABLES, so a later stack's deliver-all consumer replays nothing of this one.
On the session's NATS: the embedded one, or the machine's with ``OKEY_NATS_URL``."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import nats
import pytest
from okeycore.options import TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeyplatform.relay import TABLE_STREAM, table_subject
from stacks import DURABLE_ENV, stack_factory


async def _subject_messages(js: nats.js.JetStreamContext, subject: str) -> int:
    info = await js.stream_info(TABLE_STREAM, subjects_filter=subject)
    return (info.state.subjects or {}).get(subject, 0)


async def test_a_stack_on_the_session_nats_leaves_no_durable_and_no_table_events(
    database_url: str, nats_url: str, tmp_path: Path
) -> None:
    table_id = f"cleanup-{uuid.uuid4().hex[:10]}"
    with stack_factory(database_url, nats_url, tmp_path) as make:
        stack = make(("table", "lobby"), label="cleanup")
        variable, production = DURABLE_ENV["lobby"]
        durable = stack.extra_env[variable]
        assert durable.startswith(f"{production}-") and durable != production
        client = TableClient(stack.address("table"), issue_token("lobby", "service"))
        try:
            await client.create_table(TableOptions(), ("ali", "", "", ""), table_id=table_id)
        finally:
            await client.close()
        nc = await nats.connect(nats_url)
        try:
            js = nc.jetstream()
            for _ in range(100):  # the relay publishes the table's first events
                if await _subject_messages(js, table_subject(table_id)) >= 2:
                    break
                await asyncio.sleep(0.1)
            assert await _subject_messages(js, table_subject(table_id)) >= 2
            assert (await js.consumer_info(TABLE_STREAM, durable)).name == durable
        finally:
            await nc.close()
    nc = await nats.connect(nats_url)
    try:
        js = nc.jetstream()
        with pytest.raises(nats.js.errors.NotFoundError):
            await js.consumer_info(TABLE_STREAM, durable)
        assert await _subject_messages(js, table_subject(table_id)) == 0
    finally:
        await nc.close()

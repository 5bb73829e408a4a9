"""Fixtures for the scoring service: real PostgreSQL (a fresh database per test) and a private
NATS JetStream per test, so the durable consumer sees only this test's tables; the table
service runs in-process as in tests/table (its relay publishes what the test writes)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest
from okey.v1 import scoring_service_pb2_grpc as pb_grpc
from okeyplatform.auth import issue_token
from okeytools.embedded import EmbeddedNats
from scoring_helpers import Stack

from services.scoring.main import ScoringService
from services.table.main import TableService


@pytest.fixture
async def stack(fresh_database_url: str, embedded_nats: EmbeddedNats) -> AsyncIterator[Stack]:
    table = TableService(fresh_database_url, embedded_nats.url, "127.0.0.1:0", grace_ms=300)
    await table.start()
    scoring = ScoringService(fresh_database_url, embedded_nats.url, "127.0.0.1:0")
    await scoring.start()
    try:
        yield Stack(fresh_database_url, embedded_nats.url, table, scoring)
    finally:
        await scoring.stop(grace_s=1.0)
        await table.stop(grace_s=1.0)


@pytest.fixture
async def scoring_only(fresh_database_url: str, embedded_nats: EmbeddedNats) -> AsyncIterator[ScoringService]:
    """The scoring service alone: the test publishes to JetStream itself (the stream made first,
    as the relay makes it: consumers only bind to it)."""
    import nats
    from okeyplatform.relay import ensure_table_stream

    nc = await nats.connect(embedded_nats.url)
    await ensure_table_stream(nc.jetstream())
    await nc.close()
    scoring = ScoringService(fresh_database_url, embedded_nats.url, "127.0.0.1:0")
    await scoring.start()
    try:
        yield scoring
    finally:
        await scoring.stop(grace_s=1.0)


@pytest.fixture
async def scoring_client(stack: Stack) -> AsyncIterator[tuple[pb_grpc.ScoringServiceStub, tuple[tuple[str, str]]]]:
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{stack.scoring.port}")
    try:
        yield pb_grpc.ScoringServiceStub(channel), (("authorization", f"Bearer {issue_token('tester')}"),)
    finally:
        await channel.close()

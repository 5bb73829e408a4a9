"""Fixtures for the scoring service: real PostgreSQL (a fresh database per test) and a private
NATS JetStream per test, so the durable consumer sees only this test's tables. ``stack``: the
table service and scoring as processes (``make_stack`` of tests/conftest.py; the table's relay
publishes what the test writes into the log); ``scoring_only``: the scoring service alone,
in-process, for tests of its consumer's inner workings."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import grpc
import pytest
from okey.v1 import scoring_service_pb2_grpc as pb_grpc
from okeyplatform.auth import issue_token
from okeyplatform.eventstore import PostgresEventStore
from okeytools import stack as okeystack
from okeytools.embedded import EmbeddedNats
from scoring_helpers import Stack

from services.scoring.main import ScoringService
from services.scoring.store import ScoringStore


@pytest.fixture
def scoring_processes(make_stack: Callable[..., okeystack.Stack], embedded_nats: EmbeddedNats) -> okeystack.Stack:
    return make_stack(
        ("table", "scoring"), env={"OKEY_TIMEOUT_GRACE_MS": "300"}, nats_url=embedded_nats.url, label="scoring"
    )


@pytest.fixture
async def stack(scoring_processes: okeystack.Stack) -> AsyncIterator[Stack]:
    """The processes, with the event log and the projection opened on their database (as an
    operator's tool would)."""
    events = await PostgresEventStore.connect(scoring_processes.database_url, min_size=1, max_size=4)
    store = await ScoringStore.connect(scoring_processes.database_url, min_size=1, max_size=4)
    try:
        yield Stack(scoring_processes, events, store)
    finally:
        await store.close()
        await events.close()


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
    channel = grpc.aio.insecure_channel(stack.address("scoring"))
    try:
        yield pb_grpc.ScoringServiceStub(channel), (("authorization", f"Bearer {issue_token('tester')}"),)
    finally:
        await channel.close()

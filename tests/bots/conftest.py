"""Fixtures for the bots service: a real table service and bots replicas on free ports, real
PostgreSQL and NATS JetStream."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from stacks import leave_nats_clean

from services.bots.main import BotsService
from services.table.main import TableService

GRACE_MS = 3000


@pytest.fixture
async def table_service(fresh_database_url: str, nats_url: str) -> AsyncIterator[TableService]:
    svc = TableService(fresh_database_url, nats_url, "127.0.0.1:0", grace_ms=GRACE_MS)
    await svc.start()
    try:
        yield svc
    finally:
        await svc.stop(grace_s=1.0)


@pytest.fixture
async def start_bots(
    table_service: TableService, nats_url: str, fresh_database_url: str
) -> AsyncIterator[Callable[..., Awaitable[BotsService]]]:
    """Start a bots replica; replicas given the same ``group`` share one durable consumer (and the
    applied-version record, in the table service's database)."""
    started: list[BotsService] = []
    suffix = uuid.uuid4().hex[:8]

    async def start(group: str = "bots", strategy: str = "strong") -> BotsService:
        name = f"{group}-{suffix}"
        svc = BotsService(
            nats_url, fresh_database_url, f"127.0.0.1:{table_service.port}", "127.0.0.1:0", strategy, durable=name
        )
        await svc.start()
        started.append(svc)
        return svc

    yield start
    for svc in started:
        await svc.stop(grace_s=1.0)
    # the durables are this test's own: none is left on the session's NATS (the table service's
    # events go with its fresh database)
    await leave_nats_clean(nats_url, sorted({svc.durable for svc in started}), ())


@pytest.fixture
async def admin(table_service: TableService) -> AsyncIterator[TableClient]:
    # The lobby's kind of credential: a service names its tables' ids (a player or an admin
    # may not) and watches as a spectator.
    client = TableClient(f"127.0.0.1:{table_service.port}", issue_token("test-lobby", "service"))
    yield client
    await client.close()

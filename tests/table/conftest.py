"""Fixtures for the table service: a real service on a free port, real PostgreSQL and NATS."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient

from services.table.main import TableService


@pytest.fixture
async def table_service(fresh_database_url: str, nats_url: str) -> AsyncIterator[TableService]:
    svc = TableService(fresh_database_url, nats_url, "127.0.0.1:0", grace_ms=300)
    await svc.start()
    try:
        yield svc
    finally:
        await svc.stop(grace_s=1.0)


@pytest.fixture
async def client_for(table_service: TableService) -> AsyncIterator[Callable[[str, str], TableClient]]:
    made: list[TableClient] = []

    def make(subject: str, role: str = "player") -> TableClient:
        c = TableClient(f"127.0.0.1:{table_service.port}", issue_token(subject, role))
        made.append(c)
        return c

    yield make
    for c in made:
        await c.close()

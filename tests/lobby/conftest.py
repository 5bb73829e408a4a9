"""Fixtures for the lobby: its use cases on a fresh PostgreSQL database with a fake table
service (fast), and the real services (lobby + table service + NATS) for end-to-end tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest
from lobby_helpers import Clock, FakeTables, Guest, Stack
from okey.v1 import lobby_service_pb2_grpc as pb_grpc
from okeyplatform.auth import Identity, verify_token

from services.lobby.app import LobbyApp
from services.lobby.main import LobbyService
from services.lobby.store import LobbyStore
from services.table.main import TableService


@pytest.fixture
async def lobby_store(fresh_database_url: str) -> AsyncIterator[LobbyStore]:
    store = await LobbyStore.connect(fresh_database_url, min_size=2, max_size=8)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def fake_tables() -> FakeTables:
    return FakeTables()


@pytest.fixture
def app(lobby_store: LobbyStore, fake_tables: FakeTables, clock: Clock) -> LobbyApp:
    return LobbyApp(lobby_store, fake_tables, clock=clock)


@pytest.fixture
def guest(app: LobbyApp) -> Guest:
    """Sign a guest in and return the identity its token carries."""
    made = {"n": 0}

    async def make(name: str | None = None, device: str = "") -> Identity:
        made["n"] += 1
        player, token, _, _ = await app.sign_in_guest(name or f"Oyuncu{made['n']}", device or f"dev-{made['n']}")
        identity = verify_token(token)
        assert identity.subject == player.player_id
        return identity

    return make


@pytest.fixture
async def stack(fresh_database_url: str, nats_url: str, unique_id: str) -> AsyncIterator[Stack]:
    table = TableService(fresh_database_url, nats_url, "127.0.0.1:0", grace_ms=300)
    await table.start()
    lobby = LobbyService(
        fresh_database_url,
        nats_url,
        "127.0.0.1:0",
        f"127.0.0.1:{table.port}",
        durable=f"lobby-{unique_id}",
        retry_every_s=0.5,
    )
    await lobby.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{lobby.port}")
    try:
        yield Stack(table, lobby, pb_grpc.LobbyServiceStub(channel), channel)
    finally:
        await channel.close()
        await lobby.stop(grace_s=1.0)
        await table.stop(grace_s=1.0)

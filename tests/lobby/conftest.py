"""Fixtures for the lobby: its use cases on a fresh PostgreSQL database with a fake table
service (fast), and the real services (lobby + table service as processes, NATS between them:
the ``make_module_stack`` of tests/conftest.py, one per module) for end-to-end tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import grpc
import pytest
from lobby_helpers import Clock, FakeTables, Guest, Stack
from okey.v1 import lobby_service_pb2_grpc as pb_grpc
from okeyplatform.auth import Identity, verify_token
from okeytools import stack as okeystack

from services.lobby.app import LobbyApp
from services.lobby.store import LobbyStore


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


@pytest.fixture(scope="module")
def lobby_processes(make_module_stack: Callable[..., okeystack.Stack]) -> okeystack.Stack:
    """The table service and the lobby, shared by the module's tests (each opens its own tables)."""
    env = {"OKEY_TIMEOUT_GRACE_MS": "300"}
    return make_module_stack(("table", "lobby"), env=env, label="lobby", private_nats=True)


@pytest.fixture
async def stack(lobby_processes: okeystack.Stack) -> AsyncIterator[Stack]:
    channel = grpc.aio.insecure_channel(lobby_processes.address("lobby"))
    try:
        yield Stack(lobby_processes, pb_grpc.LobbyServiceStub(channel), channel)
    finally:
        await channel.close()

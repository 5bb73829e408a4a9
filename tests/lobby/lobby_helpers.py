"""Helpers of the lobby tests: a fake table service, a settable clock, guests, balances."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import grpc
from okey.v1 import lobby_service_pb2_grpc as pb_grpc
from okeycore.options import TableOptions
from okeyplatform.auth import Identity

from services.lobby.app import LobbyApp
from services.lobby.errors import StartFailed
from services.lobby.main import LobbyService
from services.table.main import TableService


@dataclass
class FakeTables:
    """Stands in for the table service: records each match start (or fails as told) and each seat left."""

    created: list[tuple[str, TableOptions, tuple[str, ...]]] = field(default_factory=list)
    fail: StartFailed | None = None
    left: list[tuple[str, int, str]] = field(default_factory=list)  # each LeaveSeat sent

    async def create_table(self, table_id: str, options: TableOptions, players: tuple[str, ...]) -> None:
        if self.fail is not None:
            raise self.fail
        self.created.append((table_id, options, players))

    async def leave_seat(self, table_id: str, seat: int, player_id: str) -> None:
        self.left.append((table_id, seat, player_id))


@dataclass
class Clock:
    now: datetime = field(default_factory=lambda: datetime(2025, 3, 10, 12, 0, tzinfo=UTC))

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


Guest = Callable[..., Awaitable[Identity]]


async def chips_of(app: LobbyApp, who: Identity) -> int:
    balance, _ = await app.chips(who, 1)
    return balance


@dataclass
class Stack:
    """The table service and the lobby in-process on one fresh database, with NATS between them."""

    table: TableService
    lobby: LobbyService
    stub: pb_grpc.LobbyServiceStub
    channel: grpc.aio.Channel

    @property
    def table_addr(self) -> str:
        return f"127.0.0.1:{self.table.port}"

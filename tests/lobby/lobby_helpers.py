"""Helpers of the lobby tests: a fake table service, a settable clock, guests, balances and the
ledger's invariants."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import grpc
from okey.v1 import lobby_service_pb2_grpc as pb_grpc
from okeycore.options import TableOptions
from okeyplatform.auth import Identity, verify_token
from okeytools import stack as okeystack

from services.lobby.app import LobbyApp
from services.lobby.errors import StartFailed
from services.lobby.players import SignedIn
from services.lobby.store import LobbyStore


@dataclass
class FakeTables:
    """Stands in for the table service: records each match start (or fails as told) and each seat left."""

    created: list[tuple[str, TableOptions, tuple[str, ...]]] = field(default_factory=list)
    fail: StartFailed | None = None
    left: list[tuple[str, int, str]] = field(default_factory=list)  # each LeaveSeat sent

    async def create_table(
        self, table_id: str, options: TableOptions, players: tuple[str, ...], public: bool = False
    ) -> None:
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


async def proven(app: LobbyApp, signed_in: SignedIn) -> Identity:
    """The caller of ``signed_in`` with a proof of now (Reauthenticate with its device
    credential): what a sensitive change (an e-mail, a link code, a device, the account) needs."""
    return verify_token(await app.reauthenticate(verify_token(signed_in.token), signed_in.device_secret, ""))


async def chips_of(app: LobbyApp, who: Identity) -> int:
    balance, _ = await app.chips(who, 1)
    return balance


async def assert_ledger_invariants(store: LobbyStore) -> None:
    async with store.pool.acquire() as conn:
        # No chip made or lost: every account (the bank is minus the chips granted) sums to zero.
        assert await conn.fetchval("SELECT COALESCE(sum(balance), 0) FROM lobby_accounts") == 0
        # A balance never goes negative (only the bank, which issues chips).
        assert await conn.fetchval("SELECT count(*) FROM lobby_accounts WHERE balance < 0 AND account <> 'bank'") == 0
        # Double entry: every transaction balances, every balance is the sum of its entries.
        assert not await conn.fetch("SELECT txn_key FROM lobby_entries GROUP BY txn_key HAVING sum(amount) <> 0")
        assert not await conn.fetch(
            "SELECT a.account FROM lobby_accounts a LEFT JOIN lobby_entries e ON e.account = a.account "
            "GROUP BY a.account, a.balance HAVING a.balance <> COALESCE(sum(e.amount), 0)"
        )
        # A pot holds exactly the stakes of a match in play, and nothing once it is over.
        bad_pots = await conn.fetch(
            "SELECT t.table_id FROM lobby_tables t "
            "LEFT JOIN lobby_accounts a ON a.account = 'pot:' || t.table_id "
            "LEFT JOIN (SELECT table_id, sum(stake_held) AS held FROM lobby_seats GROUP BY table_id) s "
            "ON s.table_id = t.table_id "
            "WHERE COALESCE(a.balance, 0) <> CASE WHEN t.status IN ('STARTING', 'PLAYING') "
            "THEN COALESCE(s.held, 0) ELSE 0 END"
        )
        assert not bad_pots, bad_pots
        grants = await conn.fetchval(
            "SELECT COALESCE(sum(e.amount), 0) FROM lobby_entries e JOIN lobby_transactions t USING (txn_key) "
            "WHERE t.kind = 'daily_grant' AND e.account <> 'bank'"
        )
        assert await conn.fetchval("SELECT balance FROM lobby_accounts WHERE account = 'bank'") == -grants


@dataclass
class Stack:
    """The table service and the lobby as processes on one fresh database, with NATS between
    them, and this test's channel to the lobby."""

    processes: okeystack.Stack
    stub: pb_grpc.LobbyServiceStub
    channel: grpc.aio.Channel

    @property
    def table_addr(self) -> str:
        return self.processes.address("table")

    @property
    def lobby_addr(self) -> str:
        return self.processes.address("lobby")

    @property
    def database_url(self) -> str:
        return self.processes.database_url

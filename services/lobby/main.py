"""Wiring of the lobby service: its store, the table service client, the match-result consumer,
the retry of table starts and the gRPC server."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import grpc
from okey.v1 import lobby_service_pb2_grpc as pb_grpc
from okeycore.commands import LeaveSeat
from okeycore.options import TableOptions
from okeyplatform import aioloop
from okeyplatform.auth import issue_token, revoke
from okeyplatform.client import TableClient
from okeyplatform.eventstore import PostgresEventStore
from okeyplatform.grpcserver import build_server, error_reason, mark_not_serving, mark_serving
from okeyplatform.logs import configure_logging, get_logger
from okeyplatform.revocations import RevocationPublisher

from .api import SERVICE_NAME, LobbyServicer
from .app import LobbyApp
from .consumer import MatchConsumer, reconcile_from_log
from .errors import Refused, StartFailed, Unavailable
from .policy import Limits
from .store import LobbyStore

__all__ = ["LobbyService", "GrpcTableStarter", "DEFAULT_ADDR", "limits_from_env"]

DEFAULT_ADDR = "127.0.0.1:50063"
DEFAULT_TABLE_ADDR = "127.0.0.1:50061"
_TRANSIENT = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.CANCELLED,
}


class GrpcTableStarter:
    """TableService.CreateTable with the lobby's service credential and the lobby's own table id.
    A retry after a lost answer is the same creation (same caller, command id, options and
    seats), which the table service answers as created; ``TABLE_EXISTS`` means the id holds a
    table that is not this creation, a permanent failure (the match does not start there)."""

    def __init__(self, address: str, token_secret: bytes | None = None) -> None:
        self.secret = token_secret
        self.client = TableClient(address, self._token())
        self._issued = time.monotonic()

    def _token(self) -> str:
        return issue_token("lobby", "service", ttl_s=3600, secret=self.secret)

    def _renew(self) -> None:
        if time.monotonic() - self._issued > 1800:
            self.client.metadata = (("authorization", f"Bearer {self._token()}"),)
            self._issued = time.monotonic()

    async def create_table(self, table_id: str, options: TableOptions, players: tuple[str, ...]) -> None:
        self._renew()
        try:
            await self.client.create_table(options, players, table_id=table_id, command_id="lobby-start")
        except grpc.aio.AioRpcError as exc:
            # TABLE_EXISTS is FAILED_PRECONDITION: not transient, so permanent like any refusal.
            raise StartFailed(f"{exc.code().name}: {exc.details()}", permanent=exc.code() not in _TRANSIENT) from None

    async def leave_seat(self, table_id: str, seat: int, player_id: str) -> None:
        """The seat's LeaveSeat, with the lobby's credential; a retry is the same command (one
        command id per player and table), and a seat already left counts as left."""
        self._renew()
        try:
            await self.client.act(table_id, LeaveSeat(seat=seat), command_id=f"lobby-leave:{player_id}")
        except grpc.aio.AioRpcError as exc:
            reason = error_reason(exc)
            if reason == "ALREADY_LEFT":
                return
            if exc.code() in _TRANSIENT:
                raise Unavailable("TABLE_UNAVAILABLE", "the table service did not answer: leave again") from None
            raise Refused(reason or "NOT_WAITING", exc.details() or "the table refused") from None

    async def close(self) -> None:
        await self.client.close()


def limits_from_env(env: Mapping[str, str]) -> Limits:
    """The lobby's limits, with the environment's overrides (a limit of 0: none)."""
    d = Limits()
    return Limits(
        max_open_tables=int(env.get("OKEY_MAX_TABLES_PER_PLAYER", str(d.max_open_tables))),
        accounts_per_device=int(env.get("OKEY_MAX_ACCOUNTS_PER_DEVICE", str(d.accounts_per_device))),
        accounts_per_address=int(env.get("OKEY_MAX_ACCOUNTS_PER_ADDRESS", str(d.accounts_per_address))),
        grants_per_device=int(env.get("OKEY_DAILY_GRANTS_PER_DEVICE", str(d.grants_per_device))),
        grants_per_address=int(env.get("OKEY_DAILY_GRANTS_PER_ADDRESS", str(d.grants_per_address))),
    )


@dataclass
class LobbyService:
    database_url: str
    nats_url: str
    address: str = DEFAULT_ADDR
    table_address: str = DEFAULT_TABLE_ADDR
    durable: str = "lobby"
    token_secret: bytes | None = None
    retry_every_s: float = 2.0
    store: LobbyStore | None = None
    app: LobbyApp | None = None
    consumer: MatchConsumer | None = None
    port: int = 0
    _starter: GrpcTableStarter | None = None
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)
    _server: Any = None
    _health: Any = None
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _revocations: RevocationPublisher | None = None
    _events: PostgresEventStore | None = None
    reconcile_every_s: float = 60.0  # how often tables in play are checked against the log

    async def start(self) -> None:
        self.store = await LobbyStore.connect(self.database_url, min_size=2, max_size=10)
        self._starter = GrpcTableStarter(self.table_address, self.token_secret)
        limits = limits_from_env(os.environ)
        self.app = LobbyApp(self.store, self._starter, token_secret=self.token_secret, limits=limits)
        self.consumer = MatchConsumer(self.app, self.nats_url, durable=self.durable)
        # Sign-outs and bans reach every service (issue 15.11); this process knows them at once.
        for subject, before in await self.app.revocations():
            revoke(subject, before)
        self._revocations = RevocationPublisher(self.nats_url, self.app.revocations)
        self._revocations.start()
        self.app.players.on_revoked = self._revocations.publish
        server, health, port = build_server(
            [(pb_grpc.add_LobbyServiceServicer_to_server, LobbyServicer(self.app, self.token_secret), SERVICE_NAME)],
            self.address,
        )
        self._server, self._health, self.port = server, health, port
        await server.start()
        await mark_serving(health, [SERVICE_NAME])
        self._tasks = [asyncio.create_task(self.consumer.run()), asyncio.create_task(self._retry_starts())]
        get_logger(component="lobby").info("lobby_service_started", address=self.address, port=port)

    async def _retry_starts(self) -> None:
        """Tables whose match start on the table service failed for a passing reason; and, hourly,
        the sign-up and daily-chips quotas of past days."""
        assert self.app is not None
        log = get_logger(component="lobby")
        pruned_at = float("-inf")
        reconciled_at = time.monotonic()
        while not self._stop.is_set():
            try:
                await asyncio.wait_for(self._stop.wait(), timeout=self.retry_every_s)
            except TimeoutError:
                pass
            try:
                await self.app.retry_starting()
            except Exception as exc:
                log.warning("retry_starts_failed", error=repr(exc))
            if time.monotonic() - pruned_at > 3600:
                pruned_at = time.monotonic()
                try:
                    await self.app.forget_old_quotas()
                except Exception as exc:
                    log.warning("forget_quotas_failed", error=repr(exc))
            if time.monotonic() - reconciled_at > self.reconcile_every_s:
                reconciled_at = time.monotonic()
                try:
                    await self._reconcile()
                except Exception as exc:
                    log.warning("reconcile_failed", error=repr(exc))

    async def _reconcile(self) -> None:
        """Match ends and hand prizes the stream may no longer hold (aged out while the lobby was
        away), read from the PostgreSQL log for the tables still in play [issue 15.4]."""
        assert self.app is not None
        if self._events is None:
            self._events = await PostgresEventStore.connect(self.database_url, min_size=1, max_size=2)
        since = self.app.clock() - timedelta(seconds=self.reconcile_every_s)
        changed = await reconcile_from_log(self.app, self._events, since)
        if changed:
            get_logger(component="lobby").warning("reconciled_from_log", changed=changed)

    async def stop(self, grace_s: float = 5.0) -> None:
        if self._health is not None:
            await mark_not_serving(self._health, [SERVICE_NAME])
        if self._server is not None:
            await self._server.stop(grace_s)
        self._stop.set()
        if self.consumer:
            self.consumer.stop()
        for t in self._tasks:
            try:
                await asyncio.wait_for(t, timeout=grace_s)
            except (TimeoutError, asyncio.CancelledError, Exception):
                t.cancel()
        if self._revocations is not None:
            await self._revocations.stop()
        if self._events is not None:
            await self._events.close()
        if self._starter:
            await self._starter.close()
        if self.store:
            await self.store.close()


async def serve(database_url: str, nats_url: str, address: str, table_address: str) -> None:
    svc = LobbyService(database_url, nats_url, address, table_address)
    await svc.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await svc.stop()


def main() -> None:
    configure_logging("lobby")
    aioloop.run(
        serve(
            os.environ["OKEY_DATABASE_URL"],
            os.environ["OKEY_NATS_URL"],
            os.environ.get("OKEY_LOBBY_ADDR", DEFAULT_ADDR),
            os.environ.get("OKEY_TABLE_ADDR", DEFAULT_TABLE_ADDR),
        )
    )


if __name__ == "__main__":
    main()

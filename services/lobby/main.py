"""The lobby service's composition root: ``bootstrap`` declares its parts (its store, the event
log it catches up from, the table service client with its renewing credential, the use cases,
the revocation publisher, the notifications' relay, the match-result consumer, the timers and
the gRPC servicer) on an okeyplatform ServiceHost, which runs them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from okey.v1 import lobby_service_pb2_grpc as pb_grpc
from okeyplatform.auth import revoke
from okeyplatform.consumer import TableEventConsumer
from okeyplatform.eventstore import PostgresEventStore
from okeyplatform.host import InProcess, Part, ServiceHost, run_service
from okeyplatform.metrics import BANK_CHIPS, REPORTS_OPEN
from okeyplatform.revocations import RevocationPublisher

from .api import SERVICE_NAME, LobbyServicer
from .app import LobbyApp
from .consumer import DURABLE, match_consumer
from .ledger_repo import BANK
from .notify_bus import NotifyRelay
from .policy import Limits
from .starter import GrpcScoringForgetter, GrpcTableStarter
from .store import LobbyStore
from .timers import LobbyTimers

__all__ = [
    "LobbyService",
    "LobbyConfig",
    "LobbyParts",
    "GrpcTableStarter",
    "bootstrap",
    "DEFAULT_ADDR",
    "limits_from_env",
    "main",
]

DEFAULT_ADDR = "127.0.0.1:50063"
DEFAULT_TABLE_ADDR = "127.0.0.1:50061"
DEFAULT_SCORING_ADDR = "127.0.0.1:50062"


def limits_from_env(env: Mapping[str, str]) -> Limits:
    """The lobby's limits, with the environment's overrides (a limit of 0: none)."""
    d = Limits()
    return Limits(
        token_ttl_s=int(env.get("OKEY_ACCESS_TOKEN_TTL_S", str(d.token_ttl_s))),
        refresh_ttl_s=int(env.get("OKEY_REFRESH_TOKEN_TTL_S", str(d.refresh_ttl_s))),
        refresh_race_s=float(env.get("OKEY_REFRESH_RACE_S", str(d.refresh_race_s))),
        reauth_s=int(env.get("OKEY_REAUTH_S", str(d.reauth_s))),
        max_open_tables=int(env.get("OKEY_MAX_TABLES_PER_PLAYER", str(d.max_open_tables))),
        accounts_per_device=int(env.get("OKEY_MAX_ACCOUNTS_PER_DEVICE", str(d.accounts_per_device))),
        accounts_per_address=int(env.get("OKEY_MAX_ACCOUNTS_PER_ADDRESS", str(d.accounts_per_address))),
        grants_per_device=int(env.get("OKEY_DAILY_GRANTS_PER_DEVICE", str(d.grants_per_device))),
        grants_per_address=int(env.get("OKEY_DAILY_GRANTS_PER_ADDRESS", str(d.grants_per_address))),
        reports_per_day=int(env.get("OKEY_MAX_REPORTS_PER_DAY", str(d.reports_per_day))),
        spectators_max=int(env.get("OKEY_MAX_SPECTATORS_PER_TABLE", str(d.spectators_max))),
    )


@dataclass(frozen=True)
class LobbyConfig:
    """``database_url`` holds the lobby's tables and the event log it catches up from;
    ``durable``: the consumer's JetStream durable; tokens are signed with ``token_secret``
    (None: ``OKEY_TOKEN_SECRET``)."""

    database_url: str
    nats_url: str
    address: str = DEFAULT_ADDR
    table_address: str = DEFAULT_TABLE_ADDR
    scoring_address: str = DEFAULT_SCORING_ADDR  # where a deleted account's stats are forgotten
    durable: str = DURABLE
    token_secret: bytes | None = None
    retry_every_s: float = 2.0
    reconcile_every_s: float = 60.0  # how often tables in play are checked against the log
    limits: Limits = field(default_factory=Limits)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LobbyConfig:
        """``OKEY_DATABASE_URL``, ``OKEY_NATS_URL``, ``OKEY_LOBBY_ADDR``, ``OKEY_TABLE_ADDR``, ``OKEY_SCORING_ADDR``,
        ``OKEY_LOBBY_DURABLE`` and the limits of :func:`limits_from_env`."""
        e = os.environ if env is None else env
        return cls(
            database_url=e["OKEY_DATABASE_URL"],
            nats_url=e["OKEY_NATS_URL"],
            address=e.get("OKEY_LOBBY_ADDR", DEFAULT_ADDR),
            table_address=e.get("OKEY_TABLE_ADDR", DEFAULT_TABLE_ADDR),
            scoring_address=e.get("OKEY_SCORING_ADDR", DEFAULT_SCORING_ADDR),
            durable=e.get("OKEY_LOBBY_DURABLE") or DURABLE,
            limits=limits_from_env(e),
        )


@dataclass
class LobbyParts:
    store: LobbyStore
    events: PostgresEventStore
    starter: GrpcTableStarter
    app: LobbyApp
    publisher: RevocationPublisher
    consumer: TableEventConsumer
    timers: LobbyTimers


def bootstrap(config: LobbyConfig) -> ServiceHost[LobbyParts]:
    """The lobby: the owner of players, chips, tables, chat, reports and bans, and of the
    revocations every other service follows (so it publishes them and follows none)."""

    async def setup(host: ServiceHost[LobbyParts]) -> LobbyParts:
        store = await LobbyStore.connect(config.database_url, min_size=2, max_size=10)
        host.on_close(store.close)
        events = await PostgresEventStore.connect(config.database_url, min_size=1, max_size=2)
        host.on_close(events.close)
        starter = GrpcTableStarter(config.table_address, config.token_secret)
        host.on_close(starter.close)
        forgetter = GrpcScoringForgetter(config.scoring_address, config.token_secret)
        host.on_close(forgetter.close)
        app = LobbyApp(store, starter, token_secret=config.token_secret, limits=config.limits, forgetter=forgetter)
        # Sign-outs and bans reach every service (issue 15.11); this process knows them at once.
        for subject, before in await app.revocations():
            revoke(subject, before)
        publisher = RevocationPublisher(config.nats_url, app.revocations)
        publisher.start()
        host.on_close(publisher.stop)
        app.players.on_revoked = publisher.publish
        # New notifications reach the WatchNotifications streams of every replica over NATS core.
        relay = NotifyRelay(config.nats_url, app.hub)
        host.background(relay)
        host.serve(pb_grpc.add_LobbyServiceServicer_to_server, LobbyServicer(app, config.token_secret), SERVICE_NAME)
        # Critical: a lobby that cannot apply match results says so (NOT_SERVING, exit 1)
        # instead of serving chips that are no longer true.
        consumer = match_consumer(app, config.nats_url, events, config.durable)
        host.background(consumer, critical=True)
        consumer.serve_parked_health(host)
        timers = LobbyTimers(app, events, config.retry_every_s, config.reconcile_every_s)
        host.background(timers)
        host.watch_pool("lobby", store.pool)
        host.watch_pool("lobby-events", events.pool)

        async def staff_gauges() -> None:
            async with store.pool.acquire() as conn:
                REPORTS_OPEN.set(await conn.fetchval("SELECT count(*) FROM lobby_reports WHERE status = 'OPEN'"))
                bank = await conn.fetchval("SELECT balance FROM lobby_accounts WHERE account = $1", BANK)
            BANK_CHIPS.set(bank or 0)

        host.every(30.0, staff_gauges)
        return LobbyParts(store, events, starter, app, publisher, consumer, timers)

    return ServiceHost("lobby", config.address, setup)


class LobbyService(InProcess[Any]):
    """The lobby service in this process (tests, ``okey up``): the host ``bootstrap`` builds.
    ``options``: any other field of :class:`LobbyConfig` (``durable``, ``token_secret``,
    ``retry_every_s``, ``reconcile_every_s``); the rest (the limits) is read from the
    environment at the start, as ``main`` reads it."""

    def __init__(
        self,
        database_url: str,
        nats_url: str,
        address: str = DEFAULT_ADDR,
        table_address: str = DEFAULT_TABLE_ADDR,
        **options: Any,
    ) -> None:
        unknown = set(options) - {f.name for f in fields(LobbyConfig)}
        if unknown:
            raise TypeError(f"LobbyService got unexpected keyword arguments {sorted(unknown)}")
        self.urls = {"OKEY_DATABASE_URL": database_url, "OKEY_NATS_URL": nats_url}
        self.options = {"address": address, "table_address": table_address, **options}
        self.host: ServiceHost[LobbyParts] | None = None
        self.port = 0

    async def start(self) -> None:
        await self.launch(bootstrap(replace(LobbyConfig.from_env({**os.environ, **self.urls}), **self.options)))

    store = Part("store")
    app = Part("app")
    consumer = Part("consumer")
    timers = Part("timers")


def main() -> int:
    return run_service("lobby", lambda: bootstrap(LobbyConfig.from_env()))


if __name__ == "__main__":
    raise SystemExit(main())

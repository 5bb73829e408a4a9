"""Match results from the table events: the lobby's
:class:`~okeyplatform.consumer.ConsumerSpec`, whose ``apply`` pays pots on MatchEnded, 101 hand
prizes and marks seats left mid-match (and, at a tournament's table, records its result or the
player's withdrawal in the tournament: tournaments.py), in the lobby's unit of work on the consumer's transaction.

Each table's applied version commits together with the effect of that version: a redelivered or
republished event is below the record and never reaches ``apply``, and a version past a gap is
held until the missing ones are applied, so a table's events take effect in order, once (see
okeyplatform.consumer). An event this okeycore cannot read is logged and counts as applied (the
lobby acts on three kinds only). The ledger's unique keys (``payout:<table>``,
``hand:<table>:<n>``) and the table's status stay as a second guard. The catch-up from the
PostgreSQL log (:func:`reconcile_from_log`) goes through the same record."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime

import asyncpg
from okeycore.events import MatchEnded, SeatLeft
from okeycore.okey101 import HandEnded101
from okeyplatform.consumer import PROJECTION_LINGER_S, ConsumerSpec, TableEventConsumer, VersionedApplier
from okeyplatform.contract import Envelope
from okeyplatform.eventstore import PostgresEventStore

from .app import LobbyApp
from .store import Unit

__all__ = [
    "DURABLE",
    "RECORD",
    "LobbyEffects",
    "match_consumer",
    "handle_event",
    "carried_payout",
    "reconcile_from_log",
    "EVENT_TYPES",
]

DURABLE = "lobby"
RECORD = "lobby"  # the lobby's name in the applied-version record (whatever the durable is called)


async def handle_event(app: LobbyApp, env: Envelope, within: Unit | None = None) -> bool:
    """Apply one published table event (in ``within``, the consumer's unit, or a unit of its
    own); True when it changed something."""
    event = env.event
    if isinstance(event, MatchEnded):
        settled = await app.settle_match(
            env.table_id, list(event.winners), list(event.scores), carried_payout(event), within=within
        )
        advanced = await app.tournament_match_ended(env.table_id, event.scores, event.winners, within=within)
        return settled or advanced
    if isinstance(event, HandEnded101) and any(event.chips):
        return await app.pay_hand_prize(env.table_id, event.hand, list(event.chips), within=within)
    if isinstance(event, SeatLeft):
        left = await app.seat_left(env.table_id, event.seat, event.player, within=within)
        withdrew = await app.tournament_seat_left(env.table_id, event.player, within=within)
        return left or withdrew
    return False


def carried_payout(event: MatchEnded) -> int | None:
    """Each winner's share as the engine split the pot [C-SC-9], which the lobby pays; None for an
    event without it, which the lobby splits itself. A protobuf message that lacks the field reads
    it as 0: the engine never gives a nonzero pot a payout of 0 with no remainder (a pot smaller
    than the winners' count is all remainder), so that reads as "without it"."""
    if event.payout == 0 and event.remainder == 0 and event.pot > 0 and event.winners:
        return None
    return event.payout


# What the lobby acts on.
EVENT_TYPES = (MatchEnded.type, HandEnded101.type, SeatLeft.type)


@asynccontextmanager
async def _unit(conn: asyncpg.Connection, _tables: Sequence[str]) -> AsyncIterator[Unit]:
    yield Unit(conn)


class LobbyEffects:
    """The lobby's consumer spec; ``changed`` counts the events that changed something."""

    def __init__(self, app: LobbyApp) -> None:
        self.app = app
        self.changed = 0

    async def apply(self, uow: Unit, env: Envelope) -> None:
        if await handle_event(self.app, env, uow):
            self.changed += 1

    def spec(self) -> ConsumerSpec[Unit]:
        return ConsumerSpec(
            name=RECORD, apply=self.apply, unit=_unit, component="lobby-consumer", linger_s=PROJECTION_LINGER_S
        )

    def applier(self) -> VersionedApplier[Unit]:
        return VersionedApplier(self.spec(), self.app.store.pool)


def match_consumer(
    app: LobbyApp, nats_url: str, events: PostgresEventStore, durable: str = DURABLE
) -> TableEventConsumer:
    """The lobby's consumer of the table events; versions the stream no longer holds are read
    from the log (``events``)."""
    return TableEventConsumer(LobbyEffects(app).spec(), app.store.pool, nats_url, durable=durable, log=events)


async def reconcile_from_log(
    app: LobbyApp, events: PostgresEventStore, started_before: datetime, limit: int = 500
) -> int:
    """Catch up from the PostgreSQL log on what the stream may no longer hold (its retention
    aged it out while the lobby was away): for tables the lobby still has in play, started before
    ``started_before``, every version past the applied-version record is applied, through the
    consumer's record (so the live consumer's later copy is a duplicate). Returns how many
    events changed something."""
    playing = [t.table_id for t in await app.playing_tables(started_before, limit)]
    if not playing:
        return 0
    effects = LobbyEffects(app)
    await effects.applier().catch_up(events, playing)
    return effects.changed

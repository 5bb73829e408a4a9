"""Match results from the table events: the shared ``TableEventConsumer`` (durable, stream
OKEY_TABLES, subjects okey.table.>) with a ``VersionedApplier`` whose handler pays pots on
MatchEnded, 101 hand prizes and marks seats left mid-match.

The handler runs on the applier's transaction connection (the lobby's unit of work on it), so
each table's applied version commits together with the effect of that version: a redelivered or
republished event is below the record and never reaches the handler, and a version past a gap is
held until the missing ones are applied, so a table's events take effect in order, once. The
ledger's unique keys (``payout:<table>``, ``hand:<table>:<n>``) and the table's status stay as a
second guard. The catch-up from the PostgreSQL log (:func:`reconcile_from_log`) goes through the
same applier and the same record."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

import asyncpg
from okeycore.events import MatchEnded, SeatLeft
from okeycore.okey101 import HandEnded101
from okeyplatform.consumer import PROJECTION_LINGER_S, EventItem, RejectedMessage, TableEventConsumer, VersionedApplier
from okeyplatform.contract import BadEnvelope, Envelope, UnreadableEvent, decode_envelope, encode_envelope, nats_headers
from okeyplatform.eventstore import PostgresEventStore
from okeyplatform.logs import get_logger

from .app import LobbyApp
from .store import Unit

__all__ = [
    "DURABLE",
    "RECORD",
    "LobbyEffects",
    "Unreadable",
    "decode",
    "match_consumer",
    "handle_event",
    "carried_payout",
    "read_log",
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
        return await app.settle_match(
            env.table_id, list(event.winners), list(event.scores), carried_payout(event), within=within
        )
    if isinstance(event, HandEnded101) and any(event.chips):
        return await app.pay_hand_prize(env.table_id, event.hand, list(event.chips), within=within)
    if isinstance(event, SeatLeft):
        return await app.seat_left(env.table_id, event.seat, event.player, within=within)
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


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A table event this okeycore cannot read (a kind a newer table service wrote, or a
    malformed one): its version counts as applied, with no effect, and is logged, as the lobby
    always did (it stops on nothing it does not act on)."""

    table_id: str
    version: int
    recorded_at: datetime
    why: str


def decode(data: bytes, headers: Mapping[str, str] | None = None) -> EventItem | Unreadable:
    """A message of the table subjects as the consumer's item; a message that is no table event
    envelope at all (no table, no version) is :class:`RejectedMessage`: the consumer logs it and
    goes on (a stray publish on the table subjects must not stop the lobby's payouts)."""
    try:
        return EventItem(decode_envelope(data, headers))
    except UnreadableEvent as exc:
        return Unreadable(exc.table_id, exc.version, datetime.now(UTC), str(exc))
    except BadEnvelope as exc:
        raise RejectedMessage(f"not a table event envelope: {exc}") from None


class LobbyEffects:
    """The applier's handler: one event's effect in the lobby's unit of work on the applier's
    connection; ``changed`` counts the events that changed something."""

    def __init__(self, app: LobbyApp) -> None:
        self.app = app
        self.changed = 0

    async def __call__(self, conn: asyncpg.Connection, item: EventItem | Unreadable) -> None:
        if isinstance(item, Unreadable):
            get_logger(component="lobby-consumer").error("event_unreadable", table_id=item.table_id, error=item.why)
        elif await handle_event(self.app, item.envelope, Unit(conn)):
            self.changed += 1

    def applier(self) -> VersionedApplier[EventItem | Unreadable]:
        return VersionedApplier(self.app.store.pool, RECORD, self, gaps="hold")


async def read_log(
    events: PostgresEventStore, table_id: str, after: int, upto: int | None = None
) -> list[EventItem | Unreadable]:
    """A table's versions after ``after`` (up to ``upto``) from the PostgreSQL log, decoded from
    the bytes and headers the relay publishes for them."""
    stored = await events.read_stream(table_id, after_version=after, limit=None if upto is None else upto - after)
    return [decode(encode_envelope(e), nats_headers(e)) for e in stored]


def match_consumer(
    app: LobbyApp, nats_url: str, events: PostgresEventStore, durable: str = DURABLE
) -> TableEventConsumer[EventItem | Unreadable]:
    """The lobby's consumer of the table events; versions the stream no longer holds are read
    from the log (``events``)."""

    async def from_log(table_id: str, versions: set[int]) -> list[EventItem | Unreadable]:
        got = await read_log(events, table_id, min(versions) - 1, max(versions))
        return [it for it in got if it.version in versions]

    return TableEventConsumer(
        LobbyEffects(app).applier(),
        nats_url,
        decode,
        durable,
        log_reader=from_log,
        component="lobby-consumer",
        linger_s=PROJECTION_LINGER_S,
    )


async def reconcile_from_log(
    app: LobbyApp, events: PostgresEventStore, started_before: datetime, limit: int = 500
) -> int:
    """Catch up from the PostgreSQL log on what the stream may no longer hold (its retention
    aged it out while the lobby was away): for tables the lobby still has in play, started before
    ``started_before``, every version past the applied-version record is applied, through the
    consumer's applier (so the live consumer's later copy is a duplicate). Returns how many
    events changed something."""
    playing = [t.table_id for t in await app.playing_tables(started_before, limit)]
    if not playing:
        return 0
    effects = LobbyEffects(app)
    applier = effects.applier()
    async with app.store.pool.acquire() as conn:
        known = await applier.versions(conn, playing)
    for table_id in playing:
        items = await read_log(events, table_id, known.get(table_id, 0))
        if items:
            await applier.apply(items)
    return effects.changed

"""Match results from NATS: a durable JetStream consumer of the table events (stream
OKEY_TABLES, subjects okey.table.>) that pays pots on MatchEnded and 101 hand prizes.

A message is acknowledged only after its effect is committed; the ledger's unique keys
(``payout:<table>``, ``hand:<table>:<n>``) make a redelivered message a no-op, so the effect
happens exactly once."""

from __future__ import annotations

import asyncio
from datetime import datetime

import nats
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from okeycore.events import MatchEnded, SeatLeft
from okeycore.okey101 import HandEnded101
from okeyplatform.contract import BadEnvelope, Envelope, decode_envelope, envelope_from_pb, envelope_pb
from okeyplatform.eventstore import PostgresEventStore
from okeyplatform.logs import get_logger
from okeyplatform.relay import TABLE_STREAM, bind_table_stream

from .app import LobbyApp

__all__ = ["MatchConsumer", "handle_event", "carried_payout", "reconcile_from_log", "EVENT_TYPES"]


async def handle_event(app: LobbyApp, env: Envelope) -> bool:
    """Apply one published table event; True when it changed something."""
    event = env.event
    if isinstance(event, MatchEnded):
        return await app.settle_match(env.table_id, list(event.winners), list(event.scores), carried_payout(event))
    if isinstance(event, HandEnded101) and any(event.chips):
        return await app.pay_hand_prize(env.table_id, event.hand, list(event.chips))
    if isinstance(event, SeatLeft):
        return await app.seat_left(env.table_id, event.seat, event.player)
    return False


def carried_payout(event: MatchEnded) -> int | None:
    """Each winner's share as the engine split the pot [C-SC-9], which the lobby pays; None for an
    event without it, which the lobby splits itself. A protobuf message that lacks the field reads
    it as 0: the engine never gives a nonzero pot a payout of 0 with no remainder (a pot smaller
    than the winners' count is all remainder), so that reads as "without it"."""
    if event.payout == 0 and event.remainder == 0 and event.pot > 0 and event.winners:
        return None
    return event.payout


# What the lobby acts on (its catch-up from the log reads only these).
EVENT_TYPES = (MatchEnded.type, HandEnded101.type, SeatLeft.type)


async def reconcile_from_log(
    app: LobbyApp, events: PostgresEventStore, started_before: datetime, limit: int = 500
) -> int:
    """Catch up from the PostgreSQL log on what the stream may no longer hold (its retention
    aged it out while the lobby was away): for tables the lobby still has in play, started before
    ``started_before``, apply their match ends and hand prizes again. Both are idempotent (a
    match is settled once, a hand prize posted once), so this only fills what was missed.
    Returns how many changed something."""
    playing = [t.table_id for t in await app.playing_tables(started_before, limit)]
    if not playing:
        return 0
    changed = 0
    for e in await events.read_types(playing, EVENT_TYPES):
        if await handle_event(app, envelope_from_pb(envelope_pb(e))):  # as the relay publishes it
            changed += 1
    return changed


class MatchConsumer:
    def __init__(self, app: LobbyApp, nats_url: str, durable: str = "lobby", batch: int = 200) -> None:
        self.app = app
        self.nats_url = nats_url
        self.durable = durable
        self.batch = batch
        self.applied = 0
        self.log = get_logger(component="lobby-consumer")
        self._stop = asyncio.Event()

    def stop(self) -> None:
        self._stop.set()

    async def run(self) -> None:
        backoff = 0.5
        while not self._stop.is_set():
            try:
                await self._consume()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # NATS down, stream being created, ...: retry
                self.log.warning("consumer_retry", error=repr(exc), backoff=backoff)
                try:
                    await asyncio.wait_for(self._stop.wait(), timeout=backoff)
                except TimeoutError:
                    pass
                backoff = min(backoff * 2, 5.0)

    async def _consume(self) -> None:
        nc = await nats.connect(self.nats_url, max_reconnect_attempts=-1, reconnect_time_wait=0.5, connect_timeout=2)
        try:
            js = nc.jetstream()
            await bind_table_stream(js)
            sub = await js.pull_subscribe(
                "okey.table.>",
                durable=self.durable,
                stream=TABLE_STREAM,
                config=ConsumerConfig(
                    durable_name=self.durable,
                    ack_policy=AckPolicy.EXPLICIT,
                    deliver_policy=DeliverPolicy.ALL,
                    ack_wait=30,
                    max_ack_pending=10_000,
                ),
            )
            while not self._stop.is_set():
                try:
                    msgs = await sub.fetch(self.batch, timeout=0.5)
                except nats.errors.TimeoutError:
                    continue
                for msg in msgs:
                    try:
                        try:
                            env = decode_envelope(msg.data, msg.headers)
                        except BadEnvelope as exc:  # nothing the lobby could ever apply: not retried
                            self.log.error("bad_message", subject=msg.subject, error=str(exc))
                            await msg.ack()
                            continue
                        if await handle_event(self.app, env):
                            self.applied += 1
                        await msg.ack()
                    except Exception as exc:
                        self.log.warning("event_retry", subject=msg.subject, error=repr(exc))
                        await msg.nak(delay=2.0)
        finally:
            await nc.close()

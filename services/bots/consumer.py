"""Table events to the bots: their :class:`~okeyplatform.consumer.ConsumerSpec`, an external
effect idempotent by its command ids. The durable pull consumer of OKEY_TABLES is shared by
every bots replica, so one event goes to one replica; a batch's tables are played at once, each
table's events in order, and each table's handled version is recorded in the consumers' record
under the durable's name, so an event redelivered after a replica died, or published twice,
calls no bot again. The bots' effect is commands to the table, whose ids are fixed by the view
they were decided on (``bot:<kind>:<table>:<view version>:<seat>``): if a replica dies after
playing and before recording, the replay of the same view sends the same ids and the table
answers them as duplicates. A turn is never played twice.

A table service that cannot be reached hands the event back (:class:`RetryLater`): it is
delivered again after a delay, to whichever replica asks first."""

from __future__ import annotations

import asyncpg
import grpc
from nats.js.api import DeliverPolicy
from okeyplatform.consumer import ConsumerSpec, RetryLater, TableEventConsumer, migrate_consumer_versions
from okeyplatform.contract import Envelope

from .app import HAND_ON_WATCH_S, NOT_RETRIED, BotsApp

__all__ = ["DURABLE", "ACK_WAIT_S", "bots_consumer", "bots_spec", "migrate_schema"]

DURABLE = (
    "bots-events"  # the pull consumer (and its name in the record); "bots" was the push consumer of earlier releases
)
ACK_WAIT_S = HAND_ON_WATCH_S
"""Short: the events a killed replica held go to another within seconds, not after the table's
turn timer (the same wait as the bots' own look for a lost turn, ``HAND_ON_WATCH_S``). A batch being
played is kept in progress, so a slow one is not redelivered under it."""


async def migrate_schema(conn: asyncpg.Connection) -> list[int]:
    """The bots' only tables: the consumers' record (``okey migrate`` applies it too)."""
    return await migrate_consumer_versions(conn)


def bots_spec(app: BotsApp, name: str = DURABLE, concurrency: int = 64) -> ConsumerSpec[None]:
    """A new durable starts at events published after it (the bots act on tables in play, not on
    history); batches of 64 with 8 in flight, so a slow table does not hold the others back."""

    async def play(_uow: None, env: Envelope) -> None:
        try:
            await app.handle(env)
        except grpc.aio.AioRpcError as err:
            if err.code() in NOT_RETRIED:
                raise  # a bug of ours or a credential problem: logged, the event counts as handled
            raise RetryLater(f"table service: {err.code().name}") from None

    return ConsumerSpec(
        name=name,
        apply=play,
        external=True,
        batch=64,
        in_flight=8,
        ack_wait_s=ACK_WAIT_S,
        deliver=DeliverPolicy.NEW,
        component="bots-consumer",
        concurrency=concurrency,
    )


def bots_consumer(
    app: BotsApp, pool: asyncpg.Pool, nats_url: str, durable: str = DURABLE, concurrency: int = 64
) -> TableEventConsumer:
    """The bots' consumer (its record under the durable's name)."""
    return TableEventConsumer(bots_spec(app, durable, concurrency), pool, nats_url)

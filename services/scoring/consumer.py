"""The live projector: scoring's :class:`~okeyplatform.consumer.ConsumerSpec`. Its unit of work
is a :class:`~services.scoring.projection.Projection` of the batch's tables, loaded (locked) on
the consumer's transaction and saved in it; its ``apply`` folds one event. What is applied, what
is held, what is parked and the gaps filled from the log are okeyplatform's (see there).

An event that cannot be projected (malformed, unreadable, a number out of range) parks its table
(``okey.scoring.parked``, ``okey replay``) and every other table goes on; an event type this
scoring does not know stops the projector with the reason (the message stays unacknowledged)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace

import asyncpg
from okeyplatform.consumer import PROJECTION_LINGER_S, ConsumerSpec, Item, LogSource, TableEventConsumer
from okeyplatform.contract import Envelope
from okeyplatform.relay import TABLE_STREAM

from .projection import Projection, ProjectionError, UnknownEventType
from .store import RECORD, ScoringStore

__all__ = ["DURABLE", "projection_spec", "projector", "project"]

DURABLE = "scoring"


async def project(proj: Projection, env: Envelope) -> None:
    """Fold one event into the batch's projection."""
    if env.version <= proj.version(env.table_id):
        return  # folded already: `okey replay` swapped in a rebuild ahead of the record
    proj.apply(env.table_id, env.version, env.time, env.event)


def projection_spec(store: ScoringStore) -> ConsumerSpec[Projection]:
    @asynccontextmanager
    async def unit(conn: asyncpg.Connection, table_ids: Sequence[str]) -> AsyncIterator[Projection]:
        proj = Projection(await store.load_tables(conn, list(table_ids)))
        yield proj
        if not proj.changes.empty:
            await store.save(conn, proj.changes)

    return ConsumerSpec(
        name=RECORD,
        apply=project,
        unit=unit,
        unreadable="park",
        unknown_kind="stop",
        parks=(ProjectionError,),
        stops=(UnknownEventType,),
        component="scoring-projector",
        linger_s=PROJECTION_LINGER_S,
    )


def projector(
    store: ScoringStore,
    nats_url: str,
    durable: str = DURABLE,
    stream: str = TABLE_STREAM,
    log: LogSource | None = None,
    on_applied: Callable[[Sequence[Item]], None] | None = None,
    batch: int | None = None,
) -> TableEventConsumer:
    """Scoring's consumer; ``run`` raises the error that stopped it, if any. ``batch``: at most
    that many messages a fetch (the spec's default when None; a test takes them one at a time)."""
    spec = projection_spec(store)
    if batch is not None:
        spec = replace(spec, batch=batch)
    return TableEventConsumer(
        spec, store.pool, nats_url, durable=durable, stream=stream, log=log, on_applied=on_applied
    )

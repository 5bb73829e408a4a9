"""The live projector: table events from JetStream into the scoring tables, through
okeyplatform's one :class:`~okeyplatform.consumer.TableEventConsumer` (exactly once in effect,
never out of order: see there). The scoring projection is its applier: each batch is projected
in one transaction that also records every table's applied version (in ``scoring_tables``,
with the rows). An event that cannot be
projected (malformed, a number out of range) parks its table (``ScoringApp.apply``) and every
other table goes on. An event type the projection does not know, or a message it cannot read,
stops the projector with the reason (the message stays unacknowledged)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime

from okeyplatform.consumer import PROJECTION_LINGER_S, RejectedMessage, TableEventConsumer
from okeyplatform.contract import BadEnvelope, UnreadableEvent, decode_envelope
from okeyplatform.relay import TABLE_STREAM

from .app import Item, ScoringApp
from .projection import ProjectionError

__all__ = ["Projector", "decode_message", "DURABLE"]

DURABLE = "scoring"


def decode_message(data: bytes, headers: Mapping[str, str] | None = None) -> Item:
    """The relay's envelope (okey.v1.TableEvent, or the JSON of a stream written before it). An
    envelope whose event cannot be read becomes an Item that parks its table."""
    try:
        env = decode_envelope(data, headers)
    except UnreadableEvent as exc:
        return Item(exc.table_id, exc.version, datetime.now(UTC), exc)
    except BadEnvelope as exc:
        # no table event at all: the consumer logs and acknowledges it (the log never holds one)
        raise RejectedMessage(str(exc)) from None
    return Item(env.table_id, env.version, env.time, env.event)


class Projector(TableEventConsumer[Item]):
    """Runs until ``stop()``; ``run`` raises the ProjectionError that stopped it, if any."""

    def __init__(
        self,
        app: ScoringApp,
        nats_url: str,
        durable: str = DURABLE,
        stream: str = TABLE_STREAM,
        subject: str = "okey.table.>",
        batch: int = 500,
        on_applied: Callable[[Sequence[Item]], None] | None = None,
        log_reader: Callable[[str, set[int]], Awaitable[list[Item]]] | None = None,
    ) -> None:
        super().__init__(
            app,
            nats_url,
            decode_message,
            durable=durable,
            stream=stream,
            subject=subject,
            batch=batch,
            on_applied=on_applied,
            log_reader=log_reader,
            fatal=ProjectionError,
            component="scoring-projector",
            linger_s=PROJECTION_LINGER_S,
        )

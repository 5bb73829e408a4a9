"""The one decoder of the table events a consumer is handed, from the stream's messages and from
the PostgreSQL log alike: an :class:`~okeyplatform.contract.Envelope`, an :class:`Unreadable`
event, or a :class:`RejectedMessage`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from ..contract import Envelope, decode_envelope, encode_envelope, nats_headers
from ..eventstore import BadEnvelope, EventStore, StoredEvent, UnreadableEvent


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A table event whose envelope names its table and version but whose event this okeycore
    cannot read (``error``: malformed, a value its message cannot hold, or an
    :class:`~okeyplatform.eventstore.UnknownEvent` a newer table service wrote)."""

    table_id: str
    version: int
    time: datetime
    error: UnreadableEvent


Item = Envelope | Unreadable
"""What the consumer hands its applier: a table event, or one it cannot read."""

LogSource = EventStore | Callable[[], Awaitable[EventStore]]
"""The PostgreSQL log, or how to open it when first needed."""


class RejectedMessage(Exception):
    """A message that is no table event envelope (no table, no version). The consumer logs it and
    acknowledges it; the PostgreSQL log, the truth, never holds such a thing."""


def decode(data: bytes, headers: Mapping[str, str] | None = None) -> Item:
    """The one decoder of the table subjects' messages (the relay's protobuf envelope, or the
    JSON of a stream written before it). Raises :class:`RejectedMessage` for no table event."""
    try:
        return decode_envelope(data, headers)
    except UnreadableEvent as exc:
        return Unreadable(exc.table_id, exc.version, datetime.now(UTC), exc)
    except BadEnvelope as exc:
        raise RejectedMessage(f"not a table event envelope: {exc}") from None


def envelope_of(stored: StoredEvent) -> Item:
    """A stored event of the log as the relay publishes it, decoded as a message would be."""
    return decode(encode_envelope(stored), nats_headers(stored))


async def read_log(log: EventStore, table_id: str, after: int, upto: int | None = None) -> list[Item]:
    """A table's versions after ``after`` (up to ``upto``) from the PostgreSQL log, decoded as
    the relay publishes them."""
    stored = await log.read_stream(table_id, after_version=after, limit=None if upto is None else upto - after)
    return [envelope_of(e) for e in stored]

"""The one kind of table event consumer: a durable pull consumer of OKEY_TABLES, exactly once in
effect, never out of order; a service hands over only its :class:`ConsumerSpec` (a name and
``apply(unit_of_work, envelope)``), and this package does the rest.

What the platform does for every consumer, in one place:

- **decode** (``decoding``): a message becomes an :class:`~okeyplatform.contract.Envelope`, or
  an :class:`Unreadable` event (its table and version are known, its event is not), or is
  rejected (no table event at all: logged, counted, acknowledged; nothing a publisher puts on
  the subjects stops a consumer);
- **track** (``versions``, ``appliers``): each table's applied version of the consumer
  (``okey_consumer_versions``), written in the transaction of the effects of that version; only
  then are the messages acknowledged. A message redelivered after a crash, or published twice,
  is at or below the record and changes nothing;
- **park** (``parking``): a table whose event cannot be applied (what the spec's ``parks``
  names, an unreadable event when the spec says so, a value PostgreSQL refuses) is set aside in
  ``okey_consumer_parked``; its later events are skipped, every other table goes on, and the
  service's ``okey.<name>.parked`` health entry says so
  (:meth:`TableEventConsumer.serve_parked_health`);
- **fill gaps** (``gaps``): a version past a gap is held back while the missing versions are
  read from the stream (an ephemeral consumer on that table's subject), else from the PostgreSQL
  log; when neither holds them yet the message is negatively acknowledged with a delay. The same
  log read catches a table up outside the stream (:meth:`VersionedApplier.catch_up`).

``engine`` runs it all (:class:`TableEventConsumer`); ``schema`` holds the two tables'
migrations. NATS or PostgreSQL going away (at start, or a restart) is waited out with backoff;
the consumer never creates or changes the stream (:func:`~okeyplatform.relay.bind_table_stream`).

Two kinds of effect, declared by the spec (``spec``): **in the database** (the default):
``apply(uow, envelope)`` runs inside the transaction that records the version, on the unit of
work the spec's ``unit`` opens on its connection, so its writes happen exactly once; a version
past a gap waits. **External and idempotent by its command ids** (``external=True``, the bots,
whose command ids the table keeps): the unit of work is None, a batch's tables run at once, each
table's events in order and not inside a transaction, gaps do not matter, and the versions
handled are recorded after; a handler raising :class:`RetryLater` hands its event back for
later."""

from .appliers import (
    APPLIED,
    DUPLICATE,
    HELD,
    PARKED,
    RETRY,
    Applier,
    BatchResult,
    ConcurrentApplier,
    VersionedApplier,
    applier_for,
)
from .decoding import Item, LogSource, Unreadable, envelope_of
from .engine import TableEventConsumer
from .parking import parked_health, parked_tables, replace_parked
from .schema import CONSUMER_MIGRATIONS, migrate_consumer_versions
from .spec import PROJECTION_LINGER_S, ConsumerSpec, RetryLater
from .versions import record_versions

__all__ = [
    "PROJECTION_LINGER_S",
    "ConsumerSpec",
    "RetryLater",
    "TableEventConsumer",
    "Applier",
    "VersionedApplier",
    "ConcurrentApplier",
    "applier_for",
    "BatchResult",
    "APPLIED",
    "DUPLICATE",
    "HELD",
    "PARKED",
    "RETRY",
    "Item",
    "LogSource",
    "Unreadable",
    "envelope_of",
    "CONSUMER_MIGRATIONS",
    "migrate_consumer_versions",
    "record_versions",
    "parked_health",
    "parked_tables",
    "replace_parked",
]

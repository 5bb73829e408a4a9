"""The one kind of table event consumer: a durable pull consumer of OKEY_TABLES, exactly once in
effect, never out of order; a service hands over only its :class:`ConsumerSpec` (a name and
``apply(unit_of_work, envelope)``), and this module does the rest.

What the platform does for every consumer, in one place:

- **decode**: a message becomes an :class:`~okeyplatform.contract.Envelope`, or an
  :class:`Unreadable` event (its table and version are known, its event is not), or is rejected
  (no table event at all: logged, counted, acknowledged; nothing a publisher puts on the
  subjects stops a consumer);
- **track**: each table's applied version of the consumer (``okey_consumer_versions``), written
  in the transaction of the effects of that version; only then are the messages acknowledged. A
  message redelivered after a crash, or published twice, is at or below the record and changes
  nothing;
- **park**: a table whose event cannot be applied (what the spec's ``parks`` names, an
  unreadable event when the spec says so, a value PostgreSQL refuses) is set aside in
  ``okey_consumer_parked``; its later events are skipped, every other table goes on, and the
  service's ``okey.<name>.parked`` health entry says so (:meth:`TableEventConsumer.serve_parked_health`);
- **fill gaps**: a version past a gap is held back while the missing versions are read from the
  stream (an ephemeral consumer on that table's subject), else from the PostgreSQL log; when
  neither holds them yet the message is negatively acknowledged with a delay. The same log read
  catches a table up outside the stream (:meth:`VersionedApplier.catch_up`).

NATS or PostgreSQL going away (at start, or a restart) is waited out with backoff; the consumer
never creates or changes the stream (:func:`~okeyplatform.relay.bind_table_stream`).

Two kinds of effect, declared by the spec: **in the database** (the default): ``apply(uow,
envelope)`` runs inside the transaction that records the version, on the unit of work the spec's
``unit`` opens on its connection, so its writes happen exactly once; a version past a gap waits.
**External and idempotent by its command ids** (``external=True``, the bots, whose command ids
the table keeps): the unit of work is None, a batch's tables run at once, each table's events in
order and not inside a transaction, gaps do not matter, and the versions handled are recorded
after; a handler raising :class:`RetryLater` hands its event back for later."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar

import asyncpg
import nats
from grpc_health.v1 import health_pb2
from nats.aio.msg import Msg
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.client import JetStreamContext

from . import metrics as M
from .aioloop import KeyedLocks
from .bus import connect_nats, pause
from .contract import Envelope, decode_envelope, encode_envelope, nats_headers
from .eventstore import BadEnvelope, EventStore, StoredEvent, UnknownEvent, UnreadableEvent, migrate
from .logs import get_logger
from .relay import TABLE_STREAM, bind_table_stream, table_subject
from .tracing import consumer_span

if TYPE_CHECKING:
    from .host import ServiceHost

__all__ = [
    "PROJECTION_LINGER_S",
    "ConsumerSpec",
    "TableEventConsumer",
    "Applier",
    "VersionedApplier",
    "ConcurrentApplier",
    "applier_for",
    "BatchResult",
    "Item",
    "Unreadable",
    "FatalEvent",
    "RejectedMessage",
    "RetryLater",
    "decode",
    "envelope_of",
    "APPLIED",
    "DUPLICATE",
    "HELD",
    "PARKED",
    "RETRY",
    "CONSUMER_MIGRATIONS",
    "migrate_consumer_versions",
    "record_versions",
    "park",
    "parked_tables",
    "replace_parked",
    "parked_health",
]

APPLIED = "APPLIED"
DUPLICATE = "DUPLICATE"  # at or below the applied version: already applied
HELD = "HELD"  # ahead of a gap: not applied until the missing versions are
PARKED = "PARKED"  # its table is parked: an event of it could not be applied
RETRY = "RETRY"  # not applied now (a service it needs is away): handed back, tried again later
PROJECTION_LINGER_S = 0.1
"""How long the projections (scoring, the lobby's payouts) let a busy stream gather between two
fetches: a batch of ~12 events at 500 events/s becomes one of ~50, in one transaction; they are
at most this much later. The bots do not linger (a bot's turn waits on its consumer)."""
_OUTCOMES = (APPLIED, DUPLICATE, HELD, PARKED, RETRY, "REJECTED")  # okey_consumer_messages_total{outcome}

U = TypeVar("U")


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


class FatalEvent(Exception):
    """An event the consumer cannot go past: it stops, after applying the events before it."""

    def __init__(self, message: str, table_id: str | None = None, version: int | None = None) -> None:
        super().__init__(message)
        self.table_id = table_id
        self.version = version


class RejectedMessage(Exception):
    """A message that is no table event envelope (no table, no version). The consumer logs it and
    acknowledges it; the PostgreSQL log, the truth, never holds such a thing."""


class RetryLater(Exception):
    """Raised by an external handler: this event cannot be handled now (the service its effect
    goes to is unreachable); it and its table's later events in the batch are handed back and
    delivered again after a delay."""


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


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsumerSpec(Generic[U]):
    """What a service declares of its consumer; everything else is the platform's.

    ``name`` is the consumer's name in the applied-version record and the parked tables (and its
    durable unless the consumer is given another). ``apply(uow, envelope)`` is the effect of one
    event. ``unit(conn, table_ids)`` opens the unit of work of a batch on the transaction's
    connection (entered before the batch's first event, exited after its last, inside the
    transaction); None for an external effect. ``external``: the effect lies outside the database
    and is idempotent by its command ids (see the module). ``unreadable``: an event okeycore
    cannot read is ``"skip"``-ped (logged, its version counts as applied) or ``"park"``-s its
    table; ``unknown_kind="stop"`` stops the consumer on an event type okeycore does not know (a
    newer table service: upgrade) instead. ``parks``: exceptions of ``apply`` that park the
    event's table; ``stops``: exceptions that stop the consumer.

    The rest tunes the pull consumer: ``batch`` messages a fetch, ``in_flight`` batches at once
    (more than 1 only for an external effect, whose applier keeps each table's order across
    batches), ``ack_wait_s`` (while a batch is handled its messages are kept in progress, so it
    only bounds how long a dead replica's events wait for another replica), ``deliver`` (where a
    new durable starts: ``ALL`` the stream's first event, ``NEW`` events published after), an
    event handed back (RETRY) is given up at its ``max_retries``-th delivery (logged,
    acknowledged), and ``linger_s``: after a batch smaller than ``batch``, the next fetch waits
    until that long after the last one began, so a busy stream comes in fewer, larger batches
    (:data:`PROJECTION_LINGER_S`). ``concurrency``: an external effect's tables handled at once."""

    name: str
    apply: Callable[[U, Envelope], Awaitable[None]]
    unit: Callable[[asyncpg.Connection, Sequence[str]], AbstractAsyncContextManager[U]] | None = None
    external: bool = False
    unreadable: Literal["skip", "park"] = "skip"
    unknown_kind: Literal["skip", "stop"] = "skip"
    parks: tuple[type[Exception], ...] = ()
    stops: tuple[type[Exception], ...] = ()
    component: str = "table-consumer"
    subject: str = "okey.table.>"
    batch: int = 500
    in_flight: int = 1
    ack_wait_s: float = 60.0
    deliver: DeliverPolicy = DeliverPolicy.ALL
    max_retries: int = 20
    linger_s: float = 0.0
    concurrency: int = 64

    def __post_init__(self) -> None:
        if self.in_flight < 1:
            raise ValueError("in_flight: at least 1")
        if self.in_flight > 1 and not self.external:
            raise ValueError("in_flight: more than 1 only for an external effect (it keeps each table's order)")
        if not 0.0 <= self.linger_s < self.ack_wait_s:
            # lingering as long as a dead replica's events wait for another would be a failover
            raise ValueError(f"linger_s: 0 up to ack_wait_s ({self.ack_wait_s:g} s), not {self.linger_s:g}")
        if self.external and (self.unit is not None or self.unreadable == "park" or self.parks):
            raise ValueError("an external effect has no unit of work and parks nothing")
        if not self.external and self.unit is None:
            raise ValueError("an effect in the database needs its unit of work (unit)")


@dataclass(slots=True)
class BatchResult:
    outcomes: list[str]  # per item, in the order given
    versions: dict[str, int]  # each table's applied version afterwards
    applied: int = 0
    held: list[int] = field(default_factory=list)  # indexes of the items held back
    parked: dict[str, tuple[int, str]] = field(default_factory=dict)  # tables parked now: (version, why)


LogSource = EventStore | Callable[[], Awaitable[EventStore]]
"""The PostgreSQL log, or how to open it when first needed."""


class Applier(Protocol):
    async def apply(self, items: Sequence[Item]) -> BatchResult: ...


def applier_for(spec: ConsumerSpec[Any], pool: asyncpg.Pool) -> VersionedApplier[Any] | ConcurrentApplier:
    """The applier the spec declares: in the database's transaction, or external."""
    return ConcurrentApplier(spec, pool) if spec.external else VersionedApplier(spec, pool)


def parked_health(name: str) -> str:
    """The health entry of a consumer's parked tables: NOT_SERVING while any is parked."""
    return f"okey.{name}.parked"


class TableEventConsumer:
    """Consumer ``spec`` over ``pool`` (its record and its effects) and the stream at
    ``nats_url``; runs until ``stop()``; ``run`` raises the error that stopped it, if any.
    ``durable``: the JetStream durable (default the spec's name). ``log``: the PostgreSQL log,
    read for versions the stream no longer holds. ``on_applied``: told of each batch's events
    applied."""

    def __init__(
        self,
        spec: ConsumerSpec[Any],
        pool: asyncpg.Pool,
        nats_url: str,
        *,
        durable: str | None = None,
        stream: str = TABLE_STREAM,
        log: LogSource | None = None,
        on_applied: Callable[[Sequence[Item]], None] | None = None,
    ) -> None:
        self.spec = spec
        self.pool = pool
        self.app: Applier = applier_for(spec, pool)
        self.nats_url = nats_url
        self.durable = durable or spec.name
        self.stream = stream
        self.subject = spec.subject
        self.batch = spec.batch
        self.in_flight = spec.in_flight
        self.deliver = spec.deliver
        self.max_retries = spec.max_retries
        self.ack_wait_s = spec.ack_wait_s
        self.linger_s = spec.linger_s
        self.fatal: tuple[type[Exception], ...] = (FatalEvent, *spec.stops)
        self._log_source = log
        self._log_store: EventStore | None = None
        self.on_applied = on_applied
        self.on_parked: Callable[[dict[str, tuple[int, str]]], None] | None = None
        self.parked = 0  # events skipped because their table is parked
        self.applied = 0
        self.duplicates = 0
        self.held = 0
        self.retried = 0  # events handed back for a later try (RETRY)
        self.given_up = 0  # events still RETRY after max_retries deliveries (acknowledged, logged)
        self.rejected = 0  # messages that were no table event (acknowledged, logged)
        self.gap_fills = 0  # missing versions read back from the stream
        self.log_fills = 0  # missing versions read back from the PostgreSQL log
        self.last_lag_s = 0.0
        self.error: BaseException | None = None
        self.ready = asyncio.Event()
        self.log_component = spec.component
        self.log = get_logger(component=spec.component)
        self._stop = asyncio.Event()
        self._parked_tables: set[str] = set()
        name = self.durable
        self._m_outcomes = {o: M.CONSUMER_MESSAGES.labels(name, o.lower()) for o in _OUTCOMES}
        self._m_lag = M.CONSUMER_LAG.labels(name)
        self._m_lag_s = M.CONSUMER_LAG_SECONDS.labels(name)
        self._m_redelivered = M.CONSUMER_REDELIVERIES.labels(name)
        self._m_parked = M.CONSUMER_PARKED.labels(name)
        self._m_batch = M.CONSUMER_BATCH.labels(name)

    def serve_parked_health(self, host: ServiceHost[Any]) -> str:
        """The consumer's ``okey.<name>.parked`` health entry on ``host``: SERVING while no
        table is parked, NOT_SERVING (and a log line per table) once one is, from the start and
        as tables are parked; the service itself keeps serving."""
        entry = parked_health(self.spec.name)

        async def show(parked: Sequence[tuple[str, int, str]]) -> None:
            if host.health is None:
                return
            status = health_pb2.HealthCheckResponse.NOT_SERVING if parked else health_pb2.HealthCheckResponse.SERVING
            await host.health.set(entry, status)
            for table_id, version, reason in parked:
                self.log.warning("table_parked", table_id=table_id, version=version, reason=reason)

        def on_parked(parked: dict[str, tuple[int, str]]) -> None:
            asyncio.get_running_loop().create_task(show([(t, v, r) for t, (v, r) in parked.items()]))

        async def started() -> None:
            async with self.pool.acquire() as conn:
                await show(await parked_tables(conn, self.spec.name))

        self.on_parked = on_parked
        host.on_started(started)
        return entry

    def stop(self) -> None:
        self._stop.set()

    def _measure(self, msgs: list[Msg]) -> None:
        """The lag gauges from a fetched batch's last message: JetStream's count of messages
        still to deliver to this consumer (plus this batch), and the age of that event."""
        if not msgs:
            return
        last = msgs[-1].metadata
        self._m_lag.set((last.num_pending or 0) + len(msgs))
        if last.timestamp is not None:
            self._m_lag_s.set(max(0.0, (datetime.now(UTC) - last.timestamp).total_seconds()))
        again = sum(1 for m in msgs if (m.metadata.num_delivered or 1) > 1)
        if again:
            self._m_redelivered.inc(again)

    async def run(self) -> None:
        nc = await self._connect()
        if nc is None:
            return
        try:
            js = nc.jetstream()
            psub = await self._subscribe(js)
            if psub is None:
                return
            self.ready.set()
            backoff = 0.2
            slots = asyncio.Semaphore(self.in_flight)
            running: set[asyncio.Task[None]] = set()
            while not self._stop.is_set():
                await slots.acquire()
                for t in [t for t in running if t.done()]:
                    running.discard(t)
                    t.result()  # a batch that stopped on a fatal event stops the consumer
                fetched_at = time.monotonic()
                try:
                    msgs = await psub.fetch(self.batch, timeout=1.0)
                except TimeoutError:
                    slots.release()
                    self._m_lag.set(0)  # nothing to fetch for a second: caught up
                    self._m_lag_s.set(0)
                    continue
                except (nats.errors.Error, OSError) as exc:
                    slots.release()
                    self.log.warning("fetch_retry", error=repr(exc), backoff=backoff)
                    await self._sleep(backoff)
                    backoff = min(backoff * 2, 5.0)
                    continue
                backoff = 0.2
                self._measure(msgs)
                if self.in_flight == 1:
                    try:
                        await self._handle_kept(js, msgs)
                    finally:
                        slots.release()
                else:
                    task = asyncio.create_task(self._handle_kept(js, msgs))
                    task.add_done_callback(lambda _t: slots.release())
                    running.add(task)
                if self.linger_s and len(msgs) < self.batch:
                    left = self.linger_s - (time.monotonic() - fetched_at)
                    if left > 0:
                        await self._sleep(left)
            for t in running:
                t.cancel()
            for t in running:
                with contextlib.suppress(asyncio.CancelledError):
                    await t
        except self.fatal as exc:
            self.error = exc
            self.log.error("projector_stopped", error=str(exc))
            raise
        finally:
            await nc.close()

    async def _handle_kept(self, js: JetStreamContext, msgs: list[Msg]) -> None:
        """``_handle``, the messages kept in progress meanwhile (a long batch is not redelivered
        under it; a dead replica's batch is, after ``ack_wait_s``)."""
        work = asyncio.ensure_future(self._handle(js, msgs))
        try:
            while not (await asyncio.wait({work}, timeout=self.ack_wait_s / 3))[0]:
                for m in msgs:
                    with contextlib.suppress(Exception):  # NATS away a moment: the next beat may pass
                        await m.in_progress()
        except asyncio.CancelledError:
            work.cancel()
            raise
        work.result()

    async def _connect(self) -> Any:
        """NATS, waiting for it while it is down at start (None when asked to stop first)."""
        return await connect_nats(self.nats_url, self._stop, self.log_component)

    async def _sleep(self, seconds: float) -> None:
        await pause(self._stop, seconds)

    async def _subscribe(self, js: JetStreamContext) -> Any:
        backoff = 0.2
        while not self._stop.is_set():
            try:
                await bind_table_stream(js)  # the relay creates it and owns its configuration
                return await js.pull_subscribe(
                    self.subject,
                    durable=self.durable,
                    stream=self.stream,
                    config=ConsumerConfig(
                        deliver_policy=self.deliver,
                        ack_policy=AckPolicy.EXPLICIT,
                        ack_wait=self.ack_wait_s,
                        max_deliver=-1,
                        max_ack_pending=20_000,
                    ),
                )
            except (nats.errors.Error, OSError, TimeoutError) as exc:
                self.log.warning("subscribe_retry", error=repr(exc), backoff=backoff)
                await self._sleep(backoff)
                backoff = min(backoff * 2, 5.0)
        return None

    async def _handle(self, js: JetStreamContext, msgs: list[Msg]) -> None:
        t0 = time.perf_counter()
        try:
            await self._handle_batch(js, msgs)
        finally:
            self._m_batch.observe(time.perf_counter() - t0)

    async def _handle_batch(self, js: JetStreamContext, msgs: list[Msg]) -> None:
        items: list[Item] = []
        kept: list[Msg] = []
        for m in msgs:
            try:
                items.append(decode(m.data, m.headers))
                kept.append(m)
            except RejectedMessage as exc:
                self.rejected += 1
                self._m_outcomes["REJECTED"].inc()
                self.log.warning("message_rejected", subject=m.subject, error=str(exc))
                await m.ack()
        msgs = kept
        if not msgs:
            return
        error: Exception | None = None
        while True:
            try:
                result = await self._apply(items, msgs)
                break
            except self.fatal as exc:
                # Apply everything before the bad event (other tables, and this table's
                # earlier versions), acknowledge that, then stop on the bad one.
                error = error or exc
                bad_table, bad_version = getattr(exc, "table_id", None), getattr(exc, "version", None)
                keep = [
                    k
                    for k, it in enumerate(items)
                    if not (it.table_id == bad_table and it.version >= (bad_version or 0))
                ]
                if bad_table is None or len(keep) == len(items):
                    raise error from None
                items, msgs = [items[k] for k in keep], [msgs[k] for k in keep]
                if not items:
                    raise error from None
        if result is None:
            return
        self._parked(result.parked)
        outcomes = list(result.outcomes)
        if result.held:
            filled = await self._fill_gaps(js, [items[i] for i in result.held], result.versions)
            if filled:
                again = await self._apply([*filled, *(items[i] for i in result.held)], None)
                if again is None:
                    return
                self._parked(again.parked)
                for k, i in enumerate(result.held):
                    outcomes[i] = again.outcomes[len(filled) + k]
                self._count([it for it, o in zip(filled, again.outcomes, strict=False) if o == APPLIED])
        self._count([it for it, o in zip(items, outcomes, strict=True) if o == APPLIED])
        for m, o in zip(msgs, outcomes, strict=True):
            counted = self._m_outcomes.get(o)
            if counted is not None:
                counted.inc()
            if o == HELD:
                self.held += 1
                n = m.metadata.num_delivered or 1
                delay = min(0.1 * 2 ** min(n, 6), 5.0)
                self.log.info("event_held_back", table=m.subject, delay_s=delay)
                await m.nak(delay=delay)
            elif o == RETRY:
                n = m.metadata.num_delivered or 1
                if n >= self.max_retries:
                    self.given_up += 1
                    self.log.error("event_given_up", table=m.subject, deliveries=n)
                    await m.ack()
                    continue
                self.retried += 1
                await m.nak(delay=min(0.5 * 2 ** min(n - 1, 4), 5.0))
            else:
                self.duplicates += o == DUPLICATE
                self.parked += o == PARKED  # acknowledged: the log keeps it for `okey replay`
                await m.ack()
        if error is not None:
            raise error

    async def _apply(self, items: list[Item], msgs: list[Msg] | None) -> Any:
        """Project, retrying while PostgreSQL is unreachable or restarting (the messages are
        kept in progress meanwhile); None when asked to stop first."""
        backoff = 0.2
        while True:
            try:
                return await self.app.apply(items)
            except (
                asyncpg.PostgresConnectionError,
                asyncpg.InterfaceError,
                # 57xxx: "the database system is shutting down / starting up", "terminating
                # connection due to administrator command": PostgreSQL restarting, not a bad event.
                asyncpg.exceptions.OperatorInterventionError,
                # "cannot switch to state ..; another operation is in progress": a connection the
                # restart cut mid-operation; the pool replaces it.
                asyncpg.exceptions.InternalClientError,
                # 40xxx: a deadlock or a serialization failure rolled the batch back; nothing of
                # it was applied, so it is tried again (a consumer whose handler writes rows a
                # request also locks, like the lobby's, may meet one).
                asyncpg.exceptions.TransactionRollbackError,
                OSError,
            ) as exc:
                if self._stop.is_set():
                    return None
                self.log.warning("apply_retry", error=repr(exc), backoff=backoff)
                for m in msgs or ():
                    await m.in_progress()
                await self._sleep(backoff)
                backoff = min(backoff * 2, 5.0)

    def _parked(self, parked: dict[str, tuple[int, str]]) -> None:
        if parked:
            self._parked_tables.update(parked)
            self._m_parked.set(len(self._parked_tables))
        if parked and self.on_parked is not None:
            self.on_parked(parked)

    def _count(self, applied: list[Item]) -> None:
        if not applied:
            return
        self.applied += len(applied)
        now = datetime.now(UTC)
        self.last_lag_s = max(0.0, (now - applied[-1].time).total_seconds())
        if self.on_applied is not None:
            self.on_applied(applied)

    async def _fill_gaps(self, js: JetStreamContext, held: list[Item], versions: dict[str, int]) -> list[Item]:
        """The missing versions below held-back events, read from the stream (they may sit
        later in it, or be waiting for redelivery to this consumer)."""
        want: dict[str, set[int]] = {}
        for it in held:
            have = versions.get(it.table_id, 0)
            want.setdefault(it.table_id, set()).update(range(have + 1, it.version))
        for it in held:
            want[it.table_id].discard(it.version)
        out: list[Item] = []
        for table_id, versions_wanted in want.items():
            if not versions_wanted:
                continue
            got = await self._read_versions(js, table_id, versions_wanted)
            out += got
            still = versions_wanted - {it.version for it in got}
            if still and self._log_source is not None:
                # Not in the stream (any more): its retention aged them out, or they are
                # in flight. The log has every event: catch up from it, never skip.
                try:
                    from_log = await self._from_log(table_id, still)
                except (asyncpg.PostgresError, OSError) as exc:
                    self.log.warning("log_fill_failed", table_id=table_id, error=repr(exc))
                    from_log = []
                self.log_fills += len(from_log)
                if from_log:
                    self.log.info("gap_filled_from_log", table_id=table_id, versions=len(from_log))
                out += from_log
        return out

    async def _from_log(self, table_id: str, versions: set[int]) -> list[Item]:
        """Versions of a table from the PostgreSQL log, as the relay would have published them."""
        if self._log_store is None:
            source = self._log_source
            if source is None:
                return []
            self._log_store = await source() if callable(source) else source
        got = await read_log(self._log_store, table_id, min(versions) - 1, max(versions))
        return [it for it in got if it.version in versions]

    async def _read_versions(self, js: JetStreamContext, table_id: str, wanted: set[int]) -> list[Item]:
        found: dict[int, Item] = {}
        try:
            sub = await js.pull_subscribe(
                table_subject(table_id),
                stream=self.stream,
                config=ConsumerConfig(
                    deliver_policy=DeliverPolicy.ALL,
                    ack_policy=AckPolicy.EXPLICIT,
                    inactive_threshold=10.0,
                    mem_storage=True,
                ),
            )
        except (nats.errors.Error, TimeoutError) as exc:
            self.log.warning("gap_fill_failed", table_id=table_id, error=repr(exc))
            return []
        try:
            deadline = time.monotonic() + 5.0
            while wanted - found.keys() and time.monotonic() < deadline:
                try:
                    msgs = await sub.fetch(500, timeout=0.5)
                except TimeoutError:
                    break
                for m in msgs:
                    try:
                        it = decode(m.data, m.headers)
                    except RejectedMessage:
                        continue
                    if it.version in wanted:
                        found[it.version] = it
                if not msgs or msgs[-1].metadata.num_pending == 0:
                    break
        except (nats.errors.Error, TimeoutError) as exc:
            self.log.warning("gap_fill_failed", table_id=table_id, error=repr(exc))
        finally:
            try:
                info = await sub.consumer_info()
                await sub.unsubscribe()
                await js.delete_consumer(self.stream, info.name)
            except (nats.errors.Error, TimeoutError):
                pass
        self.gap_fills += len(found)
        self.log.info("gap_filled" if found else "gap_open", table_id=table_id, wanted=sorted(wanted), found=len(found))
        return [found[v] for v in sorted(found)]


CONSUMER_MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
        -- Each consumer's applied version per table, written in the transaction of the effects
        -- of that version (okeyplatform.consumer): exactly-once in effect.
        CREATE TABLE IF NOT EXISTS okey_consumer_versions (
            consumer TEXT NOT NULL,
            table_id TEXT NOT NULL,
            version  INT NOT NULL,
            PRIMARY KEY (consumer, table_id)
        );
        """,
    ),
    (
        2,
        """
        -- Each consumer's parked tables: the version it could not apply and why. Their later
        -- events are skipped until the service rebuilds them (scoring: `okey replay`).
        CREATE TABLE IF NOT EXISTS okey_consumer_parked (
            consumer  TEXT NOT NULL,
            table_id  TEXT NOT NULL,
            version   INT NOT NULL,
            reason    TEXT NOT NULL,
            parked_at TIMESTAMPTZ NOT NULL DEFAULT now(),
            PRIMARY KEY (consumer, table_id)
        );
        """,
    ),
]


async def migrate_consumer_versions(conn: asyncpg.Connection) -> list[int]:
    """The applied-version record's and the parked tables' tables (each service's migrate
    applies them)."""
    return await migrate(conn, CONSUMER_MIGRATIONS, scope="consumer")


async def read_versions(
    conn: asyncpg.Connection, name: str, table_ids: Sequence[str], lock: bool = False
) -> dict[str, int]:
    """Consumer ``name``'s applied version of each of ``table_ids`` it has a record of."""
    rows = await conn.fetch(
        "SELECT table_id, version FROM okey_consumer_versions WHERE consumer = $1 AND table_id = ANY($2::text[])"
        + (" ORDER BY table_id FOR UPDATE" if lock else ""),
        name,
        list(table_ids),
    )
    return {r["table_id"]: r["version"] for r in rows}


async def record_versions(conn: asyncpg.Connection, name: str, versions: Mapping[str, int]) -> None:
    """Consumer ``name``'s applied version of each table, never moved back."""
    if not versions:
        return
    tables = sorted(versions)
    await conn.execute(
        "INSERT INTO okey_consumer_versions (consumer, table_id, version) "
        "SELECT $1, t, v FROM unnest($2::text[], $3::int[]) AS x(t, v) "
        "ON CONFLICT (consumer, table_id) DO UPDATE "
        "SET version = GREATEST(okey_consumer_versions.version, EXCLUDED.version)",
        name,
        tables,
        [versions[t] for t in tables],
    )


async def park(conn: asyncpg.Connection, name: str, table_id: str, version: int, reason: str) -> None:
    """Consumer ``name`` sets ``table_id`` aside at ``version`` (the first park stays)."""
    await conn.execute(
        "INSERT INTO okey_consumer_parked (consumer, table_id, version, reason) VALUES ($1, $2, $3, $4) "
        "ON CONFLICT (consumer, table_id) DO NOTHING",
        name,
        table_id,
        version,
        reason[:500],
    )


async def parked_tables(conn: asyncpg.Connection, name: str) -> list[tuple[str, int, str]]:
    """Consumer ``name``'s parked tables: (table_id, version, reason), oldest first."""
    rows = await conn.fetch(
        "SELECT table_id, version, reason FROM okey_consumer_parked WHERE consumer = $1 ORDER BY parked_at, table_id",
        name,
    )
    return [(r["table_id"], r["version"], r["reason"]) for r in rows]


async def replace_parked(conn: asyncpg.Connection, name: str, parked: Mapping[str, tuple[int, str]]) -> None:
    """After a rebuild: consumer ``name``'s parked tables are those the rebuild could not apply."""
    await conn.execute("DELETE FROM okey_consumer_parked WHERE consumer = $1", name)
    for table_id, (version, reason) in sorted(parked.items()):
        await park(conn, name, table_id, version, reason)


async def read_log(log: EventStore, table_id: str, after: int, upto: int | None = None) -> list[Item]:
    """A table's versions after ``after`` (up to ``upto``) from the PostgreSQL log, decoded as
    the relay publishes them."""
    stored = await log.read_stream(table_id, after_version=after, limit=None if upto is None else upto - after)
    return [envelope_of(e) for e in stored]


def _by_table(items: Sequence[Item]) -> dict[str, list[int]]:
    """Each table's items' indexes, in version order."""
    by_table: dict[str, list[int]] = {}
    for i, it in enumerate(items):
        by_table.setdefault(it.table_id, []).append(i)
    for idxs in by_table.values():
        idxs.sort(key=lambda i: items[i].version)
    return by_table


class _Park(Exception):
    """An event of a table that is to be parked (inside the applier)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class VersionedApplier(Generic[U]):
    """The record for an effect in the database: in one transaction per batch, each table's
    applied version is read (locked), the spec's unit of work is opened on the transaction's
    connection, the next versions are handed to ``apply`` in order, and the new versions are
    written. A redelivered version is a DUPLICATE and ``apply`` never sees it; a version past a
    gap is HELD; an event of a parked table is PARKED. A batch PostgreSQL refuses a value of
    (``DataError``, a number past its column) is applied again a table at a time, and the table
    it comes from is parked at its first version in the batch."""

    def __init__(self, spec: ConsumerSpec[U], pool: asyncpg.Pool) -> None:
        self.spec = spec
        self.pool = pool
        self.name = spec.name
        self.log = get_logger(component=spec.component)

    async def versions(self, conn: asyncpg.Connection, table_ids: Sequence[str], lock: bool = False) -> dict[str, int]:
        return await read_versions(conn, self.name, table_ids, lock)

    async def apply(self, items: Sequence[Item]) -> BatchResult:
        try:
            return await self._apply(items)
        except (asyncpg.DataError, OverflowError) as exc:
            self.log.warning("apply_isolating", error=repr(exc))
        result = BatchResult([""] * len(items), {})
        for table_id, idxs in _by_table(items).items():
            group = [items[i] for i in idxs]
            try:
                got = await self._apply(group)
            except (asyncpg.DataError, OverflowError) as exc:
                version = group[0].version
                why = f"a value PostgreSQL refuses in versions {version}..: {exc!r}"[:500]
                async with self.pool.acquire() as conn, conn.transaction():
                    await park(conn, self.name, table_id, version, why)
                self.log.error("table_parked", table_id=table_id, version=version, reason=why)
                got = BatchResult([PARKED] * len(group), {}, parked={table_id: (version, why)})
            for k, i in enumerate(idxs):
                result.outcomes[i] = got.outcomes[k]
                if got.outcomes[k] == HELD:
                    result.held.append(i)
            result.versions.update(got.versions)
            result.applied += got.applied
            result.parked.update(got.parked)
        return result

    async def _apply(self, items: Sequence[Item]) -> BatchResult:
        by_table = _by_table(items)
        tables = sorted(by_table)
        result = BatchResult([""] * len(items), {})
        assert self.spec.unit is not None
        async with self.pool.acquire() as conn, conn.transaction():
            # A row for every table first (version 0: none applied), so the lock below holds
            # even for a table's first events: two replicas given them at once apply them once.
            await conn.execute(
                "INSERT INTO okey_consumer_versions (consumer, table_id, version) "
                "SELECT $1, t, 0 FROM unnest($2::text[]) AS t ORDER BY t ON CONFLICT DO NOTHING",
                self.name,
                tables,
            )
            known = await self.versions(conn, tables, lock=True)
            parked = {
                r["table_id"]
                for r in await conn.fetch(
                    "SELECT table_id FROM okey_consumer_parked WHERE consumer = $1 AND table_id = ANY($2::text[])",
                    self.name,
                    tables,
                )
            }
            async with self.spec.unit(conn, tables) as uow:
                for table_id, idxs in by_table.items():
                    current = known.get(table_id, 0)
                    for i in idxs:
                        it = items[i]
                        if table_id in parked or table_id in result.parked:
                            result.outcomes[i] = PARKED
                        elif it.version <= current:
                            result.outcomes[i] = DUPLICATE
                        elif it.version == current + 1:
                            try:
                                await self._one(uow, it)
                            except _Park as exc:
                                result.parked[table_id] = (it.version, exc.why[:500])
                                result.outcomes[i] = PARKED
                                continue
                            current = it.version
                            result.outcomes[i] = APPLIED
                            result.applied += 1
                        else:
                            result.outcomes[i] = HELD
                            result.held.append(i)
                    result.versions[table_id] = current
            moved = {t: v for t, v in result.versions.items() if v != known.get(t, 0)}
            await record_versions(conn, self.name, moved)
            for table_id, (version, why) in result.parked.items():
                await park(conn, self.name, table_id, version, why)
        for table_id, (version, why) in result.parked.items():
            self.log.error("table_parked", table_id=table_id, version=version, reason=why)
        return result

    async def _one(self, uow: U, it: Item) -> None:
        """One event's effect, or why its table is parked (``_Park``)."""
        if isinstance(it, Unreadable):
            if isinstance(it.error, UnknownEvent) and self.spec.unknown_kind == "stop":
                raise FatalEvent(
                    f"unknown event type {it.error.kind!r} at table {it.table_id!r} version {it.version}: "
                    f"{self.name} cannot read it (a newer table service wrote it?): upgrade {self.name}",
                    it.table_id,
                    it.version,
                )
            if self.spec.unreadable == "park":
                raise _Park(str(it.error))
            self.log.error("event_unreadable", table_id=it.table_id, version=it.version, error=str(it.error))
            return
        with consumer_span(self.name, it):
            try:
                await self.spec.apply(uow, it)
            except self.spec.stops:
                raise
            except self.spec.parks as exc:
                raise _Park(str(exc)) from None

    async def catch_up(self, log: EventStore, table_ids: Sequence[str]) -> int:
        """Every version of ``table_ids`` past the record, read from the PostgreSQL log and applied
        (a live consumer's later copy is then a duplicate); returns how many were applied."""
        async with self.pool.acquire() as conn:
            known = await self.versions(conn, table_ids)
        applied = 0
        for table_id in table_ids:
            items = await read_log(log, table_id, known.get(table_id, 0))
            if items:
                applied += (await self.apply(items)).applied
        return applied


class ConcurrentApplier:
    """The record for an external effect, idempotent by its command ids (the bots: each
    command's id is fixed by the view it was decided on, and the table keeps one command per id).
    A batch's tables are handled at once (at most the spec's ``concurrency``), each table's events
    in version order, and not inside a transaction; the versions handled are recorded after, in
    one short one. A version at or below the record is a DUPLICATE. Gaps do not matter (the
    effect acts on the latest state), so a version past one is handled; an unreadable event is
    logged and counts as handled.

    ``apply(None, envelope)`` raising :class:`RetryLater` hands that event and its table's later
    ones in the batch back (RETRY); any other exception is logged and the event counts as
    handled, so one table's bug does not stop the others. Each table's events run under a lock of
    this applier, so batches handled at once (the consumer's ``in_flight``) keep a table's order."""

    def __init__(self, spec: ConsumerSpec[None], pool: asyncpg.Pool) -> None:
        self.spec = spec
        self.pool = pool
        self.name = spec.name
        self.failed = 0  # events whose handler raised (logged, counted as handled)
        self.log = get_logger(component=spec.component)
        self._sem = asyncio.Semaphore(spec.concurrency)
        self._lock: KeyedLocks[str] = KeyedLocks()

    async def apply(self, items: Sequence[Item]) -> BatchResult:
        by_table = _by_table(items)
        result = BatchResult([""] * len(items), {})
        async with self.pool.acquire() as conn:
            known = await read_versions(conn, self.name, sorted(by_table))
        handled: dict[str, int] = {}

        async def table(table_id: str, idxs: list[int]) -> None:
            current = known.get(table_id, 0)
            async with self._lock(table_id):
                for k, i in enumerate(idxs):
                    it = items[i]
                    if it.version <= current:
                        result.outcomes[i] = DUPLICATE
                        continue
                    try:
                        if isinstance(it, Unreadable):
                            self.log.error(
                                "event_unreadable", table_id=table_id, version=it.version, error=str(it.error)
                            )
                        else:
                            async with self._sem:
                                with consumer_span(self.name, it):
                                    await self.spec.apply(None, it)
                    except RetryLater as exc:
                        self.log.info("event_retry_later", table_id=table_id, version=it.version, why=str(exc))
                        for j in idxs[k:]:
                            result.outcomes[j] = RETRY
                        break
                    except Exception as exc:
                        self.failed += 1
                        self.log.error("handle_failed", table_id=table_id, version=it.version, error=repr(exc))
                    current = it.version
                    result.outcomes[i] = APPLIED
                    result.applied += 1
            result.versions[table_id] = current
            if current > known.get(table_id, 0):
                handled[table_id] = current

        await asyncio.gather(*(table(t, idxs) for t, idxs in by_table.items()))
        async with self.pool.acquire() as conn:
            await record_versions(conn, self.name, handled)
        return result

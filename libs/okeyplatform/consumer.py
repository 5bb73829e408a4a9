"""One consumer of the table events: a durable pull consumer of OKEY_TABLES, exactly once in
effect, never out of order.

Each fetched batch is applied in one transaction that also records every table's applied
version; only then are its messages acknowledged. A message redelivered after a crash, or
published twice, is at or below the applied version and changes nothing. A message ahead of a
gap is held back: the missing versions are read from the stream (an ephemeral consumer on that
table's subject), else from the PostgreSQL log (``log_reader``), and applied first; when neither
holds them yet the message is negatively acknowledged with a delay and waits for its
redelivery. NATS or PostgreSQL going away (at start, or a restart) is waited out with backoff;
the consumer never creates or changes the stream (:func:`~okeyplatform.relay.bind_table_stream`).

Who applies is the consumer's ``applier``: the scoring projection (which keeps its applied
versions in its own rows), or :class:`VersionedApplier`, the applied-version record for any
handler: ``handler(conn, item)`` runs inside the transaction that records the version, so its
writes on ``conn`` happen exactly once; or :class:`ConcurrentApplier`, for a handler whose effects
lie outside the database and are idempotent (the bots' commands, whose ids the table keeps): its
tables run at once, each table's events in order, and the versions handled are recorded after.

A message that is not a table event at all (``decode`` raises :class:`RejectedMessage`) is logged,
counted and acknowledged: nothing a publisher puts on the subjects stops a consumer."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, Protocol, TypeVar

import asyncpg
import nats
from nats.aio.msg import Msg
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.client import JetStreamContext

from . import metrics as M
from .aioloop import KeyedLocks
from .bus import connect_nats, pause
from .contract import BadEnvelope, Envelope, decode_envelope
from .eventstore import migrate
from .logs import get_logger
from .relay import TABLE_STREAM, bind_table_stream, table_subject
from .tracing import consumer_span

__all__ = [
    "PROJECTION_LINGER_S",
    "TableEventConsumer",
    "VersionedApplier",
    "BatchResult",
    "Applier",
    "FatalEvent",
    "RejectedMessage",
    "RetryLater",
    "ConcurrentApplier",
    "EventItem",
    "decode_item",
    "APPLIED",
    "DUPLICATE",
    "HELD",
    "PARKED",
    "RETRY",
    "CONSUMER_MIGRATIONS",
    "migrate_consumer_versions",
    "record_versions",
]

APPLIED = "APPLIED"
DUPLICATE = "DUPLICATE"  # at or below the applied version: already applied
HELD = "HELD"  # ahead of a gap: not applied until the missing versions are
PARKED = "PARKED"  # its table is parked: an event of it could not be applied (the applier's call)
RETRY = "RETRY"  # not applied now (a service it needs is away): handed back, tried again later
PROJECTION_LINGER_S = 0.1
"""How long the projections (scoring, the lobby's payouts) let a busy stream gather between two
fetches: a batch of ~12 events at 500 events/s becomes one of ~50, in one transaction; they are
at most this much later. The bots do not linger (a bot's turn waits on its consumer)."""
_OUTCOMES = (APPLIED, DUPLICATE, HELD, PARKED, RETRY, "REJECTED")  # okey_consumer_messages_total{outcome}


class _Item(Protocol):
    @property
    def table_id(self) -> str: ...

    @property
    def version(self) -> int: ...

    @property
    def recorded_at(self) -> datetime: ...


I = TypeVar("I", bound=_Item)  # noqa: E741


@dataclass(slots=True)
class BatchResult:
    outcomes: list[str]  # per item, in the order given
    versions: dict[str, int]  # each table's applied version afterwards
    applied: int = 0
    held: list[int] = field(default_factory=list)  # indexes of the items held back
    parked: dict[str, tuple[int, str]] = field(default_factory=dict)  # tables parked now: (version, why)


class Applier(Protocol[I]):
    async def apply(self, items: Sequence[I]) -> BatchResult: ...


class FatalEvent(Exception):
    """An event the consumer cannot go past: it stops, after applying the events before it."""

    def __init__(self, message: str, table_id: str | None = None, version: int | None = None) -> None:
        super().__init__(message)
        self.table_id = table_id
        self.version = version


class RejectedMessage(Exception):
    """Raised by ``decode``: the message is no table event envelope (no table, no version). The
    consumer logs it and acknowledges it; the PostgreSQL log, the truth, never holds such a thing."""


class RetryLater(Exception):
    """Raised by a :class:`ConcurrentApplier` handler: this event cannot be handled now (the
    service its effect goes to is unreachable); it and its table's later events in the batch are
    handed back and delivered again after a delay."""


@dataclass(frozen=True, slots=True)
class EventItem:
    """A table event envelope as an item of the consumer (what :class:`VersionedApplier` hands on)."""

    envelope: Envelope

    @property
    def table_id(self) -> str:
        return self.envelope.table_id

    @property
    def version(self) -> int:
        return self.envelope.version

    @property
    def recorded_at(self) -> datetime:
        return self.envelope.time


def decode_item(data: bytes, headers: Mapping[str, str] | None = None) -> EventItem:
    try:
        return EventItem(decode_envelope(data, headers))
    except BadEnvelope as exc:
        raise RejectedMessage(f"not a table event envelope: {exc}") from None


class TableEventConsumer(Generic[I]):
    """Runs until ``stop()``; ``run`` raises the ``fatal`` error that stopped it, if any.

    ``applier.apply(items)`` applies a batch in its own transaction and says, per item, whether
    it was APPLIED, a DUPLICATE (at or below the applied version it records in that same
    transaction), HELD (past a gap) or PARKED; :class:`VersionedApplier` is that record for any
    handler. ``decode`` turns a message into an item (``table_id``, ``version``, ``recorded_at``);
    ``log_reader`` reads versions the stream no longer holds from the PostgreSQL log; ``fatal``
    (with ``table_id`` and ``version``) stops the consumer after the events before it.

    ``in_flight`` batches are handled at once (1: one after the other; more only with an applier
    that keeps each table's events in order across batches, like :class:`ConcurrentApplier`).
    While a batch is handled its messages are kept in progress, so ``ack_wait_s`` only bounds how
    long the events a dead replica held wait before another replica gets them. ``deliver``: where
    a new durable starts (``ALL`` the stream's first event; ``NEW`` only events published after).
    An event handed back (RETRY) is delivered again after a growing delay, and given up (logged,
    acknowledged) at its ``max_retries``-th delivery. ``linger_s``: after a batch smaller than
    ``batch``, the next fetch waits until that long after the last one began, so a busy stream
    comes in fewer, larger batches (each batch is one transaction of the applier: a projection
    that can be a moment behind spends less per event; :data:`PROJECTION_LINGER_S`)."""

    def __init__(
        self,
        applier: Applier[I],
        nats_url: str,
        decode: Callable[[bytes, Mapping[str, str] | None], I],
        durable: str,
        stream: str = TABLE_STREAM,
        subject: str = "okey.table.>",
        batch: int = 500,
        on_applied: Callable[[Sequence[I]], None] | None = None,
        log_reader: Callable[[str, set[int]], Awaitable[list[I]]] | None = None,
        fatal: type[Exception] = FatalEvent,
        ack_wait_s: float = 60.0,
        component: str = "table-consumer",
        in_flight: int = 1,
        deliver: DeliverPolicy = DeliverPolicy.ALL,
        max_retries: int = 20,
        linger_s: float = 0.0,
    ) -> None:
        if in_flight < 1:
            raise ValueError("in_flight: at least 1")
        if not 0.0 <= linger_s < ack_wait_s:
            # lingering as long as a dead replica's events wait for another would be a failover
            raise ValueError(f"linger_s: 0 up to ack_wait_s ({ack_wait_s:g} s), not {linger_s:g}")
        self.linger_s = linger_s
        self.app = applier
        self.in_flight = in_flight
        self.deliver = deliver
        self.max_retries = max_retries
        self.decode = decode
        self.fatal = fatal
        self.ack_wait_s = ack_wait_s
        self.log_reader = log_reader  # missing versions from the PostgreSQL log (aged out of the stream)
        self.nats_url = nats_url
        self.durable = durable
        self.stream = stream
        self.subject = subject
        self.batch = batch
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
        self.log_component = component
        self.log = get_logger(component=component)
        self._stop = asyncio.Event()
        self._parked_tables: set[str] = set()
        self._m_outcomes = {o: M.CONSUMER_MESSAGES.labels(durable, o.lower()) for o in _OUTCOMES}
        self._m_lag = M.CONSUMER_LAG.labels(durable)
        self._m_lag_s = M.CONSUMER_LAG_SECONDS.labels(durable)
        self._m_redelivered = M.CONSUMER_REDELIVERIES.labels(durable)
        self._m_parked = M.CONSUMER_PARKED.labels(durable)
        self._m_batch = M.CONSUMER_BATCH.labels(durable)

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
        items: list[I] = []
        kept: list[Msg] = []
        for m in msgs:
            try:
                items.append(self.decode(m.data, m.headers))
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

    async def _apply(self, items: list[I], msgs: list[Msg] | None) -> Any:
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

    def _count(self, applied: list[I]) -> None:
        if not applied:
            return
        self.applied += len(applied)
        now = datetime.now(UTC)
        self.last_lag_s = max(0.0, (now - applied[-1].recorded_at).total_seconds())
        if self.on_applied is not None:
            self.on_applied(applied)

    async def _fill_gaps(self, js: JetStreamContext, held: list[I], versions: dict[str, int]) -> list[I]:
        """The missing versions below held-back events, read from the stream (they may sit
        later in it, or be waiting for redelivery to this consumer)."""
        want: dict[str, set[int]] = {}
        for it in held:
            have = versions.get(it.table_id, 0)
            want.setdefault(it.table_id, set()).update(range(have + 1, it.version))
        for it in held:
            want[it.table_id].discard(it.version)
        out: list[I] = []
        for table_id, versions_wanted in want.items():
            if not versions_wanted:
                continue
            got = await self._read_versions(js, table_id, versions_wanted)
            out += got
            still = versions_wanted - {it.version for it in got}
            if still and self.log_reader is not None:
                # Not in the stream (any more): its retention aged them out, or they are
                # in flight. The log has every event: catch up from it, never skip.
                try:
                    from_log = await self.log_reader(table_id, still)
                except (asyncpg.PostgresError, OSError) as exc:
                    self.log.warning("log_fill_failed", table_id=table_id, error=repr(exc))
                    from_log = []
                self.log_fills += len(from_log)
                if from_log:
                    self.log.info("gap_filled_from_log", table_id=table_id, versions=len(from_log))
                out += from_log
        return out

    async def _read_versions(self, js: JetStreamContext, table_id: str, wanted: set[int]) -> list[I]:
        found: dict[int, I] = {}
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
                    it = self.decode(m.data, m.headers)
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
        -- of that version (okeyplatform.consumer.VersionedApplier): exactly-once in effect.
        CREATE TABLE IF NOT EXISTS okey_consumer_versions (
            consumer TEXT NOT NULL,
            table_id TEXT NOT NULL,
            version  INT NOT NULL,
            PRIMARY KEY (consumer, table_id)
        );
        """,
    )
]


async def migrate_consumer_versions(conn: asyncpg.Connection) -> list[int]:
    """The applied-version record's table (its service's migrate applies it)."""
    return await migrate(conn, CONSUMER_MIGRATIONS, scope="consumer")


class VersionedApplier(Generic[I]):
    """The applied-version record for any handler: in one transaction per batch, each table's
    applied version of consumer ``name`` is read (locked), the next versions are handed to
    ``handler(conn, item)`` in order, and the new versions are written. A redelivered version is a
    DUPLICATE and the handler never sees it. ``gaps``: ``"hold"`` holds back a version past a gap
    (the consumer fills it, the scoring way); ``"skip"`` applies it (for handlers that act on the
    latest state, like the bots, a missed version does not matter). The first version of a table
    the record has not seen is applied whatever it is when ``gaps`` is ``"skip"``."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        name: str,
        handler: Callable[[asyncpg.Connection, I], Awaitable[None]],
        gaps: str = "hold",
    ) -> None:
        if gaps not in ("hold", "skip"):
            raise ValueError("gaps: hold or skip")
        self.pool = pool
        self.name = name
        self.handler = handler
        self.gaps = gaps

    async def versions(self, conn: asyncpg.Connection, table_ids: Sequence[str], lock: bool = False) -> dict[str, int]:
        return await _read_versions(conn, self.name, table_ids, lock)

    async def apply(self, items: Sequence[I]) -> BatchResult:
        by_table: dict[str, list[int]] = {}
        for i, it in enumerate(items):
            by_table.setdefault(it.table_id, []).append(i)
        result = BatchResult([""] * len(items), {})
        async with self.pool.acquire() as conn, conn.transaction():
            # A row for every table first (version 0: none applied), so the lock below holds
            # even for a table's first events: two replicas given them at once apply them once.
            await conn.execute(
                "INSERT INTO okey_consumer_versions (consumer, table_id, version) "
                "SELECT $1, t, 0 FROM unnest($2::text[]) AS t ORDER BY t ON CONFLICT DO NOTHING",
                self.name,
                sorted(by_table),
            )
            known = {t: v for t, v in (await self.versions(conn, sorted(by_table), lock=True)).items() if v > 0}
            for table_id, idxs in sorted(by_table.items()):
                idxs.sort(key=lambda i: items[i].version)
                current = known.get(table_id)
                for i in idxs:
                    it = items[i]
                    if current is not None and it.version <= current:
                        result.outcomes[i] = DUPLICATE
                    elif self.gaps == "skip" or it.version == (current or 0) + 1:
                        with consumer_span(self.name, it):
                            await self.handler(conn, it)
                        current = it.version
                        result.outcomes[i] = APPLIED
                        result.applied += 1
                    else:
                        result.outcomes[i] = HELD
                        result.held.append(i)
                result.versions[table_id] = current or 0
            moved = {t: v for t, v in result.versions.items() if v and v != known.get(t)}
            await record_versions(conn, self.name, moved)
        return result


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


class ConcurrentApplier(Generic[I]):
    """The applied-version record for a handler whose effects lie outside the database and are
    idempotent (the bots: each command's id is fixed by the view it was decided on, and the table
    keeps one command per id). A batch's tables are handled at once (at most ``concurrency``),
    each table's events in version order, and not inside a transaction; the versions handled are
    recorded after, in one short one. A version at or below the record is a DUPLICATE. Gaps do
    not matter (the handler acts on the latest state), so a version past one is handled.

    ``handler(item)`` raising :class:`RetryLater` hands that event and its table's later ones in
    the batch back (RETRY); any other exception is logged and the event counts as handled, so one
    table's bug does not stop the others. Each table's events run under a lock of this applier,
    so batches handled at once (the consumer's ``in_flight``) keep a table's order."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        name: str,
        handler: Callable[[I], Awaitable[None]],
        concurrency: int = 64,
        component: str = "table-consumer",
    ) -> None:
        self.pool = pool
        self.name = name
        self.handler = handler
        self.failed = 0  # events whose handler raised (logged, counted as handled)
        self.log = get_logger(component=component)
        self._sem = asyncio.Semaphore(concurrency)
        self._lock: KeyedLocks[str] = KeyedLocks()

    async def apply(self, items: Sequence[I]) -> BatchResult:
        by_table: dict[str, list[int]] = {}
        for i, it in enumerate(items):
            by_table.setdefault(it.table_id, []).append(i)
        result = BatchResult([""] * len(items), {})
        async with self.pool.acquire() as conn:
            known = await _read_versions(conn, self.name, sorted(by_table))
        handled: dict[str, int] = {}

        async def table(table_id: str, idxs: list[int]) -> None:
            idxs.sort(key=lambda i: items[i].version)
            current = known.get(table_id, 0)
            async with self._lock(table_id):
                for k, i in enumerate(idxs):
                    it = items[i]
                    if it.version <= current:
                        result.outcomes[i] = DUPLICATE
                        continue
                    try:
                        async with self._sem:
                            with consumer_span(self.name, it):
                                await self.handler(it)
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


async def _read_versions(
    conn: asyncpg.Connection, name: str, table_ids: Sequence[str], lock: bool = False
) -> dict[str, int]:
    rows = await conn.fetch(
        "SELECT table_id, version FROM okey_consumer_versions WHERE consumer = $1 AND table_id = ANY($2::text[])"
        + (" ORDER BY table_id FOR UPDATE" if lock else ""),
        name,
        list(table_ids),
    )
    return {r["table_id"]: r["version"] for r in rows}

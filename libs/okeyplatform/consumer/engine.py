"""The consumer's engine (:class:`TableEventConsumer`): a durable pull consumer of OKEY_TABLES that
fetches batches, hands them to the spec's applier, fills gaps, and acknowledges, hands back or
holds each message by its outcome."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import asyncpg
import nats
from nats.aio.msg import Msg
from nats.js.api import AckPolicy, ConsumerConfig
from nats.js.client import JetStreamContext

from .. import metrics as M
from ..bus import connect_nats, pause
from ..logs import get_logger
from ..relay import TABLE_STREAM, bind_table_stream
from .appliers import APPLIED, DUPLICATE, HELD, PARKED, RETRY, Applier, FatalEvent, applier_for
from .decoding import Item, LogSource, RejectedMessage, decode
from .gaps import GapFiller
from .parking import parked_health, show_parked
from .spec import ConsumerSpec

if TYPE_CHECKING:
    from ..host import ServiceHost

_OUTCOMES = (APPLIED, DUPLICATE, HELD, PARKED, RETRY, "REJECTED")  # okey_consumer_messages_total{outcome}


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
        self.on_applied = on_applied
        self.on_parked: Callable[[dict[str, tuple[int, str]]], None] | None = None
        self.parked = 0  # events skipped because their table is parked
        self.applied = 0
        self.duplicates = 0
        self.held = 0
        self.retried = 0  # events handed back for a later try (RETRY)
        self.given_up = 0  # events still RETRY after max_retries deliveries (acknowledged, logged)
        self.rejected = 0  # messages that were no table event (acknowledged, logged)
        self.last_lag_s = 0.0
        self.error: BaseException | None = None
        self.ready = asyncio.Event()
        self.log_component = spec.component
        self.log = get_logger(component=spec.component)
        self.gaps = GapFiller(stream, log, self.log)  # versions missing below a held-back one
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
        self.on_parked = show_parked(host, self.pool, self.spec.name, self.log)
        return parked_health(self.spec.name)

    @property
    def gap_fills(self) -> int:
        """Missing versions read back from the stream."""
        return self.gaps.from_stream

    @property
    def log_fills(self) -> int:
        """Missing versions read back from the PostgreSQL log."""
        return self.gaps.from_log

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
            filled = await self.gaps.fill(js, [items[i] for i in result.held], result.versions)
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

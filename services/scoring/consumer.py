"""The live projector: table events from JetStream (a durable pull consumer on OKEY_TABLES)
into the scoring tables, exactly once in effect, never out of order.

Each fetched batch is projected in one transaction that also records every table's applied
version; only then are its messages acknowledged. A message redelivered after a crash, or
published twice, is at or below the applied version and changes nothing. A message ahead of a
gap is held back: the missing versions are read from the stream (an ephemeral consumer on that
table's subject) and applied first, or, when the stream does not hold them yet, the message is
negatively acknowledged with a delay and waits for its redelivery. An event that cannot be
projected (malformed, a number out of range) parks its table (``ScoringApp.apply``) and every
other table goes on. An event type the projection does not know, or a message it cannot read,
stops the projector with the reason (the message stays unacknowledged)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import asyncpg
import nats
from nats.aio.msg import Msg
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.client import JetStreamContext
from okeyplatform.contract import BadEnvelope, UnreadableEvent, decode_envelope
from okeyplatform.logs import get_logger
from okeyplatform.relay import TABLE_STREAM, bind_table_stream, table_subject

from .app import APPLIED, DUPLICATE, HELD, PARKED, Item, ScoringApp
from .projection import ProjectionError

__all__ = ["Projector", "BadMessage", "decode_message", "DURABLE"]

DURABLE = "scoring"


class BadMessage(ProjectionError):
    """A message on okey.table.> that is not a table event envelope."""


def decode_message(data: bytes, headers: Mapping[str, str] | None = None) -> Item:
    """The relay's envelope (okey.v1.TableEvent, or the JSON of a stream written before it). An
    envelope whose event cannot be read becomes an Item that parks its table."""
    try:
        env = decode_envelope(data, headers)
    except UnreadableEvent as exc:
        return Item(exc.table_id, exc.version, datetime.now(UTC), exc)
    except BadEnvelope as exc:
        raise BadMessage(str(exc)) from None
    return Item(env.table_id, env.version, env.time, env.event)


class Projector:
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
        self.app = app
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
        self.gap_fills = 0  # missing versions read back from the stream
        self.log_fills = 0  # missing versions read back from the PostgreSQL log
        self.last_lag_s = 0.0
        self.error: BaseException | None = None
        self.ready = asyncio.Event()
        self.log = get_logger(component="scoring-projector")
        self._stop = asyncio.Event()

    def stop(self) -> None:
        self._stop.set()

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
            while not self._stop.is_set():
                try:
                    msgs = await psub.fetch(self.batch, timeout=1.0)
                except TimeoutError:
                    continue
                except (nats.errors.Error, OSError) as exc:
                    self.log.warning("fetch_retry", error=repr(exc), backoff=backoff)
                    await self._sleep(backoff)
                    backoff = min(backoff * 2, 5.0)
                    continue
                backoff = 0.2
                await self._handle(js, msgs)
        except ProjectionError as exc:
            self.error = exc
            self.log.error("projector_stopped", error=str(exc))
            raise
        finally:
            await nc.close()

    async def _connect(self) -> Any:
        """NATS, waiting for it while it is down at start (None when asked to stop first)."""
        backoff = 0.2
        while not self._stop.is_set():
            try:
                return await nats.connect(
                    self.nats_url,
                    max_reconnect_attempts=-1,
                    reconnect_time_wait=0.5,
                    connect_timeout=2,
                    error_cb=self._on_error,
                )
            except (nats.errors.Error, OSError, TimeoutError) as exc:
                self.log.warning("connect_retry", error=repr(exc), backoff=backoff)
                await self._sleep(backoff)
                backoff = min(backoff * 2, 5.0)
        return None

    async def _on_error(self, exc: Exception) -> None:
        self.log.warning("nats_error", error=str(exc))

    async def _sleep(self, seconds: float) -> None:
        try:
            await asyncio.wait_for(self._stop.wait(), timeout=seconds)
        except TimeoutError:
            pass

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
                        deliver_policy=DeliverPolicy.ALL,
                        ack_policy=AckPolicy.EXPLICIT,
                        ack_wait=60.0,
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
        items = [decode_message(m.data, m.headers) for m in msgs]
        error: ProjectionError | None = None
        while True:
            try:
                result = await self._apply(items, msgs)
                break
            except ProjectionError as exc:
                # Project everything before the bad event (other tables, and this table's
                # earlier versions), acknowledge that, then stop on the bad one.
                error = error or exc
                keep = [
                    k
                    for k, it in enumerate(items)
                    if not (it.table_id == exc.table_id and it.version >= (exc.version or 0))
                ]
                if exc.table_id is None or len(keep) == len(items):
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
            if o == HELD:
                self.held += 1
                n = m.metadata.num_delivered or 1
                delay = min(0.1 * 2 ** min(n, 6), 5.0)
                self.log.info("event_held_back", table=m.subject, delay_s=delay)
                await m.nak(delay=delay)
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
        if parked and self.on_parked is not None:
            self.on_parked(parked)

    def _count(self, applied: list[Item]) -> None:
        if not applied:
            return
        self.applied += len(applied)
        now = datetime.now(UTC)
        self.last_lag_s = max(0.0, (now - applied[-1].recorded_at).total_seconds())
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
                    it = decode_message(m.data, m.headers)
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

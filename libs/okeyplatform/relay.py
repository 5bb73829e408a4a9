"""The outbox relay: committed events, in the log's global order, onto NATS JetStream.

The events table is the outbox. One relay at a time holds a PostgreSQL advisory lock; it pages
through the log with a saved cursor, publishes each table's events in version order to
``okey.table.<id>`` with ``Nats-Msg-Id = <id>:<version>`` (JetStream drops a repeat inside the
duplicate window), and moves the cursor only after JetStream acknowledged. While NATS is down
nothing moves and nothing is lost; when it returns the relay catches up. Each message is the
``okey.v1.TableEvent`` envelope as a spectator may see it (``okeyplatform.contract``)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import asyncpg
import nats
from nats.js.api import DiscardPolicy, StorageType, StreamConfig
from nats.js.client import JetStreamContext

from . import metrics as M
from .bus import pause
from .contract import encode_envelope, nats_headers
from .eventstore import GlobalPosition, PostgresEventStore, StoredEvent
from .logs import get_logger
from .tracing import PRODUCER, event_span, passes_on, traceparent_of

__all__ = [
    "Relay",
    "TABLE_STREAM",
    "table_subject",
    "StreamSettings",
    "ensure_table_stream",
    "bind_table_stream",
]

TABLE_STREAM = "OKEY_TABLES"
LOCK_KEY = 0x0C_E7_4E_1A  # pg_advisory_lock key of the relay


def table_subject(table_id: str) -> str:
    return f"okey.table.{table_id}"


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_BYTES = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def _seconds(text: str) -> float:
    """``"72h"``, ``"30d"``, ``"90m"``, ``"0"`` (no limit) -> seconds."""
    t = text.strip().lower()
    if t in ("", "0"):
        return 0.0
    if t[-1] in _UNITS:
        return float(t[:-1]) * _UNITS[t[-1]]
    return float(t)


def _bytes(text: str) -> int:
    """``"16G"``, ``"512M"``, ``"-1"`` / ``"0"`` (no limit) -> bytes."""
    t = text.strip().lower().removesuffix("ib").removesuffix("b")
    if t in ("", "0", "-1"):
        return -1
    if t[-1] in _BYTES:
        return int(float(t[:-1]) * _BYTES[t[-1]])
    return int(t)


@dataclass(frozen=True)
class StreamSettings:
    """The OKEY_TABLES stream's configuration, in one place (the ConfigMap in Kubernetes):
    replicas (``OKEY_STREAM_REPLICAS``), retention by age (``OKEY_STREAM_MAX_AGE``, default 7d)
    and by size (``OKEY_STREAM_MAX_BYTES``, default no limit), the oldest messages discarded
    first. The PostgreSQL log keeps every event for ever; the stream only carries them."""

    replicas: int = 1
    max_age_s: float = 7 * 86400.0
    max_bytes: int = -1

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> StreamSettings:
        env = os.environ if environ is None else environ
        try:
            return cls(
                replicas=int(env.get("OKEY_STREAM_REPLICAS", "1")),
                max_age_s=_seconds(env.get("OKEY_STREAM_MAX_AGE", "7d")),
                max_bytes=_bytes(env.get("OKEY_STREAM_MAX_BYTES", "-1")),
            )
        except ValueError as exc:
            raise ValueError(
                f"OKEY_STREAM_REPLICAS / OKEY_STREAM_MAX_AGE (e.g. 72h) / OKEY_STREAM_MAX_BYTES (e.g. 16G): {exc}"
            ) from None

    def config(self) -> StreamConfig:
        return StreamConfig(
            name=TABLE_STREAM,
            subjects=["okey.table.>"],
            storage=StorageType.FILE,
            duplicate_window=600.0,
            num_replicas=self.replicas,
            max_age=self.max_age_s,
            max_bytes=self.max_bytes,
            discard=DiscardPolicy.OLD,
        )


async def ensure_table_stream(js: JetStreamContext, settings: StreamSettings | None = None) -> None:
    """Create the stream, or bring it to ``settings`` (from the environment by default). Only
    the relay and ``okey migrate`` call this: consumers bind with :func:`bind_table_stream`."""
    config = (settings or StreamSettings.from_env()).config()
    try:
        await js.stream_info(TABLE_STREAM)
        await js.update_stream(config)
    except nats.js.errors.NotFoundError:
        await js.add_stream(config)


async def bind_table_stream(js: JetStreamContext) -> None:
    """A consumer's check that the stream is there, changing nothing (the relay creates it and
    owns its configuration). Raises ``nats.js.errors.NotFoundError`` until it exists: the
    consumers' subscribe loops retry with backoff."""
    await js.stream_info(TABLE_STREAM)


class Relay:
    def __init__(
        self,
        store: PostgresEventStore,
        dsn: str,
        nats_url: str,
        encode: Callable[[StoredEvent], bytes] = encode_envelope,
        cursor_name: str = "relay",
        batch: int = 1000,
        linger_s: float = 0.01,
    ) -> None:
        self.store = store
        self.dsn = dsn
        self.nats_url = nats_url
        self.encode = encode
        self.cursor_name = cursor_name
        self.batch = batch
        self.linger_s = linger_s
        self.published = 0
        self.rounds = 0
        self.idle_reads = 0  # reads of the log that found nothing (the relay then waits for a NOTIFY)
        self.log = get_logger(component="relay")
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()
        self._reconnected = asyncio.Event()
        self._leader = False
        self.cursor: GlobalPosition | None = None  # where the leading relay is, None when not leading

    @property
    def leader(self) -> bool:
        return self._leader

    @leader.setter
    def leader(self, value: bool) -> None:
        self._leader = value
        M.RELAY_LEADER.set(1 if value else 0)
        if not value:
            self.cursor = None

    async def sample(self) -> None:
        """The backlog gauges (``okey_relay_behind_*``), from the leader only: the others have no
        cursor of their own (they show 0, and alerts take the max over replicas)."""
        cursor = self.cursor
        if cursor is None:
            M.RELAY_BEHIND_EVENTS.set(0)
            M.RELAY_BEHIND_SECONDS.set(0)
            return
        n, oldest = await self.store.behind(cursor)
        M.RELAY_BEHIND_EVENTS.set(n)
        age = (datetime.now(UTC) - oldest).total_seconds() if oldest is not None and n else 0.0
        M.RELAY_BEHIND_SECONDS.set(max(0.0, age))

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    async def run(self) -> None:
        """Lead (lock, listen, publish) until ``stop()``. When the database connection is lost
        (PostgreSQL restarted or failed over) the lock and the LISTEN went with it: start over
        with a new connection, take the lock again and reload the saved cursor."""
        backoff = 0.2
        while not self._stop.is_set():
            try:
                await self._lead()
                return
            except Exception as exc:  # whatever it was (asyncpg's InternalClientError too), a relay
                # that stops quietly stops every table: start over
                if self.leader:
                    backoff = 0.2  # it was leading: a new fault, not the same one again
                self.leader = False
                self.log.warning("relay_restart", error=repr(exc), backoff=backoff)
                await self._sleep(backoff)
                backoff = min(backoff * 2, 5.0)

    async def _lead(self) -> None:
        lock_conn: asyncpg.Connection = await asyncpg.connect(self.dsn)
        try:
            while not self._stop.is_set():
                if await lock_conn.fetchval("SELECT pg_try_advisory_lock($1)", LOCK_KEY):
                    break
                await self._sleep(1.0)
            if self._stop.is_set():
                return
            self.leader = True
            await lock_conn.add_listener(PostgresEventStore.NOTIFY_CHANNEL, self._on_notify)
            nc = await nats.connect(
                self.nats_url,
                max_reconnect_attempts=-1,
                reconnect_time_wait=0.5,
                allow_reconnect=True,
                connect_timeout=2,
                error_cb=self._on_nats_error,
                disconnected_cb=self._on_disconnect,
                reconnected_cb=self._on_reconnect,
            )
            M.watch_nats(nc)  # okey_dependency_up{dependency="nats"} follows the leader's connection
            try:
                # A round publishes up to ``batch`` messages before it awaits their acks, so
                # the pending-ack limit must hold a whole round (see _publish).
                await self._loop(nc.jetstream(publish_async_max_pending=max(4000, self.batch)), lock_conn)
            finally:
                await nc.close()
        finally:
            try:
                await asyncio.wait_for(lock_conn.close(), timeout=5.0)
            except Exception:  # already gone with the server
                lock_conn.terminate()

    async def _on_nats_error(self, exc: Exception) -> None:
        self.log.warning("nats_error", error=str(exc))

    async def _on_disconnect(self) -> None:
        if self._stop.is_set():  # our own close on the way out: nothing to warn about
            return
        self.log.warning("nats_disconnected")

    async def _on_reconnect(self) -> None:
        self.log.info("nats_reconnected")
        self._reconnected.set()
        self._wake.set()

    def _on_notify(self, *_: Any) -> None:
        self._wake.set()

    async def _sleep(self, seconds: float) -> None:
        try:
            await asyncio.wait_for(self._wake.wait(), timeout=seconds)
        except TimeoutError:
            pass
        self._wake.clear()

    async def _loop(self, js: JetStreamContext, lock_conn: asyncpg.Connection) -> None:
        ready = False
        cursor = self.cursor = await self.store.load_cursor(self.cursor_name)
        backoff = 0.2
        while not self._stop.is_set():
            if lock_conn.is_closed():
                # The lock (and the LISTEN) died with the connection: another relay may lead now.
                raise ConnectionResetError("the relay's lock connection to PostgreSQL was lost")
            try:
                if not ready:
                    await ensure_table_stream(js)
                    ready = True
                events = await self.store.read_all(cursor, self.batch)
                if not events:
                    self.idle_reads += 1
                    await self._sleep(0.5)
                    continue
                t0 = time.perf_counter()
                await self._publish(js, events)
                M.RELAY_PUBLISH.observe(time.perf_counter() - t0)
                cursor = events[-1].global_position
                await self.store.save_cursor(self.cursor_name, cursor)
                self.cursor = cursor
                self.published += len(events)
                M.RELAY_PUBLISHED.inc(len(events))
                self.rounds += 1
                backoff = 0.2
                if len(events) < self.batch and self.linger_s > 0:
                    # Busy tables commit all the time, and every commit's NOTIFY would start
                    # a round of its own (a read, a cursor save and a flush to NATS for one or
                    # two events). Letting the next events gather for a few milliseconds makes
                    # the rounds fewer and fuller; a lone event still goes out at once.
                    # (Not woken by a NOTIFY, that is the point; ``stop()`` does not wait it out.)
                    await pause(self._stop, self.linger_s)
            except (TimeoutError, nats.errors.Error, OSError) as exc:
                self.log.warning("relay_retry", error=repr(exc), backoff=backoff)
                await self._sleep(backoff)
                backoff = min(backoff * 2, 5.0)

    async def _publish(self, js: JetStreamContext, events: Sequence[StoredEvent]) -> None:
        """Publish in rounds: round k carries the k-th pending event of every table, pipelined
        (all sent, then all acks awaited), so a table's next event only goes out once the
        previous one is stored: per-table order holds even when a publish fails midway."""
        by_stream: dict[str, list[StoredEvent]] = {}
        for e in events:
            by_stream.setdefault(e.stream_id, []).append(e)
        depth = max(len(v) for v in by_stream.values())
        for k in range(depth):
            self._reconnected.clear()
            futures = []
            for items in by_stream.values():
                if k < len(items):
                    e = items[k]
                    # No wait_stall: with it nats-py wraps the semaphore in asyncio.wait_for,
                    # which on Python 3.11 runs a task per publish, so every event waited a
                    # turn of the event loop behind every Act in flight (the relay fell
                    # seconds behind at saturation). A round holds at most ``batch``
                    # unacknowledged messages and the context's limit is at least that (_lead):
                    # the semaphore never waits; the round's ack timeout still bounds a dead link.
                    headers = nats_headers(e)
                    span = None
                    if passes_on(e.traceparent):  # tracing off, or a trace not sampled: as it came
                        tp = e.traceparent
                    else:
                        span = event_span(
                            "okey.relay", "okey.table publish", PRODUCER, e.stream_id, e.version, e.type, e.traceparent
                        )
                        tp = traceparent_of(span)
                    if tp:
                        headers["traceparent"] = tp  # consumers hang under this publish
                    futures.append(await js.publish_async(table_subject(e.stream_id), self.encode(e), headers=headers))
                    if span is not None:
                        span.end()
            acks = asyncio.gather(*futures)
            reconnected = asyncio.ensure_future(self._reconnected.wait())
            try:
                done, _ = await asyncio.wait({acks, reconnected}, timeout=10.0, return_when=asyncio.FIRST_COMPLETED)
            finally:
                reconnected.cancel()
            if acks not in done:
                # No acks in time, or NATS came back (a round sent into the dying connection gets
                # no acks at all): publish again from the saved cursor; JetStream drops repeats.
                acks.cancel()
                raise TimeoutError("JetStream acks missing; publishing the round again")
            await acks

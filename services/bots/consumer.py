"""Table events from JetStream to the bots: a durable consumer with a deliver (queue) group, so
replicas share the work; one event is handled by one replica, and events of one table are
handled one at a time within a replica."""

from __future__ import annotations

import asyncio
import contextlib

import grpc
import nats
from nats.aio.msg import Msg
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from okeyplatform.contract import BadEnvelope, Envelope, decode_envelope
from okeyplatform.logs import get_logger
from okeyplatform.relay import TABLE_STREAM, bind_table_stream

from .app import BotsApp

__all__ = ["EventFollower", "DURABLE", "QUEUE"]

DURABLE = "bots"
QUEUE = "bots"
ACK_WAIT_S = 5.0


class EventFollower:
    """Follows ``okey.table.>`` until ``stop()``. A message is acknowledged once handled; when the
    table service cannot be reached it is handed back for a later try (by any replica)."""

    def __init__(
        self,
        app: BotsApp,
        nats_url: str,
        durable: str = DURABLE,
        queue: str = QUEUE,
        stream: str = TABLE_STREAM,
        subject: str = "okey.table.>",
        concurrency: int = 64,
    ) -> None:
        self.app = app
        self.nats_url = nats_url
        self.durable = durable
        self.queue = queue
        self.stream = stream
        self.subject = subject
        self.ready = asyncio.Event()
        self.handled = 0
        self.log = get_logger(component="bots-follower")
        self._stop = asyncio.Event()
        self._sem = asyncio.Semaphore(concurrency)
        self._tables: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def stop(self) -> None:
        self._stop.set()

    async def run(self) -> None:
        nc = await nats.connect(
            self.nats_url,
            max_reconnect_attempts=-1,
            reconnect_time_wait=0.5,
            connect_timeout=2,
            error_cb=self._on_error,
        )
        try:
            js = nc.jetstream()
            backoff = 0.2
            sub = None
            while sub is None and not self._stop.is_set():
                try:
                    await bind_table_stream(js)
                    sub = await js.subscribe(
                        self.subject,
                        queue=self.queue,
                        durable=self.durable,
                        stream=self.stream,
                        cb=self._on_message,
                        manual_ack=True,
                        config=ConsumerConfig(
                            deliver_policy=DeliverPolicy.NEW,
                            ack_policy=AckPolicy.EXPLICIT,
                            ack_wait=ACK_WAIT_S,
                            max_deliver=20,
                            max_ack_pending=10_000,
                        ),
                    )
                except (nats.errors.Error, OSError, TimeoutError) as exc:
                    self.log.warning("subscribe_retry", error=repr(exc), backoff=backoff)
                    await self._sleep(backoff)
                    backoff = min(backoff * 2, 5.0)
            self.ready.set()
            await self._stop.wait()
            if sub is not None:
                await sub.unsubscribe()
            for t in list(self._tasks):
                t.cancel()
        finally:
            await nc.close()

    async def _on_error(self, exc: Exception) -> None:
        self.log.warning("nats_error", error=str(exc))

    async def _sleep(self, seconds: float) -> None:
        try:
            await asyncio.wait_for(self._stop.wait(), timeout=seconds)
        except TimeoutError:
            pass

    async def _on_message(self, msg: Msg) -> None:
        task = asyncio.create_task(self._handle(msg))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _handle(self, msg: Msg) -> None:
        try:
            env = decode_envelope(msg.data, msg.headers)
        except BadEnvelope as exc:
            self.log.warning("bad_message", subject=msg.subject, error=str(exc))
            await msg.ack()
            return
        table_id = env.table_id
        lock = self._tables.get(table_id)
        if lock is None:
            if len(self._tables) > 10_000:
                self._tables = {k: v for k, v in self._tables.items() if v.locked()}
            lock = self._tables[table_id] = asyncio.Lock()
        work = asyncio.ensure_future(self._play(lock, env))
        # A short ack wait, kept alive while we work: when a replica dies (kill -9) the events it
        # held are redelivered within seconds, not after the table's turn timer.
        try:
            while not (await asyncio.wait({work}, timeout=ACK_WAIT_S / 3))[0]:
                with contextlib.suppress(Exception):  # NATS away for a moment: the next beat may pass
                    await msg.in_progress()
        except asyncio.CancelledError:
            work.cancel()
            raise
        try:
            work.result()
        except grpc.aio.AioRpcError as err:
            self.log.warning("table_unreachable", table_id=table_id, code=err.code().name)
            await msg.nak(delay=1.0)
            return
        except Exception as exc:  # a bug must not stop the other tables' bots
            self.log.error("handle_failed", table_id=table_id, error=repr(exc))
            await msg.ack()
            return
        self.handled += 1
        await msg.ack()

    async def _play(self, lock: asyncio.Lock, env: Envelope) -> None:
        async with self._sem, lock:
            await self.app.handle(env)

"""Wiring of the table service: store, relay, timers and the gRPC server."""

from __future__ import annotations

import asyncio
import os
import signal
from dataclasses import dataclass, field
from typing import Any

import asyncpg
from okey.v1 import table_service_pb2_grpc as pb_grpc
from okeyplatform import aioloop
from okeyplatform.eventstore import PostgresEventStore
from okeyplatform.grpcserver import build_server, mark_not_serving, mark_serving
from okeyplatform.logs import configure_logging, get_logger
from okeyplatform.relay import Relay
from okeyplatform.revocations import RevocationFollower

from .api import SERVICE_NAME, TableServicer
from .app import TableApp
from .timers import TimerPoller

__all__ = ["TableService", "DEFAULT_ADDR"]

DEFAULT_ADDR = "127.0.0.1:50061"


@dataclass
class TableService:
    database_url: str
    nats_url: str
    address: str = DEFAULT_ADDR
    grace_ms: int = 3000
    store: PostgresEventStore | None = None
    app: TableApp | None = None
    revocations: RevocationFollower | None = None
    port: int = 0
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)
    _server: Any = None
    _health: Any = None
    relay: Relay | None = None
    timers: TimerPoller | None = None
    reuse_port: bool = False
    listen_idle_s: float = 5.0
    listening: bool = False
    listens: int = 0  # LISTEN connections made so far (a new one after each loss)
    _stopping: asyncio.Event = field(default_factory=asyncio.Event)
    _wakes: set[asyncio.Task[None]] = field(default_factory=set)

    async def start(self) -> None:
        self.store = await PostgresEventStore.connect(self.database_url, min_size=4, max_size=20)
        self.app = TableApp(
            self.store,
            grace_ms=self.grace_ms,
            max_tables_per_player=int(os.environ.get("OKEY_MAX_TABLES_PER_PLAYER", "3")),
        )
        self.relay = Relay(
            self.store,
            self.database_url,
            self.nats_url,
            linger_s=float(os.environ.get("OKEY_RELAY_LINGER_MS", "10")) / 1000,
        )
        self.timers = TimerPoller(self.app, self.store)
        servicer = TableServicer(self.app, max_watches=int(os.environ.get("OKEY_MAX_WATCHES_PER_PLAYER", "8")))
        server, health, port = build_server(
            [(pb_grpc.add_TableServiceServicer_to_server, servicer, SERVICE_NAME)],
            self.address,
            reuse_port=self.reuse_port,
        )
        self._server, self._health, self.port = server, health, port
        self.revocations = RevocationFollower(self.nats_url)  # sign-outs and bans [issue 15.11]
        self.revocations.start()
        await server.start()
        await mark_serving(health, [SERVICE_NAME])
        self._tasks = [
            asyncio.create_task(self.relay.run()),
            asyncio.create_task(self.timers.run()),
            asyncio.create_task(self._listen()),
        ]
        get_logger(component="table").info("table_service_started", address=self.address, port=port)

    async def stop(self, grace_s: float = 5.0) -> None:
        """Drain: stop accepting, let in-flight commands finish, then stop relay and timers."""
        if self._health is not None:
            await mark_not_serving(self._health, [SERVICE_NAME])
        if self._server is not None:
            await self._server.stop(grace_s)
        if self.timers:
            self.timers.stop()
        if self.relay:
            self.relay.stop()
        self._stopping.set()
        for t in self._tasks:
            try:
                await asyncio.wait_for(t, timeout=grace_s)
            except (TimeoutError, asyncio.CancelledError, Exception):
                t.cancel()
        if self.revocations is not None:
            await self.revocations.stop()
        if self.store:
            await self.store.close()

    async def _listen(self) -> None:
        """While this replica has watchers, follow every append's NOTIFY, so that a move made
        through another replica reaches them at once (without it, at their next poll: up to a
        second). Each listening connection costs PostgreSQL ~20 us per commit (okey bench
        table), so a replica with no watchers for ``listen_idle_s`` hangs up. Whatever is
        missed meanwhile (connecting, PostgreSQL restarting) the watchers' poll still carries."""
        assert self.app is not None
        log = get_logger(component="table-listener")
        backoff = 0.2
        while not self._stopping.is_set():
            await _first(self._stopping.wait(), self.app.watching.wait())
            if self._stopping.is_set():
                return
            conn: asyncpg.Connection | None = None
            failed: Exception | None = None
            try:
                conn = await asyncpg.connect(self.database_url)
                await conn.add_listener(PostgresEventStore.NOTIFY_CHANNEL, self._on_append)
                self.listening, backoff, idle_since = True, 0.2, None
                self.listens += 1
                while not self._stopping.is_set() and not conn.is_closed():
                    if self.app.watching.is_set():
                        idle_since = None
                    else:
                        idle_since = idle_since or asyncio.get_running_loop().time()
                        if asyncio.get_running_loop().time() - idle_since >= self.listen_idle_s:
                            break
                    await _first(self._stopping.wait(), asyncio.sleep(min(1.0, self.listen_idle_s)))
                if conn.is_closed() and not self._stopping.is_set():
                    raise ConnectionResetError("the listening connection to PostgreSQL was lost")
            except Exception as exc:  # whatever it was (asyncpg's InternalClientError too): start over
                failed = exc
            finally:
                self.listening = False
                if conn is not None and not conn.is_closed():
                    try:
                        await asyncio.wait_for(conn.close(), timeout=2.0)
                    except Exception:  # gone with the server
                        conn.terminate()
            if failed is not None:
                log.warning("listener_restart", error=repr(failed), backoff=backoff)
                await _first(self._stopping.wait(), asyncio.sleep(backoff))
                backoff = min(backoff * 2, 5.0)

    def _on_append(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        table_id, sep, version = payload.rpartition(":")
        if not sep:  # a replica of an older version sends the table id alone
            table_id, version = payload, ""
        if self.app is None or not self.app.watched(table_id):
            return
        task = asyncio.create_task(self._wake(table_id, int(version) if version.isdigit() else None))
        self._wakes.add(task)
        task.add_done_callback(self._wakes.discard)

    async def _wake(self, table_id: str, version: int | None) -> None:
        assert self.app is not None
        try:
            await self.app.catch_up(table_id, version)
        except Exception as exc:  # the store going away (stopping, a failover): the poll covers it
            get_logger(component="table-listener").info("catch_up_failed", table_id=table_id, error=repr(exc))


async def _first(*aws: Any) -> None:
    """Wait until the first of these awaitables is done; cancel the others."""
    tasks = [asyncio.ensure_future(a) for a in aws]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for t in tasks:
            t.cancel()


async def serve(database_url: str, nats_url: str, address: str, grace_ms: int, reuse_port: bool = False) -> None:
    svc = TableService(database_url, nats_url, address, grace_ms, reuse_port=reuse_port)
    await svc.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await svc.stop()


def main() -> None:
    """Run the service; ``OKEY_TABLE_WORKERS`` > 1 runs that many replica processes sharing
    the port (SO_REUSEPORT): each is a full replica, the store keeps one writer per table."""
    configure_logging("table")
    database_url = os.environ["OKEY_DATABASE_URL"]
    nats_url = os.environ["OKEY_NATS_URL"]
    address = os.environ.get("OKEY_TABLE_ADDR", DEFAULT_ADDR)
    grace_ms = int(os.environ.get("OKEY_TIMEOUT_GRACE_MS", "3000"))
    workers = int(os.environ.get("OKEY_TABLE_WORKERS", "1"))
    if workers <= 1:
        aioloop.run(serve(database_url, nats_url, address, grace_ms))
        return
    supervise(workers)


def supervise(workers: int, poll_s: float = 0.2) -> None:
    """Run ``workers`` replica processes on one port and keep them running: a worker that exits
    while the service is not stopping (a crash, kill -9, the kernel's OOM killer) is logged and
    started again, after 1 s and then up to 30 s between tries while it keeps dying young.
    SIGTERM/SIGINT go to every worker; the supervisor returns once all have exited."""
    import subprocess
    import sys
    import time

    log = get_logger(component="table-supervisor")
    env = dict(os.environ, OKEY_TABLE_WORKERS="1", OKEY_REUSE_PORT="1")

    def spawn() -> subprocess.Popen[bytes]:
        return subprocess.Popen([sys.executable, "-m", "services.table.main"], env=env)

    children = [spawn() for _ in range(workers)]
    started = [time.monotonic()] * workers
    backoff = [1.0] * workers
    restart_at: list[float | None] = [None] * workers
    stopping: list[int] = []

    def forward(sig: int, _frame: object) -> None:
        stopping.append(sig)
        for c in children:
            if c.poll() is None:
                c.send_signal(sig)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    log.info("table_workers_started", workers=workers, pids=[c.pid for c in children])
    while not stopping:
        now = time.monotonic()
        for i, child in enumerate(children):
            code = child.poll()
            if code is None or stopping:
                continue
            if restart_at[i] is None:
                if now - started[i] > 60:
                    backoff[i] = 1.0  # it had been up a while: a new fault, not the same one again
                restart_at[i] = now + backoff[i]
                log.error("table_worker_exited", worker=i, pid=child.pid, code=code, restart_in_s=backoff[i])
                backoff[i] = min(backoff[i] * 2, 30.0)
            elif now >= restart_at[i]:
                children[i], started[i], restart_at[i] = spawn(), now, None
                log.warning("table_worker_restarted", worker=i, pid=children[i].pid)
        time.sleep(poll_s)
    for c in children:
        if c.poll() is None:
            c.send_signal(stopping[-1])  # again: a worker started just as the signal came missed it
        c.wait()


if __name__ == "__main__":
    if os.environ.get("OKEY_REUSE_PORT") == "1":
        configure_logging("table")
        aioloop.run(
            serve(
                os.environ["OKEY_DATABASE_URL"],
                os.environ["OKEY_NATS_URL"],
                os.environ.get("OKEY_TABLE_ADDR", DEFAULT_ADDR),
                int(os.environ.get("OKEY_TIMEOUT_GRACE_MS", "3000")),
                reuse_port=True,
            )
        )
    else:
        main()

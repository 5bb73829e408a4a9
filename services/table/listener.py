"""The table service's append listener: NOTIFY from PostgreSQL to this replica's watchers."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
from okeyplatform.eventstore import PostgresEventStore
from okeyplatform.logs import get_logger

from .app import TableApp

__all__ = ["AppendListener"]


class AppendListener:
    """While this replica has watchers, follow every append's NOTIFY, so that a move made
    through another replica reaches them at once (without it, at their next poll: up to a
    second). Each listening connection costs PostgreSQL ~20 us per commit (okey bench
    table), so a replica with no watchers for ``listen_idle_s`` hangs up. Whatever is
    missed meanwhile (connecting, PostgreSQL restarting) the watchers' poll still carries."""

    def __init__(self, app: TableApp, database_url: str, listen_idle_s: float = 5.0) -> None:
        self.app = app
        self.database_url = database_url
        self.listen_idle_s = listen_idle_s
        self.listening = False
        self.listens = 0  # LISTEN connections made so far (a new one after each loss)
        self._stopping = asyncio.Event()
        self._wakes: set[asyncio.Task[None]] = set()

    def stop(self) -> None:
        self._stopping.set()

    async def run(self) -> None:
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
        if not self.app.watched(table_id):
            return
        task = asyncio.create_task(self._wake(table_id, int(version) if version.isdigit() else None))
        self._wakes.add(task)
        task.add_done_callback(self._wakes.discard)

    async def _wake(self, table_id: str, version: int | None) -> None:
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

"""The one way tests run two or more services: as processes (``okeytools.stack.Stack``), made
by a factory that stops them all at its end. The fixtures ``make_stack`` / ``make_module_stack``
of tests/conftest.py wrap it on the session's servers; the resilience suite's session stack
uses it on private embedded servers it may stop and kill.

On the session's NATS (embedded, or the machine's through ``OKEY_NATS_URL``) every stack's
consumers get durables of their own (``lobby-<id>``, ``scoring-<id>``, ``bots-events-<id>``,
unless the test's ``env`` names them), so two stacks alive at once never split one durable's
events; at the end the factory deletes those durables and purges the subjects of the tables
its fresh databases logged, so a later stack's deliver-all consumer does not replay them."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable, Coroutine, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import nats
from okeyplatform.relay import TABLE_STREAM, table_subject
from okeytools.embedded import EmbeddedNats, with_database
from okeytools.stack import Stack

from services.bots.consumer import DURABLE as BOTS_DURABLE
from services.lobby.consumer import DURABLE as LOBBY_DURABLE
from services.scoring.consumer import DURABLE as SCORING_DURABLE

__all__ = ["DURABLE_ENV", "STACK_ENV", "StackFactory", "leave_nats_clean", "stack_factory"]

_T = TypeVar("_T")
StackFactory = Callable[..., Stack]
# Quiet, parseable service logs; the tests' share of the 2-core machine kept small.
STACK_ENV = {"OKEY_LOG_FORMAT": "json", "OKEY_BOTS_STRATEGY": "greedy", "OKEY_BOTS_PACE": "instant"}


# The durable each consuming service takes from the environment, and its production name.
DURABLE_ENV = {"lobby": ("OKEY_LOBBY_DURABLE", LOBBY_DURABLE), "scoring": ("OKEY_SCORING_DURABLE", SCORING_DURABLE)}
DURABLE_ENV["bots"] = ("OKEY_BOTS_DURABLE", BOTS_DURABLE)


def _on_thread(work: Coroutine[Any, Any, _T]) -> _T:
    """Run ``work`` on an event loop of its own thread (so a factory may be called from a sync
    fixture and from inside an async test alike)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, work).result()


def _admin(server_url: str, sql: str) -> None:
    """One statement on the server's admin database."""

    async def run() -> None:
        conn = await asyncpg.connect(server_url)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    _on_thread(run())


async def _logged_tables(database_url: str) -> list[str]:
    """The ids of the tables whose events a stack's database logged (none when no table service
    made its log there)."""
    conn = await asyncpg.connect(database_url)
    try:
        rows = await conn.fetch("SELECT DISTINCT stream_id FROM okey_events")
    except asyncpg.UndefinedTableError:
        return []
    finally:
        await conn.close()
    return [r["stream_id"] for r in rows]


async def leave_nats_clean(nats_url: str, durables: Sequence[str], database_urls: Sequence[str]) -> None:
    """Delete ``durables`` and purge from the table stream the subjects of the tables the
    databases logged (they are about to be dropped: nothing will read those events again)."""
    tables = [t for url in database_urls for t in await _logged_tables(url)]
    try:
        nc = await nats.connect(nats_url, connect_timeout=5, allow_reconnect=False)
    except (nats.errors.NoServersError, OSError, TimeoutError):
        return  # a server a test stopped for good holds nothing a later stack could read
    try:
        js = nc.jetstream()
        for durable in durables:
            with contextlib.suppress(nats.js.errors.NotFoundError):
                await js.delete_consumer(TABLE_STREAM, durable)
        for table_id in tables:
            with contextlib.suppress(nats.js.errors.NotFoundError):
                await js.purge_stream(TABLE_STREAM, subject=table_subject(table_id))
    finally:
        await nc.close()


@contextmanager
def stack_factory(
    server_database_url: str, server_nats_url: str, log_root: Path, template: str | None = None
) -> Iterator[StackFactory]:
    """Starts stacks on demand; stops every one (last first) and drops their fresh databases on exit.
    A fresh database is a copy of ``template`` (a database on that server with every service's
    schema: the services' own migrations at start then find nothing to do), else empty. Also used
    as it is by the resilience suite (its own private servers) -- one construction path."""
    made: list[Stack] = []
    databases: list[str] = []
    servers: list[EmbeddedNats] = []
    durables: list[str] = []  # made for stacks on the server's NATS, deleted at the end

    def make(
        services: Sequence[str] = ("table", "lobby"),
        env: Mapping[str, str] | None = None,
        database_url: str | None = None,
        nats_url: str | None = None,
        label: str = "",
        timeout_s: float = 60.0,
        start: bool = True,
        private_nats: bool = False,
    ) -> Stack:
        url = database_url
        if url is None:  # a fresh database on the session's server, so a stack sees only its own data
            name = f"okey_stack_{uuid.uuid4().hex[:16]}"
            _admin(server_database_url, f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
            databases.append(name)
            url = with_database(server_database_url, name)
        if private_nats:  # a NATS of its own: nothing another stack published, the production durables
            nats_server = EmbeddedNats()
            servers.append(nats_server)
            nats_url = nats_server.start().url
        extra_env = {**STACK_ENV, **(env or {})}
        if nats_url is None:  # the server's NATS, shared by every stack: durables of its own
            tag = uuid.uuid4().hex[:10]
            for service in services:
                if service in DURABLE_ENV and DURABLE_ENV[service][0] not in extra_env:
                    variable, production = DURABLE_ENV[service]
                    extra_env[variable] = f"{production}-{tag}"
                    durables.append(extra_env[variable])
        stack = Stack(
            url,
            nats_url or server_nats_url,
            services=tuple(services),
            extra_env=extra_env,
            log_dir=log_root / (label or f"stack-{len(made)}"),
        )
        made.append(stack)
        if start:  # else the caller starts them (``start_one``), e.g. some of them optional
            stack.start(timeout_s)
        return stack

    try:
        yield make
    finally:
        for stack in reversed(made):
            stack.stop()
        for server in servers:
            server.close()
        fresh = [with_database(server_database_url, name) for name in databases]
        _on_thread(leave_nats_clean(server_nats_url, durables, fresh))
        for name in databases:
            _admin(server_database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

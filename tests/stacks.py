"""The one way tests run two or more services: as processes (``okeytools.stack.Stack``), made
by a factory that stops them all at its end. The fixtures ``make_stack`` / ``make_module_stack``
of tests/conftest.py wrap it on the session's servers; the resilience suite's session stack
uses it on private embedded servers it may stop and kill."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import asyncpg
from okeytools.embedded import EmbeddedNats, with_database
from okeytools.stack import Stack

__all__ = ["STACK_ENV", "StackFactory", "stack_factory"]

StackFactory = Callable[..., Stack]
# Quiet, parseable service logs; the tests' share of the 2-core machine kept small.
STACK_ENV = {"OKEY_LOG_FORMAT": "json", "OKEY_BOTS_STRATEGY": "greedy", "OKEY_BOTS_PACE": "instant"}


def _admin(server_url: str, sql: str) -> None:
    """One statement on the server's admin database, on a thread of its own (so a factory may
    be called from a sync fixture and from inside an async test alike)."""

    async def run() -> None:
        conn = await asyncpg.connect(server_url)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, run()).result()


@contextmanager
def stack_factory(server_database_url: str, server_nats_url: str, log_root: Path) -> Iterator[StackFactory]:
    """Starts stacks on demand; stops every one (last first) and drops their fresh databases on exit.
    Also used as it is by the resilience suite (its own private servers) -- one construction path."""
    made: list[Stack] = []
    databases: list[str] = []
    servers: list[EmbeddedNats] = []

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
            _admin(server_database_url, f'CREATE DATABASE "{name}"')
            databases.append(name)
            url = with_database(server_database_url, name)
        if private_nats:  # the durable consumers' names are fixed: a NATS of its own isolates them
            nats_server = EmbeddedNats()
            servers.append(nats_server)
            nats_url = nats_server.start().url
        stack = Stack(
            url,
            nats_url or server_nats_url,
            services=tuple(services),
            extra_env={**STACK_ENV, **(env or {})},
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
        for name in databases:
            _admin(server_database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

"""The whole stack for the resilience tests: every service as its own process (``okey serve``,
through ``okeytools.stack.Stack``) on PRIVATE embedded PostgreSQL and NATS, so tests may
kill services and stop or restart the servers even when OKEY_DATABASE_URL / OKEY_NATS_URL point
at shared servers.

``stack`` (session scope, shared by every module here) yields a ``ResilienceStack``
(resilience_stack.py; ``from resilience_stack import ResilienceStack`` for type hints):

- ``stack.stack``: the :class:`Stack` (``kill(name)`` = SIGKILL, ``start_one``, ``restart``, ...);
- ``stack.database_url`` / ``stack.nats_url``; ``stack.postgres`` / ``stack.nats``: the embedded
  servers (``stop()``, ``start()``, ``kill()``, ``restart()`` keep the port and the data);
- ``stack.gateway`` (gRPC address), ``stack.http`` (``http://host:port``), ``stack.address(name)``;
- ``stack.token(subject, role)``: a bearer token the services accept;
- ``stack.ensure_up()``: servers and every service running again (a test that broke something
  and failed half-way leaves the stack usable for the next one);
- ``stack.log_dir``: each service's output (``<name>.log``).

The default gateway limits (OKEY_RATE_LIMIT / OKEY_RATE_BURST) are kept: tests that push many
requests use one subject per table or client.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from okeyplatform.auth import token_secret
from okeytools.embedded import EmbeddedNats, EmbeddedPostgres
from okeytools.stack import Stack
from resilience_stack import ResilienceStack

__all__ = ["ResilienceStack", "stack"]


@pytest.fixture(scope="session")
def stack() -> Iterator[ResilienceStack]:
    token_secret()  # the tests and the service processes share OKEY_TOKEN_SECRET
    log_dir = Path(tempfile.mkdtemp(prefix="okey-resilience-logs-"))
    env = {
        "OKEY_LOG_LEVEL": os.environ.get("OKEY_RESILIENCE_LOG_LEVEL", "WARNING"),
        "OKEY_LOG_FORMAT": "json",
        "OKEY_BOTS_STRATEGY": "greedy",  # cheap decisions: the 2-core machine runs everything
        "OKEY_TIMEOUT_GRACE_MS": "1000",
    }
    t0 = time.monotonic()
    with EmbeddedPostgres() as pg, EmbeddedNats() as nats_server:
        st = Stack(pg.url, nats_server.url, log_dir=log_dir, extra_env=env)
        try:
            st.start()
            print(f"\nresilience stack up in {time.monotonic() - t0:.1f} s (logs in {log_dir})")
            yield ResilienceStack(st, pg, nats_server, log_dir)
        finally:
            st.stop()

"""The whole stack for the resilience tests: every service as its own process (the stack factory
of tests/stacks.py, as ``make_stack`` builds them) on PRIVATE embedded PostgreSQL and NATS, so
tests may kill services and stop or restart the servers even when OKEY_DATABASE_URL /
OKEY_NATS_URL point at shared servers. (The bad-input and abuse suites use
``make_module_stack`` instead: they break no server.)

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
import time
from collections.abc import Iterator

import pytest
from okeytools.embedded import EmbeddedNats, EmbeddedPostgres
from okeytools.stack import ALL_SERVICES
from resilience_stack import ResilienceStack
from stacks import stack_factory

__all__ = ["ResilienceStack", "stack"]


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ResilienceStack]:
    logs = tmp_path_factory.mktemp("resilience-services")
    env = {
        "OKEY_LOG_LEVEL": os.environ.get("OKEY_RESILIENCE_LOG_LEVEL", "WARNING"),
        "OKEY_TIMEOUT_GRACE_MS": "1000",
        "OKEY_REFRESH_RACE_S": "1",  # test_accounts waits this out before it reuses a refresh token
        # Every guest of these suites signs in from 127.0.0.1: the per-address quotas would end
        # the run at the 11th account (test_abuse checks those quotas on a stack of its own).
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",
        "OKEY_DAILY_GRANTS_PER_ADDRESS": "0",
    }
    t0 = time.monotonic()
    with EmbeddedPostgres() as pg, EmbeddedNats() as nats_server, stack_factory(pg.url, nats_server.url, logs) as make:
        st = make(ALL_SERVICES, env=env, database_url=pg.url, label="all")
        assert st.log_dir is not None
        print(f"\nresilience stack up in {time.monotonic() - t0:.1f} s (logs in {st.log_dir})")
        yield ResilienceStack(st, pg, nats_server, st.log_dir)

"""Faults injected into a running stack (``okeytools.stack.Stack`` and its embedded servers),
used by ``okey bench soak --faults`` and tests/resilience/test_faults.py:

- ``kill-table``, ``kill-bots``, ``kill-scoring``, ``kill-lobby``, ``kill-gateway``: ``kill -9`` the
  service, then start it again (same address: clients' channels reconnect to it);
- ``nats-down``: stop NATS for ``nats_down_s`` seconds, then start it again (same port, same
  JetStream store);
- ``postgres-restart``: stop PostgreSQL (fast shutdown: every connection is cut), then start
  it again on the same port and data directory;
- ``postgres-kill``: ``kill -9`` PostgreSQL (a crash: it recovers from its WAL at start), then
  start it again at once.
"""

from __future__ import annotations

import asyncio
import time

from okeytools.embedded import EmbeddedNats, EmbeddedPostgres
from okeytools.stack import Stack

__all__ = ["FAULTS", "inject"]

FAULTS = (
    "kill-table",
    "kill-bots",
    "kill-scoring",
    "kill-lobby",
    "kill-gateway",
    "nats-down",
    "postgres-restart",
    "postgres-kill",
)


async def inject(
    fault: str,
    stack: Stack,
    postgres: EmbeddedPostgres | None,
    nats: EmbeddedNats | None,
    nats_down_s: float = 30.0,
    down_s: float = 1.0,
) -> float:
    """Inject one fault and undo it; returns the seconds it lasted (down to back up)."""
    t0 = time.monotonic()
    if fault.startswith("kill-"):
        name = fault.removeprefix("kill-")
        stack.kill(name)
        await asyncio.sleep(down_s)
        await asyncio.to_thread(stack.stop_one, name)  # closes the dead process's log
        await asyncio.to_thread(stack.start_one, name)
    elif fault == "nats-down":
        if nats is None:
            raise ValueError("nats-down needs the embedded NATS server")
        await asyncio.to_thread(nats.stop)
        await asyncio.sleep(nats_down_s)
        await asyncio.to_thread(nats.start)
    elif fault in (
        "postgres-restart",
        "postgres-kill",
    ):
        if postgres is None:
            raise ValueError(f"{fault} needs the embedded PostgreSQL server")
        if fault == "postgres-kill":
            await asyncio.to_thread(postgres.kill)
        else:
            await asyncio.to_thread(postgres.stop)
            await asyncio.sleep(down_s)
        await asyncio.to_thread(postgres.start)
    else:
        raise ValueError(f"unknown fault {fault!r}; one of {', '.join(FAULTS)}")
    return time.monotonic() - t0

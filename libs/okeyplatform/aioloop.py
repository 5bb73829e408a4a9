"""The event loop the services run on: uvloop where it is installed, else asyncio's own.

uvloop (libuv, by asyncpg's authors) runs the sockets to PostgreSQL and NATS with less CPU
than asyncio's selector loop: on ``okey bench table`` it cut the table service's CPU per move
by about 9% and its latency with it. grpc.aio works on any asyncio loop. ``OKEY_EVENT_LOOP=
asyncio`` chooses the standard loop (to compare, or to rule the loop out when hunting a bug)."""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import Coroutine, Hashable
from typing import Any, Generic, TypeVar

__all__ = ["run", "loop_name", "tune_gc", "GC_THRESHOLDS", "KeyedLocks"]

T = TypeVar("T")


def loop_name() -> str:
    """``uvloop`` or ``asyncio``: the loop :func:`run` will use here."""
    choice = os.environ.get("OKEY_EVENT_LOOP", "uvloop").strip().lower()
    if choice not in ("uvloop", "asyncio"):
        raise ValueError(f"OKEY_EVENT_LOOP={choice!r}: use uvloop or asyncio")
    if choice == "uvloop":
        try:
            import uvloop  # noqa: F401
        except ImportError:  # not installed (e.g. Windows, where it does not exist)
            return "asyncio"
    return choice


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run a service's main coroutine to its end on the loop :func:`loop_name` names."""
    if loop_name() == "uvloop":
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)


GC_THRESHOLDS = (10_000, 20, 50)
"""The cyclic garbage collector's thresholds in a service process (CPython's are 700, 10, 10).

A bots worker keeps the strong strategy's memos (some 300,000 entries in tracked dictionaries)
and makes many short-lived objects a move: with CPython's thresholds it ran a young collection
about 50 times a second and a full one every 2-3 s (about 50 ms each), some 10% of its CPU in
``okey bench soak``. With these (and the code frozen, :func:`tune_gc`), a worker's minute of the
soak ran 347 young collections instead of 3,995 and one full one instead of 33, and the collector
took 3.4% of its CPU. A young threshold of 2,000 cost more (more middle collections). A cycle of
garbage lives a little longer, which costs a little memory."""


def tune_gc() -> None:
    """Set :data:`GC_THRESHOLDS` and move everything made so far (modules, classes, functions:
    the service's code, alive until the process ends) out of the collector's way
    (``gc.freeze``): full collections then walk only what the service made since."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


K = TypeVar("K", bound=Hashable)


class KeyedLocks(Generic[K]):
    """One asyncio lock per key (a table, a table's seat), made when first asked for. Past
    ``limit`` keys, the locks nobody holds are dropped, so the map stays small however many
    tables come and go."""

    def __init__(self, limit: int = 10_000) -> None:
        self.limit = limit
        self._locks: dict[K, asyncio.Lock] = {}

    def __call__(self, key: K) -> asyncio.Lock:
        lock = self._locks.get(key)
        if lock is None:
            if len(self._locks) > self.limit:
                self._locks = {k: v for k, v in self._locks.items() if v.locked()}
            lock = self._locks[key] = asyncio.Lock()
        return lock

    def __len__(self) -> int:
        return len(self._locks)

"""The event loop the services run on: uvloop where it is installed, else asyncio's own.

uvloop (libuv, by asyncpg's authors) runs the sockets to PostgreSQL and NATS with less CPU
than asyncio's selector loop: on ``okey bench table`` it cut the table service's CPU per move
by about 9% and its latency with it. grpc.aio works on any asyncio loop. ``OKEY_EVENT_LOOP=
asyncio`` chooses the standard loop (to compare, or to rule the loop out when hunting a bug)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run", "loop_name"]

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

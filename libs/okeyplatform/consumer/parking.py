"""The parked tables (``okey_consumer_parked``): a table whose event a consumer cannot apply is set
aside at that version, and the service's ``okey.<name>.parked`` health entry says so."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import asyncpg
from grpc_health.v1 import health_pb2

if TYPE_CHECKING:
    from ..host import ServiceHost


async def park(conn: asyncpg.Connection, name: str, table_id: str, version: int, reason: str) -> None:
    """Consumer ``name`` sets ``table_id`` aside at ``version`` (the first park stays)."""
    await conn.execute(
        "INSERT INTO okey_consumer_parked (consumer, table_id, version, reason) VALUES ($1, $2, $3, $4) "
        "ON CONFLICT (consumer, table_id) DO NOTHING",
        name,
        table_id,
        version,
        reason[:500],
    )


async def parked_among(conn: asyncpg.Connection, name: str, table_ids: Sequence[str]) -> set[str]:
    """Which of ``table_ids`` consumer ``name`` has parked."""
    rows = await conn.fetch(
        "SELECT table_id FROM okey_consumer_parked WHERE consumer = $1 AND table_id = ANY($2::text[])",
        name,
        table_ids,
    )
    return {r["table_id"] for r in rows}


async def parked_tables(conn: asyncpg.Connection, name: str) -> list[tuple[str, int, str]]:
    """Consumer ``name``'s parked tables: (table_id, version, reason), oldest first."""
    rows = await conn.fetch(
        "SELECT table_id, version, reason FROM okey_consumer_parked WHERE consumer = $1 ORDER BY parked_at, table_id",
        name,
    )
    return [(r["table_id"], r["version"], r["reason"]) for r in rows]


async def replace_parked(conn: asyncpg.Connection, name: str, parked: Mapping[str, tuple[int, str]]) -> None:
    """After a rebuild: consumer ``name``'s parked tables are those the rebuild could not apply."""
    await conn.execute("DELETE FROM okey_consumer_parked WHERE consumer = $1", name)
    for table_id, (version, reason) in sorted(parked.items()):
        await park(conn, name, table_id, version, reason)


def parked_health(name: str) -> str:
    """The health entry of a consumer's parked tables: NOT_SERVING while any is parked."""
    return f"okey.{name}.parked"


def show_parked(
    host: ServiceHost[Any], pool: asyncpg.Pool, name: str, log: Any
) -> Callable[[dict[str, tuple[int, str]]], None]:
    """Consumer ``name``'s :func:`parked_health` entry on ``host``, from the tables parked when
    the host starts; returns what to call with the tables parked later. NOT_SERVING (and a log
    line per table) once one is parked; the service itself keeps serving."""
    entry = parked_health(name)

    async def show(parked: Sequence[tuple[str, int, str]]) -> None:
        if host.health is None:
            return
        status = health_pb2.HealthCheckResponse.NOT_SERVING if parked else health_pb2.HealthCheckResponse.SERVING
        await host.health.set(entry, status)
        for table_id, version, reason in parked:
            log.warning("table_parked", table_id=table_id, version=version, reason=reason)

    def on_parked(parked: dict[str, tuple[int, str]]) -> None:
        asyncio.get_running_loop().create_task(show([(t, v, r) for t, (v, r) in parked.items()]))

    async def started() -> None:
        async with pool.acquire() as conn:
            await show(await parked_tables(conn, name))

    host.on_started(started)
    return on_parked

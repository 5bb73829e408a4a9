"""The applied-version record (``okey_consumer_versions``): each consumer's applied version of
each table, read, locked and moved only forward."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import asyncpg


async def read_versions(
    conn: asyncpg.Connection, name: str, table_ids: Sequence[str], lock: bool = False
) -> dict[str, int]:
    """Consumer ``name``'s applied version of each of ``table_ids`` it has a record of."""
    rows = await conn.fetch(
        "SELECT table_id, version FROM okey_consumer_versions WHERE consumer = $1 AND table_id = ANY($2::text[])"
        + (" ORDER BY table_id FOR UPDATE" if lock else ""),
        name,
        list(table_ids),
    )
    return {r["table_id"]: r["version"] for r in rows}


async def lock_versions(conn: asyncpg.Connection, name: str, table_ids: Sequence[str]) -> dict[str, int]:
    """Consumer ``name``'s applied version of each of ``table_ids`` (sorted), locked until the
    transaction ends."""
    # A row for every table first (version 0: none applied), so the lock holds even for a
    # table's first events: two replicas given them at once apply them once.
    await conn.execute(
        "INSERT INTO okey_consumer_versions (consumer, table_id, version) "
        "SELECT $1, t, 0 FROM unnest($2::text[]) AS t ORDER BY t ON CONFLICT DO NOTHING",
        name,
        table_ids,
    )
    return await read_versions(conn, name, table_ids, lock=True)


async def record_versions(conn: asyncpg.Connection, name: str, versions: Mapping[str, int]) -> None:
    """Consumer ``name``'s applied version of each table, never moved back."""
    if not versions:
        return
    tables = sorted(versions)
    await conn.execute(
        "INSERT INTO okey_consumer_versions (consumer, table_id, version) "
        "SELECT $1, t, v FROM unnest($2::text[], $3::int[]) AS x(t, v) "
        "ON CONFLICT (consumer, table_id) DO UPDATE "
        "SET version = GREATEST(okey_consumer_versions.version, EXCLUDED.version)",
        name,
        tables,
        [versions[t] for t in tables],
    )

"""The consumers' tables in PostgreSQL: the applied-version record and the parked tables, and
their migrations (each service's migrate applies them)."""

from __future__ import annotations

import asyncpg

from ..eventstore import migrate

CONSUMER_MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
        -- Each consumer's applied version per table, written in the transaction of the effects
        -- of that version (okeyplatform.consumer): exactly-once in effect.
        CREATE TABLE IF NOT EXISTS okey_consumer_versions (
            consumer TEXT NOT NULL,
            table_id TEXT NOT NULL,
            version  INT NOT NULL,
            PRIMARY KEY (consumer, table_id)
        );
        """,
    ),
    (
        2,
        """
        -- Each consumer's parked tables: the version it could not apply and why. Their later
        -- events are skipped until the service rebuilds them (scoring: `okey replay`).
        CREATE TABLE IF NOT EXISTS okey_consumer_parked (
            consumer  TEXT NOT NULL,
            table_id  TEXT NOT NULL,
            version   INT NOT NULL,
            reason    TEXT NOT NULL,
            parked_at TIMESTAMPTZ NOT NULL DEFAULT now(),
            PRIMARY KEY (consumer, table_id)
        );
        """,
    ),
]


async def migrate_consumer_versions(conn: asyncpg.Connection) -> list[int]:
    """The applied-version record's and the parked tables' tables (each service's migrate
    applies them)."""
    return await migrate(conn, CONSUMER_MIGRATIONS, scope="consumer")

"""Every schema's migrations over existing data, not only over an empty database (issue 24):
for each schema (the event store, the lobby, scoring, the consumers' record), migrate to version
k, put a row in every table it has then, apply version k+1, and check that it applies and that
every row is still there. The rows are generated from the catalogue (one value per column type,
the same everywhere, so that a foreign key finds its parent), so a new table or migration is
covered without editing this test."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import asyncpg
import pytest
from okeyplatform.consumer import CONSUMER_MIGRATIONS
from okeyplatform.eventstore import MIGRATIONS as EVENTSTORE
from okeyplatform.eventstore import migrate
from okeytools.embedded import with_database

from services.lobby.store import MIGRATIONS as LOBBY
from services.lobby.store import SCOPE as LOBBY_SCOPE
from services.scoring.store import MIGRATIONS as SCORING
from services.scoring.store import SCOPE as SCORING_SCOPE

SCHEMAS: dict[str, tuple[str, Sequence[tuple[int, str]]]] = {
    "eventstore": ("eventstore", EVENTSTORE),
    "lobby": (LOBBY_SCOPE, LOBBY),
    "scoring": (SCORING_SCOPE, SCORING),
    "consumer": ("consumer", CONSUMER_MIGRATIONS),
}
# A schema whose migrations write another's tables, which its migrate applies first.
BENEATH: dict[str, tuple[str, Sequence[tuple[int, str]]]] = {"scoring": ("consumer", CONSUMER_MIGRATIONS)}
# A table a migration drops, and where its rows went; the tables a migration carries rows into.
MOVED = {"scoring_parked": "okey_consumer_parked"}
CARRIED_INTO = {"okey_consumer_parked", "okey_consumer_versions"}

# One value per type: the same text and number everywhere, so a child row's foreign key names
# the parent row made from the same values.
VALUES = {
    "text": "'seed'",
    "character varying": "'seed'",
    "integer": "1",
    "bigint": "1",
    "smallint": "1",
    "numeric": "1",
    "double precision": "1",
    "real": "1",
    "boolean": "false",
    "timestamp with time zone": "now()",
    "timestamp without time zone": "now()",
    "date": "current_date",
    "jsonb": "'{}'::jsonb",
    "json": "'{}'::json",
    "bytea": "'\\x00'::bytea",
    "xid8": "pg_current_xact_id()",
    "uuid": "'00000000-0000-0000-0000-000000000001'::uuid",
    "inet": "'127.0.0.1'::inet",
}
ARRAYS = {
    "_text": "'{seed}'::text[]",
    "_int4": "'{1}'::int[]",
    "_int8": "'{1}'::bigint[]",
    "_int2": "'{1}'::smallint[]",
}


async def _tables(conn: asyncpg.Connection) -> list[str]:
    rows = await conn.fetch(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' "
        "AND table_type = 'BASE TABLE' AND table_name <> 'okey_schema' ORDER BY table_name"
    )
    return [r["table_name"] for r in rows]


async def _seed_row(conn: asyncpg.Connection, table: str) -> bool:
    """One row of generated values in ``table`` (identity and defaulted columns left to their
    defaults); False when its constraints refuse every generated value (a CHECK on an enum)."""
    cols = await conn.fetch(
        "SELECT column_name, data_type, udt_name, is_nullable, column_default, is_identity "
        "FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1",
        table,
    )
    names, values = [], []
    for c in cols:
        if c["is_identity"] == "YES" or c["column_default"] is not None:
            continue
        value = ARRAYS.get(c["udt_name"]) if c["data_type"] == "ARRAY" else VALUES.get(c["data_type"])
        if value is None:
            if c["is_nullable"] == "YES":
                continue
            raise AssertionError(f"{table}.{c['column_name']}: no generated value for {c['data_type']}; add one")
        names.append(f'"{c["column_name"]}"')
        values.append(value)
    sql = f'INSERT INTO "{table}" ({", ".join(names)}) VALUES ({", ".join(values)})'
    if not names:
        sql = f'INSERT INTO "{table}" DEFAULT VALUES'
    try:
        async with conn.transaction():
            await conn.execute(sql)
    except (asyncpg.CheckViolationError, asyncpg.ForeignKeyViolationError, asyncpg.UniqueViolationError):
        return False
    return True


async def _seed(conn: asyncpg.Connection) -> dict[str, int]:
    """A row in every table that takes one (parents first: tried until nothing more goes in);
    returns each table's row count."""
    pending = [t for t in await _tables(conn) if await conn.fetchval(f'SELECT count(*) FROM "{t}"') == 0]
    while pending:
        placed = [t for t in pending if await _seed_row(conn, t)]
        if not placed:
            break
        pending = [t for t in pending if t not in placed]
    return {t: int(await conn.fetchval(f'SELECT count(*) FROM "{t}"')) for t in await _tables(conn)}


@pytest.mark.parametrize("schema", sorted(SCHEMAS))
async def test_each_migration_applies_over_the_data_of_the_version_before(database_url: str, schema: str) -> None:
    scope, migrations = SCHEMAS[schema]
    name = f"okey_mig_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(database_url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    conn = await asyncpg.connect(with_database(database_url, name))
    seeded_any = False
    try:
        if schema in BENEATH:
            await migrate(conn, BENEATH[schema][1], scope=BENEATH[schema][0])
        assert await migrate(conn, migrations[:1], scope=scope) == [migrations[0][0]]
        for k in range(1, len(migrations)):
            before = await _seed(conn)  # the data of version k
            seeded_any = seeded_any or any(before.values())
            assert await migrate(conn, migrations[: k + 1], scope=scope) == [migrations[k][0]]
            tables = set(await _tables(conn))
            after = {t: int(await conn.fetchval(f'SELECT count(*) FROM "{t}"')) for t in before if t in tables}
            for t in set(before) - tables:  # dropped: its rows are in the table they moved to
                assert after[MOVED[t]] >= before[MOVED[t]] + before[t], f"{t}'s rows did not move to {MOVED[t]}"
                after[t] = before[t]
            for t in CARRIED_INTO:  # a carry-over adds rows to the record it carries into
                if t in after and after[t] >= before[t]:
                    after[t] = before[t]
            assert after == before, f"{schema} migration {migrations[k][0]} lost rows: {before} -> {after}"
        assert await _seed(conn)  # the last version takes data too
        assert seeded_any or len(migrations) == 1, f"{schema}: no table took a generated row"
    finally:
        await conn.close()
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def test_a_kept_scoring_install_carries_its_applied_versions_and_parked_tables_into_the_consumers_record(
    database_url: str,
) -> None:
    """Scoring kept its applied versions in ``scoring_tables`` and its parked tables in
    ``scoring_parked``; after the migration the consumers' record holds them (never moved back),
    so an upgraded projector neither applies an event again nor skips one."""
    name = f"okey_mig_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(database_url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    conn = await asyncpg.connect(with_database(database_url, name))
    try:
        await migrate(conn, CONSUMER_MIGRATIONS[:1], scope="consumer")  # the lobby's and bots' record
        await migrate(conn, SCORING[:5], scope=SCORING_SCOPE)
        for table_id, version in (("t-kept", 7), ("t-parked", 3), ("t-ahead", 2)):
            await conn.execute(
                "INSERT INTO scoring_tables (table_id, version, game, options, players, scores, hand, "
                "hands_recorded, shows, penalties, created_at) "
                "VALUES ($1, $2, 'OKEY', '{}', '{}', '{}', 0, 0, '[]', '[]', now())",
                table_id,
                version,
            )
        await conn.execute("INSERT INTO scoring_parked (table_id, version, reason) VALUES ('t-parked', 4, 'why')")
        await conn.execute(
            "INSERT INTO okey_consumer_versions VALUES ('scoring', 't-ahead', 5), ('lobby', 't-kept', 1)"
        )
        await migrate(conn, CONSUMER_MIGRATIONS, scope="consumer")
        await migrate(conn, SCORING, scope=SCORING_SCOPE)
        rows = await conn.fetch("SELECT consumer, table_id, version FROM okey_consumer_versions ORDER BY 1, 2")
        assert [tuple(r) for r in rows] == [
            ("lobby", "t-kept", 1),
            ("scoring", "t-ahead", 5),
            ("scoring", "t-kept", 7),
            ("scoring", "t-parked", 3),
        ]
        parked = await conn.fetch("SELECT consumer, table_id, version, reason FROM okey_consumer_parked")
        assert [tuple(r) for r in parked] == [("scoring", "t-parked", 4, "why")]
        assert await conn.fetchval("SELECT to_regclass('scoring_parked')") is None
    finally:
        await conn.close()
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()

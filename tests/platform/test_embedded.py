"""Integration tests of the embedded servers and the shared fixtures, over real connections.

The tests on ``pg_conn`` / ``jetstream`` run against whatever ``OKEY_DATABASE_URL`` /
``OKEY_NATS_URL`` name, else against the embedded servers; the stop/restart tests always use
private embedded servers.
"""

from __future__ import annotations

import asyncio
import socket
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg
import nats
import pytest
from nats.js import JetStreamContext
from nats.js.api import StreamConfig
from okeytools.embedded import (
    RESERVED_PORTS,
    EmbeddedNats,
    EmbeddedPostgres,
    EmbeddedServerError,
    aresolve_infra,
    free_port,
    resolve_infra,
    with_database,
)


def _accepts(url: str) -> bool:
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=1):
            return True
    except OSError:
        return False


# -- PostgreSQL ---------------------------------------------------------------------------------


async def test_asyncpg_creates_inserts_and_reads(pg_conn: asyncpg.Connection) -> None:
    await pg_conn.execute(
        "CREATE TABLE events (stream_id text, version int, body jsonb, PRIMARY KEY (stream_id, version))"
    )
    await pg_conn.executemany(
        "INSERT INTO events VALUES ($1, $2, $3)",
        [("t1", 1, '{"type": "TableCreated"}'), ("t1", 2, '{"type": "HandStarted"}')],
    )
    rows = await pg_conn.fetch(
        "SELECT version, body->>'type' AS type FROM events WHERE stream_id = $1 ORDER BY 1", "t1"
    )
    assert [(r["version"], r["type"]) for r in rows] == [(1, "TableCreated"), (2, "HandStarted")]
    with pytest.raises(asyncpg.UniqueViolationError):
        await pg_conn.execute("INSERT INTO events VALUES ('t1', 2, '{}')")


async def test_each_test_gets_a_fresh_empty_database(database_url: str, empty_database_url: str) -> None:
    assert empty_database_url != database_url
    conn = await asyncpg.connect(empty_database_url)
    try:
        assert await conn.fetchval("SELECT current_database()") == urlsplit(empty_database_url).path[1:]
        assert await conn.fetchval("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == 0
    finally:
        await conn.close()


async def test_each_test_gets_a_fresh_database_with_every_schema_applied(
    database_url: str, fresh_database_url: str, migrated_template: str
) -> None:
    """A copy of the session's migrated template: every scope ``okey migrate`` applies, at its
    latest version, and nothing of another test's."""
    from okeyplatform.consumer import CONSUMER_MIGRATIONS
    from okeyplatform.eventstore import MIGRATIONS

    from services.lobby import store as lobby
    from services.scoring import store as scoring

    assert fresh_database_url != database_url
    assert urlsplit(fresh_database_url).path[1:] != migrated_template
    conn = await asyncpg.connect(fresh_database_url)
    try:
        rows = await conn.fetch("SELECT scope, max(version) AS v FROM okey_schema GROUP BY scope")
        assert {r["scope"]: r["v"] for r in rows} == {
            "eventstore": MIGRATIONS[-1][0],
            "consumer": CONSUMER_MIGRATIONS[-1][0],
            lobby.SCOPE: lobby.MIGRATIONS[-1][0],
            scoring.SCOPE: scoring.MIGRATIONS[-1][0],
        }
        assert await conn.fetchval("SELECT count(*) FROM okey_events") == 0
    finally:
        await conn.close()


def test_embedded_postgres_runs_unprivileged_on_a_free_port(embedded_postgres: EmbeddedPostgres) -> None:
    assert embedded_postgres.port not in RESERVED_PORTS
    assert embedded_postgres.url == f"postgresql://postgres@127.0.0.1:{embedded_postgres.port}/postgres"
    assert embedded_postgres.os_user != "root"
    assert (embedded_postgres.pgdata / "PG_VERSION").is_file()


async def test_postgres_stops_and_starts_on_the_same_port_and_data(embedded_postgres: EmbeddedPostgres) -> None:
    url, port = embedded_postgres.url, embedded_postgres.port
    conn = await asyncpg.connect(url)
    await conn.execute("CREATE TABLE t (n int); INSERT INTO t VALUES (1), (2)")
    await conn.close()

    await embedded_postgres.astop()
    assert not embedded_postgres.running
    assert not _accepts(url)

    await embedded_postgres.astart()
    assert (embedded_postgres.url, embedded_postgres.port) == (url, port)
    conn = await asyncpg.connect(url)
    await conn.execute("INSERT INTO t VALUES (3)")
    await conn.close()

    # A crash: every committed transaction is still there after the restart.
    embedded_postgres.kill()
    await embedded_postgres.astart()
    conn = await asyncpg.connect(url)
    try:
        assert await conn.fetchval("SELECT array_agg(n ORDER BY n) FROM t") == [1, 2, 3]
    finally:
        await conn.close()


# -- NATS JetStream -----------------------------------------------------------------------------


async def test_jetstream_deduplicates_by_msg_id_and_consumes(jetstream: JetStreamContext, unique_id: str) -> None:
    stream, subject = f"TEST_{unique_id}", f"okey.test.{unique_id}"
    await jetstream.add_stream(StreamConfig(name=stream, subjects=[f"{subject}.>"]))

    first = await jetstream.publish(f"{subject}.t1", b"v1", headers={"Nats-Msg-Id": "t1:1"})
    again = await jetstream.publish(f"{subject}.t1", b"v1", headers={"Nats-Msg-Id": "t1:1"})
    second = await jetstream.publish(f"{subject}.t1", b"v2", headers={"Nats-Msg-Id": "t1:2"})
    assert (first.duplicate, again.duplicate, second.duplicate) == (None, True, None)
    assert again.seq == first.seq and second.seq == first.seq + 1
    assert (await jetstream.stream_info(stream)).state.messages == 2

    sub = await jetstream.pull_subscribe(f"{subject}.>", durable="reader", stream=stream)
    msgs = await sub.fetch(2, timeout=5)
    assert [m.data for m in msgs] == [b"v1", b"v2"]
    assert [m.headers and m.headers.get("Nats-Msg-Id") for m in msgs] == ["t1:1", "t1:2"]
    for m in msgs:
        await m.ack()
    await sub.unsubscribe()


async def test_nats_restarts_on_the_same_port_and_store(embedded_nats: EmbeddedNats, unique_id: str) -> None:
    url, port = embedded_nats.url, embedded_nats.port
    assert port not in RESERVED_PORTS
    reconnected = asyncio.Event()

    async def on_reconnect() -> None:
        reconnected.set()

    client = await nats.connect(url, reconnect_time_wait=0.1, max_reconnect_attempts=-1, reconnected_cb=on_reconnect)
    try:
        js = client.jetstream()
        await js.add_stream(StreamConfig(name="TABLES", subjects=["okey.table.>"]))
        for version in (1, 2, 3):
            await js.publish(f"okey.table.{unique_id}", b"e%d" % version, headers={"Nats-Msg-Id": f"x:{version}"})

        # Mid-match: the server goes away, and comes back on the same port with the same store.
        await embedded_nats.astop()
        assert not embedded_nats.running and not _accepts(url)
        await embedded_nats.astart()
        assert (embedded_nats.url, embedded_nats.port) == (url, port)

        await asyncio.wait_for(reconnected.wait(), 10)
        assert (await js.stream_info("TABLES")).state.messages == 3
        # Deduplication state survives the restart too.
        ack = await js.publish(f"okey.table.{unique_id}", b"e3", headers={"Nats-Msg-Id": "x:3"})
        assert ack.duplicate and ack.seq == 3

        sub = await js.pull_subscribe("okey.table.>", durable="after-restart", stream="TABLES")
        msgs = await sub.fetch(3, timeout=5)
        assert [m.data for m in msgs] == [b"e1", b"e2", b"e3"]
    finally:
        await client.close()


async def test_nats_keeps_messages_after_a_kill(embedded_nats: EmbeddedNats) -> None:
    client = await nats.connect(embedded_nats.url)
    js = client.jetstream()
    await js.add_stream(StreamConfig(name="S", subjects=["s.>"]))
    await js.publish("s.1", b"kept")
    await client.close()

    embedded_nats.kill()
    await embedded_nats.astart()
    client = await nats.connect(embedded_nats.url)
    try:
        msg = await client.jetstream().get_msg("S", 1)
        assert msg.data == b"kept"
    finally:
        await client.close()


# -- resolving URLs -----------------------------------------------------------------------------


def test_resolve_infra_prefers_the_environment() -> None:
    env = {"OKEY_DATABASE_URL": "postgresql://u@db.example:5432/okey", "OKEY_NATS_URL": "nats://bus.example:4222"}
    with resolve_infra(environ=env) as infra:
        assert infra.urls == ("postgresql://u@db.example:5432/okey", "nats://bus.example:4222")
        assert infra.postgres is None and infra.nats is None


async def test_resolve_infra_starts_embedded_servers_and_stops_them() -> None:
    async with await aresolve_infra(environ={}) as infra:
        assert infra.postgres is not None and infra.nats is not None
        for url in infra.urls:
            assert urlsplit(url).port not in RESERVED_PORTS
            assert urlsplit(url).hostname == "127.0.0.1"
        conn = await asyncpg.connect(infra.database_url)
        assert await conn.fetchval("SELECT 1") == 1
        await conn.close()
        client = await nats.connect(infra.nats_url)
        assert (await client.jetstream().account_info()).streams == 0
        await client.close()
        dirs = [infra.postgres.base_dir, infra.nats.base_dir]
    assert not any(_accepts(url) for url in infra.urls)
    assert not any(d.exists() for d in dirs)


async def test_a_given_data_dir_persists_across_servers() -> None:
    with tempfile.TemporaryDirectory(prefix="okey-persist-") as tmp:
        base = Path(tmp)
        base.chmod(0o755)  # when we are root, the PostgreSQL user must be able to enter it
        async with EmbeddedPostgres(base / "pg") as pg, EmbeddedNats(base / "nats") as bus:
            assert pg.durable
            conn = await asyncpg.connect(pg.url)
            await conn.execute("CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)")
            await conn.close()
            client = await nats.connect(bus.url)
            await client.jetstream().add_stream(StreamConfig(name="KEPT", subjects=["kept"]))
            await client.close()
        assert (base / "pg" / "pgdata" / "PG_VERSION").is_file()  # a given directory is never removed

        # New server objects (new ports) on the same directories: the data is still there.
        async with EmbeddedPostgres(base / "pg") as pg, EmbeddedNats(base / "nats") as bus:
            conn = await asyncpg.connect(pg.url)
            assert await conn.fetchval("SELECT n FROM kept") == 7
            await conn.close()
            client = await nats.connect(bus.url)
            assert (await client.jetstream().stream_info("KEPT")).config.subjects == ["kept"]
            await client.close()


def test_helpers() -> None:
    assert free_port() not in RESERVED_PORTS
    # Never an outgoing connection's own port (the kernel's range for those), never one handed out
    # lately, and free: a listener binds it.
    from okeytools.embedded.base import _ephemeral_low

    ports = [free_port() for _ in range(50)]
    assert len(set(ports)) == 50 and all(1024 < p < _ephemeral_low() for p in ports)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", ports[-1]))
    assert with_database("postgresql://postgres@127.0.0.1:1/postgres", "x") == "postgresql://postgres@127.0.0.1:1/x"
    assert with_database("postgresql://u:p@h/a?sslmode=disable", "b") == "postgresql://u:p@h/b?sslmode=disable"
    with pytest.raises(EmbeddedServerError):
        EmbeddedNats(port=4222)
    with pytest.raises(EmbeddedServerError):
        EmbeddedPostgres(port=5432)
    with pytest.raises(EmbeddedServerError):
        _ = EmbeddedNats().url  # not started: no port yet

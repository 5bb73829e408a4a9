"""``okey backup FILE`` and ``okey restore FILE``: a single-machine install's database, whole, in
one file (``pg_dump``'s custom format, with the embedded wheel's own ``pg_dump``/``pg_restore``).

The database is ``OKEY_DATABASE_URL`` when set; else the embedded PostgreSQL of the data
directory (``--data-dir``, ``OKEY_DATA_DIR``, the per-user one ``okey up`` uses): the running
server when ``okey up`` has it open, or one started for the backup. A restore goes into a fresh
data directory only, never over a database that holds data. Everything is in the dump: the event
log, the projections, the lobby's players and ledger, and the relay's cursor, so a relay started
on the restored database publishes only what comes after it, never an event twice (JetStream's
de-duplication window covers the rest)."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .embedded import EmbeddedPostgres

__all__ = ["run_backup", "run_restore"]


def _tool(name: str) -> str:
    from .embedded.postgres import postgres_install_dir

    return str(postgres_install_dir() / "bin" / name)


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PG")}


def _pgbase(data_dir: Path) -> Path:
    return data_dir / "postgres"


def _running_port(pgdata: Path) -> int | None:
    """The port of the server that has ``pgdata`` open (its postmaster.pid), if it is alive."""
    try:
        lines = (pgdata / "postmaster.pid").read_text(encoding="utf-8").splitlines()
        pid, port = int(lines[0]), int(lines[3])
        os.kill(pid, 0)
    except (OSError, ValueError, IndexError):
        return None
    return port


@contextlib.contextmanager
def _database(data_dir: Path | None) -> Iterator[str]:
    """The URL of the database to back up (see the module's docstring)."""
    url = os.environ.get("OKEY_DATABASE_URL")
    if url:
        yield url
        return
    from .embedded import EmbeddedPostgres
    from .up import default_data_dir

    base = _pgbase(data_dir or default_data_dir())
    if not (base / "pgdata" / "PG_VERSION").is_file():
        raise FileNotFoundError(f"no okey database in {base.parent}: give --data-dir (or set OKEY_DATABASE_URL)")
    port = _running_port(base / "pgdata")
    if port is not None:  # okey up has it open: back up the running server
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
        return
    with EmbeddedPostgres(base, durable=True) as pg:
        yield pg.url


def _count_events(url: str) -> int:
    """The events in the log at ``url``; a server that cannot be used is ``DatabaseUnreachable``
    (one line naming OKEY_DATABASE_URL, exit 2), before pg_dump is asked."""
    import asyncio

    from okeyplatform.eventstore import connect_database

    async def go() -> int:
        conn = await connect_database(url)
        try:
            exists = await conn.fetchval("SELECT to_regclass('okey_events') IS NOT NULL")
            return int(await conn.fetchval("SELECT count(*) FROM okey_events")) if exists else 0
        finally:
            await conn.close()

    return asyncio.run(go())


CLOG_PAGE_XIDS = 32768  # transactions per page of PostgreSQL's commit log (8 KB, 2 bits each)


def _past_restored_transactions(pg: EmbeddedPostgres) -> None:
    """Move the restored cluster's transaction ids past the ones the log recorded.

    The log's order is ``(tx, position)``, ``tx`` the 64-bit id of the writing transaction, and
    a reader sees only rows older than every running transaction (``tx <
    pg_snapshot_xmin(...)``). A dump keeps the ``tx`` values, but a fresh cluster counts its
    transactions from the start: restored as is, the log stays hidden from the relay, the
    consumers' catch-up and ``okey replay`` until the new counter passes the old one, and every
    new event sorts before the relay's restored cursor, never to be published. So the next
    transaction's epoch is set one past the log's highest (``pg_resetwal -e``, the 32-bit part
    kept near the cluster's own, at a commit-log page): new ids are above every restored one."""
    import asyncio

    from okeyplatform.eventstore import connect_database

    async def read() -> tuple[int, int]:
        conn = await connect_database(pg.url)
        try:
            if await conn.fetchval("SELECT to_regclass('okey_events') IS NULL"):
                return -1, 0
            high = await conn.fetchval(
                "SELECT greatest((SELECT max(tx) FROM okey_events), (SELECT max(tx) FROM okey_cursors))::text"
            )
            nxt = await conn.fetchval("SELECT pg_snapshot_xmax(pg_current_snapshot())::text")
            return (int(high) if high is not None else -1), int(nxt)
        finally:
            await conn.close()

    high, nxt = asyncio.run(read())
    if high < nxt:
        return  # nothing restored, or already behind the cluster's own counter
    xid = ((nxt & 0xFFFFFFFF) // CLOG_PAGE_XIDS + 1) * CLOG_PAGE_XIDS
    pg.stop()
    pg.set_next_transaction((high >> 32) + 1, xid)
    pg.start()
    high_after, nxt_after = asyncio.run(read())
    if nxt_after <= high_after:
        raise OSError(f"the restored cluster's next transaction {nxt_after} is not past the log's {high_after}")


def _failure(tool: str, stderr: str) -> str:
    """pg_dump's or pg_restore's own reason, in one line: its first ``error:`` line (the rest is
    detail and context), without the program's name."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if "error:" in line] or lines or ["no message"]
    reason = errors[0]
    for prefix in (f"{tool}: error:", f"{tool}:"):
        reason = reason.removeprefix(prefix).strip()
    return reason


def run_backup(args: argparse.Namespace) -> int:
    target = Path(args.file).absolute()
    if target.exists() and not args.force:
        print(f"okey backup: {target} exists; choose another file or pass --force", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    try:
        with _database(Path(args.data_dir) if args.data_dir else None) as url:
            events = _count_events(url)
            got = subprocess.run(
                [_tool("pg_dump"), "--format=custom", "--no-owner", "--file", str(target), url],
                env=_env(),
                capture_output=True,
                text=True,
                check=False,
            )
    except OSError as exc:  # no database there, or it cannot be reached (DatabaseUnreachable)
        print(f"okey backup: {exc}", file=sys.stderr)
        return 2
    if got.returncode != 0:
        target.unlink(missing_ok=True)  # never leave half a backup that looks like one
        print(
            f"okey backup: pg_dump failed: {_failure('pg_dump', got.stderr)}; check FILE and the database "
            "(OKEY_DATABASE_URL, else --data-dir)",
            file=sys.stderr,
        )
        return 2
    size = target.stat().st_size
    print(
        f"okey backup: {events:,} events and everything beside them in {target} ({size / 1e6:,.1f} MB, "
        f"{time.monotonic() - t0:.1f} s); okey restore {target.name} --data-dir NEW_DIR brings it back"
    )
    return 0


def run_restore(args: argparse.Namespace) -> int:
    from .embedded import EmbeddedPostgres
    from .up import default_data_dir

    source = Path(args.file).absolute()
    if not source.is_file():
        print(f"okey restore: no backup file {source}", file=sys.stderr)
        return 2
    data_dir = Path(args.data_dir).absolute() if args.data_dir else default_data_dir()
    base = _pgbase(data_dir)
    if (base / "pgdata").exists() and any((base / "pgdata").iterdir()):
        print(
            f"okey restore: {data_dir} already holds a database; restore into a fresh data directory "
            "(--data-dir NEW_DIR), never over one in use",
            file=sys.stderr,
        )
        return 2
    # The file is read before a server is made for it: a file that is not a backup leaves the
    # data directory as it was.
    listed = subprocess.run(
        [_tool("pg_restore"), "--list", str(source)], env=_env(), capture_output=True, text=True, check=False
    )
    if listed.returncode != 0:
        print(
            f"okey restore: {source} is not a backup okey backup wrote: {_failure('pg_restore', listed.stderr)}",
            file=sys.stderr,
        )
        return 2
    fresh = not base.exists()
    t0 = time.monotonic()
    try:
        with EmbeddedPostgres(base, durable=True) as pg:
            got = subprocess.run(
                [
                    _tool("pg_restore"),
                    "--no-owner",
                    "--exit-on-error",
                    "--single-transaction",
                    "--dbname",
                    pg.url,
                    str(source),
                ],
                env=_env(),
                capture_output=True,
                text=True,
                check=False,
            )
            events = 0
            if got.returncode == 0:
                events = _count_events(pg.url)
                _past_restored_transactions(pg)
    except OSError as exc:
        print(f"okey restore: {exc}", file=sys.stderr)
        return 2
    if got.returncode != 0:
        if fresh:  # the restore ran in one transaction: what it made holds nothing; try again there
            shutil.rmtree(base, ignore_errors=True)
        print(
            f"okey restore: pg_restore failed: {_failure('pg_restore', got.stderr)}; nothing was restored "
            f"into {data_dir} (check FILE)",
            file=sys.stderr,
        )
        return 2
    print(
        f"okey restore: {events:,} events restored into {data_dir} ({time.monotonic() - t0:.1f} s); "
        f"okey up --data-dir {data_dir} runs on it (players sign in again: the tokens' key is not in a backup)"
    )
    return 0

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
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

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
    import asyncio

    import asyncpg

    async def go() -> int:
        conn = await asyncpg.connect(url)
        try:
            exists = await conn.fetchval("SELECT to_regclass('okey_events') IS NOT NULL")
            return int(await conn.fetchval("SELECT count(*) FROM okey_events")) if exists else 0
        finally:
            await conn.close()

    return asyncio.run(go())


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
    except (FileNotFoundError, OSError) as exc:
        print(f"okey backup: {exc}", file=sys.stderr)
        return 2
    if got.returncode != 0:
        print(f"okey backup: pg_dump failed: {got.stderr.strip()}", file=sys.stderr)
        return 1
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
            events = _count_events(pg.url) if got.returncode == 0 else 0
    except OSError as exc:
        print(f"okey restore: {exc}", file=sys.stderr)
        return 2
    if got.returncode != 0:
        print(f"okey restore: pg_restore failed: {got.stderr.strip()}", file=sys.stderr)
        return 1
    print(
        f"okey restore: {events:,} events restored into {data_dir} ({time.monotonic() - t0:.1f} s); "
        f"okey up --data-dir {data_dir} runs on it (players sign in again: the tokens' key is not in a backup)"
    )
    return 0

"""``okey up`` (the whole stack, each service in its own process) and ``okey serve <service>``."""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import sys
import time
from pathlib import Path

from .embedded import EmbeddedServerError, resolve_infra
from .stack import Stack, service_command, stack_ports

__all__ = [
    "run_up",
    "run_serve",
    "run_migrate",
    "check_servers",
    "default_data_dir",
    "stored_token_secret",
    "TOKEN_SECRET_FILE",
]


def default_data_dir(environ: dict[str, str] | None = None) -> Path:
    """Where ``okey up`` keeps its data unless told: ``OKEY_DATA_DIR``, else the per-user data
    directory of the XDG base directory spec (``$XDG_DATA_HOME/okey``, ``~/.local/share/okey``);
    for root, ``/var/lib/okey``."""
    env = os.environ if environ is None else environ
    if env.get("OKEY_DATA_DIR"):
        return Path(env["OKEY_DATA_DIR"]).expanduser()
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # root's home is closed to the unprivileged user the embedded PostgreSQL runs as
        return Path("/var/lib/okey")
    base = Path(env["XDG_DATA_HOME"]).expanduser() if env.get("XDG_DATA_HOME") else Path.home() / ".local" / "share"
    return base / "okey"


TOKEN_SECRET_FILE = "token-secret"  # in the data directory, mode 0600


def stored_token_secret(data_dir: Path) -> str | None:
    """The token secret ``okey up`` keeps in ``data_dir``, None when it has none (``okey admin``
    signs its tokens with it)."""
    path = data_dir / TOKEN_SECRET_FILE
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except FileNotFoundError:
        return None


def _token_secret(data_dir: Path | None) -> str:
    """The tokens' key: OKEY_TOKEN_SECRET, else one kept in the data directory (so a player's
    sign-in survives a restart), else a new one for this run."""
    if os.environ.get("OKEY_TOKEN_SECRET"):
        return os.environ["OKEY_TOKEN_SECRET"]
    if data_dir is None:
        return secrets.token_hex(32)
    kept = stored_token_secret(data_dir)
    if kept is not None:
        return kept
    path = data_dir / TOKEN_SECRET_FILE
    data_dir.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(secret + "\n")
    return secret


def check_servers(database_url: str | None, nats_url: str | None) -> None:
    """PostgreSQL and NATS of our own (the URLs given) answer, checked once before any service
    starts: else ``DatabaseUnreachable`` / ``NatsUnreachable``, which ``okey`` prints as one line
    naming the variable (exit 2). The services, once started, wait for a server that goes away
    and reconnect; a URL that never worked is told here instead of retried for ever."""
    import asyncio

    async def go() -> None:
        if database_url:
            from okeyplatform.eventstore import connect_database

            conn = await connect_database(database_url)
            await conn.close()
        if nats_url:
            from okeyplatform.bus import check_nats

            await check_nats(nats_url)

    asyncio.run(go())


def run_serve(args: argparse.Namespace) -> int:
    """Replace this process with the service's own entry point, ``python -m services.<name>.main``:
    the tool does not import the services, and the service keeps this pid (signals reach it)."""
    if args.service != "gateway":
        missing = [v for v in ("OKEY_DATABASE_URL", "OKEY_NATS_URL") if not os.environ.get(v)]
        if missing:
            print(f"okey serve: set {' and '.join(missing)} (or use `okey up`, which starts them)", file=sys.stderr)
            return 2
        # The database is the service's own to check (its pool says DatabaseUnreachable); NATS
        # it would wait for without end.
        check_servers(None, os.environ["OKEY_NATS_URL"])
    command = service_command(args.service)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(command[0], command)


def run_up(args: argparse.Namespace) -> int:
    """The whole stack on the documented ports, each service in its own process, until Ctrl-C
    (or ``--for-seconds``); a service that dies stops the rest with a message."""
    out = sys.stdout
    external = bool(os.environ.get("OKEY_DATABASE_URL") and os.environ.get("OKEY_NATS_URL"))
    data_dir = None if getattr(args, "ephemeral", False) else Path(args.data_dir or default_data_dir()).absolute()
    if external:
        data_dir = None  # nothing embedded to keep
    # Servers of our own (the URLs set): a wrong one is told now, before anything starts, not as
    # a service's exit code or a wait without end.
    check_servers(os.environ.get("OKEY_DATABASE_URL"), os.environ.get("OKEY_NATS_URL"))
    out.write("okey up: starting PostgreSQL and NATS ...\n")
    if data_dir is not None:
        out.write(f"  data        {data_dir}  (kept between runs; --ephemeral for a throwaway run)\n")
    elif not external:
        out.write("  data        a temporary directory, removed at the end (--ephemeral; PostgreSQL without fsync)\n")
    out.flush()
    try:
        # makes the directory (after checking the embedded wheels). The embedded servers start
        # before the services bind their ports: they must not take one of those meanwhile.
        infra = resolve_infra(data_dir, avoid_ports=stack_ports(os.environ))
    except EmbeddedServerError as exc:  # the embedded extra missing, a server that would not start
        print(f"okey up: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the data directory cannot be made or written
        print(f"okey up: {exc}; choose another with --data-dir or OKEY_DATA_DIR", file=sys.stderr)
        return 2
    with infra:
        os.environ["OKEY_TOKEN_SECRET"] = _token_secret(data_dir)
        src = "embedded" if infra.postgres else "OKEY_DATABASE_URL"
        out.write(f"  PostgreSQL  {_redact(infra.database_url)}  ({src})\n")
        out.write(f"  NATS        {infra.nats_url}  ({'embedded' if infra.nats else 'OKEY_NATS_URL'})\n")
        stack = Stack(infra.database_url, infra.nats_url, fixed_ports=True)
        taken = stack.taken()
        if taken:  # before any service starts: one line each, naming what to change
            for line in taken:
                print(f"okey up: {line}", file=sys.stderr)
            print("okey up: stop what holds them (another okey up?) or choose other addresses", file=sys.stderr)
            return 2
        stop = {"now": False}

        def on_signal(_sig: int, _frame: object) -> None:
            stop["now"] = True

        old_int = signal.signal(signal.SIGINT, on_signal)
        old_term = signal.signal(signal.SIGTERM, on_signal)
        failed = False
        try:
            for name in stack.services:
                stack.start_one(name)
                extra = (
                    f"  http://{stack.http_address}  (web client, HTTP/JSON, WebSocket)" if name == "gateway" else ""
                )
                out.write(f"  {name:<11} grpc://{stack.address(name)}{extra}\n")
            out.write("ready. Ctrl-C stops everything.\n")
            out.flush()
            started = time.monotonic()
            while not stop["now"]:
                if args.for_seconds and time.monotonic() - started >= args.for_seconds:
                    break
                for name, code in stack.exited():
                    out.write(f"okey up: {name} exited with code {code}; stopping\n")
                    stop["now"] = failed = True
                time.sleep(0.2)
        except (RuntimeError, TimeoutError, OSError) as exc:
            out.write(f"okey up: {exc}\n")
            failed = True
        finally:
            signal.signal(signal.SIGINT, old_int)
            signal.signal(signal.SIGTERM, old_term)
            out.write("okey up: stopping ...\n")
            stack.stop()
    # The data folder once more where a person looks last (after Ctrl-C too) [issue 41.4].
    if data_dir is not None:
        out.write(f"okey up: stopped; the data stays in {data_dir} (okey up --data-dir {data_dir} goes on from it)\n")
    elif not external:
        out.write("okey up: stopped; the temporary data directory is removed (--ephemeral)\n")
    else:
        out.write("okey up: stopped; the data is in the servers of OKEY_DATABASE_URL and OKEY_NATS_URL\n")
    out.flush()
    return 1 if failed else 0


def _redact(url: str) -> str:
    if "@" in url and ":" in url.split("@", 1)[0].split("//", 1)[-1]:
        head, tail = url.split("@", 1)
        scheme, creds = head.split("//", 1)
        return f"{scheme}//{creds.split(':', 1)[0]}:***@{tail}"
    return url


def run_migrate(args: argparse.Namespace) -> int:
    """Every schema the services own, applied in order; each service also does this at start.
    With OKEY_NATS_URL set, the event stream is created or brought to its OKEY_STREAM_* settings."""
    import asyncio
    import importlib

    from okeyplatform.eventstore import connect_database, migrate

    url = args.database_url or os.environ.get("OKEY_DATABASE_URL")
    if not url:
        print("okey migrate: set OKEY_DATABASE_URL or pass --database-url", file=sys.stderr)
        return 2

    async def go() -> list[str]:
        done: list[str] = []
        conn = await connect_database(url)
        try:
            applied = await migrate(conn)
            done.append(f"eventstore: {len(applied)} applied")
            for module in ("services.scoring.store", "services.lobby.store", "services.bots.consumer"):
                try:
                    mod = importlib.import_module(module)
                except ImportError:
                    continue
                fn = getattr(mod, "migrate_schema", None)
                if fn is not None:
                    got = await fn(conn)
                    done.append(f"{module.split('.')[1]}: {got}")
        finally:
            await conn.close()
        nats_url = os.environ.get("OKEY_NATS_URL")
        if nats_url:
            # The event stream is configured here (and by the relay), from one place: the
            # OKEY_STREAM_* settings. Consumers only bind to it.
            import nats
            from okeyplatform.relay import StreamSettings, ensure_table_stream

            settings = StreamSettings.from_env()
            nc = await nats.connect(nats_url, connect_timeout=5, max_reconnect_attempts=3)
            try:
                await ensure_table_stream(nc.jetstream(), settings)
            finally:
                await nc.close()
            done.append(
                f"stream OKEY_TABLES: {settings.replicas} replicas, max age {settings.max_age_s / 3600:g} h, "
                f"max bytes {'unlimited' if settings.max_bytes < 0 else settings.max_bytes}"
            )
        return done

    for line in asyncio.run(go()):
        print(f"okey migrate: {line}")
    return 0

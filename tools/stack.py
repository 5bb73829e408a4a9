"""The whole stack as processes: every service started as ``python -m services.<name>.main`` on free (or
given) loopback ports, wired to each other by environment, health-checked, and killable one
by one. Used by ``okey up``, ``okey demo``, the soak benchmark and every test that runs two or more
services (the ``make_stack`` fixtures of tests/conftest.py)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from okeyplatform.host import ADDRESS_VARIABLES

from .embedded import free_port

__all__ = [
    "Stack",
    "ServiceProcess",
    "ALL_SERVICES",
    "ADDR_ENV",
    "METRICS_ENV",
    "DEFAULT_METRICS_PORTS",
    "service_command",
    "wait_healthy",
    "fixed_addresses",
    "stack_ports",
]

# In start order: the table first (the others call it), the gateway last.
ALL_SERVICES = ("table", "scoring", "lobby", "bots", "gateway")
ADDR_ENV = ADDRESS_VARIABLES  # each service's gRPC address variable (okeyplatform.host)
DEFAULT_PORTS = {"table": 50061, "scoring": 50062, "lobby": 50063, "bots": 50064, "gateway": 50051}
# Where each service of a stack serves /metrics: the stack passes it to that process as
# OKEY_METRICS_ADDR (one variable per process; in Kubernetes every pod uses the same port).
METRICS_ENV = {name: f"OKEY_{name.upper()}_METRICS_ADDR" for name in ALL_SERVICES}
DEFAULT_METRICS_PORTS = {"table": 9061, "scoring": 9062, "lobby": 9063, "bots": 9064, "gateway": 9051}
HTTP_ENV = "OKEY_GATEWAY_HTTP_ADDR"  # the gateway's HTTP/JSON and WebSocket address
DEFAULT_HTTP_PORT = 8080


def fixed_addresses(environ: Mapping[str, str]) -> dict[str, str]:
    """Every address a stack on the documented ports (``fixed_ports``: ``okey up``) listens on,
    by its variable: the variable's value where ``environ`` sets it, else the documented port."""
    out: dict[str, str] = {}
    for name in ALL_SERVICES:
        out[ADDR_ENV[name]] = environ.get(ADDR_ENV[name]) or f"127.0.0.1:{DEFAULT_PORTS[name]}"
        out[METRICS_ENV[name]] = environ.get(METRICS_ENV[name]) or f"127.0.0.1:{DEFAULT_METRICS_PORTS[name]}"
    out[HTTP_ENV] = environ.get(HTTP_ENV) or f"127.0.0.1:{DEFAULT_HTTP_PORT}"
    return out


def stack_ports(environ: Mapping[str, str]) -> frozenset[int]:
    """The port numbers of :func:`fixed_addresses`: what ``okey up`` keeps its embedded servers
    off, since its services bind them only after those servers have started."""
    ports: set[int] = set()
    for address in fixed_addresses(environ).values():
        port = address.rpartition(":")[2]
        if port.isdigit():
            ports.add(int(port))
    return frozenset(ports)


def service_command(name: str) -> list[str]:
    """How a service is run: its own entry point as a module of this interpreter, so a tool never
    imports a service (``okey serve`` execs this, the stack starts it as a child)."""
    if name not in ALL_SERVICES:
        raise ValueError(f"no service {name!r} (one of {', '.join(ALL_SERVICES)})")
    return [sys.executable, "-m", f"services.{name}.main"]


def wait_healthy(address: str, timeout_s: float = 30.0, proc: subprocess.Popen[bytes] | None = None) -> None:
    """Until the standard gRPC health service at ``address`` answers SERVING."""
    deadline = time.monotonic() + timeout_s
    last = ""
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the service at {address} exited with code {proc.returncode}")
        try:
            with grpc.insecure_channel(address) as ch:
                resp = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=1.0)
                if resp.status == health_pb2.HealthCheckResponse.SERVING:
                    return
                last = str(resp.status)
        except grpc.RpcError as exc:
            last = exc.code().name if hasattr(exc, "code") else str(exc)
        time.sleep(0.2)
    raise TimeoutError(f"{address} did not become healthy in {timeout_s:.0f}s (last: {last})")


@dataclass
class ServiceProcess:
    name: str
    address: str
    metrics_address: str = ""
    proc: subprocess.Popen[bytes] | None = None
    log: IO[bytes] | None = None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


@dataclass
class Stack:
    database_url: str
    nats_url: str
    services: Sequence[str] = ALL_SERVICES
    fixed_ports: bool = False  # the documented default ports instead of free ones
    extra_env: Mapping[str, str] = field(default_factory=dict)
    log_dir: Path | None = None  # each service's output goes to <log_dir>/<name>.log, else inherited
    procs: dict[str, ServiceProcess] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    http_address: str = ""

    def __post_init__(self) -> None:
        env = dict(os.environ)
        env.update(self.extra_env)
        env["OKEY_DATABASE_URL"] = self.database_url
        env["OKEY_NATS_URL"] = self.nats_url
        if not env.get("OKEY_TOKEN_SECRET"):
            from okeyplatform.auth import token_secret

            token_secret()
            env["OKEY_TOKEN_SECRET"] = os.environ["OKEY_TOKEN_SECRET"]
        fixed = fixed_addresses(env) if self.fixed_ports else {}
        for name in ALL_SERVICES:
            # A service another stack runs keeps the address given: this one's services call it
            # where it is (a second gateway with other limits in front of a running stack, say).
            given = self.extra_env.get(ADDR_ENV[name]) if name not in self.services else None
            address = given or fixed.get(ADDR_ENV[name]) or f"127.0.0.1:{free_port()}"
            env[ADDR_ENV[name]] = address
            metrics = (
                self.extra_env.get(METRICS_ENV[name]) or fixed.get(METRICS_ENV[name]) or f"127.0.0.1:{free_port()}"
            )
            env[METRICS_ENV[name]] = metrics
            self.procs[name] = ServiceProcess(name, address, metrics)
        self.http_address = fixed.get(HTTP_ENV) or f"127.0.0.1:{free_port()}"
        env[HTTP_ENV] = self.http_address
        self.env = env

    def address(self, name: str) -> str:
        return self.procs[name].address

    def taken(self) -> list[str]:
        """The addresses this stack would listen on that something else holds already, each as
        a line naming the variable to change (what ``okey up`` prints instead of starting)."""
        wanted = [(self.http_address, "the gateway's HTTP", HTTP_ENV)]
        for name in self.services:
            sp = self.procs[name]
            wanted.append((sp.address, f"the {name} service's gRPC", ADDR_ENV[name]))
            wanted.append((sp.metrics_address, f"the {name} service's metrics", METRICS_ENV[name]))
        out = []
        for address, what, variable in wanted:
            host, _, port = address.rpartition(":")
            with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                try:
                    s.bind((host.strip("[]") or "0.0.0.0", int(port)))
                except OSError as exc:
                    out.append(f"{address} ({what}) is not free ({exc.strerror}): set {variable} to a free address")
        return out

    def metrics_address(self, name: str) -> str:
        """Where that service serves Prometheus metrics (``GET /metrics``)."""
        return self.procs[name].metrics_address

    def start(self, timeout_s: float = 60.0) -> None:
        for name in self.services:
            self.start_one(name, timeout_s)

    def start_one(self, name: str, timeout_s: float = 60.0) -> None:
        sp = self.procs[name]
        if sp.running:
            return
        out: IO[bytes] | None = None
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            out = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115 - closed in stop_one
            sp.log = out
        sp.proc = subprocess.Popen(
            service_command(name),
            env={**self.env, "OKEY_METRICS_ADDR": sp.metrics_address},
            stdout=out,
            stderr=subprocess.STDOUT if out else None,
        )
        try:
            wait_healthy(sp.address, timeout_s, sp.proc)
        except Exception:
            self.stop_one(name)
            raise

    def kill(self, name: str) -> None:
        """kill -9: no drain, no goodbye."""
        sp = self.procs[name]
        if sp.proc is not None and sp.proc.poll() is None:
            sp.proc.send_signal(signal.SIGKILL)
            sp.proc.wait(timeout=10)

    def stop_one(self, name: str, timeout_s: float = 15.0) -> None:
        sp = self.procs[name]
        if sp.proc is not None and sp.proc.poll() is None:
            sp.proc.send_signal(signal.SIGTERM)
            try:
                sp.proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                sp.proc.kill()
                sp.proc.wait(timeout=10)
        if sp.log is not None:
            sp.log.close()
            sp.log = None

    def restart(self, name: str, timeout_s: float = 60.0) -> None:
        self.stop_one(name)
        self.start_one(name, timeout_s)

    def stop(self) -> None:
        for name in reversed(list(self.services)):
            self.stop_one(name)

    def exited(self) -> list[tuple[str, int]]:
        return [
            (n, sp.proc.returncode)
            for n, sp in self.procs.items()
            if sp.proc is not None and sp.proc.poll() is not None
        ]

    def __enter__(self) -> Stack:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

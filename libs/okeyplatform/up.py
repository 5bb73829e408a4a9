"""``okey up`` (the whole stack, each service in its own process) and ``okey serve <service>``."""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from .embedded import resolve_infra

__all__ = ["run_up", "run_serve", "SERVICES", "wait_healthy"]


@dataclass(frozen=True)
class ServiceSpec:
    name: str
    addr_env: str
    default_addr: str


SERVICES = (ServiceSpec("table", "OKEY_TABLE_ADDR", "127.0.0.1:50061"),)


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


def run_serve(args: argparse.Namespace) -> int:
    missing = [v for v in ("OKEY_DATABASE_URL", "OKEY_NATS_URL") if not os.environ.get(v)]
    if missing:
        print(f"okey serve: set {' and '.join(missing)} (or use `okey up`, which starts them)", file=sys.stderr)
        return 2
    if args.service == "table":
        from services.table.main import main

        main()
    return 0


def run_up(args: argparse.Namespace) -> int:
    out = sys.stdout
    out.write("okey up: starting PostgreSQL and NATS ...\n")
    out.flush()
    procs: list[tuple[ServiceSpec, subprocess.Popen[bytes]]] = []
    with resolve_infra(args.data_dir) as infra:
        env = dict(os.environ)
        env["OKEY_DATABASE_URL"] = infra.database_url
        env["OKEY_NATS_URL"] = infra.nats_url
        env.setdefault("OKEY_TOKEN_SECRET", secrets.token_hex(32))
        src = "embedded" if infra.postgres else "OKEY_DATABASE_URL"
        out.write(f"  PostgreSQL  {_redact(infra.database_url)}  ({src})\n")
        out.write(f"  NATS        {infra.nats_url}  ({'embedded' if infra.nats else 'OKEY_NATS_URL'})\n")
        stop = {"now": False}

        def on_signal(_sig: int, _frame: object) -> None:
            stop["now"] = True

        old_int = signal.signal(signal.SIGINT, on_signal)
        old_term = signal.signal(signal.SIGTERM, on_signal)
        try:
            for spec in SERVICES:
                addr = env.get(spec.addr_env, spec.default_addr)
                env[spec.addr_env] = addr
                proc = subprocess.Popen([sys.executable, "-m", "okeyplatform.cli", "serve", spec.name], env=env)
                procs.append((spec, proc))
                wait_healthy(addr, proc=proc)
                out.write(f"  {spec.name:<11} grpc://{addr}  (health and reflection on)\n")
            out.write("ready. Ctrl-C stops everything.\n")
            out.flush()
            started = time.monotonic()
            while not stop["now"]:
                if args.for_seconds and time.monotonic() - started >= args.for_seconds:
                    break
                for spec, proc in procs:
                    if proc.poll() is not None:
                        out.write(f"okey up: {spec.name} exited with code {proc.returncode}; stopping\n")
                        stop["now"] = True
                time.sleep(0.2)
        finally:
            signal.signal(signal.SIGINT, old_int)
            signal.signal(signal.SIGTERM, old_term)
            out.write("okey up: stopping ...\n")
            for _, proc in procs:
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
            for _, proc in procs:
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
    out.write("okey up: stopped\n")
    failed = [spec.name for spec, proc in procs if proc.returncode not in (0, -signal.SIGTERM)]
    return 1 if failed else 0


def _redact(url: str) -> str:
    if "@" in url and ":" in url.split("@", 1)[0].split("//", 1)[-1]:
        head, tail = url.split("@", 1)
        scheme, creds = head.split("//", 1)
        return f"{scheme}//{creds.split(':', 1)[0]}:***@{tail}"
    return url

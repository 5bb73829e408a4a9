"""Several worker processes of one service on one port: ``OKEY_<SERVICE>_WORKERS`` > 1 runs that
many full replicas of the service (SO_REUSEPORT on its gRPC port; the bots' share the durable
consumer's queue, the table's the store's one writer per table), kept running by a supervisor
that serves their metrics' sum on the one metrics port (each worker serves its own on a loopback
port of the supervisor's choosing: ``okeyplatform.metrics.serve_workers``)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

from .logs import fatal, get_logger
from .metrics import RECORDING, metrics_address, serve_workers

__all__ = ["supervise", "workers_variable", "worker_count"]


WORKER_VARIABLES = {"table": "OKEY_TABLE_WORKERS", "bots": "OKEY_BOTS_WORKERS"}
"""The services that run several worker processes, and the variable that says how many."""


def workers_variable(service: str) -> str:
    """``OKEY_TABLE_WORKERS``, ``OKEY_BOTS_WORKERS``: how many worker processes."""
    return WORKER_VARIABLES[service]


def worker_count(service: str, environ: dict[str, str] | None = None) -> int:
    """The worker processes asked for (1 when unset), or 1 inside a worker (``OKEY_REUSE_PORT``
    is set for them: a worker never supervises). Raises ValueError naming the variable."""
    env = os.environ if environ is None else environ
    if env.get("OKEY_REUSE_PORT") == "1":
        return 1
    name = workers_variable(service)
    text = env.get(name, "1").strip() or "1"
    if not text.isdigit() or not 1 <= int(text) <= 64:
        raise ValueError(f"{name}={text!r}: a number of worker processes, 1 to 64")
    return int(text)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def supervise(service: str, module: str, workers: int, poll_s: float = 0.2) -> int:
    """Run ``workers`` replica processes on one port and keep them running: a worker that exits
    while the service is not stopping (a crash, kill -9, the kernel's OOM killer) is logged and
    started again, after 1 s and then up to 30 s between tries while it keeps dying young.
    SIGTERM/SIGINT go to every worker; the supervisor returns once all have exited (0), or 2
    at once when its metrics port cannot be served."""
    log = get_logger(component=f"{service}-supervisor")
    env = dict(os.environ, OKEY_REUSE_PORT="1", **{workers_variable(service): "1"})
    # The workers share one metrics port: each serves its own on a loopback port of ours (the
    # same one after a restart) and this process serves their sum.
    try:
        metrics_at = metrics_address() if RECORDING else None
    except ValueError as exc:
        fatal(service, str(exc))
        return 2
    ports = [_free_port() for _ in range(workers)] if metrics_at else []
    server = None
    if metrics_at:
        try:
            server = serve_workers(ports, *metrics_at)
        except OSError as exc:  # the port is taken: one line naming the variable, no traceback
            fatal(service, str(exc))
            return 2

    def spawn(i: int) -> subprocess.Popen[bytes]:
        own = {"OKEY_METRICS_ADDR": f"127.0.0.1:{ports[i]}"} if ports else {}
        return subprocess.Popen([sys.executable, "-m", module], env={**env, **own})

    children = [spawn(i) for i in range(workers)]
    started = [time.monotonic()] * workers
    backoff = [1.0] * workers
    restart_at: list[float | None] = [None] * workers
    stopping: list[int] = []

    def forward(sig: int, _frame: object) -> None:
        stopping.append(sig)
        for c in children:
            if c.poll() is None:
                c.send_signal(sig)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    log.info("workers_started", workers=workers, pids=[c.pid for c in children])
    while not stopping:
        now = time.monotonic()
        for i, child in enumerate(children):
            code = child.poll()
            if code is None or stopping:
                continue
            if restart_at[i] is None:
                if now - started[i] > 60:
                    backoff[i] = 1.0  # it had been up a while: a new fault, not the same one again
                restart_at[i] = now + backoff[i]
                log.error("worker_exited", worker=i, pid=child.pid, code=code, restart_in_s=backoff[i])
                backoff[i] = min(backoff[i] * 2, 30.0)
            elif now >= restart_at[i]:
                children[i], started[i], restart_at[i] = spawn(i), now, None
                log.warning("worker_restarted", worker=i, pid=children[i].pid)
        time.sleep(poll_s)
    for c in children:
        if c.poll() is None:
            c.send_signal(stopping[-1])  # again: a worker started just as the signal came missed it
        c.wait()
    if server is not None:
        server.close()
    return 0

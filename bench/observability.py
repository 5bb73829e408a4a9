"""``okey bench table --observability``: what metrics and traces cost the table service.

The same load (N tables at an offered rate, through gRPC, as ``okey bench table`` plays them) is
played against the table service started two ways, alternating, in one run:

- **off**: ``OKEY_METRICS=off`` (nothing recorded, no interceptor, nothing served) and no
  OpenTelemetry exporter (the API's no-op tracer);
- **on**: metrics recorded and served on ``OKEY_METRICS_ADDR``, scraped as often as the deployed
  PodMonitor scrapes them (``deploy/k8s/base/monitoring/podmonitor.yaml``: 15 s), and traces
  exported over OTLP/gRPC to a receiver in this process
  (``okeybench.otlp_sink``) with ``parentbased_traceidratio`` sampling at 1 % (the production
  setting the docs give).

The figure is the table service's CPU time per move (its whole process tree, from /proc), the
median over the rounds of each mode; the target is on <= off + 5 %."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import asyncpg
from okeyplatform.auth import issue_token, token_secret
from okeytools.embedded import free_port, resolve_infra, with_database
from okeytools.stack import wait_healthy

from .common import CpuMeter, machine, ms, percentile, servers_line
from .otlp_sink import OtlpSink
from .record import Section, Table, command_line, record
from .table import one_level

TARGET = 0.05
PODMONITOR = Path(__file__).resolve().parents[1] / "deploy" / "k8s" / "base" / "monitoring" / "podmonitor.yaml"


def scrape_interval_s() -> float:
    """How often Prometheus scrapes a pod, as the deployed PodMonitor says (15 s if it is not here)."""
    try:
        text = PODMONITOR.read_text(encoding="utf-8")
    except OSError:
        return 15.0
    for line in text.splitlines():
        key, _, value = line.strip().partition(":")
        if key == "interval" and value.strip().endswith("s"):
            return float(value.strip()[:-1])
    return 15.0


class Scraper:
    """GET /metrics at once and then every ``interval_s`` on a thread, as Prometheus would; counts
    the scrapes."""

    def __init__(self, address: str, interval_s: float = 1.0) -> None:
        self.address, self.interval_s = address, interval_s
        self.scrapes = self.failures = 0
        self.bytes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while True:
            try:
                with urllib.request.urlopen(f"http://{self.address}/metrics", timeout=5) as r:
                    self.bytes = len(r.read())
                self.scrapes += 1
            except OSError:
                self.failures += 1
            if self._stop.wait(self.interval_s):
                return

    def __enter__(self) -> Scraper:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


async def _one_run(
    mode: str,
    dsn: str,
    nats_url: str,
    sink: OtlpSink,
    endpoint: str,
    tables: int,
    offered: float,
    seconds: float,
    workers: int,
    seed: int,
    prefix: str,
) -> dict[str, float]:
    addr = f"127.0.0.1:{free_port()}"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("OTEL_") and k not in ("OKEY_METRICS", "OKEY_METRICS_ADDR", "PROMETHEUS_MULTIPROC_DIR")
    }
    env.update(
        OKEY_DATABASE_URL=dsn,
        OKEY_NATS_URL=nats_url,
        OKEY_TABLE_ADDR=addr,
        OKEY_LOG_LEVEL="WARNING",
        OKEY_TABLE_WORKERS=str(workers),
    )
    metrics_addr = f"127.0.0.1:{free_port()}"
    if mode in ("off", "traces"):
        env["OKEY_METRICS"] = "off"
    else:
        env["OKEY_METRICS_ADDR"] = metrics_addr
    if mode in ("on", "traces"):
        env.update(
            OTEL_EXPORTER_OTLP_ENDPOINT=endpoint,
            OTEL_TRACES_SAMPLER="parentbased_traceidratio",
            OTEL_TRACES_SAMPLER_ARG="0.01",
        )
    spans0 = sink.spans
    proc = subprocess.Popen([sys.executable, "-m", "okeytools.cli", "serve", "table"], env=env)
    try:
        await asyncio.to_thread(wait_healthy, addr, 60.0, proc)
        meter = CpuMeter({"client": os.getpid()}, {"table": proc.pid}, {"postgres": "postgres", "nats": "nats-server"})
        token = issue_token("bench-bots", "service")
        scraper = Scraper(metrics_addr, scrape_interval_s()) if mode in ("on", "metrics") else None
        if scraper is not None:
            scraper.__enter__()
        try:
            rate, lat, moves, cpu, busy, _ = await one_level(
                addr, token, tables, seconds, offered, seed=seed, meter=meter, prefix=prefix
            )
        finally:
            if scraper is not None:
                scraper.__exit__()
    finally:
        await asyncio.to_thread(_stop, proc)  # the workers flush their last spans as they exit
    await asyncio.sleep(0.5)
    return {
        "moves": float(moves),
        "rate": rate,
        "p50": percentile(lat, 50),
        "p99": percentile(lat, 99),
        "table_us": cpu.get("table", 0.0) / max(moves, 1) * 1e6,
        "postgres_us": cpu.get("postgres", 0.0) / max(moves, 1) * 1e6,
        "busy": busy,
        "spans": float(sink.spans - spans0),
        "scrapes": float(scraper.scrapes if scraper else 0),
        "scrape_failures": float(scraper.failures if scraper else 0),
        "scrape_bytes": float(scraper.bytes if scraper else 0),
    }


async def _cost(
    base_url: str, nats_url: str, tables: int, offered: float, seconds: float, rounds: int, workers: int, seed: int
) -> tuple[list[tuple[str, dict[str, float]]], int]:
    name = f"okey_bench_obs_{int(time.time())}"
    admin = await asyncpg.connect(base_url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    dsn = with_database(base_url, name)
    token_secret()
    sink = OtlpSink()
    endpoint = await sink.start()
    runs: list[tuple[str, dict[str, float]]] = []
    try:
        for r in range(rounds):
            # alternate which goes first, so a machine warming up (or a neighbour) favours neither
            for mode in ("off", "on") if r % 2 == 0 else ("on", "off"):
                sys.stderr.write(
                    f"  round {r + 1}/{rounds}: {mode}, {tables} tables, {offered:,.0f}/s, {seconds:.0f} s ...\n"
                )
                got = await _one_run(
                    mode, dsn, nats_url, sink, endpoint, tables, offered, seconds, workers, seed, f"obs-{r}-{mode}-"
                )
                runs.append((mode, got))
    finally:
        await sink.stop()
        admin = await asyncpg.connect(base_url)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
    return runs, len(sink.traces)


def run(args: argparse.Namespace) -> int:
    seconds = float(args.seconds or (5.0 if args.quick else 20.0))
    tables = int(args.tables or 100)
    offered = float(args.offered or 1000.0)
    rounds = max(1, int(getattr(args, "rounds", None) or (1 if args.quick else 5)))
    workers = int(os.environ.get("OKEY_TABLE_WORKERS", "2"))
    print(
        f"okey bench table --observability  ({tables} tables, {offered:,.0f} moves/s offered, {seconds:.0f} s a run, "
        f"{rounds} round(s) of off and on, {workers} table worker process(es))"
    )
    print(f"machine: {machine()}")
    with resolve_infra() as infra:
        servers = servers_line(infra)
        print(servers)
        runs, traces = asyncio.run(
            _cost(infra.database_url, infra.nats_url, tables, offered, seconds, rounds, workers, args.seed)
        )
    head = ("run", "moves", "moves/s", "Act p50", "Act p99", "table CPU/move (us)", "PostgreSQL CPU/move (us)")
    rows = [
        (
            f"{mode} #{i // 2 + 1}",
            f"{g['moves']:,.0f}",
            f"{g['rate']:,.0f}",
            ms(g["p50"]),
            ms(g["p99"]),
            f"{g['table_us']:,.0f}",
            f"{g['postgres_us']:,.0f}",
        )
        for i, (mode, g) in enumerate(runs)
    ]
    print()
    print("  ".join(f"{h:>{max(len(h), 8)}}" for h in head))
    for row in rows:
        print("  ".join(f"{c:>{max(len(h), 8)}}" for c, h in zip(row, head, strict=True)))
    off = statistics.median(g["table_us"] for m, g in runs if m == "off")
    on = statistics.median(g["table_us"] for m, g in runs if m == "on")
    cost = on / off - 1 if off else float("nan")
    on_runs = [g for m, g in runs if m == "on"]
    moves_on = sum(g["moves"] for g in on_runs)
    spans = sum(g["spans"] for g in on_runs)
    scrapes = sum(g["scrapes"] for g in on_runs)
    verdict = "met" if cost <= TARGET else "NOT met"
    # Each round's on against its own off (run next to it): the spread says how much of the
    # figure is the machine's noise.
    offs = [g["table_us"] for m, g in runs if m == "off"]
    paired = sorted(g["table_us"] / o - 1 for (g, o) in zip(on_runs, offs, strict=False) if o)
    lines = [
        f"table service CPU per move (median of the runs): off {off:,.0f} us, on {on:,.0f} us: "
        f"{cost:+.1%} (target <= +{TARGET:.0%}: {verdict}); round by round (on against the off beside it): "
        + ", ".join(f"{d:+.1%}" for d in paired),
        f"with it on: {spans:,.0f} spans in {traces:,} sampled traces reached the OTLP receiver for {moves_on:,.0f} "
        f"moves ({traces / max(moves_on, 1):.1%} of the moves started a sampled trace); /metrics scraped "
        f"{scrapes:,.0f} times ({max((g['scrape_bytes'] for g in on_runs), default=0) / 1024:,.0f} KiB a scrape, "
        f"{sum(g['scrape_failures'] for g in on_runs):,.0f} failed)",
    ]
    print()
    for line in lines:
        print(line)
    section = Section("table-observability", command_line("table", args) + " --observability", servers=servers)
    section.tables.append(
        Table(
            head,
            rows,
            frozenset(range(1, 7)),
            caption=f"off: OKEY_METRICS=off, no trace exporter; on: metrics scraped every {scrape_interval_s():g} s "
            "(the PodMonitor's interval), traces sampled at 1 % to an OTLP/gRPC receiver. "
            "CPU from /proc: the table service's process tree, and PostgreSQL.",
        )
    )
    section.notes += lines
    record(args, section)
    return 0

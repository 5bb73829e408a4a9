"""``okey top``: a terminal view of a running stack, read from each service's ``GET /metrics``.

Every figure is worked out from two scrapes of a service, ``--interval`` seconds apart, the way
PromQL would from a Prometheus that scraped them: ``rate()`` of a counter (a counter that went
down means the process restarted, so it counts again from 0), ``histogram_quantile(0.99, ...)``
over the bucket increases (linear inside a bucket). The text format is read by
``prometheus_client.parser``; the names are those of ``okeyplatform.metrics`` (docs/observability.md).

Per service: up or down; RPCs/s (gRPC calls handled plus HTTP requests answered), errors/s (every
unsuccessful answer: a non-OK gRPC status, an HTTP 4xx or 5xx) and their share, faults/s (the
server's fault: the gRPC codes the OkeyGrpcErrors alert counts, HTTP 5xx), the p99 of unary calls
(and of the requests on the bots' Play stream) and HTTP requests in ms (server streams and
WebSockets last as long as their client stays, so they are left out), the lag (the relay's
backlog in the table service, the consumers' elsewhere), moves and events per second at the
table, decisions per second of the bots, the gateway's open connections."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TextIO

from prometheus_client.parser import text_string_to_metric_families

from .stack import ALL_SERVICES, DEFAULT_METRICS_PORTS, METRICS_ENV

__all__ = [
    "Samples",
    "Scrape",
    "parse",
    "counter_rate",
    "counter_increase",
    "bucket_increases",
    "histogram_quantile",
    "error_ratio",
    "service_row",
    "addresses",
    "scrape",
    "render",
    "run_top",
]

Labels = tuple[tuple[str, str], ...]
Samples = dict[tuple[str, Labels], float]
"""One scrape: (sample name, its labels sorted) -> value."""

Where = Callable[[Mapping[str, str]], bool]

# The codes of the OkeyGrpcErrors alert (deploy/k8s/base/monitoring/alerts.yaml): the server's
# fault, not a refusal the caller earned (FAILED_PRECONDITION, NOT_FOUND, ...).
FAULT_CODES = frozenset({"UNKNOWN", "INTERNAL", "UNAVAILABLE", "DEADLINE_EXCEEDED", "DATA_LOSS"})


def _every(_labels: Mapping[str, str]) -> bool:
    return True


def parse(text: str) -> Samples:
    """The samples of one ``/metrics`` answer (``_created`` timestamps left out)."""
    out: Samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name.endswith("_created"):
                continue
            out[(s.name, tuple(sorted(s.labels.items())))] = float(s.value)
    return out


def _series(samples: Samples, name: str, where: Where) -> dict[Labels, float]:
    return {labels: v for (n, labels), v in samples.items() if n == name and where(dict(labels))}


def counter_increase(before: Samples, after: Samples, name: str, where: Where = _every) -> float:
    """How much the counter ``name`` (summed over the series ``where`` keeps) grew between two
    scrapes. A series that went down was reset (its process restarted) and counts from 0; a
    series that is new counts from 0 too (its first increment made it appear)."""
    old = _series(before, name, where)
    grown = 0.0
    for labels, value in _series(after, name, where).items():
        prev = old.get(labels, 0.0)
        grown += value if value < prev else value - prev
    return grown


def counter_rate(before: Samples, after: Samples, name: str, interval_s: float, where: Where = _every) -> float:
    """Per second, like PromQL's ``rate()`` over two scrapes ``interval_s`` apart."""
    if interval_s <= 0:
        raise ValueError("the interval between two scrapes must be positive")
    return counter_increase(before, after, name, where) / interval_s


def _le(labels: Labels) -> tuple[Labels, float]:
    rest = tuple((k, v) for k, v in labels if k != "le")
    return rest, float(dict(labels)["le"])


def bucket_increases(
    before: Samples, after: Samples, names: Iterable[str], where: Where = _every
) -> list[tuple[float, float]]:
    """The cumulative bucket counts (upper bound, count) that the histograms ``names`` gained
    between two scrapes, summed by ``le`` over the series ``where`` keeps (PromQL's
    ``sum by (le) (increase(x_bucket[...]))``). A series whose ``_count`` went down was reset and
    counts from 0."""
    total: dict[float, float] = {}
    for name in names:
        old_count = _series(before, f"{name}_count", where)
        new_count = _series(after, f"{name}_count", where)
        reset = {labels for labels, v in new_count.items() if v < old_count.get(labels, 0.0)}
        old = _series(before, f"{name}_bucket", where)
        for labels, value in _series(after, f"{name}_bucket", where).items():
            series, le = _le(labels)
            prev = 0.0 if series in reset else old.get(labels, 0.0)
            total[le] = total.get(le, 0.0) + max(value - prev, 0.0)
    return sorted(total.items())


def histogram_quantile(q: float, buckets: Sequence[tuple[float, float]]) -> float | None:
    """The q-quantile of cumulative buckets (upper bound, count), as PromQL's
    ``histogram_quantile`` works it out: find the bucket holding rank q x total and interpolate
    linearly inside it (the first bucket starts at 0); a rank in the +Inf bucket answers the
    highest finite bound. None when nothing was observed (or there is no +Inf bucket)."""
    if not 0 <= q <= 1:
        raise ValueError(f"a quantile is between 0 and 1, not {q}")
    ordered = sorted(buckets)
    if len(ordered) < 2 or not math.isinf(ordered[-1][0]):
        return None
    # A sum of buckets scraped at slightly different moments can dip; PromQL evens it out too.
    counts: list[float] = []
    for _, c in ordered:
        counts.append(max(c, counts[-1]) if counts else c)
    observed = counts[-1]
    if observed <= 0:
        return None
    rank = q * observed
    b = next((i for i in range(len(ordered) - 1) if counts[i] >= rank), len(ordered) - 1)
    if b == len(ordered) - 1:
        return ordered[-2][0]
    upper = ordered[b][0]
    if b == 0 and upper <= 0:
        return upper
    start, below = (0.0, 0.0) if b == 0 else (ordered[b - 1][0], counts[b - 1])
    inside = counts[b] - below
    if inside <= 0:
        return upper
    return start + (upper - start) * (rank - below) / inside


def error_ratio(errors: float, answered: float) -> float | None:
    """Errors per answered call; None when nothing was answered (no ratio to speak of)."""
    return errors / answered if answered > 0 else None


# ---------------------------------------------------------------- one row per service


@dataclass(frozen=True)
class Scrape:
    """One service's ``/metrics``, when it was read (monotonic seconds) or why it could not be."""

    service: str
    address: str
    at: float
    samples: Samples | None
    error: str = ""

    @property
    def up(self) -> bool:
        return self.samples is not None


def _http_failed(labels: Mapping[str, str]) -> bool:
    return labels.get("status", "").startswith(("4", "5"))


def _http_fault(labels: Mapping[str, str]) -> bool:
    return labels.get("status", "").startswith("5")


def _timed(labels: Mapping[str, str]) -> bool:
    """Calls whose duration is a response time: unary calls and the requests of a stream of calls
    (the bots' Play), not server streams, not WebSockets."""
    return labels.get("grpc_type", "unary") in ("unary", "stream_request") and labels.get("method") != "WS"


def _gauge(samples: Samples, name: str, how: Callable[[Iterable[float]], float] = sum) -> float | None:
    values = [v for (n, _), v in samples.items() if n == name]
    return how(values) if values else None


def service_row(service: str, before: Scrape | None, after: Scrape) -> dict[str, Any]:
    """What ``okey top`` shows of one service: from one scrape the state and the gauges, from
    two the rates and the p99 (None where a figure does not apply or needs the second scrape)."""
    variable = METRICS_ENV[service]
    row: dict[str, Any] = {"up": after.up, "address": after.address, "variable": variable}
    if after.samples is None:
        row["hint"] = f"{after.error} at {after.address}: not running? {variable} says where it serves metrics"
        return row
    now = after.samples
    lag_messages: float | None
    lag_seconds: float | None
    if service == "table":  # the relay runs in the table service: its backlog is the lag
        lag_messages = _gauge(now, "okey_relay_behind_events", max)
        lag_seconds = _gauge(now, "okey_relay_behind_seconds", max)
    else:
        lag_messages = _gauge(now, "okey_consumer_lag_messages")
        lag_seconds = _gauge(now, "okey_consumer_lag_seconds", max)
    row.update(
        rpc_per_s=None,
        errors_per_s=None,
        error_ratio=None,
        faults_per_s=None,
        p99_ms=None,
        lag_messages=lag_messages,
        lag_seconds=lag_seconds,
    )
    if service == "table":
        row.update(moves_per_s=None, events_per_s=None, open_tables=_gauge(now, "okey_table_open_tables", max))
    if service == "bots":
        row["decisions_per_s"] = None
    if service == "gateway":
        row["connections"] = _gauge(now, "okey_gateway_connections")
    if before is None or before.samples is None or after.at <= before.at:
        return row
    was, dt = before.samples, after.at - before.at

    def rate(name: str, where: Where = _every) -> float:
        return counter_rate(was, now, name, dt, where)

    calls = rate("grpc_server_handled_total") + rate("http_requests_total")
    errors = rate("grpc_server_handled_total", lambda ls: ls.get("grpc_code") != "OK") + rate(
        "http_requests_total", _http_failed
    )
    faults = rate("grpc_server_handled_total", lambda ls: ls.get("grpc_code") in FAULT_CODES) + rate(
        "http_requests_total", _http_fault
    )
    p99 = histogram_quantile(
        0.99, bucket_increases(was, now, ("grpc_server_handling_seconds", "http_request_duration_seconds"), _timed)
    )
    row.update(
        rpc_per_s=calls,
        errors_per_s=errors,
        error_ratio=error_ratio(errors, calls),
        faults_per_s=faults,
        p99_ms=None if p99 is None else p99 * 1000,
    )
    if service == "table":
        row["moves_per_s"] = rate("okey_table_commands_total", lambda ls: ls.get("outcome") == "applied")
        row["events_per_s"] = rate("okey_table_events_total")
    if service == "bots":
        row["decisions_per_s"] = rate("okey_bots_decisions_total")
    return row


# ---------------------------------------------------------------- scraping


def addresses(services: Sequence[str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Where each service serves its metrics: ``OKEY_<SERVICE>_METRICS_ADDR``, else the port
    ``okey up`` gives it on 127.0.0.1."""
    env = os.environ if environ is None else environ
    return {s: env.get(METRICS_ENV[s], "").strip() or f"127.0.0.1:{DEFAULT_METRICS_PORTS[s]}" for s in services}


def _url(address: str) -> str:
    if "://" in address:
        return address if address.rstrip("/").endswith("/metrics") else address.rstrip("/") + "/metrics"
    host, _, port = address.rpartition(":")
    if host in ("", "0.0.0.0", "[::]", "::"):  # a server listening everywhere answers on loopback
        host = "127.0.0.1"
    return f"http://{host}:{port}/metrics"


def scrape(service: str, address: str, timeout_s: float = 2.0) -> Scrape:
    """Read one service's metrics; a refusal, a timeout or an answer that is not the text
    format is a down service, with the reason."""
    try:
        with urllib.request.urlopen(_url(address), timeout=timeout_s) as resp:
            text = resp.read().decode("utf-8")
        samples = parse(text)
    except urllib.error.HTTPError as exc:
        return Scrape(service, address, time.monotonic(), None, f"HTTP {exc.code}")
    except urllib.error.URLError as exc:
        reason = exc.reason
        why = getattr(reason, "strerror", None) or str(reason)
        return Scrape(service, address, time.monotonic(), None, str(why).lower())
    except (OSError, ValueError) as exc:
        return Scrape(service, address, time.monotonic(), None, str(exc) or type(exc).__name__)
    return Scrape(service, address, time.monotonic(), samples)


def scrape_all(where: Mapping[str, str], pool: ThreadPoolExecutor, timeout_s: float) -> dict[str, Scrape]:
    """Every service at once, so one that hangs costs its timeout and not the others'."""
    futures = {s: pool.submit(scrape, s, a, timeout_s) for s, a in where.items()}
    return {s: f.result() for s, f in futures.items()}


# ---------------------------------------------------------------- showing


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _extra(service: str, row: Mapping[str, Any]) -> str:
    if service == "table":
        return (
            f"moves {_num(row.get('moves_per_s'))}/s  events {_num(row.get('events_per_s'))}/s  "
            f"open tables {_num(row.get('open_tables'), 0)}"
        )
    if service == "bots":
        return f"decisions {_num(row.get('decisions_per_s'))}/s"
    if service == "gateway":
        return f"connections {_num(row.get('connections'), 0)}"
    return ""


HEADER = ("SERVICE", "STATE", "RPC/s", "ERR/s", "ERR%", "FAULT/s", "P99 ms", "LAG msgs", "LAG s", "")


def render(rows: Mapping[str, Mapping[str, Any]], interval_s: float, refreshing: bool = False) -> str:
    """The table ``okey top`` prints: one line per service; a down one says which variable
    points at it."""
    lines: list[list[str]] = [list(HEADER)]
    for service, row in rows.items():
        if not row["up"]:
            lines.append([service, "down", row["hint"]])
            continue
        ratio = row.get("error_ratio")
        lines.append(
            [
                service,
                "up",
                _num(row["rpc_per_s"]),
                _num(row["errors_per_s"]),
                "-" if ratio is None else f"{ratio * 100:.1f}%",
                _num(row["faults_per_s"]),
                _num(row["p99_ms"]),
                _num(row["lag_messages"], 0),
                _num(row["lag_seconds"]),
                _extra(service, row),
            ]
        )
    width = [max(len(line[i]) for line in lines if len(line) == len(HEADER)) for i in range(len(HEADER))]
    title = f"okey top: {time.strftime('%H:%M:%S')}, rates over {interval_s:g} s"
    out = [title + ("  (Ctrl-C to stop)" if refreshing else "")]
    for line in lines:
        if len(line) == 3:  # down: the hint runs on past the columns
            out.append(f"{line[0]:<{width[0]}}  {line[1]:<{width[1]}}  {line[2]}")
        else:
            left = (0, 1, len(line) - 1)  # names and the notes; the figures line up on the right
            cells = [f"{c:<{width[i]}}" if i in left else f"{c:>{width[i]}}" for i, c in enumerate(line)]
            out.append("  ".join(cells).rstrip())
    return "\n".join(out) + "\n"


def _rows(
    services: Sequence[str], before: Mapping[str, Scrape] | None, after: Mapping[str, Scrape]
) -> dict[str, dict[str, Any]]:
    return {s: service_row(s, None if before is None else before[s], after[s]) for s in services}


CLEAR = "\x1b[H\x1b[2J"


def run_top(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """``okey top``. Once (``--once``, ``--json``): exit 0 when every service answered, 1 when
    one is down; refreshing: until Ctrl-C, then exit 0. A bad argument is exit 2."""
    stream = sys.stdout if out is None else out
    chosen = [s.strip() for s in (args.services or ",".join(ALL_SERVICES)).split(",") if s.strip()]
    unknown = [s for s in chosen if s not in ALL_SERVICES]
    if unknown or not chosen:
        print(f"okey top: no service {', '.join(unknown)!s} (one of {', '.join(ALL_SERVICES)})", file=sys.stderr)
        return 2
    if not args.interval > 0:
        print("okey top: --interval must be more than 0 seconds", file=sys.stderr)
        return 2
    where = addresses(chosen)
    timeout_s = min(2.0, max(args.interval, 0.5))
    once = args.once or args.json
    with ThreadPoolExecutor(max_workers=len(chosen)) as pool:
        try:
            before = scrape_all(where, pool, timeout_s)
            if once:
                time.sleep(args.interval)
                after = scrape_all(where, pool, timeout_s)
                rows = _rows(chosen, before, after)
                if args.json:
                    json.dump({"interval_s": args.interval, "services": rows}, stream, indent=2)
                    stream.write("\n")
                else:
                    stream.write(render(rows, args.interval))
                return 0 if all(r["up"] for r in rows.values()) else 1
            # Refreshing: the first frame at once (state and lag; rates need the second scrape).
            stream.write(CLEAR + render(_rows(chosen, None, before), args.interval, True))
            stream.flush()
            while True:
                time.sleep(args.interval)
                after = scrape_all(where, pool, timeout_s)
                stream.write(CLEAR + render(_rows(chosen, before, after), args.interval, True))
                stream.flush()
                before = after
        except KeyboardInterrupt:
            stream.write("\n")
            return 0

"""``okey top``: the figures it works out from two scrapes (rates that survive a restart, the p99
as PromQL's histogram_quantile finds it, the error share), and the command against a real stack
with some services down."""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from typing import Any

import pytest
from okeycore.options import TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeytools.embedded import free_port
from okeytools.stack import ALL_SERVICES, METRICS_ENV
from okeytools.top import (
    Scrape,
    addresses,
    bucket_increases,
    counter_increase,
    counter_rate,
    error_ratio,
    histogram_quantile,
    parse,
    render,
    service_row,
)
from stacks import StackFactory

INF = float("inf")


def text(*lines: str) -> str:
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- counters


def test_a_counter_rate_is_its_increase_per_second_summed_over_the_series_kept() -> None:
    before = parse(text("# TYPE a counter", 'a_total{x="1"} 10', 'a_total{x="2"} 5', 'a_created{x="1"} 1.7e9'))
    after = parse(text("# TYPE a counter", 'a_total{x="1"} 16', 'a_total{x="2"} 9'))
    assert counter_rate(before, after, "a_total", 2.0) == 5.0
    assert counter_rate(before, after, "a_total", 2.0, lambda ls: ls["x"] == "2") == 2.0
    assert counter_rate(before, after, "a_created", 2.0) == 0.0  # timestamps are not counters
    with pytest.raises(ValueError, match="positive"):
        counter_rate(before, after, "a_total", 0.0)


def test_a_counter_that_went_down_was_restarted_and_counts_from_zero() -> None:
    before = parse(text("# TYPE a counter", 'a_total{x="1"} 100'))
    after = parse(text("# TYPE a counter", 'a_total{x="1"} 4', 'a_total{x="new"} 3'))
    # 4 since the restart, 3 in a series that appeared: 7 over 2 s.
    assert counter_increase(before, after, "a_total") == 7.0
    assert counter_rate(before, after, "a_total", 2.0) == 3.5


# ---------------------------------------------------------------- the p99


def test_the_quantile_interpolates_inside_its_bucket_as_promql_does() -> None:
    buckets = [(0.5, 50.0), (1.0, 90.0), (2.0, 100.0), (INF, 100.0)]
    # rank 99 of 100 falls in (1, 2], which holds 10 from 90: 1 + 1 x 9/10.
    assert histogram_quantile(0.99, buckets) == 1.9
    assert histogram_quantile(0.5, buckets) == 0.5  # exactly the first bucket's top
    # The first bucket starts at 0: rank 25 of 50 there is half way to 0.5.
    assert histogram_quantile(0.25, buckets) == 0.25


def test_a_quantile_in_the_inf_bucket_is_the_highest_finite_bound() -> None:
    assert histogram_quantile(0.99, [(0.5, 10.0), (1.0, 50.0), (INF, 100.0)]) == 1.0


def test_no_observations_no_quantile() -> None:
    assert histogram_quantile(0.99, [(0.5, 0.0), (INF, 0.0)]) is None
    assert histogram_quantile(0.99, [(0.5, 3.0)]) is None  # no +Inf bucket: not a histogram
    assert histogram_quantile(0.99, []) is None
    with pytest.raises(ValueError):
        histogram_quantile(1.5, [(INF, 1.0)])


def hist(name: str, labels: str, counts: dict[str, int]) -> list[str]:
    lines = [f"# TYPE {name} histogram"]
    lines += [f'{name}_bucket{{{labels},le="{le}"}} {n}' for le, n in counts.items()]
    lines += [f"{name}_count{{{labels}}} {counts['+Inf']}", f"{name}_sum{{{labels}}} 0"]
    return lines


def test_the_p99_is_of_the_bucket_increases_between_two_scrapes_and_survives_a_restart() -> None:
    name = "grpc_server_handling_seconds"
    before = parse(
        text(
            *hist(name, 'grpc_method="Act"', {"0.5": 1000, "1.0": 1000, "2.0": 1000, "+Inf": 1000}),
            *hist(name, 'grpc_method="View"', {"0.5": 7, "1.0": 7, "2.0": 9, "+Inf": 9}),
        )
    )
    after = parse(
        text(
            # Act: 100 more, the slow ones this time (the old fast thousand must not count).
            *hist(name, 'grpc_method="Act"', {"0.5": 1050, "1.0": 1090, "2.0": 1100, "+Inf": 1100}),
            # View restarted: its count went down, so all it has now is new.
            *hist(name, 'grpc_method="View"', {"0.5": 0, "1.0": 0, "2.0": 0, "+Inf": 0}),
        )
    )
    got = bucket_increases(before, after, [name])
    assert got == [(0.5, 50.0), (1.0, 90.0), (2.0, 100.0), (INF, 100.0)]
    assert histogram_quantile(0.99, got) == 1.9
    only_view = bucket_increases(before, after, [name], lambda ls: ls["grpc_method"] == "View")
    assert histogram_quantile(0.99, only_view) is None


# ---------------------------------------------------------------- errors and the row


def test_the_error_ratio_is_errors_over_answers_and_none_without_answers() -> None:
    assert error_ratio(5.0, 50.0) == 0.1
    assert error_ratio(0.0, 0.0) is None


def scraped(service: str, at: float, *lines: str) -> Scrape:
    return Scrape(service, "127.0.0.1:1", at, parse(text(*lines)))


def handled(code: str, n: int, kind: str = "unary") -> str:
    labels = f'grpc_service="okey.v1.TableService",grpc_method="Act",grpc_type="{kind}",grpc_code="{code}"'
    return f"grpc_server_handled_total{{{labels}}} {n}"


def test_a_table_row_counts_calls_errors_faults_moves_events_and_the_relay_lag() -> None:
    before = scraped(
        "table",
        10.0,
        "# TYPE grpc_server_handled_total counter",
        handled("OK", 90),
        "# TYPE okey_table_commands_total counter",
        'okey_table_commands_total{game="OKEY",command="discard",outcome="applied"} 40',
        'okey_table_commands_total{game="OKEY",command="discard",outcome="refused"} 3',
        "# TYPE okey_table_events_total counter",
        'okey_table_events_total{game="OKEY",kind="TileDiscarded"} 100',
    )
    after = scraped(
        "table",
        12.0,
        "# TYPE grpc_server_handled_total counter",
        handled("OK", 180),
        handled("FAILED_PRECONDITION", 8),
        handled("UNAVAILABLE", 2),
        handled("CANCELLED", 10, "server_stream"),
        "# TYPE okey_table_commands_total counter",
        'okey_table_commands_total{game="OKEY",command="discard",outcome="applied"} 60',
        'okey_table_commands_total{game="OKEY",command="discard",outcome="refused"} 9',
        "# TYPE okey_table_events_total counter",
        'okey_table_events_total{game="OKEY",kind="TileDiscarded"} 130',
        "# TYPE okey_relay_behind_events gauge",
        "okey_relay_behind_events 7",
        "# TYPE okey_relay_behind_seconds gauge",
        "okey_relay_behind_seconds 0.5",
        *hist(
            "grpc_server_handling_seconds",
            'grpc_service="okey.v1.TableService",grpc_method="Act",grpc_type="unary"',
            {"0.5": 50, "1.0": 90, "2.0": 100, "+Inf": 100},
        ),
        # A stream lasts as long as its watcher: not a response time.
        *hist(
            "grpc_server_handling_seconds",
            'grpc_service="okey.v1.TableService",grpc_method="Watch",grpc_type="server_stream"',
            {"0.5": 0, "1.0": 0, "2.0": 0, "+Inf": 10},
        ),
    )
    row = service_row("table", before, after)
    assert row["up"] is True and row["variable"] == "OKEY_TABLE_METRICS_ADDR"
    assert row["rpc_per_s"] == 55.0  # (90 + 8 + 2 + 10) / 2
    assert row["errors_per_s"] == 10.0  # every non-OK: 8 refused, 2 unavailable, 10 cancelled
    assert row["error_ratio"] == 10.0 / 55.0
    assert row["faults_per_s"] == 1.0  # UNAVAILABLE alone is the server's fault
    assert row["p99_ms"] == 1900.0
    assert row["moves_per_s"] == 10.0 and row["events_per_s"] == 15.0
    assert row["lag_messages"] == 7.0 and row["lag_seconds"] == 0.5
    # From one scrape: the gauges, and no rates yet.
    first = service_row("table", None, after)
    assert first["rpc_per_s"] is None and first["p99_ms"] is None and first["lag_messages"] == 7.0


def test_the_gateway_counts_http_4xx_as_errors_and_5xx_as_faults_and_consumers_show_their_lag() -> None:
    def http(ok: int, missing: int, broken: int) -> list[str]:
        return [
            "# TYPE http_requests_total counter",
            f'http_requests_total{{method="POST",route="/api/{{service}}/{{method}}",status="200"}} {ok}',
            f'http_requests_total{{method="POST",route="/api/{{service}}/{{method}}",status="404"}} {missing}',
            f'http_requests_total{{method="POST",route="/api/{{service}}/{{method}}",status="503"}} {broken}',
            "# TYPE okey_gateway_connections gauge",
            'okey_gateway_connections{kind="http"} 2',
            'okey_gateway_connections{kind="websocket"} 3',
        ]

    row = service_row("gateway", scraped("gateway", 0.0, *http(10, 0, 0)), scraped("gateway", 1.0, *http(16, 3, 1)))
    assert (row["rpc_per_s"], row["errors_per_s"], row["faults_per_s"]) == (10.0, 4.0, 1.0)
    assert row["error_ratio"] == 0.4 and row["p99_ms"] is None and row["connections"] == 5.0
    lag = [
        "# TYPE okey_consumer_lag_messages gauge",
        'okey_consumer_lag_messages{consumer="bots-events"} 12',
        'okey_consumer_lag_messages{consumer="bots-timers"} 3',
        "# TYPE okey_consumer_lag_seconds gauge",
        'okey_consumer_lag_seconds{consumer="bots-events"} 0.25',
        'okey_consumer_lag_seconds{consumer="bots-timers"} 2',
        "# TYPE okey_bots_decisions_total counter",
    ]
    bots = service_row(
        "bots",
        scraped("bots", 0.0, *lag, 'okey_bots_decisions_total{game="OKEY",strategy="greedy",kind="turn"} 5'),
        scraped("bots", 0.5, *lag, 'okey_bots_decisions_total{game="OKEY",strategy="greedy",kind="turn"} 9'),
    )
    # Messages add up over the consumers; the seconds are the furthest behind.
    assert (bots["lag_messages"], bots["lag_seconds"], bots["decisions_per_s"]) == (15.0, 2.0, 8.0)
    assert bots["rpc_per_s"] == 0.0 and bots["error_ratio"] is None


def test_a_down_service_is_shown_down_with_the_variable_that_says_where_it_is() -> None:
    row = service_row("scoring", None, Scrape("scoring", "127.0.0.1:9", 1.0, None, "connection refused"))
    assert row["up"] is False and "OKEY_SCORING_METRICS_ADDR" in row["hint"] and "127.0.0.1:9" in row["hint"]
    shown = render({"scoring": row}, 1.0)
    assert "scoring  down" in shown and "OKEY_SCORING_METRICS_ADDR" in shown


def test_addresses_come_from_the_variables_else_the_ports_okey_up_uses() -> None:
    got = addresses(ALL_SERVICES, {"OKEY_BOTS_METRICS_ADDR": "10.0.0.5:9090"})
    assert got == {
        "table": "127.0.0.1:9061",
        "scoring": "127.0.0.1:9062",
        "lobby": "127.0.0.1:9063",
        "bots": "10.0.0.5:9090",
        "gateway": "127.0.0.1:9051",
    }


# ---------------------------------------------------------------- the command


def okey(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "okeytools.cli", "top", *args], capture_output=True, text=True, timeout=timeout, env=env
    )


def nothing_listens() -> dict[str, str]:
    closed = f"127.0.0.1:{free_port()}"
    return {**os.environ, **{METRICS_ENV[s]: closed for s in ALL_SERVICES}}


def test_okey_top_refuses_an_unknown_service_and_a_bad_interval() -> None:
    got = okey("--once", "--services", "table,nope")
    assert got.returncode == 2 and "nope" in got.stderr
    got = okey("--once", "--interval", "0")
    assert got.returncode == 2 and "--interval" in got.stderr


def _read_until(proc: subprocess.Popen[bytes], marker: bytes, count: int, within: float) -> bytes:
    """What ``proc`` wrote to stdout, read until ``marker`` came ``count`` times."""
    assert proc.stdout is not None
    got, deadline = b"", time.monotonic() + within
    while got.count(marker) < count:
        left = deadline - time.monotonic()
        assert left > 0 and proc.poll() is None, f"{got.count(marker)} of {count} frames in {within:.0f} s: {got!r}"
        if select.select([proc.stdout], [], [], left)[0]:
            got += os.read(proc.stdout.fileno(), 65536)
    return got


def test_okey_top_refreshes_until_ctrl_c_and_then_exits_0_without_a_traceback() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "okeytools.cli", "top", "--interval", "0.2", "--services", "table"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=nothing_listens(),
        # Ctrl-C reaches it as in a terminal's foreground, however the test run was started: a
        # runner started in the background of a non-interactive shell ignores SIGINT, its
        # children inherit that, and okey top then never saw the Ctrl-C (a 20 s hang).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        # Ctrl-C once it has drawn twice (it redraws): then the refreshing loop is what it stops.
        shown = _read_until(proc, b"\x1b[H\x1b[2J", 2, within=60)
        proc.send_signal(signal.SIGINT)
        rest, err_bytes = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    out, err = (shown + rest).decode(), err_bytes.decode()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert out.count("\x1b[H\x1b[2J") >= 2  # redrawn, not scrolled
    assert "OKEY_TABLE_METRICS_ADDR" in out and "(Ctrl-C to stop)" in out


def scrape_total(address: str, name: str, **labels: str) -> float:
    samples = parse(urllib.request.urlopen(f"http://{address}/metrics", timeout=5).read().decode())
    return sum(v for (n, ls), v in samples.items() if n == name and all((k, w) in ls for k, w in labels.items()))


async def test_okey_top_once_json_reads_a_running_stack_and_reports_the_rest_down(make_stack: StackFactory) -> None:
    stack = make_stack(("table", "bots"))
    table_id = f"top-{uuid.uuid4().hex[:8]}"
    client = TableClient(stack.address("table"), issue_token("top-test", role="service"))
    try:
        # A long bot match (the default 20 points), so the bots are still moving while top looks.
        await client.create_table(TableOptions(turn_seconds=20), ("", "", "", ""), table_id=table_id)
    finally:
        await client.close()
    table_metrics, bots_metrics = stack.metrics_address("table"), stack.metrics_address("bots")
    deadline = time.monotonic() + 60
    while await asyncio.to_thread(scrape_total, table_metrics, "okey_table_commands_total", outcome="applied") < 8:
        assert time.monotonic() < deadline, "the bots made no moves"
        await asyncio.sleep(0.5)
    env = nothing_listens()
    env[METRICS_ENV["table"]], env[METRICS_ENV["bots"]] = table_metrics, bots_metrics
    got = await asyncio.to_thread(okey, "--once", "--json", "--interval", "2", env=env)
    assert got.returncode == 1, got.stdout + got.stderr  # scoring, lobby and the gateway are down
    answer: dict[str, Any] = json.loads(got.stdout)
    assert answer["interval_s"] == 2.0 and list(answer["services"]) == list(ALL_SERVICES)
    table, bots = answer["services"]["table"], answer["services"]["bots"]
    assert table["up"] is True and table["address"] == table_metrics
    assert table["rpc_per_s"] > 0 and table["moves_per_s"] > 0 and table["events_per_s"] > 0
    assert table["p99_ms"] is not None and table["p99_ms"] > 0
    assert table["lag_messages"] is not None and table["lag_seconds"] is not None  # the relay's backlog
    assert bots["up"] is True and bots["decisions_per_s"] > 0 and bots["lag_messages"] is not None
    for name in ("scoring", "lobby", "gateway"):
        down = answer["services"][name]
        assert down["up"] is False, name
        assert METRICS_ENV[name] in down["hint"] and down["variable"] == METRICS_ENV[name]
    # The same as a table, for a person.
    shown = await asyncio.to_thread(okey, "--once", "--interval", "0.5", "--services", "table,bots", env=env)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[1].split()[:3] == ["SERVICE", "STATE", "RPC/s"]
    assert any(line.startswith("table") and " up " in line and "moves" in line for line in shown.stdout.splitlines())

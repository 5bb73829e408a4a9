"""Issue 20: a real Prometheus (Debian's package) scrapes a running stack every second while bots
play a match; queried through its HTTP API it counts the events the log holds, and sees the relay
and the bots' consumer come back to 0 behind. It also evaluates the alert rules of alerts.yaml on
those series: every rule evaluates without error and none fires on a healthy stack."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import yaml
from okeycore.options import TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeytools.embedded import free_port
from stacks import StackFactory
from tools_setup import prometheus_tool

ROOT = Path(__file__).resolve().parents[2]
ALERTS = ROOT / "deploy" / "k8s" / "base" / "monitoring" / "alerts.yaml"
NAMESPACE = "okey-test"  # what the PodMonitor's scrape adds in Kubernetes; the rules group by it


class Prometheus:
    """A ``prometheus`` process scraping ``targets`` (job name -> host:port) every second, with
    the alert rules loaded; :meth:`query` asks its HTTP API for an instant vector."""

    def __init__(self, tmp_path: Path, targets: Mapping[str, str]) -> None:
        self.dir = tmp_path / "prometheus"
        self.dir.mkdir()
        rules = self.dir / "rules.yaml"
        rules.write_text(yaml.safe_dump({"groups": yaml.safe_load(ALERTS.read_text())["spec"]["groups"]}))
        config = {
            "global": {"scrape_interval": "1s", "scrape_timeout": "1s", "evaluation_interval": "1s"},
            "rule_files": [str(rules)],
            "scrape_configs": [
                {"job_name": job, "static_configs": [{"targets": [address], "labels": {"namespace": NAMESPACE}}]}
                for job, address in targets.items()
            ],
        }
        (self.dir / "prometheus.yml").write_text(yaml.safe_dump(config))
        self.address = f"127.0.0.1:{free_port()}"
        self.log_path = self.dir / "prometheus.log"
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            [
                prometheus_tool("prometheus"),
                f"--config.file={self.dir / 'prometheus.yml'}",
                f"--storage.tsdb.path={self.dir / 'data'}",
                f"--web.listen-address={self.address}",
                "--log.level=warn",
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def log_tail(self) -> str:
        return self.log_path.read_text(errors="replace")[-3000:]

    def _get(self, path: str) -> Any:
        with urllib.request.urlopen(f"http://{self.address}{path}", timeout=5) as got:
            return json.loads(got.read())

    def wait_ready(self, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"prometheus exited {self.proc.returncode}:\n{self.log_tail()}"
            try:
                with urllib.request.urlopen(f"http://{self.address}/-/ready", timeout=2) as got:
                    if got.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.2)
        raise AssertionError(f"prometheus was not ready in {timeout_s:.0f}s:\n{self.log_tail()}")

    def query(self, promql: str) -> dict[tuple[tuple[str, str], ...], float]:
        """An instant query: each series' labels (sorted) -> its value."""
        body = self._get("/api/v1/query?" + urllib.parse.urlencode({"query": promql}))
        assert body["status"] == "success", body
        assert body["data"]["resultType"] == "vector", body
        return {tuple(sorted(r["metric"].items())): float(r["value"][1]) for r in body["data"]["result"]}

    def value(self, promql: str) -> float | None:
        """The one value of an aggregate (``sum(...)``); None while there is no such series."""
        got = self.query(promql)
        assert len(got) <= 1, got
        return next(iter(got.values()), None)

    def rules(self) -> list[dict[str, Any]]:
        body = self._get("/api/v1/rules")
        assert body["status"] == "success", body
        return [r for g in body["data"]["groups"] for r in g["rules"]]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._log.close()


@pytest.fixture
def start_prometheus(tmp_path: Path) -> Iterator[Callable[[Mapping[str, str]], Prometheus]]:
    started: list[Prometheus] = []

    def start(targets: Mapping[str, str]) -> Prometheus:
        prom = Prometheus(tmp_path, targets)
        started.append(prom)
        prom.wait_ready()
        return prom

    try:
        yield start
    finally:
        for prom in started:
            prom.stop()


async def wait_for(what: str, check: Callable[[], bool], timeout_s: float, detail: Callable[[], str]) -> None:
    deadline = time.monotonic() + timeout_s
    while not await asyncio.to_thread(check):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not within {timeout_s:.0f}s: {await asyncio.to_thread(detail)}")
        await asyncio.sleep(0.5)


async def test_prometheus_counts_a_bot_match_as_the_log_holds_it(
    make_stack: StackFactory, start_prometheus: Callable[[Mapping[str, str]], Prometheus]
) -> None:
    stack = make_stack(("table", "bots"))
    jobs = ("table", "bots")
    prom = await asyncio.to_thread(start_prometheus, {job: stack.metrics_address(job) for job in jobs})
    await wait_for(
        "both targets scraped",
        lambda: prom.value('sum(up{job=~"table|bots"})') == len(jobs),
        30,
        lambda: str(prom.query("up")),
    )

    table_id = f"prom-{uuid.uuid4().hex[:8]}"
    client = TableClient(stack.address("table"), issue_token("prometheus-test", role="service"))
    started = time.monotonic()
    try:
        await client.create_table(TableOptions(match_points=1, turn_seconds=20), ("", "", "", ""), table_id=table_id)
    finally:
        await client.close()
    conn = await asyncpg.connect(stack.database_url)
    try:

        async def ended() -> bool:
            return bool(
                await conn.fetchval(
                    "SELECT count(*) FROM okey_events WHERE stream_id = $1 AND type = 'MatchEnded'", table_id
                )
            )

        deadline = time.monotonic() + 150
        while not await ended():
            assert time.monotonic() < deadline, "the bot match did not end"
            await asyncio.sleep(0.5)
        match_s = time.monotonic() - started
        by_kind = dict(
            await conn.fetch("SELECT type, count(*) FROM okey_events WHERE stream_id = $1 GROUP BY type", table_id)
        )
        in_log = await conn.fetchval("SELECT count(*) FROM okey_events")
    finally:
        await conn.close()
    events = sum(by_kind.values())
    assert in_log == events, "the stack's log holds only this table's stream"

    # Prometheus, scraping every second, catches up: every event counted and published, the relay
    # with nothing behind, the bots' consumer having handled them all with no lag left.
    caught_up = {
        "sum(okey_table_events_total)": float(events),
        "sum(okey_relay_published_total)": float(events),
        "sum(okey_relay_behind_events)": 0.0,
        "max(okey_relay_behind_seconds)": 0.0,
        'sum(okey_consumer_lag_messages{job="bots"})': 0.0,
        'max(okey_consumer_lag_seconds{job="bots"})': 0.0,
    }
    handled = 'sum(okey_consumer_messages_total{job="bots"})'

    def agrees() -> bool:
        # one round of queries; the bots' count proves their lag sample is from after the match
        return all(prom.value(q) == want for q, want in caught_up.items()) and (prom.value(handled) or 0) >= events

    def seen() -> str:
        return str({q: prom.value(q) for q in [*caught_up, handled]})

    t0 = time.monotonic()
    await wait_for("Prometheus agreeing with the log", agrees, 60, seen)
    converged_s = time.monotonic() - t0

    counted = {dict(labels)["kind"]: v for labels, v in prom.query("sum by (kind) (okey_table_events_total)").items()}
    assert counted == {k: float(n) for k, n in by_kind.items()}
    assert prom.value('sum(okey_table_matches_total{game="OKEY"})') == 1
    assert prom.value('sum(okey_table_hands_total{game="OKEY"})') == by_kind.get("HandEnded", 0)
    moves = prom.value('sum(okey_table_commands_total{outcome="applied"})') or 0
    assert moves >= by_kind["TileDiscarded"]  # every discard came from an applied command
    assert prom.value("sum(okey_relay_leader)") == 1
    # The lag came back to 0: each batch the bots fetch sets it to at least 1 until a second passes
    # with nothing to fetch, so the one-second scrapes saw it up during the match. The relay's
    # backlog was scraped all along too (it publishes within a scrape, so its peak is mostly 0).
    peak_lag = prom.value('max(max_over_time(okey_consumer_lag_messages{job="bots"}[10m]))')
    assert peak_lag is not None and peak_lag >= 1, peak_lag
    peak_behind = prom.value("max(max_over_time(okey_relay_behind_events[10m]))")
    assert peak_behind is not None

    # The alert rules run on these series: each evaluated (health ok) and none firing.
    rules = prom.rules()
    alerts = [r["alert"] for g in yaml.safe_load(ALERTS.read_text())["spec"]["groups"] for r in g["rules"]]
    assert sorted(r["name"] for r in rules) == sorted(alerts)
    await wait_for(
        "every rule evaluated",
        lambda: all(r["health"] == "ok" and not r["lastEvaluation"].startswith("0001") for r in prom.rules()),
        30,
        lambda: str([(r["name"], r["health"], r.get("lastError")) for r in prom.rules()]),
    )
    firing = [(r["name"], r["alerts"]) for r in prom.rules() if r["state"] == "firing"]
    assert not firing, firing
    print(
        f"match {match_s:.1f}s, {events} events ({by_kind['TileDiscarded']} discards, {moves:.0f} applied commands);"
        f" Prometheus agreed {converged_s:.1f}s after MatchEnded; peak relay backlog {peak_behind:.0f} events,"
        f" peak bots lag {peak_lag:.0f} messages"
    )

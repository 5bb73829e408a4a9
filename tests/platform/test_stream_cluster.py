"""The event stream on a real 3-node NATS cluster (three ``nats-server`` processes from the wheel,
routed on loopback): only the relay configures OKEY_TABLES, so starting and reconnecting every
consumer keeps its 3 replicas and its retention; with one node killed nothing is lost [issue 15.4]."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import nats
import pytest
from okeyplatform.eventstore import PostgresEventStore
from okeyplatform.relay import TABLE_STREAM
from okeytools.embedded import free_port, nats_server_binary

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scoring"))
from scoring_helpers import append, simulated, wait_version
from stacks import StackFactory

from services.scoring.store import ScoringStore


@dataclass
class Cluster:
    ports: list[int]
    routes: list[int]
    base: Path
    procs: list[subprocess.Popen[bytes] | None] = field(default_factory=list)

    def url(self, i: int = 0) -> str:
        return f"nats://127.0.0.1:{self.ports[i]}"

    def start(self, i: int) -> None:
        routes = ",".join(f"nats://127.0.0.1:{p}" for k, p in enumerate(self.routes) if k != i)
        store = self.base / f"n{i}"
        store.mkdir(parents=True, exist_ok=True)
        cmd = [
            str(nats_server_binary()),
            "-a", "127.0.0.1", "-p", str(self.ports[i]), "-n", f"okey-n{i}",
            "-js", "-sd", str(store),
            "--cluster_name", "okey", "--cluster", f"nats://127.0.0.1:{self.routes[i]}", "--routes", routes,
        ]  # fmt: skip
        log = open(self.base / f"n{i}.log", "ab")  # noqa: SIM115
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        while len(self.procs) <= i:
            self.procs.append(None)
        self.procs[i] = proc

    def kill(self, i: int) -> None:
        proc = self.procs[i]
        assert proc is not None
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        self.procs[i] = None

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc is not None:
                proc.send_signal(signal.SIGINT)
        for proc in self.procs:
            if proc is not None:
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    c = Cluster(
        [free_port() for _ in range(3)], [free_port() for _ in range(3)], Path(tempfile.mkdtemp(prefix="okey-nats3-"))
    )
    try:
        for i in range(3):
            c.start(i)
        yield c
    finally:
        c.stop_all()


async def _jetstream_ready(url: str, timeout: float = 60.0) -> None:
    """Until the cluster has a JetStream meta leader (a quorum of the three)."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            nc = await nats.connect(url, connect_timeout=1, max_reconnect_attempts=0)
            try:
                await nc.jetstream().account_info()
                return
            finally:
                await nc.close()
        except Exception as exc:  # not up, or no meta leader yet
            last = exc
            await asyncio.sleep(0.3)
    raise AssertionError(f"the NATS cluster has no JetStream after {timeout:.0f} s: {last!r}")


async def _stream(url: str) -> tuple[int, float, int, int]:
    nc = await nats.connect(url)
    try:
        info = await nc.jetstream().stream_info(TABLE_STREAM)
        return (
            info.config.num_replicas or 1,
            info.config.max_age or 0.0,
            info.config.max_bytes or -1,
            info.state.messages,
        )
    finally:
        await nc.close()


async def _consumers(url: str) -> int:
    nc = await nats.connect(url)
    try:
        return (await nc.jetstream().stream_info(TABLE_STREAM)).state.consumer_count
    finally:
        await nc.close()


async def _until_consumers(url: str, count: int, service: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while (got := await _consumers(url)) < count:
        assert time.monotonic() < deadline, f"{service}: {got} consumers on the stream in {timeout:.0f} s, not {count}"
        await asyncio.sleep(0.1)


PEOPLE = ("ali", "ayse", "can", "deniz")
STREAM_ENV = {"OKEY_STREAM_REPLICAS": "3", "OKEY_STREAM_MAX_AGE": "72h", "OKEY_STREAM_MAX_BYTES": "1G"}


async def test_15_4_consumers_keep_the_streams_three_replicas_and_one_node_killed_loses_nothing(
    cluster: Cluster, make_stack: StackFactory
) -> None:
    url = cluster.url(0)
    await _jetstream_ready(url)
    services = ("table", "scoring", "lobby", "bots")
    stack = make_stack(services, env=STREAM_ENV, nats_url=url, label="cluster", start=False)
    await asyncio.to_thread(stack.start_one, "table")
    events = await PostgresEventStore.connect(stack.database_url, min_size=1, max_size=4)
    scores = await ScoringStore.connect(stack.database_url, min_size=1, max_size=2)
    try:
        want = (3, 72 * 3600.0, 1 << 30)
        for _ in range(100):  # the relay creates the stream from the OKEY_STREAM_* settings
            try:
                if (await _stream(url))[:3] == want:
                    break
            except nats.js.errors.NotFoundError:
                pass
            await asyncio.sleep(0.1)
        assert (await _stream(url))[:3] == want
        for name in services[1:]:
            bound = await _consumers(url)
            await asyncio.to_thread(stack.start_one, name)
            # its durable is on the stream: it has bound (which once reset the replicas to 1)
            await _until_consumers(url, bound + 1, name)
            assert (await _stream(url))[:3] == want, name
        # Every seat a person's: the test writes each whole match itself. With bot seats the bots
        # service played them through the table service between the test's commits, and the
        # test's next commit met a VersionConflict (seen under load, when the appends were slower
        # than a bot's think pause).
        first = simulated("c1", 7, PEOPLE)
        await append(events, "c1", first)
        await wait_version(scores, "c1", len(first), timeout=60)
        # One node (not the one the services connected to) killed: the stream keeps going on two.
        cluster.kill(2)
        second = simulated("c2", 8, PEOPLE)
        await append(events, "c2", second)
        await wait_version(scores, "c2", len(second), timeout=60)
        replicas, _, _, messages = await _stream(url)
        assert replicas == 3 and messages == len(first) + len(second)  # nothing lost, nothing twice
        # The node comes back; consumers reconnecting change nothing either.
        cluster.start(2)
        await _jetstream_ready(cluster.url(2))
        await asyncio.to_thread(stack.restart, "scoring")
        # a third match reaches the projection: the restarted consumer has bound and reads again
        third = simulated("c3", 9, PEOPLE)
        await append(events, "c3", third)
        await wait_version(scores, "c3", len(third), timeout=60)
        assert (await _stream(url))[:3] == want
        total = len(first) + len(second) + len(third)
        for _ in range(100):  # the restarted node catches up with the stream
            if (await _stream(cluster.url(2)))[3] == total:
                break
            await asyncio.sleep(0.1)
        assert (await _stream(cluster.url(2)))[3] == total
    finally:
        await scores.close()
        await events.close()


def test_stream_settings_read_the_environment_and_refuse_nonsense() -> None:
    from okeyplatform.relay import StreamSettings

    s = StreamSettings.from_env(
        {"OKEY_STREAM_REPLICAS": "3", "OKEY_STREAM_MAX_AGE": "90m", "OKEY_STREAM_MAX_BYTES": "16G"}
    )
    assert (s.replicas, s.max_age_s, s.max_bytes) == (3, 5400.0, 16 << 30)
    d = StreamSettings.from_env({})
    assert (d.replicas, d.max_age_s, d.max_bytes) == (1, 7 * 86400.0, -1)
    assert StreamSettings.from_env({"OKEY_STREAM_MAX_AGE": "0"}).max_age_s == 0.0
    with pytest.raises(ValueError, match="OKEY_STREAM_MAX_AGE"):
        StreamSettings.from_env({"OKEY_STREAM_MAX_AGE": "a week"})

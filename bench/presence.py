"""``okey bench presence``: what the gateway's presence costs per connected player, and how that
grows with the players and the gateway replicas (issue 44).

    okey bench presence [--players 1000,10000] [--replicas 1,2,4] [--seconds 12] [--record]

For each number of players P and of replicas R, R replicas of the gateway's presence run in this
process, each the gateway's own :class:`services.gateway.presence.Presence` (its tracker, board,
clock and bus loop, with a NATS connection of its own), on a real NATS server (the embedded one
unless OKEY_NATS_URL is set). The only addition is a count of the messages each one publishes
and receives. P simulated players are spread evenly over the replicas and use them as the edge
does: ``Presence.call`` for each call let through, ``Presence.watch`` for each stream,
``Watch.item`` for each message the stream passes on, ``Watch.close`` at its end.

- Half of the players sit at a table with a watch of their own seat open (AT_TABLE). The other
  half are in the lobby, making calls (ONLINE: a call within the last minute).
- Each joins or leaves a table ``--changes`` times a minute on average (default 1, Poisson).
  Joining opens a watch of their seat and passes on its first message; leaving closes it. Each
  is one change of presence.
- Each makes a call every 60/``--calls`` seconds (default 6 a minute: a lobby refresh or a move).
- A watch passes on ``--table-messages`` messages a minute (default 12: a table of four at 0.2
  moves/s). They are real ones: a greedy-bot hand's events and views, as the table service
  sends them.

Once every board holds every player, the bench measures over ``--seconds``:

- the messages and bytes published per connected player per minute, changes and beats apart;
- the messages and bytes each replica receives a second, and how long a change takes to reach
  each replica (from the ``at_ms`` it carries);
- this process's CPU time (``time.process_time``: all R replicas, their NATS clients and the
  simulated players) per connected player per minute, and per replica (divided by R);
- the NATS server's CPU time, when the server is the bench's own.

Then, with two replicas or more, one is killed: it stops without a word (its players' streams are
left open, so it tells nobody they left) and its messages stop. The bench times how long until
every other replica's board says OFFLINE for each of its players."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import heapq
import random
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from okey.v1 import table_service_pb2 as pb
from okeycore.classic.bots import GreedyBot
from okeycore.games import Game, engine_for
from okeycore.kernel.state import Phase
from okeycore.options import TableOptions
from okeycore.simulate import Simulator
from okeyplatform.auth import Identity
from okeyplatform.contract import event_pb, view_pb
from okeyplatform.presence import BEAT_S, DEAD_AFTER_S, PLAYER_PREFIX, REPLICA_PREFIX, State

from services.gateway.app import Caller
from services.gateway.presence import TICK_S, WATCH_PATH, Presence, Watch

from .common import CpuMeter, machine, percentile
from .record import Section, Table, record

FULL_PLAYERS = (1_000, 10_000)
QUICK_PLAYERS = (100, 1_000)
FULL_REPLICAS = (1, 2, 4)
QUICK_REPLICAS = (1, 2)
FULL_SECONDS = 12.0
"""Six levels of 12 s, with their starts and kills, make a default run of under two minutes."""
QUICK_SECONDS = 5.0
CHANGES = 1.0
"""Presence changes per player per minute: a table joined or left. It is a high rate: a sitting
lasts a minute on average, where a match lasts far longer."""
CALLS = 6.0
"""Calls per player per minute: a lobby refresh or a move every 10 s."""
TABLE_MESSAGES = 12.0
"""Messages a minute on a seat's watch: a table of four at 0.2 moves/s (docs/operations.md's
sizing: people make 0.2-0.4)."""
MAX_PLAYERS = 200_000
MAX_REPLICAS = 16
STEP_S = 0.05
"""The simulated players' events are handed to the replicas this often."""
COME_PER_S = 5_000
"""Players coming a second at the start, over all the replicas."""
SETTLE_TIMEOUT_S = 60.0
KILL_TIMEOUT_S = 15.0
OFFLINE_BOUND_S = DEAD_AFTER_S + BEAT_S
"""How soon after a kill its players must be OFFLINE on every other board (the test holds the bench
to it): a board drops a replica DEAD_AFTER_S (3 s) after its last message, which came at most
BEAT_S (1 s) before the kill, and looks every TICK_S (0.25 s); expect 2-3.25 s, and the rest of
the beat is slack for a late event loop."""

_CALL, _TOGGLE, _MESSAGE = 0, 1, 2
_AT_MS = re.compile(rb'"at_ms":(\d+)')


# ------------------------------------------------------------------ the gateway's presence, counted


class _Counted(Presence):
    """The gateway's Presence, counting what it publishes and receives. Nothing else changes."""

    def __init__(self, replica: str, nats_url: str) -> None:
        super().__init__(replica=replica, nats_url=nats_url)
        self.counts = [0, 0, 0, 0, 0, 0]  # changes sent, their bytes, beats sent, bytes, received, bytes
        self.changes = 0  # changes of presence made here (each published once)
        self.beat_at = 0.0  # monotonic: when it last published a beat
        self.delays: list[int] | None = None  # while measuring: each change's ms from its making to here

    def _changed(self, presence: Any) -> None:
        self.changes += 1
        super()._changed(presence)

    def on_message(self, subject: str, data: bytes) -> None:
        self.counts[4] += 1
        self.counts[5] += len(data)
        if self.delays is not None and subject.startswith(PLAYER_PREFIX):
            made = _AT_MS.search(data)  # the moment its replica's tracker made it (unix ms)
            if made is not None:
                self.delays.append(time.time_ns() // 1_000_000 - int(made.group(1)))
        super().on_message(subject, data)

    async def _publish(self, nc: Any, subject: str, body: bytes) -> None:  # type: ignore[override]
        beat = subject.startswith(REPLICA_PREFIX)
        self.counts[2 if beat else 0] += 1
        self.counts[3 if beat else 1] += len(body)
        if beat:
            self.beat_at = time.monotonic()
        await Presence._publish(nc, subject, body)

    def known(self) -> int:
        """The players its board holds, over every live replica."""
        return sum(len(self.board.players_of(r)) for r in self.board.live)


# ------------------------------------------------------------------ the players


@functools.cache
def watch_messages() -> tuple[list[bytes], list[list[bytes]]]:
    """Each seat's first message of a watch (its view) and the later ones (an event and the view
    after it), over one hand of greedy bots: the bytes the table service sends."""
    sim = Simulator(TableOptions(), [GreedyBot(i) for i in range(4)], seed=1, table_id="bench-presence")
    sim.play_hand()
    engine = engine_for(Game.OKEY)
    players = tuple(f"bench-p{i}" for i in range(4))
    state: Any = None
    snapshots: list[bytes] = []
    later: list[list[bytes]] = [[] for _ in range(4)]
    for event in sim.record.events:
        state = engine.evolve(state, event)
        if state.phase is not Phase.PLAYING:
            continue
        for seat in range(4):
            view = view_pb(engine.view(state, seat), players)
            if len(snapshots) < 4:
                snapshots.append(pb.WatchResponse(snapshot=view).SerializeToString())
            msg = pb.WatchResponse(event=event_pb(engine.public_event(event, seat)), view=view)
            later[seat].append(msg.SerializeToString())
    return snapshots, later


@dataclass(eq=False, slots=True)
class _Player:
    caller: Caller
    request: bytes  # its WatchRequest: its own seat at its own table
    seat: int
    watch: Watch | None = None
    generation: int = 0  # one more at each watch opened: a message due on an older one is dropped
    passed: int = 0  # messages passed on


@dataclass(frozen=True)
class Rates:
    changes: float  # a minute, a player
    calls: float
    table_messages: float


class _Crowd:
    """The players of one replica, each event of theirs due at its time on one heap."""

    def __init__(
        self,
        presence: Presence,
        first: int,
        count: int,
        rates: Rates,
        messages: tuple[list[bytes], list[list[bytes]]],
        seed: int,
    ) -> None:
        self.presence = presence
        self.rng = random.Random(seed)
        self.snapshots, self.later = messages
        self.call_every = 60.0 / rates.calls if rates.calls > 0 else 0.0
        self.toggle_rate = rates.changes / 60.0
        self.message_every = 60.0 / rates.table_messages if rates.table_messages > 0 else 0.0
        self.players: list[_Player] = []
        for i in range(first, first + count):
            table, seat = f"bench-t{i // 4}", i % 4
            request = pb.WatchRequest(table_id=table, seat=seat).SerializeToString()
            self.players.append(_Player(Caller(Identity(f"bench-p{i}", "player"), "127.0.0.1"), request, seat))
        self.heap: list[tuple[float, int, int, int]] = []
        self.edge_cpu = 0.0  # thread CPU seconds spent in the calls into Presence (and the scheduling)

    def _at(self, due: float, kind: int, i: int, generation: int = 0) -> None:
        heapq.heappush(self.heap, (due, kind, i, generation))

    def _sit(self, i: int, now: float) -> None:
        p = self.players[i]
        p.generation += 1
        p.watch = self.presence.watch(p.caller, WATCH_PATH, p.request)
        p.watch.item(self.snapshots[p.seat])
        if self.message_every:
            self._at(now + self.rng.uniform(0, self.message_every), _MESSAGE, i, p.generation)

    def _step(self, due: float, kind: int, i: int, generation: int) -> None:
        p = self.players[i]
        if kind == _CALL:
            self.presence.call(p.caller)
            self._at(due + self.call_every, _CALL, i)
        elif kind == _TOGGLE:
            if p.watch is None:
                self._sit(i, due)
            else:
                p.watch.close()
                p.watch = None
            self._at(due + self.rng.expovariate(self.toggle_rate), _TOGGLE, i)
        elif generation == p.generation and p.watch is not None:
            later = self.later[p.seat]
            p.watch.item(later[p.passed % len(later)])
            p.passed += 1
            self._at(due + self.message_every, _MESSAGE, i, generation)

    async def populate(self, per_s: float, batch: int = 100) -> None:
        """Every player comes, ``per_s`` a second: a call, and every other one then sits at their
        table (a burst of all at once would only measure the queue it makes)."""
        began = time.monotonic()
        for start in range(0, len(self.players), batch):
            t0 = time.thread_time()
            now = time.monotonic()
            for i in range(start, min(start + batch, len(self.players))):
                self.presence.call(self.players[i].caller)
                if i % 2 == 0:
                    self._sit(i, now)
                if self.call_every:
                    self._at(now + self.rng.uniform(0, self.call_every), _CALL, i)
                if self.toggle_rate > 0:
                    self._at(now + self.rng.expovariate(self.toggle_rate), _TOGGLE, i)
            self.edge_cpu += time.thread_time() - t0
            await asyncio.sleep(max(0.0, began + (start + batch) / per_s - time.monotonic()))

    async def run(self) -> None:
        """Whatever is due, every STEP_S: a player's event comes up to STEP_S late, which presence
        cannot tell (its clock ticks every 0.25 s), and the loop wakes 20 times a second, not at
        each event (a gateway's own wakes for its requests are not presence's cost)."""
        heap = self.heap
        while True:
            now = time.monotonic()
            t0 = time.thread_time()
            while heap and heap[0][0] <= now:
                self._step(*heapq.heappop(heap))
            self.edge_cpu += time.thread_time() - t0
            await asyncio.sleep(STEP_S)


# ------------------------------------------------------------------ one level


@dataclass
class Level:
    """What one (players, replicas) measured; counts are sums over the replicas."""

    players: int
    replicas: int
    seconds: float
    changes_made: int
    change_msgs: int
    change_bytes: int
    beat_msgs: int
    beat_bytes: int
    received_msgs: list[int]  # per replica
    received_bytes: list[int]
    cpu: float  # this process's CPU seconds over the window
    edge_cpu: float  # of which in the simulated players' calls into Presence
    nats_cpu: float | None  # the NATS server's, when it is ours
    busy: float  # the share of the whole machine busy
    settled_s: float  # from the first player's coming until every board held every player
    delays: list[int]  # sorted: ms from a change's making to its arrival at a replica, each (change, replica)
    offline_s: float | None = None  # from the kill until the other boards said OFFLINE for its players
    after_beat_s: float | None = None  # the same, from its last beat

    def per_player_minute(self, value: float) -> float:
        return value / self.players / (self.seconds / 60.0)

    def delay(self, q: float) -> str:
        return f"{percentile(self.delays, q):,.0f} ms" if self.delays else "-"


def _say(text: str) -> None:
    sys.stderr.write(f"  {text}\n")
    sys.stderr.flush()


async def _settle(reps: list[_Counted], want: int, timeout: float) -> bool:
    """Until every board holds ``want`` players, and then until every replica has received what
    all had published by then (the start's queue is gone); False at the timeout."""
    deadline = time.monotonic() + timeout
    while not all(r.known() == want for r in reps):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    sent = sum(r.counts[0] + r.counts[2] for r in reps)
    while not all(r.counts[4] >= sent for r in reps):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def one_level(
    nats_url: str, nats_pid: int | None, players: int, replicas: int, seconds: float, rates: Rates, seed: int = 1
) -> Level:
    label = f"{players:,} players, {replicas} replica{'s' if replicas > 1 else ''}"
    tag = f"{int(time.time() * 1000) % 10**8:08d}"
    reps = [_Counted(f"bench-{tag}-r{k}", nats_url) for k in range(replicas)]
    runs = [asyncio.create_task(r.run()) for r in reps]
    messages = watch_messages()
    share = [players // replicas + (1 if k < players % replicas else 0) for k in range(replicas)]
    crowds = [_Crowd(r, sum(share[:k]), share[k], rates, messages, seed * 1000 + k) for k, r in enumerate(reps)]
    walks: list[asyncio.Task[None]] = []
    try:
        _say(f"{label}: starting the replicas")
        ids = {r.replica for r in reps}
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        while not all(r.counts[4] > 0 and ids <= set(r.board.live) for r in reps):  # each hears every one
            if time.monotonic() > deadline:
                raise RuntimeError(f"{label}: the replicas did not hear each other within {SETTLE_TIMEOUT_S:g} s")
            await asyncio.sleep(0.05)
        _say(f"{label}: the players come")
        t0 = time.monotonic()
        await asyncio.gather(*(c.populate(COME_PER_S / replicas) for c in crowds))
        walks = [asyncio.create_task(c.run()) for c in crowds]
        if not await _settle(reps, players, SETTLE_TIMEOUT_S):
            raise RuntimeError(f"{label}: the boards did not hold every player within {SETTLE_TIMEOUT_S:g} s")
        settled = time.monotonic() - t0
        _say(f"{label}: every board holds every player after {settled:.2f} s; measuring {seconds:g} s")

        meter = CpuMeter({"nats": nats_pid} if nats_pid else {}, {}, {})
        before = [list(r.counts) for r in reps]
        made0 = sum(r.changes for r in reps)
        edge0 = sum(c.edge_cpu for c in crowds)
        for r in reps:
            r.delays = []
        meter.start()
        cpu0, wall0 = time.process_time(), time.monotonic()
        await asyncio.sleep(seconds)
        cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
        used, busy = meter.stop()
        delays = sorted(d for r in reps for d in r.delays or ())
        for r in reps:
            r.delays = None
        after = [list(r.counts) for r in reps]
        delta = [[a - b for a, b in zip(x, y, strict=True)] for x, y in zip(after, before, strict=True)]
        change_msgs, change_bytes, beat_msgs, beat_bytes = (sum(d[j] for d in delta) for j in range(4))
        level = Level(
            players=players,
            replicas=replicas,
            seconds=wall,
            changes_made=sum(r.changes for r in reps) - made0,
            change_msgs=change_msgs,
            change_bytes=change_bytes,
            beat_msgs=beat_msgs,
            beat_bytes=beat_bytes,
            received_msgs=[d[4] for d in delta],
            received_bytes=[d[5] for d in delta],
            cpu=cpu,
            edge_cpu=sum(c.edge_cpu for c in crowds) - edge0,
            nats_cpu=used.get("nats") if nats_pid else None,
            busy=busy,
            settled_s=settled,
            delays=delays,
        )
        if replicas > 1:
            await _kill_one(reps, walks, crowds, level, label)
        return level
    finally:
        for task in walks:
            task.cancel()
        for r in reps:
            r.stop()
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await asyncio.wait_for(asyncio.gather(*runs, *walks, return_exceptions=True), timeout=10.0)


async def _kill_one(
    reps: list[_Counted],
    walks: list[asyncio.Task[None]],
    crowds: list[_Crowd],
    level: Level,
    label: str,
) -> None:
    """Kill the last replica and time how long until every other board says OFFLINE for each of
    its players. Its players stop and it stops without a word (their streams are not closed, so
    it tells nobody they left): its messages stop, as when its process is killed. (Cancelling its
    task would not do: the NATS client swallows a cancellation in the middle of a publish.)"""
    victim, others = reps[-1], reps[:-1]
    gone = [p.caller.identity.subject for p in crowds[-1].players if p.caller.identity is not None]
    _say(f"{label}: killing one replica ({len(gone):,} players)")
    walks[-1].cancel()
    killed = time.monotonic()
    victim.stop()
    seen: dict[int, float] = {}
    while len(seen) < len(others) and time.monotonic() - killed < KILL_TIMEOUT_S:
        for k, r in enumerate(others):
            if k in seen or r.board.is_live(victim.replica):
                continue
            if all(r.board.state_of(p)[0] is State.OFFLINE for p in gone):
                seen[k] = time.monotonic()
        await asyncio.sleep(0.01)
    if len(seen) == len(others):
        last = max(seen.values())
        level.offline_s = last - killed
        level.after_beat_s = last - victim.beat_at
        _say(f"{label}: its players OFFLINE everywhere {level.offline_s:.2f} s after the kill")
    else:
        _say(f"{label}: its players were not OFFLINE everywhere within {KILL_TIMEOUT_S:g} s")


# ------------------------------------------------------------------ the run


def _counts(text: str | None, default: Sequence[int], name: str, most: int) -> list[int]:
    if text is None:
        return list(default)
    try:
        values = [int(v.strip().replace("_", "")) for v in text.split(",") if v.strip()]
    except ValueError:
        values = []
    if not values or any(not 1 <= v <= most for v in values):
        raise ValueError(f"--{name} {text}: give whole numbers from 1 to {most:,}, separated by commas")
    return values


def _rate(value: float | None, default: float, name: str) -> float:
    if value is None:
        return default
    if not 0 <= value <= 600:
        raise ValueError(f"--{name} {value:g}: give 0 to 600 a minute")
    return float(value)


def _command(args: argparse.Namespace) -> str:
    parts = ["okey", "bench", "presence"]
    if getattr(args, "quick", False):
        parts.append("--quick")
    for flag, value in (
        ("--players", getattr(args, "players", None)),
        ("--replicas", getattr(args, "replicas", None)),
        ("--seconds", getattr(args, "seconds", None)),
        ("--changes", getattr(args, "changes", None)),
        ("--calls", getattr(args, "calls", None)),
        ("--table-messages", getattr(args, "table_messages", None)),
    ):
        if value is not None:
            parts += [flag, f"{value:g}" if isinstance(value, float) else str(value)]
    return " ".join(parts)


def _pm(x: float) -> str:
    return f"{x:,.2f}" if x < 100 else f"{x:,.0f}"


def _offline(level: Level) -> tuple[str, str]:
    if level.replicas < 2:
        return "-", "-"
    if level.offline_s is None:
        return f"> {KILL_TIMEOUT_S:g} s", ""
    return f"{level.offline_s:.2f} s", f"{level.after_beat_s:.2f} s"


PUBLISHED_HEAD = ("players", "replicas", "changes", "change bytes", "beats", "beat bytes", "all bytes")
COST_HEAD = (
    "players",
    "replicas",
    "recv msg/s/replica",
    "recv KB/s/replica",
    "change arrives p50",
    "p99",
    "CPU ms/player/min",
    "edge calls",
    "CPU/replica",
    "NATS CPU ms/player/min",
    "OFFLINE after kill",
    "after last beat",
    "machine busy",
)


def published_row(v: Level) -> tuple[str, ...]:
    pm = v.per_player_minute
    return (
        f"{v.players:,}",
        str(v.replicas),
        _pm(pm(v.change_msgs)),
        f"{pm(v.change_bytes):,.0f}",
        _pm(pm(v.beat_msgs)),
        f"{pm(v.beat_bytes):,.0f}",
        f"{pm(v.change_bytes + v.beat_bytes):,.0f}",
    )


def cost_row(v: Level) -> tuple[str, ...]:
    per_replica = sum(v.received_msgs) / v.replicas / v.seconds
    kb = sum(v.received_bytes) / v.replicas / v.seconds / 1000
    return (
        f"{v.players:,}",
        str(v.replicas),
        f"{per_replica:,.0f}",
        f"{kb:,.1f}",
        v.delay(50),
        v.delay(99),
        f"{v.per_player_minute(v.cpu) * 1e3:,.3f}",
        f"{v.edge_cpu / v.cpu:.0%}" if v.cpu > 0 else "-",
        f"{v.cpu / v.replicas / v.seconds:.1%}",
        f"{v.per_player_minute(v.nats_cpu) * 1e3:,.3f}" if v.nats_cpu is not None else "n/a",
        *_offline(v),
        f"{v.busy:.0%}" if v.busy == v.busy else "-",
    )


def _print(head: Sequence[str], rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    print("  ".join(h.rjust(w) for h, w in zip(head, widths, strict=True)))
    for row in rows:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)))


def _times(n: float) -> str:
    return "once" if n == 1 else f"{n:g} times"


def describe(rates: Rates, seconds: float) -> str:
    return (
        f"each player: at a table (a watch of their seat open: AT_TABLE) or in the lobby (calls only: ONLINE), "
        f"half and half; joins or leaves a table {_times(rates.changes)} a minute on average (Poisson: one "
        f"presence change each), makes {rates.calls:g} calls a minute, and a watch passes on "
        f"{rates.table_messages:g} messages a minute (a greedy-bot hand's real ones); {seconds:g} s measured "
        "per level once every board holds every player"
    )


def explain(levels: list[Level]) -> list[str]:
    """What the columns are, and the changes made against those published (the same)."""
    made = sum(v.changes_made for v in levels)
    sent = sum(v.change_msgs for v in levels)
    return [
        "the replicas are the gateway's own `Presence`, all in this one process, each with its own NATS "
        "connection; every replica receives every presence message, its own included",
        "change arrives: from a change's making on its replica (its `at_ms`) to its arrival in a replica's "
        "bus callback, over every change and replica (this machine's clock, in whole ms)",
        "CPU ms/player/min: this process's CPU time (`time.process_time`: all the replicas, their NATS clients and "
        "the simulated players) per connected player per minute; edge calls: its share in the players' calls "
        "into `Presence` (calls, watches and their messages, the changes they make), the simulation's scheduling "
        "included; CPU/replica: this process's CPU time divided by the replicas, as a share of one core; NATS: "
        "the server's CPU time (the embedded server only); machine busy: the share of the machine's CPU time "
        "(every process on it) that was busy while measuring",
        f"OFFLINE after kill: from a replica stopped without a word (its players' streams left open, its "
        f"messages stopped, as when its process is killed) until every other replica's board says OFFLINE for "
        f"each of its players. A board drops a replica {DEAD_AFTER_S:g} s after its last message and looks every "
        f"{TICK_S:g} s: expect {DEAD_AFTER_S - BEAT_S:g}-{DEAD_AFTER_S + TICK_S:g} s (its last message came at "
        f"most a beat, {BEAT_S:g} s, before the kill); more means this process was late. After last beat: the "
        f"same from its last beat, at least {DEAD_AFTER_S:g} s, more when its players' changes followed that beat",
        f"changes of presence made while measuring: {made:,}; change messages published: {sent:,}",
    ]


def run(args: argparse.Namespace) -> int:
    quick = bool(getattr(args, "quick", False))
    try:
        players = _counts(
            getattr(args, "players", None), QUICK_PLAYERS if quick else FULL_PLAYERS, "players", MAX_PLAYERS
        )
        replicas = _counts(
            getattr(args, "replicas", None), QUICK_REPLICAS if quick else FULL_REPLICAS, "replicas", MAX_REPLICAS
        )
        seconds = getattr(args, "seconds", None) or (QUICK_SECONDS if quick else FULL_SECONDS)
        if not 0 < seconds <= 3600:
            raise ValueError(f"--seconds {seconds:g}: give more than 0, at most 3600")
        rates = Rates(
            _rate(getattr(args, "changes", None), CHANGES, "changes"),
            _rate(getattr(args, "calls", None), CALLS, "calls"),
            _rate(getattr(args, "table_messages", None), TABLE_MESSAGES, "table-messages"),
        )
    except ValueError as exc:
        print(f"okey bench presence: {exc}", file=sys.stderr)
        return 2
    from okeyplatform.logs import configure_logging
    from okeytools.embedded import resolve_nats

    configure_logging("bench", level="WARNING")  # the replicas' info lines would drown the figures
    print("okey bench presence: the gateway's presence, per connected player, by players and replicas")
    print(f"machine: {machine()}")
    print(describe(rates, seconds))
    nats_url, server = resolve_nats()
    servers = f"NATS: {'embedded' if server is not None else 'OKEY_NATS_URL'}"
    print(servers)
    levels: list[Level] = []
    try:
        for n in players:
            for r in replicas:
                levels.append(asyncio.run(one_level(nats_url, server.pid if server else None, n, r, seconds, rates)))
    finally:
        if server is not None:
            server.close()
    print("\npublished, per connected player per minute (messages, and bytes of payload):")
    _print(PUBLISHED_HEAD, [published_row(v) for v in levels])
    print("\nreceived by each replica, CPU, and a killed replica's players going OFFLINE:")
    _print(COST_HEAD, [cost_row(v) for v in levels])
    print()
    for line in explain(levels):
        print(f"- {line}")
    record(args, _section(args, levels, rates, seconds, servers))
    return 0


def _section(args: argparse.Namespace, levels: list[Level], rates: Rates, seconds: float, servers: str) -> Section:
    right = frozenset(range(len(COST_HEAD)))
    return Section(
        "presence",
        _command(args),
        [
            Table(
                PUBLISHED_HEAD,
                [published_row(v) for v in levels],
                frozenset(range(len(PUBLISHED_HEAD))),
                caption="Published, per connected player per minute: messages, and bytes of payload "
                "(NATS adds the subject and about 30 bytes to each message):",
            ),
            Table(
                COST_HEAD,
                [cost_row(v) for v in levels],
                right,
                caption="Received by each replica, CPU, and a killed replica's players going OFFLINE:",
            ),
        ],
        notes=[describe(rates, seconds), *explain(levels)],
        servers=servers,
        in_process=False,  # its process mostly waits by design: its share of a CPU says nothing of crowding
    )

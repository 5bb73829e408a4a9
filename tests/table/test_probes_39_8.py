"""Issue 39 item 8, the table service's probes: what a guest with their own valid token can make
the table do that costs it (GetView's ``min_version`` and ``AllowedQuery``, GetHints), and
whether a seat can hold the table in the break between hands past ``hand_break_seconds``. In
process, over the memory store, through the servicer as the gateway would call it. The gateway's
probe (WebSocket caps) is in tests/gateway/test_gateway_edges.py and tests/resilience/test_abuse.py;
the hand prize of a seat that left, in tests/lobby/test_settlement.py."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import replace
from typing import Any

import pytest
from okey.v1 import table_service_pb2 as pb
from okeycore.classic.strategy import STRATEGIES
from okeycore.commands import Draw, LeaveSeat, Pass, Ready, TakeBack
from okeycore.events import HandStarted
from okeycore.kernel.state import Phase
from okeycore.okey101.strategy import STRATEGIES_101
from okeycore.options import Game, TableOptions
from okeyplatform.auth import Identity, issue_token
from okeyplatform.errors import InvalidArgument
from okeyplatform.eventstore import MemoryEventStore, StoredEvent

from services.table.api import MAX_ALLOWED_ASKED, TableServicer
from services.table.app import Forbidden, RuleError, TableApp

BOTS = Identity("bots", "service")


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


class SlowStore(MemoryEventStore):
    """The memory store, each read of a stream taking a little while (a database round trip)
    and counted."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        self.delay_s = 0.0

    async def read_stream(self, stream_id: str, after_version: int = 0, limit: int | None = None) -> list[StoredEvent]:
        self.reads += 1
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        return await super().read_stream(stream_id, after_version, limit)


class Context:
    """What the servicer reads of a gRPC call: the caller's token."""

    def __init__(self, subject: str, role: str = "player") -> None:
        self.md = (("authorization", f"Bearer {issue_token(subject, role)}"),)

    def invocation_metadata(self) -> Any:
        return self.md


def _bot(state: Any) -> Any:
    bots: Any = STRATEGIES_101 if state.options.game is Game.OKEY101 else STRATEGIES
    return bots["greedy"](state.turn)


async def _play_until(app: TableApp, clock: Clock, table_id: str, done: Any) -> None:
    """Every seat plays as a greedy bot (the bots' credential) until ``done(state)``."""
    for n in range(3000):
        loaded = await app.load(table_id)
        state, engine = loaded.state, loaded.engine
        if done(state):
            return
        clock.now += 100
        cmd = _bot(state).act(engine.view(state, state.turn))
        await app.act(table_id, f"m{n}", lambda now, c=cmd: replace(c, now_ms=now), BOTS, state.turn)
    raise AssertionError("the table never got there")


# ------------------------------------------------------------------ 1. GetView's cost


async def _table(store: MemoryEventStore, table_id: str, **options: Any) -> tuple[TableApp, Clock]:
    clock = Clock()
    app = TableApp(store, clock=clock)
    await app.create_table(table_id, TableOptions(**options), ("ali", "", "", ""))
    await _play_until(app, clock, table_id, lambda s: s.phase is Phase.PLAYING and s.version >= 12)
    return app, clock


async def test_39_8_a_far_future_min_version_is_answered_at_once_with_one_store_read() -> None:
    """``min_version`` never makes the server wait for a version to come, nor spin: one past the
    table's last is answered at once with the latest view (its version says so), at the cost of
    one read of the store. Fifty such calls at once cost at most two reads (one in flight, one
    queued behind it), not fifty; a min_version the cache holds costs none."""
    store = SlowStore()
    app, _clock = await _table(store, "t-minv")
    svc = TableServicer(app)
    ali = Context("ali")
    last = (await app.load("t-minv")).state.version

    store.reads = 0
    got = await svc.GetView(pb.GetViewRequest(table_id="t-minv", seat=0, min_version=last), ali)
    assert got.view.version == last and store.reads == 0  # the cache holds it

    store.delay_s = 0.05
    t0 = time.monotonic()
    got = await svc.GetView(pb.GetViewRequest(table_id="t-minv", seat=0, min_version=2**62), ali)
    assert got.view.version == last and store.reads == 1
    assert time.monotonic() - t0 < 1.0  # no wait for a version that will not come

    store.reads = 0
    t0 = time.monotonic()
    many = await asyncio.gather(
        *(svc.GetView(pb.GetViewRequest(table_id="t-minv", seat=0, min_version=2**62 - i), ali) for i in range(50))
    )
    assert {m.view.version for m in many} == {last}
    assert store.reads <= 2, store.reads  # coalesced: not one read a call
    assert time.monotonic() - t0 < 1.0

    # A reader still sees a write made by another replica after it asked (nothing stale is kept).
    other = TableApp(store, clock=app.clock)
    loaded = await other.load("t-minv")
    state = loaded.state
    cmd = _bot(state).act(loaded.engine.view(state, state.turn))
    await other.act("t-minv", "elsewhere", lambda now: replace(cmd, now_ms=now), BOTS, state.turn)
    got = await svc.GetView(pb.GetViewRequest(table_id="t-minv", seat=0, min_version=last + 1), ali)
    assert got.view.version > last

    with pytest.raises(InvalidArgument):
        await svc.GetView(pb.GetViewRequest(table_id="t-minv", seat=0, min_version=-1), ali)


class CountingEngine:
    """An engine whose views count the rules' checks their ``allowed`` asks, and its hints."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.views = 0
        self.checks = 0
        self.hint_runs = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def view(self, state: Any, seat: int | None) -> Any:
        self.views += 1
        v = self.engine.view(state, seat)
        real = v.allowed._check
        if real is not None:

            def check(name: str) -> bool:
                self.checks += 1
                return bool(real(name))

            v.allowed._check = check
        return v

    def hints(self, view: Any) -> Any:
        self.hint_runs += 1
        return self.engine.hints(view)


@pytest.mark.parametrize("game", ["OKEY", "OKEY101"])
async def test_39_8_getview_and_gethints_run_the_rules_once_a_version_however_often_asked(game: str) -> None:
    """GetView's ``allowed`` (some of its checks run the solver) and GetHints are worked out once
    for a table's version and seat: asked a hundred times, with every name or an AllowedQuery
    listing one name 64 times, the rules answer each name once. An AllowedQuery over 64 names is
    refused (INVALID_ARGUMENT); names that are no seat command cost nothing."""
    store = MemoryEventStore()
    app, _clock = await _table(store, f"t-cost-{game}", game=Game[game])
    svc = TableServicer(app)
    ali = Context("ali")
    loaded = await app.load(f"t-cost-{game}")
    counting = CountingEngine(loaded.engine)
    app._cache[f"t-cost-{game}"] = replace(loaded, engine=counting, views={}, hints={})

    req = pb.GetViewRequest(table_id=f"t-cost-{game}", seat=0)
    first = await svc.GetView(req, ali)
    checks = counting.checks
    for _ in range(100):
        again = await svc.GetView(req, ali)
        assert list(again.view.allowed) == list(first.view.allowed)
    names = ["Draw"] * MAX_ALLOWED_ASKED
    for _ in range(100):
        asked = pb.GetViewRequest(table_id=f"t-cost-{game}", seat=0)
        asked.allowed_query.names.extend(names)
        await svc.GetView(asked, ali)
    junk = pb.GetViewRequest(table_id=f"t-cost-{game}", seat=0)
    junk.allowed_query.names.extend(f"NoSuchCommand{i}" for i in range(MAX_ALLOWED_ASKED))
    assert list((await svc.GetView(junk, ali)).view.allowed) == []
    assert counting.views == 1 and counting.checks == checks, (counting.views, counting.checks)

    too_many = pb.GetViewRequest(table_id=f"t-cost-{game}", seat=0)
    too_many.allowed_query.names.extend(["Draw"] * (MAX_ALLOWED_ASKED + 1))
    with pytest.raises(InvalidArgument):
        await svc.GetView(too_many, ali)

    hints = [await svc.GetHints(pb.GetHintsRequest(table_id=f"t-cost-{game}", seat=0), ali) for _ in range(50)]
    assert counting.hint_runs == 1 and all(h == hints[0] for h in hints)


# ------------------------------------------------------------------ 2. stalling the break


async def _in_break(table_id: str, players: tuple[str, ...]) -> tuple[TableApp, Clock, MemoryEventStore, int]:
    clock = Clock()
    store = MemoryEventStore()
    app = TableApp(store, clock=clock)
    await app.create_table(table_id, TableOptions(match_points=20, hand_break_seconds=3), players)
    await _play_until(app, clock, table_id, lambda s: s.phase is not Phase.PLAYING or s.hand > 1)
    state = (await app.load(table_id)).state
    assert state.in_break and state.break_due_ms == clock.now + 3000
    return app, clock, store, state.break_due_ms


async def _stall(app: TableApp, clock: Clock, table_id: str, rng: random.Random, due: int, moves: int) -> list[str]:
    """The people seated try everything they can send in the break, many times, as it runs:
    Ready again and again, commands of a hand, TakeBack, leaving, and (having left) Ready again.
    Returns the refusals' codes."""
    people = {0: Identity("ali", "player"), 2: Identity("ayse", "player")}
    makers = [
        lambda s: Ready(seat=s, now_ms=0),
        lambda s: Draw(seat=s, now_ms=0),
        lambda s: Pass(seat=s, now_ms=0),
        lambda s: TakeBack(seat=s, now_ms=0),
        lambda s: LeaveSeat(seat=s, now_ms=0),
    ]
    codes = []
    for i in range(moves):
        state = (await app.load(table_id)).state
        if not state.in_break:
            break
        clock.now = min(due - 1, clock.now + rng.randint(0, 400))
        seat = rng.choice(list(people))
        weights = [6, 1, 1, 1, 1 if i > moves // 2 else 0]  # leaving late in the break, if at all
        make = rng.choices(makers, weights)[0]
        try:
            await app.act(table_id, f"s{i}", lambda now, m=make, s=seat: replace(m(s), now_ms=now), people[seat], seat)
        except (RuleError, Forbidden) as exc:
            codes.append(getattr(exc, "code", "NOT_YOUR_SEAT"))
        after = (await app.load(table_id)).state
        if after.in_break:
            assert after.break_due_ms == due  # nothing a seat sends moves the end of the break
            assert await app.store.timer(table_id) == due  # and the table's timer stays on it
    return codes


async def test_39_8_no_seat_can_hold_the_table_in_the_break_past_hand_break_seconds() -> None:
    """[P-BREAK-*] A person who never says Ready, says it again and again, sends the commands of a
    hand, takes back, or leaves and then tries Ready for the seat they left, cannot move the
    break's end (``break_due_ms``, fixed by BreakStarted) nor the table's timer: at
    ``break_due_ms`` the timer deals the next hand, whatever was sent. Played with many seeds."""
    for seed in range(12):
        table_id = f"t-stall-{seed}"
        app, clock, _store, due = await _in_break(table_id, ("ali", "", "ayse", ""))
        codes = await _stall(app, clock, table_id, random.Random(seed), due, 60)
        assert set(codes) <= {
            "ALREADY_READY",
            "NO_HAND_IN_PROGRESS",
            "NOT_ON_AUTOPILOT",
            "ALREADY_LEFT",
            "NOT_YOUR_SEAT",
            "SEAT_LEFT",
            "BOT_SEAT",
            "NOT_YOUR_TURN",
        } | {"NOT_IN_BREAK"}, codes
        state = (await app.load(table_id)).state
        if state.in_break:
            clock.now = due
            fired = await app.fire_timer(table_id)
            assert fired is not None and any(isinstance(e, HandStarted) for _, e in fired.events), seed
        state = (await app.load(table_id)).state
        assert state.hand == 2 and state.phase is Phase.PLAYING, seed
        started = [st for st in await app.store.read_stream(table_id) if st.type == "HandStarted"]
        assert started[-1].data["hand"] == 2


async def test_39_8_ready_spam_is_refused_and_only_the_last_person_s_ready_ends_the_break_early() -> None:
    """Ready a hundred times from one seat: the first is a SeatReady, the rest ALREADY_READY, and
    the break is not cut short while another person has not said it; the one who left is no
    longer waited for (nor may say Ready for the seat they left)."""
    app, _clock, _store, due = await _in_break("t-spam", ("ali", "", "ayse", ""))
    ali, ayse = Identity("ali", "player"), Identity("ayse", "player")
    await app.act("t-spam", "r", lambda now: Ready(seat=0, now_ms=now), ali, 0)
    for i in range(100):
        with pytest.raises(RuleError) as again:
            await app.act("t-spam", f"r{i}", lambda now: Ready(seat=0, now_ms=now), ali, 0)
        assert again.value.code == "ALREADY_READY"
    state = (await app.load("t-spam")).state
    assert state.in_break and state.break_due_ms == due and state.ready == (0,)
    left = await app.act("t-spam", "bye", lambda now: LeaveSeat(seat=2, now_ms=now), ayse, 2)
    assert any(isinstance(e, HandStarted) for _, e in left.events)  # nobody else to wait for
    with pytest.raises(Forbidden):
        await app.act("t-spam", "back", lambda now: Ready(seat=2, now_ms=now), ayse, 2)

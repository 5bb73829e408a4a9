"""The table service owns the break between hands: its timer deals the next hand when the break
is due, and the last person's Ready deals it at once [P-BREAK-1] [P-BREAK-3]. In process, over
the memory store, with a clock the test sets."""

from __future__ import annotations

from dataclasses import replace

import pytest
from okeycore.classic.strategy import STRATEGIES
from okeycore.commands import Ready
from okeycore.events import BreakStarted, HandStarted, SeatReady
from okeycore.kernel.state import Phase
from okeycore.options import TableOptions
from okeyplatform.auth import Identity
from okeyplatform.eventstore import MemoryEventStore

from services.table.app import Forbidden, RuleError, TableApp

ALI = Identity("ali", "player")
BOTS = Identity("bots", "service")


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


async def _to_break(app: TableApp, clock: Clock, table_id: str) -> None:
    """Every seat plays as a greedy bot until the first hand ends."""
    for n in range(3000):
        loaded = await app.load(table_id)
        state, engine = loaded.state, loaded.engine
        if state.phase is not Phase.PLAYING or state.hand > 1:
            return
        clock.now += 100
        cmd = STRATEGIES["greedy"](state.turn).act(engine.view(state, state.turn))
        await app.act(table_id, f"m{n}", lambda now, c=cmd: replace(c, now_ms=now), BOTS, state.turn)
    raise AssertionError("the hand did not end")


async def _app(table_id: str, players: tuple[str, ...], **options: int) -> tuple[TableApp, Clock, MemoryEventStore]:
    clock = Clock()
    store = MemoryEventStore()
    app = TableApp(store, clock=clock)
    await app.create_table(table_id, TableOptions(match_points=20, **options), players)
    await _to_break(app, clock, table_id)
    return app, clock, store


async def test_P_BREAK_3_the_timer_deals_the_next_hand_when_the_break_is_due() -> None:
    app, clock, store = await _app("t-break", ("ali", "", "", ""))
    state = (await app.load("t-break")).state
    assert state.in_break and state.hand == 1
    assert state.break_due_ms == clock.now + 6000  # the default break, from the hand's last command
    assert await store.timer("t-break") == state.break_due_ms  # the table's timer waits for it
    clock.now = state.break_due_ms - 1
    assert await app.fire_timer("t-break") is None  # early (another replica's stale claim): put back
    assert await store.timer("t-break") == state.break_due_ms
    assert (await app.load("t-break")).state.hand == 1
    clock.now = state.break_due_ms
    fired = await app.fire_timer("t-break")
    assert fired is not None and isinstance(fired.events[0][1], HandStarted)
    after = (await app.load("t-break")).state
    assert after.phase is Phase.PLAYING and after.hand == 2 and not after.in_break
    assert await store.timer("t-break") == after.deadline_ms  # the turn's timer again


async def test_P_BREAK_3_the_last_person_ready_deals_at_once_in_the_same_commit() -> None:
    app, _clock, _store = await _app("t-ready", ("ali", "", "ayse", ""))
    first = await app.act("t-ready", "r0", lambda now: Ready(seat=0, now_ms=now), ALI, 0)
    assert [e for _, e in first.events] == [SeatReady(0)]
    assert (await app.load("t-ready")).state.in_break  # ayse has not said so yet
    with pytest.raises(RuleError) as again:
        await app.act("t-ready", "r0b", lambda now: Ready(seat=0, now_ms=now), ALI, 0)
    assert again.value.code == "ALREADY_READY"
    last = await app.act("t-ready", "r2", lambda now: Ready(seat=2, now_ms=now), Identity("ayse", "player"), 2)
    kinds = [type(e) for _, e in last.events]
    assert kinds == [SeatReady, HandStarted]
    assert (await app.load("t-ready")).state.hand == 2


async def test_P_BREAK_2_nobody_may_say_ready_for_a_bot_seat_or_for_someone_else() -> None:
    app, _clock, _store = await _app("t-who", ("ali", "", "ayse", ""))
    with pytest.raises(Forbidden):  # not ali's seat
        await app.act("t-who", "x", lambda now: Ready(seat=2, now_ms=now), ALI, 2)
    with pytest.raises(RuleError) as bot:  # the bots' credential may act for a bot seat, not be ready
        await app.act("t-who", "y", lambda now: Ready(seat=1, now_ms=now), BOTS, 1)
    assert bot.value.code == "BOT_SEAT"
    assert (await app.load("t-who")).state.ready == ()


async def test_P_BREAK_4_a_bot_only_table_and_a_break_of_zero_deal_at_once() -> None:
    for table_id, players, options in (
        ("t-bots", ("", "", "", ""), {}),
        ("t-zero", ("ali", "", "", ""), {"hand_break_seconds": 0}),
    ):
        app, _clock, store = await _app(table_id, players, **options)
        state = (await app.load(table_id)).state
        assert state.phase is Phase.PLAYING and state.hand == 2, table_id
        kinds = [e.type for e in await store.read_stream(table_id)]
        assert BreakStarted.type not in kinds

"""Issue 21: the bots know whom an event calls from the event itself (the table keeps the seats a
bot plays with each event), so a person's seat costs the bots no call to the table; a bot's turn
takes at most one GetView, and none where a bot hands the turn to a bot at a table that moves at
once (the discard's answer carries the next seat's view, kept for the discard's event: the one
route to a move is the event); and a bot still decides on its own seat's view only."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import asyncpg
from okeycore.commands import CreateTable, Discard, Draw
from okeycore.events import TileDiscarded, TileDrawn
from okeycore.games import engine_for
from okeycore.kernel.state import Phase
from okeycore.options import BotPace, Game, TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeyplatform.contract import Envelope, classic_view_from_pb, seat_view_from_pb, view_pb

from services.bots import watchdog
from services.bots.app import BotsApp
from services.bots.main import BotsService
from services.bots.table import Seated
from services.table.main import TableService


def test_the_bot_seats_are_the_empty_autopilot_and_timed_out_ones() -> None:
    engine = engine_for(Game.OKEY)
    created = engine.decide(None, CreateTable(table_id="t", options=TableOptions(), players=("ali", "", "bob", "")))
    assert isinstance(created, list)
    state = engine.fold(None, created)
    assert state.bot_seats == 0b1010  # the empty seats [D-10: a bot plays a seat without a player]
    seats = list(state.seats)
    seats[0] = dataclasses.replace(seats[0], autopilot=True)  # [C-TIME-2]
    assert dataclasses.replace(state, seats=tuple(seats)).bot_seats == 0b1011
    timed_out = dataclasses.replace(state, phase=Phase.PLAYING, turn=2, timed_out=True)  # [C-TIME-1] [D-4]
    assert timed_out.bot_seats == 0b1110


async def test_a_person_s_seat_costs_the_bots_no_call_and_a_bot_turn_one_view(
    table_service: TableService,
    start_bots: Callable[..., Awaitable[BotsService]],
    admin: TableClient,
    fresh_database_url: str,
) -> None:
    bots = await start_bots()
    app = bots.app
    asked: list[tuple[str, int | None]] = []
    real_view = app.table.view

    async def spy(table_id: str, seat: int | None, min_version: int = 0) -> Any:
        asked.append((table_id, seat))
        return await real_view(table_id, seat, min_version=min_version)

    app.table.view = spy  # type: ignore[method-assign]
    table_id = f"path-{uuid.uuid4().hex[:8]}"
    await admin.create_table(
        TableOptions(turn_seconds=120, bot_pace=BotPace.INSTANT), ("ali", "", "", ""), table_id=table_id
    )
    ali = TableClient(f"127.0.0.1:{table_service.port}", issue_token("ali"))
    try:
        my_turns = 0
        for _ in range(600):
            view = classic_view_from_pb(await ali.view(table_id, 0))
            if view.turn == 0 and "Discard" in view.allowed:
                await ali.act(table_id, Discard(seat=0, tile=next(t for t in view.rack if t >= 0)))
                my_turns += 1
                if my_turns == 4:
                    break
            elif view.turn == 0 and "Draw" in view.allowed:
                await ali.act(table_id, Draw(seat=0))
            else:
                await asyncio.sleep(0.02)
        assert my_turns == 4, "the bots did not play round to ali"
        for _ in range(200):  # the bots finish the round after ali's last discard
            if classic_view_from_pb(await ali.view(table_id, 0)).turn == 0:
                break
            await asyncio.sleep(0.02)
    finally:
        await ali.close()
    conn = await asyncpg.connect(fresh_database_url)
    try:
        rows = await conn.fetch("SELECT type, bot_seats FROM okey_events WHERE stream_id = $1", table_id)
    finally:
        await conn.close()
    # the table said with every event whom a bot plays: seats 1-3, never ali's
    assert rows and {r["bot_seats"] for r in rows} == {0b1110}
    mine = [seat for t, seat in asked if t == table_id]
    assert 0 not in mine and None not in mine, mine  # no view of ali's seat, no spectator view
    bot_turns = sum(1 for r in rows if r["type"] == "TileDiscarded") - 4
    # about one view a turn (the old path asked before every command and on each of the turn's
    # own events: three a turn), and at the deal one per bot seat (indicator, pairs); now and
    # then a replica sees a turn's own event before it has ended that turn and asks once more
    assert len(mine) <= bot_turns * 1.5 + 3, (len(mine), bot_turns)


async def test_each_bot_decision_is_made_on_its_own_seat_s_view_only(
    table_service: TableService, start_bots: Callable[..., Awaitable[BotsService]], admin: TableClient
) -> None:
    """Under the data path of issue 21 (bot seats from the events, the next view from Act, the next
    bot seat's view kept from the discard's answer, AllowedQuery): every decision gets the view of the
    seat whose turn it plays, with that seat's rack exactly as the table holds it at that version,
    and no other seat's rack nor the deck (RULES.md section 7)."""
    bots = await start_bots(strategy="greedy")
    app = bots.app
    seen: list[tuple[int, int, tuple[int, ...], bool]] = []  # (version, seat, rack, others hidden)
    make = app.player.classic

    class Watched:
        def __init__(self, inner: Any) -> None:
            self.inner, self.name = inner, inner.name

        def act(self, view: Any) -> Any:
            hidden = all(p.rack is None for i, p in enumerate(view.seats) if i != view.seat)
            seen.append((view.version, view.seat, tuple(view.rack), hidden and view.turn == view.seat))
            return self.inner.act(view)

        def off_turn(self, view: Any) -> Any:
            return self.inner.off_turn(view)

    app.player.classic = lambda seated, seed: Watched(make(seated, seed))  # type: ignore[method-assign,assignment]
    table_id = f"own-{uuid.uuid4().hex[:8]}"
    await admin.create_table(
        TableOptions(turn_seconds=120, bot_pace=BotPace.INSTANT), ("", "", "", ""), table_id=table_id
    )
    for _ in range(300):
        if len(seen) >= 24:
            break
        await asyncio.sleep(0.05)
    assert len(seen) >= 24, "the bots did not play"
    assert table_service.app is not None
    pairs = await table_service.app.events(table_id)
    engine = engine_for(Game.OKEY)
    states: dict[int, Any] = {}
    state = None
    for stored, event in pairs:
        state = engine.fold(state, [event])
        states[stored.version] = state
    for version, seat, rack, hidden in seen[:24]:
        assert hidden, (version, seat)
        held = states[version].seats[seat].rack
        assert sorted(rack) == sorted(held), (version, seat)  # its own tiles, all of them, no other's


async def test_at_an_all_bot_table_that_moves_at_once_a_turn_costs_no_getview(
    table_service: TableService, start_bots: Callable[..., Awaitable[BotsService]], admin: TableClient
) -> None:
    """A bot's discard that hands the turn to another bot seat is answered with that seat's view
    (``return_next_view``), kept until the discard's event calls that seat's bot, which plays
    from it. The views asked for are the deal's (each seat's indicator and pairs, the first
    turn), not one a turn."""
    bots = await start_bots(strategy="greedy")
    app = bots.app
    asked: list[int | None] = []
    real_view = app.table.view

    async def spy(table_id: str, seat: int | None, min_version: int = 0) -> Any:
        if table_id == chained:
            asked.append(seat)
        return await real_view(table_id, seat, min_version=min_version)

    app.table.view = spy  # type: ignore[method-assign]
    chained = f"chain-{uuid.uuid4().hex[:8]}"
    await admin.create_table(
        TableOptions(turn_seconds=120, bot_pace=BotPace.INSTANT), ("", "", "", ""), table_id=chained
    )
    assert table_service.app is not None
    discards = hands = 0
    for _ in range(400):
        pairs = await table_service.app.events(chained)
        discards = sum(1 for _, e in pairs if e.type == "TileDiscarded")
        hands = sum(1 for _, e in pairs if e.type == "HandStarted")
        if discards >= 60:
            break
        await asyncio.sleep(0.05)
    assert discards >= 60, "the bots did not play"
    assert app.player.from_hint >= 40, app.player.from_hint  # turns played from a discard's answer
    # a deal costs at most a view per seat and one for the first turn; the turns cost none
    assert len(asked) <= (hands + 1) * 5, (len(asked), hands, discards)


async def test_at_a_deal_every_bot_seat_is_looked_at_in_one_round_and_the_first_turn_asks_no_more(
    table_service: TableService, start_bots: Callable[..., Awaitable[BotsService]], admin: TableClient
) -> None:
    """At a later deal of a table the bots know plays classic Okey, the seats' views (their moves
    before the first turn [C-IND-1]) are asked all at once, not the first seat's before the
    others'; and the first turn goes on from its seat's view unless a seat moved in between
    (a show, pairs): four views a deal, five at most."""
    bots = await start_bots(strategy="greedy")
    app = bots.app
    asked: dict[int, list[int | None]] = {}  # min_version -> the seats asked at it
    most: dict[int, int] = {}  # min_version -> the most calls in flight before the first answer
    flying: dict[int, int] = {}
    answered: set[int] = set()
    real_view = app.table.view

    async def spy(table_id: str, seat: int | None, min_version: int = 0) -> Any:
        if table_id != dealt:
            return await real_view(table_id, seat, min_version=min_version)
        asked.setdefault(min_version, []).append(seat)
        flying[min_version] = flying.get(min_version, 0) + 1
        if min_version not in answered:
            most[min_version] = max(most.get(min_version, 0), flying[min_version])
        try:
            return await real_view(table_id, seat, min_version=min_version)
        finally:
            flying[min_version] -= 1
            answered.add(min_version)

    app.table.view = spy  # type: ignore[method-assign]
    dealt = f"deal-{uuid.uuid4().hex[:8]}"
    await admin.create_table(TableOptions(turn_seconds=120, bot_pace=BotPace.INSTANT), ("", "", "", ""), table_id=dealt)
    assert table_service.app is not None
    starts: list[int] = []
    pairs: list[Any] = []
    for _ in range(1200):
        pairs = await table_service.app.events(dealt)
        starts = [st.version for st, e in pairs if e.type == "HandStarted"]
        if len(starts) >= 4:
            break
        await asyncio.sleep(0.05)
    assert len(starts) >= 4, f"the bots dealt {len(starts)} hands"
    # Not the first deal (the bots had seen no view of the table yet), nor the last (its round
    # may not be over): the deals in between.
    for start in starts[1:-1]:
        seats = asked.get(start, [])
        before_first_turn = []  # the hand's events up to its first turn's move
        for st, e in pairs:
            if st.version > start:
                if e.type in ("TileDiscarded", "TileDrawn"):
                    break
                before_first_turn.append(e.type)
        moved = any(t in ("IndicatorShown", "PairsDeclared") for t in before_first_turn)
        assert sorted(s for s in seats[:4] if s is not None) == [0, 1, 2, 3], (start, seats)
        # one round: the first seat's view was not awaited before the others' were asked (a seat
        # still held by the bot whose discard ended the last hand may join the round late)
        assert most[start] >= 3, (start, most[start])
        # the first turn asks again only if a seat moved before it (unless it was the one that did)
        assert len(seats) == 4 or (moved and len(seats) == 5), (start, seats, moved)


def _view_pb(table_id: str, version: int, seat: int | None) -> Any:
    """A seat's view message of a new table of four bot seats at ``version`` (no bot's turn)."""
    engine = engine_for(Game.OKEY)
    created = engine.decide(None, CreateTable(table_id=table_id, options=TableOptions(), players=("",) * 4))
    assert isinstance(created, list)
    view = engine.view(engine.fold(None, created), seat)
    return view_pb(dataclasses.replace(view, version=version), ("",) * 4)


class _Table:
    """A table service that answers every view with the table just past ``min_version`` and no
    bot's turn (so no bot moves), and takes no command."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, int | None, int]] = []

    async def view(self, table_id: str, seat: int | None, min_version: int = 0, **_: Any) -> Any:
        self.asked.append((table_id, seat, min_version))
        return _view_pb(table_id, min_version + 1, seat)

    async def act(self, *a: Any, **k: Any) -> Any:
        raise AssertionError("no move: it is not a bot's turn")


def _kept(table_id: str, version: int) -> Seated:
    """Seat 2's view as a discard's answer carried it (``next_view``)."""
    return Seated(seat_view_from_pb(_view_pb(table_id, version, 2)), ("",) * 4)


async def test_a_bot_s_discard_to_a_bot_calls_the_next_bot_by_its_event_and_a_kept_view_spares_the_getview() -> None:
    """One route to the next move: the event. A bot seat's discard to another bot seat calls that
    seat's bot like any discard; the view the discard was answered with (``next_view``) is only
    kept for it: used when it includes the event, so the turn asks no GetView, else asked anew."""
    table = _Table()
    app = BotsApp(client=table, instant=True)  # type: ignore[arg-type]
    at = datetime.now(UTC)
    try:
        await app.handle(Envelope("t", 8, 1, at, "TileDiscarded", 2, None, TileDiscarded(1, 5, 2, 0), 0b1111))
        assert table.asked == [("t", 2, 8)]  # the discard's event called the next bot seat
        app.player._hints[("t", 2)] = _kept("t", 10)
        await app.handle(Envelope("t", 10, 1, at, "TileDiscarded", 2, None, TileDiscarded(1, 6, 2, 0), 0b1111))
        assert table.asked == [("t", 2, 8)] and app.player.from_hint == 1  # played from the kept view
        app.player._hints[("t", 2)] = _kept("t", 11)  # older than the event that calls the seat
        await app.handle(Envelope("t", 12, 1, at, "TileDiscarded", 2, None, TileDiscarded(1, 7, 2, 0), 0b1111))
        assert table.asked[-1] == ("t", 2, 12) and app.player.from_hint == 1
    finally:
        await app.close()


async def test_a_bot_s_own_move_is_looked_at_again_unless_the_table_moved_on(monkeypatch: Any) -> None:
    """The replica given a bot's own move (a draw) calls nobody at once (the bot that made it
    plays on); a while later, given no later event of that table, it asks whether the table still
    stands there (a replica that died mid-turn), and asks nothing where it moved on."""
    monkeypatch.setattr(watchdog, "HAND_ON_WATCH_S", 0.05)
    table = _Table()
    app = BotsApp(client=table)  # type: ignore[arg-type]
    at = datetime.now(UTC)
    try:
        # seat 3 of "moving" is a person's: the discard to it calls no bot
        await app.handle(Envelope("moving", 9, 1, at, "TileDrawn", 2, None, TileDrawn(2, 7, 0), 0b0111))
        await app.handle(Envelope("moving", 10, 1, at, "TileDiscarded", 3, None, TileDiscarded(2, 6, 3, 0), 0b0111))
        # a bot's own draw with nothing after it: the replica playing that turn died mid-turn
        await app.handle(Envelope("mid", 8, 1, at, "TileDrawn", 2, None, TileDrawn(2, 7, 0), 0b1111))
        assert table.asked == []  # nobody called at once
        await asyncio.sleep(0.3)
        assert table.asked == [("mid", 2, 8)] and app.watchdog.watched == 1
    finally:
        await app.close()

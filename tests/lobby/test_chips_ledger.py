"""The chips ledger: double entry, idempotent per key, no balance below zero, and no chip made
or lost, whatever players do, concurrent double-spend attempts included (real PostgreSQL)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from lobby_helpers import Clock, Guest, assert_ledger_invariants, chips_of
from okeycore.classic import split_pot
from okeycore.options import Game, TableOptions
from okeyplatform.auth import Identity
from okeyplatform.errors import AppError

from services.lobby.app import LobbyApp
from services.lobby.errors import InsufficientChips, Refused
from services.lobby.ledger_repo import BANK, player_account
from services.lobby.store import LobbyStore
from services.lobby.tables_repo import TableRow

RESET = """
TRUNCATE lobby_entries, lobby_transactions, lobby_seats, lobby_tables, lobby_messages, lobby_mutes,
         lobby_reports, lobby_device_bans, lobby_quotas, lobby_accounts, lobby_players CASCADE;
INSERT INTO lobby_accounts (account, may_go_negative) VALUES ('bank', true), ('house', false);
"""


async def test_a_posting_that_would_overdraw_writes_nothing(app: LobbyApp, guest: Guest) -> None:
    me = await guest()
    with pytest.raises(InsufficientChips):
        async with app.store.unit() as tx:
            await tx.ledger.post("overdraw", "test", [(player_account(me.subject), -1001), (BANK, 1001)], app.clock())
    assert await chips_of(app, me) == 1000
    async with app.store.unit() as tx:
        assert not await tx.ledger.posted("overdraw")
    with pytest.raises(ValueError):
        async with app.store.unit() as tx:
            await tx.ledger.post("unbalanced", "test", [(player_account(me.subject), 5)], app.clock())
    await assert_ledger_invariants(app.store)


async def test_concurrent_double_spend_only_one_stake_is_held(app: LobbyApp, guest: Guest) -> None:
    """A player with chips for one stake sits at two tables that start at the same moment:
    one match starts with the stake held, the other refuses and unseats the player."""
    me = await guest()
    options = TableOptions(game=Game.OKEY, stake=700)
    first, _ = await app.open_table(me, options)
    second, _ = await app.open_table(me, options)
    got = await asyncio.gather(
        app.fill_with_bots(me, first.table.table_id),
        app.fill_with_bots(me, second.table.table_id),
        return_exceptions=True,
    )
    started = [g for g in got if not isinstance(g, BaseException)]
    refused = [g for g in got if isinstance(g, BaseException)]
    assert len(started) == 1 and len(refused) == 1
    assert isinstance(refused[0], Refused) and refused[0].reason == "INSUFFICIENT_CHIPS"
    assert await chips_of(app, me) == 300
    await assert_ledger_invariants(app.store)


async def test_concurrent_daily_claims_grant_once(app: LobbyApp, guest: Guest, clock: Clock) -> None:
    me = await guest()
    clock.advance(days=1)
    got = await asyncio.gather(*(app.claim_daily_chips(me) for _ in range(5)))
    assert sorted(g[0] for g in got) == [0, 0, 0, 0, 1000]
    assert await chips_of(app, me) == 2000
    await assert_ledger_invariants(app.store)


PLAYER = st.integers(0, 3)
TABLE = st.integers(0, 7)
STAKES = st.sampled_from([0, 40, 300, 650, 1000])
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("open"), PLAYER, STAKES, st.booleans()),  # open, maybe with bots (starts)
        st.tuples(st.just("claim"), PLAYER),  # the next day's chips
        st.tuples(st.just("join"), PLAYER, TABLE),
        st.tuples(st.just("leave"), PLAYER, TABLE),  # before the start, or mid-match
        st.tuples(st.just("fill"), TABLE),  # the creator fills with bots: the match starts
        # the match ends; with the engine's payout (its pot counts bots' stakes too) or the lobby's split
        st.tuples(
            st.just("end"), TABLE, st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True), st.booleans()
        ),
        st.tuples(st.just("race"), PLAYER, STAKES),  # two tables of one player start at once
    ),
    min_size=3,
    max_size=20,
)


async def _apply(app: LobbyApp, store: LobbyStore, clock: Clock, players: list[Identity], op: tuple[Any, ...]) -> None:
    async with store.unit() as tx:
        tables = await tx.tables.tables(("WAITING", "STARTING", "PLAYING"), None, 100, public_only=False)
    by_status = {s: [t for t in tables if t.status == s] for s in ("WAITING", "PLAYING")}

    def pick(status: str, i: int) -> TableRow | None:
        found = by_status[status] if status else tables
        return found[i % len(found)] if found else None

    kind = op[0]
    if kind == "claim":
        clock.advance(days=1)
        await app.claim_daily_chips(players[op[1]])
    elif kind == "open":
        await app.open_table(players[op[1]], TableOptions(game=Game.OKEY, stake=op[2]), fill_with_bots=op[3])
    elif kind == "join" and (t := pick("WAITING", op[2])):
        await app.join(players[op[1]], t.table_id)
    elif kind == "leave" and (t := pick("", op[2])):
        await app.leave(players[op[1]], t.table_id)
    elif kind == "fill" and (t := pick("WAITING", op[1])):
        await app.fill_with_bots(Identity(t.creator_id, "player"), t.table_id)
    elif kind == "end" and (t := pick("PLAYING", op[1])):
        payout = split_pot(t.stake * 4, len(op[2]))[0] if op[3] else None
        await app.settle_match(t.table_id, winners=tuple(op[2]), payout=payout)
    elif kind == "race":
        who = players[op[1]]
        options = TableOptions(game=Game.OKEY, stake=op[2])
        first, _ = await app.open_table(who, options)
        second, _ = await app.open_table(who, options)
        await asyncio.gather(
            app.fill_with_bots(who, first.table.table_id),
            app.fill_with_bots(who, second.table.table_id),
            return_exceptions=True,
        )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
async def test_no_chip_is_made_or_lost_and_no_balance_goes_negative(
    app: LobbyApp, lobby_store: LobbyStore, clock: Clock, ops: list[tuple[Any, ...]]
) -> None:
    async with lobby_store.pool.acquire() as conn:
        await conn.execute(RESET)
    players: list[Identity] = []
    for i in range(4):
        player, _, _, _ = await app.sign_in_guest(f"Oyuncu{i}", f"device-{i}")
        players.append(Identity(player.player_id, "player", player.device_id))
    for op in ops:
        try:
            await _apply(app, lobby_store, clock, players, op)
        except AppError:
            pass  # a refusal is a fine outcome; the ledger must hold either way
        await assert_ledger_invariants(lobby_store)
    for p in players:
        assert await chips_of(app, p) >= 0
    async with lobby_store.pool.acquire() as conn:
        for kind in await conn.fetch("SELECT DISTINCT kind FROM lobby_transactions"):
            event(kind["kind"])  # shown by --hypothesis-show-statistics: which paths the examples took

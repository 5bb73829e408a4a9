"""Tournaments in the lobby (issue 45.2), on PostgreSQL with a fake table service: registration
and its fee through the ledger, the sit-and-go start, each round seated from the last, the table
results arriving as the consumer hands them over (MatchEnded, SeatLeft), prizes paid to the chip,
a cancel refunding everyone, scheduled starts, and the event log folding to the state the lobby
shows."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from lobby_helpers import Clock, FakeTables, Guest, assert_ledger_invariants, chips_of
from okeycore.events import MatchEnded, SeatLeft
from okeycore.options import Game, TableOptions
from okeyplatform.auth import Identity
from okeyplatform.contract import Envelope

from services.lobby import tournament_model as tm
from services.lobby.app import LobbyApp
from services.lobby.consumer import handle_event
from services.lobby.errors import Exists, Flood, Forbidden, Invalid, Refused
from services.lobby.ledger_repo import HOUSE
from services.lobby.tournaments_repo import tournament_account

ADMIN = Identity("cli:test", "admin")
OPTIONS = TableOptions(game=Game.OKEY, match_points=5).to_dict()


def spec(**kw: object) -> tm.Spec:
    base = tm.Spec(
        name="Pazar Kupası",
        options=OPTIONS,
        size=16,
        min_players=0,
        starts_at=None,
        entry_fee=100,
        prize_percent=(50, 30, 20),
        format=tm.KNOCKOUT,
        swiss_rounds=0,
        advance_per_table=2,
        tie_breaks=(),
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def ended(table_id: str, scores: tuple[int, ...], winners: tuple[int, ...], version: int = 90) -> Envelope:
    event = MatchEnded(scores, winners, 0, 0, 0)
    return Envelope(table_id, version, 3, datetime.now(UTC), "MatchEnded", -1, "", event)


async def finish_round(app: LobbyApp, tid: str, who: Identity) -> tm.State:
    """Every unfinished table of the current round ends: seat 0 wins, then seats 1, 2, 3 in order."""
    view = await app.tournament(who, tid)
    for t in view.state.in_round(view.state.round):
        if not t.finished:
            async with app.store.unit() as uow:
                await handle_event(app, ended(t.table_id, (9, 5, 3, 1), (0,)), uow)
    return (await app.tournament(who, tid)).state


async def players(guest: Guest, n: int) -> list[Identity]:
    return [await guest() for _ in range(n)]


async def test_a_sixteen_player_knockout_runs_to_its_prizes(app: LobbyApp, guest: Guest, fake_tables: FakeTables):
    """Registration fills the sit-and-go and starts it; each round advances the best two of each
    table; the final's places and the prizes (50/30/20 % of the pool) are paid from the fees."""
    view = await app.create_tournament(ADMIN, spec(), "kupa-1")
    assert view.state.status == tm.REGISTERING
    field = await players(guest, 16)
    for p in field:
        view, balance = await app.register_tournament(p, "kupa-1", 100)
        assert balance == 900
    assert view.state.status == tm.RUNNING and view.state.pool == 1600
    round1 = view.state.in_round(1)
    assert [t.table_id for t in round1] == ["kupa-1-1-1", "kupa-1-1-2", "kupa-1-1-3", "kupa-1-1-4"]
    assert sorted(p for t in round1 for p in t.seats) == sorted(p.subject for p in field)
    await app.tournament_tick()  # launches what the registration's own launch did not
    assert sorted(c[0] for c in fake_tables.created) == [t.table_id for t in round1]
    mine = await app.my_tables(field[0])
    assert any(c.table.creator_id == "tournament:kupa-1" for c in mine)  # the player's table is listed

    state = await finish_round(app, "kupa-1", ADMIN)
    assert state.round == 2 and len(state.in_round(2)) == 2
    winners1 = {t.seats[0] for t in round1} | {t.seats[1] for t in round1}
    assert {p for t in state.in_round(2) for p in t.seats} == winners1  # the best two of each table
    state = await finish_round(app, "kupa-1", ADMIN)
    assert state.round == 3 and len(state.in_round(3)) == 1
    final = state.in_round(3)[0]
    state = await finish_round(app, "kupa-1", ADMIN)
    assert state.status == tm.FINISHED
    ranked = tm.standings(state)
    assert [e.player_id for e in ranked[:4]] == list(final.seats)
    by_id = {p.subject: p for p in field}
    assert [await chips_of(app, by_id[final.seats[i]]) for i in range(4)] == [900 + 800, 900 + 480, 900 + 320, 900]
    async with app.store.unit() as uow:
        left = await uow.ledger.balances([tournament_account("kupa-1"), HOUSE])
    assert left == {tournament_account("kupa-1"): 0, HOUSE: 0}
    await assert_ledger_invariants(app.store)
    # a result redelivered after the end changes nothing
    async with app.store.unit() as uow:
        assert not await handle_event(app, ended(final.table_id, (1, 2, 3, 4), (3,)), uow)


async def test_the_event_log_folds_to_what_the_lobby_shows(app: LobbyApp, guest: Guest):
    await app.create_tournament(ADMIN, spec(size=8, prize_percent=(70, 30)), "fold-8")
    for p in await players(guest, 8):
        await app.register_tournament(p, "fold-8", 100)
    await finish_round(app, "fold-8", ADMIN)
    async with app.store.unit() as uow:
        events = await uow.tournaments.events("fold-8")
    refolded = tm.fold("fold-8", events)
    shown = (await app.tournament(ADMIN, "fold-8")).state
    assert [e.player_id for e in tm.standings(refolded)] == [e.player_id for e in tm.standings(shown)]
    assert refolded.version == shown.version == len(events)
    assert shown.status == tm.RUNNING and shown.round == 2


async def test_swiss_rounds_rank_by_match_points(app: LobbyApp, guest: Guest):
    """Swiss: every round seats everyone; 1st 3, 2nd 2, 3rd 1, 4th 0 match points."""
    await app.create_tournament(ADMIN, spec(size=8, format=tm.SWISS, swiss_rounds=2, advance_per_table=0), "isvicre")
    for p in await players(guest, 8):
        await app.register_tournament(p, "isvicre", 100)
    state = await finish_round(app, "isvicre", ADMIN)
    assert state.round == 2 and len(state.in_round(2)) == 2
    # round 2 seats by standing: the two 1st places and the two 2nd places meet
    top = state.in_round(2)[0]
    assert sorted(state.entries[p].match_points for p in top.seats) == [2, 2, 3, 3]
    state = await finish_round(app, "isvicre", ADMIN)
    assert state.status == tm.FINISHED
    points = [e.match_points for e in tm.standings(state)]
    assert points == sorted(points, reverse=True) and points[0] == 6


async def test_a_player_who_leaves_withdraws_and_wins_nothing(app: LobbyApp, guest: Guest):
    await app.create_tournament(ADMIN, spec(size=8, prize_percent=(100,), advance_per_table=1), "ayrilan")
    field = await players(guest, 8)
    for p in field:
        await app.register_tournament(p, "ayrilan", 100)
    state = (await app.tournament(ADMIN, "ayrilan")).state
    table = state.in_round(1)[0]
    leaver = table.seats[0]  # seat 0 is the one finish_round makes win
    async with app.store.unit() as uow:
        env = Envelope(table.table_id, 40, 1, datetime.now(UTC), "SeatLeft", 1, "", SeatLeft(0, leaver))
        assert await handle_event(app, env, uow)
    state = await finish_round(app, "ayrilan", ADMIN)
    assert state.entries[leaver].withdrew
    assert leaver not in {p for t in state.in_round(2) for p in t.seats}
    assert table.seats[1] in state.in_round(2)[0].seats  # the next best person advanced instead
    state = await finish_round(app, "ayrilan", ADMIN)
    assert state.status == tm.FINISHED and tm.standings(state)[-1].player_id == leaver
    assert state.entries[leaver].prize == 0
    await assert_ledger_invariants(app.store)


async def test_a_cancel_refunds_every_fee(app: LobbyApp, guest: Guest):
    await app.create_tournament(ADMIN, spec(size=8), "iptal")
    field = await players(guest, 8)
    for p in field:
        await app.register_tournament(p, "iptal", 100)
    view = await app.cancel_tournament(ADMIN, "iptal", "sunucu bakımı")
    assert view.state.status == tm.CANCELLED and view.state.cancelled_reason == "sunucu bakımı"
    assert [await chips_of(app, p) for p in field] == [1000] * 8
    async with app.store.unit() as uow:
        assert (await uow.ledger.balances([tournament_account("iptal")]))[tournament_account("iptal")] == 0
    with pytest.raises(Refused) as err:
        await app.cancel_tournament(ADMIN, "iptal", "again")
    assert err.value.reason == "NOT_RUNNING"
    await assert_ledger_invariants(app.store)


async def test_registration_rules(app: LobbyApp, guest: Guest):
    await app.create_tournament(ADMIN, spec(size=8, entry_fee=600), "kurallar")
    a, b = await players(guest, 2)
    with pytest.raises(Refused) as err:
        await app.register_tournament(a, "kurallar", 100)  # not the fee shown
    assert err.value.reason == "FEE_CHANGED"
    _, balance = await app.register_tournament(a, "kurallar", 600)
    assert balance == 400
    with pytest.raises(Refused) as err:
        await app.register_tournament(a, "kurallar", 600)
    assert err.value.reason == "ALREADY_REGISTERED"
    view, balance = await app.unregister_tournament(a, "kurallar")
    assert balance == 1000 and view.state.entries == {}
    with pytest.raises(Refused) as err:
        await app.unregister_tournament(b, "kurallar")
    assert err.value.reason == "NOT_REGISTERED"
    await app.register_tournament(a, "kurallar", 600)  # again: a new seed, a new fee
    _, balance = await app.register_tournament(b, "kurallar", 600)
    assert balance == 400
    poor = await guest()
    await app.register_tournament(poor, "kurallar", 600)
    with pytest.raises(Refused) as err:  # 400 left, the fee is 600
        await app.create_tournament(ADMIN, spec(size=8, entry_fee=600), "kurallar-2")
        await app.register_tournament(poor, "kurallar-2", 600)
    assert err.value.reason == "INSUFFICIENT_CHIPS"
    await assert_ledger_invariants(app.store)


async def test_only_an_admin_creates_or_cancels_and_specs_are_checked(app: LobbyApp, guest: Guest):
    player = await guest()
    with pytest.raises(Forbidden):
        await app.create_tournament(player, spec(), "")
    with pytest.raises(Forbidden):
        await app.create_tournament(Identity("m", "moderator"), spec(), "")
    for bad in (
        spec(size=7),
        spec(size=257),
        spec(prize_percent=(60, 50)),
        spec(entry_fee=-1),
        spec(options=TableOptions(game=Game.OKEY, stake=10).to_dict()),
        spec(options=TableOptions(game=Game.OKEY, partners=True).to_dict()),
        spec(format=tm.SWISS, swiss_rounds=12),
        spec(name="x"),
    ):
        with pytest.raises(Invalid) as err:
            await app.create_tournament(ADMIN, bad, "")
        assert err.value.reason == "INVALID_TOURNAMENT"
    with pytest.raises(Invalid):
        await app.create_tournament(ADMIN, spec(), "Bad Id!")
    first = await app.create_tournament(ADMIN, spec(), "ayni")
    again = await app.create_tournament(ADMIN, spec(), "ayni")  # a retry: the same tournament
    assert again.state.version == first.state.version
    with pytest.raises(Exists):
        await app.create_tournament(ADMIN, spec(size=32), "ayni")
    audit = await app.audit_log(ADMIN, 10, "ayni")
    assert [a.action for a in audit] == ["CREATE_TOURNAMENT"]


async def test_a_scheduled_tournament_starts_on_time_or_is_cancelled_short(app: LobbyApp, guest: Guest, clock: Clock):
    at = clock.now + timedelta(minutes=30)
    await app.create_tournament(ADMIN, spec(size=12, min_players=8, starts_at=at, entry_fee=10), "saatli")
    await app.create_tournament(ADMIN, spec(size=12, min_players=8, starts_at=at, entry_fee=10), "az-kisi")
    field = await players(guest, 9)
    for p in field:
        view, _ = await app.register_tournament(p, "saatli", 10)
    assert view.state.status == tm.REGISTERING  # not full: a scheduled one waits for its time
    for p in field[:3]:
        await app.register_tournament(p, "az-kisi", 10)
    await app.tournament_tick()
    assert (await app.tournament(ADMIN, "saatli")).state.status == tm.REGISTERING
    clock.advance(minutes=31)
    await app.tournament_tick()
    running = (await app.tournament(ADMIN, "saatli")).state
    assert running.status == tm.RUNNING and [len([p for p in t.seats if p]) for t in running.in_round(1)] == [3, 3, 3]
    short = (await app.tournament(ADMIN, "az-kisi")).state
    assert short.status == tm.CANCELLED and "too few players" in short.cancelled_reason
    assert [await chips_of(app, p) for p in field[:3]] == [990] * 3  # the short one's fee came back
    await assert_ledger_invariants(app.store)


async def test_one_device_one_entry_and_a_bound_on_open_entries(app: LobbyApp, guest: Guest):
    """Two accounts of one device cannot both enter a tournament (they could share a table), and
    a player is in at most Limits.tournaments_per_player tournaments that have not ended."""
    a = await guest(device="ortak-cihaz")
    b = await guest(device="ortak-cihaz-2")
    b_same = Identity(b.subject, b.role, device="ortak-cihaz")
    await app.create_tournament(ADMIN, spec(size=8, entry_fee=0, prize_percent=()), "cihaz")
    await app.register_tournament(a, "cihaz", 0)
    with pytest.raises(Refused) as err:
        await app.register_tournament(b_same, "cihaz", 0)
    assert err.value.reason == "SAME_DEVICE"
    await app.unregister_tournament(a, "cihaz")
    await app.register_tournament(b_same, "cihaz", 0)  # the device's one entry is free again
    most = app.limits.tournaments_per_player
    for n in range(most + 1):
        await app.create_tournament(ADMIN, spec(size=8, entry_fee=0), f"sinir-{n}")
    for n in range(most):
        await app.register_tournament(a, f"sinir-{n}", 0)
    with pytest.raises(Flood) as flood:
        await app.register_tournament(a, f"sinir-{most}", 0)
    assert flood.value.reason == "TOO_MANY_TOURNAMENTS"
    await app.cancel_tournament(ADMIN, "sinir-0", "test")
    await app.register_tournament(a, f"sinir-{most}", 0)  # an ended one no longer counts


def test_planned_rounds_and_prizes():
    ko = spec().validated(10**9)
    assert [tm.planned_rounds(ko, n) for n in (8, 16, 32, 64, 256)] == [2, 3, 4, 5, 7]
    assert tm.prize_amounts(1600, (50, 30, 20)) == ([800, 480, 320], 0)
    assert tm.prize_amounts(1001, (50, 30)) == ([500, 300], 201)

"""Issue 18.2 and 18.3: private tables people can use (my tables, the invite code, joining by it,
cancelling) and quick play that seats you with people and never twice. The lobby's use cases on
real PostgreSQL with a fake table service; the same over gRPC with the real table service at
the end."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace

import pytest
from lobby_helpers import Clock, FakeTables, Guest, Stack, assert_ledger_invariants, chips_of
from okey.v1 import common_pb2
from okey.v1 import lobby_service_pb2 as pb
from okeycore.options import Game, TableOptions
from okeyplatform.grpcserver import error_reason

from services.lobby.app import LobbyApp
from services.lobby.errors import Forbidden, NotFound, Refused
from services.lobby.store import LobbyStore
from services.lobby.tables import CANCELLED, INVITE_LENGTH, MY_TABLES_MAX, PLAYING, WAITING, normal_invite

CLASSIC = TableOptions(game=Game.OKEY)
STAKE = TableOptions(game=Game.OKEY, stake=100)


def ids(cards: list) -> list[str]:  # type: ignore[type-arg]
    return [c.table.table_id for c in cards]


# ------------------------------------------------------------------ my tables


async def test_my_tables_lists_the_callers_private_and_public_tables_with_the_invite_code(
    app: LobbyApp, guest: Guest, clock: Clock
) -> None:
    me, other = await guest(), await guest()
    private, _ = await app.open_table(me, CLASSIC, private=True)
    clock.advance(seconds=1)
    public, _ = await app.open_table(me, STAKE)
    theirs, _ = await app.open_table(other, CLASSIC, private=True)
    mine = await app.my_tables(me)
    assert ids(mine) == [public.table.table_id, private.table.table_id]  # newest first
    shown = {c.table.table_id: c for c in mine}
    assert shown[private.table.table_id].show_invite and shown[private.table.table_id].table.invite_code
    # Another guest's list has only their own table: there is no way to ask for someone else's.
    assert ids(await app.my_tables(other)) == [theirs.table.table_id]


async def test_my_tables_leaves_out_finished_cancelled_and_left_tables_and_is_bounded(
    app: LobbyApp, guest: Guest
) -> None:
    me, friend = await guest(), await guest()
    cancelled, _ = await app.open_table(me, CLASSIC)
    await app.leave(me, cancelled.table.table_id)
    playing, _ = await app.open_table(me, CLASSIC, fill_with_bots=True)
    assert playing.table.status == PLAYING
    assert ids(await app.my_tables(me)) == [playing.table.table_id]
    await app.leave(me, playing.table.table_id)  # mid-match: a bot plays on, the table is no longer mine
    assert await app.my_tables(me) == []
    # Bounded: the caller's limit, never more than MY_TABLES_MAX (and at least one).
    await app.open_table(friend, CLASSIC)
    await app.open_table(friend, CLASSIC)
    assert len(await app.my_tables(friend, 1)) == 1 and len(await app.my_tables(friend, -5)) == 1
    assert len(await app.my_tables(friend, 10**6)) == 2 and MY_TABLES_MAX <= 50


# ------------------------------------------------------------------ invite codes


async def test_an_invite_code_is_long_random_and_private_tables_stay_out_of_the_list(
    app: LobbyApp, guest: Guest
) -> None:
    me, stranger = await guest(), await guest()
    codes = set()
    for _ in range(3):
        card, _ = await app.open_table(me, CLASSIC, private=True)
        code = card.table.invite_code or ""
        assert re.fullmatch(f"[A-HJ-NP-Z2-9]{{{INVITE_LENGTH}}}", code), code  # 60 bits, no I/O/0/1
        codes.add(code)
        await app.leave(me, card.table.table_id)
    assert len(codes) == 3
    card, _ = await app.open_table(me, CLASSIC, private=True)
    for playing in (False, True):
        listed, _ = await app.list_tables(stranger, None, playing, 200, "")
        assert card.table.table_id not in ids(listed)
        assert all(not c.table.private and not c.show_invite for c in listed)
    # Without the exact code a private table is not there: not by id, not by a near code.
    code = card.table.invite_code or ""
    near = code[:-1] + ("A" if code[-1] != "A" else "B")
    for attempt in (lambda: app.table_card(stranger, card.table.table_id), lambda: app.table_card(stranger, "", near)):
        with pytest.raises(NotFound):
            await attempt()
    with pytest.raises(NotFound):
        await app.join(stranger, "", invite_code=near)
    with pytest.raises(Forbidden) as err:
        await app.join(stranger, card.table.table_id, invite_code=near)
    assert err.value.reason == "INVITE_REQUIRED"


async def test_joining_by_the_invite_code_alone_as_a_person_types_it(app: LobbyApp, guest: Guest) -> None:
    me, friend = await guest(), await guest()
    card, _ = await app.open_table(me, STAKE, private=True)
    code = card.table.invite_code or ""
    typed = f" {code[:5].lower()}-{code[5:9]} {code[9:]}"
    assert normal_invite(typed) == code and normal_invite("Şş" + code) == code
    seen = await app.table_card(friend, invite_code=typed)
    assert seen.table.table_id == card.table.table_id and not seen.show_invite  # not seated yet
    joined, seat, started = await app.join(friend, "", invite_code=typed)
    assert joined.table.table_id == card.table.table_id and seat == 1 and not started
    assert joined.show_invite  # a seated friend may pass the code on
    # The creator's waiting room shows the seat filled, by name.
    (waiting,) = await app.my_tables(me)
    assert [s.player_id for s in waiting.seats] == [me.subject, friend.subject]
    assert all(s.display_name for s in waiting.seats)
    assert ids(await app.my_tables(friend)) == [card.table.table_id]


async def test_the_creator_cancels_a_table_nobody_joined_and_keeps_every_chip(
    app: LobbyApp, guest: Guest, lobby_store: LobbyStore
) -> None:
    me = await guest()
    before = await chips_of(app, me)
    card, _ = await app.open_table(me, STAKE, private=True)
    assert await chips_of(app, me) == before  # nothing is held before the start
    left, forfeited = await app.leave(me, card.table.table_id)
    assert left.table.status == CANCELLED and forfeited == 0
    assert await chips_of(app, me) == before and await app.my_tables(me) == []
    with pytest.raises(Refused) as err:  # a cancelled table takes no one
        await app.join(await guest(), "", invite_code=card.table.invite_code or "")
    assert err.value.reason == "NOT_WAITING"
    await assert_ledger_invariants(lobby_store)


# ------------------------------------------------------------------ quick play


async def test_quick_play_seats_the_second_person_at_the_first_persons_waiting_table(
    app: LobbyApp, guest: Guest
) -> None:
    a, b = await guest(), await guest()
    card, seat, opened, started = await app.quick_play(a, STAKE)
    assert opened and not started and seat == 0 and card.table.status == WAITING
    assert sum(1 for s in card.seats if s.player_id) == 1 and not any(s.bot for s in card.seats)  # waits for people
    joined, seat, opened, _ = await app.quick_play(b, STAKE)
    assert not opened and seat == 1 and joined.table.table_id == card.table.table_id


async def test_quick_play_prefers_the_table_with_the_most_people_at_the_same_stake_and_rules(
    app: LobbyApp, guest: Guest, clock: Clock
) -> None:
    a, b, c, d, e = [await guest() for _ in range(5)]
    lonely, _ = await app.open_table(a, STAKE)  # older, one person
    clock.advance(seconds=1)
    busy, _ = await app.open_table(b, STAKE)  # newer, two people
    await app.join(c, busy.table.table_id)
    other_stake, _ = await app.open_table(d, replace(STAKE, stake=50))
    secret, _ = await app.open_table(d, STAKE, private=True)  # same rules but private: never a candidate
    card, seat, opened, _ = await app.quick_play(e, STAKE)
    assert not opened and card.table.table_id == busy.table.table_id and seat == 2
    assert card.table.table_id not in (lonely.table.table_id, other_stake.table.table_id, secret.table.table_id)
    # A different stake is another room: no table of 100 for a player asking 50 with other rules.
    card, _, opened, _ = await app.quick_play(a, replace(STAKE, stake=50, colored=True))
    assert opened


async def test_quick_play_never_seats_a_player_twice(app: LobbyApp, guest: Guest, fake_tables: FakeTables) -> None:
    a, b, c, d = [await guest() for _ in range(4)]
    card, _, _, _ = await app.quick_play(a, CLASSIC)
    again, seat, opened, _ = await app.quick_play(a, CLASSIC)  # waiting: the same seat
    assert not opened and again.table.table_id == card.table.table_id and seat == 0
    for who in (b, c):
        await app.quick_play(who, CLASSIC)
    full, _, _, started = await app.quick_play(d, CLASSIC)
    assert started and full.table.status == PLAYING and len(fake_tables.created) == 1
    # In play: quick play (for any rules) gives that table back, not a second seat.
    for options in (CLASSIC, STAKE, TableOptions(game=Game.OKEY101)):
        back, seat, opened, started = await app.quick_play(a, options)
        assert back.table.table_id == card.table.table_id and seat == 0 and not opened and not started
    assert len(await app.my_tables(a)) == 1 and len(fake_tables.created) == 1
    # Once left mid-match, quick play seats the player anew.
    await app.leave(a, card.table.table_id)
    fresh, _, opened, _ = await app.quick_play(a, CLASSIC)
    assert opened and fresh.table.table_id != card.table.table_id


async def test_players_asking_quick_play_at_once_meet_at_one_table(
    app: LobbyApp, guest: Guest, fake_tables: FakeTables, lobby_store: LobbyStore
) -> None:
    people = [await guest() for _ in range(4)]
    results = await asyncio.gather(*(app.quick_play(p, STAKE) for p in people))
    assert sum(opened for _, _, opened, _ in results) == 1  # one table opened, three sat at it
    assert len({card.table.table_id for card, _, _, _ in results}) == 1
    assert sorted(seat for _, seat, _, _ in results) == [0, 1, 2, 3]
    assert sum(started for _, _, _, started in results) == 1 and len(fake_tables.created) == 1
    by_seat = {seat: p.subject for p, (_, seat, _, _) in zip(people, results, strict=True)}
    assert fake_tables.created[0][2] == tuple(by_seat[i] for i in range(4))  # the match has all four
    await assert_ledger_invariants(lobby_store)


async def test_a_serialized_section_has_one_holder_and_a_waiter_gives_up_after_its_wait(
    lobby_store: LobbyStore,
) -> None:
    inside: list[str] = []
    async with lobby_store.serialized("k", wait_s=0.1) as first:
        assert first
        async with lobby_store.serialized("k", wait_s=0.1) as second:
            inside.append("second" if second else "unserialized")
        async with lobby_store.serialized("other", wait_s=0.1) as other:
            assert other  # another key is another lock
    async with lobby_store.serialized("k", wait_s=0.1) as again:
        assert again  # released at the end
    assert inside == ["unserialized"]


# ------------------------------------------------------------------ over gRPC, the real table service


def auth(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


async def test_two_players_private_table_by_code_and_quick_play_over_grpc(stack: Stack) -> None:
    a = await stack.stub.SignInGuest(pb.SignInGuestRequest(display_name="Seating A", device_id="seat-dev-a"))
    b = await stack.stub.SignInGuest(pb.SignInGuestRequest(display_name="Seating B", device_id="seat-dev-b"))
    classic = common_pb2.TableOptions(game=common_pb2.GAME_OKEY, stake=25, match_points=3)
    opened = await stack.stub.OpenTable(
        pb.OpenTableRequest(options=classic, visibility=pb.TABLE_VISIBILITY_PRIVATE), metadata=auth(a.token)
    )
    code = opened.table.invite_code
    assert len(code) == INVITE_LENGTH
    mine = await stack.stub.ListMyTables(pb.ListMyTablesRequest(), metadata=auth(a.token))
    assert [(t.table_id, t.invite_code) for t in mine.tables] == [(opened.table.table_id, code)]
    assert not (await stack.stub.ListMyTables(pb.ListMyTablesRequest(), metadata=auth(b.token))).tables
    listed = await stack.stub.ListTables(pb.ListTablesRequest(include_playing=True), metadata=auth(b.token))
    assert opened.table.table_id not in [t.table_id for t in listed.tables]
    joined = await stack.stub.JoinTable(pb.JoinTableRequest(invite_code=code.lower()), metadata=auth(b.token))
    assert joined.table.table_id == opened.table.table_id and joined.seat == 1
    room = (await stack.stub.ListMyTables(pb.ListMyTablesRequest(), metadata=auth(a.token))).tables[0]
    assert [s.display_name for s in room.seats if s.player_id] == ["Seating A", "Seating B"]
    left = await stack.stub.LeaveTable(pb.LeaveTableRequest(table_id=room.table_id), metadata=auth(b.token))
    assert left.table.status == pb.LOBBY_TABLE_STATUS_WAITING
    cancelled = await stack.stub.LeaveTable(pb.LeaveTableRequest(table_id=room.table_id), metadata=auth(a.token))
    assert cancelled.table.status == pb.LOBBY_TABLE_STATUS_CANCELLED
    with pytest.raises(Exception) as err:
        await stack.stub.JoinTable(pb.JoinTableRequest(invite_code="ZZZZZZZZZZ"), metadata=auth(b.token))
    assert error_reason(err.value) == "TABLE_NOT_FOUND"  # type: ignore[arg-type]

    # Quick play: A waits at a new table with people's seats open; B is seated there.
    qa = await stack.stub.QuickPlay(pb.QuickPlayRequest(options=classic), metadata=auth(a.token))
    qb = await stack.stub.QuickPlay(pb.QuickPlayRequest(options=classic), metadata=auth(b.token))
    assert qa.opened and not qb.opened and qb.table.table_id == qa.table.table_id and qb.seat == 1
    again = await stack.stub.QuickPlay(pb.QuickPlayRequest(options=classic), metadata=auth(b.token))
    assert again.table.table_id == qa.table.table_id and again.seat == 1
    chips = await stack.stub.GetChips(pb.GetChipsRequest(), metadata=auth(b.token))
    assert chips.balance == 1000  # nothing held while the table waits

"""Friends and blocks (issue 44.3): finding players by name, requests (sent, accepted, declined,
taken back, crossing each other), friendships, blocks honoured by requests, invitations, seats
(JoinTable, QuickPlay, JoinFriend) and chat, the limits, and what deleting an account removes.
On the lobby's use cases over a fresh PostgreSQL, clock injected."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from lobby_helpers import Clock, FakeTables, Guest
from okey.v1 import lobby_service_pb2 as pb
from okeycore.options import Game, TableOptions
from okeyplatform.auth import Identity, verify_token

from services.lobby.api import LobbyServicer
from services.lobby.app import LobbyApp
from services.lobby.errors import Flood, Forbidden, Invalid, NotFound, Refused
from services.lobby.policy import Limits
from services.lobby.store import LobbyStore

OKEY = TableOptions(game=Game.OKEY)


async def _kinds(app: LobbyApp, who: Identity) -> list[tuple[str, str]]:
    views, _ = await app.list_notifications(who, 0, 100, False)
    return [(v.row.kind, v.row.from_id) for v in views]


async def _friends(app: LobbyApp, a: Identity, b: Identity) -> None:
    await app.send_friend_request(a, b.subject)
    await app.accept_friend_request(b, a.subject)


async def _reason(call: Any, kind: type[Exception] = Exception) -> str:
    with pytest.raises(kind) as err:
        await call
    return str(getattr(err.value, "reason", ""))


async def test_a_request_accepted_makes_friends_and_each_side_is_notified(app: LobbyApp, guest: Guest) -> None:
    a, b = await guest("Ayşe"), await guest("Barış")
    assert await app.send_friend_request(a, b.subject) is False
    assert await _kinds(app, b) == [("FRIEND_REQUEST", a.subject)]
    lists_a, lists_b = await app.list_friends(a), await app.list_friends(b)
    assert [p.player_id for p in lists_a.outgoing] == [b.subject] and lists_a.incoming == []
    assert [(p.player_id, p.display_name) for p in lists_b.incoming] == [(a.subject, "Ayşe")]
    friend = await app.accept_friend_request(b, a.subject)
    assert (friend.person.player_id, friend.person.display_name, friend.card) == (a.subject, "Ayşe", None)
    assert await _kinds(app, a) == [("FRIEND_ACCEPTED", b.subject)]
    for me, other in ((a, b), (b, a)):
        lists = await app.list_friends(me)
        assert [f.person.player_id for f in lists.friends] == [other.subject]
        assert lists.incoming == lists.outgoing == []
    assert await _reason(app.accept_friend_request(b, a.subject), NotFound) == "REQUEST_NOT_FOUND"
    assert await _reason(app.send_friend_request(b, a.subject), Refused) == "ALREADY_FRIENDS"


async def test_a_request_to_a_player_who_asked_first_accepts_theirs(app: LobbyApp, guest: Guest) -> None:
    a, b = await guest(), await guest()
    await app.send_friend_request(a, b.subject)
    assert await app.send_friend_request(b, a.subject) is True
    assert [f.person.player_id for f in (await app.list_friends(a)).friends] == [b.subject]
    assert ("FRIEND_ACCEPTED", b.subject) in await _kinds(app, a)


async def test_requests_crossing_at_once_end_as_one_friendship(
    app: LobbyApp, guest: Guest, lobby_store: LobbyStore
) -> None:
    for _ in range(4):
        a, b = await guest(), await guest()
        got = await asyncio.gather(app.send_friend_request(a, b.subject), app.send_friend_request(b, a.subject))
        assert sorted(got) == [False, True]
        async with lobby_store.pool.acquire() as conn:
            pair = [a.subject, b.subject]
            assert (
                await conn.fetchval(
                    "SELECT count(*) FROM lobby_friends WHERE player_a = ANY($1) AND player_b = ANY($1)", pair
                )
                == 1
            )
            assert await conn.fetchval("SELECT count(*) FROM lobby_friend_requests WHERE from_id = ANY($1)", pair) == 0


async def test_a_request_to_nobody_to_oneself_or_with_a_bad_id_is_refused(
    app: LobbyApp, guest: Guest, lobby_store: LobbyStore, clock: Clock
) -> None:
    a, b, gone = await guest(), await guest(), await guest()
    assert await _reason(app.send_friend_request(a, a.subject), Refused) == "CANNOT_FRIEND_SELF"
    assert await _reason(app.send_friend_request(a, "p-nobody"), NotFound) == "PLAYER_NOT_FOUND"
    assert await _reason(app.send_friend_request(a, ""), Invalid) == "INVALID_ARGUMENT"
    assert await _reason(app.send_friend_request(a, "p" * 10_000), Invalid) == "INVALID_ARGUMENT"
    async with lobby_store.unit() as uow:
        await uow.erasure.scrub(gone.subject, "", clock())
    assert await _reason(app.send_friend_request(a, gone.subject), NotFound) == "PLAYER_NOT_FOUND"
    await app.send_friend_request(a, b.subject)
    assert await _reason(app.send_friend_request(a, b.subject), Refused) == "REQUEST_PENDING"
    assert (await app.list_friends(b)).incoming[0].player_id == a.subject  # one request, not two
    assert len(await _kinds(app, b)) == 1


async def test_decline_tells_nobody_cancel_takes_back_remove_ends_for_both(app: LobbyApp, guest: Guest) -> None:
    a, b, c = await guest(), await guest(), await guest()
    await app.send_friend_request(a, b.subject)
    await app.decline_friend_request(b, a.subject)
    assert await _kinds(app, a) == []  # not told
    assert (await app.list_friends(a)).outgoing == [] and (await app.list_friends(b)).incoming == []
    assert await _reason(app.decline_friend_request(b, a.subject), NotFound) == "REQUEST_NOT_FOUND"
    await app.send_friend_request(a, c.subject)
    assert await _reason(app.cancel_friend_request(c, a.subject), NotFound) == "REQUEST_NOT_FOUND"  # not c's
    await app.cancel_friend_request(a, c.subject)
    assert (await app.list_friends(c)).incoming == []
    assert await _reason(app.accept_friend_request(c, a.subject), NotFound) == "REQUEST_NOT_FOUND"
    await _friends(app, b, a)  # (a asking b again so soon: TOO_MANY_REQUESTS, see the flood test)
    await app.remove_friend(b, a.subject)
    assert (await app.list_friends(a)).friends == [] and (await app.list_friends(b)).friends == []
    assert await _reason(app.remove_friend(a, b.subject), Refused) == "NOT_FRIENDS"


async def test_a_stranger_cannot_flood_one_player_by_sending_cancelling_and_sending_again(
    app: LobbyApp, guest: Guest, clock: Clock
) -> None:
    """The hole: send, cancel (or have it declined), send again put a new FRIEND_REQUEST in the
    recipient's list (and a live one on their stream) each time, up to the sender's whole day of
    requests, pushing the recipient's other notifications out. Now a request to the same player
    comes again only after friend_request_repeat_window, and their list holds one request of a
    sender at a time."""
    spammer, victim = await guest(), await guest()
    await app.send_friend_request(spammer, victim.subject)
    await app.cancel_friend_request(spammer, victim.subject)
    assert await _reason(app.send_friend_request(spammer, victim.subject), Flood) == "TOO_MANY_REQUESTS"
    await app.send_friend_request(victim, spammer.subject)  # the other way: theirs to make
    await app.decline_friend_request(spammer, victim.subject)
    clock.advance(seconds=Limits().friend_request_repeat_window.total_seconds() - 1)
    assert await _reason(app.send_friend_request(spammer, victim.subject), Flood) == "TOO_MANY_REQUESTS"
    clock.advance(seconds=2)
    await app.send_friend_request(spammer, victim.subject)  # a window later: again, once
    assert await _kinds(app, victim) == [("FRIEND_REQUEST", spammer.subject)]  # the newest alone
    await app.decline_friend_request(victim, spammer.subject)
    assert await _reason(app.send_friend_request(spammer, victim.subject), Flood) == "TOO_MANY_REQUESTS"
    assert await _kinds(app, victim) == [("FRIEND_REQUEST", spammer.subject)]


async def test_the_limits_on_friends_pending_requests_per_day_and_blocks(
    lobby_store: LobbyStore, fake_tables: FakeTables, clock: Clock
) -> None:
    limits = Limits(friends_max=2, pending_max=2, friend_requests_per_day=3, blocks_max=2)
    app = LobbyApp(lobby_store, fake_tables, clock=clock, limits=limits)
    people = []
    for i in range(7):
        _, token, _, _ = await app.sign_in_guest(f"Sınır{i}", f"dev-limit-{i}")
        people.append(verify_token(token))
    me, p1, p2, p3, p4, p5, p6 = people
    await app.send_friend_request(me, p1.subject)
    await app.send_friend_request(me, p2.subject)
    assert await _reason(app.send_friend_request(me, p3.subject), Flood) == "TOO_MANY_PENDING"
    await app.cancel_friend_request(me, p2.subject)
    await app.send_friend_request(me, p3.subject)  # the third of the day
    await app.cancel_friend_request(me, p3.subject)
    assert await _reason(app.send_friend_request(me, p4.subject), Flood) == "TOO_MANY_REQUESTS"
    clock.advance(days=1)
    await app.accept_friend_request(p1, me.subject)
    await app.send_friend_request(p5, me.subject)
    await app.send_friend_request(p6, me.subject)
    await app.accept_friend_request(me, p5.subject)  # me: 2 friends, the most
    assert await _reason(app.accept_friend_request(me, p6.subject), Flood) == "TOO_MANY_FRIENDS"
    assert await _reason(app.send_friend_request(p4, me.subject), Flood) == "TOO_MANY_FRIENDS"  # either side
    await app.block(me, p2.subject)
    await app.block(me, p3.subject)
    await app.block(me, p3.subject)  # again: nothing changes, no refusal
    assert await _reason(app.block(me, p4.subject), Flood) == "TOO_MANY_BLOCKS"
    assert len((await app.list_friends(me)).blocked) == 2


async def test_a_block_ends_the_friendship_and_requests_and_refuses_requests_alike_both_ways(
    app: LobbyApp, guest: Guest
) -> None:
    a, b, c = await guest("Cengiz"), await guest("Derya"), await guest()
    await _friends(app, a, b)
    await app.send_friend_request(c, a.subject)
    await app.block(a, b.subject)
    await app.block(a, c.subject)
    lists = await app.list_friends(a)
    assert lists.friends == [] and lists.incoming == []
    assert {p.player_id for p in lists.blocked} == {b.subject, c.subject}
    assert "Derya" in {p.display_name for p in lists.blocked}
    assert (await app.list_friends(b)).friends == [] and (await app.list_friends(b)).blocked == []
    assert ("FRIEND_REQUEST", c.subject) not in await _kinds(app, a)  # what the blocked sent is gone
    with pytest.raises(Refused) as one:
        await app.send_friend_request(a, b.subject)
    with pytest.raises(Refused) as other:
        await app.send_friend_request(b, a.subject)
    assert (one.value.reason, other.value.reason) == ("BLOCKED", "BLOCKED")
    assert str(one.value) == str(other.value)  # worded alike: who blocked whom is not told
    assert await _reason(app.block(a, a.subject), Invalid) == "INVALID_ARGUMENT"
    assert await _reason(app.block(a, "p-nobody"), NotFound) == "PLAYER_NOT_FOUND"
    await app.unblock(a, b.subject)
    await app.unblock(a, b.subject)  # again: nothing
    assert await app.send_friend_request(b, a.subject) is False


async def test_find_players_by_name_prefix_any_case_never_self_deleted_or_blocked(
    app: LobbyApp, guest: Guest, lobby_store: LobbyStore, clock: Clock
) -> None:
    me = await guest("Kemal")
    k1, k2, k3, gone, other = (
        await guest("Kerem"),
        await guest("kevser"),
        await guest("Keriman"),
        await guest("Kenan"),
        await guest("Zeynep"),
    )
    await app.send_friend_request(me, k2.subject)
    await _friends(app, me, k3)
    await app.block(k1, me.subject)  # a block either way hides
    async with lobby_store.unit() as uow:
        await uow.erasure.scrub(gone.subject, "", clock())
    found = await app.find_players(me, "KE")
    assert [(f.display_name, f.friend, f.request_pending) for f in found] == [
        ("Keriman", True, False),
        ("kevser", False, True),
    ]
    assert {f.display_name for f in await app.find_players(k2, "ke")} == {"Kemal", "Kerem", "Keriman"}
    assert await app.find_players(me, "K%") == []  # no wildcard
    assert other.subject not in {f.player_id for f in await app.find_players(me, "ke")}
    for bad in ("k", " k ", "x" * 21):
        assert await _reason(app.find_players(me, bad), Invalid) == "INVALID_ARGUMENT"


async def test_find_players_returns_at_most_twenty(app: LobbyApp, guest: Guest) -> None:
    me = await guest("Aranan")
    for i in range(22):
        await guest(f"Toplu{i:02d}")
    found = await app.find_players(me, "toplu")
    assert len(found) == 20 and [f.display_name for f in found] == [f"Toplu{i:02d}" for i in range(20)]


async def test_a_blocked_player_gets_no_seat_with_the_blocker_by_join_table_or_quick_play(
    app: LobbyApp, guest: Guest
) -> None:
    a, b, c = await guest(), await guest(), await guest()
    await app.block(a, b.subject)
    card, _ = await app.open_table(a, OKEY)
    assert await _reason(app.join(b, card.table.table_id), Refused) == "BLOCKED"
    mine, _ = await app.open_table(b, OKEY)
    assert await _reason(app.join(a, mine.table.table_id), Refused) == "BLOCKED"  # the other way too
    await app.leave(b, mine.table.table_id)
    # Quick play passes over the blocker's table: b opens one of their own; c, unblocked, sits with a.
    played = await app.quick_play_answer(b, OKEY)
    assert played.card.table.table_id != card.table.table_id and played.opened
    assert a.subject not in {s.player_id for s in played.card.seats}
    c_played = await app.quick_play_answer(c, OKEY)
    assert c_played.card.table.table_id in (card.table.table_id, played.card.table.table_id)


async def test_a_block_hides_chat_messages_and_emotes_both_ways(app: LobbyApp, guest: Guest) -> None:
    a, b, c = await guest(), await guest(), await guest()
    card, _ = await app.open_table(a, OKEY)
    tid = card.table.table_id
    await app.join(b, tid)
    await app.join(c, tid)
    await app.send_message(a, tid, "Merhaba")
    await app.send_emote(a, tid, pb.EMOTE_BOL_SANS)
    await app.send_message(b, tid, "Selam")
    await app.send_emote(b, tid, pb.EMOTE_TEBRIKLER)
    await app.block(a, b.subject)
    assert {m.player_id for m in await app.list_messages(a, tid, 0, 50)} == {a.subject}
    assert {m.player_id for m in await app.list_messages(b, tid, 0, 50)} == {b.subject}
    assert [m.player_id for m in await app.list_messages(c, tid, 0, 50)] == [a.subject, a.subject, b.subject, b.subject]
    await app.unblock(a, b.subject)
    assert len(await app.list_messages(b, tid, 0, 50)) == 4


async def test_invite_a_friend_to_a_table_with_its_code_when_private_and_every_refusal(
    app: LobbyApp, guest: Guest
) -> None:
    a, b, stranger, c = await guest(), await guest(), await guest(), await guest()
    await _friends(app, a, b)
    await _friends(app, a, c)
    card, _ = await app.open_table(a, OKEY, private=True)
    tid, code = card.table.table_id, card.table.invite_code
    sent = await app.invite(a, b.subject, tid)
    assert (sent.row.kind, sent.row.from_id, sent.row.player_id, sent.expired) == (
        "TABLE_INVITE",
        a.subject,
        b.subject,
        False,
    )
    assert sent.card is not None and sent.card.show_invite and sent.card.table.invite_code == code
    [got] = [v for v in (await app.list_notifications(b, 0, 50, False))[0] if v.row.kind == "TABLE_INVITE"]
    assert got.row.notification_id == sent.row.notification_id and got.card is not None and got.card.show_invite
    assert await _reason(app.invite(a, b.subject, tid), Flood) == "TOO_MANY_INVITES"  # again within a minute
    assert await _reason(app.invite(a, stranger.subject, tid), Refused) == "NOT_FRIENDS"
    assert await _reason(app.invite(b, a.subject, tid), Refused) == "NOT_SEATED"
    assert await _reason(app.invite(a, b.subject, "t-none"), NotFound) == "TABLE_NOT_FOUND"
    assert await _reason(app.invite(a, "p-nobody", tid), NotFound) == "PLAYER_NOT_FOUND"
    assert await _reason(app.invite(a, b.subject, "t" * 500), Invalid) == "INVALID_ARGUMENT"
    await app.join(b, tid, code)
    assert await _reason(app.invite(a, b.subject, tid), Refused) == "ALREADY_SEATED"
    await app.block(c, a.subject)
    assert await _reason(app.invite(a, c.subject, tid), Refused) == "BLOCKED"
    public, _ = await app.open_table(b, TableOptions(game=Game.OKEY, duel=True))
    await app.join(stranger, public.table.table_id)  # the last seat: the match starts
    assert await _reason(app.invite(b, a.subject, public.table.table_id), Refused) == "NOT_WAITING"


async def test_a_friend_invited_again_to_the_same_table_holds_one_invitation(
    app: LobbyApp, guest: Guest, clock: Clock
) -> None:
    host, friend = await guest(), await guest()
    await _friends(app, host, friend)
    card, _ = await app.open_table(host, OKEY)
    other, _ = await app.open_table(host, OKEY)
    tid = card.table.table_id
    for _ in range(3):
        await app.invite(host, friend.subject, tid)
        clock.advance(seconds=Limits().invite_repeat_window.total_seconds() + 1)
    await app.invite(host, friend.subject, other.table.table_id)
    views, _ = await app.list_notifications(friend, 0, 100, False)
    invites = [v.row.table_id for v in views if v.row.kind == "TABLE_INVITE"]
    assert invites == [other.table.table_id, tid]  # the newest of each table's, one a table


async def test_invitations_a_day_are_limited(lobby_store: LobbyStore, fake_tables: FakeTables, clock: Clock) -> None:
    app = LobbyApp(lobby_store, fake_tables, clock=clock, limits=Limits(invites_per_day=2))
    who = []
    for i in range(4):
        _, token, _, _ = await app.sign_in_guest(f"Davet{i}", f"dev-inv-{i}")
        who.append(verify_token(token))
    host, *friends = who
    for f in friends:
        await _friends(app, host, f)
    card, _ = await app.open_table(host, OKEY)
    await app.invite(host, friends[0].subject, card.table.table_id)
    await app.invite(host, friends[1].subject, card.table.table_id)
    assert await _reason(app.invite(host, friends[2].subject, card.table.table_id), Flood) == "TOO_MANY_INVITES"
    clock.advance(days=1)
    await app.invite(host, friends[2].subject, card.table.table_id)


async def test_join_friend_sits_at_the_friend_s_waiting_table_a_private_one_with_its_code(
    app: LobbyApp, guest: Guest
) -> None:
    a, b, c, stranger = await guest(), await guest(), await guest(), await guest()
    await _friends(app, a, b)
    await _friends(app, a, c)
    await _friends(app, a, stranger)
    await app.remove_friend(stranger, a.subject)
    assert await _reason(app.join_friend(b, a.subject, ""), Refused) == "NOT_SEATED"
    card, _ = await app.open_table(a, OKEY)
    got, _, started = await app.join_friend(b, a.subject, "")
    assert got.table.table_id == card.table.table_id and not started
    assert {s.player_id for s in got.seats} == {a.subject, b.subject}
    assert await _reason(app.join_friend(stranger, a.subject, ""), Refused) == "NOT_FRIENDS"
    assert await _reason(app.join_friend(b, a.subject, ""), Refused) == "ALREADY_SEATED"  # as JoinTable
    await app.leave(a, card.table.table_id)
    await app.leave(b, card.table.table_id)
    private, _ = await app.open_table(a, OKEY, private=True)
    assert await _reason(app.join_friend(c, a.subject, ""), Forbidden) == "INVITE_REQUIRED"
    invite = await app.invite(a, c.subject, private.table.table_id)
    assert invite.card is not None
    got, _, _ = await app.join_friend(c, a.subject, invite.card.table.invite_code or "")
    assert got.table.table_id == private.table.table_id
    await app.block(b, a.subject)
    assert await _reason(app.join_friend(b, a.subject, ""), Refused) == "BLOCKED"


async def test_list_friends_shows_the_table_a_friend_sits_at_without_its_invite_code(
    app: LobbyApp, guest: Guest
) -> None:
    a, b = await guest(), await guest()
    await _friends(app, a, b)
    card, _ = await app.open_table(a, OKEY, private=True)
    [f] = (await app.list_friends(b)).friends
    assert f.card is not None and f.card.table.table_id == card.table.table_id and not f.card.show_invite


async def test_deleting_an_account_removes_its_friends_requests_blocks_and_notifications(
    app: LobbyApp, guest: Guest, lobby_store: LobbyStore, clock: Clock
) -> None:
    gone, a, b, c = await guest(), await guest(), await guest(), await guest()
    await _friends(app, gone, a)
    await app.send_friend_request(gone, b.subject)
    await app.send_friend_request(c, gone.subject)
    await app.block(gone, c.subject)
    await app.block(b, gone.subject)
    async with lobby_store.unit() as uow:
        await uow.erasure.scrub(gone.subject, "", clock())
    async with lobby_store.pool.acquire() as conn:
        p = gone.subject
        for sql in (
            "SELECT count(*) FROM lobby_friends WHERE player_a = $1 OR player_b = $1",
            "SELECT count(*) FROM lobby_friend_requests WHERE from_id = $1 OR to_id = $1",
            "SELECT count(*) FROM lobby_blocks WHERE player_id = $1 OR blocked_id = $1",
            "SELECT count(*) FROM lobby_notifications WHERE player_id = $1 OR from_id = $1",
        ):
            assert await conn.fetchval(sql, p) == 0, sql
    assert (await app.list_friends(a)).friends == [] and (await app.list_friends(b)).incoming == []
    assert await _kinds(app, b) == []


async def test_the_api_translates_friends_lists_and_find_players(app: LobbyApp) -> None:
    _, token_a, _, _ = await app.sign_in_guest("Emre", "dev-api-fa")
    _, token_b, _, _ = await app.sign_in_guest("Esra", "dev-api-fb")
    api = LobbyServicer(app)

    class Context:
        def __init__(self, token: str) -> None:
            self.token = token

        def invocation_metadata(self) -> list[tuple[str, Any]]:
            return [("authorization", "Bearer " + self.token)]

    a, b = Context(token_a), Context(token_b)
    b_id = verify_token(token_b).subject
    found = await api.FindPlayers(pb.FindPlayersRequest(prefix="es"), a)
    assert [(p.player_id, p.display_name) for p in found.players] == [(b_id, "Esra")]
    sent = await api.SendFriendRequest(pb.SendFriendRequestRequest(player_id=b_id), a)
    assert sent.accepted is False
    lists = await api.ListFriends(pb.ListFriendsRequest(), b)
    assert [r.display_name for r in lists.incoming] == ["Emre"] and lists.friends_max == 200 and lists.pending_max == 50
    accepted = await api.AcceptFriendRequest(pb.AcceptFriendRequestRequest(player_id=verify_token(token_a).subject), b)
    assert accepted.friend.display_name == "Emre" and accepted.friend.since.seconds > 0
    await api.BlockPlayer(pb.BlockPlayerRequest(player_id=b_id), a)
    lists = await api.ListFriends(pb.ListFriendsRequest(), a)
    assert [x.player_id for x in lists.blocked] == [b_id] and not lists.friends

"""Notifications (issue 44.4): friend requests, acceptances, invitations and a table starting,
listed newest first with the unread count, marked read (only the caller's), an invitation
expiring when its table starts, pruned to the newest notification_max and notification_keep_days,
and watched live: a stream open before a notification is made gets it within a couple of
seconds over NATS, one kept while its player was away comes first when a stream opens, a lost
nudge only waits for the stream's poll, a revoked token ends the stream, and a player holds at
most notification_streams_max streams. The use cases run over a fresh PostgreSQL with the real
NATS; the last tests go through the lobby process over gRPC."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from lobby_helpers import Clock, FakeTables, Guest, Stack
from okey.v1 import lobby_service_pb2 as pb
from okeycore.options import Game, TableOptions
from okeyplatform.auth import Identity, TokenError, revoke, verify_token
from okeyplatform.grpcserver import error_reason

from services.lobby.app import LobbyApp
from services.lobby.errors import Flood, Invalid
from services.lobby.notify_bus import NotifyRelay, subject
from services.lobby.policy import Limits
from services.lobby.store import LobbyStore

OKEY = TableOptions(game=Game.OKEY)


@pytest.fixture
async def relay(app: LobbyApp, nats_url: str) -> AsyncIterator[NotifyRelay]:
    """The lobby's NATS relay for this test's app, subscribed."""
    r = NotifyRelay(nats_url, app.hub)
    task = asyncio.create_task(r.run())
    await asyncio.wait_for(r.subscribed.wait(), 10)
    try:
        yield r
    finally:
        r.stop()
        await task


async def _friends(app: LobbyApp, a: Identity, b: Identity) -> None:
    await app.send_friend_request(a, b.subject)
    await app.accept_friend_request(b, a.subject)


async def _opened(app: LobbyApp, who: Identity, after: int = 0) -> tuple[Any, asyncio.Task[Any]]:
    """A stream of ``who``'s, open (its first message, the unread count alone, read), and the
    task reading its first notification."""
    stream = app.watch_notifications(who, after)
    opening, unread = await asyncio.wait_for(anext(stream), 2.0)
    assert opening is None and unread == await _unread(app, who)
    return stream, asyncio.create_task(anext(stream))


async def _unread(app: LobbyApp, who: Identity) -> int:
    _, unread = await app.list_notifications(who, 0, 1, False)
    return int(unread)


def test_a_subject_is_one_token_whatever_the_id() -> None:
    assert subject("p-0a1b") == "okey.notify.p-0a1b"
    assert subject("a.b *>") == "okey.notify.a%2Eb%20%2A%3E"


async def test_a_stream_open_before_a_request_gets_it_live_with_the_unread_count(
    app: LobbyApp, guest: Guest, relay: NotifyRelay
) -> None:
    a, b = await guest("Ali"), await guest("Banu")
    app.notifications.poll_s = 60.0  # so only the live path can bring it in time
    stream, first = await _opened(app, b)
    await asyncio.sleep(0.1)
    assert not first.done()  # nothing unread: nothing sent yet
    began = time.monotonic()
    await app.send_friend_request(a, b.subject)
    view, unread = await asyncio.wait_for(first, 2.0)
    assert time.monotonic() - began < 2.0
    assert (view.row.kind, view.row.from_id, view.row.from_name, unread) == ("FRIEND_REQUEST", a.subject, "Ali", 1)
    await app.accept_friend_request(b, a.subject)
    c = await guest()
    await app.send_friend_request(c, b.subject)
    view, unread = await asyncio.wait_for(anext(stream), 2.0)
    assert (view.row.from_id, unread) == (c.subject, 2)
    await stream.aclose()
    assert app.hub.streams(b.subject) == 0  # its seat is given back


async def test_what_came_while_away_comes_first_oldest_first_unread_only(
    app: LobbyApp, guest: Guest, relay: NotifyRelay
) -> None:
    me, a, b, c = await guest(), await guest(), await guest(), await guest()
    for sender in (a, b, c):
        await app.send_friend_request(sender, me.subject)
    views, unread = await app.list_notifications(me, 0, 50, False)
    ids = [v.row.notification_id for v in reversed(views)]  # oldest first
    assert unread == 3 and [v.row.from_id for v in reversed(views)] == [a.subject, b.subject, c.subject]
    assert await app.mark_notifications_read(me, [ids[1]], 0) == 2
    stream, first = await _opened(app, me)
    got = [await asyncio.wait_for(first, 2.0), await asyncio.wait_for(anext(stream), 2.0)]
    assert [v.row.notification_id for v, _ in got] == [ids[0], ids[2]]
    await stream.aclose()
    stream, first = await _opened(app, me, after=ids[0])  # reconnecting: the last one seen
    view, _ = await asyncio.wait_for(first, 2.0)
    assert view.row.notification_id == ids[2]
    await stream.aclose()


async def test_a_lost_nudge_only_waits_for_the_stream_s_poll(
    app: LobbyApp, guest: Guest, lobby_store: LobbyStore
) -> None:
    a, b = await guest(), await guest()
    app.notifications.poll_s = 0.3
    lobby_store.on_notified = None  # nothing is published: as if NATS lost it
    stream, first = await _opened(app, b)
    await asyncio.sleep(0.05)
    await app.send_friend_request(a, b.subject)
    view, unread = await asyncio.wait_for(first, 2.0)
    assert (view.row.kind, unread) == ("FRIEND_REQUEST", 1)
    await stream.aclose()


async def test_a_revoked_token_ends_the_stream_within_about_a_second(app: LobbyApp, guest: Guest) -> None:
    b = await guest()
    _, first = await _opened(app, b)
    began = time.monotonic()
    revoke(b.subject, time.time() + 1)  # a sign-out or a ban, later than the token's issue
    with pytest.raises(TokenError):
        await asyncio.wait_for(first, 3.0)
    assert time.monotonic() - began < 2.0
    assert app.hub.streams(b.subject) == 0


async def test_a_player_holds_at_most_the_streams_the_limit_allows(
    lobby_store: LobbyStore, fake_tables: FakeTables, clock: Clock
) -> None:
    app = LobbyApp(lobby_store, fake_tables, clock=clock, limits=Limits(notification_streams_max=2))
    _, token, _, _ = await app.sign_in_guest("Akış", "dev-streams")
    who = verify_token(token)
    one, first_one = await _opened(app, who)
    two, first_two = await _opened(app, who)
    with pytest.raises(Flood) as err:
        await anext(app.watch_notifications(who, 0))
    assert err.value.reason == "TOO_MANY_STREAMS"
    first_one.cancel()
    await asyncio.gather(first_one, return_exceptions=True)
    await one.aclose()
    three, first_three = await _opened(app, who)  # a seat was given back
    assert app.hub.streams(who.subject) == 2
    for task, stream in ((first_two, two), (first_three, three)):
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await stream.aclose()


async def test_list_pages_newest_first_and_marks_read_only_the_caller_s(app: LobbyApp, guest: Guest) -> None:
    me, other = await guest(), await guest()
    senders = [await guest() for _ in range(4)]
    for s in senders:
        await app.send_friend_request(s, me.subject)
    await app.send_friend_request(senders[0], other.subject)
    views, unread = await app.list_notifications(me, 0, 2, False)
    assert unread == 4 and [v.row.from_id for v in views] == [senders[3].subject, senders[2].subject]
    older, _ = await app.list_notifications(me, views[-1].row.notification_id, 50, False)
    assert [v.row.from_id for v in older] == [senders[1].subject, senders[0].subject]
    [theirs], _ = await app.list_notifications(other, 0, 50, False)
    # Another player's id is passed over; up_to marks every one of mine up to it.
    assert await app.mark_notifications_read(me, [theirs.row.notification_id], 0) == 4
    assert (await app.list_notifications(other, 0, 50, True))[1] == 1
    assert await app.mark_notifications_read(me, [], older[0].row.notification_id) == 2
    unread_views, unread = await app.list_notifications(me, 0, 50, True)
    assert unread == 2 and [v.row.from_id for v in unread_views] == [senders[3].subject, senders[2].subject]
    read, _ = await app.list_notifications(me, 0, 50, False)
    assert [v.row.read_at is not None for v in read] == [False, False, True, True]
    with pytest.raises(Invalid):
        await app.mark_notifications_read(me, list(range(1, 502)), 0)
    with pytest.raises(Invalid):
        await app.list_notifications(me, -1, 50, False)
    assert len((await app.list_notifications(me, 0, 10_000, False))[0]) == 4  # at most 100 asked: all 4


async def test_an_invitation_expires_when_its_table_starts_and_the_seated_hear_it_started(
    app: LobbyApp, guest: Guest
) -> None:
    host, friend, p3, p4, p5 = [await guest() for _ in range(5)]
    await _friends(app, host, friend)
    card, _ = await app.open_table(host, OKEY)
    tid = card.table.table_id
    sent = await app.invite(host, friend.subject, tid)
    assert not sent.expired and sent.card is not None and not sent.card.show_invite  # a public table: no code
    for p in (p3, p4, p5):
        await app.join(p, tid)  # p5 takes the last seat: the match starts
    [invite] = [v for v in (await app.list_notifications(friend, 0, 50, False))[0] if v.row.kind == "TABLE_INVITE"]
    assert invite.expired and invite.card is not None and invite.card.table.status != "WAITING"
    for p in (host, p3, p4):
        [started] = [v for v in (await app.list_notifications(p, 0, 50, False))[0] if v.row.kind == "TABLE_STARTING"]
        assert started.card is not None and started.card.table.table_id == tid and not started.expired
    # The one whose own call started it hears so in its answer, not in a notification.
    assert [v for v in (await app.list_notifications(p5, 0, 50, False))[0]] == []


async def test_a_player_keeps_the_newest_notifications_within_the_keep_days(
    lobby_store: LobbyStore, fake_tables: FakeTables, clock: Clock
) -> None:
    app = LobbyApp(lobby_store, fake_tables, clock=clock, limits=Limits(notification_max=3, notification_keep_days=14))
    people = []
    for i in range(7):
        _, token, _, _ = await app.sign_in_guest(f"Budama{i}", f"dev-prune-{i}")
        people.append(verify_token(token))
    me, *others = people
    for o in others[:5]:
        await app.send_friend_request(o, me.subject)
    views, unread = await app.list_notifications(me, 0, 50, False)
    assert unread == 3 and [v.row.from_id for v in views] == [o.subject for o in reversed(others[2:5])]
    clock.advance(days=15)
    await app.send_friend_request(others[5], me.subject)  # the old ones go as a new one comes
    views, _ = await app.list_notifications(me, 0, 50, False)
    assert [v.row.from_id for v in views] == [others[5].subject]
    clock.advance(days=15)
    assert await app.forget_old_quotas() >= 1  # the lobby's timer prunes the rest
    assert (await app.list_notifications(me, 0, 50, False))[0] == []


# ------------------------------------------------------------ through the lobby process


def _auth(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


async def _sign_in(stack: Stack, name: str) -> pb.SignInGuestResponse:
    got: pb.SignInGuestResponse = await stack.stub.SignInGuest(
        pb.SignInGuestRequest(display_name=name, device_id=f"device-{name}")
    )
    return got


async def test_over_grpc_a_watch_gets_a_request_live_and_ends_at_sign_out(stack: Stack) -> None:
    a, b = await _sign_in(stack, "Canlı1"), await _sign_in(stack, "Canlı2")
    call = stack.stub.WatchNotifications(pb.WatchNotificationsRequest(), metadata=_auth(b.token))
    await asyncio.sleep(0.5)  # the stream is open on the lobby
    await stack.stub.SendFriendRequest(
        pb.SendFriendRequestRequest(player_id=b.player.player_id), metadata=_auth(a.token)
    )
    opening = await asyncio.wait_for(call.read(), 2.0)  # the unread count alone: the stream is open
    assert not opening.HasField("notification") and opening.unread == 0
    got = await asyncio.wait_for(call.read(), 2.0)
    assert got.notification.kind == pb.NOTIFICATION_KIND_FRIEND_REQUEST and got.unread == 1
    assert got.notification.from_display_name == "Canlı1"
    listed = await stack.stub.ListNotifications(pb.ListNotificationsRequest(), metadata=_auth(b.token))
    assert [n.notification_id for n in listed.notifications] == [got.notification.notification_id]
    marked = await stack.stub.MarkNotificationsRead(
        pb.MarkNotificationsReadRequest(notification_ids=[got.notification.notification_id]), metadata=_auth(b.token)
    )
    assert marked.unread == 0
    await stack.stub.SignOut(pb.SignOutRequest(), metadata=_auth(b.token))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await asyncio.wait_for(call.read(), 3.0)
    assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_over_grpc_a_player_holds_at_most_five_streams(stack: Stack) -> None:
    me = await _sign_in(stack, "Akışçı")
    calls = [stack.stub.WatchNotifications(pb.WatchNotificationsRequest(), metadata=_auth(me.token)) for _ in range(5)]
    await asyncio.sleep(0.5)
    extra = stack.stub.WatchNotifications(pb.WatchNotificationsRequest(), metadata=_auth(me.token))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await asyncio.wait_for(extra.read(), 3.0)
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and error_reason(err.value) == "TOO_MANY_STREAMS"
    for c in calls:
        c.cancel()

"""Who may watch a table as a spectator (issue 44.5, AuthorizeWatch, which the gateway asks
before a spectator's Watch, GetView or GetEvents): a public table anyone; a private one whoever
sits at it or left it mid-match (not one who left it while it waited), a friend of a person
seated, a player invited to it, and staff; never a player in a block with a person seated
(BLOCKED); a table the lobby does not list, anyone. The answer carries the most spectators a
table takes. On the lobby's use cases over a fresh PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from lobby_helpers import Clock, FakeTables, Guest
from okey.v1 import lobby_service_pb2 as pb
from okeycore.options import Game, TableOptions
from okeyplatform.auth import Identity, verify_token

from services.lobby.api import LobbyServicer
from services.lobby.app import LobbyApp
from services.lobby.errors import Forbidden, Invalid, Refused
from services.lobby.policy import Limits
from services.lobby.store import LobbyStore

OKEY = TableOptions(game=Game.OKEY)
MOST = Limits().spectators_max


async def _refused(app: LobbyApp, who: Identity, table_id: str) -> str:
    with pytest.raises((Refused, Forbidden, Invalid)) as err:
        await app.authorize_watch(who, table_id)
    return str(err.value.reason)


async def test_a_public_table_anyone_a_table_the_lobby_does_not_list_too(app: LobbyApp, guest: Guest) -> None:
    host, stranger = await guest(), await guest()
    card, _ = await app.open_table(host, OKEY)
    assert MOST == 50
    assert await app.authorize_watch(stranger, card.table.table_id) == MOST
    assert await app.authorize_watch(stranger, "t-opened-on-the-table-service") == MOST
    assert await _refused(app, stranger, "") == "INVALID_ARGUMENT"
    assert await _refused(app, stranger, "t" * 1000) == "INVALID_ARGUMENT"


async def test_a_block_with_a_person_seated_refuses_either_way_but_not_staff(app: LobbyApp, guest: Guest) -> None:
    host, blocked, blocker = await guest(), await guest(), await guest()
    card, _ = await app.open_table(host, OKEY)
    tid = card.table.table_id
    await app.block(host, blocked.subject)
    await app.block(blocker, host.subject)
    assert await _refused(app, blocked, tid) == "BLOCKED"
    assert await _refused(app, blocker, tid) == "BLOCKED"
    assert await app.authorize_watch(Identity(blocked.subject, "moderator"), tid) == MOST


async def test_a_private_table_its_players_their_friends_the_invited_and_staff(app: LobbyApp, guest: Guest) -> None:
    host, seated, friend, invited, stranger = [await guest() for _ in range(5)]
    card, _ = await app.open_table(host, OKEY, private=True)
    tid = card.table.table_id
    await app.join(seated, tid, card.table.invite_code or "")
    await app.send_friend_request(friend, seated.subject)
    await app.accept_friend_request(seated, friend.subject)
    await app.send_friend_request(invited, host.subject)
    await app.accept_friend_request(host, invited.subject)
    assert await _refused(app, stranger, tid) == "INVITE_REQUIRED"
    for who in (host, seated, friend, invited, Identity(stranger.subject, "admin")):
        assert await app.authorize_watch(who, tid) == MOST
    await app.invite(host, invited.subject, tid)
    await app.remove_friend(invited, host.subject)  # no friend seated now: the invitation alone does
    assert await app.authorize_watch(invited, tid) == MOST
    async with app.store.unit() as uow:  # without it (pruned), a stranger again
        await uow.conn.execute("DELETE FROM lobby_notifications WHERE player_id = $1", invited.subject)
    assert await _refused(app, invited, tid) == "INVITE_REQUIRED"
    await app.block(seated, friend.subject)  # ends their friendship, and the block refuses
    assert await _refused(app, friend, tid) == "BLOCKED"


async def test_who_left_a_private_match_may_still_watch_it(app: LobbyApp, guest: Guest) -> None:
    people = [await guest() for _ in range(4)]
    card, _ = await app.open_table(people[0], OKEY, private=True)
    tid = card.table.table_id
    for p in people[1:]:
        await app.join(p, tid, card.table.invite_code or "")
    _, forfeited = await app.leave(people[1], tid)  # mid-match: the seat is kept, marked left
    assert forfeited == 0
    assert await app.authorize_watch(people[1], tid) == MOST


async def test_who_left_a_private_table_before_its_match_is_a_stranger_again(app: LobbyApp, guest: Guest) -> None:
    """A seat "sat at" is one in its match (left mid-match, the seat kept): a seat given up while
    the table waited is gone, and with it the right to watch (the invite code the player had is
    a way to sit again, not to watch)."""
    host, passer = await guest(), await guest()
    card, _ = await app.open_table(host, OKEY, private=True)
    tid = card.table.table_id
    await app.join(passer, tid, card.table.invite_code or "")
    assert await app.authorize_watch(passer, tid) == MOST
    await app.leave(passer, tid)
    assert await _refused(app, passer, tid) == "INVITE_REQUIRED"


async def test_the_answer_carries_the_limit_and_the_api_answers_in_kind(
    lobby_store: LobbyStore, fake_tables: FakeTables, clock: Clock
) -> None:
    app = LobbyApp(lobby_store, fake_tables, clock=clock, limits=Limits(spectators_max=7))
    _, token_host, _, _ = await app.sign_in_guest("İzlenen", "dev-watch-a")
    _, token_other, _, _ = await app.sign_in_guest("İzleyen", "dev-watch-b")
    card, _ = await app.open_table(verify_token(token_host), OKEY, private=True)
    api = LobbyServicer(app)

    class Context:
        def __init__(self, token: str) -> None:
            self.token = token

        def invocation_metadata(self) -> list[tuple[str, Any]]:
            return [("authorization", "Bearer " + self.token)]

    got = await api.AuthorizeWatch(pb.AuthorizeWatchRequest(table_id=card.table.table_id), Context(token_host))
    assert got.spectators_max == 7
    with pytest.raises(Forbidden) as err:
        await api.AuthorizeWatch(pb.AuthorizeWatchRequest(table_id=card.table.table_id), Context(token_other))
    assert err.value.reason == "INVITE_REQUIRED"

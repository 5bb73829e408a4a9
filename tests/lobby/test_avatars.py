"""Faces (issue 47.3): a fixed set (okey.v1.Avatar, its one list) a player picks from with
SetAvatar; until they do, a default derived from their player id (stable). The face is on the
profile and wherever the player is shown: a table's seats, the friends list (friends and
requests), chat messages' senders and FindPlayers. On the lobby's use cases and its servicer over
a fresh PostgreSQL, clock injected."""

from __future__ import annotations

from typing import Any

import pytest
from lobby_helpers import Guest, proven
from okey.v1 import lobby_service_pb2 as pb
from okeycore.options import Game, TableOptions

from services.lobby.api import LobbyServicer, message_pb, profile_pb
from services.lobby.app import LobbyApp
from services.lobby.avatars import AVATARS, default_avatar, face
from services.lobby.errors import Invalid
from services.lobby.messages import found_pb, friend_pb, person_pb, table_pb
from services.lobby.store import MIGRATIONS


class Context:
    def __init__(self, token: str) -> None:
        self.token = token

    def invocation_metadata(self) -> list[tuple[str, Any]]:
        return [("authorization", "Bearer " + self.token)]


def test_the_set_is_the_proto_enum_without_unspecified() -> None:
    assert {v.number: v.name for v in pb.Avatar.DESCRIPTOR.values if v.number} == AVATARS
    assert len(AVATARS) == 12 and AVATARS[pb.AVATAR_TULIP] == "AVATAR_TULIP"
    assert MIGRATIONS[-1][0] == 17 and "avatar SMALLINT" in MIGRATIONS[-1][1]


def test_the_default_is_stable_in_the_set_and_spread() -> None:
    ids = [f"p-{i:016x}" for i in range(600)]
    defaults = [default_avatar(i) for i in ids]
    assert defaults == [default_avatar(i) for i in ids]  # stable
    assert set(defaults) == set(AVATARS)  # every face is somebody's default
    # Pinned: a default never changes between runs or releases (not Python's salted hash()).
    assert (default_avatar("p-0000000000000000"), default_avatar("p-00000000000000ff")) == (9, 12)
    assert face("p-x", None) == default_avatar("p-x") and face("p-x", 999) == default_avatar("p-x")
    assert face("p-x", pb.AVATAR_OWL) == pb.AVATAR_OWL
    assert face(None, None) == 0 and face("p-x", pb.AVATAR_OWL, deleted=True) == 0


async def test_a_new_player_has_the_default_then_picks_one(app: LobbyApp, guest: Guest) -> None:
    a = await guest("Ayşe")
    mine = profile_pb(await app.profile(a, ""))
    assert mine.avatar == default_avatar(a.subject) != pb.AVATAR_UNSPECIFIED
    picked = pb.AVATAR_FOX if mine.avatar != pb.AVATAR_FOX else pb.AVATAR_OWL
    after = await app.set_avatar(a, picked)
    assert profile_pb(after).avatar == picked and after.chips is not None  # the caller's own profile
    assert profile_pb(await app.profile(a, "")).avatar == picked
    b = await guest("Barış")
    assert profile_pb(await app.profile(b, a.subject)).avatar == picked  # another's public profile
    await app.set_avatar(a, pb.AVATAR_TEA)  # picked again
    assert profile_pb(await app.profile(b, a.subject)).avatar == pb.AVATAR_TEA


@pytest.mark.parametrize("avatar", [pb.AVATAR_UNSPECIFIED, 13, 99, -1])
async def test_unspecified_or_a_number_not_in_the_enum_is_unknown_avatar(
    app: LobbyApp, guest: Guest, avatar: int
) -> None:
    a = await guest()
    with pytest.raises(Invalid) as err:
        await app.set_avatar(a, avatar)
    assert err.value.reason == "UNKNOWN_AVATAR"
    assert profile_pb(await app.profile(a, "")).avatar == default_avatar(a.subject)


async def test_the_face_is_on_seats_chat_friends_and_players_found(app: LobbyApp, guest: Guest) -> None:
    a, b = await guest("Cemile"), await guest("Cengiz")
    await app.set_avatar(a, pb.AVATAR_KITE)
    card, _ = await app.open_table(a, TableOptions(game=Game.OKEY))
    tid = card.table.table_id
    await app.join(b, tid)
    seats = {s.player_id: s for s in table_pb(await app.table_card(b, tid)).seats}
    assert seats[a.subject].avatar == pb.AVATAR_KITE
    assert seats[b.subject].avatar == default_avatar(b.subject)
    assert all(s.avatar == 0 for s in seats.values() if not s.player_id)  # open seats have none
    # chat: texts and emotes, as sent and as listed, at a table and in the lobby
    sent = await app.send_message(a, tid, "Merhaba!")
    emote = await app.send_emote(a, tid, pb.EMOTE_BOL_SANS)
    lobby = await app.send_message(b, "", "Selam")
    assert message_pb(sent).avatar == message_pb(emote).avatar == pb.AVATAR_KITE
    assert message_pb(lobby).avatar == default_avatar(b.subject)
    assert [message_pb(m).avatar for m in await app.list_messages(b, tid, 0, 50)] == [pb.AVATAR_KITE] * 2
    # a new pick shows on what is listed after it
    await app.set_avatar(a, pb.AVATAR_MOON)
    assert [message_pb(m).avatar for m in await app.list_messages(b, tid, 0, 50)] == [pb.AVATAR_MOON] * 2
    # friends: the players found, the request, then the friend
    found = {f.player_id: found_pb(f) for f in await app.find_players(b, "Cem")}
    assert found[a.subject].avatar == pb.AVATAR_MOON
    await app.send_friend_request(b, a.subject)
    incoming = (await app.list_friends(a)).incoming
    assert [(person_pb(p).player_id, person_pb(p).avatar) for p in incoming] == [(b.subject, default_avatar(b.subject))]
    accepted = await app.accept_friend_request(a, b.subject)
    assert friend_pb(accepted).avatar == default_avatar(b.subject)
    friends_of_b = (await app.list_friends(b)).friends
    assert [(friend_pb(f).player_id, friend_pb(f).avatar) for f in friends_of_b] == [(a.subject, pb.AVATAR_MOON)]


async def test_set_avatar_over_the_servicer(app: LobbyApp) -> None:
    signed, token, _, _ = await app.sign_in_guest("Deniz", "dev-face-api")
    api = LobbyServicer(app)
    got = await api.SetAvatar(pb.SetAvatarRequest(avatar=pb.AVATAR_ANCHOR), Context(token))
    assert (got.profile.player_id, got.profile.avatar, got.profile.display_name) == (
        signed.player_id,
        pb.AVATAR_ANCHOR,
        "Deniz",
    )
    again = await api.GetPlayer(pb.GetPlayerRequest(), Context(token))
    assert again.player.avatar == pb.AVATAR_ANCHOR
    with pytest.raises(Invalid) as err:
        await api.SetAvatar(pb.SetAvatarRequest(avatar=pb.AVATAR_UNSPECIFIED), Context(token))
    assert err.value.reason == "UNKNOWN_AVATAR"


async def test_a_deleted_player_has_no_face(app: LobbyApp, guest: Guest) -> None:
    b = await guest("Emre")
    gone = await app.sign_in("Ekin", "dev-face-del")
    ekin = await proven(app, gone)  # deleting the account needs a recent proof
    await app.set_avatar(ekin, pb.AVATAR_LEAF)
    await app.delete_account(ekin, "Ekin")
    assert profile_pb(await app.profile(b, ekin.subject)).avatar == pb.AVATAR_UNSPECIFIED

"""Quick emotes at the table (issue 44.6): a fixed set (okey.v1.Emote, its one list) sent by a
person seated at the table, stored in the table's chat and listed with it (an emote, no text),
hidden from a player who muted the sender, refused to a player muted by staff, and limited to 3
per 10 s apart from text. On the lobby's use cases over a fresh PostgreSQL, clock injected."""

from __future__ import annotations

from typing import Any

import pytest
from lobby_helpers import Clock, Guest
from okey.v1 import common_pb2
from okey.v1 import lobby_service_pb2 as pb
from okeycore.options import Game, TableOptions
from okeyplatform.auth import Identity

from services.lobby.api import LobbyServicer
from services.lobby.app import LobbyApp
from services.lobby.chat import EMOTES
from services.lobby.errors import Flood, Invalid, NotFound, Refused
from services.lobby.policy import Limits
from services.lobby.store import LobbyStore

ADMIN = Identity("admin-1", "admin")
BOL_SANS = pb.EMOTE_BOL_SANS
TEBRIKLER = pb.EMOTE_TEBRIKLER


async def _table(app: LobbyApp, *people: Identity) -> str:
    """A waiting table opened by the first person, the others seated at it."""
    card, _ = await app.open_table(people[0], TableOptions(game=Game.OKEY))
    tid = card.table.table_id
    for p in people[1:]:
        await app.join(p, tid)
    return tid


def test_the_set_is_the_proto_enum_without_unspecified() -> None:
    assert {v.number: v.name for v in pb.Emote.DESCRIPTOR.values if v.number} == EMOTES
    assert 6 <= len(EMOTES) <= 8 and EMOTES[BOL_SANS] == "EMOTE_BOL_SANS"


async def test_a_seated_player_s_emote_is_in_the_table_s_chat_as_an_emote_without_text(
    app: LobbyApp, guest: Guest
) -> None:
    a, b = await guest("Ayşe"), await guest("Barış")
    tid = await _table(app, a, b)
    said = await app.send_message(a, tid, "Selam!")
    sent = await app.send_emote(a, tid, BOL_SANS)
    assert (sent.channel, sent.player_id, sent.display_name, sent.emote, sent.text) == (
        tid,
        a.subject,
        "Ayşe",
        BOL_SANS,
        "",
    )
    for reader in (a, b):
        got = await app.list_messages(reader, tid, 0, 50)
        assert [(m.message_id, m.text, m.emote) for m in got] == [
            (said.message_id, "Selam!", 0),
            (sent.message_id, "", BOL_SANS),
        ]
    assert [m.message_id for m in await app.list_messages(b, tid, said.message_id, 50)] == [sent.message_id]
    assert await app.list_messages(b, "", 0, 50) == []  # not in the lobby's chat


async def test_the_api_sends_and_lists_an_emote_as_chat_message_emote(app: LobbyApp) -> None:
    """SendEmote and ListMessages over the servicer: ChatMessage.emote set, text empty."""
    _, token_a, _, _ = await app.sign_in_guest("Cem", "dev-api-a")
    _, token_b, _, _ = await app.sign_in_guest("Deniz", "dev-api-b")
    api = LobbyServicer(app)

    class Context:
        def __init__(self, token: str) -> None:
            self.token = token

        def invocation_metadata(self) -> list[tuple[str, Any]]:
            return [("authorization", "Bearer " + self.token)]

    opened = await api.OpenTable(
        pb.OpenTableRequest(options=common_pb2.TableOptions(game=common_pb2.GAME_OKEY)), Context(token_a)
    )
    tid = opened.table.table_id
    await api.JoinTable(pb.JoinTableRequest(table_id=tid), Context(token_b))
    sent = await api.SendEmote(pb.SendEmoteRequest(table_id=tid, emote=TEBRIKLER), Context(token_a))
    assert sent.message.emote == pb.EMOTE_TEBRIKLER and sent.message.text == ""
    listed = await api.ListMessages(pb.ListMessagesRequest(table_id=tid), Context(token_b))
    assert [(m.message_id, m.emote, m.text, m.display_name) for m in listed.messages] == [
        (sent.message.message_id, pb.EMOTE_TEBRIKLER, "", "Cem")
    ]


async def test_only_a_person_seated_at_the_table_sends_one(app: LobbyApp, guest: Guest) -> None:
    a, b, outsider = await guest(), await guest(), await guest()
    tid = await _table(app, a, b)
    with pytest.raises(Refused) as err:
        await app.send_emote(outsider, tid, BOL_SANS)
    assert err.value.reason == "NOT_SEATED"
    with pytest.raises(Invalid) as bad:  # the lobby's chat has no emotes
        await app.send_emote(a, "", BOL_SANS)
    assert bad.value.reason == "INVALID_ARGUMENT"
    assert await app.list_messages(b, tid, 0, 50) == []
    # Staff, as with the table's chat: at any table that exists, seated or not.
    moderator = Identity(outsider.subject, "moderator")
    sent = await app.send_emote(moderator, tid, BOL_SANS)
    assert [m.message_id for m in await app.list_messages(b, tid, 0, 50)] == [sent.message_id]
    with pytest.raises(NotFound) as missing:
        await app.send_emote(moderator, "no-such-table", BOL_SANS)
    assert missing.value.reason == "TABLE_NOT_FOUND"


@pytest.mark.parametrize("emote", [pb.EMOTE_UNSPECIFIED, 99, -1])
async def test_unspecified_or_a_number_not_in_the_enum_is_unknown_emote(
    app: LobbyApp, guest: Guest, emote: int
) -> None:
    a, b = await guest(), await guest()
    tid = await _table(app, a, b)
    with pytest.raises(Invalid) as err:
        await app.send_emote(a, tid, emote)
    assert err.value.reason == "UNKNOWN_EMOTE"
    assert await app.list_messages(b, tid, 0, 50) == []


async def test_three_emotes_per_ten_seconds_then_flood_counted_apart_from_text(
    app: LobbyApp, guest: Guest, clock: Clock
) -> None:
    assert (Limits().emote_max, Limits().emote_window.total_seconds()) == (3, 10)
    a, b = await guest(), await guest()
    tid = await _table(app, a, b)
    for _ in range(3):
        await app.send_emote(a, tid, BOL_SANS)
        clock.advance(seconds=3)  # 0 s, 3 s, 6 s
    with pytest.raises(Flood) as err:  # at 9 s: three in the last 10 s
        await app.send_emote(a, tid, TEBRIKLER)
    assert err.value.reason == "FLOOD"
    await app.send_message(a, tid, "Bir dakika, çay geliyor.")  # text has limits of its own
    clock.advance(seconds=1.5)  # 10.5 s: the first emote is out of the window
    await app.send_emote(a, tid, TEBRIKLER)
    with pytest.raises(Flood):
        await app.send_emote(a, tid, TEBRIKLER)
    await app.send_emote(b, tid, TEBRIKLER)  # per player
    listed = [m.emote for m in await app.list_messages(b, tid, 0, 50) if m.emote]
    assert listed == [BOL_SANS, BOL_SANS, BOL_SANS, TEBRIKLER, TEBRIKLER]  # nothing refused was stored
    # Emotes do not count against the text flood either: five texts still go.
    for i in range(5):
        await app.send_message(b, tid, f"mesaj {i}")


async def test_a_player_who_muted_the_sender_does_not_see_their_emotes(app: LobbyApp, guest: Guest) -> None:
    a, b, c = await guest(), await guest(), await guest()
    tid = await _table(app, a, b, c)
    first = await app.send_emote(a, tid, BOL_SANS)
    await app.mute(b, a.subject, True)
    await app.send_emote(a, tid, TEBRIKLER)
    assert await app.list_messages(b, tid, 0, 50) == []  # neither the one before the mute nor after
    assert [m.emote for m in await app.list_messages(c, tid, 0, 50)] == [BOL_SANS, TEBRIKLER]
    await app.mute(b, a.subject, False)
    assert [m.message_id for m in await app.list_messages(b, tid, 0, 1)] == [first.message_id]


async def test_a_player_muted_by_staff_sends_no_emote(app: LobbyApp, guest: Guest, clock: Clock) -> None:
    a, b = await guest(), await guest()
    tid = await _table(app, a, b)
    report_id = await app.report(b, a.subject, "ABUSE", "", [], tid)
    await app.resolve_report(ADMIN, report_id, "MUTE", 30, "rahatsız ediyor")
    with pytest.raises(Refused) as err:
        await app.send_emote(a, tid, BOL_SANS)
    assert err.value.reason == "MUTED"
    clock.advance(minutes=31)
    await app.send_emote(a, tid, BOL_SANS)


async def test_an_emote_is_no_report_evidence_and_an_erased_player_s_emotes_are_gone(
    app: LobbyApp, guest: Guest, lobby_store: LobbyStore, clock: Clock
) -> None:
    a, b = await guest(), await guest()
    tid = await _table(app, a, b)
    said = await app.send_message(a, tid, "Hadi bakalım")
    emote = await app.send_emote(a, tid, BOL_SANS)
    with pytest.raises(Invalid):  # fixed phrases: nothing in them to report
        await app.report(b, a.subject, "ABUSE", "", [emote.message_id], tid)
    report_id = await app.report(b, a.subject, "ABUSE", "", [said.message_id], tid)
    [(_, context, _)] = [r for r in await app.reports(ADMIN, False, 50) if r[0].report_id == report_id]
    assert [m.message_id for m in context] == [said.message_id]
    async with lobby_store.unit() as uow:
        await uow.erasure.scrub(a.subject, "", clock())
    assert await app.list_messages(b, tid, 0, 50) == []

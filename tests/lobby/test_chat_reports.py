"""Chat under the house rules (seed 000, "Salonda herkes misafir"), flood limits, muting, and
reports resolved by an admin: report -> ban -> no seat and no chat."""

from __future__ import annotations

import pytest
from lobby_helpers import Clock, Guest
from okeycore.options import Game, TableOptions
from okeyplatform.auth import Identity

from services.lobby.app import LobbyApp
from services.lobby.errors import Flood, Forbidden, Invalid, Refused
from services.lobby.tables import CANCELLED

ADMIN = Identity("admin-1", "admin")


async def test_lobby_chat_delivers_clean_turkish_text(app: LobbyApp, guest: Guest) -> None:
    a, b = await guest("Çağrı"), await guest("Gülşen")
    sent = await app.send_message(a, "", "Günaydın! Bugün şanslı hissediyorum, ağır oynayalım mı?")
    assert sent.display_name == "Çağrı" and sent.channel == ""
    got = await app.list_messages(b, "", 0, 50)
    assert [m.text for m in got] == ["Günaydın! Bugün şanslı hissediyorum, ağır oynayalım mı?"]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("s1kt1r git", "PROFANITY"),
        ("şerefsiz herif", "INSULT"),
        ("numaram 0532 123 45 67", "PERSONAL_INFO"),
        ("ucuz chip satılır", "ADVERTISING"),
        ("okeyhile.com'a gel", "LINK"),
    ],
)
async def test_a_message_breaking_a_house_rule_is_refused_with_the_reason_shown(
    app: LobbyApp, guest: Guest, text: str, reason: str
) -> None:
    me = await guest()
    with pytest.raises(Refused) as err:
        await app.send_message(me, "", text)
    assert err.value.reason == reason and "gönderilmedi" in err.value.message
    assert await app.list_messages(me, "", 0, 50) == []  # nothing was stored or delivered


async def test_table_chat_is_for_the_players_at_the_table(app: LobbyApp, guest: Guest) -> None:
    a, b, outsider = await guest(), await guest(), await guest()
    card, _ = await app.open_table(a, TableOptions(game=Game.OKEY))
    tid = card.table.table_id
    await app.join(b, tid)
    await app.send_message(a, tid, "İyi oyunlar, kolay gelsin!")
    assert [m.text for m in await app.list_messages(b, tid, 0, 50)] == ["İyi oyunlar, kolay gelsin!"]
    assert await app.list_messages(b, "", 0, 50) == []  # not in the lobby
    for call in (app.send_message(outsider, tid, "selam"), app.list_messages(outsider, tid, 0, 50)):
        with pytest.raises(Refused) as err:
            await call
        assert err.value.reason == "NOT_SEATED"


async def test_flood_limits_rate_and_repeats(app: LobbyApp, guest: Guest, clock: Clock) -> None:
    me = await guest()
    for i in range(5):
        await app.send_message(me, "", f"mesaj {i}")
        clock.advance(seconds=1)
    with pytest.raises(Flood) as err:
        await app.send_message(me, "", "bir tane daha")
    assert err.value.reason == "FLOOD"
    clock.advance(seconds=10)
    await app.send_message(me, "", "Hadi başlayalım")
    clock.advance(seconds=3)
    await app.send_message(me, "", "hadi BAŞLAYALIM!")  # reads the same: the second time
    clock.advance(seconds=3)
    with pytest.raises(Flood):
        await app.send_message(me, "", "Hadi başlayalım...")
    clock.advance(seconds=61)
    await app.send_message(me, "", "Hadi başlayalım")


async def test_empty_and_too_long_messages_are_invalid(app: LobbyApp, guest: Guest) -> None:
    me = await guest()
    for text, reason in (("   ", "EMPTY_MESSAGE"), ("ş" * 201, "MESSAGE_TOO_LONG")):
        with pytest.raises(Invalid) as err:
            await app.send_message(me, "", text)
        assert err.value.reason == reason


async def test_muting_hides_a_player_s_messages_from_the_muter_only(app: LobbyApp, guest: Guest) -> None:
    a, b, c = await guest(), await guest(), await guest()
    await app.send_message(b, "", "Merhaba millet")
    await app.mute(a, b.subject, True)
    assert await app.list_messages(a, "", 0, 50) == []
    assert len(await app.list_messages(c, "", 0, 50)) == 1
    await app.mute(a, b.subject, False)
    assert len(await app.list_messages(a, "", 0, 50)) == 1
    with pytest.raises(Invalid):
        await app.mute(a, a.subject, True)


async def test_report_then_ban_refuses_seats_and_chat(app: LobbyApp, guest: Guest, clock: Clock) -> None:
    victim, offender, other = await guest("Zeynep"), await guest("Kötü_Adam"), await guest()
    waiting, _ = await app.open_table(offender, TableOptions(game=Game.OKEY))
    before = await app.send_message(offender, "", "merhaba")
    bad = await app.send_message(offender, "", "kaybedersen seni bulurum")  # a threat the filter cannot know
    after = await app.send_message(victim, "", "bu ne demek şimdi?")
    report_id = await app.report(victim, offender.subject, "ABUSE", "Tehdit etti", [bad.message_id], "")
    with pytest.raises(Refused) as err:
        await app.report(victim, offender.subject, "ABUSE", "again", [], "")
    assert err.value.reason == "ALREADY_REPORTED"
    with pytest.raises(Invalid):  # a message of somebody else is no evidence against them
        await app.report(other, offender.subject, "ABUSE", "", [after.message_id], "")
    with pytest.raises(Forbidden) as denied:
        await app.reports(victim, False, 50)  # role-checked
    assert denied.value.reason == "STAFF_ONLY"
    [(report, context, earlier)] = await app.reports(ADMIN, False, 50)
    assert report.report_id == report_id and report.status == "OPEN" and earlier == 0
    assert report.player_name == "Kötü_Adam" and report.reporter_name == "Zeynep"
    assert [m.message_id for m in context] == [before.message_id, bad.message_id, after.message_id]

    report, _, _ = await app.resolve_report(ADMIN, report_id, "BAN", 60 * 24, "tehdit")
    assert report.status == "RESOLVED" and report.action == "BAN" and report.resolved_by == "admin-1"
    assert (await app.table_card(other, waiting.table.table_id)).table.status == CANCELLED  # seat freed
    for call in (
        app.open_table(offender, TableOptions(game=Game.OKEY)),
        app.join(offender, (await app.open_table(other, TableOptions(game=Game.OKEY)))[0].table.table_id),
        app.send_message(offender, "", "özür dilerim"),
    ):
        with pytest.raises(Refused) as err:
            await call
        assert err.value.reason == "BANNED"
    with pytest.raises(Forbidden):  # the device is banned too: no fresh guest account from it
        await app.sign_in_guest("Yeni_Hesap", offender.device)
    with pytest.raises(Refused) as err:
        await app.resolve_report(ADMIN, report_id, "DISMISS", 0, "")
    assert err.value.reason == "ALREADY_RESOLVED"
    clock.advance(days=1, minutes=1)  # the ban ran out
    await app.send_message(offender, "", "tekrar merhaba")


async def test_mute_and_warn_sanctions(app: LobbyApp, guest: Guest, clock: Clock) -> None:
    a, b, c = await guest(), await guest(), await guest()
    r1 = await app.report(a, b.subject, "ADVERTISING", "", [], "")
    await app.resolve_report(ADMIN, r1, "MUTE", 30, "")
    with pytest.raises(Refused) as err:
        await app.send_message(b, "", "selam")
    assert err.value.reason == "MUTED"
    card, _ = await app.open_table(b, TableOptions(game=Game.OKEY))  # a muted player may still sit
    assert card.seats_taken == 1
    clock.advance(minutes=31)
    await app.send_message(b, "", "selam")
    r2 = await app.report(c, b.subject, "STALLING", "oyunu uzatıyor", [], "")
    [(_, _, earlier)] = [r for r in await app.reports(ADMIN, False, 50) if r[0].report_id == r2]
    assert earlier == 1
    await app.resolve_report(ADMIN, r2, "WARN", 0, "")
    assert (await app.profile(b, "")).player.warnings == 1
    with pytest.raises(Invalid):
        await app.resolve_report(ADMIN, r2, "MUTE", 0, "")  # a mute needs a duration

"""What the lobby tells a player about their own situation (issue 40.2, 40.4, 40.5): a table
that will be unranked says so on its card (practice: fewer than two people, the scoring
service's own rule), the profile's "can claim" is the claim's answer (one check decides both,
for a new guest behind a busy address too), and quick play says when it took the caller back to
a table they already sat at rather than the game and stake asked."""

from __future__ import annotations

from dataclasses import replace

import pytest
from lobby_helpers import Clock, FakeTables, Guest
from okeycore.options import Game, TableOptions
from okeyplatform.auth import Identity, verify_token

from services.lobby.app import LobbyApp
from services.lobby.cards import is_practice
from services.lobby.errors import Flood
from services.lobby.policy import Limits, next_day_start
from services.lobby.store import LobbyStore
from services.lobby.tables import PLAYING, WAITING
from services.scoring.projection import is_ranked

CAFE = "198.51.100.20"


# ------------------------------------------------------------------ 40.2 practice is named


@pytest.mark.parametrize(
    "players",
    [("p-a", "", "", ""), ("p-a", "p-a", "", ""), ("", "", "", ""), ("p-a", "p-b", "", ""), ("p-a", "", "p-b", "p-c")],
)
def test_the_lobbys_practice_is_the_scoring_services_unranked(players: tuple[str, ...]) -> None:
    assert is_practice(players) is not is_ranked(players)


async def test_a_one_person_table_is_practice_on_its_card_and_a_second_person_makes_it_count(
    app: LobbyApp, guest: Guest
) -> None:
    a, b, c = await guest(), await guest(), await guest()
    solo, _ = await app.open_table(a, TableOptions(game=Game.OKEY), fill_with_bots=True)
    assert solo.table.status in ("STARTING", PLAYING) and solo.practice
    # anyone reading that card (a spectator) reads practice too: the match has one person
    assert (await app.table_card(b, solo.table.table_id)).practice
    # a waiting table: practice to the one who waits there (filled with bots now, it would be),
    # not to a second person, whose seat would make it count
    waiting, _ = await app.open_table(a, TableOptions(game=Game.OKEY101))
    tid = waiting.table.table_id
    assert waiting.table.status == WAITING and waiting.practice
    assert not (await app.table_card(b, tid)).practice
    listed, _ = await app.list_tables(c, "OKEY101", False, 50, "")
    assert [t.practice for t in listed if t.table.table_id == tid] == [False]
    await app.join(b, tid)
    assert not (await app.table_card(a, tid)).practice
    started = await app.fill_with_bots(a, tid)
    assert not started.practice  # two people: ranked


# ------------------------------------------------------------------ 40.4 a coherent welcome


async def test_the_second_guest_behind_a_busy_address_is_told_why_and_the_claim_agrees(
    lobby_store: LobbyStore, fake_tables: FakeTables, clock: Clock
) -> None:
    app = LobbyApp(lobby_store, fake_tables, clock=clock, limits=Limits(grants_per_address=1))
    first = await app.sign_in("Ev Bir", "tablet-1", CAFE)
    second = await app.sign_in("Ev Iki", "tablet-2", CAFE)
    assert first.chips_granted == 1000 and second.chips_granted == 0
    who = verify_token(second.token)
    profile = await app.profile(who, "", CAFE)
    assert profile.chips == 0 and profile.daily is not None
    assert profile.daily.why == "ADDRESS" and profile.daily.limit == 1
    assert profile.next_daily_chips_at == next_day_start(clock.now)  # not "now": nothing to claim
    with pytest.raises(Flood) as err:
        await app.claim_daily_chips(who, CAFE)
    # the claim refuses with the same reason, and says what to do
    assert err.value.reason == "DAILY_CHIPS_TAKEN" and err.value.message == profile.daily.refusal()
    assert "per address" in err.value.message and "without a stake" in err.value.message
    # away from the café (another address) the profile says they can be had, and they are
    elsewhere = await app.profile(who, "", "203.0.113.9")
    assert elsewhere.daily is not None and elsewhere.daily.can
    assert elsewhere.next_daily_chips_at == clock.now
    assert (await app.claim_daily_chips(who, "203.0.113.9"))[0] == 1000
    after = await app.profile(who, "", "203.0.113.9")
    assert after.daily is not None and after.daily.why == "CLAIMED"
    # the first guest: claimed at sign-in, said so
    mine = await app.profile(verify_token(first.token), "", CAFE)
    assert mine.daily is not None and mine.daily.why == "CLAIMED"
    # another player's profile carries no answer about someone else's chips
    assert (await app.profile(who, first.player.player_id, CAFE)).daily is None


async def test_the_device_quota_is_named_as_the_device_in_the_profile_and_the_claim(
    app: LobbyApp, clock: Clock
) -> None:
    await app.sign_in("Cihaz Bir", "phone-9")
    second = await app.sign_in("Cihaz Iki", "phone-9")
    who = verify_token(second.token)
    profile = await app.profile(who, "")
    assert profile.daily is not None and profile.daily.why == "DEVICE"
    with pytest.raises(Flood) as err:
        await app.claim_daily_chips(who)
    assert err.value.message == profile.daily.refusal() and "device" in err.value.message
    clock.now = next_day_start(clock.now)  # a new Turkish day: both say yes
    assert (await app.profile(who, "")).daily.can  # type: ignore[union-attr]
    assert (await app.claim_daily_chips(who))[0] == 1000


# ------------------------------------------------------------------ 40.5 quick play says what it does


async def test_quick_play_says_it_returned_to_a_running_match_and_leaving_lets_it_play_as_asked(
    app: LobbyApp, guest: Guest
) -> None:
    a: Identity = await guest()
    running, _ = await app.open_table(a, TableOptions(game=Game.OKEY), fill_with_bots=True)
    await app.launch(running.table.table_id)
    asked = TableOptions(game=Game.OKEY101, stake=0)
    back = await app.quick_play_answer(a, asked)
    assert back.returned == "IN_PLAY" and back.card.table.table_id == running.table.table_id
    assert not back.opened and back.card.table.game == "OKEY"  # not what was asked: said so
    await app.leave(a, running.table.table_id)
    fresh = await app.quick_play_answer(a, asked)
    assert fresh.returned == "" and fresh.opened and fresh.card.table.game == "OKEY101"
    # asking again with the same options: the waiting table it already sits at, said so
    again = await app.quick_play_answer(a, asked)
    assert again.returned == "WAITING" and again.card.table.table_id == fresh.card.table.table_id
    # a second person is seated there: a plain sit, nothing returned
    b = await guest()
    joined = await app.quick_play_answer(b, replace(asked))
    assert joined.returned == "" and joined.card.table.table_id == fresh.card.table.table_id
    # the old tuple answer is unchanged for its callers
    card, _, opened, started = await app.quick_play(b, asked)
    assert card.table.table_id == fresh.card.table.table_id and not opened and not started

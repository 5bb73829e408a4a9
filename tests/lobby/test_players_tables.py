"""Players, the tables directory, seating and the chips around a match: the lobby's use cases on
real PostgreSQL, with a fake table service that records each match start."""

from __future__ import annotations

import asyncio
from dataclasses import fields, replace
from datetime import UTC, datetime, timedelta

import pytest
from lobby_helpers import Clock, FakeTables, Guest, chips_of
from okeycore.options import DiscardHistory, Game, Mode101, TableOptions
from okeyplatform.auth import verify_token

from services.lobby.app import LobbyApp
from services.lobby.cards import CLASSIC_OPTIONS, OKEY101_OPTIONS, rule_lines
from services.lobby.errors import Exists, Forbidden, Invalid, NotFound, Refused, StartFailed
from services.lobby.ledger_repo import HOUSE
from services.lobby.tables import CANCELLED, FINISHED, PLAYING, STARTING, WAITING

CLASSIC = TableOptions(game=Game.OKEY)
STAKE = TableOptions(game=Game.OKEY, stake=100)


# ------------------------------------------------------------------ players


async def test_guest_sign_in_gives_a_token_the_platform_accepts_and_the_first_daily_chips(app: LobbyApp) -> None:
    player, token, expires, granted = await app.sign_in_guest("Ayşe Nur", "phone-1")
    identity = verify_token(token)  # the same check the gateway and the table service make
    assert identity.subject == player.player_id and identity.role == "player" and identity.device == "phone-1"
    assert granted == 1000 and expires > player.created_at
    assert await chips_of(app, identity) == 1000


async def test_a_display_name_is_unique_whatever_its_case_and_turkish_letters(app: LobbyApp) -> None:
    await app.sign_in_guest("Ayşe Nur", "d1")
    for same in ("ayse nur", "AYŞE_NUR", "Ayşe.Nur"):
        with pytest.raises(Exists) as err:
            await app.sign_in_guest(same, "d2")
        assert err.value.reason == "NAME_TAKEN"


@pytest.mark.parametrize("name", ["x", "Admin", "Siktir", "Ali 0532 1234567", "Ali<script>"])
async def test_an_invalid_display_name_is_refused_with_the_reason(app: LobbyApp, name: str) -> None:
    with pytest.raises(Invalid) as err:
        await app.sign_in_guest(name, "d1")
    assert err.value.reason == "INVALID_NAME" and err.value.message


async def test_a_device_id_is_made_up_when_missing_and_checked_when_given(app: LobbyApp) -> None:
    player, token, _, _ = await app.sign_in_guest("Kerem", "")
    assert player.device_id and verify_token(token).device == player.device_id
    with pytest.raises(Invalid):
        await app.sign_in_guest("Kerem2", "bad device id with spaces")


async def test_daily_chips_once_per_day_in_turkey_time(app: LobbyApp, guest: Guest, clock: Clock) -> None:
    me = await guest()
    granted, balance, next_at = await app.claim_daily_chips(me)
    assert (granted, balance) == (0, 1000)  # already granted at sign-in
    assert next_at.hour == 21 and next_at > clock.now  # midnight in Turkey is 21:00 UTC
    clock.now = next_at
    granted, balance, _ = await app.claim_daily_chips(me)
    assert (granted, balance) == (1000, 2000)
    _, entries = await app.chips(me, 10)
    assert [e.kind for e in entries] == ["daily_grant", "daily_grant"]


async def test_another_players_profile_shows_no_chips(app: LobbyApp, guest: Guest) -> None:
    me, other = await guest(), await guest()
    mine = await app.profile(me, "")
    theirs = await app.profile(me, other.subject)
    assert mine.chips == 1000 and theirs.chips is None and theirs.player.display_name


# ------------------------------------------------------------------ opening tables


async def test_impossible_option_combinations_are_refused_with_a_reason(app: LobbyApp, guest: Guest) -> None:
    me = await guest()
    bad = [
        (TableOptions(game=Game.OKEY, partners=True, duel=True), "partners"),
        (TableOptions(game=Game.OKEY, match_points=0), "match_points"),
        (TableOptions(game=Game.OKEY, turn_seconds=3), "turn_seconds"),
        (TableOptions(game=Game.OKEY, seats=2), "seats"),
        (TableOptions(game=Game.OKEY, hand_prize=5), "hand_prize"),
        (TableOptions(game=Game.OKEY, stake=-1), "stake"),
        (TableOptions(game=Game.OKEY, stake=10**9), "stake"),
        (TableOptions(game=Game.OKEY101, rounds=4), "rounds"),
        (TableOptions(game=Game.OKEY101, seats=3), "2 or 4 seats"),
        (TableOptions(game=Game.OKEY101, colored=True), "colored is an option of classic Okey"),  # [D-9]
        (TableOptions(game=Game.OKEY, rounds=3), "rounds is an option of Okey 101"),  # [D-9]
        (TableOptions(game=Game.OKEY, mode=Mode101.FOLDING), "mode is an option of Okey 101"),  # [D-9]
        # [C-PAIR-3]: the combination is refused naming both options.
        (TableOptions(game=Game.OKEY, discard_history=DiscardHistory.PAIRS_ONLY), "pairs_declaration=BINDING"),
    ]
    for options, words in bad:
        with pytest.raises(Invalid) as err:
            await app.open_table(me, options)
        assert err.value.reason == "INVALID_OPTIONS" and words in err.value.message, err.value.message


async def test_the_lobby_card_lists_every_rule_option_of_its_game_and_the_stake(app: LobbyApp, guest: Guest) -> None:
    me = await guest()
    options = TableOptions(game=Game.OKEY, match_points=10, colored=True, partners=True, stake=50, penalties=True)
    card, seat = await app.open_table(me, options)
    assert seat == 0 and card.table.status == WAITING and card.table.stake == 50 and card.seats_taken == 1
    lines = rule_lines(card.options)
    assert [r.option for r in lines] == list(CLASSIC_OPTIONS)
    shown = {r.option: r.value for r in lines}
    assert shown["match_points"] == "10" and shown["colored"] == "on" and shown["partners"] == "on"
    assert shown["stake"] == "50" and shown["deck_end"] == "DEAD_HAND"
    labels = " | ".join(r.label for r in lines)
    assert "Renkli" in labels and "Eşli" in labels and "Cezalı" in labels and "Göstergeli" in labels
    card101, _ = await app.open_table(await guest(), TableOptions(game=Game.OKEY101, seats=2, mode=Mode101.FOLDING))
    lines101 = rule_lines(card101.options)
    assert [r.option for r in lines101] == list(OKEY101_OPTIONS)
    assert "Katlamalı" in " ".join(r.label for r in lines101) and card101.options.seat_count == 2
    # Every option of RULES.md section 5 is on one card or the other.
    assert set(CLASSIC_OPTIONS) | set(OKEY101_OPTIONS) == {f.name for f in fields(TableOptions)} - {"game"}


async def test_a_private_table_is_unlisted_and_needs_its_invite_code(app: LobbyApp, guest: Guest) -> None:
    me, friend, stranger = await guest(), await guest(), await guest()
    card, _ = await app.open_table(me, CLASSIC, private=True)
    code = card.table.invite_code
    assert code and card.show_invite
    listed, _ = await app.list_tables(stranger, None, False, 50, "")
    assert card.table.table_id not in {c.table.table_id for c in listed}
    with pytest.raises(NotFound):
        await app.table_card(stranger, card.table.table_id)
    with pytest.raises(Forbidden) as err:
        await app.join(stranger, card.table.table_id)
    assert err.value.reason == "INVITE_REQUIRED"
    by_code = await app.table_card(friend, invite_code=code)
    assert by_code.table.table_id == card.table.table_id and not by_code.show_invite
    joined, seat, _ = await app.join(friend, card.table.table_id, invite_code=code)
    assert seat == 1 and joined.show_invite  # seated players may pass the code on


async def test_list_tables_filters_by_game_and_pages(app: LobbyApp, guest: Guest) -> None:
    me = await guest()
    for _ in range(3):
        await app.open_table(me, CLASSIC)
    await app.open_table(await guest(), TableOptions(game=Game.OKEY101))  # another host: 3 open tables each at most
    first, token = await app.list_tables(me, "OKEY", False, 2, "")
    second, token2 = await app.list_tables(me, "OKEY", False, 2, token)
    assert len(first) == 2 and len(second) == 1 and token2 == ""
    assert all(c.table.game == "OKEY" for c in first + second)
    only101, _ = await app.list_tables(me, "OKEY101", False, 10, "")
    assert len(only101) == 1


# ------------------------------------------------------------------ seating


async def test_seating_rules_seat_taken_full_and_not_twice(
    app: LobbyApp, guest: Guest, fake_tables: FakeTables
) -> None:
    a, b, c, d, e = [await guest() for _ in range(5)]
    card, _ = await app.open_table(a, CLASSIC, seat=2)
    tid = card.table.table_id
    with pytest.raises(Refused) as err:
        await app.join(b, tid, seat=2)
    assert err.value.reason == "SEAT_TAKEN"
    with pytest.raises(Invalid):
        await app.join(b, tid, seat=7)
    with pytest.raises(Refused) as err:
        await app.join(a, tid)
    assert err.value.reason == "ALREADY_SEATED"  # [fair play] one player, one seat
    assert (await app.join(b, tid))[1] == 0
    assert (await app.join(c, tid))[1] == 1
    card, seat, started = await app.join(d, tid)
    assert seat == 3 and started and card.table.status == PLAYING
    with pytest.raises(Refused) as err:
        await app.join(e, tid)
    assert err.value.reason == "NOT_WAITING"
    assert fake_tables.created[-1][0] == tid
    assert fake_tables.created[-1][2] == (b.subject, c.subject, a.subject, d.subject)


async def test_two_accounts_from_one_device_cannot_hold_two_seats_at_a_table(app: LobbyApp, guest: Guest) -> None:
    first = await guest("Birinci", device="shared-phone")
    second = await guest("Ikinci", device="shared-phone")
    card, _ = await app.open_table(first, CLASSIC)
    with pytest.raises(Refused) as err:
        await app.join(second, card.table.table_id)
    assert err.value.reason == "SAME_DEVICE"
    other, _ = await app.open_table(await guest(), CLASSIC)  # another table is fine
    await app.join(second, other.table.table_id)


async def test_concurrent_joins_never_seat_two_players_in_one_seat(app: LobbyApp, guest: Guest) -> None:
    owner = await guest()
    players = [await guest() for _ in range(6)]
    card, _ = await app.open_table(owner, CLASSIC)
    got = await asyncio.gather(*(app.join(p, card.table.table_id) for p in players), return_exceptions=True)
    seated = [g for g in got if not isinstance(g, BaseException)]
    refused = [g for g in got if isinstance(g, Refused)]
    assert len(seated) == 3 and len(refused) == 3
    assert sorted(s for _, s, _ in seated) == [1, 2, 3]
    assert {r.reason for r in refused} <= {"TABLE_FULL", "NOT_WAITING", "SEAT_TAKEN"}


async def test_duel_seats_1_and_3_are_always_bots_C_SC_8(app: LobbyApp, guest: Guest, fake_tables: FakeTables) -> None:
    a, b = await guest(), await guest()
    card, seat = await app.open_table(a, TableOptions(game=Game.OKEY, duel=True))
    assert seat == 0 and [s.seat for s in card.seats if s.bot] == [1, 3]
    with pytest.raises(Invalid):
        await app.join(b, card.table.table_id, seat=1)
    card, seat, started = await app.join(b, card.table.table_id)
    assert seat == 2 and started
    assert fake_tables.created[-1][2] == (a.subject, "", b.subject, "")


async def test_the_creator_may_fill_empty_seats_with_bots(app: LobbyApp, guest: Guest, fake_tables: FakeTables) -> None:
    a, b = await guest(), await guest()
    card, _ = await app.open_table(a, STAKE)
    await app.join(b, card.table.table_id)
    with pytest.raises(Refused) as err:
        await app.fill_with_bots(b, card.table.table_id)
    assert err.value.reason == "NOT_CREATOR"
    card = await app.fill_with_bots(a, card.table.table_id)
    assert card.table.status == PLAYING and card.pot == 200  # only people stake
    assert fake_tables.created[-1][2] == (a.subject, b.subject, "", "")
    solo, _ = await app.open_table(await guest(), CLASSIC, fill_with_bots=True)
    assert solo.table.status == PLAYING and sum(s.bot for s in solo.seats) == 3


async def test_quick_play_finds_a_matching_open_table_or_opens_one(app: LobbyApp, guest: Guest) -> None:
    a, b, c = await guest(), await guest(), await guest()
    wanted = TableOptions(game=Game.OKEY, stake=10, colored=True)
    await app.open_table(a, replace(wanted, colored=False))  # different rules: not a match
    card1, seat, opened, _ = await app.quick_play(a, wanted)
    assert opened and seat == 0
    card2, seat, opened, _ = await app.quick_play(b, wanted)
    assert not opened and seat == 1 and card2.table.table_id == card1.table.table_id
    again, seat, opened, _ = await app.quick_play(b, wanted)  # asking twice keeps the seat
    assert not opened and again.table.table_id == card1.table.table_id and seat == 1
    card3, _, opened, _ = await app.quick_play(c, TableOptions(game=Game.OKEY101))
    assert opened and card3.table.game == "OKEY101"


async def test_leaving_before_the_start_frees_the_seat_and_an_empty_table_closes(app: LobbyApp, guest: Guest) -> None:
    a, b = await guest(), await guest()
    card, _ = await app.open_table(a, STAKE)
    tid = card.table.table_id
    await app.join(b, tid)
    card, forfeited = await app.leave(a, tid)
    assert forfeited == 0 and card.seats_taken == 1 and card.table.creator_id == b.subject
    card, _ = await app.leave(b, tid)
    assert card.table.status == CANCELLED
    assert await chips_of(app, a) == await chips_of(app, b) == 1000
    with pytest.raises(Refused) as err:
        await app.leave(b, tid)
    assert err.value.reason == "NOT_SEATED"


# ------------------------------------------------------------------ chips around a match


async def test_stakes_are_held_at_the_start_and_a_short_player_is_unseated(app: LobbyApp, guest: Guest) -> None:
    a, b = await guest(), await guest()
    rich = TableOptions(game=Game.OKEY, stake=600)
    t1, _ = await app.open_table(a, rich)
    t2, _ = await app.open_table(b, rich)
    await app.join(a, t2.table.table_id)  # a now sits at two tables, with chips for one stake
    await app.fill_with_bots(b, t2.table.table_id)  # b and a stake 600 each
    assert await chips_of(app, a) == 400
    with pytest.raises(Refused) as err:
        await app.fill_with_bots(a, t1.table.table_id)
    assert err.value.reason == "INSUFFICIENT_CHIPS"
    card = await app.table_card(a, t1.table.table_id)
    assert card.table.status == WAITING and card.seats_taken == 0  # a was unseated, nothing held
    with pytest.raises(Refused) as err:
        await app.open_table(a, rich)
    assert err.value.reason == "INSUFFICIENT_CHIPS"


async def test_pot_is_split_equally_among_winners_remainder_rounded_down_C_SC_9(app: LobbyApp, guest: Guest) -> None:
    players = [await guest() for _ in range(4)]
    card, _ = await app.open_table(players[0], TableOptions(game=Game.OKEY, stake=101))
    for p in players[1:]:
        await app.join(p, card.table.table_id)
    tid = card.table.table_id
    assert (await app.table_card(players[0], tid)).pot == 404
    assert [await chips_of(app, p) for p in players] == [899] * 4
    assert await app.settle_match(tid, winners=(0, 1, 3), scores=(5, 5, -2, 5))
    assert not await app.settle_match(tid, winners=(0, 1, 3))  # paid once
    # 404 // 3 = 134 each, remainder 2 to the house
    assert [await chips_of(app, p) for p in players] == [1033, 1033, 899, 1033]
    card = await app.table_card(players[0], tid)
    assert card.table.status == FINISHED and card.pot == 0
    assert card.table.result is not None and card.table.result["remainder"] == 2
    async with app.store.unit() as tx:
        assert (await tx.ledger.balances([HOUSE]))[HOUSE] == 2


async def test_leaving_mid_match_forfeits_the_stake_C_LEAVE_1(
    app: LobbyApp, guest: Guest, fake_tables: FakeTables
) -> None:
    players = [await guest() for _ in range(4)]
    card, _ = await app.open_table(players[0], TableOptions(game=Game.OKEY, stake=100, partners=True))
    tid = card.table.table_id
    for p in players[1:]:
        await app.join(p, tid)
    card, forfeited = await app.leave(players[2], tid)
    assert forfeited == 100 and next(s for s in card.seats if s.seat == 2).left
    # The table service is told: its SeatLeft makes the seat a bot's at once [D-10].
    assert fake_tables.left == [(tid, 2, players[2].subject)]
    _, forfeited = await app.leave(players[2], tid)  # leaving again changes nothing
    assert forfeited == 100 and fake_tables.left == [(tid, 2, players[2].subject)]
    assert card.table.status == PLAYING and card.pot == 400  # the stake stays in the pot
    # Seats 0 and 2 win as partners; 2 left, so its share goes to the house.
    await app.settle_match(tid, winners=(0, 2))
    assert [await chips_of(app, p) for p in players] == [1100, 900, 900, 900]
    async with app.store.unit() as tx:
        assert (await tx.ledger.balances([HOUSE]))[HOUSE] == 200


async def test_a_bot_winner_s_share_goes_to_the_house(app: LobbyApp, guest: Guest) -> None:
    a = await guest()
    card, _ = await app.open_table(a, TableOptions(game=Game.OKEY, stake=100), fill_with_bots=True)
    await app.settle_match(card.table.table_id, winners=(1,))
    assert await chips_of(app, a) == 900
    async with app.store.unit() as tx:
        assert (await tx.ledger.balances([HOUSE]))[HOUSE] == 100


async def test_101_hand_prize_each_other_seat_pays_the_finisher_O_DEAL_3(app: LobbyApp, guest: Guest) -> None:
    a, b = await guest(), await guest()
    card, _ = await app.open_table(a, TableOptions(game=Game.OKEY101, seats=2, stake=100, hand_prize=50))
    tid = card.table.table_id
    await app.join(b, tid)
    assert await app.pay_hand_prize(tid, 1, (50, -50))
    assert not await app.pay_hand_prize(tid, 1, (50, -50))  # once per hand
    assert (await chips_of(app, a), await chips_of(app, b)) == (950, 850)


async def test_a_permanent_start_failure_cancels_the_table_and_returns_the_stakes(
    app: LobbyApp, guest: Guest, fake_tables: FakeTables
) -> None:
    a = await guest()
    fake_tables.fail = StartFailed("INVALID_ARGUMENT: no engine", permanent=True)
    card, _ = await app.open_table(a, TableOptions(game=Game.OKEY, stake=100), fill_with_bots=True)
    assert card.table.status == CANCELLED and await chips_of(app, a) == 1000


async def test_a_passing_start_failure_is_retried(app: LobbyApp, guest: Guest, fake_tables: FakeTables) -> None:
    a = await guest()
    fake_tables.fail = StartFailed("UNAVAILABLE", permanent=False)
    card, _ = await app.open_table(a, TableOptions(game=Game.OKEY, stake=100), fill_with_bots=True)
    assert card.table.status == STARTING and card.pot == 100
    fake_tables.fail = None
    assert await app.retry_starting(older_than=timedelta(0)) == 1
    assert (await app.table_card(a, card.table.table_id)).table.status == PLAYING


async def test_15_4_a_match_end_the_stream_no_longer_holds_is_settled_from_the_log(
    app: LobbyApp, guest: Guest, fresh_database_url: str, clock: Clock
) -> None:
    """The lobby was away longer than the stream keeps events: the MatchEnded of a table it
    still has in play is read from the PostgreSQL log and settled (once: the live consumer's
    later copy, or another pass, changes nothing)."""
    from okeycore.events import MatchEnded, event_to_dict
    from okeyplatform.eventstore import NewEvent, PostgresEventStore

    from services.lobby.consumer import reconcile_from_log

    players = [await guest() for _ in range(4)]
    card, _ = await app.open_table(players[0], TableOptions(game=Game.OKEY, stake=50))
    for p in players[1:]:
        await app.join(p, card.table.table_id)
    tid = card.table.table_id
    assert (await app.table_card(players[0], tid)).table.status == PLAYING
    events = await PostgresEventStore.connect(fresh_database_url)
    try:
        end = event_to_dict(MatchEnded((4, 2, 0, 1), (0,), 200, 200, 0))
        end.pop("type")
        await events.append(tid, 0, [NewEvent("MatchEnded", end, 3)])
        later = clock() + timedelta(minutes=5)
        assert await reconcile_from_log(app, events, started_before=clock() - timedelta(minutes=5)) == 0  # too young
        assert await reconcile_from_log(app, events, started_before=later) == 1
        assert await reconcile_from_log(app, events, started_before=later) == 0  # settled once
    finally:
        await events.close()
    assert [await chips_of(app, p) for p in players] == [1150, 950, 950, 950]
    assert (await app.table_card(players[0], tid)).table.status == FINISHED


async def test_D_10_a_seat_left_at_the_table_service_is_marked_left_in_the_lobby(
    app: LobbyApp, guest: Guest, fake_tables: FakeTables
) -> None:
    """A player may leave at the table itself (TableService.Act leave_seat): the lobby learns it
    from the SeatLeft event, once, and the share that seat would win goes to the house."""
    from okeycore.events import SeatLeft
    from okeyplatform.contract import Envelope

    from services.lobby.consumer import handle_event

    players = [await guest() for _ in range(4)]
    card, _ = await app.open_table(players[0], TableOptions(game=Game.OKEY, stake=100))
    tid = card.table.table_id
    for p in players[1:]:
        await app.join(p, tid)
    env = Envelope(tid, 40, 1, datetime.now(UTC), "SeatLeft", 1, "", SeatLeft(1, players[1].subject))
    assert await handle_event(app, env)
    assert not await handle_event(app, env)  # a redelivery changes nothing
    card = await app.table_card(players[0], tid)
    assert next(s for s in card.seats if s.seat == 1).left and not fake_tables.left
    await app.settle_match(tid, winners=(1,))
    assert await chips_of(app, players[1]) == 900  # the leaver's stake is lost, the share is the house's

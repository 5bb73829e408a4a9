"""Issue 40.1, one truth for money and points: the lobby keeps one settlement record per match,
each seat's pay-in, hand prizes, payout and refund and why, written in the transaction of the
ledger postings it describes. Its sums agree with the ledger to the chip (a player's net is the
sum of their ledger entries of the table); bots pay nothing in; a redelivered end changes
nothing. The quote a card and QuotePot give before a sit is what the payment pays."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from lobby_helpers import FakeTables, Guest, assert_ledger_invariants, chips_of
from okeycore.classic import split_pot
from okeycore.events import MatchEnded
from okeycore.options import Game, TableOptions
from okeyplatform.auth import Identity
from okeyplatform.contract import Envelope

from services.lobby.app import LobbyApp
from services.lobby.consumer import handle_event
from services.lobby.errors import Refused, StartFailed
from services.lobby.ledger import quote
from services.lobby.ledger_repo import HOUSE, player_account
from services.lobby.settlement import REFUNDED, SETTLED, seat_net
from services.lobby.tables import PLAYING

STAKE = 100


def _end(table_id: str, winners: tuple[int, ...], seats: int = 4, stake: int = STAKE) -> Envelope:
    """The MatchEnded the table service publishes: the engine's pot is a stake per seat."""
    pot = stake * seats
    payout, remainder = split_pot(pot, len(winners))
    event = MatchEnded((1,) * seats, winners, pot, payout, remainder)
    return Envelope(table_id, 90, 3, datetime.now(UTC), "MatchEnded", -1, "", event)


async def _table(app: LobbyApp, guest: Guest, people: int, options: TableOptions) -> tuple[str, list[Identity]]:
    players = [await guest() for _ in range(people)]
    card, _ = await app.open_table(players[0], options)
    tid = card.table.table_id
    for p in players[1:]:
        await app.join(p, tid)
    if people < options.seat_count:
        await app.fill_with_bots(players[0], tid)
    assert (await app.table_card(players[0], tid)).table.status == PLAYING
    return tid, players


async def _entries_of(app: LobbyApp, who: Identity, table_id: str) -> int:
    """The sum of the player's ledger entries of the table (GetChips' entries)."""
    _, entries = await app.chips(who, 200)
    return sum(e.amount for e in entries if e.table_id == table_id)


async def _record(app: LobbyApp, who: Identity, table_id: str) -> tuple[str, dict[str, Any]]:
    row, _ = await app.settlement(who, table_id)
    assert row is not None
    return row.status, row.record


def _codes(lines: list[dict[str, Any]]) -> list[str]:
    return [x["code"] for x in lines]


async def _agrees_with_the_ledger(app: LobbyApp, players: list[Identity], tid: str, record: dict[str, Any]) -> None:
    """Pay-ins make the pot; the pot is paid out or goes to the house; hand prizes sum to zero;
    each player's net is their ledger entries of the table, to the chip; bots pay nothing."""
    seats = record["seats"]
    assert sum(s["paid_in"] for s in seats) == record["pot"] == record["stake"] * record["people"]
    assert sum(s["payout"] for s in seats) == record["paid_out"]
    out = record["paid_out"] + record["to_house"] + record["refunded"]
    assert out in (0, record["pot"])  # nothing yet while the match is on; the whole pot at its end
    assert sum(s["hand_prizes"] for s in seats) == 0
    for s in seats:
        if s["bot"]:
            assert s["paid_in"] == s["hand_prizes"] == s["payout"] == s["refund"] == 0
    for p in players:
        (seat,) = [s for s in seats if s["player_id"] == p.subject]
        assert seat_net(seat) == await _entries_of(app, p, tid)
    await assert_ledger_invariants(app.store)


async def test_a_stake_match_against_bots_pays_back_only_the_person_s_own_stake(app: LobbyApp, guest: Guest) -> None:
    """The player's report of 2026-12-06: one person and three bots at stake 100; the engine's
    share is 400, but bots pay nothing in, so the pot holds the person's 100 and that is all the
    win: the record says so (pay-in 100, payout 100, net 0, why), as the ledger does."""
    tid, (alone,) = await _table(app, guest, 1, TableOptions(game=Game.OKEY, stake=STAKE))
    status, record = await _record(app, alone, tid)
    assert status == "HELD" and record["pot"] == 100 and record["people"] == 1 and record["bots"] == 3
    assert record["why"] == [{"code": "POT", "count": 1, "amount": 100}, {"code": "BOTS_PAY_NOTHING", "count": 3}]
    assert await handle_event(app, _end(tid, (0,)))
    status, record = await _record(app, alone, tid)
    assert status == SETTLED
    me = record["seats"][0]
    assert (me["paid_in"], me["payout"], seat_net(me)) == (100, 100, 0)
    assert _codes(me["why"]) == ["STAKE", "SHARE"]
    assert all(_codes(s["why"]) == ["BOT_PAYS_NOTHING"] for s in record["seats"][1:])
    assert {"code": "CAPPED", "amount": 100} in record["why"]
    assert await chips_of(app, alone) == 1000
    await _agrees_with_the_ledger(app, [alone], tid, record)


async def test_a_bot_s_win_goes_to_the_house_and_the_people_lose_their_stakes(app: LobbyApp, guest: Guest) -> None:
    tid, players = await _table(app, guest, 2, TableOptions(game=Game.OKEY, stake=STAKE))
    assert await handle_event(app, _end(tid, (3,)))
    _, record = await _record(app, players[1], tid)
    assert record["to_house"] == 200 and record["paid_out"] == 0
    assert {"code": "HOUSE_SHARE", "amount": 200} in record["why"]
    assert _codes(record["seats"][3]["why"]) == ["BOT_PAYS_NOTHING", "BOT_WON"]
    assert [seat_net(s) for s in record["seats"]] == [-100, -100, 0, 0]
    await _agrees_with_the_ledger(app, players, tid, record)


async def test_four_people_the_pot_is_four_stakes_and_the_remainder_goes_to_the_house(
    app: LobbyApp, guest: Guest
) -> None:
    tid, players = await _table(app, guest, 4, TableOptions(game=Game.OKEY, stake=101))
    assert await handle_event(app, _end(tid, (0, 1, 3), stake=101))  # 134 each, 2 rounded away
    _, record = await _record(app, players[0], tid)
    assert record["people"] == 4 and record["bots"] == 0 and record["pot"] == 404
    assert record["why"] == [{"code": "POT", "count": 4, "amount": 101}, {"code": "HOUSE_SHARE", "amount": 2}]
    assert [seat_net(s) for s in record["seats"]] == [33, 33, -101, 33]
    await _agrees_with_the_ledger(app, players, tid, record)


async def test_one_record_per_match_a_redelivered_end_changes_nothing(app: LobbyApp, guest: Guest) -> None:
    first, players = await _table(app, guest, 2, TableOptions(game=Game.OKEY, stake=STAKE))
    second, others = await _table(app, guest, 2, TableOptions(game=Game.OKEY, stake=50))
    assert await handle_event(app, _end(first, (0, 2)))
    _, before = await _record(app, players[0], first)
    assert not await handle_event(app, _end(first, (1,)))  # a second end of the same match
    assert await app.settle_match(first, winners=(1,)) is False
    _, after = await _record(app, players[0], first)
    assert after == before
    status, other = await _record(app, others[0], second)
    assert status == "HELD" and other["stake"] == 50 and other["pot"] == 100
    async with app.store.unit() as uow:
        rows = await uow.conn.fetchval(
            "SELECT count(*) FROM lobby_settlements WHERE table_id = ANY($1)", [first, second]
        )
    assert rows == 2
    await _agrees_with_the_ledger(app, players, first, after)


async def test_hand_prizes_and_a_leaver_are_recorded_with_the_postings(app: LobbyApp, guest: Guest) -> None:
    """Okey 101 with a hand prize: each prize's posting adds the hand to the seats that paid and
    won; a seat that left loses its stake (LEFT) and a share it wins goes to the house."""
    tid, players = await _table(app, guest, 4, TableOptions(game=Game.OKEY101, stake=STAKE, hand_prize=50))
    assert await app.pay_hand_prize(tid, 1, (150, -50, -50, -50))
    assert await app.seat_left(tid, 1, players[1].subject)
    assert await app.pay_hand_prize(tid, 2, (-50, -50, 150, -50))
    _, record = await _record(app, players[0], tid)
    assert [s["hand_prizes"] for s in record["seats"]] == [100, -100, 100, -100]
    assert record["seats"][0]["why"][1:] == [
        {"code": "HAND_PRIZE", "hand": 1, "amount": 150},
        {"code": "HAND_PRIZE", "hand": 2, "amount": -50},
    ]
    await _agrees_with_the_ledger(app, players, tid, record)
    assert await handle_event(app, _end(tid, (1, 3)))
    _, record = await _record(app, players[0], tid)
    leaver = record["seats"][1]
    assert leaver["left"] and _codes(leaver["why"])[-2:] == ["LEFT", "LEFT_WON"] and leaver["payout"] == 0
    assert record["seats"][3]["payout"] == 200 and record["to_house"] == 200
    await _agrees_with_the_ledger(app, players, tid, record)


async def test_a_match_the_table_service_refuses_is_refunded_in_the_record(
    app: LobbyApp, guest: Guest, fake_tables: FakeTables
) -> None:
    fake_tables.fail = StartFailed("no", permanent=True)
    players = [await guest() for _ in range(2)]
    card, _ = await app.open_table(players[0], TableOptions(game=Game.OKEY, stake=STAKE))
    tid = card.table.table_id
    await app.join(players[1], tid)
    await app.fill_with_bots(players[0], tid)
    status, record = await _record(app, players[0], tid)
    assert status == REFUNDED and record["refunded"] == 200
    assert [seat_net(s) for s in record["seats"]] == [0, 0, 0, 0]
    await _agrees_with_the_ledger(app, players, tid, record)


async def test_only_the_table_s_players_read_its_settlement(app: LobbyApp, guest: Guest) -> None:
    tid, players = await _table(app, guest, 1, TableOptions(game=Game.OKEY, stake=STAKE))
    stranger = await guest()
    with pytest.raises(Refused) as refused:
        await app.settlement(stranger, tid)
    assert refused.value.reason == "NOT_SEATED"
    row, balance = await app.settlement(players[0], tid)
    assert row is not None and balance == 900 == await chips_of(app, players[0])
    async with app.store.unit() as uow:  # the balance is the ledger's
        assert (await uow.ledger.balances([player_account(players[0].subject), HOUSE]))[
            player_account(players[0].subject)
        ] == balance


def test_the_quote_is_what_the_payment_pays() -> None:
    classic = TableOptions(game=Game.OKEY, stake=100)
    alone = quote(classic, [0])  # with bots: only the person's stake makes the pot
    assert (alone.people, alone.bots, alone.pot, alone.max_win) == (1, 3, 100, 100)
    full = quote(classic, [0, 1, 2, 3])
    assert (full.pot, full.max_win) == (400, 400)
    partners = quote(TableOptions(game=Game.OKEY, stake=100, partners=True), [0, 1, 2, 3])
    assert (partners.pot, partners.max_win) == (400, 200)
    duel = quote(TableOptions(game=Game.OKEY, stake=100, duel=True), [0, 2])
    assert (duel.people, duel.bots, duel.pot, duel.max_win) == (2, 2, 200, 200)
    prize = quote(TableOptions(game=Game.OKEY101, stake=10, hand_prize=5, seats=3), [0, 1, 2])
    assert (prize.pot, prize.max_win, prize.hand_prize) == (30, 30, 5)
    assert quote(TableOptions(game=Game.OKEY101, stake=10, hand_prize=5), [0]).hand_prize == 0  # people only
    # practice (unranked) is the lobby's word in the quote, said before anyone sits [issue 40.2]
    assert (alone.practice, full.practice, duel.practice) == (True, False, False)
    assert quote(TableOptions(game=Game.OKEY, stake=0), [0]).practice


async def test_a_card_and_quote_pot_say_what_can_be_won_before_a_sit(app: LobbyApp, guest: Guest) -> None:
    host = await guest()
    options = TableOptions(game=Game.OKEY, stake=STAKE)
    card, _ = await app.open_table(host, options)
    assert card.quote is not None and (card.quote.pot, card.quote.max_win, card.quote.people) == (400, 400, 4)
    with_bots = app.quote_pot(options, True)
    assert (with_bots.pot, with_bots.max_win, with_bots.bots) == (100, 100, 3)
    started = await app.fill_with_bots(host, card.table.table_id)
    assert started.quote is not None and (started.quote.pot, started.quote.max_win) == (100, 100) == (started.pot, 100)

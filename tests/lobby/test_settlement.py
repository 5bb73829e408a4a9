"""Settlement of a finished match's pot: the lobby pays the split the engine computed (the
MatchEnded event's ``payout``) and splits the pot itself with okeycore's ``split_pot`` only for an
end without it [C-SC-9]. Bots' seats put no stake in the lobby's pot while the engine's pot counts
one for every seat: whatever the event says, no more than the pot holds is paid."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st
from lobby_helpers import Guest, assert_ledger_invariants, chips_of
from okeycore.classic import split_pot
from okeycore.events import MatchEnded
from okeycore.options import Game, TableOptions
from okeyplatform.auth import Identity
from okeyplatform.contract import Envelope

from services.lobby.app import LobbyApp
from services.lobby.consumer import carried_payout, handle_event
from services.lobby.ledger import split_for
from services.lobby.ledger_repo import HOUSE, player_account
from services.lobby.tables import FINISHED, PLAYING
from services.lobby.tables_repo import SeatRow

STAKE = TableOptions(game=Game.OKEY, stake=100)


def _end(table_id: str, winners: tuple[int, ...], pot: int) -> Envelope:
    """The MatchEnded the table service publishes: the engine's pot is a stake per seat."""
    payout, remainder = split_pot(pot, len(winners))
    event = MatchEnded((1, 1, 1, 1), winners, pot, payout, remainder)
    return Envelope(table_id, 90, 3, datetime.now(UTC), "MatchEnded", -1, "", event)


async def _house(app: LobbyApp) -> int:
    async with app.store.unit() as uow:
        return (await uow.ledger.balances([HOUSE]))[HOUSE]


async def _with_bots(app: LobbyApp, guest: Guest, people: int) -> tuple[str, list[Identity]]:
    """A classic table at stake 100 with ``people`` players (seats 0..people-1), bots in the rest."""
    players = [await guest() for _ in range(people)]
    card, _ = await app.open_table(players[0], STAKE)
    tid = card.table.table_id
    for p in players[1:]:
        await app.join(p, tid)
    if people < 4:
        await app.fill_with_bots(players[0], tid)
    card = await app.table_card(players[0], tid)
    assert card.table.status == PLAYING and card.pot == 100 * people
    assert [s.player_id for s in card.seats] == [p.subject for p in players] + [None] * (4 - people)
    return tid, players


async def test_the_event_s_payout_is_paid_exactly(app: LobbyApp, guest: Guest) -> None:
    """Two players and two bots: the engine's pot is 400, so a winner's payout is 200; the
    lobby's pot holds the players' 200, and the player who won with a bot gets all of it."""
    tid, players = await _with_bots(app, guest, 2)
    assert await handle_event(app, _end(tid, (0, 2), 400))
    assert not await handle_event(app, _end(tid, (0, 2), 400))  # paid once
    assert [await chips_of(app, p) for p in players] == [1100, 900]
    assert await _house(app) == 0
    card = await app.table_card(players[0], tid)
    assert card.table.status == FINISHED and card.pot == 0
    assert card.table.result is not None
    assert card.table.result["payout_from"] == "event" and card.table.result["share"] == 200
    await assert_ledger_invariants(app.store)


async def test_without_the_event_s_payout_the_lobby_splits_what_the_pot_holds(app: LobbyApp, guest: Guest) -> None:
    """The same table settled by an end without a payout: okeycore's split of the 200 held, 100
    a winner; the bot's 100 goes to the house."""
    tid, players = await _with_bots(app, guest, 2)
    assert await app.settle_match(tid, winners=(0, 2))
    assert [await chips_of(app, p) for p in players] == [1000, 900]
    assert await _house(app) == 100
    card = await app.table_card(players[0], tid)
    assert card.table.result is not None and card.table.result["payout_from"] == "split"
    await assert_ledger_invariants(app.store)


async def test_a_payout_the_pot_does_not_hold_is_capped_at_the_pot(app: LobbyApp, guest: Guest) -> None:
    # One player and three bots: the engine pays the winner 400, the pot holds the player's 100.
    tid, (alone,) = await _with_bots(app, guest, 1)
    assert await handle_event(app, _end(tid, (0,), 400))
    assert await chips_of(app, alone) == 1000
    # Two players who both win next to two bots: 200 each by the engine, 200 in the pot in all.
    tid, pair = await _with_bots(app, guest, 2)
    assert await handle_event(app, _end(tid, (0, 1), 400))
    assert [await chips_of(app, p) for p in pair] == [1000, 1000]
    # Three players, two winners: 200 each by the engine, 300 in the pot: they share it.
    tid, three = await _with_bots(app, guest, 3)
    assert await handle_event(app, _end(tid, (0, 1), 400))
    assert [await chips_of(app, p) for p in three] == [1050, 1050, 900]
    assert await _house(app) == 0
    await assert_ledger_invariants(app.store)


async def test_a_full_table_pays_the_engine_s_split_and_the_house_keeps_the_remainder(
    app: LobbyApp, guest: Guest
) -> None:
    players = [await guest() for _ in range(4)]
    card, _ = await app.open_table(players[0], TableOptions(game=Game.OKEY, stake=101))
    tid = card.table.table_id
    for p in players[1:]:
        await app.join(p, tid)
    assert await handle_event(app, _end(tid, (0, 1, 3), 404))  # 134 each, 2 rounded away [C-SC-9]
    assert [await chips_of(app, p) for p in players] == [1033, 1033, 899, 1033]
    assert await _house(app) == 2
    await assert_ledger_invariants(app.store)


def test_an_event_without_its_payout_is_split_by_the_lobby() -> None:
    assert carried_payout(MatchEnded((1, 0, 0, 0), (0, 1), 400, 200, 0)) == 200
    assert carried_payout(MatchEnded((1, 0, 0, 0), (0, 1, 2, 3), 3, 0, 3)) == 0  # all remainder: a real 0
    assert carried_payout(MatchEnded((1, 0, 0, 0), (0,), 0, 0, 0)) == 0  # no stake, nothing to pay
    # a protobuf message that lacked the fields reads them as 0: the lobby splits the pot itself
    assert carried_payout(MatchEnded((1, 0, 0, 0), (0, 1), 400, 0, 0)) is None


SEAT = st.one_of(st.none(), st.sampled_from(["a", "b", "c", "d"]))


@given(
    pot=st.integers(0, 10_000),
    holders=st.lists(st.tuples(SEAT, st.booleans()), min_size=4, max_size=4),
    winners=st.lists(st.integers(0, 3), max_size=4, unique=True),
    payout=st.one_of(st.none(), st.integers(0, 10_000)),
)
def test_a_split_pays_out_the_pot_exactly_and_never_more(
    pot: int, holders: list[tuple[str | None, bool]], winners: list[int], payout: int | None
) -> None:
    seats = {i: SeatRow(i, p if p is None else f"{p}{i}", "", "", 0, left) for i, (p, left) in enumerate(holders)}
    split = split_for(pot, winners, seats, payout)
    assert sum(split.paid.values()) + split.to_house == pot and split.to_house >= 0
    assert all(a >= 0 for a in split.paid.values())
    paid_seats = [w for w in winners if seats[w].player_id is not None and not seats[w].left]
    assert sorted(split.paid) == sorted(str(seats[w].player_id) for w in paid_seats)
    expected = payout if payout is not None else split_pot(pot, len(winners))[0]
    if expected * len(paid_seats) <= pot:
        assert all(a == expected for a in split.paid.values())  # exactly the event's (or okeycore's) share


async def test_the_consumer_s_applier_settles_in_the_transaction_that_records_the_version(
    app: LobbyApp, guest: Guest
) -> None:
    """The consumer's handler runs the settlement on the applier's connection: a version past a
    gap is held (nothing paid), the versions in order pay once, and a redelivery is a duplicate
    the handler never sees; an event its okeycore cannot read counts as applied, with no effect."""
    from dataclasses import replace

    from okeyplatform.consumer import APPLIED, DUPLICATE, HELD, Unreadable
    from okeyplatform.eventstore import UnknownEvent

    from services.lobby.consumer import LobbyEffects

    tid, players = await _with_bots(app, guest, 2)
    effects = LobbyEffects(app)
    applier = effects.applier()
    end = replace(_end(tid, (0, 2), 400), version=3)
    assert (await applier.apply([end])).outcomes == [HELD]
    assert [await chips_of(app, p) for p in players] == [900, 900] and effects.changed == 0
    newer = UnknownEvent("unknown event type 'Newer'", tid, 2, "Newer")
    unread = Unreadable(tid, 2, datetime.now(UTC), newer)
    start = replace(end, version=1, kind="TableCreated", event=object())  # the lobby acts on none such
    assert (await applier.apply([start, unread, end])).outcomes == [APPLIED, APPLIED, APPLIED]
    assert (await applier.apply([end])).outcomes == [DUPLICATE]
    assert effects.changed == 1
    assert [await chips_of(app, p) for p in players] == [1100, 900]
    await assert_ledger_invariants(app.store)


def _prize(finisher: int, prize: int = 50, seats: int = 4) -> tuple[int, ...]:
    """HandEnded101's ``chips`` as the engine writes them [O-DEAL-3]: every other seat pays."""
    return tuple(prize * (seats - 1) if s == finisher else -prize for s in range(seats))


async def test_39_8_a_seat_that_left_pays_the_hand_prizes_its_bot_loses_and_wins_none(
    app: LobbyApp, guest: Guest
) -> None:
    """Issue 39.8, [D-10] and [O-DEAL-3]: leaving is no way to dodge a loss. A player who left a
    101 match with a hand prize keeps paying the finisher of every hand the bot plays for them,
    until the match ends (never more than they hold); a hand the bot wins for them pays nobody
    (the others pay no bot, and the leaver receives nothing), as a share of the pot won by a seat
    that left goes to the house. Nothing is made or lost."""
    players = [await guest() for _ in range(4)]
    opts = TableOptions(game=Game.OKEY101, stake=100, hand_prize=50)
    card, _ = await app.open_table(players[0], opts)
    tid = card.table.table_id
    for p in players[1:]:
        await app.join(p, tid)
    card = await app.table_card(players[0], tid)
    assert card.table.status == PLAYING

    async def chips() -> list[int]:
        return [await chips_of(app, p) for p in players]

    start = await chips()
    assert await app.pay_hand_prize(tid, 1, _prize(2))  # before anyone leaves: seat 2 wins
    assert await chips() == [start[0] - 50, start[1] - 50, start[2] + 150, start[3] - 50]

    assert await app.seat_left(tid, 1, players[1].subject)  # SeatLeft: a bot plays seat 1 now
    before = await chips()
    assert await app.pay_hand_prize(tid, 2, _prize(0))  # the bot loses seat 1's hand: the leaver pays
    assert await chips() == [before[0] + 150, before[1] - 50, before[2] - 50, before[3] - 50]

    before = await chips()
    assert not await app.pay_hand_prize(tid, 3, _prize(1))  # the bot wins seat 1's hand: nobody pays
    assert await chips() == before

    # Never more than the leaver holds: they pay what they have left, and the finisher gets that.
    leaver = player_account(players[1].subject)
    async with app.store.unit() as uow:
        have = (await uow.ledger.balances([leaver]))[leaver]
        await uow.ledger.post("drain", "test", [(leaver, 20 - have), (HOUSE, have - 20)], datetime.now(UTC))
    before = await chips()
    assert await app.pay_hand_prize(tid, 4, _prize(3))
    assert await chips() == [before[0] - 50, 0, before[2] - 50, before[3] + 120]

    # The match ends with seat 1 among the winners: its share goes to the house, not the leaver.
    house = await _house(app)
    assert await handle_event(app, _end(tid, (1, 3), 400))
    after = await chips()
    assert after[1] == 0 and after[3] == before[3] + 120 + 200
    assert await _house(app) == house + 200
    assert await app.pay_hand_prize(tid, 5, _prize(0)) is False  # the match is over: no more prizes
    await assert_ledger_invariants(app.store)

"""The chips: a player's statement and daily chips, and every movement a match makes (stakes
held in the table's pot at the start, refunds of a cancelled start, the pot paid at the end, the
101 hand prizes). The movements run inside the caller's unit of work, next to the table rows the
caller has locked; the ledger repository refuses any posting that does not balance.

Where settlement's numbers come from: the engine splits the pot [C-SC-9] and its MatchEnded
carries each winner's ``payout``; the lobby pays exactly that. Only a match end without it (a
caller that has no event, or an event whose payout was lost in an old encoding) is split here,
with okeycore's own ``split_pot`` over the chips the pot holds. Either way no more than the pot
holds is paid: the engine's pot counts a stake for every seat, bots' seats included, while the
lobby holds stakes only from players, so when the shares would overdraw the pot the players who
won share what it holds. What is left (the rounding, shares won by bots or by players who left
[C-LEAVE-1]) goes to the house.

Every posting of a match (the stakes, each hand prize, the pot's payment, a refund) updates the
match's settlement record (settlement.py) in its own transaction. :func:`quote` says before a
sit what the pot will hold and the most a winner takes from it, with :func:`split_for`, the
payment's own arithmetic."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from okeycore.classic import split_pot
from okeycore.options import Game, TableOptions
from okeyplatform.auth import Identity

from .cards import is_practice
from .errors import Flood, Refused
from .ledger_repo import BANK, HOUSE, EntryRow, player_account, pot_account
from .policy import Limits, grant_day, next_day_start, quotas
from .settlement import record_hand_prize, record_payout, record_refund
from .store import LobbyStore, Unit
from .tables_repo import SeatRow

__all__ = [
    "Ledger",
    "DailyChips",
    "daily_chips",
    "PotSplit",
    "split_for",
    "grant_key",
    "can_cover",
    "short_of",
    "hold_stakes",
    "refund_stakes",
    "pay_pot",
    "pay_hand_prize",
    "PotQuote",
    "quote",
]


def grant_key(player_id: str, now: datetime) -> str:
    """One daily grant per player and Turkish day: the ledger refuses a second posting."""
    return f"grant:{player_id}:{grant_day(now).isoformat()}"


@dataclass(frozen=True)
class DailyChips:
    """Whether the day's chips can be had now, and if not why: the one answer that the profile
    shows and that the claim (and the grant at sign-in) acts on. ``why``: "" (they can),
    "CLAIMED" (this account had today's), "DEVICE" or "ADDRESS" (today's went to ``limit``
    accounts of the caller's device or network, the most per device or per address)."""

    why: str = ""
    limit: int = 0
    next_at: datetime | None = None  # when they can be had again (None: now)

    @property
    def can(self) -> bool:
        return not self.why

    def refusal(self) -> str:
        return _chips_taken(self.why, self.limit)


async def daily_chips(
    uow: Unit, limits: Limits, player_id: str, now: datetime, device: str, address: str
) -> DailyChips:
    """Can ``player_id`` (on ``device``, from ``address``) have the day's chips now? Read only;
    :meth:`Ledger.grant_daily` takes the quotas it names in the same order, so the profile's
    "can claim" and the claim's answer come from this one check."""
    if await uow.ledger.posted(grant_key(player_id, now)):
        return DailyChips("CLAIMED", 0, next_day_start(now))
    day = grant_day(now)
    for kind, holder, limit in quotas(limits, "grants", device, address):
        if await uow.players.quota_used(kind, holder, day) >= limit:
            return DailyChips("DEVICE" if kind.endswith(":device") else "ADDRESS", limit, next_day_start(now))
    return DailyChips()


class Ledger:
    """The chips use cases a player calls (GetChips, ClaimDailyChips) and the daily grant that
    sign-in gives too."""

    def __init__(self, store: LobbyStore, clock: Callable[[], datetime], limits: Limits) -> None:
        self.store = store
        self.clock = clock
        self.limits = limits

    async def chips(self, who: Identity, limit: int) -> tuple[int, list[EntryRow]]:
        account = player_account(who.subject)
        async with self.store.unit() as uow:
            await uow.players.known(who.subject)
            balance = (await uow.ledger.balances([account]))[account]
            entries = await uow.ledger.entries(account, max(1, min(limit or 20, 200)))
        return balance, entries

    async def claim_daily_chips(self, who: Identity, address: str = "") -> tuple[int, int, datetime]:
        now = self.clock()
        account = player_account(who.subject)
        async with self.store.unit() as uow:
            player = await uow.players.known(who.subject)
            granted = await self.grant_daily(uow, who.subject, now, who.device or player.device_id, address, True)
            balance = (await uow.ledger.balances([account]))[account]
        return granted, balance, next_day_start(now)

    async def grant_daily(
        self, uow: Unit, player_id: str, now: datetime, device: str, address: str, refuse: bool = False
    ) -> int:
        """The day's chips, once per player, and to at most a few players per device and per
        address (:func:`daily_chips` decides): 0 when the player had them today; when other
        accounts of the device or address had them, 0 as well, or (``refuse``) RESOURCE_EXHAUSTED
        DAILY_CHIPS_TAKEN with the reason and what to do."""
        state = await daily_chips(uow, self.limits, player_id, now, device, address)
        if state.why == "CLAIMED":
            return 0
        key = grant_key(player_id, now)
        day = grant_day(now)
        if state.can:
            taken = quotas(self.limits, "grants", device, address)
            full = await uow.players.take_quotas(day, taken)
            if full is None:
                amount = self.limits.daily_chips
                if await uow.ledger.post(
                    key, "daily_grant", [(BANK, -amount), (player_account(player_id), amount)], now
                ):
                    return amount
                await uow.players.give_back_quotas(day, [(k, h) for k, h, _ in taken])  # a concurrent claim won
                return 0
            kind, limit = full  # taken by a concurrent sign-in of the device or address meanwhile
            state = DailyChips("DEVICE" if kind.endswith(":device") else "ADDRESS", limit, next_day_start(now))
        if await uow.ledger.posted(key) or not refuse:  # (waited for a concurrent claim of this player)
            return 0
        raise Flood(state.refusal(), "DAILY_CHIPS_TAKEN")


async def can_cover(uow: Unit, player_id: str, stake: int) -> None:
    """Refuse a seat to a player whose chips do not cover the table's stake."""
    if stake <= 0:
        return
    balance = (await uow.ledger.balances([player_account(player_id)]))[player_account(player_id)]
    if balance < stake:
        raise Refused(
            f"Bu masanın girişi {stake} jeton, sende {balance} var. (The stake is {stake}; you have {balance}.)",
            "INSUFFICIENT_CHIPS",
        )


async def short_of(uow: Unit, players: Sequence[str], stake: int) -> list[str]:
    """The players who cannot cover ``stake`` now (their accounts locked to the unit's end)."""
    if stake <= 0:
        return []
    balances = await uow.ledger.balances([player_account(p) for p in players], lock=True)
    return [p for p in players if balances[player_account(p)] < stake]


async def hold_stakes(uow: Unit, table_id: str, players: Sequence[str], stake: int, now: datetime) -> None:
    """Every player's stake into the table's pot, in one posting (once per table)."""
    entries = [(player_account(p), -stake) for p in players]
    entries.append((pot_account(table_id), stake * len(players)))
    await uow.ledger.post(f"stakes:{table_id}", "stake", entries, now, table_id)


async def refund_stakes(uow: Unit, table_id: str, seats: Sequence[SeatRow], now: datetime, why: str) -> None:
    """A match that never started: every stake held goes back from the pot to its player."""
    entries = [(player_account(s.player_id), s.stake_held) for s in seats if s.player_id and s.stake_held]
    held = sum(a for _, a in entries)
    if held:
        entries.append((pot_account(table_id), -held))
        if await uow.ledger.post(f"refund:{table_id}", "refund", entries, now, table_id, {"why": why}):
            await record_refund(uow, table_id, seats, now)


@dataclass(frozen=True)
class PotSplit:
    """How a finished match's pot is paid: ``share`` to each winning seat a player still holds,
    the rest (``to_house``) to the house; ``payout_from`` says whose split it is ("event": the
    engine's MatchEnded.payout, "split": the lobby's fallback)."""

    share: int
    remainder: int
    paid: dict[str, int]
    to_house: int
    payout_from: str


def split_for(pot: int, winners: Sequence[int], seats: Mapping[int, SeatRow], payout: int | None) -> PotSplit:
    """The pot's payment (see the module's docstring): the event's ``payout`` per winner, or
    okeycore's split of the pot held when there is none; never more in all than ``pot``."""
    share = max(0, payout) if payout is not None else split_pot(pot, len(winners))[0]
    payees = []
    for w in winners:
        s = seats.get(w)
        if s is not None and s.player_id is not None and not s.left:
            payees.append(s.player_id)
    if payees and share * len(payees) > pot:  # stakes the lobby never collected (bots' seats)
        share = pot // len(payees)
    paid: dict[str, int] = {}
    for p in payees:
        paid[p] = paid.get(p, 0) + share
    return PotSplit(
        share=share,
        remainder=max(0, pot - share * len(winners)),
        paid=paid,
        to_house=pot - share * len(payees),
        payout_from="split" if payout is None else "event",
    )


async def pay_pot(
    uow: Unit,
    table_id: str,
    winners: Sequence[int],
    scores: Sequence[int],
    seats: Mapping[int, SeatRow],
    now: datetime,
    payout: int | None,
) -> dict[str, Any]:
    """Empty the table's pot to its winners and the house, once (the posting's key is the
    table's); returns the result the table records (standings and the split)."""
    pot_acc = pot_account(table_id)
    pot = (await uow.ledger.balances([pot_acc], lock=True))[pot_acc]
    split = split_for(pot, winners, seats, payout)
    result: dict[str, Any] = {
        "winners": list(winners),
        "scores": list(scores),
        "pot": pot,
        "share": split.share,
        "remainder": split.remainder,
        "to_house": split.to_house,
        "paid": split.paid,
        "payout_from": split.payout_from,
    }
    posted = True
    if pot:
        entries = [(pot_acc, -pot), (HOUSE, split.to_house), *((player_account(p), a) for p, a in split.paid.items())]
        posted = await uow.ledger.post(f"payout:{table_id}", "payout", entries, now, table_id, result)
    if posted:
        await record_payout(uow, table_id, winners, seats, pot, split.paid, split.to_house, split.share, payout, now)
    return result


async def pay_hand_prize(
    uow: Unit, table_id: str, hand: int, chips: Sequence[int], seats: Mapping[int, SeatRow], now: datetime
) -> bool:
    """101 hand prize [O-DEAL-3]: each other seat pays the hand's finisher, between people only
    (a bot neither pays nor is paid), never more than the payer has. Once per hand."""
    winner = next((seats.get(i) for i, c in enumerate(chips) if c > 0), None)
    if winner is None or winner.player_id is None or winner.left:
        return False
    payers = [(seats[i].player_id, -c) for i, c in enumerate(chips) if c < 0 and i in seats]
    people = [(p, a) for p, a in payers if p is not None]
    have = await uow.ledger.balances([player_account(p) for p, _ in people], lock=True)
    entries = [(player_account(p), -min(a, have[player_account(p)])) for p, a in people]
    entries.append((player_account(winner.player_id), -sum(a for _, a in entries)))
    if not await uow.ledger.post(f"hand:{table_id}:{hand}", "hand_prize", entries, now, table_id, {"hand": hand}):
        return False
    await record_hand_prize(uow, table_id, hand, entries, seats, now)
    return True


def _chips_taken(why: str, limit: int) -> str:
    """The refusal of the day's chips: why, and what to do (tables without a stake need none)."""
    if why == "DEVICE":
        return (
            "Bu cihazdaki bir hesap bugünkü günlük jetonları aldı; yarın tekrar dene. Jetonsuz masalarda "
            "şimdi de oynayabilirsin. (An account on this device already had today's daily chips, once per "
            "device: try again tomorrow. Tables without a stake are open to you now.)"
        )
    return (
        f"Bu bağlantıdan bugün {limit} hesap günlük jeton aldı; yarın tekrar dene. Jetonsuz masalarda "
        f"şimdi de oynayabilirsin. (Today's daily chips already went to {limit} accounts on your network, "
        "the most per address: try again tomorrow. Tables without a stake are open to you now.)"
    )


@dataclass(frozen=True)
class PotQuote:
    """What a table's pot will hold and the most one person takes from it when their side wins
    (Okey 101's hand prizes, which people pay each other, aside): computed with the payment's
    own arithmetic (:func:`split_for` over the engine's split), so a quote is what is paid."""

    stake: int
    people: int
    bots: int
    pot: int
    max_win: int
    hand_prize: int
    practice: bool  # unranked (cards.is_practice): the quote says it before anyone sits


def quote(options: TableOptions, people_seats: Sequence[int]) -> PotQuote:
    """The quote for a match of ``options`` whose people sit in ``people_seats`` (bots in the
    rest): only people pay in; the engine splits a stake per seat between its winners (both
    partners of a side), and the lobby pays no more than the pot holds."""
    stake = options.stake
    count = options.seat_count
    people = sorted(set(people_seats))
    seats = {
        i: SeatRow(i, f"p{i}" if i in people else None, "", "", stake if i in people else 0, False)
        for i in range(count)
    }
    pot = stake * len(people)
    teams = options.game is Game.OKEY and options.partners
    best = 0
    for p in people:
        winners = sorted({p, (p + 2) % count}) if teams else [p]
        payout = split_pot(stake * count, len(winners))[0]
        best = max(best, split_for(pot, winners, seats, payout).paid.get(f"p{p}", 0))
    prize = options.hand_prize if len(people) > 1 else 0
    return PotQuote(stake, len(people), count - len(people), pot, best, prize, is_practice(f"p{i}" for i in people))

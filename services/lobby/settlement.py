"""The settlement record (issue 40.1): one per match (``lobby_settlements``), opened in the
transaction that holds the match's stakes and updated by every other posting of the match (each
101 hand prize, the pot's payment at the end, a refund of a match that never started), in that
posting's transaction, so the record and the ledger never disagree. Each seat says what it paid
in, won or paid in hand prizes, was paid from the pot or refunded, and why, in codes a client
words: ``STAKE``, ``BOT_PAYS_NOTHING``, ``HAND_PRIZE``, ``SHARE``, ``BOT_WON``, ``LEFT_WON``,
``LEFT``, ``REFUND``; the match's lines say how the pot was made and emptied: ``POT`` (people x
stake), ``BOTS_PAY_NOTHING``, ``CAPPED``, ``HOUSE_SHARE``, ``REFUND``. GetSettlement gives it
to the table's players; clients draw it and compute no prize."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .ledger_repo import player_account
from .tables_repo import SeatRow

if TYPE_CHECKING:
    from .store import Unit

__all__ = [
    "HELD",
    "SETTLED",
    "REFUNDED",
    "settlement_record",
    "seat_net",
    "open_settlement",
    "record_hand_prize",
    "record_payout",
    "record_refund",
]

HELD, SETTLED, REFUNDED = "HELD", "SETTLED", "REFUNDED"  # a record's status


def settlement_record(stake: int, seats: Sequence[SeatRow]) -> dict[str, Any]:
    """A match's record as its stakes are held: each person paid in what their seat holds, a
    bot nothing; the pot is the people's stakes."""
    people = sum(1 for s in seats if s.player_id is not None)
    bots = len(seats) - people
    out = []
    for s in sorted(seats, key=lambda s: s.seat):
        paid_in = s.stake_held if s.player_id is not None else 0
        why: list[dict[str, Any]] = []
        if paid_in:
            why.append({"code": "STAKE", "amount": -paid_in})
        elif s.player_id is None and stake:
            why.append({"code": "BOT_PAYS_NOTHING"})
        out.append(
            {
                "seat": s.seat,
                "player_id": s.player_id or "",
                "bot": s.player_id is None,
                "left": False,
                "paid_in": paid_in,
                "hand_prizes": 0,
                "payout": 0,
                "refund": 0,
                "why": why,
            }
        )
    lines: list[dict[str, Any]] = []
    if stake:
        lines.append({"code": "POT", "count": people, "amount": stake})
        if bots:
            lines.append({"code": "BOTS_PAY_NOTHING", "count": bots})
    return {
        "stake": stake,
        "people": people,
        "bots": bots,
        "pot": sum(x["paid_in"] for x in out),
        "paid_out": 0,
        "to_house": 0,
        "refunded": 0,
        "seats": out,
        "why": lines,
    }


def seat_net(seat: Mapping[str, Any]) -> int:
    """What the match moved for a seat in all: what it won less what it paid."""
    return int(-seat["paid_in"] + seat["hand_prizes"] + seat["payout"] + seat["refund"])


async def open_settlement(uow: Unit, table_id: str, stake: int, seats: Sequence[SeatRow], now: datetime) -> None:
    """The match's record, in the transaction that holds its stakes (once)."""
    if await uow.ledger.settlement(table_id) is None:
        await uow.ledger.put_settlement(table_id, HELD, settlement_record(stake, seats), now)


def _seat_of(record: dict[str, Any], seat: int) -> dict[str, Any] | None:
    return next((s for s in record["seats"] if s["seat"] == seat), None)


async def record_hand_prize(
    uow: Unit,
    table_id: str,
    hand: int,
    entries: Sequence[tuple[str, int]],
    seats: Mapping[int, SeatRow],
    now: datetime,
) -> None:
    """A hand prize's posting (``entries``: the accounts' amounts) on the seats that paid and won."""
    row = await uow.ledger.settlement(table_id)
    if row is None:
        return
    record = row.record
    by_account = {player_account(s.player_id): i for i, s in seats.items() if s.player_id is not None}
    for account, amount in entries:
        seat = _seat_of(record, by_account.get(account, -1))
        if seat is not None and amount:
            seat["hand_prizes"] += amount
            seat["why"].append({"code": "HAND_PRIZE", "hand": hand, "amount": amount})
    await uow.ledger.put_settlement(table_id, row.status, record, now)


async def record_payout(
    uow: Unit,
    table_id: str,
    winners: Sequence[int],
    seats: Mapping[int, SeatRow],
    pot: int,
    paid: Mapping[str, int],
    to_house: int,
    share: int,
    payout: int | None,
    now: datetime,
) -> None:
    """The pot's payment (ledger.pay_pot's split: ``paid`` per player, ``to_house``, ``share``
    as paid; ``payout`` the engine's share, None when the lobby split it)."""
    row = await uow.ledger.settlement(table_id)
    if row is None:
        return
    record = row.record
    paid_seats = 0
    for seat in record["seats"]:
        s = seats.get(seat["seat"])
        left = s is not None and s.player_id is not None and s.left
        seat["left"] = left
        if left and seat["paid_in"]:
            seat["why"].append({"code": "LEFT", "amount": -seat["paid_in"]})
        if seat["seat"] not in winners:
            continue
        if s is not None and s.player_id is not None and not left:
            seat["payout"] = paid.get(s.player_id, 0)
            seat["why"].append({"code": "SHARE", "amount": seat["payout"]})
            paid_seats += 1
        elif pot:
            seat["why"].append({"code": "LEFT_WON" if left else "BOT_WON"})
    record["pot"] = pot
    record["paid_out"] = pot - to_house
    record["to_house"] = to_house
    if paid_seats and payout is not None and max(0, payout) * paid_seats > pot:  # ledger.split_for cut it
        record["why"].append({"code": "CAPPED", "amount": share})
    if to_house:
        record["why"].append({"code": "HOUSE_SHARE", "amount": to_house})
    await uow.ledger.put_settlement(table_id, SETTLED, record, now)


async def record_refund(uow: Unit, table_id: str, seats: Sequence[SeatRow], now: datetime) -> None:
    """A match that never started: every stake held went back."""
    row = await uow.ledger.settlement(table_id)
    if row is None:
        return
    record = row.record
    refunded = 0
    for s in seats:
        seat = _seat_of(record, s.seat)
        if seat is not None and s.player_id is not None and s.stake_held:
            seat["refund"] = s.stake_held
            seat["why"].append({"code": "REFUND", "amount": s.stake_held})
            refunded += s.stake_held
    record["refunded"] = refunded
    record["why"].append({"code": "REFUND", "amount": refunded})
    await uow.ledger.put_settlement(table_id, REFUNDED, record, now)

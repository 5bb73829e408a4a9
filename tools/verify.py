"""``okey verify-deal``: check a hand's deal against the commitment published when it began."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from dataclasses import dataclass

from okeycore.classic import deal
from okeycore.events import HandEnded, HandStarted
from okeycore.fairness import deal_commitment

__all__ = ["DealCheck", "check_deal", "run_verify_deal"]


@dataclass(frozen=True)
class DealCheck:
    ok: bool
    lines: list[str]


def check_deal(started: HandStarted, ended: HandEnded) -> DealCheck:
    """The revealed order and salt hash to the commitment, and dealing from that order gives
    exactly the racks, indicator and deck the hand started with."""
    lines = []
    ok = True
    if not ended.order or not ended.salt:
        return DealCheck(False, ["the hand's end did not reveal a deal order and salt"])
    digest = deal_commitment(ended.order, ended.salt)
    if digest == started.commitment:
        lines.append(f"commitment  {started.commitment}  matches sha256(order + salt)")
    else:
        ok = False
        lines.append(f"commitment  {started.commitment}  DOES NOT match sha256(order + salt) = {digest}")
    if sorted(ended.order) != list(range(106)):
        return DealCheck(False, [*lines, "the revealed order is not a permutation of the 106 tiles"])
    seats = len(started.racks)
    if seats == 4 and all(len(r) in (14, 15) for r in started.racks):
        racks, indicator, deck = deal(ended.order, started.starter)
        same = racks == started.racks and indicator == started.indicator and deck == started.deck
    else:
        from okeycore import okey101

        racks, indicator, deck = okey101.deal(ended.order, started.starter, seats)  # type: ignore[attr-defined]
        same = racks == started.racks and indicator == started.indicator and deck == started.deck
    if same:
        lines.append("deal        the order deals exactly the racks, indicator and deck of the hand")
    else:
        ok = False
        lines.append("deal        the order DOES NOT deal the hand's racks, indicator and deck")
    return DealCheck(ok, lines)


async def _load(database_url: str, table_id: str, hand: int) -> tuple[HandStarted | None, HandEnded | None]:
    from okeyplatform.eventstore import PostgresEventStore

    store = await PostgresEventStore.connect(database_url, min_size=1, max_size=2)
    try:
        events = await store.read_stream(table_id)
    finally:
        await store.close()
    started: HandStarted | None = None
    ended: HandEnded | None = None
    for e in events:
        if e.type in ("HandStarted", "HandEnded") and e.data.get("hand") == hand:
            ev = e.event()
            if isinstance(ev, HandStarted):
                started = ev
            elif isinstance(ev, HandEnded):
                ended = ev
    return started, ended


def run_verify_deal(args: argparse.Namespace) -> int:
    url = args.database_url or os.environ.get("OKEY_DATABASE_URL")
    if not url:
        print("okey verify-deal: set OKEY_DATABASE_URL or pass --database-url", file=sys.stderr)
        return 2
    started, ended = asyncio.run(_load(url, args.table, args.hand))
    if started is None:
        print(f"okey verify-deal: table {args.table!r} has no hand {args.hand}", file=sys.stderr)
        return 1
    if ended is None:
        print(f"hand {args.hand} of {args.table} is still being played: the deal is revealed when it ends")
        print(f"commitment  {started.commitment}")
        return 1
    result = check_deal(started, ended)
    print(f"table {args.table}, hand {args.hand}")
    for line in result.lines:
        print("  " + line)
    print("VERIFIED: the deal was fixed before the first move" if result.ok else "FAILED: the deal does not check out")
    return 0 if result.ok else 1

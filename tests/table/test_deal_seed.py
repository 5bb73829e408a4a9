"""OKEY_INSECURE_DEAL_SEED (tests only): with the seed set, a table's deals are decided by the
seed, the table id and the hand number, so two table services deal the same hand to the same
table id (the tournament fault test replays a tournament with it); without it, deals are the
secure shuffle's. Either way the deal's commitment is made and checked as always."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from okeycore.classic.strategy import STRATEGIES
from okeycore.events import HandEnded, HandStarted
from okeycore.fairness import verify_commitment
from okeycore.kernel.state import Phase
from okeycore.options import TableOptions
from okeyplatform.auth import Identity
from okeyplatform.eventstore import MemoryEventStore
from okeytools.verify import check_deal

from services.table.app import TableApp
from services.table.main import TableConfig

BOTS = Identity("bots", "service")
PLAYERS = ("ali", "", "", "")


async def _deals(app: TableApp, table_id: str) -> list[HandStarted]:
    return [ev for _, ev in await app.events(table_id) if isinstance(ev, HandStarted)]


async def _first_deal(table_id: str, seed: str) -> HandStarted:
    """A fresh table service (its own store) opens ``table_id``: the first hand it deals."""
    app = TableApp(MemoryEventStore(), deal_seed=seed)
    await app.create_table(table_id, TableOptions(), PLAYERS)
    deals = await _deals(app, table_id)
    assert len(deals) == 1 and deals[0].hand == 1
    return deals[0]


async def test_the_same_seed_deals_the_same_hand_to_the_same_table_id_and_another_to_another() -> None:
    a = await _first_deal("kupa-1-0", "s3cret")
    b = await _first_deal("kupa-1-0", "s3cret")
    assert (a.order, a.salt, a.commitment, a.racks, a.indicator, a.deck, a.starter) == (
        b.order,
        b.salt,
        b.commitment,
        b.racks,
        b.indicator,
        b.deck,
        b.starter,
    )
    assert sorted(a.order) == list(range(106)) and a.salt
    assert verify_commitment(a.commitment, a.order, a.salt)

    other_table = await _first_deal("kupa-1-1", "s3cret")
    other_seed = await _first_deal("kupa-1-0", "another")
    assert other_table.order != a.order and other_table.salt != a.salt
    assert other_seed.order != a.order and other_seed.salt != a.salt


async def test_without_the_seed_two_deals_of_the_same_table_id_differ() -> None:
    a = await _first_deal("kupa-1-0", "")
    b = await _first_deal("kupa-1-0", "")
    assert a.order != b.order and a.salt != b.salt and a.commitment != b.commitment
    assert verify_commitment(a.commitment, a.order, a.salt)


async def test_a_seeded_table_deals_each_hand_anew_and_verify_deal_checks_it() -> None:
    """The next hand's deal is another (the hand number is in the key), the same on a second
    service, and the revealed order and salt pass ``okey verify-deal``'s check."""

    async def play_two_hands() -> tuple[list[HandStarted], list[HandEnded]]:
        app = TableApp(MemoryEventStore(), deal_seed="s3cret")
        await app.create_table("kupa-2-0", TableOptions(hand_break_seconds=0), PLAYERS)
        ended: list[HandEnded] = []
        for n in range(2000):
            loaded = await app.load("kupa-2-0")
            state = loaded.state
            if state.hand >= 2 or state.phase is not Phase.PLAYING:
                break
            cmd: Any = STRATEGIES["greedy"](state.turn).act(loaded.engine.view(state, state.turn))
            await app.act("kupa-2-0", f"m{n}", lambda now, c=cmd: replace(c, now_ms=now), BOTS, state.turn)
        for _, ev in await app.events("kupa-2-0"):
            if isinstance(ev, HandEnded):
                ended.append(ev)
        return await _deals(app, "kupa-2-0"), ended

    deals, ended = await play_two_hands()
    again, _ = await play_two_hands()
    assert [d.hand for d in deals] == [1, 2], [d.hand for d in deals]
    assert deals[0].order != deals[1].order
    assert [(d.order, d.salt) for d in deals] == [(d.order, d.salt) for d in again]
    assert ended, "the first hand never ended"
    check = check_deal(deals[0], ended[0])
    assert check.ok, check.lines


def test_the_seed_is_read_from_the_environment_and_off_by_default() -> None:
    urls = {"OKEY_DATABASE_URL": "postgresql://x", "OKEY_NATS_URL": "nats://x"}
    assert TableConfig.from_env(urls).deal_seed == ""
    assert TableConfig.from_env({**urls, "OKEY_INSECURE_DEAL_SEED": "s3cret"}).deal_seed == "s3cret"

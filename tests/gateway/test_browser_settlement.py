"""Issue 40.1, one truth for money and points, in a real browser at 1366x768: a stake match
against bots and one between two people (two browser contexts), played to the end through the
client (each person's seat moved over gRPC with the page's own token, a greedy bot's moves, so a
one-point match ends in seconds; the bots at once, OKEY_BOTS_PACE=instant). The stake dialog says
what can be won there, as the lobby computed it; the result screen shows the lobby's settlement
record (each seat's stake, payout, net and why), whose chips equal the ledger's (GetChips'
balance and the entries of the table) to the chip, and the top bar agrees without a reload.
Screenshots go to artifacts/settlement-*.png."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable
from typing import Any

import pytest
from okeyplatform.client import TableClient
from okeytools import stack as okeystack
from test_browser import ARTIFACTS

TIMEOUT_MS = 20_000
MATCH_S = 150.0  # a hang guard for a one-point match, not a speed check
VIEWPORT = {"width": 1366, "height": 768}


@pytest.fixture(scope="module")
def settle_stack(make_module_stack: Callable[..., okeystack.Stack]) -> okeystack.Stack:
    env = {
        "OKEY_BOTS_PACE": "instant",
        "OKEY_TIMEOUT_GRACE_MS": "300",
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",
        "OKEY_DAILY_GRANTS_PER_ADDRESS": "0",
    }
    return make_module_stack(
        ("table", "lobby", "scoring", "bots", "gateway"), env=env, label="settlement", private_nats=True
    )


@pytest.fixture
def base(settle_stack: okeystack.Stack) -> str:
    return f"http://{settle_stack.http_address}"


CALL_JS = """async ([method, body]) => {
  const r = await fetch('/api/okey.v1.LobbyService/' + method, {method: 'POST',
    headers: {'content-type': 'application/json', authorization: 'Bearer ' + okeyApp.state.token},
    body: JSON.stringify(body)});
  return [r.status, await r.json()];
}"""


class Person:
    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    @classmethod
    async def sign_in(cls, browser: Any, base: str, name: str) -> Person:
        ctx = await browser.new_context(viewport=VIEWPORT, locale="tr-TR")
        p = cls(await ctx.new_page())
        await p.page.goto(base + "/")
        await p.page.wait_for_selector("#screen-signin:not([hidden])")
        await p.page.fill("#signin-name", name)
        await p.page.click("#signin-submit")
        await p.page.wait_for_selector("#screen-lobby:not([hidden])")
        return p

    async def lobby(self, method: str, body: dict[str, Any]) -> dict[str, Any]:
        status, answer = await self.page.evaluate(CALL_JS, [method, body])
        assert status == 200, (method, answer)
        return dict(answer)

    async def header_chips(self) -> int:
        return int(re.sub(r"\D", "", await self.page.text_content("#who-chips") or "") or -1)

    async def confirm_stake_and_quote(self, stake: int, max_win: int, pot: int) -> None:
        """The stake dialog says what can be won there, the lobby's numbers; confirm."""
        await self.page.wait_for_selector("#stake-dialog[open]", timeout=TIMEOUT_MS)
        assert str(stake) in (await self.page.text_content("#stake-amount") or "")
        win = self.page.locator("#stake-win")
        assert await win.is_visible(), "the stake dialog says nothing of what can be won"
        assert await win.get_attribute("data-max") == str(max_win)
        assert await win.get_attribute("data-pot") == str(pot)
        text = await win.text_content() or ""
        assert str(max_win) in text and str(pot) in text, text
        await self.page.click("#stake-ok")
        await self.page.wait_for_selector("#stake-dialog[open]", state="detached")

    async def at_table(self) -> tuple[str, int]:
        await self.page.wait_for_selector("#screen-table:not([hidden])", timeout=TIMEOUT_MS)
        await self.page.wait_for_function(
            "() => { const t = okeyApp.state.t; return t && t.view && t.live; }", timeout=TIMEOUT_MS
        )
        st = await self.page.evaluate("() => ({id: okeyApp.state.t.id, seat: okeyApp.state.t.seat})")
        return st["id"], int(st["seat"])


async def _play_seat_to_match_end(grpc_addr: str, token: str, table_id: str, seat: int, stop: asyncio.Event) -> None:
    """The person's seat over gRPC with the page's token: a greedy bot's moves until the match ends."""
    from okeycore.classic.bots import GreedyBot
    from okeyplatform.contract import seat_view_from_pb

    client = TableClient(grpc_addr, token)
    bot = GreedyBot(7)
    try:
        while not stop.is_set():
            v = seat_view_from_pb(await client.view(table_id, seat))
            if v.phase.value == "MATCH_OVER":
                return
            if v.phase.value != "PLAYING" or v.turn != seat:
                await asyncio.sleep(0.03)
                continue
            with contextlib.suppress(Exception):
                await client.act(table_id, bot.act(v))
    finally:
        await client.close()


async def _the_result_agrees_with_the_ledger(p: Person, table_id: str, seat: int, shot: str) -> dict[str, Any]:
    """The result dialog's settlement is the lobby's, to the chip: the net of the person's row is
    the sum of their ledger entries of the table, the balance shown is GetChips', and so is the
    top bar's count (no reload)."""
    page = p.page
    await page.wait_for_selector("#result-dialog[open] #settle-balance", timeout=TIMEOUT_MS)
    chips = await p.lobby("GetChips", {"limit": 200})
    balance = int(chips.get("balance", 0))
    moved = sum(int(e.get("amount", 0)) for e in chips.get("entries", []) if e.get("tableId") == table_id)
    record = (await p.lobby("GetSettlement", {"tableId": table_id}))["settlement"]
    assert record["status"] == "SETTLEMENT_STATUS_SETTLED", record
    row = page.locator(f'#result-dialog table.settlement tr[data-seat="{seat}"]')
    assert int(await row.get_attribute("data-net") or "x") == moved
    (mine,) = [s for s in record["seats"] if int(s.get("seat", 0)) == seat]
    assert int(mine.get("net", 0)) == moved
    assert int(await row.get_attribute("data-payout") or "x") == int(mine.get("payout", 0))
    assert int(await page.get_attribute("#settle-balance", "data-chips") or "x") == balance
    assert str(balance) in (await page.text_content("#settle-balance") or "")
    assert await p.header_chips() == balance, "the top bar disagrees with the ledger"
    # no payout computed by the page: the standings have no prize column
    heads = await page.locator("#result-dialog table.standings th[scope=col]").all_text_contents()
    assert "Ödül" not in heads, heads
    await page.wait_for_timeout(200)
    await page.screenshot(path=str(ARTIFACTS / f"settlement-{shot}.png"))
    return {"balance": balance, "moved": moved, "record": record}


async def test_40_1_a_stake_match_against_bots_shows_the_ledger_s_chips(
    base: str, browser: Any, settle_stack: okeystack.Stack
) -> None:
    """The report of 2026-12-06: one person and three bots at stake 100. The dialog says only the
    person's 100 makes the pot (bots pay nothing in), and the result shows what the ledger did."""
    ayse = await Person.sign_in(browser, base, "Ayşe Bot")
    page = ayse.page
    start = await ayse.header_chips()
    await page.select_option("#create-game", "OKEY")
    await page.fill("#opt-match_points", "1")
    await page.fill("#opt-stake", "100")
    await page.click("#create-more > summary")
    await page.fill("#opt-hand_break_seconds", "0")
    assert await page.is_checked("#create-fill")
    await page.click("#create-submit")
    await ayse.confirm_stake_and_quote(100, max_win=100, pot=100)
    assert "Botlar para koymaz" in (await page.text_content("#stake-win") or "")
    table_id, seat = await ayse.at_table()
    stop = asyncio.Event()
    token = await page.evaluate("() => okeyApp.state.token")
    task = asyncio.create_task(_play_seat_to_match_end(settle_stack.address("table"), token, table_id, seat, stop))
    try:
        await page.wait_for_selector("#result-dialog[open]", timeout=MATCH_S * 1000)
        got = await _the_result_agrees_with_the_ledger(ayse, table_id, seat, "bots")
    finally:
        stop.set()
        with contextlib.suppress(Exception):
            await task
    record = got["record"]
    assert int(record["pot"]) == 100 and int(record["people"]) == 1 and int(record["bots"]) == 3
    assert got["balance"] == start + got["moved"] and got["moved"] in (0, -100)  # own stake back, or lost
    codes = [w["code"] for w in record.get("why", [])]
    assert codes[:2] == ["POT", "BOTS_PAY_NOTHING"], codes
    assert "botlar para koymaz" in (await page.text_content("#result-chips") or "").lower()
    assert not ayse.errors, ayse.errors


async def test_40_1_a_stake_match_between_two_people_shows_each_the_ledger_s_chips(
    base: str, browser: Any, settle_stack: okeystack.Stack
) -> None:
    """Two people (two browser contexts) at a private stake table, the creator fills the other
    seats with bots: each sees the pot of the two stakes before sitting, and each one's result
    shows their own chips as the ledger moved them, the top bar agreeing."""
    ayse = await Person.sign_in(browser, base, "Ayşe Kişi")
    page = ayse.page
    await page.select_option("#create-visibility", "TABLE_VISIBILITY_PRIVATE")
    await page.uncheck("#create-fill")
    await page.select_option("#create-game", "OKEY")
    await page.fill("#opt-match_points", "1")
    await page.fill("#opt-stake", "100")
    await page.click("#create-more > summary")
    await page.fill("#opt-hand_break_seconds", "0")
    await page.click("#create-submit")
    await ayse.confirm_stake_and_quote(100, max_win=400, pot=400)  # if people take every seat
    await page.wait_for_selector("#my-tables-panel:not([hidden]) .invite-code", timeout=TIMEOUT_MS)
    code = (await page.text_content("#my-tables .invite-code") or "").replace(" ", "").strip()

    baris = await Person.sign_in(browser, base, "Barış Kişi")
    await baris.page.fill("#code-input", code)
    await baris.page.click("#code-submit")
    await baris.confirm_stake_and_quote(100, max_win=400, pot=400)
    card = (await ayse.lobby("GetTableCard", {"inviteCode": code}))["table"]
    table_id = card["tableId"]
    await page.wait_for_function(
        "() => document.querySelector('#my-tables').textContent.includes('Barış Kişi')", timeout=TIMEOUT_MS
    )
    await ayse.lobby("FillWithBots", {"tableId": table_id})  # the two stakes make the pot
    card = (await ayse.lobby("GetTableCard", {"tableId": table_id}))["table"]
    seat_of = {s.get("displayName"): int(s.get("seat", 0)) for s in card["seats"]}
    await page.goto(f"{base}/#/table/{table_id}/{seat_of['Ayşe Kişi']}")
    await baris.page.goto(f"{base}/#/table/{table_id}/{seat_of['Barış Kişi']}")
    people = [ayse, baris]
    seats = []
    for p in people:
        tid, seat = await p.at_table()
        assert tid == table_id
        seats.append(seat)
    stop = asyncio.Event()
    tasks = []
    for p, seat in zip(people, seats, strict=True):
        token = await p.page.evaluate("() => okeyApp.state.token")
        tasks.append(
            asyncio.create_task(_play_seat_to_match_end(settle_stack.address("table"), token, table_id, seat, stop))
        )
    try:
        results = []
        for p, seat, shot in zip(people, seats, ("people-1", "people-2"), strict=True):
            await p.page.wait_for_selector("#result-dialog[open]", timeout=MATCH_S * 1000)
            results.append(await _the_result_agrees_with_the_ledger(p, table_id, seat, shot))
    finally:
        stop.set()
        for t in tasks:
            with contextlib.suppress(Exception):
                await t
    record = results[0]["record"]
    assert int(record["pot"]) == 200 and int(record["people"]) == 2
    assert sum(r["moved"] for r in results) == -int(record.get("toHouse", 0))  # nothing made or lost
    assert not ayse.errors and not baris.errors, (ayse.errors, baris.errors)

"""Every point change has a row (issue 40 item 3), in a real browser at 1366x768: a person at a
classic table with bots plays hands (their own seat over gRPC with the page's token, a greedy
bot's moves, which show the indicator when they may) until a hand in which an indicator was shown
ends. At every hand's end the rows the end-of-hand screen draws add up: each seat's total before
the hand plus its rows is the total the screen shows; and the hand whose indicator was shown has
its row. The defect it guards: "-2 Başkası bitirdi, Toplam 17" (20 - 2 is 18), the indicator's
-1 on no row. Screenshot: artifacts/handend-rows.png."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import pytest
from okeytools import stack as okeystack
from test_browser import ARTIFACTS, STATE_JS

VIEWPORT = {"width": 1366, "height": 768}
MATCH_POINTS = 200  # no match ends within the hands played
MAX_HANDS = 8  # an indicator is shown in about half of all hands (its twin is dealt to a seat)
HAND_SECONDS = 90.0

# The screen's rows: a row that opens a seat's group names the seat (a th) and shows its total;
# the points and the reason are the row's next cells (this reads the screen as a player does).
ROWS_JS = """() => Array.from(document.querySelectorAll('#handend .handend-scores tbody tr')).map((tr) => {
  const c = Array.from(tr.children);
  const head = c[0].tagName === 'TH';
  const cell = (i) => (c[i] ? c[i].textContent.trim() : '');
  if (head) return { name: cell(0), points: cell(1), why: cell(2), total: cell(3) };
  return { name: null, points: cell(0), why: cell(1) };
})"""


@pytest.fixture(scope="module")
def rows_stack(make_module_stack: Callable[..., okeystack.Stack]) -> okeystack.Stack:
    env = {"OKEY_RATE_LIMIT": "1000", "OKEY_RATE_BURST": "1000", "OKEY_TIMEOUT_GRACE_MS": "300"}
    return make_module_stack(("table", "lobby", "bots", "gateway"), env=env, label="handend-rows", private_nats=True)


async def _play_own_seat(grpc_addr: str, token: str, table_id: str, seat: int, stop: asyncio.Event) -> None:
    """The person's seat, hand after hand: a greedy bot's moves (it shows the indicator when it may)."""
    from okeycore.classic.bots import GreedyBot
    from okeyplatform.client import TableClient
    from okeyplatform.contract import seat_view_from_pb

    client = TableClient(grpc_addr, token)
    bot = GreedyBot(7)
    try:
        while not stop.is_set():
            v = seat_view_from_pb(await client.view(table_id, seat))
            if v.phase.value != "PLAYING" or v.turn != seat:
                if v.phase.value == "PLAYING" and "ShowIndicator" in v.allowed:
                    with contextlib.suppress(Exception):
                        await client.act(table_id, bot.off_turn(v) or bot.act(v))
                await asyncio.sleep(0.05)
                continue
            with contextlib.suppress(Exception):
                await client.act(table_id, bot.act(v))
    finally:
        await client.close()


def _groups(rows: list[dict[str, Any]]) -> dict[str, tuple[list[int], int]]:
    """Each seat's name -> (its rows' points, its shown total)."""
    out: dict[str, tuple[list[int], int]] = {}
    name = ""
    for r in rows:
        if r["name"] is not None:
            name = r["name"]
            out[name] = ([], int(r["total"]))
        out[name][0].append(int(r["points"] or 0))
    return out


async def test_C_SC_4_every_row_of_the_end_of_hand_screen_adds_up_and_the_indicator_has_its_row(
    browser: Any, rows_stack: okeystack.Stack
) -> None:
    errors: list[str] = []
    ctx = await browser.new_context(locale="tr-TR", viewport=VIEWPORT)
    page = await ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    stop = asyncio.Event()
    task: asyncio.Task[None] | None = None
    try:
        await page.goto(f"http://{rows_stack.http_address}/")
        await page.wait_for_selector("#screen-signin:not([hidden])")
        await page.fill("#signin-name", "Satir Sayan")
        await page.click("#signin-submit")
        await page.wait_for_selector("#screen-lobby:not([hidden])")
        await page.select_option("#create-game", "OKEY")
        await page.click("#create-more > summary")
        await page.fill("#opt-match_points", str(MATCH_POINTS))
        await page.fill("#opt-hand_break_seconds", "30")  # Hazır deals the next hand: the break never runs out
        await page.click("#create-submit")
        await page.wait_for_selector("#screen-table:not([hidden])")
        await page.wait_for_function(
            "() => { const t = okeyApp.state.t; return t && t.view && t.live; }", timeout=20_000
        )
        st = await page.evaluate(STATE_JS)
        token = await page.evaluate("() => okeyApp.state.token")
        task = asyncio.create_task(_play_own_seat(rows_stack.address("table"), token, st["id"], st["seat"], stop))

        before: dict[str, int] | None = None  # each seat's total before the hand (by its name)
        shown_hands: list[int] = []
        for hand in range(1, MAX_HANDS + 1):
            await page.wait_for_function(
                "(h) => okeyApp.state.t.view.hand == h && !!document.querySelector('#handend[open] #handend-ready')",
                arg=hand,
                timeout=int(HAND_SECONDS * 1000),
            )
            await page.wait_for_selector("#handend-ready:not([disabled])", timeout=8_000)
            assert f"{hand}. el bitti" in (await page.locator("#handend h3").text_content() or "")
            rows = await page.evaluate(ROWS_JS)
            groups = _groups(rows)
            assert len(groups) == 4, rows
            if before is None:
                before = {name: MATCH_POINTS for name in groups}
            for name, (points, total) in groups.items():
                # the rows add up: the total before the hand plus this hand's rows is the total shown
                assert before[name] + sum(points) == total, (hand, name, before[name], points, total, rows)
            # the side panel's points of the hand are the same changes
            side = await page.locator("#lasthand-body table td").all_text_contents()
            assert [int(x) for x in side] == [sum(p) for p, _ in groups.values()], (side, rows)
            shown = await page.evaluate("() => !!okeyApp.state.t.view.indicatorShown")
            if shown:
                whys = [r["why"].casefold() for r in rows]
                assert any("gösterge" in w for w in whys), rows  # the indicator shown has its row
                shown_hands.append(hand)
                await page.evaluate("() => window.scrollTo(0, 0)")
                await page.screenshot(path=str(ARTIFACTS / "handend-rows.png"))
                break
            before = {name: total for name, (_, total) in groups.items()}
            await page.click("#handend-ready")
            await page.wait_for_function(
                "(h) => okeyApp.state.t.view.hand == h + 1 && okeyApp.state.t.view.phase === 'PHASE_PLAYING'",
                arg=hand,
                timeout=15_000,
            )
        assert shown_hands, f"no indicator was shown in {MAX_HANDS} hands"
    finally:
        stop.set()
        if task is not None:
            with contextlib.suppress(Exception):
                await task
        await ctx.close()
    assert not errors, errors
    print(f"handend rows: every hand added up; an indicator was shown in hand {shown_hands[0]}")

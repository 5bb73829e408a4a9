"""A disconnected seat in a real browser [D-11]: two people at a private table (one opens it, the
other joins by its code, as test_browser_seating.py does), started with bots. The second person
closes their page: within 5 s (the gateway's grace of 2 s, the table's round trip and the event's
way to the page) the first person's page shows that seat with the "KOPTU" flag and its event log
says "bağlantı koptu"; the second person opens the site again (a new page of the same browser:
the same session) and is back at the table, and the first person's page drops the flag and logs
"yeniden bağlandı". Neither page has a script error. Debian's Chromium through Playwright, as
test_browser.py; a screenshot goes to artifacts/."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from okeytools import stack as okeystack
from test_browser import ARTIFACTS, STATE_JS
from test_browser_seating import Person, two_at_a_private_table

TIMEOUT_MS = 15_000
SHOWN_WITHIN_MS = 5_000  # the gateway's grace (2 s), the table's round trip, the event to the page


@pytest.fixture
def base(make_stack: Callable[..., okeystack.Stack]) -> str:
    # Every guest signs in from 127.0.0.1: the per-address quotas of accounts and grants are lifted.
    env = {
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",
        "OKEY_DAILY_GRANTS_PER_ADDRESS": "0",
    }
    services = ("table", "lobby", "scoring", "bots", "gateway")
    stack = make_stack(services, env=env, label="browser-disconnected", private_nats=True)
    return f"http://{stack.http_address}"


async def _at_table(person: Person, table_id: str) -> int:
    """Until the person's page is at the table, live: their seat."""
    page = person.page
    await page.wait_for_selector("#screen-table:not([hidden])", timeout=TIMEOUT_MS)
    await page.wait_for_function(
        "(id) => { const t = window.okeyApp && okeyApp.state.t; return !!t && t.id === id && !!t.view && t.live; }",
        arg=table_id,
        timeout=TIMEOUT_MS,
    )
    state = await page.evaluate(STATE_JS)
    assert state["id"] == table_id and state["seat"] is not None, state
    return int(state["seat"])


async def test_D_11_a_closed_page_is_shown_disconnected_to_the_other_person_and_back_when_reopened(
    base: str, browser: Any
) -> None:
    # ---- Ayşe opens a private table without bots; Barış joins it by its code; Ayşe starts it
    ayse, baris, table_id = await two_at_a_private_table(browser, base, "Ayşe Bağlı", "Barış Kopan")
    page = ayse.page
    await page.click(f'#my-tables article[data-table="{table_id}"] button.primary')  # start, with bots
    mine = await _at_table(ayse, table_id)
    seat = await _at_table(baris, table_id)
    assert seat != mine
    panel = f'#board section.seat-panel[data-seat="{seat}"]'
    flag = f"{panel} .flag.offline"
    await page.wait_for_selector(panel, timeout=TIMEOUT_MS)
    assert "Barış Kopan" in (await page.text_content(panel) or "")
    assert await page.query_selector(flag) is None  # connected: no flag

    # ---- Barış closes his page: his seat's watch ends; within 5 s Ayşe's page shows it
    context = baris.page.context
    await baris.page.close()
    closed = time.monotonic()
    await page.wait_for_selector(flag, timeout=SHOWN_WITHIN_MS)
    took = time.monotonic() - closed
    print(f"KOPTU shown on the other person's page {took:.2f} s after the page closed")
    assert took >= 1.5, took  # the gateway's grace (2 s) came first
    assert (await page.text_content(flag) or "").strip() == "KOPTU"
    assert "Bağlantı koptu" in (await page.get_attribute(flag, "title") or "")
    await page.wait_for_function(
        "() => document.querySelector('#event-log').textContent.includes('Barış Kopan: bağlantı koptu')",
        timeout=TIMEOUT_MS,
    )
    await page.screenshot(path=str(ARTIFACTS / "seat-disconnected.png"), full_page=True)

    # ---- Barış opens the site again in the same browser: back at the table, connected again
    again = Person(await context.new_page(), base)
    opened = time.monotonic()
    await again.page.goto(base + "/")
    assert await _at_table(again, table_id) == seat  # the site takes him back to his table
    await page.wait_for_selector(flag, state="detached", timeout=SHOWN_WITHIN_MS)
    print(f"KOPTU gone from the other person's page {time.monotonic() - opened:.2f} s after the site was opened")
    await page.wait_for_function(
        "() => document.querySelector('#event-log').textContent.includes('Barış Kopan yeniden bağlandı')",
        timeout=TIMEOUT_MS,
    )
    # His own page shows nobody disconnected either.
    await again.page.wait_for_selector(panel, timeout=TIMEOUT_MS)
    assert await again.page.query_selector("#board .flag.offline") is None
    for who in (ayse, baris, again):
        assert not who.errors, who.errors

"""Otomatik diz [issue 47, item 4], in headless Chromium (Debian's, through Playwright, as in
test_browser.py), on a bot table (the bots move at once, as in test_browser_motion.py):

- the switch (#auto-arrange, a checkbox on the rack) is remembered on the device: it holds across
  a reload, on and off;
- on: after the person's draw from the deck the rack is laid out as Seri Diz lays it out, the
  arrangement being the table service's (GetHints, asked here through the gateway with the page's
  token for the view after the draw): its runs' tiles first, in their order, the rest after them,
  and pressing Seri Diz then changes nothing. After Çift Diz was pressed, the next draw lays the
  rack out by the pairs instead;
- off: the drawn tile goes where the client puts it by default (after the last tile), nothing else
  moves;
- axe-core reports no serious or critical violation on the table with the switch.

The stack: table service, lobby, bots (instant) and gateway.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from browser_pages import signed_in
from okeytools import stack as okeystack
from test_browser import ARTIFACTS
from test_browser_motion import OPEN_TABLE, STATE, TABLE_READY, _my_turn
from test_browser_phone import _axe, _painted

DESKTOP = {"width": 1366, "height": 768}


@pytest.fixture(scope="module")
def stack(make_module_stack: Callable[..., okeystack.Stack]) -> okeystack.Stack:
    env = {
        "OKEY_TIMEOUT_GRACE_MS": "300",
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",
        "OKEY_BOTS_PACE": "instant",
        # The test needs the person's next three draws in one hand: random bots (unlike the
        # greedy ones of the other stacks) do not finish a lucky deal within a few rounds.
        "OKEY_BOTS_STRATEGY": "random",
    }
    return make_module_stack(("table", "lobby", "bots", "gateway"), env=env, label="autoarrange", private_nats=True)


async def _table_ready(page: Any) -> None:
    await page.wait_for_selector("#screen-table:not([hidden])")
    await page.wait_for_function(TABLE_READY, timeout=20_000, polling=50)
    await _painted(page)


# The rack as the page holds it (its 30 slots) and as it draws it (the tiles in slot order).
RACK = """() => {
  const t = okeyApp.state.t;
  const dom = Array.from(document.querySelectorAll('#rack button[data-tile]'))
    .sort((a, b) => Number(a.dataset.slot) - Number(b.dataset.slot)).map((b) => Number(b.dataset.tile));
  return {slots: t.slots.slice(), dom, rack: (t.view.rack || []).map((x) => Number(x.id || 0)),
    pending: !!t.autoArrange, version: t.version};
}"""


async def _discard(page: Any) -> None:
    """Discard the rightmost tile that is not the okey, until it left the rack."""
    tile = page.locator("#rack button.tile:not(.okey)").last
    tile_id = await tile.get_attribute("data-tile")
    await tile.click()
    await page.click('[data-act="discard"]')
    await page.wait_for_function(
        "(id) => { const v = okeyApp.state.t.view; return v.phase !== 'PHASE_PLAYING'"
        " || !(v.rack || []).some((x) => String(x.id || 0) === id); }",
        arg=tile_id,
        timeout=15_000,
        polling=50,
    )


async def _until_draw(page: Any) -> None:
    """Until the person may draw, with the hints of the view before the draw in (the starter
    discards first)."""
    for _ in range(3):
        st = await _my_turn(page)
        assert st is not None, "the hand ended before the person drew"
        if "Draw" in st["allowed"]:
            await page.wait_for_function("() => okeyApp.hintsFresh()", timeout=10_000, polling=50)
            return
        await _discard(page)
    raise AssertionError("no draw came")


async def _draw(page: Any) -> dict[str, Any]:
    """Click the deck; once the view after the draw and its hints are in: the rack (before and after)."""
    before = await page.evaluate(RACK)
    await page.click("#deck")
    await page.wait_for_function(
        "(n) => { const t = okeyApp.state.t; return (t.view.rack || []).length === n + 1"
        " && okeyApp.hintsFresh() && !t.busy && !t.autoArrange; }",
        arg=len(before["rack"]),
        timeout=10_000,
        polling=50,
    )
    await page.wait_for_timeout(300)  # anything the page would still do after the hints came
    after = await page.evaluate(RACK)
    return {"before": before, "after": after}


async def _server_hints(page: Any, stack: okeystack.Stack) -> dict[str, Any]:
    """GetHints for the person's seat, through the gateway with the page's token."""
    token, table, seat = await page.evaluate("() => [okeyApp.state.token, okeyApp.state.t.id, okeyApp.state.t.seat]")
    async with httpx.AsyncClient(base_url=f"http://{stack.http_address}", timeout=10) as http:
        r = await http.post(
            "/api/okey.v1.TableService/GetHints",
            json={"tableId": table, "seat": seat},
            headers={"authorization": f"Bearer {token}"},
        )
    assert r.status_code == 200, r.text
    return r.json().get("hints") or {}


def _melds(arrangement: dict[str, Any]) -> list[list[int]]:
    return [[int(x.get("id", 0)) for x in m.get("tiles") or []] for m in arrangement.get("melds") or []]


def _assert_laid_out(rack: dict[str, Any], melds: list[list[int]], what: str) -> None:
    """The rack's tiles in slot order are the arrangement's melds, in order, then the rest."""
    flat = [x for m in melds for x in m]
    order = [x for x in rack["slots"] if x is not None]
    assert rack["dom"] == order, rack
    assert sorted(order) == sorted(rack["rack"]), rack
    assert order[: len(flat)] == flat, f"{what}: the rack {order} does not start with the melds {melds}"
    assert sorted(order[len(flat) :]) == sorted(set(rack["rack"]) - set(flat)), (what, order, melds)
    # each meld is one block of adjacent slots
    for m in melds:
        at = [rack["slots"].index(x) for x in m]
        assert at == list(range(at[0], at[0] + len(m))), f"{what}: meld {m} is not together: {rack['slots']}"


async def test_47_4_otomatik_diz_lays_the_rack_out_after_a_draw_as_seri_diz_does(
    browser: Any, stack: okeystack.Stack
) -> None:
    context, page, errors = await signed_in(browser, stack.http_address, "Otomatik Dizen", viewport=DESKTOP)
    try:
        t = await page.evaluate(OPEN_TABLE)
        await page.evaluate("(h) => { location.hash = h; }", f"#/table/{t['id']}/{t['seat']}")
        await _table_ready(page)
        toggle = page.locator("#auto-arrange")
        assert await toggle.is_visible()
        assert not await toggle.is_checked()  # off unless the person turns it on
        label = await page.locator("label.auto-arrange").inner_text()
        assert label.strip() == "Otomatik diz", label
        await toggle.check()
        assert await page.evaluate("() => localStorage.getItem('okey.rack.auto')") == "1"
        # remembered on the device: on after a reload
        await page.reload()
        await _table_ready(page)
        assert await page.locator("#auto-arrange").is_checked()

        # on, Seri Diz (the default): the draw's rack is the server's runs arrangement
        await _until_draw(page)
        got = await _draw(page)
        hints = await _server_hints(page, stack)
        runs = _melds(hints.get("runs") or {})
        _assert_laid_out(got["after"], runs, "Seri Diz")
        drawn = set(got["after"]["rack"]) - set(got["before"]["rack"])
        assert len(drawn) == 1, got
        # exactly as the button lays it out: pressing Seri Diz now moves nothing
        await page.click("#seri-diz")
        again = await page.evaluate(RACK)
        assert again["slots"] == got["after"]["slots"], (again, got["after"])
        await page.screenshot(path=str(ARTIFACTS / "autoarrange-seri.png"))

        # Çift Diz pressed: the next draw lays the rack out by the pairs
        await page.click("#cift-diz")
        assert await page.evaluate("() => localStorage.getItem('okey.rack.choice')") == "pairs"
        await _discard(page)
        await _until_draw(page)
        got = await _draw(page)
        hints = await _server_hints(page, stack)
        _assert_laid_out(got["after"], _melds(hints.get("pairs") or {}), "Çift Diz")

        # off: the drawn tile goes after the last tile, the rest stays where it was
        await page.locator("#auto-arrange").uncheck()
        assert await page.evaluate("() => localStorage.getItem('okey.rack.auto')") is None
        await _discard(page)
        await _until_draw(page)
        got = await _draw(page)
        before, after = got["before"]["slots"], got["after"]["slots"]
        (new,) = set(got["after"]["rack"]) - set(got["before"]["rack"])
        last = max(i for i, x in enumerate(before) if x is not None)
        free = [i for i, x in enumerate(before) if x is None]
        at = next((i for i in free if i > last), free[0])
        expected = list(before)
        expected[at] = new
        assert after == expected, f"off: the rack moved: {before} -> {after} (drawn {new})"
        # off, remembered across a reload
        await page.reload()
        await _table_ready(page)
        assert not await page.locator("#auto-arrange").is_checked()
        st = await page.evaluate(STATE)
        assert st["phase"] == "PHASE_PLAYING", st
        await _axe(page, "the table with Otomatik diz")
    finally:
        await context.close()
    assert not errors, errors

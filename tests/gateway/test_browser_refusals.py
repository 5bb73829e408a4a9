"""Issue 18.5 and 18.9 in a real browser (Debian's Chromium through Playwright, the stack of
test_browser.py): refusals a player meets at an Okey 101 table are shown in Turkish by their
reason code, with tiles named as players name them — two provoked through the UI (a name the
lobby refuses at sign-in; opening with every tile, and with a one-tile meld), and every reason
code the services define through the page's own error-showing function, each given the kind of
English, rule-id and tile-id message the servers send — and then the TR page's text is scanned:
no rule ids, no "tile <n>", none of the servers' English words. The add and take-okey controls
and the + markers do not show before the seat may use them, and show (naming the tile) only at
a meld the selected tile fits when AddTile is allowed. A new deal shows none of the last hints.
Reloading the site (no #/table in the address) mid-hand returns to the table, and so does signing
out and in again as the same account; the lobby button still shows the lobby. Screenshots:
artifacts/refusal-tr.png, artifacts/reload-mid-hand.png."""

from __future__ import annotations

import asyncio
import re
import shutil
from typing import Any

import pytest
from refusal_codes import RULE_ID, TILE_ID, english_in, english_words, scan, strings
from test_browser import (  # noqa: F401 - stack is a fixture
    ARTIFACTS,
    CHROMIUM_ARGS,
    STALE_JS,
    STATE_JS,
    Stack,
    _chromium,
    _play_other_seats,
    _playwright,
    open_signin_page,
    stack,
)

SERVER_LIKE = "tile 87 does not fit meld 3 [O-SIDE-2]; meld 1: a run needs 3 tiles, got 57"
TOAST_JS = "(b) => { const t = document.querySelector('#toast'); return !t.hidden && t.textContent !== b; }"
REFUSAL_JS = "([code, msg, ctx]) => okeyApp.showRefusal({reason: code, code: 'FAILED_PRECONDITION', message: msg}, ctx)"
NAMED = re.compile(r"^1\. per geçerli değil \(((Kırmızı|Sarı|Mavi|Siyah) \d+|Okey|Sahte okey)\)")
# A run of the colour of a rack tile (not an okey) that the tile extends at the start, as the
# only meld on the table, with the hints saying so (meld 0, at the start: protobuf's JSON leaves
# the 0 out) and AddTile allowed or not; returns the tile's id and name.
INJECT_RUN_JS = """(allow) => {
  const t = okeyApp.state.t, v = t.view, okey = v.okey.code;
  const tile = v.rack.find((x) => x.code !== okey && x.code !== 'F' && Number(x.code.slice(1)) <= 10);
  if (!tile) return null;
  const c = tile.code[0], n = Number(tile.code.slice(1));
  const codes = [1, 2, 3].map((k) => c + (n + k));
  const tiles = codes.map((code, k) => ({ id: 900 + k, code }));
  v.melds = [{ owner: 1, kind: 'MELD_KIND_RUN', tiles, standsFor: codes }];
  v.allowed = (v.allowed || []).filter((a) => a !== 'AddTile').concat(allow ? ['AddTile'] : []);
  // the hints as the table service gives them for that table: the tile fits meld 0 at its start
  const fit = { tile, addable: true, addTo: [{ atStart: true }] };
  t.hints = { tiles: v.rack.map((x) => (x.id === tile.id ? fit : { tile: x })) };
  t.selected = [];
  const names = { R: 'Kırmızı', Y: 'Sarı', B: 'Mavi', K: 'Siyah' };
  return { id: tile.id, name: names[c] + ' ' + n };
}"""
# Hints marking every rack tile, then a HandStarted event with the view as it is (the page's own
# applyView); the rack's markers counted before and right after the frame that draws it.
REDEAL_JS = """async () => {
  const live = await import('/live.js');
  const t = okeyApp.state.t;
  t.hints = { tiles: t.view.rack.map((x) => ({ tile: x, finishes: true, penalised: true })) };
  t.selected = [];
  document.querySelector('#rack button.tile').click();
  document.querySelector('#rack button.tile').click();
  const before = document.querySelectorAll('#rack .mk').length;
  const v = JSON.parse(JSON.stringify(t.view));
  v.version = t.version + 1;
  live.applyView(v, { kind: 'HandStarted', version: v.version, handStarted: { hand: v.hand, starter: t.seat } });
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));  // the table draws once a frame
  return { before, after: document.querySelectorAll('#rack .mk').length, hints: t.hints };
}"""
PAGE_TEXT_JS = "(id) => document.body.innerText.split(id).join(' ')"


async def _my_turn(page: Any, stages: tuple[str, ...], timeout_s: float = 40.0) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout_s
    while loop.time() < end:
        st = await page.evaluate(STATE_JS)
        mine = st and st["phase"] == "PHASE_PLAYING" and st["turn"] == st["seat"] and not st["busy"]
        if mine and st["stage"] in stages:
            return st
        await page.wait_for_timeout(80)
    raise AssertionError(f"no turn of mine at {stages}: {await page.evaluate(STATE_JS)}")


async def _toast(page: Any, before: str) -> str:
    await page.wait_for_function(
        TOAST_JS,
        arg=before,
        timeout=10_000,
    )
    return str(await page.text_content("#toast"))


def _check_tr_text(text: str, words: set[str], where: str) -> None:
    assert not RULE_ID.search(text), (where, RULE_ID.findall(text))
    assert not TILE_ID.search(text), (where, TILE_ID.findall(text))
    english = english_in(text, words)
    assert not english, (where, english, text[:2000])


@pytest.mark.parametrize("stack", ["all"], indirect=True)
async def test_refusals_are_turkish_on_a_tr_page_and_a_reload_returns_to_the_table(stack: Stack) -> None:  # noqa: F811
    if "lobby" not in stack.running:
        pytest.skip(f"the lobby did not start: {stack.skipped}")
    found = scan()
    words = english_words(found)
    tr = strings("tr")
    async_playwright = _playwright()
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    helper: asyncio.Task[None] | None = None
    stop_helper = asyncio.Event()
    async with async_playwright() as pw:
        ctx, page, profile = await open_signin_page(pw, errors, stack.base)
        try:
            # ---- a real refusal through the UI: the lobby refuses a two-letter name (INVALID_NAME)
            await page.fill("#signin-name", "Ab")
            await page.click("#signin-submit")
            await page.wait_for_selector("#signin-error:not([hidden])")
            name_error = str(await page.text_content("#signin-error"))
            assert name_error == tr["err.INVALID_NAME.length"].replace("{min}", "3").replace("{max}", "20"), name_error
            _check_tr_text(name_error, words, "name refusal")

            await page.fill("#signin-name", "Ret Testi")
            await page.click("#signin-submit")
            await page.wait_for_selector("#screen-lobby:not([hidden])")

            # ---- an Okey 101 table with bots
            await page.select_option("#create-game", "OKEY101")
            await page.click("#create-more > summary")  # under "more options"
            await page.fill("#opt-turn_seconds", "90")
            assert await page.is_checked("#create-fill")
            await page.click("#create-submit")
            await page.wait_for_selector("#screen-table:not([hidden])")
            await page.wait_for_function(
                "() => { const t = okeyApp.state.t; return t && t.view && t.live; }", timeout=20_000
            )
            st = await page.evaluate(STATE_JS)
            table_id, human = st["id"], st["seat"]
            if "bots" not in stack.running:
                helper = asyncio.create_task(
                    _play_other_seats(stack.processes.address("table"), table_id, human, stop_helper)
                )
            assert await page.locator("#staging").is_visible()

            # ---- my turn (the starter's 22 tiles, or a draw first), then two openings the rules refuse
            st = await _my_turn(page, ("STAGE_DRAW", "STAGE_PLAY"))
            if st["stage"] == "STAGE_DRAW":
                await page.click("#deck")
                await page.wait_for_function(f"() => okeyApp.version() > {st['version']}", timeout=10_000)
            await _my_turn(page, ("STAGE_PLAY",))

            # Not opened yet: no add or take-okey control and no + / <-> marker, whatever is selected.
            first = page.locator("#rack button.tile").first
            await first.click()
            assert await page.locator("#melds-area [data-add], #melds-area [data-take]").count() == 0
            assert await page.locator("#rack .mk.add, #rack .mk.take").count() == 0
            await first.click()  # deselect

            # Every tile in one meld: MUST_KEEP_A_TILE.
            for i in range(await page.locator("#rack button.tile").count()):
                await page.locator("#rack button.tile").nth(i).click()
            await page.click('[data-focus="stage"]')
            await page.click('[data-act="open"]')
            keep = await _toast(page, "")
            assert keep == tr["err.MUST_KEEP_A_TILE"], keep
            await page.click('[data-focus="unstage"]')

            # A one-tile meld: INVALID_MELD, naming the tile as players name it.
            await page.locator("#rack button.tile").first.click()
            await page.click('[data-focus="stage"]')
            await page.click('[data-act="open"]')
            bad = await _toast(page, keep)
            assert NAMED.match(bad), bad
            await page.wait_for_timeout(200)
            await page.screenshot(path=str(ARTIFACTS / "refusal-tr.png"), full_page=True)
            await page.click('[data-focus="unstage"]')
            _check_tr_text(await page.evaluate(PAGE_TEXT_JS, table_id), words, "table after real refusals")

            # ---- every reason code the services define, through the page's own error display
            rack = await page.evaluate("() => okeyApp.state.t.view.rack.map((x) => x.id)")
            shown: dict[str, str] = {}
            for code in sorted(found.codes):
                for ctx_js in (
                    {"command": "addTile", "body": {"tileId": rack[0], "meld": 0}},
                    {"command": "openMelds", "body": {"melds": [{"ids": rack[:3]}]}},
                    {"name": "Ab"},
                ):
                    text = await page.evaluate(
                        REFUSAL_JS,
                        [code, SERVER_LIKE, ctx_js],
                    )
                    assert text and not text.startswith("Bir şey ters gitti"), (code, text)
                    _check_tr_text(text, words, code)
                    shown[code] = text
            assert len(shown) == len(found.codes)
            _check_tr_text(await page.evaluate(PAGE_TEXT_JS, table_id), words, "table after every code")

            # ---- the add control only where the selected tile fits, naming it: a run on the table
            # that a rack tile extends at its start (set into the view; the next view replaces it)
            picked = await page.evaluate(INJECT_RUN_JS, True)
            assert picked, "no rack tile to extend a run with"
            tile_sel = f'#rack button[data-tile="{picked["id"]}"]'
            await page.click(tile_sel)
            adds = page.locator("#melds-area [data-add]")
            assert await adds.count() == 1 and await page.get_attribute("#melds-area [data-add]", "data-add") == "start"
            assert await adds.first.text_content() == tr["fits.add_start"].replace("{tile}", picked["name"])
            assert await page.locator("#melds-area .meld.fits").count() == 1
            assert await page.locator(f"{tile_sel} .mk.add").count() == 1
            assert "işlenir" in str(await page.get_attribute(tile_sel, "aria-label"))
            _check_tr_text(await page.evaluate(PAGE_TEXT_JS, table_id), words, "table with a meld control")
            await page.evaluate(INJECT_RUN_JS, False)  # the same run, but AddTile not allowed
            await page.click(tile_sel)
            await page.click(tile_sel)
            assert await page.locator("#melds-area [data-add]").count() == 0
            assert await page.locator("#rack .mk.add").count() == 0
            await page.click(tile_sel)  # deselect

            # ---- a new deal (here a re-deal of the same hand number, as after a void hand) shows
            # none of the last hints: every tile marked before, none right after the deal
            marks = await page.evaluate(REDEAL_JS)
            assert marks["before"] > 0 and marks["after"] == 0 and marks["hints"] is None, marks

            # ---- reload mid-hand: the site's address without #/table comes back to the table
            st = await page.evaluate(STATE_JS)
            assert st["phase"] == "PHASE_PLAYING", st
            await page.goto(stack.base + "/")
            await page.wait_for_selector("#screen-table:not([hidden])", timeout=15_000)
            await page.wait_for_function(
                "(id) => { const t = okeyApp.state.t; return t && t.id === id && t.view && t.live; }",
                arg=table_id,
                timeout=20_000,
            )
            assert await page.evaluate("() => location.hash") == f"#/table/{table_id}/{human}"
            assert (await page.evaluate(STATE_JS))["seat"] == human
            await page.wait_for_timeout(300)
            await page.screenshot(path=str(ARTIFACTS / "reload-mid-hand.png"), full_page=True)
            _check_tr_text(await page.evaluate(PAGE_TEXT_JS, table_id), words, "table after reload")

            # Signing out and in again as the same account ("continue as") returns to the table too.
            await page.click("#sign-out")
            await page.wait_for_selector("#signout-dialog[open]")
            await page.click("#signout-confirm")
            await page.wait_for_selector("#signin-again:not([hidden])")
            await page.click("#signin-again-go")
            await page.wait_for_function(
                "(id) => { const t = okeyApp.state.t; return t && t.id === id && t.view && t.live; }",
                arg=table_id,
                timeout=20_000,
            )
            assert await page.locator("#screen-table").is_visible()

            # The English page: "Canlı" is "Live", and a refusal is English without ids.
            await page.click(".lang button[data-lang=en]")
            assert await page.text_content("#conn") == "Live"
            en_text = await page.evaluate(REFUSAL_JS, ["TILE_DOES_NOT_FIT", SERVER_LIKE, {}])
            assert en_text == strings("en")["err.TILE_DOES_NOT_FIT"], en_text
            await page.click(".lang button[data-lang=tr]")
            assert await page.text_content("#conn") == "Canlı"

            # The lobby button still shows the lobby (only the bare address goes to the table):
            # checked once the lobby's refresh has drawn its list anew, the step that sends a
            # seated player on to a table instead, not after a 500 ms pause.
            await page.evaluate(STALE_JS, "#tables > *")
            await page.click("#back-lobby")
            await page.wait_for_selector("#screen-lobby:not([hidden])")
            await page.wait_for_selector("#tables > :not([data-stale])", timeout=15_000)
            assert await page.locator("#screen-lobby").is_visible()
        finally:
            stop_helper.set()
            if helper is not None:
                await helper
            await ctx.close()
            shutil.rmtree(profile, ignore_errors=True)
    assert not errors, errors

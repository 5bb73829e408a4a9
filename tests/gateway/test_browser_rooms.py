"""The lobby of rooms and a whole Okey 101 hand, in a real browser (issue 18.7 and its "done
when"): Debian's Chromium through Playwright, as test_browser.py.

- The lobby's rooms (game × stake) filter the table list; a card shows a readable name
  ("Masa 482"), the seats by name, who opened it, the stake and the two or three rules that
  matter, the full rules one click away; the Turkish page shows no option key (``match_points``)
  and no table id; the short create form opens a table with the common choices, the rest under
  "more options".
- A person opens an Okey 101 table with bots and plays the whole hand by clicks (the deck, a tile,
  "At"; an opening when the hints say the rack opens), until the end-of-hand screen.

The stack (table, lobby, bots, gateway) is shared by the module's tests. Screenshots go to
artifacts/: rooms-lobby.png (1024x640), rooms-101-table.png and rooms-101-end.png (1024x768), and
two of the README's pictures made small (small_png.py) in artifacts/readme/: copy them to
docs/images/ to refresh the README (its lobby comes from test_browser_lobby_life.py, its move from
test_browser_motion.py)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from okeycore.options import CLASSIC_OPTIONS, OKEY101_OPTIONS
from okeytools import stack as okeystack
from small_png import small_png
from test_browser import ARTIFACTS, STALE_JS, STATE_JS

TIMEOUT_MS = 15_000
SHOT = {"width": 1024, "height": 640}
TABLE_SHOT = {"viewport": {"width": 1280, "height": 960}, "device_scale_factor": 0.8}
HAND_SECONDS = 120.0


@pytest.fixture(scope="module")
def rooms_stack(make_module_stack: Callable[..., okeystack.Stack]) -> okeystack.Stack:
    env = {
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",
        "OKEY_DAILY_GRANTS_PER_ADDRESS": "0",
        "OKEY_TIMEOUT_GRACE_MS": "300",
    }
    return make_module_stack(("table", "lobby", "bots", "gateway"), env=env, label="rooms", private_nats=True)


async def _person(browser: Any, stack: okeystack.Stack, name: str, errors: list[str], **options: Any) -> Any:
    options.setdefault("viewport", {"width": 1280, "height": 900})
    ctx = await browser.new_context(locale="tr-TR", **options)
    page = await ctx.new_page()
    page.on("pageerror", lambda e: errors.append(f"{name}: {e}"))
    await page.goto(f"http://{stack.http_address}/")
    await page.wait_for_selector("#screen-signin:not([hidden])")
    await page.fill("#signin-name", name)
    await page.click("#signin-submit")
    await page.wait_for_selector("#screen-lobby:not([hidden])")
    return page


# A waiting public table through the page's own API module (what is tested is its card).
OPEN_WAITING = """async (options) => {
  const { api } = await import('./api.js');
  const r = await api('LobbyService', 'OpenTable', {options, visibility: 'TABLE_VISIBILITY_PUBLIC'});
  return r.table.tableId;
}"""

# Every option key and every enum spelling the services use; none may be read on the page.
RAW = re.compile(
    r"\b(" + "|".join(sorted({*CLASSIC_OPTIONS, *OKEY101_OPTIONS})) + r")\b|GAME_|TABLE_VISIBILITY|LOBBY_TABLE_STATUS"
    r"|MODE_|\bt[0-9a-f]{16}\b"
)


def _for_the_readme(shot: str, name: str) -> None:
    """artifacts/readme/<name>: the screenshot made small; copy it to docs/images/ to refresh the README."""
    (ARTIFACTS / "readme").mkdir(exist_ok=True)
    size = small_png(ARTIFACTS / shot, ARTIFACTS / "readme" / name)
    if size >= 150_000:  # a busy screen (the end of a hand with many rows): one bit less a channel
        size = small_png(ARTIFACTS / shot, ARTIFACTS / "readme" / name, bits=5)
    assert size < 150_000, (name, size)


async def _card(page: Any, table_id: str) -> Any:
    card = page.locator(f'#tables article[data-table="{table_id}"]')
    await card.wait_for(timeout=TIMEOUT_MS)
    return card


async def test_the_lobby_shows_rooms_and_readable_cards_and_opens_a_table_from_the_short_form(
    browser: Any, rooms_stack: okeystack.Stack
) -> None:
    errors: list[str] = []
    ayse = await _person(browser, rooms_stack, "Ayşe Oda", errors)
    classic = await ayse.evaluate(OPEN_WAITING, {"game": "GAME_OKEY", "partners": True, "matchPoints": 12})
    folding = await ayse.evaluate(OPEN_WAITING, {"game": "GAME_OKEY101", "mode": "MODE_FOLDING", "stake": 100})
    baris = await _person(browser, rooms_stack, "Barış Oda", errors)
    await baris.click("#lobby-refresh")

    # ---- readable cards: a name, the game and stake, the seats by name, 2-3 rules, a join button
    card = await _card(baris, classic)
    title = (await card.locator("h4").text_content() or "").strip()
    assert re.fullmatch(r"Masa \d{3}", title), title
    assert "Ayşe Oda" in (await card.locator(".card-seats").text_content() or "")
    assert "Açan: Ayşe Oda" in (await card.locator(".card-meta").text_content() or "")
    assert "Jetonsuz" in (await card.locator(".card-stake").text_content() or "")
    headline = await card.locator(".card-headline li").all_text_contents()
    assert headline == ["12 puan", "Eşli", "Göstergeli"], headline
    assert await card.locator("button", has_text="Otur").count() == 1
    card101 = await _card(baris, folding)
    assert "100 jeton" in (await card101.locator(".card-stake").text_content() or "")
    headline = await card101.locator(".card-headline li").all_text_contents()
    assert 2 <= len(headline) <= 3 and headline[:2] == ["5 el", "Katlamalı"], headline

    # ---- the full rules one click away (the lobby's redraw keeps them open)
    rules = card101.locator("details.card-rules")
    assert not await rules.locator("ul.rules").is_visible()
    await rules.locator("summary").click()
    await baris.evaluate(STALE_JS, "#tables > *")
    await baris.click("#lobby-refresh")
    # the list drawn anew (no card of it marked stale), not 300 ms later
    await baris.wait_for_selector(f'#tables > article[data-table="{folding}"]:not([data-stale])', timeout=TIMEOUT_MS)
    items = await card101.locator("details.card-rules ul.rules li").all_text_contents()
    assert len(items) == len(OKEY101_OPTIONS) and await card101.locator("details.card-rules[open]").count() == 1
    assert any("Katlamalı" in i for i in items), items

    # ---- no option key and no table id on the Turkish page, even with every disclosure open
    await baris.evaluate("() => document.querySelectorAll('#screen-lobby details').forEach((d) => { d.open = true; })")
    text = await baris.inner_text("#screen-lobby")
    assert not RAW.findall(text), f"raw keys or ids on the TR lobby: {RAW.findall(text)[:8]}"
    await baris.evaluate("() => document.querySelectorAll('#screen-lobby details').forEach((d) => { d.open = false; })")
    # ---- the same card in English follows the language switch
    await baris.click(".lang button[data-lang=en]")
    assert await card.locator(".card-headline li").all_text_contents() == ["12 points", "Partners", "Indicator"]
    assert re.fullmatch(r"Table \d{3}", (await card.locator("h4").text_content() or "").strip())
    assert "All games" in (await baris.text_content("#rooms") or "")
    await baris.click(".lang button[data-lang=tr]")
    await baris.set_viewport_size(SHOT)
    await card101.locator("details.card-rules summary").click()  # one card's rules open, in the picture
    await baris.evaluate(
        "() => { document.querySelector('#tables-title').scrollIntoView({block: 'start'}); scrollBy(0, -8); }"
    )
    await baris.wait_for_timeout(200)
    await baris.screenshot(path=str(ARTIFACTS / "rooms-lobby.png"))
    await card101.locator("details.card-rules summary").click()

    # ---- the rooms filter the list: Okey 101 × 100 holds the folding table, not the classic one
    await baris.click('#rooms [data-room="game"][data-value="OKEY101"]')
    assert await baris.get_attribute('#rooms [data-room="game"][data-value="OKEY101"]', "aria-pressed") == "true"
    assert await baris.locator(f'#tables article[data-table="{classic}"]').count() == 0
    await _card(baris, folding)
    games = await baris.locator("#tables .card-game").all_text_contents()
    assert games and set(games) == {"Okey 101"}, games
    await baris.click('#rooms [data-room="stake"][data-value="100"]')
    await _card(baris, folding)
    assert await baris.input_value("#quick-game") == "OKEY101" and await baris.input_value("#quick-stake") == "100"
    count = await baris.text_content('#rooms [data-room="stake"][data-value="100"] .room-count') or ""
    assert int(re.sub(r"\D", "", count)) >= 1, count
    await baris.click('#rooms [data-room="stake"][data-value="5000"]')
    assert await baris.locator("#tables article").count() == 0
    assert "Bu odada bekleyen masa yok" in (await baris.text_content("#tables .empty") or "")
    await baris.click('#rooms [data-room="game"][data-value="all"]')
    await baris.click('#rooms [data-room="stake"][data-value="all"]')
    await _card(baris, classic)

    # ---- the short form: game, visibility, bots, points or hands, seats, stake; the rest is folded
    await baris.select_option("#create-game", "OKEY101")
    assert not await baris.locator("#create-more[open]").count()
    assert await baris.locator("#opt-rounds").is_visible() and await baris.locator("#opt-stake").is_visible()
    assert not await baris.locator("#opt-turn_seconds").is_visible()
    await baris.select_option("#opt-rounds", "3")
    await baris.select_option("#opt-seats", "2")
    await baris.fill("#opt-stake", "100")
    await baris.uncheck("#create-fill")
    await baris.focus("#create-more > summary")  # by keyboard: Enter on the summary unfolds the rest
    await baris.keyboard.press("Enter")
    assert await baris.locator("#opt-turn_seconds").is_visible()
    await baris.click("#create-submit")
    await baris.wait_for_selector("#stake-dialog[open]", timeout=TIMEOUT_MS)
    await baris.click("#stake-ok")
    await baris.wait_for_selector("#my-tables-panel:not([hidden]) article", timeout=TIMEOUT_MS)
    (mine,) = await baris.evaluate("() => okeyApp.state.myTables.map((t) => t.tableId)")
    # Ayşe sees Barış's new table with the rules he chose
    await ayse.click("#lobby-refresh")
    theirs = await _card(ayse, mine)
    headline = await theirs.locator(".card-headline li").all_text_contents()
    assert headline[:2] == ["3 el", "2 kişilik"], headline
    assert "Barış Oda" in (await theirs.locator(".card-seats").text_content() or "")
    assert "100 jeton" in (await theirs.locator(".card-stake").text_content() or "")
    await ayse.screenshot(path=str(ARTIFACTS / "rooms-lobby-full.png"), full_page=True)
    for page in (ayse, baris):
        await page.context.close()
    assert not errors, errors


# The move went through (a newer version, or the hand ended), or the page said why not (a toast).
MOVED = """(v) => okeyApp.version() > v || !!document.querySelector('#handend[open]')
  || !document.querySelector('#toast').hidden"""


async def _moved(page: Any, version: int) -> bool:
    await page.wait_for_function(MOVED, arg=version, timeout=10_000)
    return bool(
        await page.evaluate("(v) => okeyApp.version() > v || !!document.querySelector('#handend[open]')", version)
    )


async def test_a_person_plays_a_whole_okey_101_hand_by_clicks(browser: Any, rooms_stack: okeystack.Stack) -> None:
    """The short form opens an Okey 101 table with bots (a 10 s break between hands, set under
    "more options"); the person draws from the deck, opens when the hints say the rack opens, and
    discards a tile by clicking it and "At", turn after turn, until the hand ends and the
    end-of-hand screen shows every seat's points."""
    errors: list[str] = []
    # 1280x960 drawn at 0.8: a 1024x768 picture of the whole table, the rack too
    page = await _person(browser, rooms_stack, "Yüzbir Oyuncu", errors, **TABLE_SHOT)
    await page.select_option("#create-game", "OKEY101")
    await page.click("#create-more > summary")
    await page.fill("#opt-hand_break_seconds", "10")
    assert await page.is_checked("#create-fill")
    await page.click("#create-submit")
    await page.wait_for_selector("#screen-table:not([hidden])")
    await page.wait_for_function("() => { const t = okeyApp.state.t; return t && t.view && t.live; }", timeout=20_000)
    st = await page.evaluate(STATE_JS)
    human = st["seat"]
    assert human is not None and st["rack"] in (21, 22)
    assert await page.locator("#staging").is_visible()  # the 101 staging panel, at a 101 table
    # the table's readable name, as its lobby card says it (no hashed id)
    assert re.fullmatch(r"Masa \d{3}", (await page.text_content("#table-title") or "").strip())

    draws = discards = opens = 0
    refused: list[str] = []
    shot = False
    deadline = time.monotonic() + HAND_SECONDS
    while time.monotonic() < deadline:
        if await page.locator("#handend[open]").count():
            break
        st = await page.evaluate(STATE_JS)
        if st["phase"] not in ("PHASE_PLAYING", "PHASE_NEW") or st["hand"] > 1:
            break
        if st["turn"] != human or st["busy"]:
            await page.wait_for_timeout(80)
            continue
        version = st["version"]
        await page.evaluate("() => { document.querySelector('#toast').hidden = true; }")  # a toast now is this move's
        may = set(st["allowed"])  # the engine's answer, as the toolbar shows it (not the stage alone)
        if "Draw" in may:
            await page.click("#deck")
            draws += 1
        elif "Discard" in may:
            await page.wait_for_function("() => okeyApp.hintsFresh()", timeout=5000)
            # the preview's first line is the runs' total, its last the pairs': open with the one
            # that is enough (a pairs line that is enough says nothing of the runs)
            runs_ok = await page.locator("#hints-body .preview > p:first-of-type.ok").count()
            pairs_ok = await page.locator("#hints-body .preview > p:last-of-type.ok").count()
            kind = "runs" if runs_ok else "pairs"
            opener = page.locator(f'#hints-body [data-focus="stage-{kind}"]:not([disabled])')
            if (runs_ok or pairs_ok) and await opener.count():
                await opener.click()  # lay the preview's melds out, then open with them
                if await page.locator('[data-act="open"]:not([disabled])').count():
                    await page.click('[data-act="open"]')
                    if await _moved(page, version):
                        opens += 1
                        continue
                    refused.append(await page.text_content("#toast") or "")
                    await page.click('#staging [data-focus="unstage"]')
            # a tile whose discard costs nothing (no "!" mark), not an okey; else the last one
            calm = page.locator("#rack button.tile:not(.okey):not(:has(.mk.pen))")
            tile = calm.last if await calm.count() else page.locator("#rack button.tile").last
            await tile.click()
            await page.click('[data-act="discard"]')
            discards += 1
            if discards == 2 and not shot:
                await page.evaluate("() => window.scrollTo(0, 0)")
                await page.wait_for_timeout(300)
                await page.screenshot(path=str(ARTIFACTS / "rooms-101-table.png"))
                shot = True
        else:
            await page.wait_for_timeout(80)
            continue
        if not await _moved(page, version):
            refused.append(await page.text_content("#toast") or "")

    # ---- the hand is over: the end-of-hand screen with every seat's points
    await page.wait_for_selector("#handend[open]", timeout=15_000)
    assert draws >= 1 and discards >= 1, (draws, discards, opens)
    assert not refused, refused  # a draw or a discard the page offered was never refused
    assert await page.locator("#handend .handend-scores tbody th[scope=row]").count() == 4  # a row group a seat
    assert "1. el bitti" in (await page.locator("#handend h3").text_content() or "")
    await page.wait_for_selector("#handend-ready:not([disabled])", timeout=8_000)  # the last move came back
    await page.evaluate("() => window.scrollTo(0, 0)")
    await page.wait_for_timeout(300)
    await page.screenshot(path=str(ARTIFACTS / "rooms-101-end.png"))
    _for_the_readme("rooms-101-end.png", "end-of-hand.png")
    if shot:
        _for_the_readme("rooms-101-table.png", "table.png")
    await page.context.close()
    assert not errors, errors
    print(f"101 hand by clicks: {draws} draws, {discards} discards, {opens} openings")

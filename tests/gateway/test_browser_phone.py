"""The web client on phones and for keyboard and screen-reader users [issue 18, item 8 and the
accessibility criterion], in headless Chromium (Debian's, through Playwright, as in
test_browser.py).

- Landscape phone (844x390): the rack's tiles are at least 40 px wide, the whole rack, the
  actions (draw, discard, finish, ...) and Seri Diz / Çift Diz are inside the viewport without
  scrolling, and the keyboard help is not shown on a touch screen.
- Portrait phone (390x844): the lobby has no horizontal scroll; at the table a "turn your phone"
  hint is shown (Okey apps are played in landscape) and the page does not scroll sideways.
- axe-core (npm, installed into a cache directory before the session when missing, as Chromium
  is: tests/tools_setup.py) reports no serious or critical violation on the lobby and the table, at desktop size
  and on a phone.
- Every control of the lobby and the table is reachable by keyboard: Tab visits every enabled
  button, input, select, textarea and summary; the rack is one tab stop whose slots the arrow keys
  walk.

The stack: table service, lobby and gateway (no bots: the empty seats wait on a long turn timer,
so the table stands still while it is measured).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from okeytools import stack as okeystack
from test_browser import ARTIFACTS
from tools_setup import axe_script as _axe_script

LANDSCAPE = {"width": 844, "height": 390}  # an iPhone 12-15 on its side
BIG_LANDSCAPE = {"width": 932, "height": 430}  # the Pro Max / Plus size
SAFARI_LANDSCAPE = {"width": 844, "height": 340}  # 844x390 less a browser's bars
PORTRAIT = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
# What the test calls touch: a phone's coarse pointer without hover (Playwright's has_touch and
# is_mobile make Chromium match `(hover: none)` and `(pointer: coarse)`).
PHONE = {"has_touch": True, "is_mobile": True, "device_scale_factor": 2}


# ------------------------------------------------------------------ axe-core from npm (tests/tools_setup.py)


AXE_RUN = """async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ') + ': ' + (n.failureSummary || '').slice(0, 200)),
  }));
}"""


async def _axe(page: Any, where: str) -> None:
    if not await page.evaluate("() => typeof window.axe !== 'undefined'"):
        await page.add_script_tag(path=str(_axe_script()))
    bad = await page.evaluate(AXE_RUN)
    assert not bad, f"axe-core on {where}: " + json.dumps(bad, ensure_ascii=False, indent=1)


# ------------------------------------------------------------------ the stack and the page


@pytest.fixture(scope="module")
def stack(make_module_stack: Callable[..., okeystack.Stack]) -> okeystack.Stack:
    # Every guest signs in from 127.0.0.1 (a dozen of them here): the per-address account quota is lifted.
    env = {
        "OKEY_TIMEOUT_GRACE_MS": "300",
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",
    }
    return make_module_stack(("table", "lobby", "gateway"), env=env, label="phones", private_nats=True)


async def _signed_in(browser: Any, stack: okeystack.Stack, name: str, **ctx: Any) -> tuple[Any, Any, list[str]]:
    # bypass_csp: the page's CSP (script-src 'self') would refuse the injected axe-core script
    context = await browser.new_context(locale="tr-TR", bypass_csp=True, **ctx)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(f"http://{stack.http_address}/")
    await page.wait_for_selector("#screen-signin:not([hidden])")
    await page.fill("#signin-name", name)
    await page.click("#signin-submit")
    await page.wait_for_selector("#screen-lobby:not([hidden])")
    return context, page, errors


# A lobby table through the page's own API module (the lobby form is not what is tested here):
# a public waiting one, so the lobby shows a card; with bot seats, so the table deals at once
# (no bots service runs: their seats wait on a two-minute turn timer).
OPEN_TABLE = """async ([game, fill]) => {
  const { api } = await import('./api.js');
  const r = await api('LobbyService', 'OpenTable', {
    options: {game, turnSeconds: 120}, visibility: 'TABLE_VISIBILITY_PUBLIC', fillWithBots: fill});
  return {id: r.table.tableId, seat: Number(r.seat || 0)};
}"""


async def _open_table(page: Any, game: str = "GAME_OKEY") -> None:
    t = await page.evaluate(OPEN_TABLE, [game, True])
    await page.evaluate("(h) => { location.hash = h; }", f"#/table/{t['id']}/{t['seat']}")
    await page.wait_for_selector("#screen-table:not([hidden])")
    await page.wait_for_function(
        "() => { const t = okeyApp.state.t; return t && t.view && t.view.phase === 'PHASE_PLAYING' && t.live"
        " && (t.view.rack || []).length >= 14; }",
        timeout=20_000,
    )
    await page.wait_for_function("() => okeyApp.hintsFresh()", timeout=10_000)  # drawn with them
    await _painted(page)


async def _painted(page: Any) -> None:
    """Until the page as drawn is on the screen: its fonts loaded and two frames painted (what is
    measured and pictured next is what a person sees), not a fixed 200 ms."""
    await page.evaluate(
        "() => document.fonts.ready.then(() => new Promise((done) =>"
        " requestAnimationFrame(() => requestAnimationFrame(done))))"
    )


async def _waiting_table(page: Any, browser: Any, stack: okeystack.Stack, other: str) -> None:
    """A waiting table of my own (under My tables) and one of ``other``'s (in the list)."""
    context, theirs, _ = await _signed_in(browser, stack, other)
    try:
        await theirs.evaluate(OPEN_TABLE, ["GAME_OKEY", False])
    finally:
        await context.close()
    await page.evaluate(OPEN_TABLE, ["GAME_OKEY", False])
    await page.click("#lobby-refresh")
    await page.wait_for_selector("#my-tables .card")
    await page.wait_for_selector("#tables .card")


# What is where: boxes in CSS pixels relative to the viewport, and the page's scroll extent.
MEASURE = """() => {
  // shown: it has a box, and a tap at its centre or near any corner hits it (not clipped, not covered)
  const hits = (el, x, y) => { const e = document.elementFromPoint(x, y); return !!e && el.contains(e); };
  const box = (el) => { const r = el.getBoundingClientRect();
    const [l, t, rt, b] = [r.left + 3, r.top + 3, r.right - 3, r.bottom - 3];
    const reached = hits(el, (l + rt) / 2, (t + b) / 2)
      && hits(el, l, t) && hits(el, rt, t) && hits(el, l, b) && hits(el, rt, b);
    return {x: r.left, y: r.top, w: r.width, h: r.height,
      shown: r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden' && reached}; };
  const all = (sel) => Array.from(document.querySelectorAll(sel)).map(box);
  return {
    vw: window.innerWidth, vh: window.innerHeight,
    scrollW: document.documentElement.scrollWidth, scrollX: window.scrollX, scrollY: window.scrollY,
    tiles: all('#rack button.tile'), slots: all('#rack .slot'),
    actions: all('#actions button'), arrange: all('#seri-diz, #cift-diz'),
    staging: all('#staging:not([hidden]) button'),
    deck: all('#deck'), shortcuts: all('.shortcuts'), rotate: all('.rotate-hint'),
  };
}"""


# Elements of a screen that stick out past its right edge (or the viewport's), outside a
# scrolling box.
OVERFLOWING = """(root) => {
  const out = [];
  const edge = Math.min(window.innerWidth, document.querySelector(root).getBoundingClientRect().right);
  for (const el of document.querySelectorAll(root + ' *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= edge + 1) continue;
    let p = el.parentElement, scrolled = false;
    for (; p && p !== document.body; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') { scrolled = true; break; }
    }
    const what = `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${el.className}`;
    if (!scrolled) out.push(`${what}: ${Math.round(r.right)}`);
  }
  return out.slice(0, 10);
}"""


def _inside(b: dict[str, Any], m: dict[str, Any]) -> bool:
    """``b`` is shown (tappable at its centre and corners) and wholly inside the viewport."""
    inside_x = b["x"] >= -0.5 and b["x"] + b["w"] <= m["vw"] + 0.5
    return bool(b["shown"]) and inside_x and b["y"] >= -0.5 and b["y"] + b["h"] <= m["vh"] + 0.5


# ------------------------------------------------------------------ the tests


@pytest.mark.parametrize(
    ("viewport", "who"),
    [(LANDSCAPE, "Yatay Telefon"), (BIG_LANDSCAPE, "Yatay Büyük"), (SAFARI_LANDSCAPE, "Yatay Safari")],
    ids=["844x390", "932x430", "844x340"],
)
async def test_phone_landscape_table_fits_the_screen(
    browser: Any, stack: okeystack.Stack, viewport: dict[str, int], who: str
) -> None:
    """[issue 18.8] 844x390 (also a larger phone, and 844x390 less a browser's bars) on a touch
    screen: tiles >= 40 px; rack, actions and Seri Diz / Çift Diz in the viewport with the page
    unscrolled; no keyboard help; no sideways scroll."""
    context, page, errors = await _signed_in(browser, stack, who, viewport=viewport, **PHONE)
    try:
        lobby = await page.evaluate(MEASURE)
        assert lobby["scrollW"] <= lobby["vw"], "the landscape lobby scrolls sideways"
        await _open_table(page)
        assert await page.evaluate("() => matchMedia('(hover: none) and (pointer: coarse)').matches")
        await page.evaluate("() => window.scrollTo(0, 0)")
        m = await page.evaluate(MEASURE)
        size = f"{viewport['width']}x{viewport['height']}"
        name = "phone-landscape-table" if viewport == LANDSCAPE else f"phone-landscape-table-{size}"
        await page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
        assert m["scrollY"] == 0 and m["scrollW"] <= m["vw"], m
        assert len(m["tiles"]) >= 14
        assert min(t["w"] for t in m["tiles"]) >= 40, [t["w"] for t in m["tiles"]]
        assert len(m["slots"]) == 30 and all(_inside(s, m) for s in m["slots"]), m["slots"]
        assert m["actions"] and all(_inside(a, m) for a in m["actions"]), m["actions"]
        assert len(m["arrange"]) == 2 and all(_inside(a, m) for a in m["arrange"]), m["arrange"]
        assert m["deck"] and _inside(m["deck"][0], m), m["deck"]
        assert not any(s["shown"] for s in m["shortcuts"]), "keyboard help shows on a touch screen"
        assert not any(s["shown"] for s in m["rotate"]), "the turn-your-phone hint shows in landscape"
        await _axe(page, "the table, phone landscape")
    finally:
        await context.close()
    assert not errors, errors


async def test_phone_landscape_101_table_fits_the_screen(browser: Any, stack: okeystack.Stack) -> None:
    """[issue 18.8] The same for an Okey 101 table (its opening preview sits with the hints)."""
    context, page, errors = await _signed_in(browser, stack, "Yatay Yüzbir", viewport=LANDSCAPE, **PHONE)
    try:
        await _open_table(page, "GAME_OKEY101")
        await page.evaluate("() => window.scrollTo(0, 0)")
        m = await page.evaluate(MEASURE)
        await page.screenshot(path=str(ARTIFACTS / "phone-landscape-table-101.png"))
        assert m["scrollY"] == 0 and m["scrollW"] <= m["vw"], m
        assert min(t["w"] for t in m["tiles"]) >= 40, [t["w"] for t in m["tiles"]]
        assert all(_inside(s, m) for s in m["slots"])
        assert m["actions"] and all(_inside(a, m) for a in m["actions"]), m["actions"]
        assert len(m["arrange"]) == 2 and all(_inside(a, m) for a in m["arrange"]), m["arrange"]
        # 101's opening: stage, unstage and open sit beside the rack too
        assert len(m["staging"]) == 3 and all(_inside(a, m) for a in m["staging"]), m["staging"]
        await _axe(page, "the Okey 101 table, phone landscape")
    finally:
        await context.close()
    assert not errors, errors


async def test_phone_portrait_lobby_reads_and_table_asks_to_turn(browser: Any, stack: okeystack.Stack) -> None:
    """[issue 18.8] 390x844: the lobby (with a table card) has no horizontal scroll and passes
    axe; at the table, a "turn your phone" hint, still no sideways scroll."""
    context, page, errors = await _signed_in(browser, stack, "Dikey Telefon", viewport=PORTRAIT, **PHONE)
    try:
        await _waiting_table(page, browser, stack, "Dikey Rakip")
        await _painted(page)
        m = await page.evaluate(MEASURE)
        await page.screenshot(path=str(ARTIFACTS / "phone-portrait-lobby.png"), full_page=True)
        assert m["scrollW"] <= m["vw"], f"the portrait lobby scrolls sideways: {m['scrollW']} > {m['vw']}"
        wide = await page.evaluate(OVERFLOWING, "#screen-lobby")
        assert not wide, f"these stick out of the portrait lobby: {wide}"
        await _axe(page, "the lobby, phone portrait")

        await _open_table(page)
        m = await page.evaluate(MEASURE)
        await page.screenshot(path=str(ARTIFACTS / "phone-portrait-table.png"))
        assert m["rotate"] and _inside(m["rotate"][0], m), "no turn-your-phone hint in portrait"
        assert m["scrollW"] <= m["vw"], m
        text = (await page.text_content(".rotate-hint")) or ""
        assert "telefon" in text.lower(), text
        await _axe(page, "the table, phone portrait")
    finally:
        await context.close()
    assert not errors, errors


async def test_desktop_lobby_and_table_pass_axe_and_keep_the_keyboard_help(
    browser: Any, stack: okeystack.Stack
) -> None:
    """Accessibility at desktop size: no serious or critical axe-core violation on the lobby and
    the table (and the sign-in screen before them); a mouse-and-keyboard screen keeps the keyboard
    help and shows no rotate hint."""
    first = await browser.new_context(locale="tr-TR", bypass_csp=True, viewport=DESKTOP)
    try:
        page = await first.new_page()
        await page.goto(f"http://{stack.http_address}/")
        await page.wait_for_selector("#screen-signin:not([hidden])")
        await _axe(page, "the sign-in screen, desktop")
    finally:
        await first.close()
    context, page, errors = await _signed_in(browser, stack, "Masaüstü Erişim", viewport=DESKTOP)
    try:
        await _waiting_table(page, browser, stack, "Masaüstü Rakip")
        await _axe(page, "the lobby, desktop")
        await _open_table(page)
        await _axe(page, "the table, desktop")
        m = await page.evaluate(MEASURE)
        assert any(s["shown"] for s in m["shortcuts"]), "the keyboard help is hidden on a desktop"
        assert not any(s["shown"] for s in m["rotate"])
    finally:
        await context.close()
    assert not errors, errors


# Every control that should take focus: visible and enabled (one taken out of the tab order
# fails the test); the rack's slots are one tab stop (a roving tabindex) walked with the arrow keys, so they count as
# one ("rack"). A control is named by its id, else by its tag, data attributes and text, which
# survive a re-render (the lobby redraws its cards every few seconds).
NAME_JS = """(el) => {
  if (el.closest('#rack')) return 'rack';
  if (el.id) return '#' + el.id;
  const data = Object.entries(el.dataset).map(([k, v]) => k + '=' + v).join(',');
  const text = (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 40);
  return el.tagName.toLowerCase() + '[' + data + ']' + text;
}"""

CONTROLS = (
    """() => { const name = """
    + NAME_JS
    + """;
  const list = [];
  const sel = 'button, input, select, textarea, summary, a[href], [role=button], [role=tab], [role=checkbox],'
    + ' [onclick]';
  for (const el of document.querySelectorAll(sel)) {
    if (el.closest('[hidden], dialog:not([open])') || el.disabled) continue;
    // inside a closed <details> only its summary shows (Chromium keeps the rest laid out, unseen)
    const shut = el.closest('details:not([open])');
    if (shut && !(shut.querySelector(':scope > summary') || shut).contains(el)) continue;
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    if (r.width === 0 && r.height === 0 && !el.matches('.skip')) continue;
    if (cs.visibility === 'hidden' || cs.display === 'none') continue;
    list.push(name(el));
  }
  return [...new Set(list)];
}"""
)

FOCUSED = (
    """() => { const name = """
    + NAME_JS
    + """;
  const el = document.activeElement; return !el || el === document.body ? null : name(el); }"""
)


async def _tab_through(page: Any, wanted: set[str]) -> set[str]:
    """Tab from the top of the page until every wanted control had focus (or twice round)."""
    await page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.focus(); }")
    seen: set[str] = set()
    for _ in range(2 * len(wanted) + 40):
        await page.keyboard.press("Tab")
        now = await page.evaluate(FOCUSED)
        if now is not None:
            seen.add(now)
        if wanted <= seen:
            break
    return seen


async def test_every_control_of_the_lobby_and_the_table_is_reachable_by_keyboard(
    browser: Any, stack: okeystack.Stack
) -> None:
    """Tab reaches every enabled control of the lobby and of the table; the rack takes focus and
    the arrow keys move it from slot to slot."""
    context, page, errors = await _signed_in(browser, stack, "Klavye Testi", viewport=DESKTOP)
    try:
        await _waiting_table(page, browser, stack, "Klavye Rakip")
        wanted = set(await page.evaluate(CONTROLS))
        assert {"#lobby-refresh", "#create-submit", "#signin-name"} & wanted == {"#lobby-refresh", "#create-submit"}
        assert any(w.startswith("button[lang=") for w in wanted), wanted
        seen = await _tab_through(page, wanted)
        assert wanted <= seen, f"not reachable by Tab in the lobby: {sorted(wanted - seen)}"

        await _open_table(page)
        wanted = set(await page.evaluate(CONTROLS))
        assert "#seri-diz" in wanted and "#back-lobby" in wanted
        assert "rack" in wanted
        seen = await _tab_through(page, wanted)
        assert wanted <= seen, f"not reachable by Tab at the table: {sorted(wanted - seen)}"
        await page.focus("#rack [tabindex='0']")
        before = await page.evaluate("() => document.activeElement.dataset.slot")
        await page.keyboard.press("ArrowRight")
        after = await page.evaluate("() => document.activeElement.dataset.slot")
        assert int(after) == int(before) + 1 or int(before) == 29, (before, after)
    finally:
        await context.close()
    assert not errors, errors

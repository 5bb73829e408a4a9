"""Issue 40, items 7 and 8, in headless Chromium (Debian's, through Playwright, as in
test_browser.py).

Texts (item 7): a TR table page, a classic and an Okey 101 one, with a seat on autopilot, one
that declared pairs and one turned to okey, is rendered and what it shows is scanned for English:
the visible text (badges set from JS included), the text CSS adds (``::before``/``::after``
content) and the names a screen reader reads (``aria-label``, ``title``, ``placeholder``),
against the English of the page's own EN table and of the servers' messages
(refusal_codes.english_vocabulary; proper nouns such as "Okey" allowed). The log names an okey as
the buttons do ("Okey", not its face), and a seat's opening says what its number counts.

Fit (item 8): at 1366x768, 1280x720 and 1440x900 the table in play (classic and 101) needs no
scrolling: every shown control of the table screen, the board (every seat, the deck, indicator
and okey), the rack and the actions lie inside the viewport with the page unscrolled. On a phone
in landscape (844x390) the seats sit around the centre, left, top and right as on a desktop. An
empty rack slot that was tapped (a touch screen's hover sticks) or hovered still looks empty.
Screenshots: artifacts/fit-<game>-<size>.png, artifacts/fit-phone-landscape-seats.png,
artifacts/texts-tr-<game>.png.

The stack: table service, lobby and gateway, no bots (the bots' seats wait on a two-minute turn
timer, so the table stands still while it is measured).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from okeytools import stack as okeystack
from refusal_codes import english_in, english_vocabulary, strings
from test_browser import ARTIFACTS
from test_browser_phone import LANDSCAPE, OPEN_TABLE, PHONE, _painted

DESKTOPS = [(1366, 768), (1280, 720), (1440, 900)]
GAMES = {"classic": "GAME_OKEY", "101": "GAME_OKEY101"}


@pytest.fixture(scope="module")
def stack(make_module_stack: Callable[..., okeystack.Stack]) -> okeystack.Stack:
    env = {
        "OKEY_TIMEOUT_GRACE_MS": "300",
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",
    }
    return make_module_stack(("table", "lobby", "gateway"), env=env, label="fit", private_nats=True)


async def _signed_in(browser: Any, stack: okeystack.Stack, name: str, **ctx: Any) -> tuple[Any, Any, list[str]]:
    context = await browser.new_context(locale="tr-TR", **ctx)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(f"http://{stack.http_address}/")
    await page.wait_for_selector("#screen-signin:not([hidden])")
    await page.fill("#signin-name", name)
    await page.click("#signin-submit")
    await page.wait_for_selector("#screen-lobby:not([hidden])")
    return context, page, errors


async def _open_table(page: Any, game: str) -> str:
    t = await page.evaluate(OPEN_TABLE, [game, True])
    await page.evaluate("(h) => { location.hash = h; }", f"#/table/{t['id']}/{t['seat']}")
    await page.wait_for_selector("#screen-table:not([hidden])")
    await page.wait_for_function(
        "() => { const t = okeyApp.state.t; return t && t.view && t.view.phase === 'PHASE_PLAYING' && t.live"
        " && (t.view.rack || []).length >= 14; }",
        timeout=20_000,
    )
    await page.wait_for_function("() => okeyApp.hintsFresh()", timeout=10_000)
    await _painted(page)
    return str(t["id"])


# ------------------------------------------------------------------ fit


# Every shown control of the table screen (the event log, focusable only to scroll it, left out),
# and the parts of the table, as boxes relative to the viewport. A control is shown when it has a
# box and is not inside something hidden; one inside a closed <details> counts only by its summary.
BOXES = """() => {
  const box = (el, what) => { const r = el.getBoundingClientRect();
    return {what, x: r.left, y: r.top, w: r.width, h: r.height}; };
  const name = (el) => el.id ? '#' + el.id
    : el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).trim().split(/\\s+/).join('.') : '')
      + '[' + (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 30) + ']';
  const controls = [];
  const sel = 'button, input, select, textarea, summary, a[href], [role=button], [tabindex]';
  for (const el of document.querySelectorAll('#screen-table ' + sel.split(', ').join(', #screen-table '))) {
    if (el.closest('[hidden], dialog:not([open])')) continue;
    // the event log takes focus only so a keyboard can scroll it (axe: scrollable-region-
    // focusable): it is read, not pressed, and sits last in the side column, below the chat
    if (el.id === 'event-log') continue;
    const shut = el.closest('details:not([open])');
    if (shut && !(shut.querySelector(':scope > summary') || shut).contains(el)) continue;
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    if (r.width === 0 || r.height === 0 || cs.visibility === 'hidden' || cs.display === 'none') continue;
    if (el.matches('.sr-only') || el.closest('.sr-only')) continue;
    controls.push(box(el, name(el)));
  }
  const parts = ['.table-head', '#board', '#deck', '#board .seat-panel', '#board .pile', '#board .center-item',
    '#stage-line', '.rack-wrap', '#actions', '#hints-panel'];
  const table = parts.flatMap((s) => Array.from(document.querySelectorAll(s)).map((el) => box(el, s)));
  const doc = document.scrollingElement;
  return {vw: innerWidth, vh: innerHeight, scrollX, scrollY, scrollW: doc.scrollWidth, scrollH: doc.scrollHeight,
    controls, table,
    actions: Array.from(document.querySelectorAll('#actions button')).map((b) => b.textContent)};
}"""


LONG_SIDE = """() => {
  const many = (el, tag, n) => { for (let i = 0; i < n; i++) {
    const x = document.createElement(tag); x.textContent = 'uzun satır ' + i; el.append(x); } };
  many(document.querySelector('#hints-body'), 'p', 30);
  many(document.querySelector('#event-log'), 'li', 80);
  const last = document.querySelector('#lasthand-panel'); last.hidden = false;
  many(document.querySelector('#lasthand-body'), 'p', 12);
}"""


def _outside(b: dict[str, Any], m: dict[str, Any]) -> bool:
    return b["x"] < -0.5 or b["y"] < -0.5 or b["x"] + b["w"] > m["vw"] + 0.5 or b["y"] + b["h"] > m["vh"] + 0.5


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("size", DESKTOPS, ids=[f"{w}x{h}" for w, h in DESKTOPS])
async def test_the_table_in_play_fits_a_laptop_screen(
    browser: Any, stack: okeystack.Stack, size: tuple[int, int], game: str
) -> None:
    """[issue 40.8] 1366x768, 1280x720, 1440x900: the whole table (every seat, deck, indicator,
    okey, rack) and every control of the table screen (Çek, Yandan al, Taşı at, Bitir, Seri Diz,
    Çift Diz, the chat box ...) are in view with the page unscrolled, and the page cannot scroll."""
    w, h = size
    context, page, errors = await _signed_in(
        browser, stack, f"Ekran {w} {'Klasik' if game == 'classic' else 'Yüzbir'}", viewport={"width": w, "height": h}
    )
    try:
        await _open_table(page, GAMES[game])
        await page.evaluate("() => window.scrollTo(0, 0)")
        m = await page.evaluate(BOXES)
        await page.screenshot(path=str(ARTIFACTS / f"fit-{game}-{w}x{h}.png"))
        assert {"Çek", "Yandan al", "Taşı at"} <= set(m["actions"]), m["actions"]
        assert game == "101" or "Bitir" in m["actions"], m["actions"]
        out = [b for b in m["controls"] + m["table"] if _outside(b, m)]
        assert not out, f"{w}x{h} {game}: out of view (viewport {m['vw']}x{m['vh']}): {out}"
        assert m["scrollH"] <= m["vh"] and m["scrollW"] <= m["vw"], f"the page scrolls: {m}"
        assert len(m["controls"]) >= 10, m["controls"]
        # The side column's length depends on the deal (101's hint list, the log, the last hand):
        # with every panel of it long, the chat still keeps its place in view.
        await page.evaluate(LONG_SIDE)
        m = await page.evaluate(BOXES)
        chat = [b for b in m["controls"] if "chat" in b["what"] or "emote" in b["what"]]
        assert len(chat) >= 2, m["controls"]
        out = [b for b in m["controls"] + m["table"] if _outside(b, m)]
        assert not out, f"{w}x{h} {game}, a long side column: out of view: {out}"
        assert m["scrollH"] <= m["vh"], f"the page scrolls with a long side column: {m}"
    finally:
        await context.close()
    assert not errors, errors


SEATS = """() => {
  const r = (el) => { const b = el.getBoundingClientRect(); return {x: b.left, y: b.top, w: b.width, h: b.height}; };
  const out = {};
  for (const where of ['top', 'left', 'right', 'bottom']) {
    const a = document.querySelector('#board .pos-' + where);
    if (a) out[where] = {area: r(a), pile: r(a.querySelector('.pile')),
                         seat: Number(a.querySelector('.seat-panel').dataset.seat)};
  }
  out.center = r(document.querySelector('#board .center'));
  out.mine = okeyApp.state.t.seat;
  return out;
}"""


def _cx(b: dict[str, float]) -> float:
    return b["x"] + b["w"] / 2


def _cy(b: dict[str, float]) -> float:
    return b["y"] + b["h"] / 2


async def test_phone_landscape_seats_sit_around_the_table(browser: Any, stack: okeystack.Stack) -> None:
    """[issue 40.8] 844x390 on a touch screen: the left neighbour sits left of the centre, the
    opposite seat above it, the right neighbour right of it (not all in one row), and each
    seat's pile is beside its panel."""
    context, page, errors = await _signed_in(browser, stack, "Yatay Oturma", viewport=LANDSCAPE, **PHONE)
    try:
        await _open_table(page, "GAME_OKEY")
        await page.evaluate("() => window.scrollTo(0, 0)")
        s = await page.evaluate(SEATS)
        await page.screenshot(path=str(ARTIFACTS / "fit-phone-landscape-seats.png"))
        c = s["center"]
        n = 4
        assert s["left"]["seat"] == (s["mine"] + n - 1) % n and s["right"]["seat"] == (s["mine"] + 1) % n, s
        assert _cx(s["left"]["area"]) < c["x"] and _cx(s["right"]["area"]) > c["x"] + c["w"], s
        assert s["top"]["area"]["y"] + s["top"]["area"]["h"] <= c["y"] + 1, s  # above the centre
        assert c["x"] <= _cx(s["top"]["area"]) <= c["x"] + c["w"], s
        # left and right are level with the centre, not with the top seat
        for side in ("left", "right"):
            assert c["y"] - 1 <= _cy(s[side]["area"]) <= c["y"] + c["h"] + 1, (side, s)
        # the left neighbour's pile (the one a seat takes from) is on the left side
        assert _cx(s["left"]["pile"]) < c["x"], s
    finally:
        await context.close()
    assert not errors, errors


SLOT_STYLE = """(i) => { const el = document.querySelector(`#rack .slot-empty[data-slot="${i}"]`);
  const cs = getComputedStyle(el);
  return {bg: cs.backgroundColor, image: cs.backgroundImage, border: cs.borderTopColor, shadow: cs.boxShadow,
          hover: el.matches(':hover')}; }"""
EMPTY_SLOTS = "() => Array.from(document.querySelectorAll('#rack .slot-empty')).map((b) => Number(b.dataset.slot))"


def _alpha(colour: str) -> float:
    """The alpha of a computed ``rgb(...)`` / ``rgba(...)`` colour."""
    parts = colour[colour.index("(") + 1 : -1].split(",")
    return float(parts[3]) if len(parts) == 4 else 1.0


async def test_a_tapped_or_hovered_empty_slot_still_looks_empty(browser: Any, stack: okeystack.Stack) -> None:
    """[issue 40.8] Tapping an empty rack slot (a touch screen keeps the hover) leaves it looking
    as the other empty slots do, not a white "tile"; with a mouse, hovering one only lightens it."""
    context, page, errors = await _signed_in(browser, stack, "Boş Yuva", viewport=LANDSCAPE, **PHONE)
    try:
        await _open_table(page, "GAME_OKEY")
        empty = await page.evaluate(EMPTY_SLOTS)
        assert len(empty) >= 2, empty
        untouched = await page.evaluate(SLOT_STYLE, empty[-1])
        slot = f'#rack .slot-empty[data-slot="{empty[0]}"]'
        b = await page.locator(slot).bounding_box()
        await page.tap(slot)
        # the finger's hover stays where it tapped (the rack may have been drawn again meanwhile)
        await page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
        await _painted(page)
        tapped = await page.evaluate(SLOT_STYLE, empty[0])
        await page.screenshot(path=str(ARTIFACTS / "fit-empty-slot-tapped.png"))
        assert tapped["hover"], "the tap did not leave the slot hovered, as a phone does"
        assert {k: tapped[k] for k in ("bg", "image", "border", "shadow")} == {
            k: untouched[k] for k in ("bg", "image", "border", "shadow")
        }, (tapped, untouched)
    finally:
        await context.close()
    context, page, errors2 = await _signed_in(browser, stack, "Boş Fare", viewport={"width": 1366, "height": 768})
    try:
        await _open_table(page, "GAME_OKEY")
        empty = await page.evaluate(EMPTY_SLOTS)
        await page.hover(f'#rack .slot-empty[data-slot="{empty[0]}"]')
        hovered = await page.evaluate(SLOT_STYLE, empty[0])
        assert hovered["hover"] and hovered["image"] == "none", hovered
        assert _alpha(hovered["bg"]) <= 0.3, f"a hovered empty slot looks like a tile: {hovered}"
    finally:
        await context.close()
    assert not errors and not errors2, errors + errors2


# ------------------------------------------------------------------ texts


# Flags on three other seats (as the table service sends them: autopilot after three timeouts,
# pairs declared, turned to okey) and the board drawn again with them.
FLAGS_JS = """async () => {
  const t = okeyApp.state.t, v = t.view, n = v.seats.length;
  const others = [1, 2, 3].map((k) => (t.seat + k) % n).filter((s) => s !== t.seat);
  v.seats[others[0]].autopilot = true;
  if (v.options.game !== 'GAME_OKEY101') {
    v.seats[others[1]].declaredPairs = true;
    v.seats[others[2]].turnedToOkey = true;
  } else {
    v.seats[others[1]].opening = 'OPENING_RUNS'; v.seats[others[1]].openingValue = 104;
    v.seats[others[2]].opening = 'OPENING_PAIRS'; v.seats[others[2]].openingValue = 5;
  }
  (await import('/state.js')).render();
  return others;
}"""

# Everything the page shows or reads out: the visible text, CSS-generated text, and the names
# and titles of what is shown (table ids and player names left out by the caller).
RENDERED_TEXT_JS = """() => {
  const out = [document.body.innerText];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('[hidden], template, script, style, dialog:not([open])')) continue;
    for (const pseudo of ['::before', '::after']) {
      const c = getComputedStyle(el, pseudo).content;
      if (c && c !== 'none' && c !== 'normal') out.push(c.replace(/^"|"$/g, ''));
    }
    if (el.getClientRects().length === 0) continue;
    for (const a of ['aria-label', 'title', 'placeholder', 'alt']) if (el.hasAttribute(a)) out.push(el.getAttribute(a));
  }
  return out.join('\\n');
}"""


@pytest.mark.parametrize("game", list(GAMES))
async def test_no_english_word_reaches_a_tr_table(browser: Any, stack: okeystack.Stack, game: str) -> None:
    """[issue 40.7] The TR table page in play, with every seat flag shown: no English word in
    what it shows (badges set from JS, CSS content) or reads out; the autopilot badge is Turkish.
    The log names the okey as the buttons do, and an opening says what its number counts."""
    words = english_vocabulary()
    assert {"auto", "discard", "pairs", "hand"} <= words
    tr = strings("tr")
    me = "Çağla Yılmaz" if game == "classic" else "Çağla Yüzbir"
    context, page, errors = await _signed_in(browser, stack, me, viewport={"width": 1366, "height": 768})
    try:
        table_id = await _open_table(page, GAMES[game])
        others = await page.evaluate(FLAGS_JS)
        # a log line for a discarded okey and for an opening, through the page's own log module
        await page.evaluate(
            """async ([seat, is101]) => {
              const log = await import('/log.js');
              const t = okeyApp.state.t, v = t.view;
              log.logEvent(t, {kind: 'TileDiscarded', version: t.version,
                tileDiscarded: {seat, tile: {id: 7, code: v.okey.code}}}, true);
              if (is101) {
                log.logEvent(t, {kind: 'MeldsOpened', version: t.version,
                  meldsOpened: {seat, opening: 'OPENING_RUNS', first: true, value: 104, melds: []}}, true);
                log.logEvent(t, {kind: 'MeldsOpened', version: t.version,
                  meldsOpened: {seat, opening: 'OPENING_PAIRS', first: true, value: 5, melds: []}}, true);
                log.logEvent(t, {kind: 'MeldsOpened', version: t.version,
                  meldsOpened: {seat, opening: 'OPENING_RUNS', value: 12, melds: []}}, true);
              }
              log.renderLog(t);
            }""",
            [others[0], game == "101"],
        )
        await _painted(page)
        await page.screenshot(path=str(ARTIFACTS / f"texts-tr-{game}.png"))
        badge = await page.text_content(f'#board .seat-panel[data-seat="{others[0]}"] .flag.auto')
        assert badge and badge.strip() == tr["table.flag.autopilot.short"], badge
        names = await page.evaluate("() => okeyApp.state.t.names || {}")
        english, text = await _english_on(
            page, words, [table_id, me, *[str(v) for v in (names.values() if isinstance(names, dict) else names) if v]]
        )
        assert not english, f"English on the TR {game} table: {english}\n{text[:3000]}"

        lines = await page.evaluate(
            "() => Array.from(document.querySelectorAll('#event-log li')).map((l) => l.textContent)"
        )
        okey = await page.evaluate("() => okeyApp.state.t.view.okey.code")
        colour = {"R": "Kırmızı", "Y": "Sarı", "B": "Mavi", "K": "Siyah"}[okey[0]]
        face = f"{colour} {okey[1:]}"
        discarded = [x for x in lines if x.endswith(" attı")]
        assert discarded and tr["refusal.tile.okey"] in discarded[0] and face not in discarded[0], (face, lines)
        if game == "101":
            opened = [x for x in lines if "açtı" in x or "indirdi" in x]
            assert any("104 puanla açtı" in x for x in opened), opened
            assert any("5 çiftle açtı" in x for x in opened), opened
            assert any("12 puanlık" in x for x in opened), opened
            assert not any(x.rstrip().endswith(")") for x in opened), opened
    finally:
        await context.close()
    assert not errors, errors


async def _english_on(page: Any, words: set[str], leave_out: list[str]) -> tuple[list[str], str]:
    """The English words of ``words`` the page shows or reads out now (RENDERED_TEXT_JS), with
    ``leave_out`` (ids, player names) taken out first; and the text scanned."""
    text = await page.evaluate(RENDERED_TEXT_JS)
    for x in sorted((x for x in leave_out if x), key=len, reverse=True):
        text = text.replace(x, " ")
    return english_in(text, words), text


# A classic hand ended (the finisher another seat, by okey, doubled; an indicator shown), as the
# table service's view carries it, drawn by the page's own modules: the end-of-hand screen.
HAND_END_JS = """async () => {
  const t = okeyApp.state.t, v = t.view, n = v.seats.length, me = t.seat, other = (me + 1) % n;
  const hand = Number(v.hand || 1), okey = v.okey, ind = v.indicator || okey;
  const lines = [
    {seat: other, points: 0, reason: 'FINISHED'},
    {seat: me, points: -4, reason: 'OTHER_FINISHED'},
    {seat: me, points: -1, reason: 'INDICATOR_OTHER'},
    {seat: (me + 2) % n, points: -4, reason: 'OTHER_FINISHED'},
    {seat: (me + 3) % n, points: -4, reason: 'OTHER_FINISHED'},
    {seat: (me + 3) % n, points: 1, reason: 'INDICATOR_SHOWN'},
  ];
  const sum = (i) => lines.filter((l) => l.seat === i).reduce((a, l) => a + l.points, 0);
  const totals = Array.from({length: n}, (_, i) => 20 + sum(i));
  Object.assign(v, {
    phase: 'PHASE_HAND_OVER', breakDueMs: String(Date.now() + 120000), allowed: ['Ready'], ready: [],
    lastHandOkey: okey, lastHandIndicator: ind,
    lastHand: {hand, reason: 'HAND_END_REASON_FINISHED', finisher: other, okeyFinish: true, multiplier: 2,
      deltas: Array.from({length: n}, (_, i) => totals[i] - 20),
      arrangement: [{tiles: (v.rack || []).slice(0, 3)}, {tiles: (v.rack || []).slice(3, 6)}],
      finalTile: (v.rack || [])[6]},
    lastHandBreakdown: {hand, lines, totals, changes: Array.from({length: n}, (_, i) => totals[i] - 20)},
  });
  (await import('/state.js')).render();
}"""

# The match over (this seat the winner), the view's result drawn by the page's own result dialog.
RESULT_JS = """async () => {
  const t = okeyApp.state.t, v = t.view, n = v.seats.length;
  Object.assign(v, {phase: 'PHASE_MATCH_OVER', allowed: [], breakDueMs: '0',
    result: {scores: Array.from({length: n}, (_, i) => (i === t.seat ? 30 : 10 - i)), winners: [t.seat]}});
  (await import('/state.js')).render();
  await (await import('/results.js')).showFinal(t);
}"""


async def test_40_7_no_english_word_reaches_a_tr_lobby_profile_result_or_hand_end(
    browser: Any, stack: okeystack.Stack
) -> None:
    """[issue 40.7] Beyond the table: the TR lobby's first screen, the profile, the end-of-hand
    screen and the result dialog show and read out no English word (the same scan as the table's)."""
    words = english_vocabulary()
    me = "Gülşen Öztürk"
    context, page, errors = await _signed_in(browser, stack, me, viewport={"width": 1366, "height": 768})
    try:
        found: dict[str, list[str]] = {}
        texts: dict[str, str] = {}
        # The lobby's first screen, once the lobby answered (rooms, tables, quick play, the form).
        await page.wait_for_selector("#rooms [data-room]", timeout=15_000)
        found["lobby"], texts["lobby"] = await _english_on(page, words, [me])
        # The profile (chips, the day's chips, the face, the stats and the leaderboard as they come).
        await page.click("#profile-open")
        await page.wait_for_selector("#profile-dialog[open]")
        await page.wait_for_selector("#profile-stats > *", timeout=15_000)  # the stats as scoring says them
        found["profile"], texts["profile"] = await _english_on(page, words, [me])
        await page.click("#profile-close")
        # The end-of-hand screen and the match's result, at a classic table.
        table_id = await _open_table(page, GAMES["classic"])
        names = await page.evaluate("() => Object.values(okeyApp.state.t.names || {}).map(String)")
        await page.evaluate(HAND_END_JS)
        await page.wait_for_selector("#handend[open] .handend-scores tbody tr")
        await _painted(page)
        await page.screenshot(path=str(ARTIFACTS / "texts-tr-handend.png"))
        found["hand end"], texts["hand end"] = await _english_on(page, words, [table_id, me, *names])
        await page.evaluate(RESULT_JS)
        await page.wait_for_selector("#result-dialog[open] table.standings tbody tr")
        await page.wait_for_function(  # the chips' record, as the lobby says it (or no record to show)
            "() => { const c = document.querySelector('#result-chips');"
            " return !c || c.hidden || !!c.querySelector('#settle-balance'); }",
            timeout=15_000,
        )
        await page.screenshot(path=str(ARTIFACTS / "texts-tr-result.png"))
        found["result"], texts["result"] = await _english_on(page, words, [table_id, me, *names])
        bad = {k: v for k, v in found.items() if v}
        assert not bad, f"English on TR screens: {bad}\n" + "\n".join(f"--- {k}\n{texts[k][:2000]}" for k in bad)
    finally:
        await context.close()
    assert not errors, errors


async def test_an_en_table_shows_its_badges_in_english(browser: Any, stack: okeystack.Stack) -> None:
    """[issue 40.7] The same flags on an EN page are English (the badges come from the string
    table, not from the code)."""
    en = strings("en")
    context, page, errors = await _signed_in(browser, stack, "Ece Kaya", viewport={"width": 1366, "height": 768})
    try:
        await page.click(".lang button[data-lang='en']")
        await _open_table(page, "GAME_OKEY")
        others = await page.evaluate(FLAGS_JS)
        flags = await page.evaluate(
            "(seats) => seats.map((s) => Array.from("
            '  document.querySelectorAll(`#board .seat-panel[data-seat="${s}"] .flag`))'
            ".map((f) => f.textContent.trim()).join(' '))",
            others,
        )
        assert flags == [en["table.flag.autopilot.short"], en["table.flag.pairs.short"], en["table.flag.okey.short"]], (
            flags
        )
    finally:
        await context.close()
    assert not errors, errors

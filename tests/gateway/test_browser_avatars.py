"""Faces (issue 47.3) in a real browser, two guests in browser contexts of their own, as
test_browser_seating.py:

- Ayşe opens her profile: her face (the lobby's default for her id) and a grid of the 12 to pick
  from, the current one pressed; she picks another by keyboard and the page follows the lobby's
  answer (SetAvatar's profile);
- she opens a public table: her face is at her seat on the lobby card, on her page and on Barış's
  (the public list), and beside her line in the lobby chat, on both pages;
- she starts the table with bots: her face is at her seat on the board;
- axe-core reports no serious or critical violation, and nothing overflows the page sideways, at
  1366x768 and 844x390.

And, without a browser: the client draws every face of the proto enum, with its Turkish and
English name, and no module but avatars.js and i18n.js names one. Debian's Chromium through
Playwright; screenshots go to artifacts/."""

from __future__ import annotations

import json
import random
import re
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from okey.v1 import lobby_service_pb2 as pb
from okeytools import stack as okeystack
from refusal_codes import strings
from test_browser import ARTIFACTS
from test_browser_phone import _axe, _painted

WEB = Path(__file__).resolve().parents[2] / "services" / "gateway" / "web"
TIMEOUT_MS = 15_000
NAMES = [v.name.removeprefix("AVATAR_") for v in pb.Avatar.DESCRIPTOR.values if v.number]
VIEWPORTS = [{"width": 1366, "height": 768}, {"width": 844, "height": 390}]


def test_the_client_draws_every_face_of_the_enum_and_names_it_in_both_languages() -> None:
    src = (WEB / "avatars.js").read_text(encoding="utf-8")
    block = src[src.index("const DRAWINGS = {") : src.index("};", src.index("const DRAWINGS = {"))]
    drawn = re.findall(r"^  ([A-Z][A-Z0-9_]*): \[", block, re.M)
    assert drawn == NAMES, "avatars.js draws the faces of okey.v1.Avatar, in its order"
    for lang in ("tr", "en"):
        table = strings(lang)
        listed = [k.removeprefix("avatar.") for k in table if re.fullmatch(r"avatar\.[A-Z][A-Z0-9_]*", k)]
        assert listed == NAMES, lang
        assert all(table[f"avatar.{n}"].strip() for n in NAMES)
    for p in WEB.glob("*.js"):
        if p.name not in ("avatars.js", "i18n.js"):
            named = re.findall(r"\bAVATAR_[A-Z]+\b", p.read_text(encoding="utf-8"))
            assert not named, f"{p.name} names faces {named}: the drawings are avatars.js's"


@pytest.fixture(scope="module")
def avatar_stack(make_module_stack: Callable[..., okeystack.Stack]) -> okeystack.Stack:
    # Every guest signs in from 127.0.0.1: the per-address quotas of accounts and grants are lifted.
    env = {
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",
        "OKEY_DAILY_GRANTS_PER_ADDRESS": "0",
    }
    return make_module_stack(("table", "lobby", "scoring", "gateway"), env=env, label="avatars", private_nats=True)


@pytest.fixture
def base(avatar_stack: okeystack.Stack) -> str:
    return f"http://{avatar_stack.http_address}"


class Person:
    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    @classmethod
    async def sign_in(cls, browser: Any, base: str, first: str) -> tuple[Person, str]:
        # bypass_csp: the page's CSP (script-src 'self') would refuse the injected axe-core script
        ctx = await browser.new_context(viewport=VIEWPORTS[0], locale="tr-TR", bypass_csp=True)
        p = cls(await ctx.new_page())
        name = f"{first} {''.join(random.choices(string.ascii_uppercase, k=5))}"
        await p.page.goto(base + "/")
        await p.page.wait_for_selector("#screen-signin:not([hidden])")
        await p.page.fill("#signin-name", name)
        await p.page.click("#signin-submit")
        await p.page.wait_for_selector("#screen-lobby:not([hidden])")
        return p, name

    async def me(self) -> str:
        return str(await self.page.evaluate("() => okeyApp.state.me.id"))


async def _no_sideways_overflow(page: Any, where: str, inside: str = "") -> None:
    await _painted(page)
    sizes = await page.evaluate(
        """(sel) => { const d = document.documentElement; const box = sel ? document.querySelector(sel) : null;
          return {page: d.scrollWidth, view: d.clientWidth,
                  box: box ? box.scrollWidth : 0, boxView: box ? box.clientWidth : 0}; }""",
        inside,
    )
    assert sizes["page"] <= sizes["view"] + 1, f"{where}: the page overflows sideways {json.dumps(sizes)}"
    assert sizes["box"] <= sizes["boxView"] + 1, f"{where}: {inside} overflows sideways {json.dumps(sizes)}"


OPEN_TABLE = """async () => {
  const { api } = await import('./api.js');
  const r = await api('LobbyService', 'OpenTable', {options: {game: 'GAME_OKEY', turnSeconds: 120},
    visibility: 'TABLE_VISIBILITY_PUBLIC', fillWithBots: false});
  return r.table.tableId;
}"""


async def test_a_face_picked_in_the_profile_shows_at_the_seat_in_the_lobby_and_in_chat(base: str, browser: Any) -> None:
    ayse, _ = await Person.sign_in(browser, base, "Ayşe")
    baris, _ = await Person.sign_in(browser, base, "Barış")
    page = ayse.page
    a_id = await ayse.me()

    # ---- the profile: her default face, the grid of 12, the current one pressed
    await page.click("#profile-open")
    await page.wait_for_selector("#profile-dialog[open] #avatar-grid .avatar-pick")
    await page.wait_for_function("() => !!okeyApp.state.me.avatar", timeout=TIMEOUT_MS)
    default = str(await page.evaluate("() => okeyApp.state.me.avatar")).removeprefix("AVATAR_")
    assert default in NAMES
    names_of = "bs => bs.map((b) => b.dataset.avatar)"
    grid = await page.eval_on_selector_all("#avatar-grid .avatar-pick", names_of)
    assert grid == NAMES
    pressed = await page.eval_on_selector_all('#avatar-grid [aria-pressed="true"]', names_of)
    assert pressed == [default]
    assert await page.get_attribute("#profile-face svg", "data-avatar") == default
    shown = await page.get_attribute("#profile-face svg", "aria-label")
    assert shown and shown.startswith("Profil resmi: "), shown
    for viewport in VIEWPORTS:
        await page.set_viewport_size(viewport)
        await _axe(page, f"the profile with the faces ({viewport['width']}x{viewport['height']})")
        await _no_sideways_overflow(page, "the profile", "#profile-dialog")
    await page.set_viewport_size(VIEWPORTS[0])

    # ---- she picks another by keyboard: the page follows the lobby's answer
    chosen = "OWL" if default != "OWL" else "FOX"
    await page.focus(f'#avatar-grid [data-avatar="{chosen}"]')
    async with page.expect_response(lambda r: r.url.endswith(".LobbyService/SetAvatar")) as answer:
        await page.keyboard.press("Enter")
    said = (await (await answer.value).json())["profile"]
    assert (said["playerId"], said["avatar"]) == (a_id, "AVATAR_" + chosen), said
    await page.wait_for_selector(f'#avatar-grid [data-avatar="{chosen}"][aria-pressed="true"]')
    assert await page.get_attribute("#profile-face svg", "data-avatar") == chosen
    assert await page.evaluate("() => document.activeElement.dataset.avatar") == chosen
    status = await page.text_content("#avatar-result") or ""
    assert "Profil resmin değişti" in status, status
    await page.screenshot(path=str(ARTIFACTS / "avatar-profile.png"))
    await page.click("#profile-close")

    # ---- a public table: her face at her seat on the lobby cards, hers and Barış's
    tid = await page.evaluate(OPEN_TABLE)
    await page.evaluate("() => { location.hash = '#/lobby'; }")
    mine = f'#my-tables article[data-table="{tid}"] .card-seats svg.avatar[data-avatar="{chosen}"]'
    await page.wait_for_selector(mine, timeout=TIMEOUT_MS)
    listed = f'#tables article[data-table="{tid}"] .card-seats svg.avatar[data-avatar="{chosen}"]'
    await baris.page.reload()
    await baris.page.wait_for_selector(listed, timeout=TIMEOUT_MS)

    # ---- the lobby chat: her line has her face, on both pages
    slot = '.chat-slot[data-chat="lobby"]'
    await page.fill(f"{slot} .chat-input", "Merhaba millet")
    async with page.expect_response(lambda r: r.url.endswith(".LobbyService/SendMessage")) as sent:
        await page.press(f"{slot} .chat-input", "Enter")
    message = (await (await sent.value).json())["message"]
    assert message["avatar"] == "AVATAR_" + chosen, message
    line = f"{slot} li:has-text('Merhaba millet') svg.avatar[data-avatar=\"{chosen}\"]"
    await page.wait_for_selector(line, timeout=TIMEOUT_MS)
    await baris.page.wait_for_selector(line, timeout=TIMEOUT_MS)
    for viewport in VIEWPORTS:
        await page.set_viewport_size(viewport)
        await _axe(page, f"the lobby with faces ({viewport['width']}x{viewport['height']})")
        await _no_sideways_overflow(page, "the lobby")
    await page.set_viewport_size(VIEWPORTS[0])
    await page.screenshot(path=str(ARTIFACTS / "avatar-lobby.png"))

    # ---- she starts it with bots: her face at her seat on the board
    await page.click(f'#my-tables article[data-table="{tid}"] button.primary')
    await page.wait_for_selector("#screen-table:not([hidden])", timeout=TIMEOUT_MS)
    seat = f'#board .seat-panel[data-player="{a_id}"] .seat-name svg.avatar[data-avatar="{chosen}"]'
    await page.wait_for_selector(seat, timeout=TIMEOUT_MS)
    for viewport in VIEWPORTS:
        await page.set_viewport_size(viewport)
        await page.wait_for_selector(seat, timeout=TIMEOUT_MS)
        await _axe(page, f"the table with faces ({viewport['width']}x{viewport['height']})")
        await _no_sideways_overflow(page, "the table")
        await page.screenshot(path=str(ARTIFACTS / f"avatar-table-{viewport['width']}.png"))
    assert not ayse.errors and not baris.errors, ayse.errors + baris.errors

"""The create form is drawn from the rules' option spec, in a real browser (Debian's Chromium
through Playwright, as test_browser.py): the page asks ``TableService.GetOptionSpec`` at boot,
before anyone signs in and with no token, and each game's form then holds exactly okeycore's
options with okeycore's bounds, listed values and defaults, its help texts quoting the bounds in
the page's language. The stack is the table service and the gateway (a pasted token signs in)."""

from __future__ import annotations

from typing import Any

from gateway_helpers import GatewayStack
from okeycore.options import BOUNDS, CHOICES, TableOptions, options_of
from okeycore.options import Game as CoreGame
from okeyplatform.auth import issue_token

TIMEOUT_MS = 15_000
DEFAULT = TableOptions()
SPEC_PATH = "/api/okey.v1.TableService/GetOptionSpec"

# Every field of the create form: {name: [kind, value or checked, min, max, [option values]]}.
FORM_JS = """() => Object.fromEntries([...document.querySelectorAll('#create-form [data-opt]')].map((el) => [
  el.dataset.opt,
  el.type === 'checkbox' ? ['bool', el.checked]
    : el.tagName === 'SELECT' ? ['select', el.value, null, null, [...el.options].map((o) => o.value)]
    : ['number', el.value, el.min, el.max],
]))"""


def _expected(game: CoreGame) -> dict[str, list[Any]]:
    default = TableOptions(game=game)
    out: dict[str, list[Any]] = {}
    for name in options_of(game):
        v = getattr(default, name)
        if isinstance(v, bool):
            out[name] = ["bool", v]
        elif name in CHOICES:
            out[name] = ["select", str(v), None, None, [str(c) for c in CHOICES[name]]]
        elif name in BOUNDS:
            low, high = BOUNDS[name]
            out[name] = ["number", str(v), str(low), str(high)]
        else:
            out[name] = ["select", v.value, None, None, [m.value for m in type(v)]]
    return out


async def test_the_create_form_shows_okeycores_options_bounds_and_defaults(browser: Any, stack: GatewayStack) -> None:
    errors: list[str] = []
    asked: list[dict[str, str]] = []  # the headers of each GetOptionSpec call
    ctx = await browser.new_context(locale="tr-TR", viewport={"width": 1280, "height": 900})
    page = await ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: asked.append(r.headers) if r.url.endswith(SPEC_PATH) else None)
    # ---- asked at boot, signed out: no token goes with it
    async with page.expect_request(lambda r: r.url.endswith(SPEC_PATH), timeout=TIMEOUT_MS) as first:
        await page.goto(f"http://{stack.http}/")
    assert "authorization" not in await (await first.value).all_headers()
    await page.wait_for_selector("#screen-signin:not([hidden])")

    # ---- signed in (a pasted token: no lobby in this stack), the form is okeycore's
    await page.fill("#signin-name", "Form")
    await page.click("#signin-submit")
    await page.wait_for_selector("#nolobby:not([hidden])")
    await page.fill("#token-input", issue_token("form-player"))
    await page.click("#token-form button[type=submit]")
    await page.wait_for_selector("#screen-lobby:not([hidden])")
    await page.wait_for_selector("#opt-stake", state="attached", timeout=TIMEOUT_MS)
    for game in (CoreGame.OKEY, CoreGame.OKEY101):
        await page.select_option("#create-game", game.value)
        form = await page.evaluate(FORM_JS)
        assert form == _expected(game), game  # every option of the game and no other [D-9]
    assert len(asked) == 1, "the spec is asked once a page"

    # ---- the help quotes the spec's bounds, in Turkish and in English; the default is named
    await page.select_option("#create-game", "OKEY")
    help_tr = await page.text_content("#opt-turn_seconds-help") or ""
    low, high = BOUNDS["turn_seconds"]
    assert f"({low}–{high} saniye)" in help_tr and f"varsayılan: {DEFAULT.turn_seconds}" in help_tr, help_tr
    await page.click(".lang button[data-lang=en]")
    help_en = await page.text_content("#opt-match_points-help") or ""
    low, high = BOUNDS["match_points"]
    assert f"({low}–{high})" in help_en and f"default: {DEFAULT.match_points}" in help_en, help_en
    onoff = "On" if DEFAULT.partners else "Off"
    assert f"default: {onoff}" in (await page.text_content("#opt-partners-help") or "")
    await page.select_option("#create-game", "OKEY101")
    assert f"default: {DEFAULT.seats}" in (await page.text_content("#opt-seats-help") or "")
    await ctx.close()
    assert not errors, errors

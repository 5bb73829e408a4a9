"""Coming back to the same account in a real browser (issue 19.1, 19.5): a guest signs in, signs
out (a dialog says how to come back), and "Continue as <name>" returns the same player with the
same chips; an account the lobby no longer knows falls back to the new-account form. Debian's
Chromium through Playwright, as test_browser.py. Screenshots go to artifacts/."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from okeytools import stack as okeystack
from test_browser import ARTIFACTS, CHROMIUM_ARGS, _chromium, _playwright

TIMEOUT_MS = 15_000
ME_JS = "() => okeyApp.state.me && okeyApp.state.me.id"


async def _open(ctx: Any, base: str, errors: list[str]) -> Any:
    """A page of ``ctx`` on the site's sign-in screen, its script errors collected."""
    page = await ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(base + "/")
    await page.wait_for_selector("#screen-signin:not([hidden])")
    return page


async def _chips_status(page: Any) -> int:
    """The HTTP status of GetChips with the page's current token (the page's own session)."""
    status: int = await page.evaluate(
        """async () => (await fetch('/api/okey.v1.LobbyService/GetChips', {method: 'POST',
            headers: {'content-type': 'application/json',
                      authorization: 'Bearer ' + okeyApp.state.token}, body: '{}'})).status"""
    )
    return status


async def _signed_in(ctx: Any, base: str, errors: list[str], name: str) -> Any:
    page = await _open(ctx, base, errors)
    await page.fill("#signin-name", name)
    await page.click("#signin-submit")
    await page.wait_for_selector("#screen-lobby:not([hidden])")
    return page


def _context(browser: Any) -> Any:
    return browser.new_context(viewport={"width": 1280, "height": 900}, locale="tr-TR")


PRACTICE_TABLE_JS = """async (me) => {
  const r = await fetch('/api/okey.v1.TableService/CreateTable', {method: 'POST',
    headers: {'content-type': 'application/json', authorization: 'Bearer ' + okeyApp.state.token},
    body: JSON.stringify({options: {game: 'GAME_OKEY', matchPoints: 1, handBreakSeconds: 0},
                          seats: [{playerId: me}, {}, {}, {}]})});
  return (await r.json()).tableId;
}"""


DISCARD_ENABLED_JS = """async () => {
  for (let i = 0; i < 40; i++) {
    const b = document.querySelector('[data-act="discard"]');
    if (b && !b.disabled) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}"""


async def _play_one_turn(page: Any, seconds: float = 30.0) -> bool:
    """The person's turn through the page: the deck, then a discard."""
    state = (
        "() => { const t = okeyApp.state.t; const v = t && t.view;"
        " return v ? [v.turn || 0, v.stage || '', t.busy, t.seat] : null; }"
    )
    deadline = time.monotonic() + seconds
    drew = False
    while time.monotonic() < deadline:
        st = await page.evaluate(state)
        if not st or st[0] != st[3] or st[2]:
            await page.wait_for_timeout(80)
            continue
        if st[1] == "STAGE_DRAW" and not drew:
            await page.click("#deck")
            drew = True
        elif st[1] == "STAGE_DISCARD":
            tile = page.locator("#rack button.tile:not(.okey)").last
            if await tile.get_attribute("aria-pressed") != "true":
                await tile.click()
            # The button is enabled by the selection, unless the turn ended meanwhile (a timeout):
            # then look again, a later turn of the person's starting from its draw.
            if not await page.evaluate(DISCARD_ENABLED_JS):
                drew = False
                continue
            await page.click('[data-act="discard"]')
            await page.wait_for_function(
                "() => { const t = okeyApp.state.t; return t.view.stage != 'STAGE_DISCARD' || t.view.turn != t.seat; }"
            )
            return True
        else:
            await page.wait_for_timeout(80)
    return False


async def test_sign_out_warns_and_continue_as_returns_the_same_account(
    make_stack: Callable[..., okeystack.Stack],
) -> None:
    env = {"OKEY_RATE_LIMIT": "1000", "OKEY_RATE_BURST": "1000", "OKEY_BOTS_STRATEGY": "greedy"}
    st = make_stack(("table", "lobby", "bots", "gateway"), env=env, label="accounts", private_nats=True)
    base = f"http://{st.http_address}"
    async_playwright = _playwright()
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=_chromium(), headless=True, args=CHROMIUM_ARGS)
        try:
            page = await _open(await _context(browser), base, errors)
            assert await page.is_hidden("#signin-again")  # nothing kept on a new device
            await page.fill("#signin-name", "Geri Dönen")
            await page.click("#signin-submit")
            await page.wait_for_selector("#screen-lobby:not([hidden])")
            player = await page.evaluate(ME_JS)
            await page.wait_for_function("() => /\\d/.test(document.querySelector('#who-chips').textContent)")
            chips = re.sub(r"\D", "", await page.text_content("#who-chips") or "")
            assert player and chips

            # Play a turn at a table with bots: draw from the deck, discard a tile.
            table_id = await page.evaluate(PRACTICE_TABLE_JS, player)
            await page.evaluate("(id) => { location.hash = '#/table/' + id + '/0'; }", table_id)
            await page.wait_for_selector("#screen-table:not([hidden])", timeout=TIMEOUT_MS)
            played = await _play_one_turn(page)
            assert played, "the person's turn never came"

            # Signing out says how to come back; "Vazgeç" keeps the session.
            await page.click("#sign-out")
            await page.wait_for_selector("#signout-dialog[open]", timeout=TIMEOUT_MS)
            warning = await page.text_content("#signout-text") or ""
            assert "Geri Dönen olarak devam et" in warning, warning
            await page.screenshot(path=str(ARTIFACTS / "sign-out-warning.png"))
            await page.click("#signout-cancel")
            assert await page.is_visible("#screen-table")  # still signed in, still at the table
            await page.click("#sign-out")
            await page.wait_for_selector("#signout-dialog[open]")
            await page.click("#signout-confirm")
            await page.wait_for_selector("#screen-signin:not([hidden])", timeout=TIMEOUT_MS)

            # The device kept its credential: one button brings the same account back.
            await page.wait_for_selector("#signin-again:not([hidden])")
            assert await page.is_hidden("#signin-form")
            label = await page.text_content("#signin-again-go") or ""
            assert label.strip() == "Geri Dönen olarak devam et", label
            await page.screenshot(path=str(ARTIFACTS / "continue-as.png"))
            await page.click("#signin-again-go")
            # back where the player was: the table in play (or the lobby)
            await page.wait_for_selector("#screen-table:not([hidden]), #screen-lobby:not([hidden])", timeout=TIMEOUT_MS)
            assert await page.evaluate(ME_JS) == player
            await page.wait_for_function("() => /\\d/.test(document.querySelector('#who-chips').textContent)")
            assert re.sub(r"\D", "", await page.text_content("#who-chips") or "") == chips

            # A credential the lobby does not know: the error is said, and the form comes back.
            await page.evaluate("() => localStorage.setItem('okey.deviceSecret', 'A'.repeat(43))")
            await page.evaluate("() => localStorage.removeItem('okey.token')")
            await page.goto(base + "/")
            await page.wait_for_selector("#signin-again:not([hidden])")
            await page.click("#signin-again-go")
            await page.wait_for_selector("#signin-form:not([hidden])", timeout=TIMEOUT_MS)
            assert await page.is_hidden("#signin-again")
            said = await page.text_content("#signin-error:not([hidden])") or ""
            assert "cihazın hesabı bulunamadı" in said, said
        finally:
            await browser.close()
    assert not errors, errors


def _log_refreshes(page: Any, tag: str, seen: list[str]) -> None:
    def request(r: Any) -> None:
        if "RefreshSession" in r.url:
            seen.append(f"{tag} sends {r.post_data}")

    def response(r: Any) -> None:
        if "RefreshSession" in r.url:
            seen.append(f"{tag} gets {r.status}")

    page.on("request", request)
    page.on("response", response)


RENEWALS = 3


async def test_two_tabs_renew_one_session_without_spending_a_refresh_token_twice(
    make_stack: Callable[..., okeystack.Stack],
) -> None:
    # 62-second access tokens: the page renews a minute early, so every ~2 s, in both tabs. A
    # refresh token spent twice would end the session (REFRESH_REUSED) and sign both tabs out.
    env = {"OKEY_RATE_LIMIT": "1000", "OKEY_RATE_BURST": "1000", "OKEY_ACCESS_TOKEN_TTL_S": "62"}
    st = make_stack(("table", "lobby", "gateway"), env=env, label="sessions", private_nats=True)
    base = f"http://{st.http_address}"
    async_playwright = _playwright()
    errors: list[str] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=_chromium(), headless=True, args=CHROMIUM_ARGS)
        try:
            ctx = await _context(browser)
            first = await _signed_in(ctx, base, errors, "İki Sekme")
            second = await ctx.new_page()  # the same browser: the same storage, the same session
            second.on("pageerror", lambda e: errors.append(str(e)))
            seen: list[str] = []  # the refresh calls of both tabs, for the failure message
            for tag, pg in (("A", first), ("B", second)):
                _log_refreshes(pg, tag, seen)
            await second.goto(base + "/")
            await second.wait_for_selector("#screen-lobby:not([hidden])")
            token0 = await first.evaluate("() => okeyApp.state.token")
            refresh0 = await first.evaluate("() => localStorage.getItem('okey.refresh')")
            # Several renewals in each tab: each has held three tokens after its first, counted
            # as they come (one every ~2 s) rather than slept for.
            held: dict[str, set[str]] = {"A": set(), "B": set()}
            deadline = time.monotonic() + 40
            while min(len(h) for h in held.values()) < RENEWALS:
                for tag, page in (("A", first), ("B", second)):
                    token = await page.evaluate("() => okeyApp.state.token")
                    if token != token0:
                        held[tag].add(token)
                renewed = {tag: len(h) for tag, h in held.items()}
                assert time.monotonic() < deadline, f"renewals in 40 s: {renewed}\n" + "\n".join(seen)
                await first.wait_for_timeout(100)
            for page in (first, second):
                assert await page.is_visible("#screen-lobby"), "a tab was signed out:\n" + "\n".join(seen)
                token = await page.evaluate("() => okeyApp.state.token")
                assert token != token0
                status = await page.evaluate(
                    """async () => (await fetch('/api/okey.v1.LobbyService/GetChips', {method: 'POST',
                        headers: {'content-type': 'application/json',
                                  authorization: 'Bearer ' + okeyApp.state.token}, body: '{}'})).status"""
                )
                assert status == 200, "\n".join(seen)
            assert await first.evaluate("() => localStorage.getItem('okey.refresh')") != refresh0
        finally:
            await browser.close()
    assert not errors, errors


async def test_the_account_moves_to_other_devices_by_email_and_by_link_code(
    make_stack: Callable[..., okeystack.Stack],
) -> None:
    env = {
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",
        "OKEY_DAILY_GRANTS_PER_ADDRESS": "0",
    }
    st = make_stack(("table", "lobby", "gateway"), env=env, label="devices", private_nats=True)
    base = f"http://{st.http_address}"
    async_playwright = _playwright()
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=_chromium(), headless=True, args=CHROMIUM_ARGS)
        try:
            phone = await _signed_in(await _context(browser), base, errors, "Çok Cihaz")
            player = await phone.evaluate(ME_JS)

            # Link an e-mail: a common password is refused in Turkish, a good one is taken.
            await phone.click("#account-open")
            await phone.wait_for_selector("#account-dialog[open]", timeout=TIMEOUT_MS)
            assert "Henüz e-posta bağlı değil" in (await phone.text_content("#account-email-state") or "")
            await phone.fill("#link-email", "cok.cihaz@example.com")
            await phone.fill("#link-password", "galatasaray")
            await phone.click("#link-email-submit")
            await phone.wait_for_function(
                "() => /yaygın/.test(document.querySelector('#account-email-result').textContent)"
            )
            await phone.fill("#link-password", "dört taş bir okey")
            await phone.click("#link-email-submit")
            await phone.wait_for_function(
                "() => /bağlandı/.test(document.querySelector('#account-email-result').textContent)"
            )
            await phone.wait_for_selector("#change-password-form:not([hidden])")  # the dialog redraws
            assert await phone.is_hidden("#link-email-form")
            await phone.click("#link-code-create")
            await phone.wait_for_function(
                "() => /[0-9A-Z]{5}-[0-9A-Z]{5}/.test(document.querySelector('#link-code').textContent)"
            )
            code = re.search(r"[0-9A-Z]{5}-[0-9A-Z]{5}", await phone.text_content("#link-code") or "")
            assert code
            await phone.screenshot(path=str(ARTIFACTS / "account.png"))
            await phone.click("#account-close")

            # A tablet with the link code, a laptop with the e-mail and password: the same player.
            tablet = await _open(await _context(browser), base, errors)
            await tablet.click("#other-signin summary")
            await tablet.fill("#link-code-input", code.group(0).lower())
            await tablet.click("#link-code-submit")
            await tablet.wait_for_selector("#screen-lobby:not([hidden])", timeout=TIMEOUT_MS)
            assert await tablet.evaluate(ME_JS) == player
            laptop = await _open(await _context(browser), base, errors)
            await laptop.click("#other-signin summary")
            await laptop.fill("#email-input", "COK.CIHAZ@example.com")
            await laptop.fill("#password-input", "yanlış şifre burada")
            await laptop.click("#email-submit")
            await laptop.wait_for_selector("#email-error:not([hidden])")
            assert "E-posta ya da şifre yanlış" in (await laptop.text_content("#email-error") or "")
            await laptop.fill("#password-input", "dört taş bir okey")
            await laptop.click("#email-submit")
            await laptop.wait_for_selector("#screen-lobby:not([hidden])", timeout=TIMEOUT_MS)
            assert await laptop.evaluate(ME_JS) == player

            # The phone sees three devices, itself marked, and removes the laptop.
            laptop_ref = await laptop.evaluate("() => localStorage.getItem('okey.deviceRef')")
            await phone.click("#account-open")
            await phone.wait_for_selector("#account-dialog[open]")
            assert await phone.locator("#device-list li").count() == 3
            assert await phone.locator("#device-list li strong").count() == 1
            await phone.click(f"#device-list li[data-ref='{laptop_ref}'] button")
            await phone.wait_for_function("() => document.querySelectorAll('#device-list li').length === 2")
            # Removing it ended its session at once: its token is refused (issue 39.3).
            assert await _chips_status(laptop) == 401

            # "Sign out everywhere": the tablet is out too, for good; the phone goes on (issue 39.1).
            await phone.click("#sign-out-everywhere")
            await phone.wait_for_function(
                "() => /çıkış yapıldı/.test(document.querySelector('#everywhere-result').textContent)"
            )
            await phone.wait_for_function("() => document.querySelectorAll('#device-list li').length === 1")
            assert await _chips_status(tablet) == 401
            assert await _chips_status(phone) == 200

            # Deleting the account: the name typed again, then the sign-in screen with nothing
            # to continue as, and the tablet's session is over too.
            await phone.click("#account-delete summary")
            await phone.fill("#delete-confirm", "başka biri")
            await phone.click("#delete-account-submit")
            await phone.wait_for_selector("#delete-account-error:not([hidden])")
            assert "adını aynen yaz" in (await phone.text_content("#delete-account-error") or "")
            await phone.fill("#delete-confirm", "çok cihaz")
            await phone.click("#delete-account-submit")
            await phone.wait_for_selector("#screen-signin:not([hidden])", timeout=TIMEOUT_MS)
            assert "Hesabın silindi" in (await phone.text_content("#signin-error") or "")
            assert await phone.is_hidden("#signin-again")
            assert await _chips_status(tablet) == 401
        finally:
            await browser.close()
    assert not errors, errors

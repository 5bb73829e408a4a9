"""The web client's error paths in a real browser (Debian's Chromium through Playwright), on the
table, lobby, bots and gateway services as processes (private NATS), a guest at a table with bots:

- an expired access token: a call made with it is refused (BAD_TOKEN), the page renews the
  token with its refresh token and the call goes through; the watch's WebSocket opened with it
  is closed 4401 by the gateway, and the page renews the token and watches on ("Canlı");
  without a refresh token (the session ended) the 4401 signs the page out: the sign-in screen
  says the session expired;
- the network gone during a move (the browser offline): the move's toast says the server cannot
  be reached, the tile stays on the rack and the buttons come back; online again, the same move
  goes through and the watch is live;
- a move the rules refuse (finishing by discarding a tile that does not finish the hand, sent
  through the page's own command path, actions.js ``act``: no button sends it, as the buttons
  follow the view's ``allowed``): the table service refuses it with INVALID_FINISH and the
  toast names the tile as players name it, in Turkish, with no rule id or tile id in it."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import shutil
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from okeyplatform.auth import issue_token
from okeytools.stack import Stack
from refusal_codes import RULE_ID, TILE_ID
from test_browser import STATE_JS, _playwright, open_signin_page
from test_browser_refusals import _my_turn, _toast

# Every WebSocket the page opens, and how each one closed (code, reason), in window.__wsCloses.
WS_PROBE_JS = """(() => {
  const Native = window.WebSocket;
  window.__wsCloses = [];
  window.WebSocket = class extends Native {
    constructor(...a) {
      super(...a);
      this.addEventListener('close', (e) => window.__wsCloses.push([e.code, e.reason]));
    }
  };
})();"""
LIVE_JS = "() => { const t = okeyApp.state.t; return !!(t && t.view && t.live); }"
NAMES = iter("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
# The table's events after a version, as the page's seat may see them (each cut to 300 characters).
EVENTS_AFTER_JS = """async ([table, seat, after]) => {
  const { api } = await import('/api.js');
  const r = await api('TableService', 'GetEvents', {tableId: table, seat, afterVersion: after});
  return (r.events || []).map((e) => JSON.stringify(e).slice(0, 300));
}"""
# The page's own text for a reason, from its i18n module (the same strings the toast uses).
TR_JS = "async ([key, p]) => (await import('/i18n.js')).tr(key, p || {})"


@pytest.fixture(scope="module")
def services(make_module_stack: Callable[..., Stack]) -> Stack:
    env = {"OKEY_TIMEOUT_GRACE_MS": "300", "OKEY_RATE_LIMIT": "1000", "OKEY_RATE_BURST": "1000"}
    return make_module_stack(("table", "lobby", "bots", "gateway"), env=env, label="browser-errors", private_nats=True)


@pytest.fixture
async def seated(services: Stack) -> AsyncIterator[tuple[Any, Any, list[str]]]:
    """(context, page, script errors): a guest signed in at a new classic table with three bots,
    60-second turns, its watch live."""
    errors: list[str] = []
    async with _playwright()() as pw:
        ctx, page, profile = await open_signin_page(pw, errors, f"http://{services.http_address}")
        try:
            await page.add_init_script(WS_PROBE_JS)
            await page.reload()
            await page.wait_for_selector("#screen-signin:not([hidden])")
            await page.fill("#signin-name", f"Hata Testi {next(NAMES)}")  # a name is one player's
            await page.click("#signin-submit")
            await page.wait_for_selector("#screen-lobby:not([hidden])")
            await page.select_option("#create-game", "OKEY")
            await page.click("#create-more > summary")
            await page.fill("#opt-turn_seconds", "60")
            await page.fill("#opt-hand_break_seconds", "0")
            await page.click("#create-submit")
            await page.wait_for_selector("#screen-table:not([hidden])")
            await page.wait_for_function(LIVE_JS, timeout=20_000)
            yield ctx, page, errors
        finally:
            await ctx.close()
            shutil.rmtree(profile, ignore_errors=True)
    assert not errors, errors


def _claims(token: str) -> dict[str, Any]:
    body = token.split(".")[1]
    return dict(json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))))


async def _expire_token(page: Any) -> str:
    """The page's access token swapped for an expired one of the same player (the services'
    signature, ``exp`` ten seconds ago), in memory and in storage; returns it."""
    claims = _claims(await page.evaluate("() => okeyApp.state.token"))
    expired = issue_token(claims["sub"], claims["role"], ttl_s=-10, device=claims.get("dev", ""))
    await page.evaluate("(t) => { okeyApp.state.token = t; localStorage.setItem('okey.token', t); }", expired)
    return expired


async def _closes(page: Any) -> list[list[Any]]:
    return list(await page.evaluate("() => window.__wsCloses"))


@contextlib.asynccontextmanager
async def _only(page: Any, *methods: str) -> AsyncIterator[list[tuple[str, int, str]]]:
    """While inside: the page's calls other than ``methods`` and the renewal (RefreshSession)
    are held (chat, hints, chips), so that the one under test is the first to meet the token;
    yields the (method, status, reason) of each answer the page got meanwhile."""
    released = asyncio.Event()
    answers: list[tuple[str, int, str]] = []

    async def hold(route: Any) -> None:
        method = route.request.url.rsplit("/", 1)[-1]
        if method not in methods and method != "RefreshSession":
            await released.wait()
            await route.continue_()
            return
        resp = await route.fetch()
        body = await resp.json() if resp.status >= 400 else {}
        answers.append((method, resp.status, str(body.get("reason", ""))))
        await route.fulfill(response=resp)

    await page.route("**/api/**", hold)
    try:
        yield answers
    finally:
        released.set()
        await page.unroute_all(behavior="wait")


async def _answered(answers: list[tuple[str, int, str]], answer: tuple[str, int, str], timeout_s: float = 10.0) -> None:
    """Wait (bounded) until ``_only`` has recorded ``answer``: it records one when the server's
    answer reaches this side, and the watch may bring the page the move's event before that."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout_s
    while answer not in answers:
        if loop.time() > end:
            raise AssertionError(f"no {answer} among the page's answers: {answers}")
        await asyncio.sleep(0.05)


async def _drop_watch_until_4401(page: Any) -> tuple[str, int]:
    """Give the page an expired token, drop the watch (it reconnects with the token the page
    holds) and wait for the gateway's 4401 close, the page's other calls held meanwhile.
    Returns the expired token and how many closes came before. A renewal the page started
    earlier (a call held by the step before, answered 401 once released) may still land after
    the token was swapped, and the watch then reopens with a good token: swapped again, at most
    three times."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout  # installed after collection

    for _attempt in range(3):
        async with _only(page):
            expired = await _expire_token(page)
            before = len(await _closes(page))
            await page.evaluate("() => okeyApp.dropSocket()")
            try:
                await page.wait_for_function(
                    "(n) => window.__wsCloses.slice(n).some(([code]) => code === 4401)", arg=before, timeout=10_000
                )
            except PlaywrightTimeout:
                if await page.evaluate("() => okeyApp.state.token") == expired:
                    raise  # the page still holds the expired token: the 4401 really did not come
                continue  # a late renewal replaced it: swap it again
            return expired, before
    raise AssertionError("the page's token kept being renewed before the watch reopened")


async def test_an_expired_token_is_renewed_for_a_call_and_for_the_watch(seated: tuple[Any, Any, list[str]]) -> None:
    _, page, _ = seated
    # ---- a call (the turn's draw or discard) with the expired token: refused, renewed, sent again
    st = await _my_turn(page, ("STAGE_DRAW", "STAGE_DISCARD"), timeout_s=60)
    async with _only(page, "Act") as answers:
        expired = await _expire_token(page)
        if st["stage"] == "STAGE_DRAW":
            await page.click("#deck")
        else:
            await page.locator("#rack button.tile:not(.okey)").last.click()
            await page.click('[data-act="discard"]')
        await page.wait_for_function(f"() => okeyApp.version() > {st['version']}", timeout=10_000)
        # The watch may bring the move's event before the route here records the call's answer.
        await _answered(answers, ("Act", 200, ""))
    # refused for the token, renewed, the same move sent again and applied
    assert [a for a in answers if a[0] == "Act"] == [("Act", 401, "BAD_TOKEN"), ("Act", 200, "")], answers
    assert ("RefreshSession", 200, "") in answers, answers
    assert (await page.evaluate(STATE_JS))["rack"] != st["rack"]  # the move was applied
    renewed = await page.evaluate("() => okeyApp.state.token")
    assert renewed != expired and _claims(renewed)["exp"] > _claims(expired)["exp"]
    assert await page.locator("#toast").is_hidden()  # nothing to tell the player

    # ---- the watch: reopened with the expired token, closed 4401, renewed, live again
    expired, before = await _drop_watch_until_4401(page)
    await page.wait_for_function(LIVE_JS, timeout=10_000)
    assert await page.text_content("#conn") == "Canlı"
    token = await page.evaluate("() => okeyApp.state.token")
    assert token != expired and _claims(token)["exp"] > _claims(expired)["exp"]
    assert await page.evaluate("() => localStorage.getItem('okey.token')") == token
    assert await page.locator("#screen-table").is_visible()
    codes = [c for c, _ in (await _closes(page))[before:]]
    assert codes[:2] == [4000, 4401], codes  # the drop, then the gateway's refusal of the old token


async def test_an_expired_token_without_a_session_signs_the_page_out(seated: tuple[Any, Any, list[str]]) -> None:
    _, page, _ = seated
    await page.evaluate("() => localStorage.removeItem('okey.refresh')")  # the session is over
    await _drop_watch_until_4401(page)
    await page.wait_for_selector("#screen-signin:not([hidden])", timeout=10_000)
    assert await page.text_content("#signin-error") == "Oturumun süresi doldu; lütfen yeniden giriş yapın."
    assert await page.evaluate("() => okeyApp.state.token") is None
    assert await page.evaluate("() => localStorage.getItem('okey.token')") is None
    assert await page.locator("#screen-table").is_hidden()


async def test_a_move_while_offline_says_so_and_goes_through_once_online(seated: tuple[Any, Any, list[str]]) -> None:
    ctx, page, _ = seated
    await _my_turn(page, ("STAGE_DISCARD",), timeout_s=60)
    tile = page.locator("#rack button.tile:not(.okey)").last
    tile_id = await tile.get_attribute("data-tile")
    await tile.click()
    st = await page.evaluate(STATE_JS)
    await ctx.set_offline(True)
    try:
        before = await page.text_content("#toast") or ""
        await page.click('[data-act="discard"]')
        text = await _toast(page, before)
        assert text == "Sunucuya ulaşılamadı.", text
        now = await page.evaluate(STATE_JS)
        assert (now["version"], now["rack"], now["busy"]) == (st["version"], 15, False), now
        assert await page.locator(f'#rack button[data-tile="{tile_id}"]').count() == 1
        assert await page.is_enabled('[data-act="discard"]')  # not left busy
    finally:
        await ctx.set_offline(False)
    await page.wait_for_function(LIVE_JS, timeout=15_000)
    await page.click('[data-act="discard"]')
    # The discard's own event, not just a later version: an offline spell past the gateway's grace
    # also appends SeatDisconnected and SeatReconnected [D-11].
    await page.wait_for_selector(f'#rack button[data-tile="{tile_id}"]', state="detached", timeout=10_000)
    assert await page.evaluate("() => okeyApp.version()") > st["version"]
    assert (await page.evaluate(STATE_JS))["gaps"] == 0


async def test_a_refused_move_shows_the_rule_s_reason(seated: tuple[Any, Any, list[str]]) -> None:
    _, page, _ = seated
    st = await _my_turn(page, ("STAGE_DISCARD",), timeout_s=60)
    tile = await page.evaluate(
        "() => { const v = okeyApp.state.t.view; return v.rack.find((x) => x.code !== v.okey.code && x.code !== 'F'); }"
    )
    refused: list[dict[str, Any]] = []

    async def on_response(resp: Any) -> None:
        if resp.url.endswith("/api/okey.v1.TableService/Act") and resp.status >= 400:
            refused.append(await resp.json())

    page.on("response", on_response)
    before = await page.text_content("#toast") or ""
    got = await page.evaluate("async (id) => (await import('/actions.js')).act('finish', { tileId: id })", tile["id"])
    assert got is None  # the page's act gives nothing back for a refusal
    text = await _toast(page, before)
    assert refused and refused[0]["reason"] == "INVALID_FINISH", refused
    colours = {"R": "Kırmızı", "Y": "Sarı", "B": "Mavi", "K": "Siyah"}
    name = f"{colours[tile['code'][0]]} {int(tile['code'][1:])}"
    assert text == await page.evaluate(TR_JS, ["err.INVALID_FINISH.tile", {"tile": name}])
    assert text.startswith(name + " atarak bitemezsin"), text
    assert not RULE_ID.search(text) and not TILE_ID.search(text), text
    assert (await page.get_attribute("#toast", "class") or "").split() == ["toast", "error"]
    now = await page.evaluate(STATE_JS)
    if now["version"] != st["version"]:  # what moved the table meanwhile, for the failure's message
        moved = await page.evaluate(EVENTS_AFTER_JS, [now["id"], now["seat"], st["version"]])
        raise AssertionError(f"the table moved from version {st['version']} during the refusal: {moved}")
    assert now["rack"] == 15 and not now["busy"], now

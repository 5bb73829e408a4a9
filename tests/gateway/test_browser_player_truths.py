"""What the page tells a player about their own situation, in a real browser at 1366x768 (issue
40.2, 40.4, 40.5, 40.6): a one-person table says it is practice on its card and in its result; a
new guest behind a busy address is told why there are no chips, and the profile and the claim
agree; quick play says when it took the player back to a running match and leaving it works;
and an ended session stops every request and asks to sign in again ("continue as"), as leaving a
seat stops every request as that seat. Debian's Chromium through Playwright, as test_browser.py;
the stack (table, lobby, scoring, bots, gateway) is shared by the module's tests."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from okeyplatform.client import TableClient
from okeytools import stack as okeystack
from test_browser import ARTIFACTS

TIMEOUT_MS = 20_000
VIEWPORT = {"width": 1366, "height": 768}
LIVE_JS = "() => { const t = okeyApp.state.t; return t && t.view && t.live; }"


@pytest.fixture(scope="module")
def truth_stack(make_module_stack: Callable[..., okeystack.Stack]) -> okeystack.Stack:
    # Every guest signs in from 127.0.0.1: the address opens any number of accounts, and the
    # daily chips go to one account of it a day (a family's or a café's second guest gets none).
    env = {
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",
        "OKEY_DAILY_GRANTS_PER_ADDRESS": "1",
        "OKEY_BOTS_PACE": "instant",
        "OKEY_BOTS_STRATEGY": "greedy",
    }
    return make_module_stack(
        ("table", "lobby", "scoring", "bots", "gateway"), env=env, label="truths", private_nats=True
    )


@pytest.fixture
def base(truth_stack: okeystack.Stack) -> str:
    return f"http://{truth_stack.http_address}"


async def _signed_in(browser: Any, base: str, name: str, errors: list[str]) -> Any:
    ctx = await browser.new_context(viewport=VIEWPORT, locale="tr-TR")
    page = await ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(base + "/")
    await page.wait_for_selector("#screen-signin:not([hidden])")
    await page.fill("#signin-name", name)
    await page.click("#signin-submit")
    await page.wait_for_selector("#screen-lobby:not([hidden])")
    return page


async def _open_with_bots(page: Any, match_points: int = 0) -> tuple[str, int]:
    """A classic table from the create form, filled with bots: the page goes to it."""
    await page.select_option("#create-game", "OKEY")
    if match_points:
        await page.fill("#opt-match_points", str(match_points))
        await page.click("#create-more > summary")
        await page.fill("#opt-hand_break_seconds", "0")
    assert await page.is_checked("#create-fill")
    await page.click("#create-submit")
    await page.wait_for_selector("#screen-table:not([hidden])", timeout=TIMEOUT_MS)
    await page.wait_for_function(LIVE_JS, timeout=TIMEOUT_MS)
    st = await page.evaluate("() => ({id: okeyApp.state.t.id, seat: okeyApp.state.t.seat})")
    return st["id"], st["seat"]


async def _play_until_over(grpc_addr: str, token: str, table_id: str, seat: int, stop: asyncio.Event) -> None:
    """The person's seat played over gRPC with the page's token (a greedy bot's moves) to the
    match's end; the page only watches."""
    from okeycore.classic.bots import GreedyBot
    from okeyplatform.contract import seat_view_from_pb

    client = TableClient(grpc_addr, token)
    bot = GreedyBot(7)
    try:
        while not stop.is_set():
            v = seat_view_from_pb(await client.view(table_id, seat))
            if v.phase.value == "MATCH_OVER":
                return
            if v.phase.value != "PLAYING" or v.turn != seat:
                await asyncio.sleep(0.03)
                continue
            with contextlib.suppress(Exception):
                await client.act(table_id, bot.act(v))
    finally:
        await client.close()


# ------------------------------------------------------------------ 40.2 practice is named


async def test_a_one_person_table_says_practice_on_its_card_and_in_its_result(
    base: str, browser: Any, truth_stack: okeystack.Stack
) -> None:
    errors: list[str] = []
    page = await _signed_in(browser, base, "Tek Başına", errors)
    # A table opened to wait: its card says that started with bots now it is practice.
    await page.uncheck("#create-fill")
    await page.select_option("#create-game", "OKEY")
    await page.fill("#opt-match_points", "1")
    await page.click("#create-more > summary")
    await page.fill("#opt-hand_break_seconds", "0")
    await page.click("#create-submit")
    await page.wait_for_selector("#my-tables-panel:not([hidden]) article .card-practice", timeout=TIMEOUT_MS)
    said = await page.text_content("#my-tables .card-practice") or ""
    assert "antrenman" in said.lower() and "sıralamaya" in said, said
    # Started with bots: the table screen says practice.
    await page.click("#my-tables article button.primary")
    await page.wait_for_selector("#screen-table:not([hidden])", timeout=TIMEOUT_MS)
    await page.wait_for_function(LIVE_JS, timeout=TIMEOUT_MS)
    await page.wait_for_selector("#table-practice:not([hidden])", timeout=TIMEOUT_MS)
    assert "Antrenman" in (await page.text_content("#table-practice") or "")
    st = await page.evaluate("() => ({id: okeyApp.state.t.id, seat: okeyApp.state.t.seat, token: okeyApp.state.token})")

    # Before sitting: another person's lobby card of that table says practice too.
    other_errors: list[str] = []
    other = await _signed_in(browser, base, "Seyirci Bir", other_errors)
    await other.check("#include-playing")
    await other.wait_for_selector(f'#tables article[data-table="{st["id"]}"] .card-practice', timeout=TIMEOUT_MS)
    assert "Antrenman" in (await other.text_content(f'#tables article[data-table="{st["id"]}"] .card-practice') or "")

    # The match to its end (the person's seat played over gRPC): the result says practice.
    stop = asyncio.Event()
    player = asyncio.create_task(
        _play_until_over(truth_stack.address("table"), st["token"], st["id"], st["seat"], stop)
    )
    try:
        await page.wait_for_selector("#result-dialog[open] table.standings tbody tr", timeout=120_000)
        await page.wait_for_selector("#result-body .practice", timeout=TIMEOUT_MS)
        text = await page.text_content("#result-body .practice") or ""
        assert "Antrenman" in text and "sıralamaya" in text, text
        # no stake, no chips moved: the chips' part says that alone once the lobby answered, never
        # also that they are still being counted
        await page.wait_for_function(
            "() => (document.querySelector('#result-chips') || {}).textContent?.includes('jeton hareketi yok')",
            timeout=TIMEOUT_MS,
        )
        assert "hesaplanıyor" not in (await page.text_content("#result-chips") or "")
        await page.screenshot(path=str(ARTIFACTS / "practice-result.png"))
        # In English too.
        await page.click("#result-close")
        await page.click(".lang button[data-lang=en]")
        assert "Practice" in (await page.text_content("#table-practice") or "")
    finally:
        stop.set()
        await player
    assert not errors and not other_errors, errors + other_errors


async def test_40_2_create_with_bots_and_quick_play_say_practice_before_sitting(base: str, browser: Any) -> None:
    """[issue 40.2] The usual ways in say "practice" before the person sits: the create form next
    to "fill with bots" (on by default; the lobby's QuotePot counts one person) and gone without
    bots, in TR and EN; and quick play, landing alone at a table the lobby calls practice."""
    errors: list[str] = []
    page = await _signed_in(browser, base, "Önceden Bilen", errors)
    assert await page.is_checked("#create-fill")
    await page.wait_for_selector("#create-practice:not([hidden])", timeout=TIMEOUT_MS)
    said = await page.text_content("#create-practice") or ""
    assert "antrenman" in said and "sıralamaya" in said, said
    await page.screenshot(path=str(ARTIFACTS / "practice-create-form.png"))
    await page.uncheck("#create-fill")  # every seat for people: it counts
    await page.wait_for_selector("#create-practice", state="hidden", timeout=TIMEOUT_MS)
    await page.check("#create-fill")
    await page.wait_for_selector("#create-practice:not([hidden])", timeout=TIMEOUT_MS)
    await page.click(".lang button[data-lang=en]")
    assert "practice" in (await page.text_content("#create-practice") or "")
    await page.click(".lang button[data-lang=tr]")

    # Quick play opens a table where the player is alone: the page says at once that started
    # with bots it is practice (the lobby's card.practice), before any match starts there.
    await page.select_option("#quick-game", "OKEY")
    await page.select_option("#quick-stake", "0")
    async with page.expect_response(lambda r: r.url.endswith(".LobbyService/QuickPlay")) as answer:
        await page.click("#quick-play")
    r = await (await answer.value).json()
    assert r["table"].get("practice") and r["table"]["status"] == "LOBBY_TABLE_STATUS_WAITING", r
    await page.wait_for_selector("#toast:not([hidden])", timeout=TIMEOUT_MS)
    toast = await page.text_content("#toast") or ""
    assert "antrenman" in toast and "sıralamaya" in toast, toast
    assert await page.is_visible("#screen-lobby")  # not seated at a match yet
    # Leave it, so the module's other quick plays do not meet this table.
    await page.evaluate(
        "async (id) => (await import('/api.js')).api('LobbyService', 'LeaveTable', {tableId: id})",
        r["table"]["tableId"],
    )
    assert not errors, errors


# ------------------------------------------------------------------ 40.4 a coherent welcome


async def test_a_second_new_guest_behind_one_address_is_told_why_and_the_profile_and_the_claim_agree(
    base: str, browser: Any
) -> None:
    errors: list[str] = []
    await _signed_in(browser, base, "Aile Bir", errors)  # the address's grant of the day (or an earlier test's)
    page = await _signed_in(browser, base, "Aile İki", errors)
    # The welcome says at once why there are no chips, and what to do.
    await page.wait_for_selector("#welcome-note:not([hidden])", timeout=TIMEOUT_MS)
    welcome = await page.text_content("#welcome-note") or ""
    assert "0 jeton" in welcome and "bağlantıdan 1 hesaba" in welcome and "jetonsuz masalarda" in welcome, welcome
    await page.click("#profile-open")
    await page.wait_for_selector("#profile-dialog[open]")
    await page.wait_for_function(
        "() => document.querySelector('#daily-next').textContent.includes('bağlantıdan')", timeout=TIMEOUT_MS
    )
    said = await page.text_content("#daily-next") or ""
    assert "alınabilir" not in said, said  # not "can be claimed"
    assert await page.is_disabled("#daily-claim")
    # The claim, asked anyway, gives the same answer: taken, for the same reason.
    claim = await page.evaluate(
        """async () => { const r = await fetch('/api/okey.v1.LobbyService/ClaimDailyChips', {method: 'POST',
            headers: {'content-type': 'application/json', authorization: 'Bearer ' + okeyApp.state.token},
            body: '{}'}); return {status: r.status, body: await r.json()}; }"""
    )
    assert claim["status"] == 429 and claim["body"]["reason"] == "DAILY_CHIPS_TAKEN", claim
    assert "per address" in claim["body"]["message"], claim
    player = await page.evaluate(
        """async () => (await (await fetch('/api/okey.v1.LobbyService/GetPlayer', {method: 'POST',
            headers: {'content-type': 'application/json', authorization: 'Bearer ' + okeyApp.state.token},
            body: '{}'})).json()).player"""
    )
    assert player["dailyChipsReason"] == "ADDRESS" and player["dailyChipsLimit"] == 1, player
    await page.screenshot(path=str(ARTIFACTS / "welcome-no-chips.png"))
    await page.click("#profile-close")
    await page.click(".lang button[data-lang=en]")
    await page.click("#profile-open")
    await page.wait_for_function(
        "() => document.querySelector('#daily-next').textContent.includes('network')", timeout=TIMEOUT_MS
    )
    assert not errors, errors


# ------------------------------------------------------------------ 40.5 quick play says what it does


async def test_quick_play_while_seated_elsewhere_says_so_and_leaving_plays_as_asked(base: str, browser: Any) -> None:
    errors: list[str] = []
    page = await _signed_in(browser, base, "Hızlı Dönen", errors)
    running, _ = await _open_with_bots(page)
    await page.click("#back-lobby")
    await page.wait_for_selector("#screen-lobby:not([hidden])")
    await page.select_option("#quick-game", "OKEY101")
    await page.select_option("#quick-stake", "0")
    async with page.expect_response(lambda r: r.url.endswith(".LobbyService/QuickPlay")) as answer:
        await page.click("#quick-play")
    first = await (await answer.value).json()
    assert first.get("returnedToSeat") == "IN_PLAY" and first["table"]["tableId"] == running, first
    # The page says so: the running table, its game, and that leaving loses the stake.
    await page.wait_for_selector("#quick-return-dialog[open]", timeout=TIMEOUT_MS)
    text = await page.text_content("#quick-return-text") or ""
    assert "Hızlı oyun seni" in text and "Okey" in text and "kaybedilir" in text, text
    assert await page.is_visible("#screen-lobby")  # not taken to the table without a word
    await page.screenshot(path=str(ARTIFACTS / "quick-play-returned.png"))
    # Leaving it: LeaveTable, then quick play as asked (a 101 table, waiting for people).
    async with page.expect_response(lambda r: r.url.endswith(".LobbyService/QuickPlay")) as answer:
        await page.click("#quick-return-leave")
    second = await (await answer.value).json()
    assert not second.get("returnedToSeat") and second["table"]["game"] == "GAME_OKEY101", second
    await page.wait_for_selector(f'#my-tables article[data-table="{second["table"]["tableId"]}"]', timeout=TIMEOUT_MS)
    mine = await page.evaluate("() => okeyApp.state.myTables.map((t) => t.tableId)")
    assert mine == [second["table"]["tableId"]], mine  # the left match is not the player's any more
    assert not errors, errors


# ------------------------------------------------------------------ 40.6 a dead session ends cleanly


def _api_call(url: str) -> str:
    return url.split("/api/", 1)[1] if "/api/" in url else ""


async def test_an_ended_session_stops_every_request_and_asks_to_sign_in_again(base: str, browser: Any) -> None:
    errors: list[str] = []
    page = await _signed_in(browser, base, "Oturum Biten", errors)
    await page.wait_for_function("() => /\\d/.test(document.querySelector('#who-chips').textContent)")
    log: list[tuple[float, str, str, int]] = []  # (when, "req"/"resp", the call, status)
    page.on(
        "request", lambda r: log.append((time.monotonic(), "req", _api_call(r.url), 0)) if _api_call(r.url) else None
    )
    page.on(
        "response",
        lambda r: log.append((time.monotonic(), "resp", _api_call(r.url), r.status)) if _api_call(r.url) else None,
    )
    token = await page.evaluate("() => okeyApp.state.token")
    # Signed out from elsewhere: every token and session of the account ends.
    async with httpx.AsyncClient() as http:
        r = await http.post(
            f"{base}/api/okey.v1.LobbyService/SignOut", json={}, headers={"authorization": f"Bearer {token}"}
        )
        assert r.status_code == 200, r.text
    # The page's next poll is refused; the session cannot renew: the sign-in page, "continue as".
    await page.wait_for_selector("#screen-signin:not([hidden])", timeout=30_000)
    await page.wait_for_selector("#signin-again:not([hidden])")
    assert "Oturum Biten" in (await page.text_content("#signin-again-go") or "")
    ended = next(
        i
        for i, (_, kind, call, status) in enumerate(log)
        if kind == "resp" and call.endswith("/RefreshSession") and status >= 400
    )
    await page.wait_for_timeout(8000)  # the lobby polls every 5 s, its chat every 2.5 s, the chips every 15 s
    after = [call for _, kind, call, _ in log[ended + 1 :] if kind == "req"]
    assert after == [], f"requests after the session ended: {after}"
    # Continue as: the same account, with no further trouble.
    await page.click("#signin-again-go")
    await page.wait_for_selector("#screen-lobby:not([hidden])", timeout=TIMEOUT_MS)
    assert not errors, errors


def _as_seat(r: Any) -> bool:
    """A request made as a seat of a table: hints, or a view or events of that seat."""
    call = _api_call(r.url)
    if call.endswith("/GetHints"):
        return True
    if call.endswith(("/GetView", "/GetEvents")):
        with contextlib.suppress(Exception):
            return "seat" in json.loads(r.post_data or "{}")
    return False


async def test_after_leaving_a_seat_the_page_asks_nothing_as_that_seat(base: str, browser: Any) -> None:
    errors: list[str] = []
    page = await _signed_in(browser, base, "Masadan Kalkan", errors)
    table_id, _ = await _open_with_bots(page)
    as_seat: list[tuple[float, str]] = []
    page.on("request", lambda r: as_seat.append((time.monotonic(), _api_call(r.url))) if _as_seat(r) else None)
    page.on("websocket", lambda ws: as_seat.append((time.monotonic(), ws.url)) if "seat=" in ws.url else None)
    page.on("dialog", lambda d: asyncio.ensure_future(d.accept()))  # "leave the match?": yes
    await page.wait_for_selector('[data-act="leave_seat"]:not([disabled])', timeout=TIMEOUT_MS)
    async with page.expect_response(lambda r: r.url.endswith(".TableService/Act")) as left:
        await page.click('[data-act="leave_seat"]')
    assert (await left.value).ok
    gone = time.monotonic()
    await page.wait_for_selector("#screen-lobby:not([hidden])", timeout=TIMEOUT_MS)
    await page.wait_for_timeout(5000)  # the bots play the seat on, instantly
    after = [call for t, call in as_seat if t > gone]
    assert after == [], f"requests as the left seat: {after}"
    # Opening the table again watches it as a spectator, asking nothing as the seat.
    await page.evaluate("(id) => { location.hash = '#/table/' + id; }", table_id)
    await page.wait_for_selector("#screen-table:not([hidden])", timeout=TIMEOUT_MS)
    await page.wait_for_function("() => { const t = okeyApp.state.t; return t && t.view; }", timeout=TIMEOUT_MS)
    await page.wait_for_timeout(1500)
    assert await page.evaluate("() => okeyApp.state.t.seat") is None
    after = [call for t, call in as_seat if t > gone]
    assert after == [], f"requests as the left seat: {after}"
    assert not errors, errors

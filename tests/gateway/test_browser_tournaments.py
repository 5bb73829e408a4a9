"""The tournaments page in a real browser (issue 45.3): an admin creates a sit-and-go of eight with
a small entry fee through the lobby's API; a player finds it from the lobby's "Turnuvalar" among
the upcoming ones (its game, format, size, fee, "Dolunca başlar" and the prize table as the server
gives it), opens it and registers through a dialog that states the fee and their chips; the top
bar's chips drop by the fee, as the lobby's answer says. Unregistering gives the fee back, and the
player registers again. Seven more people register through the API: the open page (it polls
GetTournament and redraws only when the version changed) shows the tournament running with round
1's two tables, the notification's toast says "Turnuva masan hazır.", and "Masana git" opens the
player's seat at their table. The poll stops when the page is left. axe-core on the list and the
detail. Debian's Chromium through Playwright, as test_browser.py; screenshots go to artifacts/."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from names import unique_name
from okeyplatform.auth import issue_token
from okeytools import stack as okeystack
from test_browser import ARTIFACTS
from test_browser_phone import _axe

TIMEOUT_MS = 15_000
FEE = 50
SIZE = 8
LOBBY = "/api/okey.v1.LobbyService/"


@pytest.fixture(scope="module")
def tn_stack(make_module_stack: Callable[..., okeystack.Stack]) -> okeystack.Stack:
    # Every guest signs in from 127.0.0.1 (nine of them): the per-address quotas are lifted.
    env = {
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",
        "OKEY_DAILY_GRANTS_PER_ADDRESS": "0",
    }
    return make_module_stack(
        ("table", "lobby", "scoring", "bots", "gateway"), env=env, label="tournaments-web", private_nats=True
    )


@pytest.fixture
async def http(tn_stack: okeystack.Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=f"http://{tn_stack.http_address}", timeout=10) as client:
        yield client


async def _ok(http: httpx.AsyncClient, method: str, body: dict[str, Any], token: str) -> dict[str, Any]:
    r = await http.post(LOBBY + method, json=body, headers={"authorization": f"Bearer {token}"})
    assert r.status_code == 200, (method, r.text)
    out: dict[str, Any] = r.json()
    return out


async def _guest(http: httpx.AsyncClient, first: str) -> str:
    """A new guest's token."""
    r = await http.post(
        LOBBY + "SignInGuest", json={"displayName": unique_name(first), "deviceId": f"dev-{uuid.uuid4()}"}
    )
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


async def _chips(page: Any) -> int:
    await page.wait_for_function("() => /\\d/.test(document.querySelector('#who-chips').textContent)")
    return int(re.sub(r"\D", "", await page.text_content("#who-chips") or ""))


async def test_45_3_a_player_registers_for_a_sit_and_go_and_finds_their_table(
    browser: Any, tn_stack: okeystack.Stack, http: httpx.AsyncClient
) -> None:
    base = f"http://{tn_stack.http_address}"
    admin = issue_token("cli:test", "admin", ttl_s=300)
    name = unique_name("Akşam Kupası")
    created = await _ok(
        http,
        "CreateTournament",
        {
            "spec": {
                "name": name,
                "options": {"game": "GAME_OKEY"},
                "size": SIZE,
                "entryFee": FEE,
                "format": "TOURNAMENT_FORMAT_KNOCKOUT",
            }
        },
        admin,
    )
    tid = created["tournament"]["tournamentId"]

    # bypass_csp: the page's CSP (script-src 'self') would refuse the injected axe-core script.
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900}, locale="tr-TR", bypass_csp=True)
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    polls: list[str] = []
    page.on("request", lambda r: polls.append(r.url) if r.url.endswith("/GetTournament") else None)
    await page.goto(base + "/")
    await page.wait_for_selector("#screen-signin:not([hidden])")
    me_name = unique_name("Turnuvacı")
    await page.fill("#signin-name", me_name)
    await page.click("#signin-submit")
    await page.wait_for_selector("#screen-lobby:not([hidden])")
    await page.wait_for_function("() => okeyApp.notificationsLive()", timeout=TIMEOUT_MS)
    token = str(await page.evaluate("() => okeyApp.state.token"))
    me = str(await page.evaluate("() => okeyApp.state.me.id"))
    start_chips = await _chips(page)
    assert start_chips >= FEE

    # ---- the lobby's "Turnuvalar": the list, the sit-and-go among the upcoming ones
    assert (await page.text_content("#tournaments-open") or "").strip() == "Turnuvalar"
    await page.click("#tournaments-open")
    await page.wait_for_selector("#screen-tournaments:not([hidden])")
    assert page.url.endswith("#/tournaments")
    card = page.locator(f'#tn-upcoming article[data-tournament="{tid}"]')
    await card.wait_for(timeout=TIMEOUT_MS)
    shown = await _ok(http, "GetTournament", {"tournamentId": tid}, token)
    t = shown["tournament"]
    text = await card.text_content() or ""
    for part in (
        name,
        "Okey",
        "Eleme",
        f"0/{SIZE} kayıtlı",
        f"Giriş ücreti {FEE} jeton",
        "Dolunca başlar",
        "Kayıt açık",
    ):
        assert part in text, (part, text)
    prizes = [int(p) for p in t.get("prizes", [])]
    assert prizes, t  # the server's table: the page shows it as it is
    drawn = await card.locator(".tn-prize-list li").evaluate_all("els => els.map(e => Number(e.dataset.prize))")
    assert drawn == prizes
    await _axe(page, "the tournaments list")
    await page.screenshot(path=str(ARTIFACTS / "tournaments-list.png"))

    # ---- the detail: register through the dialog that states the fee and the chips
    await card.get_by_role("button", name="Ayrıntılar").click()
    await page.wait_for_selector(f'#tn-detail[data-tournament="{tid}"][data-status="REGISTERING"]', timeout=TIMEOUT_MS)
    assert page.url.endswith(f"#/tournament/{tid}")
    assert await page.evaluate("() => okeyApp.tournamentPolling()")
    await page.click("#tn-register")
    await page.wait_for_selector("#tn-dialog[open]", timeout=TIMEOUT_MS)
    assert await page.text_content("#tn-dialog-text") == f"Giriş ücreti {FEE} jeton. Kayıt olunsun mu?"
    said = await page.text_content("#tn-dialog-chips") or ""
    assert str(start_chips) in said and str(start_chips - FEE) in said, said
    async with page.expect_response(lambda r: r.url.endswith("/RegisterTournament")) as answer:
        await page.click("#tn-dialog-ok")
    registered = await (await answer.value).json()
    assert (await answer.value).ok, registered
    balance = int(registered.get("balance", 0))
    assert balance == start_chips - FEE
    await page.wait_for_selector("#tn-unregister", timeout=TIMEOUT_MS)
    await page.wait_for_function(
        "(n) => document.querySelector('#who-chips').textContent.replace(/\\D/g, '') === String(n)",
        arg=balance,
        timeout=TIMEOUT_MS,
    )
    await page.wait_for_selector(f'#tn-detail .tn-standings tr[data-player="{me}"]', timeout=TIMEOUT_MS)
    # the sent fee is the fee shown
    body = (await answer.value).request.post_data_json
    assert int(body["entryFee"]) == FEE and body["tournamentId"] == tid

    # Nothing happens for a while: the page polls but does not redraw (the version is the same).
    draws = await page.get_attribute("#tn-detail", "data-draws")
    asked = len(polls)
    await page.wait_for_timeout(4_500)
    assert len(polls) >= asked + 2, "the open page polls GetTournament every ~2 s"
    assert await page.get_attribute("#tn-detail", "data-draws") == draws

    # ---- unregister before the start: the fee comes back; then register again
    await page.click("#tn-unregister")
    await page.wait_for_selector("#tn-register", timeout=TIMEOUT_MS)
    assert await _chips(page) == start_chips
    await page.click("#tn-register")
    await page.wait_for_selector("#tn-dialog[open]", timeout=TIMEOUT_MS)
    await page.click("#tn-dialog-ok")
    await page.wait_for_selector("#tn-unregister", timeout=TIMEOUT_MS)
    assert await _chips(page) == start_chips - FEE
    await _axe(page, "a tournament, registered")
    await page.screenshot(path=str(ARTIFACTS / "tournaments-registered.png"))

    # ---- seven more people register through the API: the sit-and-go fills and starts
    for i in range(SIZE - 1):
        other = await _guest(http, f"Oyuncu {chr(ord('A') + i)}")
        await _ok(http, "RegisterTournament", {"tournamentId": tid, "entryFee": FEE}, other)
    await page.wait_for_selector('#tn-detail[data-status="RUNNING"]', timeout=TIMEOUT_MS)
    await page.wait_for_selector('#tn-detail .tn-round[data-round="1"] .tn-table', timeout=TIMEOUT_MS)
    running = (await _ok(http, "GetTournament", {"tournamentId": tid}, token))["tournament"]
    (round1,) = [r for r in running.get("roundsPlayed", []) if int(r.get("round", 0)) == 1]
    tables = round1["tables"]
    assert len(tables) == 2
    drawn_tables = await page.locator('#tn-detail .tn-round[data-round="1"] .tn-table').evaluate_all(
        "els => els.map(e => [e.dataset.table,"
        " Array.from(e.querySelectorAll('.tn-seats li')).map(l => l.dataset.player)])"
    )
    assert drawn_tables == [[tb["tableId"], list(tb.get("playerIds", []))] for tb in tables]
    my_table = running["myTableId"]
    (mine,) = [tb for tb in tables if me in tb.get("playerIds", [])]
    assert mine["tableId"] == my_table
    go = page.locator("#tn-my-table")
    await go.wait_for(timeout=TIMEOUT_MS)
    assert (await go.text_content() or "").strip() == "Masana git"
    assert await go.get_attribute("data-table") == my_table
    # every standings line is the server's, in its order
    rows = await page.locator("#tn-detail .tn-standings tbody tr").evaluate_all("els => els.map(e => e.dataset.player)")
    assert rows == [e["playerId"] for e in running.get("standings", [])]
    assert len(rows) == SIZE

    # the notification: the tournament's table is ready
    toast = page.locator(f'.notice-toast.tournament[data-tournament="{tid}"]')
    await toast.wait_for(timeout=TIMEOUT_MS)
    assert "Turnuva masan hazır." in (await toast.text_content() or "")
    await toast.get_by_role("button", name="Masana git").wait_for()
    await page.screenshot(path=str(ARTIFACTS / "tournaments-running.png"))

    # ---- "Masana git": the player's seat at their table; the poll stops
    seat = list(mine["playerIds"]).index(me)
    await go.click()
    await page.wait_for_selector("#screen-table:not([hidden])", timeout=TIMEOUT_MS)
    assert page.url.endswith(f"#/table/{my_table}/{seat}"), page.url
    await page.wait_for_function("() => !okeyApp.tournamentPolling()", timeout=5_000)
    assert not errors, errors
    await ctx.close()


def _finished(version: int) -> dict[str, Any]:
    """A finished knockout of eight as GetTournament would answer (drawn, never computed)."""
    ids = [f"p{i}" for i in range(8)]

    def entry(i: int, **kw: Any) -> dict[str, Any]:
        return {"playerId": ids[i], "displayName": f"Oyuncu {i}", "seed": i + 1, **kw}

    return {
        "tournamentId": "tn-drawn",
        "spec": {
            "name": "Pazar Kupası",
            "options": {"game": "GAME_OKEY101"},
            "size": 8,
            "entryFee": "20",
            "format": "TOURNAMENT_FORMAT_KNOCKOUT",
        },
        "status": "TOURNAMENT_STATUS_FINISHED",
        "registered": 8,
        "pool": "160",
        "prizes": ["77", "33", "11"],
        "round": 2,
        "rounds": 2,
        "version": str(version),
        "standings": [
            entry(0, place=1, matchPoints=6, score=40, firsts=2, prize="77"),
            entry(1, place=2, matchPoints=5, score=31, prize="33"),
            entry(2, place=3, matchPoints=3, score=20, prize="11"),
            entry(3, place=4, matchPoints=2, score=9),
            entry(4, place=5, matchPoints=1, score=5, outInRound=1),
            entry(5, place=6, outInRound=1),
            entry(6, place=7, outInRound=1, withdrew=True),
            entry(7, place=8, outInRound=1),
        ],
        "roundsPlayed": [
            {
                "round": 1,
                "ended": True,
                "tables": [
                    {
                        "round": 1,
                        "index": 0,
                        "tableId": "tn-drawn-1-0",
                        "playerIds": [ids[0], ids[4], ids[2], ids[6]],
                        "finished": True,
                        "places": [1, 3, 2, 4],
                        "scores": [30, 5, 12, 0],
                    },
                    {
                        "round": 1,
                        "index": 1,
                        "tableId": "tn-drawn-1-1",
                        "playerIds": [ids[1], ids[5], ids[3], ids[7]],
                        "finished": True,
                        "places": [1, 3, 2, 4],
                        "scores": [21, 0, 9, 0],
                    },
                ],
            },
            {
                "round": 2,
                "ended": True,
                "tables": [
                    {
                        "round": 2,
                        "index": 0,
                        "tableId": "tn-drawn-2-0",
                        "playerIds": [ids[0], ids[1], ids[2], ""],
                        "finished": True,
                        "places": [1, 2, 3, 4],
                        "scores": [10, 10, 8, 3],
                    }
                ],
            },
        ],
        "startedAt": "2026-12-06T18:00:00Z",
        "finishedAt": "2026-12-06T19:10:00Z",
    }


async def test_45_3_a_finished_tournament_is_drawn_as_the_server_says_and_the_poll_stops(
    browser: Any, tn_stack: okeystack.Stack
) -> None:
    """The page draws GetTournament's answer as it is (places, out and withdrew marks, each
    table's places and scores, a bot's seat), redraws only when the version changes, stops
    polling while the tab is hidden and when the page is left; the answer is the test's own."""
    base = f"http://{tn_stack.http_address}"
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900}, locale="tr-TR", bypass_csp=True)
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    answer = {"version": 7, "asked": 0}

    async def fake(route: Any) -> None:
        answer["asked"] += 1
        await route.fulfill(json={"tournament": _finished(answer["version"])})

    await page.route("**/okey.v1.LobbyService/GetTournament", fake)
    await page.goto(base + "/")
    await page.wait_for_selector("#screen-signin:not([hidden])")
    await page.fill("#signin-name", unique_name("Seyirci"))
    await page.click("#signin-submit")
    await page.wait_for_selector("#screen-lobby:not([hidden])")
    await page.screenshot(path=str(ARTIFACTS / "tournaments-lobby.png"))
    await page.goto(base + "/#/tournament/tn-drawn")
    detail = page.locator('#tn-detail[data-tournament="tn-drawn"][data-status="FINISHED"]')
    await detail.wait_for(timeout=TIMEOUT_MS)
    t = _finished(7)
    rows = await page.locator("#tn-detail .tn-standings tbody tr").evaluate_all(
        "els => els.map(e => [e.dataset.player, e.dataset.place, e.dataset.prize,"
        " Array.from(e.children).map(c => c.textContent.trim())])"
    )
    assert [r[:3] for r in rows] == [
        [e["playerId"], str(e["place"]), str(int(e.get("prize", 0)))] for e in t["standings"]
    ]
    assert rows[0][3] == ["1", "Oyuncu 0", "6", "40", "77 jeton", ""]
    assert rows[4][3][-1] == "1. turda elendi"
    assert rows[6][3][-1] == "Çekildi"
    assert rows[7][3][4] == "—"
    prizes = await page.locator("#tn-detail .tn-prize-list li").evaluate_all("els => els.map(e => e.textContent)")
    assert prizes == ["1. sıra: 77 jeton", "2. sıra: 33 jeton", "3. sıra: 11 jeton"]
    final = page.locator('#tn-detail .tn-round[data-round="2"] .tn-table[data-table="tn-drawn-2-0"] .tn-seats li')
    seats = await final.evaluate_all("els => els.map(e => [e.dataset.place, e.textContent.trim()])")
    assert seats == [
        ["1", "1. Oyuncu 0 · skor 10"],
        ["2", "2. Oyuncu 1 · skor 10"],
        ["3", "3. Oyuncu 2 · skor 8"],
        ["4", "4. Bot · skor 3"],
    ], seats
    text = await page.text_content("#tn-detail") or ""
    assert "Okey 101" in text and "Bitti" in text and "Giriş ücreti 20 jeton" in text, text
    assert not await page.locator("#tn-register, #tn-unregister, #tn-my-table").count()
    await _axe(page, "a finished tournament")
    await page.screenshot(path=str(ARTIFACTS / "tournaments-finished.png"), full_page=True)

    # The same version again: no redraw; a new one: drawn.
    asked = answer["asked"]
    await page.wait_for_timeout(4_500)
    assert answer["asked"] >= asked + 2
    assert await detail.get_attribute("data-draws") == "1"
    answer["version"] = 8
    await page.wait_for_selector('#tn-detail[data-version="8"]', timeout=5_000)
    assert await detail.get_attribute("data-draws") == "2"

    # A hidden tab does not poll; shown again, it does.
    await page.evaluate(
        "(hidden) => { Object.defineProperty(document, 'hidden', {value: hidden, configurable: true});"
        " document.dispatchEvent(new Event('visibilitychange')); }",
        True,
    )
    assert not await page.evaluate("() => okeyApp.tournamentPolling()")
    asked = answer["asked"]
    await page.wait_for_timeout(3_000)
    assert answer["asked"] == asked
    await page.evaluate(
        "(hidden) => { Object.defineProperty(document, 'hidden', {value: hidden, configurable: true});"
        " document.dispatchEvent(new Event('visibilitychange')); }",
        False,
    )
    assert await page.evaluate("() => okeyApp.tournamentPolling()")

    # In English too; then back to the lobby: the poll stops.
    await page.click(".lang button[data-lang=en]")
    text = await page.text_content("#tn-detail") or ""
    assert "Withdrew" in text and "Out in round 1" in text and "Place 1: 77 chips" in text, text
    await page.click("#tn-back")
    await page.wait_for_selector("#screen-lobby:not([hidden])")
    await page.wait_for_function("() => !okeyApp.tournamentPolling()", timeout=3_000)
    assert not errors, errors
    await ctx.close()

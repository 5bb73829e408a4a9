"""Sitting down with people in a real browser (issue 18.2-18.4): two browser contexts (two
guests, two devices) join a private table by its invite code and its share link, quick play
seats the second person at the first person's waiting table, and every stake is confirmed in a
dialog that shows the chips. Debian's Chromium through Playwright, as test_browser.py; the stack
(table, lobby, scoring, gateway) is shared by the module's tests. Screenshots go to artifacts/."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from okeytools import stack as okeystack
from test_browser import ARTIFACTS

TIMEOUT_MS = 15_000


@pytest.fixture(scope="module")
def seat_stack(make_module_stack: Callable[..., okeystack.Stack]) -> okeystack.Stack:
    # Every guest signs in from 127.0.0.1: the per-address quotas of accounts and grants are lifted.
    env = {
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",
        "OKEY_DAILY_GRANTS_PER_ADDRESS": "0",
    }
    return make_module_stack(("table", "lobby", "scoring", "gateway"), env=env, label="seating", private_nats=True)


@pytest.fixture
def base(seat_stack: okeystack.Stack) -> str:
    return f"http://{seat_stack.http_address}"


async def two_at_a_private_table(browser: Any, base: str, host: str, guest: str) -> tuple[Person, Person, str]:
    """``host`` opens a private table without a stake or bots and ``guest`` joins it by its
    invite code; both see the guest on the host's card. Returns (host, guest, table id); the
    table is not started."""
    first = await Person.sign_in(browser, base, host)
    page = first.page
    await page.select_option("#create-visibility", "TABLE_VISIBILITY_PRIVATE")
    await page.uncheck("#create-fill")
    await page.click("#create-submit")
    await page.wait_for_selector("#my-tables-panel:not([hidden]) .invite-code", timeout=TIMEOUT_MS)
    code = (await page.text_content("#my-tables .invite-code") or "").replace(" ", "").strip()
    (table,) = await first.my_tables()
    table_id = table["tableId"]
    second = await Person.sign_in(browser, base, guest)
    await second.page.fill("#code-input", code)
    await second.page.click("#code-submit")
    await second.page.wait_for_selector(f'#my-tables article[data-table="{table_id}"]', timeout=TIMEOUT_MS)
    await page.wait_for_function(
        "(name) => document.querySelector('#my-tables').textContent.includes(name)", arg=guest, timeout=TIMEOUT_MS
    )
    return first, second, table_id


class Person:
    """One guest in a browser context of their own (their own storage, so their own device id)."""

    def __init__(self, page: Any, base: str) -> None:
        self.page = page
        self.base = base
        self.errors: list[str] = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    @classmethod
    async def sign_in(cls, browser: Any, base: str, name: str, path: str = "/") -> Person:
        ctx = await browser.new_context(viewport={"width": 1280, "height": 900}, locale="tr-TR")
        p = cls(await ctx.new_page(), base)
        await p.page.goto(base + path)
        await p.page.wait_for_selector("#screen-signin:not([hidden])")
        await p.page.fill("#signin-name", name)
        await p.page.click("#signin-submit")
        await p.page.wait_for_selector("#screen-lobby:not([hidden])")
        return p

    async def chips_shown(self) -> int:
        await self.page.wait_for_function("() => /\\d/.test(document.querySelector('#who-chips').textContent)")
        text = await self.page.text_content("#who-chips") or ""
        return int(re.sub(r"\D", "", text))

    async def confirm_stake(self, stake: int, chips: int) -> None:
        """The stake dialog is open and says the stake, the chips now and after; confirm it."""
        await self.page.wait_for_selector("#stake-dialog[open]", timeout=TIMEOUT_MS)
        assert str(stake) in (await self.page.text_content("#stake-amount") or "")
        said = await self.page.text_content("#stake-chips") or ""
        assert str(chips) in said and str(chips - stake) in said, said
        await self.page.click("#stake-ok")
        await self.page.wait_for_selector("#stake-dialog[open]", state="detached")

    async def my_tables(self) -> list[dict[str, Any]]:
        return list(await self.page.evaluate("() => okeyApp.state.myTables || []"))


async def test_two_browsers_join_a_private_table_by_its_code_and_its_share_link(base: str, browser: Any) -> None:
    ayse = await Person.sign_in(browser, base, "Ayşe Özel")
    page = ayse.page
    # ---- a private table with a stake, without bots: confirmed, then its waiting room with the code
    await page.select_option("#create-visibility", "TABLE_VISIBILITY_PRIVATE")
    await page.uncheck("#create-fill")
    await page.fill("#opt-stake", "50")
    await page.click("#create-submit")
    await ayse.confirm_stake(50, 1000)
    await page.wait_for_selector("#my-tables-panel:not([hidden]) .invite-code", timeout=TIMEOUT_MS)
    shown = (await page.text_content("#my-tables .invite-code") or "").strip()
    assert re.fullmatch(r"[A-Z2-9]{4} [A-Z2-9]{4} [A-Z2-9]{4}", shown), shown  # in groups of four
    code = shown.replace(" ", "")
    link = await page.input_value("#my-tables .share-link")
    assert link.endswith(f"#/join/{code}")
    assert await page.input_value("#opt-stake") == "0"  # the stake is not kept for the next table
    (table,) = await ayse.my_tables()
    # Not listed for anyone: the public list has no private table.
    assert table["tableId"] not in (await page.text_content("#tables") or "")

    # ---- Barış types the code (lower case, with a dash) into "join with code"
    baris = await Person.sign_in(browser, base, "Barış Kod")
    await baris.page.fill("#code-input", f"{code[:5].lower()}-{code[5:]}")
    await baris.page.click("#code-submit")
    await baris.confirm_stake(50, 1000)
    await baris.page.wait_for_selector(f'#my-tables article[data-table="{table["tableId"]}"]', timeout=TIMEOUT_MS)
    assert "Ayşe Özel" in (await baris.page.text_content("#my-tables") or "")

    # ---- Cem opens the share link signed out: the sign-in comes first, then the same table
    cem = await Person.sign_in(browser, base, "Cem Link", path="/#/join/" + code)
    await cem.confirm_stake(50, 1000)
    await cem.page.wait_for_selector(f'#my-tables article[data-table="{table["tableId"]}"]', timeout=TIMEOUT_MS)

    # ---- the creator's waiting room fills, by name
    await page.wait_for_function(
        "() => ['Barış Kod', 'Cem Link'].every((n) => document.querySelector('#my-tables').textContent.includes(n))",
        timeout=TIMEOUT_MS,
    )
    assert "3/4" in (await page.text_content("#my-tables") or "")
    await page.screenshot(path=str(ARTIFACTS / "private-table.png"), full_page=True)
    # At phone width the waiting room and its share link fit the screen.
    await page.set_viewport_size({"width": 390, "height": 844})
    box = await page.locator("#my-tables-panel").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    await page.locator("#my-tables-panel").screenshot(path=str(ARTIFACTS / "private-table-phone.png"))
    await page.set_viewport_size({"width": 1280, "height": 900})

    # ---- the creator starts with a bot: all three go to the table; the chips follow the held stake
    await page.click(f'#my-tables article[data-table="{table["tableId"]}"] button.primary')
    for who in (ayse, baris, cem):
        await who.page.wait_for_selector("#screen-table:not([hidden])", timeout=TIMEOUT_MS)
        await who.page.wait_for_function(
            "() => /950/.test(document.querySelector('#who-chips').textContent)", timeout=20_000
        )
    await baris.page.reload()
    await baris.page.wait_for_selector("#screen-table:not([hidden]), #screen-lobby:not([hidden])")
    assert await baris.chips_shown() == 950  # after a reload too
    for who in (ayse, baris, cem):
        assert not who.errors, who.errors


async def test_quick_play_seats_the_second_person_at_the_first_persons_waiting_table(base: str, browser: Any) -> None:
    first = await Person.sign_in(browser, base, "Deniz Hızlı")
    await first.page.select_option("#quick-game", "OKEY")
    await first.page.select_option("#quick-stake", "100")
    await first.page.click("#quick-play")
    await first.confirm_stake(100, 1000)
    await first.page.wait_for_selector("#my-tables-panel:not([hidden]) article", timeout=TIMEOUT_MS)
    (waiting,) = await first.my_tables()
    assert waiting["status"] == "LOBBY_TABLE_STATUS_WAITING"
    assert await first.page.input_value("#quick-stake") == "0"  # not kept for the next sit

    second = await Person.sign_in(browser, base, "Ece Hızlı")
    await second.page.select_option("#quick-game", "OKEY")
    await second.page.select_option("#quick-stake", "100")
    await second.page.click("#quick-play")
    await second.confirm_stake(100, 1000)
    await second.page.wait_for_selector(f'#my-tables article[data-table="{waiting["tableId"]}"]', timeout=TIMEOUT_MS)
    (joined,) = await second.my_tables()
    assert joined["tableId"] == waiting["tableId"]
    assert [s.get("displayName") for s in joined["seats"] if s.get("playerId")] == ["Deniz Hızlı", "Ece Hızlı"]
    # The first person's waiting room shows the second.
    await first.page.wait_for_function(
        "() => document.querySelector('#my-tables').textContent.includes('Ece Hızlı')", timeout=TIMEOUT_MS
    )
    # Asking again keeps the seat: no second table. The lobby's answer says so (the table it
    # seats at, not one opened), read when it comes rather than 500 ms later.
    await second.page.select_option("#quick-stake", "100")
    await second.page.click("#quick-play")
    async with second.page.expect_response(lambda r: r.url.endswith(".LobbyService/QuickPlay")) as answer:
        await second.confirm_stake(100, 1000)
    again = await (await answer.value).json()
    assert not again.get("opened") and again["table"]["tableId"] == waiting["tableId"], again
    await second.page.wait_for_function("() => document.querySelector('#quick-stake').value === '0'")
    assert [t["tableId"] for t in await second.my_tables()] == [waiting["tableId"]]
    await second.page.screenshot(path=str(ARTIFACTS / "quick-play.png"), full_page=True)
    assert not first.errors and not second.errors, first.errors + second.errors


async def test_the_stake_is_confirmed_before_sitting_and_the_profile_is_one_click_away(base: str, browser: Any) -> None:
    me = await Person.sign_in(browser, base, "Fikret Jeton")
    page = me.page
    opens: list[str] = []  # every call that opens a table, counted as the page sends it
    page.on("request", lambda r: opens.append(r.url) if re.search(r"/(OpenTable|CreateTable)$", r.url) else None)
    assert await me.chips_shown() == 1000
    await page.uncheck("#create-fill")
    await page.fill("#opt-stake", "100")
    await page.click("#create-submit")
    await page.wait_for_selector("#stake-dialog[open]")
    said = await page.text_content("#stake-dialog") or ""
    assert "100" in said and "1000" in said and "900" in said, said
    await page.screenshot(path=str(ARTIFACTS / "stake-confirm.png"), full_page=False)
    # Cancelled: no table is opened (no call sent: counted below, once the confirmed one is in).
    await page.click("#stake-cancel")
    await page.wait_for_selector("#stake-dialog[open]", state="detached")
    assert await me.my_tables() == [] and await page.is_hidden("#my-tables-panel")
    # A stake beyond the chips cannot be confirmed.
    await page.fill("#opt-stake", "5000")
    await page.click("#create-submit")
    await page.wait_for_selector("#stake-dialog[open]")
    assert await page.is_disabled("#stake-ok") and "5000" in (await page.text_content("#stake-chips") or "")
    await page.keyboard.press("Escape")
    await page.wait_for_selector("#stake-dialog[open]", state="detached")
    # Confirmed: the table waits, the stake box is back to none, nothing is held yet.
    await page.fill("#opt-stake", "100")
    await page.click("#create-submit")
    await me.confirm_stake(100, 1000)
    await page.wait_for_selector("#my-tables-panel:not([hidden]) article", timeout=TIMEOUT_MS)
    assert await page.input_value("#opt-stake") == "0"
    # The page sends its calls in order: the cancelled and the refused stake, had they sent one,
    # came before this confirmed table's, which has come back.
    assert len(opens) == 1, opens
    # The creator alone cancels the table: it is gone, and every chip is there.
    await page.click("#my-tables button.danger")
    await page.wait_for_selector("#my-tables-panel[hidden]", state="attached", timeout=TIMEOUT_MS)
    assert await me.chips_shown() == 1000
    # The profile: chips, daily chips (already granted at sign-in today), stats and the leaderboard.
    await page.click("#profile-open")
    await page.wait_for_selector("#profile-dialog[open]")
    assert "1000" in (await page.text_content("#profile-chips") or "")
    await page.click("#daily-claim")
    await page.wait_for_function("() => document.querySelector('#daily-result').textContent.length > 0")
    assert "zaten" in (await page.text_content("#daily-result") or "")
    await page.wait_for_selector("#profile-stats p, #profile-stats table")
    await page.wait_for_selector("#leaderboard p, #leaderboard table")
    await page.click("#profile-close")
    # In English the new panels and the dialog are English too, and the code box is reachable by keyboard.
    await page.click(".lang button[data-lang=en]")
    assert await page.text_content("#quick-title") == "Quick play"
    assert await page.text_content("#code-title") == "Join with a code"
    await page.select_option("#quick-stake", "100")
    await page.click("#quick-play")
    await page.wait_for_selector("#stake-dialog[open]")
    assert await page.text_content("#stake-title") == "Confirm the stake"
    assert "100 chips" in (await page.text_content("#stake-amount") or "")
    await page.click("#stake-cancel")
    await page.focus("#quick-play")
    await page.keyboard.press("Tab")
    assert await page.evaluate("() => document.activeElement.id") == "code-input"
    assert not me.errors, me.errors

"""Friends, invitations and watching in a real browser (issue 44.7), with three people in browser
contexts of their own (three devices), as test_browser_seating.py:

- Ayşe finds Barış by name in the friends panel and asks; Barış's page shows the request as a
  toast, he accepts from it, and each sees the other in the friends list with an online dot;
- Ayşe waits at a private table and invites Barış from its waiting room ("Davet et"); his page
  shows "Ayşe ... seni masasına çağırıyor." with "Katıl", and he sits at the table from it;
- Cem, Ayşe's friend, watches the match from his friends list ("İzle"): the spectator banner, no
  rack and no seat's tiles in his page, and Ayşe's table shows one spectator (the eye and its count);
- a player Emre blocked cannot ask him to be friends: Deniz's page shows the refusal's text.

Debian's Chromium through Playwright; screenshots go to artifacts/."""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable
from typing import Any

import pytest
from okeytools import stack as okeystack
from test_browser import ARTIFACTS
from test_browser_seating import Person

TIMEOUT_MS = 15_000
# The web client's polls: the spectators' count (spectators.js) and the presence dots (presence.js).
SPECTATORS_WITHIN_MS = 5_000 + TIMEOUT_MS


@pytest.fixture(scope="module")
def friends_stack(make_module_stack: Callable[..., okeystack.Stack]) -> okeystack.Stack:
    # Every guest signs in from 127.0.0.1: the per-address quotas of accounts and grants are lifted.
    env = {
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",
        "OKEY_DAILY_GRANTS_PER_ADDRESS": "0",
    }
    return make_module_stack(("table", "lobby", "scoring", "gateway"), env=env, label="friends-web", private_nats=True)


@pytest.fixture
def base(friends_stack: okeystack.Stack) -> str:
    return f"http://{friends_stack.http_address}"


def _name(first: str) -> str:
    """A display name no other test's guest has (letters only: the lobby's name rules)."""
    return f"{first} {''.join(random.choices(string.ascii_uppercase, k=5))}"


async def _signed_in(browser: Any, base: str, first: str) -> tuple[Person, str, str]:
    """A guest with their notifications' stream open; (the person, their id, their name)."""
    name = _name(first)
    p = await Person.sign_in(browser, base, name)
    await p.page.wait_for_function("() => okeyApp.notificationsLive()", timeout=TIMEOUT_MS)
    return p, str(await p.page.evaluate("() => okeyApp.state.me.id")), name


async def _open_friends(p: Person) -> None:
    if await p.page.get_attribute("#friends-open", "aria-expanded") != "true":
        await p.page.click("#friends-open")
    await p.page.wait_for_selector("#friends-panel:not([hidden])")


async def _ask(p: Person, name: str, their_id: str) -> None:
    """Find ``name`` in the friends panel and ask them to be friends."""
    await _open_friends(p)
    await p.page.fill("#friends-search", name[:-2])  # a prefix, debounced
    row = f'#friends-found li[data-player="{their_id}"]'
    await p.page.wait_for_selector(row, timeout=TIMEOUT_MS)
    async with p.page.expect_response(lambda r: r.url.endswith(".LobbyService/SendFriendRequest")) as sent:
        await p.page.click(f"{row} button.primary")
    assert (await sent.value).ok
    await p.page.wait_for_selector(f"{row}:has-text('İstek bekliyor')")


async def _toast(p: Person, text: str) -> Any:
    toast = p.page.locator(".notice-toast", has_text=text)
    await toast.first.wait_for(timeout=TIMEOUT_MS)
    return toast.first


async def test_friends_ask_accept_invite_join_and_a_friend_watches_without_a_rack(base: str, browser: Any) -> None:
    ayse, a_id, a_name = await _signed_in(browser, base, "Ayşe")
    baris, b_id, b_name = await _signed_in(browser, base, "Barış")
    cem, c_id, _ = await _signed_in(browser, base, "Cem")

    # ---- Ayşe finds Barış by name and asks; her sent request shows with the lobby's limit
    await _ask(ayse, b_name, b_id)
    await ayse.page.wait_for_selector(f'#friends-outgoing li[data-player="{b_id}"]', timeout=TIMEOUT_MS)
    assert re.fullmatch(r"1/\d+", (await ayse.page.text_content("#friends-pending-limit") or "").strip())

    # ---- Barış's page: a toast says who asks; he accepts from it
    toast = await _toast(baris, f"{a_name} seninle arkadaş olmak istiyor.")
    await baris.page.wait_for_function(  # a request waits for him: the friends button says so
        "() => document.querySelector('#friends-badge').textContent === '1'", timeout=TIMEOUT_MS
    )
    async with baris.page.expect_response(lambda r: r.url.endswith(".LobbyService/AcceptFriendRequest")) as took:
        await toast.get_by_role("button", name="Kabul et").click()
    assert (await took.value).ok

    # ---- both see the other in the list, with an online dot (the gateway's presence board)
    await _open_friends(baris)
    for p, other in ((ayse, b_id), (baris, a_id)):
        await p.page.wait_for_selector(
            f'#friends-list li[data-player="{other}"] .presence.presence-online', timeout=TIMEOUT_MS
        )
        assert await p.page.get_attribute(f'#friends-list li[data-player="{other}"] .presence', "aria-label") == (
            "Çevrimiçi"
        )
        assert re.fullmatch(r"1/\d{2,}", (await p.page.text_content("#friends-limit") or "").strip())
    await _toast(ayse, f"{b_name} arkadaşlık isteğini kabul etti.")
    await ayse.page.screenshot(path=str(ARTIFACTS / "friends-panel.png"), full_page=False)

    # ---- Cem asks Ayşe too; she accepts from her panel's requests
    await _ask(cem, a_name, a_id)
    await ayse.page.wait_for_selector(f'#friends-incoming li[data-player="{c_id}"]', timeout=TIMEOUT_MS)
    await ayse.page.click(f'#friends-incoming li[data-player="{c_id}"] button.primary')
    await ayse.page.wait_for_selector(f'#friends-list li[data-player="{c_id}"]', timeout=TIMEOUT_MS)
    await ayse.page.click("#friends-close")

    # ---- Ayşe waits at a private table and invites Barış from its waiting room
    page = ayse.page
    await page.select_option("#create-visibility", "TABLE_VISIBILITY_PRIVATE")
    await page.uncheck("#create-fill")
    await page.click("#create-submit")
    await page.wait_for_selector("#my-tables-panel:not([hidden]) .invite-code", timeout=TIMEOUT_MS)
    (table,) = await ayse.my_tables()
    tid = table["tableId"]
    card = f'#my-tables article[data-table="{tid}"]'
    await page.click(f"{card} .invite-friends summary")
    invite = page.get_by_role("button", name=f"{b_name} adlı arkadaşını bu masaya davet et")
    await invite.wait_for(timeout=TIMEOUT_MS)
    async with page.expect_response(lambda r: r.url.endswith(".LobbyService/InviteToTable")) as invited:
        await invite.click()
    assert (await invited.value).ok
    await page.wait_for_selector(f"{card} .invite-friends button:has-text('Davet edildi')", timeout=TIMEOUT_MS)

    # ---- Barış's page: "Ayşe ... seni masasına çağırıyor." with Katıl; he sits at the table from it
    toast = await _toast(baris, f"{a_name} seni masasına çağırıyor.")
    await baris.page.screenshot(path=str(ARTIFACTS / "friends-invite-toast.png"), full_page=False)
    async with baris.page.expect_response(lambda r: r.url.endswith(".LobbyService/JoinTable")) as joined:
        await toast.get_by_role("button", name="Katıl").click()
    answer = await joined.value
    assert answer.ok and "inviteCode" in (answer.request.post_data or ""), answer.request.post_data
    await baris.page.wait_for_selector(f'#my-tables article[data-table="{tid}"]', timeout=TIMEOUT_MS)
    assert b_id in [s.get("playerId") for s in (await baris.my_tables())[0]["seats"]]
    await page.wait_for_function(
        "(name) => document.querySelector('#my-tables').textContent.includes(name)", arg=b_name, timeout=TIMEOUT_MS
    )

    # ---- the match starts (the rest are bots); Cem watches it from his friends list
    await page.click(f"{card} button.primary")  # fill with bots
    for who in (ayse, baris):
        await who.page.wait_for_selector("#screen-table:not([hidden])", timeout=TIMEOUT_MS)
    await page.wait_for_function("() => document.querySelectorAll('#rack .tile').length >= 14", timeout=TIMEOUT_MS)
    await cem.page.click("#friends-close")  # opened again: the list as it is now
    await _open_friends(cem)
    watch = cem.page.get_by_role("button", name=f"{a_name} adlı arkadaşının masasını izle")
    await watch.wait_for(timeout=TIMEOUT_MS)
    await watch.click()
    await cem.page.wait_for_selector("#screen-table:not([hidden]) #board.spectator .seat-panel", timeout=TIMEOUT_MS)
    await cem.page.wait_for_selector("#spectator-banner:not([hidden])")
    assert "İzleyici" in (await cem.page.text_content("#spectator-banner") or "")
    await cem.page.wait_for_function("() => okeyApp.state.t && okeyApp.state.t.live", timeout=TIMEOUT_MS)
    # No seat's tiles in Cem's page: no rack of his, none revealed at a seat, none in his view.
    assert await cem.page.locator("#rack .tile").count() == 0
    assert await cem.page.locator("#board .revealed .tile").count() == 0
    view = await cem.page.evaluate("() => okeyApp.state.t.view")
    assert not view.get("rack") and all(not s.get("rack") for s in view["seats"]), view
    assert await cem.page.evaluate("() => okeyApp.state.t.seat") is None

    # ---- Ayşe's table counts one spectator (an eye and the number), and so does Cem's page
    for p in (ayse, cem):
        await p.page.wait_for_function(
            "() => { const e = document.querySelector('#table-spectators');"
            " return e && !e.hidden && e.querySelector('.spectators-n').textContent === '1'; }",
            timeout=SPECTATORS_WITHIN_MS,
        )
    assert await page.get_attribute("#table-spectators", "aria-label") == "1 izleyici"
    # The table's chat is the seated people's: the spectator gets a note, no form to write in.
    await cem.page.wait_for_selector('.chat-slot[data-chat="table"] .chat-form[hidden]', state="attached")
    await cem.page.screenshot(path=str(ARTIFACTS / "friends-spectator.png"), full_page=False)
    await page.screenshot(path=str(ARTIFACTS / "friends-spectator-count.png"), full_page=False)

    # ---- back to the lobby from watching
    await cem.page.click("#back-lobby")
    await cem.page.wait_for_selector("#screen-lobby:not([hidden])")
    for p in (ayse, baris, cem):
        assert not p.errors, p.errors


async def test_a_blocked_player_cannot_ask_and_reads_why(base: str, browser: Any) -> None:
    emre, e_id, e_name = await _signed_in(browser, base, "Emre")
    deniz, d_id, d_name = await _signed_in(browser, base, "Deniz")
    # Deniz has found Emre; then Emre blocks Deniz from his own search (asked first).
    await _open_friends(deniz)
    await deniz.page.fill("#friends-search", e_name[:-2])
    row = f'#friends-found li[data-player="{e_id}"]'
    await deniz.page.wait_for_selector(row, timeout=TIMEOUT_MS)
    await _open_friends(emre)
    await emre.page.fill("#friends-search", d_name[:-2])
    theirs = f'#friends-found li[data-player="{d_id}"]'
    await emre.page.wait_for_selector(theirs, timeout=TIMEOUT_MS)
    await emre.page.click(f"{theirs} button:has-text('Engelle')")
    await emre.page.wait_for_selector("#confirm-dialog[open]")
    assert d_name in (await emre.page.text_content("#confirm-text") or "")
    async with emre.page.expect_response(lambda r: r.url.endswith(".LobbyService/BlockPlayer")) as blocked:
        await emre.page.click("#confirm-ok")
    assert (await blocked.value).ok
    await emre.page.wait_for_selector(  # in the closed "blocked players" disclosure
        f'#friends-blocked-box:not([hidden]) li[data-player="{d_id}"]', state="attached", timeout=TIMEOUT_MS
    )

    # Deniz asks all the same: refused, and the panel says why in Turkish.
    async with deniz.page.expect_response(lambda r: r.url.endswith(".LobbyService/SendFriendRequest")) as asked:
        await deniz.page.click(f"{row} button.primary")
    refused = await asked.value
    assert not refused.ok and (await refused.json())["reason"] == "BLOCKED"
    await deniz.page.wait_for_selector("#friends-error:not([hidden])")
    shown = await deniz.page.text_content("#friends-error")
    assert shown == "Bu oyuncuyla aranızda bir engel var; bu yapılamaz.", shown
    await deniz.page.screenshot(path=str(ARTIFACTS / "friends-blocked.png"), full_page=False)
    # Nothing reached Emre: no toast, no unread notification.
    assert await emre.page.locator(".notice-toast").count() == 0
    assert await emre.page.is_hidden("#notif-badge")

    # Emre plays at a public table; Deniz may not watch it, and his page says why.
    await emre.page.click("#friends-close")
    await emre.page.click("#create-submit")  # public, the empty seats to bots: it starts at once
    await emre.page.wait_for_selector("#screen-table:not([hidden]) #board .seat-panel", timeout=TIMEOUT_MS)
    tid = await emre.page.evaluate("() => okeyApp.state.t.id")
    await deniz.page.evaluate("(id) => { location.hash = '#/table/' + id; }", tid)
    await deniz.page.wait_for_function(
        "(text) => document.querySelector('#board').textContent.includes(text)",
        arg="Bu masadaki biriyle aranızda bir engel var; masayı izleyemezsin.",
        timeout=TIMEOUT_MS,
    )
    assert await deniz.page.locator("#board .tile").count() == 0  # nothing of the table drawn
    assert await deniz.page.is_hidden("#spectator-banner")

    # Emre unblocks Deniz from his table (asked first): the list of blocked players is empty again.
    await _open_friends(emre)
    await emre.page.click("#friends-blocked-box summary")
    await emre.page.click(f'#friends-blocked li[data-player="{d_id}"] button')
    await emre.page.wait_for_selector("#confirm-dialog[open]")
    async with emre.page.expect_response(lambda r: r.url.endswith(".LobbyService/UnblockPlayer")) as unblocked:
        await emre.page.click("#confirm-ok")
    assert (await unblocked.value).ok
    await emre.page.wait_for_selector("#friends-blocked-box", state="hidden", timeout=TIMEOUT_MS)
    for p in (emre, deniz):
        assert not p.errors, p.errors

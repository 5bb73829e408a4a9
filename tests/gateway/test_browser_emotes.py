"""Quick emotes at the table (issue 44.6) in a real browser: two people at a private table (two
browser contexts, as test_browser_seating.py), A sends "Bol şans" from the palette by keyboard,
B's page shows it as a bubble at A's seat within the chat's poll interval and as a line of the
table chat; B mutes A, A sends again, and B's page shows nothing new. And, without a browser:
every value of the proto enum has its Turkish and English text, and the client keeps no other
list of emotes. Debian's Chromium through Playwright; screenshots go to artifacts/."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from okey.v1 import lobby_service_pb2 as pb
from okeytools import stack as okeystack
from refusal_codes import strings
from test_browser import ARTIFACTS
from test_browser_seating import Person, two_at_a_private_table

WEB = Path(__file__).resolve().parents[2] / "services" / "gateway" / "web"
TIMEOUT_MS = 15_000
# The web client's chat poll (chat.js CHAT_POLL_MS): a received emote shows within one poll, plus
# the poll's own round trip (one in flight when the emote was sent may miss it: then the next).
_POLL = re.search(r"CHAT_POLL_MS = (\d+);", (WEB / "chat.js").read_text(encoding="utf-8"))
assert _POLL is not None, "chat.js names its poll interval CHAT_POLL_MS"
POLL_MS = int(_POLL.group(1))
SHOWN_WITHIN_MS = POLL_MS + 2_500
NAMES = [v.name.removeprefix("EMOTE_") for v in pb.Emote.DESCRIPTOR.values if v.number]


def test_every_emote_of_the_enum_has_its_text_in_both_languages_and_no_other() -> None:
    for lang in ("tr", "en"):
        table = strings(lang)
        listed = [k.removeprefix("emote.") for k in table if re.fullmatch(r"emote\.[A-Z][A-Z0-9_]*", k)]
        assert listed == NAMES, f"{lang}: i18n's emotes (the palette, in its order) are not okey.v1.Emote's"
        for n in NAMES:
            assert table[f"emote.{n}"].strip() and table[f"emote.{n}.icon"].strip(), (lang, n)
    # The set's one list is the enum: no module but i18n.js names an emote.
    for p in WEB.glob("*.js"):
        if p.name != "i18n.js":
            src = p.read_text(encoding="utf-8")
            named = [n for n in NAMES if re.search(rf"\b(?:EMOTE_)?{n}\b", src)]
            assert not named, f"{p.name} names emotes {named}: the palette is i18n's emote.* texts"


@pytest.fixture(scope="module")
def emote_stack(make_module_stack: Callable[..., okeystack.Stack]) -> okeystack.Stack:
    # Every guest signs in from 127.0.0.1: the per-address quotas of accounts and grants are lifted.
    env = {
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",
        "OKEY_DAILY_GRANTS_PER_ADDRESS": "0",
    }
    return make_module_stack(("table", "lobby", "scoring", "gateway"), env=env, label="emotes", private_nats=True)


@pytest.fixture
def base(emote_stack: okeystack.Stack) -> str:
    return f"http://{emote_stack.http_address}"


async def _at_one_table(browser: Any, base: str) -> tuple[Person, Person, str]:
    """Ayşe opens a private table without a stake, Barış joins by its code, Ayşe starts it with
    bots: both are at the table, with its chat."""
    ayse, baris, tid = await two_at_a_private_table(browser, base, "Ayşe Selam", "Barış Selam")
    await ayse.page.click(f'#my-tables article[data-table="{tid}"] button.primary')
    for who in (ayse, baris):
        await who.page.wait_for_selector("#screen-table:not([hidden])", timeout=TIMEOUT_MS)
        await who.page.wait_for_selector("#board .seat-panel[data-player]", timeout=TIMEOUT_MS)
        await who.page.wait_for_selector("#emote-toggle", timeout=TIMEOUT_MS)
    return ayse, baris, tid


async def _my_id(p: Person) -> str:
    return str(await p.page.evaluate("() => okeyApp.state.me.id"))


async def _table_polls(p: Person, tid: str, n: int) -> list[dict[str, Any]]:
    """The next ``n`` answers to the page's polls of the table's chat (bounded: a poll each
    POLL_MS). The n-th was asked after the first came, so after anything done before this call."""
    got = []
    for _ in range(n):
        r = await p.page.wait_for_event(
            "response",
            lambda r: r.url.endswith(".LobbyService/ListMessages") and tid in (r.request.post_data or ""),
            timeout=POLL_MS + TIMEOUT_MS,
        )
        got.append(await r.json())
    return got


async def test_an_emote_shows_at_the_sender_s_seat_and_a_mute_hides_the_next(base: str, browser: Any) -> None:
    ayse, baris, tid = await _at_one_table(browser, base)
    a_id = await _my_id(ayse)
    a_seat = f'#board .seat-panel[data-player="{a_id}"]'

    # ---- Ayşe, by keyboard: the button opens the palette on its first emote; Escape closes it
    page = ayse.page
    assert await page.get_attribute("#emote-toggle", "aria-label") == "Hızlı ifade gönder"
    await page.focus("#emote-toggle")
    await page.keyboard.press("Enter")
    await page.wait_for_selector(".emote-palette:not([hidden])")
    assert await page.get_attribute("#emote-toggle", "aria-expanded") == "true"
    assert await page.get_attribute(".emote-palette", "aria-label") == "Hızlı ifadeler"
    choices = await page.eval_on_selector_all(".emote-choice", "bs => bs.map((b) => b.dataset.emote)")
    assert choices == NAMES
    assert await page.evaluate("() => document.activeElement.dataset.emote") == NAMES[0]
    await page.keyboard.press("Escape")
    await page.wait_for_selector(".emote-palette", state="hidden")
    assert await page.evaluate("() => document.activeElement.id") == "emote-toggle"
    await page.keyboard.press("Enter")
    await page.keyboard.press("ArrowRight")  # Kolay gelsin -> Bol şans
    assert await page.evaluate("() => document.activeElement.textContent") == "🍀 Bol şans!"
    async with page.expect_response(lambda r: r.url.endswith(".LobbyService/SendEmote")) as answer:
        await page.keyboard.press("Enter")
    sent = (await (await answer.value).json())["message"]
    sent_at = time.monotonic()
    assert sent["emote"] == "EMOTE_BOL_SANS" and not sent.get("text"), sent
    await page.wait_for_selector(f"{a_seat} .emote-bubble")  # at once on the sender's own page

    # ---- Barış sees it at Ayşe's seat within a poll, and as a line of the table chat
    bubble = await baris.page.wait_for_selector(f"{a_seat} .emote-bubble", timeout=SHOWN_WITHIN_MS)
    waited_ms = (time.monotonic() - sent_at) * 1000
    assert bubble is not None and waited_ms <= SHOWN_WITHIN_MS, waited_ms
    assert (await bubble.text_content() or "").strip() == "🍀 Bol şans!"
    assert await bubble.get_attribute("aria-label") == "Ayşe Selam: Bol şans!"
    line = baris.page.locator('.chat-slot[data-chat="table"] li.emote')
    await line.first.wait_for(timeout=TIMEOUT_MS)
    assert re.sub(r"\s+", " ", await line.first.inner_text()).startswith("Ayşe Selam: 🍀 Bol şans!")
    await baris.page.screenshot(path=str(ARTIFACTS / "emote-bubble.png"), full_page=False)
    # The bubble goes after about 3 s (its own timer; bounded).
    await baris.page.wait_for_selector(f"{a_seat} .emote-bubble", state="detached", timeout=TIMEOUT_MS)

    # ---- Barış mutes Ayşe from the chat line; Ayşe sends again; Barış's page shows nothing new
    async with baris.page.expect_response(lambda r: r.url.endswith(".LobbyService/MutePlayer")) as muted:
        await line.first.get_by_role("button", name="Sustur").click()
    assert (await muted.value).ok
    await baris.page.wait_for_selector('.chat-slot[data-chat="table"] li.emote', state="detached")
    await page.click("#emote-toggle")
    async with page.expect_response(lambda r: r.url.endswith(".LobbyService/SendEmote")) as again:
        await page.click('.emote-choice[data-emote="TEBRIKLER"]')
    second = (await (await again.value).json())["message"]
    assert second["emote"] == "EMOTE_TEBRIKLER"
    await page.wait_for_selector(f"{a_seat} .emote-bubble:has-text('Tebrikler')")
    polls = await _table_polls(baris, tid, 2)  # the second was asked after Ayşe's emote was stored
    assert not [m for p in polls for m in p.get("messages", []) if m.get("playerId") == a_id], polls
    assert await baris.page.locator(f"{a_seat} .emote-bubble").count() == 0
    assert "Tebrikler" not in (await baris.page.text_content('.chat-slot[data-chat="table"] .chat-log') or "")
    # Ayşe's own chat still has both.
    await page.wait_for_function(
        """() => document.querySelectorAll('.chat-slot[data-chat="table"] li.emote').length === 2""",
        timeout=SHOWN_WITHIN_MS,
    )
    assert not ayse.errors and not baris.errors, ayse.errors + baris.errors

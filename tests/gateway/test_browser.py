"""The web client in a real browser: headless Chromium (Debian's, driven by Playwright) signs in,
opens a table with bots from the lobby form, plays a hand by clicking, and saves screenshots to
artifacts/.

The stack runs as processes (``make_stack`` of tests/conftest.py): table service and gateway
always; lobby, scoring and bots when they start (without the lobby the page signs in with a
pasted token and opens the table on the table service; without the bots service this test plays
the other seats itself; the gateway's address of a service that did not start is one nothing
listens on, so the page sees UNAVAILABLE and falls back).
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from okeycore.commands import Discard, Draw
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeytools import stack as okeystack
from tools_setup import chromium as _chromium
from tools_setup import playwright as _playwright

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PLAY_SECONDS = 180.0  # a hang guard for one hand played by clicking, not a speed check


# ------------------------------------------------------------------ what the test needs
# Chromium and Playwright: tests/tools_setup.py, installed before the session when missing.


async def open_signin_page(pw: Any, errors: list[str], base: str) -> tuple[Any, Any, str]:
    """Chromium with a fresh profile (a user-data-dir) at desktop size in Turkish, and its first
    page on the sign-in screen, its script errors going to ``errors``: (context, page, profile
    dir). The caller closes the context and removes the profile."""
    profile = tempfile.mkdtemp(prefix="okey-chromium-")
    ctx = await pw.chromium.launch_persistent_context(
        profile,
        executable_path=_chromium(),
        headless=True,
        args=CHROMIUM_ARGS,
        viewport={"width": 1280, "height": 900},
        locale="tr-TR",
    )
    try:
        page = await ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(base + "/")
        await page.wait_for_selector("#screen-signin:not([hidden])")
    except BaseException:
        await ctx.close()
        shutil.rmtree(profile, ignore_errors=True)
        raise
    return ctx, page, profile


# ------------------------------------------------------------------ the stack


@dataclass
class Stack:
    processes: okeystack.Stack
    running: list[str] = field(default_factory=list)

    @property
    def base(self) -> str:
        return f"http://{self.processes.http_address}"


@pytest.fixture
def stack(request: pytest.FixtureRequest, make_stack: Callable[..., okeystack.Stack]) -> Stack:
    """``all``: every service that starts; ``core``: only the table service and the gateway."""
    optional = ("lobby", "scoring", "bots") if getattr(request, "param", "all") == "all" else ()
    env = {"OKEY_TIMEOUT_GRACE_MS": "300", "OKEY_RATE_LIMIT": "1000", "OKEY_RATE_BURST": "1000"}
    st = Stack(make_stack(("table", *optional, "gateway"), env=env, label="browser", start=False, private_nats=True))
    st.processes.start_one("table")
    for name in optional:  # a service that fails to start fails the test: [all] never falls back to [core]
        st.processes.start_one(name)
        st.running.append(name)
    st.processes.start_one("gateway")
    return st


async def _play_other_seats(grpc_addr: str, table_id: str, human: int, stop: asyncio.Event) -> None:
    """Without the bots service: the seats other than the human's draw and discard the drawn tile."""
    client = TableClient(grpc_addr, issue_token("browser-test-bots", "service"))
    try:
        while not stop.is_set():
            try:
                v = await client.view(table_id)
            except Exception:
                await asyncio.sleep(0.2)
                continue
            seat = v.turn
            if v.phase != 2 or seat == human:  # PHASE_PLAYING
                await asyncio.sleep(0.1)
                continue
            mine = await client.view(table_id, seat)
            with contextlib.suppress(Exception):
                if mine.stage == 1:  # STAGE_DRAW
                    got = await client.act(table_id, Draw(seat=seat))
                    drawn = [e for e in got.events if e.WhichOneof("event") == "tile_drawn"]
                    tile = drawn[0].tile_drawn.tile.id if drawn else mine.rack[-1].id
                    await client.act(table_id, Discard(seat=seat, tile=tile))
                else:
                    await client.act(table_id, Discard(seat=seat, tile=mine.rack[-1].id))
    finally:
        await client.close()


# The seat's own move has come back: a newer view whose phase, stage, turn or hand is not the one the
# move was chosen on (another seat's event in between, an indicator shown, is not the move).
MOVED_JS = """([version, phase, stage, turn, hand]) => {
  const v = okeyApp.state.t.view;
  return okeyApp.version() > version && ((v.phase || '') !== phase || (v.stage || '') !== stage
    || Number(v.turn || 0) !== turn || Number(v.hand || 0) !== hand);
}"""

DEBUG_JS = """() => {
  const t = okeyApp.state.t;
  return {stage: t.view.stage, turn: t.view.turn, seat: t.seat, busy: t.busy, selected: t.selected,
          allowed: t.view.allowed, rack: (t.view.rack || []).map((x) => x.id), version: t.version,
          hand: t.view.hand, live: t.live, log: t.log.slice(-12).map((x) => [x.version, x.key, x.seat, x.tile])};
}"""

TOAST_JS = "() => { const t = document.querySelector('#toast'); return t && !t.hidden ? t.textContent : ''; }"


async def _click_enabled(page: Any, selector: str, seen: Any) -> None:
    """Click a toolbar button once it is enabled; if it never is, say what the page holds now
    and what the test saw when it chose the move (``seen``)."""
    try:
        await page.wait_for_selector(f"{selector}:not([disabled])", timeout=10_000)
    except Exception as e:
        now = await page.evaluate(DEBUG_JS)
        raise AssertionError(f"{selector} stayed disabled: seen {seen}, now {now}") from e
    await page.click(selector)


async def _until_moved(page: Any, seen: Any) -> None:
    """Until the seat's move has come back (MOVED_JS); if it does not, say what the page holds."""
    try:
        await page.wait_for_function(
            MOVED_JS, arg=[seen["version"], seen["phase"], seen["stage"], seen["turn"], seen["hand"]], timeout=10_000
        )
    except Exception as e:
        toast = await page.evaluate(TOAST_JS)
        now = await page.evaluate(DEBUG_JS)
        raise AssertionError(f"the move did not come back: seen {seen}, now {now}, toast {toast!r}") from e


# ------------------------------------------------------------------ the test

# Marks what is drawn now (data-stale on each element the selector finds): an element without the
# mark in the same place is then one drawn anew, and waiting for it waits for the redraw itself.
STALE_JS = "(sel) => document.querySelectorAll(sel).forEach((e) => { e.dataset.stale = '1'; })"
STATE_JS = """() => {
  const t = window.okeyApp && okeyApp.state.t;
  if (!t || !t.view) return null;
  const v = t.view;
  return {id: t.id, seat: t.seat, phase: v.phase || '', hand: Number(v.hand || 0), turn: Number(v.turn || 0),
          stage: v.stage || '', version: t.version, busy: t.busy, live: t.live, gaps: t.gaps, dups: t.dups,
          rack: (v.rack || []).length, hints: !!t.hints, allowed: v.allowed || []};
}"""


@pytest.mark.parametrize("stack", ["all", "core"], indirect=True)
async def test_browser_signs_in_opens_a_bot_table_and_plays_a_hand(stack: Stack) -> None:
    """``all``: guest sign-in, the lobby's table with the bots service, the scoring service's
    standings. ``core`` (no lobby, bots or scoring): a pasted token, CreateTable, this test plays
    the other seats, the view's result."""
    async_playwright = _playwright()
    ARTIFACTS.mkdir(exist_ok=True)
    tag = "" if "lobby" in stack.running else "-core"
    t0 = time.monotonic()
    errors: list[str] = []
    helper: asyncio.Task[None] | None = None
    stop_helper = asyncio.Event()
    async with async_playwright() as pw:
        ctx, page, profile = await open_signin_page(pw, errors, stack.base)
        try:
            assert await page.get_attribute("html", "lang") == "tr"

            # ---- sign in (guest sign-in through the lobby, or a pasted token without it)
            if "lobby" in stack.running:
                await page.fill("#signin-name", "Tarayıcı Testi")
                await page.click("#signin-submit")
            else:
                await page.fill("#signin-name", "Tarayici")
                await page.click("#signin-submit")
                await page.wait_for_selector("#nolobby:not([hidden])")
                await page.fill("#token-input", issue_token("browser-player"))
                await page.click("#token-form button[type=submit]")
            await page.wait_for_selector("#screen-lobby:not([hidden])")

            # ---- the language switch: every static string follows
            await page.click(".lang button[data-lang=en]")
            assert await page.text_content("#create-title") == "Open a table"
            assert await page.get_attribute("html", "lang") == "en"

            # ---- open a classic table with bots, with a few options set through the form
            await page.select_option("#create-game", "OKEY")
            await page.fill("#opt-match_points", "2")  # in the short form
            await page.click("#create-more > summary")  # the rest is under "more options"
            await page.fill("#opt-turn_seconds", "60")
            # no break between hands: this test plays one hand in its time budget (the break and
            # its end-of-hand screen are the next test's) [P-BREAK-4]
            await page.fill("#opt-hand_break_seconds", "0")
            assert await page.is_checked("#create-fill")
            await page.click("#create-submit")
            await page.wait_for_selector("#screen-table:not([hidden])")
            await page.wait_for_function(
                "() => { const t = okeyApp.state.t; return t && t.view && t.live; }", timeout=20_000
            )
            st = await page.evaluate(STATE_JS)
            human = st["seat"]
            assert human is not None and st["rack"] in (14, 15)
            # no Okey 101 staging panel or table melds at a classic table (issue 18.5)
            assert await page.locator("#staging").is_hidden() and await page.locator("#melds-area").is_hidden()
            if "bots" not in stack.running:
                helper = asyncio.create_task(
                    _play_other_seats(stack.processes.address("table"), st["id"], human, stop_helper)
                )

            # ---- rearrange the rack by clicking: select a tile, click an empty slot in the second row
            first = page.locator("#rack button.tile").first
            tile_id = await first.get_attribute("data-tile")
            await first.click()
            assert await page.get_attribute(f'#rack button[data-tile="{tile_id}"]', "aria-pressed") == "true"
            await page.click('#rack button.slot-empty[data-slot="29"]')
            assert await page.get_attribute(f'#rack button[data-tile="{tile_id}"]', "data-slot") == "29"
            await page.click(f'#rack button[data-tile="{tile_id}"]')  # deselect

            # ---- play: draw by clicking the deck, arrange with Seri Diz, discard by clicking
            draws = discards = finishes = 0  # a turn is a discard or a finish
            dropped = False
            shot_taken = False
            start_hand = st["hand"]
            deadline = time.monotonic() + PLAY_SECONDS
            while time.monotonic() < deadline:
                st = await page.evaluate(STATE_JS)
                if st["phase"] == "PHASE_MATCH_OVER" or st["hand"] > start_hand:
                    break
                mine = st["phase"] == "PHASE_PLAYING" and st["turn"] == human and not st["busy"]
                if not mine:
                    await page.wait_for_timeout(60)
                    continue
                # What the seat may do is the view's ``allowed`` (the engine's answer, which the
                # toolbar shows), not the stage alone: the view after a discard that emptied the
                # deck still reads "your discard" until the hand's end, one event later, arrives.
                may = set(st["allowed"])
                if "Draw" in may:
                    await page.click("#deck")
                    draws += 1
                elif "Discard" in may:
                    await page.wait_for_function("() => okeyApp.hintsFresh()", timeout=5000)
                    finishing = page.locator("#rack button.tile:has(.mk.fin)")
                    if await finishing.count():
                        await finishing.first.click()
                        await page.click('[data-act="finish"]')
                        finishes += 1
                    else:
                        if not await page.is_disabled("#seri-diz"):
                            await page.click("#seri-diz")
                        await page.locator("#rack button.tile:not(.okey)").last.click()
                        await _click_enabled(page, '[data-act="discard"]', st)
                        discards += 1
                elif "Pass" in may:
                    await page.click('[data-act="pass"]')
                else:
                    await page.wait_for_timeout(60)
                    continue
                await _until_moved(page, st)
                if discards + finishes == 2 and not shot_taken:
                    await page.wait_for_timeout(300)
                    await page.screenshot(path=str(ARTIFACTS / f"browser-table{tag}.png"), full_page=True)
                    shot_taken = True
                if discards + finishes == 3 and not dropped:
                    # the live connection drops; the page resumes from the last version it saw
                    await page.evaluate("() => okeyApp.dropSocket()")
                    dropped = True
            st = await page.evaluate(STATE_JS)
            assert st["phase"] == "PHASE_MATCH_OVER" or st["hand"] > start_hand, f"the hand did not end: {st}"
            # the person drew, and then discarded or finished (each came back: _until_moved)
            assert draws >= 1 and discards + finishes >= 1, (draws, discards, finishes)
            if dropped:
                await page.wait_for_function("() => okeyApp.state.t.live", timeout=10_000)
            st = await page.evaluate(STATE_JS)
            assert st["gaps"] == 0 and st["dups"] == 0, st
            if not shot_taken:
                await page.screenshot(path=str(ARTIFACTS / f"browser-table{tag}.png"), full_page=True)

            # ---- the end of the hand (and of the match at 2 points): results on the page
            if st["phase"] == "PHASE_MATCH_OVER":
                await page.wait_for_selector("#result-dialog[open] table.standings tbody tr", timeout=15_000)
                rows = await page.locator("#result-dialog table.standings tbody tr").count()
                assert rows == 4
            else:
                await page.wait_for_selector("#lasthand-panel:not([hidden])", timeout=10_000)
            await page.wait_for_timeout(300)
            await page.screenshot(path=str(ARTIFACTS / f"browser-result{tag}.png"), full_page=True)

            # ---- phone width, Turkish
            if await page.locator("#result-dialog[open]").count():
                await page.click("#result-close")
            await page.click(".lang button[data-lang=tr]")
            await page.set_viewport_size({"width": 390, "height": 844})
            await page.wait_for_timeout(200)
            await page.screenshot(path=str(ARTIFACTS / f"browser-phone{tag}.png"), full_page=True)
            assert await page.text_content("#back-lobby") == "Lobiye dön"
        finally:
            stop_helper.set()
            if helper is not None:
                await helper
            await ctx.close()
            shutil.rmtree(profile, ignore_errors=True)
    assert not errors, errors
    print(f"browser test: {time.monotonic() - t0:.1f}s; services running {sorted(stack.running)}")


async def _play_seat_to_hand_end(grpc_addr: str, token: str, table_id: str, seat: int, stop: asyncio.Event) -> None:
    """The person's own seat, played over gRPC with the page's token (a greedy bot's moves), so
    the hand ends in seconds; the page only watches until its end-of-hand screen."""
    from okeycore.classic.bots import GreedyBot
    from okeycore.okey101.bots import GreedyBot101
    from okeyplatform.contract import seat_view_from_pb

    client = TableClient(grpc_addr, token)
    bots: dict[bool, Any] = {False: GreedyBot(7), True: GreedyBot101(7)}
    try:
        while not stop.is_set():
            v = seat_view_from_pb(await client.view(table_id, seat))
            bot = bots[v.options.game.value == "OKEY101"]
            if v.hand > 1 or v.phase.value != "PLAYING":
                return
            if v.turn != seat:
                await asyncio.sleep(0.03)
                continue
            with contextlib.suppress(Exception):
                await client.act(table_id, bot.act(v))
    finally:
        await client.close()


@pytest.mark.parametrize("game", ["OKEY", "OKEY101"])
@pytest.mark.parametrize("stack", ["all"], indirect=True)
async def test_P_BREAK_3_the_end_of_hand_screen_counts_down_and_ready_deals_the_next_hand(
    stack: Stack, game: str
) -> None:
    """A person at a table with bots: when the hand ends the page shows the end-of-hand screen
    (the hand's indicator and okey, each seat's points and why), its countdown to the table's
    deal goes down, and pressing "Hazır" (the only person is then ready) deals the next hand at
    once [P-BREAK-1] [P-BREAK-2] [P-BREAK-3]. Screenshots: artifacts/end-of-hand.png (classic)
    and end-of-hand-101.png."""
    async_playwright = _playwright()
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    stop = asyncio.Event()
    tasks: list[asyncio.Task[None]] = []
    async with async_playwright() as pw:
        ctx, page, profile = await open_signin_page(pw, errors, stack.base)
        try:
            await page.fill("#signin-name", "Molaci")
            await page.click("#signin-submit")
            if "lobby" not in stack.running:
                await page.wait_for_selector("#nolobby:not([hidden])")
                await page.fill("#token-input", issue_token("browser-break"))
                await page.click("#token-form button[type=submit]")
            await page.wait_for_selector("#screen-lobby:not([hidden])")
            await page.select_option("#create-game", game)
            await page.click("#create-more > summary")
            await page.fill("#opt-hand_break_seconds", "30")  # the longest: time to watch it count down
            await page.click("#create-submit")
            await page.wait_for_selector("#screen-table:not([hidden])")
            await page.wait_for_function(
                "() => { const t = okeyApp.state.t; return t && t.view && t.live; }", timeout=20_000
            )
            st = await page.evaluate(STATE_JS)
            token = await page.evaluate("() => okeyApp.state.token")
            grpc_addr = stack.processes.address("table")
            tasks.append(asyncio.create_task(_play_seat_to_hand_end(grpc_addr, token, st["id"], st["seat"], stop)))
            if "bots" not in stack.running:
                tasks.append(asyncio.create_task(_play_other_seats(grpc_addr, st["id"], st["seat"], stop)))

            # ---- the hand ends: the end-of-hand screen, its facts and its countdown
            await page.wait_for_selector("#handend[open] #handend-ready", timeout=60_000)
            assert (await page.evaluate(STATE_JS))["hand"] == 1
            screen = page.locator("#handend")
            assert "1. el bitti" in (await screen.locator("h3").text_content() or "")
            assert await screen.locator(".handend-scores tbody th[scope=row]").count() == 4  # a row group a seat
            # that hand's indicator and okey, named as players name them
            assert await screen.locator(".handend-okey .tile").count() == 2
            first = int(await page.get_attribute("#handend-countdown", "data-seconds") or 0)
            assert 0 < first <= 30, first
            await page.wait_for_timeout(2300)
            later = int(await page.get_attribute("#handend-countdown", "data-seconds") or 0)
            assert 0 < later < first, (first, later)  # it counts down to the table's deal
            assert "saniye" in (await page.text_content("#handend-countdown") or "")
            if game == "OKEY101":  # every seat's points say why: finished, opened (with pairs) or not [D-2]
                reasons = await screen.locator(".handend-scores tbody td.why").all_text_contents()
                assert len(reasons) >= 4 and all(r.strip() for r in reasons), reasons
            await page.screenshot(
                path=str(ARTIFACTS / ("end-of-hand.png" if game == "OKEY" else "end-of-hand-101.png")), full_page=True
            )

            # ---- Hazır: the only person is ready, so the table deals the next hand at once
            assert (await page.text_content("#handend-ready")) == "Hazır"
            await page.click("#handend-ready")
            await page.wait_for_function(
                "() => okeyApp.state.t.view.hand == 2 && okeyApp.state.t.view.phase === 'PHASE_PLAYING'",
                timeout=max(later - 1, 1) * 1000,  # before the break would have dealt it anyway
            )
            await page.wait_for_selector("#handend", state="hidden", timeout=10_000)
            assert not await page.locator("#handend[open]").count()
        finally:
            stop.set()
            for t in tasks:
                with contextlib.suppress(Exception):
                    await t
            await ctx.close()
            shutil.rmtree(profile, ignore_errors=True)
    assert not errors, errors

"""Issue 46 item 3, the replay view of a finished hand, in a real browser.

A person at a classic table with three EASY bots (at the tests' instant pace) plays hands over
the gateway's HTTP API with the page's own token, as tests/gateway/test_replays_e2e.py's Guest
does. The seat plays well (okeycore's StrongBot) but passes over its first finish of a hand: a
15-tile rack that could finish (okeycore's own ``finishing_tiles``, the check the coaching notes
use) discards a tile that does not finish, and a side tile that would finish is left for a deck
draw (and that turn does not finish either); after that the strong bot's moves finish the hand.
That plants a missed finish: the hand's GetReplay has a COACHING_KIND_MISSED_FINISH note of the
person's seat (about half of the hands; in the others a bot finishes first).

When such a hand ends, the page's end-of-hand screen opens its replay ("Eli izle"). The test
steps through it both ways (the racks and piles change and come back, by the buttons and by the
arrow keys), clicks the missed finish in the notes (the view jumps to that move and shows the
note's text), checks the fairness panel, the hindsight marks and the fold against the server's
hand end, copies the share link, and runs axe-core at 1366x768 and 844x390, in Turkish and
English. A second test folds an Okey 101 hand (melds on the table) to the server's
HandEnded101, after the page showed the HAND_NOT_ENDED refusal while it was played.
Screenshots: artifacts/replay-desktop.png, replay-phone.png, replay-101.png."""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from google.protobuf import json_format
from okey.v1 import table_service_pb2 as tpb
from okeytools import stack as okeystack
from test_browser import ARTIFACTS
from tools_setup import axe_script

DESKTOP = {"width": 1366, "height": 768}
PHONE_LANDSCAPE = {"width": 844, "height": 390}
TIMEOUT_MS = 20_000
MAX_HANDS = 12  # about half of the hands plant a missed finish (a bot finishes first in the others)
HAND_S = 40.0  # a hang guard for one hand of instant bots, not a speed check
TABLE = "/api/okey.v1.TableService/"
LOBBY = "/api/okey.v1.LobbyService/"
MISSED = "COACHING_KIND_MISSED_FINISH"

AXE_RUN = """async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ') + ': ' + (n.failureSummary || '').slice(0, 200)),
  }));
}"""

# What the replay shows at its step: each seat's rack (tile ids) and pile (tile ids, top last).
SNAP_JS = """() => ({
  step: document.querySelector('#screen-replay').dataset.step,
  racks: Array.from(document.querySelectorAll('#replay-board [data-rack]')).map(
    (r) => Array.from(r.querySelectorAll('[data-tile]')).map((t) => Number(t.dataset.tile))),
  piles: Array.from(document.querySelectorAll('#replay-board [data-pile]')).map(
    (p) => [Number(p.dataset.count), Array.from(p.querySelectorAll('[data-tile]')).map((t) => Number(t.dataset.tile))]),
})"""


@pytest.fixture(scope="module")
def replay_stack(make_module_stack: Callable[..., okeystack.Stack]) -> okeystack.Stack:
    env = {
        "OKEY_BOTS_PACE": "instant",
        "OKEY_TIMEOUT_GRACE_MS": "300",
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",
    }
    return make_module_stack(("table", "lobby", "bots", "gateway"), env=env, label="replay-view", private_nats=True)


# ------------------------------------------------------------------ the person's seat over HTTP


class Seat:
    """The person's seat, played over the gateway's HTTP API with the page's token."""

    def __init__(self, http: httpx.AsyncClient, token: str, table_id: str, seat: int, plain: Any = None) -> None:
        from okeycore.classic.bots import GreedyBot
        from okeycore.classic.strategy import StrongBot

        self.http = http
        self.token = token
        self.table_id = table_id
        self.seat = seat
        self.strong = StrongBot(7)
        self.greedy = GreedyBot(7)
        self.no_finish = False  # a side tile that finished was left this turn: no finish in it
        self.plain = plain  # a strategy played as it is (101), no finish passed over
        self.planted: set[int] = set()  # the hands in which a finish was passed over

    async def call(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        r = await self.http.post(path, json=body, headers={"authorization": f"Bearer {self.token}"})
        assert r.status_code == 200, (path, body, r.status_code, r.text)
        out: dict[str, Any] = r.json()
        return out

    async def view(self) -> dict[str, Any]:
        return dict((await self.call(TABLE + "GetView", {"tableId": self.table_id, "seat": self.seat}))["view"])

    async def act(self, command: Any) -> None:
        from okeyplatform.client import command_request

        req = command_request(self.table_id, command, f"replay-{uuid.uuid4().hex[:10]}")
        await self.call(TABLE + "Act", json_format.MessageToDict(req))

    async def ready(self) -> None:
        body = {"tableId": self.table_id, "seat": self.seat, "commandId": f"ready-{uuid.uuid4().hex[:8]}"}
        await self.call(TABLE + "Act", {**body, "ready": {}})

    async def turn(self, view: dict[str, Any]) -> None:
        """One move: the strong bot's, except where it would finish. In a hand with no missed
        finish yet, a side tile that would finish is left for a deck draw, and a 15-tile rack that
        could finish discards a tile that does not; once one is planted the hand may finish."""
        from okeycore.classic import Stage, finishing_tiles
        from okeycore.commands import Discard, Draw, Finish, TakeDiscard, TurnToOkey
        from okeycore.options import PairsDeclaration
        from okeycore.tiles import face_of_id
        from okeyplatform.contract import seat_view_from_pb

        v = seat_view_from_pb(json_format.ParseDict(view, tpb.SeatView(), ignore_unknown_fields=True))
        if self.plain is not None:
            await self.act(self.plain.act(v))
            return
        command = self.strong.act(v)
        if isinstance(command, TurnToOkey):  # a seat turned to okey waits by choice: not noted [C-DON-1]
            command = self.greedy.act(v)
        hand = int(view.get("hand", 0))
        # a binding pairs declarer finishes with pairs only, as the bots and the notes judge it
        binding = v.options.pairs_declaration is PairsDeclaration.BINDING
        pairs_only = binding and v.seats[self.seat].declared_pairs
        if hand in self.planted and not self.no_finish:
            pass
        elif v.stage is Stage.DRAW and v.side_tile >= 0 and isinstance(command, TakeDiscard):
            if finishing_tiles((*v.rack, v.side_tile), v.indicator, pairs_only):
                command = Draw(seat=self.seat)  # noted unless this turn finishes: it must not
                self.planted.add(hand)
                self.no_finish = True
        elif v.stage is Stage.DISCARD and isinstance(command, Finish):
            fin = finishing_tiles(v.rack, v.indicator, pairs_only)
            faces = {face_of_id(t) for t in fin}
            others = [t for t in v.rack if face_of_id(t) not in faces]
            if fin and others:
                command = Discard(seat=self.seat, tile=others[0])
                self.planted.add(hand)
        if isinstance(command, Discard):
            self.no_finish = False  # the turn is over
        await self.act(command)

    async def play_hand(self) -> dict[str, Any]:
        """Play the seat's turns until the hand in progress is over: the view then."""
        t0 = time.monotonic()
        while True:
            view = await self.view()
            phase = view.get("phase")
            if phase in ("PHASE_HAND_OVER", "PHASE_MATCH_OVER"):
                return view
            assert time.monotonic() - t0 < HAND_S, f"the hand did not end within {HAND_S} s"
            if phase == "PHASE_PLAYING" and int(view.get("turn", 0)) == self.seat and view.get("allowed"):
                await self.turn(view)
            else:
                await asyncio.sleep(0.02)


def _note_shown(text: str, lang: str) -> str:
    """A note's words in the page's language: Turkish first, the English in brackets."""
    m = re.match(r"^([\s\S]*?)\s*\(([^()]*)\)\s*$", text)
    if not m:
        return text
    return m.group(2) if lang == "en" else m.group(1)


async def _axe(page: Any, where: str) -> None:
    if not await page.evaluate("() => typeof window.axe !== 'undefined'"):
        await page.add_script_tag(path=str(axe_script()))
    bad = await page.evaluate(AXE_RUN)
    assert not bad, f"axe-core on {where}: " + json.dumps(bad, ensure_ascii=False, indent=1)


async def _step(page: Any) -> int:
    return int(await page.get_attribute("#screen-replay", "data-step") or "-1")


async def _at_step(page: Any, n: int) -> None:
    await page.wait_for_function("(n) => document.querySelector('#screen-replay').dataset.step === String(n)", arg=n)


# ------------------------------------------------------------------ the test


async def test_46_3_a_replay_opened_from_the_end_of_hand_screen_steps_both_ways_and_shows_a_missed_finish(
    browser: Any, replay_stack: okeystack.Stack
) -> None:
    started = time.monotonic()
    base = f"http://{replay_stack.http_address}"
    errors: list[str] = []
    # bypass_csp: the page's CSP (script-src 'self') would refuse the injected axe-core script
    ctx = await browser.new_context(viewport=DESKTOP, locale="tr-TR", bypass_csp=True)
    await ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    page = await ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        await page.goto(base + "/")
        await page.wait_for_selector("#screen-signin:not([hidden])")
        await page.fill("#signin-name", "Tekrar İzleyen")
        await page.click("#signin-submit")
        await page.wait_for_selector("#screen-lobby:not([hidden])")
        token = await page.evaluate("() => okeyApp.state.token")

        async with httpx.AsyncClient(base_url=base, timeout=15) as http:
            # A classic table with three EASY bots; a hand break long enough to look at its end.
            options = {
                "game": "GAME_OKEY",
                "matchPoints": 200,
                "turnSeconds": 60,
                "handBreakSeconds": 30,
                "botLevel": "BOT_LEVEL_EASY",
            }
            r = await http.post(
                LOBBY + "OpenTable",
                json={"options": options, "visibility": "TABLE_VISIBILITY_PRIVATE", "fillWithBots": True},
                headers={"authorization": f"Bearer {token}"},
            )
            assert r.status_code == 200, r.text
            table_id, seat = r.json()["table"]["tableId"], int(r.json().get("seat", 0))
            me = Seat(http, token, table_id, seat)
            await page.goto(f"{base}/#/table/{table_id}/{seat}")
            await page.wait_for_selector("#screen-table:not([hidden])", timeout=TIMEOUT_MS)
            await page.wait_for_function(
                "() => { const t = okeyApp.state.t; return t && t.view && t.live; }", timeout=TIMEOUT_MS
            )

            # ---- hands until one has a missed finish of the person's seat in its notes
            replay: dict[str, Any] = {}
            note: dict[str, Any] = {}
            hand = 0
            for _ in range(MAX_HANDS):
                end = await me.play_hand()
                hand = int(end.get("hand", 0))
                got = await me.call(TABLE + "GetReplay", {"tableId": table_id, "hand": hand})
                replay = got["replay"]
                mine = [n for n in replay.get("notes", []) if n.get("kind") == MISSED and int(n.get("seat", 0)) == seat]
                kinds = [n["kind"] for n in replay.get("notes", [])]
                print(f"hand {hand}: planted {hand in me.planted}, notes {kinds}")
                if hand in me.planted:
                    assert mine, f"a finish passed over in hand {hand} and no MISSED_FINISH note: {replay.get('notes')}"
                if mine:
                    note = mine[0]
                    break
                assert end.get("phase") == "PHASE_HAND_OVER", "the match ended before a missed finish"
                await me.ready()
            assert note, f"no missed finish planted in {MAX_HANDS} hands"
            planted_at = time.monotonic() - started
            print(f"a missed finish in hand {hand} after {planted_at:.1f} s ({len(me.planted)} planted)")

        # ---- the end-of-hand screen of that hand opens its replay
        await page.wait_for_selector("#handend[open] #handend-replay", timeout=TIMEOUT_MS)
        assert f"{hand}. el bitti" in (await page.locator("#handend h3").text_content() or "")
        await page.click("#handend-replay")
        await page.wait_for_selector("#screen-replay:not([hidden]) #replay-board", timeout=TIMEOUT_MS)
        assert page.url.endswith(f"#/replay/{table_id}/{hand}"), page.url  # the share link
        assert await page.text_content("#replay-title") == f"{hand}. elin tekrarı"
        events = replay["events"]
        assert await page.evaluate("() => okeyApp.replay().steps") == len(events)
        assert await _step(page) == 0
        await _axe(page, "the replay, desktop")

        # ---- the deal's fairness panel is the server's
        assert replay.get("verified") is True
        assert (await page.text_content("#replay-verified") or "").strip() == "doğrulandı ✓"
        assert await page.text_content("#replay-commitment") == replay["commitment"]
        assert await page.text_content("#replay-salt") == replay["salt"]
        assert await page.text_content("#replay-verify-cmd") == f"okey verify-deal {table_id} {hand}"

        # ---- every rack face up at the deal: the racks as dealt
        start = await page.evaluate(SNAP_JS)
        dealt = [sorted(int(t.get("id", 0)) for t in r["tiles"]) for r in replay["racks"]]
        assert [sorted(r) for r in start["racks"]] == dealt
        assert all(c == 0 for c, _ in start["piles"]), start["piles"]

        # ---- stepping forward and back to the first discard: the racks and piles change, then come back
        first = next(i for i, e in enumerate(events) if e["kind"] == "TileDiscarded")
        for k in range(1, first + 1):
            await page.click("#replay-next")
            await _at_step(page, k)
        moved = await page.evaluate(SNAP_JS)
        assert (moved["racks"], moved["piles"]) != (start["racks"], start["piles"]), "a discard changed nothing"
        assert sum(c for c, _ in moved["piles"]) == 1, moved["piles"]  # the discard lies on its seat's pile
        for k in range(first - 1, -1, -1):
            await page.click("#replay-prev")
            await _at_step(page, k)
        back = await page.evaluate(SNAP_JS)
        assert (back["racks"], back["piles"]) == (start["racks"], start["piles"])
        # ... and by the keyboard's arrows
        await page.focus("#replay-title")
        for _ in range(first):
            await page.keyboard.press("ArrowRight")
        await _at_step(page, first)
        assert (await page.evaluate(SNAP_JS))["piles"] == moved["piles"]
        for _ in range(first):
            await page.keyboard.press("ArrowLeft")
        await _at_step(page, 0)
        assert (await page.evaluate(SNAP_JS))["racks"] == start["racks"]

        # ---- the notes listed, each hindsight note marked "sonradan bakınca"
        listed = page.locator("#replay-notes button.replay-note")
        assert await listed.count() == len(replay.get("notes", []))
        for k, n in enumerate(replay.get("notes", [])):
            mark = listed.nth(k).locator(".badge.hindsight")
            if n.get("hindsight"):
                assert (await mark.text_content() or "").strip() == "sonradan bakınca", n
            else:
                assert not await mark.count(), n

        # ---- the missed finish in the notes: a click jumps to its move and shows its text
        version = int(note["version"])
        at = next(i for i, e in enumerate(events) if int(e["version"]) == version)
        button = page.locator(f'#replay-notes button.replay-note[data-kind="{MISSED}"][data-version="{version}"]')
        assert await button.count() == 1
        await button.click()
        await _at_step(page, at)
        shown = page.locator(f'#replay-move-notes .note[data-kind="{MISSED}"][data-version="{version}"] .note-text')
        assert (await shown.text_content() or "").strip() == _note_shown(note["text"], "tr").strip()
        moved = events[at]
        snap = await page.evaluate(SNAP_JS)
        if moved["kind"] == "TileDiscarded":  # a rack that could finish, and a discard
            assert int(moved["tileDiscarded"].get("seat", 0)) == seat, moved
            discarded = int(moved["tileDiscarded"]["tile"].get("id", 0))
            assert snap["piles"][seat][1][-1] == discarded  # the discard is on the seat's pile
            assert discarded not in snap["racks"][seat]
            verb = "attı"
        else:  # a side tile that would have finished, and a draw from the deck
            assert moved["kind"] == "TileDrawn" and int(moved["tileDrawn"].get("seat", 0)) == seat, moved
            assert int(moved["tileDrawn"]["tile"].get("id", 0)) in snap["racks"][seat]
            assert len(snap["racks"][seat]) == 15
            verb = "desteden çekti"
        step_line = await page.text_content("#replay-step") or ""
        assert verb in step_line, step_line
        await page.screenshot(path=str(ARTIFACTS / "replay-desktop.png"))

        # ---- the end: the fold's racks are the server's, and its numbers are the hand end's
        await page.click("#replay-end")
        await _at_step(page, len(events) - 1)
        ended = events[-1]
        body = ended.get("handEnded") or {}
        finisher = int(body.get("finisher", 0)) if body.get("reason") == "HAND_END_REASON_FINISHED" else -1
        snap = await page.evaluate(SNAP_JS)
        for s, rack in enumerate(body.get("racks", [])):
            if s != finisher:
                assert sorted(snap["racks"][s]) == sorted(int(t.get("id", 0)) for t in rack.get("tiles", [])), s
        cells = await page.locator('#replay-end-panel td[data-col="deltas"]').all_text_contents()
        assert [int(x) for x in cells] == [int(d) for d in body.get("deltas", [0, 0, 0, 0])], cells

        await _axe(page, "the replay's last step, desktop")

        # ---- Paylaş copies the share link
        await page.click("#replay-share")
        link = await page.evaluate("() => navigator.clipboard.readText()")
        assert link == f"{base}/#/replay/{table_id}/{hand}", link

        # ---- English, and a phone on its side: the controls fit, no sideways scroll, axe clean
        await page.click('.lang button[data-lang="en"]')
        assert await page.text_content("#replay-title") == f"Replay of hand {hand}"
        await page.click(f'#replay-notes button.replay-note[data-version="{version}"]')
        await _at_step(page, at)
        assert (await shown.text_content() or "").strip() == _note_shown(note["text"], "en").strip()
        await page.set_viewport_size(PHONE_LANDSCAPE)
        wide = await page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert wide <= 1, f"the replay scrolls sideways by {wide} px at 844x390"
        for sel in ("#replay-start", "#replay-prev", "#replay-play", "#replay-next", "#replay-end"):
            box = await page.locator(sel).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE_LANDSCAPE["width"], (sel, box)
        await _axe(page, "the replay, phone landscape, English")
        await page.screenshot(path=str(ARTIFACTS / "replay-phone.png"))
        await page.click('.lang button[data-lang="tr"]')

        # ---- play at 4x runs to the end by itself
        await page.select_option("#replay-speed", "4")
        await page.click("#replay-start")
        await page.click("#replay-play")
        assert await page.get_attribute("#replay-play", "data-playing") == "true"
        await page.wait_for_function("() => okeyApp.replay().at >= 3")
        await page.click("#replay-play")  # pause
        paused = await _step(page)
        await asyncio.sleep(0.6)
        assert await _step(page) == paused and await page.get_attribute("#replay-play", "data-playing") == "false"
    finally:
        await ctx.close()
    assert not errors, errors
    print(f"the replay view test took {time.monotonic() - started:.1f} s")


FOLD_JS = """() => ({
  racks: Array.from(document.querySelectorAll('#replay-board [data-rack]')).map(
    (r) => Array.from(r.querySelectorAll('[data-tile]')).map((t) => Number(t.dataset.tile)).sort((a, b) => a - b)),
  melds: Array.from(document.querySelectorAll('#replay-board .replay-melds [data-meld]')).map(
    (m) => Array.from(m.querySelectorAll('[data-tile]')).map((t) => Number(t.dataset.tile))),
  points: Array.from(document.querySelectorAll('#replay-end-panel td[data-col="points"]')).map((c) => c.textContent),
  totals: Array.from(document.querySelectorAll('#replay-end-panel td[data-col="totals"]')).map((c) => c.textContent),
})"""


async def test_46_3_an_okey_101_replay_folds_to_the_server_s_hand_end_with_its_melds(
    browser: Any, replay_stack: okeystack.Stack
) -> None:
    """Okey 101: the person's seat plays okeycore's greedy 101 moves over HTTP (it opens, lays and
    adds) with EASY bots; the page's replay of hand 1, folded to its last step, holds each seat's
    rack as the server's HandEnded101 has it (while the hand was played, the page showed the
    HAND_NOT_ENDED refusal), the melds laid on the table (every tile laid is in
    no rack), and the hand end's points and totals as they are."""
    from okeycore.okey101.bots import GreedyBot101

    base = f"http://{replay_stack.http_address}"
    errors: list[str] = []
    ctx = await browser.new_context(viewport=DESKTOP, locale="tr-TR")
    page = await ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        await page.goto(base + "/")
        await page.wait_for_selector("#screen-signin:not([hidden])")
        await page.fill("#signin-name", "Yüzbir İzleyen")
        await page.click("#signin-submit")
        await page.wait_for_selector("#screen-lobby:not([hidden])")
        token = await page.evaluate("() => okeyApp.state.token")
        async with httpx.AsyncClient(base_url=base, timeout=15) as http:
            options = {"game": "GAME_OKEY101", "turnSeconds": 60, "handBreakSeconds": 30, "botLevel": "BOT_LEVEL_EASY"}
            r = await http.post(
                LOBBY + "OpenTable",
                json={"options": options, "visibility": "TABLE_VISIBILITY_PRIVATE", "fillWithBots": True},
                headers={"authorization": f"Bearer {token}"},
            )
            assert r.status_code == 200, r.text
            table_id, seat = r.json()["table"]["tableId"], int(r.json().get("seat", 0))
            me = Seat(http, token, table_id, seat, plain=GreedyBot101(3))
            # while hand 1 is played its replay is refused, in the page's words (err.HAND_NOT_ENDED)
            await page.goto(f"{base}/#/replay/{table_id}/1")
            refused = page.locator('#replay-error[data-reason="HAND_NOT_ENDED"]')
            await refused.wait_for(timeout=TIMEOUT_MS)
            assert (await refused.text_content() or "").startswith("Bu el sürüyor")
            end = await me.play_hand()
            hand = int(end.get("hand", 0))
            replay = (await me.call(TABLE + "GetReplay", {"tableId": table_id, "hand": hand}))["replay"]
        events = replay["events"]
        if hand == 1:
            await page.reload()  # the same address: the page asks again
        else:
            await page.goto(f"{base}/#/replay/{table_id}/{hand}")
        await page.wait_for_selector("#screen-replay:not([hidden]) #replay-board", timeout=TIMEOUT_MS)
        await page.click("#replay-end")
        await _at_step(page, len(events) - 1)
        fold = await page.evaluate(FOLD_JS)
        last = events[-1]
        opened = [e for e in events if e["kind"] == "MeldsOpened"]
        print(f"101 hand {hand}: {len(events)} events, {len(opened)} openings, ends {last['kind']}")
        assert last["kind"] in ("HandEnded101", "HandVoided"), last["kind"]
        body = last.get("handEnded101") or last.get("handVoided") or {}
        final = body.get("finalTile")
        for s, rack in enumerate(body.get("racks", [])):
            want = sorted(int(t.get("id", 0)) for t in rack.get("tiles", []))
            if final and body.get("reason") == "HAND_END_REASON_FINISHED" and s == int(body.get("finisher", 0)):
                want = sorted(x for x in want if x != int(final.get("id", 0)))
            assert fold["racks"][s] == want, (s, fold["racks"][s], want)
        laid = [x for m in fold["melds"] for x in m]
        assert len(laid) == len(set(laid)) and not set(laid) & {x for r in fold["racks"] for x in r}
        if opened:
            assert fold["melds"], "melds were opened and none is on the replay's table"
        if last["kind"] == "HandEnded101":
            assert [int(x) for x in fold["points"]] == [int(p) for p in body.get("points", [0] * 4)]
            assert [int(x) for x in fold["totals"]] == [int(p) for p in body.get("totals", [0] * 4)]
        await page.screenshot(path=str(ARTIFACTS / "replay-101.png"))
    finally:
        await ctx.close()
    assert not errors, errors

"""Issue 45.1 and 45.3, the skill rating on the screen, in a real browser at 1366x768: two people
(two browser contexts) play a ranked one-point Okey match with two bots (each person's seat moved
over gRPC with the page's own token, a greedy bot's moves; the bots at once), and each page shows
the scoring service's numbers as they are: the result screen each rated seat's rating before,
after and change (GetMatchResult), the lobby's panel the rating leaderboard this week and all
time (GetLeaderboard, order RATING), and the profile the rating per game (GetPlayerStats), "henüz
derecesiz" for the game not played. Screenshots go to artifacts/rating-*.png."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import pytest
from okeyplatform.client import TableClient
from okeytools import stack as okeystack
from test_browser import ARTIFACTS

TIMEOUT_MS = 20_000
MATCH_S = 120.0  # a hang guard for a one-point match, not a speed check
VIEWPORT = {"width": 1366, "height": 768}
LIVE_JS = "() => { const t = okeyApp.state.t; return t && t.view && t.live; }"

CALL_JS = """async ([path, body]) => {
  const r = await fetch('/api/okey.v1.' + path, {method: 'POST',
    headers: {'content-type': 'application/json', authorization: 'Bearer ' + okeyApp.state.token},
    body: JSON.stringify(body)});
  return [r.status, await r.json()];
}"""


@pytest.fixture(scope="module")
def rating_stack(make_module_stack: Callable[..., okeystack.Stack]) -> okeystack.Stack:
    env = {
        "OKEY_BOTS_PACE": "instant",
        "OKEY_BOTS_STRATEGY": "greedy",
        "OKEY_RATE_LIMIT": "1000",
        "OKEY_RATE_BURST": "1000",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",
    }
    return make_module_stack(
        ("table", "lobby", "scoring", "bots", "gateway"), env=env, label="rating", private_nats=True
    )


class Person:
    def __init__(self, page: Any, name: str) -> None:
        self.page = page
        self.name = name
        self.errors: list[str] = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    @classmethod
    async def sign_in(cls, browser: Any, base: str, name: str) -> Person:
        ctx = await browser.new_context(viewport=VIEWPORT, locale="tr-TR")
        p = cls(await ctx.new_page(), name)
        await p.page.goto(base + "/")
        await p.page.wait_for_selector("#screen-signin:not([hidden])")
        await p.page.fill("#signin-name", name)
        await p.page.click("#signin-submit")
        await p.page.wait_for_selector("#screen-lobby:not([hidden])")
        return p

    async def call(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        status, answer = await self.page.evaluate(CALL_JS, [path, body])
        assert status == 200, (path, answer)
        return dict(answer)

    async def me(self) -> str:
        return str(await self.page.evaluate("() => okeyApp.state.me.id"))

    async def at_table(self, base: str, table_id: str, seat: int) -> None:
        await self.page.goto(f"{base}/#/table/{table_id}/{seat}")
        await self.page.wait_for_selector("#screen-table:not([hidden])", timeout=TIMEOUT_MS)
        await self.page.wait_for_function(LIVE_JS, timeout=TIMEOUT_MS)


MINE_JS = """async ([game, period]) => {
  const { drawBoard } = await import('/leaderboard.js');
  const box = document.createElement('div');
  await drawBoard(box, game, period, 1);
  const row = box.querySelector('tfoot tr.mine');
  return [box.querySelectorAll('tbody tr').length,
    row && {...row.dataset, cells: Array.from(row.children).map(c => c.textContent.trim())}];
}"""


async def _own_row_below_a_short_board(p: Person, game: str, period: str) -> bool:
    """With the top 1 only, a caller below it gets their own row under the list: GetLeaderboard's
    ``mine`` as it is ("Sen", its rank and rating); one at the top gets none. True if shown."""
    board = await p.call(
        "ScoringService/GetLeaderboard",
        {"game": game, "period": period, "order": "LEADERBOARD_ORDER_RATING", "pageSize": 1},
    )
    shown, row = await p.page.evaluate(MINE_JS, [game, period])
    assert shown == 1
    mine = board["mine"]
    assert mine["playerId"] == await p.me()
    if board["entries"][0]["playerId"] == mine["playerId"]:
        assert row is None
        return False
    assert row["player"] == mine["playerId"] and row["rank"] == str(int(mine["rank"]))
    assert row["rating"] == str(int(mine.get("rating", 0)))
    assert row["cells"][:3] == [str(int(mine["rank"])), "Sen", tr_number(int(mine.get("rating", 0)))], row
    return True


def tr_number(x: int) -> str:
    """A whole number as a Turkish page writes it: 1.512, -7."""
    return f"{x:,}".replace(",", ".")


def tr_change(x: int) -> str:
    return ("+" if x > 0 else "") + tr_number(x)


def _dash(s: str) -> str:
    return s.replace("\u2212", "-")  # a locale's minus sign is a minus


async def _play_seat_to_match_end(grpc_addr: str, token: str, table_id: str, seat: int, stop: asyncio.Event) -> None:
    """The person's seat over gRPC with the page's token: a greedy bot's moves until the match ends."""
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


async def _result_shows_the_server_s_rating_changes(p: Person, table_id: str) -> dict[str, Any]:
    """Each rated seat's cell is GetMatchResult's before, after and change, "1.000 → 1.012 (+12)";
    a bot's cell is empty; nothing is computed."""
    page = p.page
    await page.wait_for_selector("#result-dialog[open] table.standings td.rating[data-change]", timeout=TIMEOUT_MS)
    result = (await p.call("ScoringService/GetMatchResult", {"tableId": table_id}))["result"]
    assert not result.get("practice"), result
    rated = [s for s in result["standings"] if s.get("rating")]
    assert len(rated) == 2 and all(s.get("playerId") for s in rated), result["standings"]
    for s in result["standings"]:
        cell = page.locator(f'#result-dialog table.standings tr[data-seat="{int(s.get("seat", 0))}"] td.rating')
        rc = s.get("rating")
        if not rc:
            assert (await cell.text_content() or "").strip() == "", s  # a bot: not rated
            continue
        before, after, change = (int(rc.get(k, 0)) for k in ("before", "after", "change"))
        assert await cell.get_attribute("data-before") == str(before)
        assert await cell.get_attribute("data-after") == str(after)
        assert await cell.get_attribute("data-change") == str(change)
        text = _dash(await cell.text_content() or "")
        assert text == f"{tr_number(before)} → {tr_number(after)} ({tr_change(change)})", text
    heads = await page.locator("#result-dialog table.standings th[scope=col]").all_text_contents()
    assert "Derece" in heads, heads
    assert not await page.locator("#result-unrated").count()
    return dict(result)


async def _board_is_the_server_s(p: Person, game: str, period: str) -> list[dict[str, Any]]:
    """The lobby panel's rows are GetLeaderboard's (order RATING), in its order, with its numbers."""
    page = p.page
    board = await p.call(
        "ScoringService/GetLeaderboard",
        {"game": game, "period": period, "order": "LEADERBOARD_ORDER_RATING", "pageSize": 10},
    )
    entries = board.get("entries", [])
    await page.wait_for_selector(
        f'#ranks-board table[data-game="{game}"][data-period="{period}"] tbody tr', timeout=TIMEOUT_MS
    )
    rows = await page.eval_on_selector_all(
        "#ranks-board tbody tr",
        "rows => rows.map(r => ({player: r.dataset.player, rank: r.dataset.rank, rating: r.dataset.rating,"
        " change: r.dataset.change, cells: Array.from(r.children).map(c => c.textContent.trim()),"
        " me: r.classList.contains('me')}))",
    )
    assert [r["player"] for r in rows] == [e["playerId"] for e in entries]
    weekly = period == "LEADERBOARD_PERIOD_WEEKLY"
    for row, e in zip(rows, entries, strict=True):
        assert row["rank"] == str(int(e.get("rank", 0)))
        assert row["rating"] == str(int(e.get("rating", 0)))
        assert row["cells"][0] == str(int(e.get("rank", 0)))
        assert row["cells"][2] == tr_number(int(e.get("rating", 0)))
        last = tr_change(int(e.get("ratingChange", 0))) if weekly else str(int(e.get("ratedMatches", 0)))
        assert _dash(row["cells"][3]) == last, (row, e)
    return rows


async def test_45_a_ranked_match_shows_the_scoring_service_s_rating_on_every_screen(
    browser: Any, rating_stack: okeystack.Stack
) -> None:
    base = f"http://{rating_stack.http_address}"
    ayse = await Person.sign_in(browser, base, "Ayşe Derece")
    baris = await Person.sign_in(browser, base, "Barış Derece")
    # Before any match: the lobby panel is there, empty; the profile says "not rated yet".
    await ayse.page.wait_for_selector("#ranks-panel #ranks-board p", timeout=TIMEOUT_MS)
    assert await ayse.page.text_content("#ranks-title") == "Derece sıralaması"

    # A ranked table: two people and two bots, one point (one finished hand ends the match).
    options = {"game": "GAME_OKEY", "matchPoints": 1, "handBreakSeconds": 0}
    opened = await ayse.call(
        "LobbyService/OpenTable", {"options": options, "visibility": "TABLE_VISIBILITY_PUBLIC", "fillWithBots": False}
    )
    table_id = opened["table"]["tableId"]
    joined = await baris.call("LobbyService/JoinTable", {"tableId": table_id})
    await ayse.call("LobbyService/FillWithBots", {"tableId": table_id})
    seats = {ayse.name: int(opened.get("seat", 0)), baris.name: int(joined.get("seat", 0))}
    people = [ayse, baris]
    for p in people:
        await p.at_table(base, table_id, seats[p.name])
    stop = asyncio.Event()
    tasks = []
    for p in people:
        token = await p.page.evaluate("() => okeyApp.state.token")
        tasks.append(
            asyncio.create_task(
                _play_seat_to_match_end(rating_stack.address("table"), token, table_id, seats[p.name], stop)
            )
        )
    try:
        for p in people:
            await p.page.wait_for_selector("#result-dialog[open]", timeout=MATCH_S * 1000)
        result = await _result_shows_the_server_s_rating_changes(ayse, table_id)
        await _result_shows_the_server_s_rating_changes(baris, table_id)
    finally:
        stop.set()
        for t in tasks:
            with contextlib.suppress(Exception):
                await t
    await ayse.page.screenshot(path=str(ARTIFACTS / "rating-result.png"))

    # The lobby's panel: this week's board by the week's change, then all time by rating.
    page = ayse.page
    await page.click("#result-lobby")
    await page.wait_for_selector("#screen-lobby:not([hidden])")
    weekly = await _board_is_the_server_s(ayse, "GAME_OKEY", "LEADERBOARD_PERIOD_WEEKLY")
    ids = {await ayse.me(), await baris.me()}
    assert ids <= {r["player"] for r in weekly}, weekly
    (mine,) = [r for r in weekly if r["me"]]
    assert mine["player"] == await ayse.me() and "Ayşe Derece" in mine["cells"][1]
    await page.screenshot(path=str(ARTIFACTS / "rating-lobby-week.png"))
    await page.click('#ranks-panel button[data-period="LEADERBOARD_PERIOD_ALL_TIME"]')
    assert (
        await page.get_attribute('#ranks-panel button[data-period="LEADERBOARD_PERIOD_ALL_TIME"]', "aria-pressed")
        == "true"
    )
    alltime = await _board_is_the_server_s(ayse, "GAME_OKEY", "LEADERBOARD_PERIOD_ALL_TIME")
    assert ids <= {r["player"] for r in alltime}, alltime
    await page.screenshot(path=str(ARTIFACTS / "rating-lobby.png"))
    # Below a board of one: the one of the two not on top sees their own place.
    below = [await _own_row_below_a_short_board(p, "GAME_OKEY", "LEADERBOARD_PERIOD_ALL_TIME") for p in people]
    assert sorted(below) == [False, True], below
    # Okey 101: nobody has played it here.
    await page.click('#ranks-panel button[data-game="GAME_OKEY101"]')
    await page.wait_for_selector("#ranks-board p.help", timeout=TIMEOUT_MS)

    # The profile: the rating per game as GetPlayerStats gives it.
    ayse_id = await ayse.me()
    stats = (await ayse.call("ScoringService/GetPlayerStats", {"playerId": ayse_id}))["stats"]
    (okey,) = [s for s in stats if s.get("game") == "GAME_OKEY"]
    rating = okey["rating"]
    mine_after = next(s["rating"]["after"] for s in result["standings"] if s.get("playerId") == ayse_id)
    assert int(rating["display"]) == int(mine_after)  # the profile and the result screen agree
    await page.click("#profile-open")
    line = page.locator('#profile-rating li[data-game="GAME_OKEY"]')
    await line.wait_for(timeout=TIMEOUT_MS)
    assert await line.get_attribute("data-rating") == str(int(rating["display"]))
    assert await line.get_attribute("data-matches") == str(int(rating.get("matches", 0)))
    text = await line.text_content() or ""
    assert tr_number(int(rating["display"])) in text and f"{int(rating.get('matches', 0))} dereceli maç" in text, text
    assert "henüz derecesiz" in (await page.text_content('#profile-rating li[data-game="GAME_OKEY101"]') or "")
    await page.wait_for_selector("#leaderboard table.leaders tbody tr", timeout=TIMEOUT_MS)
    await page.screenshot(path=str(ARTIFACTS / "rating-profile.png"))
    await page.click("#profile-close")

    # In English too.
    await page.click(".lang button[data-lang=en]")
    assert await page.text_content("#ranks-title") == "Rating leaderboard"
    await page.wait_for_selector('#ranks-board table[data-game="GAME_OKEY101"], #ranks-board p.help')
    assert not ayse.errors and not baris.errors, (ayse.errors, baris.errors)

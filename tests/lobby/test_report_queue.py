"""The report queue (issue 39.6) on the lobby's use cases over a real PostgreSQL: a reporter
files at most ``Limits.reports_per_day`` reports a Turkish day (TOO_MANY_REPORTS); the queue is
ordered most severe first, then by how many players reported the same player, then newest, and
read in pages whose tokens reach every report exactly once; a resolve reads back only its own
report, so it works whatever the queue's size."""

from __future__ import annotations

import pytest
from lobby_helpers import Clock, FakeTables, Guest
from okeyplatform.auth import Identity

from services.lobby.app import LobbyApp
from services.lobby.errors import Flood, Invalid
from services.lobby.policy import Limits
from services.lobby.store import LobbyStore

MOD = Identity("mod-1", "moderator")  # no lobby_staff row: a moderator by its token


async def _ids(app: LobbyApp, include_resolved: bool = False, size: int = 200) -> list[int]:
    """Every report id of the queue, page by page."""
    out, token = [], ""
    while True:
        page, token = await app.report_page(MOD, include_resolved, size, token)
        out += [r.report_id for r, _, _ in page]
        if not token:
            return out


async def test_a_reporter_files_at_most_the_daily_cap(app: LobbyApp, guest: Guest, clock: Clock) -> None:
    flooder = await guest("Selci")
    targets = [await guest() for _ in range(21)]
    for t in targets[:20]:
        await app.report(flooder, t.subject, "ABUSE", "", [], "")
    with pytest.raises(Flood) as capped:
        await app.report(flooder, targets[20].subject, "ABUSE", "", [], "")
    assert capped.value.reason == "TOO_MANY_REPORTS"
    assert len(await _ids(app)) == 20  # the refused one was not filed
    other = await guest("Baskasi")
    await app.report(other, targets[20].subject, "ABUSE", "", [], "")  # the cap is the reporter's own
    clock.advance(hours=12)  # past midnight in Turkey (12:00 UTC is 15:00 there)
    await app.report(flooder, targets[20].subject, "ABUSE", "", [], "")


async def test_no_cap_when_the_limit_is_0(lobby_store: LobbyStore, fake_tables: FakeTables, clock: Clock) -> None:
    app = LobbyApp(lobby_store, fake_tables, clock=clock, limits=Limits(reports_per_day=0))
    me = Identity((await app.sign_in_guest("Sinirsiz", "dev-x"))[0].player_id, "player")
    for i in range(25):
        other = (await app.sign_in_guest(f"Hedef{i}", f"dev-{i}"))[0].player_id
        await app.report(me, other, "OTHER", "", [], "")
    assert len(await _ids(app)) == 25


async def test_the_queue_is_most_severe_then_most_reporters_then_newest(app: LobbyApp, guest: Guest) -> None:
    r1, r2, r3, r4, r5, flooder = [await guest() for _ in range(6)]
    x, y, z, w = [await guest() for _ in range(4)]
    stalling = await app.report(r1, x.subject, "STALLING", "", [], "")
    y_first = await app.report(r2, y.subject, "ABUSE", "", [], "")
    y_second = await app.report(r3, y.subject, "ABUSE", "", [], "")
    doxx = await app.report(r4, z.subject, "PERSONAL_INFO", "", [], "")
    flood = [await app.report(flooder, (await guest()).subject, "ABUSE", "", [], "") for _ in range(5)]
    late = await app.report(r5, w.subject, "ABUSE", "", [], "")

    assert await _ids(app) == [doxx, y_second, y_first, late, *reversed(flood), stalling]
    [(first, _, _)] = (await app.report_page(MOD, False, 1, ""))[0]
    assert first.report_id == doxx and first.severity == 5
    ys = [r for r, _, _ in (await app.report_page(MOD, False, 10, ""))[0] if r.player_id == y.subject]
    assert [r.reporters for r in ys] == [2, 2]

    # Resolving one report against y recounts the other: back among the single reports.
    await app.resolve_report(MOD, y_second, "DISMISS", 0, "")
    assert await _ids(app) == [doxx, late, *reversed(flood), y_first, stalling]
    assert await _ids(app, include_resolved=True) == [doxx, late, *reversed(flood), y_first, stalling, y_second]


async def test_pages_reach_every_report_exactly_once(app: LobbyApp, guest: Guest) -> None:
    reporters = [await guest() for _ in range(4)]
    targets = [await guest() for _ in range(6)]
    reasons = ["ABUSE", "OTHER", "COLLUSION", "ADVERTISING", "PERSONAL_INFO", "STALLING"]
    for i, t in enumerate(targets):
        for r in reporters[: 1 + i % 4]:
            await app.report(r, t.subject, reasons[i], "", [], "")
    whole = await _ids(app, size=200)
    assert len(whole) == sum(1 + i % 4 for i in range(6))
    for size in (1, 2, 3, 7):
        assert await _ids(app, size=size) == whole
    await app.resolve_report(MOD, whole[0], "WARN", 0, "uyarı")
    every = await _ids(app, include_resolved=True, size=4)
    assert sorted(every) == sorted(whole) and every[-1] == whole[0]  # resolved ones after the open
    page, token = await app.report_page(MOD, False, 3, "")
    assert len(page) == 3 and token
    for bad in ("x", "bm90LmEua2V5", "OS45LjkuOS45"):
        with pytest.raises(Invalid):
            await app.report_page(MOD, False, 3, bad)


async def test_a_resolve_works_whatever_the_queue_s_size(
    lobby_store: LobbyStore, fake_tables: FakeTables, clock: Clock
) -> None:
    app = LobbyApp(lobby_store, fake_tables, clock=clock, limits=Limits(reports_per_day=0))
    me = Identity((await app.sign_in_guest("Gozcu", "dev-g"))[0].player_id, "player")
    ids = []
    for i in range(205):
        other = (await app.sign_in_guest(f"Kisi{i}", f"dev-{i}"))[0].player_id
        ids.append(await app.report(me, other, "OTHER", "", [], ""))
    # The oldest is last in the queue, past any one page: resolving it returns it all the same.
    report, _, _ = await app.resolve_report(MOD, ids[0], "DISMISS", 0, "")
    assert report.report_id == ids[0] and report.status == "RESOLVED"
    assert ids[0] not in await _ids(app)

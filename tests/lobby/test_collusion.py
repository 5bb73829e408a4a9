"""Fair play: ``okey review collusion`` flags a pair who sit together unusually often AND feed each
other's discards, from the event log, and leaves honest regulars and honest strangers alone."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys

import asyncpg
from okeyplatform.eventstore import NewEvent, PostgresEventStore, migrate
from okeytools.collusion import CollusionScan

from services.lobby.store import MIGRATIONS, SCOPE

PLAYERS = [f"p{i:02d}" for i in range(16)]
CHEATS = ("p00", "p01")  # p01 sits right after p00 and takes what p00 throws
FRIENDS = ("p02", "p03")  # play together often but honestly


def synthetic_log(seed: int = 7) -> list[tuple[str, list[NewEvent]]]:
    """Tables of four: random strangers, honest friends together, and the cheating pair, who
    sit side by side and take each other's discards far more often than anyone else."""
    rng = random.Random(seed)
    tables: list[tuple[str, list[NewEvent]]] = []
    for t in range(60):
        if t % 5 == 0:
            seats = [CHEATS[0], CHEATS[1], *rng.sample([p for p in PLAYERS if p not in CHEATS], 2)]
        elif t % 5 == 1:
            seats = [FRIENDS[0], FRIENDS[1], *rng.sample([p for p in PLAYERS if p not in FRIENDS], 2)]
        else:
            seats = rng.sample(PLAYERS, 4)
        if t % 7 == 3:
            seats[3] = ""  # a bot seat
        table_id = f"table-{t}"
        events = [NewEvent("TableCreated", {"table_id": table_id, "options": {"game": "OKEY"}, "players": seats})]
        for turn in range(48):
            seat, nxt = turn % 4, (turn + 1) % 4
            events.append(
                NewEvent("TileDiscarded", {"seat": seat, "tile": turn, "next_seat": nxt, "deadline_ms": 0}, 1)
            )
            feeding = (seats[seat], seats[nxt]) == CHEATS or (seats[seat], seats[nxt]) == CHEATS[::-1]
            take = rng.random() < (0.7 if feeding else 0.12)
            events.append(
                NewEvent(
                    "TileDrawn", {"seat": nxt, "tile": turn if take else -1, "source": "DISCARD" if take else "DECK"}, 1
                )
            )
        tables.append((table_id, events))
    return tables


def test_the_cheating_pair_is_flagged_and_honest_friends_are_not() -> None:
    scan = CollusionScan()
    for table_id, events in synthetic_log():
        for e in events:
            scan.add(table_id, e.type, e.data)
    report = scan.report()
    assert [(p.a, p.b) for p in report.flagged] == [CHEATS]
    cheats = report.flagged[0]
    assert cheats.tables >= 12 and cheats.lift > 2 and cheats.feed_rate > 0.5 > 0.2 > report.baseline_rate
    friends = next(p for p in report.pairs if (p.a, p.b) == FRIENDS)
    assert friends.tables >= 12 and friends.lift > 2  # they do sit together a lot ...
    assert friends not in report.flagged  # ... but do not feed each other
    assert all("" not in (p.a, p.b) for p in report.pairs)  # bots are nobody's partner


def test_a_take_counts_only_right_after_the_previous_seat_s_discard() -> None:
    scan = CollusionScan()
    scan.add("t", "TableCreated", {"players": ["a", "b", "c", "d"]})
    scan.add("t", "TileDiscarded", {"seat": 0, "next_seat": 1, "tile": 5})
    scan.add("t", "TileDrawn", {"seat": 1, "source": "DISCARD", "tile": 5})  # b took a's discard
    scan.add("t", "TileDiscarded", {"seat": 1, "next_seat": 2, "tile": 6})
    scan.add("t", "TurnTimedOut", {"seat": 2})
    scan.add("t", "TileDrawn", {"seat": 2, "source": "DISCARD", "tile": 6})  # not right after: no feed
    scan.add("t", "TileDiscarded", {"seat": 2, "next_seat": 3, "tile": 7})
    scan.add("t", "TileDrawn", {"seat": 3, "source": "DECK", "tile": -1})
    scan.add("t", "TileDiscarded", {"seat": 3, "next_seat": 0, "tile": 8})
    scan.add("t", "IndicatorShown", {"seat": 0})  # a's own show before drawing: still right after
    scan.add("t", "TileDrawn", {"seat": 0, "source": "DISCARD", "tile": 8})  # a took d's discard
    report = scan.report(min_tables=1)
    feeds = {(p.a, p.b): (p.feeds_ab, p.chances_ab, p.feeds_ba, p.chances_ba) for p in report.pairs}
    assert feeds[("a", "b")] == (1, 1, 0, 0)
    assert feeds[("b", "c")] == (0, 1, 0, 0)
    assert feeds[("c", "d")] == (0, 1, 0, 0)
    assert feeds[("a", "d")] == (0, 0, 1, 1)
    assert report.baseline_feeds == 2 and report.baseline_chances == 4


async def test_okey_review_collusion_reads_the_log_and_prints_a_readable_summary(fresh_database_url: str) -> None:
    store = await PostgresEventStore.connect(fresh_database_url, min_size=1, max_size=2)
    try:
        for table_id, events in synthetic_log():
            await store.append(table_id, 0, events)
    finally:
        await store.close()
    conn = await asyncpg.connect(fresh_database_url)
    try:
        await migrate(conn, MIGRATIONS, scope=SCOPE)  # the lobby's players give the pairs their names
        await conn.execute(
            "INSERT INTO lobby_players (player_id, display_name, name_key, created_at) VALUES "
            "('p00', 'Hilebaz Hasan', 'hilebazhasan', now()), ('p01', 'Ortak Osman', 'ortakosman', now())"
        )
    finally:
        await conn.close()
    okey = shutil.which("okey")
    cmd = [okey] if okey else [sys.executable, "-m", "okeytools.cli"]
    got = subprocess.run(
        [*cmd, "review", "collusion", "--database-url", fresh_database_url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert got.returncode == 0, got.stderr
    assert "events read" in got.stderr  # progress
    assert "read 5,820 events of 60 tables (16 players)" in got.stdout
    assert "FLAGGED 1 pair(s)" in got.stdout
    assert "Hilebaz Hasan (p00) & Ortak Osman (p01): 16 tables together" in got.stdout
    assert "p02" not in got.stdout


def test_okey_review_collusion_has_help() -> None:
    okey = shutil.which("okey")
    cmd = [okey] if okey else [sys.executable, "-m", "okeytools.cli"]
    got = subprocess.run([*cmd, "review", "collusion", "--help"], capture_output=True, text=True, timeout=60)
    assert got.returncode == 0 and "usage: okey review collusion" in got.stdout and "--min-tables" in got.stdout

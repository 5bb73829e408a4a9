"""Issue 46: ``okey export --all`` writes okeycore's coaching notes of every hand that ended (the
``coaching_notes`` table), and ``okey analytics --question missed-finishes`` answers how often a
seat that could finish did not, by game and player kind, over them."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from okeycore.classic import Stage
from okeycore.classic.bots import GreedyBot, RandomBot
from okeycore.classic.strategy import StrongBot
from okeycore.coaching import MISSED_FINISH, coach
from okeycore.commands import Command, Discard, Finish
from okeycore.events import Event, TableCreated, event_to_dict
from okeycore.okey101.simulate import Simulator101
from okeycore.okey101.strategy import StrongBot101
from okeycore.options import BotLevel, Game, TableOptions
from okeycore.simulate import Simulator
from okeyplatform.eventstore import NewEvent, PostgresEventStore
from okeytools import analytics
from okeytools.datasets import SCHEMAS, PlayerIds, tile_code

KEY = "test-key"
HAND_ENDS = ("HandEnded", "HandEnded101", "HandVoided")


def okey(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OKEY_DATABASE_URL": url, "OKEY_EXPORT_ID_KEY": KEY}
    got = subprocess.run(
        [sys.executable, "-m", "okeytools.cli", *args], env=env, capture_output=True, text=True, timeout=300
    )
    assert got.returncode == 0, got.stdout + got.stderr
    return got


class Careless:
    """A bot that, half the time, discards a random tile where it could finish: the missed
    finishes the coach notes. It plays as the greedy bot (seats ``random``: as the random bot,
    which seldom holds a finish at all)."""

    def __init__(self, seed: int, random_play: bool = False) -> None:
        self.inner: Any = RandomBot(seed) if random_play else GreedyBot(seed)
        self.rng = random.Random(seed + 100)

    def off_turn(self, view: Any) -> Command | None:
        off = getattr(self.inner, "off_turn", None)
        return off(view) if off else None

    def act(self, view: Any) -> Command:
        cmd: Command = self.inner.act(view)
        if isinstance(cmd, Finish) and view.stage is Stage.DISCARD and self.rng.random() < 0.5:
            return Discard(seat=cmd.seat, tile=self.rng.choice(view.rack))
        return cmd


def _matches() -> dict[str, list[Event]]:
    """Simulated matches (up to a few hands each): careless bots at an EASY table,
    strong bots beside two people at a HARD one, strong 101 bots at a HARD 101 table."""
    plays: list[tuple[str, Any, list[Any], TableOptions, tuple[str, ...]]] = [
        (
            "easy-careless",
            Simulator,
            [Careless(0), Careless(1, True), Careless(2), Careless(3, True)],
            TableOptions(bot_level=BotLevel.EASY),
            (),
        ),
        (
            "hard-strong",
            Simulator,
            [GreedyBot(0), StrongBot(1), GreedyBot(2), StrongBot(3)],
            TableOptions(bot_level=BotLevel.HARD),
            ("raw-ayse", "", "raw-ali", ""),
        ),
        (
            "hard-101",
            Simulator101,
            [StrongBot101(i) for i in range(4)],
            TableOptions(game=Game.OKEY101, rounds=3, bot_level=BotLevel.HARD),
            (),
        ),
    ]
    out = {}
    for k, (table_id, sim, bots, opts, people) in enumerate(plays):
        s = sim(opts, bots, seed=7 + k, table_id=table_id)
        while s.state.phase.value != "MATCH_OVER" and s.record.hands < 6:
            s.play_hand()
        events = list(s.events)
        first = events[0]
        assert isinstance(first, TableCreated)
        if people:
            events[0] = replace(first, players=people)
        out[table_id] = events
    return out


async def _append(url: str, matches: dict[str, list[Event]], start: int = 0) -> None:
    """The events into the log, from version ``start`` + 1 on."""
    store = await PostgresEventStore.connect(url, min_size=1, max_size=2)
    try:
        for table_id, events in matches.items():
            for version, e in enumerate(events, start=start):
                d = event_to_dict(e)
                kind = d.pop("type")
                await store.append(table_id, version, [NewEvent(kind, d, getattr(e, "hand", 0))])
    finally:
        await store.close()


def _expected(matches: dict[str, list[Event]]) -> list[tuple[Any, ...]]:
    """coach() of every hand that ended, as the table's rows (but ended_at)."""
    ids = PlayerIds(KEY.encode())
    rows = []
    for table_id, events in matches.items():
        created = events[0]
        assert isinstance(created, TableCreated)
        players = [ids(p) for p in (*created.players, "", "", "", "")[:4]]
        level = created.options.bot_level.value
        log = list(enumerate(events, start=1))
        for i, e in enumerate(events):
            if e.type in HAND_ENDS:
                for n in coach(log[: i + 1], e.hand).notes:  # type: ignore[attr-defined]
                    rows.append(
                        (table_id, e.hand, n.version, n.seat, players[n.seat],  # type: ignore[attr-defined]
                         level if players[n.seat] is None else None, created.options.game.value, n.kind,
                         n.hindsight, [tile_code(t) for t in n.tiles], n.points, n.turns)
                    )  # fmt: skip
    return sorted(rows, key=lambda r: (r[0], r[2], r[3], r[7]))


async def test_the_export_writes_the_coaching_notes_and_analytics_counts_the_missed_finishes(
    fresh_database_url: str, tmp_path: Path
) -> None:
    url = fresh_database_url
    matches = _matches()
    expected = _expected(matches)
    # a run in the middle of the careless table's match, and one after: the second folds its
    # first half again (its hands' notes are the first run's) and coaches the hands after it
    careless = matches.pop("easy-careless")
    half = len(careless) // 2
    await _append(url, {**matches, "easy-careless": careless[:half]})
    out = tmp_path / "export"
    first = okey(url, "export", "--all", "--out", str(out))
    await _append(url, {"easy-careless": careless[half:]}, start=half)
    matches["easy-careless"] = careless
    second = okey(url, "export", "--all", "--out", str(out))
    written = [json.loads((out / "_export.json").read_text())["runs"][k]["rows"]["coaching_notes"] for k in (0, 1)]
    assert sum(written) == len(expected) and all(written), written
    for run, got in zip(written, (first, second), strict=True):
        assert f"{run:,} notes" in got.stdout and "coached" in got.stdout, got.stdout

    con = analytics.connect(out)
    cols = [c[0] for c in con.execute("SELECT * FROM coaching_notes LIMIT 0").description or []]
    assert cols[: len(SCHEMAS["coaching_notes"])] == [c[0] for c in SCHEMAS["coaching_notes"]]
    assert cols[:12] == ["table_id", "hand", "version", "seat", "player", "bot_level", "game", "kind",
                         "hindsight", "tiles", "points", "turns"]  # fmt: skip
    rows = con.execute(
        "SELECT table_id, hand, version, seat, player, bot_level, game, kind, hindsight, tiles, points, turns "
        "FROM coaching_notes ORDER BY table_id, version, seat, kind"
    ).fetchall()
    assert rows == expected
    kinds = {r[7] for r in rows}
    assert MISSED_FINISH in kinds, kinds  # the careless bots miss finishes
    # a note is filed under its hand's end, as the hand's row is
    assert con.execute(
        "SELECT count(*) FROM coaching_notes n LEFT JOIN hands h USING (table_id, hand) "
        "WHERE h.ended_at IS NULL OR n.ended_at <> h.ended_at"
    ).fetchone() == (0,)
    assert "raw-ayse" not in "".join(str(r) for r in rows)

    # okey analytics --question missed-finishes: a row per (game, player kind)
    printed = okey(url, "analytics", str(out), "--question", "missed-finishes").stdout
    assert "[missed-finishes]" in printed and "possible = finished + missed" in printed
    table = {}
    for line in printed.splitlines():
        parts = line.split()
        if parts and parts[0] in ("classic", "101") and parts[1] in ("person", "bot"):
            player = "person" if parts[1] == "person" else f"bot {parts[2]}"
            nums = parts[2:] if parts[1] == "person" else parts[3:]
            table[(parts[0], player)] = [float(x) if "." in x else int(x) for x in nums]
    assert set(table) >= {("classic", "bot EASY"), ("classic", "bot HARD"), ("classic", "person")}, printed
    assert ("101", "bot HARD") in table, printed
    for possible, finished, missed, _pct in table.values():
        assert possible == finished + missed
    # the counts are the notes' and the hands' own
    finished = con.execute(
        "SELECT count(*) FROM hands WHERE table_id = 'easy-careless' AND outcome = 'FINISHED'"
    ).fetchone()
    missed = sum(1 for r in expected if r[0] == "easy-careless" and r[7] == MISSED_FINISH and not r[8])
    assert finished is not None and table[("classic", "bot EASY")][:3] == [finished[0] + missed, finished[0], missed]
    by_people = con.execute(
        "SELECT count(*) FILTER (WHERE finisher IN (0, 2)), count(*) FILTER (WHERE finisher IN (1, 3)) "
        "FROM hands WHERE table_id = 'hard-strong' AND outcome = 'FINISHED'"
    ).fetchone()
    assert by_people == (table[("classic", "person")][1], table[("classic", "bot HARD")][1])  # seats 0, 2: people
    easy, hard = table[("classic", "bot EASY")], table[("classic", "bot HARD")]
    assert easy[2] > 0 and hard[0] > 0
    assert easy[3] > hard[3], printed  # the careless random bots miss more of their finishes than the strong

    listed = okey(url, "analytics", str(out), "--list").stdout
    assert "missed-finishes" in listed
    helped = okey(url, "analytics", "--help").stdout
    assert "missed-finishes" in helped

    # --no-coaching: no notes, and the directory remembers it
    bare = tmp_path / "bare"
    got = okey(url, "export", "--all", "--no-coaching", "--format", "jsonl", "--out", str(bare))
    assert "coached" not in got.stdout
    assert not (bare / "coaching_notes").exists()
    assert json.loads((bare / "_export.json").read_text())["filters"]["coaching"] is False
    assert analytics.connect(bare).execute("SELECT count(*) FROM coaching_notes").fetchone() == (0,)


def test_a_seat_whose_player_left_is_a_bot_of_the_tables_level_from_then_on() -> None:
    """``NoteRows`` alone (no log, no files): every note of every hand that ended, as coach()
    gives it; a person's seat is theirs until they leave, a bot's of the table's level after."""
    from datetime import UTC, datetime

    from okeycore.commands import LeaveSeat
    from okeytools.coaching_stats import NoteRows

    opts = TableOptions(bot_level=BotLevel.HARD)
    sim = Simulator(opts, [Careless(i) for i in range(4)], seed=3, table_id="left", players=("raw-ayse", "", "", ""))
    sim.play_hand()
    sim.apply(LeaveSeat(seat=0))
    while sim.state.phase.value != "MATCH_OVER" and sim.record.hands < 6:
        sim.play_hand()
    events = list(sim.events)
    left_at = next(v for v, e in enumerate(events, start=1) if e.type == "SeatLeft")

    ids = PlayerIds(KEY.encode())
    rows: list[Any] = []
    notes = NoteRows(ids, rows)
    at = datetime(2026, 12, 7, tzinfo=UTC)
    for version, e in enumerate(events, start=1):
        d = event_to_dict(e)
        kind = d.pop("type")
        if kind in ("TileDrawn", "TileDiscarded"):
            notes.feed_move("left", version, kind, json.dumps(d))  # as the export passes them: stored JSON
        else:
            notes.feed("left", version, kind, d, at)
    log = list(enumerate(events, start=1))
    want = [
        (n.version, n.seat, n.kind, n.hindsight, [tile_code(t) for t in n.tiles], n.points, n.turns)
        for i, e in enumerate(events)
        if e.type in HAND_ENDS
        for n in coach(log[: i + 1], e.hand).notes  # type: ignore[attr-defined]
    ]
    assert [(r[2], r[3], r[7], r[8], r[9], r[10], r[11]) for r in rows] == want
    assert notes.hands == sum(1 for e in events if e.type in HAND_ENDS) and not notes.failed
    ayse = ids("raw-ayse")
    mine = [r for r in rows if r[3] == 0]
    assert any(r[2] < left_at for r in mine) and any(r[2] > left_at for r in mine), mine
    for r in rows:
        assert r[4] == (ayse if r[3] == 0 else None)
        assert r[5] == (None if r[3] == 0 and r[2] < left_at else "HARD")

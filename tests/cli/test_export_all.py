"""Issue 23: ``okey export --all`` to Parquet, checked with DuckDB against the log and the
scoring projections; a second run writes only the new events; no hidden tile without
``--with-private``; ``okey analytics`` answers its questions over the files."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import duckdb
import pytest
from okeycore.events import HandStarted, TableCreated, event_from_dict
from okeycore.options import BotLevel, Game, TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeytools import analytics
from okeytools.datasets import schema_markdown, tile_code
from okeytools.embedded import EmbeddedNats
from stacks import StackFactory

ROOT = Path(__file__).resolve().parents[2]
MOVE_TYPES = (
    "TileDrawn",
    "TileDiscarded",
    "IndicatorShown",
    "PairsDeclared",
    "TurnedToOkey",
    "MeldsOpened",
    "TileAdded",
    "OkeyTaken",
    "TileReturned",
    "TurnTimedOut",
)


def okey(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OKEY_DATABASE_URL": url, "OKEY_EXPORT_ID_KEY": "test-key"}
    got = subprocess.run(
        [sys.executable, "-m", "okeytools.cli", *args], env=env, capture_output=True, text=True, timeout=300
    )
    assert got.returncode == 0, got.stdout + got.stderr
    return got


def test_the_docs_carry_the_schema_as_the_code_has_it() -> None:
    docs = (ROOT / "docs" / "analytics.md").read_text(encoding="utf-8")
    assert schema_markdown() in docs, "docs/analytics.md: paste okeytools.datasets.schema_markdown() again"


async def _play(client: TableClient, conn: asyncpg.Connection, options: list[TableOptions]) -> list[str]:
    """All-bot matches, played by the bots service; back when the scoring projection has each."""
    ids = []
    for opts in options:
        table_id = f"an-{opts.game.value.lower()}-{uuid.uuid4().hex[:8]}"
        await client.create_table(opts, ("", "", "", ""), table_id=table_id)
        ids.append(table_id)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        done = await conn.fetchval("SELECT count(*) FROM scoring_matches WHERE table_id = ANY($1::text[])", ids)
        if done == len(ids):
            return ids
        await asyncio.sleep(0.5)
    raise AssertionError("the bot matches did not end (or scoring did not project them)")


def _views(out: Path) -> duckdb.DuckDBPyConnection:
    return analytics.connect(out)


async def _check_against_the_log(con: duckdb.DuckDBPyConnection, conn: asyncpg.Connection) -> None:
    """Every row of moves, hands, matches and seats is what the log and scoring say."""
    log_events = await conn.fetchval("SELECT count(*) FROM okey_events")
    exported = con.execute("SELECT count(*), count(DISTINCT (table_id, version)) FROM events").fetchone()
    assert exported == (log_events, log_events)  # each event once

    moves = dict(
        await conn.fetch(
            "SELECT stream_id, count(*) FILTER (WHERE type = ANY($1::text[])) "
            "+ count(*) FILTER (WHERE type = 'HandEnded' AND (data->>'finisher')::int >= 0) "
            "FROM okey_events GROUP BY stream_id",
            list(MOVE_TYPES),
        )
    )
    got = dict(con.execute("SELECT table_id, count(*) FROM moves GROUP BY table_id").fetchall())
    assert got == {t: n for t, n in moves.items() if n}
    discards = await conn.fetch(
        "SELECT stream_id, version, (data->>'seat')::int AS seat, (data->>'tile')::int AS tile "
        "FROM okey_events WHERE type = 'TileDiscarded' ORDER BY 1, 2"
    )
    rows = con.execute(
        "SELECT table_id, version, seat, tile, from_pile, to_pile FROM moves WHERE action = 'discard' ORDER BY 1, 2"
    ).fetchall()
    assert rows == [
        (d["stream_id"], d["version"], d["seat"], tile_code(d["tile"]), f"rack:{d['seat']}", f"pile:{d['seat']}")
        for d in discards
    ]

    # a tile taken from a pile came from the left seat's [C-TURN-2]; nobody thinks for less than nothing
    assert con.execute(
        "SELECT count(*) FROM moves WHERE action = 'draw' AND from_pile LIKE 'pile:%' "
        "AND from_pile <> 'pile:' || ((seat + 3) % 4)"
    ).fetchone() == (0,)
    assert con.execute("SELECT count(*) FROM moves WHERE think_ms < 0").fetchone() == (0,)
    # every bot seat plays at its table's level
    assert con.execute(
        "SELECT count(*) FROM seats s JOIN matches m USING (table_id) "
        "WHERE s.kind <> 'bot' OR s.bot_level <> m.options->>'bot_level'"
    ).fetchone() == (0,)

    hands = await conn.fetch(
        "SELECT table_id, seq, outcome, finisher, finish_kinds, multiplier, deltas, total, scores, penalties "
        "FROM scoring_hands ORDER BY table_id, seq"
    )
    assert hands, "no hands were projected"
    got_hands = con.execute(
        "SELECT table_id, seq, outcome, finisher, finish_kind, multiplier, deltas, total, scores, penalties "
        "FROM hands ORDER BY table_id, seq"
    ).fetchall()
    assert got_hands == [
        (
            h["table_id"],
            h["seq"],
            h["outcome"],
            h["finisher"] if h["finisher"] >= 0 else None,
            "+".join(h["finish_kinds"]) or None,
            h["multiplier"],
            list(h["deltas"]),
            list(h["total"]),
            list(h["scores"]),
            list(h["penalties"]),
        )
        for h in hands
    ]
    # every finisher, and every deal's starter, as the log says
    ends = await conn.fetch(
        "SELECT stream_id, (data->>'finisher')::int AS finisher FROM okey_events "
        "WHERE type IN ('HandEnded', 'HandEnded101') ORDER BY stream_id, version"
    )
    assert [(e["stream_id"], e["finisher"] if e["finisher"] >= 0 else None) for e in ends] == con.execute(
        "SELECT table_id, finisher FROM hands WHERE outcome <> 'VOIDED' ORDER BY table_id, seq"
    ).fetchall()

    matches = await conn.fetch("SELECT table_id, game, scores, winners, pot, payout, hands FROM scoring_matches")
    got_matches = con.execute(
        "SELECT table_id, game, scores, winners, pot, payout, hands FROM matches ORDER BY table_id"
    ).fetchall()
    assert got_matches == sorted(
        (m["table_id"], m["game"], list(m["scores"]), list(m["winners"]), m["pot"], m["payout"], m["hands"])
        for m in matches
    )
    payouts = await conn.fetch(
        "SELECT table_id, array_agg(payout ORDER BY seat) AS p FROM scoring_match_seats GROUP BY table_id"
    )
    assert con.execute("SELECT table_id, payouts FROM matches ORDER BY table_id").fetchall() == sorted(
        (p["table_id"], list(p["p"])) for p in payouts
    )
    seats = await conn.fetch("SELECT table_id, seat, score, rank, winner, payout FROM scoring_match_seats")
    assert con.execute(
        "SELECT table_id, seat, score, rank, winner, payout FROM seats ORDER BY table_id, seat"
    ).fetchall() == sorted(tuple(s) for s in seats)
    # the hands' deltas add up to each match's final scores (moves of both games fold to them)
    assert con.execute(
        "SELECT count(*) FROM matches m WHERE m.scores <> (SELECT h.scores FROM hands h "
        "WHERE h.table_id = m.table_id ORDER BY h.seq DESC LIMIT 1)"
    ).fetchone() == (0,)


def _no_hidden_tile(out: Path, con: duckdb.DuckDBPyConnection) -> None:
    assert not (out / "racks").exists()
    assert con.execute("SELECT count(*) FROM racks").fetchone() == (0,)
    deals = [json.loads(d) for (d,) in con.execute("SELECT data FROM events WHERE type = 'HandStarted'").fetchall()]
    assert deals
    for d in deals:
        assert {t for r in d["racks"] for t in r} == {-1} and set(d["deck"]) <= {-1}
        assert d["order"] == [] and d["salt"] == ""
    drawn = con.execute(
        "SELECT count(*), count(tile) FROM moves WHERE action = 'draw' AND from_pile = 'deck'"
    ).fetchone()
    assert drawn is not None and drawn[0] > 0 and drawn[1] == 0
    for (d,) in con.execute(
        "SELECT data FROM events WHERE type = 'TileDrawn' AND data LIKE '%\"source\":\"DECK\"%'"
    ).fetchall():
        assert json.loads(d)["tile"] == -1


async def test_bot_matches_of_both_games_export_to_parquet_as_the_log_and_scoring_say(
    make_stack: StackFactory, embedded_nats: EmbeddedNats, tmp_path: Path
) -> None:
    stack = make_stack(("table", "scoring", "bots"), nats_url=embedded_nats.url, label="export")
    url = stack.database_url
    client = TableClient(stack.address("table"), issue_token("export-test", role="service"))
    conn = await asyncpg.connect(url)
    out = tmp_path / "export"
    try:
        first = [
            TableOptions(match_points=2, bot_level=BotLevel.NORMAL),
            TableOptions(game=Game.OKEY101, rounds=3, bot_level=BotLevel.EASY),
        ]
        await _play(client, conn, first)
        got = okey(url, "export", "--all", "--format", "parquet", "--out", str(out))
        assert re.search(r"run 1 into .*: [\d,]+ events", got.stdout), got.stdout
        assert list((out / "moves").glob("day=*/run-00001-*.parquet"))
        con = _views(out)
        await _check_against_the_log(con, conn)
        _no_hidden_tile(out, con)
        runs1 = json.loads((out / "_export.json").read_text())["runs"]
        assert runs1[0]["events_read"] == await conn.fetchval("SELECT count(*) FROM okey_events")

        # more matches: the second run writes only their events
        before = await conn.fetchval("SELECT count(*) FROM okey_events")
        await _play(client, conn, [TableOptions(match_points=2), TableOptions(game=Game.OKEY101, rounds=3)])
        after = await conn.fetchval("SELECT count(*) FROM okey_events")
        okey(url, "export", "--all", "--format", "parquet", "--out", str(out))
        runs = json.loads((out / "_export.json").read_text())["runs"]
        assert runs[1]["events_read"] == after - before > 0
        assert runs[1]["rows"]["events"] == after - before
        con = _views(out)
        await _check_against_the_log(con, conn)
        # a third run with nothing new writes nothing
        okey(url, "export", "--all", "--format", "parquet", "--out", str(out))
        assert json.loads((out / "_export.json").read_text())["runs"][2]["files"] == []

        # the standard questions run over the same files
        printed = okey(url, "analytics", str(out)).stdout
        for name in analytics.QUESTIONS:
            assert f"[{name}]" in printed
        finished = con.execute("SELECT count(*) FROM hands WHERE outcome = 'FINISHED'").fetchone()
        assert finished is not None
        mine = okey(url, "analytics", str(out), "--sql", "SELECT count(*) AS n FROM hands WHERE finisher >= 0").stdout
        assert mine.split()[-1] == str(finished[0])

        # with --with-private: the dealt racks of finished hands, as the log dealt them
        private = tmp_path / "private"
        okey(url, "export", "--all", "--with-private", "--out", str(private))
        pcon = _views(private)
        deals = await conn.fetch("SELECT stream_id, data FROM okey_events WHERE type = 'HandStarted'")
        dealt = {}
        for d in deals:
            ev = event_from_dict({"type": "HandStarted", **json.loads(d["data"])})
            assert isinstance(ev, HandStarted)
            for seat, rack in enumerate(ev.racks):
                dealt.setdefault((d["stream_id"], ev.hand, seat), []).append([tile_code(t) for t in rack])
        racks = pcon.execute("SELECT table_id, hand, seat, rack FROM racks ORDER BY table_id, seq, seat").fetchall()
        assert len(racks) == 4 * pcon.execute("SELECT count(*) FROM hands").fetchone()[0]  # type: ignore[index]
        for table_id, hand, seat, rack in racks:
            assert rack in dealt[(table_id, hand, seat)]
    finally:
        await conn.close()
        await client.close()


async def test_players_are_opaque_a_stopped_run_leaves_nothing_twice_and_filters_hold(
    fresh_database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run in the middle of a match and the next one; players as keyed hashes only (no raw id
    in any file); a run's leftovers are removed; --game, --table and JSON lines."""
    from dataclasses import replace

    from okeycore.classic.bots import GreedyBot
    from okeycore.events import event_to_dict
    from okeycore.okey101.bots import GreedyBot101
    from okeycore.okey101.simulate import Simulator101
    from okeycore.simulate import Simulator
    from okeyplatform.eventstore import NewEvent, PostgresEventStore

    people = ("raw-player-ayse", "raw-player-ali", "", "raw-player-zeynep")
    matches = []
    for i, (sim, bot, opts) in enumerate(
        [
            (Simulator, GreedyBot, TableOptions(match_points=4)),
            (Simulator101, GreedyBot101, TableOptions(game=Game.OKEY101, rounds=3)),
        ]
    ):
        events = sim(opts, [bot(j) for j in range(4)], seed=i, table_id=f"sim-{i}").play_match().events
        first = events[0]
        assert isinstance(first, TableCreated)
        matches.append([replace(first, players=people), *events[1:]])

    store = await PostgresEventStore.connect(fresh_database_url, min_size=1, max_size=2)

    async def append(table_id: str, events: list[Any], version: int) -> None:
        for e in events:
            d = event_to_dict(e)
            kind = d.pop("type")
            await store.append(table_id, version, [NewEvent(kind, d, getattr(e, "hand", 0))])
            version += 1

    half = len(matches[0]) // 2
    resumed = tmp_path / "resumed"
    try:
        # a run in the middle of a match, and one after: the second folds the first half again
        await append("sim-0", matches[0][:half], 0)
        okey(fresh_database_url, "export", "--all", "--out", str(resumed))
        await append("sim-0", matches[0][half:], half)
        await append("sim-1", matches[1], 0)
        okey(fresh_database_url, "export", "--all", "--out", str(resumed))
    finally:
        await store.close()
    con = _views(resumed)
    log = [sum(1 for e in m if e.type in ("HandEnded", "HandEnded101", "HandVoided")) for m in matches]
    assert con.execute("SELECT count(*) FROM hands").fetchone() == (sum(log),)
    assert con.execute("SELECT count(*), count(DISTINCT (table_id, version)) FROM events").fetchone() == (
        sum(map(len, matches)),
        sum(map(len, matches)),
    )
    moved = sum(1 for m in matches for e in m if e.type in MOVE_TYPES or (e.type == "HandEnded" and e.finisher >= 0))
    assert con.execute("SELECT count(*) FROM moves").fetchone() == (moved,)
    assert con.execute("SELECT sum(moves) FROM hands").fetchone() == (moved,)  # each hand's moves, none twice
    ended = [m[-1] for m in matches]
    assert con.execute("SELECT scores, winners FROM matches ORDER BY table_id").fetchall() == [
        (list(e.scores), list(e.winners)) for e in ended
    ]

    # rows held in memory go to Arrow batches, and the batches to files, as they pile up
    from okeytools import export_all

    monkeypatch.setattr(export_all, "FLUSH_ROWS", 100)
    monkeypatch.setattr(export_all, "FILE_ROWS", 300)
    small = tmp_path / "small"
    store = await PostgresEventStore.connect(fresh_database_url, min_size=1, max_size=2)
    try:
        got_small = await export_all.export_all(store, export_all.ExportOptions(out=small, page=97))
    finally:
        await store.close()
    assert len(got_small.files) > 5 and got_small.written["events"] == sum(map(len, matches))
    assert _views(small).execute("SELECT count(DISTINCT (table_id, version)) FROM events").fetchone() == (
        sum(map(len, matches)),
    )
    assert _views(small).execute("SELECT count(*) FROM moves").fetchone() == (moved,)

    out = tmp_path / "jsonl"
    stray = out / "events" / "day=2026-01-01" / "run-00001-00001.jsonl"
    stray.parent.mkdir(parents=True)
    stray.write_text('{"table_id": "left over"}\n')  # as a run that stopped before its manifest
    got = okey(fresh_database_url, "export", "--all", "--format", "jsonl", "--out", str(out))
    assert "removed    1 files" in got.stdout and not stray.exists()
    text = "".join(p.read_text() for p in out.rglob("*.jsonl"))
    for person in filter(None, people):
        assert person not in text
    con = _views(out)
    ids = con.execute("SELECT players FROM matches ORDER BY table_id").fetchall()
    assert len(ids) == 2 and ids[0] == ids[1]  # the same people, the same opaque ids
    assert ids[0][0][2] is None and all(re.fullmatch(r"[0-9a-f]{16}", p) for p in ids[0][0] if p)
    kinds = con.execute("SELECT kind, count(*) FROM seats GROUP BY kind ORDER BY kind").fetchall()
    assert kinds == [("bot", 2), ("player", 6)]

    only = tmp_path / "only101"
    okey(fresh_database_url, "export", "--game", "okey101", "--out", str(only))
    c101 = _views(only)
    assert c101.execute("SELECT DISTINCT table_id FROM events").fetchall() == [("sim-1",)]
    assert c101.execute("SELECT DISTINCT game FROM hands").fetchall() == [("OKEY101",)]
    one = tmp_path / "one"
    okey(fresh_database_url, "export", "--table", "sim-0", "--out", str(one))
    assert _views(one).execute("SELECT DISTINCT table_id FROM moves").fetchall() == [("sim-0",)]
    none = tmp_path / "before"
    okey(fresh_database_url, "export", "--until", "2000-01-01", "--out", str(none))
    assert _views(none).execute("SELECT (SELECT count(*) FROM events) + (SELECT count(*) FROM hands)").fetchone() == (
        0,
    )
    since = tmp_path / "since"
    okey(fresh_database_url, "export", "--since", "2000-01-01T00:00", "--out", str(since))
    assert _views(since).execute("SELECT count(*) FROM hands").fetchone() == (sum(log),)
    other = subprocess.run(
        [sys.executable, "-m", "okeytools.cli", "export", "--all", "--out", str(one)],
        env={**os.environ, "OKEY_DATABASE_URL": fresh_database_url},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert other.returncode == 2 and "other options" in other.stderr


def test_a_database_that_cannot_be_reached_and_a_directory_with_no_export_are_one_line_exit_2(tmp_path: Path) -> None:
    env = {**os.environ, "OKEY_DATABASE_URL": "postgresql://okey:sekret@127.0.0.1:1/okey"}
    cli = [sys.executable, "-m", "okeytools.cli"]
    got = subprocess.run(
        [*cli, "export", "--all", "--out", str(tmp_path / "x")], env=env, capture_output=True, text=True
    )
    assert got.returncode == 2 and "Traceback" not in got.stderr and "OKEY_DATABASE_URL" in got.stderr
    assert "sekret" not in got.stderr + got.stdout and not (tmp_path / "x").exists()
    got = subprocess.run([*cli, "analytics", str(tmp_path)], env=env, capture_output=True, text=True)
    assert got.returncode == 2 and "okey export --all" in got.stderr and "Traceback" not in got.stderr

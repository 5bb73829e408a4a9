"""Issue 45.1: the skill rating on PostgreSQL: the live projector's unit of work rates ranked
matches per the finishing order, practice rates nothing, ``okey replay`` rebuilds the ratings
bit for bit, the rating boards (all time and weekly), erasure, and the API's fields."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import okeycore.okey101  # noqa: F401  (registers the 101 events)
import pytest
from okey.v1 import common_pb2
from okey.v1 import scoring_service_pb2 as pb
from okeyplatform.auth import issue_token
from okeyplatform.consumer import applier_for
from okeyplatform.consumer.decoding import envelope_of
from okeyplatform.errors import InvalidArgument
from okeyplatform.eventstore import START, PostgresEventStore
from okeytools.replay import replay
from scoring_helpers import Stack, append, match_b, simulated, simulated_101, wait_version

from services.scoring.api import match_pb, stats_pb
from services.scoring.app import ScoringApp
from services.scoring.consumer import projection_spec
from services.scoring.rating import NEW
from services.scoring.store import ScoringStore

PEOPLE = ("ali", "ayse", "mehmet", "zeynep")


@dataclass
class Db:
    events: PostgresEventStore
    store: ScoringStore
    app: ScoringApp

    async def project(self) -> None:
        """Everything in the log through the live projector's unit of work (the consumer's
        applier, in batches as JetStream would hand them over), in the log's order."""
        applier = applier_for(projection_spec(self.store), self.store.pool)
        cursor = START
        while batch := await self.events.read_all(cursor, 50):
            cursor = batch[-1].global_position
            await applier.apply([envelope_of(e) for e in batch])

    async def rebuild_equals_live(self) -> dict[str, int]:
        report = await replay(self.events, self.store, verify=True, swap=False)
        assert report.verify_problems == []
        assert report.diff == dict.fromkeys(report.diff, 0), report.diff
        assert "scoring_ratings" in report.diff and "scoring_match_ratings" in report.diff
        return report.rows


@pytest.fixture
async def db(fresh_database_url: str) -> AsyncIterator[Db]:
    events = await PostgresEventStore.connect(fresh_database_url, min_size=1, max_size=3)
    store = await ScoringStore.connect(fresh_database_url, min_size=1, max_size=3)
    try:
        yield Db(events, store, ScoringApp(store))
    finally:
        await store.close()
        await events.close()


async def _play(db: Db) -> None:
    await append(db.events, "rated-b", match_b("rated-b").events)  # ali, ayse, mehmet share the win
    await append(db.events, "sim-1", simulated("sim-1", 1, ("ali", "ayse", "", "zeynep")))
    await append(db.events, "practice", simulated("practice", 2, ("ali", "", "", "")))
    await append(db.events, "o101", simulated_101("o101", 4, PEOPLE))
    await db.project()


async def test_a_ranked_match_rates_its_people_by_the_finishing_order_and_practice_rates_nothing(db: Db) -> None:
    await _play(db)
    b = await db.store.match_ratings("rated-b")
    assert sorted(b) == [0, 1, 2, 3] and {r.display_before for r in b.values()} == {NEW.display}
    assert {r.mu_before for r in b.values()} == {NEW.mu}
    co_winners = {(r.mu_after, r.sigma_after, r.display_after) for s, r in b.items() if s < 3}
    assert len(co_winners) == 1  # a tie is a tie
    (ali_after,) = co_winners
    assert ali_after[0] > NEW.mu > b[3].mu_after and ali_after[2] > b[3].display_after
    assert await db.store.match_ratings("practice") == {}
    sim = await db.store.match_ratings("sim-1")
    assert sorted(sim) == [0, 1, 3]  # the bot seat is not rated
    assert sim[0].mu_before == b[0].mu_after  # ali's second match starts where the first ended

    # GetMatchResult carries each rated seat's change; the bot seat has none
    match, seats, ratings = await db.app.match_result("sim-1")
    res = match_pb(match, seats, ratings)
    assert [s.HasField("rating") for s in res.standings] == [True, True, False, True]
    ali = res.standings[0].rating
    assert (ali.before, ali.after, ali.change) == (b[0].display_after, sim[0].display_after, ali.after - ali.before)
    match, seats, ratings = await db.app.match_result("practice")
    assert not any(s.HasField("rating") for s in match_pb(match, seats, ratings).standings)

    # GetPlayerStats: a rating per game
    got = {g: (c, r) for g, c, r in await db.app.player_stats("ali", None)}
    classic, okey101 = got["OKEY"][1], got["OKEY101"][1]
    assert classic is not None and okey101 is not None
    assert classic.matches == 2 and okey101.matches == 1
    assert (classic.mu, classic.sigma, classic.display) == (sim[0].mu_after, sim[0].sigma_after, sim[0].display_after)
    stats = stats_pb("ali", "OKEY", *got["OKEY"])
    assert (stats.rating.display, stats.rating.mu, stats.rating.matches) == (classic.display, classic.mu, 2)


async def test_okey_replay_rebuilds_the_ratings_bit_for_bit(db: Db) -> None:
    await _play(db)
    live = await db.store.snapshot()
    assert len(live["scoring_ratings"]) == 8 and len(live["scoring_match_ratings"]) == 11
    rows = await db.rebuild_equals_live()
    assert rows["scoring_ratings"] == 8 and rows["scoring_match_ratings"] == 11
    report = await replay(db.events, db.store, swap=True)
    assert report.swapped and sum(report.diff.values()) == 0
    assert await db.store.snapshot() == live  # the same doubles, compared as Python floats

    # the live projector goes on from the swapped-in ratings, and a rebuild still agrees
    await append(db.events, "after-swap", match_b("after-swap").events)
    await db.project()
    (classic,) = [r for g, r in (await db.store.ratings("ali")).items() if g == "OKEY"]
    assert classic.matches == 3
    await db.rebuild_equals_live()


async def test_matches_reaching_the_projector_out_of_order_are_rated_in_the_order_they_ended(db: Db) -> None:
    """One player's tables ending together can reach the projector in another order than the
    log's (two batches, a held event, a restart): the ratings are still the rebuild's."""
    tables = {f"t{i}": simulated(f"t{i}", 10 + i, ("ali", "ayse", "", "zeynep")) for i in range(4)}
    for table_id, evs in tables.items():
        await append(db.events, table_id, evs)
    applier = applier_for(projection_spec(db.store), db.store.pool)
    for table_id in reversed(tables):  # the last to end is projected first
        await applier.apply([envelope_of(e) for e in await db.events.read_stream(table_id)])
    assert len((await db.store.snapshot())["scoring_match_ratings"]) == 12
    await db.rebuild_equals_live()
    first, last = await db.store.match_ratings("t0"), await db.store.match_ratings("t3")
    assert {r.mu_before for r in first.values()} == {NEW.mu}  # t0 ended first: everyone new there
    assert last[0].mu_before != NEW.mu


async def test_the_rating_boards_all_time_and_weekly(db: Db) -> None:
    await _play(db)
    everyone = {p: (await db.store.ratings(p))["OKEY"] for p in PEOPLE}
    board = await db.app.leaderboard("OKEY", weekly=False, page_size=2, by_rating=True)
    page2 = await db.app.leaderboard(
        "OKEY", weekly=False, page_size=2, page_token=board.next_page_token, by_rating=True
    )
    assert page2.next_page_token == ""
    wins_page = await db.app.leaderboard("OKEY", weekly=False, page_size=2)
    for by_rating, token in ((False, board.next_page_token), (True, wins_page.next_page_token)):
        with pytest.raises(InvalidArgument):  # a page token is only good for the board it came from
            await db.app.leaderboard("OKEY", weekly=False, page_size=2, page_token=token, by_rating=by_rating)
    entries = [*board.entries, *page2.entries]
    expected = sorted(PEOPLE, key=lambda p: (-everyone[p].display, p))
    assert [e.player_id for e in entries] == expected and [e.rank for e in entries] == [1, 2, 3, 4]
    assert [e.rating for e in entries] == [everyone[p].display for p in expected]
    assert [e.rated_matches for e in entries] == [everyone[p].matches for p in expected]
    assert entries[0].matches > 0  # the wins counters come along

    # weekly: the change in display rating over the week's rated matches
    week = await db.app.leaderboard("OKEY", weekly=True, by_rating=True)
    change = {e.player_id: e.rating_change for e in week.entries}
    assert change == {p: everyone[p].display - NEW.display for p in PEOPLE}  # every match was this week
    assert [e.player_id for e in week.entries] == sorted(PEOPLE, key=lambda p: (-change[p], p))
    assert {e.player_id: e.rating for e in week.entries} == {p: everyone[p].display for p in PEOPLE}
    last = (datetime.now(UTC) - timedelta(days=7)).date().isoformat()
    assert (await db.app.leaderboard("OKEY", weekly=True, week=last, by_rating=True)).entries == []
    # and the wins board is as it was
    wins = await db.app.leaderboard("OKEY", weekly=False)
    assert {e.rating for e in wins.entries} == {0}


async def test_erasure_removes_the_ratings_now_and_after_a_rebuild(db: Db) -> None:
    await _play(db)
    await db.store.forget_player("ali")
    assert await db.store.ratings("ali") == {}
    snap = await db.store.snapshot()
    assert not [r for r in snap["scoring_match_ratings"] if "ali" in r]
    board = await db.app.leaderboard("OKEY", weekly=True, by_rating=True)
    assert "ali" not in [e.player_id for e in board.entries] and len(board.entries) == 3
    await db.rebuild_equals_live()


async def test_getmatchresult_and_the_rating_board_over_grpc(stack: Stack, scoring_client: tuple[Any, Any]) -> None:
    stub, meta = scoring_client
    await wait_version(stack.store, "grpc-b", await append(stack.events, "grpc-b", match_b("grpc-b").events))
    res = (await stub.GetMatchResult(pb.GetMatchResultRequest(table_id="grpc-b"), metadata=meta)).result
    changes = [s.rating.change for s in res.standings]
    assert all(s.HasField("rating") for s in res.standings)
    assert changes[0] == changes[1] == changes[2] > 0 > changes[3]
    req = pb.GetLeaderboardRequest(
        game=common_pb2.GAME_OKEY, period=pb.LEADERBOARD_PERIOD_WEEKLY, order=pb.LEADERBOARD_ORDER_RATING
    )
    board = await stub.GetLeaderboard(req, metadata=meta)
    assert [e.player_id for e in board.entries] == ["ali", "ayse", "mehmet", "zeynep"]
    assert [e.rating_change for e in board.entries] == changes


async def test_the_board_gives_the_asker_their_own_entry_whichever_page(db: Db) -> None:
    """``mine``: the asker's entry as the board's pages rank it, on the page or beyond it, for
    both orders and both periods; none for someone not on the board (no rated match, erased)."""
    await _play(db)
    for weekly in (False, True):
        for by_rating in (False, True):
            full = await db.app.leaderboard("OKEY", weekly=weekly, page_size=100, by_rating=by_rating)
            assert [e.rank for e in full.entries] == [1, 2, 3, 4] and full.mine is None
            for e in full.entries:
                on_page = await db.app.leaderboard(
                    "OKEY", weekly=weekly, page_size=100, by_rating=by_rating, me=e.player_id
                )
                assert on_page.mine == e and on_page.entries == full.entries
                top = await db.app.leaderboard("OKEY", weekly=weekly, page_size=1, by_rating=by_rating, me=e.player_id)
                assert top.entries == full.entries[:1]
                assert top.mine == e, (weekly, by_rating, top.mine, e)  # rank and values, beyond the page too
                if top.next_page_token:  # a later page tells the same
                    later = await db.app.leaderboard(
                        "OKEY",
                        weekly=weekly,
                        page_size=1,
                        page_token=top.next_page_token,
                        by_rating=by_rating,
                        me=e.player_id,
                    )
                    assert later.mine == e
            nobody = await db.app.leaderboard("OKEY", weekly=weekly, page_size=1, by_rating=by_rating, me="nobody")
            assert nobody.mine is None  # no rated (or ranked) match: not on the board
    # the rating boards' own values come along
    last = (await db.app.leaderboard("OKEY", weekly=True, page_size=100, by_rating=True)).entries[-1]
    mine = (await db.app.leaderboard("OKEY", weekly=True, page_size=1, by_rating=True, me=last.player_id)).mine
    assert mine is not None and mine.rank == 4 and mine.rating_change < 0 < mine.rated_matches and mine.rating > 0
    await db.store.forget_player(last.player_id)
    for by_rating in (False, True):
        gone = await db.app.leaderboard("OKEY", weekly=True, page_size=1, by_rating=by_rating, me=last.player_id)
        assert gone.mine is None


async def test_getleaderboard_mine_over_grpc_is_the_token_s_subject(
    stack: Stack, scoring_client: tuple[Any, Any]
) -> None:
    stub, meta = scoring_client
    await wait_version(stack.store, "grpc-m", await append(stack.events, "grpc-m", match_b("grpc-m").events))
    for order in (pb.LEADERBOARD_ORDER_WINS, pb.LEADERBOARD_ORDER_RATING):
        req = pb.GetLeaderboardRequest(game=common_pb2.GAME_OKEY, order=order, page_size=100)
        board = await stub.GetLeaderboard(req, metadata=meta)
        assert not board.HasField("mine")  # "tester" played no match
        assert len(board.entries) == 4
        last = board.entries[-1]
        req.page_size = 1
        as_last = (("authorization", f"Bearer {issue_token(last.player_id)}"),)
        got = await stub.GetLeaderboard(req, metadata=as_last)
        assert got.HasField("mine") and got.mine == last and len(got.entries) == 1
        as_service = (("authorization", f"Bearer {issue_token(last.player_id, role='service')}"),)
        assert not (await stub.GetLeaderboard(req, metadata=as_service)).HasField("mine")

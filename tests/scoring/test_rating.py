"""Issue 45.1: the skill rating as pure code: who a match rates (the projection's ranked and
autopilot rules, bots left out, ties, leavers, partners), the Plackett-Luce update and the
display value."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime

from okeycore.events import MatchEnded, SeatLeft, TurnTimedOut
from scoring_helpers import match_b, simulated

from services.scoring.projection import Projection
from services.scoring.rating import NEW, Ratings, Skill, display, matches_of, order, rate, rated_match

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
WEEK = date(2026, 12, 7)


def _project(table_id: str, events: list[object]) -> Projection:
    p = Projection()
    for v, e in enumerate(events, 1):
        p.apply(table_id, v, NOW, e)  # type: ignore[arg-type]
    return p


def test_a_newcomer_shows_1000_and_the_display_stays_within_0_to_3000() -> None:
    assert NEW.display == display(25.0, 25.0 / 3) == 1000
    assert display(25.0, 0.0) == 2000 and display(100.0, 0.0) == 3000 and display(-50.0, 1.0) == 0
    assert display(26.0, 0.0) == 2040 and display(24.0, 0.0) == 1960


def test_the_winner_rises_the_last_falls_and_a_tie_moves_equal_players_alike() -> None:
    [[a], [b], [c], [d]] = rate([[NEW], [NEW], [NEW], [NEW]], [1, 2, 2, 4])
    assert a.mu > b.mu == c.mu > d.mu and b.sigma == c.sigma
    assert a.mu > NEW.mu > d.mu and all(s.matches == 1 for s in (a, b, c, d))
    # pure: the same inputs give the same bits
    assert rate([[a], [d]], [1, 2]) == rate([[a], [d]], [1, 2])


def test_places_are_the_standings_ranks_with_bots_left_out_and_a_leaver_last() -> None:
    m = rated_match("t", "OKEY", NOW, WEEK, ("ali", "", "ayse", "can"), (2, 1, 2, 4), False, [])
    assert m is not None and m.teams == (((0, "ali"),), ((2, "ayse"),), ((3, "can"),)) and m.places == (2, 2, 4)
    m = rated_match("t", "OKEY", NOW, WEEK, ("ali", "", "ayse", "can"), (1, 3, 2, 4), False, [0])
    assert m is not None and m.places == (5, 2, 4)  # ali left: last [D-10]
    assert rated_match("t", "OKEY", NOW, WEEK, ("ali", "", "", ""), (1, 2, 3, 4), False, []) is None
    assert rated_match("t", "OKEY", NOW, WEEK, ("ali", "ali", "", ""), (1, 2, 3, 4), False, []) is None


def test_a_partners_table_is_two_teams_of_two() -> None:
    m = rated_match("t", "OKEY", NOW, WEEK, ("ali", "ayse", "can", "deniz"), (1, 3, 1, 3), True, [])
    assert m is not None
    assert m.teams == (((0, "ali"), (2, "can")), ((1, "ayse"), (3, "deniz"))) and m.places == (1, 3)
    ratings = Ratings()
    ratings.apply(m)
    assert ratings.get("ali", "OKEY") == ratings.get("can", "OKEY")
    assert ratings.get("ali", "OKEY").mu > NEW.mu > ratings.get("ayse", "OKEY").mu
    # the winners' partner is a bot: the person plays on alone; a team of bots only drops out
    m = rated_match("t", "OKEY", NOW, WEEK, ("ali", "ayse", "", ""), (1, 3, 1, 3), True, [])
    assert m is not None and m.teams == (((0, "ali"),), ((1, "ayse"),)) and m.places == (1, 3)
    assert rated_match("t", "OKEY", NOW, WEEK, ("ali", "", "can", ""), (1, 3, 1, 3), True, []) is None


def test_a_ranked_match_is_rated_with_its_co_winners_tied() -> None:
    sc = match_b()  # seats 0, 1 and 2 share the win, seat 3 is last
    (m,) = _project(sc.table_id, sc.events).changes.rated
    assert [p for team in m.teams for _, p in team] == ["ali", "ayse", "mehmet", "zeynep"]
    assert m.places == (1, 1, 1, 4) and m.game == "OKEY"


def test_practice_against_bots_rates_nothing() -> None:
    events = simulated("practice", 3, ("ali", "", "", ""))
    p = _project("practice", events)
    assert len(p.changes.matches) == 1 and p.changes.rated == []


def test_a_match_a_seat_on_autopilot_won_rates_nothing() -> None:
    sc = match_b()
    *body, end = sc.events
    assert isinstance(end, MatchEnded)
    timeout = TurnTimedOut(seat=0, consecutive=3, autopilot=True, grace_deadline_ms=0)
    p = _project("autopilot", [*body, timeout, end])
    assert p.changes.rated == []
    assert p.changes.players[("ali", "OKEY")].wins == 0  # the same rule as the wins board's
    # a loser on autopilot does not stop the rating (nobody escapes a loss by walking away)
    p = _project("autopilot-loser", [*body, replace(timeout, seat=3), end])
    assert len(p.changes.rated) == 1


def test_a_player_who_left_is_rated_last() -> None:
    sc = match_b()
    *body, end = sc.events
    p = _project("left", [*body, SeatLeft(seat=1, player="ayse"), end])
    (m,) = p.changes.rated
    assert m.places == (1, 5, 1, 4)


def test_ratings_fold_each_match_from_the_ratings_after_the_last() -> None:
    sc = match_b()
    (m,) = _project(sc.table_id, sc.events).changes.rated
    ratings = Ratings()
    ratings.apply(m)
    ratings.apply(replace(m, table_id="again"))
    ali = ratings.get("ali", "OKEY")
    assert ali.matches == 2 and ratings.get("ali", "OKEY101") == NEW
    first, second = (r for r in ratings.rows if r.player_id == "ali")
    assert (second.mu_before, second.sigma_before) == (first.mu_after, first.sigma_after)
    assert (second.mu_after, second.sigma_after) == (ali.mu, ali.sigma)
    assert second.display_after == ali.display == display(ali.mu, ali.sigma)
    assert [r.player_id for r in ratings.current()] == ["ali", "ayse", "mehmet", "zeynep"]
    assert isinstance(ali, Skill)


def test_the_stored_rows_give_back_the_matches_as_they_were_rated() -> None:
    """What the live projector rates again when a match arrives after one that ended later."""
    partners = rated_match("p", "OKEY", NOW, WEEK, ("ali", "ayse", "can", ""), (1, 3, 1, 3), True, [])
    sc = match_b()
    (b,) = _project(sc.table_id, sc.events).changes.rated
    assert partners is not None
    ratings = Ratings()
    for m in (partners, b):
        ratings.apply(m)
    assert matches_of(list(reversed(ratings.rows))) == sorted([partners, b], key=order)

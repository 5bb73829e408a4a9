"""The skill rating as pure code: who a match rates, openskill's Plackett-Luce update, the display value.

A rating is a pure function of the rated matches taken in the order they ended (``order``: the
log's time of the MatchEnded, then the table id), whatever order they reached the projector in:
the live projector and ``okey replay`` fold the same ``RatedMatch`` values through ``Ratings``
in that order, so the floats come out bit for bit the same (stored as double precision, never
rounded). Only ``display`` rounds, once, for showing and ranking."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from openskill.models import PlackettLuce

__all__ = [
    "MU",
    "SIGMA",
    "Skill",
    "NEW",
    "RatedMatch",
    "MatchRatingRow",
    "RatingRow",
    "Ratings",
    "display",
    "rate",
    "rated_match",
    "order",
    "matches_of",
]

MODEL = PlackettLuce()
"""openskill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300): one model for both games,
each game its own ratings."""

MU: float = MODEL.mu
SIGMA: float = MODEL.sigma

# The display scale, in this one place: the conservative estimate mu - 3 sigma (99.7% sure the
# skill is at least this), 40 display points a unit, a newcomer (mu - 3 sigma = 0) at 1000, kept
# within 0..3000. Changing it changes every display value (a rebuild recomputes them).
DISPLAY_BASE = 1000
DISPLAY_SCALE = 40
DISPLAY_MAX = 3000


def display(mu: float, sigma: float) -> int:
    """The value a player sees and the rating boards rank by (rounded half up, once)."""
    value = math.floor(DISPLAY_BASE + DISPLAY_SCALE * (mu - 3 * sigma) + 0.5)
    return max(0, min(DISPLAY_MAX, value))


@dataclass(frozen=True, slots=True)
class Skill:
    """A player's rating in one game: the model's estimate, its uncertainty, matches rated."""

    mu: float
    sigma: float
    matches: int = 0

    @property
    def display(self) -> int:
        return display(self.mu, self.sigma)


NEW = Skill(MU, SIGMA, 0)


def rate(teams: Sequence[Sequence[Skill]], places: Sequence[int]) -> list[list[Skill]]:
    """The Plackett-Luce update of one match: ``teams`` of skills and each team's place (1 is
    first; equal places are a tie). Returns the skills after, team by team. Pure: the same
    inputs give bit-identical floats."""
    if len(teams) != len(places) or len(teams) < 2:
        raise ValueError("a rated match needs two or more teams, each with a place")
    before = [[MODEL.rating(mu=s.mu, sigma=s.sigma) for s in team] for team in teams]
    after = MODEL.rate(before, ranks=[float(p) for p in places])
    return [
        [Skill(r.mu, r.sigma, s.matches + 1) for r, s in zip(new, old, strict=True)]
        for new, old in zip(after, teams, strict=True)
    ]


# ------------------------------------------------------------------ who a match rates


@dataclass(frozen=True, slots=True)
class RatedMatch:
    """A ranked match's finishing order as the rating sees it: teams of (seat, player) people
    (bots left out) with their places. What the projection hands to ``Ratings``."""

    table_id: str
    game: str
    ended_at: datetime
    week: date
    teams: tuple[tuple[tuple[int, str], ...], ...]
    places: tuple[int, ...]


def order(m: RatedMatch | MatchRatingRow) -> tuple[datetime, str]:
    """The order matches are rated in: when they ended (the log's time), then the table id."""
    return (m.ended_at, m.table_id)


def rated_match(
    table_id: str,
    game: str,
    ended_at: datetime,
    week: date,
    players: Sequence[str],
    ranks: Sequence[int],
    partners: bool,
    left_seats: Sequence[int],
) -> RatedMatch | None:
    """The teams and places of a match the projection decided counts (ranked, no win a bot
    played out), or None when fewer than two teams of people are left to compare.

    Places are the standings' ranks (winners 1, then by score, ties as ties). A player who left
    mid-match lost it [D-10]: last, and at a partners table (classic: seats 0 and 2 against 1
    and 3) so is their team. Bot seats are not rated: the people are ordered among themselves;
    a team of bots only drops out. A player seated twice is not rated twice: nothing is rated."""
    n = len(players)
    last = n + 1
    groups: list[tuple[int, ...]] = [(0, 2), (1, 3)] if partners and n == 4 else [(seat,) for seat in range(n)]
    teams: list[tuple[tuple[int, str], ...]] = []
    places: list[int] = []
    for group in groups:
        people = tuple((seat, players[seat]) for seat in group if players[seat])
        if not people:
            continue
        left = any(seat in left_seats for seat in group)
        teams.append(people)
        places.append(last if left else min(ranks[seat] for seat in group))
    ids = [p for team in teams for _, p in team]
    if len(teams) < 2 or len(set(ids)) != len(ids):
        return None
    return RatedMatch(table_id, game, ended_at, week, tuple(teams), tuple(places))


# ------------------------------------------------------------------ the fold


@dataclass(frozen=True, slots=True)
class MatchRatingRow:
    """One rated seat of one match: the rating before and after (``scoring_match_ratings``)."""

    table_id: str
    seat: int
    player_id: str
    game: str
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    display_before: int
    display_after: int
    ended_at: datetime
    week: date
    team: int  # the seat's team, as RatedMatch.teams lists them
    place: int


def matches_of(rows: Sequence[MatchRatingRow]) -> list[RatedMatch]:
    """The rated matches that stored rows record, as they were rated (to rate them again)."""
    by_table: dict[str, list[MatchRatingRow]] = {}
    for r in rows:
        by_table.setdefault(r.table_id, []).append(r)
    out = []
    for table_id, seats in by_table.items():
        teams: dict[int, list[tuple[int, str]]] = {}
        places: dict[int, int] = {}
        for r in sorted(seats, key=lambda r: (r.team, r.seat)):
            teams.setdefault(r.team, []).append((r.seat, r.player_id))
            places[r.team] = r.place
        first = seats[0]
        out.append(
            RatedMatch(
                table_id,
                first.game,
                first.ended_at,
                first.week,
                tuple(tuple(teams[t]) for t in sorted(teams)),
                tuple(places[t] for t in sorted(teams)),
            )
        )
    return sorted(out, key=order)


@dataclass(frozen=True, slots=True)
class RatingRow:
    """A player's current rating in one game (``scoring_ratings``)."""

    player_id: str
    game: str
    mu: float
    sigma: float
    display: int
    matches: int


@dataclass(slots=True)
class Ratings:
    """The players' ratings as loaded (or empty: a rebuild), folding rated matches in order.
    ``rows`` are the per-seat changes made, ``changed`` the (player, game) keys touched."""

    skills: dict[tuple[str, str], Skill] = field(default_factory=dict)
    rows: list[MatchRatingRow] = field(default_factory=list)
    changed: set[tuple[str, str]] = field(default_factory=set)

    def get(self, player_id: str, game: str) -> Skill:
        return self.skills.get((player_id, game), NEW)

    def apply(self, match: RatedMatch) -> None:
        before = [[self.get(p, match.game) for _, p in team] for team in match.teams]
        after = rate(before, match.places)
        for index, (team, olds, news) in enumerate(zip(match.teams, before, after, strict=True)):
            for (seat, player), old, new in zip(team, olds, news, strict=True):
                key = (player, match.game)
                self.skills[key] = new
                self.changed.add(key)
                self.rows.append(
                    MatchRatingRow(
                        match.table_id,
                        seat,
                        player,
                        match.game,
                        old.mu,
                        old.sigma,
                        new.mu,
                        new.sigma,
                        old.display,
                        new.display,
                        match.ended_at,
                        match.week,
                        index,
                        match.places[index],
                    )
                )

    def current(self) -> list[RatingRow]:
        """The rows of the players whose rating changed, sorted by key."""
        out = []
        for player, game in sorted(self.changed):
            s = self.skills[(player, game)]
            out.append(RatingRow(player, game, s.mu, s.sigma, s.display, s.matches))
        return out

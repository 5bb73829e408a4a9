"""Scoring's use cases: the queries over the projection (which consumer.py keeps), and erasure."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from datetime import UTC, date, datetime

from okeyplatform.auth import Identity
from okeyplatform.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from okeyplatform.logs import get_logger

from .projection import Counters, HandRow, MatchRow, SeatRow, TableAcc, week_of
from .rating import MatchRatingRow, RatingRow
from .store import RatingLeader, ScoringStore

__all__ = [
    "ScoringApp",
    "MatchInProgress",
    "LeaderboardPage",
    "LeaderEntry",
]


class MatchInProgress(FailedPrecondition):
    default_reason = "MATCH_IN_PROGRESS"


@dataclass(frozen=True, slots=True)
class LeaderEntry:
    rank: int
    player_id: str
    wins: int
    matches: int
    average_score: float
    rating: int = 0  # rating boards only (rating.py's display value)
    rating_change: int = 0  # weekly rating boards: the change over the week
    rated_matches: int = 0


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    entries: list[LeaderEntry]
    next_page_token: str
    week_start: date | None
    mine: LeaderEntry | None = None  # the asker's own entry on the board, whichever page


def average(total: int, count: int) -> float:
    return total / count if count else 0.0


class ScoringApp:
    def __init__(self, store: ScoringStore) -> None:
        self.store = store
        self.log = get_logger(component="scoring-app")

    # ------------------------------------------------------------ queries

    async def match_result(self, table_id: str) -> tuple[MatchRow, list[SeatRow], dict[int, MatchRatingRow]]:
        """The result, its seats, and the rated seats' rating changes (by seat)."""
        got = await self.store.match(table_id)
        if got is not None:
            return got[0], got[1], await self.store.match_ratings(table_id)
        if await self.store.table(table_id) is None:
            raise NotFound(f"scoring knows no table {table_id!r}", "TABLE_NOT_FOUND")
        raise MatchInProgress(f"the match at table {table_id!r} is still being played")

    async def hands(self, table_id: str) -> tuple[TableAcc, list[HandRow]]:
        table = await self.store.table(table_id)
        if table is None:
            raise NotFound(f"scoring knows no table {table_id!r}", "TABLE_NOT_FOUND")
        return table, await self.store.hands(table_id)

    async def forget_player(self, who: Identity, player_id: str) -> None:
        """The lobby's word that a player deleted their account (a service's call only)."""
        if who.role != "service":
            raise PermissionDenied("only a service may erase a player", "SERVICE_ONLY")
        if not player_id:
            raise InvalidArgument("player_id is required")
        await self.store.forget_player(player_id)
        self.log.info("player_erased", player_id=player_id)

    async def player_stats(self, player_id: str, game: str | None) -> list[tuple[str, Counters, RatingRow | None]]:
        """Per game: the counters and the rating (None before a first rated match)."""
        if not player_id:
            raise InvalidArgument("player_id is required")
        got = await self.store.player(player_id, game)
        if not got:
            raise NotFound(f"no finished hand or match of player {player_id!r}", "PLAYER_NOT_FOUND")
        ratings = await self.store.ratings(player_id, game)
        return [(g, c, ratings.get(g)) for g, c in got]

    async def leaderboard(
        self,
        game: str,
        weekly: bool,
        week: str = "",
        page_size: int = 20,
        page_token: str = "",
        by_rating: bool = False,
        me: str = "",
    ) -> LeaderboardPage:
        """One page of a board, and ``me``'s own entry on it (ranked as the pages rank it; None
        when ``me`` is empty or not on the board)."""
        size = 20 if page_size <= 0 else page_size
        if size > 100:
            raise InvalidArgument("page_size is at most 100")
        start: date | None = None
        if weekly:
            try:
                day = date.fromisoformat(week) if week else datetime.now(UTC).date()
            except ValueError:
                raise InvalidArgument(f"week must be a date as YYYY-MM-DD, got {week!r}") from None
            start = week_of(datetime(day.year, day.month, day.day, tzinfo=UTC))
        if by_rating:
            return await self._rating_board(game, start, size, page_token, me)
        after, offset = _read_token(page_token)
        rows = await self.store.leaderboard(game, start, after, size + 1)
        more = len(rows) > size
        rows = rows[:size]
        entries = [
            LeaderEntry(offset + i + 1, pid, wins, matches, average(score_sum, matches))
            for i, (pid, wins, matches, score_sum) in enumerate(rows)
        ]
        token = ""
        if more and rows:
            last = rows[-1]
            token = _make_token((last[1], last[2], last[0]), offset + len(rows))
        mine = None
        if me and (place := await self.store.leaderboard_place(game, start, me)) is not None:
            rank, (pid, wins, matches, score_sum) = place
            mine = LeaderEntry(rank, pid, wins, matches, average(score_sum, matches))
        return LeaderboardPage(entries, token, start, mine)

    async def _rating_board(
        self, game: str, start: date | None, size: int, page_token: str, me: str = ""
    ) -> LeaderboardPage:
        after, offset = _read_rating_token(page_token)
        rows = await self.store.rating_board(game, start, after, size + 1)
        more = len(rows) > size
        rows = rows[:size]
        entries = [_rating_entry(offset + i + 1, r) for i, r in enumerate(rows)]
        token = ""
        if more and rows:
            raw = json.dumps(["rating", rows[-1].key, rows[-1].player_id, offset + len(rows)], separators=(",", ":"))
            token = base64.urlsafe_b64encode(raw.encode("utf-8")).decode("ascii").rstrip("=")
        mine = None
        if me and (place := await self.store.rating_place(game, start, me)) is not None:
            mine = _rating_entry(*place)
        return LeaderboardPage(entries, token, start, mine)


def _rating_entry(rank: int, r: RatingLeader) -> LeaderEntry:
    return LeaderEntry(
        rank, r.player_id, r.wins, r.matches, average(r.score_sum, r.matches), r.rating, r.change, r.rated
    )


def _read_rating_token(token: str) -> tuple[tuple[int, str] | None, int]:
    """A rating board's page token: ("rating", key, player_id, offset); the key may be negative
    (a week's change)."""
    if not token:
        return None, 0
    try:
        kind, key, player, offset = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        if kind != "rating" or not (isinstance(key, int) and isinstance(player, str) and isinstance(offset, int)):
            raise ValueError
        if not (-(2**31) < key < 2**31 and 0 <= offset < 2**31) or "\x00" in player:
            raise ValueError
        return (key, player), offset
    except (ValueError, TypeError):
        raise InvalidArgument("page_token is not one this service gave out") from None


def _make_token(after: tuple[int, int, str], offset: int) -> str:
    raw = json.dumps([after[0], after[1], after[2], offset], separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _read_token(token: str) -> tuple[tuple[int, int, str] | None, int]:
    if not token:
        return None, 0
    try:
        wins, matches, player, offset = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        if not (isinstance(wins, int) and isinstance(matches, int) and isinstance(player, str)):
            raise ValueError
        # a forged token must not reach the query with numbers out of the columns' range or a NUL
        if not (0 <= wins < 2**31 and 0 <= matches < 2**31 and 0 <= int(offset) < 2**31) or "\x00" in player:
            raise ValueError
        return (wins, matches, player), int(offset)
    except (ValueError, TypeError):
        raise InvalidArgument("page_token is not one this service gave out") from None

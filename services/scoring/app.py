"""Scoring use cases: apply table events exactly once, and answer the queries."""

from __future__ import annotations

import base64
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime

import asyncpg
from okeycore.events import Event
from okeyplatform.auth import Identity
from okeyplatform.consumer import APPLIED, DUPLICATE, HELD, PARKED, BatchResult
from okeyplatform.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from okeyplatform.eventstore import StoredEvent, UnknownEvent, UnreadableEvent
from okeyplatform.logs import get_logger

from .projection import (
    Counters,
    HandRow,
    MatchRow,
    Projection,
    ProjectionError,
    SeatRow,
    TableAcc,
    UnknownEventType,
    week_of,
)
from .store import ScoringStore

__all__ = [
    "Item",
    "APPLIED",
    "DUPLICATE",
    "HELD",
    "PARKED",
    "BatchResult",
    "ScoringApp",
    "MatchInProgress",
    "LeaderboardPage",
    "LeaderEntry",
]


class MatchInProgress(FailedPrecondition):
    default_reason = "MATCH_IN_PROGRESS"


@dataclass(frozen=True, slots=True)
class Item:
    """One table event to project, from the relay's envelope or a row of the log. ``event`` is
    the okeycore event, or why that version cannot be read (its table is then parked; an event
    type this okeycore does not know stops the projector instead)."""

    table_id: str
    version: int
    recorded_at: datetime
    event: Event | UnreadableEvent

    @classmethod
    def of_stored(cls, e: StoredEvent) -> Item:
        try:
            event: Event | UnreadableEvent = e.event()
        except UnreadableEvent as exc:
            event = exc
        return cls(e.stream_id, e.version, e.recorded_at, event)


@dataclass(frozen=True, slots=True)
class LeaderEntry:
    rank: int
    player_id: str
    wins: int
    matches: int
    average_score: float


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    entries: list[LeaderEntry]
    next_page_token: str
    week_start: date | None


_RETRY = (asyncpg.UniqueViolationError, asyncpg.DeadlockDetectedError, asyncpg.SerializationError)


def average(total: int, count: int) -> float:
    return total / count if count else 0.0


class ScoringApp:
    def __init__(self, store: ScoringStore) -> None:
        self.store = store
        self.log = get_logger(component="scoring-app")

    # ------------------------------------------------------------ projecting

    async def apply(self, items: Sequence[Item]) -> BatchResult:
        """Project a batch in one transaction: per table, versions at or below the applied one
        are duplicates, the next ones are applied, anything past a gap is held back. The applied
        versions are written with the rows, so a redelivery after a crash changes nothing.

        One table cannot stop the projector: an event that cannot be projected (malformed, a
        number out of range) parks its table at that version (``scoring_parked``, logged, the
        service's ``okey.scoring.parked`` health entry, ``okey replay``); its later events are
        skipped until a replay rebuilds it, and every other table goes on. An event type
        scoring does not know still stops the projector (a newer table service: upgrade)."""
        try:
            return await self._apply(items)
        except (asyncpg.DataError, OverflowError) as exc:
            # A value PostgreSQL refuses: find its table by projecting one table at a time.
            self.log.warning("apply_isolating", error=repr(exc))
        return await self._apply_isolated(items)

    async def _apply(self, items: Sequence[Item]) -> BatchResult:
        for attempt in range(8):
            try:
                return await self._apply_once(items)
            except _RETRY as exc:
                # Another replica applied some of these events first: decide again on its result.
                self.log.info("apply_retry", attempt=attempt, error=type(exc).__name__)
        return await self._apply_once(items)

    async def _apply_once(self, items: Sequence[Item]) -> BatchResult:
        async with self.store.pool.acquire() as conn, conn.transaction():
            parked = await self.store.parked_among(conn, sorted({it.table_id for it in items}))
            result = await self.apply_in(conn, items, parked=parked)
            for table_id, (version, why) in result.parked.items():
                await self.store.park(conn, table_id, version, why)
        for table_id, (version, why) in result.parked.items():
            self.log.error("table_parked", table_id=table_id, version=version, reason=why)
        return result

    async def _apply_isolated(self, items: Sequence[Item]) -> BatchResult:
        result = BatchResult([""] * len(items), {})
        by_table: dict[str, list[int]] = {}
        for i, it in enumerate(items):
            by_table.setdefault(it.table_id, []).append(i)
        for table_id, idxs in by_table.items():
            group = [items[i] for i in idxs]
            try:
                got = await self._apply(group)
            except (asyncpg.DataError, OverflowError) as exc:
                version = min(it.version for it in group)
                why = f"a value PostgreSQL refuses in versions {version}..: {exc!r}"[:500]
                async with self.store.pool.acquire() as conn, conn.transaction():
                    await self.store.park(conn, table_id, version, why)
                self.log.error("table_parked", table_id=table_id, version=version, reason=why)
                got = BatchResult([PARKED] * len(group), {}, parked={table_id: (version, why)})
            for k, i in enumerate(idxs):
                result.outcomes[i] = got.outcomes[k]
                if got.outcomes[k] == HELD:
                    result.held.append(i)
            result.versions.update(got.versions)
            result.applied += got.applied
            result.parked.update(got.parked)
        return result

    async def apply_in(
        self,
        conn: asyncpg.Connection,
        items: Sequence[Item],
        schema: str | None = None,
        parked: Collection[str] = (),
    ) -> BatchResult:
        """``apply`` inside the caller's transaction (``okey replay`` catches the rebuilt tables
        up with this in its swap transaction). Items of ``parked`` tables are skipped; a table
        whose event cannot be projected is parked (in ``result.parked``; the caller records it)
        after the events before that one."""
        by_table: dict[str, list[int]] = {}
        for i, it in enumerate(items):
            by_table.setdefault(it.table_id, []).append(i)
        tables = await self.store.load_tables(conn, list(by_table), schema)
        proj = Projection(tables)
        result = BatchResult([""] * len(items), {})
        for table_id, idxs in by_table.items():
            idxs.sort(key=lambda i: items[i].version)
            for i in idxs:
                it = items[i]
                current = proj.version(table_id)
                if table_id in parked or table_id in result.parked:
                    result.outcomes[i] = PARKED
                elif it.version <= current:
                    result.outcomes[i] = DUPLICATE
                elif it.version == current + 1:
                    try:
                        proj.apply(table_id, it.version, it.recorded_at, _readable(it))
                    except UnknownEventType:
                        raise
                    except ProjectionError as exc:
                        result.parked[table_id] = (it.version, str(exc)[:500])
                        result.outcomes[i] = PARKED
                        continue
                    result.outcomes[i] = APPLIED
                    result.applied += 1
                else:
                    result.outcomes[i] = HELD
                    result.held.append(i)
            result.versions[table_id] = proj.version(table_id)
        if not proj.changes.empty:
            await self.store.save(conn, proj.changes, schema)
        return result

    # ------------------------------------------------------------ queries

    async def match_result(self, table_id: str) -> tuple[MatchRow, list[SeatRow]]:
        got = await self.store.match(table_id)
        if got is not None:
            return got
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

    async def player_stats(self, player_id: str, game: str | None) -> list[tuple[str, Counters]]:
        if not player_id:
            raise InvalidArgument("player_id is required")
        got = await self.store.player(player_id, game)
        if not got:
            raise NotFound(f"no finished hand or match of player {player_id!r}", "PLAYER_NOT_FOUND")
        return got

    async def leaderboard(
        self, game: str, weekly: bool, week: str = "", page_size: int = 20, page_token: str = ""
    ) -> LeaderboardPage:
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
        return LeaderboardPage(entries, token, start)


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


def _readable(it: Item) -> Event:
    """The item's event; an unreadable one is a ProjectionError (its table is parked), one of a
    type okeycore does not know an UnknownEventType (the projector stops)."""
    if isinstance(it.event, UnknownEvent):
        raise UnknownEventType(it.table_id, it.version, it.event.kind)
    if isinstance(it.event, UnreadableEvent):
        raise ProjectionError(str(it.event), it.table_id, it.version)
    return it.event

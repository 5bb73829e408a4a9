"""The scoring service's own tables (prefix ``scoring_``): schema, exactly-once writes, the
queries behind the API, and the fresh tables ``okey replay`` builds and swaps in."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from datetime import date
from typing import Any

import asyncpg
from okeyplatform.consumer import migrate_consumer_versions, parked_tables, replace_parked
from okeyplatform.eventstore import migrate, open_pool

from .projection import COUNTER_FIELDS, WEEKLY_FIELDS, Changes, Counters, HandRow, MatchRow, SeatRow, TableAcc
from .rating import NEW, MatchRatingRow, RatedMatch, RatingRow, Ratings, Skill, matches_of, order

__all__ = [
    "ScoringStore",
    "TABLES",
    "REBUILD_SCHEMA",
    "schema_sql",
    "MIGRATIONS",
    "LeaderRow",
    "RatingLeader",
    "migrate_schema",
    "RECORD",
]

RECORD = "scoring"
"""The projector's name in the consumers' record and parked tables (whatever its durable is)."""

REBUILD_SCHEMA = "okey_scoring_rebuild"
"""Where ``okey replay`` builds the fresh tables before moving them over the live ones."""

TABLES = (
    "scoring_tables",
    "scoring_hands",
    "scoring_matches",
    "scoring_match_seats",
    "scoring_players",
    "scoring_weekly",
    "scoring_ratings",
    "scoring_match_ratings",
)
"""Every table of the service, in the order writers lock them (scoring_tables first)."""

_COUNTERS_DDL = ",\n".join(f"        {name} BIGINT NOT NULL DEFAULT 0" for name in COUNTER_FIELDS)
_WEEKLY_DDL = ",\n".join(f"        {name} BIGINT NOT NULL DEFAULT 0" for name in WEEKLY_FIELDS)


def schema_sql(schema: str | None = None) -> str:
    """The current DDL of every table, in ``schema`` (default: the connection's current schema).
    A later migration must also change this text, so a rebuild makes the latest shape."""
    p = f'"{schema}".' if schema else ""
    return f"""
    -- One row per table: what the projection has folded, up to the event version `version`
    -- (the consumers' record, okey_consumer_versions, decides what the projector applies).
    CREATE TABLE {p}scoring_tables (
        table_id       TEXT PRIMARY KEY,
        version        INT NOT NULL,
        game           TEXT NOT NULL,
        options        JSONB NOT NULL,
        players        TEXT[] NOT NULL,
        scores         INT[] NOT NULL,
        hand           INT NOT NULL,
        hands_recorded INT NOT NULL,
        shows          JSONB NOT NULL,
        penalties      JSONB NOT NULL,
        created_at     TIMESTAMPTZ NOT NULL,
        ended_at       TIMESTAMPTZ,
        autopilot      INT[] NOT NULL DEFAULT '{{}}',
        left_seats     INT[] NOT NULL DEFAULT '{{}}'
    );
    CREATE TABLE {p}scoring_hands (
        table_id        TEXT NOT NULL,
        seq             INT NOT NULL,
        hand            INT NOT NULL,
        version         INT NOT NULL,
        outcome         TEXT NOT NULL,
        finisher        INT NOT NULL,
        finisher_player TEXT NOT NULL,
        finish_kinds    TEXT[] NOT NULL,
        final_tile      INT NOT NULL,
        multiplier      INT NOT NULL,
        deltas          INT[] NOT NULL,
        points          INT[] NOT NULL,
        indicator       INT[] NOT NULL,
        penalties       INT[] NOT NULL,
        total           INT[] NOT NULL,
        scores          INT[] NOT NULL,
        shows           JSONB NOT NULL,
        penalty_events  JSONB NOT NULL,
        chips           BIGINT[] NOT NULL,
        ended_at        TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (table_id, seq)
    );
    CREATE TABLE {p}scoring_matches (
        table_id  TEXT PRIMARY KEY,
        game      TEXT NOT NULL,
        version   INT NOT NULL,
        hands     INT NOT NULL,
        scores    INT[] NOT NULL,
        winners   INT[] NOT NULL,
        players   TEXT[] NOT NULL,
        pot       BIGINT NOT NULL,
        payout    BIGINT NOT NULL,
        remainder BIGINT NOT NULL,
        ended_at  TIMESTAMPTZ NOT NULL,
        week      DATE NOT NULL
    );
    CREATE TABLE {p}scoring_match_seats (
        table_id  TEXT NOT NULL,
        seat      INT NOT NULL,
        player_id TEXT NOT NULL,
        score     INT NOT NULL,
        rank      INT NOT NULL,
        winner    BOOLEAN NOT NULL,
        payout    BIGINT NOT NULL,
        PRIMARY KEY (table_id, seat)
    );
    CREATE INDEX scoring_match_seats_player ON {p}scoring_match_seats (player_id) WHERE player_id <> '';
    CREATE TABLE {p}scoring_players (
        player_id TEXT NOT NULL,
        game      TEXT NOT NULL,
{_COUNTERS_DDL},
        PRIMARY KEY (player_id, game)
    );
    CREATE INDEX scoring_players_board ON {p}scoring_players (game, wins DESC, matches, player_id);
    CREATE TABLE {p}scoring_weekly (
        week      DATE NOT NULL,
        game      TEXT NOT NULL,
        player_id TEXT NOT NULL,
{_WEEKLY_DDL},
        PRIMARY KEY (week, game, player_id)
    );
    CREATE INDEX scoring_weekly_board ON {p}scoring_weekly (week, game, wins DESC, matches, player_id);
{ratings_sql(schema)}"""


def ratings_sql(schema: str | None = None) -> str:
    """The skill rating's tables (rating.py): each player's current rating per game, and every
    rated seat's before and after. mu and sigma are doubles, stored as computed (a rebuild gives
    the same bits); ``display`` is their one rounding."""
    p = f'"{schema}".' if schema else ""
    return f"""
    CREATE TABLE IF NOT EXISTS {p}scoring_ratings (
        player_id TEXT NOT NULL,
        game      TEXT NOT NULL,
        mu        DOUBLE PRECISION NOT NULL,
        sigma     DOUBLE PRECISION NOT NULL,
        display   INT NOT NULL,
        matches   BIGINT NOT NULL,
        PRIMARY KEY (player_id, game)
    );
    CREATE INDEX IF NOT EXISTS scoring_ratings_board ON {p}scoring_ratings (game, display DESC, player_id);
    CREATE TABLE IF NOT EXISTS {p}scoring_match_ratings (
        table_id       TEXT NOT NULL,
        seat           INT NOT NULL,
        player_id      TEXT NOT NULL,
        game           TEXT NOT NULL,
        mu_before      DOUBLE PRECISION NOT NULL,
        sigma_before   DOUBLE PRECISION NOT NULL,
        mu_after       DOUBLE PRECISION NOT NULL,
        sigma_after    DOUBLE PRECISION NOT NULL,
        display_before INT NOT NULL,
        display_after  INT NOT NULL,
        ended_at       TIMESTAMPTZ NOT NULL,
        week           DATE NOT NULL,
        team           INT NOT NULL,
        place          INT NOT NULL,
        PRIMARY KEY (table_id, seat)
    );
    CREATE INDEX IF NOT EXISTS scoring_match_ratings_order ON {p}scoring_match_ratings (game, ended_at, table_id);
    CREATE INDEX IF NOT EXISTS scoring_match_ratings_week ON {p}scoring_match_ratings (game, week, player_id);
    CREATE INDEX IF NOT EXISTS scoring_match_ratings_player ON {p}scoring_match_ratings (player_id);
    """


PARKED_DDL = """
    -- Tables the projector stopped projecting: an event it could not project (malformed, a number
    -- out of range) and the reason. Their later events are skipped until `okey replay` rebuilds
    -- the projection (which parks again only what still cannot be projected). Not rebuilt.
    CREATE TABLE scoring_parked (
        table_id  TEXT PRIMARY KEY,
        version   INT NOT NULL,
        reason    TEXT NOT NULL,
        parked_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
"""

MIGRATIONS: list[tuple[int, str]] = [
    (1, schema_sql()),
    (2, PARKED_DDL),
    # The seats on autopilot, for the leaderboards' rule (a win a bot played out does not count).
    (3, "ALTER TABLE scoring_tables ADD COLUMN IF NOT EXISTS autopilot INT[] NOT NULL DEFAULT '{}'"),
    # The seats whose player left mid-match: their match is a loss, never a win [D-10].
    (4, "ALTER TABLE scoring_tables ADD COLUMN IF NOT EXISTS left_seats INT[] NOT NULL DEFAULT '{}'"),
    # Players who deleted their account (issue 19.4): their stats and leaderboard rows are gone
    # and stay gone (a rebuild drops them again). Not rebuilt: the lobby says who, once.
    (5, "CREATE TABLE IF NOT EXISTS scoring_erased (player_id TEXT PRIMARY KEY, erased_at TIMESTAMPTZ NOT NULL)"),
    # The projector is a consumer like the others: its applied versions and parked tables are
    # the consumers' (okeyplatform.consumer, migrated first). A kept install's are carried over,
    # so no event is applied twice or skipped.
    (
        6,
        f"""
        INSERT INTO okey_consumer_versions (consumer, table_id, version)
        SELECT '{RECORD}', table_id, version FROM scoring_tables
        ON CONFLICT (consumer, table_id) DO UPDATE
        SET version = GREATEST(okey_consumer_versions.version, EXCLUDED.version);
        INSERT INTO okey_consumer_parked (consumer, table_id, version, reason, parked_at)
        SELECT '{RECORD}', table_id, version, reason, parked_at FROM scoring_parked
        ON CONFLICT (consumer, table_id) DO NOTHING;
        DROP TABLE scoring_parked;
        """,
    ),
    # The skill rating (issue 45.1). Empty until `okey replay` rates the matches already played
    # (the live projector rates those that end from now on).
    (7, ratings_sql()),
]
SCOPE = "scoring"

TABLE_COLS = tuple(f.name for f in fields(TableAcc))
HAND_COLS = tuple(f.name for f in fields(HandRow))
MATCH_COLS = tuple(f.name for f in fields(MatchRow))
SEAT_COLS = tuple(f.name for f in fields(SeatRow))
PLAYER_COLS = ("player_id", "game", *COUNTER_FIELDS)
WEEKLY_COLS = ("week", "game", "player_id", *WEEKLY_FIELDS)
RATING_COLS = tuple(f.name for f in fields(RatingRow))
MATCH_RATING_COLS = tuple(f.name for f in fields(MatchRatingRow))
_ERASABLE = ("scoring_players", "scoring_weekly", "scoring_ratings", "scoring_match_ratings")
"""The tables with a player's own rows, which erasure deletes."""


async def migrate_schema(conn: asyncpg.Connection) -> str:
    """The scoring tables' migrations (``okey migrate``; the service also applies them at start),
    after the consumers' record, which the projector writes."""
    await migrate_consumer_versions(conn)
    applied = await migrate(conn, MIGRATIONS, scope=SCOPE)
    return f"{len(applied)} applied"


LeaderRow = tuple[str, int, int, int]
"""(player_id, wins, matches, score_sum)"""


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _jsonb_out(value: Any) -> bytes:
    return b"\x01" + _dumps(value).encode("utf-8")  # jsonb's binary format: version 1, then the text


def _jsonb_in(data: bytes) -> Any:
    return json.loads(data[1:])


async def _init(conn: asyncpg.Connection) -> None:
    # Binary, so COPY (the rebuild) can write jsonb too.
    await conn.set_type_codec("jsonb", encoder=_jsonb_out, decoder=_jsonb_in, schema="pg_catalog", format="binary")


def _prefix(schema: str | None) -> str:
    return f'"{schema}".' if schema else ""


def _insert(table: str, cols: tuple[str, ...], schema: str | None, tail: str = "") -> str:
    marks = ", ".join(f"${i}" for i in range(1, len(cols) + 1))
    return f"INSERT INTO {_prefix(schema)}{table} AS t ({', '.join(cols)}) VALUES ({marks}) {tail}"


def _acc(r: asyncpg.Record) -> TableAcc:
    return TableAcc(**{c: r[c] for c in TABLE_COLS})


def _values(obj: Any, cols: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(getattr(obj, c) for c in cols)


class ScoringStore:
    """The service's tables on PostgreSQL. Writers take the tables' rows ``FOR UPDATE`` first
    (sorted by id), so concurrent projector replicas serialise per table and never deadlock."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @classmethod
    async def connect(cls, dsn: str, min_size: int = 1, max_size: int = 8) -> ScoringStore:
        return cls(await open_pool(dsn, migrate_schema, min_size, max_size, init=_init))

    async def close(self) -> None:
        await self.pool.close()

    # ------------------------------------------------------------ parked tables

    async def parked(self) -> list[tuple[str, int, str]]:
        """Every table the projector parked: (table_id, version, reason), oldest first."""
        async with self.pool.acquire() as conn:
            return await parked_tables(conn, RECORD)

    async def replace_parked(self, conn: asyncpg.Connection, parked: dict[str, tuple[int, str]]) -> None:
        """After a rebuild: the parked tables are those the rebuild could not project."""
        await replace_parked(conn, RECORD, parked)

    # ------------------------------------------------------------ the projector's writes

    async def load_tables(
        self, conn: asyncpg.Connection, table_ids: list[str], schema: str | None = None
    ) -> dict[str, TableAcc]:
        """The tables' folded state, locked until the transaction ends."""
        rows = await conn.fetch(
            f"SELECT {', '.join(TABLE_COLS)} FROM {_prefix(schema)}scoring_tables "
            "WHERE table_id = ANY($1::text[]) ORDER BY table_id FOR UPDATE",
            sorted(table_ids),
        )
        return {r["table_id"]: _acc(r) for r in rows}

    async def save(self, conn: asyncpg.Connection, changes: Changes, schema: str | None = None) -> None:
        """Write what a batch of events produced (inside the caller's transaction)."""
        if changes.tables:
            update = ", ".join(f"{c} = EXCLUDED.{c}" for c in TABLE_COLS if c != "table_id")
            await conn.executemany(
                _insert("scoring_tables", TABLE_COLS, schema, f"ON CONFLICT (table_id) DO UPDATE SET {update}"),
                [_values(changes.tables[k], TABLE_COLS) for k in sorted(changes.tables)],
            )
        if changes.hands:
            await conn.executemany(
                _insert("scoring_hands", HAND_COLS, schema), [_values(h, HAND_COLS) for h in changes.hands]
            )
        if changes.matches:
            await conn.executemany(
                _insert("scoring_matches", MATCH_COLS, schema), [_values(m, MATCH_COLS) for m in changes.matches]
            )
        if changes.seats:
            await conn.executemany(
                _insert("scoring_match_seats", SEAT_COLS, schema), [_values(s, SEAT_COLS) for s in changes.seats]
            )
        if changes.players:
            add = ", ".join(f"{c} = t.{c} + EXCLUDED.{c}" for c in COUNTER_FIELDS)
            await conn.executemany(
                _insert("scoring_players", PLAYER_COLS, schema, f"ON CONFLICT (player_id, game) DO UPDATE SET {add}"),
                [(*k, *changes.players[k].values()) for k in sorted(changes.players)],
            )
        if changes.weekly:
            add = ", ".join(f"{c} = t.{c} + EXCLUDED.{c}" for c in WEEKLY_FIELDS)
            await conn.executemany(
                _insert(
                    "scoring_weekly", WEEKLY_COLS, schema, f"ON CONFLICT (week, game, player_id) DO UPDATE SET {add}"
                ),
                [(*k, *(getattr(c, f) for f in WEEKLY_FIELDS)) for k, c in sorted(changes.weekly.items())],
            )
        if changes.rated:
            await self._rate(conn, changes.rated, schema)
        if changes.players or changes.weekly or changes.rated:
            # A player erased while their last match was still on its way here: no row comes back
            # for them (a rebuild from the log, which drops the erased, has none either).
            touched = sorted(
                {k[0] for k in changes.players}
                | {k[2] for k in changes.weekly}
                | {p for m in changes.rated for team in m.teams for _, p in team}
            )
            for table in _ERASABLE:
                await conn.execute(
                    f"DELETE FROM {_prefix(schema)}{table} WHERE player_id = ANY($1::text[]) "
                    "AND player_id IN (SELECT player_id FROM scoring_erased)",
                    touched,
                )

    async def _rate(self, conn: asyncpg.Connection, rated: list[RatedMatch], schema: str | None) -> None:
        """Rate the batch's matches in the rating's order (``rating.order``: when they ended).
        A match that reaches the projector after one that ended later (two tables of one player
        ending together, in another order than the log's) rates again, in order, every match of
        its game that ended after it: the rows then equal a rebuild's. One writer a game at a
        time (an advisory lock, per schema so a rebuild's catch-up never waits on the live)."""
        p = _prefix(schema)
        for game in sorted({m.game for m in rated}):
            batch = sorted((m for m in rated if m.game == game), key=order)
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext($1))", f"scoring_ratings:{schema or ''}:{game}")
            rows = await conn.fetch(
                f"SELECT {', '.join(MATCH_RATING_COLS)} FROM {p}scoring_match_ratings "
                "WHERE game = $1 AND (ended_at, table_id) > ($2, $3)",
                game,
                batch[0].ended_at,
                batch[0].table_id,
            )
            later = [MatchRatingRow(**{c: r[c] for c in MATCH_RATING_COLS}) for r in rows]
            seq = sorted([*batch, *matches_of(later)], key=order)
            players = sorted({pid for m in seq for team in m.teams for _, pid in team})
            stored = await conn.fetch(
                f"SELECT player_id, mu, sigma, matches FROM {p}scoring_ratings "
                "WHERE game = $1 AND player_id = ANY($2::text[])",
                game,
                players,
            )
            skills = {(r["player_id"], game): Skill(r["mu"], r["sigma"], r["matches"]) for r in stored}
            for pid in players:
                # rated again from where they stood before the first of those matches
                theirs = sorted((r for r in later if r.player_id == pid), key=order)
                if theirs:
                    now = skills.get((pid, game), NEW)
                    skills[(pid, game)] = Skill(theirs[0].mu_before, theirs[0].sigma_before, now.matches - len(theirs))
            if later:
                await conn.execute(
                    f"DELETE FROM {p}scoring_match_ratings WHERE table_id = ANY($1::text[])",
                    sorted({r.table_id for r in later}),
                )
            ratings = Ratings(skills)
            for m in seq:
                ratings.apply(m)
            await self._write_ratings(conn, ratings, schema)

    async def _write_ratings(self, conn: asyncpg.Connection, ratings: Ratings, schema: str | None) -> None:
        update = ", ".join(f"{c} = EXCLUDED.{c}" for c in RATING_COLS if c not in ("player_id", "game"))
        await conn.executemany(
            _insert("scoring_ratings", RATING_COLS, schema, f"ON CONFLICT (player_id, game) DO UPDATE SET {update}"),
            [_values(r, RATING_COLS) for r in ratings.current()],
        )
        await conn.executemany(
            _insert("scoring_match_ratings", MATCH_RATING_COLS, schema),
            [_values(r, MATCH_RATING_COLS) for r in ratings.rows],
        )

    async def copy_all(
        self, conn: asyncpg.Connection, tables: dict[str, TableAcc], changes: Changes, schema: str
    ) -> dict[str, int]:
        """Bulk-load a whole projection (a rebuild) into empty tables with COPY; returns row counts.
        The rated matches are rated here, in the rating's order (when they ended)."""
        ratings = Ratings()
        for m in sorted(changes.rated, key=order):
            ratings.apply(m)
        batches: dict[str, tuple[tuple[str, ...], list[tuple[Any, ...]]]] = {
            "scoring_tables": (TABLE_COLS, [_values(t, TABLE_COLS) for t in tables.values()]),
            "scoring_hands": (HAND_COLS, [_values(h, HAND_COLS) for h in changes.hands]),
            "scoring_matches": (MATCH_COLS, [_values(m, MATCH_COLS) for m in changes.matches]),
            "scoring_match_seats": (SEAT_COLS, [_values(s, SEAT_COLS) for s in changes.seats]),
            "scoring_players": (PLAYER_COLS, [(*k, *c.values()) for k, c in changes.players.items()]),
            "scoring_weekly": (
                WEEKLY_COLS,
                [(*k, *(getattr(c, f) for f in WEEKLY_FIELDS)) for k, c in changes.weekly.items()],
            ),
            "scoring_ratings": (RATING_COLS, [_values(r, RATING_COLS) for r in ratings.current()]),
            "scoring_match_ratings": (MATCH_RATING_COLS, [_values(r, MATCH_RATING_COLS) for r in ratings.rows]),
        }
        counts = {}
        for name, (cols, rows) in batches.items():
            if rows:
                await conn.copy_records_to_table(name, records=rows, columns=list(cols), schema_name=schema)
            counts[name] = len(rows)
        return counts

    async def versions(self, conn: asyncpg.Connection, schema: str | None = None) -> dict[str, int]:
        rows = await conn.fetch(f"SELECT table_id, version FROM {_prefix(schema)}scoring_tables")
        return {r["table_id"]: r["version"] for r in rows}

    # ------------------------------------------------------------ rebuild and swap

    async def prepare_rebuild(self, conn: asyncpg.Connection) -> None:
        """Empty tables of the current shape in the rebuild schema (left-overs dropped)."""
        await conn.execute(f'DROP SCHEMA IF EXISTS "{REBUILD_SCHEMA}" CASCADE')
        await conn.execute(f'CREATE SCHEMA "{REBUILD_SCHEMA}"')
        await conn.execute(schema_sql(REBUILD_SCHEMA))

    async def drop_rebuild(self, conn: asyncpg.Connection) -> None:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{REBUILD_SCHEMA}" CASCADE')

    async def lock_live(self, conn: asyncpg.Connection) -> None:
        """Stop the live projector's writes (and reads) until the transaction ends."""
        await conn.execute(f"LOCK TABLE {', '.join(TABLES)} IN ACCESS EXCLUSIVE MODE")

    async def diff(self, conn: asyncpg.Connection) -> dict[str, int]:
        """Rows that differ between the live tables and the rebuilt ones, per table."""
        out = {}
        for name in TABLES:
            live, new = name, f'"{REBUILD_SCHEMA}".{name}'
            out[name] = await conn.fetchval(
                f"SELECT count(*) FROM ((TABLE {live} EXCEPT ALL TABLE {new}) "
                f"UNION ALL (TABLE {new} EXCEPT ALL TABLE {live})) d"
            )
        return out

    async def swap(self, conn: asyncpg.Connection) -> None:
        """Replace the live tables by the rebuilt ones (inside the caller's transaction, after
        ``lock_live``): readers and the projector see the old tables or the new, never a mix."""
        schema = await conn.fetchval("SELECT current_schema()")
        for name in TABLES:
            await conn.execute(f"DROP TABLE {name}")
            await conn.execute(f'ALTER TABLE "{REBUILD_SCHEMA}".{name} SET SCHEMA "{schema}"')
        await conn.execute(f'DROP SCHEMA "{REBUILD_SCHEMA}"')

    async def snapshot(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every table, sorted: for tests and tools comparing two projections."""
        out: dict[str, list[tuple[Any, ...]]] = {}
        async with self.pool.acquire() as conn:
            for name in TABLES:
                rows = await conn.fetch(f"SELECT * FROM {name}")
                out[name] = sorted((tuple(_plain(v) for v in r.values()) for r in rows), key=repr)
        return out

    # ------------------------------------------------------------ queries

    async def table(self, table_id: str) -> TableAcc | None:
        async with self.pool.acquire() as conn:
            r = await conn.fetchrow(f"SELECT {', '.join(TABLE_COLS)} FROM scoring_tables WHERE table_id = $1", table_id)
        return _acc(r) if r else None

    async def hands(self, table_id: str) -> list[HandRow]:
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(
                f"SELECT {', '.join(HAND_COLS)} FROM scoring_hands WHERE table_id = $1 ORDER BY seq", table_id
            )
        return [HandRow(**{c: _plain(r[c]) for c in HAND_COLS}) for r in rows]

    async def match(self, table_id: str) -> tuple[MatchRow, list[SeatRow]] | None:
        async with self.pool.acquire() as conn:
            m = await conn.fetchrow(
                f"SELECT {', '.join(MATCH_COLS)} FROM scoring_matches WHERE table_id = $1", table_id
            )
            if m is None:
                return None
            seats = await conn.fetch(
                f"SELECT {', '.join(SEAT_COLS)} FROM scoring_match_seats WHERE table_id = $1 ORDER BY seat", table_id
            )
        return (
            MatchRow(**{c: _plain(m[c]) for c in MATCH_COLS}),
            [SeatRow(**{c: s[c] for c in SEAT_COLS}) for s in seats],
        )

    async def forget_player(self, player_id: str) -> None:
        """A player who deleted their account: off the stats and the boards, now and after any
        rebuild (their matches' results keep the opaque id, as the log does)."""
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO scoring_erased (player_id, erased_at) VALUES ($1, now()) ON CONFLICT DO NOTHING",
                player_id,
            )
            await self.forget_erased(conn, None, player_id)

    async def forget_erased(self, conn: asyncpg.Connection, schema: str | None, player_id: str | None = None) -> None:
        """Drop the erased players' rows (one's, or every one's: after ``okey replay`` rebuilt):
        stats, board rows and ratings."""
        who = "player_id = $1" if player_id else "player_id IN (SELECT player_id FROM scoring_erased)"
        for table in _ERASABLE:
            await conn.execute(f"DELETE FROM {_prefix(schema)}{table} WHERE {who}", *([player_id] if player_id else []))

    async def player(self, player_id: str, game: str | None = None) -> list[tuple[str, Counters]]:
        sql = f"SELECT {', '.join(PLAYER_COLS)} FROM scoring_players WHERE player_id = $1"
        args: list[Any] = [player_id]
        if game:
            sql += " AND game = $2"
            args.append(game)
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(sql + " ORDER BY game", *args)
        return [(r["game"], Counters(**{c: r[c] for c in COUNTER_FIELDS})) for r in rows]

    async def leaderboard(
        self, game: str, week: date | None, after: tuple[int, int, str] | None, limit: int
    ) -> list[LeaderRow]:
        """Players with a ranked match by wins (desc), then matches (asc), then id; keyset paging
        after ``after`` = (wins, matches, player_id) of the previous page's last row. A player
        whose every match was practice against bots (matches = 0) is not on the board [issue 15.6]."""
        sql, args = _wins_board(game, week)
        if after is not None:
            n = len(args)
            sql += f" AND (wins < ${n + 1} OR (wins = ${n + 1} AND (matches, player_id) > (${n + 2}, ${n + 3})))"
            args += list(after)
        sql += f" ORDER BY {WINS_ORDER} LIMIT {int(limit)}"
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(sql, *args)
        return [(r["player_id"], r["wins"], r["matches"], r["score_sum"]) for r in rows]

    async def leaderboard_place(self, game: str, week: date | None, player_id: str) -> tuple[int, LeaderRow] | None:
        """One player's rank and row on the wins board (``leaderboard``'s order), or None when
        they are not on it: one query, the rank a window over the board's own ORDER BY."""
        sql, args = _wins_board(game, week)
        r = await self._place(sql, args, WINS_ORDER, player_id)
        return None if r is None else (r["pos"], (r["player_id"], r["wins"], r["matches"], r["score_sum"]))

    async def _place(self, board: str, args: list[Any], order_by: str, player_id: str) -> asyncpg.Record | None:
        """The row of ``player_id`` on ``board`` (a board's query, unordered) with ``pos``, its
        1-based position in ``order_by``: the rank the board's pages give it."""
        sql = (
            f"SELECT * FROM (SELECT b.*, row_number() OVER (ORDER BY {order_by}) AS pos FROM ({board}) b) p "
            f"WHERE player_id = ${len(args) + 1}"
        )
        async with self.pool.acquire() as conn:
            return await conn.fetchrow(sql, *args, player_id)

    async def ratings(self, player_id: str, game: str | None = None) -> dict[str, RatingRow]:
        """A player's current rating per game (none before their first rated match)."""
        sql = f"SELECT {', '.join(RATING_COLS)} FROM scoring_ratings WHERE player_id = $1"
        args: list[Any] = [player_id]
        if game:
            sql += " AND game = $2"
            args.append(game)
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(sql, *args)
        return {r["game"]: RatingRow(**{c: r[c] for c in RATING_COLS}) for r in rows}

    async def match_ratings(self, table_id: str) -> dict[int, MatchRatingRow]:
        """A match's rated seats: the rating before and after, by seat."""
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(
                f"SELECT {', '.join(MATCH_RATING_COLS)} FROM scoring_match_ratings WHERE table_id = $1", table_id
            )
        return {r["seat"]: MatchRatingRow(**{c: r[c] for c in MATCH_RATING_COLS}) for r in rows}

    async def rating_board(
        self, game: str, week: date | None, after: tuple[int, str] | None, limit: int
    ) -> list[RatingLeader]:
        """Players by rating: all time by display rating, a week by the change in display rating
        over its rated matches; then by id. Keyset paging after ``after`` = (key, player_id) of
        the previous page's last row. The wins columns are the players' (or the week's) counters."""
        sql, args = _rating_board(game, week)
        if after is not None:
            n = len(args)
            sql += f" AND (key < ${n + 1} OR (key = ${n + 1} AND player_id > ${n + 2}))"
            args += list(after)
        sql += f" ORDER BY {RATING_ORDER} LIMIT {int(limit)}"
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(sql, *args)
        return [_rating_leader(r) for r in rows]

    async def rating_place(self, game: str, week: date | None, player_id: str) -> tuple[int, RatingLeader] | None:
        """One player's rank and row on the rating board (``rating_board``'s order), or None when
        they are not on it (no rated match in the period, erased)."""
        sql, args = _rating_board(game, week)
        r = await self._place(sql, args, RATING_ORDER, player_id)
        return None if r is None else (r["pos"], _rating_leader(r))


WINS_ORDER = "wins DESC, matches, player_id"
"""The wins board's order (its pages' ORDER BY, and the window that ranks one player)."""
RATING_ORDER = "key DESC, player_id"
"""The rating board's order, over ``key`` (the rating, or the week's change)."""


def _wins_board(game: str, week: date | None) -> tuple[str, list[Any]]:
    """The wins board's rows, unordered: the players (or the week's) with a ranked match, the
    erased left out. A WHERE clause a caller may extend with AND."""
    if week is None:
        sql = "SELECT player_id, wins, matches, score_sum FROM scoring_players WHERE game = $1 AND matches > 0"
        args: list[Any] = [game]
    else:
        sql = (
            "SELECT player_id, wins, matches, score_sum FROM scoring_weekly "
            "WHERE game = $1 AND week = $2 AND matches > 0"
        )
        args = [game, week]
    sql += " AND player_id NOT IN (SELECT player_id FROM scoring_erased)"  # a late row of one, if any
    return sql, args


def _rating_board(game: str, week: date | None) -> tuple[str, list[Any]]:
    """The rating board's rows, unordered, each with its ``key``; the erased left out. A WHERE
    clause a caller may extend with AND."""
    if week is None:
        sql = (
            "SELECT r.player_id, r.display AS key, r.display AS rating, 0 AS change, r.matches AS rated, "
            "coalesce(c.wins, 0) AS wins, coalesce(c.matches, 0) AS matches, coalesce(c.score_sum, 0) AS score_sum "
            "FROM scoring_ratings r LEFT JOIN scoring_players c USING (player_id, game) WHERE r.game = $1"
        )
        args: list[Any] = [game]
    else:
        sql = (
            "SELECT w.player_id, w.change AS key, w.rating, w.change, w.rated, "
            "coalesce(c.wins, 0) AS wins, coalesce(c.matches, 0) AS matches, coalesce(c.score_sum, 0) AS score_sum "
            "FROM (SELECT player_id, sum(display_after - display_before)::int AS change, count(*) AS rated, "
            "(array_agg(display_after ORDER BY ended_at DESC, table_id DESC))[1] AS rating "
            "FROM scoring_match_ratings WHERE game = $1 AND week = $2 GROUP BY player_id) w "
            "LEFT JOIN scoring_weekly c ON c.week = $2 AND c.game = $1 AND c.player_id = w.player_id"
        )
        args = [game, week]
    sql = f"SELECT * FROM ({sql}) e WHERE player_id NOT IN (SELECT player_id FROM scoring_erased)"
    return sql, args


def _rating_leader(r: asyncpg.Record) -> RatingLeader:
    return RatingLeader(
        r["player_id"], r["key"], r["rating"], r["change"], r["rated"], r["wins"], r["matches"], r["score_sum"]
    )


@dataclass(frozen=True, slots=True)
class RatingLeader:
    """A row of a rating board: ``key`` is what it ranks by (the rating, or the week's change)."""

    player_id: str
    key: int
    rating: int
    change: int
    rated: int
    wins: int
    matches: int
    score_sum: int


def _plain(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v

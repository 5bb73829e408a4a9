"""The event store: append-only streams with optimistic versions, idempotent commands,
a global order readers page through without skipping late commits, and per-stream timers.

Two implementations share one contract (tests/platform/test_eventstore_contract.py):
``MemoryEventStore`` and ``PostgresEventStore`` (asyncpg)."""

from __future__ import annotations

import asyncio
import contextvars
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

import asyncpg
import okeycore.games  # noqa: F401  (registers the Okey 101 events, so a row of either game decodes)
from okeycore.events import EVENT_TYPES, Event, event_from_dict

from .tracing import db_span

__all__ = [
    "NewEvent",
    "StoredEvent",
    "BadEnvelope",
    "UnreadableEvent",
    "UnknownEvent",
    "GlobalPosition",
    "AppendResult",
    "VersionConflict",
    "DuplicateCommand",
    "EventStore",
    "MemoryEventStore",
    "PostgresEventStore",
    "MIGRATIONS",
    "migrate",
    "open_pool",
    "DatabaseUnreachable",
    "connect_database",
    "KEEP_TIMER",
]

GlobalPosition = tuple[int, int]
"""(transaction id, position): the order of the whole log. Rows only become readable once
every older transaction has ended, so a reader's cursor never passes a late commit."""

START: GlobalPosition = (0, 0)


class _Keep:
    def __repr__(self) -> str:
        return "KEEP_TIMER"


KEEP_TIMER: Any = _Keep()
"""Pass as ``due_at_ms`` to leave a stream's timer as it is."""


class BadEnvelope(ValueError):
    """A message on the table subjects that is not a table event envelope."""


class UnreadableEvent(BadEnvelope):
    """The envelope is readable, its event is not (malformed, or a value its message cannot
    hold): the table and version are known, so a consumer can set that table aside."""

    def __init__(self, message: str, table_id: str, version: int, kind: str) -> None:
        super().__init__(message)
        self.table_id = table_id
        self.version = version
        self.kind = kind


class UnknownEvent(UnreadableEvent):
    """An event type this okeycore does not know (a newer table service wrote it)."""


@dataclass(frozen=True, slots=True)
class NewEvent:
    type: str
    data: dict[str, Any]
    hand: int = 0
    bot_seats: int | None = None  # the seats a bot plays after the event (TableState.bot_seats)


@dataclass(frozen=True, slots=True)
class StoredEvent:
    stream_id: str
    version: int
    type: str
    data: dict[str, Any]
    hand: int
    position: int
    global_position: GlobalPosition
    recorded_at: datetime
    # W3C trace context of the command that appended the event, when its caller sent one.
    traceparent: str | None = None
    # The seats a bot plays after the event (a mask, bit i for seat i); None when not known
    # (appended before it was kept, or by a writer that does not say).
    bot_seats: int | None = None

    def event(self) -> Event:
        """The okeycore event this row holds (the log keeps okeycore's JSON form). Raises
        UnknownEvent / UnreadableEvent naming the table and version."""
        if self.type not in EVENT_TYPES:
            message = f"unknown event type {self.type!r} at table {self.stream_id!r} version {self.version}"
            raise UnknownEvent(message, self.stream_id, self.version, self.type)
        try:
            return event_from_dict({"type": self.type, **self.data})
        except (KeyError, ValueError, TypeError) as exc:
            raise UnreadableEvent(
                f"cannot read the {self.type!r} event at table {self.stream_id!r} version {self.version}: {exc!r}",
                self.stream_id,
                self.version,
                self.type,
            ) from None


@dataclass(frozen=True, slots=True)
class AppendResult:
    first_version: int
    last_version: int
    events: list[StoredEvent] = field(default_factory=list)


class VersionConflict(Exception):
    """Someone else appended to the stream first: reload and decide again."""


class DuplicateCommand(Exception):
    """This command id was already applied to the stream; ``first``..``last`` are its versions."""

    def __init__(self, first: int, last: int) -> None:
        super().__init__(f"command already applied as versions {first}..{last}")
        self.first = first
        self.last = last


class EventStore(Protocol):
    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        command_id: str | None = None,
        due_at_ms: int | None = KEEP_TIMER,
        traceparent: str | None = None,
    ) -> AppendResult: ...

    async def read_stream(
        self, stream_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[StoredEvent]: ...

    async def read_all(self, after: GlobalPosition = START, limit: int = 1000) -> list[StoredEvent]: ...

    async def find_command(self, stream_id: str, command_id: str) -> tuple[int, int] | None: ...

    async def claim_due_timers(self, now_ms: int, lease_ms: int, limit: int = 100) -> list[str]: ...

    async def set_timer(self, stream_id: str, due_at_ms: int | None) -> None: ...

    async def stream_ids(self) -> list[str]: ...

    async def count_live_with_command(self, prefix: str) -> int: ...


# ------------------------------------------------------------------ in memory


class MemoryEventStore:
    """The same contract in a process's memory: for unit tests and tools."""

    def __init__(self) -> None:
        self._streams: dict[str, list[StoredEvent]] = {}
        self._all: list[StoredEvent] = []
        self._commands: dict[tuple[str, str], tuple[int, int]] = {}
        self._timers: dict[str, int] = {}
        self._lock = asyncio.Lock()

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        command_id: str | None = None,
        due_at_ms: int | None = KEEP_TIMER,
        traceparent: str | None = None,
    ) -> AppendResult:
        async with self._lock:
            stream = self._streams.setdefault(stream_id, [])
            if command_id is not None and (stream_id, command_id) in self._commands:
                raise DuplicateCommand(*self._commands[(stream_id, command_id)])
            if len(stream) != expected_version:
                raise VersionConflict(f"{stream_id} is at version {len(stream)}, not {expected_version}")
            now = datetime.now(UTC)
            out = []
            for i, e in enumerate(events):
                pos = len(self._all) + 1
                stored = StoredEvent(
                    stream_id,
                    expected_version + i + 1,
                    e.type,
                    json.loads(json.dumps(e.data)),
                    e.hand,
                    pos,
                    (pos, pos),
                    now,
                    traceparent,
                    e.bot_seats,
                )
                stream.append(stored)
                self._all.append(stored)
                out.append(stored)
            first, last = expected_version + 1, expected_version + len(events)
            if command_id is not None and events:
                self._commands[(stream_id, command_id)] = (first, last)
            if due_at_ms is None:
                self._timers.pop(stream_id, None)
            elif due_at_ms is not KEEP_TIMER:
                self._timers[stream_id] = int(due_at_ms)
            return AppendResult(first, last, out)

    async def read_stream(self, stream_id: str, after_version: int = 0, limit: int | None = None) -> list[StoredEvent]:
        got = self._streams.get(stream_id, [])[after_version:]
        return got[:limit] if limit is not None else list(got)

    async def read_all(self, after: GlobalPosition = START, limit: int = 1000) -> list[StoredEvent]:
        return [e for e in self._all if e.global_position > after][:limit]

    async def find_command(self, stream_id: str, command_id: str) -> tuple[int, int] | None:
        return self._commands.get((stream_id, command_id))

    async def claim_due_timers(self, now_ms: int, lease_ms: int, limit: int = 100) -> list[str]:
        async with self._lock:
            due = sorted((t, s) for s, t in self._timers.items() if t <= now_ms)[:limit]
            for _, s in due:
                self._timers[s] = now_ms + lease_ms
            return [s for _, s in due]

    async def timer(self, stream_id: str) -> int | None:
        return self._timers.get(stream_id)

    async def set_timer(self, stream_id: str, due_at_ms: int | None) -> None:
        if due_at_ms is None:
            self._timers.pop(stream_id, None)
        else:
            self._timers[stream_id] = due_at_ms

    async def stream_ids(self) -> list[str]:
        return sorted(self._streams)

    async def count_live_with_command(self, prefix: str) -> int:
        """Streams with a running timer (a hand in play) holding a command id that starts with
        ``prefix`` (the table service counts a caller's open tables by their creation command)."""
        return len({s for s, c in self._commands if c.startswith(prefix) and s in self._timers})


# ------------------------------------------------------------------ PostgreSQL

MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
        CREATE TABLE okey_events (
            position    BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            tx          XID8 NOT NULL DEFAULT pg_current_xact_id(),
            stream_id   TEXT NOT NULL,
            version     INT NOT NULL,
            type        TEXT NOT NULL,
            data        JSONB NOT NULL,
            hand        INT NOT NULL DEFAULT 0,
            recorded_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
            CONSTRAINT okey_events_stream_version UNIQUE (stream_id, version)
        );
        CREATE INDEX okey_events_global ON okey_events (tx, position);
        CREATE TABLE okey_commands (
            stream_id     TEXT NOT NULL,
            command_id    TEXT NOT NULL,
            first_version INT NOT NULL,
            last_version  INT NOT NULL,
            PRIMARY KEY (stream_id, command_id)
        );
        CREATE TABLE okey_timers (
            stream_id TEXT PRIMARY KEY,
            due_at    TIMESTAMPTZ NOT NULL
        );
        CREATE INDEX okey_timers_due ON okey_timers (due_at);
        CREATE TABLE okey_cursors (
            name     TEXT PRIMARY KEY,
            tx       XID8 NOT NULL,
            position BIGINT NOT NULL
        );
        """,
    ),
    (
        2,
        # A caller's table creations by command id (the open-tables cap per player).
        """CREATE INDEX okey_commands_creations ON okey_commands (command_id COLLATE "C")
           WHERE command_id LIKE 'create:%';""",
    ),
    (
        3,
        # The trace context of the command behind each event, published with it (NULL when the
        # caller sent none, and for every event appended before). No default: instant on a big log.
        "ALTER TABLE okey_events ADD COLUMN traceparent TEXT;",
    ),
    (
        4,
        # Whom a bot plays after each event (StoredEvent.bot_seats), so the bots call the table
        # only for their own seats. NULL for the events appended before: they ask, as they did.
        "ALTER TABLE okey_events ADD COLUMN bot_seats SMALLINT;",
    ),
    (
        5,
        # Many appends in one round trip and one commit (PostgresEventStore's group commit). Each
        # request is what one append is on its own, in a block of its own: its events only if the
        # stream is at its expected version, then its command, its timer and its NOTIFY; a
        # version taken or a command seen before undoes that request alone. Outcome 0: written
        # (a row per event); 1: the version is taken; 2: the command was applied before, as the
        # versions in ev_version (first) and ev_position (last).
        """
        CREATE FUNCTION okey_append_batch(
            streams TEXT[], expected INT[], command_ids TEXT[], timer_ops SMALLINT[], due_ats TIMESTAMPTZ[],
            traceparents TEXT[], counts INT[], types TEXT[], datas TEXT[], hands INT[], bots SMALLINT[]
        ) RETURNS TABLE (req INT, outcome SMALLINT, ev_position BIGINT, ev_tx TEXT, ev_version INT,
                         ev_recorded_at TIMESTAMPTZ)
        LANGUAGE plpgsql AS $fn$
        DECLARE
            k INT;
            a INT := 1;
            b INT;
            last_v INT;
            got_pos BIGINT[];
            got_tx TEXT[];
            got_ver INT[];
            got_at TIMESTAMPTZ[];
            written BOOLEAN;
            cname TEXT;
            f INT;
            l INT;
        BEGIN
            FOR k IN 1 .. coalesce(cardinality(streams), 0) LOOP
                b := a + counts[k] - 1;
                last_v := expected[k] + counts[k];
                written := false;
                BEGIN
                    WITH ev AS (
                        INSERT INTO okey_events (stream_id, version, type, data, hand, traceparent, bot_seats)
                        SELECT streams[k], expected[k] + t.ord, t.type, t.data::jsonb, t.hand, traceparents[k], t.bots
                        FROM unnest(types[a:b], datas[a:b], hands[a:b], bots[a:b])
                            WITH ORDINALITY AS t(type, data, hand, bots, ord)
                        WHERE expected[k] = 0 OR EXISTS (
                            SELECT 1 FROM okey_events e WHERE e.stream_id = streams[k] AND e.version = expected[k])
                        RETURNING position, tx, version, recorded_at
                    )
                    SELECT array_agg(ev.position ORDER BY ev.version), array_agg(ev.tx::text ORDER BY ev.version),
                           array_agg(ev.version ORDER BY ev.version), array_agg(ev.recorded_at ORDER BY ev.version)
                    INTO got_pos, got_tx, got_ver, got_at FROM ev;
                    IF got_pos IS NOT NULL THEN
                        IF command_ids[k] IS NOT NULL THEN
                            INSERT INTO okey_commands (stream_id, command_id, first_version, last_version)
                            VALUES (streams[k], command_ids[k], expected[k] + 1, last_v);
                        END IF;
                        IF timer_ops[k] = 1 THEN
                            DELETE FROM okey_timers WHERE stream_id = streams[k];
                        ELSIF timer_ops[k] = 2 THEN
                            INSERT INTO okey_timers (stream_id, due_at) VALUES (streams[k], due_ats[k])
                            ON CONFLICT (stream_id) DO UPDATE SET due_at = EXCLUDED.due_at;
                        END IF;
                        PERFORM pg_notify('okey_events', streams[k] || ':' || last_v);
                        written := true;
                    END IF;
                EXCEPTION WHEN unique_violation THEN
                    GET STACKED DIAGNOSTICS cname = CONSTRAINT_NAME;
                    f := NULL;
                    IF cname = 'okey_commands_pkey' THEN
                        SELECT c.first_version, c.last_version INTO f, l FROM okey_commands c
                        WHERE c.stream_id = streams[k] AND c.command_id = command_ids[k];
                    END IF;
                    IF f IS NOT NULL THEN
                        RETURN QUERY SELECT k, 2::SMALLINT, l::BIGINT, NULL::TEXT, f, NULL::TIMESTAMPTZ;
                    ELSE
                        RETURN QUERY SELECT k, 1::SMALLINT, NULL::BIGINT, NULL::TEXT, NULL::INT, NULL::TIMESTAMPTZ;
                    END IF;
                    a := b + 1;
                    CONTINUE;
                END;
                IF written THEN
                    RETURN QUERY SELECT k, 0::SMALLINT, x.p, x.t, x.v, x.r
                        FROM unnest(got_pos, got_tx, got_ver, got_at) AS x(p, t, v, r);
                ELSE
                    RETURN QUERY SELECT k, 1::SMALLINT, NULL::BIGINT, NULL::TEXT, NULL::INT, NULL::TIMESTAMPTZ;
                END IF;
                a := b + 1;
            END LOOP;
        END
        $fn$;
        """,
    ),
]


async def migrate(
    conn: asyncpg.Connection, migrations: Sequence[tuple[int, str]] = MIGRATIONS, scope: str = "eventstore"
) -> list[int]:
    """Apply the migrations not applied yet, each in its own transaction, under an advisory
    lock so replicas starting together apply each once. Returns the versions applied."""
    applied: list[int] = []
    # The lock comes first: CREATE TABLE IF NOT EXISTS is not safe against a concurrent one (two
    # replicas starting together: one fails on pg_type's unique index).
    await conn.execute("SELECT pg_advisory_lock(hashtext('okey_schema'))")
    try:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS okey_schema (scope TEXT NOT NULL, version INT NOT NULL, "
            "applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (scope, version))"
        )
        done = {r["version"] for r in await conn.fetch("SELECT version FROM okey_schema WHERE scope = $1", scope)}
        for version, sql in migrations:
            if version in done:
                continue
            async with conn.transaction():
                await conn.execute(sql)
                await conn.execute("INSERT INTO okey_schema (scope, version) VALUES ($1, $2)", scope, version)
            applied.append(version)
    finally:
        await conn.execute("SELECT pg_advisory_unlock(hashtext('okey_schema'))")
    return applied


async def _no_reset(_conn: asyncpg.Connection) -> None:
    return None


async def open_pool(
    dsn: str,
    migrate_with: Callable[[asyncpg.Connection], Awaitable[Any]],
    min_size: int = 2,
    max_size: int = 10,
    init: Callable[[asyncpg.Connection], Awaitable[None]] | None = None,
) -> asyncpg.Pool:
    """A service's pool on its database, its schema brought up to date (``migrate_with``) first.
    Our connections hold no session state (LISTEN and advisory locks use connections of their
    own), so the pool's reset round trip on every release is skipped."""
    try:
        pool = await asyncpg.create_pool(dsn, min_size=min_size, max_size=max_size, init=init, reset=_no_reset)
    except _UNUSABLE as exc:
        raise DatabaseUnreachable(f"cannot use PostgreSQL at {_redacted(dsn)} ({exc})") from None
    assert pool is not None
    try:
        async with pool.acquire() as conn:
            await migrate_with(conn)
    except BaseException:
        await pool.close()
        raise
    return pool


async def connect_database(dsn: str, timeout_s: float = 10.0) -> asyncpg.Connection:
    """One connection to ``dsn`` for a tool (a backup, a check before services start); a server
    that cannot be reached, a malformed URL, a wrong user, password or database name is
    :class:`DatabaseUnreachable`, as in :func:`open_pool`."""
    try:
        conn: asyncpg.Connection = await asyncpg.connect(dsn, timeout=timeout_s)
    except _UNUSABLE as exc:
        raise DatabaseUnreachable(f"cannot use PostgreSQL at {_redacted(dsn)} ({exc or type(exc).__name__})") from None
    return conn


class DatabaseUnreachable(OSError):
    """PostgreSQL cannot be reached or the URL is wrong: an expected failure, told in one line
    (``run_service`` prints it and exits 2), naming the variables that hold the URL."""

    def __init__(self, message: str) -> None:
        super().__init__(f"{message}; check OKEY_DATABASE_URL (or the service's own *_DATABASE_URL)")


# What a wrong URL or an unreachable server raises: asyncpg's own errors for a malformed URL, a
# wrong user, password or database, besides the OSErrors of the connection (and a port out of
# range, an OverflowError, is a malformed URL too).
_UNUSABLE: tuple[type[BaseException], ...] = (
    OSError,
    OverflowError,
    asyncpg.ClientConfigurationError,
    asyncpg.InvalidAuthorizationSpecificationError,
    asyncpg.InvalidPasswordError,
    asyncpg.InvalidCatalogNameError,
)


def _redacted(dsn: str) -> str:
    """The URL without its password."""
    head, at, tail = dsn.rpartition("@")
    if not at:
        return dsn
    scheme, _, creds = head.partition("//")
    return f"{scheme}//{creds.split(':', 1)[0]}{':***' if ':' in creds else ''}@{tail}"


def _ts(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def _row(r: asyncpg.Record) -> StoredEvent:
    return StoredEvent(
        stream_id=r["stream_id"],
        version=r["version"],
        type=r["type"],
        data=json.loads(r["data"]),
        hand=r["hand"],
        position=r["position"],
        global_position=(int(r["tx"]), r["position"]),
        recorded_at=r["recorded_at"],
        traceparent=r["traceparent"],
        bot_seats=r["bot_seats"],
    )


_COLUMNS = (
    "position, tx::text AS tx, stream_id, version, type, data::text AS data, hand, recorded_at, traceparent, bot_seats"
)


_APPEND_BATCH = "SELECT * FROM okey_append_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"


async def _find_command(conn: asyncpg.Connection, stream_id: str, command_id: str) -> tuple[int, int] | None:
    r = await conn.fetchrow(
        "SELECT first_version, last_version FROM okey_commands WHERE stream_id = $1 AND command_id = $2",
        stream_id,
        command_id,
    )
    return (r["first_version"], r["last_version"]) if r else None


def _written(a: _Append, rows: Sequence[tuple[Any, ...]]) -> AppendResult:
    """``a``'s events as written: only what the database decided comes back (each event's
    position, transaction, version and time, in version order); the rest is what was sent, so it
    is neither read back nor parsed again."""
    out = [
        StoredEvent(a.stream_id, v, e.type, e.data, e.hand, pos, (int(tx), pos), at, a.traceparent, e.bot_seats)
        for (pos, tx, v, at), e in zip(rows, a.events, strict=True)
    ]
    return AppendResult(out[0].version, out[-1].version, out)


@dataclass(slots=True)
class _Append:
    """One append waiting for its round trip (PostgresEventStore's group commit)."""

    stream_id: str
    expected_version: int
    events: Sequence[NewEvent]
    command_id: str | None
    due_at_ms: Any
    traceparent: str | None
    future: asyncio.Future[AppendResult]


class PostgresEventStore:
    """The event store on PostgreSQL. An append is one statement (one round trip): the events
    insert (guarded so versions stay gap-free), the command record and the timer change run
    as data-modifying CTEs, atomically, and a NOTIFY wakes the relay at commit."""

    NOTIFY_CHANNEL = "okey_events"

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self._waiting: list[_Append] = []  # appends that wait for the round trip under way
        self._sending: list[_Append] = []  # the appends of the round trip under way
        self._flusher: asyncio.Task[None] | None = None

    @classmethod
    async def connect(cls, dsn: str, min_size: int = 2, max_size: int = 10) -> PostgresEventStore:
        return cls(await open_pool(dsn, migrate, min_size, max_size))

    async def close(self) -> None:
        await self.pool.close()

    MAX_BATCH = 50
    """The most appends one group commit carries. Each is a subtransaction with an id of its own,
    and PostgreSQL keeps at most 64 of them per transaction in every snapshot's fast path."""

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        command_id: str | None = None,
        due_at_ms: int | None = KEEP_TIMER,
        traceparent: str | None = None,
    ) -> AppendResult:
        """Append, by group commit: while one round trip to PostgreSQL is under way, the appends
        that arrive wait, and then go together, in one statement and one commit (each with
        exactly its own outcome: :sql:`okey_append_batch`). Alone, an append is one statement of
        its own. A caller that gives up before its append is sent takes it out of the batch."""
        if not events:
            return AppendResult(expected_version + 1, expected_version, [])
        item = _Append(
            stream_id,
            expected_version,
            events,
            command_id,
            due_at_ms,
            traceparent,
            asyncio.get_running_loop().create_future(),
        )
        self._waiting.append(item)
        if self._flusher is None:  # a context of its own: not the first caller's trace or deadline
            self._flusher = asyncio.create_task(self._flush(), context=contextvars.Context())
            self._flusher.add_done_callback(self._flush_ended)
        with db_span("INSERT", "okey_events"):
            return await item.future

    async def _flush(self) -> None:
        """Send the waiting appends, a batch a round trip, until none waits. The batch is taken
        once a connection is in hand, so a caller that gave up meanwhile is not sent."""
        while self._waiting:
            async with self.pool.acquire() as conn:
                self._sending = [a for a in self._waiting[: self.MAX_BATCH] if not a.future.done()]
                del self._waiting[: self.MAX_BATCH]
                if not self._sending:
                    continue
                outcomes: list[AppendResult | BaseException]
                if len(self._sending) == 1:
                    outcomes = [await self._outcome(conn, self._sending[0])]
                else:
                    try:
                        outcomes = await self._append_many(conn, self._sending)
                    except Exception:
                        # The batch failed as a whole and wrote nothing (one append's bad value,
                        # a lost connection): each goes again alone, so one append's fault is its own.
                        outcomes = [await self._outcome(conn, a) for a in self._sending]
            for a, out in zip(self._sending, outcomes, strict=True):
                if a.future.done():
                    continue
                if isinstance(out, BaseException):
                    a.future.set_exception(out)
                else:
                    a.future.set_result(out)
            self._sending = []
        self._flusher = None  # nothing waits: the next append starts a flush of its own

    def _flush_ended(self, task: asyncio.Task[None]) -> None:
        """A flush that ended otherwise than by running out of appends (cancelled, even before it
        began, as the service stops; a fault of ours): every append it held or that waits for it
        fails, and the next append starts a flush of its own. Nobody waits for ever."""
        if self._flusher is task:
            self._flusher = None
        if not task.cancelled() and task.exception() is None:
            return
        why = "cancelled" if task.cancelled() else repr(task.exception())
        for a in [*self._sending, *self._waiting]:
            if not a.future.done():
                a.future.set_exception(ConnectionError(f"the event store's round trip ended ({why})"))
        self._sending = []
        self._waiting.clear()

    async def _outcome(self, conn: asyncpg.Connection, a: _Append) -> AppendResult | BaseException:
        try:
            return await self._append_one(conn, a)
        except Exception as exc:
            return exc

    async def _append_many(self, conn: asyncpg.Connection, batch: list[_Append]) -> list[AppendResult | BaseException]:
        """Appends of several streams in one call of :sql:`okey_append_batch`, in the order of
        their stream ids: two batches that write the same streams lock them in the same order."""
        order = sorted(range(len(batch)), key=lambda i: batch[i].stream_id)
        items = [batch[i] for i in order]
        flat = [e for a in items for e in a.events]
        args = (
            [a.stream_id for a in items],
            [a.expected_version for a in items],
            [a.command_id for a in items],
            [0 if a.due_at_ms is KEEP_TIMER else 1 if a.due_at_ms is None else 2 for a in items],
            [None if a.due_at_ms is None or a.due_at_ms is KEEP_TIMER else _ts(int(a.due_at_ms)) for a in items],
            [a.traceparent for a in items],
            [len(a.events) for a in items],
            [e.type for e in flat],
            [json.dumps(e.data, separators=(",", ":")) for e in flat],
            [e.hand for e in flat],
            [e.bot_seats for e in flat],
        )
        rows = await conn.fetch(_APPEND_BATCH, *args)
        got: dict[int, list[asyncpg.Record]] = {}
        for r in rows:
            got.setdefault(r[0], []).append(r)
        outcomes: dict[int, AppendResult | BaseException] = {}
        for k, (i, a) in enumerate(zip(order, items, strict=True), start=1):
            mine = got.get(k, [])
            if mine and mine[0][1] == 0:
                outcomes[i] = _written(a, [tuple(r[2:]) for r in mine])
            elif mine and mine[0][1] == 2:
                outcomes[i] = DuplicateCommand(mine[0][4], mine[0][2])
            else:
                outcomes[i] = VersionConflict(f"{a.stream_id} is not at version {a.expected_version}")
        return [outcomes[i] for i in range(len(batch))]

    async def _append_one(self, conn: asyncpg.Connection, a: _Append) -> AppendResult:
        """One append on its own: one statement, its parts as data-modifying CTEs."""
        stream_id, expected_version, events, command_id = a.stream_id, a.expected_version, a.events, a.command_id
        due_at_ms, traceparent = a.due_at_ms, a.traceparent
        args: list[Any] = [
            stream_id,
            expected_version,
            [e.type for e in events],
            [json.dumps(e.data, separators=(",", ":")) for e in events],
            [e.hand for e in events],
            traceparent,
            [e.bot_seats for e in events],
        ]
        parts = [
            """ev AS (
                INSERT INTO okey_events (stream_id, version, type, data, hand, traceparent, bot_seats)
                SELECT $1, $2::int + ord, t.type, t.data::jsonb, t.hand, $6::text, t.bots
                FROM unnest($3::text[], $4::text[], $5::int[], $7::smallint[])
                    WITH ORDINALITY AS t(type, data, hand, bots, ord)
                WHERE $2::int = 0 OR EXISTS (SELECT 1 FROM okey_events WHERE stream_id = $1 AND version = $2::int)
                RETURNING position, tx, version, recorded_at
            )""",
            # "<stream id>:<last version>": the relay wakes on any; the table service's replicas
            # wake their watchers of that table, skipping what they wrote themselves.
            # The command, the timer and the NOTIFY only with the events: a data-modifying CTE runs
            # whether or not anything reads it, so each asks whether the events went in.
            f"n AS (SELECT pg_notify('{self.NOTIFY_CHANNEL}', $1 || ':' || ($2::int + cardinality($3::text[]))) "
            "WHERE EXISTS (SELECT 1 FROM ev))",
        ]
        if command_id is not None:
            args.append(command_id)
            parts.append(
                f"""cmd AS (
                INSERT INTO okey_commands (stream_id, command_id, first_version, last_version)
                SELECT $1, ${len(args)}, $2::int + 1, $2::int + cardinality($3::text[])
                WHERE EXISTS (SELECT 1 FROM ev))"""
            )
        if due_at_ms is None:
            parts.append("tm AS (DELETE FROM okey_timers WHERE stream_id = $1 AND EXISTS (SELECT 1 FROM ev))")
        elif due_at_ms is not KEEP_TIMER:
            args.append(_ts(int(due_at_ms)))
            parts.append(
                f"""tm AS (
                INSERT INTO okey_timers (stream_id, due_at) SELECT $1, ${len(args)}::timestamptz
                WHERE EXISTS (SELECT 1 FROM ev)
                ON CONFLICT (stream_id) DO UPDATE SET due_at = EXCLUDED.due_at)"""
            )
        sql = (
            "WITH "
            + ",\n".join(parts)
            + "\nSELECT ev.position, ev.tx::text AS tx, ev.version, ev.recorded_at FROM ev, n ORDER BY ev.version"
        )
        try:
            rows = await conn.fetch(sql, *args)
        except asyncpg.UniqueViolationError as exc:
            if exc.constraint_name == "okey_commands_pkey" and command_id is not None:
                found = await _find_command(conn, stream_id, command_id)
                if found:
                    raise DuplicateCommand(*found) from None
            raise VersionConflict(f"{stream_id}: version {expected_version + 1} is taken") from None
        if not rows:
            raise VersionConflict(f"{stream_id} is not at version {expected_version}")
        return _written(a, [tuple(r) for r in rows])

    async def read_stream(self, stream_id: str, after_version: int = 0, limit: int | None = None) -> list[StoredEvent]:
        sql = f"SELECT {_COLUMNS} FROM okey_events WHERE stream_id = $1 AND version > $2 ORDER BY version"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        with db_span("SELECT", "okey_events"):
            async with self.pool.acquire() as conn:
                rows = await conn.fetch(sql, stream_id, after_version)
        return [_row(r) for r in rows]

    async def read_all(self, after: GlobalPosition = START, limit: int = 1000) -> list[StoredEvent]:
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(
                f"SELECT {_COLUMNS} FROM okey_events "
                "WHERE (tx, position) > ($1::text::xid8, $2::bigint) "
                "AND tx < pg_snapshot_xmin(pg_current_snapshot()) "
                # The columns, not the text alias of tx in the select list: "1000" sorts before "756".
                "ORDER BY okey_events.tx, okey_events.position LIMIT $3",
                str(after[0]),
                after[1],
                limit,
            )
        return [_row(r) for r in rows]

    async def log_end(self) -> GlobalPosition:
        """The last position a reader of the global order may read now (every older transaction
        has ended): where a bulk reader stops, so it passes no late commit."""
        async with self.pool.acquire() as conn:
            r = await conn.fetchrow(
                "SELECT tx::text AS tx, position FROM okey_events "
                "WHERE tx < pg_snapshot_xmin(pg_current_snapshot()) "
                "ORDER BY okey_events.tx DESC, okey_events.position DESC LIMIT 1"
            )
        return (int(r["tx"]), r["position"]) if r else START

    COPY_COLUMNS = (
        "tx", "position", "stream_id", "version", "type", "hand", "recorded_ms", "data",
        "seat", "tile", "source", "next_seat",
    )  # fmt: skip
    """The CSV columns of ``copy_range``: the last four are ``data``'s fields of those names
    (empty where it has none), read by PostgreSQL from the stored JSON, so that a bulk reader
    need not parse the JSON of the commonest events, draws and discards."""

    async def copy_range(self, after: GlobalPosition, until: GlobalPosition, limit: int) -> bytes:
        """The events after ``after`` up to ``until`` (``log_end``), in the global order, at most
        ``limit``, as CSV (``COPY_COLUMNS``; ``recorded_ms`` in epoch milliseconds, ``data`` the
        stored JSON text): a bulk reader's page, several times cheaper than ``read_all``'s rows."""
        sql = (
            "SELECT tx::text, position, stream_id, version, type, hand, "
            "(extract(epoch FROM recorded_at) * 1000)::bigint, data::text, "
            "data->>'seat', data->>'tile', data->>'source', data->>'next_seat' FROM okey_events "
            f"WHERE (tx, position) > ('{int(after[0])}'::xid8, {int(after[1])}) "
            f"AND (tx, position) <= ('{int(until[0])}'::xid8, {int(until[1])}) "
            f"ORDER BY okey_events.tx, okey_events.position LIMIT {int(limit)}"
        )
        chunks: list[bytes] = []

        async def sink(chunk: bytes) -> None:
            chunks.append(chunk)

        async with self.pool.acquire() as conn:
            await conn.copy_from_query(sql, output=sink, format="csv")
        return b"".join(chunks)

    async def split_range(self, after: GlobalPosition, until: GlobalPosition, parts: int) -> list[GlobalPosition]:
        """Points that cut (after, until] into ``parts`` ranges of the global order, one after
        the other, of about as many events each (by the positions between): n readers read
        (after, p1], (p1, p2], ..., (p(n-1), until], every event once, none read by two."""
        points: list[GlobalPosition] = []
        low, high = int(after[1]), int(until[1])
        async with self.pool.acquire() as conn:
            for k in range(1, parts):
                r = await conn.fetchrow(
                    "SELECT tx::text AS tx, position FROM okey_events WHERE position >= $1 "
                    "AND (tx, position) > ($2::text::xid8, $3) AND (tx, position) <= ($4::text::xid8, $5) "
                    "ORDER BY position LIMIT 1",
                    low + (high - low) * k // parts,
                    str(after[0]),
                    after[1],
                    str(until[0]),
                    until[1],
                )
                points.append((int(r["tx"]), r["position"]) if r else until)
        return sorted(points)

    async def find_command(self, stream_id: str, command_id: str) -> tuple[int, int] | None:
        async with self.pool.acquire() as conn:
            return await _find_command(conn, stream_id, command_id)

    async def claim_due_timers(self, now_ms: int, lease_ms: int, limit: int = 100) -> list[str]:
        """Due streams, each claimed by pushing its timer ``lease_ms`` ahead; SKIP LOCKED keeps
        replicas from claiming the same timer. The command that handles it sets the next one."""
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(
                """UPDATE okey_timers SET due_at = $2 WHERE stream_id IN (
                       SELECT stream_id FROM okey_timers WHERE due_at <= $1
                       ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED)
                   RETURNING stream_id""",
                _ts(now_ms),
                _ts(now_ms + lease_ms),
                limit,
            )
        return [r["stream_id"] for r in rows]

    async def timer(self, stream_id: str) -> int | None:
        async with self.pool.acquire() as conn:
            r = await conn.fetchval("SELECT due_at FROM okey_timers WHERE stream_id = $1", stream_id)
        return round(r.timestamp() * 1000) if r else None

    async def set_timer(self, stream_id: str, due_at_ms: int | None) -> None:
        async with self.pool.acquire() as conn:
            if due_at_ms is None:
                await conn.execute("DELETE FROM okey_timers WHERE stream_id = $1", stream_id)
            else:
                await conn.execute(
                    "INSERT INTO okey_timers (stream_id, due_at) VALUES ($1, $2) "
                    "ON CONFLICT (stream_id) DO UPDATE SET due_at = EXCLUDED.due_at",
                    stream_id,
                    _ts(due_at_ms),
                )

    async def stream_ids(self) -> list[str]:
        async with self.pool.acquire() as conn:
            rows = await conn.fetch("SELECT DISTINCT stream_id FROM okey_events ORDER BY stream_id")
        return [r["stream_id"] for r in rows]

    async def open_tables(self) -> int:
        """Tables in play: each has its running timer (a turn or a break), until its match ends."""
        async with self.pool.acquire() as conn:
            return int(await conn.fetchval("SELECT count(*) FROM okey_timers"))

    async def behind(self, after: GlobalPosition) -> tuple[int, datetime | None]:
        """How many events the log holds past ``after`` (a relay's cursor), and the oldest one's
        time: the relay's backlog."""
        async with self.pool.acquire() as conn:
            r = await conn.fetchrow(
                "SELECT count(*) AS n, min(recorded_at) AS oldest FROM okey_events "
                "WHERE (tx, position) > ($1::text::xid8, $2::bigint)",
                str(after[0]),
                after[1],
            )
        return int(r["n"]), r["oldest"]

    async def read_types(self, stream_ids: Sequence[str], types: Sequence[str]) -> list[StoredEvent]:
        """The events of ``types`` of these streams, in each stream's order (a consumer catching
        up from the log on what the stream may no longer hold)."""
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(
                f"SELECT {_COLUMNS} FROM okey_events WHERE stream_id = ANY($1::text[]) AND type = ANY($2::text[]) "
                "ORDER BY stream_id, version",
                list(stream_ids),
                list(types),
            )
        return [_row(r) for r in rows]

    async def count_live_with_command(self, prefix: str) -> int:
        """Streams with a running timer (a hand in play) holding a command id that starts with
        ``prefix`` (a ``create:`` prefix: the partial index of migration 2 answers it)."""
        if not prefix.startswith("create:"):
            raise ValueError("only creation commands are indexed")
        async with self.pool.acquire() as conn:
            n = await conn.fetchval(
                """SELECT count(DISTINCT c.stream_id) FROM okey_commands c
                   JOIN okey_timers t ON t.stream_id = c.stream_id
                   WHERE c.command_id LIKE 'create:%'
                     AND c.command_id COLLATE "C" >= $1 AND c.command_id COLLATE "C" < $2""",
                prefix,
                prefix[:-1] + chr(ord(prefix[-1]) + 1),
            )
        return int(n)

    async def load_cursor(self, name: str) -> GlobalPosition:
        async with self.pool.acquire() as conn:
            r = await conn.fetchrow("SELECT tx::text AS tx, position FROM okey_cursors WHERE name = $1", name)
        return (int(r["tx"]), r["position"]) if r else START

    async def save_cursor(self, name: str, pos: GlobalPosition) -> None:
        async with self.pool.acquire() as conn:
            await conn.execute(
                "INSERT INTO okey_cursors (name, tx, position) VALUES ($1, $2::text::xid8, $3) "
                "ON CONFLICT (name) DO UPDATE SET tx = EXCLUDED.tx, position = EXCLUDED.position",
                name,
                str(pos[0]),
                pos[1],
            )


def now_ms() -> int:
    return int(time.time() * 1000)

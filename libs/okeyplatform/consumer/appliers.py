"""The appliers: what becomes of each event of a batch (APPLIED, DUPLICATE, HELD, PARKED, RETRY)
under the spec's two kinds of effect, in the database's transaction (:class:`VersionedApplier`)
or external and idempotent (:class:`ConcurrentApplier`); :func:`applier_for` picks the spec's."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol

import asyncpg

from ..aioloop import KeyedLocks
from ..eventstore import EventStore, UnknownEvent
from ..logs import get_logger
from ..tracing import consumer_span
from .decoding import Item, Unreadable, read_log
from .parking import park, parked_among
from .spec import ConsumerSpec, RetryLater, U
from .versions import lock_versions, read_versions, record_versions

APPLIED = "APPLIED"
DUPLICATE = "DUPLICATE"  # at or below the applied version: already applied
HELD = "HELD"  # ahead of a gap: not applied until the missing versions are
PARKED = "PARKED"  # its table is parked: an event of it could not be applied
RETRY = "RETRY"  # not applied now (a service it needs is away): handed back, tried again later


class FatalEvent(Exception):
    """An event the consumer cannot go past: it stops, after applying the events before it."""

    def __init__(self, message: str, table_id: str | None = None, version: int | None = None) -> None:
        super().__init__(message)
        self.table_id = table_id
        self.version = version


@dataclass(slots=True)
class BatchResult:
    outcomes: list[str]  # per item, in the order given
    versions: dict[str, int]  # each table's applied version afterwards
    applied: int = 0
    held: list[int] = field(default_factory=list)  # indexes of the items held back
    parked: dict[str, tuple[int, str]] = field(default_factory=dict)  # tables parked now: (version, why)


class Applier(Protocol):
    async def apply(self, items: Sequence[Item]) -> BatchResult: ...


def applier_for(spec: ConsumerSpec[Any], pool: asyncpg.Pool) -> VersionedApplier[Any] | ConcurrentApplier:
    """The applier the spec declares: in the database's transaction, or external."""
    return ConcurrentApplier(spec, pool) if spec.external else VersionedApplier(spec, pool)


def _by_table(items: Sequence[Item]) -> dict[str, list[int]]:
    """Each table's items' indexes, in version order."""
    by_table: dict[str, list[int]] = {}
    for i, it in enumerate(items):
        by_table.setdefault(it.table_id, []).append(i)
    for idxs in by_table.values():
        idxs.sort(key=lambda i: items[i].version)
    return by_table


class _Park(Exception):
    """An event of a table that is to be parked (inside the applier)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class VersionedApplier(Generic[U]):
    """The record for an effect in the database: in one transaction per batch, each table's
    applied version is read (locked), the spec's unit of work is opened on the transaction's
    connection, the next versions are handed to ``apply`` in order, and the new versions are
    written. A redelivered version is a DUPLICATE and ``apply`` never sees it; a version past a
    gap is HELD; an event of a parked table is PARKED. A batch PostgreSQL refuses a value of
    (``DataError``, a number past its column) is applied again a table at a time, and the table
    it comes from is parked at its first version in the batch."""

    def __init__(self, spec: ConsumerSpec[U], pool: asyncpg.Pool) -> None:
        self.spec = spec
        self.pool = pool
        self.name = spec.name
        self.log = get_logger(component=spec.component)

    async def versions(self, conn: asyncpg.Connection, table_ids: Sequence[str], lock: bool = False) -> dict[str, int]:
        return await read_versions(conn, self.name, table_ids, lock)

    async def apply(self, items: Sequence[Item]) -> BatchResult:
        try:
            return await self._apply(items)
        except (asyncpg.DataError, OverflowError) as exc:
            self.log.warning("apply_isolating", error=repr(exc))
        result = BatchResult([""] * len(items), {})
        for table_id, idxs in _by_table(items).items():
            group = [items[i] for i in idxs]
            try:
                got = await self._apply(group)
            except (asyncpg.DataError, OverflowError) as exc:
                version = group[0].version
                why = f"a value PostgreSQL refuses in versions {version}..: {exc!r}"[:500]
                async with self.pool.acquire() as conn, conn.transaction():
                    await park(conn, self.name, table_id, version, why)
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

    async def _apply(self, items: Sequence[Item]) -> BatchResult:
        by_table = _by_table(items)
        tables = sorted(by_table)
        result = BatchResult([""] * len(items), {})
        assert self.spec.unit is not None
        async with self.pool.acquire() as conn, conn.transaction():
            known = await lock_versions(conn, self.name, tables)
            parked = await parked_among(conn, self.name, tables)
            async with self.spec.unit(conn, tables) as uow:
                for table_id, idxs in by_table.items():
                    current = known.get(table_id, 0)
                    for i in idxs:
                        it = items[i]
                        if table_id in parked or table_id in result.parked:
                            result.outcomes[i] = PARKED
                        elif it.version <= current:
                            result.outcomes[i] = DUPLICATE
                        elif it.version == current + 1:
                            try:
                                await self._one(uow, it)
                            except _Park as exc:
                                result.parked[table_id] = (it.version, exc.why[:500])
                                result.outcomes[i] = PARKED
                                continue
                            current = it.version
                            result.outcomes[i] = APPLIED
                            result.applied += 1
                        else:
                            result.outcomes[i] = HELD
                            result.held.append(i)
                    result.versions[table_id] = current
            moved = {t: v for t, v in result.versions.items() if v != known.get(t, 0)}
            await record_versions(conn, self.name, moved)
            for table_id, (version, why) in result.parked.items():
                await park(conn, self.name, table_id, version, why)
        for table_id, (version, why) in result.parked.items():
            self.log.error("table_parked", table_id=table_id, version=version, reason=why)
        return result

    async def _one(self, uow: U, it: Item) -> None:
        """One event's effect, or why its table is parked (``_Park``)."""
        if isinstance(it, Unreadable):
            if isinstance(it.error, UnknownEvent) and self.spec.unknown_kind == "stop":
                raise FatalEvent(
                    f"unknown event type {it.error.kind!r} at table {it.table_id!r} version {it.version}: "
                    f"{self.name} cannot read it (a newer table service wrote it?): upgrade {self.name}",
                    it.table_id,
                    it.version,
                )
            if self.spec.unreadable == "park":
                raise _Park(str(it.error))
            self.log.error("event_unreadable", table_id=it.table_id, version=it.version, error=str(it.error))
            return
        with consumer_span(self.name, it):
            try:
                await self.spec.apply(uow, it)
            except self.spec.stops:
                raise
            except self.spec.parks as exc:
                raise _Park(str(exc)) from None

    async def catch_up(self, log: EventStore, table_ids: Sequence[str]) -> int:
        """Every version of ``table_ids`` past the record, read from the PostgreSQL log and applied
        (a live consumer's later copy is then a duplicate); returns how many were applied."""
        async with self.pool.acquire() as conn:
            known = await self.versions(conn, table_ids)
        applied = 0
        for table_id in table_ids:
            items = await read_log(log, table_id, known.get(table_id, 0))
            if items:
                applied += (await self.apply(items)).applied
        return applied


class ConcurrentApplier:
    """The record for an external effect, idempotent by its command ids (the bots: each
    command's id is fixed by the view it was decided on, and the table keeps one command per id).
    A batch's tables are handled at once (at most the spec's ``concurrency``), each table's events
    in version order, and not inside a transaction; the versions handled are recorded after, in
    one short one. A version at or below the record is a DUPLICATE. Gaps do not matter (the
    effect acts on the latest state), so a version past one is handled; an unreadable event is
    logged and counts as handled.

    ``apply(None, envelope)`` raising :class:`RetryLater` hands that event and its table's later
    ones in the batch back (RETRY); any other exception is logged and the event counts as
    handled, so one table's bug does not stop the others. Each table's events run under a lock of
    this applier, so batches handled at once (the consumer's ``in_flight``) keep a table's order."""

    def __init__(self, spec: ConsumerSpec[None], pool: asyncpg.Pool) -> None:
        self.spec = spec
        self.pool = pool
        self.name = spec.name
        self.failed = 0  # events whose handler raised (logged, counted as handled)
        self.log = get_logger(component=spec.component)
        self._sem = asyncio.Semaphore(spec.concurrency)
        self._lock: KeyedLocks[str] = KeyedLocks()

    async def apply(self, items: Sequence[Item]) -> BatchResult:
        by_table = _by_table(items)
        result = BatchResult([""] * len(items), {})
        async with self.pool.acquire() as conn:
            known = await read_versions(conn, self.name, sorted(by_table))
        handled: dict[str, int] = {}

        async def table(table_id: str, idxs: list[int]) -> None:
            current = known.get(table_id, 0)
            async with self._lock(table_id):
                for k, i in enumerate(idxs):
                    it = items[i]
                    if it.version <= current:
                        result.outcomes[i] = DUPLICATE
                        continue
                    try:
                        if isinstance(it, Unreadable):
                            self.log.error(
                                "event_unreadable", table_id=table_id, version=it.version, error=str(it.error)
                            )
                        else:
                            async with self._sem:
                                with consumer_span(self.name, it):
                                    await self.spec.apply(None, it)
                    except RetryLater as exc:
                        self.log.info("event_retry_later", table_id=table_id, version=it.version, why=str(exc))
                        for j in idxs[k:]:
                            result.outcomes[j] = RETRY
                        break
                    except Exception as exc:
                        self.failed += 1
                        self.log.error("handle_failed", table_id=table_id, version=it.version, error=repr(exc))
                    current = it.version
                    result.outcomes[i] = APPLIED
                    result.applied += 1
            result.versions[table_id] = current
            if current > known.get(table_id, 0):
                handled[table_id] = current

        await asyncio.gather(*(table(t, idxs) for t, idxs in by_table.items()))
        async with self.pool.acquire() as conn:
            await record_versions(conn, self.name, handled)
        return result

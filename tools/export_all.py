"""``okey export --all`` (or ``--table``, ``--game``, ``--since``, ``--until``): the event log as
analysis tables in a directory, Parquet (default) or JSON lines, partitioned by day
(``DIR/<table>/day=YYYY-MM-DD/run-NNNNN-K.parquet``); the tables and their columns are
``okeytools.datasets.SCHEMAS`` (docs/analytics.md); ``coaching_notes`` holds okeycore's coaching
notes of every hand that ended (``okeytools.coaching_stats``; ``--no-coaching`` leaves it out).

The log is read in its global order (``PostgresEventStore.read_all``, which never passes a late
commit). The directory keeps its cursor in ``_export.json``, written after the run's files are
complete: the next run goes on from there and writes only the events after it. A run that
stopped half-way left files its manifest does not list; the next run deletes them first, so no
event is ever written twice. A table whose match began before the cursor is folded from its
first event again (from the log, writing nothing) before its new events are written."""

from __future__ import annotations

import argparse
import asyncio
import gc
import io
import json
import multiprocessing
import os
import secrets
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any, TextIO

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
from okeycore.options import Game
from okeyplatform.eventstore import START, DatabaseUnreachable, GlobalPosition, PostgresEventStore

from .coaching_stats import NoteRows
from .datasets import (
    DRAW_OR_DISCARD,
    FILED_BY,
    PRIVATE_TABLES,
    SCHEMAS,
    TABLES,
    Flattener,
    PlayerIds,
    Row,
    arrow_schema,
)

__all__ = ["ExportOptions", "ExportReport", "MANIFEST", "export_all", "run_export_all", "parse_moment"]

MANIFEST = "_export.json"
KEY_FILE = "_id_key"
KEY_ENV = "OKEY_EXPORT_ID_KEY"
FORMATS = ("parquet", "jsonl")
FLUSH_ROWS = 100_000  # rows kept as Python tuples before they become Arrow batches
FILE_ROWS = 2_000_000  # rows held as Arrow batches (all tables and days) before they go to files


class ExportError(Exception):
    """A directory or a set of options the export cannot go on with; the message says what to do."""


def parse_moment(text: str) -> datetime:
    """``2026-12-03`` or an ISO time (UTC unless it says otherwise)."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ExportError(f"{text!r} is not a date or time: write 2026-12-03 or 2026-12-03T14:00") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class ExportOptions:
    out: Path
    format: str = "parquet"
    private: bool = False
    since: datetime | None = None
    until: datetime | None = None
    game: str | None = None
    tables: tuple[str, ...] = ()
    page: int = 20_000
    workers: int = 1
    coaching: bool = True  # the coaching_notes table (okeycore.coaching of every hand that ended)

    def filters(self) -> dict[str, Any]:
        """What fixes the directory's contents: a later run must ask for the same. (``coaching``
        only when off: a directory of an export before it goes on, with notes from then on.)"""
        got: dict[str, Any] = {
            "format": self.format,
            "with_private": self.private,
            "since": self.since.isoformat() if self.since else None,
            "until": self.until.isoformat() if self.until else None,
            "game": self.game,
            "tables": sorted(self.tables),
        }
        if not self.coaching:
            got["coaching"] = False
        return got


@dataclass
class ExportReport:
    events: int = 0  # read from the log in this run
    written: dict[str, int] = field(default_factory=dict)  # rows by table
    files: list[str] = field(default_factory=list)
    seconds: float = 0.0
    run: int = 0
    cursor: GlobalPosition = START
    parked: dict[str, str] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)  # a stopped run's leftovers
    coached: int = 0  # hands coached (coaching_notes)
    truncated: int = 0  # of them, those whose notes stopped at coach's limit or budget
    uncoached: dict[str, str] = field(default_factory=dict)  # table -> why a hand of it was not coached
    coaching_seconds: float = 0.0  # in coach(), all workers summed

    @property
    def rate(self) -> float:
        return self.events / self.seconds if self.seconds else 0.0


_US_TYPE = pa.timestamp("us", tz="UTC")


class _Writer:
    """Rows by table. Every ``FLUSH_ROWS`` rows in all, the rows become Arrow batches (columns,
    which Python's garbage collector does not walk), split by day in Arrow (``FILED_BY``: the
    column that files a row under its day); the batches of each (table, day) go to one file at
    the end, or every ``FILE_ROWS`` rows held, so memory stays bounded."""

    def __init__(
        self,
        out: Path,
        fmt: str,
        run: str,
        tables: tuple[str, ...],
        rows: dict[str, list[Row]],
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> None:
        self.out, self.fmt, self.run = out, fmt, run
        self.tables = tables
        self.rows = rows  # the Flattener's: taken away (emptied) every FLUSH_ROWS rows
        self.since, self.until = since, until
        self.batches: dict[tuple[str, date], list[pa.RecordBatch]] = {}
        self.files: list[str] = []
        self.counts: dict[str, int] = dict.fromkeys(tables, 0)
        self._batched = 0
        self._k = 0

    def check(self) -> None:
        """After each page: the rows become batches once there are ``FLUSH_ROWS`` of them."""
        if sum(len(rows) for rows in self.rows.values()) >= FLUSH_ROWS:
            self._batch_all()

    def add_batch(self, table: str, batch: pa.RecordBatch) -> None:
        """Rows made in Arrow (the events rows of a page)."""
        self._file(table, batch)
        if self._batched >= FILE_ROWS:
            self._write_all()

    def _batch_all(self) -> None:
        for table, rows in self.rows.items():
            if not rows:
                continue
            schema = arrow_schema(table)
            # a column at a time: twice as fast as zip(*rows), which makes an iterator of every row
            arrays = [pa.array([r[k] for r in rows], type=f.type) for k, f in enumerate(schema)]
            self._file(table, pa.RecordBatch.from_arrays(arrays, schema=schema))
            rows.clear()
        if self._batched >= FILE_ROWS:
            self._write_all()

    def _write_all(self) -> None:
        """Every batch held to its file: memory stays bounded, whatever the log's size."""
        for key in sorted(self.batches):
            self._write(key)
        self._batched = 0

    def _file(self, table: str, batch: pa.RecordBatch) -> None:
        """The batch's rows of --since/--until, by day."""
        n = batch.num_rows
        if self.since is not None or self.until is not None:  # --since, --until
            at = pc.cast(batch.column(FILED_BY[table]), _US_TYPE)  # the bounds may have microseconds
            keep = pc.and_(
                pc.greater_equal(at, pa.scalar(self.since or datetime.min.replace(tzinfo=UTC), _US_TYPE)),
                pc.less(at, pa.scalar(self.until or datetime.max.replace(tzinfo=UTC), _US_TYPE)),
            )
            batch = batch.filter(keep)
        days = pc.cast(batch.column(FILED_BY[table]), pa.date32())
        unique = pc.unique(days).to_pylist()
        for day in unique:
            part = batch if len(unique) == 1 else batch.filter(pc.equal(days, pa.scalar(day, pa.date32())))
            self.batches.setdefault((table, day), []).append(part)
        self._batched += n

    def _write(self, key: tuple[str, date]) -> None:
        batches = self.batches.pop(key, [])
        if not batches:
            return
        table, day = key
        self._k += 1
        folder = self.out / table / f"day={day.isoformat()}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"run-{self.run}-{self._k:05d}.{self.fmt}"
        data = pa.Table.from_batches(batches, schema=arrow_schema(table))
        if self.fmt == "parquet":
            pq.write_table(data, path, compression="zstd")
        else:
            names = [c[0] for c in SCHEMAS[table]]
            with path.open("w", encoding="utf-8") as fh:
                for row in data.to_pylist():
                    fh.write(json.dumps({n: row[n] for n in names}, default=_json_default) + "\n")
        self.counts[table] += data.num_rows
        self.files.append(str(path.relative_to(self.out)))

    def close(self) -> None:
        self._batch_all()
        for key in sorted(self.batches):
            self._write(key)


def _json_default(value: object) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def _load_manifest(out: Path) -> dict[str, Any] | None:
    path = out / MANIFEST
    if not path.exists():
        return None
    try:
        loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ExportError(f"cannot read {path} ({exc}); export into a new directory instead") from None
    return loaded


def _save_manifest(out: Path, manifest: dict[str, Any]) -> None:
    tmp = out / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    with tmp.open("rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, out / MANIFEST)


def _id_key(out: Path) -> bytes:
    """The key of the opaque player ids: OKEY_EXPORT_ID_KEY, else one made for this directory
    (``_id_key``, readable by its owner only). Share the tables, not the key."""
    env = os.environ.get(KEY_ENV)
    if env:
        return env.encode()
    path = out / KEY_FILE
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_hex(32))
    return path.read_text().strip().encode()


def _leftovers(out: Path, listed: set[str]) -> list[str]:
    """Files of a run that stopped before its manifest was written."""
    found = []
    for table in SCHEMAS:
        folder = out / table
        if folder.is_dir():
            for p in folder.glob("day=*/run-*"):
                rel = str(p.relative_to(out))
                if rel not in listed:
                    found.append(rel)
    return sorted(found)


async def export_all(
    store: PostgresEventStore,
    opts: ExportOptions,
    progress: Callable[[int, float], None] | None = None,
    dsn: str | None = None,
) -> ExportReport:
    """One run of the export into ``opts.out``: the log after the directory's cursor, up to its
    end now. With ``opts.workers`` > 1 (and ``dsn``), that many processes share the log, each a
    range of its global order (a table that spans two is caught up by the second); each writes
    files of its own."""
    opts.out.mkdir(parents=True, exist_ok=True)
    manifest = _load_manifest(opts.out)
    if manifest is None:
        manifest = {"filters": opts.filters(), "cursor": list(START), "runs": []}
    elif manifest["filters"] != opts.filters():
        raise ExportError(
            f"{opts.out} holds an export with other options ({json.dumps(manifest['filters'])}); "
            "run with the same options to continue it, or export into a new directory"
        )
    report = ExportReport()
    listed = {f for run in manifest["runs"] for f in run["files"]}
    for rel in _leftovers(opts.out, listed):
        (opts.out / rel).unlink()
        report.removed.append(rel)
    report.run = len(manifest["runs"]) + 1
    after: GlobalPosition = (int(manifest["cursor"][0]), int(manifest["cursor"][1]))
    until = await store.log_end()
    if until < after:
        until = after
    key = _id_key(opts.out)
    workers = opts.workers if (dsn is not None and not opts.tables) else 1
    t0 = time.perf_counter()
    if workers == 1:
        shards = [await _export_shard(store, opts, key, report.run, after, until, (0, 1), progress)]
    else:
        assert dsn is not None
        points = [after, *await store.split_range(after, until, workers), until]
        ranges = list(pairwise(points))
        shards = await _in_processes(dsn, opts, key, report.run, ranges, progress)
    report.seconds = time.perf_counter() - t0
    for part in shards:
        report.events += part.events
        report.files += part.files
        report.parked.update(part.parked)
        report.coached += part.coached
        report.truncated += part.truncated
        report.uncoached.update(part.uncoached)
        report.coaching_seconds += part.coaching_seconds
        for table, n in part.rows.items():
            report.written[table] = report.written.get(table, 0) + n
    if progress is not None:
        progress(report.events, report.seconds)
    report.cursor = until
    manifest["cursor"] = list(until)
    manifest["runs"].append(
        {
            "run": report.run,
            "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "events_read": report.events,
            "rows": report.written,
            "files": sorted(report.files),
        }
    )
    _save_manifest(opts.out, manifest)  # last: until now, this run's files are leftovers
    return report


@dataclass
class _Shard:
    events: int
    rows: dict[str, int]
    files: list[str]
    parked: dict[str, str]
    coached: int = 0
    truncated: int = 0
    uncoached: dict[str, str] = field(default_factory=dict)
    coaching_seconds: float = 0.0


_CSV_TYPES = {
    "tx": pa.string(),
    "position": pa.int64(),
    "stream_id": pa.string(),
    "version": pa.int32(),
    "type": pa.string(),
    "hand": pa.int32(),
    "recorded_ms": pa.int64(),
    "data": pa.string(),
    "seat": pa.string(),  # strings, made ints page by page: a malformed one parks its table, not the page
    "tile": pa.string(),
    "source": pa.string(),
    "next_seat": pa.string(),
}


def _ints(column: Any) -> list[int | None]:
    """A page's column of numbers in the stored JSON; None where there is none, or not an int."""
    try:
        got: list[int | None] = pc.cast(column, pa.int32()).to_pylist()
        return got
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return [int(v) if v is not None and v.lstrip("-").isdigit() else None for v in column.to_pylist()]


def _parse(page: bytes) -> pa.Table:
    return pacsv.read_csv(
        io.BytesIO(page),
        read_options=pacsv.ReadOptions(column_names=list(PostgresEventStore.COPY_COLUMNS)),
        # Only an unquoted empty field is NULL (a JSON field that is not there); PostgreSQL quotes
        # an empty string.
        convert_options=pacsv.ConvertOptions(
            column_types=_CSV_TYPES, strings_can_be_null=True, null_values=[""], quoted_strings_can_be_null=False
        ),
    )


async def _export_shard(
    store: PostgresEventStore,
    opts: ExportOptions,
    key: bytes,
    run: int,
    after: GlobalPosition,
    until: GlobalPosition,
    shard: tuple[int, int],
    progress: Callable[[int, float], None] | None,
) -> _Shard:
    """The events in (after, until], worker ``shard`` (k, of n) of them: read in pages of CSV
    (COPY), folded and flattened, written by day; with ``opts.coaching``, every hand that ends
    is coached (``NoteRows``). A table whose events began before ``after`` (an earlier run's,
    or the worker's before this one) is caught up from the log first."""
    tables = TABLES + (PRIVATE_TABLES if opts.private else ())
    tag = f"{run:05d}" if shard[1] == 1 else f"{run:05d}-w{shard[0]}"
    flat = Flattener(PlayerIds(key), private=opts.private)
    notes = NoteRows(flat.ids, flat.rows["coaching_notes"]) if opts.coaching else None
    parked = flat.parked
    writer = _Writer(opts.out, opts.format, tag, tables, flat.rows, opts.since, opts.until)
    wanted = set(opts.tables)
    game = opts.game
    skipped: set[str] = set()  # tables of another game
    loads = json.loads
    moves, move = DRAW_OR_DISCARD, flat.feed_move
    stamp = datetime.fromtimestamp
    n = 0
    t0 = last = time.perf_counter()
    cursor = after
    pending = asyncio.create_task(store.copy_range(cursor, until, opts.page))
    try:
        while True:
            page = await pending
            if not page:
                break
            t = _parse(page)
            txs, positions = t.column("tx").to_pylist(), t.column("position").to_pylist()
            cursor = (int(txs[-1]), positions[-1])
            pending = asyncio.create_task(store.copy_range(cursor, until, opts.page))  # the next page meanwhile
            rows = zip(
                t.column("stream_id").to_pylist(),
                t.column("version").to_pylist(),
                positions,
                t.column("type").to_pylist(),
                t.column("recorded_ms").to_pylist(),  # a datetime only for the 2% that need one
                t.column("data").to_pylist(),
                _ints(t.column("seat")),
                _ints(t.column("tile")),
                t.column("source").to_pylist(),
                _ints(t.column("next_seat")),
                strict=True,
            )
            for i, (sid, version, position, kind, ms, text, seat, tile, source, nxt) in enumerate(rows):
                if i % 2000 == 1999:
                    await asyncio.sleep(0)  # the next page's COPY drains its socket meanwhile
                    if notes is not None and progress is not None:  # coaching makes a page take seconds
                        now = time.perf_counter()
                        if now - last >= 0.5:
                            last = now
                            progress(n + i, now - t0)
                if (wanted and sid not in wanted) or sid in skipped:
                    continue
                if kind in moves and move(sid, version, position, ms, kind, seat, tile, source, nxt, text, False, i):
                    if notes is not None:
                        if sid in parked:
                            notes.forget(sid)
                        else:
                            notes.feed_move(sid, version, kind, text)
                    continue  # a draw or a discard of a table met before: its JSON is not parsed
                data = loads(text)
                if not flat.knows(sid):
                    if version != 1:
                        await _catch_up(store, flat, sid, version, notes)
                    elif game is not None and data["options"].get("game", Game.OKEY.value) != game:
                        skipped.add(sid)
                        continue
                    if game is not None and sid in flat.tables and flat.tables[sid].game != game:
                        skipped.add(sid)
                        flat.tables.pop(sid)
                        if notes is not None:
                            notes.forget(sid)
                        continue
                at = stamp(ms / 1000, UTC)
                flat.feed(sid, version, position, at, kind, data, text=text, index=i)
                if notes is not None:
                    if sid in parked:
                        notes.forget(sid)
                    else:
                        notes.feed(sid, version, kind, data, at)
            if flat.page_rows:
                writer.add_batch("events", _events_batch(t, flat))
            writer.check()
            n += t.num_rows
            now = time.perf_counter()
            if progress is not None and now - last >= 0.5:
                last = now
                progress(n, now - t0)
    finally:
        pending.cancel()
    writer.close()
    done = _Shard(n, writer.counts, writer.files, dict(flat.parked))
    if notes is not None:
        done.coached, done.truncated = notes.hands, notes.truncated
        done.uncoached, done.coaching_seconds = dict(notes.failed), notes.seconds
    return done


def _events_batch(page: pa.Table, flat: Flattener) -> pa.RecordBatch:
    """The events rows of the page's events that ``flat`` was fed with their index: the page's
    own columns (no Python string is made or converted back), its hand, and the data a
    spectator sees where it differs from the stored (a deck draw, a deal, ...)."""
    taken = page.take(pa.array(flat.page_rows, pa.int32()))
    data = taken.column("data")
    if flat.page_texts:
        shown: list[str | None] = [None] * len(flat.page_rows)
        for k, text in flat.page_texts.items():
            shown[k] = text
        data = pc.coalesce(pa.array(shown, pa.string()), data)
    columns = [
        taken.column("stream_id"),
        taken.column("version"),
        taken.column("position"),
        taken.column("type"),
        pa.array(flat.page_hands, pa.int32()),
        pc.cast(taken.column("recorded_ms"), pa.timestamp("ms", tz="UTC")),
        data,
    ]
    flat.page_rows.clear()
    flat.page_hands.clear()
    flat.page_texts.clear()
    combined = pa.Table.from_arrays(columns, schema=arrow_schema("events")).combine_chunks()
    return combined.to_batches()[0]


_counter: Any = None  # a worker process's share of the progress count


def _init_worker(counter: Any) -> None:
    global _counter
    _counter = counter


def _worker(
    dsn: str,
    opts: ExportOptions,
    key: bytes,
    run: int,
    after: GlobalPosition,
    until: GlobalPosition,
    shard: tuple[int, int],
) -> _Shard:
    # The rows held are tuples of strings and numbers, which make no cycles: the collector
    # need not walk them every 700 allocations (a tenth of a worker's time), nor the modules
    # the fork brought along.
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)

    async def main() -> _Shard:
        store = await PostgresEventStore.connect(dsn, min_size=1, max_size=2)
        seen = 0

        def tick(n: int, _seconds: float) -> None:
            nonlocal seen
            with _counter.get_lock():
                _counter.value += n - seen
            seen = n

        try:
            return await _export_shard(store, opts, key, run, after, until, shard, tick)
        finally:
            await store.close()

    return asyncio.run(main())


async def _in_processes(
    dsn: str,
    opts: ExportOptions,
    key: bytes,
    run: int,
    ranges: list[tuple[GlobalPosition, GlobalPosition]],
    progress: Callable[[int, float], None] | None,
) -> list[_Shard]:
    """A worker process a range of the global order (``split_range``): each reads only its own."""
    workers = len(ranges)
    # fork where there is one: a worker starts with okeycore, pyarrow and the projection
    # imported (a spawned one took about a second to import them); nothing of the parent's
    # loop or pool is used in the child, which opens a connection of its own.
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    counter = ctx.Value("q", 0)
    loop = asyncio.get_running_loop()
    t0 = time.perf_counter()
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker, initargs=(counter,)) as pool:
        futures = [
            loop.run_in_executor(pool, _worker, dsn, opts, key, run, lo, hi, (k, workers))
            for k, (lo, hi) in enumerate(ranges)
        ]
        gathered = asyncio.gather(*futures)
        while not gathered.done():
            await asyncio.wait([gathered], timeout=0.5)
            if progress is not None and not gathered.done():
                progress(counter.value, time.perf_counter() - t0)
        return list(gathered.result())


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)


def _to_ms(at: datetime) -> datetime:
    """``at`` to the millisecond, rounded as ``copy_range``'s ``recorded_ms`` is (half away from
    zero): a caught-up table's times (a hand's start) are then those the pages give."""
    us = (at - _EPOCH) // _US
    return datetime.fromtimestamp(((us + 500) // 1000) / 1000, UTC)


async def _catch_up(
    store: PostgresEventStore, flat: Flattener, stream_id: str, version: int, notes: NoteRows | None = None
) -> None:
    """The table's events before ``version`` (an earlier run wrote them): folded, not written
    (nor coached: their hands' notes are an earlier run's)."""
    after = 0
    while after < version - 1:
        older = await store.read_stream(stream_id, after_version=after, limit=min(5000, version - 1 - after))
        if not older:
            break
        for o in older:
            at = _to_ms(o.recorded_at)
            flat.feed(o.stream_id, o.version, o.position, at, o.type, o.data, quiet=True)
            if notes is not None:
                notes.feed(o.stream_id, o.version, o.type, o.data, at, quiet=True)
        after = older[-1].version


# ------------------------------------------------------------------ the command


def _progress(out: TextIO, coaching: bool = False) -> Callable[[int, float], None]:
    tty = out.isatty()
    tail = ", coaching each hand that ended" if coaching else ""

    def show(n: int, seconds: float) -> None:
        rate = n / seconds if seconds else 0.0
        line = f"  read {n:,} events, {rate:,.0f} events/s{tail}"
        out.write(("\r" + line + "   ") if tty else line + "\n")
        out.flush()

    return show


def run_export_all(args: argparse.Namespace) -> int:
    url = args.database_url or os.environ.get("OKEY_DATABASE_URL")
    if not url:
        print("okey export: set OKEY_DATABASE_URL or pass --database-url", file=sys.stderr)
        return 2
    try:
        opts = ExportOptions(
            out=Path(args.out),
            format=args.format,
            private=args.with_private,
            since=parse_moment(args.since) if args.since else None,
            until=parse_moment(args.until) if args.until else None,
            game=Game[args.game.upper()].value if args.game else None,
            tables=tuple(args.tables or ()),
            page=args.page,
            workers=args.workers if args.workers else min(2, os.cpu_count() or 1),
            coaching=not getattr(args, "no_coaching", False),
        )
    except KeyError:
        print(f"okey export: no game {args.game!r}: use OKEY or OKEY101", file=sys.stderr)
        return 2
    except ExportError as exc:
        print(f"okey export: {exc}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_run(url, opts))
    except DatabaseUnreachable as exc:
        print(f"okey export: {exc}", file=sys.stderr)
        return 2


async def _run(url: str, opts: ExportOptions) -> int:
    store = await PostgresEventStore.connect(url, min_size=1, max_size=3)
    try:
        report = await export_all(store, opts, _progress(sys.stderr, opts.coaching), dsn=url)
    except ExportError as exc:
        print(f"okey export: {exc}", file=sys.stderr)
        return 2
    finally:
        await store.close()
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    out = sys.stdout
    if report.removed:
        out.write(f"  removed    {len(report.removed)} files of a run that stopped before its end\n")
    rows = ", ".join(f"{n:,} {t}" for t, n in report.written.items())
    out.write(f"  written    {rows} in {len(report.files)} files ({opts.format}, by day)\n")
    for table_id, why in sorted(report.parked.items())[:20]:
        out.write(f"  skipped    table {table_id} from {why}\n")
    if opts.coaching:
        cut = f", {report.truncated:,} of them cut short by the coach's limit or budget" if report.truncated else ""
        out.write(
            f"  coached    {report.coached:,} hands ({report.coaching_seconds:.1f} s in the coach{cut}); "
            f"{report.written.get('coaching_notes', 0):,} notes\n"
        )
        for table_id, why in sorted(report.uncoached.items())[:20]:
            out.write(f"  uncoached  table {table_id} from {why}\n")
    kind = "with the dealt racks of finished hands" if opts.private else "as a spectator sees them"
    out.write(
        f"okey export: run {report.run} into {opts.out}: {report.events:,} events in {report.seconds:.1f} s "
        f"({report.rate:,.0f} events/s), {kind}; the next run goes on from here\n"
    )
    return 0

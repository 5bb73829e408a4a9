"""``okey analytics DIR``: the standard questions over the tables ``okey export --all`` wrote,
answered by DuckDB and printed as tables; ``--sql`` runs the analyst's own query over the same
views (``events``, ``moves``, ``hands``, ``matches``, ``seats``, ``coaching_notes``, and ``racks``
when exported with ``--with-private``). docs/analytics.md lists the columns."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import duckdb
import pyarrow as pa

from .coaching_stats import MISSED_FINISHES_NOTE, MISSED_FINISHES_SQL
from .datasets import SCHEMAS, arrow_schema
from .export_all import MANIFEST

__all__ = ["QUESTIONS", "FOOTNOTES", "connect", "run_analytics", "format_table"]

QUESTIONS: dict[str, tuple[str, str]] = {
    "starter-advantage": (
        "Starter advantage: how often the seat that started a hand finished it",
        """SELECT game, count(*) AS hands,
                  count(*) FILTER (WHERE finisher = starter) AS starter_finished,
                  round(100.0 * count(*) FILTER (WHERE finisher = starter) / count(*), 1) AS starter_pct,
                  round(100.0 / max(len(deltas)), 1) AS fair_pct
           FROM hands WHERE outcome = 'FINISHED' GROUP BY game ORDER BY game""",
    ),
    "finish-kinds": (
        "Finish kinds and their frequency by game and the options that shape them",
        """WITH h AS (
             SELECT game, coalesce(finish_kind, outcome) AS finish, CASE game WHEN 'OKEY'
                      THEN concat('colored=', options->>'colored', ' partners=', options->>'partners',
                                  ' pairs=', options->>'pairs_declaration')
                      ELSE concat('mode=', options->>'mode', ' wrap=', options->>'wrap') END AS options
             FROM hands)
           SELECT game, options, finish, count(*) AS hands,
                  round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY game, options), 1) AS pct
           FROM h GROUP BY game, options, finish ORDER BY game, options, hands DESC""",
    ),
    "hand-length": (
        "Average hand length, in moves and seconds",
        """SELECT game, outcome, count(*) AS hands, round(avg(moves), 1) AS avg_moves,
                  round(avg(seconds), 1) AS avg_seconds, max(moves) AS max_moves
           FROM hands GROUP BY game, outcome ORDER BY game, outcome""",
    ),
    "bot-wins": (
        "Bots' share of wins by level (seats a bot played from the start)",
        """SELECT m.game, s.bot_level, count(*) AS bot_seats, count(*) FILTER (WHERE s.winner) AS wins,
                  round(100.0 * count(*) FILTER (WHERE s.winner) / count(*), 1) AS win_pct
           FROM seats s JOIN matches m USING (table_id)
           WHERE s.kind = 'bot' GROUP BY m.game, s.bot_level ORDER BY m.game, s.bot_level""",
    ),
    "seat-order": (
        "Seat-order effect: who finishes, by place in the turn order after the starter (0 = the starter)",
        """SELECT game, (finisher - starter + len(deltas)) % len(deltas) AS after_starter,
                  count(*) AS finishes,
                  round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY game), 1) AS pct
           FROM hands WHERE outcome = 'FINISHED' GROUP BY game, after_starter ORDER BY game, after_starter""",
    ),
    "indicator-shows": (
        "Indicator shows per hand",
        """SELECT game, count(*) AS hands, sum(indicator_shows) AS shows,
                  round(avg(indicator_shows), 3) AS shows_per_hand,
                  count(*) FILTER (WHERE indicator_shows > 0) AS hands_with_a_show
           FROM hands GROUP BY game ORDER BY game""",
    ),
    "missed-finishes": (
        "Missed finishes: how often a seat that could finish did not, by game and player kind "
        "(person, or bot by the table's bot_level)",
        MISSED_FINISHES_SQL,
    ),
}
"""name -> (title, query over the views)."""

FOOTNOTES: dict[str, str] = {"missed-finishes": MISSED_FINISHES_NOTE}
"""name -> what a reader of the answer must know, printed under it."""


class AnalyticsError(Exception):
    """A directory that holds no export, or a query DuckDB refuses: one line, what to do."""


def _files(root: Path, table: str, fmt: str) -> list[str]:
    return sorted(str(p) for p in (root / table).glob(f"day=*/run-*.{fmt}"))


def connect(root: Path | str, con: duckdb.DuckDBPyConnection | None = None) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with one view per exported table (an empty one for a table with no
    rows yet), over the files the directory's manifest lists."""
    root = Path(root)
    path = root / MANIFEST
    if not path.exists():
        raise AnalyticsError(f"{root} holds no export (no {MANIFEST}): run okey export --all --out {root} first")
    manifest = json.loads(path.read_text(encoding="utf-8"))
    fmt = manifest["filters"]["format"]
    listed = {f for run in manifest["runs"] for f in run["files"]}
    con = con if con is not None else duckdb.connect()
    for table in SCHEMAS:
        files = [f for f in _files(root, table, fmt) if str(Path(f).relative_to(root)) in listed]
        if not files:
            empty = pa.Table.from_batches([], schema=arrow_schema(table))
            con.register(f"_empty_{table}", empty)
            con.execute(f'CREATE OR REPLACE VIEW "{table}" AS SELECT * FROM "_empty_{table}"')
            continue
        quoted = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
        if fmt == "parquet":
            source = f"read_parquet([{quoted}], hive_partitioning = true)"
        else:
            cols = ", ".join(f"'{name}': '{_duck_type(kind)}'" for name, kind, _ in SCHEMAS[table])
            source = (
                f"read_json([{quoted}], format = 'newline_delimited', columns = {{{cols}}}, hive_partitioning = true)"
            )
        con.execute(f'CREATE OR REPLACE VIEW "{table}" AS SELECT * FROM {source}')
    return con


def _duck_type(kind: pa.DataType) -> str:
    if pa.types.is_list(kind):
        return _duck_type(kind.value_type) + "[]"
    if pa.types.is_timestamp(kind):
        return "TIMESTAMPTZ"
    return {
        "string": "VARCHAR",
        "int32": "INTEGER",
        "int64": "BIGINT",
        "double": "DOUBLE",
        "bool": "BOOLEAN",
    }[str(kind)]


def format_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], out: TextIO, limit: int = 200) -> None:
    """Rows as an aligned text table (numbers to the right)."""
    shown = [["" if v is None else str(v) for v in r] for r in rows[:limit]]
    widths = [max([len(c), *(len(r[i]) for r in shown)]) for i, c in enumerate(columns)]
    numeric = [all(isinstance(r[i], (int, float)) or r[i] is None for r in rows[:limit]) for i in range(len(columns))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.rjust(w) if n else c.ljust(w) for c, w, n in zip(cells, widths, numeric, strict=True))

    out.write(line(list(columns)).rstrip() + "\n")
    out.write("  ".join("-" * w for w in widths) + "\n")
    for r in shown:
        out.write(line(r).rstrip() + "\n")
    if len(rows) > limit:
        out.write(f"... {len(rows) - limit:,} more rows\n")
    if not rows:
        out.write("(no rows)\n")


def _wrap(text: str, width: int = 100) -> str:
    return textwrap.fill(text, width)


def _query(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    try:
        rel = con.execute(sql)
    except duckdb.Error as exc:
        first = str(exc).strip().splitlines()[0]
        raise AnalyticsError(f"DuckDB refused the query: {first}") from None
    cols = [d[0] for d in rel.description or []]
    return cols, rel.fetchall()


def run_analytics(args: argparse.Namespace) -> int:
    out = sys.stdout
    if args.list:
        for name, (title, _) in QUESTIONS.items():
            out.write(f"{name:20} {title}\n")
        return 0
    unknown = [q for q in args.question or () if q not in QUESTIONS]
    if unknown:
        print(f"okey analytics: no question {unknown[0]!r}; okey analytics --list shows them", file=sys.stderr)
        return 2
    try:
        con = connect(args.dir)
        if args.sql:
            cols, rows = _query(con, args.sql)
            format_table(cols, rows, out, limit=10_000)
            return 0
        for name in args.question or QUESTIONS:
            title, sql = QUESTIONS[name]
            cols, rows = _query(con, sql)
            out.write(f"\n{title} [{name}]\n\n")
            format_table(cols, rows, out)
            if name in FOOTNOTES:
                out.write("\n" + _wrap(FOOTNOTES[name]) + "\n")
    except AnalyticsError as exc:
        print(f"okey analytics: {exc}", file=sys.stderr)
        return 2
    return 0

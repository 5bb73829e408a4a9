"""``okey export TABLE``: a table's events as JSON lines, as a spectator may see them unless
``--with-private`` asks for the hidden information too (dealt racks, deck order, the deal
order and salt before the hand's end, other seats' deck draws)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from typing import Any, TextIO

from okeycore.events import TableCreated, event_from_dict, event_to_dict
from okeycore.games import engine_for as engine

from .eventstore import PostgresEventStore

__all__ = ["export_lines", "run_export"]


async def export_lines(store: PostgresEventStore, table_id: str, private: bool, page: int = 1000) -> AsyncIterator[str]:
    """One JSON line per event, in version order: the relay's envelope
    ``{"table_id", "version", "hand", "recorded_at", "event"}``."""
    after = 0
    public: Any = None
    while True:
        batch = await store.read_stream(table_id, after_version=after, limit=page)
        if not batch:
            return
        for e in batch:
            event = event_from_dict({"type": e.type, **e.data})
            if isinstance(event, TableCreated):
                public = engine(event.options.game).public_event
            if not private:
                if public is None:
                    raise ValueError(f"table {table_id!r} does not start with TableCreated")
                event = public(event, None)  # the spectator's version [section 7]
            env = {
                "table_id": e.stream_id,
                "version": e.version,
                "hand": e.hand,
                "recorded_at": e.recorded_at.isoformat(),
                "event": event_to_dict(event),
            }
            yield json.dumps(env, separators=(",", ":"))
        after = batch[-1].version


async def _export(url: str, table_id: str, private: bool, out: TextIO) -> int:
    store = await PostgresEventStore.connect(url, min_size=1, max_size=2)
    n = 0
    try:
        async for line in export_lines(store, table_id, private):
            out.write(line + "\n")
            n += 1
            if n % 10_000 == 0 and out is not sys.stdout:
                sys.stderr.write(f"  exported {n:,} events\n")
    finally:
        await store.close()
    if n == 0:
        print(f"okey export: no table {table_id!r} in the log", file=sys.stderr)
        return 1
    kind = "with private information" if private else "as a spectator sees them (no racks, no deck order)"
    print(f"okey export: {n:,} events of table {table_id}, {kind}", file=sys.stderr)
    return 0


def run_export(args: argparse.Namespace) -> int:
    url = args.database_url or os.environ.get("OKEY_DATABASE_URL")
    if not url:
        print("okey export: set OKEY_DATABASE_URL or pass --database-url", file=sys.stderr)
        return 2
    if args.output and args.output != "-":
        with open(args.output, "w", encoding="utf-8") as fh:
            return asyncio.run(_export(url, args.table, args.with_private, fh))
    return asyncio.run(_export(url, args.table, args.with_private, sys.stdout))

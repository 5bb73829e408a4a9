"""``okey export TABLE``: a table's events as JSON lines, as a spectator may see them unless
``--with-private`` asks for the hidden information too (dealt racks, deck order, the deal
order and salt before the hand's end, other seats' deck draws).

Each line is protobuf's JSON mapping of the ``okey.v1.TableEvent`` envelope, the message NATS
carries (``json_format.Parse(line, TableEvent())`` reads it back; ``envelope_from_pb`` then
gives the okeycore event)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import AsyncIterator
from typing import Any, TextIO

from okeycore.events import TableCreated
from okeycore.games import engine_for as engine
from okeyplatform.contract import envelope_json, envelope_pb
from okeyplatform.eventstore import PostgresEventStore

__all__ = ["export_lines", "run_export"]


async def export_lines(store: PostgresEventStore, table_id: str, private: bool, page: int = 1000) -> AsyncIterator[str]:
    """One JSON line per event, in version order: the TableEvent envelope in protobuf's JSON
    mapping, the event as a spectator sees it [section 7] unless ``private``."""
    after = 0
    public: Any = None
    while True:
        batch = await store.read_stream(table_id, after_version=after, limit=page)
        if not batch:
            return
        for e in batch:
            event = e.event()
            if isinstance(event, TableCreated):
                public = engine(event.options.game).public_event
            if public is None:
                raise ValueError(f"table {table_id!r} does not start with TableCreated")
            yield envelope_json(envelope_pb(e, event, private=private, public=public))
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

"""Filling a gap: the versions missing below a held-back event, read from the stream (an ephemeral
consumer on that table's subject), else from the PostgreSQL log, never skipped."""

from __future__ import annotations

import time
from typing import Any

import asyncpg
import nats
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.client import JetStreamContext

from ..eventstore import EventStore
from ..relay import table_subject
from .decoding import Item, LogSource, RejectedMessage, decode, read_log


class GapFiller:
    """The missing versions of stream ``stream``, and of the PostgreSQL log (``log_source``, opened
    when first needed); ``from_stream`` and ``from_log`` count the versions each gave back."""

    def __init__(self, stream: str, log_source: LogSource | None, log: Any) -> None:
        self.stream = stream
        self.log = log
        self.from_stream = 0
        self.from_log = 0
        self._log_source = log_source
        self._log_store: EventStore | None = None

    async def fill(self, js: JetStreamContext, held: list[Item], versions: dict[str, int]) -> list[Item]:
        """The missing versions below held-back events, read from the stream (they may sit
        later in it, or be waiting for redelivery to this consumer)."""
        want: dict[str, set[int]] = {}
        for it in held:
            have = versions.get(it.table_id, 0)
            want.setdefault(it.table_id, set()).update(range(have + 1, it.version))
        for it in held:
            want[it.table_id].discard(it.version)
        out: list[Item] = []
        for table_id, versions_wanted in want.items():
            if not versions_wanted:
                continue
            got = await self._read_stream(js, table_id, versions_wanted)
            out += got
            still = versions_wanted - {it.version for it in got}
            if still and self._log_source is not None:
                # Not in the stream (any more): its retention aged them out, or they are
                # in flight. The log has every event: catch up from it, never skip.
                try:
                    logged = await self._read_log(table_id, still)
                except (asyncpg.PostgresError, OSError) as exc:
                    self.log.warning("log_fill_failed", table_id=table_id, error=repr(exc))
                    logged = []
                self.from_log += len(logged)
                if logged:
                    self.log.info("gap_filled_from_log", table_id=table_id, versions=len(logged))
                out += logged
        return out

    async def _read_log(self, table_id: str, versions: set[int]) -> list[Item]:
        """Versions of a table from the PostgreSQL log, as the relay would have published them."""
        if self._log_store is None:
            source = self._log_source
            if source is None:
                return []
            self._log_store = await source() if callable(source) else source
        got = await read_log(self._log_store, table_id, min(versions) - 1, max(versions))
        return [it for it in got if it.version in versions]

    async def _read_stream(self, js: JetStreamContext, table_id: str, wanted: set[int]) -> list[Item]:
        """Versions of a table from the stream, by an ephemeral consumer of its subject."""
        found: dict[int, Item] = {}
        try:
            sub = await js.pull_subscribe(
                table_subject(table_id),
                stream=self.stream,
                config=ConsumerConfig(
                    deliver_policy=DeliverPolicy.ALL,
                    ack_policy=AckPolicy.EXPLICIT,
                    inactive_threshold=10.0,
                    mem_storage=True,
                ),
            )
        except (nats.errors.Error, TimeoutError) as exc:
            self.log.warning("gap_fill_failed", table_id=table_id, error=repr(exc))
            return []
        try:
            deadline = time.monotonic() + 5.0
            while wanted - found.keys() and time.monotonic() < deadline:
                try:
                    msgs = await sub.fetch(500, timeout=0.5)
                except TimeoutError:
                    break
                for m in msgs:
                    try:
                        it = decode(m.data, m.headers)
                    except RejectedMessage:
                        continue
                    if it.version in wanted:
                        found[it.version] = it
                if not msgs or msgs[-1].metadata.num_pending == 0:
                    break
        except (nats.errors.Error, TimeoutError) as exc:
            self.log.warning("gap_fill_failed", table_id=table_id, error=repr(exc))
        finally:
            try:
                info = await sub.consumer_info()
                await sub.unsubscribe()
                await js.delete_consumer(self.stream, info.name)
            except (nats.errors.Error, TimeoutError):
                pass
        self.from_stream += len(found)
        self.log.info("gap_filled" if found else "gap_open", table_id=table_id, wanted=sorted(wanted), found=len(found))
        return [found[v] for v in sorted(found)]

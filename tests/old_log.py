"""The log recorded by the JSON publisher of bc48906 (tests/fixtures/old_log, see record.py there):
its NATS messages, byte for byte as that relay sent them, and its rows as PostgreSQL stores them."""

from __future__ import annotations

import json
import pathlib
from dataclasses import dataclass
from datetime import datetime

from okeyplatform.eventstore import StoredEvent

HERE = pathlib.Path(__file__).parent / "fixtures" / "old_log"
COLUMNS = ["stream_id", "version", "type", "data", "hand", "recorded_at"]


@dataclass(frozen=True)
class OldMessage:
    subject: str
    headers: dict[str, str]
    data: bytes


def messages() -> list[OldMessage]:
    out = []
    for line in (HERE / "nats.jsonl").read_text().splitlines():
        m = json.loads(line)
        out.append(OldMessage(m["subject"], m["headers"], m["data"].encode("utf-8")))
    return out


def stored() -> list[StoredEvent]:
    out = []
    for i, line in enumerate((HERE / "stored.jsonl").read_text().splitlines(), 1):
        r = json.loads(line)
        at = datetime.fromisoformat(r["recorded_at"])
        out.append(StoredEvent(r["stream_id"], r["version"], r["type"], r["data"], r["hand"], i, (i, i), at))
    return out


def rows() -> list[tuple[object, ...]]:
    """``okey_events`` rows (COLUMNS) for COPY: the log as the table service wrote it."""
    return [(e.stream_id, e.version, e.type, json.dumps(e.data), e.hand, e.recorded_at) for e in stored()]

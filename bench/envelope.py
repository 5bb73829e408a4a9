"""Encoding and decoding table events for NATS: the protobuf envelope (okeyplatform.contract)
against the JSON the relay wrote before it (issue 16), on the same log of bot matches.

    okey bench envelope [--quick] [--record]      (or: python -m bench.envelope [--events 100000])

Each path starts from what the relay reads (a StoredEvent: the event as PostgreSQL's JSON gave
it) and ends with the bytes it publishes; decoding starts from those bytes and ends with the
okeycore event a consumer works with."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from okeycore.classic import public_event
from okeycore.events import HandStarted, event_to_dict
from okeyplatform.contract import decode_envelope, encode_envelope, nats_headers
from okeyplatform.eventstore import StoredEvent

from .common import machine
from .record import Section, Table, command_line, record
from .replay import bot_match


def _log(n: int) -> list[StoredEvent]:
    out: list[StoredEvent] = []
    k = 0
    now = datetime.now(UTC)
    while len(out) < n:
        hand = 0
        for v, e in enumerate(bot_match(f"t{k}", k), 1):
            hand = e.hand if isinstance(e, HandStarted) else hand
            d = event_to_dict(e)
            d.pop("type")
            out.append(StoredEvent(f"t{k}", v, e.type, d, hand, len(out), (len(out), len(out)), now))
        k += 1
    return out[:n]


def json_encode(e: StoredEvent) -> bytes:
    """The relay of bc48906: ``json.dumps(public_envelope(e))``."""
    public = public_event(e.event(), None)
    env = {
        "table_id": e.stream_id,
        "version": e.version,
        "hand": e.hand,
        "recorded_at": e.recorded_at.isoformat(),
        "event": event_to_dict(public),
    }
    return json.dumps(env, separators=(",", ":")).encode("utf-8")


def _time(label: str, fn: Callable[[Any], Any], items: list[Any]) -> tuple[float, list[Any]]:
    t0 = time.perf_counter()
    out = [fn(x) for x in items]
    s = time.perf_counter() - t0
    print(f"  {label:<40} {len(items) / s:>10,.0f} events/s  ({s * 1e6 / len(items):5.1f} us/event)")
    return s, out


FULL_EVENTS = 100_000
QUICK_EVENTS = 10_000


def run(args: argparse.Namespace) -> int:
    """``okey bench envelope``: both encodings of the same log, both ways; recorded when asked."""
    events = getattr(args, "events", None) or (QUICK_EVENTS if getattr(args, "quick", False) else FULL_EVENTS)
    print("okey bench envelope: the NATS message of a table event, protobuf against the JSON before it")
    print(f"machine: {machine()}")
    log = _log(events)
    print(f"{len(log):,} events of bot matches")
    t_json, as_json = _time("encode, JSON (before)", json_encode, log)
    t_pb, as_pb = _time("encode, protobuf envelope", encode_envelope, log)
    headers = nats_headers(log[0])
    d_json, _ = _time("decode, JSON (the upcast of an old stream)", decode_envelope, as_json)
    d_pb, _ = _time("decode, protobuf envelope", lambda b: decode_envelope(b, headers), as_pb)
    size_json, size_pb = (sum(map(len, x)) / len(log) for x in (as_json, as_pb))
    print(f"  bytes per event: JSON {size_json:,.0f}, protobuf {size_pb:,.0f}")

    def per(seconds: float) -> str:
        return f"{seconds * 1e6 / len(log):.1f} us"

    rows = [
        ("encode (a stored event -> the bytes published)", per(t_pb), per(t_json)),
        ("decode (the bytes -> the okeycore event)", per(d_pb), per(d_json)),
        ("bytes per event", f"{size_pb:,.0f}", f"{size_json:,.0f}"),
    ]
    record(
        args,
        Section(
            "envelope",
            (
                f"python -m bench.envelope --events {args.events}"
                if getattr(args, "events", None)
                else command_line("envelope", args)
            ),
            [Table(("per event", "protobuf envelope", "JSON (the old form, still read)"), rows, frozenset({1, 2}))],
            in_process=True,
            notes=[f"{len(log):,} events of bot matches, in-process, one core"],
        ),
    )
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=None, help=f"how many events (default {FULL_EVENTS:,})")
    parser.add_argument("--record", nargs="?", const="", default=None, metavar="FILE", help="see okey bench --help")
    raise SystemExit(run(parser.parse_args()))


if __name__ == "__main__":
    main()

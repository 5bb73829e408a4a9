"""Helpers for the scoring tests: scripted classic matches with scores worked out by hand,
simulated matches, writing a stream into the event store, publishing envelopes to JetStream,
and waiting for the projection."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from nats.js.client import JetStreamContext
from okeycore.classic import ClassicState, Phase, Stage, effective_table
from okeycore.classic.bots import GreedyBot
from okeycore.commands import Discard, Draw, Finish, ShowIndicator, StartHand
from okeycore.events import Event, HandStarted, TableCreated, event_to_dict
from okeycore.options import TableOptions
from okeycore.simulate import Simulator
from okeycore.testing import Table
from okeycore.tiles import TILE_COUNT, parse_face, resolve_ids
from okeyplatform.contract import encode_envelope, nats_headers
from okeyplatform.eventstore import NewEvent, PostgresEventStore, StoredEvent
from okeyplatform.relay import table_subject
from okeytools import stack as okeystack

from services.scoring.store import ScoringStore


@dataclass
class Stack:
    """A test's table service (with its relay) and scoring service as processes, and what an
    operator opens on their database: the event log and the projection."""

    processes: okeystack.Stack
    events: PostgresEventStore
    store: ScoringStore

    @property
    def database_url(self) -> str:
        return self.processes.database_url

    @property
    def nats_url(self) -> str:
        return self.processes.nats_url

    def address(self, name: str) -> str:
        return self.processes.address(name)


INDICATOR = "K12"  # okey K13: both K13s are wild, a fake okey plays as K13
MELDS = "R1 R2 R3 R4 R5 R6 R7 R8 R9 Y1 Y2 Y3 Y4 Y5"  # a run of 9 and a run of 5
PAIRS = "R1 R1 R3 R3 R5 R5 Y2 Y2 Y7 Y7 B4 B4 B9 B9"  # seven pairs


class Script(Table):
    """A classic table driven move by move through okeycore (the library's driver), with deals
    built so the starter holds exactly the rack named (and optionally another seat the
    indicator's twin)."""

    def __init__(self, table_id: str, options: TableOptions, players: Sequence[str]) -> None:
        super().__init__(options, table_id, players=players)
        self.table_id = table_id

    @property
    def s(self) -> ClassicState:
        state: ClassicState = self.state
        return state

    def deal_hand(self, starter_rack: str, twin_to: int | None = None) -> int:
        """Deal the next hand; returns its starter."""
        s = self.s
        starter = 0 if s.hand == 0 else (s.starter + 1) % 4
        (ind,) = resolve_ids([parse_face(INDICATOR)])
        used = {ind}
        rack = resolve_ids([parse_face(c) for c in starter_rack.split()], exclude=used)
        used.update(rack)
        racks: dict[int, list[int]] = {starter: rack}
        if twin_to is not None:
            racks[twin_to] = [ind ^ 1]
            used.add(ind ^ 1)
        rest = [t for t in range(TILE_COUNT) if t not in used]
        order: list[int] = []
        for k in range(4):
            seat = (starter + k) % 4
            mine = racks.get(seat, [])
            want = 15 if k == 0 else 14
            while len(mine) < want:
                mine.append(rest.pop(0))
            order += mine
        order += [ind, *rest]
        due = s.break_due_ms if s.in_break else 0  # the break between hands is waited out [P-BREAK-3]
        self.do(StartHand(order=tuple(order), first_starter=0, now_ms=due))
        return starter

    def show(self, seat: int) -> None:
        self.do(ShowIndicator(seat=seat))

    def finish(self, seat: int, code: str) -> None:
        self.do(Finish(seat=seat, tile=self.tile(seat, code)))

    def try_finish(self, seat: int, code: str) -> None:
        """An invalid finish: penalised at a `penalties` table [C-SC-6]."""
        self.do(Finish(seat=seat, tile=self.tile(seat, code)))

    def run_down_deck(self) -> None:
        """Draw and discard (never a real okey) until the deck runs out [C-DECK-1]."""
        while self.s.phase is Phase.PLAYING:
            s = self.s
            seat = s.turn
            drawn = -1
            if s.stage is Stage.DRAW:
                (ev,) = self.do(Draw(seat=seat))
                drawn = ev.tile  # type: ignore[attr-defined]
            wild = effective_table(self.s.indicator)
            rack = self.s.seats[seat].rack
            tile = drawn if drawn >= 0 and wild[drawn] >= 0 else next(t for t in rack if wild[t] >= 0)
            self.do(Discard(seat=seat, tile=tile))


def match_a(table_id: str = "match-a") -> Script:
    """Classic, 20 points, indicator and penalties on, stake 10; seat 3 is a bot.

    hand 1 (starter 0): seat 2 shows the indicator (-1 each other) [C-SC-4]; seat 0 finishes
        seven pairs with an okey: x4, others -8 [C-SC-3]        -> 19 11 12 11
    hand 2 (starter 1): seat 1 tries an invalid finish (-2) [C-SC-6], then finishes normally (-2 each)
                                                                -> 17  9 10  9
    hand 3 (starter 2): seat 2 finishes with an okey: x2, -4    -> 13  5 10  5
    hand 4 (starter 3): the deck runs out, nobody scores [C-DECK-1] -> 13 5 10 5
    hand 5 (starter 0): seat 0 seven pairs + okey again, -8     -> 13 -3  2 -3: the match ends,
        seat 0 wins the pot of 40 [C-SC-7] [C-SC-9]."""
    sc = Script(
        table_id,
        TableOptions(match_points=20, indicator=True, penalties=True, stake=10),
        ("ali", "ayse", "mehmet", ""),
    )
    sc.deal_hand(PAIRS + " K13", twin_to=2)
    sc.show(2)
    sc.finish(0, "K13")
    sc.deal_hand(MELDS + " B7")
    sc.try_finish(1, "R5")
    sc.finish(1, "B7")
    sc.deal_hand(MELDS + " K13")
    sc.finish(2, "K13")
    sc.deal_hand(MELDS + " B7")
    sc.run_down_deck()
    sc.deal_hand(PAIRS + " K13")
    sc.finish(0, "K13")
    assert sc.s.phase is Phase.MATCH_OVER
    return sc


def match_b(table_id: str = "match-b") -> Script:
    """Classic, 6 points, no indicator, stake 5: three normal finishes leave 2 2 2 0, so seats
    0, 1 and 2 share the win [C-SC-7] and the pot of 20: 6 each, 2 left over [C-SC-9]."""
    sc = Script(table_id, TableOptions(match_points=6, indicator=False, stake=5), ("ali", "ayse", "mehmet", "zeynep"))
    for seat in range(3):
        assert sc.deal_hand(MELDS + " B7") == seat
        sc.finish(seat, "B7")
    assert sc.s.phase is Phase.MATCH_OVER
    return sc


def simulated(table_id: str, seed: int, players: Sequence[str], **options: Any) -> list[Event]:
    """A whole classic match between greedy bots, with ``players`` in its TableCreated (played
    with no break between hands, as a table of persons with ``hand_break_seconds=0``)."""
    sim = Simulator(
        TableOptions(**{"hand_break_seconds": 0, **options}),
        [GreedyBot(i) for i in range(4)],
        seed=seed,
        table_id=table_id,
    )
    events = sim.play_match().events
    first = events[0]
    assert isinstance(first, TableCreated)
    return [replace(first, players=tuple(players)), *events[1:]]


def simulated_101(table_id: str, seed: int, players: Sequence[str], **options: Any) -> list[Event]:
    from okeycore.okey101.bots import GreedyBot101
    from okeycore.okey101.simulate import Simulator101
    from okeycore.options import Game

    opts = TableOptions(game=Game.OKEY101, **{"hand_break_seconds": 0, **options})
    sim = Simulator101(opts, [GreedyBot101(i) for i in range(opts.seats)], seed=seed, table_id=table_id)
    events = sim.play_match().events
    first = events[0]
    assert isinstance(first, TableCreated)
    return [replace(first, players=tuple(players)), *events[1:]]


def _data(e: Event) -> dict[str, Any]:
    d = event_to_dict(e)
    d.pop("type")
    return d


def hands_of(events: Sequence[Event]) -> list[int]:
    hand = 0
    out = []
    for e in events:
        if isinstance(e, HandStarted):
            hand = e.hand
        out.append(hand)
    return out


async def append(store: PostgresEventStore, table_id: str, events: Sequence[Event], chunk: int = 25) -> int:
    """Write a stream as the table service would (in commits of ``chunk`` events); the
    service's relay then publishes it. Returns the last version."""
    hands = hands_of(events)
    version = 0
    for i in range(0, len(events), chunk):
        part = [NewEvent(e.type, _data(e), h) for e, h in zip(events[i : i + chunk], hands[i : i + chunk], strict=True)]
        res = await store.append(table_id, version, part)
        version = res.last_version
    return version


def stored(table_id: str, version: int, event: Event | dict[str, Any], hand: int = 0) -> StoredEvent:
    """An event as the log would hold it (what the relay reads)."""
    data = dict(event) if isinstance(event, dict) else event_to_dict(event)
    kind = str(data.pop("type"))
    return StoredEvent(table_id, version, kind, data, hand, version, (version, version), datetime.now(UTC))


def envelope(table_id: str, version: int, event: Event | dict[str, Any], hand: int = 0) -> tuple[bytes, dict[str, str]]:
    """What the relay publishes: an okeycore event as the spectator's TableEvent envelope (and its
    headers); a dict (a malformed or unknown event) as the JSON a relay wrote before the
    protobuf contract, which consumers still read."""
    if isinstance(event, dict):
        env = {
            "table_id": table_id,
            "version": version,
            "hand": hand,
            "recorded_at": datetime.now(UTC).isoformat(),
            "event": event,
        }
        return json.dumps(env, separators=(",", ":")).encode("utf-8"), {}
    st = stored(table_id, version, event, hand)
    return encode_envelope(st), nats_headers(st)


async def publish(
    js: JetStreamContext, table_id: str, version: int, event: Event | dict[str, Any], msg_id: str | None = None
) -> None:
    data, headers = envelope(table_id, version, event)
    await js.publish(
        table_subject(table_id), data, headers={**headers, "Nats-Msg-Id": msg_id or f"{table_id}:{version}"}
    )


async def wait_version(store: ScoringStore, table_id: str, version: int, timeout: float = 30.0) -> None:
    """Until the projection has applied ``version`` of the table."""
    deadline = time.monotonic() + timeout
    got = 0
    while time.monotonic() < deadline:
        t = await store.table(table_id)
        got = t.version if t else 0
        if got >= version:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the projection of {table_id} reached version {got}, not {version}, in {timeout:.0f} s")


async def run_okey_replay(database_url: str, *flags: str) -> str:
    """``okey replay --verify [flags]`` as a process on ``database_url``; asserts it exited 0 and
    that okeycore agreed with the log and the rebuild with the live projection; returns stdout."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "okeytools.cli",
        "replay",
        "--verify",
        *flags,
        "--database-url",
        database_url,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(os.environ, OKEY_LOG_FORMAT="json"),
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    text = out.decode()
    assert proc.returncode == 0, text + err.decode()
    assert "every recorded result matches" in text and "the rebuilt projection equals the live one" in text
    return text

"""Two table service processes (``python -m services.table.main`` twice, each its own address,
cache and relay) on one PostgreSQL database and one NATS, driven at once for the same tables.

For every table, a driver per replica reads the turn and sends the seat's greedy move to its own
replica, both at the same moment. Both compute the same move; half of the steps both send it
under the same command id (the second one must come back as that command's duplicate, at the
version the first one wrote), the other half under an id of each replica's own (one is applied,
the other is decided again on the new state and refused, or applied as a move of its own).
Afterwards, per table: the log's versions are 1..N with no gap; each command id the log records
covers its own run of versions, and no two overlap; every command that a replica answered as
applied is the one the log records under its id, with the versions it answered, and every
duplicate answer names those same versions; folding the log with okeycore holds the 106 tiles
at every step; both replicas serve the same view at the end; and JetStream holds each version
exactly once (two relays, one lock)."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import asyncpg
import grpc
from okeycore.classic import ClassicState
from okeycore.classic.bots import GreedyBot
from okeycore.events import TableCreated, event_from_dict
from okeycore.games import engine_for
from okeycore.options import TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeyplatform.contract import classic_view_from_pb
from okeytools.stack import Stack
from table_helpers import create_as_lobby, jetstream_versions

PLAYERS = ("ali", "ayse", "mehmet", "zeynep")
TABLES = 3
ENV = {"OKEY_TIMEOUT_GRACE_MS": "300"}
STEPS = 40  # moves each table is driven through
# A refusal the losing replica may answer (the move was decided again on the state the other
# replica's command made): anything else fails the test.
REFUSED = (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED, grpc.StatusCode.INVALID_ARGUMENT)


@dataclass
class Answers:
    """What the replicas answered, per command: (replica, first version, last version, duplicate).
    A command is the seat's and its id: an id is its caller's, so the same id sent for two seats
    (one driver read the turn after the other's move) is two commands, as the store records them."""

    by_id: dict[tuple[str, str], list[tuple[str, int, int, bool]]] = field(default_factory=dict)
    refused: Counter[str] = field(default_factory=Counter)

    def add(self, seat: int, command_id: str, replica: str, versions: list[int], duplicate: bool, version: int) -> None:
        first, last = (min(versions), max(versions)) if versions else (0, version)
        self.by_id.setdefault((str(seat), command_id), []).append((replica, first, last, duplicate))


async def _drive(table_id: str, replicas: dict[str, list[TableClient]], answers: Answers, steps: int) -> None:
    bots = [GreedyBot(i) for i in range(4)]

    async def send(replica: str, step: int, shared: bool) -> None:
        clients = replicas[replica]
        v = classic_view_from_pb(await clients[0].view(table_id, 0))
        if v.phase.value != "PLAYING":
            return
        seat = v.turn
        view = classic_view_from_pb(await clients[seat].view(table_id, seat, min_version=v.version))
        command_id = f"{table_id}:{step}" if shared else f"{table_id}:{step}:{replica}"
        try:
            resp = await clients[seat].act(table_id, bots[seat].act(view), command_id=command_id)
        except grpc.aio.AioRpcError as err:
            if err.code() not in REFUSED:
                raise
            answers.refused[err.code().name] += 1
            return
        answers.add(seat, command_id, replica, [e.version for e in resp.events], resp.duplicate, resp.version)

    for step in range(steps):
        await asyncio.gather(*(send(r, step, shared=step % 2 == 0) for r in replicas))


async def test_two_table_processes_on_one_database_keep_every_table_s_log_consistent(
    make_stack: Callable[..., Stack],
) -> None:
    a = make_stack(("table",), env=ENV, private_nats=True, label="table-a")
    b = make_stack(
        ("table",),
        env={"OKEY_TIMEOUT_GRACE_MS": "300"},
        database_url=a.database_url,
        nats_url=a.nats_url,
        label="table-b",
    )
    assert a.address("table") != b.address("table")
    tables = [f"t-two-procs-{i}" for i in range(TABLES)]
    replicas = {
        name: [TableClient(st.address("table"), issue_token(p)) for p in PLAYERS] for name, st in (("a", a), ("b", b))
    }
    answers = Answers()
    try:
        for i, tid in enumerate(tables):  # opened through one or the other
            await create_as_lobby((a if i % 2 else b).address("table"), TableOptions(), PLAYERS, tid)
        await asyncio.gather(*(_drive(tid, replicas, answers, STEPS) for tid in tables))
        finals = {}
        for tid in tables:
            va = classic_view_from_pb(await replicas["a"][0].view(tid, 0))
            vb = classic_view_from_pb(await replicas["b"][0].view(tid, 0, min_version=va.version))
            assert va == vb, f"{tid}: the replicas serve different views"
            finals[tid] = va.version
    finally:
        for clients in replicas.values():
            for c in clients:
                await c.close()

    conn = await asyncpg.connect(a.database_url)
    try:
        for tid in tables:
            rows = await conn.fetch(
                "SELECT version, type, data::text AS data FROM okey_events WHERE stream_id = $1 ORDER BY version", tid
            )
            versions = [r["version"] for r in rows]
            assert versions == list(range(1, len(rows) + 1)), f"{tid}: versions with a gap or twice"
            assert len(rows) == finals[tid]
            recorded = {  # a seat's command is recorded as player:<subject>:<seat>:<the id it sent>
                tuple(r["command_id"].split(":", 3)[2:]): (
                    r["first_version"],
                    r["last_version"],
                )
                for r in await conn.fetch(
                    "SELECT command_id, first_version, last_version FROM okey_commands WHERE stream_id = $1", tid
                )
            }
            spans = sorted(recorded.values())
            for (_, last), (first, _) in itertools.pairwise(spans):
                assert last < first, f"{tid}: two commands recorded over the same versions: {spans}"
            assert all(1 <= f <= la <= len(rows) for f, la in spans)
            for command_id, got in answers.by_id.items():
                if not command_id[1].startswith(f"{tid}:"):
                    continue
                applied = [g for g in got if not g[3]]
                assert len(applied) <= 1, f"{command_id} applied by both replicas: {got}"
                assert command_id in recorded, f"{command_id} answered but not recorded: {got}"
                for _, first, last, duplicate in got:
                    if duplicate:
                        assert last == recorded[command_id][1], f"{command_id}: a duplicate at another version: {got}"
                    else:
                        assert (first, last) == recorded[command_id], f"{command_id}: answered {got}"
            _assert_legal_fold(tid, [(r["type"], r["data"]) for r in rows])
            assert await jetstream_versions(a.nats_url, tid, len(rows)) == versions
    finally:
        await conn.close()
    shared_duplicates = sum(1 for got in answers.by_id.values() for g in got if g[3])
    print(f"\n{sum(finals.values())} events; {shared_duplicates} duplicate answers; refusals {dict(answers.refused)}")
    assert shared_duplicates > 0, "no command id reached both replicas: the race was not run"


def _assert_legal_fold(table_id: str, rows: list[tuple[str, str]]) -> None:
    """okeycore folds the log event by event; the 106 tiles are all there at every step."""
    events = [event_from_dict({"type": t, **json.loads(d)}) for t, d in rows]
    first = events[0]
    assert isinstance(first, TableCreated)
    engine = engine_for(first.options.game)
    state = None
    for n, ev in enumerate(events, 1):
        state = engine.evolve(state, ev)
        if isinstance(state, ClassicState) and state.deck:
            tiles = [t for s in state.seats for t in s.rack + s.pile] + list(state.deck) + [state.indicator]
            assert sorted(tiles) == list(range(106)), f"{table_id} v{n} ({type(ev).__name__}): tiles lost or doubled"

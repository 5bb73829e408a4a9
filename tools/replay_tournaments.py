"""``okey replay --verify``, for tournaments: rebuild each tournament's event log from its inputs
and compare it with the stored one, event for event.

A tournament's log (``lobby_tournament_events``) holds two sorts of events. The *inputs* are what
people and the clock did: ``created``, ``registered``, ``unregistered``, a scheduled ``started``
and ``cancelled`` are taken as given (they are commands), and each ``table_finished`` and
``withdrew`` is where the lobby's consumer handed over a table's MatchEnded or a SeatLeft. The
rest (the draw, each round's tables, the knockout's cuts, the standings, the prizes and the
house's share) is what ``services.lobby.tournament_model`` decides from them. The rebuild
replays the commands in the stored order, feeds the model the table results as the TABLE EVENT
LOG has them (each tournament table's MatchEnded scores and winners, each SeatLeft of a
tournament player), and requires every event the model decides to equal the stored one. A
tampered prize, a standings order the results do not give, a result the table never ended
with: each is a line naming the tournament, the version and the field.

When the lobby's ledger is in the same database, the ``tprize:<tid>`` posting of a finished
tournament (and the ``tcancel:<tid>`` refunds of a cancelled one) must move exactly the chips its
``finished`` (``cancelled``) event says. Read-only throughout."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from okeycore.events import MatchEnded, SeatLeft, event_from_dict

from services.lobby import tournament_model as tm

__all__ = ["TABLE_INPUT_TYPES", "TableInputs", "TournamentReport", "rebuild", "verify_tournaments"]

TABLE_INPUT_TYPES = (MatchEnded.type, SeatLeft.type)  # what the lobby's consumer hands a tournament
COMMANDS = ("registered", "unregistered", "cancelled")  # taken as given; "started" too when scheduled
HOUSE = "house"  # services.lobby.ledger_repo.HOUSE (the tool reads the ledger without the lobby's code)


@dataclass
class TableInputs:
    """The table log's MatchEnded and SeatLeft events of the tables a tournament may have seated
    (their ids carry a dash; a table people open is "t" + hex), decoded as okeycore decodes them."""

    ended: dict[str, MatchEnded] = field(default_factory=dict)
    left: dict[str, list[str]] = field(default_factory=dict)  # table -> players who left, in order
    read: set[str] = field(default_factory=set)  # tables whose whole stream was read here

    def feed(self, table_id: str, kind: str, data: dict[str, Any]) -> None:
        if kind not in TABLE_INPUT_TYPES or "-" not in table_id:
            return
        try:
            ev = event_from_dict({"type": kind, **data})
        except (KeyError, ValueError, TypeError):
            return  # the okeycore check reports an event it cannot read
        if isinstance(ev, MatchEnded):
            self.ended[table_id] = ev
        elif isinstance(ev, SeatLeft):
            self.left.setdefault(table_id, []).append(ev.player)


@dataclass
class TournamentReport:
    rebuilt: int = 0  # tournaments whose log was rebuilt
    events: int = 0  # their stored events
    postings: int = 0  # ledger postings checked against them
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # not wrong: e.g. a result the lobby has yet to apply
    skipped: str = ""  # why no tournament was read


def _diff(recorded: dict[str, Any], rebuilt: dict[str, Any]) -> str:
    if recorded.get("kind") != rebuilt.get("kind"):
        return f"recorded {recorded.get('kind')!r}, the inputs give {rebuilt.get('kind')!r} ({_short(rebuilt)})"
    kind = rebuilt["kind"]
    for key in sorted(set(recorded) | set(rebuilt)):
        a, b = recorded.get(key), rebuilt.get(key)
        if a != b:
            return f"{kind}.{key}: recorded {_short(a)}, the inputs give {_short(b)}"
    return f"{kind} differs"


def _short(value: Any, limit: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def rebuild(
    tournament_id: str, stored: Sequence[dict[str, Any]], inputs: TableInputs
) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """The events the model decides from the stored commands and the table log's results, in
    the stored order; the problems (where the rebuild parts from the stored log: it stops
    there) and the notes. Pure: no I/O."""
    problems: list[str] = []
    notes: list[str] = []

    def problem(version: int, text: str) -> None:
        problems.append(f"tournament {tournament_id} version {version}: {text}")

    if not stored or stored[0].get("kind") != "created":
        problem(1, f"the log starts with {stored[0].get('kind') if stored else 'nothing'!r}, not 'created'")
        return [], problems, notes
    out: list[dict[str, Any]] = [stored[0]]
    try:
        state = tm.fold(tournament_id, out)
    except (KeyError, ValueError, TypeError) as exc:
        problem(1, f"the created event cannot be read: {exc!r}")
        return out, problems, notes
    used_left: set[tuple[str, int]] = set()  # the SeatLeft events (table, index) used up
    while len(out) < len(stored):
        version = len(out) + 1
        ev = stored[len(out)]
        kind = ev.get("kind")
        try:
            if kind in COMMANDS or (kind == "started" and state.spec.starts_at is not None):
                if kind == "registered":
                    decided = tm.register(state, ev["player"])
                elif kind == "unregistered":
                    decided = tm.unregister(state, ev["player"])
                elif kind == "cancelled":
                    decided = tm.cancel(state, ev["reason"])
                else:
                    decided = tm.start(state)
            elif kind == "table_finished":
                table_id = ev["table_id"]
                end = inputs.ended.get(table_id)
                if end is None:
                    problem(version, f"table_finished for table {table_id}, whose log has no MatchEnded")
                    break
                decided = tm.table_finished(state, table_id, end.scores, end.winners)
            elif kind == "withdrew":
                player = ev["player"]
                seated = [t.table_id for t in state.tables.values() if player in t.seats]
                unused = [
                    (t, i) for t in seated for i, p in enumerate(inputs.left.get(t, [])) if (t, i) not in used_left
                ]
                left = next(((t, i) for t, i in unused if inputs.left[t][i] == player), None)
                if left is None:
                    problem(version, f"{player} withdrew, but no table of theirs has a SeatLeft of them")
                    break
                used_left.add(left)
                decided = tm.withdraw(state, player, left[0])
            else:
                problem(version, f"a {kind!r} event that no command or table result leads to here")
                break
        except tm.Decline as exc:
            problem(version, f"{kind}: the tournament refuses it at this point ({exc.reason})")
            break
        except (KeyError, ValueError, TypeError) as exc:
            problem(version, f"{kind}: cannot be rebuilt: {exc!r}")
            break
        if not decided:
            problem(version, f"{kind}: the table log's input changes nothing at this point")
            break
        parted = False
        for d in decided:
            at = len(out)
            if at >= len(stored):
                problem(at + 1, f"the log ends before the {d['kind']} event the inputs give ({_short(d)})")
                parted = True
                break
            if stored[at] != d:
                problem(at + 1, _diff(stored[at], d))
                parted = True
                break
            out.append(d)
            tm.apply(state, d)
        if parted:
            break
    if not problems and state.status == tm.RUNNING:
        for t in state.in_round(state.round):
            if not t.finished and t.table_id in inputs.ended:
                notes.append(
                    f"tournament {tournament_id}: table {t.table_id} ended in the table log; the tournament "
                    "has not recorded it yet (the lobby's consumer is behind, or stopped)"
                )
    return out, problems, notes


def _expected_posting(tournament_id: str, ev: dict[str, Any]) -> tuple[str, dict[str, int]]:
    """The ledger transaction a ``finished`` or ``cancelled`` event posts: its key and each
    account's amount (nothing when no chips move), as services/lobby/tournaments.py posts it."""
    pot = f"tournament:{tournament_id}"
    merged: dict[str, int] = {}

    def add(account: str, amount: int) -> None:
        merged[account] = merged.get(account, 0) + amount

    if ev["kind"] == "finished":
        key = f"tprize:{tournament_id}"
        paid = ev["house"]
        for player, chips in ev["prizes"]:
            if chips:
                add(f"player:{player}", chips)
                paid += chips
        if paid:
            add(HOUSE, ev["house"])
            add(pot, -paid)
    else:
        key = f"tcancel:{tournament_id}"
        held = 0
        for player, chips in ev["refunds"]:
            add(f"player:{player}", chips)
            held += chips
        if held:
            add(pot, -held)
    return key, {a: v for a, v in merged.items() if v}


async def verify_tournaments(events: Any, inputs: TableInputs, max_problems: int = 50) -> TournamentReport:
    """Rebuild every tournament in the event log's database (``events``: the PostgresEventStore;
    its pool reads the lobby's tables, which live in the same database unless the lobby was given
    another) and compare; check the prize and refund postings when the ledger is there."""
    report = TournamentReport()
    async with events.pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
        if await conn.fetchval("SELECT to_regclass('lobby_tournament_events')") is None:
            report.skipped = "no lobby tables in the event log's database"
            return report
        rows = await conn.fetch(
            "SELECT tournament_id, version, data::text AS data FROM lobby_tournament_events "
            "ORDER BY tournament_id, version"
        )
        postings: dict[str, dict[str, int]] | None = None  # txn key -> account -> amount
        if await conn.fetchval("SELECT to_regclass('lobby_transactions')") is not None:
            postings = {}
            for r in await conn.fetch(
                "SELECT t.txn_key, e.account, e.amount FROM lobby_transactions t "
                "LEFT JOIN lobby_entries e ON e.txn_key = t.txn_key "
                "WHERE t.kind IN ('tournament_prize', 'tournament_refund') "
                "AND (t.txn_key LIKE 'tprize:%' OR t.txn_key LIKE 'tcancel:%')"
            ):
                moves = postings.setdefault(r["txn_key"], {})
                if r["account"] is not None:
                    moves[r["account"]] = int(r["amount"])
    logs: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        log = logs.setdefault(r["tournament_id"], [])
        if r["version"] != len(log) + 1:
            report.problems.append(
                f"tournament {r['tournament_id']}: version {r['version']} follows version {len(log)}"
            )
        log.append(json.loads(r["data"]))
    for tid, stored in logs.items():
        await _read_missing_tables(events, tid, stored, inputs)
        rebuilt, problems, notes = rebuild(tid, stored, inputs)
        report.rebuilt += 1
        report.events += len(stored)
        report.problems += problems
        report.notes += notes
        if problems or postings is None or not rebuilt or rebuilt[-1]["kind"] not in ("finished", "cancelled"):
            continue
        report.postings += 1
        problem = _check_posting(postings, tid, len(rebuilt), rebuilt[-1])
        if problem:
            report.problems.append(problem)
    if len(report.problems) > max_problems:
        more = len(report.problems) - max_problems
        report.problems = report.problems[:max_problems] + [f"... ({more} more problems not shown)"]
    return report


async def _read_missing_tables(events: Any, tid: str, stored: Sequence[dict[str, Any]], inputs: TableInputs) -> None:
    """A tournament table the replay's read of the log found no MatchEnded for: its stream read
    again (the tournament may have recorded the result after the read passed the table)."""
    for ev in stored:
        if ev.get("kind") != "table_assigned":
            continue
        table_id = ev.get("table_id", "")
        if table_id in inputs.ended or table_id in inputs.read:
            continue
        inputs.read.add(table_id)
        inputs.left.pop(table_id, None)  # read whole again
        for e in await events.read_stream(table_id):
            inputs.feed(table_id, e.type, e.data)


def _check_posting(postings: dict[str, dict[str, int]], tid: str, version: int, ev: dict[str, Any]) -> str:
    key, want = _expected_posting(tid, ev)
    got = postings.get(key)
    where = f"tournament {tid} version {version}: the ledger's {key}"
    if not want:
        return f"{where} moves {_short(got)}, the {ev['kind']} event no chips" if got else ""
    if got is None:
        return f"{where} is missing; the {ev['kind']} event moves {_short(want)}"
    if got != want:
        return f"{where} moves {_short(got)}, the {ev['kind']} event {_short(want)}"
    return ""

"""Issue 45's "done when": a 16-player knockout sit-and-go, its 16 people played by scripts through
the public gateway (tournament_players.py: each with their own token, finding their table in
the lobby and playing their seat with the bots' greedy logic), runs to the end; with the table,
lobby and scoring services each killed -9 once mid-run (at different moments, each started
again), the results and every chip are the same as in an undisturbed run with the same seeds.

Two fresh stacks, run at once (every service its own process, a fresh database and a NATS of its own each), the same
tournament id ("kupa-16", so the same table ids) and the same deal seed
(OKEY_INSECURE_DEAL_SEED, so the same deals at the same table ids): run A undisturbed, run B
with the three kills. Then, person i of run A against person i of run B (the i-th to register):

- the final standings (place, match points, score, firsts, the round they went out in, prize);
- every round's tables: who sat at which seat, the match's places and scores;
- every hand dealt at every table (its deal's commitment), and the moves played (the log's
  commands, in order); scoring's record of every match (GetMatchResult, after its kill);
- each person's chips: the balance and their ledger lines (kind, amount, table) from GetChips;
- the tournament's ledger: every transaction of it, by account, the house's share included;
- and in each run, to the chip: the fees paid in are the prizes paid out plus the house's share,
  as the ledger holds them, and the prizes are the ones the server announced.

``OKEY_TOURNAMENT_FAULT_LOG=1`` prints each run's timings and where the kills fell."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import grpc
from google.protobuf.json_format import MessageToDict
from okey.v1 import common_pb2
from okey.v1 import lobby_service_pb2 as lpb
from okey.v1 import lobby_service_pb2_grpc as lpb_grpc
from okey.v1 import scoring_service_pb2 as spb
from okey.v1 import scoring_service_pb2_grpc as spb_grpc
from okeybench.faults import inject
from okeyplatform.auth import issue_token
from okeytools.stack import ALL_SERVICES, Stack
from stacks import StackFactory
from tournament_players import Crowd, Person

from services.lobby.moderation import check_display_name

TOURNAMENT_ID = "kupa-16"
DEAL_SEED = "kupa-16-deals"
SIZE = 16
FEE = 100
PRIZE_PERCENT = (50, 30, 15)  # 5% to the house: its share is checked to the chip, not 0
NAMES = (
    "Ayşe",
    "Barış",
    "Cemile",
    "Doğan",
    "Elif",
    "Fatih",
    "Gülay",
    "Hakan",
    "İpek",
    "Kemal",
    "Leyla",
    "Murat",
    "Nazlı",
    "Orhan",
    "Pınar",
    "Selim",
)
# Short matches (a couple of hands), turns long enough that no turn timer fires while a service
# is down (a timed-out turn would be the bots', not the person's), no break between hands.
OPTIONS = common_pb2.TableOptions(
    game=common_pb2.GAME_OKEY,
    match_points=3,
    turn_seconds=120,
    hand_break_seconds=0,
)
ENV = {
    "OKEY_INSECURE_DEAL_SEED": DEAL_SEED,  # read by the table service only
    # Sixteen guests sign in from 127.0.0.1, and play from it: no per-address quota or limit.
    "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "0",
    "OKEY_DAILY_GRANTS_PER_ADDRESS": "0",
    "OKEY_RATE_LIMIT_PER_ADDRESS": "1000000",
    "OKEY_RATE_BURST_PER_ADDRESS": "1000000",
}
RUN_S = 150.0  # a hang guard for one tournament (undisturbed: well under a minute)
GIVE_UP_S = 60.0  # how long a service may stay away before a person's call fails
RESULTS_S = 30.0  # scoring has every match this long after the tournament ended (a hang guard)
CALL_S = 10.0
LOG = os.environ.get("OKEY_TOURNAMENT_FAULT_LOG") == "1"

RUNNING = lpb.TOURNAMENT_STATUS_RUNNING


@dataclass
class Kill:
    """A service killed -9 once ``when(tournament, crowd)`` holds, then started again."""

    service: str
    what: str  # the moment, in words
    when: Callable[[lpb.Tournament, Crowd], bool]
    at: str = ""  # where it fell: round, tables finished, turns played
    lasted_s: float = 0.0


@dataclass
class Outcome:
    """One run, every player id replaced by the person's registration number (``P01``...)."""

    standings: list[Any] = field(default_factory=list)
    rounds: list[Any] = field(default_factory=list)
    prizes: list[int] = field(default_factory=list)
    pool: int = 0
    chips: list[Any] = field(default_factory=list)
    ledger: list[Any] = field(default_factory=list)
    house: int = 0
    deals: list[Any] = field(default_factory=list)
    results: list[Any] = field(default_factory=list)
    moves: dict[str, list[Any]] = field(default_factory=dict)
    seconds: float = 0.0
    kills: list[str] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)


def _finished_tables(t: lpb.Tournament, round_no: int) -> int:
    return sum(tb.finished for r in t.rounds_played if r.round == round_no for tb in r.tables)


def _kills() -> list[Kill]:
    """Three kills at three moments: the table service mid-round 1 (turns in flight at four
    tables); the lobby once a table of round 1 has finished (it has the field to advance and the
    next round to seat), or at the latest early in round 2; scoring mid-round 2."""
    return [
        Kill("table", "mid-round 1, turns in flight", lambda t, c: t.round == 1 and c.turns >= 60),
        Kill(
            "lobby",
            "round 1 ending: a table finished, the next round to seat",
            lambda t, c: t.round >= 2 or (t.round == 1 and _finished_tables(t, 1) >= 1),
        ),
        Kill("scoring", "mid-round 2", lambda t, c: t.round >= 2 and c.turns >= c.mark + 40),
    ]


async def _kill_when_due(stack: Stack, crowd: Crowd, kills: list[Kill]) -> None:
    for kill in kills:
        t = await crowd.until(lambda t, k=kill: t.status == RUNNING and k.when(t, crowd), RUN_S)
        kill.at = f"round {t.round}, {_finished_tables(t, t.round)} tables of it finished, {crowd.turns} turns played"
        kill.lasted_s = await inject(f"kill-{kill.service}", stack, None, None)
        if kill.service == "lobby":
            crowd.mark = crowd.turns  # scoring's moment counts turns from here


async def _sign_in_and_register(gateway: str, admin: str) -> list[Person]:
    """The admin creates the tournament; sixteen guests sign in and register, in order."""
    people: list[Person] = []
    async with grpc.aio.insecure_channel(gateway) as channel:
        lobby = lpb_grpc.LobbyServiceStub(channel)
        spec = lpb.TournamentSpec(
            name="Kupa 16",
            options=OPTIONS,
            size=SIZE,
            entry_fee=FEE,
            prize_percent=PRIZE_PERCENT,
            format=lpb.TOURNAMENT_FORMAT_KNOCKOUT,
        )
        created = await lobby.CreateTournament(
            lpb.CreateTournamentRequest(spec=spec, tournament_id=TOURNAMENT_ID),
            metadata=(("authorization", f"Bearer {admin}"),),
            timeout=CALL_S,
        )
        assert created.tournament.tournament_id == TOURNAMENT_ID
        assert created.tournament.status == lpb.TOURNAMENT_STATUS_REGISTERING
        for i, name in enumerate(NAMES, 1):
            r = await lobby.SignInGuest(
                lpb.SignInGuestRequest(display_name=name, device_id=f"kupa-device-{i:02d}"), timeout=CALL_S
            )
            people.append(Person(f"P{i:02d}", r.player.player_id, r.token))
        for p in people:
            reg = await lobby.RegisterTournament(
                lpb.RegisterTournamentRequest(tournament_id=TOURNAMENT_ID, entry_fee=FEE),
                metadata=(("authorization", f"Bearer {p.token}"),),
                timeout=CALL_S,
            )
            assert reg.tournament.registered_me
    return people


async def _chips(gateway: str, people: list[Person]) -> list[Any]:
    out = []
    async with grpc.aio.insecure_channel(gateway) as channel:
        lobby = lpb_grpc.LobbyServiceStub(channel)
        for p in people:
            r = await lobby.GetChips(
                lpb.GetChipsRequest(limit=200), metadata=(("authorization", f"Bearer {p.token}"),), timeout=CALL_S
            )
            lines = [(e.kind, e.amount, e.balance_after, e.table_id) for e in reversed(r.entries)]
            out.append({"balance": r.balance, "lines": lines})
    return out


async def _match_results(gateway: str, token: str, table_ids: list[str]) -> list[Any]:
    """Scoring's record of each table's match (GetMatchResult through the gateway), once it has
    every one: a scoring service killed mid-run catches up from its durable consumer."""
    out: list[Any] = []
    async with grpc.aio.insecure_channel(gateway) as channel:
        scoring = spb_grpc.ScoringServiceStub(channel)
        deadline = time.monotonic() + RESULTS_S
        for table_id in table_ids:
            while True:
                try:
                    r = await scoring.GetMatchResult(
                        spb.GetMatchResultRequest(table_id=table_id),
                        metadata=(("authorization", f"Bearer {token}"),),
                        timeout=CALL_S,
                    )
                    break
                except grpc.aio.AioRpcError as err:
                    behind = (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION)  # not there yet
                    if err.code() not in behind or time.monotonic() > deadline:
                        raise
                    await asyncio.sleep(0.2)
            got = MessageToDict(r.result)
            got.pop("endedAt", None)
            out.append(got)
    return out


async def _ledger(database_url: str, table_ids: list[str]) -> list[Any]:
    """The tournament's transactions in the lobby's ledger (those whose key, table or memo names
    it, or one of its tables), each with its entries by account, in the order they were made."""
    conn = await asyncpg.connect(database_url)
    try:
        rows = await conn.fetch(
            "SELECT t.txn_key, t.kind, t.table_id, t.memo::text AS memo, e.account, e.amount "
            "FROM lobby_transactions t JOIN lobby_entries e ON e.txn_key = t.txn_key "
            "WHERE t.txn_key LIKE $1 OR t.table_id LIKE $1 OR t.memo::text LIKE $1 OR e.account LIKE $1 "
            "ORDER BY e.entry_id",
            f"%{TOURNAMENT_ID}%",
        )
    finally:
        await conn.close()
    txns: dict[str, dict[str, Any]] = {}
    for r in rows:
        t = txns.setdefault(r["txn_key"], {"kind": r["kind"], "table": r["table_id"], "entries": []})
        t["entries"].append((r["account"], r["amount"]))
    return [{"key": k, **v} for k, v in txns.items()]


def _sorted_entries(ledger: list[Any]) -> list[Any]:
    """Each transaction's entries by account (the order the ledger posts them in follows the
    accounts' names, and the people's ids are new in each run)."""
    return [{**t, "entries": sorted(t["entries"])} for t in ledger]


async def _table_logs(database_url: str, table_ids: list[str]) -> tuple[list[Any], dict[str, list[Any]]]:
    """Every hand's deal commitment at the tournament's tables, and each table's commands as the
    log holds them (the events' types and seats, in order; times left out)."""
    conn = await asyncpg.connect(database_url)
    try:
        rows = await conn.fetch(
            "SELECT stream_id, version, type, data FROM okey_events WHERE stream_id = ANY($1::text[]) "
            "ORDER BY stream_id, version",
            table_ids,
        )
    finally:
        await conn.close()
    deals: list[Any] = []
    moves: dict[str, list[Any]] = {}
    for r in rows:
        data = json.loads(r["data"]) if isinstance(r["data"], str) else r["data"]
        if r["type"] == "HandStarted":
            deals.append((r["stream_id"], data.get("hand"), data.get("commitment")))
        moves.setdefault(r["stream_id"], []).append((r["type"], data.get("seat"), data.get("tile")))
    return deals, moves


def _relabel(value: Any, labels: dict[str, str]) -> Any:
    """``value`` with every player id in it (a string, or part of one) replaced by its label."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    for player_id, label in sorted(labels.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(player_id, label)
    return json.loads(text)


def _start(make: StackFactory, label: str) -> tuple[Stack, float]:
    """A run's stack, and how long it took to come up. A NATS of its own: the two runs publish the
    same table ids and versions, and JetStream would drop the second run's as duplicates of the
    first's (its message ids are table:version)."""
    t0 = time.monotonic()
    return make(ALL_SERVICES, env=ENV, label=label, private_nats=True), time.monotonic() - t0


async def _run(started: tuple[Stack, float], label: str, kills: list[Kill]) -> Outcome:
    stack, up_s = started
    t0 = time.monotonic() - up_s
    gateway = stack.address("gateway")
    people = await _sign_in_and_register(gateway, issue_token("kupa-admin", "admin"))
    crowd = Crowd(gateway, TOURNAMENT_ID, people, give_up_s=GIVE_UP_S)
    t1 = time.monotonic()
    killer = asyncio.create_task(_kill_when_due(stack, crowd, kills)) if kills else None
    try:
        final = await crowd.run(RUN_S)
        if killer is not None:
            await asyncio.wait_for(killer, 30)  # every kill fell before the end (the last restart done)
    finally:
        if killer is not None and not killer.done():
            killer.cancel()
    play_s = time.monotonic() - t1
    assert final.status == lpb.TOURNAMENT_STATUS_FINISHED, final
    exited = stack.exited()
    assert not exited, f"services exited in run {label}: {exited}"
    assert stack.log_dir is not None
    table_log = (stack.log_dir / "table.log").read_text(errors="replace")
    assert '"insecure_deal_seed"' in table_log, "the table service did not warn that its deals are predictable"

    labels = {p.player_id: p.name for p in people}
    table_ids = sorted(tb.table_id for r in final.rounds_played for tb in r.tables)
    ledger = await _ledger(stack.env["OKEY_DATABASE_URL"], table_ids)
    deals, moves = await _table_logs(stack.env["OKEY_DATABASE_URL"], table_ids)
    out = Outcome(
        standings=_relabel(
            [
                (e.player_id, e.seed, e.place, e.match_points, e.score, e.firsts, e.out_in_round, e.withdrew, e.prize)
                for e in final.standings
            ],
            labels,
        ),
        rounds=_relabel(
            [
                (
                    r.round,
                    r.ended,
                    [(tb.index, tb.table_id, list(tb.player_ids), list(tb.places), list(tb.scores)) for tb in r.tables],
                )
                for r in final.rounds_played
            ],
            labels,
        ),
        prizes=list(final.prizes),
        pool=final.pool,
        chips=await _chips(gateway, people),
        ledger=_sorted_entries(_relabel(ledger, labels)),
        deals=deals,
        results=_relabel(await _match_results(gateway, people[0].token, table_ids), labels),
        moves=moves,
        kills=[f"{k.service} at {k.at} (down {k.lasted_s:.1f} s)" for k in kills],
        errors=dict(crowd.all_errors()),
    )
    out.seconds = time.monotonic() - t0
    if LOG:
        print(
            f"\nrun {label}: stack up in {up_s:.1f} s, tournament played in {play_s:.1f} s, "
            f"{crowd.turns} turns, {len(table_ids)} tables; kills: {out.kills or 'none'}; retried calls: {out.errors}"
        )
    _check_books(out, final, people)
    return out


def _check_books(out: Outcome, final: lpb.Tournament, people: list[Person]) -> None:
    """One run's books, to the chip, as the server and its ledger hold them: the pool is the
    fees; each person's fee and prize lines are in their GetChips; the prizes paid are the ones
    announced; fees in = prizes out + the house's share, the tournament's account left empty."""
    assert out.pool == FEE * SIZE, out.pool
    assert len(out.prizes) == len(PRIZE_PERCENT) and sum(out.prizes) <= out.pool, out.prizes
    by_place = {e[2]: e for e in out.standings}
    assert sorted(by_place) == list(range(1, SIZE + 1)), out.standings
    paid = [by_place[place][8] for place in range(1, len(out.prizes) + 1)]
    assert paid == out.prizes, (paid, out.prizes)  # each place is paid what the server announced
    assert all(e[8] == 0 for e in out.standings if e[2] > len(out.prizes)), out.standings

    assert [e[1] for e in sorted(out.standings)] == list(range(1, SIZE + 1)), out.standings  # seed: registration order

    fees_in = prizes_out = house_share = 0
    accounts: dict[str, int] = {}
    for txn in out.ledger:
        assert sum(a for _, a in txn["entries"]) == 0, txn  # every transaction balances
        for account, amount in txn["entries"]:
            accounts[account] = accounts.get(account, 0) + amount
            if account == "house":
                house_share += amount
            elif account.startswith("player:"):
                if amount < 0:
                    fees_in -= amount
                else:
                    prizes_out += amount
    assert fees_in == FEE * SIZE == out.pool, (fees_in, out.ledger)
    assert prizes_out == sum(out.prizes), (prizes_out, out.prizes, out.ledger)
    assert fees_in == prizes_out + house_share, (fees_in, prizes_out, house_share, out.ledger)
    left = {k: v for k, v in accounts.items() if not k.startswith("player:") and k != "house" and v != 0}
    assert not left, f"chips left in the tournament's accounts: {left}"
    assert house_share > 0, out.ledger  # the spec leaves 5% to the house
    out.house = house_share
    # Per person: the ledger's delta over the tournament is their prize less the fee, and their
    # own GetChips shows the fee and the prize.
    for e, chips in zip(sorted(out.standings), out.chips, strict=True):
        label, prize = e[0], e[8]
        assert accounts.get(f"player:{label}", 0) == prize - FEE, (label, accounts.get(f"player:{label}"), prize)
        amounts = [line[1] for line in chips["lines"]]
        assert -FEE in amounts, f"{label}: no fee line in GetChips: {chips}"
        assert prize == 0 or prize in amounts, f"{label}: no prize line of {prize} in GetChips: {chips}"
    assert len(people) == SIZE


def _diff(a: list[Any], b: list[Any]) -> str:
    """The lines of two runs' lists that differ, for a failure message."""
    import difflib

    lines = difflib.unified_diff(
        [json.dumps(x, ensure_ascii=False) for x in a], [json.dumps(x, ensure_ascii=False) for x in b], lineterm=""
    )
    return "\n".join(list(lines)[:40])


async def test_a_tournament_with_table_lobby_and_scoring_killed_ends_as_an_undisturbed_one(
    make_stack: StackFactory,
) -> None:
    for name in NAMES:
        check_display_name(name)  # the lobby's own check accepts each (a refused name fails here, not there)
    # Both runs at once, each on a stack of its own (a fresh database, NATS and services): they
    # share nothing but the machine, and each waits on its bots and timers most of the time.
    stacks = _start(make_stack, "undisturbed"), _start(make_stack, "faults")
    kills = _kills()
    a, b = await asyncio.gather(_run(stacks[0], "undisturbed", []), _run(stacks[1], "faults", kills))
    assert all(k.at for k in kills), [k.what for k in kills if not k.at]

    assert b.standings == a.standings
    assert b.rounds == a.rounds
    assert b.prizes == a.prizes and b.pool == a.pool
    assert b.deals == a.deals, "the same deals at the same tables"
    assert b.moves == a.moves, "the same moves at every table"
    assert b.results == a.results, _diff(a.results, b.results)  # scoring's record of every match
    assert b.chips == a.chips
    assert b.ledger == a.ledger, _diff(a.ledger, b.ledger)
    assert b.house == a.house
    # The field was knocked down 16 -> 8 -> 4 -> one final table, and somebody won it.
    assert [len(r[2]) for r in a.rounds] == [4, 2, 1], a.rounds
    assert a.standings[0][2] == 1 and a.standings[0][8] == a.prizes[0] > 0

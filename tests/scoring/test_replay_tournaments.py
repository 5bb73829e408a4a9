"""``okey replay --verify`` rebuilds each tournament (issue 45.3) from its inputs: the lobby runs an
8-player knockout (a fake table service; each tournament table's match is a real okeycore match
between bots, written to the table event log, its MatchEnded and a SeatLeft handed to the lobby
as its consumer would) and a cancelled one; --verify agrees with both, the prize posting
included. Then a stored ``finished`` event with its prizes swapped fails it, with a line naming
the tournament, the version and the field."""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import replace
from datetime import UTC, datetime

import asyncpg
from okeycore.events import Event, MatchEnded, SeatLeft
from okeycore.options import Game, TableOptions
from okeyplatform.auth import Identity, verify_token
from okeyplatform.contract import Envelope
from okeyplatform.eventstore import PostgresEventStore
from okeytools.replay_tournaments import TableInputs, rebuild
from scoring_helpers import append, simulated

from services.lobby import tournament_model as tm
from services.lobby.app import LobbyApp
from services.lobby.consumer import handle_event
from services.lobby.store import LobbyStore

ADMIN = Identity("cli:test", "admin")
SPEC = tm.Spec(
    name="Replay Kupası",
    options=TableOptions(game=Game.OKEY, match_points=5).to_dict(),
    size=8,
    min_players=0,
    starts_at=None,
    entry_fee=100,
    prize_percent=(50, 30, 20),
    format=tm.KNOCKOUT,
    swiss_rounds=0,
    advance_per_table=2,
    tie_breaks=(),
)
SWAP_FIRST_TWO_PRIZES = (
    "UPDATE lobby_tournament_events SET data = jsonb_set(jsonb_set(data, '{prizes,0,0}', "
    "data->'prizes'->1->0), '{prizes,1,0}', data->'prizes'->0->0) "
    "WHERE tournament_id = 'kupa' AND kind = 'finished' RETURNING version"
)


class NoTables:
    """The table service, standing in: the test writes each table's match to the log itself."""

    async def create_table(self, table_id: str, options: TableOptions, players: tuple[str, ...], **_: object) -> None:
        return None

    async def leave_seat(self, table_id: str, seat: int, player_id: str, **_: object) -> None:
        return None


async def okey(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "okeytools.cli",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(os.environ, OKEY_LOG_FORMAT="json"),
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    return proc.returncode or 0, out.decode(), err.decode()


async def _handed_over(app: LobbyApp, table_id: str, version: int, event: Event) -> None:
    env = Envelope(table_id, version, 0, datetime.now(UTC), event.type, -1, None, event)
    async with app.store.unit() as uow:
        await handle_event(app, env, uow)


async def _play_round(app: LobbyApp, events: PostgresEventStore, tid: str, leaver: str = "") -> tm.State:
    """Each table of the round plays a whole match into the table log; the lobby gets what its
    consumer would: a SeatLeft of ``leaver`` (if seated here, early in the match) and the MatchEnded."""
    state = (await app.tournament(ADMIN, tid)).state
    for n, t in enumerate(state.in_round(state.round)):
        match = simulated(t.table_id, 10 * state.round + n, t.seats, match_points=5)
        left = None
        if leaver in t.seats:
            left = SeatLeft(seat=t.seats.index(leaver), player=leaver)
            match = match[:10] + [left] + match[10:]
        last = await append(events, t.table_id, match)
        if left is not None:
            await _handed_over(app, t.table_id, 11, left)
        end = match[-1]
        assert isinstance(end, MatchEnded)
        await _handed_over(app, t.table_id, last, end)
    return (await app.tournament(ADMIN, tid)).state


async def test_replay_verify_rebuilds_tournaments_and_catches_a_tampered_prize(fresh_database_url: str) -> None:
    store = await LobbyStore.connect(fresh_database_url, min_size=1, max_size=4)
    events = await PostgresEventStore.connect(fresh_database_url, min_size=1, max_size=2)
    try:
        app = LobbyApp(store, NoTables())
        people = []
        for i in range(11):
            _, token, _, _ = await app.sign_in_guest(f"Oyuncu{i}", f"dev-{i}")
            people.append(verify_token(token))
        # a cancelled one: registered, one unregistered, refunds on cancel
        await app.create_tournament(ADMIN, replace(SPEC, name="İptal Kupası"), "iptal")
        for p in people[8:]:
            await app.register_tournament(p, "iptal", 100)
        await app.unregister_tournament(people[8], "iptal")
        await app.cancel_tournament(ADMIN, "iptal", "hava muhalefeti")
        # the knockout: 8 register, round 1 (one player leaves mid-match), the final
        await app.create_tournament(ADMIN, SPEC, "kupa")
        for p in people[:8]:
            view, _ = await app.register_tournament(p, "kupa", 100)
        assert view.state.status == tm.RUNNING
        leaver = view.state.in_round(1)[0].seats[2]
        state = await _play_round(app, events, "kupa", leaver)
        assert state.entries[leaver].withdrew and state.round == 2
        state = await _play_round(app, events, "kupa")
        assert state.status == tm.FINISHED
        async with store.unit() as uow:
            stored = await uow.tournaments.events("kupa")
    finally:
        await events.close()
        await store.close()
    assert [e["kind"] for e in stored].count("withdrew") == 1 and stored[-1]["kind"] == "finished"

    code, out, err = await okey("replay", "--verify", "--no-swap", "--database-url", fresh_database_url)
    assert code == 0, out + err
    assert "tournaments: 2 rebuilt, all agree" in out and "2 prize and refund postings match the ledger" in out, out

    # someone swaps the first two prizes in the stored log
    conn = await asyncpg.connect(fresh_database_url)
    try:
        version = await conn.fetchval(SWAP_FIRST_TWO_PRIZES)
    finally:
        await conn.close()
    code, out, err = await okey("replay", "--verify", "--no-swap", "--database-url", fresh_database_url)
    assert code == 1, out + err
    assert f"tournament kupa version {version}: finished.prizes: recorded" in out, out
    assert "tournaments: FAILED" in out and "the tournaments' inputs; nothing was swapped" in out
    assert "verification FAILED" in err

    # swapped back, the log agrees again; a prize posting edited in the ledger does not
    conn = await asyncpg.connect(fresh_database_url)
    try:
        await conn.execute(SWAP_FIRST_TWO_PRIZES)
        await conn.execute(
            "UPDATE lobby_entries SET amount = amount - 1 WHERE txn_key = 'tprize:kupa' AND account = 'house'"
        )
        await conn.execute(
            "UPDATE lobby_entries SET amount = amount + 1 WHERE txn_key = 'tprize:kupa' AND account = $1",
            f"player:{stored[-1]['prizes'][0][0]}",
        )
    finally:
        await conn.close()
    code, out, err = await okey("replay", "--verify", "--no-swap", "--database-url", fresh_database_url)
    assert code == 1, out + err
    assert f"tournament kupa version {version}: the ledger's tprize:kupa moves" in out, out


def test_a_result_the_table_log_does_not_have_is_a_problem() -> None:
    """The rebuild alone (no database): a table_finished whose table ended otherwise, and a
    withdrawal without its SeatLeft, each stop the rebuild with a line."""
    players = [f"p{i}" for i in range(8)]
    log = [tm.created(SPEC.validated(10_000), "cli:test")]
    state = tm.fold("k", log)
    for p in players:
        got = tm.register(state, p)
        log += got
        for ev in got:
            tm.apply(state, ev)
    table = state.in_round(1)[0]
    finished = tm.table_finished(state, table.table_id, (9, 5, 3, 1), (0,))
    inputs = TableInputs()
    inputs.feed(
        table.table_id, "MatchEnded", {"scores": [9, 5, 3, 1], "winners": [0], "pot": 0, "payout": 0, "remainder": 0}
    )
    rebuilt, problems, _ = rebuild("k", log + finished, inputs)
    assert not problems and rebuilt == log + finished
    inputs.ended[table.table_id] = replace(inputs.ended[table.table_id], winners=(1,), scores=(5, 9, 3, 1))
    _, problems, _ = rebuild("k", log + finished, inputs)
    assert problems == [
        f"tournament k version {len(log) + 1}: table_finished.places: recorded [1,2,3,4], the inputs give [2,1,3,4]"
    ]
    withdrew = tm.withdraw(state, table.seats[1], table.table_id)
    _, problems, _ = rebuild("k", log + withdrew, TableInputs())
    assert problems == [
        f"tournament k version {len(log) + 1}: {table.seats[1]} withdrew, but no table of theirs has a SeatLeft of them"
    ]


def test_a_scheduled_swiss_with_a_withdrawal_rebuilds_from_its_start_and_table_results() -> None:
    """A scheduled start is a command (taken as given); the withdrawal needs its SeatLeft; every
    round after that follows from the table results alone."""
    start = datetime(2030, 1, 1, 20, tzinfo=UTC)
    spec = replace(SPEC, starts_at=start, size=12, format=tm.SWISS, swiss_rounds=2, advance_per_table=0)
    log = [tm.created(spec.validated(10_000), "cli:test")]
    state = tm.fold("isvicre", log)
    inputs = TableInputs()

    def add(events: list[dict[str, object]]) -> None:
        log.extend(events)
        for ev in events:
            tm.apply(state, ev)

    for i in range(9):
        add(tm.register(state, f"p{i}"))
    add(tm.unregister(state, "p4"))
    add(tm.start(state))
    leaver = state.in_round(1)[0].seats[0]
    inputs.feed(state.in_round(1)[0].table_id, "SeatLeft", {"seat": 0, "player": leaver})
    add(tm.withdraw(state, leaver, state.in_round(1)[0].table_id))
    while state.status == tm.RUNNING:
        for n, t in enumerate(state.in_round(state.round)):
            scores = [10 * n + k for k in (4, 7, 1, 3)]
            inputs.feed(
                t.table_id, "MatchEnded", {"scores": scores, "winners": [1], "pot": 0, "payout": 0, "remainder": 0}
            )
            add(tm.table_finished(state, t.table_id, scores, [1]))
    assert log[-1]["kind"] == "finished" and [e["kind"] for e in log].count("round_started") == 2
    rebuilt, problems, notes = rebuild("isvicre", log, inputs)
    assert (problems, notes) == ([], []) and rebuilt == log
    # the same log with the house's share changed: the rebuild names it
    tampered = [*log[:-1], {**log[-1], "house": log[-1]["house"] + 10}]
    _, problems, _ = rebuild("isvicre", tampered, inputs)
    assert problems == [
        f"tournament isvicre version {len(log)}: finished.house: recorded {log[-1]['house'] + 10}, "
        f"the inputs give {log[-1]['house']}"
    ]

"""The tournament aggregate on its own (services/lobby/tournament_model.py), property-based: any
field of 8 to 64 players, either format, any table results and withdrawals, runs to its end, and
on the way every round seats each player still in exactly once at tables of two to four people,
folding the events from scratch gives the state the decisions built step by step, the standings
are every player once, and the prizes and the house's share add up to the pool."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from okeycore.options import Game, TableOptions

from services.lobby import tournament_model as tm


def _spec(fmt: str, size: int, rounds: int, advance: int, game: Game) -> tm.Spec:
    return tm.Spec(
        name="Özellik Kupası",
        options=TableOptions(game=game).to_dict(),
        size=size,
        min_players=0,
        starts_at=None,
        entry_fee=37,
        prize_percent=(45, 25, 15, 5),
        format=fmt,
        swiss_rounds=rounds,
        advance_per_table=advance,
        tie_breaks=(),
    ).validated(10**9)


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[tm.Spec, st.DataObject]:
    fmt = draw(st.sampled_from([tm.KNOCKOUT, tm.SWISS]))
    size = draw(st.integers(8, 64))
    game = draw(st.sampled_from([Game.OKEY, Game.OKEY101]))
    return _spec(fmt, size, draw(st.integers(2, 5)), draw(st.sampled_from([1, 2])), game), draw(st.data())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tournaments())
def test_any_tournament_runs_to_its_end_and_folds_back(case: tuple[tm.Spec, st.DataObject]) -> None:
    spec, data = case
    log: list[dict[str, Any]] = [tm.created(spec, "cli:test")]
    state = tm.fold("ozellik", log)

    def step(events: list[dict[str, Any]]) -> None:
        nonlocal state
        log.extend(events)
        for ev in events:
            tm.apply(state, ev)

    for n in range(spec.size):
        step(tm.register(state, f"p{n}"))
    assert state.status == tm.RUNNING and state.pool == 37 * spec.size
    steps, seen_round = 0, 0
    while state.status == tm.RUNNING:
        steps += 1
        assert steps < 2000
        tables = state.in_round(state.round)
        if state.round != seen_round:  # a round just began: each player still in sits once
            seen_round = state.round
            seated = [p for t in tables for p in t.seats if p]
            assert sorted(seated) == sorted(e.player_id for e in state.in_play())
            assert all(1 <= sum(1 for p in t.seats if p) <= tm.SEATS for t in tables)
            sizes = [sum(1 for p in t.seats if p) for t in tables]
            assert max(sizes) - min(sizes) <= 1
        table = data.draw(st.sampled_from([t for t in tables if not t.finished]))
        people = [p for p in table.seats if p]
        if data.draw(st.integers(0, 9)) == 0:  # now and then a player leaves mid-match
            step(tm.withdraw(state, data.draw(st.sampled_from(people)), table.table_id))
        scores = tuple(data.draw(st.lists(st.integers(-20, 40), min_size=4, max_size=4)))
        winners = (data.draw(st.integers(0, 3)),)
        step(tm.table_finished(state, table.table_id, scores, winners))
        assert tm.table_finished(state, table.table_id, scores, winners) == []  # a redelivery adds nothing
    assert state.status == tm.FINISHED
    refolded = tm.fold("ozellik", log)
    assert refolded.version == state.version == len(log)
    ranked = [e.player_id for e in tm.standings(refolded)]
    assert ranked == [e.player_id for e in tm.standings(state)]
    assert sorted(ranked) == sorted(f"p{n}" for n in range(spec.size))
    withdrew = sum(e.withdrew for e in state.entries.values())
    assert all(refolded.entries[p].withdrew for p in ranked[len(ranked) - withdrew :])
    paid = sum(e.prize for e in refolded.entries.values())
    assert paid + refolded.house == refolded.pool
    assert all(e.prize == 0 for e in refolded.entries.values() if e.withdrew)
    if spec.format == tm.KNOCKOUT:
        assert len(state.in_round(state.round)) == 1  # it ended at its final table
    else:
        assert state.round <= spec.swiss_rounds

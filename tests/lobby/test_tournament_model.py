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


def _repeats(state: tm.State, groups: list[list[str]]) -> int:
    """Pairs seated together who have met before (a pair met twice counts twice)."""
    total = 0
    for group in groups:
        for i, a in enumerate(group):
            total += sum(state.entries[a].met.count(b) for b in group[i + 1 :])
    return total


def _seated(events: list[dict[str, Any]]) -> list[list[str]]:
    return [[p for p in ev["seats"] if p] for ev in events if ev["kind"] == "table_assigned"]


def _met_state(spec: tm.Spec, tables: list[list[str]], players: int) -> tm.State:
    """A SWISS tournament after round 1, ``p0`` first in the standings to ``p<n-1>`` last, where
    the people of each of ``tables`` met."""
    from dataclasses import replace

    state = tm.State("rematch", replace(spec, format=tm.SWISS), "cli:test", status=tm.RUNNING, round=1)
    for n in range(players):
        state.entries[f"p{n}"] = tm.Entry(f"p{n}", seed=n + 1, match_points=players - n)
    for table in tables:
        for p in table:
            state.entries[p].met.extend(o for o in table if o != p)
    return state


def test_swiss_seats_fewer_people_together_again_by_the_spec_s_pairing() -> None:
    """Round 2 of eight players who met as p0-p3 and p4-p7: by standing alone (pairing 1, the rule
    of a spec stored before pairings had a number) both tables meet again whole (12 pairs); by
    pairing 2, swaps between the two tables leave 4, the fewest any seating can, and swap the
    players closest in the standings first."""
    spec = _spec(tm.SWISS, 8, 3, 1, Game.OKEY)
    assert spec.pairing == tm.PAIRING == 2
    stored = spec.to_dict()
    del stored["pairing"]  # a tournament created before the rule had a number
    old = tm.Spec.from_dict(stored)
    assert old.pairing == 1 and tm.Spec.from_dict(spec.to_dict()).pairing == 2
    met = [["p0", "p1", "p2", "p3"], ["p4", "p5", "p6", "p7"]]

    by_standing = _seated(tm._seat_round(_met_state(old, met, 8), 2))
    assert by_standing == met
    state = _met_state(spec, met, 8)
    assert _repeats(state, by_standing) == 12
    fewer = _seated(tm._seat_round(state, 2))
    assert fewer == [["p0", "p1", "p4", "p5"], ["p2", "p3", "p6", "p7"]]
    assert _repeats(state, fewer) == 4


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(5, 64), st.data())
def test_swiss_pairing_2_never_seats_more_rematches_than_the_standings_alone(players: int, data: st.DataObject) -> None:
    """Any history of who met whom: pairing 2 seats the same players at tables of the same sizes,
    each in standing order, with at most as many pairs meeting again as pairing 1 would seat."""
    from dataclasses import replace

    names = [f"p{n}" for n in range(players)]
    tables = data.draw(
        st.lists(st.lists(st.sampled_from(names), min_size=2, max_size=4, unique=True), max_size=3 * players)
    )
    spec = _spec(tm.SWISS, max(8, players), 3, 1, Game.OKEY)
    state = _met_state(spec, tables, players)
    old = _seated(tm._seat_round(replace(state, spec=replace(state.spec, pairing=1)), 2))
    new = _seated(tm._seat_round(state, 2))
    assert [len(t) for t in new] == [len(t) for t in old]
    assert sorted(p for t in new for p in t) == sorted(names)
    assert all(t == sorted(t, key=lambda p: int(p[1:])) for t in new)
    assert _repeats(state, new) <= _repeats(state, old)

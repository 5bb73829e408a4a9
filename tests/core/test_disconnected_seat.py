"""A disconnected seat [D-11], the same in both games: the edge tells the table when a seated
person has no connection and when they are back (``SetConnection``), both table events that every
seat sees; a turn that times out while its person is away puts the seat on autopilot at once, not
after three timeouts [C-TIME-2]; back, the person takes the seat back as in [D-5]. A connected
person keeps the three-timeout rule."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from okeycore.commands import Draw, ForceMove, LeaveSeat, SetConnection, TakeBack, TimeOut
from okeycore.errors import RuleViolation
from okeycore.events import (
    EVENT_TYPES,
    AutopilotEnded,
    Event,
    SeatDisconnected,
    SeatReconnected,
    TurnTimedOut,
    event_from_dict,
    event_to_dict,
    gives_turn,
    played_by_seat,
    to_move,
)
from okeycore.games import engine_for
from okeycore.kernel.state import Phase
from okeycore.options import Game, TableOptions
from okeycore.testing import Table, mixed_bots, table_tiles
from okeycore.tiles import TILE_COUNT

PLAYERS = ("ali", "ayse", "mehmet", "zeynep")
GAMES = [TableOptions(match_points=20), TableOptions(game=Game.OKEY101, seats=2, rounds=5)]
ORDER = tuple(range(TILE_COUNT))


def _table(options: TableOptions, players: tuple[str, ...] = PLAYERS) -> Table:
    t = Table(options, players=players[: options.seat_count])
    t.deal(ORDER)
    return t


def _viewers(t: Table) -> list[int | None]:
    return [*range(t.state.seat_count), None]


def _shown_disconnected(t: Table) -> set[tuple[int | None, int]]:
    """(viewer, seat) for every seat every viewer (a spectator too) sees marked disconnected."""
    return {(v, p.seat) for v in _viewers(t) for p in t.view(v).seats if p.disconnected}


def _time_out_turn(t: Table, now: int) -> TurnTimedOut:
    """The turn's time runs out and its grace too: the table plays its minimal move [C-TIME-1]."""
    timed_out, *_ = t.do(TimeOut(now_ms=now, grace_ms=0))
    assert isinstance(timed_out, TurnTimedOut)
    t.do(ForceMove(now_ms=now))
    return timed_out


@pytest.mark.parametrize("options", GAMES)
def test_D_11_a_lost_connection_and_the_return_are_table_events_every_seat_sees(options: TableOptions) -> None:
    t = _table(options)
    seat = (t.state.turn + 1) % t.state.seat_count
    before = t.state
    (gone,) = t.do(SetConnection(seat=seat, connected=False))
    assert gone == SeatDisconnected(seat)
    after = t.state
    assert after.seats[seat].disconnected and after.version == before.version + 1
    assert not any(s.disconnected for i, s in enumerate(after.seats) if i != seat)
    assert _shown_disconnected(t) == {(v, seat) for v in _viewers(t)}  # everyone, spectators too
    # Nothing else changes: the turn, its deadline, the scores, the racks, who a bot plays.
    assert (after.turn, after.deadline_ms, after.timed_out) == (before.turn, before.deadline_ms, before.timed_out)
    assert [(s.score, s.rack, s.autopilot) for s in after.seats] == [
        (s.score, s.rack, s.autopilot) for s in before.seats
    ]
    assert after.bot_seats == before.bot_seats == 0
    # Nobody has to move after it, and no seat played it; every viewer gets it whole.
    assert to_move(gone) == -1 and not gives_turn(gone) and not played_by_seat(gone)
    assert all(t.engine.public_event(gone, v) == gone for v in _viewers(t))

    (back,) = t.do(SetConnection(seat=seat, connected=True))
    assert back == SeatReconnected(seat)
    assert not t.state.seats[seat].disconnected and _shown_disconnected(t) == set()
    assert to_move(back) == -1 and not played_by_seat(back)
    # The edge's command, not a person's: no view lists it as a seat command.
    assert all("SetConnection" not in t.view(v).allowed for v in _viewers(t))


@pytest.mark.parametrize("options", GAMES)
def test_D_11_a_turn_that_times_out_while_its_person_is_away_puts_the_seat_on_autopilot_at_once(
    options: TableOptions,
) -> None:
    t = _table(options)
    seat = t.state.turn
    t.do(SetConnection(seat=seat, connected=False))
    assert t.state.bot_seats == 0  # away, but not a bot's seat until the turn times out
    timed_out, *_ = t.do(TimeOut(now_ms=10**9, grace_ms=0))
    assert timed_out == TurnTimedOut(seat, 1, True, 10**9)  # the first timeout [C-TIME-2]
    assert t.state.seats[seat].autopilot and t.state.bot_seats == 1 << seat
    t.do(ForceMove(now_ms=10**9))
    assert t.state.turn != seat and t.state.bot_seats == 1 << seat  # the bots play it from now on


@pytest.mark.parametrize("options", GAMES)
def test_D_11_a_seat_away_off_turn_goes_on_autopilot_on_its_own_first_timeout(options: TableOptions) -> None:
    t = _table(options)
    away = (t.state.turn + 1) % t.state.seat_count
    t.do(SetConnection(seat=away, connected=False))
    now = 10**9
    first = _time_out_turn(t, now)  # the connected seat on turn: its first timeout
    assert first.seat != away and not first.autopilot and first.consecutive == 1
    assert t.state.turn == away
    second = _time_out_turn(t, now + 10**6)
    assert second == TurnTimedOut(away, 1, True, now + 10**6)


@pytest.mark.parametrize("options", GAMES)
def test_D_11_a_connected_person_keeps_the_three_timeout_rule(options: TableOptions) -> None:
    """[C-TIME-2] at a table where another person is away: the connected seat's third timeout in
    a row puts it on autopilot, not its first."""
    t = _table(options)
    n = t.state.seat_count
    seat = t.state.turn
    away = (seat + 1) % n
    t.do(SetConnection(seat=away, connected=False))
    now = 10**9
    mine: list[TurnTimedOut] = []
    theirs: list[TurnTimedOut] = []
    for _ in range(3 * n):  # every seat times out three turns in a row
        now += 10**6
        got = _time_out_turn(t, now)
        (mine if got.seat == seat else theirs if got.seat == away else []).append(got)
    assert [(e.consecutive, e.autopilot) for e in mine] == [(1, False), (2, False), (3, True)]
    assert [e.autopilot for e in theirs] == [True, True, True]
    assert not t.state.seats[seat].disconnected and t.state.seats[seat].autopilot


@pytest.mark.parametrize("options", GAMES)
def test_D_11_back_the_person_takes_the_seat_back_at_a_later_turn_as_in_D_5(options: TableOptions) -> None:
    t = _table(options)
    n = t.state.seat_count
    seat = t.state.turn
    t.do(SetConnection(seat=seat, connected=False))
    _time_out_turn(t, 10**9)
    assert t.state.seats[seat].autopilot
    t.do(SetConnection(seat=seat, connected=True))
    # Back, still on autopilot: the bots play on until the person takes the seat back [D-5].
    assert t.state.seats[seat].autopilot and not t.state.seats[seat].disconnected
    assert t.state.bot_seats == 1 << seat
    while t.state.turn != seat:  # the other seats play their turns
        t.draw_and_discard()
    assert "TakeBack" in t.view(seat).allowed
    assert t.do(TakeBack(seat=seat)) == [AutopilotEnded(seat)]
    assert not t.state.seats[seat].autopilot and t.state.bot_seats == 0
    assert t.engine.can(t.state, Draw(seat=seat)) is None  # the person plays their own turn
    # Connected again, the person's next timeout is the first of three [C-TIME-2].
    again = _time_out_turn(t, 2 * 10**9)
    assert again == TurnTimedOut(seat, 1, False, 2 * 10**9)
    assert t.state.turn == (seat + 1) % n


@pytest.mark.parametrize("options", GAMES)
def test_D_11_a_bot_seat_a_left_seat_or_no_seat_has_no_connection_to_lose(options: TableOptions) -> None:
    t = _table(options, ("ali", "", "mehmet", "zeynep"))
    for connected in (False, True):
        assert t.code(SetConnection(seat=1, connected=connected)) == "BOT_SEAT"
        assert t.code(SetConnection(seat=7, connected=connected)) == "INVALID_SEAT"
        assert t.code(SetConnection(seat=True, connected=connected)) == "INVALID_SEAT"  # True is no seat 1
    assert t.code(SetConnection(seat=0, connected=None)) == "UNKNOWN_COMMAND"  # type: ignore[arg-type]
    assert t.code(SetConnection(seat=0, connected=1)) == "UNKNOWN_COMMAND"  # 1 is not True
    t.do(SetConnection(seat=0, connected=False))
    t.do(LeaveSeat(seat=0))  # away, then gone for good [D-10]: nobody sits there to be away
    assert t.state.seats[0].left and not t.state.seats[0].disconnected
    assert not t.view(None).seats[0].disconnected and t.view(None).seats[0].left
    for connected in (False, True):
        assert t.code(SetConnection(seat=0, connected=connected)) == "SEAT_LEFT"


@pytest.mark.parametrize("options", GAMES)
def test_D_11_the_edge_saying_it_twice_appends_nothing(options: TableOptions) -> None:
    t = _table(options)
    seat = t.state.turn
    before = t.state
    assert t.apply(SetConnection(seat=seat, connected=True)) == []  # connected already
    assert t.engine.can(t.state, SetConnection(seat=seat, connected=True)) is None  # accepted, idempotent
    assert t.state is before
    t.do(SetConnection(seat=seat, connected=False))
    away = t.state
    assert t.apply(SetConnection(seat=seat, connected=False)) == []
    assert t.state is away and t.state.version == before.version + 1
    assert [type(e) for e in t.events if isinstance(e, SeatDisconnected | SeatReconnected)] == [SeatDisconnected]


@pytest.mark.parametrize("options", GAMES)
def test_D_11_a_lost_connection_carries_over_to_the_next_hand_and_is_told_in_the_break(
    options: TableOptions,
) -> None:
    t = _table(options)
    n = t.state.seat_count
    first = (t.state.turn + 1) % n
    t.do(SetConnection(seat=first, connected=False))
    t.run_down_deck()  # the deck runs out: the hand ends, the match goes on
    assert t.state.phase is Phase.HAND_OVER and t.state.in_break
    starter = t.next_starter()
    other = next(i for i in range(n) if i not in (first, starter)) if n > 2 else None
    # Between hands the edge is heard too: the next hand's starter loses their connection.
    got = t.apply(SetConnection(seat=starter, connected=False))
    assert got == ([] if starter == first else [SeatDisconnected(starter)])
    if other is not None:
        t.do(SetConnection(seat=other, connected=False))
        assert t.do(SetConnection(seat=other, connected=True)) == [SeatReconnected(other)]
    t.deal(ORDER)
    assert t.state.hand == 2 and t.state.turn == starter
    assert {i for i, s in enumerate(t.state.seats) if s.disconnected} == {first, starter}
    assert {seat for _, seat in _shown_disconnected(t)} == {first, starter}
    timed_out = _time_out_turn(t, 10**9)
    assert timed_out.seat == starter and timed_out.autopilot  # at once, in the new hand too


def test_D_11_nobody_is_told_connected_or_not_at_a_match_that_is_over() -> None:
    t = Table(TableOptions(game=Game.OKEY101, seats=2, rounds=3), players=PLAYERS[:2])
    while t.state.phase is not Phase.MATCH_OVER:
        t.deal(ORDER)
        t.run_down_deck()
    assert t.code(SetConnection(seat=0, connected=False)) == "MATCH_OVER"


def test_D_11_the_events_are_registered_in_the_proto_shape() -> None:
    for cls in (SeatDisconnected, SeatReconnected):
        assert EVENT_TYPES[cls.type] is cls
        assert event_to_dict(cls(2)) == {"type": cls.type, "seat": 2}  # okey.v1: seat int
        assert event_from_dict({"type": cls.type, "seat": 2}) == cls(2)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from([Game.OKEY, Game.OKEY101]),
    seats=st.sampled_from([2, 4]),
    seed=st.integers(0, 2**32 - 1),
    rate=st.sampled_from([0.02, 0.1, 0.3]),
)
def test_D_11_random_games_with_lost_connections_and_timeouts_keep_106_tiles_and_replay_exactly(
    game: Game, seats: int, seed: int, rate: float
) -> None:
    """Bots play; at random a person's connection comes and goes, turns time out and people take
    their seats back. Every timeout of a seat whose person is away puts it on autopilot; a
    connected person's only on the third in a row [C-TIME-2]; folding the events again (through
    the stored form too) rebuilds the same state."""
    options = TableOptions(match_points=3) if game is Game.OKEY else TableOptions(game=game, seats=seats, rounds=3)
    n = options.seat_count
    t = Table(options, players=tuple(f"p-{i}" for i in range(n)))
    engine = engine_for(game)
    bots = mixed_bots(game, n, seed)
    rng = random.Random(seed)
    order = list(range(TILE_COUNT))
    incremental = t.state
    timeouts = 0
    for _ in range(3):  # hands
        if t.state.phase is Phase.MATCH_OVER:
            break
        rng.shuffle(order)
        for e in t.deal(tuple(order)):
            incremental = engine.evolve(incremental, e)
        for _ in range(3_000):
            if t.state.phase is not Phase.PLAYING:
                break
            before = t.state
            roll = rng.random()
            got: list[Event] | RuleViolation
            if roll < rate:
                seat = rng.randrange(n)
                got = t.attempt(SetConnection(seat=seat, connected=rng.random() < 0.5))
                assert isinstance(got, list)  # a person's seat: accepted, maybe with no event
                assert (after := t.state).turn == before.turn and after.deadline_ms == before.deadline_ms
            elif roll < 2 * rate and not before.timed_out:
                seat = before.turn
                got = t.attempt(TimeOut(now_ms=before.deadline_ms, grace_ms=0))
                assert isinstance(got, list)
                timed_out = got[0]
                assert isinstance(timed_out, TurnTimedOut) and timed_out.seat == seat
                was = before.seats[seat]
                assert timed_out.autopilot is (was.autopilot or was.disconnected or was.timeouts + 1 >= 3)
                timeouts += 1
            elif roll < 2.5 * rate:
                got = t.attempt(TakeBack(seat=rng.randrange(n)))  # accepted, or NOT_ON_AUTOPILOT
                assert not isinstance(got, RuleViolation) or got.code == "NOT_ON_AUTOPILOT"
            elif before.timed_out:
                got = t.apply(ForceMove(now_ms=before.deadline_ms))
            else:
                seat = before.turn
                got = t.apply(bots[seat].act(t.view(seat)))  # an autopilot seat's bot plays on [D-4]
            if not isinstance(got, RuleViolation):
                for e in got:
                    incremental = engine.evolve(incremental, e)
            if t.state.phase is Phase.PLAYING:
                assert sorted(table_tiles(t.state)) == list(range(TILE_COUNT))
            views = [t.view(v) for v in (*range(n), None)]
            assert all([p.disconnected for p in v.seats] == [s.disconnected for s in t.state.seats] for v in views)
        assert t.state.phase is not Phase.PLAYING, "a hand did not end"
    assert incremental == t.state
    decoded = [event_from_dict(json.loads(json.dumps(event_to_dict(e)))) for e in t.events]
    assert engine.fold(None, decoded) == t.state
    assert t.state.version == len(t.events)
    assert timeouts == sum(isinstance(e, TurnTimedOut) for e in t.events)

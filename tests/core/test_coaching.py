"""Coaching notes for a finished hand (``okeycore.coaching``, issue 46).

A note judges a move only by what that seat could see then, unless it is marked as hindsight
(RULES.md [D-12]). The missed finishes are checked against a brute force written here from the
rules text (every meld of the rack, ``test_properties.candidate_melds``, tried as an exact cover;
seven pairs by ``test_properties.brute_pairs``) on every turn of random legal games."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from okeycore.classic import ClassicState, Stage, effective_table
from okeycore.classic.bots import GreedyBot, RandomBot
from okeycore.coaching import (
    GAVE_FINISH,
    MISSED_FINISH,
    MISSED_OPENING,
    OKEY_HELD,
    PENALISED_DISCARD,
    Coaching,
    Note,
    coach,
    tile_name,
)
from okeycore.commands import Command, Discard, Draw, Finish, StartHand
from okeycore.events import (
    DrawSource,
    Event,
    HandEnded,
    HandEnded101,
    HandStarted,
    HandVoided,
    MeldsOpened,
    PenaltyApplied,
    TableCreated,
    TileDiscarded,
    TileDrawn,
)
from okeycore.games import engine_for
from okeycore.okey101 import Okey101State, Opening, pair_opening, run_opening
from okeycore.okey101 import Stage as Stage101
from okeycore.okey101.bots import GreedyBot101
from okeycore.okey101.strategy import RandomBot101
from okeycore.options import DeckEnd, DiscardHistory, Game, PairsDeclaration, TableOptions
from okeycore.racks import is_real_okey
from okeycore.simulate import Simulator
from okeycore.testing import build_order, mixed_bots, tid
from okeycore.tiles import face_of_id
from test_properties import brute_pairs, candidate_melds

Log = list[tuple[int, Event]]

# ================================================================== the brute-force oracle


def _counts(tiles: Sequence[int], indicator: int) -> tuple[Counter[int], int]:
    table = effective_table(indicator)
    counts: Counter[int] = Counter(table[t] for t in tiles if table[t] >= 0)
    return counts, sum(1 for t in tiles if table[t] < 0)


class Covers:
    """Runs and groups laying every tile of a subset of ``tiles`` [M-RUN-1] [M-RUN-2] [M-GRP-1]
    [T-OKEY-2]: every meld the tiles can form (``candidate_melds``, from the rules text), tried as
    an exact cover, the lowest face first. ``best(subset)``: the most points of such a cover, -1
    when there is none. A tile in no meld at all is never laid: ``isolated`` lists those."""

    def __init__(self, tiles: Sequence[int], indicator: int, wrap: bool) -> None:
        self.indicator = indicator
        self.table = effective_table(indicator)
        counts, j = _counts(tiles, indicator)
        self.cands = candidate_melds(counts, j, wrap)
        inside = {f for reals, _, _ in self.cands for f in reals}
        self.isolated = [t for t in tiles if self.table[t] >= 0 and self.table[t] not in inside]
        self.memo: dict[tuple[tuple[tuple[int, int], ...], int], int] = {}

    def best(self, subset: Sequence[int]) -> int:
        if any(t in self.isolated for t in subset):
            return -1
        counts, j = _counts(subset, self.indicator)
        return self._rec(counts, j)

    def _rec(self, left: Counter[int], jj: int) -> int:
        present = tuple(sorted((f, m) for f, m in left.items() if m > 0))
        if not present:
            return 0 if jj == 0 else -1
        key = (present, jj)
        if key in self.memo:
            return self.memo[key]
        low = present[0][0]
        best = -1
        for reals, k, value in self.cands:
            if low not in reals or k > jj or any(left[f] < 1 for f in reals):
                continue
            left.subtract(reals)
            got = self._rec(left, jj - k)
            left.update(reals)
            if got >= 0:
                best = max(best, got + value)
        self.memo[key] = best
        return best


def _by_face(rack: Sequence[int], indicator: int, finishes: Any) -> list[int]:
    """The tiles ``t`` of ``rack`` for which ``finishes(rack - t)``, asked once per face."""
    table = effective_table(indicator)
    answer: dict[int, bool] = {}
    out = []
    for t in rack:
        if table[t] not in answer:
            answer[table[t]] = bool(finishes([u for u in rack if u != t]))
        if answer[table[t]]:
            out.append(t)
    return out


def classic_finishes(rack: Sequence[int], indicator: int, only_pairs: bool) -> list[int]:
    """The tiles of a 15-tile rack whose placing leaves 14 that finish [C-FIN-1] [C-FIN-2]
    ([C-PAIR-2]: a binding declarer only by seven pairs)."""
    covers = Covers(rack, indicator, True)
    by_melds = not only_pairs and len(covers.isolated) <= 1

    def finishes(rest: list[int]) -> bool:
        return brute_pairs(*_counts(rest, indicator)) >= 7 or (by_melds and covers.best(rest) >= 0)

    return _by_face(rack, indicator, finishes)


def finishes_101(rack: Sequence[int], s: Okey101State, seat: int) -> list[int]:
    """The tiles of a 101 rack whose discard would finish with every other tile laid in new melds
    this seat may lay: runs and groups worth its threshold until it opened [O-OPEN-1] [O-OPEN-3],
    pairs (enough of them until it opened) [O-OPEN-2] [O-ADD-2]."""
    opening = s.seats[seat].opening
    covers = Covers(rack, s.indicator, s.options.wrap)
    by_melds = opening is not Opening.PAIRS and len(covers.isolated) <= 1

    def finishes(rest: list[int]) -> bool:
        if opening is not Opening.RUNS and len(rest) % 2 == 0:
            pairs = brute_pairs(*_counts(rest, s.indicator))
            if 2 * pairs == len(rest) and (opening is Opening.PAIRS or pairs >= s.pair_threshold):
                return True
        if by_melds:
            value = covers.best(rest)
            return value >= 0 and (opening is Opening.RUNS or value >= s.run_threshold)
        return False

    return _by_face(rack, s.indicator, finishes)


# ================================================================== games


class Sloppy:
    """A bot that, half the time, discards a random tile instead of finishing (and so plays
    the missed finishes the coach must see)."""

    def __init__(self, inner: Any, seed: int) -> None:
        self.inner = inner
        self.rng = random.Random(seed)

    def off_turn(self, view: Any) -> Command | None:
        off = getattr(self.inner, "off_turn", None)
        return off(view) if off else None

    def act(self, view: Any) -> Command:
        cmd: Command = self.inner.act(view)
        if isinstance(cmd, Finish) and view.stage is Stage.DISCARD and self.rng.random() < 0.5:
            return Discard(seat=cmd.seat, tile=self.rng.choice(view.rack))
        return cmd


class Closed:
    """A 101 bot that never opens: it draws and discards a tile no penalty follows if it can."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, view: Any) -> Command:
        seat = view.seat
        if view.stage is Stage101.DRAW:
            return Draw(seat=seat)
        tiles = [t for t in view.rack if not is_real_okey(t, view.indicator)] or list(view.rack)
        return Discard(seat=seat, tile=self.rng.choice(tiles))


def play(options: TableOptions, strategies: Sequence[Any], seed: int, hands: int) -> tuple[Log, list[int]]:
    """A simulated match of up to ``hands`` hands: its log with versions (1, 2, ...) and the
    numbers of the hands that ended."""
    sim = Simulator(options, strategies, seed)
    while sim.state.phase.value != "MATCH_OVER" and sim.record.hands < hands:
        sim.play_hand()
    log = list(enumerate(sim.events, start=1))
    ended = sorted({e.hand for _, e in log if isinstance(e, HandEnded | HandEnded101)})
    return log, ended


def hand_states(log: Log, hand: int) -> list[tuple[int, Event, Any, Any]]:
    """(version, event, state before, state after) of every event of the last deal of ``hand``."""
    created = log[0][1]
    assert isinstance(created, TableCreated)
    engine = engine_for(created.options.game)
    start = max(i for i, (_, e) in enumerate(log) if isinstance(e, HandStarted) and e.hand == hand)
    state = engine.fold(None, [e for _, e in log[:start]])
    out = []
    for version, e in log[start:]:
        after = engine.evolve(state, e)
        out.append((version, e, state, after))
        state = after
        if isinstance(e, HandEnded | HandEnded101 | HandVoided):
            break
    return out


def notes_of(c: Coaching, kind: str) -> dict[tuple[int, int], Note]:
    return {(n.version, n.seat): n for n in c.notes if n.kind == kind}


CLASSIC_OPTIONS = [
    TableOptions(),
    TableOptions(penalties=True, deck_end=DeckEnd.LAST_CHANCE),
    TableOptions(pairs_declaration=PairsDeclaration.BINDING, discard_history=DiscardHistory.PAIRS_ONLY),
]


def _sloppy_classic(seed: int) -> list[Any]:
    return [Sloppy((GreedyBot if (seed >> i) & 1 else RandomBot)(seed + i), seed + 10 + i) for i in range(4)]


# ================================================================== missed finishes against the brute force


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), which=st.integers(0, len(CLASSIC_OPTIONS) - 1))
def test_C_FIN_1_a_missed_finish_is_noted_exactly_when_the_brute_force_finds_one(seed: int, which: int) -> None:
    """Classic, every turn of random games [C-FIN-1] [C-FIN-2] [C-FIN-3]: after the draw (or with
    the starter's 15 tiles) the seat is noted at its discard iff some placing of its 15 tiles
    finishes, by the brute force (a binding declarer only by pairs [C-PAIR-2]; a seat that turned
    to okey chose to wait [C-DON-1]); a deck draw is noted iff the visible side tile would have
    finished and the turn did not finish. The deck tile is never judged: the seat could not see it
    [D-12]. Each noted tile finishes."""
    log, ended = play(CLASSIC_OPTIONS[which], _sloppy_classic(seed), seed, 2)
    for hand in ended:
        got = coach(log, hand, budget=10**9)
        assert not got.truncated
        expected: dict[tuple[int, int], set[int]] = {}
        steps = hand_states(log, hand)
        finisher = -1
        end = steps[-1][1]
        if isinstance(end, HandEnded):
            finisher = end.finisher
        for k, (version, e, s, _) in enumerate(steps):
            assert isinstance(s, ClassicState)
            if isinstance(e, TileDiscarded):
                seat = s.seats[e.seat]
                only = s.options.pairs_declaration is PairsDeclaration.BINDING and seat.pairs
                fin = classic_finishes(seat.rack, s.indicator, only)
                if fin and not seat.turned:
                    expected[(version, e.seat)] = set(fin)
            elif isinstance(e, TileDrawn) and e.source is DrawSource.DECK and s.stage is Stage.DRAW:
                left = s.seats[s.left_of(e.seat)].pile
                ends_turn = next(x for x in steps[k + 1 :] if isinstance(x[1], TileDiscarded | HandEnded))
                finished = isinstance(ends_turn[1], HandEnded) and finisher == e.seat
                only = s.options.pairs_declaration is PairsDeclaration.BINDING and s.seats[e.seat].pairs
                if left and not finished and classic_finishes((*s.seats[e.seat].rack, left[-1]), s.indicator, only):
                    expected[(version, e.seat)] = {left[-1]}
            elif isinstance(e, HandEnded) and finisher < 0 and not isinstance(steps[k - 1][1], TileDiscarded):
                # The deck is empty and the seat on turn passed [C-DECK-3].
                seat = s.seats[s.turn]
                only = s.options.pairs_declaration is PairsDeclaration.BINDING and seat.pairs
                left = s.seats[s.left_of(s.turn)].pile
                if s.stage is Stage.LAST_CHANCE and left and not seat.turned:
                    if classic_finishes((*seat.rack, left[-1]), s.indicator, only):
                        expected[(version, s.turn)] = {left[-1]}
                elif s.stage is Stage.LAST_CHANCE_TAKEN and not seat.turned:
                    fin = classic_finishes(seat.rack, s.indicator, only)
                    if fin:
                        expected[(version, s.turn)] = set(fin)
        noted = notes_of(got, MISSED_FINISH)
        assert set(noted) == set(expected), (seed, hand)
        table = effective_table(steps[0][1].indicator)  # type: ignore[attr-defined]
        for key, note in noted.items():
            faces = {table[t] for t in expected[key]}
            assert note.tiles and {table[t] for t in note.tiles} == faces and not note.hindsight


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), seats=st.sampled_from([2, 4]), wrap=st.booleans())
def test_O_OPEN_1_a_101_missed_finish_is_noted_exactly_when_the_brute_force_finds_one(
    seed: int, seats: int, wrap: bool
) -> None:
    """101, every discard of random games [O-TURN-1]: noted iff, by the brute force, some other
    discard would have let the seat lay every other tile now in new melds it may lay [O-OPEN-1]
    [O-OPEN-2] [O-OPEN-3] [O-ADD-2]. The tiles noted are exactly those discards (one per face)."""
    opts = TableOptions(game=Game.OKEY101, seats=seats, wrap=wrap, rounds=3)
    log, ended = play(opts, mixed_bots(Game.OKEY101, seats, seed), seed, 2)
    for hand in ended:
        got = coach(log, hand, budget=10**9)
        assert not got.truncated
        expected: dict[tuple[int, int], set[int]] = {}
        for version, e, s, _ in hand_states(log, hand):
            if isinstance(e, TileDiscarded) and len(s.seats[e.seat].rack) > 1:
                fin = finishes_101(s.seats[e.seat].rack, s, e.seat)
                if fin:
                    expected[(version, e.seat)] = set(fin)
        noted = notes_of(got, MISSED_FINISH)
        assert set(noted) == set(expected), (seed, hand)
        table = effective_table(hand_states(log, hand)[0][1].indicator)  # type: ignore[attr-defined]
        for key, note in noted.items():
            assert {table[t] for t in note.tiles} == {table[t] for t in expected[key]}


def test_C_FIN_1_a_planted_missed_finish_names_the_finishing_tile() -> None:
    """The starter holds 15 tiles that finish by placing R9 [C-FIN-1] [C-FIN-3], and discards R4:
    the note is at that discard, names R9, and needs no hindsight."""
    opts = TableOptions()
    sim = Simulator(opts, [GreedyBot(i) for i in range(4)], seed=1)
    rack = "R1 R2 R3 R4 Y5 Y6 Y7 Y8 B9 B10 B11 K2 K3 K4 R9"
    sim.apply(StartHand(order=build_order({0: rack}, "K13", starter=0), now_ms=0))
    r4, r9 = sim.tile(0, "R4"), sim.tile(0, "R9")
    (discard,) = sim.apply(Discard(seat=0, tile=r4))
    version = len(sim.events)
    assert isinstance(discard, TileDiscarded)
    sim.play_turns()
    got = coach(list(enumerate(sim.events, start=1)), 1)
    (note,) = [n for n in got.notes if n.kind == MISSED_FINISH and n.seat == 0 and n.version == version]
    assert note.tiles == (r9,) and not note.hindsight
    assert note.text == "Bu taşla bitirebilirdin: Kırmızı 9. (You could have finished by discarding Red 9.)"


def test_O_OPEN_1_a_planted_101_missed_finish_and_missed_opening() -> None:
    """The starter's 22 tiles lay 21 in runs and groups worth 186 [O-OPEN-1] with Y5 to discard:
    it could open and finish at once. It discards R1 without opening: a missed finish naming Y5,
    and a missed opening worth 186, both at that discard, neither hindsight."""
    opts = TableOptions(game=Game.OKEY101, seats=4, rounds=3)
    sim = Simulator(opts, [GreedyBot101(i) for i in range(4)], seed=4)
    rack = "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 Y11 Y12 Y13 K11 K12 K13 B11 B12 B13 Y5"
    sim.apply(StartHand(order=build_order({0: rack}, "K5", game=Game.OKEY101), now_ms=0))
    y5, r1 = sim.tile(0, "Y5"), sim.tile(0, "R1")
    sim.apply(Discard(seat=0, tile=r1))
    at = len(sim.events) - (1 if isinstance(sim.events[-1], PenaltyApplied) else 0)
    sim.play_turns()
    got = coach(list(enumerate(sim.events, start=1)), 1)
    missed = notes_of(got, MISSED_FINISH)[(at, 0)]
    assert missed.tiles == (y5,) and not missed.hindsight
    opening = notes_of(got, MISSED_OPENING)[(at, 0)]
    assert opening.points == 186 and y5 not in opening.tiles and not opening.hindsight
    assert opening.text.startswith("Elini açabilirdin: 186 sayı")


SEAT1 = "Y1 Y2 Y3 B4 B5 B6 R7 R8 R9 R10 R11 K10 K11 K5"  # K9 makes 14 in melds, K5 to place


def test_C_TURN_2_a_side_tile_that_finished_is_noted_at_the_deck_draw() -> None:
    """Seat 1 holds 14 tiles that finish with K9 [C-FIN-1]; seat 0 discards K9, visible on top of
    its pile [C-TURN-3]; seat 1 draws from the deck instead [C-TURN-2]: noted at the draw, K9."""
    sim = Simulator(TableOptions(), [GreedyBot(i) for i in range(4)], seed=2)
    order = build_order({0: "K9", 1: SEAT1}, "B12", starter=0, deck="R13", avoid="K9 K12 B13")
    sim.apply(StartHand(order=order, now_ms=0))
    k9 = sim.tile(0, "K9")
    sim.apply(Discard(seat=0, tile=k9))
    (drawn,) = sim.apply(Draw(seat=1))
    at = len(sim.events)
    assert isinstance(drawn, TileDrawn) and drawn.source is DrawSource.DECK
    sim.apply(Discard(seat=1, tile=drawn.tile))
    sim.play_turns()
    got = coach(list(enumerate(sim.events, start=1)), 1)
    mine = [n for n in got.notes if n.seat == 1 and n.kind == MISSED_FINISH]
    assert [(n.version, n.tiles, n.hindsight) for n in mine][:1] == [(at, (k9,), False)]
    assert "Siyah 9" in mine[0].text and "Black 9" in mine[0].text


def test_C_FIN_1_a_deck_tile_that_would_have_finished_is_never_noted() -> None:
    """Seat 1 needs K9 and sees no K9; it draws from the deck, whose top was K9 all along: a
    draw is never judged by the deck tile, which the seat could not see [C-DEAL-3]. Seat 1
    finishes with it; no missed finish is noted for it."""
    sim = Simulator(TableOptions(), [GreedyBot(i) for i in range(4)], seed=3)
    order = build_order({1: SEAT1}, "B12", starter=0, deck="K9", avoid="K9 K12 B13")
    sim.apply(StartHand(order=order, now_ms=0))
    sim.apply(Discard(seat=0, tile=sim.state.seats[0].rack[0]))
    (drawn,) = sim.apply(Draw(seat=1))
    assert isinstance(drawn, TileDrawn) and str(face_of_id(drawn.tile)) == "K9"
    sim.play_turns()
    log = list(enumerate(sim.events, start=1))
    end = log[-1][1] if isinstance(log[-1][1], HandEnded) else log[-2][1]
    assert isinstance(end, HandEnded) and end.finisher == 1
    assert not [n for n in coach(log, 1).notes if n.seat == 1 and n.kind == MISSED_FINISH]


# ================================================================== the other notes, on real games


def _find(game: Game, seats: int, want: Any, bots: Any, opts: TableOptions | None = None) -> tuple[Log, int]:
    """The first simulated hand (seeds 0, 1, ...) whose log ``want`` accepts."""
    opts = opts or (TableOptions() if game is Game.OKEY else TableOptions(game=game, seats=seats, rounds=3))
    for seed in range(200):
        log, ended = play(opts, bots(seed), seed, 3)
        for hand in ended:
            if want(hand_states(log, hand)):
                return log, hand
    raise AssertionError("no such hand in 200 seeds")


def test_C_FIN_1_a_discard_the_next_seat_finished_with_is_a_hindsight_note() -> None:
    """The next seat took the discard [C-TURN-2] and finished with it in that turn [C-FIN-1]:
    GAVE_FINISH for the discarder, at its discard, hindsight (it needs the taker's rack)."""

    def gave(steps: list[tuple[int, Event, Any, Any]]) -> bool:
        end = steps[-1][1]
        return isinstance(end, HandEnded) and end.finisher >= 0 and _taken_and_finished(steps) is not None

    log, hand = _find(Game.OKEY, 4, gave, lambda seed: mixed_bots(Game.OKEY, 4, seed))
    steps = hand_states(log, hand)
    taken = _taken_and_finished(steps)
    assert taken is not None
    giver, at, tile = taken
    got = notes_of(coach(log, hand), GAVE_FINISH)
    assert list(got) == [(at, giver)]
    assert got[(at, giver)].tiles == (tile,) and got[(at, giver)].hindsight


def _taken_and_finished(steps: list[tuple[int, Event, Any, Any]]) -> tuple[int, int, int] | None:
    """(discarder, its discard's version, tile) when the finisher's last draw took that discard."""
    end = steps[-1][1]
    assert isinstance(end, HandEnded | HandEnded101 | HandVoided)
    finisher = getattr(end, "finisher", -1)
    draws = [(k, e) for k, (_, e, _, _) in enumerate(steps) if isinstance(e, TileDrawn) and e.seat == finisher]
    if finisher < 0 or not draws:
        return None
    k, last = draws[-1]
    if last.source is not DrawSource.DISCARD:
        return None
    if any(isinstance(e, TileDiscarded) and e.seat == finisher and e.next_seat >= 0 for _, e, _, _ in steps[k:]):
        return None
    for version, e, _, _ in reversed(steps[:k]):
        if isinstance(e, TileDiscarded):
            return (e.seat, version, e.tile) if e.tile == last.tile else None
    return None


@pytest.mark.parametrize("game", [Game.OKEY, Game.OKEY101])
def test_T_OKEY_1_an_okey_held_three_turns_without_finishing_is_noted_at_the_hands_end(game: Game) -> None:
    """Each seat but the finisher that ended 3 or more of its turns with a real okey in its rack
    [T-OKEY-1] is noted at the hand's end with that count, naming the okeys it still held."""
    seats = 4

    def held(steps: list[tuple[int, Event, Any, Any]]) -> bool:
        return bool(_okey_turns(steps)[0])

    log, hand = _find(game, seats, held, lambda seed: mixed_bots(game, seats, seed))
    steps = hand_states(log, hand)
    want, end_version = _okey_turns(steps)
    got = notes_of(coach(log, hand), OKEY_HELD)
    assert {seat: n.turns for (_, seat), n in got.items()} == want
    racks = steps[-1][1].racks  # type: ignore[attr-defined]
    indicator = steps[0][1].indicator  # type: ignore[attr-defined]
    for (version, seat), note in got.items():
        assert version == end_version and not note.hindsight
        assert note.tiles == tuple(t for t in racks[seat] if is_real_okey(t, indicator))


def _okey_turns(steps: list[tuple[int, Event, Any, Any]]) -> tuple[dict[int, int], int]:
    indicator = steps[0][1].indicator  # type: ignore[attr-defined]
    count: Counter[int] = Counter()
    for _, e, s, _ in steps:
        if isinstance(e, TileDiscarded):
            kept = [t for t in s.seats[e.seat].rack if t != e.tile]
            count[e.seat] += any(is_real_okey(t, indicator) for t in kept)
    end_version, end = steps[-1][0], steps[-1][1]
    finisher = getattr(end, "finisher", -1)
    return {seat: n for seat, n in count.items() if n >= 3 and seat != finisher}, end_version


@pytest.mark.parametrize("game", [Game.OKEY101, Game.OKEY])
def test_O_PEN_1_every_penalised_discard_is_noted_at_its_penalty(game: Game) -> None:
    """Every discard the engine penalised [O-PEN-1] [O-PEN-2] (classic, a real okey discarded at
    a penalties table [C-SC-6]) is noted at the penalty's event, with the tile discarded and the
    points; random bots discard penalised tiles often."""

    def penalised(steps: list[tuple[int, Event, Any, Any]]) -> bool:
        return any(isinstance(e, PenaltyApplied) for _, e, _, _ in steps)

    if game is Game.OKEY101:
        log, hand = _find(game, 4, penalised, lambda seed: [RandomBot101(seed + i) for i in range(4)])
    else:
        opts = TableOptions(penalties=True)
        log, hand = _find(game, 4, penalised, lambda seed: [RandomBot(seed + i) for i in range(4)], opts)
    steps = hand_states(log, hand)
    want = {}
    for k, (version, e, _, _) in enumerate(steps):
        if isinstance(e, PenaltyApplied):
            prev = steps[k - 1][1]
            assert isinstance(prev, TileDiscarded) and prev.seat == e.seat
            want[(version, e.seat)] = ((prev.tile,), e.points)
    got = notes_of(coach(log, hand), PENALISED_DISCARD)
    assert {key: (n.tiles, n.points) for key, n in got.items()} == want
    assert all(not n.hindsight for n in got.values())


def test_O_OPEN_1_a_missed_opening_is_noted_when_it_first_becomes_possible() -> None:
    """Seats that never open [O-OPEN-1] [O-OPEN-2]: at each of their turns the rack could open
    (runs worth the threshold, or enough pairs [O-OPEN-3]) or not; a note comes at the first turn
    it could, and again only after a turn it could not, with the best opening's points."""

    def could(steps: list[tuple[int, Event, Any, Any]]) -> bool:
        return bool(_expected_openings(steps))

    log, hand = _find(Game.OKEY101, 4, could, lambda seed: [Closed(seed + i) for i in range(4)])
    steps = hand_states(log, hand)
    want = _expected_openings(steps)
    got = notes_of(coach(log, hand), MISSED_OPENING)
    assert {key: n.points for key, n in got.items()} == want
    for (version, seat), note in got.items():
        s = next(s for v, _, s, _ in steps if v == version)
        assert set(note.tiles) <= set(s.seats[seat].rack) and not note.hindsight


def _expected_openings(steps: list[tuple[int, Event, Any, Any]]) -> dict[tuple[int, int], int]:
    out: dict[tuple[int, int], int] = {}
    last: dict[int, bool] = {}
    for version, e, s, _ in steps:
        if not isinstance(e, TileDiscarded) or len(s.seats[e.seat].rack) == 1:
            continue
        if s.seats[e.seat].opening is not Opening.NONE:
            continue
        rack = s.seats[e.seat].rack
        runs = run_opening(rack, s.indicator, s.options.wrap, s.run_threshold)
        pairs = pair_opening(rack, s.indicator, s.pair_threshold)
        possible = runs.enough or pairs.enough
        if possible and not last.get(e.seat, False):
            out[(version, e.seat)] = runs.total if runs.enough else pairs.total
        last[e.seat] = possible
    return out


def test_O_OPEN_1_a_seat_that_opens_is_not_noted_for_that_turn() -> None:
    """Greedy 101 bots open as soon as they can: a turn in which the seat opened is never a
    missed opening."""
    opts = TableOptions(game=Game.OKEY101, seats=4, rounds=3)
    log, ended = play(opts, [GreedyBot101(i) for i in range(4)], 7, 2)
    for hand in ended:
        got = notes_of(coach(log, hand), MISSED_OPENING)
        opened_turns = set()
        seat_turn: dict[int, int] = {}
        for version, e, _s, _ in hand_states(log, hand):
            if isinstance(e, MeldsOpened) and e.first:
                seat_turn[e.seat] = 1
            if isinstance(e, TileDiscarded) and seat_turn.pop(e.seat, 0):
                opened_turns.add((version, e.seat))
        assert not set(got) & opened_turns


# ================================================================== what a note may name


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), game=st.sampled_from([Game.OKEY, Game.OKEY101]))
def test_D_12_a_note_names_only_tiles_its_seat_could_see_unless_it_is_hindsight(seed: int, game: Game) -> None:
    """[D-12]: every note not marked hindsight names only tiles its seat could see at the note's
    event: its own rack, the discard piles, the table melds, the indicator. The deck and other
    racks stay private while the hand runs [C-DEAL-3]."""
    if game is Game.OKEY:
        log, ended = play(TableOptions(), _sloppy_classic(seed), seed, 2)
    else:
        opts = TableOptions(game=Game.OKEY101, seats=4, rounds=3)
        log, ended = play(opts, mixed_bots(Game.OKEY101, 4, seed), seed, 2)
    for hand in ended:
        got = coach(log, hand)
        before = {v: s for v, _, s, _ in hand_states(log, hand)}
        for note in got.notes:
            if note.hindsight:
                continue
            s = before[note.version]
            visible = set(s.seats[note.seat].rack) | {t for seat in s.seats for t in seat.pile} | {s.indicator}
            visible |= {t for m in getattr(s, "melds", ()) for t in m.tiles}
            assert set(note.tiles) <= visible, note


# ================================================================== the API and its bounds


def _some_hand() -> tuple[Log, int]:
    log, ended = play(TableOptions(), _sloppy_classic(11), 11, 1)
    return log, ended[0]


def test_the_coach_raises_for_a_hand_that_has_not_ended() -> None:
    log, hand = _some_hand()
    with pytest.raises(ValueError):
        coach(log, hand + 5)
    cut = next(i for i, (_, e) in enumerate(log) if isinstance(e, HandEnded))
    with pytest.raises(ValueError):
        coach(log[:cut], hand)
    with pytest.raises(ValueError):
        coach(log[1:], hand)


def test_the_limit_and_the_budget_truncate() -> None:
    """At ``limit`` notes, or when the solver budget is spent, the notes stop and say so."""
    for seed in range(50):
        log, ended = play(TableOptions(), _sloppy_classic(seed), seed, 2)
        for hand in ended:
            full = coach(log, hand)
            if len(full.notes) >= 2:
                assert not full.truncated
                cut = coach(log, hand, limit=1)
                assert cut.truncated and len(cut.notes) == 1
                starved = coach(log, hand, budget=0)
                assert starved.truncated
                assert not [n for n in starved.notes if n.kind == MISSED_FINISH]
                return
    raise AssertionError("no hand with two notes")


def test_the_tile_names_are_turkish_and_english() -> None:
    indicator = tid("B5")  # okey B6
    assert tile_name(tid("R7"), indicator) == ("Kırmızı 7", "Red 7")
    assert tile_name(tid("K13"), indicator) == ("Siyah 13", "Black 13")
    assert tile_name(tid("B6"), indicator) == ("Mavi 6 (okey)", "Blue 6 (okey)")
    assert tile_name(104, indicator) == ("Sahte okey", "Fake okey")


def test_coaching_a_typical_hand_takes_well_under_a_second() -> None:
    log, ended = play(TableOptions(), _sloppy_classic(5), 5, 3)
    opts = TableOptions(game=Game.OKEY101, seats=4, rounds=3)
    log101, ended101 = play(opts, mixed_bots(Game.OKEY101, 4, 5), 5, 3)
    t = time.perf_counter()
    for hand in ended:
        coach(log, hand)
    for hand in ended101:
        coach(log101, hand)
    per_hand = (time.perf_counter() - t) / (len(ended) + len(ended101))
    assert per_hand < 0.5


@pytest.mark.parametrize("game", [Game.OKEY, Game.OKEY101])
def test_coaching_hand_after_hand_from_the_last_state_gives_the_same_notes(game: Game) -> None:
    """``before`` (an earlier call's ``after``) spares folding the log again: the notes are the same."""
    log, hands = play(TableOptions(game=game), mixed_bots(game, 4, 5), 5, 4)
    before = None
    for hand in sorted(set(hands)):
        fresh = coach(log, hand)
        chained = coach(log, hand, before=before)
        assert chained.notes == fresh.notes and chained.truncated == fresh.truncated
        assert chained.after is not None and chained.after[1] <= len(log)
        before = chained.after

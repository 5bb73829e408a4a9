"""Property tests: the solver against a slow brute force, and random legal games (bots,
random table options) checked at every step for conservation, replay, privacy and scoring."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter
from itertools import combinations, product
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from okeycore import decide, fold
from okeycore import melds as M
from okeycore.classic import (
    ClassicState,
    Phase,
    Stage,
    check_finish,
    effective_table,
    finishing_tiles,
    public_event,
    rack_packed,
    view,
)
from okeycore.classic.bots import GreedyBot, RandomBot, Strategy
from okeycore.commands import (
    DeclarePairs,
    Discard,
    Draw,
    Finish,
    ForceMove,
    Pass,
    SetConnection,
    ShowIndicator,
    StartHand,
    TakeBack,
    TakeDiscard,
    TimeOut,
    TurnToOkey,
)
from okeycore.errors import RuleViolation
from okeycore.events import (
    DrawSource,
    Event,
    HandEnded,
    HandEndReason,
    HandStarted,
    IndicatorShown,
    MatchEnded,
    PairsDeclared,
    PenaltyApplied,
    TileDiscarded,
    TileDrawn,
    event_from_dict,
    event_to_dict,
)
from okeycore.options import (
    DeckEnd,
    DiscardHistory,
    IndicatorScoring,
    IndicatorTiming,
    PairsDeclaration,
    TableOptions,
)
from okeycore.simulate import Simulator
from okeycore.tiles import Colour, face_from_index, face_of_id
from oracles import meld_kind, tile_ids

# ================================================================== a slow brute force for melds

Counts = Counter[int]  # effective face index -> copies (0..2)


def _position_face(colour: int, p: int) -> int:
    """Face index of run position ``p`` (1..14, 14 being the 1 after 13)."""
    return colour * 13 + (p if p <= 13 else 1) - 1


def candidate_melds(counts: Counts, j: int, wrap: bool) -> list[tuple[tuple[int, ...], int, int]]:
    """Every meld formable from the tiles, as (real faces used, okeys used, value): groups of
    3-4 colours of one number, runs s..e with 13-1 only at the end [M-RUN-2]; each place is
    either a real tile of that face or an okey [T-OKEY-2]."""
    out: set[tuple[tuple[int, ...], int, int]] = set()
    for n in range(1, 14):
        for size in (3, 4):
            for cols in combinations(range(4), size):
                for use in product((True, False), repeat=size):
                    reals = tuple(sorted(c * 13 + n - 1 for c, u in zip(cols, use, strict=True) if u))
                    if size - len(reals) <= j and all(counts[f] for f in reals):
                        out.add((reals, size - len(reals), n * size))
    for c in range(4):
        for s in range(1, 15):
            for e in range(s + 2, 15):
                if e == 14 and (not wrap or s < 2):
                    continue
                places = [_position_face(c, p) for p in range(s, e + 1)]
                value = sum(p if p <= 13 else 1 for p in range(s, e + 1))
                choices = [(True, False) if counts[f] else (False,) for f in places]
                for use in product(*choices):
                    k = use.count(False)
                    reals = tuple(sorted(f for f, u in zip(places, use, strict=True) if u))
                    if k <= j and len(set(reals)) == len(reals):
                        out.add((reals, k, value))
    return sorted(m for m in out if m[0])


def all_packings(counts: Counts, j: int, wrap: bool) -> set[tuple[int, int]]:
    """(tiles used, points) of every set of disjoint melds, the empty set included."""
    cands = candidate_melds(counts, j, wrap)
    results: set[tuple[int, int]] = set()
    left = Counter(counts)

    def rec(i: int, jj: int, used: int, pts: int) -> None:
        results.add((used, pts))
        for k in range(i, len(cands)):
            reals, kj, val = cands[k]
            need = Counter(reals)
            if kj > jj or any(left[f] < m for f, m in need.items()):
                continue
            left.subtract(need)
            rec(k, jj - kj, used + len(reals) + kj, pts + val)
            left.update(need)

    rec(0, j, 0, 0)
    return results


def brute_pairs(counts: Counts, j: int) -> int:
    """Most disjoint pairs, by trying every way to use each tile [M-PAIR-1]."""
    faces = sorted(f for f, m in counts.items() for _ in range(m))

    def rec(i: int, jj: int, paired: frozenset[int]) -> int:
        while i < len(faces) and i in paired:
            i += 1
        if i == len(faces):
            return jj // 2
        best = rec(i + 1, jj, paired)  # leave it single
        if jj:
            best = max(best, 1 + rec(i + 1, jj - 1, paired))
        for k in range(i + 1, len(faces)):
            if k not in paired and faces[k] == faces[i]:
                best = max(best, 1 + rec(i + 1, jj, paired | {k}))
                break
        return best

    return rec(0, j, frozenset())


def explicit_meld_ok(meld: M.Meld, wrap: bool) -> bool:
    """Every tile's stood-for face given: a group or a run laid in order."""
    fs = meld.stands_for
    if meld.kind is M.MeldKind.GROUP:
        return 3 <= len(fs) <= 4 and len({f.number for f in fs}) == 1 and len({f.colour for f in fs}) == len(fs)
    if meld.kind is not M.MeldKind.RUN or len(fs) < 3 or len({f.colour for f in fs}) != 1:
        return False
    pos = [f.number for f in fs]
    if wrap and pos[-1] == 1 and len(pos) > 1 and pos[-2] == 13:
        pos[-1] = 14
    consecutive = pos == list(range(pos[0], pos[0] + len(pos)))
    return consecutive and pos[-1] <= 14 and not (pos[0] == 1 and pos[-1] == 14)  # never passes 1


@st.composite
def near_meld_racks(draw: st.DrawFn) -> tuple[Counts, int, bool]:
    """3-9 tiles (0-2 of them okeys) built from run and group fragments, twins and singles,
    so that many racks are coverable; runs may run past 13 into 1 to exercise wrap."""
    wrap = draw(st.booleans())
    j = draw(st.integers(0, 2))
    n_real = draw(st.integers(3 - min(j, 2), 9 - j))
    counts: Counts = Counter()
    while sum(counts.values()) < n_real:
        kind = draw(st.sampled_from(["run", "run", "group", "group", "twin", "single"]))
        c = draw(st.integers(0, 3))
        n = draw(st.integers(1, 13))
        if kind == "run":
            n = draw(st.sampled_from([n, 11, 12, 13]))  # often around 13-1
            faces = [c * 13 + (n - 1 + i) % 13 for i in range(draw(st.integers(2, 5)))]
        elif kind == "group":
            cols = draw(st.lists(st.integers(0, 3), min_size=2, max_size=4, unique=True))
            faces = [cc * 13 + n - 1 for cc in cols]
        else:
            faces = [c * 13 + n - 1] * (2 if kind == "twin" else 1)
        for f in faces:
            if sum(counts.values()) < n_real and counts[f] < 2:
                counts[f] += 1
    return counts, j, wrap


def _pack(counts: Counts) -> int:
    return sum(m << (2 * f) for f, m in counts.items())


def _check_arrangement(melds: list[M.Meld], counts: Counts, j: int, wrap: bool) -> None:
    used: Counts = Counter()
    jokers = 0
    for meld in melds:
        assert explicit_meld_ok(meld, wrap), meld
        for f, joker in zip(meld.stands_for, meld.jokers, strict=True):
            if joker:
                jokers += 1
            else:
                used[f.index] += 1
    assert jokers <= j
    assert all(used[f] <= counts[f] for f in used)


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_meld_racks())
def test_solver_agrees_with_a_brute_force_on_small_racks(rack: tuple[Counts, int, bool]) -> None:
    counts, j, wrap = rack
    x = _pack(counts)
    total = sum(counts.values()) + j
    packings = all_packings(counts, j, wrap)
    most = max(u for u, _ in packings)
    for skips in range(3):
        assert M.can_cover(x, j, skips, wrap) is (most >= total - skips), (dict(counts), j, wrap, skips)
    for must_leave in (False, True):
        allowed = [(u, p) for u, p in packings if not must_leave or u < total]
        want_cover = max(u for u, _ in allowed) if allowed else M.NEG
        got, melds = M.best_cover(x, j, wrap, must_leave=must_leave)
        assert got == want_cover, (dict(counts), j, wrap, must_leave)
        if got > M.NEG:
            _check_arrangement(melds, counts, j, wrap)
            assert sum(len(m) for m in melds) == got
        want_points = max(p for _, p in allowed) if allowed else M.NEG
        got, melds = M.best_points(x, j, wrap, must_leave=must_leave)
        assert got == want_points, (dict(counts), j, wrap, must_leave)
        if got > M.NEG:
            _check_arrangement(melds, counts, j, wrap)
            assert sum(m.value for m in melds) == got
    assert M.count_pairs(x, j) == brute_pairs(counts, j)
    assert len(M.pair_melds(x, j)) == M.count_pairs(x, j)


@st.composite
def racks15(draw: st.DrawFn) -> tuple[tuple[int, ...], int]:
    """A 15-tile rack (distinct tile ids) and an indicator: fourteen tiles dealt as runs and
    groups, or as pairs, plus one, then up to two tiles swapped for random ones (okeys often)."""
    indicator = draw(st.integers(0, 103))
    rng = random.Random(draw(st.integers(0, 2**32)))
    okeys = [t for t in range(104) if effective_table(indicator)[t] < 0]
    free = [t for t in range(106) if t != indicator]

    def take(faces: list[int]) -> list[int] | None:
        ids = []
        for f in faces:
            copies = [t for t in (2 * f, 2 * f + 1) if t in free and t not in ids]
            if not copies:
                return None
            ids.append(rng.choice(copies))
        return ids

    chosen: list[int] = []
    pairs = rng.random() < 0.3
    for _ in range(200):
        if len(chosen) >= 14:
            break
        c, n = rng.randrange(4), rng.randrange(13)
        if pairs:
            faces = [c * 13 + n] * 2
        elif rng.random() < 0.5:
            faces = [c * 13 + (n + i) % 13 for i in range(rng.randint(3, 5))]
        else:
            faces = [c2 * 13 + n for c2 in rng.sample(range(4), rng.randint(3, 4))]
        ids = take(faces)
        if ids is not None and len(chosen) + len(ids) <= 14:
            chosen += ids
            free = [t for t in free if t not in ids]
    while len(chosen) < 15:
        t = rng.choice(free)
        chosen.append(t)
        free.remove(t)
    for _ in range(rng.randint(0, 2)):
        i = rng.randrange(15)
        spare = [t for t in okeys if t in free] if rng.random() < 0.5 else free
        if spare:
            t = rng.choice(spare)
            free.remove(t)
            free.append(chosen[i])
            chosen[i] = t
    rng.shuffle(chosen)
    return tuple(chosen), indicator


@settings(max_examples=300, deadline=None)
@given(racks15())
def test_finishing_tiles_are_exactly_the_tiles_whose_placing_finishes(rack: tuple[tuple[int, ...], int]) -> None:
    tiles, indicator = rack
    table = effective_table(indicator)
    fin = finishing_tiles(tiles, indicator)
    faces = {table[t] for t in fin}
    assert len(faces) == len(fin)  # one id per effective face
    for t in tiles:
        rest = [x for x in tiles if x != t]
        check = check_finish(rest, indicator)
        assert (table[t] in faces) is (check is not None)
        if check is not None:
            assert sorted(x for m in check.arrangement for x in m) == sorted(rest)
            kinds = {meld_kind(m, indicator) for m in check.arrangement}
            assert None not in kinds and (kinds == {"PAIR"}) is check.pairs


# ================================================================== random legal games


@st.composite
def table_options(draw: st.DrawFn) -> TableOptions:
    pairing = draw(st.sampled_from(["none", "partners", "duel"]))
    history = draw(st.sampled_from(list(DiscardHistory)))
    return TableOptions(
        match_points=draw(st.integers(1, 8)),
        indicator=draw(st.booleans()),
        indicator_scoring=draw(st.sampled_from(list(IndicatorScoring))),
        colored=draw(st.booleans()),
        partners=pairing == "partners",
        duel=pairing == "duel",
        penalties=draw(st.booleans()),
        indicator_timing=draw(st.sampled_from(list(IndicatorTiming))),  # [C-IND-1] both sources
        discard_history=history,
        # PAIRS_ONLY history needs a binding declaration [C-PAIR-3].
        pairs_declaration=PairsDeclaration.BINDING
        if history is DiscardHistory.PAIRS_ONLY
        else draw(st.sampled_from(list(PairsDeclaration))),
        deck_end=draw(st.sampled_from(list(DeckEnd))),
        turn_seconds=draw(st.integers(5, 120)),
        stake=draw(st.integers(0, 9)),
    )


def bots(kinds: list[bool], seed: int) -> list[Strategy]:
    return [GreedyBot(seed + i) if greedy else RandomBot(seed + i) for i, greedy in enumerate(kinds)]


class GameChecker:
    """Called after every event of a simulated match; checks the invariants of RULES.md."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.prev: ClassicState | None = None
        self.started = 0
        self.ended = 0
        self.after_declaration: dict[int, set[int]] = {}  # seat -> tiles it discarded since declaring pairs

    def __call__(self, state: ClassicState, event: Event) -> None:
        before = self.prev
        self.prev = state
        self.events.append(event)
        # The codec round-trips every event exactly.
        assert event_from_dict(json.loads(json.dumps(event_to_dict(event)))) == event
        if isinstance(event, HandStarted):
            self.started += 1
            self.after_declaration = {}
        if isinstance(event, PairsDeclared):
            self.after_declaration[event.seat] = set()
        if isinstance(event, TileDiscarded) and event.seat in self.after_declaration:
            self.after_declaration[event.seat].add(event.tile)
        if isinstance(event, HandEnded):
            self.ended += 1
        if state.phase is Phase.NEW:
            return
        self.conservation(state, event)
        if state.phase is Phase.PLAYING:
            self.privacy(state, self.after_declaration)
        assert before is not None
        for viewer in (0, 1, 2, 3, None):
            self.public(before, state, event, viewer)
        if isinstance(event, HandEnded) and event.reason is HandEndReason.FINISHED:
            self.finish(state, event)
        if isinstance(event, MatchEnded):
            self.match_end(state, event)

    @staticmethod
    def conservation(state: ClassicState, event: Event) -> None:
        """106 tiles: racks + piles + deck + indicator, at every step [C-DEAL-1]."""
        tiles = [t for s in state.seats for t in s.rack + s.pile] + list(state.deck) + [state.indicator]
        assert sorted(tiles) == list(range(106)), type(event).__name__
        turn_starts = isinstance(event, HandStarted | TileDrawn) or (
            isinstance(event, TileDiscarded) and event.next_seat >= 0
        )
        if turn_starts:
            holding = 15 if state.stage in (Stage.DISCARD, Stage.LAST_CHANCE_TAKEN) else 14
            assert [len(s.rack) for s in state.seats] == [holding if i == state.turn else 14 for i in range(4)]
        if isinstance(event, HandEnded):
            assert event.racks == tuple(s.rack for s in state.seats) and event.deck == state.deck
            if event.reason is HandEndReason.FINISHED:
                # The final tile stays in the finisher's rack until the hand is over.
                assert event.final_tile in state.seats[event.finisher].rack
                assert len(state.seats[event.finisher].rack) == 15

    @staticmethod
    def privacy(state: ClassicState, after_declaration: dict[int, set[int]]) -> None:
        """A seat never sees another rack or the deck order while the hand runs (section 7);
        older discards only per ``discard_history``, a binding declarer's only from the
        declaration on [C-PAIR-2]."""
        opts = state.options
        for viewer in (0, 1, 2, 3, None):
            v = view(state, viewer)
            secret = set(state.deck) | {t for i, s in enumerate(state.seats) if i != viewer for t in s.rack}
            now = dataclasses.replace(v, last_hand=None, result=None)  # earlier hands are public
            assert not secret & set(tile_ids(now))
            assert all(p.rack is None for p in v.seats)
            assert v.rack == (state.seats[viewer].rack if viewer is not None else ())
            assert v.deck_count == len(state.deck)
            for i, p in enumerate(v.seats):
                pile = state.seats[i].pile
                sees = opts.discard_history is DiscardHistory.ALL or (
                    viewer is not None and (state.seats[viewer].pairs or state.seats[viewer].turned)
                )
                binding = opts.pairs_declaration is PairsDeclaration.BINDING
                opened = after_declaration.get(i, set()) if binding else set()
                shown = tuple(t for k, t in enumerate(pile) if k == len(pile) - 1 or t in opened)
                assert p.pile == (pile if sees else shown) and p.pile_size == len(pile)

    @staticmethod
    def public(before: ClassicState, after: ClassicState, event: Event, viewer: int | None) -> None:
        """What ``public_event`` sends a viewer names no tile of another rack or of the deck."""
        pub = public_event(event, viewer)
        if isinstance(event, HandEnded | MatchEnded):
            assert pub == event
            return
        ids = set(tile_ids(pub))
        mine = set(after.seats[viewer].rack) if viewer is not None else set()
        allowed = mine | {t for s in after.seats for t in s.pile} | {after.indicator}
        if isinstance(event, IndicatorShown | TileDiscarded):
            allowed.add(event.tile)  # shown or thrown on purpose
        if isinstance(event, TileDrawn) and event.source is DrawSource.DISCARD:
            allowed.add(event.tile)  # it was the visible top of a pile
        assert ids <= allowed, (type(event).__name__, viewer, ids - allowed)
        if isinstance(event, TileDrawn) and event.source is DrawSource.DECK:
            assert (pub == event) is (event.seat == viewer)

    @staticmethod
    def finish(state: ClassicState, end: HandEnded) -> None:
        """Flags, multiplier and deltas of a finish follow [C-SC-2] [C-SC-3] [C-SC-5]."""
        opts = state.options
        table = effective_table(state.indicator)
        assert end.okey_finish is (table[end.final_tile] < 0)
        f = face_of_id(end.final_tile)
        colour = state.okey.colour if f.is_fake else f.colour
        assert end.colored_finish is (opts.colored and colour in (Colour.Y, Colour.B))
        kinds = {meld_kind(m, state.indicator) for m in end.arrangement}
        assert None not in kinds and (kinds == {"PAIR"}) is end.pairs_finish
        rest = sorted(t for t in state.seats[end.finisher].rack if t != end.final_tile)
        assert sorted(t for m in end.arrangement for t in m) == rest
        assert end.multiplier == 2 ** (end.okey_finish + end.pairs_finish + end.colored_finish)
        safe = {end.finisher, (end.finisher + 2) % 4} if opts.partners else {end.finisher}
        assert end.deltas == tuple(0 if s in safe else -2 * end.multiplier for s in range(4))

    def match_end(self, state: ClassicState, result: MatchEnded) -> None:
        """Winners, pot and payout follow [C-SC-7] [C-SC-8] [C-SC-9] [D-3] [D-8]."""
        opts = state.options
        scores = tuple(s.score for s in state.seats)
        assert result.scores == scores and min(scores) <= 0
        if opts.partners:
            teams = (scores[0] + scores[2], scores[1] + scores[3])
            best_team = max(teams)
            winners = tuple(s for s in range(4) if teams[s % 2] == best_team)
            paying = 4
        else:
            eligible = (0, 2) if opts.duel else (0, 1, 2, 3)
            winners = tuple(s for s in eligible if scores[s] == max(scores[e] for e in eligible))
            paying = len(eligible)
        assert result.winners == winners
        assert result.pot == opts.stake * paying
        assert (result.payout, result.remainder) == divmod(result.pot, len(winners))
        # Scores are the match points plus every change the events recorded.
        total = [opts.match_points] * 4
        for e in self.events:
            if isinstance(e, IndicatorShown | HandEnded):
                total = [a + d for a, d in zip(total, e.deltas, strict=True)]
            elif isinstance(e, PenaltyApplied):
                total[e.seat] -= e.points
        assert tuple(total) == scores


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    options=table_options(),
    greedy=st.lists(st.booleans(), min_size=4, max_size=4),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_games_conserve_tiles_replay_exactly_and_leak_nothing(
    options: TableOptions, greedy: list[bool], seed: int
) -> None:
    checker = GameChecker()
    sim = Simulator(options, bots(greedy, seed), seed, on_event=checker)
    checker.prev = sim.record.state
    record = sim.play_match(max_hands=4)
    # Every hand ends: the simulator raises otherwise, and each start has its end.
    assert checker.started == checker.ended == record.hands >= 1
    assert record.state.phase in (Phase.HAND_OVER, Phase.MATCH_OVER)
    assert (record.state.phase is Phase.MATCH_OVER) is (record.state.result is not None)
    # Folding all events rebuilds the same state, also after a trip through the JSON codec.
    events = record.events
    assert fold(None, events) == record.state
    decoded = [event_from_dict(json.loads(json.dumps(event_to_dict(e)))) for e in events]
    assert fold(None, decoded) == record.state
    assert record.state.version == len(events)


# ================================================================== decide never raises

ODD_VALUES = st.one_of(
    st.integers(-3, 110),
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False, min_value=-2, max_value=110),
    st.text(max_size=3),
    st.just([1]),
)
ARRANGEMENTS = st.one_of(
    st.none(),
    st.integers(-1, 5),
    st.text(max_size=4),
    st.lists(st.lists(st.integers(-1, 110), max_size=4), max_size=8).map(lambda x: tuple(tuple(m) for m in x)),
    st.lists(st.lists(ODD_VALUES, max_size=3), max_size=3),
)


@st.composite
def odd_commands(draw: st.DrawFn) -> Any:
    kind = draw(
        st.sampled_from(
            [
                Draw,
                TakeDiscard,
                Discard,
                Finish,
                ShowIndicator,
                DeclarePairs,
                TurnToOkey,
                Pass,
                TakeBack,
                SetConnection,
                "sys",
            ]
        )
    )
    seat = draw(st.one_of(st.integers(0, 3), ODD_VALUES))
    if kind is SetConnection:  # the edge's: a person lost their connection, or is back [D-11]
        return SetConnection(seat=seat, connected=draw(st.one_of(st.booleans(), ODD_VALUES)))
    if kind == "sys":
        return draw(
            st.sampled_from(
                [
                    TimeOut(now_ms=draw(st.integers(0, 10**6)), grace_ms=draw(st.integers(-5, 5000))),
                    ForceMove(now_ms=draw(st.integers(0, 10**6))),
                    StartHand(order=tuple(draw(st.permutations(list(range(106))))), first_starter=seat),
                ]
            )
        )
    if kind in (Discard, Finish):
        tile = draw(st.one_of(st.integers(0, 105), ODD_VALUES))
        if kind is Finish:
            return Finish(seat=seat, tile=tile, arrangement=draw(ARRANGEMENTS))
        return Discard(seat=seat, tile=tile)
    return kind(seat=seat)


@settings(max_examples=500, deadline=None)
@given(seed=st.integers(0, 10**6), moves=st.integers(0, 60), commands=st.lists(odd_commands(), max_size=6))
def test_decide_never_raises_and_its_events_always_apply(seed: int, moves: int, commands: list[Any]) -> None:
    opts = TableOptions(penalties=True, deck_end=DeckEnd.LAST_CHANCE)
    # Half the tables seat people (who may lose their connection [D-11], and take a break between
    # hands) beside a bot; the others bots only, dealt again at once between hands.
    people = ("p-0", "p-1", "", "p-3") if seed % 2 else ()
    sim = Simulator(opts, bots([True] * 4, seed), seed, players=people)
    if moves > 55:
        sim.play_hand()  # fuzz a table between hands too
    state = sim.record.state
    if state.phase is Phase.NEW:
        order = list(range(106))
        random.Random(seed).shuffle(order)
        state = fold(state, decide(state, StartHand(order=tuple(order))))  # type: ignore[arg-type]
        for _ in range(moves):
            if state.phase is not Phase.PLAYING:
                break
            got = decide(state, GreedyBot(seed).act(view(state, state.turn)))
            assert not isinstance(got, RuleViolation)
            state = fold(state, got)
    for cmd in commands:
        got = decide(state, cmd)
        if isinstance(got, RuleViolation):
            assert got.code and got.code.isupper() and got.message
            continue
        state = fold(state, got)
        if state.phase is not Phase.NEW:
            tiles = [t for s in state.seats for t in s.rack + s.pile] + list(state.deck) + [state.indicator]
            assert sorted(tiles) == list(range(106))
            assert all(type(t) is int for t in tiles)


def test_brute_force_self_check() -> None:
    """The brute force itself on racks whose answers are known from the rules text."""
    f = {str(face_from_index(i)): i for i in range(52)}

    def c(text: str) -> Counts:
        return Counter(f[x] for x in text.split())

    assert max(u for u, _ in all_packings(c("R12 R13 R1"), 0, True)) == 3
    assert max(u for u, _ in all_packings(c("R12 R13 R1"), 0, False)) == 0
    assert max(u for u, _ in all_packings(c("R13 R1 R2"), 0, True)) == 0
    assert max(p for _, p in all_packings(c("R12 R13"), 1, True)) == 36
    assert max(u for u, _ in all_packings(c("R7 Y7 B7"), 1, True)) == 4
    assert brute_pairs(c("R1 R1 Y2"), 1) == 2 and brute_pairs(Counter(), 2) == 1
    assert rack_packed([104, 105], 0)[1] == 0  # fakes are never wild

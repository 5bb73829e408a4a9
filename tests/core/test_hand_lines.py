"""Every point change of a hand has a line (issue 40 item 3): simulated hands of both games, over
every table option that moves points, check that each seat's lines in the hand's breakdown add
up to its change of the hand, that the totals are the totals before the hand plus those lines,
and that each change the events made (an indicator shown, a penalty, a finish, the tiles left,
an okey held) has its own line. The web client draws these lines and adds up nothing."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from okeycore.classic import Stage as ClassicStage
from okeycore.classic.commands import Finish
from okeycore.classic.scoring import LINE_REASONS as CLASSIC_REASONS
from okeycore.classic.strategy import strategy
from okeycore.events import (
    Event,
    HandEnded,
    HandStarted,
    IndicatorShown,
    PenaltyApplied,
)
from okeycore.games import engine_for
from okeycore.kernel.events import HandEndReason
from okeycore.kernel.lines import HandBreakdown, ScoreLine
from okeycore.okey101 import HandEnded101, HandVoided
from okeycore.okey101.scoring import LINE_REASONS as REASONS_101
from okeycore.okey101.scoring import OKEY_POINTS, Opening
from okeycore.okey101.simulate import Simulator101
from okeycore.okey101.strategy import strategy101
from okeycore.options import (
    DeckEnd,
    DiscardHistory,
    Game,
    IndicatorScoring,
    IndicatorTiming,
    Mode101,
    PairsDeclaration,
    TableOptions,
)
from okeycore.simulate import Simulator
from okeycore.tiles import effective_face, face_of_id, okey_face
from okeyplatform.contract import seat_view_from_pb, view_pb

KINDS = ("random", "greedy", "strong")
PENALTIES_101 = ("ADDABLE_TILE_DISCARDED", "OKEY_TAKER_DISCARDED", "OKEY_DISCARDED")


def _sums(b: HandBreakdown) -> list[int]:
    out = [0] * len(b.totals)
    for line in b.lines:
        out[line.seat] += line.points
    return out


def _mine(b: HandBreakdown, seat: int) -> list[ScoreLine]:
    return [line for line in b.lines if line.seat == seat]


@dataclass
class Hands:
    """Called after every event: keeps the scores each hand started with and the changes the
    events made in it, and checks each hand's breakdown against them when it ends."""

    game: Game
    before: list[int] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    checked: int = 0
    reasons: set[str] = field(default_factory=set)

    def __call__(self, state: Any, e: Event) -> None:
        if isinstance(e, HandStarted):
            self.before = [s.score for s in state.seats]
            self.events = []
            return
        self.events.append(e)
        if isinstance(e, HandEnded | HandEnded101):
            self.check(state, e)

    def check(self, state: Any, e: HandEnded | HandEnded101) -> None:
        b = state.last_breakdown
        assert isinstance(b, HandBreakdown) and b.hand == e.hand
        n = len(state.seats)
        scores = [s.score for s in state.seats]
        # Every seat's lines add up to its change, and the running total is the total before
        # the hand plus those lines: the rows add up.
        assert list(b.changes) == _sums(b)
        assert list(b.totals) == scores == [x + d for x, d in zip(self.before, b.changes, strict=True)]
        assert [line.seat for line in b.lines] == sorted(line.seat for line in b.lines)
        assert all(_mine(b, s) for s in range(n)), "every seat has a row"
        # Each change the events made is a line of its own.
        shows = [x for x in self.events if isinstance(x, IndicatorShown)]
        penalties = [x for x in self.events if isinstance(x, PenaltyApplied)]
        for p in penalties:
            sign = 1 if self.game is Game.OKEY101 else -1
            assert ScoreLine(p.seat, sign * p.points, p.reason) in b.lines
        for show in shows:
            assert any(x.seat == show.seat and x.reason == "INDICATOR_SHOWN" for x in b.lines)
            for s, d in enumerate(show.deltas):
                if d and s != show.seat:
                    assert ScoreLine(s, d, "INDICATOR_OTHER") in b.lines
        reasons = CLASSIC_REASONS if self.game is Game.OKEY else REASONS_101
        assert {line.reason for line in b.lines} <= set(reasons)
        assert not any(line.reason == "HAND_POINTS" for line in b.lines), "the rules split every seat's points"
        self.reasons |= {line.reason for line in b.lines}
        if isinstance(e, HandEnded101):
            assert list(b.changes) == list(e.deltas) and b.totals == e.totals
            self.check_101(state, e, b)
        else:
            self.check_classic(e, b, shows, penalties)
        # The views carry it, over the wire too.
        for seat in (*range(n), None):
            v = engine_for(self.game).view(state, seat)
            assert v.last_hand_breakdown == b
        assert seat_view_from_pb(view_pb(engine_for(self.game).view(state, 0))).last_hand_breakdown == b
        self.checked += 1

    @staticmethod
    def check_classic(
        e: HandEnded, b: HandBreakdown, shows: list[IndicatorShown], penalties: list[PenaltyApplied]
    ) -> None:
        for s in range(4):
            ends = [x for x in _mine(b, s) if x.reason not in ("INDICATOR_SHOWN", "INDICATOR_OTHER")]
            ends = [x for x in ends if x.reason not in ("INVALID_FINISH", "OKEY_DISCARDED")]
            if e.reason is HandEndReason.FINISHED:
                want = "FINISHED" if s == e.finisher else "OTHER_FINISHED" if e.deltas[s] else "PARTNER_FINISHED"
                assert ends == [ScoreLine(s, e.deltas[s], want)]
            else:
                assert ends == [ScoreLine(s, 0, "DECK_EXHAUSTED")]
        assert len(b.lines) == 4 + len(penalties) + sum(
            1 + sum(1 for d in x.deltas if d) - bool(x.deltas[x.seat]) for x in shows
        )

    @staticmethod
    def check_101(state: Any, e: HandEnded101, b: HandBreakdown) -> None:
        okey = okey_face(face_of_id(state.indicator))
        for s, seat in enumerate(state.seats):
            hand = [x for x in _mine(b, s) if x.reason not in PENALTIES_101]
            assert sum(x.points for x in hand) == e.points[s]
            okeys = sum(1 for t in e.racks[s] if effective_face(face_of_id(t), okey) is None)
            if s == e.finisher:
                assert [x.reason for x in hand] == ["FINISHED"]
            elif seat.opening is Opening.NONE:
                assert [x.reason for x in hand] == ["NOT_OPENED"]
            else:
                held = [x for x in hand if x.reason == "OKEY_HELD"]
                factor = e.multiplier * (2 if seat.opening is Opening.PAIRS else 1)
                assert held == ([ScoreLine(s, OKEY_POINTS * okeys * factor, "OKEY_HELD", okeys)] if okeys else [])
                left = [x for x in hand if x.reason != "OKEY_HELD"]
                want = "PAIRS_TILES_LEFT" if seat.opening is Opening.PAIRS else "TILES_LEFT"
                assert all(x.reason == want and x.tiles == len(e.racks[s]) - okeys for x in left)


class InvalidFinisher:
    """A strategy that, at a ``penalties`` table, now and then tries to finish with a rack that
    does not finish (penalised [C-SC-6]) before playing its turn as its inner strategy would."""

    def __init__(self, inner: Any, seed: int) -> None:
        self.inner = inner
        self.rng = random.Random(seed)
        self.tried = -1

    def off_turn(self, view: Any) -> Any:
        return self.inner.off_turn(view)

    def act(self, view: Any) -> Any:
        key = view.version
        if view.stage is ClassicStage.DISCARD and self.tried != key and self.rng.random() < 0.05:
            self.tried = view.version + 1  # the penalty moves the version by one: then play on
            return Finish(seat=view.seat, tile=view.rack[-1])
        return self.inner.act(view)


@st.composite
def classic_options(draw: st.DrawFn) -> TableOptions:
    pairing = draw(st.sampled_from(["none", "partners", "duel"]))
    history = draw(st.sampled_from(list(DiscardHistory)))
    return TableOptions(
        match_points=draw(st.integers(3, 30)),
        indicator=draw(st.booleans()),
        indicator_scoring=draw(st.sampled_from(list(IndicatorScoring))),
        indicator_timing=draw(st.sampled_from(list(IndicatorTiming))),
        colored=draw(st.booleans()),
        partners=pairing == "partners",
        duel=pairing == "duel",
        penalties=draw(st.booleans()),
        discard_history=history,
        pairs_declaration=PairsDeclaration.BINDING
        if history is DiscardHistory.PAIRS_ONLY
        else draw(st.sampled_from(list(PairsDeclaration))),
        deck_end=draw(st.sampled_from(list(DeckEnd))),
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    options=classic_options(),
    kinds=st.lists(st.sampled_from(KINDS), min_size=4, max_size=4),
    seed=st.integers(0, 2**32 - 1),
)
def test_C_SC_1_every_classic_score_change_has_a_line_and_the_lines_add_up(
    options: TableOptions, kinds: list[str], seed: int
) -> None:
    """[C-SC-1] [C-SC-2] [C-SC-3] [C-SC-4] [C-SC-5] [C-SC-6] [C-DECK-1] [C-DECK-2], every option."""
    hands = Hands(Game.OKEY)
    bots: list[Any] = [strategy(k, seed + i) for i, k in enumerate(kinds)]
    if options.penalties:
        bots = [InvalidFinisher(b, seed + i) for i, b in enumerate(bots)]
    Simulator(options, bots, seed, on_event=hands).play_match(max_hands=5)
    assert hands.checked >= 1


def test_C_SC_4_a_shown_indicator_has_its_row_at_every_scoring() -> None:
    """The defect of issue 40: '-2 Başkası bitirdi, Toplam 17' with the indicator's -1 on no row."""
    seen = {scoring: set() for scoring in IndicatorScoring}
    for scoring in IndicatorScoring:
        for seed in range(40):
            hands = Hands(Game.OKEY)
            opts = TableOptions(indicator_scoring=scoring)
            Simulator(opts, [strategy("strong", seed + i) for i in range(4)], seed, on_event=hands).play_match(3)
            seen[scoring] |= hands.reasons
            if {"INDICATOR_SHOWN", "OTHER_FINISHED"} <= seen[scoring]:
                break
        assert {"INDICATOR_SHOWN", "OTHER_FINISHED", "FINISHED"} <= seen[scoring], seen
    assert "INDICATOR_OTHER" in seen[IndicatorScoring.OTHERS_MINUS_1]


@st.composite
def options_101(draw: st.DrawFn) -> TableOptions:
    return TableOptions(
        game=Game.OKEY101,
        seats=draw(st.sampled_from([2, 4])),
        wrap=draw(st.booleans()),
        mode=draw(st.sampled_from(list(Mode101))),
        discard_penalty=draw(st.booleans()),
        rounds=draw(st.sampled_from([3, 5])),
        hand_prize=draw(st.integers(0, 5)),
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    options=options_101(),
    kinds=st.lists(st.sampled_from(KINDS), min_size=4, max_size=4),
    seed=st.integers(0, 2**32 - 1),
)
def test_O_SC_1_every_101_score_change_has_a_line_and_the_lines_add_up(
    options: TableOptions, kinds: list[str], seed: int
) -> None:
    """[O-SC-1..5] [O-PEN-1] [O-PEN-2] [D-1] [D-2] [D-7], every option that moves points."""
    hands = Hands(Game.OKEY101)
    bots = [strategy101(k, seed + i) for i, k in enumerate(kinds[: options.seat_count])]
    voided: list[HandVoided] = []

    def on_event(state: Any, e: Event) -> None:
        hands(state, e)
        if isinstance(e, HandVoided):
            voided.append(e)

    Simulator101(options, bots, seed, on_event=on_event).play_match(max_deals=3)
    assert hands.checked + len(voided) >= 1


def test_D_7_an_okey_held_and_every_101_reason_has_its_row() -> None:
    """Over many bot hands every 101 line a hand can give turns up, each adding up ([D-7]: an okey
    left in an opened hand is a line of its own; [O-PEN-1] [O-PEN-2] penalties too)."""
    seen: set[str] = set()
    want = {"FINISHED", "NOT_OPENED", "TILES_LEFT", "PAIRS_TILES_LEFT", "OKEY_HELD", "ADDABLE_TILE_DISCARDED"}
    for seed in range(60):
        hands = Hands(Game.OKEY101)
        kinds = ["strong", "random", "greedy", "strong"]
        opts = TableOptions(game=Game.OKEY101, rounds=3)
        Simulator101(opts, [strategy101(k, seed + i) for i, k in enumerate(kinds)], seed, on_event=hands).play_match(3)
        seen |= hands.reasons
        if want <= seen:
            break
    assert want <= seen, seen


def test_C_SC_6_penalties_partners_and_a_dead_deck_have_their_rows() -> None:
    """Over bot hands at a penalties table, with and without partners, every classic line turns
    up and adds up: the penalties [C-SC-6], a partner's finish [C-SC-5], the deck's end [C-DECK-1]."""
    seen: set[str] = set()
    for seed in range(60):
        hands = Hands(Game.OKEY)
        opts = TableOptions(penalties=True, partners=seed % 2 == 0, colored=True)
        kinds = ["strong", "random", "greedy", "strong"]
        bots = [InvalidFinisher(strategy(k, seed + i), seed + i) for i, k in enumerate(kinds)]
        Simulator(opts, bots, seed, on_event=hands).play_match(4)
        seen |= hands.reasons
        if seen >= set(CLASSIC_REASONS):
            break
    assert seen == set(CLASSIC_REASONS)

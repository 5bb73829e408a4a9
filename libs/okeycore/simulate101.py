"""In-process Okey 101 matches between bot strategies, and scripted deals: for tests and benchmarks."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .bots101 import Strategy101
from .classic import Phase
from .commands import Command, CreateTable, StartHand
from .errors import RuleViolation
from .events import Event
from .okey101 import Okey101State, decide, evolve, fold, view
from .options import Game, TableOptions
from .simulate import SimulationError
from .tiles import TILE_COUNT, face_of_id, parse_face, parse_faces, resolve_ids

__all__ = ["MatchRecord101", "Table101", "Simulator101", "play_match_101", "arrange_deal"]


@dataclass
class MatchRecord101:
    state: Okey101State
    events: list[Event] = field(default_factory=list)
    deals: int = 0  # hands dealt, void ones included
    moves: int = 0


class Table101:
    """One 101 table driven command by command: scripted hands, tutorials, and the base of the
    simulator. ``attempt`` returns the rule a refused command breaks; ``apply`` raises on it."""

    def __init__(
        self,
        options: TableOptions,
        table_id: str = "t101",
        on_event: Callable[[Okey101State, Event], None] | None = None,
    ) -> None:
        if options.game is not Game.OKEY101:
            raise SimulationError("a 101 table plays OKEY101")
        self.on_event = on_event
        self.events: list[Event] = []
        got = decide(None, CreateTable(table_id=table_id, options=options))
        if isinstance(got, RuleViolation):
            raise SimulationError(str(got))
        self.state = fold(None, got)
        self.events += got

    def attempt(self, command: Command) -> list[Event] | RuleViolation:
        got = decide(self.state, command)
        if isinstance(got, RuleViolation):
            return got
        for e in got:
            self.state = evolve(self.state, e)
            self.events.append(e)
            if self.on_event:
                self.on_event(self.state, e)
        return got

    def apply(self, command: Command) -> list[Event]:
        got = self.attempt(command)
        if isinstance(got, RuleViolation):
            raise SimulationError(f"{type(command).__name__} refused: {got}")
        return got

    def deal(
        self, racks: Sequence[str], indicator: str, deck_top: str = "", first_starter: int = 0, now_ms: int = 0
    ) -> list[Event]:
        """Deal racks written as tile codes (``"R1 R2 R3 F ..."``, seat by seat; a short rack is
        topped up with unused tiles), with ``deck_top`` codes on top of the deck. The starter is
        ``first_starter`` for the first hand, then as the rules rotate it."""
        st = self.state
        if st.hand == 0:
            starter = first_starter
        elif st.voided:
            starter = st.starter  # [O-PEN-4]
        else:
            starter = (st.starter + 1) % st.seat_count
        ind = resolve_ids([parse_face(indicator)])
        used = set(ind)
        ids: list[list[int]] = []
        for codes in [*racks, deck_top]:
            got = resolve_ids(parse_faces(codes.split()), exclude=used)
            used.update(got)
            ids.append(got)
        order = arrange_deal(ids[:-1], ind[0], ids[-1], starter)
        return self.apply(StartHand(order=order, first_starter=first_starter, now_ms=now_ms))

    def tile(self, seat: int, code: str, nth: int = 0) -> int:
        """The id of the ``nth`` tile showing ``code`` in ``seat``'s rack."""
        face = parse_face(code)
        found = [t for t in self.state.seats[seat].rack if face_of_id(t) == face]
        if len(found) <= nth:
            raise SimulationError(f"seat {seat} holds no {code} (#{nth})")
        return found[nth]


class Simulator101(Table101):
    """Plays 101 hands between strategies: deals from its own seeded shuffle and asks each
    seat's strategy for its commands, each from that seat's view only."""

    def __init__(
        self,
        options: TableOptions,
        strategies: Sequence[Strategy101],
        seed: int,
        table_id: str = "sim101",
        on_event: Callable[[Okey101State, Event], None] | None = None,
        now_ms: int = 0,
    ) -> None:
        super().__init__(options, table_id, on_event)
        if len(strategies) != options.seats:
            raise SimulationError(f"{options.seats} seats need {options.seats} strategies")
        self.rng = random.Random(seed)
        self.strategies = list(strategies)
        self.now_ms = now_ms
        self.record = MatchRecord101(state=self.state, events=self.events)

    def deal_random(self) -> None:
        order = list(range(TILE_COUNT))
        self.rng.shuffle(order)
        self.apply(StartHand(order=tuple(order), now_ms=self.now_ms))
        self.record.deals += 1

    def play_turns(self, max_moves: int = 20_000) -> None:
        """Play the dealt hand to its end."""
        moves = 0
        while self.state.phase is Phase.PLAYING:
            seat = self.state.turn
            self.apply(self.strategies[seat].act(view(self.state, seat)))
            moves += 1
            if moves > max_moves:
                raise SimulationError("a hand did not end")
        self.record.moves += moves
        self.record.state = self.state

    def play_hand(self) -> None:
        self.deal_random()
        self.play_turns()

    def play_match(self, max_deals: int = 1_000) -> MatchRecord101:
        while self.state.phase is not Phase.MATCH_OVER and self.record.deals < max_deals:
            self.play_hand()
        self.record.state = self.state
        return self.record


def play_match_101(
    options: TableOptions, strategies: Sequence[Strategy101], seed: int, max_deals: int = 1_000
) -> MatchRecord101:
    return Simulator101(options, strategies, seed).play_match(max_deals)


def arrange_deal(
    racks: Sequence[Sequence[int]], indicator: int, deck_top: Sequence[int] = (), starter: int = 0
) -> tuple[int, ...]:
    """A ``StartHand`` order that deals seat ``s`` the tiles ``racks[s]`` (the starter's 22, the
    others' 21; shorter racks are topped up with unused tiles), turns up ``indicator`` and puts
    ``deck_top`` on top of the deck [O-DEAL-1]. For scripted hands in tests and tutorials."""
    seats = len(racks)
    named = [t for r in racks for t in r] + [indicator, *deck_top]
    if len(set(named)) != len(named) or not all(0 <= t < TILE_COUNT for t in named):
        raise ValueError("each tile id can be dealt once")
    if indicator >= 104:
        raise ValueError("the indicator is never a fake okey [T-IND-1]")
    spare = [t for t in range(TILE_COUNT) if t not in set(named)]
    order: list[int] = []
    for k in range(seats):
        s = (starter + k) % seats
        want = 22 if k == 0 else 21
        rack = list(racks[s])
        if len(rack) > want:
            raise ValueError(f"seat {s} gets {want} tiles, {len(rack)} named")
        while len(rack) < want:
            rack.append(spare.pop(0))
        order += rack
    return (*order, indicator, *deck_top, *spare)

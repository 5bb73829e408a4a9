"""One table driver for both games: scripted deals and moves, for tests, tutorials and tools.

``Table`` drives a table of either game through its engine command by command, keeping every
event; ``build_order`` and ``arrange_deal`` write a deal's order from the racks a script wants.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from . import classic, okey101
from .errors import RuleViolation
from .events import Event, HandStarted
from .games import engine_for
from .kernel.commands import Command, CreateTable, Discard, Draw, StartHand
from .kernel.dealing import DealSpec
from .kernel.state import Phase
from .options import Game, TableOptions
from .racks import effective_table
from .tiles import TILE_COUNT, Face, face_of_id, ids_of_face, parse_face, parse_faces, resolve_ids

__all__ = ["Refused", "Table", "DEALS", "tid", "build_order", "arrange_deal", "mixed_bots"]

DEALS: dict[Game, DealSpec] = {Game.OKEY: classic.DEAL, Game.OKEY101: okey101.DEAL}
"""How many tiles each game deals (starter first)."""


class Refused(AssertionError):
    """A command the rules refused where the script expected it to be accepted (or the reverse)."""


def tid(code: str, copy: int = 0) -> int:
    """The physical id of copy 0 or 1 of a face (``F`` -> 104/105)."""
    f = parse_face(code)
    return (104, 105)[copy] if f.is_fake else ids_of_face(f)[copy]


class Table:
    """One table of either game (``options.game``), driven command by command through its engine.

    ``attempt`` returns the rule a refused command breaks; ``apply`` and ``do`` raise ``error``
    on it; ``refuse`` and ``code`` expect a refusal. ``state`` is the engine's state, ``events``
    every event so far."""

    error: type[Exception] = Refused

    def __init__(
        self,
        options: TableOptions | None = None,
        table_id: str = "t1",
        on_event: Callable[[Any, Event], None] | None = None,
        players: Sequence[str] = (),
        **option_values: Any,
    ) -> None:
        opts = options if options is not None else TableOptions(**option_values)
        self.engine = engine_for(opts.game)
        self.on_event = on_event
        got = self.engine.decide(None, CreateTable(table_id=table_id, options=opts, players=tuple(players)))
        if isinstance(got, RuleViolation):
            raise self.error(str(got))
        self.state: Any = self.engine.fold(None, got)
        self.events: list[Event] = list(got)

    # ---- commands
    def attempt(self, command: Command) -> list[Event] | RuleViolation:
        got = self.engine.decide(self.state, command)
        if isinstance(got, RuleViolation):
            return got
        for e in got:
            self.state = self.engine.evolve(self.state, e)
            self.events.append(e)
            if self.on_event:
                self.on_event(self.state, e)
        return got

    def apply(self, command: Command) -> list[Event]:
        got = self.attempt(command)
        if isinstance(got, RuleViolation):
            raise self.error(f"{type(command).__name__} refused: {got}")
        return got

    def do(self, command: Command) -> list[Event]:
        """``apply``, and every accepted command produces an event."""
        got = self.apply(command)
        if not got:
            raise self.error(f"{command} produced no event")
        return got

    def refuse(self, command: Command) -> RuleViolation:
        before = self.state
        got = self.engine.decide(self.state, command)
        if not isinstance(got, RuleViolation):
            raise self.error(f"{command} was accepted: {got}")
        if self.state is not before:  # pragma: no cover - decide is pure
            raise self.error("a refused command changed the state")
        return got

    def code(self, command: Command) -> str:
        return self.refuse(command).code

    def view(self, seat: int | None) -> Any:
        return self.engine.view(self.state, seat)

    # ---- deals
    def deal(
        self,
        order_or_racks: Sequence[int] | Sequence[str],
        indicator: str | None = None,
        deck_top: str = "",
        first_starter: int = 0,
        now_ms: int | None = None,
    ) -> list[Event]:
        """Deal the next hand from a deal order (106 tile ids); or, with ``indicator``, from racks
        written as tile codes seat by seat (``"R1 R2 F ..."``, a short rack is topped up with
        unused tiles) with ``deck_top`` codes on top of the deck. ``first_starter`` only matters
        for the first hand: later ones start where the rules say. ``now_ms`` unset: 0, or when
        the break between hands is due (a script waits it out) [P-BREAK-3]."""
        if indicator is None:
            order = tuple(cast(Sequence[int], order_or_racks))
        else:
            starter = self.next_starter(first_starter)
            ind = resolve_ids([parse_face(indicator)])
            used = set(ind)
            ids: list[list[int]] = []
            for codes in [*(str(r) for r in order_or_racks), deck_top]:
                got = resolve_ids(parse_faces(codes.split()), exclude=used)
                used.update(got)
                ids.append(got)
            order = arrange_deal(ids[:-1], ind[0], ids[-1], starter, DEALS[self.state.options.game])
        if now_ms is None:
            now_ms = self.state.break_due_ms if self.state.in_break else 0
        return self.apply(StartHand(order=order, first_starter=first_starter, now_ms=now_ms))

    def next_starter(self, first_starter: int = 0) -> int:
        """Who starts the next hand: the engine says (a trial deal, not applied)."""
        trial = StartHand(order=tuple(range(TILE_COUNT)), first_starter=first_starter, now_ms=2**62)  # past any break
        got = self.engine.decide(self.state, trial)
        if isinstance(got, RuleViolation):
            raise self.error(str(got))
        start = got[0]
        assert isinstance(start, HandStarted)
        return start.starter

    # ---- queries
    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(s.score for s in self.state.seats)

    def rack(self, seat: int) -> tuple[int, ...]:
        rack: tuple[int, ...] = self.state.seats[seat].rack
        return rack

    def tile(self, seat: int, code: str, nth: int = 0) -> int:
        """The id of the ``nth`` tile showing ``code`` in ``seat``'s rack."""
        face = parse_face(code)
        found = [t for t in self.rack(seat) if face_of_id(t) == face]
        if len(found) <= nth:
            held = [str(face_of_id(t)) for t in self.rack(seat)]
            raise self.error(f"seat {seat} holds no {code} (#{nth}): {held}")
        return found[nth]

    def top(self, seat: int) -> int:
        top: int = self.state.seats[seat].pile[-1]
        return top

    # ---- scripted moves
    def draw_and_discard(self, now_ms: int = 0) -> int:
        """The seat on turn draws the top of the deck and discards that same tile (another one
        if it drew a real okey); a turn that needs no draw discards the rack's last tile."""
        seat = self.state.turn
        if self.engine.can(self.state, Draw(seat=seat)) is None:
            (drawn,) = self.do(Draw(seat=seat, now_ms=now_ms))
            tile: int = drawn.tile  # type: ignore[attr-defined]
        else:
            tile = self.rack(seat)[-1]
        wild = effective_table(self.state.indicator)
        if wild[tile] < 0:  # never throw away a real okey (a penalty at some tables)
            tile = next(x for x in reversed(self.rack(seat)) if wild[x] >= 0)
        self.do(Discard(seat=seat, tile=tile, now_ms=now_ms))
        return tile

    def run_down_deck(self, keep: int = 0) -> None:
        """Draw-and-discard until ``keep`` tiles are left in the deck (or the hand ends)."""
        while self.state.phase is Phase.PLAYING and len(self.state.deck) > keep:
            self.draw_and_discard()


def _filler_ids() -> list[int]:
    """Ids in a fixed, spread-out order (colours and numbers interleaved), fakes last."""
    out = []
    for step in range(2):
        for n in range(13):
            for c in range(4):
                out.append(2 * (c * 13 + (n * 5) % 13) + step)
    return out + [104, 105]


def build_order(
    racks: Mapping[int, str | Sequence[str]],
    indicator: str,
    starter: int = 0,
    deck: str | Sequence[str] = (),
    avoid: str | Sequence[str] = (),
    game: Game = Game.OKEY,
    seats: int = 4,
) -> tuple[int, ...]:
    """A deal ``order`` (106 tile ids) giving each seat the tiles named (missing tiles are
    filled with other tiles, spread over colours and numbers), ``indicator`` as the indicator and
    ``deck`` on top of the deck. Faces named in ``avoid`` are kept out of the filler (so a filler
    cannot complete a scripted hand)."""

    def faces(spec: str | Sequence[str]) -> list[Face]:
        return [parse_face(c) for c in (spec.split() if isinstance(spec, str) else spec)]

    ind = resolve_ids([parse_face(indicator)])
    used = set(ind)
    named: dict[int, list[int]] = {}
    for seat in range(seats):
        ids = resolve_ids(faces(racks.get(seat, ())), exclude=used)
        used.update(ids)
        named[seat] = ids
    deck_ids = resolve_ids(faces(deck), exclude=used)
    used.update(deck_ids)
    avoid_faces = set(faces(avoid))
    filler = [t for t in _filler_ids() if t not in used and face_of_id(t) not in avoid_faces and t < 104]
    spare = [t for t in _filler_ids() if t not in used and t not in filler]
    order: list[int] = []
    for k, want in enumerate(DEALS[game].sizes(seats)):
        seat = (starter + k) % seats
        ids = named[seat]
        if len(ids) > want:
            raise ValueError(f"seat {seat} is dealt {want} tiles, {len(ids)} were named")
        while len(ids) < want:
            ids.append(filler.pop(0))
        order.extend(ids)
    order.extend(ind)
    order.extend(deck_ids)
    order.extend(filler)
    order.extend(spare)
    assert sorted(order) == list(range(TILE_COUNT)), "build_order lost a tile"
    return tuple(order)


def arrange_deal(
    racks: Sequence[Sequence[int]],
    indicator: int,
    deck_top: Sequence[int] = (),
    starter: int = 0,
    spec: DealSpec = okey101.DEAL,
) -> tuple[int, ...]:
    """A ``StartHand`` order that deals seat ``s`` the tiles ``racks[s]`` (shorter racks are
    topped up with unused tiles, lowest id first), turns up ``indicator`` and puts ``deck_top``
    on top of the deck. The hand sizes are ``spec``'s (101's by default: 22 and 21 [O-DEAL-1])."""
    seats = len(racks)
    named = [t for r in racks for t in r] + [indicator, *deck_top]
    if len(set(named)) != len(named) or not all(0 <= t < TILE_COUNT for t in named):
        raise ValueError("each tile id can be dealt once")
    if indicator >= 104:
        raise ValueError("the indicator is never a fake okey [T-IND-1]")
    spare = [t for t in range(TILE_COUNT) if t not in set(named)]
    order: list[int] = []
    for k, want in enumerate(spec.sizes(seats)):
        s = (starter + k) % seats
        rack = list(racks[s])
        if len(rack) > want:
            raise ValueError(f"seat {s} gets {want} tiles, {len(rack)} named")
        while len(rack) < want:
            rack.append(spare.pop(0))
        order += rack
    return (*order, indicator, *deck_top, *spare)


def mixed_bots(game: Game, seats: int, seed: int) -> list[Any]:
    """A greedy or a random bot at each seat of a ``game`` table, chosen by ``seed``'s bits (the
    property tests' players: legal moves of every kind, in a random mix)."""
    from .classic.bots import GreedyBot, RandomBot
    from .okey101.bots import GreedyBot101
    from .okey101.strategy import RandomBot101

    if game is Game.OKEY:
        return [(GreedyBot if (seed >> i) & 1 else RandomBot)(seed + i) for i in range(seats)]
    return [(GreedyBot101 if (seed >> i) & 1 else RandomBot101)(seed + i) for i in range(seats)]


def table_tiles(state: Any) -> list[int]:
    """Every tile of a table's state: racks, discard piles, the deck, the indicator and (101) the
    table melds; 106 of them, each once, in any state of a hand."""
    out = [t for s in state.seats for t in (*s.rack, *s.pile)] + list(state.deck) + [state.indicator]
    return out + [t for m in getattr(state, "melds", ()) for t in m.tiles]

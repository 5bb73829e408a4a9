"""Helpers for the classic Okey tests: tile codes to ids, scripted deals, a table driver."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from okeycore import decide, fold
from okeycore.classic import ClassicState, Phase, Stage, effective_table
from okeycore.commands import Command, CreateTable, Discard, Draw, StartHand
from okeycore.errors import RuleViolation
from okeycore.events import Event
from okeycore.options import TableOptions
from okeycore.tiles import TILE_COUNT, Face, face_of_id, ids_of_face, parse_face, resolve_ids

RACK_SIZES = (15, 14, 14, 14)  # starter first [C-DEAL-1]


def codes(text: str) -> list[str]:
    """``"R1 R2 F"`` -> ``["R1", "R2", "F"]``."""
    return text.split()


def face(code: str) -> Face:
    return parse_face(code)


def tid(code: str, copy: int = 0) -> int:
    """The physical id of copy 0 or 1 of a face (``F`` -> 104/105)."""
    f = parse_face(code)
    return (104, 105)[copy] if f.is_fake else ids_of_face(f)[copy]


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
) -> tuple[int, ...]:
    """A deal ``order`` (106 tile ids) giving each seat the tiles named (missing tiles are
    filled with other tiles), ``indicator`` as the indicator and ``deck`` on top of the deck.

    Mirrors ``classic.deal``: the starter gets order[0:15], then each next seat 14, then the
    first non-fake tile is the indicator, the rest is the deck top first. Faces named in
    ``avoid`` are kept out of the filler (so a filler cannot complete a scripted hand)."""
    ind = resolve_ids([parse_face(indicator)])
    used = set(ind)
    named: dict[int, list[int]] = {}
    for seat in range(4):
        spec = racks.get(seat, ())
        faces = [parse_face(c) for c in (codes(spec) if isinstance(spec, str) else spec)]
        ids = resolve_ids(faces, exclude=used)
        used.update(ids)
        named[seat] = ids
    deck_faces = [parse_face(c) for c in (codes(deck) if isinstance(deck, str) else deck)]
    deck_ids = resolve_ids(deck_faces, exclude=used)
    used.update(deck_ids)
    avoid_faces = {parse_face(c) for c in (codes(avoid) if isinstance(avoid, str) else avoid)}
    filler = [t for t in _filler_ids() if t not in used and face_of_id(t) not in avoid_faces and t < 104]
    spare = [t for t in _filler_ids() if t not in used and t not in filler]
    order: list[int] = []
    for k in range(4):
        seat = (starter + k) % 4
        ids = named[seat]
        want = RACK_SIZES[k]
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


class Table:
    """Drives one classic table through ``decide``/``evolve``, keeping every event."""

    def __init__(self, options: TableOptions | None = None, **kw: Any) -> None:
        opts = options if options is not None else TableOptions(**kw)
        got = decide(None, CreateTable(table_id="t1", options=opts))
        assert not isinstance(got, RuleViolation), got
        self.events: list[Event] = list(got)
        self.state: ClassicState = fold(None, got)

    # ---- commands
    def do(self, cmd: Command) -> list[Event]:
        got = decide(self.state, cmd)
        assert not isinstance(got, RuleViolation), f"{cmd} refused: {got}"
        assert got, f"{cmd} produced no event"
        self.state = fold(self.state, got)
        self.events.extend(got)
        return got

    def refuse(self, cmd: Command) -> RuleViolation:
        before = self.state
        got = decide(self.state, cmd)
        assert isinstance(got, RuleViolation), f"{cmd} was accepted: {got}"
        assert self.state is before
        return got

    def code(self, cmd: Command) -> str:
        return self.refuse(cmd).code

    def deal(self, order: Sequence[int], first_starter: int = 0, now_ms: int = 0) -> list[Event]:
        return self.do(StartHand(order=tuple(order), first_starter=first_starter, now_ms=now_ms))

    # ---- queries
    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(s.score for s in self.state.seats)

    def rack(self, seat: int) -> tuple[int, ...]:
        return self.state.seats[seat].rack

    def tile(self, seat: int, code: str) -> int:
        """An id of face ``code`` in ``seat``'s rack."""
        f = parse_face(code)
        for t in self.rack(seat):
            if face_of_id(t) == f:
                return t
        raise AssertionError(f"seat {seat} holds no {code}: {[str(face_of_id(t)) for t in self.rack(seat)]}")

    def top(self, seat: int) -> int:
        return self.state.seats[seat].pile[-1]

    # ---- scripted moves
    def draw_and_discard(self, now_ms: int = 0) -> int:
        """The seat on turn draws the top of the deck and discards that same tile (another one
        if it drew a real okey); the starter's first move discards its last tile."""
        seat = self.state.turn
        if self.state.stage is Stage.DRAW:
            (drawn,) = self.do(Draw(seat=seat, now_ms=now_ms))
            tile = drawn.tile  # type: ignore[attr-defined]
        else:
            tile = self.rack(seat)[-1]
        wild = effective_table(self.state.indicator)
        if wild[tile] < 0:  # never throw away a real okey (a penalty at some tables)
            tile = next(x for x in reversed(self.rack(seat)) if wild[x] >= 0)
        self.do(Discard(seat=seat, tile=tile, now_ms=now_ms))
        return int(tile)

    def run_down_deck(self, keep: int = 0) -> None:
        """Draw-and-discard until ``keep`` tiles are left in the deck (or the hand ends)."""
        while self.state.phase is Phase.PLAYING and len(self.state.deck) > keep:
            self.draw_and_discard()


def tile_ids(obj: object) -> Iterator[int]:
    """Every int in an event or view that names a tile (fields called tile/tiles/rack/racks/
    pile/deck/order/arrangement/indicator/final_tile), recursively."""
    names = {"tile", "rack", "racks", "pile", "deck", "order", "arrangement", "indicator", "final_tile", "side_tile"}
    yield from _walk(obj, names, False)


def _walk(obj: object, names: set[str], inside: bool) -> Iterator[int]:
    if isinstance(obj, bool | enum.Enum | str) or obj is None:
        return
    if isinstance(obj, int):
        if inside and obj >= 0:
            yield obj
        return
    if isinstance(obj, tuple | list):
        for x in obj:
            yield from _walk(x, names, inside)
        return
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from _walk(getattr(obj, f.name), names, inside or f.name in names)


def faces_by_code(rack: Sequence[int]) -> dict[str, list[int]]:
    """Tile code -> the ids of that face in a rack."""
    out: dict[str, list[int]] = {}
    for t in rack:
        out.setdefault(str(face_of_id(t)), []).append(t)
    return out


def meld_kind(ids: Sequence[int], indicator: int, wrap: bool = True) -> str | None:
    """RUN, GROUP or PAIR if the tiles form one (in any order), else None. Written from the
    rules text alone, independently of the solver: an okey fills any one place [T-OKEY-2],
    a fake okey is the okey's face [T-FAKE-1], 12-13-1 but never 13-1-2 [M-RUN-2]."""
    okey = face_of_id(indicator).next()
    reals: list[Face] = []
    jokers = 0
    for t in ids:
        f = face_of_id(t)
        if f == okey:
            jokers += 1
        else:
            reals.append(okey if f.is_fake else f)
    n = len(ids)
    if n == 2:
        return "PAIR" if jokers or reals[0] == reals[1] else None
    if n < 3 or not reals:
        return None
    if n <= 4 and len({f.number for f in reals}) == 1 and len({f.colour for f in reals}) == len(reals):
        return "GROUP"
    if len({f.colour for f in reals}) != 1:
        return None
    for s in range(1, 15):
        e = s + n - 1
        if e > 14 or (e == 14 and (not wrap or s < 2)):
            continue
        window = [p if p <= 13 else 1 for p in range(s, e + 1)]
        if sorted(window) != sorted(set(window)):
            continue
        nums = [f.number for f in reals]
        if len(set(nums)) == len(nums) and set(nums) <= set(window):
            return "RUN"
    return None

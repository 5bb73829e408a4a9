"""Coaching notes for a finished hand: what each seat could have done better, judged by the solver.

``coach`` folds the table's log with the game's own ``fold``/``evolve`` and, at each move of the
hand, judges it only by what that seat could see then: its own rack, the visible discards, the
melds on the table [D-12]. A note that needs more (another seat's rack, the deck order) says so
(``hindsight``). The notes:

- ``MISSED_FINISH``: the seat held a rack that finished by placing (classic) or discarding (101)
  some tile, and discarded without finishing; or (classic) taking the visible side tile would
  have finished and it drew from the deck. A deck tile that would have finished is never noted:
  the seat could not know it. A seat that turned to okey [C-DON-1] chose to wait: not noted.
  In 101 the seat could finish when, after its draw, every tile but one lies in new melds it may
  lay (runs and groups worth its threshold until it opened, pairs as a pair opener); adds to the
  table's melds are not searched, so a finish that needs them is not noted.
- ``GAVE_FINISH`` (hindsight): a discard the next seat took and finished with in that turn.
- ``MISSED_OPENING`` (101): the seat had not opened and its rack could open (runs worth its
  threshold, or enough pairs) at a turn it did not open; noted at the first such turn, and again
  only after a turn it could not. ``points`` is the best opening's points (its pairs when only
  pairs open).
- ``OKEY_HELD``: a seat other than the finisher ended ``turns`` >= 3 of its turns with a real okey
  in its rack, noted at the hand's end.
- ``PENALISED_DISCARD``: a discard the engine penalised ([O-PEN-1] [O-PEN-2]; classic [C-SC-6]),
  at the penalty's event.

Cost is bounded: every question to the solver (one rack) spends one unit of ``budget``; when it
runs out the solver's notes stop; at ``limit`` notes every note stops. Either sets ``truncated``.
Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from . import melds as M
from .classic.events import HandEnded
from .classic.finish import finishing_tiles
from .classic.rules import pairs_only
from .classic.state import ClassicState
from .classic.state import Stage as ClassicStage
from .games import engine_for
from .kernel.events import (
    DrawSource,
    Event,
    HandEnd,
    HandEndReason,
    HandStarted,
    PenaltyApplied,
    TableCreated,
    TileDiscarded,
    TileDrawn,
)
from .okey101.events import HandEnded101, HandVoided, TileReturned
from .okey101.openings import pair_opening, run_opening
from .okey101.scoring import Opening
from .okey101.state import Okey101State
from .okey101.state import Stage as Stage101
from .racks import effective_table, is_real_okey, rack_packed
from .tiles import Colour, face_of_id

__all__ = [
    "Note",
    "Coaching",
    "coach",
    "MISSED_FINISH",
    "GAVE_FINISH",
    "MISSED_OPENING",
    "OKEY_HELD",
    "PENALISED_DISCARD",
    "OKEY_HELD_TURNS",
    "tile_name",
]

MISSED_FINISH = "MISSED_FINISH"
GAVE_FINISH = "GAVE_FINISH"
MISSED_OPENING = "MISSED_OPENING"
OKEY_HELD = "OKEY_HELD"
PENALISED_DISCARD = "PENALISED_DISCARD"

OKEY_HELD_TURNS = 3
"""The fewest of a seat's turns ended holding an okey that make an ``OKEY_HELD`` note."""


@dataclass(frozen=True, slots=True)
class Note:
    version: int  # the event the note is about (the seat's move, or the hand's end)
    seat: int
    kind: str  # MISSED_FINISH | GAVE_FINISH | MISSED_OPENING | OKEY_HELD | PENALISED_DISCARD
    text: str  # Turkish, then English in brackets
    hindsight: bool  # needs what the seat could not see then (the deck order, another seat's rack)
    tiles: tuple[int, ...] = ()  # tile ids concerned
    points: int = 0
    turns: int = 0


@dataclass(frozen=True, slots=True)
class Coaching:
    notes: tuple[Note, ...]
    truncated: bool  # stopped at ``limit`` notes or the ``budget`` of solver calls
    # The table's state after the hand's end event, and how many of ``events`` it folds: a caller
    # coaching hand after hand hands it back as ``before`` instead of folding the log again.
    after: tuple[Any, int] | None = None


_COLOURS = {
    Colour.R: ("Kırmızı", "Red"),
    Colour.Y: ("Sarı", "Yellow"),
    Colour.B: ("Mavi", "Blue"),
    Colour.K: ("Siyah", "Black"),
}


def tile_name(tile: int, indicator: int) -> tuple[str, str]:
    """A tile's name in Turkish and English: ``("Kırmızı 7", "Red 7")``; a real okey says so,
    a fake okey is ``("Sahte okey", "Fake okey")``."""
    face = face_of_id(tile)
    if face.colour is None:
        return "Sahte okey", "Fake okey"
    tr, en = _COLOURS[face.colour]
    tr, en = f"{tr} {face.number}", f"{en} {face.number}"
    if is_real_okey(tile, indicator):
        return f"{tr} (okey)", f"{en} (okey)"
    return tr, en


@dataclass
class _Turn:
    """What the coach keeps of the turn being played."""

    seat: int = -1
    side_miss: tuple[int, int] | None = None  # (version, side tile) of a deck draw while the side tile finished
    taken: tuple[int, int, int] | None = None  # (discarder, discard's version, tile) of a side tile taken


@dataclass
class _Coach:
    limit: int
    budget: int
    indicator: int = -1
    notes: list[Note] = field(default_factory=list)
    truncated: bool = False
    spent: int = 0
    turn: _Turn = field(default_factory=_Turn)
    last_discard: dict[int, tuple[int, int]] = field(default_factory=dict)  # seat -> (version, tile)
    okey_turns: dict[int, int] = field(default_factory=dict)  # seat -> turns ended holding an okey
    could_open: dict[int, bool] = field(default_factory=dict)  # 101: seat -> could open at its last turn

    def spend(self) -> bool:
        """One question to the solver, if the budget allows it."""
        if self.spent >= self.budget:
            self.truncated = True
            return False
        self.spent += 1
        return True

    def add(self, note: Note) -> None:
        if len(self.notes) >= self.limit:
            self.truncated = True
            return
        self.notes.append(note)

    def names(self, tile: int) -> tuple[str, str]:
        return tile_name(tile, self.indicator)


def coach(
    events: Sequence[tuple[int, Event]],
    hand: int,
    limit: int = 200,
    budget: int = 5000,
    before: tuple[Any, int] | None = None,
) -> Coaching:
    """``events``: the table's whole log up to (at least) the end of ``hand``, as (version, okeycore event),
    starting with TableCreated (which carries the options). Raises ValueError if the hand has not ended in them.

    A 101 hand dealt again after a void one [O-PEN-4] keeps its number: the last deal of that
    number that ended is coached. ``before``: the state after folding ``events[:n]`` and ``n`` (at
    most the hand's start), as an earlier call's ``Coaching.after`` gives it."""
    if not events or not isinstance(events[0][1], TableCreated):
        raise ValueError("the log must start with TableCreated")
    start, end = _find_hand(events, hand)
    created = events[0][1]
    assert isinstance(created, TableCreated)
    engine = engine_for(created.options.game)
    if before is not None and before[1] <= start:
        state: Any = before[0]
        for _, e in events[before[1] : start]:
            state = engine.evolve(state, e)
    else:
        state = engine.fold(None, [e for _, e in events[:start]])
    c = _Coach(limit=max(0, limit), budget=max(0, budget))
    for i in range(start, end + 1):
        version, event = events[i]
        after: Any = engine.evolve(state, event)
        if isinstance(event, HandStarted):
            c.indicator = event.indicator
            c.turn = _Turn(seat=event.starter)
        elif isinstance(state, ClassicState):
            _classic_step(c, state, version, event, events[i - 1][1])
        elif isinstance(state, Okey101State):
            _step_101(c, state, version, event, events[i - 1][1])
        state = after
    notes = sorted(c.notes, key=lambda n: n.version)  # stable: the order they were found in within a version
    return Coaching(tuple(notes), c.truncated, (state, end + 1))


def _find_hand(events: Sequence[tuple[int, Event]], hand: int) -> tuple[int, int]:
    """Indices of the last deal of ``hand`` that ended, and of its end event."""
    found: tuple[int, int] | None = None
    start = -1
    for i, (_, e) in enumerate(events):
        if isinstance(e, HandStarted):
            start = i if e.hand == hand else -1
        elif start >= 0 and isinstance(e, HandEnd | HandVoided) and e.hand == hand:
            found = (start, i)
            start = -1
    if found is None:
        raise ValueError(f"hand {hand} has not ended in these events")
    return found


# ------------------------------------------------------------------------------ both games


def _discarded(c: _Coach, seat: int, version: int, tile: int, rack: tuple[int, ...]) -> None:
    """A seat's turn ended with a discard: the okeys it kept, and the next turn's start."""
    if any(t != tile and is_real_okey(t, c.indicator) for t in rack):
        c.okey_turns[seat] = c.okey_turns.get(seat, 0) + 1
    c.last_discard[seat] = (version, tile)


def _taken(c: _Coach, seat: int, seats: int, tile: int) -> None:
    left = (seat - 1) % seats
    last = c.last_discard.get(left)
    if last is not None and last[1] == tile:
        c.turn.taken = (left, last[0], tile)


def _hand_end(c: _Coach, version: int, finisher: int, racks: tuple[tuple[int, ...], ...]) -> None:
    """GAVE_FINISH for the discard the finisher took, OKEY_HELD for the others (``racks``: as
    the hand ended; the note names the okeys still held)."""
    taken = c.turn.taken
    if finisher >= 0 and finisher == c.turn.seat and taken is not None:
        giver, at, tile = taken
        tr, en = c.names(tile)
        c.add(
            Note(
                at,
                giver,
                GAVE_FINISH,
                f"Attığın taşı alan oyuncu bitirdi: {tr}. (The next player took your discard, {en}, and finished.)",
                True,
                (tile,),
            )
        )
    for seat, rack in enumerate(racks):
        n = c.okey_turns.get(seat, 0)
        if seat == finisher or n < OKEY_HELD_TURNS:
            continue
        c.add(
            Note(
                version,
                seat,
                OKEY_HELD,
                f"Okeyi {n} tur elinde tuttun, el senin bitirmenle bitmedi. "
                f"(You held the okey for {n} turns and the hand ended without your finish.)",
                False,
                tuple(t for t in rack if is_real_okey(t, c.indicator)),
                turns=n,
            )
        )


def _penalised(c: _Coach, version: int, e: PenaltyApplied, prev: Event) -> None:
    if not (isinstance(prev, TileDiscarded) and prev.seat == e.seat):
        return  # not a discard's (an invalid finish [C-SC-6])
    tr, en = c.names(prev.tile)
    if e.reason == "OKEY_DISCARDED":
        text = f"Okey attın: {tr}, {e.points} ceza. (You discarded an okey, {en}: a penalty of {e.points}.)"
    elif e.reason == "OKEY_TAKER_DISCARDED":
        text = (
            f"Masadaki okeyi alabilecek taşı attın: {tr}, {e.points} ceza. "
            f"(You discarded {en}, which could take an okey back from the table: a penalty of {e.points}.)"
        )
    else:
        text = (
            f"İşlenebilecek taşı attın: {tr}, {e.points} ceza. "
            f"(You discarded {en}, which could be added to a meld on the table: a penalty of {e.points}.)"
        )
    c.add(Note(version, e.seat, PENALISED_DISCARD, text, False, (prev.tile,), points=e.points))


def _missed(c: _Coach, version: int, seat: int, tiles: Sequence[int]) -> None:
    tr, en = c.names(tiles[0])
    c.add(
        Note(
            version,
            seat,
            MISSED_FINISH,
            f"Bu taşla bitirebilirdin: {tr}. (You could have finished by discarding {en}.)",
            False,
            tuple(tiles),
        )
    )


def _side_missed(c: _Coach) -> None:
    if c.turn.side_miss is None:
        return
    at, tile = c.turn.side_miss
    c.turn.side_miss = None
    tr, en = c.names(tile)
    c.add(
        Note(
            at,
            c.turn.seat,
            MISSED_FINISH,
            f"Yandaki taşı alsaydın bitirebilirdin: {tr}. (Taking the side tile {en} would have let you finish.)",
            False,
            (tile,),
        )
    )


# ------------------------------------------------------------------------------ classic


def _classic_step(c: _Coach, s: ClassicState, version: int, e: Event, prev: Event) -> None:
    """One event of a classic hand, ``s`` the state before it."""
    if isinstance(e, TileDrawn):
        if e.source is DrawSource.DISCARD:
            _taken(c, e.seat, 4, e.tile)
        elif s.stage is ClassicStage.DRAW:
            left = s.seats[s.left_of(e.seat)].pile
            if left and c.spend():
                rack = s.seats[e.seat].rack + (left[-1],)
                if finishing_tiles(rack, s.indicator, pairs_only(s, e.seat)):
                    c.turn.side_miss = (version, left[-1])  # noted unless this turn finishes
    elif isinstance(e, TileDiscarded):
        seat = s.seats[e.seat]
        if not seat.turned and c.spend():  # turning to okey is a choice to wait [C-DON-1]
            fin = finishing_tiles(seat.rack, s.indicator, pairs_only(s, e.seat))
            if fin:
                _missed(c, version, e.seat, fin)
        _side_missed(c)
        _discarded(c, e.seat, version, e.tile, seat.rack)
        c.turn = _Turn(seat=e.next_seat)
    elif isinstance(e, PenaltyApplied):
        _penalised(c, version, e, prev)
    elif isinstance(e, HandEnded):
        if e.reason is HandEndReason.FINISHED:
            c.turn.side_miss = None
        elif c.turn.seat >= 0:  # not a discard that ended the hand: the seat on turn passed
            _passed(c, s, version)
        _side_missed(c)
        _hand_end(c, version, e.finisher, e.racks)


def _passed(c: _Coach, s: ClassicState, version: int) -> None:
    """The deck was empty and the seat on turn passed [C-DECK-3]: with the side tile it held
    (it may only be taken to finish), or it did not take, it could have finished."""
    seat = s.seats[s.turn]
    if seat.turned or not c.spend():
        return
    rack = seat.rack
    if s.stage is ClassicStage.LAST_CHANCE:
        left = s.seats[s.left_of(s.turn)].pile
        if not left:
            return
        if finishing_tiles(rack + (left[-1],), s.indicator, pairs_only(s, s.turn)):
            c.turn.side_miss = (version, left[-1])
        return
    if s.stage is ClassicStage.LAST_CHANCE_TAKEN:
        fin = finishing_tiles(rack, s.indicator, pairs_only(s, s.turn))
        if fin:
            _missed(c, version, s.turn, fin)


# ------------------------------------------------------------------------------ Okey 101


def _step_101(c: _Coach, s: Okey101State, version: int, e: Event, prev: Event) -> None:
    """One event of a 101 hand, ``s`` the state before it."""
    n = s.seat_count
    if isinstance(e, TileDrawn):
        if e.source is DrawSource.DISCARD:
            _taken(c, e.seat, n, e.tile)
    elif isinstance(e, TileReturned):
        c.turn.taken = None
    elif isinstance(e, TileDiscarded):
        seat = s.seats[e.seat]
        if len(seat.rack) > 1 and s.stage is Stage101.PLAY:
            fin = _finish_101(c, s, e.seat)
            if fin:
                _missed(c, version, e.seat, fin)
            if seat.opening is Opening.NONE:
                _opening_101(c, s, version, e.seat)
        _discarded(c, e.seat, version, e.tile, seat.rack)
        if e.next_seat >= 0:  # else the hand ends: a finish keeps the turn's side tile for GAVE_FINISH
            c.turn = _Turn(seat=e.next_seat)
    elif isinstance(e, PenaltyApplied):
        _penalised(c, version, e, prev)
    elif isinstance(e, HandEnded101):
        _hand_end(c, version, e.finisher if e.reason is HandEndReason.FINISHED else -1, e.racks)
    elif isinstance(e, HandVoided):
        _hand_end(c, version, -1, e.racks)


def _opening_101(c: _Coach, s: Okey101State, version: int, seat: int) -> None:
    """The seat ends a turn unopened: could its rack have opened [O-OPEN-1] [O-OPEN-2]?"""
    if c.budget - c.spent < 2:
        c.truncated = True
        return
    c.spent += 2
    rack = s.seats[seat].rack
    runs = run_opening(rack, s.indicator, s.options.wrap, s.run_threshold)
    pairs = pair_opening(rack, s.indicator, s.pair_threshold)
    possible = runs.enough or pairs.enough
    before = c.could_open.get(seat, False)
    c.could_open[seat] = possible
    if not possible or before:
        return
    if runs.enough:
        tiles = tuple(t for m in runs.melds for t in m)
        text = (
            f"Elini açabilirdin: {runs.total} sayı (eşik {s.run_threshold}). "
            f"(You could have opened with {runs.total} points; {s.run_threshold} were needed.)"
        )
        c.add(Note(version, seat, MISSED_OPENING, text, False, tiles, points=runs.total))
        return
    tiles = tuple(t for m in pairs.melds for t in m)
    text = (
        f"Çiftten açabilirdin: {pairs.total} çift (eşik {s.pair_threshold}). "
        f"(You could have opened with {pairs.total} pairs; {s.pair_threshold} were needed.)"
    )
    c.add(Note(version, seat, MISSED_OPENING, text, False, tiles, points=pairs.total))


def _finish_101(c: _Coach, s: Okey101State, seat: int) -> list[int]:
    """The tiles (one id per face) whose discard would have finished: every other tile of the
    rack laid now in new melds the seat may lay [O-OPEN-1..3] [O-ADD-2]. Adds to table melds
    are not searched."""
    me = s.seats[seat]
    rack = me.rack
    if not c.spend():
        return []
    return finish_101_tiles(rack, s.indicator, s.options.wrap, me.opening, s.run_threshold, s.pair_threshold)


def finish_101_tiles(
    rack: Sequence[int], indicator: int, wrap: bool, opening: Opening, run_threshold: int, pair_threshold: int
) -> list[int]:
    """Which tiles of a 101 rack could be discarded to finish with every other tile laid in new
    melds: runs and groups (worth ``run_threshold`` unless the seat opened with runs), or pairs
    (at least ``pair_threshold`` of them unless it opened with pairs); one id per face."""
    x, j = rack_packed(rack, indicator)
    size = len(rack) - 1
    runs_ok = opening is not Opening.PAIRS and M.can_cover(x, j, 1, wrap)
    pairs_need = 0 if opening is Opening.PAIRS else pair_threshold
    pairs_ok = opening is not Opening.RUNS and size % 2 == 0 and M.count_pairs(x, j) >= max(size // 2, pairs_need)
    if not runs_ok and not pairs_ok:
        return []
    table = effective_table(indicator)
    out: list[int] = []
    seen: set[int] = set()
    for t in rack:
        e = table[t]
        if e in seen:
            continue
        seen.add(e)
        y, k = (x, j - 1) if e < 0 else (x - (1 << (2 * e)), j)
        by_pairs = pairs_ok and M.count_pairs(y, k) * 2 >= size and M.count_pairs(y, k) >= pairs_need
        if by_pairs or (
            runs_ok
            and M.can_cover(y, k, 0, wrap)
            and (opening is Opening.RUNS or _cover_value(y, k, wrap) >= run_threshold)
        ):
            out.append(t)
    return out


def _cover_value(x: int, j: int, wrap: bool) -> int:
    """The most points of a cover laying every tile (the caller knows one exists): the search
    maximises tiles first, then points."""
    total, _ = M._maximise(x, j, wrap, lambda size, pts: size * 1000 + pts, False)
    return total % 1000

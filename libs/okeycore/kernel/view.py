"""What a seat is told of the parts every table shares (RULES.md section 7), and the events
as a seat may receive them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from ..options import RULES_VERSION, TableOptions
from ..tiles import Face, face_of_id, okey_face
from .events import DrawSource, Event, HandStarted, MatchEnded, TileDrawn
from .lines import HandBreakdown
from .state import Phase, Seat, TableState

__all__ = ["Allowed", "SeatPublicBase", "SeatPublics", "TableView", "table_view", "seat_public", "public_event"]


class Allowed:
    """The seat commands (by name) a seat may send now, each asked of ``can`` when it is read:
    ``"Draw" in allowed`` asks about that command alone, iterating asks about every one, and an
    answer is kept. A view is built for every bot decision, and most read one name or none, so
    the engine's checks (some run the solver) are paid for only where they are used.

    It reads as the tuple of the allowed names: equal to it, hashed like it, iterated in order."""

    __slots__ = ("_check", "_known", "_names")

    def __init__(self, names: tuple[str, ...] = (), check: Callable[[str], bool] | None = None) -> None:
        self._names = names  # the answer itself, or (with ``check``) the names to ask about
        self._check = check
        self._known: dict[str, bool] = {}

    def __contains__(self, name: object) -> bool:
        if self._check is None or not isinstance(name, str):
            return name in self._names
        got = self._known.get(name)
        if got is None:
            got = self._known[name] = name in self._names and self._check(name)
        return got

    def only(self, names: Iterable[str]) -> Allowed:
        """The same answers for ``names`` alone: the others are not asked about, nor listed."""
        keep = frozenset(names)
        out = Allowed(tuple(n for n in self._names if n in keep), self._check)
        out._known = self._known  # the answers already asked of this state's checks hold
        return out

    def names(self) -> tuple[str, ...]:
        if self._check is None:
            return self._names
        return tuple(n for n in self._names if n in self)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Allowed):
            return self.names() == other.names()
        return isinstance(other, tuple) and self.names() == other

    def __hash__(self) -> int:
        return hash(self.names())

    def __repr__(self) -> str:
        return repr(self.names())


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatPublicBase:
    """What everybody may know about one seat, in every game; each game's adds its own."""

    seat: int
    tiles: int
    pile: tuple[int, ...]  # the visible part of the discard pile, top last
    score: int
    autopilot: bool
    rack: tuple[int, ...] | None  # revealed only once the hand has ended
    left: bool = False  # its player left the match: a bot plays it to the end [D-10]
    disconnected: bool = False  # its person has no connection now; every seat sees it [D-11]


@dataclass(frozen=True, slots=True, kw_only=True)
class TableView:
    """One seat's (or a spectator's, ``seat=None``) picture of the parts every table shares;
    each game's view adds its own (the stage, the seats, the last hand)."""

    table_id: str
    version: int
    options: TableOptions
    phase: Phase
    hand: int
    seat: int | None
    rack: tuple[int, ...]
    indicator: int
    deck_count: int
    turn: int
    deadline_ms: int
    timed_out: bool
    side_tile: int  # the left seat's discard this seat could take now, else -1
    result: MatchEnded | None
    rules_version: int = RULES_VERSION  # the rules the table plays under
    # The seat commands (by name) this seat may send now, each asked of ``can``: what a client
    # enables. A spectator may send none. A tuple when the view came over the wire.
    allowed: tuple[str, ...] | Allowed = ()
    # Between hands: when the next hand is dealt (0: no break), and the seats ready [P-BREAK-1].
    break_due_ms: int = 0
    ready: tuple[int, ...] = ()
    # The indicator of the last hand that ended (-1: none yet): its result is shown with its own
    # okey, not the next hand's.
    last_hand_indicator: int = -1
    # Every score change of the last hand that ended, one line each, with why (None before the
    # first): what an end-of-hand screen draws, adding up nothing itself.
    last_hand_breakdown: HandBreakdown | None = None

    @property
    def okey(self) -> Face | None:
        return okey_face(face_of_id(self.indicator)) if self.indicator >= 0 else None

    @property
    def last_hand_okey(self) -> Face | None:
        return okey_face(face_of_id(self.last_hand_indicator)) if self.last_hand_indicator >= 0 else None


def table_view(state: TableState[Any], seat: int | None, allowed: Allowed) -> dict[str, Any]:
    """The fields of ``TableView`` that are the same in every game, but the side tile."""
    return {
        "table_id": state.table_id,
        "version": state.version,
        "options": state.options,
        "phase": state.phase,
        "hand": state.hand,
        "seat": seat,
        "rack": state.seats[seat].rack if seat is not None else (),
        "indicator": state.indicator,
        "deck_count": len(state.deck),
        "turn": state.turn,
        "deadline_ms": state.deadline_ms,
        "timed_out": state.timed_out,
        "result": state.result,
        "rules_version": state.rules_version,
        "allowed": allowed,
        "break_due_ms": state.break_due_ms if state.in_break else 0,
        "ready": state.ready if state.in_break else (),
        "last_hand_indicator": _last_hand_indicator(state),
        "last_hand_breakdown": state.last_breakdown,
    }


def _last_hand_indicator(state: TableState[Any]) -> int:
    if state.phase is Phase.PLAYING:
        return state.last_indicator
    return state.indicator if state.phase is not Phase.NEW else -1


def seat_public(i: int, s: Seat, hidden: bool) -> dict[str, Any]:
    """The fields of ``SeatPublicBase`` of seat ``i`` that are the same in every game, but the pile:
    never another rack while the hand runs (``hidden``)."""
    return {
        "seat": i,
        "tiles": len(s.rack),
        "score": s.score,
        "autopilot": s.autopilot,
        "rack": None if hidden else s.rack,
        "left": s.left,
        "disconnected": s.disconnected,
    }


P = TypeVar("P", bound=SeatPublicBase)


class SeatPublics(Generic[P]):
    """Every seat's public record for a view, each built by the game's ``build(i, seat, hidden,
    pile)`` only when that seat's state, the hiding of racks or the pile it shows has changed.

    A view is built for every bot decision and for every watcher after every event, and one
    event changes one seat or two: states are immutable and replaced on change, so the record
    of a seat whose state object is the same is the same record. The memo holds the seat state
    it was built from (so its id cannot be reused while the entry lives) and is emptied when
    it grows past ``size`` entries; records are frozen, so views may share them."""

    __slots__ = ("_build", "_memo", "_size")

    def __init__(self, build: Callable[[int, Any, bool, tuple[int, ...]], P], size: int = 4096) -> None:
        self._build = build
        self._memo: dict[tuple[int, int], tuple[Seat, bool, tuple[int, ...], P]] = {}
        self._size = size

    def __call__(self, state: TableState[Any], pile: Callable[[int], tuple[int, ...]] | None = None) -> tuple[P, ...]:
        """The records of ``state``'s seats; ``pile(i)`` is the part of seat ``i``'s discards this
        view shows (all of them by default)."""
        hidden = state.phase is Phase.PLAYING or state.phase is Phase.NEW
        memo = self._memo
        out: list[P] = []
        for i, s in enumerate(state.seats):
            shown = s.pile if pile is None else pile(i)
            key = (i, id(s))
            got = memo.get(key)
            if got is not None and got[0] is s and got[1] is hidden and (got[2] is shown or got[2] == shown):
                out.append(got[3])
                continue
            record = self._build(i, s, hidden, shown)
            if len(memo) >= self._size:
                memo.clear()
            memo[key] = (s, hidden, shown, record)
            out.append(record)
        return tuple(out)

    def clear(self) -> None:
        self._memo.clear()


def public_event(event: Event, viewer: int | None) -> Event:
    """The event as ``viewer`` may receive it: others' dealt racks, the deck order and others'
    deck draws are blanked (-1) until the hand's end reveals them [C-DEAL-3]."""
    if isinstance(event, HandStarted):
        racks = tuple(r if i == viewer else tuple(-1 for _ in r) for i, r in enumerate(event.racks))
        return replace(event, racks=racks, deck=tuple(-1 for _ in event.deck), order=(), salt="")
    if isinstance(event, TileDrawn) and event.source is DrawSource.DECK and event.seat != viewer:
        return replace(event, tile=-1)
    return event

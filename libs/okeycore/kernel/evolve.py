"""Folding events into state: the kernel's own steps, and the game's steps beside them.

A step is ``(state, event) -> state``: pure, one ``replace`` of the state (and of the seats it
touches), so folding a table's events rebuilds it exactly and stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar

from ..options import TableOptions
from .events import (
    AutopilotEnded,
    BreakStarted,
    Event,
    HandStarted,
    MatchEnded,
    SeatDisconnected,
    SeatLeft,
    SeatReady,
    SeatReconnected,
    TableCreated,
    TileDiscarded,
    TurnTimedOut,
)
from .state import Phase, Seat, SeatT, TableState, set_seat, update, without

__all__ = ["Step", "Steps", "Evolver", "add_scores", "hand_over"]

S = TypeVar("S", bound=TableState[Any])
Step = Callable[[S, Any], S]
G = TypeVar("G", bound=Callable[..., Any])


class Steps(Generic[S]):
    """A game's own steps, by the event each applies: ``@STEPS(TileDrawn)`` above a step declares it."""

    def __init__(self) -> None:
        self.by_event: dict[type[Event], Step[S]] = {}

    def __call__(self, event: type[Event]) -> Callable[[G], G]:
        def declare(fn: G) -> G:
            self.by_event[event] = fn
            return fn

        return declare


def add_scores(seats: tuple[SeatT, ...], deltas: tuple[int, ...], **changes: Any) -> tuple[SeatT, ...]:
    """Every seat's score moved by its delta (and ``changes`` made to every seat)."""
    return tuple(update(seat, score=seat.score + d, **changes) for seat, d in zip(seats, deltas, strict=True))


def hand_over(state: S, seats: tuple[Any, ...], **changes: Any) -> S:
    """The hand is over: no turn runs, no deadline."""
    return update(state, seats=seats, version=state.version + 1, phase=Phase.HAND_OVER, deadline_ms=0, **changes)


class Evolver(Generic[S]):
    """``evolve`` and ``fold`` of one game.

    ``state`` is the game's state class and ``new_seat`` a seat as a table of these options opens
    (a ``TableCreated``); ``own`` are the game's steps;
    ``next_turn`` is what a game resets when the turn passes, ``next_turn_deck_empty`` when it
    passes with the deck empty (classic's last chance [C-DECK-3]); ``new_hand`` what it resets
    when a hand is dealt; ``discard_seat`` what else a discard changes in the discarder's seat.
    Plain data, not hooks: a discard is the commonest event of all."""

    def __init__(
        self,
        title: str,
        state: Callable[..., S],
        new_seat: Callable[[TableOptions], Seat],
        own: Steps[S],
        next_turn: Mapping[str, Any],
        new_hand: Mapping[str, Any],
        next_turn_deck_empty: Mapping[str, Any] | None = None,
        discard_seat: Mapping[str, Any] | None = None,
    ) -> None:
        self.title = title
        self._state = state
        self._new_seat = new_seat
        self._next_turn = dict(next_turn)
        self._next_turn_deck_empty = dict(next_turn if next_turn_deck_empty is None else next_turn_deck_empty)
        self._new_hand = dict(new_hand)
        self._discard_seat = dict(discard_seat or {})
        kernel: dict[type[Event], Step[S]] = {
            TileDiscarded: self._discarded,
            HandStarted: self._hand_started,
            TurnTimedOut: _timed_out,
            AutopilotEnded: _autopilot_ended,
            MatchEnded: _match_ended,
            SeatLeft: _seat_left,
            BreakStarted: _break_started,
            SeatReady: _seat_ready,
            SeatDisconnected: _seat_disconnected,
            SeatReconnected: _seat_reconnected,
            TableCreated: self._created,
        }
        self._steps: dict[type[Event], Step[S]] = {**kernel, **own.by_event}

    def evolve(self, state: S | None, event: Event) -> S:
        """Apply one event. Pure; folding a table's events rebuilds its state exactly."""
        step = self._steps.get(type(event))
        if step is None or state is None:
            return self._first(state, event)
        return step(state, event)

    def fold(self, state: S | None, events: Iterable[Event]) -> S:
        steps = self._steps
        s = state
        for e in events:
            step = steps.get(type(e))
            s = self._first(s, e) if step is None or s is None else step(s, e)
        assert s is not None
        return s

    def _first(self, state: S | None, event: Event) -> S:
        """A table's first event, or one this game cannot apply."""
        if type(event) is TableCreated:
            return self._created(state, event)
        if state is None:
            raise AssertionError("the first event of a table is TableCreated")
        raise ValueError(f"{self.title} cannot apply a {event.type} event")

    # ------------------------------------------------------------ the kernel's steps

    def _created(self, state: S | None, e: TableCreated) -> S:
        return self._state(
            table_id=e.table_id,
            options=e.options,
            seats=tuple(self._new_seat(e.options) for _ in range(e.options.seat_count)),
            version=1,
            players=e.players,
            rules_version=e.rules_version,
        )

    def _discarded(self, s: S, e: TileDiscarded) -> S:
        seat = s.seats[e.seat]
        # A discard of the seat's own ends its run of timeouts [C-TIME-2]; a forced one does not.
        timeouts = seat.timeouts if (s.timed_out or seat.autopilot) else 0
        changed = update(
            seat, rack=without(seat.rack, e.tile), pile=(*seat.pile, e.tile), timeouts=timeouts, **self._discard_seat
        )
        seats = set_seat(s.seats, e.seat, changed)
        if e.next_seat < 0:
            return update(s, seats=seats, version=s.version + 1)
        return update(
            s,
            seats=seats,
            version=s.version + 1,
            turn=e.next_seat,
            deadline_ms=e.deadline_ms,
            timed_out=False,
            **(self._next_turn if s.deck else self._next_turn_deck_empty),
        )

    def _hand_started(self, s: S, e: HandStarted) -> S:
        # Scores, timeouts, autopilot, a leave and a lost connection carry over from hand to hand;
        # the rest of a seat is new.
        seats = tuple(
            type(old)(
                rack=e.racks[i],
                score=old.score,
                timeouts=old.timeouts,
                autopilot=old.autopilot,
                left=old.left,
                disconnected=old.disconnected,
            )
            for i, old in enumerate(s.seats)
        )
        return update(
            s,
            seats=seats,
            version=s.version + 1,
            phase=Phase.PLAYING,
            hand=e.hand,
            starter=e.starter,
            turn=e.starter,
            indicator=e.indicator,
            deck=e.deck,
            deadline_ms=e.deadline_ms,
            timed_out=False,
            deal_order=e.order,
            deal_salt=e.salt,
            break_due_ms=0,
            ready=(),
            hand_lines=(),
            # The finished hand's indicator, for its result (a voided 101 hand dealt again: the same).
            last_indicator=s.indicator if e.hand != s.hand else s.last_indicator,
            **self._new_hand,
        )


def _timed_out(s: S, e: TurnTimedOut) -> S:
    seat: Seat = s.seats[e.seat]
    seats = set_seat(s.seats, e.seat, update(seat, timeouts=e.consecutive, autopilot=e.autopilot))
    return update(s, seats=seats, version=s.version + 1, timed_out=True, deadline_ms=e.grace_deadline_ms)


def _autopilot_ended(s: S, e: AutopilotEnded) -> S:
    seat: Seat = s.seats[e.seat]
    seats = set_seat(s.seats, e.seat, update(seat, autopilot=False, timeouts=0))
    return update(s, seats=seats, version=s.version + 1)


def _match_ended(s: S, e: MatchEnded) -> S:
    return update(s, version=s.version + 1, phase=Phase.MATCH_OVER, result=e)


def _seat_left(s: S, e: SeatLeft) -> S:
    """The seat is a bot's from now on: nobody may act for its player any more [D-10]; no person
    sits there, so none is away either [D-11]."""
    seats = set_seat(s.seats, e.seat, update(s.seats[e.seat], left=True, disconnected=False))
    players = tuple("" if i == e.seat else p for i, p in enumerate(s.players))
    return update(s, seats=seats, players=players, version=s.version + 1)


def _break_started(s: S, e: BreakStarted) -> S:
    return update(s, version=s.version + 1, break_due_ms=e.due_ms, ready=())  # [P-BREAK-1]


def _seat_ready(s: S, e: SeatReady) -> S:
    return update(s, version=s.version + 1, ready=(*s.ready, e.seat))  # [P-BREAK-2]


def _seat_disconnected(s: S, e: SeatDisconnected) -> S:
    seats = set_seat(s.seats, e.seat, update(s.seats[e.seat], disconnected=True))  # [D-11]
    return update(s, seats=seats, version=s.version + 1)


def _seat_reconnected(s: S, e: SeatReconnected) -> S:
    seats = set_seat(s.seats, e.seat, update(s.seats[e.seat], disconnected=False))  # [D-11]
    return update(s, seats=seats, version=s.version + 1)

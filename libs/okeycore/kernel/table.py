"""The table's own rules, the same in both games, and the one dispatcher.

``decide`` runs the kernel's checks (is there a table, is the match over), then the command's
decider: the kernel's own for creating the table, dealing, timers, autopilot, take-back, leaving and a
person's connection, the game's table for the rest. A game is data and deciders on top (``GameRules``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ..errors import RuleViolation
from ..fairness import deal_commitment
from ..options import RULES_VERSION, Game, OptionsError
from .commands import (
    Command,
    CreateTable,
    Discard,
    ForceMove,
    LeaveSeat,
    Ready,
    SeatCommand,
    SetConnection,
    StartHand,
    TakeBack,
    TimeOut,
)
from .dealing import DealSpec, deal, is_full_order
from .events import (
    AutopilotEnded,
    BreakStarted,
    Event,
    HandEnd,
    HandStarted,
    MatchEnded,
    SeatDisconnected,
    SeatLeft,
    SeatReady,
    SeatReconnected,
    TableCreated,
    TurnTimedOut,
)
from .state import Phase, TableState
from .view import Allowed

__all__ = [
    "Decision",
    "Decider",
    "Can",
    "SeatCheck",
    "Deciders",
    "GameRules",
    "Dispatcher",
    "violation",
    "is_int",
    "check_seat",
    "check_playing",
    "check_in_hand",
    "check_turn",
    "deadline",
    "BREAK_RULES_VERSION",
    "takes_break",
    "break_holds",
    "split_pot",
    "match_ended",
    "revealed",
    "plain",
    "with_argument",
    "DISCARD",
]

Decision = list[Event] | RuleViolation
S = TypeVar("S", bound=TableState[Any])
Decider = Callable[[S, Any], Decision]
SeatRule = Callable[[Any, int], RuleViolation | None]
"""A kernel check of the acting seat (``check_turn``, ``check_in_hand``)."""
F = TypeVar("F", bound=Callable[..., Decision])
Can = Callable[[Any, Command], RuleViolation | None]
SeatCheck = Callable[[Can, S, int], bool]
"""May this seat send one seat command now? Asked of ``can`` (see ``plain``, ``with_argument``)."""
SeatCheckOf = Callable[[Callable[..., Command]], SeatCheck[S]]


def violation(code: str, message: str) -> RuleViolation:
    return RuleViolation(code, message)


def is_int(x: object) -> bool:
    """A tile id, seat or meld index: an int, and not True or 1.0, which compare equal to 1."""
    return type(x) is int


def check_seat(state: TableState[Any], seat: object) -> RuleViolation | None:
    n = len(state.seats)
    if not is_int(seat) or not 0 <= seat < n:  # type: ignore[operator]
        return violation("INVALID_SEAT", f"seat must be 0..{n - 1}, got {seat!r}")
    return None


def check_playing(state: TableState[Any]) -> RuleViolation | None:
    if state.phase is not Phase.PLAYING:
        return violation("NO_HAND_IN_PROGRESS", "no hand is being played at this table")
    return None


def check_in_hand(state: TableState[Any], seat: object) -> RuleViolation | None:
    """A seat of this table, during a hand (moves made whoever's turn it is)."""
    return check_seat(state, seat) or check_playing(state)


def check_turn(state: TableState[Any], seat: object) -> RuleViolation | None:
    """A seat of this table, during a hand, on its turn."""
    bad = check_in_hand(state, seat)
    if bad:
        return bad
    if state.turn != seat:
        return violation("NOT_YOUR_TURN", f"it is seat {state.turn}'s turn")
    return None


def deadline(state: TableState[Any], now_ms: int) -> int:
    """When a turn starting now runs out (``turn_seconds``) [C-TIME-1]."""
    return now_ms + state.options.turn_seconds * 1000


BREAK_RULES_VERSION = 3
"""The first rules version with a break between hands: an older table deals at once, as its log
was decided [P-BREAK-4]."""


def takes_break(state: TableState[Any]) -> bool:
    """Does a hand's end start a break here: a table of the rules with breaks, a break of more
    than 0 seconds and a person seated; a bot-only table deals at once [P-BREAK-4]."""
    return state.rules_version >= BREAK_RULES_VERSION and state.options.hand_break_seconds > 0 and bool(state.persons)


def break_holds(state: TableState[Any], now_ms: int) -> bool:
    """Does the break between hands still hold the next deal back at ``now_ms``: it is not due
    and some person has not said Ready [P-BREAK-3]."""
    return state.in_break and now_ms < state.break_due_ms and not set(state.persons) <= set(state.ready)


def _with_break(state: TableState[Any], events: list[Event], now_ms: int) -> list[Event]:
    """A hand's end that does not end the match is followed by the break [P-BREAK-1]."""
    ended = next((e for e in events if isinstance(e, HandEnd)), None)
    if ended is None or not takes_break(state) or any(isinstance(e, MatchEnded) for e in events):
        return events
    return [*events, BreakStarted(ended.hand, now_ms + state.options.hand_break_seconds * 1000)]


def split_pot(pot: int, winners: int) -> tuple[int, int]:
    """Equal shares rounded down, and the remainder [C-SC-9] [O-DEAL-3]."""
    if winners <= 0:
        return 0, pot
    share = pot // winners
    return share, pot - share * winners


def match_ended(scores: tuple[int, ...], winners: tuple[int, ...], pot: int) -> MatchEnded:
    """The match's end: the winners share the pot, the remainder is rounded away [C-SC-9]."""
    payout, remainder = split_pot(pot, len(winners))
    return MatchEnded(scores, winners, pot, payout, remainder)


def revealed(state: TableState[Any]) -> dict[str, Any]:
    """What a hand's end makes public: every rack, the rest of the deck, and the deal's order and
    salt (the commitment can be checked now) [C-DEAL-3]."""
    return {
        "racks": tuple(s.rack for s in state.seats),
        "deck": state.deck,
        "order": state.deal_order,
        "salt": state.deal_salt,
    }


def _rotate(state: TableState[Any]) -> tuple[int, int]:
    return (state.starter + 1) % len(state.seats), state.hand + 1  # [C-DEAL-2]


def _no_events(state: TableState[Any]) -> list[Event]:
    return []


class Deciders(Generic[S]):
    """A game's own deciders, by the command each decides, in the order they are declared; for a
    seat command also how to ask whether a seat may send it now (``plain``, ``with_argument``).

    ``@DECIDERS(Draw, needs=check_turn, seat=True)`` above a decider declares it: the kernel's check
    the acting seat passes first (``check_turn``, ``check_in_hand``), and that a seat may send it
    when ``can`` accepts it (``seat=with_argument(...)`` for a command with an argument)."""

    def __init__(self) -> None:
        self.by_command: dict[type[Command], tuple[SeatRule | None, Decider[S]]] = {}
        self.seat_commands: dict[str, SeatCheck[S]] = {}

    def __call__(
        self, command: type[SeatCommand], needs: SeatRule | None = None, seat: bool | SeatCheckOf[S] = False
    ) -> Callable[[F], F]:
        def declare(fn: F) -> F:
            self.by_command[command] = (needs, fn)
            if seat is not False:
                self.seat_commands[command.__name__] = plain(command) if seat is True else seat(command)
            return fn

        return declare


@dataclass(frozen=True, slots=True)
class GameRules(Generic[S]):
    """One game on the kernel: its name, its deal, its own deciders, the forced move of a timed
    out turn, and how the next deal is chosen."""

    game: Game
    title: str  # "classic Okey", for messages
    deal: DealSpec
    deciders: Deciders[S]
    forced_move: Callable[[S, int], Decision]  # (state, now_ms): the minimal legal move [C-TIME-1]
    next_deal: Callable[[S], tuple[int, int]] = _rotate  # the next hand's (starter, number)
    after_time_out: Callable[[S], list[Event]] = _no_events  # what follows a TurnTimedOut at once


class Dispatcher(Generic[S]):
    """``decide`` and ``can`` of one game: the kernel's deciders and the game's."""

    def __init__(self, rules: GameRules[S]) -> None:
        self.rules = rules
        kernel: dict[type[Command], tuple[SeatRule | None, Decider[S]]] = {
            StartHand: (None, self._start_hand),
            TimeOut: (None, self._time_out),
            ForceMove: (None, self._force_move),
            TakeBack: (check_seat, self._take_back),
            LeaveSeat: (check_seat, self._leave_seat),
            Ready: (check_seat, self._ready),
            SetConnection: (check_seat, self._set_connection),
        }
        self._deciders = {**kernel, **rules.deciders.by_command}
        self._seat_commands: dict[str, SeatCheck[S]] = {
            **rules.deciders.seat_commands,
            "TakeBack": plain(TakeBack),
            "LeaveSeat": plain(LeaveSeat),
            "Ready": plain(Ready),
        }
        self._seat_command_names = tuple(self._seat_commands)  # fixed per game: not rebuilt per view

    def decide(self, state: S | None, command: Command) -> Decision:
        """The events a command produces, or the rule it breaks. Never raises on bad input."""
        if isinstance(command, CreateTable):
            return self._create(state, command)
        if state is None:
            return violation("NO_TABLE", "the table does not exist")
        if state.phase is Phase.MATCH_OVER:
            return violation("MATCH_OVER", "the match is over")
        entry = self._deciders.get(type(command))
        if entry is None:
            return violation("UNKNOWN_COMMAND", f"{type(command).__name__} is not a command of {self.rules.title}")
        needs, fn = entry
        if needs is not None:
            bad = needs(state, command.seat)  # type: ignore[attr-defined]  # a seat command's
            if bad:
                return bad
        got = fn(state, command)
        return _with_break(state, got, command.now_ms) if isinstance(got, list) and got else got

    def can(self, state: S | None, command: Command) -> RuleViolation | None:
        """None when ``command`` would be accepted now, else the rule it breaks (ask before acting)."""
        got = self.decide(state, command)
        return got if isinstance(got, RuleViolation) else None

    def allowed(self, state: S, seat: int | None) -> Allowed:
        """The names of the seat commands ``seat`` may send now: those with a form ``can`` accepts,
        each asked when it is read (``Allowed``)."""
        if seat is None:
            return Allowed()
        checks = self._seat_commands
        return Allowed(self._seat_command_names, lambda name: checks[name](self.can, state, seat))

    # ------------------------------------------------------------ the kernel's deciders

    def _create(self, state: S | None, cmd: CreateTable) -> Decision:
        if state is not None:
            return violation("TABLE_EXISTS", "this table has already been created")
        if not cmd.table_id:
            return violation("INVALID_TABLE_ID", "a table needs an id")
        try:
            opts = cmd.options.validated()
        except OptionsError as exc:
            return violation("INVALID_OPTIONS", str(exc))
        if opts.game is not self.rules.game:
            return violation(
                "WRONG_GAME", f"this engine plays {self.rules.title}, not {opts.game.value}: use that game's engine"
            )
        n = opts.seat_count
        if cmd.players and len(cmd.players) != n:
            return violation("INVALID_SEATS", f"a table of {self.rules.title} with these options has exactly {n} seats")
        players = tuple(cmd.players) or ("",) * n
        return [TableCreated(cmd.table_id, opts, players, rules_version=RULES_VERSION, public=cmd.public)]

    def _start_hand(self, state: S, cmd: StartHand) -> Decision:
        if state.phase is Phase.PLAYING:
            return violation("HAND_IN_PROGRESS", "a hand is already being played")
        if break_holds(state, cmd.now_ms):
            return violation("NOT_DUE", "the break between hands is not over yet")  # [P-BREAK-3]
        if not is_full_order(cmd.order):
            return violation("BAD_DEAL", "a deal must order each of the 106 tile ids exactly once")
        n = len(state.seats)
        if state.hand == 0:
            if not is_int(cmd.first_starter) or not 0 <= cmd.first_starter < n:
                return violation("INVALID_SEAT", f"the first starter must be seat 0..{n - 1}")
            starter, hand = cmd.first_starter, 1
        else:
            starter, hand = self.rules.next_deal(state)
        racks, indicator, deck = deal(cmd.order, starter, n, self.rules.deal)
        return [
            HandStarted(
                hand,
                starter,
                racks,
                indicator,
                deck,
                deadline(state, cmd.now_ms),
                commitment=deal_commitment(cmd.order, cmd.salt),
                order=tuple(cmd.order),
                salt=cmd.salt,
            )
        ]

    def _time_out(self, state: S, cmd: TimeOut) -> Decision:
        bad = check_playing(state)
        if bad:
            return bad
        if state.timed_out:
            return violation("ALREADY_TIMED_OUT", "this turn has already timed out")
        if cmd.now_ms < state.deadline_ms:
            return violation("NOT_DUE", "the turn's time has not run out yet")
        seat = state.seats[state.turn]
        n = seat.timeouts + 1
        # Autopilot on the third timeout in a row [C-TIME-2]; at once when the person is away [D-11].
        autopilot = seat.autopilot or n >= 3 or seat.disconnected
        timed_out = TurnTimedOut(state.turn, n, autopilot, cmd.now_ms + max(0, cmd.grace_ms))
        return [timed_out, *self.rules.after_time_out(state)]  # [C-TIME-1] [C-TIME-2]

    def _force_move(self, state: S, cmd: ForceMove) -> Decision:
        bad = check_playing(state)
        if bad:
            return bad
        if not state.timed_out or cmd.now_ms < state.deadline_ms:
            return violation("NOT_DUE", "the turn has not timed out, or its grace period has not passed")
        return self.rules.forced_move(state, cmd.now_ms)

    def _take_back(self, state: S, cmd: TakeBack) -> Decision:
        if state.seats[cmd.seat].left:
            return violation("SEAT_LEFT", "the player left this seat; a bot plays it to the end [D-10]")
        if not state.seats[cmd.seat].autopilot:
            return violation("NOT_ON_AUTOPILOT", "this seat is not on autopilot")
        return [AutopilotEnded(cmd.seat)]  # [D-5]

    def _ready(self, state: S, cmd: Ready) -> Decision:
        """A person says they are ready for the next hand; the last one's cuts the break short
        (the table service deals at once) [P-BREAK-2] [P-BREAK-3]."""
        if not state.in_break:
            return violation("NOT_IN_BREAK", "there is no break between hands now")
        if cmd.seat not in state.persons:
            return violation("BOT_SEAT", "a bot plays this seat: it is never waited for")
        if cmd.seat in state.ready:
            return violation("ALREADY_READY", "this seat is already ready for the next hand")
        return [SeatReady(cmd.seat)]

    def _leave_seat(self, state: S, cmd: LeaveSeat) -> Decision:
        """Whenever the match is not over, between hands too; the turn stays where it is (the
        bots play it at once) and no score changes [C-LEAVE-1] [D-10]."""
        if state.seats[cmd.seat].left:
            return violation("ALREADY_LEFT", "the player has already left this seat")
        player = state.players[cmd.seat] if cmd.seat < len(state.players) else ""
        if not player:
            return violation("BOT_SEAT", "a bot plays this seat: there is no player to leave it")
        return [SeatLeft(cmd.seat, player)]

    def _set_connection(self, state: S, cmd: SetConnection) -> Decision:
        """The edge says the person at the seat lost their connection or is back [D-11]: at any
        time the match is not over, between hands too. Only a person's seat has one (a seat left
        is ``SEAT_LEFT`` [D-10], a bot's ``BOT_SEAT``); saying what is already so is accepted
        with no event, since the edge may say it twice."""
        if type(cmd.connected) is not bool:
            return violation("UNKNOWN_COMMAND", f"SetConnection needs connected=True or False, got {cmd.connected!r}")
        seat = state.seats[cmd.seat]
        if seat.left:
            return violation("SEAT_LEFT", "the player left this seat; a bot plays it to the end [D-10]")
        if cmd.seat >= len(state.players) or not state.players[cmd.seat]:
            return violation("BOT_SEAT", "a bot plays this seat: no person is connected to it")
        away = not cmd.connected
        if seat.disconnected is away:
            return []  # already so: the edge said it twice
        return [SeatDisconnected(cmd.seat) if away else SeatReconnected(cmd.seat)]


# ------------------------------------------------------------ which seat commands a seat may send


def plain(command: Callable[..., Command]) -> SeatCheck[Any]:
    """A seat command with no argument beyond the seat: ``can`` answers for it."""

    def check(can: Can, state: Any, seat: int) -> bool:
        return can(state, command(seat=seat)) is None

    return check


def with_argument(code: str, forms: Callable[[S, int], Iterable[Command]]) -> SeatCheckOf[S]:
    """A seat command with an argument (a tile, a meld). Sent with none, it is refused with
    ``code`` exactly when the seat may send it with the right one; then each of ``forms`` is
    asked until one is accepted."""

    def of(command: Callable[..., Command]) -> SeatCheck[S]:
        def check(can: Can, state: S, seat: int) -> bool:
            got = can(state, command(seat=seat))
            if got is None:
                return True
            return got.code == code and any(can(state, c) is None for c in forms(state, seat))

        return check

    return of


def _discard_forms(state: TableState[Any], seat: int) -> Iterator[Command]:
    return (Discard(seat=seat, tile=t) for t in state.seats[seat].rack)


DISCARD: SeatCheckOf[Any] = with_argument("TILE_NOT_IN_RACK", _discard_forms)
"""A discard: of some rack tile."""

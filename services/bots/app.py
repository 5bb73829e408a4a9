"""Bot use cases: from a table event, find the seat a bot must play, and play it through the table API.

A bot plays a seat when the seat is a bot seat (no player: an empty seat, a duel's side seat),
when it is on autopilot [C-TIME-2], or when its turn has timed out [C-TIME-1] [D-4]. It reads
that seat's view only (RULES.md section 7) and asks the strategy for each command until the turn
passes. Each command's id is derived from the table, the view's version and the seat, so when
two replicas play the same turn the table applies the first and turns the second into a
duplicate (or refuses it on the newer state): a turn is never played twice.
"""

from __future__ import annotations

import asyncio
import random
import time
import zlib
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

import grpc
from okeycore.bots import ALLOWED_ASKED
from okeycore.bots101 import Strategy101
from okeycore.commands import Command, Discard
from okeycore.events import EVENT_TYPES, HandStarted, gives_turn, played_by_seat
from okeycore.kernel.events import SeatEvent
from okeycore.levels import CLASSIC_LEVELS, LEVELS_101
from okeycore.options import BotLevel, Game
from okeycore.strategy import STRATEGIES, Strategy
from okeycore.strategy101 import STRATEGIES_101
from okeyplatform import metrics as M
from okeyplatform.aioloop import KeyedLocks
from okeyplatform.client import TableClient
from okeyplatform.contract import Envelope
from okeyplatform.grpcserver import error_reason
from okeyplatform.logs import get_logger
from okeyplatform.protoconv import classic_view_from_pb, view101_from_pb
from okeyplatform.tracing import current_traceparent

__all__ = [
    "BotsApp",
    "seats_to_consider",
    "bot_hands_to_bot",
    "command_id",
    "think_seconds",
    "MAX_COMMANDS_PER_TURN",
    "NOT_RETRIED",
]

MAX_COMMANDS_PER_TURN = 40
"""A classic turn is at most four commands (declare pairs, turn to okey, draw, discard); a 101
turn lays and adds tile by tile, so it may take many more; past this a turn is left to the timers."""


HAND_ON_WATCH_S = 5.0
"""How long after a bot-to-bot discard (beyond the next bot's think time) a replica that was given
no later event of the table looks whether the turn was lost; the event consumer's ack wait
(``consumer.ACK_WAIT_S``) is the same, so a lost turn is played as soon whichever way it was lost."""

CALL_DEADLINE_S = HAND_ON_WATCH_S - 1.0
"""How long a bot waits for the table's answer to one call (4 s): shorter than the look after
``HAND_ON_WATCH_S``, which waits for the same seat. A call that hangs (a table replica stopping
under it, a connection lost without a reset) would otherwise hold its seat's turn in this replica
until the table's turn timer, the look included. Past it the call fails with DEADLINE_EXCEEDED
and is tried again like any unreachable table: the command id makes a command the table applied
meanwhile a duplicate."""

PLAYED_MEMORY = 100_000
"""How many (table, seat) turn ends a replica remembers (a few MB): past it the oldest are
forgotten, and an old event then costs one GetView, as before."""


def seats_to_consider(env: Envelope) -> tuple[list[int], bool]:
    """The seats an event may call a bot to (the envelope's ``to_move``: okeycore says whom each
    event calls), and whether it starts a hand (when every bot seat may also make its moves
    before the first turn, such as showing the indicator). With the envelope's ``bot_seats``
    (the table says whom a bot plays after the event) a person's seat is not considered at all:
    no call to the table for it."""
    seats = [env.to_move] if env.to_move >= 0 else []
    hand_start = isinstance(env.event, HandStarted)
    if env.bot_seats is not None:
        seats = [s for s in seats if env.bot_seats >> s & 1]
        hand_start = hand_start and env.bot_seats != 0
    return seats, hand_start


_HANDS_OVER = frozenset(
    cls.type
    for cls in EVENT_TYPES.values()
    if issubclass(cls, SeatEvent) and cls.to_move_field not in ("", SeatEvent.to_move_field)
)
"""The kinds of a seat's move that hand the turn to another seat (a discard, in both games)."""


def bot_hands_to_bot(kind: str, seat: int, to_move: int, bot_seats: int | None) -> bool:
    """Whether a bot seat's move (``kind`` by ``seat``) handed the turn to another seat a bot
    plays (``to_move`` in the event's ``bot_seats``): a discard between two bot seats. The bot
    that made the move goes on with the next seat's turn from its command's answer
    (``ActResponse.next_view``; after a think time where the table keeps a person's pace), so
    such an event calls no bot: one function decides both sides, the event consumer's and the
    discarding bot's. The replica given the event looks again a while later if it was given no
    later event of the table (:meth:`BotsApp._watch`): a replica that died between the two turns
    loses the table a few seconds, as the event consumer's redelivery would."""
    return (
        kind in _HANDS_OVER
        and bot_seats is not None
        and 0 <= to_move != seat
        and bool(bot_seats >> seat & 1)
        and bool(bot_seats >> to_move & 1)
    )


def command_id(table_id: str, version: int, seat: int, kind: str = "turn") -> str:
    """The same for every replica that decides from the same view: the table keeps one."""
    return f"bot:{kind}:{table_id}:{version}:{seat}"


def seed_for(table_id: str, version: int, seat: int) -> int:
    """A strategy seed fixed by the view, so replicas deciding from one view agree."""
    return zlib.crc32(f"{table_id}:{version}:{seat}".encode())


def think_seconds(table_id: str, version: int, seat: int, kind: str) -> float:
    """A person's think time for the bot at ``seat`` called by the event ``kind`` at ``version``
    (where the table's pace is kept): 0.8-2.5 s, 0.7 s more at a deal, none for a timed-out
    turn [C-TIME-1]. Fixed by the event, so replicas (and ``okey bench soak --people``, which
    measures the delay beyond it) agree."""
    if kind == "TurnTimedOut":
        return 0.0
    rng = random.Random(seed_for(table_id, version, seat))
    return rng.uniform(0.8, 2.5) + (0.7 if kind == "HandStarted" else 0.0)


@dataclass
class Played:
    commands: int = 0
    refused: int = 0
    version: int = 0  # the table's version after the last command played
    game: str = ""  # the table's game, once a bot decided there (the metrics' label)
    late: bool = False  # a timed-out turn was played (counted once)
    stands_with: int = -1  # only_as_of: another bot seat whose turn the table still stands at


class BotsApp:
    """Plays bot, autopilot and timed-out seats. ``client`` carries the service credential."""

    def __init__(
        self,
        client: TableClient,
        strategy: str | None = None,
        instant: bool = False,
    ) -> None:
        """``strategy`` plays every table (random, greedy or strong: benchmarks and tests);
        None, each table's ``bot_level`` chooses (okeycore.levels). ``instant``: no table's
        ``bot_pace`` is kept (tests, demos)."""
        if strategy is not None and (strategy not in STRATEGIES or strategy not in STRATEGIES_101):
            raise ValueError(f"unknown strategy {strategy!r}; choose one of {', '.join(sorted(STRATEGIES))}")
        self.client = client
        self.strategy = strategy
        self.instant = instant
        self.log = get_logger(component="bots")
        self._seat_locks: KeyedLocks[tuple[str, int]] = KeyedLocks()
        # (table, seat) -> the table's version when this replica last ended that seat's turn:
        # the events up to it (the turn's own draw and discard) call nobody new.
        self._played_to: OrderedDict[tuple[str, int], int] = OrderedDict()
        self._known: _Bounded = _Bounded(PLAYED_MEMORY)  # table -> what its latest view told (:class:`Known`)
        self._latest: _Bounded = _Bounded(PLAYED_MEMORY)  # table -> the latest version this replica was given
        # (table, seat) -> the timer of that seat's turn waiting for its think time (one a seat:
        # the event that gives the seat a new turn makes the old one's timer stale)
        self._waiting: dict[tuple[str, int], asyncio.TimerHandle] = {}
        self._pending: set[asyncio.Task[None]] = set()
        self.commands = 0  # commands the table accepted, the duplicates among them too
        self.duplicates = 0  # accepted as a duplicate: another replica had sent the same command
        self.refused = 0
        self.handed_on = 0  # turns a bot went on to from its own discard's answer (no event, no GetView)
        self.watched = 0  # bot-to-bot turns looked at again: the table had not moved on (see _watch)
        self.looked_after_refusal = 0  # turns gone on after a refusal: the table had moved (_moved_on)
        self._closing = False

    def _lock(self, table_id: str, seat: int) -> asyncio.Lock:
        return self._seat_locks((table_id, seat))

    async def handle(self, env: Envelope) -> Played:
        """One table event: play whatever it calls a bot to play. At a table whose bots keep a
        person's pace the turn is scheduled after a think time instead (a timer of the event
        loop: the consumer goes on at once)."""
        table_id = env.table_id
        seats, hand_start = seats_to_consider(env)
        played = Played()
        # The views the seats' moves before the first turn were decided on: the first turn goes
        # on from its seat's when no move since changed the table (no second round trip).
        views = await self._before_first_turn(table_id, played, env.version, env.bot_seats) if hand_start else {}
        paced = self.keeps_pace(env)
        if env.version > self._latest.get(table_id, 0):
            self._latest[table_id] = env.version
        ev = env.event
        if seats and isinstance(ev, SeatEvent) and bot_hands_to_bot(env.kind, ev.seat, seats[0], env.bot_seats):
            # The bot that discarded plays the next turn (:meth:`_hand_on`); this replica looks
            # again only if the table has not moved on a while later (that bot's replica died).
            self._watch(table_id, seats[0], env.version, self.think_time(env, seats[0]) + HAND_ON_WATCH_S)
            seats = []
        for seat in seats:
            delay = self.think_time(env, seat)
            if delay > 0:
                self._schedule(delay, table_id, seat, env.version)
                continue
            if not paced:
                if played_by_seat(env.event):
                    # The bot that played it goes on with the turn in its own loop: no view to
                    # ask for. Were its replica to die mid-turn, the turn would stand where the
                    # event left it: this replica looks a while later if it was given no later
                    # event of the table (:meth:`_watch`).
                    self._watch(table_id, seat, env.version, HAND_ON_WATCH_S)
                    continue
                view = views.get(seat)
                if view is not None and view.version < played.version:
                    view = None  # a seat's move since (a show, pairs): ask the table as it is now
                await self.play_turn(table_id, seat, played, seen=env.version, view=view)
                continue
            if env.kind == "TurnTimedOut":
                waiting = self._waiting.pop((table_id, seat), None)
                if waiting is not None:
                    waiting.cancel()  # the person's time is up: the turn is played now [C-TIME-1]
                await self.play_turn(table_id, seat, played, seen=env.version)
                continue
            if (table_id, seat) in self._waiting:
                continue  # the seat's turn is thinking: this event adds none
            # An event of the seat's own that hands no turn (a draw, a show or pairs declared out
            # of turn [C-IND-1] [C-PAIR-1]): the bot that played it goes on, and a turn handed out
            # after it has its own think time, timed from the event that handed it. Only a turn
            # that still stands as the event left it a while later is played (its replica died).
            self._watch(table_id, seat, env.version, HAND_ON_WATCH_S)
        if played.commands and played.game:
            # The player's wait: from the event that called the bots to their last move accepted.
            M.BOT_REPLY.labels(played.game).observe(max(0.0, (datetime.now(UTC) - env.time).total_seconds()))
        return played

    def keeps_pace(self, env: Envelope) -> bool:
        """Whether the bots at ``env``'s table move at a person's pace: not at an INSTANT table,
        nor an AUTO one with no person seated, nor before the table's pace is known (its first
        view tells)."""
        known = self._known.get(env.table_id)
        if known is None:
            return False
        return self._keeps_pace(known.pace, known.seats, env.bot_seats)

    def _keeps_pace(self, pace: int, seats: int, bot_seats: int | None) -> bool:
        """HUMAN, or AUTO with a person seated (a seat no bot plays)."""
        if self.instant or pace == _PACE_INSTANT:
            return False
        return pace == _PACE_HUMAN or (bot_seats is not None and bot_seats != (1 << seats) - 1)

    def think_time(self, env: Envelope, seat: int) -> float:
        """Seconds the bot at ``seat`` waits before the turn ``env`` gives it where the table
        keeps a person's pace (:meth:`keeps_pace`): a person's think time, 0.8-2.5 s, longer at
        a deal; 0 for a timed-out turn (the person's time is up: it is played at once, within
        its grace [C-TIME-1]) and for an event that hands no turn (``gives_turn``)."""
        if env.kind == "TurnTimedOut" or not gives_turn(env.event) or not self.keeps_pace(env):
            return 0.0
        return think_seconds(env.table_id, env.version, seat, env.kind)

    def _schedule(self, delay: float, table_id: str, seat: int, seen: int) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time() + delay
        key = (table_id, seat)
        stale = self._waiting.pop(key, None)
        if stale is not None:
            stale.cancel()  # that turn of the seat's is over: a new one is given

        def fire() -> None:
            if self._waiting.get(key) is handle:
                del self._waiting[key]
            M.BOT_PACE_LATE.observe(max(0.0, loop.time() - due))
            task = loop.create_task(self._play_later(table_id, seat, seen))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

        handle = loop.call_at(due, fire)
        self._waiting[key] = handle

    def _watch(self, table_id: str, seat: int, seen: int, delay: float) -> None:
        """The event at ``seen`` leaves ``seat``'s turn to a bot of another replica, or of this
        one, that is playing it (the bot that discarded to it, or that made the event: a draw, a
        show). Past ``delay``, if this replica was given no later event of the table, it looks: a
        table still standing at ``seen`` lost that bot (its replica died), and the turn is played
        here (``only_as_of``; were both to play it, the same command id makes the second a
        duplicate). As soon as the event consumer's redelivery, not the table's turn timer."""
        loop = asyncio.get_running_loop()

        def look() -> None:
            if self._closing or self._latest.get(table_id, 0) > seen:
                return  # the table moved on: nothing was lost
            self.watched += 1
            M.BOT_LOOKED_AGAIN.inc()
            task = loop.create_task(self._play_later(table_id, seat, seen, only_as_of=True))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

        loop.call_later(delay, look)

    async def _play_later(self, table_id: str, seat: int, seen: int, only_as_of: bool = False) -> None:
        """A turn a timer gives back: after a person's think time (``_schedule``) or a look at a
        turn that may be lost (``_watch``)."""
        try:
            played = await self.play_turn(table_id, seat, seen=seen, only_as_of=only_as_of)
            if played.stands_with >= 0:
                # The look found the table where the event left it, with the turn at another bot
                # seat: that turn was lost (an event that called its bot, handed back to the
                # consumer, then counted as handled once a later one was), so it is played here.
                await self.play_turn(table_id, played.stands_with, seen=seen, only_as_of=True)
        except Exception as exc:  # the table is away: its turn timer plays the turn [C-TIME-1]
            self.log.warning("later_turn_failed", table_id=table_id, seat=seat, error=repr(exc))

    async def close(self) -> None:
        """Cancel the scheduled turns (their tables' turn timers play them) and wait for the
        ones being played; no bot goes on to a next seat's turn any more."""
        self._closing = True
        for handle in self._waiting.values():
            handle.cancel()
        self._waiting.clear()
        if self._pending:
            await asyncio.wait(set(self._pending), timeout=5.0)

    async def _before_first_turn(
        self, table_id: str, played: Played, seen: int, mask: int | None = None
    ) -> dict[int, Any]:
        """At a hand's start every bot seat may show the indicator or declare pairs [C-IND-1].
        ``mask``: the bot seats, as the event said (else a spectator's view tells). Returns each
        seat's latest view (the one its move was decided on, or the table's answer to it).

        Where this replica knows the table plays classic Okey (from an earlier view), every
        seat is looked at in one round of calls; else the first seat's view tells the game
        first (101 has nothing to do before the first turn: no call for the other seats)."""
        if mask is None:
            spectator = await self._view(table_id, None, min_version=seen)
            if spectator is None or spectator.options.game != _GAME_OKEY:
                return {}
            mask = _bot_mask(spectator)
        seats = [seat for seat in range(mask.bit_length()) if mask >> seat & 1]
        if not seats:
            return {}
        known = self._known.get(table_id)
        views: dict[int, Any] = {}
        rest = seats
        if known is None or known.game != _GAME_OKEY:
            first = await self._off_turn(table_id, seats[0], played, seen)
            if first is None:
                return {}  # 101, or the hand is over already
            views[seats[0]] = first
            rest = seats[1:]
        # The seats at once (their views and decisions do not wait on each other's round trips).
        done = await asyncio.gather(*(self._off_turn(table_id, s, played, seen) for s in rest), return_exceptions=True)
        failed = next((d for d in done if isinstance(d, BaseException)), None)
        if failed is not None:
            raise failed
        views.update((s, d) for s, d in zip(rest, done, strict=True) if d is not None)
        return views

    async def _off_turn(self, table_id: str, seat: int, played: Played, seen: int) -> Any:
        """A bot seat's move at a hand's start, if its strategy has one (show the indicator,
        declare pairs). Returns the seat's view after it (the table's answer to the move, or the
        view it decided on when its move was not played); None when the table has none to offer
        (101, or no hand being played)."""
        async with self._lock(table_id, seat):
            msg = await self._view(table_id, seat, min_version=max(seen, played.version))
            if msg is not None:
                self._learn(table_id, msg)
            if msg is None or msg.options.game != _GAME_OKEY or msg.phase != _PLAYING:
                return None
            view = classic_view_from_pb(msg)
            t0 = time.perf_counter()
            classic = self._classic(msg, seed_for(table_id, view.version, seat))
            cmd = classic.off_turn(view)
            self._decided("OKEY", classic.name, "pre", time.perf_counter() - t0)
            played.game = "OKEY"
            if cmd is None:
                return msg
            # The answer carries the seat's view after its move: its first turn may go on from it.
            answer = await self._act(
                table_id, cmd, command_id(table_id, view.version, seat, "pre"), played, want_view=True
            )
            # Refused, or another replica's: the view it was decided on (the first turn looks again
            # if the table moved since).
            return answer.view if answer is not None else msg

    async def play_turn(
        self,
        table_id: str,
        seat: int,
        played: Played | None = None,
        seen: int = 0,
        only_as_of: bool = False,
        view: Any = None,
    ) -> Played:
        """Play ``seat``'s turn to its end if a bot should play it now; nothing otherwise.
        ``seen`` is the version of the event that called the bot: the turn's first view includes at
        least it (the replica answering catches up with the store if its cache is older); each
        next decision is made on the view the table answered the bot's last command with, so the
        bot never decides on a table that is not as it is, and asks for one view a turn.
        ``only_as_of``: play only if the table still stands at ``seen`` (no later event). ``view``:
        the seat's view as the table answered the last command with (``next_view``): no GetView.
        A command refused because the table moved on since its view (another replica's move for
        the seat) does not end the turn: it goes on from the table as it is (:meth:`_moved_on`)."""
        played = played or Played()
        async with self._lock(table_id, seat):
            if seen and seen <= self._played_to.get((table_id, seat), 0):
                return played  # an event of the turn this bot has just played (its own draw): no call
            msg = view if view is not None else await self._view(table_id, seat, min_version=seen)
            if msg is not None:
                self._learn(table_id, msg)
                if only_as_of and msg.version != seen:
                    return played  # the table moved on since ``seen``: its later events call whom they call
                if only_as_of and msg.phase == _PLAYING and msg.turn != seat and _bot_mask(msg) >> msg.turn & 1:
                    played.stands_with = int(msg.turn)  # the turn standing there is another bot seat's
                    return played
            for _ in range(MAX_COMMANDS_PER_TURN):
                if msg is None or not self._ours(msg, seat):
                    if msg is not None and played.commands:
                        self._remember_played(table_id, seat, int(msg.version))
                    return played
                seed = seed_for(table_id, msg.version, seat)
                t0 = time.perf_counter()
                if msg.options.game == _GAME_OKEY:
                    game = "OKEY"
                    classic = self._classic(msg, seed)
                    name, cmd = classic.name, classic.act(classic_view_from_pb(msg))
                else:
                    game = "OKEY101"
                    s101 = self._s101(msg, seed)
                    name, cmd = s101.name, s101.act(view101_from_pb(msg))
                pub = msg.seats[seat]
                kind = "timeout" if msg.timed_out else "autopilot" if pub.player_id else "turn"
                self._decided(game, name, kind, time.perf_counter() - t0)
                if kind != "turn":
                    # A person's seat played for them [C-TIME-1] [D-4]: what was done, so a player
                    # who asks what happened to their rack is answered (the command's kind only,
                    # never a tile: the log sees no rack).
                    self.log.info(
                        "played_for_person",
                        table_id=table_id,
                        seat=seat,
                        version=int(msg.version),
                        kind=kind,
                        command=type(cmd).__name__,
                        strategy=name,
                    )
                if msg.timed_out and not played.late:
                    played.late = True
                    M.BOT_LATE.labels(game).inc()  # a person's turn ran out: the bot plays it late
                played.game = game
                cid = command_id(table_id, msg.version, seat)
                if isinstance(cmd, Discard):
                    # A discard ends the turn in both games: no view of this seat to build and send.
                    # The turn's own events are those up to the view it was decided on; the
                    # discard's may end the hand and deal the next, whose first turn may be ours.
                    # Where the bots move at once, the table answers with the next seat's view
                    # when a bot plays it: this bot goes on to that turn (no event, no GetView).
                    paced = self._keeps_pace(int(msg.options.bot_pace), len(msg.seats), _bot_mask(msg))
                    refused = played.refused
                    resp = await self._act(table_id, cmd, cid, played, want_next=not paced)
                    if resp is None:  # a duplicate (the replica that sent it first plays on), or refused
                        msg = await self._moved_on(table_id, seat, msg) if played.refused > refused else None
                        continue
                    self._remember_played(table_id, seat, int(msg.version))
                    self._hand_on(table_id, seat, resp, paced)
                    return played
                # The answer carries the seat's view after the command: the next decision needs no GetView.
                refused = played.refused
                answer = await self._act(table_id, cmd, cid, played, want_view=True)
                if answer is not None:
                    msg = answer.view
                else:  # a duplicate (the replica that sent it first plays on), or refused
                    msg = await self._moved_on(table_id, seat, msg) if played.refused > refused else None
            self.log.warning("turn_not_finished", table_id=table_id, seat=seat)
        return played

    async def _moved_on(self, table_id: str, seat: int, decided_on: Any) -> Any:
        """After the table refused a command decided on the view ``decided_on``: the seat's view
        if the table has moved on since (the command met a table it was not decided for, so the
        turn goes on from the table as it is), else None (the rules refuse it as decided: the
        turn is left to the table's turn timer [C-TIME-1])."""
        msg = await self._view(table_id, seat, min_version=int(decided_on.version))
        if msg is None or msg.version == decided_on.version:
            return None
        self.looked_after_refusal += 1
        return msg

    def _hand_on(self, table_id: str, seat: int, resp: Any, paced: bool) -> None:
        """After ``seat``'s discard: the turn it handed to a bot seat (:func:`bot_hands_to_bot`,
        which the event consumer reads the same way and leaves alone) is played by this replica,
        at once from the answer's ``next_view`` or, where the table keeps a person's pace, after a
        think time timed from the discard."""
        if self._closing:
            return  # the table's turn timer plays it [C-TIME-1]
        for ev in resp.events:
            bot_seats = int(ev.bot_seats) if ev.HasField("bot_seats") else None
            if not bot_hands_to_bot(ev.kind, seat, int(ev.to_move), bot_seats):
                continue
            nxt, version = int(ev.to_move), int(ev.version)
            if paced:
                self._schedule(think_seconds(table_id, version, nxt, ev.kind), table_id, nxt, version)
                return
            view = resp.next_view if resp.HasField("next_view") and resp.next_view.seat == nxt else None
            since = ev.time.ToDatetime(UTC)
            task = asyncio.get_running_loop().create_task(self._go_on(table_id, nxt, version, view, since))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)
            return

    async def _go_on(self, table_id: str, seat: int, seen: int, view: Any, since: datetime) -> None:
        """Play the turn a bot's discard handed to ``seat`` (from ``view`` when the table gave it).
        A table that cannot be reached is asked again a few times (as the consumer would hand
        the event back); past that the table's turn timer plays the turn [C-TIME-1]."""
        for delay in _GO_ON_RETRIES:
            try:
                played = await self.play_turn(table_id, seat, seen=seen, view=view)
            except grpc.aio.AioRpcError as err:
                if err.code() in NOT_RETRIED or self._closing:
                    self.log.warning("hand_on_failed", table_id=table_id, seat=seat, error=err.code().name)
                    return
                view = None  # ask for the view again: the table may have moved on meanwhile
                await asyncio.sleep(delay)
                continue
            except Exception as exc:
                self.log.warning("hand_on_failed", table_id=table_id, seat=seat, error=repr(exc))
                return
            self.handed_on += 1
            M.BOT_HANDED_ON.inc()
            if played.commands and played.game:
                M.BOT_REPLY.labels(played.game).observe(max(0.0, (datetime.now(UTC) - since).total_seconds()))
            return
        self.log.warning("hand_on_gave_up", table_id=table_id, seat=seat)

    def _remember_played(self, table_id: str, seat: int, version: int) -> None:
        key = (table_id, seat)
        self._played_to[key] = max(version, self._played_to.get(key, 0))
        self._played_to.move_to_end(key)
        while len(self._played_to) > PLAYED_MEMORY:
            self._played_to.popitem(last=False)

    def _learn(self, table_id: str, msg: Any) -> None:
        """What a view tells of its table that later events do not: its pace, seats and game."""
        self._known[table_id] = Known(int(msg.options.bot_pace), len(msg.seats), int(msg.options.game))

    def _classic(self, msg: Any, seed: int) -> Strategy:
        """The classic strategy for this view's table: the service's, else the table's level."""
        if self.strategy is not None:
            return STRATEGIES[self.strategy](seed)
        return CLASSIC_LEVELS[_LEVELS.get(msg.options.bot_level, BotLevel.HARD)](seed)

    def _s101(self, msg: Any, seed: int) -> Strategy101:
        if self.strategy is not None:
            return STRATEGIES_101[self.strategy](seed)
        return LEVELS_101[_LEVELS.get(msg.options.bot_level, BotLevel.HARD)](seed)

    def _decided(self, game: str, strategy: str, kind: str, seconds: float) -> None:
        M.BOT_DECISIONS.labels(game, strategy, kind).inc()
        M.BOT_DECISION_SECONDS.labels(game, strategy).observe(seconds)

    @staticmethod
    def _ours(msg: Any, seat: int) -> bool:
        """Is it ``seat``'s turn, and is that turn a bot's to play?"""
        if msg.phase != _PLAYING or msg.turn != seat or seat >= len(msg.seats):
            return False
        pub = msg.seats[seat]
        return not pub.player_id or pub.autopilot or msg.timed_out

    async def _view(self, table_id: str, seat: int | None, min_version: int = 0) -> Any:
        try:
            return await self.client.view(
                table_id, seat, min_version=min_version, allowed=_ASKED, timeout=CALL_DEADLINE_S
            )
        except grpc.aio.AioRpcError as err:
            if err.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT):
                self.log.info("table_not_found", table_id=table_id, code=err.code().name)
                return None
            raise

    async def _act(
        self, table_id: str, cmd: Command, cid: str, played: Played, want_view: bool = False, want_next: bool = False
    ) -> Any:
        """Send one command. Returns the table's answer (with the seat's view after it when
        ``want_view``, the next bot seat's when ``want_next``); None when the table refused it or
        had applied it already (another replica, a human, or the table's own timeout move got
        there first): that is the end of this turn for us."""
        log = self.log.bind(table_id=table_id, command_id=cid, seat=getattr(cmd, "seat", None))
        try:
            resp = await self.client.act(
                table_id,
                cmd,
                command_id=cid,
                traceparent=current_traceparent(),
                return_view=want_view,
                allowed=_ASKED if want_view or want_next else None,
                return_next_view=want_next,
                timeout=CALL_DEADLINE_S,
            )
        except grpc.aio.AioRpcError as err:
            if err.code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND):
                played.refused += 1
                self.refused += 1
                log.info("command_refused", command=type(cmd).__name__, reason=error_reason(err) or err.code().name)
                return None
            raise
        played.commands += 1
        played.version = max(played.version, resp.version)
        self.commands += 1
        log.debug("command_played", command=type(cmd).__name__, version=resp.version, duplicate=resp.duplicate)
        if resp.duplicate:
            self.duplicates += 1
            return None
        return resp


def _enum(name: str, value: str) -> int:
    from okey.v1 import common_pb2, table_service_pb2

    for module in (table_service_pb2, common_pb2):
        try:
            return int(module.DESCRIPTOR.enum_types_by_name[name].values_by_name[value].number)
        except KeyError:
            continue
    raise KeyError(f"{name}.{value}")


_PLAYING = _enum("Phase", "PHASE_PLAYING")
_ASKED = tuple(sorted(ALLOWED_ASKED))  # the only names a strategy reads of a view's ``allowed``
_PACE_HUMAN = _enum("BotPace", "BOT_PACE_HUMAN")
_PACE_INSTANT = _enum("BotPace", "BOT_PACE_INSTANT")
_LEVELS = {_enum("BotLevel", f"BOT_LEVEL_{level.value}"): level for level in BotLevel}
_GAME_OKEY = _enum("Game", f"GAME_{Game.OKEY.value}")


_GO_ON_RETRIES = (0.2, 0.5, 1.0, 2.0, 4.0)
NOT_RETRIED = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.UNIMPLEMENTED,
    }
)
"""Answers a later try would get again; the rest (unavailable, deadline, a store restarting
behind the table service) are tried again: by the consumer (the event is handed back), or by a
bot going on to the next seat's turn."""


def _bot_mask(msg: Any) -> int:
    """The seats a bot plays, as a view shows them (no player, or on autopilot)."""
    return sum(1 << i for i, pub in enumerate(msg.seats) if not pub.player_id or pub.autopilot)


class Known(NamedTuple):
    """What a view told the bots of its table that the events do not carry (wire numbers)."""

    pace: int  # its bot_pace
    seats: int  # how many seats it has
    game: int  # the game it plays


class _Bounded(OrderedDict[Any, Any]):
    """A dict that forgets its oldest entries past ``limit``."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > self.limit:
            self.popitem(last=False)


def bot_seats(players: Iterable[str]) -> list[int]:
    """Seats without a player."""
    return [i for i, p in enumerate(players) if not p]

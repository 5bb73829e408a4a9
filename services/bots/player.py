"""The turn player: plays a bot seat's turn to its end through the table, from its own seat's view.

It reads that seat's view only (RULES.md section 7) and asks the strategy for each command until
the turn passes. Each command's id is derived from the table, the view's version and the seat, so
when two replicas play the same turn the table applies the first and turns the second into a
duplicate (or refuses it on the newer state): a turn is never played twice."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from dataclasses import dataclass

from okeycore.classic import SeatView
from okeycore.classic.strategy import STRATEGIES, Strategy
from okeycore.commands import Command, Discard
from okeycore.levels import CLASSIC_LEVELS, LEVELS_101
from okeycore.okey101.bots import Strategy101
from okeycore.okey101.strategy import STRATEGIES_101
from okeycore.options import Game
from okeyplatform import metrics as M
from okeyplatform.aioloop import KeyedLocks
from okeyplatform.logs import get_logger

from .pacer import keeps_pace
from .table import TABLES_REMEMBERED, Answer, BotTable, Bounded, Refused, Seated, command_id, seed_for

__all__ = ["MAX_COMMANDS_PER_TURN", "Played", "TurnPlayer"]

MAX_COMMANDS_PER_TURN = 40
"""A classic turn is at most four commands (declare pairs, turn to okey, draw, discard); a 101
turn lays and adds tile by tile, so it may take many more; past this a turn is left to the timers."""

HINTS_REMEMBERED = 10_000
"""How many next seats' views (a discard's answer) a replica keeps for the event that follows."""


@dataclass
class Played:
    commands: int = 0
    refused: int = 0
    version: int = 0  # the table's version after the last command played
    game: str = ""  # the table's game, once a bot decided there (the metrics' label)
    late: bool = False  # a timed-out turn was played (counted once)
    stands_with: int = -1  # only_as_of: another bot seat whose turn the table still stands at


class TurnPlayer:
    """``strategy`` plays every table (random, greedy or strong: benchmarks and tests); None,
    each table's ``bot_level`` chooses (okeycore.levels). ``instant``: no table's pace is kept,
    so every discard asks for the next bot seat's view."""

    def __init__(self, table: BotTable, strategy: str | None = None, instant: bool = False) -> None:
        if strategy is not None and (strategy not in STRATEGIES or strategy not in STRATEGIES_101):
            raise ValueError(f"unknown strategy {strategy!r}; choose one of {', '.join(sorted(STRATEGIES))}")
        self.table = table
        self.strategy_name = strategy
        self.instant = instant
        self.log = get_logger(component="bots")
        self._locks: KeyedLocks[tuple[str, int]] = KeyedLocks()
        # (table, seat) -> the table's version when this replica last ended that seat's turn:
        # the events up to it (the turn's own draw and discard) call nobody new.
        self._played_to: Bounded = Bounded(TABLES_REMEMBERED)
        # (table, seat) -> the seat's view a bot's discard was answered with (``next_view``): the
        # event of that discard, when it reaches this replica, plays the turn from it (no GetView).
        self._hints: OrderedDict[tuple[str, int], Seated] = Bounded(HINTS_REMEMBERED)
        self.commands = 0  # commands the table accepted, the duplicates among them too
        self.duplicates = 0  # accepted as a duplicate: another replica had sent the same command
        self.refused = 0
        self.from_hint = 0  # turns played from a discard's answer (no GetView)
        self.looked_after_refusal = 0  # turns gone on after a refusal: the table had moved (moved_on)

    def classic(self, seated: Seated, seed: int) -> Strategy:
        """The classic strategy for this view's table: the service's, else the table's level."""
        if self.strategy_name is not None:
            return STRATEGIES[self.strategy_name](seed)
        return CLASSIC_LEVELS[seated.view.options.bot_level](seed)

    def s101(self, seated: Seated, seed: int) -> Strategy101:
        """The 101 strategy for this view's table: the service's, else the table's level."""
        if self.strategy_name is not None:
            return STRATEGIES_101[self.strategy_name](seed)
        return LEVELS_101[seated.view.options.bot_level](seed)

    async def before_first_turn(
        self, table_id: str, played: Played, seen: int, mask: int | None = None
    ) -> dict[int, Seated]:
        """At a hand's start every bot seat may show the indicator or declare pairs [C-IND-1].
        ``mask``: the bot seats, as the event said (else a spectator's view tells). Returns each
        seat's latest view (the one its move was decided on, or the table's answer to it).

        Where this replica knows the table plays classic Okey (from an earlier view), every
        seat is looked at in one round of calls; else the first seat's view tells the game
        first (101 has nothing to do before the first turn: no call for the other seats)."""
        if mask is None:
            spectator = await self.table.view(table_id, None, min_version=seen)
            if spectator is None or spectator.game is not Game.OKEY:
                return {}
            mask = spectator.bots
        seats = [seat for seat in range(mask.bit_length()) if mask >> seat & 1]
        if not seats:
            return {}
        known = self.table.known.get(table_id)
        views: dict[int, Seated] = {}
        rest = seats
        if known is None or known.game is not Game.OKEY:
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
        views.update((s, d) for s, d in zip(rest, done, strict=True) if isinstance(d, Seated))
        return views

    async def _off_turn(self, table_id: str, seat: int, played: Played, seen: int) -> Seated | None:
        """A bot seat's move at a hand's start, if its strategy has one (show the indicator,
        declare pairs). Returns the seat's view after it (the table's answer to the move, or the
        view it decided on when its move was not played); None when the table has none to offer
        (101, or no hand being played)."""
        async with self._locks((table_id, seat)):
            seated = await self.table.view(table_id, seat, min_version=max(seen, played.version))
            if seated is None or not isinstance(seated.view, SeatView) or not seated.playing:
                return None  # 101 (nothing to do before the first turn), or no hand being played
            t0 = time.perf_counter()
            classic = self.classic(seated, seed_for(table_id, seated.version, seat))
            cmd = classic.off_turn(seated.view)
            _decided("OKEY", classic.name, "pre", time.perf_counter() - t0)
            played.game = "OKEY"
            if cmd is None:
                return seated
            # The answer carries the seat's view after its move: its first turn may go on from it.
            cid = command_id(table_id, seated.version, seat, "pre")
            answer = await self._act(table_id, cmd, cid, played, want_view=True)
            # Refused, or another replica's: the view it was decided on (the first turn looks again
            # if the table moved since).
            return answer.view if answer is not None and answer.view is not None else seated

    async def play_turn(
        self,
        table_id: str,
        seat: int,
        played: Played | None = None,
        seen: int = 0,
        only_as_of: bool = False,
        view: Seated | None = None,
    ) -> Played:
        """Play ``seat``'s turn to its end if a bot should play it now; nothing otherwise.
        ``seen`` is the version of the event that called the bot: the turn's first view includes at
        least it (the replica answering catches up with the store if its cache is older); each
        next decision is made on the view the table answered the bot's last command with, so the
        bot never decides on a table that is not as it is, and asks for one view a turn.
        ``only_as_of``: play only if the table still stands at ``seen`` (no later event). ``view``:
        the seat's view as this replica last got it (the deal's); else a discard's answer kept
        for this seat (``next_view``) when it includes ``seen``; else a GetView.
        A command refused because the table moved on since its view (another replica's move for
        the seat) does not end the turn: it goes on from the table as it is (:meth:`moved_on`)."""
        played = played or Played()
        async with self._locks((table_id, seat)):
            if seen and seen <= self._played_to.get((table_id, seat), 0):
                return played  # an event of the turn this bot has just played (its own draw): no call
            hint = self._hints.pop((table_id, seat), None)
            if view is None and hint is not None and hint.version >= seen and not only_as_of:
                view = hint
                self.from_hint += 1
                M.BOT_HANDED_ON.inc()
            seated = view if view is not None else await self.table.view(table_id, seat, min_version=seen)
            if seated is not None and only_as_of:
                if seated.version != seen:
                    return played  # the table moved on since ``seen``: its later events call whom they call
                turn = seated.view.turn
                if seated.playing and turn != seat and seated.bots >> turn & 1:
                    played.stands_with = turn  # the turn standing there is another bot seat's
                    return played
            for _ in range(MAX_COMMANDS_PER_TURN):
                if seated is None or not seated.bots_turn(seat):
                    if seated is not None and played.commands:
                        self._remember_played(table_id, seat, seated.version)
                    return played
                seated = await self._decide_and_send(table_id, seat, seated, played)
            self.log.warning("turn_not_finished", table_id=table_id, seat=seat)
        return played

    async def _decide_and_send(self, table_id: str, seat: int, seated: Seated, played: Played) -> Seated | None:
        """One decision on ``seated`` and its command. Returns the view the next decision is made
        on: the table's answer, or after a refusal the table as it is if it has moved on; None
        when the turn is over for this bot (its discard, a duplicate, a refusal as decided)."""
        v = seated.view
        t0 = time.perf_counter()
        seed = seed_for(table_id, v.version, seat)
        if isinstance(v, SeatView):
            classic = self.classic(seated, seed)
            name, cmd = classic.name, classic.act(v)
        else:
            s101 = self.s101(seated, seed)
            name, cmd = s101.name, s101.act(v)
        game = seated.game.value
        kind = "timeout" if v.timed_out else "autopilot" if seated.players[seat] else "turn"
        _decided(game, name, kind, time.perf_counter() - t0)
        if kind != "turn":
            # A person's seat played for them [C-TIME-1] [D-4]: what was done, so a player who
            # asks what happened to their rack is answered (the command's kind only, never a
            # tile: the log sees no rack).
            self.log.info(
                "played_for_person",
                table_id=table_id,
                seat=seat,
                version=v.version,
                kind=kind,
                command=type(cmd).__name__,
                strategy=name,
            )
        if v.timed_out and not played.late:
            played.late = True
            M.BOT_LATE.labels(game).inc()  # a person's turn ran out: the bot plays it late
        played.game = game
        cid = command_id(table_id, v.version, seat)
        refused = played.refused
        if isinstance(cmd, Discard):
            # A discard ends the turn in both games: no view of this seat to build and send. The
            # turn's own events are those up to the view it was decided on; the discard's may end
            # the hand and deal the next, whose first turn may be ours. Where the bots move at
            # once, the table answers with the next bot seat's view, kept for that seat's turn.
            paced = keeps_pace(self.table.known.get(table_id), seated.bots, self.instant)
            answer = await self._act(table_id, cmd, cid, played, want_next=not paced)
            if answer is None:  # a duplicate (the replica that sent it first plays on), or refused
                return await self.moved_on(table_id, seat, seated) if played.refused > refused else None
            self._remember_played(table_id, seat, v.version)
            nxt = answer.next_view
            if nxt is not None and nxt.view.seat is not None:
                self._hints[(table_id, nxt.view.seat)] = nxt
            return None
        # The answer carries the seat's view after the command: the next decision needs no GetView.
        answer = await self._act(table_id, cmd, cid, played, want_view=True)
        if answer is not None:
            return answer.view
        # a duplicate (the replica that sent it first plays on), or refused
        return await self.moved_on(table_id, seat, seated) if played.refused > refused else None

    async def moved_on(self, table_id: str, seat: int, decided_on: Seated) -> Seated | None:
        """After the table refused a command decided on the view ``decided_on``: the seat's view
        if the table has moved on since (the command met a table it was not decided for, so the
        turn goes on from the table as it is), else None (the rules refuse it as decided: the
        turn is left to the table's turn timer [C-TIME-1])."""
        seated = await self.table.view(table_id, seat, min_version=decided_on.version)
        if seated is None or seated.version == decided_on.version:
            return None
        self.looked_after_refusal += 1
        return seated

    async def play_later(self, table_id: str, seat: int, seen: int, only_as_of: bool = False) -> None:
        """A turn a timer gives back: after a person's think time (the pacer's) or a look at a
        turn that may be lost (the watchdog's, ``only_as_of``)."""
        try:
            played = await self.play_turn(table_id, seat, seen=seen, only_as_of=only_as_of)
            if played.stands_with >= 0:
                # The look found the table where the event left it, with the turn at another bot
                # seat: that turn was lost (an event that called its bot, handed back to the
                # consumer, then counted as handled once a later one was), so it is played here.
                await self.play_turn(table_id, played.stands_with, seen=seen, only_as_of=True)
        except Exception as exc:  # the table is away: its turn timer plays the turn [C-TIME-1]
            self.log.warning("later_turn_failed", table_id=table_id, seat=seat, error=repr(exc))

    async def look_again(self, table_id: str, seat: int, seen: int) -> None:
        """The watchdog's look: play only if the table still stands at ``seen``."""
        await self.play_later(table_id, seat, seen, only_as_of=True)

    async def _act(
        self,
        table_id: str,
        cmd: Command,
        cid: str,
        played: Played,
        want_view: bool = False,
        want_next: bool = False,
    ) -> Answer | None:
        """Send one command. Returns the table's answer; None when the table refused it or had
        applied it already (another replica, a human, or the table's own timeout move got there
        first): that is the end of this turn for us, unless the table has moved on."""
        log = self.log.bind(table_id=table_id, command_id=cid, seat=getattr(cmd, "seat", None))
        try:
            answer = await self.table.act(table_id, cmd, cid, want_view=want_view, want_next=want_next)
        except Refused as refusal:
            played.refused += 1
            self.refused += 1
            log.info("command_refused", command=type(cmd).__name__, reason=refusal.reason)
            return None
        played.commands += 1
        played.version = max(played.version, answer.version)
        self.commands += 1
        log.debug("command_played", command=type(cmd).__name__, version=answer.version, duplicate=answer.duplicate)
        if answer.duplicate:
            self.duplicates += 1
            return None
        return answer

    def _remember_played(self, table_id: str, seat: int, version: int) -> None:
        key = (table_id, seat)
        self._played_to[key] = max(version, self._played_to.get(key, 0))


def _decided(game: str, strategy: str, kind: str, seconds: float) -> None:
    M.BOT_DECISIONS.labels(game, strategy, kind).inc()
    M.BOT_DECISION_SECONDS.labels(game, strategy).observe(seconds)

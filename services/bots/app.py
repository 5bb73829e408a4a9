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
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import grpc
from okeycore.commands import Command
from okeycore.events import HandStarted
from okeycore.options import Game
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

__all__ = ["BotsApp", "seats_to_consider", "command_id", "MAX_COMMANDS_PER_TURN"]

MAX_COMMANDS_PER_TURN = 40
"""A classic turn is at most four commands (declare pairs, turn to okey, draw, discard); a 101
turn lays and adds tile by tile, so it may take many more; past this a turn is left to the timers."""


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


def command_id(table_id: str, version: int, seat: int, kind: str = "turn") -> str:
    """The same for every replica that decides from the same view: the table keeps one."""
    return f"bot:{kind}:{table_id}:{version}:{seat}"


def seed_for(table_id: str, version: int, seat: int) -> int:
    """A strategy seed fixed by the view, so replicas deciding from one view agree."""
    return zlib.crc32(f"{table_id}:{version}:{seat}".encode())


@dataclass
class Played:
    commands: int = 0
    refused: int = 0
    version: int = 0  # the table's version after the last command played
    game: str = ""  # the table's game, once a bot decided there (the metrics' label)
    late: bool = False  # a timed-out turn was played (counted once)


class BotsApp:
    """Plays bot, autopilot and timed-out seats. ``client`` carries the service credential."""

    def __init__(
        self,
        client: TableClient,
        strategy: str = "strong",
        make_strategy: Callable[[str, int], Strategy] | None = None,
    ) -> None:
        if strategy not in STRATEGIES or strategy not in STRATEGIES_101:
            raise ValueError(f"unknown strategy {strategy!r}; choose one of {', '.join(sorted(STRATEGIES))}")
        self.client = client
        self.strategy = strategy
        self.make_strategy = make_strategy or (lambda name, seed: STRATEGIES[name](seed))
        self.log = get_logger(component="bots")
        self._seat_locks: KeyedLocks[tuple[str, int]] = KeyedLocks()
        # (table, seat) -> the table's version when this replica last ended that seat's turn:
        # the events up to it (the turn's own draw and discard) call nobody new.
        self._played_to: OrderedDict[tuple[str, int], int] = OrderedDict()
        self.commands = 0
        self.refused = 0

    def _lock(self, table_id: str, seat: int) -> asyncio.Lock:
        return self._seat_locks((table_id, seat))

    async def handle(self, env: Envelope) -> Played:
        """One table event: play whatever it calls a bot to play."""
        table_id = env.table_id
        seats, hand_start = seats_to_consider(env)
        played = Played()
        if hand_start:
            await self._before_first_turn(table_id, played, env.version, env.bot_seats)
        for seat in seats:
            await self.play_turn(table_id, seat, played, seen=env.version)
        if played.commands and played.game:
            # The player's wait: from the event that called the bots to their last move accepted.
            M.BOT_REPLY.labels(played.game).observe(max(0.0, (datetime.now(UTC) - env.time).total_seconds()))
        return played

    async def _before_first_turn(self, table_id: str, played: Played, seen: int, mask: int | None = None) -> None:
        """At a hand's start every bot seat may show the indicator or declare pairs [C-IND-1].
        ``mask``: the bot seats, as the event said (else a spectator's view tells)."""
        if mask is None:
            spectator = await self._view(table_id, None, min_version=seen)
            if spectator is None or spectator.options.game != _GAME_OKEY:
                return
            mask = sum(1 << i for i, pub in enumerate(spectator.seats) if not pub.player_id or pub.autopilot)
        for seat in range(mask.bit_length()):
            if not mask >> seat & 1:
                continue
            async with self._lock(table_id, seat):
                msg = await self._view(table_id, seat, min_version=max(seen, played.version))
                if msg is None or msg.options.game != _GAME_OKEY:
                    return  # 101 has nothing to do before the first turn
                if msg.phase != _PLAYING:
                    return
                view = classic_view_from_pb(msg)
                t0 = time.perf_counter()
                cmd = self.make_strategy(self.strategy, seed_for(table_id, view.version, seat)).off_turn(view)
                self._decided("OKEY", "pre", time.perf_counter() - t0)
                played.game = "OKEY"
                if cmd is not None:
                    await self._act(table_id, cmd, command_id(table_id, view.version, seat, "pre"), played)

    async def play_turn(self, table_id: str, seat: int, played: Played | None = None, seen: int = 0) -> Played:
        """Play ``seat``'s turn to its end if a bot should play it now; nothing otherwise.
        ``seen`` is the version of the event that called the bot: the turn's first view includes at
        least it (the replica answering catches up with the store if its cache is older); each
        next decision is made on the view the table answered the bot's last command with, so the
        bot never decides on a table that is not as it is, and asks for one view a turn."""
        played = played or Played()
        async with self._lock(table_id, seat):
            if seen and seen <= self._played_to.get((table_id, seat), 0):
                return played  # an event of the turn this bot has just played (its own draw): no call
            msg = await self._view(table_id, seat, min_version=seen)
            for _ in range(MAX_COMMANDS_PER_TURN):
                if msg is None or not self._ours(msg, seat):
                    if msg is not None and played.commands:
                        self._remember_played(table_id, seat, int(msg.version))
                    return played
                seed = seed_for(table_id, msg.version, seat)
                t0 = time.perf_counter()
                if msg.options.game == _GAME_OKEY:
                    game = "OKEY"
                    cmd = self.make_strategy(self.strategy, seed).act(classic_view_from_pb(msg))
                else:
                    game = "OKEY101"
                    cmd = STRATEGIES_101[self.strategy](seed).act(view101_from_pb(msg))
                pub = msg.seats[seat]
                kind = "timeout" if msg.timed_out else "autopilot" if pub.player_id else "turn"
                self._decided(game, kind, time.perf_counter() - t0)
                if msg.timed_out and not played.late:
                    played.late = True
                    M.BOT_LATE.labels(game).inc()  # a person's turn ran out: the bot plays it late
                played.game = game
                # The answer carries the seat's view after the command: the next decision needs no GetView.
                msg = await self._act(table_id, cmd, command_id(table_id, msg.version, seat), played, want_view=True)
            self.log.warning("turn_not_finished", table_id=table_id, seat=seat)
        return played

    def _remember_played(self, table_id: str, seat: int, version: int) -> None:
        key = (table_id, seat)
        self._played_to[key] = max(version, self._played_to.get(key, 0))
        self._played_to.move_to_end(key)
        while len(self._played_to) > PLAYED_MEMORY:
            self._played_to.popitem(last=False)

    def _decided(self, game: str, kind: str, seconds: float) -> None:
        M.BOT_DECISIONS.labels(game, self.strategy, kind).inc()
        M.BOT_DECISION_SECONDS.labels(game, self.strategy).observe(seconds)

    @staticmethod
    def _ours(msg: Any, seat: int) -> bool:
        """Is it ``seat``'s turn, and is that turn a bot's to play?"""
        if msg.phase != _PLAYING or msg.turn != seat or seat >= len(msg.seats):
            return False
        pub = msg.seats[seat]
        return not pub.player_id or pub.autopilot or msg.timed_out

    async def _view(self, table_id: str, seat: int | None, min_version: int = 0) -> Any:
        try:
            return await self.client.view(table_id, seat, min_version=min_version)
        except grpc.aio.AioRpcError as err:
            if err.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT):
                self.log.info("table_not_found", table_id=table_id, code=err.code().name)
                return None
            raise

    async def _act(self, table_id: str, cmd: Command, cid: str, played: Played, want_view: bool = False) -> Any:
        """Send one command. Returns the seat's view after it when ``want_view`` (else True);
        None when the table refused it or had applied it already (another replica, a human, or
        the table's own timeout move got there first): that is the end of this turn for us."""
        log = self.log.bind(table_id=table_id, command_id=cid, seat=getattr(cmd, "seat", None))
        try:
            resp = await self.client.act(
                table_id, cmd, command_id=cid, traceparent=current_traceparent(), return_view=want_view
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
            return None
        return resp.view if want_view else True


def _enum(name: str, value: str) -> int:
    from okey.v1 import common_pb2, table_service_pb2

    for module in (table_service_pb2, common_pb2):
        try:
            return int(module.DESCRIPTOR.enum_types_by_name[name].values_by_name[value].number)
        except KeyError:
            continue
    raise KeyError(f"{name}.{value}")


_PLAYING = _enum("Phase", "PHASE_PLAYING")
_GAME_OKEY = _enum("Game", f"GAME_{Game.OKEY.value}")


def bot_seats(players: Iterable[str]) -> list[int]:
    """Seats without a player."""
    return [i for i, p in enumerate(players) if not p]

"""The bots' entry: from a table event, find the seats a bot must play and hand each to its job.

A bot plays a seat when the seat is a bot seat (no player: an empty seat, a duel's side seat),
when it is on autopilot [C-TIME-2], or when its turn has timed out [C-TIME-1] [D-4]. Three jobs
do the work, each a module: the turn player (``player``) plays a turn through the typed table
client (``table``: okeycore views and commands); the pacer (``pacer``) times the turns of a
table that keeps a person's pace; the watchdog (``watchdog``) looks again at a turn a bot of some
replica is playing, in case that replica died. Every turn starts from an event: the one route to
the next move (a discard's ``next_view`` is only kept for it, so that turn asks no GetView)."""

from __future__ import annotations

from datetime import UTC, datetime

import grpc
from okeycore.events import HandStarted, played_by_seat
from okeyplatform import metrics as M
from okeyplatform.client import TableClient
from okeyplatform.contract import Envelope

from .pacer import Pacer
from .player import Played, TurnPlayer
from .table import BotTable
from .watchdog import HAND_ON_WATCH_S, Watchdog

__all__ = ["BotsApp", "seats_to_consider", "HAND_ON_WATCH_S", "NOT_RETRIED"]

NOT_RETRIED = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.UNIMPLEMENTED,
    }
)
"""Answers a later try would get again; the rest (unavailable, deadline, a store restarting
behind the table service) are tried again: the consumer hands the event back."""


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


class BotsApp:
    """Plays bot, autopilot and timed-out seats. ``client`` carries the service credential;
    ``strategy`` plays every table (random, greedy or strong: benchmarks and tests), else each
    table's ``bot_level`` chooses; ``instant``: no table's ``bot_pace`` is kept (tests, demos)."""

    def __init__(self, client: TableClient, strategy: str | None = None, instant: bool = False) -> None:
        self.table = BotTable(client)
        self.player = TurnPlayer(self.table, strategy, instant)
        self.pacer = Pacer(self.table.known, self.player.play_later, instant)
        self.watchdog = Watchdog(self.player.look_again)
        self.instant = instant

    @property
    def client(self) -> TableClient:
        return self.table.client

    async def handle(self, env: Envelope) -> Played:
        """One table event: play whatever it calls a bot to play now, time it where the table
        keeps a person's pace (the consumer goes on at once), or watch a turn a bot is playing."""
        table_id = env.table_id
        seats, hand_start = seats_to_consider(env)
        played = Played()
        self.watchdog.saw(table_id, env.version)
        # The views the seats' moves before the first turn were decided on: the first turn goes
        # on from its seat's when no move since changed the table (no second round trip).
        views = await self.player.before_first_turn(table_id, played, env.version, env.bot_seats) if hand_start else {}
        paced = self.pacer.keeps_pace(env)
        for seat in seats:
            delay = self.pacer.think_time(env, seat)
            if delay > 0:
                self.pacer.schedule(delay, table_id, seat, env.version)
            elif env.kind == "TurnTimedOut":
                self.pacer.cancel(table_id, seat)  # the person's time is up: played now [C-TIME-1]
                await self.player.play_turn(table_id, seat, played, seen=env.version)
            elif paced and self.pacer.thinking(table_id, seat):
                pass  # the seat's turn is thinking: this event adds none
            elif paced or played_by_seat(env.event):
                # The seat's own move (a draw, a show), or at a paced table an event that hands no
                # turn (pairs declared out of turn [C-PAIR-1]): the bot playing the seat's turn
                # goes on; only a turn still standing as the event left it a while later is played.
                self.watchdog.watch(table_id, seat, env.version)
            else:
                view = views.get(seat)
                if view is not None and view.version < played.version:
                    view = None  # a seat's move since (a show, pairs): ask the table as it is now
                await self.player.play_turn(table_id, seat, played, seen=env.version, view=view)
        if played.commands and played.game:
            # The player's wait: from the event that called the bots to their last move accepted.
            M.BOT_REPLY.labels(played.game).observe(max(0.0, (datetime.now(UTC) - env.time).total_seconds()))
        return played

    async def close(self) -> None:
        """Cancel the timed turns (their tables' turn timers play them), stop looking, and wait
        for the turns being played."""
        await self.watchdog.close()
        await self.pacer.close()

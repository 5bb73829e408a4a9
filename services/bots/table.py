"""The table as the bots call it: okeycore commands in, okeycore seat views out (no wire messages).

A typed face over ``okeyplatform.client.TableClient`` with the bots' rules of every call: each
gives up after ``CALL_DEADLINE_S``; ``allowed`` is asked only about the names a strategy reads
(``okeycore.classic.bots.ALLOWED_ASKED``); a table that is gone is no view (None), a refused command is
:class:`Refused`; any other failure (unreachable, past the deadline) is raised for the caller to
try again. What each view tells of its table that the events do not (its pace, seats and game)
is kept in :attr:`BotTable.known`."""

from __future__ import annotations

import zlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, NamedTuple

import grpc
from okeycore.classic import SeatView
from okeycore.classic.bots import ALLOWED_ASKED
from okeycore.commands import Command
from okeycore.kernel.state import Phase
from okeycore.okey101 import SeatView101
from okeycore.options import BotPace, Game
from okeyplatform.client import TableClient
from okeyplatform.contract import seat_view_from_pb
from okeyplatform.grpcserver import error_reason
from okeyplatform.logs import get_logger
from okeyplatform.tracing import current_traceparent

__all__ = [
    "CALL_DEADLINE_S",
    "TABLES_REMEMBERED",
    "Answer",
    "BotTable",
    "Bounded",
    "Known",
    "Refused",
    "Seated",
    "command_id",
    "seed_for",
]

CALL_DEADLINE_S = 4.0
"""How long a bot waits for the table's answer to one call: shorter than the watchdog's look
(``watchdog.HAND_ON_WATCH_S``, 5 s), which waits for the same seat. A call that hangs (a table
replica stopping under it, a connection lost without a reset) would otherwise hold its seat's
turn in this replica until the table's turn timer, the look included. Past it the call fails with
DEADLINE_EXCEEDED and is tried again like any unreachable table: the command id makes a command
the table applied meanwhile a duplicate."""

TABLES_REMEMBERED = 100_000
"""How many tables (or seats) a replica remembers something of (a few MB): past it the oldest are
forgotten, and an old table then costs one GetView, as before."""

_ASKED = tuple(sorted(ALLOWED_ASKED))  # the only names a strategy reads of a view's ``allowed``


def command_id(table_id: str, version: int, seat: int, kind: str = "turn") -> str:
    """The same for every replica that decides from the same view: the table keeps one."""
    return f"bot:{kind}:{table_id}:{version}:{seat}"


def seed_for(table_id: str, version: int, seat: int) -> int:
    """A seed fixed by the view (a strategy's, a think time's), so replicas deciding from one
    view agree."""
    return zlib.crc32(f"{table_id}:{version}:{seat}".encode())


@dataclass(frozen=True, slots=True)
class Seated:
    """A seat's view (either game's, okeycore's own) with who sits where: whom a bot plays is
    not in okeycore's view but in the table's seating."""

    view: SeatView | SeatView101
    players: tuple[str, ...]  # "" for a seat with no player

    @property
    def version(self) -> int:
        return self.view.version

    @property
    def game(self) -> Game:
        return self.view.options.game

    @property
    def bots(self) -> int:
        """The seats a bot plays (a mask): no player, or on autopilot."""
        return sum(1 << i for i, pub in enumerate(self.view.seats) if not self.players[i] or pub.autopilot)

    @property
    def playing(self) -> bool:
        return self.view.phase is Phase.PLAYING

    def bots_turn(self, seat: int) -> bool:
        """Is it ``seat``'s turn, and is that turn a bot's to play (a bot seat, or a person's
        turn timed out [C-TIME-1])?"""
        v = self.view
        if not self.playing or v.turn != seat or seat >= len(v.seats):
            return False
        return bool(self.bots >> seat & 1) or v.timed_out


@dataclass(frozen=True, slots=True)
class Answer:
    """The table's answer to a command it applied."""

    version: int
    duplicate: bool  # another replica had sent the same command id
    view: Seated | None  # the seat's view after it, when asked (``want_view``)
    next_view: Seated | None  # the view of the bot seat it handed the turn to, when asked (``want_next``)


class Refused(Exception):
    """The table refused the command (the rules, or the table is gone): ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Known(NamedTuple):
    """What a view told of its table that the events do not carry."""

    pace: BotPace
    seats: int
    game: Game


class Bounded(OrderedDict[Any, Any]):
    """A dict that forgets its oldest entries past ``limit``."""

    def __init__(self, limit: int = TABLES_REMEMBERED) -> None:
        super().__init__()
        self.limit = limit

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > self.limit:
            self.popitem(last=False)


class BotTable:
    """``client`` carries the service credential."""

    def __init__(self, client: TableClient) -> None:
        self.client = client
        self.log = get_logger(component="bots")
        self.known: Bounded = Bounded()  # table id -> :class:`Known`, from its latest view

    def _seated(self, table_id: str, msg: Any) -> Seated:
        seated = Seated(seat_view_from_pb(msg), tuple(pub.player_id for pub in msg.seats))
        v = seated.view
        self.known[table_id] = Known(v.options.bot_pace, len(v.seats), v.options.game)
        return seated

    async def view(self, table_id: str, seat: int | None, min_version: int = 0) -> Seated | None:
        """``seat``'s view (a spectator's without one) including at least ``min_version``; None
        when the table is not there."""
        try:
            msg = await self.client.view(
                table_id,
                seat,
                min_version=min_version,
                allowed=_ASKED,
                timeout=CALL_DEADLINE_S,
                traceparent=current_traceparent(),
            )
        except grpc.aio.AioRpcError as err:
            if err.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT):
                self.log.info("table_not_found", table_id=table_id, code=err.code().name)
                return None
            raise
        return self._seated(table_id, msg)

    async def act(
        self, table_id: str, cmd: Command, command_id: str, want_view: bool = False, want_next: bool = False
    ) -> Answer:
        """Send one command, with the caller's trace context. Raises :class:`Refused`."""
        try:
            resp = await self.client.act(
                table_id,
                cmd,
                command_id=command_id,
                traceparent=current_traceparent(),
                return_view=want_view,
                allowed=_ASKED if want_view or want_next else None,
                return_next_view=want_next,
                timeout=CALL_DEADLINE_S,
            )
        except grpc.aio.AioRpcError as err:
            if err.code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND):
                raise Refused(error_reason(err) or err.code().name) from None
            raise
        return Answer(
            version=int(resp.version),
            duplicate=resp.duplicate,
            view=self._seated(table_id, resp.view) if resp.HasField("view") else None,
            next_view=self._seated(table_id, resp.next_view) if resp.HasField("next_view") else None,
        )

    async def close(self) -> None:
        await self.client.close()

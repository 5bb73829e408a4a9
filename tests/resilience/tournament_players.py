"""People playing a tournament through the public gateway, as scripts (issue 45): each with their
own bearer token, finding their table in the lobby (``ListMyTables``, the card's
``tournament_id``) and playing their seat's turns through the gateway's TableService until the
match ends, then waiting for their next round's table, until the tournament is over.

A person decides with the bots' own turn logic (services/bots/player.py ``TurnPlayer``, the
``greedy`` strategy) over a ``BotTable`` whose client carries the person's token: each
decision is seeded by the view it is made on (table, version, seat), and so is its command
id, so the same deals give the same game, and a command sent again after a service was killed
(the answer lost) is a duplicate, never a second move. Only the seat whose turn it is acts, and
nothing is played out of turn (no indicator shown, no pairs declared before the first turn):
the order of a table's events is then the same in every run. Calls the gateway cannot put
through (a service killed and starting again: UNAVAILABLE, DEADLINE_EXCEEDED; the rate limit)
are tried again after a short back-off.

``Crowd`` runs such people at once and follows the tournament (``GetTournament``) until it is
over. A helper of test_tournament_faults.py, not a test."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
from okey.v1 import lobby_service_pb2 as lpb
from okey.v1 import lobby_service_pb2_grpc as lpb_grpc
from okeycore.kernel.state import Phase
from okeyplatform.client import TableClient

from services.bots.player import TurnPlayer
from services.bots.table import BotTable, Seated

__all__ = ["RETRIED", "Crowd", "Person", "PersonTable", "retrying"]

T = TypeVar("T")

RETRIED = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,  # a service killed, or starting again
        grpc.StatusCode.DEADLINE_EXCEEDED,  # a call that hung in a kill
        grpc.StatusCode.RESOURCE_EXHAUSTED,  # the gateway's rate limit
        grpc.StatusCode.CANCELLED,  # a channel closed under the call
    }
)
CALL_S = 5.0
BACK_OFF_S = (0.1, 1.0)  # first and longest pause between tries
STRATEGY = "greedy"
FINISHED = (lpb.TOURNAMENT_STATUS_FINISHED, lpb.TOURNAMENT_STATUS_CANCELLED)


async def retrying(call: Callable[[], Awaitable[T]], what: str, give_up_s: float, errors: Counter[str]) -> T:
    """``call()`` until it answers, tried again after a back-off while it fails with one of
    :data:`RETRIED` (counted in ``errors``); any other failure, or ``give_up_s`` of them, is raised."""
    deadline = time.monotonic() + give_up_s
    pause = BACK_OFF_S[0]
    while True:
        try:
            return await call()
        except grpc.aio.AioRpcError as err:
            if err.code() not in RETRIED or time.monotonic() > deadline:
                raise
            errors[f"{what} {err.code().name}: {(err.details() or '')[:200]}"] += 1
        await asyncio.sleep(pause)
        pause = min(pause * 2, BACK_OFF_S[1])


class PersonTable(BotTable):
    """The table as one person sees it: their own seat's view, through the gateway with their
    token. Their own seat counts as one the turn player plays (``Seated.bots``), so the bots'
    logic plays the person's turns; the other people's seats stay theirs."""

    def __init__(self, client: TableClient, player_id: str) -> None:
        super().__init__(client)
        self.player_id = player_id

    def _seated(self, table_id: str, msg: Any) -> Seated:
        seated = super()._seated(table_id, msg)
        players = tuple("" if p == self.player_id else p for p in seated.players)
        return Seated(seated.view, players)


@dataclass
class Person:
    """One player: their id and token, the tables they played (in order) and their turns."""

    name: str
    player_id: str
    token: str
    tables: list[str] = field(default_factory=list)
    turns: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    doing: str = ""  # what the person is at now (a failure message says)

    async def play(self, gateway: str, tournament_id: str, stop: asyncio.Event, give_up_s: float) -> None:
        """Every table of ``tournament_id`` this person is seated at, played to the match's end,
        until ``stop``. ``give_up_s``: how long a service may stay away before a call fails."""
        async with grpc.aio.insecure_channel(gateway) as channel:
            lobby = lpb_grpc.LobbyServiceStub(channel)
            md = (("authorization", f"Bearer {self.token}"),)
            table = PersonTable(TableClient(gateway, self.token, channel=channel), self.player_id)
            player = TurnPlayer(table, strategy=STRATEGY, instant=True)
            while not stop.is_set():
                self.doing = f"looking for a table after {self.tables}"
                found = await self._next_table(lobby, md, tournament_id, give_up_s)
                if found is None:
                    await _pause(stop, 0.2)
                    continue
                table_id, seat = found
                await self._play_table(table, player, table_id, seat, stop)
                self.tables.append(table_id)

    async def _next_table(self, lobby: Any, md: Any, tournament_id: str, give_up_s: float) -> tuple[str, int] | None:
        """The person's tournament table not played yet, and their seat there, from their lobby list."""
        resp = await retrying(
            lambda: lobby.ListMyTables(lpb.ListMyTablesRequest(limit=50), metadata=md, timeout=CALL_S),
            "ListMyTables",
            give_up_s,
            self.errors,
        )
        for card in sorted(resp.tables, key=lambda c: c.table_id):
            if card.tournament_id != tournament_id or card.table_id in self.tables:
                continue
            seats = [s.seat for s in card.seats if s.player_id == self.player_id]
            if len(seats) != 1:
                raise AssertionError(f"{self.name} is listed at {card.table_id} but seated {seats}: {card}")
            return card.table_id, seats[0]
        return None

    async def _play_table(
        self, table: PersonTable, player: TurnPlayer, table_id: str, seat: int, stop: asyncio.Event
    ) -> None:
        """``seat``'s turns at ``table_id`` until its match is over (or ``stop``)."""
        while not stop.is_set():
            try:
                self.doing = f"{table_id} seat {seat}: looking"
                seated = await table.view(table_id, seat)
                if seated is not None:
                    v = seated.view
                    self.doing = f"{table_id} seat {seat}: version {v.version}, {v.phase.value}, turn {v.turn}"
                if seated is None:
                    await _pause(stop, 0.2)  # listed, not yet opened at the table service
                    continue
                if seated.view.phase is Phase.MATCH_OVER:
                    return
                if seated.bots_turn(seat):
                    played = await player.play_turn(table_id, seat, view=seated)
                    self.turns += 1 if played.commands else 0
                    continue
            except grpc.aio.AioRpcError as err:
                if err.code() not in RETRIED:
                    raise
                self.errors[f"table {err.code().name}: {(err.details() or '')[:200]}"] += 1
                await _pause(stop, BACK_OFF_S[0] * 3)
                continue
            await _pause(stop, 0.05)


async def _pause(stop: asyncio.Event, seconds: float) -> None:
    try:
        await asyncio.wait_for(stop.wait(), seconds)
    except TimeoutError:
        pass


class Crowd:
    """``people`` playing ``tournament_id`` at once through ``gateway`` until it is over.
    ``tournament`` is the latest GetTournament answer (as the first person sees it)."""

    def __init__(
        self, gateway: str, tournament_id: str, people: Sequence[Person], give_up_s: float = 60.0, poll_s: float = 0.3
    ) -> None:
        self.gateway = gateway
        self.tournament_id = tournament_id
        self.people = list(people)
        self.give_up_s = give_up_s
        self.poll_s = poll_s
        self.tournament: lpb.Tournament | None = None
        self.mark = 0  # a count of turns a caller notes (a moment to count from)
        self.errors: Counter[str] = Counter()
        self._stop = asyncio.Event()
        self._changed = asyncio.Event()

    @property
    def turns(self) -> int:
        return sum(p.turns for p in self.people)

    def all_errors(self) -> Counter[str]:
        total = Counter(self.errors)
        for p in self.people:
            total.update(p.errors)
        return total

    async def until(self, done: Callable[[lpb.Tournament], bool], timeout_s: float) -> lpb.Tournament:
        """The tournament once ``done(tournament)``; AssertionError after ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while self.tournament is None or not done(self.tournament):
            left = deadline - time.monotonic()
            if left <= 0:
                t = self.tournament
                raise AssertionError(
                    f"the tournament did not get there within {timeout_s} s: "
                    f"{'no answer yet' if t is None else f'status {t.status}, round {t.round}, version {t.version}'}"
                )
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), min(left, 1.0))
            except TimeoutError:
                pass
        return self.tournament

    async def run(self, timeout_s: float) -> lpb.Tournament:
        """Every person plays until the tournament is FINISHED (or CANCELLED): its last answer.
        A person's failure other than a retried one fails the run."""
        tasks = [
            asyncio.create_task(p.play(self.gateway, self.tournament_id, self._stop, self.give_up_s))
            for p in self.people
        ]
        follow = asyncio.create_task(self._follow())
        try:
            deadline = time.monotonic() + timeout_s
            while True:
                for task in [follow, *tasks]:
                    if task.done():
                        task.result()  # raises what the person met
                        if task is not follow:
                            raise AssertionError("a person stopped playing before the tournament was over")
                t = self.tournament
                if t is not None and t.status in FINISHED:
                    return t
                if time.monotonic() > deadline:
                    raise AssertionError(
                        f"the tournament was not over within {timeout_s} s: "
                        f"{'no answer' if t is None else f'status {t.status}, round {t.round}'}; "
                        f"errors {dict(self.all_errors())}; people: "
                        + "; ".join(f"{p.name} {p.doing}" for p in self.people)
                    )
                await asyncio.sleep(0.2)
        finally:
            self._stop.set()
            for task in [follow, *tasks]:
                if not task.done():
                    task.cancel()
            await asyncio.gather(follow, *tasks, return_exceptions=True)

    async def _follow(self) -> None:
        who = self.people[0]
        md = (("authorization", f"Bearer {who.token}"),)
        async with grpc.aio.insecure_channel(self.gateway) as channel:
            lobby = lpb_grpc.LobbyServiceStub(channel)
            while not self._stop.is_set():
                resp = await retrying(
                    lambda: lobby.GetTournament(
                        lpb.GetTournamentRequest(tournament_id=self.tournament_id), metadata=md, timeout=CALL_S
                    ),
                    "GetTournament",
                    self.give_up_s,
                    self.errors,
                )
                if self.tournament is None or resp.tournament.version != self.tournament.version:
                    self.tournament = resp.tournament
                    self._changed.set()
                if resp.tournament.status in FINISHED:
                    return
                await _pause(self._stop, self.poll_s)

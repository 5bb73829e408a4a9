"""The lobby's rooms (issue 47.5): each game at each stake the lobby offers, the one list of
them (the web client draws the rooms it is given), with how many people play and wait there.
A count a player sees is computed here, once, from the tables directory; never by a client."""

from __future__ import annotations

from dataclasses import dataclass

from .store import LobbyStore
from .tables_repo import RoomCount

__all__ = ["ROOM_GAMES", "ROOM_STAKES", "Room", "Rooms"]

ROOM_GAMES = ("OKEY", "OKEY101")
ROOM_STAKES = (0, 100, 500, 1000, 5000)  # 0: no stake


@dataclass(frozen=True, slots=True)
class Room:
    game: str
    stake: int
    count: RoomCount


class Rooms:
    def __init__(self, store: LobbyStore) -> None:
        self.store = store

    async def list(self) -> list[Room]:
        """Every room, games then stakes in the order offered, each with its public tables'
        people (bots are not people; private tables are not counted)."""
        async with self.store.unit() as uow:
            counts = await uow.tables.room_counts(ROOM_GAMES, ROOM_STAKES)
        return [Room(g, s, counts.get((g, s), RoomCount())) for g in ROOM_GAMES for s in ROOM_STAKES]

"""Issue 47.5: the lobby's rooms (ListRooms). Each game at each stake the lobby offers, with the
people seated at its public tables being played and at its waiting ones, and its waiting tables:
counted once, by the lobby, over the tables directory. Bots are not people; private tables and
tables at a stake of no room are not counted; a player who left a match no longer plays."""

from __future__ import annotations

from typing import Any

from lobby_helpers import FakeTables, Guest
from okey.v1 import common_pb2
from okey.v1 import lobby_service_pb2 as pb
from okeycore.options import Game, TableOptions

from services.lobby.api import LobbyServicer
from services.lobby.app import LobbyApp
from services.lobby.rooms import ROOM_GAMES, ROOM_STAKES
from services.lobby.tables_repo import RoomCount

OKEY = TableOptions(game=Game.OKEY)
OKEY_500 = TableOptions(game=Game.OKEY, stake=500)
OKEY101_100 = TableOptions(game=Game.OKEY101, stake=100)


class Context:
    def __init__(self, token: str) -> None:
        self.token = token

    def invocation_metadata(self) -> list[tuple[str, Any]]:
        return [("authorization", "Bearer " + self.token)]


async def counts(app: LobbyApp) -> dict[tuple[str, int], RoomCount]:
    return {(r.game, r.stake): r.count for r in await app.list_rooms()}


async def test_every_room_in_order_and_empty_at_first(app: LobbyApp) -> None:
    rooms = await app.list_rooms()
    assert [(r.game, r.stake) for r in rooms] == [(g, s) for g in ROOM_GAMES for s in ROOM_STAKES]
    assert ROOM_STAKES[0] == 0 and list(ROOM_STAKES) == sorted(ROOM_STAKES)
    assert all(r.count == RoomCount(0, 0, 0) for r in rooms)


async def test_people_waiting_and_playing_per_room(app: LobbyApp, guest: Guest, fake_tables: FakeTables) -> None:
    a, b, c, d, e = [await guest() for _ in range(5)]
    # a waiting public table with two people (and two open seats)
    waiting, _ = await app.open_table(a, OKEY)
    await app.join(b, waiting.table.table_id)
    # a second one with one person, and a table being played: one person, three bots
    await app.open_table(c, OKEY)
    await app.open_table(d, OKEY, fill_with_bots=True)
    assert len(fake_tables.created) == 1
    # another room: a waiting Okey 101 table at 100
    await app.open_table(e, OKEY101_100)
    got = await counts(app)
    assert got[("OKEY", 0)] == RoomCount(people_playing=1, people_waiting=3, tables_waiting=2)
    assert got[("OKEY101", 100)] == RoomCount(people_playing=0, people_waiting=1, tables_waiting=1)
    assert all(v == RoomCount() for k, v in got.items() if k not in {("OKEY", 0), ("OKEY101", 100)})
    # a full table starts: its four people play, and it waits no more
    f, g = await guest(), await guest()
    await app.join(f, waiting.table.table_id)
    await app.join(g, waiting.table.table_id)
    assert (await counts(app))[("OKEY", 0)] == RoomCount(people_playing=5, people_waiting=1, tables_waiting=1)
    # a player who leaves mid-match plays no more (a bot plays the seat)
    await app.leave(b, waiting.table.table_id)
    assert (await counts(app))[("OKEY", 0)] == RoomCount(people_playing=4, people_waiting=1, tables_waiting=1)


async def test_private_tables_and_stakes_of_no_room_are_not_counted(app: LobbyApp, guest: Guest) -> None:
    a, b, c, d = [await guest() for _ in range(4)]
    private, _ = await app.open_table(a, OKEY_500, private=True)
    await app.join(b, "", invite_code=private.table.invite_code or "")
    await app.open_table(c, OKEY_500, private=True, fill_with_bots=True)
    await app.open_table(d, TableOptions(game=Game.OKEY, stake=250))  # no room has that stake
    assert all(v == RoomCount() for v in (await counts(app)).values())
    await app.open_table(d, OKEY_500)
    assert (await counts(app))[("OKEY", 500)] == RoomCount(people_playing=0, people_waiting=1, tables_waiting=1)


async def test_a_table_left_before_its_start_is_not_counted(app: LobbyApp, guest: Guest) -> None:
    a, b = await guest(), await guest()
    card, _ = await app.open_table(a, OKEY)
    await app.join(b, card.table.table_id)
    await app.leave(b, card.table.table_id)
    assert (await counts(app))[("OKEY", 0)] == RoomCount(people_playing=0, people_waiting=1, tables_waiting=1)
    await app.leave(a, card.table.table_id)  # the last one leaves: the table is cancelled
    assert (await counts(app))[("OKEY", 0)] == RoomCount()


async def test_list_rooms_over_the_servicer(app: LobbyApp, guest: Guest) -> None:
    _, token, _, _ = await app.sign_in_guest("Derya", "dev-rooms-api")
    a = await guest()
    await app.open_table(a, OKEY101_100)
    got = await LobbyServicer(app).ListRooms(pb.ListRoomsRequest(), Context(token))
    assert len(got.rooms) == len(ROOM_GAMES) * len(ROOM_STAKES)
    assert (got.rooms[0].game, got.rooms[0].stake) == (common_pb2.GAME_OKEY, 0)
    room = next(r for r in got.rooms if r.game == common_pb2.GAME_OKEY101 and r.stake == 100)
    assert (room.people_playing, room.people_waiting, room.tables_waiting) == (0, 1, 1)

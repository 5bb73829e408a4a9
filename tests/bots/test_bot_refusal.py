"""A bot's command the table refuses because the table moved on since the view it was decided on
does not end the bot's turn: the bot looks again and plays on from the table as it is, instead of
leaving the turn to the table's turn timer. A refusal on a table that has not moved (the rules
refuse the command as decided) still ends the turn. And a look at a table that still stands at an
event plays the bot turn standing there, whichever seat's it is. Real table service, real gRPC."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
from okeycore.commands import Discard, Draw
from okeycore.options import BotPace, TableOptions
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient

from services.bots.app import BotsApp
from services.table.main import TableService


async def _events(table_service: TableService, table_id: str) -> list[tuple[str, int]]:
    assert table_service.app is not None
    return [(e.type, getattr(e, "seat", -1)) for _, e in await table_service.app.events(table_id)]


@pytest.fixture
async def table_id(admin: TableClient) -> str:
    """A new table of four bot seats, and no bots service: nobody plays there but the test."""
    table_id = f"refused-{uuid.uuid4().hex[:8]}"
    await admin.create_table(
        TableOptions(turn_seconds=120, bot_pace=BotPace.INSTANT), ("", "", "", ""), table_id=table_id
    )
    return table_id


@pytest.fixture
async def client(table_service: TableService) -> AsyncIterator[TableClient]:
    client = TableClient(f"127.0.0.1:{table_service.port}", issue_token("bots", "service"))
    yield client
    await client.close()


@pytest.fixture
async def app(client: TableClient) -> AsyncIterator[BotsApp]:
    app = BotsApp(client=client, strategy="greedy")  # no consumer: each test plays each turn itself
    yield app
    await app.close()


async def test_a_command_refused_because_the_table_moved_on_does_not_end_the_turn(
    table_service: TableService, table_id: str, client: TableClient, app: BotsApp
) -> None:
    starter = await client.view(table_id, (await client.view(table_id)).turn)
    await client.act(table_id, Discard(seat=starter.seat, tile=starter.rack[0].id))  # the starter holds 15
    seat = (await client.view(table_id)).turn
    stale = await app.table.view(table_id, seat)  # the next seat's view: time to draw
    # Another replica draws for the seat first (its own command id): the draw this bot decides
    # on the stale view is refused.
    await client.act(table_id, Draw(seat=seat), command_id="another-replica")
    played = await app.player.play_turn(table_id, seat, view=stale)
    mine = [kind for kind, s in await _events(table_service, table_id) if s == seat]
    assert mine.count("TileDrawn") == 1 and mine[-1] == "TileDiscarded", mine  # the turn went on to its discard
    assert played.refused == 1 and app.player.looked_after_refusal == 1
    # Refused on a table that has not moved: the turn ends (the rules refuse it as decided).
    nxt = (await client.view(table_id)).turn
    await client.act(table_id, Draw(seat=nxt), command_id="another-replica-2")
    now = await app.table.view(table_id, nxt)
    before = len(await _events(table_service, table_id))
    assert now is not None and await app.player.moved_on(table_id, nxt, now) is None
    assert app.player.looked_after_refusal == 1 and len(await _events(table_service, table_id)) == before


async def test_a_look_at_a_table_standing_at_the_event_plays_the_bot_turn_standing_there(
    table_service: TableService, table_id: str, client: TableClient, app: BotsApp
) -> None:
    """A replica looks at a table a while after a seat's own move (here: a show by a seat whose turn
    it is not). If the table still stands there with the turn at another bot seat, that turn was
    lost (at a deal: the ``HandStarted`` that called its bot was handed back to the consumer, and
    the show's later version, recorded meanwhile, made its redelivery a duplicate), and the look
    plays it instead of leaving it to the table's turn timer."""
    table = await client.view(table_id)
    starter, other = table.turn, (table.turn + 1) % 4
    await app.player.play_later(table_id, other, int(table.version), only_as_of=True)
    events = await _events(table_service, table_id)
    assert ("TileDiscarded", starter) in events, events  # the starter's lost turn, played
    # A look at a table that moved on since plays nothing.
    moved = await client.view(table_id)
    await app.player.play_later(table_id, (moved.turn + 1) % 4, int(moved.version) - 1, only_as_of=True)
    assert await _events(table_service, table_id) == events

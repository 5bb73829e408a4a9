"""Issue 21: Act answers with the acting seat's view after the command when asked
(``return_view``), so a bot plays a turn with one GetView; the view is that seat's only."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from okeycore.commands import Discard, Draw
from okeycore.options import TableOptions
from okeyplatform.client import TableClient
from okeyplatform.contract import classic_view_from_pb

from services.table.main import TableService

PLAYERS = ("ali", "ayse", "mehmet", "zeynep")


async def test_act_returns_the_seat_s_own_view_after_the_command_only_when_asked(
    table_service: TableService, client_for: Callable[[str], TableClient]
) -> None:
    table_id = f"t-view-{uuid.uuid4().hex[:8]}"
    await client_for("lobby", "service").create_table(TableOptions(), PLAYERS, table_id=table_id)
    clients = [client_for(p) for p in PLAYERS]
    seat = classic_view_from_pb(await clients[0].view(table_id, 0)).turn
    mine = clients[seat]
    before = classic_view_from_pb(await mine.view(table_id, seat))
    plain = await mine.act(table_id, Discard(seat=seat, tile=before.rack[0]), command_id="d1")
    assert not plain.HasField("view")  # not asked: nothing extra on the wire
    nxt = (seat + 1) % 4
    drawn = await clients[nxt].act(table_id, Draw(seat=nxt), command_id="d2", return_view=True)
    view = classic_view_from_pb(drawn.view)
    assert view.version == drawn.version and view.seat == nxt
    assert view == classic_view_from_pb(await clients[nxt].view(table_id, nxt))  # what GetView says
    assert len([t for t in view.rack if t >= 0]) == 15  # its own rack, with the drawn tile
    # the other seats' racks stay hidden in it
    assert all(p.rack is None for i, p in enumerate(view.seats) if i != nxt)


async def test_an_allowed_query_checks_only_the_names_asked_with_the_same_answers(
    table_service: TableService, client_for: Callable[[str], TableClient]
) -> None:
    """``AllowedQuery`` (GetView and Act's view): ``allowed`` lists only the names asked, each
    answered as the full view answers it; an empty query checks none; too long a query is refused."""
    import grpc
    import pytest

    table_id = f"t-asked-{uuid.uuid4().hex[:8]}"
    await client_for("lobby", "service").create_table(TableOptions(), PLAYERS, table_id=table_id)
    clients = [client_for(p) for p in PLAYERS]
    seat = classic_view_from_pb(await clients[0].view(table_id, 0)).turn
    mine = clients[seat]
    full = await mine.view(table_id, seat)
    assert "Discard" in full.allowed and len(full.allowed) > 1  # the starter, 15 tiles
    asked = ("Discard", "Draw", "DeclarePairs", "NoSuchCommand")
    some = await mine.view(table_id, seat, allowed=asked)
    assert list(some.allowed) == [n for n in full.allowed if n in asked]
    none = await mine.view(table_id, seat, allowed=())
    assert list(none.allowed) == []
    some.ClearField("allowed")
    full.ClearField("allowed")
    assert some == full  # the rest of the view is the same
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await mine.view(table_id, seat, allowed=[f"n{i}" for i in range(65)])
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    view = classic_view_from_pb(await mine.view(table_id, seat))
    nxt = (seat + 1) % 4
    await mine.act(table_id, Discard(seat=seat, tile=view.rack[0]), command_id="q1")
    drawn = await clients[nxt].act(table_id, Draw(seat=nxt), command_id="q2", return_view=True, allowed=("Discard",))
    assert list(drawn.view.allowed) == ["Discard"]


async def test_act_answers_a_service_with_the_next_bot_seat_s_view_and_a_person_never(
    table_service: TableService, client_for: Callable[[str], TableClient]
) -> None:
    """``return_next_view``: after a discard that hands the turn to a seat a bot plays, the
    service's answer carries that seat's view (so the bots play on with no GetView); a person's
    answer never carries another seat's view, bot seat or not (RULES.md section 7); a turn
    handed to a person's seat carries none either."""
    table_id = f"t-next-{uuid.uuid4().hex[:8]}"
    service = client_for("bots", "service")
    await service.create_table(TableOptions(), ("ali", "", "", ""), table_id=table_id)  # seats 1-3: bots
    ali = client_for("ali")
    checked = {"person": 0, "bot to bot": 0, "bot to person": 0}
    for turn_no in range(8):
        spectator = classic_view_from_pb(await service.view(table_id))
        seat = spectator.turn
        caller = ali if seat == 0 else service
        view = classic_view_from_pb(await caller.view(table_id, seat))
        if "Draw" in view.allowed:  # the starter has 15 tiles and only discards
            drawn = await caller.act(table_id, Draw(seat=seat), command_id=f"n{turn_no}d", return_view=True)
            view = classic_view_from_pb(drawn.view)
        tile = next(t for t in view.rack if t >= 0)
        resp = await caller.act(
            table_id, Discard(seat=seat, tile=tile), command_id=f"n{turn_no}x", return_next_view=True
        )
        nxt = (seat + 1) % 4
        if seat == 0:
            assert not resp.HasField("next_view")  # a person gets no bot seat's rack
            checked["person"] += 1
        elif nxt == 0:
            assert not resp.HasField("next_view")  # the turn went to a person's seat
            checked["bot to person"] += 1
        else:
            assert resp.HasField("next_view")
            got = classic_view_from_pb(resp.next_view)
            assert got.seat == nxt and got.turn == nxt and got.version == resp.version
            assert got == classic_view_from_pb(await service.view(table_id, nxt))  # what GetView says
            assert all(p.rack is None for i, p in enumerate(got.seats) if i != nxt)  # no other rack
            checked["bot to bot"] += 1
        dup = await caller.act(
            table_id, Discard(seat=seat, tile=tile), command_id=f"n{turn_no}x", return_next_view=True
        )
        assert dup.duplicate and not dup.HasField("next_view")  # a retry appends nothing, shows nothing
    assert all(checked.values()), checked

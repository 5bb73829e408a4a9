"""A typed client for TableService with bearer-token metadata, for tools, bots and tests."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Collection
from typing import Any

import grpc
from okey.v1 import events_pb2
from okey.v1 import table_service_pb2 as pb
from okey.v1 import table_service_pb2_grpc as pb_grpc
from okeycore import commands as C
from okeycore import okey101
from okeycore.melds import MeldKind
from okeycore.options import TableOptions

from .auth import ServiceCredential
from .contract import enum_codec, options_pb

__all__ = ["TableClient", "command_request"]


_BARE: dict[type, str] = {
    C.Draw: "draw",
    C.TakeDiscard: "take_discard",
    C.ShowIndicator: "show_indicator",
    C.DeclarePairs: "declare_pairs",
    C.TurnToOkey: "turn_to_okey",
    C.Pass: "pass",
    C.TakeBack: "take_back",
    C.LeaveSeat: "leave_seat",
    C.Ready: "ready",
    okey101.ReturnSideTile: "return_side_tile",
}
"""The seat commands that carry nothing but the seat: their ActRequest field."""


def command_request(table_id: str, command: C.Command, command_id: str | None = None) -> pb.ActRequest:
    """An ActRequest for an okeycore seat command."""
    req = pb.ActRequest(table_id=table_id, command_id=command_id or uuid.uuid4().hex)
    seat = getattr(command, "seat", -1)
    req.seat = seat
    bare = _BARE.get(type(command))
    if bare is not None:
        getattr(req, bare).SetInParent()
    elif isinstance(command, C.Discard):
        req.discard.tile_id = command.tile
    elif isinstance(command, C.Finish):
        req.finish.tile_id = command.tile
        for group in command.arrangement or ():
            req.finish.arrangement.add().ids.extend(group)
    elif isinstance(command, okey101.OpenMelds):
        for group in command.melds:
            req.open_melds.melds.add().ids.extend(group)
        kinds, _ = enum_codec(MeldKind, events_pb2.MeldKind.DESCRIPTOR)
        req.open_melds.kinds.extend(kinds[k] for k in command.kinds)
    elif isinstance(command, okey101.AddTile):
        req.add_tile.tile_id = command.tile
        req.add_tile.meld = command.meld
        if command.at_start is not None:
            req.add_tile.at_start = command.at_start
    elif isinstance(command, okey101.TakeOkey):
        req.take_okey.tile_id = command.tile
        req.take_okey.meld = command.meld
    elif isinstance(command, C.SetConnection):  # the edge's, with a service credential [D-11]
        req.set_connection.connected = command.connected
    else:
        raise ValueError(f"{type(command).__name__} is not a seat command")
    return req


class TableClient:
    """``token``: a fixed bearer token, or a :class:`ServiceCredential` that renews itself."""

    def __init__(self, target: str, token: str | ServiceCredential, channel: grpc.aio.Channel | None = None) -> None:
        self.channel = channel or grpc.aio.insecure_channel(target)
        self.stub = pb_grpc.TableServiceStub(self.channel)
        self.credential = token if isinstance(token, ServiceCredential) else None
        self._metadata: tuple[tuple[str, str], ...] = () if self.credential else (("authorization", f"Bearer {token}"),)

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return self.credential.metadata() if self.credential is not None else self._metadata

    @metadata.setter
    def metadata(self, value: tuple[tuple[str, str], ...]) -> None:
        self.credential, self._metadata = None, value

    async def close(self) -> None:
        await self.channel.close()

    async def create_table(
        self,
        options: TableOptions,
        players: tuple[str, ...] = (),
        table_id: str = "",
        command_id: str = "",
        public: bool = False,
    ) -> pb.CreateTableResponse:
        """Open a table; ``table_id`` and ``public`` only with a service credential (the server
        names a player's tables; the lobby lists its public ones); ``command_id`` makes a retry
        return the same table."""
        req = pb.CreateTableRequest(
            table_id=table_id, options=options_pb(options), command_id=command_id, public=public
        )
        for p in players:
            req.seats.add(player_id=p)
        resp: pb.CreateTableResponse = await self.stub.CreateTable(req, metadata=self.metadata)
        return resp

    async def act(
        self,
        table_id: str,
        command: C.Command,
        command_id: str | None = None,
        traceparent: str | None = None,
        return_view: bool = False,
        allowed: Collection[str] | None = None,
        return_next_view: bool = False,
        timeout: float | None = None,
    ) -> pb.ActResponse:
        """One seat command; ``traceparent`` (W3C trace context) is kept with the events it appends;
        with ``return_view`` the answer carries the seat's view after it (``resp.view``), whose
        ``allowed`` answers only for the names in ``allowed`` when given (``AllowedQuery``); with
        ``return_next_view`` (a service's call) it carries the view of the seat the command handed
        the turn to when a bot plays that seat (``resp.next_view``). ``timeout``: seconds before
        the call gives up (DEADLINE_EXCEEDED; a retry with the same ``command_id`` is safe)."""
        md = self.metadata + ((("traceparent", traceparent),) if traceparent else ())
        req = command_request(table_id, command, command_id)
        req.return_view = return_view
        req.return_next_view = return_next_view
        if allowed is not None:
            req.allowed_query.SetInParent()
            req.allowed_query.names.extend(allowed)
        resp: pb.ActResponse = await self.stub.Act(req, metadata=md, timeout=timeout)
        return resp

    async def view(
        self,
        table_id: str,
        seat: int | None = None,
        min_version: int = 0,
        allowed: Collection[str] | None = None,
        timeout: float | None = None,
    ) -> pb.SeatView:
        """``seat``'s view (a spectator's without one), including at least ``min_version``; its
        ``allowed`` answers only for the names in ``allowed`` when given (``AllowedQuery``);
        ``timeout``: seconds before the call gives up (DEADLINE_EXCEEDED)."""
        req = pb.GetViewRequest(table_id=table_id)
        if seat is not None:
            req.seat = seat
        if min_version:
            req.min_version = min_version
        if allowed is not None:
            req.allowed_query.SetInParent()
            req.allowed_query.names.extend(allowed)
        resp = await self.stub.GetView(req, metadata=self.metadata, timeout=timeout)
        return resp.view

    async def events(self, table_id: str, seat: int | None = None, after_version: int = 0) -> list[Any]:
        req = pb.GetEventsRequest(table_id=table_id, after_version=after_version)
        if seat is not None:
            req.seat = seat
        resp = await self.stub.GetEvents(req, metadata=self.metadata)
        return list(resp.events)

    def watch(self, table_id: str, seat: int | None = None, after_version: int = 0) -> AsyncIterator[pb.WatchResponse]:
        req = pb.WatchRequest(table_id=table_id, after_version=after_version)
        if seat is not None:
            req.seat = seat
        call: AsyncIterator[pb.WatchResponse] = self.stub.Watch(req, metadata=self.metadata)
        return call

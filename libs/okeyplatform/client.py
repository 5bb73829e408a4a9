"""A typed client for TableService with bearer-token metadata, for tools, bots and tests."""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid
from collections.abc import AsyncIterator, Callable, Collection
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
from .contract import PLAY_BATCH_METADATA, enum_codec, options_pb, ready_batch, unbatched
from .grpcserver import error_status

__all__ = ["TableClient", "PlayStream", "command_request", "call_error"]


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


def call_error(code: grpc.StatusCode, message: str, reason: str = "") -> grpc.aio.AioRpcError:
    """The error a unary call ending with this status raises, ErrorInfo ``reason`` included
    (``okeyplatform.grpcserver.error_reason`` reads it back): a request of a stream fails as
    its unary call would, so callers handle both alike."""
    if not reason:
        return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), message)
    status = error_status(code, reason, message)
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(*status.trailing_metadata), status.details)


class _NoPlay(Exception):
    """The table service has no Play (an older release): the request goes as a unary call."""


ANSWER_GRACE_S = 0.25
"""How much longer than a request's timeout its caller waits: the table answers a request past
its deadline itself (DEADLINE_EXCEEDED), so a live stream always answers within the timeout and
this grace; a stream that answered nothing at all by then is taken for stuck."""

NO_PLAY_RETRY_S = 60.0
"""After a table service answered that it has no Play, unary calls for this long, then the stream
is tried again (a rolling upgrade's old replica, a proxy without the route, do not turn it off
for good)."""


class _Stream:
    """One open Play stream: the requests waiting for an answer; one task writes them in order
    (no caller's cancellation ever reaches a write, which would cancel the whole stream) and one
    reads the answers. The stream asks for batches; once the table service has said it takes
    them, the requests that wait while a write is under way go together in the next message."""

    def __init__(self, call: Any, metadata: tuple[tuple[str, str], ...]) -> None:
        self.call = call
        self.metadata = metadata
        self.batching = False  # the table service takes requests in batches (its initial metadata)
        self.pending: dict[int, asyncio.Future[pb.PlayResponse]] = {}
        self.outbox: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
        self.last_answer = time.monotonic()
        self.closed = False  # no new request goes on it
        self.reader = asyncio.create_task(self._read())
        self.writer = asyncio.create_task(self._write())

    def send(self, request: pb.PlayRequest) -> asyncio.Future[pb.PlayResponse]:
        waiting: asyncio.Future[pb.PlayResponse] = asyncio.get_running_loop().create_future()
        self.pending[request.id] = waiting
        self.outbox.put_nowait(request)
        return waiting

    async def _write(self) -> None:
        try:
            ended = False
            while not ended and (request := await self.outbox.get()) is not None:
                if request.id not in self.pending:  # its caller gave up before it went out
                    continue
                more, ended = ready_batch(self.outbox, self.batching)
                request.batch.extend(m for m in more if m.id in self.pending)
                try:
                    await self.call.write(request)
                finally:
                    request.ClearField("batch")  # the caller's request is its own again
            await self.call.done_writing()  # the server answers what is in flight, then ends
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError, grpc.aio.UsageError):
            # the call ended: the reader fails what is pending with its status
            self.closed = True

    async def _read(self) -> None:
        error: BaseException | None = None
        try:
            self.batching = PLAY_BATCH_METADATA in tuple(await self.call.initial_metadata())
            async for answer in self.call:
                self.last_answer = time.monotonic()
                for each in unbatched(answer):
                    waiting = self.pending.pop(each.id, None)
                    if waiting is not None and not waiting.done():
                        waiting.set_result(each)
        except grpc.aio.AioRpcError as err:
            error = _NoPlay() if err.code() is grpc.StatusCode.UNIMPLEMENTED else err
        except asyncio.CancelledError:
            error = call_error(grpc.StatusCode.UNAVAILABLE, "the table stream was closed")
            raise
        except Exception as exc:  # an answer that cannot be read: a fault, said as such
            error = call_error(grpc.StatusCode.UNKNOWN, f"the table stream failed: {type(exc).__name__}")
        finally:
            self.closed = True
            failed = error or call_error(grpc.StatusCode.UNAVAILABLE, "the table stream ended before answering")
            for waiting in self.pending.values():
                if not waiting.done():
                    waiting.set_exception(failed)
            self.pending.clear()
            if not self.writer.done():
                self.outbox.put_nowait(None)

    def close(self) -> None:
        """Ask nothing more: what is in flight is answered, then the server ends the stream."""
        self.closed = True
        self.outbox.put_nowait(None)

    def cancel(self) -> None:
        self.closed = True
        self.call.cancel()


class PlayStream:
    """``TableService.Play`` from the caller's side: Act and GetView requests of many tasks on one
    long-lived stream, each answered to its own caller. A request fails exactly as its unary call
    would (:func:`call_error`: the same code and reason), so a caller handles both alike.

    A stream opens at the first request and stays open; it is opened again when the credential's
    token changes (the old one finishes what it has in flight), and after it fails (every request
    in flight fails with its status: UNAVAILABLE for a table service gone, whose requests are
    safe to send again with the same command ids). A request's ``timeout`` covers the whole
    request and goes with it: the table stops working on it past it and answers
    DEADLINE_EXCEEDED. When nothing at all came back on the stream within a request's timeout
    (and :data:`ANSWER_GRACE_S`), the stream is taken for stuck (a connection lost without a
    reset) and closed. A table service without Play answers UNIMPLEMENTED: requests go as unary
    calls for :data:`NO_PLAY_RETRY_S`, then the stream is tried again."""

    def __init__(self, stub: pb_grpc.TableServiceStub, metadata: Callable[[], tuple[tuple[str, str], ...]]) -> None:
        self.stub = stub
        self.metadata = metadata
        self.unary_until = 0.0  # monotonic time before which requests go as unary calls (no Play there)
        self._stream: _Stream | None = None
        self._ids = itertools.count(1)
        self._old: set[_Stream] = set()

    @property
    def available(self) -> bool:
        return time.monotonic() >= self.unary_until

    def no_play(self) -> None:
        self.unary_until = time.monotonic() + NO_PLAY_RETRY_S

    def _open(self) -> _Stream:
        md = self.metadata()
        st = self._stream
        if st is not None and not st.closed and st.metadata == md:
            return st
        if st is not None:
            st.close()  # a token renewed: the old stream ends once it has answered
            self._old.add(st)
            st.reader.add_done_callback(lambda _r, st=st: self._old.discard(st))
        st = self._stream = _Stream(self.stub.Play(metadata=(*md, PLAY_BATCH_METADATA)), md)
        return st

    async def request(self, request: pb.PlayRequest, timeout: float | None) -> pb.PlayResponse:
        """Send one request, wait for its answer; raises what its unary call would, or
        :class:`_NoPlay` when the server has no Play."""
        st = self._open()
        request.id = rid = next(self._ids)
        if timeout is not None:
            request.timeout_ms = max(1, round(timeout * 1000))
        waiting = st.send(request)
        sent = time.monotonic()
        try:
            answer = await (waiting if timeout is None else asyncio.wait_for(waiting, timeout + ANSWER_GRACE_S))
        except TimeoutError:
            if st.last_answer < sent:  # nothing at all came back since: a stream that hangs
                st.cancel()
            raise call_error(grpc.StatusCode.DEADLINE_EXCEEDED, "the table did not answer in time") from None
        finally:
            st.pending.pop(rid, None)  # answered, given up or cancelled: nothing is left behind
        kind = request.WhichOneof("call")
        got = answer.WhichOneof("answer")
        if got == "error":
            e = answer.error
            raise call_error(_CODES.get(e.code, grpc.StatusCode.UNKNOWN), e.message, e.reason)
        if got != kind:
            raise call_error(grpc.StatusCode.UNKNOWN, f"the table answered a {kind} request with {got}")
        return answer

    async def close(self) -> None:
        streams = [s for s in (self._stream, *self._old) if s is not None]
        self._stream = None
        for st in streams:
            st.cancel()
            await asyncio.gather(st.reader, st.writer, return_exceptions=True)


_CODES = {c.value[0]: c for c in grpc.StatusCode}


class TableClient:
    """``token``: a fixed bearer token, or a :class:`ServiceCredential` that renews itself.
    ``stream``: Act and GetView go on one long-lived ``Play`` stream (a service's client: the
    bots'), not a call each."""

    def __init__(
        self,
        target: str,
        token: str | ServiceCredential,
        channel: grpc.aio.Channel | None = None,
        stream: bool = False,
    ) -> None:
        self.channel = channel or grpc.aio.insecure_channel(target)
        self.stub = pb_grpc.TableServiceStub(self.channel)
        self.credential = token if isinstance(token, ServiceCredential) else None
        self._metadata: tuple[tuple[str, str], ...] = () if self.credential else (("authorization", f"Bearer {token}"),)
        self.play = PlayStream(self.stub, lambda: self.metadata) if stream else None

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return self.credential.metadata() if self.credential is not None else self._metadata

    @metadata.setter
    def metadata(self, value: tuple[tuple[str, str], ...]) -> None:
        self.credential, self._metadata = None, value

    async def close(self) -> None:
        if self.play is not None:
            await self.play.close()
        await self.channel.close()

    def _traced(self, traceparent: str | None) -> tuple[tuple[str, str], ...]:
        """A unary call's metadata: the token, and the caller's trace context when it has one."""
        return self.metadata + ((("traceparent", traceparent),) if traceparent else ())

    async def _played(self, request: pb.PlayRequest, timeout: float | None) -> pb.PlayResponse | None:
        """The request's answer over the Play stream; None when there is none to use (no stream
        asked for, or a table service without Play): the caller makes the unary call."""
        if self.play is None or not self.play.available:
            return None
        try:
            return await self.play.request(request, timeout)
        except _NoPlay:
            self.play.no_play()
            return None

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
        req = command_request(table_id, command, command_id)
        req.return_view = return_view
        req.return_next_view = return_next_view
        if allowed is not None:
            req.allowed_query.SetInParent()
            req.allowed_query.names.extend(allowed)
        played = await self._played(pb.PlayRequest(act=req, traceparent=traceparent or ""), timeout)
        if played is not None:
            return played.act
        resp: pb.ActResponse = await self.stub.Act(req, metadata=self._traced(traceparent), timeout=timeout)
        return resp

    async def view(
        self,
        table_id: str,
        seat: int | None = None,
        min_version: int = 0,
        allowed: Collection[str] | None = None,
        timeout: float | None = None,
        traceparent: str | None = None,
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
        played = await self._played(pb.PlayRequest(view=req, traceparent=traceparent or ""), timeout)
        if played is not None:
            return played.view.view
        resp = await self.stub.GetView(req, metadata=self._traced(traceparent), timeout=timeout)
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

"""TableService over gRPC: translate, authorise, call one use case, translate back."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

import grpc
from okey.v1 import events_pb2
from okey.v1 import table_service_pb2 as pb
from okey.v1 import table_service_pb2_grpc as pb_grpc
from okeycore import commands as C
from okeycore import okey101
from okeycore.events import Event
from okeycore.kernel.state import Phase
from okeycore.melds import MeldKind
from okeycore.tiles import face_of_id, okey_face
from okeyplatform import metrics as M
from okeyplatform.auth import Identity, identity_from_metadata, still_valid
from okeyplatform.contract import (
    PLAY_BATCH_MAX,
    PLAY_BATCH_METADATA,
    enum_codec,
    envelope_pb,
    face_pb,
    hints_pb,
    option_spec_pb,
    options_from_pb,
    options_pb,
    ready_batch,
    tile_pb,
    tiles_pb,
    unbatched,
    valid_traceparent,
    view_pb,
)
from okeyplatform.errors import (
    AppError,
    DeadlineExceeded,
    InvalidArgument,
    PermissionDenied,
    ResourceExhausted,
    Unauthenticated,
    as_app_error,
)
from okeyplatform.eventstore import StoredEvent
from okeyplatform.grpcserver import clip_message, nul_field
from okeyplatform.logs import get_logger
from okeyplatform.tracing import current_traceparent, server_span

from .app import TableApp
from .replays import Replays

__all__ = ["TableServicer", "SERVICE_NAME"]

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["TableService"].full_name
log = get_logger(component="table-api")
WATCH_POLL_S = 1.0


def _identity(context: grpc.aio.ServicerContext[Any, Any]) -> Identity:
    return identity_from_metadata(context.invocation_metadata())  # type: ignore[arg-type]


def _traceparent(context: grpc.aio.ServicerContext[Any, Any]) -> str | None:
    """The trace context stored and published with the events a command appends: the call's
    span (okeyplatform.tracing's interceptor; a no-op span keeps the caller's context), else the
    caller's ``traceparent`` metadata; a malformed one is dropped."""
    return current_traceparent() or valid_traceparent(
        next((v for k, v in context.invocation_metadata() or () if k == "traceparent"), None)
    )


def _command(req: pb.ActRequest) -> Callable[[int], C.Command]:
    seat = req.seat
    kind = req.WhichOneof("command")
    if kind is None:
        raise InvalidArgument("a command is required (draw, discard, finish, ...)")
    if kind == "draw":
        return lambda now: C.Draw(seat=seat, now_ms=now)
    if kind == "take_discard":
        return lambda now: C.TakeDiscard(seat=seat, now_ms=now)
    if kind == "discard":
        tile = req.discard.tile_id
        return lambda now: C.Discard(seat=seat, tile=tile, now_ms=now)
    if kind == "finish":
        tile = req.finish.tile_id
        arr = tuple(tuple(g.ids) for g in req.finish.arrangement) or None
        return lambda now: C.Finish(seat=seat, tile=tile, arrangement=arr, now_ms=now)
    if kind == "open_melds":
        melds = tuple(tuple(g.ids) for g in req.open_melds.melds)
        kinds = tuple(_meld_kind(k) for k in req.open_melds.kinds)
        return lambda now: okey101.OpenMelds(seat=seat, melds=melds, kinds=kinds, now_ms=now)
    if kind == "add_tile":
        a = req.add_tile
        at_start = a.at_start if a.HasField("at_start") else None
        return lambda now: okey101.AddTile(seat=seat, tile=a.tile_id, meld=a.meld, at_start=at_start, now_ms=now)
    if kind == "take_okey":
        t = req.take_okey
        return lambda now: okey101.TakeOkey(seat=seat, tile=t.tile_id, meld=t.meld, now_ms=now)
    if kind == "return_side_tile":
        return lambda now: okey101.ReturnSideTile(seat=seat, now_ms=now)
    if kind == "set_connection":  # the edge's: a service credential only (TableApp.act) [D-11]
        connected = req.set_connection.connected
        return lambda now: C.SetConnection(seat=seat, connected=connected, now_ms=now)
    simple: dict[str, type[Any]] = {
        "show_indicator": C.ShowIndicator,
        "declare_pairs": C.DeclarePairs,
        "turn_to_okey": C.TurnToOkey,
        "pass": C.Pass,
        "take_back": C.TakeBack,
        "leave_seat": C.LeaveSeat,
        "ready": C.Ready,
    }
    cls = simple[kind]
    return lambda now: cls(seat=seat, now_ms=now)


def _meld_kind(value: int) -> MeldKind:
    _, kinds = enum_codec(MeldKind, events_pb2.MeldKind.DESCRIPTOR)
    if value not in kinds:
        raise InvalidArgument("open_melds.kinds: MELD_KIND_RUN, MELD_KIND_GROUP or MELD_KIND_PAIR")
    kind: MeldKind = kinds[value]
    return kind


PLAY_IN_FLIGHT = 512
"""Requests of one Play stream handled at once (a bots replica's tables in play); past it the
stream is read no further until one is answered, so a caller cannot pile up work unbounded."""


def _table_of(request: pb.PlayRequest) -> str:
    return request.act.table_id if request.HasField("act") else request.view.table_id


MAX_ALLOWED_ASKED = 64
"""The most names one ``AllowedQuery`` may list (every game has fewer seat commands than this)."""


def _asked(view: Any, request: pb.GetViewRequest | pb.ActRequest) -> Any:
    """The view with ``allowed`` answering only the names the request's ``allowed_query`` lists
    (as it is when the request has none): the rules' checks of the others are not run."""
    if not request.HasField("allowed_query"):
        return view
    names = request.allowed_query.names
    if len(names) > MAX_ALLOWED_ASKED:
        raise InvalidArgument(f"allowed_query lists {len(names)} names; at most {MAX_ALLOWED_ASKED}")
    return replace(view, allowed=view.allowed.only(names))


def _next_bot_seat(state: Any, seat: int, identity: Identity) -> int:
    """The seat whose view ``ActRequest.return_next_view`` answers with: the seat whose turn it
    is now, when that is another seat than the caller's, a bot plays it (``bot_seats``: no
    player, autopilot) and the caller is a service (the bots' credential may play it); -1
    otherwise. A person never gets another seat's view this way (RULES.md section 7)."""
    if identity.role != "service" or state.phase is not Phase.PLAYING:
        return -1
    turn = int(state.turn)
    return turn if turn != seat and state.bot_seats >> turn & 1 else -1


class TableServicer(pb_grpc.TableServiceServicer):
    def __init__(self, app: TableApp, max_watches: int = 0) -> None:
        self.app = app
        self.max_watches = max_watches  # open Watch streams per player on this replica; 0: no cap
        self._watches: Counter[str] = Counter()
        self.replays = Replays()
        self._draining = asyncio.Event()  # set at stop: Play streams end gently

    def _event(self, stored: StoredEvent, event: Event, engine: Any, seat: int | None) -> Any:
        """The envelope NATS carries too, with the event as ``seat`` may see it."""
        return envelope_pb(stored, event, seat, public=engine.public_event)

    async def CreateTable(self, request: pb.CreateTableRequest, context: Any) -> pb.CreateTableResponse:
        identity = _identity(context)
        options = options_from_pb(request.options)
        players = tuple(s.player_id for s in request.seats)
        if players and len(players) != options.seat_count:
            raise InvalidArgument(f"seats: give {options.seat_count} seats or none")
        table_id, version = await self.app.create_table(
            request.table_id, options, players, identity, request.command_id, _traceparent(context), request.public
        )
        return pb.CreateTableResponse(table_id=table_id, version=version)

    async def Act(self, request: pb.ActRequest, context: Any) -> pb.ActResponse:
        return await self._act(request, _identity(context), _traceparent(context))

    async def _act(self, request: pb.ActRequest, identity: Identity, traceparent: str | None) -> pb.ActResponse:
        make = _command(request)
        res = await self.app.act(request.table_id, request.command_id, make, identity, request.seat, traceparent)
        loaded = await self.app.load(request.table_id)
        events = [self._event(st, ev, loaded.engine, request.seat) for st, ev in res.events]
        resp = pb.ActResponse(version=res.version, events=events, duplicate=res.duplicate)
        if request.return_view:  # the seat was authorised for the command: its own view only
            v = _asked(loaded.view(request.seat), request)
            resp.view.CopyFrom(view_pb(v, loaded.state.players))
        nxt = _next_bot_seat(loaded.state, request.seat, identity) if request.return_next_view else -1
        if nxt >= 0 and not res.duplicate:
            v = _asked(loaded.view(nxt), request)
            resp.next_view.CopyFrom(view_pb(v, loaded.state.players))
        return resp

    async def _seat_access(self, table_id: str, seat: int | None, identity: Identity, min_version: int = 0) -> Any:
        loaded = await self.app.load(table_id, min_version=min_version)
        if seat is not None:
            self.app.authorize(loaded, identity, seat)
        return loaded

    async def GetView(self, request: pb.GetViewRequest, context: Any) -> pb.GetViewResponse:
        return await self._view(request, _identity(context))

    async def _view(self, request: pb.GetViewRequest, identity: Identity) -> pb.GetViewResponse:
        seat = request.seat if request.HasField("seat") else None
        if request.min_version < 0:
            raise InvalidArgument(f"min_version must be 0 or more, got {request.min_version}")
        loaded = await self._seat_access(request.table_id, seat, identity, request.min_version)
        v = _asked(loaded.view(seat), request)  # built once a version [39.8]
        return pb.GetViewResponse(view=view_pb(v, loaded.state.players))

    async def GetEvents(self, request: pb.GetEventsRequest, context: Any) -> pb.GetEventsResponse:
        identity = _identity(context)
        seat = request.seat if request.HasField("seat") else None
        loaded = await self._seat_access(request.table_id, seat, identity)
        limit = request.limit if 0 < request.limit <= 1000 else 1000
        pairs = await self.app.events(request.table_id, request.after_version, limit)
        return pb.GetEventsResponse(events=[self._event(st, ev, loaded.engine, seat) for st, ev in pairs])

    async def GetHints(self, request: pb.GetHintsRequest, context: Any) -> pb.GetHintsResponse:
        identity = _identity(context)
        loaded = await self._seat_access(request.table_id, request.seat, identity)
        # Hints see only the seat's view; worked out once a version, however often asked [39.8].
        return pb.GetHintsResponse(hints=hints_pb(loaded.seat_hints(request.seat)))

    async def GetOptionSpec(self, request: pb.GetOptionSpecRequest, context: Any) -> pb.GetOptionSpecResponse:
        # The rules' own data, the same for everyone: no token needed, so a client draws its form
        # before signing in. A token that comes is checked all the same, as the gateway checks it:
        # a bad one is refused alike on every route.
        if any(k == "authorization" for k, _ in context.invocation_metadata() or ()):
            _identity(context)
        resp = pb.GetOptionSpecResponse()
        resp.CopyFrom(option_spec_pb())
        return resp

    async def GetReplay(self, request: pb.GetReplayRequest, context: Any) -> pb.GetReplayResponse:
        identity = _identity(context)
        pairs = await self.app.events(request.table_id)
        r = await self.replays.replay(pairs, request.hand, identity)
        msg = pb.Replay(
            table_id=r.created.table_id,
            hand=r.started.hand,
            options=options_pb(r.created.options),
            players=list(r.created.players),
            starter=r.started.starter,
            indicator=tile_pb(r.started.indicator),
            okey=face_pb(okey_face(face_of_id(r.started.indicator))),
            deck=tiles_pb(r.started.deck),
            events=[envelope_pb(st, ev, private=True) for st, ev in r.pairs],
            commitment=r.started.commitment,
            order=tiles_pb(r.order),
            salt=r.salt,
            verified=r.verified,
            notes_truncated=r.coaching.truncated,
        )
        for rack in r.started.racks:
            msg.racks.add(tiles=tiles_pb(rack))
        for n in r.coaching.notes:
            msg.notes.add(
                version=n.version,
                seat=n.seat,
                kind=pb.CoachingKind.Value(f"COACHING_KIND_{n.kind}"),
                text=n.text,
                hindsight=n.hindsight,
                tiles=tiles_pb(n.tiles),
                points=n.points,
                turns=n.turns,
            )
        return pb.GetReplayResponse(replay=msg)

    def drain(self) -> None:
        """The service is stopping: every Play stream stops reading requests, answers those in
        flight and ends (its caller opens a new one, on another replica)."""
        self._draining.set()

    async def Play(self, requests: AsyncIterator[pb.PlayRequest], context: Any) -> AsyncIterator[pb.PlayResponse]:
        """Act and GetView over one stream (the bots'): each request is handled as its own task as
        it comes, and answered when it is done; at most :data:`PLAY_IN_FLIGHT` are in flight, from
        read to answer written (past it the stream is read no further). The stream ends when the
        caller ends it or the service drains, after the answers of what was read; a caller that
        goes away cancels what it asked. A message may carry a batch of requests; a caller that
        asked for batches (:data:`PLAY_BATCH_METADATA`) gets the answers ready together in one."""
        identity = _identity(context)
        if not identity.is_service:
            raise PermissionDenied("Play is the services' stream: call Act and GetView", "SERVICE_ONLY")
        # A caller that takes answers in batches is told that its requests may come so too.
        batched = PLAY_BATCH_METADATA in tuple(context.invocation_metadata() or ())
        if batched:
            await context.send_initial_metadata((PLAY_BATCH_METADATA,))
        answers: asyncio.Queue[pb.PlayResponse | None] = asyncio.Queue()
        slots = asyncio.Semaphore(PLAY_IN_FLIGHT)
        running: set[asyncio.Task[None]] = set()
        draining = asyncio.ensure_future(self._draining.wait())

        async def one(request: pb.PlayRequest) -> None:
            answers.put_nowait(await self._play_one(request, identity))  # it answers every request

        # The reader waits on the next request alone (no second future to race it each time: a
        # request costs no more than its read); the drain cancels that wait, and only that wait,
        # so a request already read is always handled and answered.
        waiting = False
        drained = False

        def stop_reading(_: Any) -> None:
            nonlocal drained
            if waiting:
                drained = True
                reader.cancel()

        async def read() -> None:
            nonlocal waiting
            try:
                incoming = aiter(requests)
                while not draining.done():
                    waiting = True
                    try:
                        request = await anext(incoming, None)
                    except asyncio.CancelledError:
                        if not drained:
                            raise
                        asyncio.current_task().uncancel()  # type: ignore[union-attr]
                        break  # draining: read no more
                    finally:
                        waiting = False
                    if request is None:  # the caller ended its side
                        break
                    if len(request.batch) >= PLAY_BATCH_MAX:  # a caller that breaks the protocol: no work per request
                        too_many = f"a Play message carries at most {PLAY_BATCH_MAX} requests: the stream is ended"
                        raise InvalidArgument(too_many, "BATCH_TOO_LARGE")
                    for each in unbatched(request):
                        await slots.acquire()
                        task = asyncio.create_task(one(each))
                        running.add(task)
                        task.add_done_callback(running.discard)
                if running:
                    await asyncio.wait(set(running))
            finally:
                answers.put_nowait(None)

        reader = asyncio.create_task(read())
        draining.add_done_callback(stop_reading)
        try:
            ended = False
            while not ended and (answer := await answers.get()) is not None:
                more, ended = ready_batch(answers, batched)  # those ready too, in one message
                answer.batch.extend(more)
                yield answer
                for _ in range(1 + len(more)):
                    slots.release()  # counted until its answer is written: a caller that reads none is read no more
            await reader  # a stream that broke off ends with its error
        finally:
            draining.remove_done_callback(stop_reading)
            reader.cancel()
            draining.cancel()
            for task in list(running):
                task.cancel()

    async def _play_one(self, request: pb.PlayRequest, identity: Identity) -> pb.PlayResponse:
        """One request of a Play stream, checked and applied as its unary call (Act or GetView):
        the same span, the same metrics (kind ``stream_request``), the same refusals; past its
        ``timeout_ms`` it is DEADLINE_EXCEEDED, as a unary call past its deadline."""
        kind = request.WhichOneof("call")
        method = "GetView" if kind == "view" else "Act"
        t0 = time.perf_counter()
        with server_span(f"{SERVICE_NAME}/{method}", valid_traceparent(request.traceparent or None)) as done:
            try:
                deadline = request.timeout_ms / 1000 if request.timeout_ms > 0 else None
                async with asyncio.timeout(deadline):
                    answer = await self._answer(request, kind, identity)
            except Exception as exc:
                err = as_app_error(exc)
                if isinstance(exc, TimeoutError):
                    err = DeadlineExceeded(f"the table did not answer within {request.timeout_ms} ms")
                elif err is None:  # a fault of ours: logged; the caller is told, as a unary call's UNKNOWN
                    log.exception("play_request_failed", table_id=_table_of(request), method=method)
                    err = AppError(f"the table service failed on this request ({type(exc).__name__})")
                code = err.status.value[0]
                done(code, type(exc).__name__)
                M.stream_request_done(SERVICE_NAME, method, err.status.name, err.reason, time.perf_counter() - t0)
                message = clip_message(err.message)
                return pb.PlayResponse(id=request.id, error=pb.PlayError(code=code, reason=err.reason, message=message))
            done(0)
            M.stream_request_done(SERVICE_NAME, method, "OK", "", time.perf_counter() - t0)
            return answer

    async def _answer(self, request: pb.PlayRequest, kind: str | None, identity: Identity) -> pb.PlayResponse:
        still_valid(identity)  # a credential revoked since the stream opened: its requests are refused
        if identity.expires_at and identity.expires_at <= time.time():
            raise Unauthenticated("the stream's token has expired: open a new stream")
        if request.batch:  # one level: a request in a batch carries none
            raise InvalidArgument("a request in a batch carries no batch of its own", "MALFORMED_REQUEST")
        bad = nul_field(request)
        if bad is not None:
            raise InvalidArgument(f"{bad}: text may not contain NUL characters", "INVALID_TEXT")
        if kind == "act":
            traceparent = current_traceparent() or valid_traceparent(request.traceparent or None)
            return pb.PlayResponse(id=request.id, act=await self._act(request.act, identity, traceparent))
        if kind == "view":
            return pb.PlayResponse(id=request.id, view=await self._view(request.view, identity))
        raise InvalidArgument("a PlayRequest carries an act or a view", "MALFORMED_REQUEST")

    async def Watch(self, request: pb.WatchRequest, context: Any) -> AsyncIterator[pb.WatchResponse]:
        identity = _identity(context)
        seat = request.seat if request.HasField("seat") else None
        loaded = await self._seat_access(request.table_id, seat, identity)
        table_id = request.table_id
        engine = loaded.engine
        who = identity.subject if identity.role != "service" else ""
        if who and self.max_watches and self._watches[who] >= self.max_watches:
            raise ResourceExhausted(
                f"you already watch {self._watches[who]} tables at once (at most {self.max_watches}): close one first",
                "TOO_MANY_WATCHES",
            )
        if who:
            self._watches[who] += 1
        queue = self.app.subscribe(table_id)
        try:
            after = request.after_version
            if after <= 0 or after >= loaded.state.version:
                state = loaded.state
            else:
                pairs = await self.app.events(table_id, 0, after)
                state = engine.fold(None, (ev for _, ev in pairs))
            last = state.version
            players = state.players
            yield pb.WatchResponse(snapshot=view_pb(engine.view(state, seat), players))
            while True:
                batch: list[tuple[StoredEvent, Event]] = []
                try:
                    batch = await asyncio.wait_for(queue.get(), timeout=WATCH_POLL_S)
                except TimeoutError:
                    pass
                # A token revoked while its stream is open (a sign-out, a ban, its device
                # unlinked) ends the stream within a second, quiet table or not (issue 39.3).
                still_valid(identity)
                if not batch or batch[0][0].version != last + 1:
                    # A gap (or a quiet second): the store is the truth.
                    batch = await self.app.events(table_id, last)
                for stored, event in batch:
                    if stored.version <= last:
                        continue
                    if stored.version != last + 1:
                        break
                    state = engine.evolve(state, event)
                    last = stored.version
                    yield pb.WatchResponse(
                        event=self._event(stored, event, engine, seat),
                        view=view_pb(engine.view(state, seat), players),
                    )
        finally:
            self.app.unsubscribe(table_id, queue)
            if who:
                self._watches[who] -= 1
                if not self._watches[who]:
                    del self._watches[who]

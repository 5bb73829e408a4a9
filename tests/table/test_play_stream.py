"""Issue 48: ``TableService.Play``, the bots' Act and GetView on one long-lived stream.

Each request is checked and applied as its unary call: the same answers, the same refusals
(code and reason), the same duplicates; a person's token cannot open it; the client sends many
tasks' requests on one stream, gives each its own answer, opens the stream again after the table
service went away, gives up on a stream that hangs, and falls back to unary calls against a table
service without Play."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import pytest
from okey.v1 import table_service_pb2 as pb
from okeycore.commands import Discard, Draw
from okeycore.options import TableOptions
from okeyplatform import metrics as M
from okeyplatform.auth import issue_token
from okeyplatform.client import TableClient
from okeyplatform.contract import PLAY_BATCH_HEADER, PLAY_BATCH_MAX, classic_view_from_pb
from okeyplatform.grpcserver import error_reason
from okeytools.embedded import free_port

from services.table.main import TableService

SERVICE = "okey.v1.TableService"


def _count(kind: str, method: str) -> float:
    return M.GRPC_STARTED.labels(SERVICE, method, kind)._value.get()


@pytest.fixture
async def bots(table_service: TableService) -> AsyncIterator[TableClient]:
    client = TableClient(f"127.0.0.1:{table_service.port}", issue_token("bots", "service"), stream=True)
    yield client
    await client.close()


async def _bot_table(client_for: Callable[..., TableClient]) -> str:
    table_id = f"t-play-{uuid.uuid4().hex[:8]}"
    await client_for("lobby", "service").create_table(TableOptions(), table_id=table_id)  # four bot seats
    return table_id


async def test_play_answers_every_request_as_its_unary_call_each_to_its_own_caller(
    table_service: TableService, client_for: Callable[..., TableClient], bots: TableClient
) -> None:
    table_id = await _bot_table(client_for)
    unary = client_for("bots", "service")  # the same credential, a call each
    acts, views = _count("unary", "Act"), _count("unary", "GetView")
    played_views = _count("stream_request", "GetView")

    # many tasks' requests at once on the one stream, each answered with its own seat's view
    seats = [i % 4 for i in range(40)]
    got = await asyncio.gather(*(bots.view(table_id, s) for s in seats))
    assert [v.seat for v in got] == seats
    for s in range(4):
        assert got[s] == await unary.view(table_id, s)  # what GetView says, rack and all
    assert _count("stream_request", "GetView") - played_views == 40

    view = classic_view_from_pb(got[0])
    turn = view.turn
    mine = classic_view_from_pb(got[turn])
    answer = await bots.act(table_id, Discard(seat=turn, tile=mine.rack[0]), command_id="p1", return_next_view=True)
    assert answer.version == view.version + 1 and not answer.duplicate
    nxt = (turn + 1) % 4
    assert answer.next_view.seat == nxt  # a bot seat's view after the discard, as Act gives a service
    again = await bots.act(table_id, Discard(seat=turn, tile=mine.rack[0]), command_id="p1")
    assert again.duplicate and again.version == answer.version  # the same command id: the first result

    # a refusal: the unary call's code and reason, and the stream goes on
    with pytest.raises(grpc.aio.AioRpcError) as played:
        await bots.act(table_id, Draw(seat=turn), command_id="p2")
    with pytest.raises(grpc.aio.AioRpcError) as called:
        await unary.act(table_id, Draw(seat=turn), command_id="p3")
    assert played.value.code() == called.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_reason(played.value) == error_reason(called.value) == "NOT_YOUR_TURN"
    with pytest.raises(grpc.aio.AioRpcError) as gone:
        await bots.view("no-such-table", 0)
    assert gone.value.code() == grpc.StatusCode.NOT_FOUND and error_reason(gone.value) == "TABLE_NOT_FOUND"
    drawn = await bots.act(table_id, Draw(seat=nxt), command_id="p4", return_view=True)
    assert drawn.version == answer.version + 1 and drawn.view.seat == nxt
    # the stream's requests made no unary call (the unary client's own four views aside)
    assert _count("unary", "Act") - acts == 1  # the unary client's refused Draw
    assert _count("unary", "GetView") - views == 4


async def test_a_person_cannot_open_play_and_bad_requests_are_refused_one_by_one(
    table_service: TableService, client_for: Callable[..., TableClient], bots: TableClient
) -> None:
    table_id = await _bot_table(client_for)
    person = TableClient(f"127.0.0.1:{table_service.port}", issue_token("ali", "player"), stream=True)
    try:
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await person.view(table_id, 0)
        assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED and error_reason(err.value) == "SERVICE_ONLY"
    finally:
        await person.close()
    assert bots.play is not None
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await bots.play.request(pb.PlayRequest(), timeout=5)  # neither an act nor a view
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and error_reason(err.value) == "MALFORMED_REQUEST"
    bad = pb.PlayRequest(view=pb.GetViewRequest(table_id="t\x00x"))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await bots.play.request(bad, timeout=5)
    assert error_reason(err.value) == "INVALID_TEXT"
    assert (await bots.view(table_id, 0)).seat == 0  # the stream goes on


def _views(ids: range, table_id: str) -> list[pb.PlayRequest]:
    return [pb.PlayRequest(id=i, view=pb.GetViewRequest(table_id=table_id, seat=i % 4)) for i in ids]


async def _answers(call: Any, ids: set[int]) -> tuple[dict[int, pb.PlayResponse], int]:
    """The answers to ``ids`` read off a raw Play call (batches opened), and the messages they came in."""
    got: dict[int, pb.PlayResponse] = {}
    messages = 0
    while set(got) != ids:
        message = await asyncio.wait_for(call.read(), 10)
        assert message is not grpc.aio.EOF
        messages += 1
        for each in (message, *message.batch):
            assert each.id not in got  # each request is answered once
            got[each.id] = each
    return got, messages


async def test_play_takes_requests_in_batches_and_answers_so_those_who_ask(
    table_service: TableService, client_for: Callable[..., TableClient]
) -> None:
    """A batch's requests are each answered as if sent alone, a request in a batch with a batch
    of its own refused (MALFORMED_REQUEST); a message of more than PLAY_BATCH_MAX ends the stream
    (INVALID_ARGUMENT BATCH_TOO_LARGE) with none of them handled. The table service says it
    batches only to a caller that asked, and answers one to a message a caller that did not (an
    earlier bots release)."""
    table_id = await _bot_table(client_for)
    token = (("authorization", f"Bearer {issue_token('bots', 'service')}"),)
    stub = client_for("bots", "service").stub
    call = stub.Play(metadata=(*token, (PLAY_BATCH_HEADER, "1")))
    assert (await call.initial_metadata()).get(PLAY_BATCH_HEADER) == "1"
    first, *rest = _views(range(1, PLAY_BATCH_MAX + 1), table_id)  # the most one message carries
    nested = rest[10]
    nested.batch.extend(_views(range(500, 502), table_id))
    first.batch.extend(rest)
    await call.write(first)
    got, messages = await _answers(call, set(range(1, PLAY_BATCH_MAX + 1)))
    for i, answer in got.items():
        if i == nested.id:
            assert answer.error.reason == "MALFORMED_REQUEST"
        else:
            assert answer.WhichOneof("answer") == "view" and answer.view.view.seat == i % 4
    assert messages < len(got)  # answers ready together went together
    acts = _count("stream_request", "GetView")
    first, *rest = _views(range(100, 101 + PLAY_BATCH_MAX), table_id)  # one too many
    first.batch.extend(rest)
    await call.write(first)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await asyncio.wait_for(call.read(), 10)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and error_reason(err.value) == "BATCH_TOO_LARGE"
    assert _count("stream_request", "GetView") == acts  # none of them handled

    plain = stub.Play(metadata=token)  # no batches asked for: none said, one answer a message
    first, *rest = _views(range(1, 11), table_id)
    first.batch.extend(rest)
    await plain.write(first)
    got, messages = await _answers(plain, set(range(1, 11)))
    assert messages == 10 and all(a.view.view.seat == i % 4 for i, a in got.items())
    assert PLAY_BATCH_HEADER not in await plain.initial_metadata()
    await plain.done_writing()
    assert await asyncio.wait_for(plain.read(), 10) is grpc.aio.EOF


async def test_batches_past_the_in_flight_bound_are_all_answered_once(
    table_service: TableService, client_for: Callable[..., TableClient]
) -> None:
    """Twelve full batches (768 requests, past the 512 a stream holds in flight) sent before any
    answer is read: the stream is read no further until answers are written, and every request
    is answered exactly once (each answer in a batch frees its own place)."""
    from services.table.api import PLAY_IN_FLIGHT

    table_id = await _bot_table(client_for)
    token = (("authorization", f"Bearer {issue_token('bots', 'service')}"),)
    call = client_for("bots", "service").stub.Play(metadata=(*token, (PLAY_BATCH_HEADER, "1")))
    total = 12 * PLAY_BATCH_MAX
    assert total > PLAY_IN_FLIGHT

    async def send() -> None:
        for k in range(12):
            first, *rest = _views(range(k * PLAY_BATCH_MAX + 1, (k + 1) * PLAY_BATCH_MAX + 1), table_id)
            first.batch.extend(rest)
            await call.write(first)
        await call.done_writing()

    sending = asyncio.ensure_future(send())
    got, messages = await _answers(call, set(range(1, total + 1)))
    await asyncio.wait_for(sending, 10)
    assert all(a.view.view.seat == i % 4 for i, a in got.items()) and messages < total
    assert await asyncio.wait_for(call.read(), 10) is grpc.aio.EOF


async def test_the_client_sends_the_requests_that_wait_together(
    table_service: TableService, client_for: Callable[..., TableClient], bots: TableClient
) -> None:
    """Requests of many tasks that wait while a write is under way go in one message, and each
    caller gets its own answer."""
    table_id = await _bot_table(client_for)
    assert (await bots.view(table_id, 0)).seat == 0  # the stream is open and said it batches
    assert bots.play is not None and bots.play._stream is not None
    stream = bots.play._stream
    assert stream.batching
    write = stream.call.write
    messages: list[int] = []

    async def counted(request: pb.PlayRequest) -> None:
        messages.append(1 + len(request.batch))
        await write(request)

    stream.call.write = counted
    seats = [i % 4 for i in range(200)]
    got = await asyncio.gather(*(bots.view(table_id, s) for s in seats))
    assert [v.seat for v in got] == seats
    assert sum(messages) == 200 and len(messages) < 200 and max(messages) <= PLAY_BATCH_MAX


async def test_the_stream_opens_again_after_the_table_service_went_away(fresh_database_url: str, nats_url: str) -> None:
    port = free_port()
    svc = TableService(fresh_database_url, nats_url, f"127.0.0.1:{port}", grace_ms=300)
    await svc.start()
    lobby = TableClient(f"127.0.0.1:{port}", issue_token("lobby", "service"))
    bots = TableClient(f"127.0.0.1:{port}", issue_token("bots", "service"), stream=True)
    try:
        table_id = f"t-replay-{uuid.uuid4().hex[:8]}"
        await lobby.create_table(TableOptions(), table_id=table_id)
        before = await bots.view(table_id, 0)
        await svc.stop(grace_s=0.5)
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await bots.view(table_id, 0, timeout=2)
        assert err.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
        svc = TableService(fresh_database_url, nats_url, f"127.0.0.1:{port}", grace_ms=300)
        await svc.start()
        for _ in range(50):  # the channel reconnects with its backoff
            try:
                after = await bots.view(table_id, 0, timeout=2)
                break
            except grpc.aio.AioRpcError:
                await asyncio.sleep(0.2)
        else:
            pytest.fail("the stream never opened again")
        assert after == before
    finally:
        await bots.close()
        await lobby.close()
        await svc.stop(grace_s=0.5)


def _slowed(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """Every Play request of the table service in this process takes ``seconds`` longer."""
    from services.table.api import TableServicer

    answer = TableServicer._answer

    async def slow(self: TableServicer, request: pb.PlayRequest, kind: str | None, identity: Any) -> pb.PlayResponse:
        await asyncio.sleep(seconds)
        return await answer(self, request, kind, identity)

    monkeypatch.setattr(TableServicer, "_answer", slow)


async def test_a_request_past_its_deadline_is_stopped_by_the_table_and_one_caller_s_cancel_is_its_own(
    table_service: TableService,
    client_for: Callable[..., TableClient],
    bots: TableClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The timeout goes with the request: the table answers DEADLINE_EXCEEDED itself, so the
    stream is not taken for stuck. A caller cancelled while waiting abandons its own request
    only: the others on the stream are answered."""
    table_id = await _bot_table(client_for)
    await bots.view(table_id, 0)
    assert bots.play is not None
    stream = bots.play._stream
    _slowed(monkeypatch, 0.6)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await bots.view(table_id, 0, timeout=0.2)
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert "did not answer within 200 ms" in (err.value.details() or "")  # the table's own answer
    assert bots.play._stream is stream  # still the same stream: it answered
    cancelled = asyncio.ensure_future(bots.view(table_id, 1))
    kept = asyncio.ensure_future(bots.view(table_id, 2))
    await asyncio.sleep(0.2)
    cancelled.cancel()
    assert (await kept).seat == 2 and cancelled.cancelled()
    assert bots.play._stream is stream and not stream.pending  # nothing left behind


async def test_a_stopping_table_service_answers_what_its_streams_asked_then_ends_them(
    fresh_database_url: str, nats_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At stop (NOT_SERVING) each Play stream is read no further, its requests in flight are
    answered, and it ends: the stop need not wait out its grace, and the caller opens a new
    stream (on another replica) for what it asks next."""
    import time

    svc = TableService(fresh_database_url, nats_url, "127.0.0.1:0", grace_ms=300)
    await svc.start()
    address = f"127.0.0.1:{svc.port}"
    lobby = TableClient(address, issue_token("lobby", "service"))
    bots = TableClient(address, issue_token("bots", "service"), stream=True)
    try:
        table_id = f"t-drain-{uuid.uuid4().hex[:8]}"
        await lobby.create_table(TableOptions(), table_id=table_id)
        await bots.view(table_id, 0)
        assert bots.play is not None
        stream = bots.play._stream
        assert stream is not None
        _slowed(monkeypatch, 0.8)
        in_flight = asyncio.ensure_future(bots.view(table_id, 3, timeout=5))
        await asyncio.sleep(0.3)
        t0 = time.monotonic()
        await svc.stop(grace_s=10.0)
        assert time.monotonic() - t0 < 5.0  # not the grace: the stream ended once it had answered
        assert (await in_flight).seat == 3  # answered, not cut off
        await asyncio.wait_for(stream.reader, 5)
        assert stream.closed
    finally:
        await bots.close()
        await lobby.close()
        await svc.stop(grace_s=0.5)


class _Silent(grpc.GenericRpcHandler):
    """A TableService whose Play reads every request and answers none (a stream that hangs)."""

    def __init__(self) -> None:
        self.opened = 0

    def service(self, details: grpc.HandlerCallDetails) -> Any:
        if details.method != f"/{SERVICE}/Play":  # type: ignore[attr-defined]
            return None

        async def play(requests: AsyncIterator[bytes], _context: Any) -> AsyncIterator[bytes]:
            self.opened += 1
            async for _ in requests:
                pass
            if False:  # an async generator that yields nothing
                yield b""

        return grpc.stream_stream_rpc_method_handler(play)


async def test_a_stream_that_hangs_fails_its_requests_in_time_and_is_opened_anew() -> None:
    handler = _Silent()
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    client = TableClient(f"127.0.0.1:{port}", issue_token("bots", "service"), stream=True)
    try:
        for i in range(2):
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await client.view("t", 0, timeout=0.3)
            assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            assert "did not answer in time" in (err.value.details() or "")  # the caller's own deadline
            assert handler.opened == i + 1  # nothing came back: the stream is taken for stuck
    finally:
        await client.close()
        await server.stop(None)


async def test_a_table_service_without_play_gets_unary_calls() -> None:
    """An older table service answers Play with UNIMPLEMENTED: the request goes as its unary
    call, and so does every later one."""
    server = grpc.aio.server()  # no service at all: every method is UNIMPLEMENTED
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    client = TableClient(f"127.0.0.1:{port}", issue_token("bots", "service"), stream=True)
    try:
        assert client.play is not None and client.play.available
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await client.view("t", 0, timeout=2)
        assert err.value.code() == grpc.StatusCode.UNIMPLEMENTED  # the unary GetView's answer
        assert not client.play.available  # unary calls for a while (NO_PLAY_RETRY_S), then Play again
        client.play.unary_until = 0.0
        assert client.play.available
    finally:
        await client.close()
        await server.stop(None)


async def test_a_stream_opened_with_a_credential_revoked_since_is_refused_on_its_next_request(
    table_service: TableService, client_for: Callable[..., TableClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stream checks its token once, when it opens; a revocation after that (a stolen service
    credential, cut off) refuses its very next request, as a unary call would be, and a stream
    opened with that token is of no use afterwards."""
    import time

    from okeyplatform import auth

    table_id = await _bot_table(client_for)
    thief = TableClient(f"127.0.0.1:{table_service.port}", issue_token("bots-stolen", "service"), stream=True)
    try:
        assert (await thief.view(table_id, 0)).seat == 0  # the stream is open and serves
        monkeypatch.setitem(auth._REVOKED, "bots-stolen", time.time() + 1)  # revoked, as the lobby's order does
        for _ in range(2):
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await thief.view(table_id, 0)
            assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        await thief.close()

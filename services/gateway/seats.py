"""The disconnected-seat signal the table gets from the edge [D-11]: ``set_connection`` sent
with the gateway's own service credential, each (seat, direction, command id) once at a time."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable

import grpc
from okey.v1 import table_service_pb2 as pb
from okeyplatform.auth import ServiceCredential
from okeyplatform.grpcserver import error_reason
from okeyplatform.logs import get_logger
from okeyplatform.presence import SeatKey

__all__ = ["Act", "SeatNotifier", "table_act", "QUIET_REASONS"]

QUIET_REASONS = frozenset({"BOT_SEAT", "SEAT_LEFT", "MATCH_OVER", "TABLE_NOT_FOUND"})
"""Refusals of set_connection that are normal (a bot's seat, a seat left, a match over, a table
gone): logged at debug only."""

log = get_logger(component="presence")


Act = Callable[[pb.ActRequest], Awaitable[pb.ActResponse]]


class SeatNotifier:
    """Sends ``set_connection`` for a seat, each (seat, direction, command id) once at a time,
    retried on a transient failure (the command id makes a retry safe)."""

    def __init__(self, act: Act, retries: int = 3) -> None:
        self.act = act
        self.retries = retries
        self.sent: deque[tuple[str, int, bool, str]] = deque(maxlen=1000)  # the last told and accepted
        self.connected_at: dict[SeatKey, int] = {}  # the version a connected=true answer came with
        self._inflight: set[tuple[str, int, bool]] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    def tell(self, table_id: str, seat: int, connected: bool, command_id: str) -> None:
        key = (table_id, seat, connected)
        if key in self._inflight:
            return
        self._inflight.add(key)
        task = asyncio.get_running_loop().create_task(self._send(table_id, seat, connected, command_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, table_id: str, seat: int, connected: bool, command_id: str) -> None:
        req = pb.ActRequest(table_id=table_id, seat=seat, command_id=command_id)
        req.set_connection.connected = connected
        bound = log.bind(table_id=table_id, seat=seat, command_id=command_id, connected=connected)
        try:
            for attempt in range(self.retries):
                try:
                    resp = await self.act(req)
                except grpc.aio.AioRpcError as err:
                    reason = error_reason(err) or err.code().name
                    transient = err.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
                    if transient and attempt + 1 < self.retries:
                        await asyncio.sleep(0.5 * (attempt + 1))
                        continue
                    if reason in QUIET_REASONS:
                        bound.debug("seat_connection_refused", reason=reason)
                    else:
                        bound.warning("seat_connection_failed", reason=reason, error=err.details())
                    return
                if connected:
                    if len(self.connected_at) >= 10_000:
                        self.connected_at.clear()  # only spares a second telling: forgetting is safe
                    self.connected_at[(table_id, seat)] = resp.version
                self.sent.append((table_id, seat, connected, command_id))
                bound.info("seat_connection_told", version=resp.version, events=len(resp.events))
                return
        finally:
            self._inflight.discard((table_id, seat, connected))

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


def table_act(channel: Callable[[], grpc.aio.Channel], credential: ServiceCredential, timeout_s: float = 5.0) -> Act:
    """Act on the table service with the gateway's own service credential; ``channel`` gives the
    gateway's upstream channel (made at the first call)."""

    async def act(req: pb.ActRequest) -> pb.ActResponse:
        call = channel().unary_unary(
            "/okey.v1.TableService/Act",
            request_serializer=pb.ActRequest.SerializeToString,
            response_deserializer=pb.ActResponse.FromString,
        )
        resp: pb.ActResponse = await call(req, metadata=credential.metadata(), timeout=timeout_s)
        return resp

    return act

"""The lobby's calls to the other services, with the lobby's own service credential
(``okeyplatform.auth.ServiceCredential``, which renews the token at half its lifetime): the table
service's CreateTable and a seat's LeaveSeat (``TableStarter``), and the scoring service's
ForgetPlayer for a deleted account (``PlayerForgetter``)."""

from __future__ import annotations

import grpc
from okeycore.commands import LeaveSeat
from okeycore.options import TableOptions
from okeyplatform.auth import ServiceCredential
from okeyplatform.client import TableClient
from okeyplatform.grpcserver import error_reason

from .errors import Refused, StartFailed, Unavailable

__all__ = ["GrpcTableStarter", "GrpcScoringForgetter", "TOKEN_TTL_S"]

TOKEN_TTL_S = 3600
_TRANSIENT = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.CANCELLED,
}


class GrpcTableStarter:
    """TableService.CreateTable with the lobby's service credential and the lobby's own table id.
    A retry after a lost answer is the same creation (same caller, command id, options and
    seats), which the table service answers as created; ``TABLE_EXISTS`` means the id holds a
    table that is not this creation, a permanent failure (the match does not start there)."""

    def __init__(self, address: str, token_secret: bytes | None = None) -> None:
        self.client = TableClient(address, ServiceCredential("lobby", ttl_s=TOKEN_TTL_S, secret=token_secret))

    async def create_table(
        self, table_id: str, options: TableOptions, players: tuple[str, ...], public: bool = False
    ) -> None:
        try:
            await self.client.create_table(options, players, table_id=table_id, command_id="lobby-start", public=public)
        except grpc.aio.AioRpcError as exc:
            # TABLE_EXISTS is FAILED_PRECONDITION: not transient, so permanent like any refusal.
            raise StartFailed(f"{exc.code().name}: {exc.details()}", permanent=exc.code() not in _TRANSIENT) from None

    async def leave_seat(self, table_id: str, seat: int, player_id: str) -> None:
        """The seat's LeaveSeat, with the lobby's credential; a retry is the same command (one
        command id per player and table), and a seat already left counts as left."""
        try:
            await self.client.act(table_id, LeaveSeat(seat=seat), command_id=f"lobby-leave:{player_id}")
        except grpc.aio.AioRpcError as exc:
            reason = error_reason(exc)
            if reason == "ALREADY_LEFT":
                return
            if exc.code() in _TRANSIENT:
                raise Unavailable("the table service did not answer: leave again", "TABLE_UNAVAILABLE") from None
            raise Refused(exc.details() or "the table refused", reason or "NOT_WAITING") from None

    async def close(self) -> None:
        await self.client.close()


class GrpcScoringForgetter:
    """ScoringService.ForgetPlayer: a deleted account's stats and leaderboard rows go."""

    def __init__(self, address: str, token_secret: bytes | None = None) -> None:
        from okey.v1 import scoring_service_pb2_grpc

        self.credential = ServiceCredential("lobby", ttl_s=TOKEN_TTL_S, secret=token_secret)
        self.channel = grpc.aio.insecure_channel(address)
        self.stub = scoring_service_pb2_grpc.ScoringServiceStub(self.channel)

    async def forget(self, player_id: str) -> None:
        from okey.v1 import scoring_service_pb2

        await self.stub.ForgetPlayer(
            scoring_service_pb2.ForgetPlayerRequest(player_id=player_id),
            metadata=self.credential.metadata(),
            timeout=5.0,
        )

    async def close(self) -> None:
        await self.channel.close()

"""Who may watch a table as a spectator: the one check every route of the edge makes before it
forwards a spectator's read of a table upstream (the WebSocket, Connect and gRPC-Web, the /api
JSON route, the gRPC proxy). A spectator's read is a TableService Watch, GetView or GetEvents
with no seat: the two unary calls show what the stream shows, so they are asked about alike (a
player refused a watch could otherwise poll the table instead).

The lobby decides who may (``LobbyService.AuthorizeWatch``, asked with the caller's own token, as
any call of theirs is forwarded): its refusal goes back to the caller as it came, status, reason
and metadata. The lobby's answer also says how many spectators the table takes; for a Watch (a
GetView or GetEvents holds nothing open and is not counted) the edge counts them, the distinct
players watching it as spectators on every live gateway replica (the presence board), and
refuses one more with RESOURCE_EXHAUSTED ``SPECTATORS_FULL``. A player already watching (another
tab) is not one more; staff are not counted against the cap. A read of a seat is the table's to
authorise, and a service's read (a bot's) is not a spectator's: neither is checked here. The cap
is soft across replicas: two spectators let in at the same moment on two replicas may both come
in (each replica learns of the other's within a beat)."""

from __future__ import annotations

import grpc
from google.protobuf.message import DecodeError, Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from okey.v1 import lobby_service_pb2 as lpb
from okey.v1 import table_service_pb2 as tpb
from okeyplatform import metrics as M
from okeyplatform.auth import is_staff
from okeyplatform.errors import AppError, InvalidArgument, ResourceExhausted, Unauthenticated, Unavailable

from .app import Caller, Upstreams
from .presence import WATCH_PATH, Presence

__all__ = ["AUTHORIZE_PATH", "LobbyRefusal", "SPECTATOR_READS", "SpectatorGate", "error_info"]

LOBBY = "okey.v1.LobbyService"
AUTHORIZE_PATH = f"/{LOBBY}/AuthorizeWatch"
_TABLE = "/okey.v1.TableService/"
_Read = tpb.WatchRequest | tpb.GetViewRequest | tpb.GetEventsRequest
SPECTATOR_READS: dict[str, type[_Read]] = {
    WATCH_PATH: tpb.WatchRequest,
    _TABLE + "GetView": tpb.GetViewRequest,
    _TABLE + "GetEvents": tpb.GetEventsRequest,
}
"""The table's reads that, with no seat, are a spectator's: each path and its request type."""


def error_info(err: grpc.aio.AioRpcError) -> tuple[str, dict[str, str]]:
    """The refusal's stable reason and its ErrorInfo metadata (what a client may show: a
    password's ``why``, a lockout's ``retry_after_s``); the status name when it has none."""
    st = rpc_status.from_call(err)  # type: ignore[arg-type]
    if st is not None:
        for d in st.details:
            info = error_details_pb2.ErrorInfo()
            if d.Unpack(info):
                return str(info.reason), dict(info.metadata)
    return err.code().name, {}


class LobbyRefusal(AppError):
    """The lobby's refusal of a watch, passed on as it came (its status, reason, message and
    metadata), so that every route answers it as it answers its own refusals."""

    def __init__(self, err: grpc.aio.AioRpcError) -> None:
        reason, metadata = error_info(err)
        super().__init__(err.details() or "", reason, **metadata)
        self.status = err.code()  # type: ignore[misc]


def _read_request(kind: type[_Read], request: bytes | Message) -> _Read | None:
    if isinstance(request, kind):
        return request
    if isinstance(request, bytes):
        try:
            return kind.FromString(request)
        except DecodeError:
            return None
    return None


class SpectatorGate:
    """:meth:`admit` before a call goes upstream (see the module's text)."""

    def __init__(self, upstreams: Upstreams, presence: Presence, timeout_s: float = 5.0) -> None:
        self.upstreams = upstreams
        self.presence = presence
        self.timeout_s = timeout_s

    async def admit(self, caller: Caller, path: str, request: bytes | Message, metadata: list[tuple[str, str]]) -> None:
        """Nothing when the call at ``path`` (``request``: its message or its bytes) may go
        upstream (any call but a spectator's read of a table passes at once); else raises the
        refusal (an AppError). ``metadata``: what goes upstream with the call (the caller's token
        among it), which the lobby's question carries too."""
        kind = SPECTATOR_READS.get(path)
        if kind is None:
            return
        who = caller.identity
        if who is not None and who.is_service:
            return  # a bot's, or another service's: nobody's spectating
        req = _read_request(kind, request)
        if req is None:
            raise InvalidArgument(f"the request is not a valid {kind.DESCRIPTOR.name}", "MALFORMED_MESSAGE")
        if req.HasField("seat"):
            return  # a seat's: the table service authorises it
        if who is None:
            raise Unauthenticated("sign in to watch a table: send 'authorization: Bearer <token>'")
        if LOBBY not in self.upstreams.addresses:
            raise Unavailable("watching needs the lobby, which this gateway does not reach")
        ask = self.upstreams.channel(LOBBY).unary_unary(
            AUTHORIZE_PATH,
            request_serializer=lpb.AuthorizeWatchRequest.SerializeToString,
            response_deserializer=lpb.AuthorizeWatchResponse.FromString,
        )
        try:
            allowed: lpb.AuthorizeWatchResponse = await ask(
                lpb.AuthorizeWatchRequest(table_id=req.table_id), metadata=metadata, timeout=self.timeout_s
            )
        except grpc.aio.AioRpcError as err:
            raise LobbyRefusal(err) from None
        if path != WATCH_PATH:
            return  # a unary read holds nothing open: no spectator to count
        cap = allowed.spectators_max
        if cap <= 0 or is_staff(who):
            return  # no cap from the lobby; staff watch whatever the count
        if self.presence.spectators(req.table_id, excluding=who.subject) >= cap:
            M.GATEWAY_REFUSED.labels("SPECTATORS_FULL").inc()
            raise ResourceExhausted(
                f"this table has {cap} spectators, the most it takes: try again later",
                "SPECTATORS_FULL",
                limit=str(cap),
            )

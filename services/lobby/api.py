"""LobbyService over gRPC: translate, authorise, call one use case, translate back."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import grpc
from okey.v1 import common_pb2
from okey.v1 import lobby_service_pb2 as pb
from okey.v1 import lobby_service_pb2_grpc as pb_grpc
from okeyplatform import metrics as M
from okeyplatform.auth import Identity, client_address_from_metadata, identity_from_metadata
from okeyplatform.contract import options_from_pb

from .app import LobbyApp
from .avatars import face
from .chat_repo import MessageRow
from .ledger_repo import EntryRow, SettlementRow
from .messages import _ts, blocked_pb, found_pb, friend_pb, notification_pb, person_pb, quote_pb, table_pb
from .players import Profile, Session, SignedIn
from .reports_repo import ReportRow
from .settlement import seat_net
from .staff_repo import AuditRow
from .tournament_messages import spec_from_pb, status_name, tournament_pb

__all__ = ["LobbyServicer", "SERVICE_NAME"]

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["LobbyService"].full_name


def _lines(lines: list[dict[str, Any]]) -> list[pb.SettlementLine]:
    return [
        pb.SettlementLine(code=x["code"], amount=x.get("amount", 0), count=x.get("count", 0), hand=x.get("hand", 0))
        for x in lines
    ]


def settlement_pb(table_id: str, row: SettlementRow | None) -> pb.Settlement:
    """The record as ledger.py wrote it; each seat's net is ledger.seat_net's."""
    if row is None:
        return pb.Settlement(table_id=table_id)
    r = row.record
    return pb.Settlement(
        table_id=table_id,
        status=f"SETTLEMENT_STATUS_{row.status}",
        stake=r["stake"],
        people=r["people"],
        bots=r["bots"],
        pot=r["pot"],
        paid_out=r["paid_out"],
        to_house=r["to_house"],
        refunded=r["refunded"],
        seats=[
            pb.SettlementSeat(
                seat=s["seat"],
                player_id=s["player_id"],
                bot=s["bot"],
                left=s["left"],
                paid_in=s["paid_in"],
                hand_prizes=s["hand_prizes"],
                payout=s["payout"],
                refund=s["refund"],
                net=seat_net(s),
                why=_lines(s["why"]),
            )
            for s in r["seats"]
        ],
        why=_lines(r["why"]),
        updated_at=_ts(row.updated_at),
    )


def profile_pb(p: Profile) -> pb.PlayerProfile:
    row = p.player
    return pb.PlayerProfile(
        player_id=row.player_id,
        display_name=row.display_name,
        chips=p.chips or 0,
        next_daily_chips_at=_ts(p.next_daily_chips_at),
        muted_until=_ts(row.muted_until) if p.chips is not None else None,
        banned_until=_ts(row.banned_until) if p.chips is not None else None,
        warnings=row.warnings,
        created_at=_ts(row.created_at),
        deleted=not row.display_name,  # a live account always has a name
        staff_role=p.staff_role,
        daily_chips_reason=p.daily.why if p.daily is not None else "",
        daily_chips_limit=p.daily.limit if p.daily is not None else 0,
        avatar=face(row.player_id, row.avatar, deleted=not row.display_name),
    )


def entry_pb(e: EntryRow) -> pb.ChipEntry:
    return pb.ChipEntry(
        kind=e.kind, amount=e.amount, balance_after=e.balance_after, table_id=e.table_id, time=_ts(e.time)
    )


def message_pb(m: MessageRow) -> pb.ChatMessage:
    return pb.ChatMessage(
        message_id=m.message_id,
        table_id=m.channel,
        player_id=m.player_id,
        display_name=m.display_name,
        text=m.text,
        sent_at=_ts(m.sent_at),
        emote=m.emote,
        avatar=face(m.player_id, m.avatar, deleted=not m.display_name),
    )


def report_pb(r: ReportRow, context: list[MessageRow], earlier: int) -> pb.PlayerReport:
    return pb.PlayerReport(
        report_id=r.report_id,
        reporter_id=r.reporter_id,
        reporter_name=r.reporter_name,
        player_id=r.player_id,
        player_name=r.player_name,
        reason=pb.ReportReason.Value(f"REPORT_REASON_{r.reason}"),
        details=r.details,
        message_ids=list(r.message_ids),
        table_id=r.table_id,
        status=pb.ReportStatus.Value(f"REPORT_STATUS_{r.status}"),
        created_at=_ts(r.created_at),
        context=[message_pb(m) for m in context],
        earlier_reports=earlier,
        action=pb.ReportAction.Value(f"REPORT_ACTION_{r.action}") if r.action else pb.REPORT_ACTION_UNSPECIFIED,
        duration_minutes=r.duration_minutes,
        note=r.note,
        resolved_by=r.resolved_by,
        resolved_at=_ts(r.resolved_at),
        reporters=r.reporters,
    )


def audit_pb(a: AuditRow) -> pb.AuditEntry:
    return pb.AuditEntry(
        audit_id=a.audit_id,
        time=_ts(a.at),
        actor_id=a.actor_id,
        actor_role=a.actor_role,
        action=a.action,
        target_id=a.target_id,
        reason=a.reason,
        detail=json.dumps(a.detail, separators=(",", ":"), sort_keys=True),
    )


def _session_fields(s: Session) -> dict[str, Any]:
    """A session's tokens as the fields every response that hands one out carries."""
    return {
        "token": s.token,
        "token_expires_at": _ts(s.expires_at),
        "refresh_token": s.refresh_token,
        "refresh_expires_at": _ts(s.refresh_expires_at),
    }


def _enum_name(enum: Any, value: int, prefix: str) -> str:
    name = enum.Name(value) if value in enum.values() else ""
    return name[len(prefix) :] if name.startswith(prefix) and not name.endswith("UNSPECIFIED") else ""


class LobbyServicer(pb_grpc.LobbyServiceServicer):
    def __init__(self, app: LobbyApp, token_secret: bytes | None = None) -> None:
        self.app = app
        self.secret = token_secret

    def _who(self, context: grpc.aio.ServicerContext[Any, Any]) -> Identity:
        """The caller, from its bearer token; a bad or missing one is a ``TokenError``, which the
        host's ``AppErrors`` answers UNAUTHENTICATED ``BAD_TOKEN``, as every refusal of a use case."""
        return identity_from_metadata(context.invocation_metadata(), self.secret)  # type: ignore[arg-type]

    # ------------------------------------------------------------ players and chips

    async def SignInGuest(self, request: pb.SignInGuestRequest, context: Any) -> pb.SignInGuestResponse:
        address = client_address_from_metadata(context.invocation_metadata())  # the gateway's
        # A device credential signs that account in again; without one, a new guest.
        counted = M.counts_sign_in("device" if request.device_secret else "guest")(self.app.sign_in)
        s = await counted(request.display_name, request.device_id, address, request.device_secret)
        return await self._signed_in(s, address)

    async def _signed_in(self, s: SignedIn, address: str = "") -> pb.SignInGuestResponse:
        who = Identity(s.player.player_id, "player", s.player.device_id)
        profile = await self.app.profile(who, "", address)  # the welcome's daily chips: the claim's answer
        return pb.SignInGuestResponse(
            player=profile_pb(profile),
            token=s.token,
            token_expires_at=_ts(s.expires_at),
            device_id=s.player.device_id,
            chips_granted=s.chips_granted,
            device_secret=s.device_secret,
            returning=s.returning,
            refresh_token=s.session.refresh_token,
            refresh_expires_at=_ts(s.session.refresh_expires_at),
            device_ref=s.device_ref,
        )

    async def LinkEmail(self, request: pb.LinkEmailRequest, context: Any) -> pb.LinkEmailResponse:
        await self.app.link_email(self._who(context), request.email, request.password)
        return pb.LinkEmailResponse()

    async def UnlinkEmail(self, request: pb.UnlinkEmailRequest, context: Any) -> pb.UnlinkEmailResponse:
        await self.app.unlink_email(self._who(context))
        return pb.UnlinkEmailResponse()

    async def ChangePassword(self, request: pb.ChangePasswordRequest, context: Any) -> pb.ChangePasswordResponse:
        address = client_address_from_metadata(context.invocation_metadata())
        s = await self.app.change_password(self._who(context), request.current_password, request.new_password, address)
        return pb.ChangePasswordResponse(**_session_fields(s))

    async def SignInEmail(self, request: pb.SignInEmailRequest, context: Any) -> pb.SignInEmailResponse:
        address = client_address_from_metadata(context.invocation_metadata())
        s = await self.app.sign_in_email(request.email, request.password, address)
        return pb.SignInEmailResponse(signed_in=await self._signed_in(s, address))

    async def Reauthenticate(self, request: pb.ReauthenticateRequest, context: Any) -> pb.ReauthenticateResponse:
        who = self._who(context)
        address = client_address_from_metadata(context.invocation_metadata())
        token = await self.app.reauthenticate(who, request.device_secret, request.password, address)
        proven = identity_from_metadata([("authorization", f"Bearer {token}")], self.secret)
        return pb.ReauthenticateResponse(
            token=token,
            token_expires_at=_ts(datetime.fromtimestamp(proven.expires_at, UTC)),
            proof_expires_at=_ts(datetime.fromtimestamp(proven.authenticated_at + self.app.limits.reauth_s, UTC)),
        )

    async def SignOutEverywhere(
        self, request: pb.SignOutEverywhereRequest, context: Any
    ) -> pb.SignOutEverywhereResponse:
        s = await self.app.sign_out_everywhere(self._who(context))
        return pb.SignOutEverywhereResponse(**_session_fields(s))

    async def CreateLinkCode(self, request: pb.CreateLinkCodeRequest, context: Any) -> pb.CreateLinkCodeResponse:
        code, expires = await self.app.create_link_code(self._who(context))
        return pb.CreateLinkCodeResponse(code=code, expires_at=_ts(expires))

    async def SignInWithLinkCode(
        self, request: pb.SignInWithLinkCodeRequest, context: Any
    ) -> pb.SignInWithLinkCodeResponse:
        address = client_address_from_metadata(context.invocation_metadata())
        s = await self.app.sign_in_link_code(request.code, address)
        return pb.SignInWithLinkCodeResponse(signed_in=await self._signed_in(s, address))

    async def ListDevices(self, request: pb.ListDevicesRequest, context: Any) -> pb.ListDevicesResponse:
        who = self._who(context)
        devices, email, next_page = await self.app.devices(who, request.page_size, request.page_token)
        return pb.ListDevicesResponse(
            devices=[
                pb.Device(
                    device_ref=d.device_ref,
                    created_at=_ts(d.created_at),
                    last_used_at=_ts(d.last_used_at),
                    current=bool(who.credential) and d.device_ref == who.credential,
                )
                for d in devices
            ],
            email=email,
            next_page_token=next_page,
        )

    async def DeleteAccount(self, request: pb.DeleteAccountRequest, context: Any) -> pb.DeleteAccountResponse:
        await self.app.delete_account(self._who(context), request.confirm_name)
        return pb.DeleteAccountResponse()

    async def UnlinkDevice(self, request: pb.UnlinkDeviceRequest, context: Any) -> pb.UnlinkDeviceResponse:
        await self.app.unlink_device(self._who(context), request.device_ref)
        return pb.UnlinkDeviceResponse()

    async def RefreshSession(self, request: pb.RefreshSessionRequest, context: Any) -> pb.RefreshSessionResponse:
        s = await self.app.refresh_session(request.refresh_token)
        return pb.RefreshSessionResponse(**_session_fields(s))

    async def GetPlayer(self, request: pb.GetPlayerRequest, context: Any) -> pb.GetPlayerResponse:
        who = self._who(context)
        address = client_address_from_metadata(context.invocation_metadata())  # the claim's, for "can claim"
        return pb.GetPlayerResponse(player=profile_pb(await self.app.profile(who, request.player_id, address)))

    async def SetAvatar(self, request: pb.SetAvatarRequest, context: Any) -> pb.SetAvatarResponse:
        who = self._who(context)
        address = client_address_from_metadata(context.invocation_metadata())
        return pb.SetAvatarResponse(profile=profile_pb(await self.app.set_avatar(who, request.avatar, address)))

    async def SignOut(self, request: pb.SignOutRequest, context: Any) -> pb.SignOutResponse:
        who = self._who(context)
        await self.app.sign_out(who)
        return pb.SignOutResponse()

    async def ClaimDailyChips(self, request: pb.ClaimDailyChipsRequest, context: Any) -> pb.ClaimDailyChipsResponse:
        who = self._who(context)
        address = client_address_from_metadata(context.invocation_metadata())
        granted, balance, next_at = await self.app.claim_daily_chips(who, address)
        return pb.ClaimDailyChipsResponse(granted=granted, balance=balance, next_claim_at=_ts(next_at))

    async def GetChips(self, request: pb.GetChipsRequest, context: Any) -> pb.GetChipsResponse:
        who = self._who(context)
        balance, entries = await self.app.chips(who, request.limit)
        return pb.GetChipsResponse(balance=balance, entries=[entry_pb(e) for e in entries])

    # ------------------------------------------------------------ tables

    async def OpenTable(self, request: pb.OpenTableRequest, context: Any) -> pb.OpenTableResponse:
        who = self._who(context)
        card, seat = await self.app.open_table(
            who,
            options_from_pb(request.options),
            private=request.visibility == pb.TABLE_VISIBILITY_PRIVATE,
            seat=request.seat if request.HasField("seat") else None,
            fill_with_bots=request.fill_with_bots,
        )
        return pb.OpenTableResponse(table=table_pb(card), seat=seat)

    async def ListTables(self, request: pb.ListTablesRequest, context: Any) -> pb.ListTablesResponse:
        who = self._who(context)
        game = _enum_name(common_pb2.Game, request.game, "GAME_") or None
        cards, token = await self.app.list_tables(
            who, game, request.include_playing, request.page_size, request.page_token
        )
        return pb.ListTablesResponse(tables=[table_pb(c) for c in cards], next_page_token=token)

    async def ListMyTables(self, request: pb.ListMyTablesRequest, context: Any) -> pb.ListMyTablesResponse:
        who = self._who(context)
        cards = await self.app.my_tables(who, request.limit)
        return pb.ListMyTablesResponse(tables=[table_pb(c) for c in cards])

    async def ListRooms(self, request: pb.ListRoomsRequest, context: Any) -> pb.ListRoomsResponse:
        self._who(context)
        rooms = await self.app.list_rooms()
        return pb.ListRoomsResponse(
            rooms=[
                pb.Room(
                    game=common_pb2.Game.Value(f"GAME_{r.game}"),
                    stake=r.stake,
                    people_playing=r.count.people_playing,
                    people_waiting=r.count.people_waiting,
                    tables_waiting=r.count.tables_waiting,
                )
                for r in rooms
            ]
        )

    async def GetTableCard(self, request: pb.GetTableCardRequest, context: Any) -> pb.GetTableCardResponse:
        who = self._who(context)
        card = await self.app.table_card(who, request.table_id, request.invite_code)
        return pb.GetTableCardResponse(table=table_pb(card))

    async def JoinTable(self, request: pb.JoinTableRequest, context: Any) -> pb.JoinTableResponse:
        who = self._who(context)
        card, seat, started = await self.app.join(
            who, request.table_id, request.invite_code, request.seat if request.HasField("seat") else None
        )
        return pb.JoinTableResponse(table=table_pb(card), seat=seat, started=started)

    async def LeaveTable(self, request: pb.LeaveTableRequest, context: Any) -> pb.LeaveTableResponse:
        who = self._who(context)
        card, forfeited = await self.app.leave(who, request.table_id)
        return pb.LeaveTableResponse(table=table_pb(card), forfeited=forfeited)

    async def QuickPlay(self, request: pb.QuickPlayRequest, context: Any) -> pb.QuickPlayResponse:
        who = self._who(context)
        a = await self.app.quick_play_answer(who, options_from_pb(request.options))
        return pb.QuickPlayResponse(
            table=table_pb(a.card), seat=a.seat, opened=a.opened, started=a.started, returned_to_seat=a.returned
        )

    async def FillWithBots(self, request: pb.FillWithBotsRequest, context: Any) -> pb.FillWithBotsResponse:
        who = self._who(context)
        return pb.FillWithBotsResponse(table=table_pb(await self.app.fill_with_bots(who, request.table_id)))

    async def GetSettlement(self, request: pb.GetSettlementRequest, context: Any) -> pb.GetSettlementResponse:
        who = self._who(context)
        row, balance = await self.app.settlement(who, request.table_id)
        return pb.GetSettlementResponse(settlement=settlement_pb(request.table_id, row), balance=balance)

    async def QuotePot(self, request: pb.QuotePotRequest, context: Any) -> pb.QuotePotResponse:
        self._who(context)
        q = self.app.quote_pot(options_from_pb(request.options), request.fill_with_bots)
        return pb.QuotePotResponse(quote=quote_pb(q))

    # ------------------------------------------------------------ chat

    async def SendMessage(self, request: pb.SendMessageRequest, context: Any) -> pb.SendMessageResponse:
        who = self._who(context)
        msg = await self.app.send_message(who, request.table_id, request.text)
        return pb.SendMessageResponse(message=message_pb(msg))

    async def SendEmote(self, request: pb.SendEmoteRequest, context: Any) -> pb.SendEmoteResponse:
        who = self._who(context)
        msg = await self.app.send_emote(who, request.table_id, request.emote)
        return pb.SendEmoteResponse(message=message_pb(msg))

    async def ListMessages(self, request: pb.ListMessagesRequest, context: Any) -> pb.ListMessagesResponse:
        who = self._who(context)
        msgs = await self.app.list_messages(who, request.table_id, request.after_message_id, request.limit)
        return pb.ListMessagesResponse(messages=[message_pb(m) for m in msgs])

    async def MutePlayer(self, request: pb.MutePlayerRequest, context: Any) -> pb.MutePlayerResponse:
        who = self._who(context)
        await self.app.mute(who, request.player_id, True)
        return pb.MutePlayerResponse()

    async def UnmutePlayer(self, request: pb.UnmutePlayerRequest, context: Any) -> pb.UnmutePlayerResponse:
        who = self._who(context)
        await self.app.mute(who, request.player_id, False)
        return pb.UnmutePlayerResponse()

    # ------------------------------------------------------------ reports

    async def ReportPlayer(self, request: pb.ReportPlayerRequest, context: Any) -> pb.ReportPlayerResponse:
        who = self._who(context)
        reason = _enum_name(pb.ReportReason, request.reason, "REPORT_REASON_")
        report_id = await self.app.report(
            who, request.player_id, reason, request.details, list(request.message_ids), request.table_id
        )
        return pb.ReportPlayerResponse(report_id=report_id)

    async def ListReports(self, request: pb.ListReportsRequest, context: Any) -> pb.ListReportsResponse:
        who = self._who(context)
        size = request.page_size or request.limit
        found, nxt = await self.app.report_page(who, request.include_resolved, size, request.page_token)
        return pb.ListReportsResponse(reports=[report_pb(*r) for r in found], next_page_token=nxt)

    async def ResolveReport(self, request: pb.ResolveReportRequest, context: Any) -> pb.ResolveReportResponse:
        who = self._who(context)
        action = _enum_name(pb.ReportAction, request.action, "REPORT_ACTION_")
        r = await self.app.resolve_report(who, request.report_id, action, request.duration_minutes, request.note)
        return pb.ResolveReportResponse(report=report_pb(*r))

    # ------------------------------------------------------------ staff

    async def BanPlayer(self, request: pb.BanPlayerRequest, context: Any) -> pb.BanPlayerResponse:
        who = self._who(context)
        until = await self.app.ban(who, request.player_id, request.duration_minutes, request.reason)
        return pb.BanPlayerResponse(banned_until=_ts(until))

    async def UnbanPlayer(self, request: pb.UnbanPlayerRequest, context: Any) -> pb.UnbanPlayerResponse:
        await self.app.unban(self._who(context), request.player_id, request.reason)
        return pb.UnbanPlayerResponse()

    async def GrantRole(self, request: pb.GrantRoleRequest, context: Any) -> pb.GrantRoleResponse:
        await self.app.grant_role(self._who(context), request.player_id, request.role, request.reason)
        return pb.GrantRoleResponse()

    async def RevokeRole(self, request: pb.RevokeRoleRequest, context: Any) -> pb.RevokeRoleResponse:
        role = await self.app.revoke_role(self._who(context), request.player_id, request.reason)
        return pb.RevokeRoleResponse(role=role)

    async def ListStaff(self, request: pb.ListStaffRequest, context: Any) -> pb.ListStaffResponse:
        rows = await self.app.staff(self._who(context))
        return pb.ListStaffResponse(
            staff=[
                pb.StaffMember(
                    player_id=r.player_id,
                    display_name=r.display_name,
                    role=r.role,
                    granted_by=r.granted_by,
                    granted_at=_ts(r.granted_at),
                )
                for r in rows
            ]
        )

    async def AdjustChips(self, request: pb.AdjustChipsRequest, context: Any) -> pb.AdjustChipsResponse:
        balance = await self.app.adjust_chips(self._who(context), request.player_id, request.amount, request.reason)
        return pb.AdjustChipsResponse(balance=balance)

    async def ListAuditLog(self, request: pb.ListAuditLogRequest, context: Any) -> pb.ListAuditLogResponse:
        rows = await self.app.audit_log(self._who(context), request.limit, request.target_id)
        return pb.ListAuditLogResponse(entries=[audit_pb(a) for a in rows])

    # ------------------------------------------------------------ friends

    async def FindPlayers(self, request: pb.FindPlayersRequest, context: Any) -> pb.FindPlayersResponse:
        found = await self.app.find_players(self._who(context), request.prefix)
        return pb.FindPlayersResponse(players=[found_pb(f) for f in found])

    async def SendFriendRequest(
        self, request: pb.SendFriendRequestRequest, context: Any
    ) -> pb.SendFriendRequestResponse:
        accepted = await self.app.send_friend_request(self._who(context), request.player_id)
        return pb.SendFriendRequestResponse(accepted=accepted)

    async def AcceptFriendRequest(
        self, request: pb.AcceptFriendRequestRequest, context: Any
    ) -> pb.AcceptFriendRequestResponse:
        friend = await self.app.accept_friend_request(self._who(context), request.player_id)
        return pb.AcceptFriendRequestResponse(friend=friend_pb(friend))

    async def DeclineFriendRequest(
        self, request: pb.DeclineFriendRequestRequest, context: Any
    ) -> pb.DeclineFriendRequestResponse:
        await self.app.decline_friend_request(self._who(context), request.player_id)
        return pb.DeclineFriendRequestResponse()

    async def CancelFriendRequest(
        self, request: pb.CancelFriendRequestRequest, context: Any
    ) -> pb.CancelFriendRequestResponse:
        await self.app.cancel_friend_request(self._who(context), request.player_id)
        return pb.CancelFriendRequestResponse()

    async def RemoveFriend(self, request: pb.RemoveFriendRequest, context: Any) -> pb.RemoveFriendResponse:
        await self.app.remove_friend(self._who(context), request.player_id)
        return pb.RemoveFriendResponse()

    async def BlockPlayer(self, request: pb.BlockPlayerRequest, context: Any) -> pb.BlockPlayerResponse:
        await self.app.block(self._who(context), request.player_id)
        return pb.BlockPlayerResponse()

    async def UnblockPlayer(self, request: pb.UnblockPlayerRequest, context: Any) -> pb.UnblockPlayerResponse:
        await self.app.unblock(self._who(context), request.player_id)
        return pb.UnblockPlayerResponse()

    async def ListFriends(self, request: pb.ListFriendsRequest, context: Any) -> pb.ListFriendsResponse:
        lists = await self.app.list_friends(self._who(context))
        return pb.ListFriendsResponse(
            friends=[friend_pb(f) for f in lists.friends],
            incoming=[person_pb(p) for p in lists.incoming],
            outgoing=[person_pb(p) for p in lists.outgoing],
            blocked=[blocked_pb(p) for p in lists.blocked],
            friends_max=self.app.limits.friends_max,
            pending_max=self.app.limits.pending_max,
        )

    async def InviteToTable(self, request: pb.InviteToTableRequest, context: Any) -> pb.InviteToTableResponse:
        sent = await self.app.invite(self._who(context), request.player_id, request.table_id)
        return pb.InviteToTableResponse(notification=notification_pb(sent))

    async def JoinFriend(self, request: pb.JoinFriendRequest, context: Any) -> pb.JoinFriendResponse:
        who = self._who(context)
        card, seat, started = await self.app.join_friend(who, request.player_id, request.invite_code)
        return pb.JoinFriendResponse(table=table_pb(card), seat=seat, started=started)

    # ------------------------------------------------------------ notifications and watching

    async def ListNotifications(
        self, request: pb.ListNotificationsRequest, context: Any
    ) -> pb.ListNotificationsResponse:
        who = self._who(context)
        views, unread = await self.app.list_notifications(
            who, request.before_notification_id, request.limit, request.unread_only
        )
        return pb.ListNotificationsResponse(notifications=[notification_pb(v) for v in views], unread=unread)

    async def MarkNotificationsRead(
        self, request: pb.MarkNotificationsReadRequest, context: Any
    ) -> pb.MarkNotificationsReadResponse:
        who = self._who(context)
        unread = await self.app.mark_notifications_read(
            who, list(request.notification_ids), request.up_to_notification_id
        )
        return pb.MarkNotificationsReadResponse(unread=unread)

    async def WatchNotifications(
        self, request: pb.WatchNotificationsRequest, context: Any
    ) -> AsyncIterator[pb.WatchNotificationsResponse]:
        stream = self.app.watch_notifications(self._who(context), request.after_notification_id)
        try:
            async for view, unread in stream:
                if view is None:  # the first message: the unread count alone
                    yield pb.WatchNotificationsResponse(unread=unread)
                else:
                    yield pb.WatchNotificationsResponse(notification=notification_pb(view), unread=unread)
        finally:
            await stream.aclose()  # the stream's seat in the hub is given back at once

    async def AuthorizeWatch(self, request: pb.AuthorizeWatchRequest, context: Any) -> pb.AuthorizeWatchResponse:
        most = await self.app.authorize_watch(self._who(context), request.table_id)
        return pb.AuthorizeWatchResponse(spectators_max=most)

    # ------------------------------------------------------------ tournaments

    async def ListTournaments(self, request: pb.ListTournamentsRequest, context: Any) -> pb.ListTournamentsResponse:
        views = await self.app.list_tournaments(self._who(context), status_name(request.status), request.limit)
        return pb.ListTournamentsResponse(tournaments=[tournament_pb(v, full=False) for v in views])

    async def GetTournament(self, request: pb.GetTournamentRequest, context: Any) -> pb.GetTournamentResponse:
        view = await self.app.tournament(self._who(context), request.tournament_id)
        return pb.GetTournamentResponse(tournament=tournament_pb(view))

    async def RegisterTournament(
        self, request: pb.RegisterTournamentRequest, context: Any
    ) -> pb.RegisterTournamentResponse:
        view, balance = await self.app.register_tournament(self._who(context), request.tournament_id, request.entry_fee)
        return pb.RegisterTournamentResponse(tournament=tournament_pb(view), balance=balance)

    async def UnregisterTournament(
        self, request: pb.UnregisterTournamentRequest, context: Any
    ) -> pb.UnregisterTournamentResponse:
        view, balance = await self.app.unregister_tournament(self._who(context), request.tournament_id)
        return pb.UnregisterTournamentResponse(tournament=tournament_pb(view), balance=balance)

    async def CreateTournament(self, request: pb.CreateTournamentRequest, context: Any) -> pb.CreateTournamentResponse:
        view = await self.app.create_tournament(self._who(context), spec_from_pb(request.spec), request.tournament_id)
        return pb.CreateTournamentResponse(tournament=tournament_pb(view))

    async def CancelTournament(self, request: pb.CancelTournamentRequest, context: Any) -> pb.CancelTournamentResponse:
        view = await self.app.cancel_tournament(self._who(context), request.tournament_id, request.reason)
        return pb.CancelTournamentResponse(tournament=tournament_pb(view))

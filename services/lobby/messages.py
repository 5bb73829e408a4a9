"""The lobby's records as okey.v1 messages where several handlers of api.py share them: a
table's card (LobbyTable), its pot's quote, a time; and what friends.py and notifications.py
answer (friends, requests, blocks, players found, notifications)."""

from __future__ import annotations

from datetime import datetime

from google.protobuf.timestamp_pb2 import Timestamp
from okey.v1 import common_pb2
from okey.v1 import lobby_service_pb2 as pb
from okeyplatform.contract import options_pb

from .avatars import face
from .cards import rule_lines
from .friends import FriendView
from .friends_repo import FoundRow, PersonRow
from .ledger import PotQuote
from .notifications import NotificationView
from .tables import TableCard
from .tournaments import tournament_of_table

__all__ = ["_ts", "table_pb", "quote_pb", "friend_pb", "person_pb", "blocked_pb", "found_pb", "notification_pb"]


def _ts(value: datetime | None) -> Timestamp | None:
    if value is None:
        return None
    ts = Timestamp()
    ts.FromDatetime(value)
    return ts


def table_pb(card: TableCard) -> pb.LobbyTable:
    t = card.table
    msg = pb.LobbyTable(
        table_id=t.table_id,
        game=common_pb2.Game.Value(f"GAME_{t.game}"),
        options=options_pb(card.options),
        stake=t.stake,
        visibility=pb.TABLE_VISIBILITY_PRIVATE if t.private else pb.TABLE_VISIBILITY_PUBLIC,
        status=f"LOBBY_TABLE_STATUS_{t.status}",
        seats_taken=card.seats_taken,
        seat_count=card.options.seat_count,
        creator_id=t.creator_id,
        invite_code=(t.invite_code or "") if card.show_invite else "",
        created_at=_ts(t.created_at),
        pot=card.pot,
        practice=card.practice,
        quote=quote_pb(card.quote) if card.quote is not None else None,
        tournament_id=tournament_of_table(t.creator_id),
    )
    for line in rule_lines(card.options):
        msg.rules.add(option=line.option, value=line.value, label=line.label)
    by_seat = {s.seat: s for s in card.seats}
    for i in range(card.options.seat_count):
        s = by_seat.get(i)
        if s is None:
            msg.seats.add(seat=i)
        else:
            msg.seats.add(
                seat=i,
                player_id=s.player_id or "",
                display_name=s.display_name,
                bot=s.bot,
                left=s.left,
                avatar=face(s.player_id, s.avatar, deleted=not s.display_name),
            )
    return msg


def quote_pb(q: PotQuote) -> pb.PotQuote:
    return pb.PotQuote(
        stake=q.stake,
        people=q.people,
        bots=q.bots,
        pot=q.pot,
        max_win=q.max_win,
        hand_prize=q.hand_prize,
        practice=q.practice,
    )


def friend_pb(f: FriendView) -> pb.Friend:
    p = f.person
    return pb.Friend(
        player_id=p.player_id,
        display_name=p.display_name,
        since=_ts(p.at),
        table=table_pb(f.card) if f.card is not None else None,
        avatar=face(p.player_id, p.avatar, deleted=not p.display_name),
    )


def person_pb(p: PersonRow) -> pb.FriendRequest:
    return pb.FriendRequest(
        player_id=p.player_id,
        display_name=p.display_name,
        sent_at=_ts(p.at),
        avatar=face(p.player_id, p.avatar, deleted=not p.display_name),
    )


def blocked_pb(p: PersonRow) -> pb.BlockedPlayer:
    return pb.BlockedPlayer(player_id=p.player_id, display_name=p.display_name, since=_ts(p.at))


def found_pb(f: FoundRow) -> pb.FoundPlayer:
    return pb.FoundPlayer(
        player_id=f.player_id,
        display_name=f.display_name,
        friend=f.friend,
        request_pending=f.request_pending,
        avatar=face(f.player_id, f.avatar),
    )


def notification_pb(v: NotificationView) -> pb.Notification:
    r = v.row
    return pb.Notification(
        notification_id=r.notification_id,
        kind=pb.NotificationKind.Value(f"NOTIFICATION_KIND_{r.kind}"),
        from_player_id=r.from_id,
        from_display_name=r.from_name,
        table=table_pb(v.card) if v.card is not None else None,
        created_at=_ts(r.created_at),
        expires_at=_ts(v.expires_at),
        expired=v.expired,
        read=r.read_at is not None,
    )

"""Friends (issue 44.3) and watching (issue 44.5): finding players by name, friend requests and
friendships, blocks (honoured everywhere: requests, invitations, seats in tables.py, chat in
chat_repo.py, watching here), invitations to a table, sitting at a friend's table, and who may
watch a table. The notifications these make are notifications_repo's rows, added in the same
unit of work; the bounds are policy.Limits'."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from okeyplatform.auth import Identity, is_staff

from .errors import Flood, Forbidden, Invalid, NotFound, Refused
from .friends_repo import FoundRow, PersonRow
from .notifications import Notifications, NotificationView
from .notifications_repo import FRIEND_ACCEPTED, FRIEND_REQUEST, TABLE_INVITE
from .players import active_player
from .policy import Limits, grant_day, next_day_start, when
from .store import LobbyStore, Unit
from .tables import BLOCKED_TEXT, PLAYING, STARTING, WAITING, TableCard, Tables

__all__ = ["Friends", "FriendView", "FriendLists", "PLAYER_ID_MAX", "FIND_MAX"]

PLAYER_ID_MAX = 64  # the lobby's ids are "p-" and 16 hex digits; anything far longer is no id
TABLE_ID_MAX = 64
FIND_MAX = 20
PREFIX_MIN, PREFIX_MAX = 2, 20
REQUESTS_QUOTA = "friend_requests:player"  # lobby_quotas kinds, per Turkish day
INVITES_QUOTA = "invites:player"


@dataclass(frozen=True)
class FriendView:
    person: PersonRow
    card: TableCard | None  # the table they sit at (waiting, starting or playing), no invite code


@dataclass(frozen=True)
class FriendLists:
    friends: list[FriendView]
    incoming: list[PersonRow]
    outgoing: list[PersonRow]
    blocked: list[PersonRow]


def _player_id(player_id: str) -> str:
    if not player_id or len(player_id) > PLAYER_ID_MAX:
        raise Invalid(f"player_id: a player's id (at most {PLAYER_ID_MAX} characters)", "INVALID_ARGUMENT")
    return player_id


def _not_found(player_id: str) -> NotFound:
    return NotFound(f"no player {player_id!r}", "PLAYER_NOT_FOUND")


class Friends:
    def __init__(
        self,
        store: LobbyStore,
        tables: Tables,
        notifications: Notifications,
        clock: Callable[[], datetime],
        limits: Limits,
    ) -> None:
        self.store = store
        self.tables = tables
        self.notifications = notifications
        self.clock = clock
        self.limits = limits

    async def _notify(self, uow: Unit, to: str, kind: str, now: datetime, **fields: str) -> int:
        kept_since = now - timedelta(days=self.limits.notification_keep_days)
        return await uow.notifications.add(to, kind, now, self.limits.notification_max, kept_since, **fields)

    async def _other(self, uow: Unit, player_id: str) -> None:
        """A live player other than the caller, by id (PLAYER_NOT_FOUND otherwise)."""
        row = await uow.players.player(player_id)
        if row is None or not row.display_name:  # a deleted account has no name
            raise _not_found(player_id)

    async def _not_blocked(self, uow: Unit, a: str, b: str) -> None:
        if await uow.friends.blocked_between(a, [b]):
            raise Refused(BLOCKED_TEXT, "BLOCKED")

    async def _room_for_friend(self, uow: Unit, a: str, b: str) -> None:
        cap = self.limits.friends_max
        if cap and max(await uow.friends.friend_count(a), await uow.friends.friend_count(b)) >= cap:
            raise Flood(f"Bir arkadaş listesi en çok {cap} kişi. (At most {cap} friends.)", "TOO_MANY_FRIENDS")

    # ------------------------------------------------------------ finding players

    async def find_players(self, who: Identity, prefix: str) -> list[FoundRow]:
        prefix = " ".join(prefix.split())
        if not PREFIX_MIN <= len(prefix) <= PREFIX_MAX:
            raise Invalid(f"prefix: {PREFIX_MIN} to {PREFIX_MAX} characters of a name", "INVALID_ARGUMENT")
        async with self.store.unit() as uow:
            await uow.players.known(who.subject)
            return await uow.friends.find(who.subject, prefix, FIND_MAX)

    # ------------------------------------------------------------ requests and friendships

    async def send_request(self, who: Identity, player_id: str) -> bool:
        """Ask ``player_id`` to be friends; True when they had asked the caller already (then
        the two are friends now, and the asker hears so)."""
        player_id = _player_id(player_id)
        if player_id == who.subject:
            raise Refused("Kendinle arkadaş olamazsın. (You cannot befriend yourself.)", "CANNOT_FRIEND_SELF")
        now = self.clock()
        async with self.store.unit() as uow:
            await uow.friends.lock_pair(who.subject, player_id)
            await active_player(uow, who, now)
            await self._other(uow, player_id)
            await self._not_blocked(uow, who.subject, player_id)
            if await uow.friends.are_friends(who.subject, player_id):
                raise Refused("Zaten arkadaşsınız. (You are friends already.)", "ALREADY_FRIENDS")
            if await uow.friends.request_exists(player_id, who.subject):
                await self._accept(uow, who.subject, player_id, now)
                return True
            if await uow.friends.request_exists(who.subject, player_id):
                raise Refused("İsteğin cevap bekliyor. (Your request is waiting for an answer.)", "REQUEST_PENDING")
            window = self.limits.friend_request_repeat_window
            if window and await uow.notifications.requested_since(who.subject, player_id, now - window):
                raise Flood(
                    "Bu oyuncuya yakın zamanda arkadaşlık isteği gönderdin; yarın yine dene. "
                    "(You asked this player lately: try again tomorrow.)",
                    "TOO_MANY_REQUESTS",
                )
            await self._room_for_friend(uow, who.subject, player_id)
            cap = self.limits.pending_max
            if cap and await uow.friends.pending_from(who.subject) >= cap:
                raise Flood(
                    f"Cevap bekleyen en çok {cap} isteğin olabilir. (At most {cap} requests waiting.)",
                    "TOO_MANY_PENDING",
                )
            cap = self.limits.friend_requests_per_day
            if cap and await uow.players.take_quotas(grant_day(now), [(REQUESTS_QUOTA, who.subject, cap)]):
                raise Flood(
                    f"Bugün en çok {cap} arkadaşlık isteği gönderebilirsin; {when(next_day_start(now))} "
                    f"sonra yine. (At most {cap} friend requests a day.)",
                    "TOO_MANY_REQUESTS",
                )
            await uow.friends.add_request(who.subject, player_id, now)
            await uow.notifications.drop_earlier(player_id, who.subject, FRIEND_REQUEST)
            await self._notify(uow, player_id, FRIEND_REQUEST, now, from_id=who.subject)
        return False

    async def _accept(self, uow: Unit, me: str, requester: str, now: datetime) -> None:
        await self._room_for_friend(uow, me, requester)
        await uow.friends.drop_request(requester, me)
        await uow.friends.drop_request(me, requester)
        await uow.friends.befriend(me, requester, now)
        await self._notify(uow, requester, FRIEND_ACCEPTED, now, from_id=me)

    async def accept_request(self, who: Identity, player_id: str) -> FriendView:
        player_id = _player_id(player_id)
        now = self.clock()
        async with self.store.unit() as uow:
            await uow.friends.lock_pair(who.subject, player_id)
            await uow.players.known(who.subject)
            if not await uow.friends.request_exists(player_id, who.subject):
                raise NotFound("Böyle bir istek yok. (No such request.)", "REQUEST_NOT_FOUND")
            await self._accept(uow, who.subject, player_id, now)
            person = await uow.friends.friend(who.subject, player_id)
            assert person is not None
            return (await self._friend_views(uow, who, [person]))[0]

    async def decline_request(self, who: Identity, player_id: str) -> None:
        await self._drop_request(who, _player_id(player_id), who.subject)

    async def cancel_request(self, who: Identity, player_id: str) -> None:
        await self._drop_request(who, who.subject, _player_id(player_id))

    async def _drop_request(self, who: Identity, from_id: str, to_id: str) -> None:
        async with self.store.unit() as uow:
            await uow.friends.lock_pair(from_id, to_id)
            await uow.players.known(who.subject)
            if not await uow.friends.drop_request(from_id, to_id):
                raise NotFound("Böyle bir istek yok. (No such request.)", "REQUEST_NOT_FOUND")

    async def remove_friend(self, who: Identity, player_id: str) -> None:
        player_id = _player_id(player_id)
        async with self.store.unit() as uow:
            await uow.friends.lock_pair(who.subject, player_id)
            if not await uow.friends.unfriend(who.subject, player_id):
                raise Refused("Bu oyuncuyla arkadaş değilsiniz. (You are not friends.)", "NOT_FRIENDS")

    # ------------------------------------------------------------ blocks

    async def block(self, who: Identity, player_id: str) -> None:
        """Block ``player_id``: the friendship and the requests between the two end, and what
        they sent the caller is gone from the caller's notifications. Again: nothing changes."""
        player_id = _player_id(player_id)
        if player_id == who.subject:
            raise Invalid("you cannot block yourself", "INVALID_ARGUMENT")
        now = self.clock()
        async with self.store.unit() as uow:
            await uow.friends.lock_pair(who.subject, player_id)
            await uow.players.known(who.subject, lock=True)  # the cap counts one block at a time
            await self._other(uow, player_id)
            if await uow.friends.has_blocked(who.subject, player_id):
                return
            cap = self.limits.blocks_max
            if cap and await uow.friends.blocks_of(who.subject) >= cap:
                raise Flood(
                    f"En çok {cap} oyuncu engelleyebilirsin. (At most {cap} blocked players.)", "TOO_MANY_BLOCKS"
                )
            await uow.friends.block(who.subject, player_id, now)
            await uow.friends.sever(who.subject, player_id)
            await uow.notifications.drop_from(who.subject, player_id)

    async def unblock(self, who: Identity, player_id: str) -> None:
        player_id = _player_id(player_id)
        async with self.store.unit() as uow:
            await uow.friends.lock_pair(who.subject, player_id)
            await uow.players.known(who.subject)
            await uow.friends.unblock(who.subject, player_id)

    # ------------------------------------------------------------ lists

    async def _friend_views(self, uow: Unit, who: Identity, people: list[PersonRow]) -> list[FriendView]:
        at = await uow.friends.seated_at([p.player_id for p in people], (WAITING, STARTING, PLAYING))
        cards = await self.tables.cards(uow, list(at.values()), who)
        out = []
        for p in people:
            card = cards.get(at.get(p.player_id, ""))
            out.append(FriendView(p, replace(card, show_invite=False) if card is not None else None))
        return out

    async def list_friends(self, who: Identity) -> FriendLists:
        async with self.store.unit() as uow:
            await uow.players.known(who.subject)
            friends = await self._friend_views(uow, who, await uow.friends.friends(who.subject))
            return FriendLists(
                friends,
                await uow.friends.requests(who.subject, incoming=True),
                await uow.friends.requests(who.subject, incoming=False),
                await uow.friends.blocked(who.subject),
            )

    # ------------------------------------------------------------ tables

    async def invite(self, who: Identity, player_id: str, table_id: str) -> NotificationView:
        """Invite a friend to a waiting table the caller sits at, with a free seat: a
        TABLE_INVITE notification for them, with the invite code of a private table."""
        player_id = _player_id(player_id)
        if not table_id or len(table_id) > TABLE_ID_MAX:
            raise Invalid("table_id: a table's id", "INVALID_ARGUMENT")
        now = self.clock()
        async with self.store.unit() as uow:
            await active_player(uow, who, now)
            table = await uow.tables.table(table_id)
            if table is None:
                raise NotFound("no such table", "TABLE_NOT_FOUND")
            seats = await uow.tables.seats(table_id)
            if not any(s.player_id == who.subject and not s.left for s in seats):
                raise Refused("you do not sit at this table", "NOT_SEATED")
            await self._other(uow, player_id)
            await self._not_blocked(uow, who.subject, player_id)
            if not await uow.friends.are_friends(who.subject, player_id):
                raise Refused("Bu oyuncuyla arkadaş değilsiniz. (You are not friends.)", "NOT_FRIENDS")
            if table.status != WAITING:
                raise Refused("the match has started or the table is closed", "NOT_WAITING")
            if any(s.player_id == player_id for s in seats):
                raise Refused("your friend sits at this table already", "ALREADY_SEATED")
            card = (await self.tables.cards(uow, [table_id], who))[table_id]
            if card.seats_taken >= card.options.seat_count:
                raise Refused("every seat is taken", "TABLE_FULL")
            window = self.limits.invite_repeat_window
            if await uow.notifications.invited_since(who.subject, player_id, table_id, now - window):
                raise Flood(
                    f"Bu arkadaşını bu masaya az önce davet ettin; {int(window.total_seconds())} saniye bekle. "
                    "(You invited them to this table a moment ago.)",
                    "TOO_MANY_INVITES",
                )
            cap = self.limits.invites_per_day
            if cap and await uow.players.take_quotas(grant_day(now), [(INVITES_QUOTA, who.subject, cap)]):
                raise Flood(
                    f"Bugün en çok {cap} davet gönderebilirsin. (At most {cap} invitations a day.)", "TOO_MANY_INVITES"
                )
            code = (table.invite_code or "") if table.private else ""
            await uow.notifications.drop_earlier(player_id, who.subject, TABLE_INVITE, table_id)
            nid = await self._notify(
                uow, player_id, TABLE_INVITE, now, from_id=who.subject, table_id=table_id, invite_code=code
            )
            [row] = await uow.notifications.by_ids(player_id, [nid])
            return (await self.notifications.views(uow, [row]))[0]

    async def join_friend(self, who: Identity, player_id: str, invite_code: str) -> tuple[TableCard, int, bool]:
        """Sit at the waiting table a friend sits at, as JoinTable does (a private one needs the
        invite code their invitation carried)."""
        player_id = _player_id(player_id)
        async with self.store.unit() as uow:
            await uow.players.known(who.subject)
            await self._other(uow, player_id)
            await self._not_blocked(uow, who.subject, player_id)
            if not await uow.friends.are_friends(who.subject, player_id):
                raise Refused("Bu oyuncuyla arkadaş değilsiniz. (You are not friends.)", "NOT_FRIENDS")
            table_id = (await uow.friends.seated_at([player_id], (WAITING,))).get(player_id)
        if table_id is None:
            raise Refused(
                "Arkadaşın bekleyen bir masada oturmuyor. (Your friend sits at no waiting table.)", "NOT_SEATED"
            )
        return await self.tables.join(who, table_id, invite_code)

    async def authorize_watch(self, who: Identity, table_id: str) -> int:
        """May ``who`` watch ``table_id`` as a spectator? Returns the most spectators it takes.
        A table the lobby does not list (opened on the table service directly): yes. Staff (and
        services): yes. A block with a person seated: BLOCKED. A public table: yes. A private one:
        whoever sits or sat at it, a friend of a person seated, a player invited to it."""
        if not table_id or len(table_id) > TABLE_ID_MAX:
            raise Invalid("table_id: a table's id", "INVALID_ARGUMENT")
        most = self.limits.spectators_max
        async with self.store.unit() as uow:
            table = await uow.tables.table(table_id)
            if table is None or is_staff(who) or who.is_service:
                return most
            seated = [s.player_id for s in await uow.tables.seats(table_id) if s.player_id]
            if await uow.friends.blocked_between(who.subject, seated):
                raise Refused(BLOCKED_TEXT, "BLOCKED")
            if not table.private or who.subject in seated:
                return most
            for p in seated:
                if await uow.friends.are_friends(who.subject, p):
                    return most
            if await uow.notifications.invited(who.subject, table_id):
                return most
        raise Forbidden(
            "Bu özel masayı izlemek için davet gerekir. (This private table needs an invitation.)", "INVITE_REQUIRED"
        )

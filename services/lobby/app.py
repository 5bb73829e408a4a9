"""The lobby's use cases behind one object: ``LobbyApp`` builds the use-case objects of each
subdomain over one store (players.py, logins.py, erasure.py, ledger.py, tables.py, rooms.py, chat.py,
reports.py, staff.py, friends.py, notifications.py, tournaments.py) and offers their calls under one name each,
as api.py and consumer.py call them. The rules live in those modules; this is only their composition."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from .chat import Chat
from .erasure import Erasure, PlayerForgetter
from .friends import Friends
from .ledger import Ledger
from .logins import Logins
from .notifications import Notifications
from .notify_bus import NotificationHub
from .players import Players
from .policy import Limits, utcnow
from .reports import Reports
from .rooms import Rooms
from .staff import Staff
from .store import LobbyStore
from .tables import Tables, TableStarter
from .tournaments import Tournaments

__all__ = ["LobbyApp"]


class LobbyApp:
    def __init__(
        self,
        store: LobbyStore,
        tables: TableStarter,
        clock: Callable[[], datetime] = utcnow,
        limits: Limits | None = None,
        token_secret: bytes | None = None,
        forgetter: PlayerForgetter | None = None,
    ) -> None:
        limits = limits or Limits()
        self.store = store
        self.clock = clock
        self.limits = limits
        self.ledger = Ledger(store, clock, limits)
        self.players = Players(store, self.ledger, clock, limits, token_secret)
        self.logins = Logins(store, self.players, clock, limits)
        self.erasure = Erasure(store, self.players, clock, forgetter)
        self.tables = Tables(store, tables, clock, limits)
        self.rooms = Rooms(store)
        self.chat = Chat(store, clock, limits)
        self.reporting = Reports(store, self.players, self.tables, clock, limits)
        self.staffing = Staff(store, self.players, clock)
        # the open WatchNotifications streams of this process, and what a committed unit adds
        self.hub = NotificationHub(limits.notification_streams_max)
        store.on_notified = self.hub.published
        self.notifications = Notifications(store, self.tables, self.hub, clock, limits)
        self.friends = Friends(store, self.tables, self.notifications, clock, limits)
        self.tournaments = Tournaments(store, self.tables, clock, limits)

        players, ledger, seating, chat, reporting = self.players, self.ledger, self.tables, self.chat, self.reporting
        # players and accounts
        self.sign_in_guest = players.sign_in_guest
        self.sign_in = players.sign_in
        self.refresh_session = players.refresh
        self.profile = players.profile
        self.set_avatar = players.set_avatar
        self.sign_out = players.sign_out
        self.sign_out_everywhere = players.sign_out_everywhere
        self.revocations = players.revocations
        logins = self.logins
        self.link_email = logins.link_email
        self.unlink_email = logins.unlink_email
        self.reauthenticate = logins.reauthenticate
        self.change_password = logins.change_password
        self.sign_in_email = logins.sign_in_email
        self.create_link_code = logins.create_link_code
        self.sign_in_link_code = logins.sign_in_link_code
        self.devices = logins.devices
        self.unlink_device = logins.unlink_device
        self.delete_account = self.erasure.delete_account
        self.forget_elsewhere = self.erasure.forget_elsewhere
        # the ledger
        self.chips = ledger.chips
        self.claim_daily_chips = ledger.claim_daily_chips
        # tables and seating, the match on the table service and what its events settle
        self.open_table = seating.open_table
        self.table_card = seating.table_card
        self.list_tables = seating.list_tables
        self.my_tables = seating.my_tables
        self.list_rooms = self.rooms.list
        self.join = seating.join
        self.fill_with_bots = seating.fill_with_bots
        self.quick_play = seating.quick_play
        self.quick_play_answer = seating.quick_play_answer
        self.leave = seating.leave
        self.launch = seating.launch
        self.retry_starting = seating.retry_starting
        self.playing_tables = seating.playing_tables
        self.settle_match = seating.settle_match
        self.pay_hand_prize = seating.pay_hand_prize
        self.settlement = seating.settlement
        self.quote_pot = seating.quote
        self.seat_left = seating.seat_left
        # chat and moderation
        self.send_message = chat.send_message
        self.send_emote = chat.send_emote
        self.list_messages = chat.list_messages
        self.mute = chat.mute
        # reports and bans
        self.report = reporting.report
        self.reports = reporting.reports
        self.report_page = reporting.report_page
        self.resolve_report = reporting.resolve_report
        self.ban = reporting.ban
        self.unban = reporting.unban
        # staff roles, chips adjustments and the audit log
        staffing = self.staffing
        self.grant_role = staffing.grant_role
        self.revoke_role = staffing.revoke_role
        self.staff = staffing.staff
        self.adjust_chips = staffing.adjust_chips
        self.audit_log = staffing.audit_log
        # friends, blocks, invitations and watching
        friends = self.friends
        self.find_players = friends.find_players
        self.send_friend_request = friends.send_request
        self.accept_friend_request = friends.accept_request
        self.decline_friend_request = friends.decline_request
        self.cancel_friend_request = friends.cancel_request
        self.remove_friend = friends.remove_friend
        self.block = friends.block
        self.unblock = friends.unblock
        self.list_friends = friends.list_friends
        self.invite = friends.invite
        self.join_friend = friends.join_friend
        self.authorize_watch = friends.authorize_watch
        # notifications
        self.list_notifications = self.notifications.list
        self.mark_notifications_read = self.notifications.mark_read
        self.watch_notifications = self.notifications.watch
        # tournaments
        tournaments = self.tournaments
        self.list_tournaments = tournaments.list
        self.tournament = tournaments.get
        self.register_tournament = tournaments.register
        self.unregister_tournament = tournaments.unregister
        self.create_tournament = tournaments.create
        self.cancel_tournament = tournaments.cancel
        self.tournament_match_ended = tournaments.match_ended
        self.tournament_seat_left = tournaments.seat_left
        self.tournament_tick = tournaments.tick

    async def forget_old_quotas(self) -> int:
        """The daily quotas of days gone, expired refresh tokens, idle failed-login counts,
        known addresses unused for long and notifications past notification_keep_days: what the
        lobby's timer prunes."""
        return (
            await self.players.forget_old_quotas() + await self.logins.forget_old() + await self.notifications.prune()
        )

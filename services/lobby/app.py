"""Lobby use cases: guests and their chips, the tables directory and seating, the match start on
the table service, settlement of the pot, chat under the house rules, reports and sanctions."""

from __future__ import annotations

import re
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone
from typing import Protocol

from okeycore.options import OptionsError, TableOptions
from okeyplatform.auth import Identity, issue_token, revoke
from okeyplatform.logs import get_logger

from . import moderation
from .cards import human_seats
from .store import (
    BANK,
    HOUSE,
    EntryRow,
    LobbyStore,
    MessageRow,
    PlayerRow,
    ReportRow,
    SeatRow,
    TableRow,
    Tx,
    UniqueTaken,
    player_account,
    pot_account,
)

__all__ = [
    "LobbyApp",
    "LobbyError",
    "Invalid",
    "NotFound",
    "Refused",
    "Forbidden",
    "Exists",
    "Flood",
    "TableStarter",
    "StartFailed",
    "TableCard",
    "Profile",
    "WAITING",
    "STARTING",
    "PLAYING",
    "FINISHED",
    "CANCELLED",
    "REPORT_REASONS",
    "REPORT_ACTIONS",
    "Limits",
    "next_day_start",
    "grant_day",
]

WAITING, STARTING, PLAYING, FINISHED, CANCELLED = "WAITING", "STARTING", "PLAYING", "FINISHED", "CANCELLED"
REPORT_REASONS = ("ABUSE", "PERSONAL_INFO", "ADVERTISING", "COLLUSION", "STALLING", "OTHER")
REPORT_ACTIONS = ("DISMISS", "WARN", "MUTE", "BAN")

TURKEY = timezone(timedelta(hours=3), "TRT")  # the day of the daily chips; Turkey keeps +03:00 all year
FOREVER = datetime(9999, 12, 31, tzinfo=UTC)
DEVICE_ID = re.compile(r"^[^\s\x00-\x1f\x7f]{1,128}$")  # what a client says its device is: no spaces


class LobbyError(Exception):
    """A refusal with a gRPC status name, a stable ``reason`` and the ``message`` a player reads."""

    status = "FAILED_PRECONDITION"

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class Invalid(LobbyError):
    status = "INVALID_ARGUMENT"


class NotFound(LobbyError):
    status = "NOT_FOUND"


class Refused(LobbyError):
    status = "FAILED_PRECONDITION"


class Forbidden(LobbyError):
    status = "PERMISSION_DENIED"


class Exists(LobbyError):
    status = "ALREADY_EXISTS"


class Flood(LobbyError):
    status = "RESOURCE_EXHAUSTED"


class Unavailable(LobbyError):
    """Another service (the table service) could not be reached: nothing changed, try again."""

    status = "UNAVAILABLE"


class StartFailed(Exception):
    """The table service did not open the table; ``permanent`` when retrying cannot help."""

    def __init__(self, message: str, permanent: bool) -> None:
        super().__init__(message)
        self.permanent = permanent


class TableStarter(Protocol):
    """The lobby's calls to the table service: opening a match (an already existing table counts
    as opened) and leaving a seat mid-match [D-10] (a seat already left counts as left)."""

    async def create_table(self, table_id: str, options: TableOptions, players: tuple[str, ...]) -> None: ...

    async def leave_seat(self, table_id: str, seat: int, player_id: str) -> None:
        """The table's SeatLeft: a bot plays ``seat`` from now on. Raises ``Refused`` when the
        table refuses (the match is over), ``Unavailable`` when it cannot be reached."""
        ...


@dataclass(frozen=True)
class Limits:
    daily_chips: int = 1000
    max_stake: int = 1_000_000
    token_ttl_s: int = 7 * 86400
    message_max: int = 200
    flood_window: timedelta = timedelta(seconds=10)
    flood_max: int = 5  # messages per window
    repeat_window: timedelta = timedelta(seconds=60)
    repeat_max: int = 2  # the same message this often per repeat window
    details_max: int = 500
    mute_max_minutes: int = 30 * 24 * 60
    ban_max_minutes: int = 365 * 24 * 60
    max_open_tables: int = 3  # tables a player opened that are waiting or being played at once
    # Sock puppets [issue 15.7], per Turkish day (0: no limit). A device id is what the client
    # says; an address is the gateway's (x-okey-client-addr): calls without one (internal ones,
    # tests) are limited per device only. Many players share a NAT, so an address gets more.
    accounts_per_device: int = 3  # new guest accounts
    accounts_per_address: int = 10
    grants_per_device: int = 1  # daily chip grants (at sign-in and by ClaimDailyChips)
    grants_per_address: int = 5


@dataclass(frozen=True)
class TableCard:
    table: TableRow
    options: TableOptions
    seats: list[SeatRow]
    pot: int
    show_invite: bool

    @property
    def seats_taken(self) -> int:
        return len(self.seats)


@dataclass(frozen=True)
class Profile:
    player: PlayerRow
    chips: int | None  # None: not the caller's to see
    next_daily_chips_at: datetime | None


def _utcnow() -> datetime:
    return datetime.now(UTC)


def next_day_start(now: datetime) -> datetime:
    """When the next daily chips may be claimed: midnight in Turkey."""
    local = now.astimezone(TURKEY)
    return datetime.combine(local.date() + timedelta(days=1), time(0), TURKEY).astimezone(UTC)


def grant_day(now: datetime) -> date:
    return now.astimezone(TURKEY).date()


def _grant_key(player_id: str, now: datetime) -> str:
    """One daily grant per player and Turkish day: the ledger refuses a second posting."""
    return f"grant:{player_id}:{grant_day(now).isoformat()}"


class LobbyApp:
    def __init__(
        self,
        store: LobbyStore,
        tables: TableStarter,
        clock: Callable[[], datetime] = _utcnow,
        limits: Limits = Limits(),
        token_secret: bytes | None = None,
    ) -> None:
        self.store = store
        self.tables = tables
        self.clock = clock
        self.limits = limits
        self.token_secret = token_secret
        # Called after a revocation is committed (the service publishes it to every service).
        self.on_revoked: Callable[[str, float], Awaitable[None]] | None = None
        self.log = get_logger(component="lobby-app")

    # ------------------------------------------------------------ revoking tokens

    async def _revoke(self, tx: Tx, player_id: str, now: datetime) -> float:
        """Every token of the player issued until now is refused from here on, by every service."""
        await tx.revoke(player_id, now, now + timedelta(seconds=self.limits.token_ttl_s))
        return now.timestamp()

    async def _revoked(self, player_id: str, before: float) -> None:
        revoke(player_id, before)  # this process at once
        if self.on_revoked is not None:
            await self.on_revoked(player_id, before)
        self.log.info("tokens_revoked", player_id=player_id)

    async def revocations(self) -> list[tuple[str, float]]:
        """Every revocation in force: what a starting service asks for."""
        async with self.store.unit() as tx:
            rows = await tx.revocations(self.clock())
        return [(p, nb.timestamp()) for p, nb in rows]

    async def sign_out(self, who: Identity) -> None:
        """Sign out everywhere: every token of the player issued so far is refused by every
        service within seconds (the lobby publishes the revocation)."""
        async with self.store.unit() as tx:
            before = await self._revoke(tx, who.subject, self.clock())
        await self._revoked(who.subject, before)

    # ------------------------------------------------------------ players and chips

    async def sign_in_guest(
        self, display_name: str, device_id: str, address: str = ""
    ) -> tuple[PlayerRow, str, datetime, int]:
        """A new guest: a unique valid name, the first daily chips, a signed token. A device and an
        address open a few accounts a day, and the daily chips go to a few of them (Limits): past
        that, RESOURCE_EXHAUSTED TOO_MANY_ACCOUNTS, or an account without the day's chips."""
        try:
            shown = moderation.check_display_name(display_name)
        except moderation.NameRejected as exc:
            raise Invalid(exc.reason, exc.message) from None
        device = device_id.strip() or "g-" + secrets.token_hex(12)
        if not DEVICE_ID.match(device):
            raise Invalid("INVALID_ARGUMENT", "device_id: 1 to 128 characters, no spaces")
        now = self.clock()
        row = PlayerRow("p-" + secrets.token_hex(8), shown, device, now, None, None, 0)
        async with self.store.unit() as tx:
            until = await tx.device_banned_until(device)
            if until is not None and until > now:
                raise Forbidden("BANNED", _banned_text(until))
            full = await tx.take_quotas(grant_day(now), self._quotas("accounts", device, address))
            if full is not None:
                self.log.info("guest_refused", reason="TOO_MANY_ACCOUNTS", quota=full[0])
                raise Flood("TOO_MANY_ACCOUNTS", _too_many_accounts(*full))
            try:
                await tx.insert_player(row, moderation.name_key(shown))
            except UniqueTaken:
                raise Exists("NAME_TAKEN", f"'{shown}' adı alınmış; başka bir ad seç. (That name is taken.)") from None
            granted = await self._grant(tx, row.player_id, now, device, address)
        token = issue_token(
            row.player_id, "player", ttl_s=self.limits.token_ttl_s, secret=self.token_secret, device=device
        )
        self.log.info("guest_signed_in", player_id=row.player_id)
        return row, token, now + timedelta(seconds=self.limits.token_ttl_s), granted

    def _quotas(self, what: str, device: str, address: str) -> list[tuple[str, str, int]]:
        """The daily quotas ``what`` ("accounts" or "grants") takes from: the device's, then the
        address's (that order, always: the rows are locked in it). A limit of 0 is none."""
        limits = self.limits
        per_device, per_address = (
            (limits.accounts_per_device, limits.accounts_per_address)
            if what == "accounts"
            else (limits.grants_per_device, limits.grants_per_address)
        )
        out = []
        if per_device > 0 and device:
            out.append((f"{what}:device", device, per_device))
        if per_address > 0 and address:
            out.append((f"{what}:address", address, per_address))
        return out

    async def _grant(
        self, tx: Tx, player_id: str, now: datetime, device: str, address: str, refuse: bool = False
    ) -> int:
        """The day's chips, once per player, and to at most a few players per device and per
        address: 0 when the player had them today; when another account of the device or
        address had them, 0 as well, or (``refuse``) RESOURCE_EXHAUSTED DAILY_CHIPS_TAKEN."""
        key = _grant_key(player_id, now)
        if await tx.posted(key):
            return 0
        day = grant_day(now)
        quotas = self._quotas("grants", device, address)
        full = await tx.take_quotas(day, quotas)
        if full is None:
            amount = self.limits.daily_chips
            if await tx.post(key, "daily_grant", [(BANK, -amount), (player_account(player_id), amount)], now):
                return amount
            await tx.give_back_quotas(day, [(k, h) for k, h, _ in quotas])  # a concurrent claim won
            return 0
        if await tx.posted(key) or not refuse:  # (waited for a concurrent claim of this player)
            return 0
        raise Flood("DAILY_CHIPS_TAKEN", _chips_taken(*full))

    async def claim_daily_chips(self, who: Identity, address: str = "") -> tuple[int, int, datetime]:
        now = self.clock()
        async with self.store.unit() as tx:
            player = await self._known(tx, who)
            granted = await self._grant(tx, who.subject, now, who.device or player.device_id, address, refuse=True)
            balance = (await tx.balances([player_account(who.subject)]))[player_account(who.subject)]
        return granted, balance, next_day_start(now)

    async def forget_old_quotas(self) -> int:
        """Drop the daily quotas of days before yesterday (the device ids and addresses in them)."""
        async with self.store.unit() as tx:
            return await tx.forget_quotas(grant_day(self.clock()) - timedelta(days=1))

    async def chips(self, who: Identity, limit: int) -> tuple[int, list[EntryRow]]:
        account = player_account(who.subject)
        async with self.store.unit() as tx:
            await self._known(tx, who)
            balance = (await tx.balances([account]))[account]
            entries = await tx.entries(account, max(1, min(limit or 20, 200)))
        return balance, entries

    async def profile(self, who: Identity, player_id: str) -> Profile:
        target = player_id or who.subject
        async with self.store.unit() as tx:
            player = await tx.player(target)
            if player is None:
                raise NotFound("PLAYER_NOT_FOUND", f"no player {target!r}")
            if target != who.subject and who.role != "admin":
                return Profile(
                    PlayerRow(player.player_id, player.display_name, "", player.created_at, None, None, 0), None, None
                )
            chips = (await tx.balances([player_account(target)]))[player_account(target)]
            now = self.clock()
            claimed = await tx.posted(_grant_key(target, now))
            if not claimed and self.limits.grants_per_device > 0 and player.device_id:  # another account had them
                used = await tx.quota_used("grants:device", player.device_id, grant_day(now))
                claimed = used >= self.limits.grants_per_device
        return Profile(player, chips, next_day_start(now) if claimed else now)

    async def _known(self, tx: Tx, who: Identity, lock: bool = False) -> PlayerRow:
        player = await tx.player(who.subject, lock=lock)
        if player is None:
            raise NotFound("PLAYER_NOT_FOUND", "sign in first: this token's player is not known to the lobby")
        return player

    async def _may_sit(self, tx: Tx, who: Identity, now: datetime) -> PlayerRow:
        player = await self._known(tx, who)
        until = _later(player.banned_until, await tx.device_banned_until(who.device or player.device_id))
        if until is not None and until > now:
            raise Refused("BANNED", _banned_text(until))
        return player

    # ------------------------------------------------------------ tables

    def _validated(self, options: TableOptions) -> TableOptions:
        try:
            options = options.validated()
        except OptionsError as exc:
            raise Invalid("INVALID_OPTIONS", str(exc)) from None
        if options.stake > self.limits.max_stake:
            raise Invalid("INVALID_OPTIONS", f"stake must be at most {self.limits.max_stake}")
        if options.hand_prize > self.limits.max_stake:
            raise Invalid("INVALID_OPTIONS", f"hand_prize must be at most {self.limits.max_stake}")
        return options

    async def _card(self, tx: Tx, table: TableRow, who: Identity | None) -> TableCard:
        seats = await tx.seats(table.table_id)
        pot = (await tx.balances([pot_account(table.table_id)]))[pot_account(table.table_id)]
        return self._make_card(table, seats, pot, who)

    def _make_card(self, table: TableRow, seats: list[SeatRow], pot: int, who: Identity | None) -> TableCard:
        seated = who is not None and any(s.player_id == who.subject for s in seats)
        show = table.private and who is not None and (seated or who.subject == table.creator_id or who.role == "admin")
        return TableCard(table, TableOptions.from_dict(table.options, stored=True), seats, pot, show)

    async def open_table(
        self,
        who: Identity,
        options: TableOptions,
        private: bool = False,
        seat: int | None = None,
        fill_with_bots: bool = False,
    ) -> tuple[TableCard, int]:
        options = self._validated(options)
        now = self.clock()
        table = TableRow(
            table_id="t" + secrets.token_hex(8),
            game=options.game.value,
            options=options.to_dict(),
            stake=options.stake,
            private=private,
            invite_code=_invite_code() if private else None,
            creator_id=who.subject,
            status=WAITING,
            created_at=now,
            started_at=None,
            result=None,
        )
        seats = human_seats(options)
        if seat is not None and seat not in seats:
            raise Invalid("INVALID_ARGUMENT", f"seat must be one of {', '.join(map(str, seats))}")
        chosen = seat if seat is not None else seats[0]
        async with self.store.unit() as tx:
            player = await self._may_sit(tx, who, now)
            await self._can_cover(tx, who.subject, options.stake)
            opened = await tx.open_tables_of(who.subject)
            if opened >= self.limits.max_open_tables:
                raise Flood(
                    "TOO_MANY_TABLES",
                    f"Açık {opened} masan var; yenisini açmadan önce birini bitir ya da kapat. "
                    f"(You have {opened} open tables, at most {self.limits.max_open_tables}: "
                    "finish or cancel one first.)",
                )
            await tx.insert_table(table)
            for bot in sorted(set(range(options.seat_count)) - set(seats)):
                await tx.insert_seat(table.table_id, bot, None)
            await tx.insert_seat(table.table_id, chosen, who.subject, who.device or player.device_id)
            started = False
            if fill_with_bots:
                short = await self._start(tx, table, now, fill=True)
                if short:
                    raise Refused("INSUFFICIENT_CHIPS", "not enough chips for the stake")
                started = True
        self.log.info("table_opened", table_id=table.table_id, game=table.game, private=private, stake=table.stake)
        if started:
            await self.launch(table.table_id)
        return await self.table_card(who, table.table_id), chosen

    async def _can_cover(self, tx: Tx, player_id: str, stake: int) -> None:
        if stake <= 0:
            return
        balance = (await tx.balances([player_account(player_id)]))[player_account(player_id)]
        if balance < stake:
            raise Refused(
                "INSUFFICIENT_CHIPS",
                f"Bu masanın girişi {stake} jeton, sende {balance} var. (The stake is {stake}; you have {balance}.)",
            )

    async def table_card(self, who: Identity | None, table_id: str = "", invite_code: str = "") -> TableCard:
        async with self.store.unit() as tx:
            table = await tx.table_by_invite(invite_code) if invite_code else await tx.table(table_id)
            if table is None or (table_id and invite_code and table.table_id != table_id):
                raise NotFound("TABLE_NOT_FOUND", "no such table")
            card = await self._card(tx, table, who)
        if table.private and not invite_code and not card.show_invite:
            raise NotFound("TABLE_NOT_FOUND", "no such table")
        return card

    async def list_tables(
        self, who: Identity, game: str | None, include_playing: bool, page_size: int, page_token: str
    ) -> tuple[list[TableCard], str]:
        size = max(1, min(page_size or 50, 200))
        try:
            offset = int(page_token) if page_token else 0
            if not 0 <= offset < 2**31:  # the database's OFFSET takes neither negative nor huge ones
                raise ValueError(page_token)
        except ValueError:
            raise Invalid("INVALID_ARGUMENT", "page_token: use the next_page_token of the previous page") from None
        statuses = (WAITING, STARTING, PLAYING) if include_playing else (WAITING,)
        async with self.store.unit() as tx:
            rows = await tx.tables(statuses, game, size + 1, offset)
            page = rows[:size]
            seats = await tx.seats_of_tables([t.table_id for t in page])
            pots = await tx.balances([pot_account(t.table_id) for t in page])
        cards = [self._make_card(t, seats[t.table_id], pots[pot_account(t.table_id)], who) for t in page]
        return cards, str(offset + size) if len(rows) > size else ""

    async def join(
        self, who: Identity, table_id: str, invite_code: str = "", seat: int | None = None
    ) -> tuple[TableCard, int, bool]:
        """Take a seat [fair play: one seat per player and per device at a table]; the last
        seat starts the match."""
        now = self.clock()
        short: list[str] = []
        async with self.store.unit() as tx:
            table = await tx.table(table_id, lock=True)
            if table is None:
                raise NotFound("TABLE_NOT_FOUND", "no such table")
            if table.private and invite_code != table.invite_code:
                raise Forbidden("INVITE_REQUIRED", "this private table needs its invite code")
            player = await self._may_sit(tx, who, now)
            if table.status != WAITING:
                raise Refused("NOT_WAITING", "the match has started or the table is closed")
            options = TableOptions.from_dict(table.options, stored=True)
            seats = await tx.seats(table_id)
            if any(s.player_id == who.subject for s in seats):
                raise Refused("ALREADY_SEATED", "you already sit at this table")
            device = who.device or player.device_id
            if device and any(s.device_id == device for s in seats):
                raise Refused("SAME_DEVICE", "another account from your device sits at this table")
            taken = {s.seat for s in seats}
            free = [s for s in human_seats(options) if s not in taken]
            if seat is not None:
                if seat not in human_seats(options):
                    raise Invalid(
                        "INVALID_ARGUMENT", f"seat must be one of {', '.join(map(str, human_seats(options)))}"
                    )
                if seat in taken:
                    raise Refused("SEAT_TAKEN", f"seat {seat} is taken")
                chosen = seat
            elif free:
                chosen = free[0]
            else:
                raise Refused("TABLE_FULL", "every seat is taken")
            await self._can_cover(tx, who.subject, table.stake)
            try:
                await tx.insert_seat(table_id, chosen, who.subject, device)
            except UniqueTaken as exc:
                raise _seat_conflict(exc) from None
            started = False
            if len(free) == 1:  # this was the last open seat
                short = await self._start(tx, table, now)
                started = not short
        if who.subject in short:
            raise Refused("INSUFFICIENT_CHIPS", "not enough chips for the stake")
        if started:
            await self.launch(table_id)
        return await self.table_card(who, table_id), chosen, started

    async def _start(self, tx: Tx, table: TableRow, now: datetime, fill: bool = False) -> list[str]:
        """Hold every player's stake in the table's pot, in one transaction, and mark the table
        STARTING; players who cannot cover it are unseated instead and returned (nothing held)."""
        seats = await tx.seats(table.table_id)
        humans = [s.player_id for s in seats if s.player_id is not None]
        if table.stake > 0:
            balances = await tx.balances([player_account(p) for p in humans], lock=True)
            short = [p for p in humans if balances[player_account(p)] < table.stake]
            if short:
                await tx.delete_seats(table.table_id, short)
                self.log.info("unseated_short", table_id=table.table_id, players=short)
                return short
        if fill:
            options = TableOptions.from_dict(table.options, stored=True)
            for s in sorted(set(range(options.seat_count)) - {s.seat for s in seats}):
                await tx.insert_seat(table.table_id, s, None)
        if table.stake > 0:
            entries = [(player_account(p), -table.stake) for p in humans]
            entries.append((pot_account(table.table_id), table.stake * len(humans)))
            await tx.post(f"stakes:{table.table_id}", "stake", entries, now, table.table_id)
            await tx.hold_stakes(table.table_id, table.stake)
        await tx.set_status(table.table_id, STARTING, now)
        return []

    async def fill_with_bots(self, who: Identity, table_id: str) -> TableCard:
        now = self.clock()
        async with self.store.unit() as tx:
            table = await tx.table(table_id, lock=True)
            if table is None:
                raise NotFound("TABLE_NOT_FOUND", "no such table")
            if table.creator_id != who.subject:
                raise Refused("NOT_CREATOR", "only the table's creator may fill it with bots")
            if table.status != WAITING:
                raise Refused("NOT_WAITING", "the match has started or the table is closed")
            short = await self._start(tx, table, now, fill=True)
        if short:
            raise Refused(
                "INSUFFICIENT_CHIPS", f"{len(short)} player(s) could not cover the stake and were unseated; try again"
            )
        await self.launch(table_id)
        return await self.table_card(who, table_id)

    async def quick_play(self, who: Identity, options: TableOptions) -> tuple[TableCard, int, bool, bool]:
        """Sit at the oldest open public table with exactly these options, or open one."""
        options = self._validated(options)
        async with self.store.unit() as tx:
            candidates = await tx.tables((WAITING,), options.game.value, 20, options=options.to_dict())
        for t in candidates:
            try:
                card, seat, started = await self.join(who, t.table_id)
                return card, seat, False, started
            except Refused as exc:
                if exc.reason == "ALREADY_SEATED":
                    card = await self.table_card(who, t.table_id)
                    mine = next(s.seat for s in card.seats if s.player_id == who.subject)
                    return card, mine, False, False
                if exc.reason not in ("SEAT_TAKEN", "TABLE_FULL", "NOT_WAITING", "SAME_DEVICE"):
                    raise
        card, seat = await self.open_table(who, options)
        return card, seat, True, False

    async def leave(self, who: Identity, table_id: str) -> tuple[TableCard, int]:
        """Before the start the seat is freed; after it the stake stays in the pot and is lost,
        and the table service is told: its SeatLeft makes the seat a bot's for the rest of the
        match, at once [C-LEAVE-1] [D-10]. The table decides; the lobby records what it said."""
        async with self.store.unit() as tx:
            table = await tx.table(table_id)
            if table is None:
                raise NotFound("TABLE_NOT_FOUND", "no such table")
            mine = next((s for s in await tx.seats(table_id) if s.player_id == who.subject), None)
        if mine is None:
            raise Refused("NOT_SEATED", "you do not sit at this table")
        if table.status in (STARTING, PLAYING) and not mine.left:
            if table.status == STARTING:
                raise Refused("NOT_STARTED", "the match is being opened: leave again in a moment")
            # Outside the lobby's transaction: a call to another service holds no row lock.
            await self.tables.leave_seat(table_id, mine.seat, who.subject)
        now = self.clock()
        async with self.store.unit() as tx:
            table = await tx.table(table_id, lock=True)
            if table is None:
                raise NotFound("TABLE_NOT_FOUND", "no such table")
            seats = await tx.seats(table_id)
            mine = next((s for s in seats if s.player_id == who.subject), None)
            if mine is None:
                raise Refused("NOT_SEATED", "you do not sit at this table")
            forfeited = 0
            if table.status == WAITING:
                await self._unseat_waiting(tx, table, seats, who.subject, now)
            elif table.status in (STARTING, PLAYING):
                if not mine.left:
                    await tx.mark_left(table_id, who.subject, now)
                    self.log.info("left_mid_match", table_id=table_id, player_id=who.subject, forfeited=mine.stake_held)
                forfeited = mine.stake_held
            else:
                raise Refused("NOT_WAITING", "the match is over")
            card = await self._card(tx, (await tx.table(table_id)) or table, who)
        return card, forfeited

    async def seat_left(self, table_id: str, seat: int, player_id: str) -> bool:
        """The table's SeatLeft (through NATS, whoever asked for it: the lobby or the player at
        the table service itself): the seat is marked left, once. True when it changed something."""
        async with self.store.unit() as tx:
            seats = await tx.seats(table_id)
            mine = next((s for s in seats if s.seat == seat and s.player_id == player_id), None)
            if mine is None or mine.left:
                return False
            await tx.mark_left(table_id, player_id, self.clock())
        self.log.info("left_mid_match", table_id=table_id, player_id=player_id, forfeited=mine.stake_held)
        return True

    async def _unseat_waiting(
        self, tx: Tx, table: TableRow, seats: list[SeatRow], player_id: str, now: datetime
    ) -> None:
        await tx.delete_seats(table.table_id, [player_id])
        others = [s.player_id for s in seats if s.player_id is not None and s.player_id != player_id]
        if not others:
            await tx.set_status(table.table_id, CANCELLED, now)
        elif table.creator_id == player_id:
            await tx.set_creator(table.table_id, others[0])

    # ------------------------------------------------------------ the match on the table service

    async def launch(self, table_id: str) -> str:
        """Open a STARTING table's match on the table service (with the seat player ids, "" for
        bots). A transient failure leaves it STARTING for the retry loop; a permanent one
        cancels the table and returns the stakes."""
        async with self.store.unit() as tx:
            table = await tx.table(table_id)
            if table is None or table.status != STARTING:
                return table.status if table else ""
            seats = await tx.seats(table_id)
        players = tuple(s.player_id or "" for s in sorted(seats, key=lambda s: s.seat))
        try:
            await self.tables.create_table(table_id, TableOptions.from_dict(table.options, stored=True), players)
        except StartFailed as exc:
            if not exc.permanent:
                self.log.warning("table_start_retry", table_id=table_id, error=str(exc))
                return STARTING
            self.log.error("table_start_failed", table_id=table_id, error=str(exc))
            await self.cancel_started(table_id, str(exc))
            return CANCELLED
        async with self.store.unit() as tx:
            table = await tx.table(table_id, lock=True)
            if table is not None and table.status == STARTING:
                await tx.set_status(table_id, PLAYING, self.clock())
        self.log.info("match_started", table_id=table_id, players=sum(1 for p in players if p))
        return PLAYING

    async def cancel_started(self, table_id: str, why: str) -> None:
        """The table service refused the match: every held stake goes back."""
        now = self.clock()
        async with self.store.unit() as tx:
            table = await tx.table(table_id, lock=True)
            if table is None or table.status != STARTING:
                return
            seats = await tx.seats(table_id)
            entries = [(player_account(s.player_id), s.stake_held) for s in seats if s.player_id and s.stake_held]
            held = sum(a for _, a in entries)
            if held:
                entries.append((pot_account(table_id), -held))
                await tx.post(f"refund:{table_id}", "refund", entries, now, table_id, {"why": why})
            await tx.set_status(table_id, CANCELLED, now, {"cancelled": why})

    async def retry_starting(self, older_than: timedelta = timedelta(seconds=3)) -> int:
        now = self.clock()
        async with self.store.unit() as tx:
            rows = await tx.tables((STARTING,), None, 100, public_only=False)
        due = [t.table_id for t in rows if t.started_at is None or now - t.started_at >= older_than]
        for table_id in due:
            await self.launch(table_id)
        return len(due)

    async def playing_tables(self, started_before: datetime, limit: int = 500) -> list[TableRow]:
        """Tables in play that started before ``started_before``, oldest first (public or not)."""
        async with self.store.unit() as tx:
            rows = await tx.tables((STARTING, PLAYING), None, limit, public_only=False)
        return [t for t in rows if t.started_at is not None and t.started_at < started_before]

    async def settle_match(self, table_id: str, winners: Sequence[int], scores: Sequence[int] = ()) -> bool:
        """MatchEnded: the pot is split equally among the winning seats, the remainder rounded
        down and kept by the house [C-SC-9]; a share won by a bot or by a player who left
        [C-LEAVE-1] goes to the house. Idempotent: a match is paid once."""
        now = self.clock()
        async with self.store.unit() as tx:
            table = await tx.table(table_id, lock=True)
            if table is None or table.status not in (STARTING, PLAYING):
                return False
            seats = {s.seat: s for s in await tx.seats(table_id)}
            pot_acc = pot_account(table_id)
            pot = (await tx.balances([pot_acc], lock=True))[pot_acc]
            share = pot // len(winners) if winners else 0
            remainder = pot - share * len(winners)
            paid: dict[str, int] = {}
            house = remainder
            for w in winners:
                s = seats.get(w)
                if s is not None and s.player_id is not None and not s.left:
                    paid[s.player_id] = paid.get(s.player_id, 0) + share
                else:
                    house += share
            entries = [(pot_acc, -pot), (HOUSE, house), *((player_account(p), a) for p, a in paid.items())]
            result = {
                "winners": list(winners),
                "scores": list(scores),
                "pot": pot,
                "share": share,
                "remainder": remainder,
                "to_house": house,
                "paid": paid,
            }
            if pot:
                await tx.post(f"payout:{table_id}", "payout", entries, now, table_id, result)
            await tx.set_status(table_id, FINISHED, now, result)
        self.log.info("match_settled", table_id=table_id, pot=pot, share=share, remainder=remainder)
        return True

    async def pay_hand_prize(self, table_id: str, hand: int, chips: Sequence[int]) -> bool:
        """101 hand prize [O-DEAL-3]: each other seat pays the hand's finisher, between people
        only (a bot neither pays nor is paid), never more than the payer has."""
        now = self.clock()
        key = f"hand:{table_id}:{hand}"
        async with self.store.unit() as tx:
            table = await tx.table(table_id, lock=True)
            if table is None or table.status not in (STARTING, PLAYING):
                return False
            seats = {s.seat: s for s in await tx.seats(table_id)}
            winner = next((seats.get(i) for i, c in enumerate(chips) if c > 0), None)
            if winner is None or winner.player_id is None or winner.left:
                return False
            payers = [(seats[i].player_id, -c) for i, c in enumerate(chips) if c < 0 and i in seats]
            people = [(p, a) for p, a in payers if p is not None]
            have = await tx.balances([player_account(p) for p, _ in people], lock=True)
            entries = [(player_account(p), -min(a, have[player_account(p)])) for p, a in people]
            entries.append((player_account(winner.player_id), -sum(a for _, a in entries)))
            return await tx.post(key, "hand_prize", entries, now, table_id, {"hand": hand})

    # ------------------------------------------------------------ chat

    async def send_message(self, who: Identity, table_id: str, text: str) -> MessageRow:
        """Post to a table's chat (seated players) or the lobby's, under the house rules."""
        text = " ".join(text.split())
        if not text:
            raise Invalid("EMPTY_MESSAGE", "the message is empty")
        if len(text) > self.limits.message_max:
            raise Invalid(
                "MESSAGE_TOO_LONG",
                f"Mesaj en çok {self.limits.message_max} karakter. (At most {self.limits.message_max} characters.)",
            )
        verdict = moderation.check_message(text)
        if verdict is not None:
            self.log.info("message_blocked", player_id=who.subject, reason=verdict.reason, table_id=table_id)
            raise Refused(verdict.reason, verdict.message)
        now = self.clock()
        async with self.store.unit() as tx:
            player = await self._known(tx, who, lock=True)  # one send at a time per player
            banned = _later(player.banned_until, await tx.device_banned_until(who.device or player.device_id))
            if banned is not None and banned > now:
                raise Refused("BANNED", _banned_text(banned))
            if player.muted_until is not None and player.muted_until > now:
                raise Refused(
                    "MUTED",
                    f"Sohbetin {_when(player.muted_until)} tarihine kadar kapalı. (You are muted until then.)",
                )
            if table_id:
                await self._seated_at(tx, table_id, who)
            recent = await tx.recent_messages(
                who.subject, now - max(self.limits.flood_window, self.limits.repeat_window)
            )
            if sum(1 for _, t in recent if t > now - self.limits.flood_window) >= self.limits.flood_max:
                raise Flood("FLOOD", "Çok hızlı yazıyorsun; biraz bekle. (Too many messages: wait a moment.)")
            key = _text_key(text)
            repeats = sum(1 for k, t in recent if k == key and t > now - self.limits.repeat_window)
            if repeats >= self.limits.repeat_max:
                raise Flood("FLOOD", "Aynı mesajı tekrar tekrar yazma. (Do not repeat the same message.)")
            return await tx.insert_message(table_id, who.subject, text, key, now)

    async def _seated_at(self, tx: Tx, table_id: str, who: Identity) -> None:
        if who.role == "admin":
            if await tx.table(table_id) is None:
                raise NotFound("TABLE_NOT_FOUND", "no such table")
            return
        seats = await tx.seats(table_id)
        if not any(s.player_id == who.subject for s in seats):
            raise Refused("NOT_SEATED", "only the players at a table read and write its chat")

    async def list_messages(self, who: Identity, table_id: str, after_id: int, limit: int) -> list[MessageRow]:
        async with self.store.unit() as tx:
            if table_id:
                await self._seated_at(tx, table_id, who)
            return await tx.messages(table_id, after_id, max(1, min(limit or 50, 200)), who.subject)

    async def mute(self, who: Identity, player_id: str, muted: bool) -> None:
        if player_id == who.subject:
            raise Invalid("INVALID_ARGUMENT", "you cannot mute yourself")
        async with self.store.unit() as tx:
            await self._known(tx, who)
            if await tx.player(player_id) is None:
                raise NotFound("PLAYER_NOT_FOUND", f"no player {player_id!r}")
            if muted:
                await tx.mute(who.subject, player_id, self.clock())
            else:
                await tx.unmute(who.subject, player_id)

    # ------------------------------------------------------------ reports and sanctions

    async def report(
        self, who: Identity, player_id: str, reason: str, details: str, message_ids: Sequence[int], table_id: str
    ) -> int:
        if player_id == who.subject:
            raise Invalid("INVALID_ARGUMENT", "you cannot report yourself")
        if reason not in REPORT_REASONS:
            raise Invalid("INVALID_ARGUMENT", f"reason must be one of {', '.join(REPORT_REASONS)}")
        if len(details) > self.limits.details_max:
            raise Invalid("INVALID_ARGUMENT", f"details: at most {self.limits.details_max} characters")
        if len(message_ids) > 20:
            raise Invalid("INVALID_ARGUMENT", "at most 20 message ids")
        async with self.store.unit() as tx:
            await self._known(tx, who)
            if await tx.player(player_id) is None:
                raise NotFound("PLAYER_NOT_FOUND", f"no player {player_id!r}")
            found = {m.message_id: m for m in await tx.messages_by_id(sorted(set(message_ids)))}
            for mid in message_ids:
                if mid not in found or found[mid].player_id != player_id:
                    raise Invalid("INVALID_ARGUMENT", f"message {mid} is not a message of that player")
            if await tx.open_report_exists(who.subject, player_id):
                raise Refused("ALREADY_REPORTED", "your earlier report on this player is still open")
            report_id = await tx.insert_report(
                who.subject, player_id, reason, details.strip(), sorted(set(message_ids)), table_id, self.clock()
            )
        self.log.info("player_reported", report_id=report_id, reason=reason)
        return report_id

    def _admin(self, who: Identity) -> None:
        if who.role != "admin":
            raise Forbidden("ADMIN_ONLY", "only admins may do this")

    async def reports(
        self, who: Identity, include_resolved: bool, limit: int
    ) -> list[tuple[ReportRow, list[MessageRow], int]]:
        """Reports with their chat context: each reported message with the three before and after
        it, or the player's ten latest messages; and how often the player was reported before."""
        self._admin(who)
        out = []
        async with self.store.unit() as tx:
            for r in await tx.reports(include_resolved, max(1, min(limit or 50, 200))):
                context: dict[int, MessageRow] = {}
                if r.message_ids:
                    for m in await tx.messages_by_id(r.message_ids):
                        for c in await tx.messages_around(m.channel, m.message_id, 4):
                            context[c.message_id] = c
                else:
                    context = {m.message_id: m for m in await tx.latest_messages_of(r.player_id, 10)}
                earlier = await tx.earlier_reports(r.player_id, r.report_id)
                out.append((r, [context[k] for k in sorted(context)], earlier))
        return out

    async def resolve_report(
        self, who: Identity, report_id: int, action: str, minutes: int, note: str
    ) -> tuple[ReportRow, list[MessageRow], int]:
        """Dismiss, warn, mute for a time or ban (0 minutes: for good). A ban also bans the
        player's device and frees the seats they hold at tables still waiting."""
        self._admin(who)
        if action not in REPORT_ACTIONS:
            raise Invalid("INVALID_ARGUMENT", f"action must be one of {', '.join(REPORT_ACTIONS)}")
        if action == "MUTE" and not 1 <= minutes <= self.limits.mute_max_minutes:
            raise Invalid("INVALID_ARGUMENT", f"a mute lasts 1 to {self.limits.mute_max_minutes} minutes")
        if action == "BAN" and not 0 <= minutes <= self.limits.ban_max_minutes:
            raise Invalid("INVALID_ARGUMENT", f"a ban lasts 0 (for good) to {self.limits.ban_max_minutes} minutes")
        now = self.clock()
        async with self.store.unit() as tx:
            report = await tx.report(report_id, lock=True)
            if report is None:
                raise NotFound("REPORT_NOT_FOUND", f"no report {report_id}")
            if report.status != "OPEN":
                raise Refused("ALREADY_RESOLVED", "this report was already resolved")
            if action == "WARN":
                await tx.sanction(report.player_id, warn=True)
            elif action == "MUTE":
                await tx.sanction(report.player_id, muted_until=now + timedelta(minutes=minutes))
            elif action == "BAN":
                until = now + timedelta(minutes=minutes) if minutes else FOREVER
                await tx.sanction(report.player_id, banned_until=until)
                revoked = await self._revoke(tx, report.player_id, now)  # at every service, not only here
                player = await tx.player(report.player_id)
                if player is not None and player.device_id:
                    await tx.ban_device(player.device_id, until)
                for table_id in await tx.waiting_tables_of(report.player_id):
                    table = await tx.table(table_id, lock=True)
                    if table is not None and table.status == WAITING:
                        await self._unseat_waiting(tx, table, await tx.seats(table_id), report.player_id, now)
            await tx.resolve_report(report_id, action, minutes, note.strip()[:500], who.subject, now)
        if action == "BAN":
            await self._revoked(report.player_id, revoked)
        self.log.info("report_resolved", report_id=report_id, action=action, minutes=minutes)
        for r in await self.reports(who, True, 200):
            if r[0].report_id == report_id:
                return r
        raise NotFound("REPORT_NOT_FOUND", f"no report {report_id}")


def _seat_conflict(exc: UniqueTaken) -> LobbyError:
    if exc.constraint == "lobby_seats_one_per_device":
        return Refused("SAME_DEVICE", "another account from your device sits at this table")
    if exc.constraint == "lobby_seats_one_per_player":
        return Refused("ALREADY_SEATED", "you already sit at this table")
    return Refused("SEAT_TAKEN", "that seat was just taken")


def _later(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def _when(t: datetime) -> str:
    return t.astimezone(TURKEY).strftime("%d.%m.%Y %H:%M")


def _too_many_accounts(quota: str, limit: int) -> str:
    if quota.endswith(":device"):
        return (
            f"Bu cihazdan bugün açılabilecek {limit} hesap açıldı; yarın tekrar dene. "
            f"(This device opened {limit} new accounts today, the most allowed per device: try again tomorrow.)"
        )
    return (
        f"Bu bağlantıdan bugün açılabilecek {limit} hesap açıldı; yarın tekrar dene. "
        f"(Your network opened {limit} new accounts today, the most allowed per address: try again tomorrow.)"
    )


def _chips_taken(quota: str, limit: int) -> str:
    if quota.endswith(":device"):
        return (
            "Bu cihazdaki bir hesap bugünkü günlük jetonları aldı; yarın tekrar dene. "
            "(An account on this device already had today's daily chips, once per device: try again tomorrow.)"
        )
    return (
        f"Bu bağlantıdan bugün {limit} hesap günlük jeton aldı; yarın tekrar dene. "
        f"(Today's daily chips already went to {limit} accounts on your network, the most per address: "
        "try again tomorrow.)"
    )


def _banned_text(until: datetime) -> str:
    if until >= FOREVER:
        return "Hesabın kalıcı olarak yasaklandı. (You are banned.)"
    return f"Hesabın {_when(until)} tarihine kadar yasaklı. (You are banned until then.)"


_INVITE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def _invite_code() -> str:
    return "".join(secrets.choice(_INVITE_ALPHABET) for _ in range(8))


def _text_key(text: str) -> str:
    """Two messages are the same for the flood rule when they read the same."""
    return re.sub(r"[\W_]+", "", moderation.fold(moderation.turkish_lower(text)))

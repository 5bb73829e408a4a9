"""Tables and seating: the directory of tables (public, private by invite), opening, joining,
quick play, filling with bots and leaving; the match's start on the table service (the stakes
held in the pot, the retry of a passing failure, the refund of a permanent one); and what the
table's events settle (the pot at MatchEnded, 101 hand prizes, a seat left mid-match). The chip
movements are the ledger's (ledger.py), in the same unit of work as the table rows they follow."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from okeycore.options import OptionsError, TableOptions
from okeyplatform.auth import Identity, can
from okeyplatform.logs import get_logger

from . import ledger
from .cards import human_seats, is_practice
from .errors import Flood, Forbidden, Invalid, NotFound, Refused, StartFailed, UniqueTaken
from .ledger_repo import SettlementRow, player_account, pot_account
from .notifications_repo import TABLE_STARTING
from .players import active_player
from .policy import Limits
from .settlement import open_settlement
from .store import LobbyStore, Unit
from .tables_repo import SeatRow, TableRow

__all__ = [
    "Tables",
    "TableStarter",
    "TableCard",
    "QuickPlayed",
    "WAITING",
    "STARTING",
    "PLAYING",
    "FINISHED",
    "CANCELLED",
    "BLOCKED_TEXT",
]

WAITING, STARTING, PLAYING, FINISHED, CANCELLED = "WAITING", "STARTING", "PLAYING", "FINISHED", "CANCELLED"
QUICK_CANDIDATES = 20  # waiting tables quick play tries, and the caller's own tables it looks at
MY_TABLES_MAX = 50
QUICK_LOCK = "quick-play:"  # the key prefix of quick play's lock, one lock per set of options
# Quick play passes over a table that refuses the caller for these (and tries the next)
_TAKES_NOT = ("SEAT_TAKEN", "TABLE_FULL", "NOT_WAITING", "SAME_DEVICE", "ALREADY_SEATED", "BLOCKED")
# A block, worded alike both ways: the blocked player does not learn who blocked whom.
BLOCKED_TEXT = "Bu oyuncuyla birlikte olamazsın. (You cannot play or talk with this player.)"


class TableStarter(Protocol):
    """The lobby's calls to the table service: opening a match (an already existing table counts
    as opened) and leaving a seat mid-match [D-10] (a seat already left counts as left)."""

    async def create_table(
        self, table_id: str, options: TableOptions, players: tuple[str, ...], public: bool = False
    ) -> None:
        """``public``: the lobby lists the table (its replays are anyone's once the match ended)."""
        ...

    async def leave_seat(self, table_id: str, seat: int, player_id: str) -> None:
        """The table's SeatLeft: a bot plays ``seat`` from now on. Raises ``Refused`` when the
        table refuses (the match is over), ``Unavailable`` when it cannot be reached."""
        ...


@dataclass(frozen=True)
class TableCard:
    table: TableRow
    options: TableOptions
    seats: list[SeatRow]
    pot: int
    show_invite: bool
    practice: bool = False  # unranked: fewer than two people (cards.is_practice), as the caller sees it
    quote: ledger.PotQuote | None = None  # what the pot holds and a winner takes (ledger.quote)

    @property
    def seats_taken(self) -> int:
        return len(self.seats)


@dataclass(frozen=True)
class QuickPlayed:
    """Quick play's answer: the table and seat, whether it was opened or its match started, and
    ``returned`` when it is a table the caller already sat at: "IN_PLAY" (a match the caller
    plays, whatever was asked) or "WAITING" (a waiting table with these options); else ""."""

    card: TableCard
    seat: int
    opened: bool
    started: bool
    returned: str = ""


class Tables:
    def __init__(self, store: LobbyStore, starter: TableStarter, clock: Callable[[], datetime], limits: Limits) -> None:
        self.store = store
        self.starter = starter
        self.clock = clock
        self.limits = limits
        self.log = get_logger(component="lobby-tables")

    def _validated(self, options: TableOptions) -> TableOptions:
        try:
            options = options.validated()
        except OptionsError as exc:
            raise Invalid(str(exc), "INVALID_OPTIONS") from None
        if options.stake > self.limits.max_stake:
            raise Invalid(f"stake must be at most {self.limits.max_stake}", "INVALID_OPTIONS")
        if options.hand_prize > self.limits.max_stake:
            raise Invalid(f"hand_prize must be at most {self.limits.max_stake}", "INVALID_OPTIONS")
        return options

    async def _card(self, uow: Unit, table: TableRow, who: Identity | None) -> TableCard:
        seats = await uow.tables.seats(table.table_id)
        pot = (await uow.ledger.balances([pot_account(table.table_id)]))[pot_account(table.table_id)]
        return self._make_card(table, seats, pot, who)

    def _make_card(self, table: TableRow, seats: list[SeatRow], pot: int, who: Identity | None) -> TableCard:
        seated = who is not None and any(s.player_id == who.subject for s in seats)
        show = table.private and who is not None
        show = show and (seated or who.subject == table.creator_id or can(who, "tables.inspect"))
        viewer = who.subject if who is not None else ""
        practice = is_practice((s.player_id for s in seats), table.status == WAITING, viewer)
        options = TableOptions.from_dict(table.options, stored=True)
        return TableCard(table, options, seats, pot, show, practice, quote=_quote(table, options, seats))

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
            raise Invalid(f"seat must be one of {', '.join(map(str, seats))}", "INVALID_ARGUMENT")
        chosen = seat if seat is not None else seats[0]
        async with self.store.unit() as uow:
            player = await active_player(uow, who, now)
            await ledger.can_cover(uow, who.subject, options.stake)
            opened = await uow.tables.open_tables_of(who.subject)
            if opened >= self.limits.max_open_tables:
                raise Flood(
                    f"Açık {opened} masan var; yenisini açmadan önce birini bitir ya da kapat. "
                    f"(You have {opened} open tables, at most {self.limits.max_open_tables}: "
                    "finish or cancel one first.)",
                    "TOO_MANY_TABLES",
                )
            await uow.tables.insert_table(table)
            for bot in sorted(set(range(options.seat_count)) - set(seats)):
                await uow.tables.insert_seat(table.table_id, bot, None)
            await uow.tables.insert_seat(table.table_id, chosen, who.subject, who.device or player.device_id)
            started = False
            if fill_with_bots:
                short = await self._start(uow, table, now, fill=True, actor=who.subject)
                if short:
                    raise Refused("not enough chips for the stake", "INSUFFICIENT_CHIPS")
                started = True
        self.log.info("table_opened", table_id=table.table_id, game=table.game, private=private, stake=table.stake)
        if started:
            await self.launch(table.table_id)
        return await self.table_card(who, table.table_id), chosen

    async def table_card(self, who: Identity | None, table_id: str = "", invite_code: str = "") -> TableCard:
        invite_code = normal_invite(invite_code)
        async with self.store.unit() as uow:
            table = await uow.tables.table_by_invite(invite_code) if invite_code else await uow.tables.table(table_id)
            if table is None or (table_id and invite_code and table.table_id != table_id):
                raise NotFound("no such table", "TABLE_NOT_FOUND")
            card = await self._card(uow, table, who)
        if table.private and not invite_code and not card.show_invite:
            raise NotFound("no such table", "TABLE_NOT_FOUND")
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
            raise Invalid("page_token: use the next_page_token of the previous page", "INVALID_ARGUMENT") from None
        statuses = (WAITING, STARTING, PLAYING) if include_playing else (WAITING,)
        async with self.store.unit() as uow:
            rows = await uow.tables.tables(statuses, game, size + 1, offset)
            page = rows[:size]
            seats = await uow.tables.seats_of_tables([t.table_id for t in page])
            pots = await uow.ledger.balances([pot_account(t.table_id) for t in page])
        cards = [self._make_card(t, seats[t.table_id], pots[pot_account(t.table_id)], who) for t in page]
        return cards, str(offset + size) if len(rows) > size else ""

    async def join(
        self, who: Identity, table_id: str, invite_code: str = "", seat: int | None = None
    ) -> tuple[TableCard, int, bool]:
        """Take a seat [fair play: one seat per player and per device at a table]; the last
        seat starts the match. A private table needs its invite code; with the code, the table
        id may be left empty (the code names the table)."""
        now = self.clock()
        short: list[str] = []
        invite_code = normal_invite(invite_code)
        if not table_id:
            if not invite_code:
                raise Invalid("table_id or invite_code is required", "INVALID_ARGUMENT")
            async with self.store.unit() as uow:
                found = await uow.tables.table_by_invite(invite_code)
            if found is None:
                raise NotFound("no such table", "TABLE_NOT_FOUND")
            table_id = found.table_id
        async with self.store.unit() as uow:
            table = await uow.tables.table(table_id, lock=True)
            if table is None:
                raise NotFound("no such table", "TABLE_NOT_FOUND")
            if table.private and not secrets.compare_digest(invite_code, table.invite_code or "-"):
                raise Forbidden("this private table needs its invite code", "INVITE_REQUIRED")
            player = await active_player(uow, who, now)
            if table.status != WAITING:
                raise Refused("the match has started or the table is closed", "NOT_WAITING")
            options = TableOptions.from_dict(table.options, stored=True)
            seats = await uow.tables.seats(table_id)
            if any(s.player_id == who.subject for s in seats):
                raise Refused("you already sit at this table", "ALREADY_SEATED")
            device = who.device or player.device_id
            if device and any(s.device_id == device for s in seats):
                raise Refused("another account from your device sits at this table", "SAME_DEVICE")
            if await uow.friends.blocked_between(who.subject, [s.player_id for s in seats if s.player_id]):
                raise Refused(BLOCKED_TEXT, "BLOCKED")  # a block with a person seated, either way
            taken = {s.seat for s in seats}
            free = [s for s in human_seats(options) if s not in taken]
            if seat is not None:
                if seat not in human_seats(options):
                    raise Invalid(
                        f"seat must be one of {', '.join(map(str, human_seats(options)))}", "INVALID_ARGUMENT"
                    )
                if seat in taken:
                    raise Refused(f"seat {seat} is taken", "SEAT_TAKEN")
                chosen = seat
            elif free:
                chosen = free[0]
            else:
                raise Refused("every seat is taken", "TABLE_FULL")
            await ledger.can_cover(uow, who.subject, table.stake)
            try:
                await uow.tables.insert_seat(table_id, chosen, who.subject, device)
            except UniqueTaken as exc:
                raise _seat_conflict(exc) from None
            started = False
            if len(free) == 1:  # this was the last open seat
                short = await self._start(uow, table, now, actor=who.subject)
                started = not short
        if who.subject in short:
            raise Refused("not enough chips for the stake", "INSUFFICIENT_CHIPS")
        if started:
            await self.launch(table_id)
        return await self.table_card(who, table_id), chosen, started

    async def _start(self, uow: Unit, table: TableRow, now: datetime, fill: bool = False, actor: str = "") -> list[str]:
        """Hold every player's stake in the table's pot, in one transaction, and mark the table
        STARTING; players who cannot cover it are unseated instead and returned (nothing held).
        Each person seated but ``actor`` (whose own call started it, and who hears so in its
        answer) gets a TABLE_STARTING notification."""
        seats = await uow.tables.seats(table.table_id)
        humans = [s.player_id for s in seats if s.player_id is not None]
        short = await ledger.short_of(uow, humans, table.stake)
        if short:
            await uow.tables.delete_seats(table.table_id, short)
            self.log.info("unseated_short", table_id=table.table_id, players=short)
            return short
        if fill:
            options = TableOptions.from_dict(table.options, stored=True)
            for s in sorted(set(range(options.seat_count)) - {s.seat for s in seats}):
                await uow.tables.insert_seat(table.table_id, s, None)
        if table.stake > 0:
            await ledger.hold_stakes(uow, table.table_id, humans, table.stake, now)
            await uow.tables.hold_stakes(table.table_id, table.stake)
        await open_settlement(uow, table.table_id, table.stake, await uow.tables.seats(table.table_id), now)
        await uow.tables.set_status(table.table_id, STARTING, now)
        kept_since = now - timedelta(days=self.limits.notification_keep_days)
        for p in humans:
            if p != actor:
                await uow.notifications.add(
                    p, TABLE_STARTING, now, self.limits.notification_max, kept_since, table_id=table.table_id
                )
        return []

    async def fill_with_bots(self, who: Identity, table_id: str) -> TableCard:
        now = self.clock()
        async with self.store.unit() as uow:
            table = await uow.tables.table(table_id, lock=True)
            if table is None:
                raise NotFound("no such table", "TABLE_NOT_FOUND")
            if table.creator_id != who.subject:
                raise Refused("only the table's creator may fill it with bots", "NOT_CREATOR")
            if table.status != WAITING:
                raise Refused("the match has started or the table is closed", "NOT_WAITING")
            short = await self._start(uow, table, now, fill=True, actor=who.subject)
        if short:
            raise Refused(
                f"{len(short)} player(s) could not cover the stake and were unseated; try again", "INSUFFICIENT_CHIPS"
            )
        await self.launch(table_id)
        return await self.table_card(who, table_id)

    async def quick_play(self, who: Identity, options: TableOptions) -> tuple[TableCard, int, bool, bool]:
        """:meth:`quick_play_answer` as (card, seat, opened, started)."""
        a = await self.quick_play_answer(who, options)
        return a.card, a.seat, a.opened, a.started

    async def quick_play_answer(self, who: Identity, options: TableOptions) -> QuickPlayed:
        """Seat the caller with people: a table whose match the caller already plays (not left)
        comes back as it is, never a second one; else a public waiting table with exactly these
        options where the caller waits already, else the one of them with the most people
        seated (then the oldest); a table is opened only when none takes the caller. Quick plays
        with the same options take turns, so two at once meet at one table. The answer says when
        it is a table the caller already sat at (``returned``: "IN_PLAY", whatever was asked, or
        "WAITING"), so the client can say so and offer to leave it."""
        options = self._validated(options)
        # Two players asking at once must meet at one table, not open one each: the search and
        # the sit hold one lock per set of options (at most a moment; see LobbyStore.serialized).
        async with self.store.serialized(QUICK_LOCK + json.dumps(options.to_dict(), sort_keys=True)):
            async with self.store.unit() as uow:
                mine = await uow.tables.tables_of_player(who.subject, (WAITING, STARTING, PLAYING), QUICK_CANDIDATES)
                candidates = await uow.tables.quick_candidates(options.game.value, options.to_dict(), QUICK_CANDIDATES)
            wanted = options.to_dict()
            in_play = [t for t in mine if t.status != WAITING]
            waiting_here = [t for t in mine if t.status == WAITING and not t.private and t.options == wanted]
            for t in in_play + waiting_here:
                card = await self.table_card(who, t.table_id)
                seat = next((s.seat for s in card.seats if s.player_id == who.subject), None)
                if seat is not None:
                    returned = "WAITING" if t.status == WAITING else "IN_PLAY"
                    return QuickPlayed(card, seat, False, False, returned)
            for t in candidates:
                try:
                    card, seat, started = await self.join(who, t.table_id)
                    return QuickPlayed(card, seat, False, started)
                except Refused as exc:
                    if exc.reason not in _TAKES_NOT:
                        raise
            card, seat = await self.open_table(who, options)
            return QuickPlayed(card, seat, True, False)

    async def cards(self, uow: Unit, table_ids: Sequence[str], who: Identity | None) -> dict[str, TableCard]:
        """The cards of those of ``table_ids`` the lobby lists, as ``who`` sees them."""
        rows = await uow.tables.tables_by_ids(sorted(set(table_ids)))
        seats = await uow.tables.seats_of_tables([t.table_id for t in rows])
        pots = await uow.ledger.balances([pot_account(t.table_id) for t in rows])
        return {t.table_id: self._make_card(t, seats[t.table_id], pots[pot_account(t.table_id)], who) for t in rows}

    async def my_tables(self, who: Identity, limit: int = 0) -> list[TableCard]:
        """The caller's own tables (a seat not left) that wait, start or are being played,
        public or private, newest first, at most ``limit`` (default 20, at most 50). Only the
        caller's: there is no way to ask for another player's."""
        size = max(1, min(limit or 20, MY_TABLES_MAX))
        async with self.store.unit() as uow:
            rows = await uow.tables.tables_of_player(who.subject, (WAITING, STARTING, PLAYING), size)
            seats = await uow.tables.seats_of_tables([t.table_id for t in rows])
            pots = await uow.ledger.balances([pot_account(t.table_id) for t in rows])
        return [self._make_card(t, seats[t.table_id], pots[pot_account(t.table_id)], who) for t in rows]

    async def leave(self, who: Identity, table_id: str) -> tuple[TableCard, int]:
        """Before the start the seat is freed; after it the stake stays in the pot and is lost,
        and the table service is told: its SeatLeft makes the seat a bot's for the rest of the
        match, at once [C-LEAVE-1] [D-10]. The table decides; the lobby records what it said."""
        async with self.store.unit() as uow:
            table = await uow.tables.table(table_id)
            if table is None:
                raise NotFound("no such table", "TABLE_NOT_FOUND")
            mine = next((s for s in await uow.tables.seats(table_id) if s.player_id == who.subject), None)
        if mine is None:
            raise Refused("you do not sit at this table", "NOT_SEATED")
        if table.status in (STARTING, PLAYING) and not mine.left:
            if table.status == STARTING:
                raise Refused("the match is being opened: leave again in a moment", "NOT_STARTED")
            # Outside the lobby's transaction: a call to another service holds no row lock.
            await self.starter.leave_seat(table_id, mine.seat, who.subject)
        now = self.clock()
        async with self.store.unit() as uow:
            table = await uow.tables.table(table_id, lock=True)
            if table is None:
                raise NotFound("no such table", "TABLE_NOT_FOUND")
            seats = await uow.tables.seats(table_id)
            mine = next((s for s in seats if s.player_id == who.subject), None)
            if mine is None:
                raise Refused("you do not sit at this table", "NOT_SEATED")
            forfeited = 0
            if table.status == WAITING:
                await self.unseat_waiting(uow, table, seats, who.subject, now)
            elif table.status in (STARTING, PLAYING):
                if not mine.left:
                    await uow.tables.mark_left(table_id, who.subject, now)
                    self.log.info("left_mid_match", table_id=table_id, player_id=who.subject, forfeited=mine.stake_held)
                forfeited = mine.stake_held
            else:
                raise Refused("the match is over", "NOT_WAITING")
            card = await self._card(uow, (await uow.tables.table(table_id)) or table, who)
        return card, forfeited

    async def seat_left(self, table_id: str, seat: int, player_id: str, within: Unit | None = None) -> bool:
        """The table's SeatLeft (through NATS, whoever asked for it: the lobby or the player at
        the table service itself): the seat is marked left, once. True when it changed something."""
        async with self.store.unit(within) as uow:
            seats = await uow.tables.seats(table_id)
            mine = next((s for s in seats if s.seat == seat and s.player_id == player_id), None)
            if mine is None or mine.left:
                return False
            await uow.tables.mark_left(table_id, player_id, self.clock())
        self.log.info("left_mid_match", table_id=table_id, player_id=player_id, forfeited=mine.stake_held)
        return True

    async def unseat_waiting(
        self, uow: Unit, table: TableRow, seats: list[SeatRow], player_id: str, now: datetime
    ) -> None:
        """Free the player's seat at a table still waiting (leaving, or a ban): the table is
        cancelled when no player is left, and passes to another player when its creator goes."""
        await uow.tables.delete_seats(table.table_id, [player_id])
        others = [s.player_id for s in seats if s.player_id is not None and s.player_id != player_id]
        if not others:
            await uow.tables.set_status(table.table_id, CANCELLED, now)
        elif table.creator_id == player_id:
            await uow.tables.set_creator(table.table_id, others[0])

    # ------------------------------------------------------------ the match on the table service

    async def launch(self, table_id: str) -> str:
        """Open a STARTING table's match on the table service (with the seat player ids, "" for
        bots). A transient failure leaves it STARTING for the retry loop; a permanent one
        cancels the table and returns the stakes."""
        async with self.store.unit() as uow:
            table = await uow.tables.table(table_id)
            if table is None or table.status != STARTING:
                return table.status if table else ""
            seats = await uow.tables.seats(table_id)
        players = tuple(s.player_id or "" for s in sorted(seats, key=lambda s: s.seat))
        try:
            options = TableOptions.from_dict(table.options, stored=True)
            await self.starter.create_table(table_id, options, players, public=not table.private)
        except StartFailed as exc:
            if not exc.permanent:
                self.log.warning("table_start_retry", table_id=table_id, error=str(exc))
                return STARTING
            self.log.error("table_start_failed", table_id=table_id, error=str(exc))
            await self.cancel_started(table_id, str(exc))
            return CANCELLED
        async with self.store.unit() as uow:
            table = await uow.tables.table(table_id, lock=True)
            if table is not None and table.status == STARTING:
                await uow.tables.set_status(table_id, PLAYING, self.clock())
        self.log.info("match_started", table_id=table_id, players=sum(1 for p in players if p))
        return PLAYING

    async def cancel_started(self, table_id: str, why: str) -> None:
        """The table service refused the match: every held stake goes back."""
        now = self.clock()
        async with self.store.unit() as uow:
            table = await uow.tables.table(table_id, lock=True)
            if table is None or table.status != STARTING:
                return
            await ledger.refund_stakes(uow, table_id, await uow.tables.seats(table_id), now, why)
            await uow.tables.set_status(table_id, CANCELLED, now, {"cancelled": why})

    async def retry_starting(self, older_than: timedelta = timedelta(seconds=3)) -> int:
        now = self.clock()
        async with self.store.unit() as uow:
            rows = await uow.tables.tables((STARTING,), None, 100, public_only=False)
        due = [t.table_id for t in rows if t.started_at is None or now - t.started_at >= older_than]
        for table_id in due:
            await self.launch(table_id)
        return len(due)

    async def playing_tables(self, started_before: datetime, limit: int = 500) -> list[TableRow]:
        """Tables in play that started before ``started_before``, oldest first (public or not)."""
        async with self.store.unit() as uow:
            rows = await uow.tables.tables((STARTING, PLAYING), None, limit, public_only=False)
        return [t for t in rows if t.started_at is not None and t.started_at < started_before]

    async def _in_play(self, uow: Unit, table_id: str) -> dict[int, SeatRow] | None:
        """The seats of a table whose match is on, by seat (its row locked to the unit's end, so
        a match's payments queue behind each other); None once it is over or never was."""
        table = await uow.tables.table(table_id, lock=True)
        if table is None or table.status not in (STARTING, PLAYING):
            return None
        return {s.seat: s for s in await uow.tables.seats(table_id)}

    async def settle_match(
        self,
        table_id: str,
        winners: Sequence[int],
        scores: Sequence[int] = (),
        payout: int | None = None,
        within: Unit | None = None,
    ) -> bool:
        """MatchEnded: the pot is paid to the winning seats, ``payout`` each as the engine split it
        [C-SC-9] (or, for an end without it, okeycore's split of what the pot holds), never more
        than the pot holds; the rest, and a share won by a bot or by a player who left
        [C-LEAVE-1], goes to the house (ledger.py). Idempotent: a match is paid once.
        ``within``: in that unit of work (the consumer's), as :meth:`pay_hand_prize` and
        :meth:`seat_left`."""
        now = self.clock()
        async with self.store.unit(within) as uow:
            seats = await self._in_play(uow, table_id)
            if seats is None:
                return False
            result = await ledger.pay_pot(uow, table_id, winners, scores, seats, now, payout)
            await uow.tables.set_status(table_id, FINISHED, now, result)
        self.log.info(
            "match_settled",
            table_id=table_id,
            pot=result["pot"],
            share=result["share"],
            to_house=result["to_house"],
            payout_from=result["payout_from"],
        )
        return True

    async def settlement(self, who: Identity, table_id: str) -> tuple[SettlementRow | None, int]:
        """A match's settlement record, for the players of its table (a seat, left or not) and
        staff who inspect tables; with the caller's balance, read in the same transaction, so a
        client shows the two together. None before the match started (or for a match settled
        before the records began)."""
        async with self.store.unit() as uow:
            table = await uow.tables.table(table_id)
            if table is None:
                raise NotFound("no such table", "TABLE_NOT_FOUND")
            seats = await uow.tables.seats(table_id)
            if not any(s.player_id == who.subject for s in seats) and not can(who, "tables.inspect"):
                raise Refused("you do not sit at this table", "NOT_SEATED")
            row = await uow.ledger.settlement(table_id)
            account = player_account(who.subject)
            balance = (await uow.ledger.balances([account]))[account]
        return row, balance

    def quote(self, options: TableOptions, fill_with_bots: bool) -> ledger.PotQuote:
        """What a table opened with ``options`` would hold and pay (QuotePot): with bots, only the
        opener pays in; without, every seat people may take does, when the last one sits."""
        options = self._validated(options)
        people = human_seats(options)
        return ledger.quote(options, people[:1] if fill_with_bots else people)

    async def pay_hand_prize(self, table_id: str, hand: int, chips: Sequence[int], within: Unit | None = None) -> bool:
        """101 hand prize [O-DEAL-3], while the match is on (ledger.py says who pays whom)."""
        now = self.clock()
        async with self.store.unit(within) as uow:
            seats = await self._in_play(uow, table_id)
            if seats is None:
                return False
            return await ledger.pay_hand_prize(uow, table_id, hand, chips, seats, now)


def _quote(table: TableRow, options: TableOptions, seats: Sequence[SeatRow]) -> ledger.PotQuote:
    """A card's quote: a waiting table starts when its last seat is taken, so every seat people
    may take pays in; once started, the seats people hold do."""
    if table.status == WAITING:
        return ledger.quote(options, human_seats(options))
    return ledger.quote(options, [s.seat for s in seats if s.player_id is not None])


def _seat_conflict(exc: UniqueTaken) -> Refused:
    if exc.constraint == "lobby_seats_one_per_device":
        return Refused("another account from your device sits at this table", "SAME_DEVICE")
    if exc.constraint == "lobby_seats_one_per_player":
        return Refused("you already sit at this table", "ALREADY_SEATED")
    return Refused("that seat was just taken", "SEAT_TAKEN")


# 12 characters of 32 (no I, O, 0 or 1 to misread): 60 random bits, so a code is not guessed
# (a million tries find one of ten thousand private tables with odds of about 1 in 10^8),
# and no call lists private tables: ListTables shows only public ones, ListMyTables the
# caller's own, GetTableCard and JoinTable need the exact code.
_INVITE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
INVITE_LENGTH = 12


def _invite_code() -> str:
    return "".join(secrets.choice(_INVITE_ALPHABET) for _ in range(INVITE_LENGTH))


def normal_invite(code: str) -> str:
    """An invite code as a person types or pastes it: any case, spaces and dashes between."""
    return "".join(c for c in code.upper() if c.isascii() and c.isalnum())[: INVITE_LENGTH * 2]

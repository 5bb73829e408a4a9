"""Tournaments (issue 45.2): the use cases over the aggregate of tournament_model.py. Each one
locks the tournament's row, folds its events, asks the model which events follow, and in the
same unit of work appends them and does what they say: an entry fee or a refund through the
ledger, a round's tables opened (STARTING, launched on the table service after the commit, or by
the timer's next turn), the prizes paid. A table's MatchEnded and SeatLeft reach the tournament
inside the lobby consumer's unit, so a result is recorded once, in the table's order, even
across a lobby's crash (the consumer's applied-version record commits with it)."""

from __future__ import annotations

import re
import secrets
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from okeyplatform.auth import Identity
from okeyplatform.logs import get_logger

from . import tournament_model as tm
from .errors import Exists, Flood, InsufficientChips, Invalid, NotFound, Refused, UniqueTaken
from .ledger_repo import HOUSE, player_account
from .notifications_repo import TABLE_STARTING
from .players import active_player
from .policy import Limits
from .settlement import open_settlement
from .staff import require
from .store import LobbyStore, Unit
from .tables import STARTING, WAITING, Tables
from .tables_repo import TableRow
from .tournaments_repo import tournament_account

__all__ = ["Tournaments", "TournamentView", "CREATOR_PREFIX", "tournament_of_table"]

CREATOR_PREFIX = "tournament:"  # a tournament table's creator_id: the tournament made it
TOURNAMENT_ID = re.compile(r"^[a-z0-9][a-z0-9-]{1,38}[a-z0-9]$")
LIST_MAX = 50
STATES_CACHED = 256
SCHEDULE_AHEAD = timedelta(days=90)  # the furthest a scheduled start may be


def tournament_of_table(creator_id: str) -> str:
    """The tournament that opened a table ('' for a table people opened)."""
    return creator_id[len(CREATOR_PREFIX) :] if creator_id.startswith(CREATOR_PREFIX) else ""


@dataclass(frozen=True)
class TournamentView:
    """A tournament as a caller sees it: the folded state, the names of its players and the
    caller's own part."""

    state: tm.State
    names: dict[str, str]
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    viewer: str

    @property
    def standings(self) -> list[tm.Entry]:
        return tm.standings(self.state)

    @property
    def prizes(self) -> list[int]:
        s = self.state
        pool = s.pool if s.status != tm.REGISTERING else s.spec.entry_fee * len(s.entries)
        return tm.prize_amounts(pool, s.spec.prize_percent)[0]

    @property
    def rounds(self) -> int:
        return tm.planned_rounds(self.state.spec, max(len(self.state.entries), self.state.spec.min_players))


class Tournaments:
    def __init__(self, store: LobbyStore, tables: Tables, clock: Callable[[], datetime], limits: Limits) -> None:
        self.store = store
        self.tables = tables
        self.clock = clock
        self.limits = limits
        self.log = get_logger(component="lobby-tournaments")
        self._states: OrderedDict[str, tm.State] = OrderedDict()  # folded states, by id, for reads

    # ------------------------------------------------------------ reading

    async def _fold(self, uow: Unit, tournament_id: str) -> tm.State:
        events = await uow.tournaments.events(tournament_id)
        if not events:
            raise NotFound("Böyle bir turnuva yok. (No such tournament.)", "TOURNAMENT_NOT_FOUND")
        return tm.fold(tournament_id, events)

    async def _view(self, uow: Unit, state: tm.State, viewer: str) -> TournamentView:
        row = await uow.tournaments.row(state.tournament_id)
        assert row is not None
        ids = [p for p in state.entries]
        names = await uow.tournaments.names(ids) if ids else {}
        return TournamentView(state, names, row.created_at, row.started_at, row.ended_at, viewer)

    async def get(self, who: Identity, tournament_id: str) -> TournamentView:
        async with self.store.unit() as uow:
            row = await uow.tournaments.row(tournament_id)
            if row is None:
                raise NotFound("Böyle bir turnuva yok. (No such tournament.)", "TOURNAMENT_NOT_FOUND")
            cached = self._states.get(tournament_id)
            if cached is not None and cached.version == row.version:
                state = cached
            else:
                state = await self._fold(uow, tournament_id)
                self._states[tournament_id] = state
                self._states.move_to_end(tournament_id)
                while len(self._states) > STATES_CACHED:
                    self._states.popitem(last=False)
            return await self._view(uow, state, who.subject)

    async def list(self, who: Identity, status: str, limit: int) -> list[TournamentView]:
        size = max(1, min(limit or 20, LIST_MAX))
        statuses = (status,) if status else (tm.REGISTERING, tm.RUNNING, tm.FINISHED, tm.CANCELLED)
        async with self.store.unit() as uow:
            rows = await uow.tournaments.listed(statuses, size)
        return [await self.get(who, r.tournament_id) for r in rows]

    # ------------------------------------------------------------ commands

    async def create(self, who: Identity, spec: tm.Spec, tournament_id: str = "") -> TournamentView:
        require(who, "tournaments.manage")
        try:
            spec = spec.validated(self.limits.max_stake)
        except tm.SpecError as exc:
            raise Invalid(str(exc), "INVALID_TOURNAMENT") from None
        if tournament_id and not TOURNAMENT_ID.fullmatch(tournament_id):
            raise Invalid("tournament_id: 3 to 40 of a-z, 0-9 and '-', not at either end", "INVALID_TOURNAMENT")
        tid = tournament_id or "k" + secrets.token_hex(6)
        now = self.clock()
        if spec.starts_at is not None and not now < spec.starts_at <= now + SCHEDULE_AHEAD:
            raise Invalid(f"starts_at must be in the next {SCHEDULE_AHEAD.days} days", "INVALID_TOURNAMENT")
        async with self.store.unit() as uow:
            if not await uow.tournaments.insert(tid, spec.name, tm.created(spec, who.subject), spec.starts_at, now):
                state = await self._fold(uow, tid)
                if state.spec != spec:
                    raise Exists("a tournament with this id and another spec exists", "TOURNAMENT_EXISTS")
            else:
                await uow.staff.audit(
                    who.subject, who.role, "CREATE_TOURNAMENT", tid, spec.name, now, {"spec": spec.to_dict()}
                )
                self.log.info("tournament_created", tournament_id=tid, format=spec.format, size=spec.size)
        return await self.get(who, tid)

    async def register(self, who: Identity, tournament_id: str, entry_fee: int) -> tuple[TournamentView, int]:
        now = self.clock()
        async with self.store.unit() as uow:
            player = await active_player(uow, who, now)
            state = await self._locked(uow, tournament_id)
            if entry_fee != state.spec.entry_fee:
                raise Refused(
                    f"Giriş ücreti {state.spec.entry_fee} jeton. (The entry fee is {state.spec.entry_fee}.)",
                    "FEE_CHANGED",
                )
            events = tm.register(state, who.subject)
            most = self.limits.tournaments_per_player
            if await uow.tournaments.open_entries_of(who.subject) >= most:
                raise Flood(
                    f"En çok {most} turnuvaya birden kayıtlı olabilirsin. (You may be in at most {most} "
                    "tournaments that have not ended.)",
                    "TOO_MANY_TOURNAMENTS",
                )
            try:
                await uow.tournaments.add_player(tournament_id, who.subject, who.device or player.device_id)
            except UniqueTaken:
                raise Refused(
                    "Cihazındaki başka bir hesap bu turnuvaya kayıtlı. (Another account of your device is "
                    "registered in this tournament.)",
                    "SAME_DEVICE",
                ) from None
            await self._commit(uow, state, events, now)
            account = player_account(who.subject)
            balance = (await uow.ledger.balances([account]))[account]
        await self.launch(tournament_id)
        return await self.get(who, tournament_id), balance

    async def unregister(self, who: Identity, tournament_id: str) -> tuple[TournamentView, int]:
        now = self.clock()
        async with self.store.unit() as uow:
            state = await self._locked(uow, tournament_id)
            await self._commit(uow, state, tm.unregister(state, who.subject), now)
            await uow.tournaments.drop_player(tournament_id, who.subject)
            account = player_account(who.subject)
            balance = (await uow.ledger.balances([account]))[account]
        return await self.get(who, tournament_id), balance

    async def cancel(self, who: Identity, tournament_id: str, reason: str) -> TournamentView:
        require(who, "tournaments.manage")
        text = " ".join(reason.split())[:200] or "cancelled by the staff"
        now = self.clock()
        async with self.store.unit() as uow:
            state = await self._locked(uow, tournament_id)
            await self._commit(uow, state, tm.cancel(state, text), now)
            await uow.staff.audit(who.subject, who.role, "CANCEL_TOURNAMENT", tournament_id, text, now)
        self.log.info("tournament_cancelled", tournament_id=tournament_id, reason=text)
        return await self.get(who, tournament_id)

    async def match_ended(
        self, table_id: str, scores: Sequence[int], winners: Sequence[int], within: Unit | None = None
    ) -> bool:
        """A table's MatchEnded, if a tournament seated the table (in the consumer's unit)."""
        async with self.store.unit(within) as uow:
            tid = await self._tournament_of(uow, table_id)
            if not tid:
                return False
            state = await self._locked(uow, tid)
            events = tm.table_finished(state, table_id, scores, winners)
            await self._commit(uow, state, events, self.clock())
        return bool(events)

    async def seat_left(self, table_id: str, player_id: str, within: Unit | None = None) -> bool:
        """A player left a tournament table mid-match: they withdraw."""
        async with self.store.unit(within) as uow:
            tid = await self._tournament_of(uow, table_id)
            if not tid:
                return False
            state = await self._locked(uow, tid)
            events = tm.withdraw(state, player_id, table_id)
            await self._commit(uow, state, events, self.clock())
        return bool(events)

    async def tick(self) -> int:
        """The timer's turn: start (or cancel, short of players) the scheduled tournaments whose
        time has come, and launch the tournament tables still STARTING."""
        now = self.clock()
        async with self.store.unit() as uow:
            due = await uow.tournaments.due(now)
        for tid in due:
            async with self.store.unit() as uow:
                state = await self._locked(uow, tid)
                if state.status == tm.REGISTERING:
                    await self._commit(uow, state, tm.start(state), now)
        return len(due) + await self.launch()

    async def launch(self, tournament_id: str = "") -> int:
        """Open the tournament tables that are STARTING on the table service (those of one
        tournament, or of all); a table the service has already counts as opened."""
        async with self.store.unit() as uow:
            ids = await uow.tournaments.starting_tables(CREATOR_PREFIX + tournament_id if tournament_id else "")
        for table_id in ids:
            await self.tables.launch(table_id)
        return len(ids)

    # ------------------------------------------------------------ the unit's steps

    async def _tournament_of(self, uow: Unit, table_id: str) -> str:
        if "-" not in table_id:  # a table people opened ("t" + hex); tournament tables carry dashes
            return ""
        table = await uow.tables.table(table_id)
        return tournament_of_table(table.creator_id) if table is not None else ""

    async def _locked(self, uow: Unit, tournament_id: str) -> tm.State:
        if await uow.tournaments.row(tournament_id, lock=True) is None:
            raise NotFound("Böyle bir turnuva yok. (No such tournament.)", "TOURNAMENT_NOT_FOUND")
        return await self._fold(uow, tournament_id)

    async def _commit(self, uow: Unit, state: tm.State, events: list[dict[str, Any]], now: datetime) -> tm.State:
        """Append ``events`` and do what each says, in the unit; the state after them."""
        after = tm.applied(state, [])  # one copy, each event applied to it in turn
        for ev in events:
            tm.apply(after, ev)
            await self._effect(uow, after, ev, now)
        await uow.tournaments.append(state.tournament_id, state.version, events, after.status, len(after.entries), now)
        if events:
            self.log.info(
                "tournament_events",
                tournament_id=state.tournament_id,
                kinds=[e["kind"] for e in events],
                version=after.version,
            )
        return after

    async def _effect(self, uow: Unit, state: tm.State, ev: dict[str, Any], now: datetime) -> None:
        tid = state.tournament_id
        pot = tournament_account(tid)
        fee = state.spec.entry_fee
        kind = ev["kind"]
        if kind == "registered" and fee:
            try:
                await uow.ledger.post(
                    f"tfee:{tid}:{ev['seed']}",
                    "tournament_fee",
                    [(player_account(ev["player"]), -fee), (pot, fee)],
                    now,
                    memo={"tournament_id": tid},
                )
            except InsufficientChips:
                raise Refused(
                    f"Giriş ücreti {fee} jeton; o kadar jetonun yok. (The entry fee is {fee} chips.)",
                    "INSUFFICIENT_CHIPS",
                ) from None
        elif kind == "unregistered" and fee:
            await uow.ledger.post(
                f"tunreg:{tid}:{ev['seed']}",
                "tournament_refund",
                [(pot, -fee), (player_account(ev["player"]), fee)],
                now,
                memo={"tournament_id": tid},
            )
        elif kind == "started":
            await uow.tournaments.mark_started(tid, now)
        elif kind == "table_assigned":
            await self._open_table(uow, state, ev, now)
        elif kind == "finished":
            entries = [(player_account(p), chips) for p, chips in ev["prizes"] if chips]
            paid = sum(c for _, c in entries) + ev["house"]
            if paid:
                entries += [(HOUSE, ev["house"]), (pot, -paid)]
                await uow.ledger.post(f"tprize:{tid}", "tournament_prize", entries, now, memo={"tournament_id": tid})
            self.log.info("tournament_finished", tournament_id=tid, prizes=ev["prizes"], house=ev["house"])
        elif kind == "cancelled":
            entries = [(player_account(p), chips) for p, chips in ev["refunds"]]
            held = sum(c for _, c in entries)
            if held:
                entries.append((pot, -held))
                await uow.ledger.post(f"tcancel:{tid}", "tournament_refund", entries, now, memo={"tournament_id": tid})

    async def _open_table(self, uow: Unit, state: tm.State, ev: dict[str, Any], now: datetime) -> None:
        """A round's table: its row and seats (no stake: the entry fee was the stake), its
        settlement record, STARTING for the launch, and each person seated told."""
        spec = state.spec
        table_id = ev["table_id"]
        if await uow.tables.table(table_id) is not None:
            return
        await uow.tables.insert_table(
            TableRow(
                table_id=table_id,
                game=spec.table_options.game.value,
                options=spec.options,
                stake=0,
                private=False,
                invite_code=None,
                creator_id=CREATOR_PREFIX + state.tournament_id,
                status=WAITING,
                created_at=now,
                started_at=None,
                result=None,
            )
        )
        for seat, player in enumerate(ev["seats"]):
            await uow.tables.insert_seat(table_id, seat, player or None, "")
        await open_settlement(uow, table_id, 0, await uow.tables.seats(table_id), now)
        await uow.tables.set_status(table_id, STARTING, now)
        kept_since = now - timedelta(days=self.limits.notification_keep_days)
        for player in ev["seats"]:
            if player:
                await uow.notifications.add(
                    player, TABLE_STARTING, now, self.limits.notification_max, kept_since, table_id=table_id
                )

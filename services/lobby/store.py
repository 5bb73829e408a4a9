"""The lobby's own PostgreSQL tables (prefix ``lobby_``): players, the chips ledger, the tables
directory and seats, chat, mutes and reports. SQL lives here; the rules live in app.py.

Work happens in units (``async with store.unit() as tx``): one transaction on one connection.
Lock order, kept by every unit so no two deadlock: table rows, then quota rows (in the order of
the list given to :meth:`Tx.take_quotas`: a device's before an address's, accounts before chip
grants), then ledger accounts sorted by name (``bank`` < ``house`` < ``player:*`` < ``pot:*``)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import asyncpg
from okeyplatform.eventstore import migrate

__all__ = [
    "LobbyStore",
    "Tx",
    "MIGRATIONS",
    "SCOPE",
    "migrate_schema",
    "PlayerRow",
    "TableRow",
    "SeatRow",
    "MessageRow",
    "ReportRow",
    "EntryRow",
    "InsufficientChips",
    "UniqueTaken",
    "BANK",
    "HOUSE",
    "player_account",
    "pot_account",
]

SCOPE = "lobby"
BANK = "bank"  # where granted chips come from: the only account below zero (-chips in circulation)
HOUSE = "house"  # remainders of uneven splits, and shares won by bots or by players who left


def player_account(player_id: str) -> str:
    return f"player:{player_id}"


def pot_account(table_id: str) -> str:
    return f"pot:{table_id}"


MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
        CREATE TABLE lobby_players (
            player_id    TEXT PRIMARY KEY,
            display_name TEXT NOT NULL,
            name_key     TEXT NOT NULL,
            device_id    TEXT NOT NULL DEFAULT '',
            created_at   TIMESTAMPTZ NOT NULL,
            muted_until  TIMESTAMPTZ,
            banned_until TIMESTAMPTZ,
            warnings     INT NOT NULL DEFAULT 0,
            CONSTRAINT lobby_players_name_key UNIQUE (name_key)
        );
        CREATE INDEX lobby_players_device ON lobby_players (device_id);
        CREATE TABLE lobby_device_bans (
            device_id    TEXT PRIMARY KEY,
            banned_until TIMESTAMPTZ NOT NULL
        );

        CREATE TABLE lobby_accounts (
            account         TEXT PRIMARY KEY,
            balance         BIGINT NOT NULL DEFAULT 0,
            may_go_negative BOOLEAN NOT NULL DEFAULT false,
            CONSTRAINT lobby_accounts_no_overdraft CHECK (may_go_negative OR balance >= 0)
        );
        INSERT INTO lobby_accounts (account, may_go_negative) VALUES ('bank', true), ('house', false);
        CREATE TABLE lobby_transactions (
            txn_key    TEXT PRIMARY KEY,
            kind       TEXT NOT NULL,
            table_id   TEXT NOT NULL DEFAULT '',
            memo       JSONB NOT NULL DEFAULT '{}',
            created_at TIMESTAMPTZ NOT NULL
        );
        CREATE TABLE lobby_entries (
            entry_id      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            txn_key       TEXT NOT NULL REFERENCES lobby_transactions (txn_key),
            account       TEXT NOT NULL REFERENCES lobby_accounts (account),
            amount        BIGINT NOT NULL,
            balance_after BIGINT NOT NULL
        );
        CREATE INDEX lobby_entries_account ON lobby_entries (account, entry_id);

        CREATE TABLE lobby_tables (
            table_id    TEXT PRIMARY KEY,
            game        TEXT NOT NULL,
            options     JSONB NOT NULL,
            stake       BIGINT NOT NULL,
            private     BOOLEAN NOT NULL,
            invite_code TEXT UNIQUE,
            creator_id  TEXT NOT NULL,
            status      TEXT NOT NULL,
            created_at  TIMESTAMPTZ NOT NULL,
            started_at  TIMESTAMPTZ,
            ended_at    TIMESTAMPTZ,
            result      JSONB
        );
        CREATE INDEX lobby_tables_open ON lobby_tables (status, private, game, created_at);
        CREATE TABLE lobby_seats (
            table_id   TEXT NOT NULL REFERENCES lobby_tables (table_id),
            seat       INT NOT NULL,
            player_id  TEXT REFERENCES lobby_players (player_id),
            device_id  TEXT NOT NULL DEFAULT '',
            stake_held BIGINT NOT NULL DEFAULT 0,
            left_at    TIMESTAMPTZ,
            PRIMARY KEY (table_id, seat)
        );
        -- [fair play] one seat per player and per device at a table
        CREATE UNIQUE INDEX lobby_seats_one_per_player ON lobby_seats (table_id, player_id)
            WHERE player_id IS NOT NULL;
        CREATE UNIQUE INDEX lobby_seats_one_per_device ON lobby_seats (table_id, device_id)
            WHERE device_id <> '';
        CREATE INDEX lobby_seats_player ON lobby_seats (player_id);

        CREATE TABLE lobby_messages (
            message_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            channel    TEXT NOT NULL,
            player_id  TEXT NOT NULL REFERENCES lobby_players (player_id),
            text       TEXT NOT NULL,
            text_key   TEXT NOT NULL,
            sent_at    TIMESTAMPTZ NOT NULL
        );
        CREATE INDEX lobby_messages_channel ON lobby_messages (channel, message_id);
        CREATE INDEX lobby_messages_player ON lobby_messages (player_id, sent_at);
        CREATE TABLE lobby_mutes (
            player_id  TEXT NOT NULL REFERENCES lobby_players (player_id),
            muted_id   TEXT NOT NULL REFERENCES lobby_players (player_id),
            created_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (player_id, muted_id)
        );
        CREATE TABLE lobby_reports (
            report_id        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            reporter_id      TEXT NOT NULL REFERENCES lobby_players (player_id),
            player_id        TEXT NOT NULL REFERENCES lobby_players (player_id),
            reason           TEXT NOT NULL,
            details          TEXT NOT NULL DEFAULT '',
            message_ids      BIGINT[] NOT NULL DEFAULT '{}',
            table_id         TEXT NOT NULL DEFAULT '',
            status           TEXT NOT NULL DEFAULT 'OPEN',
            created_at       TIMESTAMPTZ NOT NULL,
            action           TEXT NOT NULL DEFAULT '',
            duration_minutes INT NOT NULL DEFAULT 0,
            note             TEXT NOT NULL DEFAULT '',
            resolved_by      TEXT NOT NULL DEFAULT '',
            resolved_at      TIMESTAMPTZ
        );
        CREATE INDEX lobby_reports_status ON lobby_reports (status, report_id);
        CREATE INDEX lobby_reports_player ON lobby_reports (player_id);
        """,
    ),
    (
        2,
        # The open tables a player opened (the cap on tables per player).
        """CREATE INDEX lobby_tables_creator_open ON lobby_tables (creator_id)
           WHERE status IN ('WAITING', 'STARTING', 'PLAYING');""",
    ),
    (
        3,
        # Daily quotas per device id and per client address (issue 15.7): new guest accounts and
        # daily chip grants. One row per (kind, holder, Turkish day); rows of past days are pruned.
        """
        CREATE TABLE lobby_quotas (
            kind   TEXT NOT NULL,
            holder TEXT NOT NULL,
            day    DATE NOT NULL,
            used   INT NOT NULL,
            PRIMARY KEY (kind, holder, day)
        );
        CREATE INDEX lobby_quotas_day ON lobby_quotas (day);
        """,
    ),
    (
        4,
        # Token revocations (issue 15.11): every token of the player issued before not_before is
        # refused, by every service; kept until the longest-lived such token has expired.
        """
        CREATE TABLE lobby_revocations (
            player_id  TEXT PRIMARY KEY,
            not_before TIMESTAMPTZ NOT NULL,
            expires_at TIMESTAMPTZ NOT NULL
        );
        CREATE INDEX lobby_revocations_expires ON lobby_revocations (expires_at);
        """,
    ),
]


class InsufficientChips(Exception):
    """A posting would take an account below zero; nothing was written."""

    def __init__(self, account: str, balance: int, needed: int) -> None:
        super().__init__(f"{account} has {balance} chips, needs {needed}")
        self.account = account
        self.balance = balance
        self.needed = needed


class UniqueTaken(Exception):
    """A unique constraint refused a row; ``constraint`` names which."""

    def __init__(self, constraint: str) -> None:
        super().__init__(constraint)
        self.constraint = constraint


@dataclass(frozen=True, slots=True)
class PlayerRow:
    player_id: str
    display_name: str
    device_id: str
    created_at: datetime
    muted_until: datetime | None
    banned_until: datetime | None
    warnings: int


@dataclass(frozen=True, slots=True)
class TableRow:
    table_id: str
    game: str
    options: dict[str, Any]
    stake: int
    private: bool
    invite_code: str | None
    creator_id: str
    status: str
    created_at: datetime
    started_at: datetime | None
    result: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    player_id: str | None  # None: a bot
    display_name: str
    device_id: str
    stake_held: int
    left: bool

    @property
    def bot(self) -> bool:
        return self.player_id is None


@dataclass(frozen=True, slots=True)
class MessageRow:
    message_id: int
    channel: str
    player_id: str
    display_name: str
    text: str
    sent_at: datetime


@dataclass(frozen=True, slots=True)
class ReportRow:
    report_id: int
    reporter_id: str
    reporter_name: str
    player_id: str
    player_name: str
    reason: str
    details: str
    message_ids: tuple[int, ...]
    table_id: str
    status: str
    created_at: datetime
    action: str
    duration_minutes: int
    note: str
    resolved_by: str
    resolved_at: datetime | None


@dataclass(frozen=True, slots=True)
class EntryRow:
    kind: str
    amount: int
    balance_after: int
    table_id: str
    time: datetime


def _player(r: asyncpg.Record) -> PlayerRow:
    return PlayerRow(
        r["player_id"],
        r["display_name"],
        r["device_id"],
        r["created_at"],
        r["muted_until"],
        r["banned_until"],
        r["warnings"],
    )


def _table(r: asyncpg.Record) -> TableRow:
    return TableRow(
        r["table_id"],
        r["game"],
        json.loads(r["options"]),
        r["stake"],
        r["private"],
        r["invite_code"],
        r["creator_id"],
        r["status"],
        r["created_at"],
        r["started_at"],
        json.loads(r["result"]) if r["result"] else None,
    )


def _message(r: asyncpg.Record) -> MessageRow:
    return MessageRow(r["message_id"], r["channel"], r["player_id"], r["display_name"], r["text"], r["sent_at"])


def _report(r: asyncpg.Record) -> ReportRow:
    return ReportRow(
        r["report_id"],
        r["reporter_id"],
        r["reporter_name"],
        r["player_id"],
        r["player_name"],
        r["reason"],
        r["details"],
        tuple(r["message_ids"]),
        r["table_id"],
        r["status"],
        r["created_at"],
        r["action"],
        r["duration_minutes"],
        r["note"],
        r["resolved_by"],
        r["resolved_at"],
    )


_TABLE_COLS = (
    "table_id, game, options::text AS options, stake, private, invite_code, creator_id, status, "
    "created_at, started_at, result::text AS result"
)
_REPORT_SELECT = """
    SELECT r.*, a.display_name AS reporter_name, b.display_name AS player_name
    FROM lobby_reports r
    JOIN lobby_players a ON a.player_id = r.reporter_id
    JOIN lobby_players b ON b.player_id = r.player_id
"""
_MESSAGE_SELECT = """
    SELECT m.message_id, m.channel, m.player_id, p.display_name, m.text, m.sent_at
    FROM lobby_messages m JOIN lobby_players p ON p.player_id = m.player_id
"""


class Tx:
    """One unit of work: every method runs on the unit's connection, inside its transaction."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn

    # ------------------------------------------------------------ players

    async def insert_player(self, row: PlayerRow, name_key: str) -> None:
        try:
            async with self.conn.transaction():  # a savepoint: the unit survives a taken name
                await self.conn.execute(
                    "INSERT INTO lobby_players (player_id, display_name, name_key, device_id, created_at) "
                    "VALUES ($1, $2, $3, $4, $5)",
                    row.player_id,
                    row.display_name,
                    name_key,
                    row.device_id,
                    row.created_at,
                )
        except asyncpg.UniqueViolationError as exc:
            raise UniqueTaken(exc.constraint_name or "") from None
        await self.conn.execute(
            "INSERT INTO lobby_accounts (account) VALUES ($1) ON CONFLICT DO NOTHING", player_account(row.player_id)
        )

    async def player(self, player_id: str, lock: bool = False) -> PlayerRow | None:
        sql = "SELECT * FROM lobby_players WHERE player_id = $1" + (" FOR UPDATE" if lock else "")
        r = await self.conn.fetchrow(sql, player_id)
        return _player(r) if r else None

    async def device_banned_until(self, device_id: str) -> datetime | None:
        if not device_id:
            return None
        value: datetime | None = await self.conn.fetchval(
            "SELECT banned_until FROM lobby_device_bans WHERE device_id = $1", device_id
        )
        return value

    async def revoke(self, player_id: str, not_before: datetime, expires_at: datetime) -> None:
        """Refuse the player's tokens issued before ``not_before`` (until ``expires_at``)."""
        await self.conn.execute(
            "INSERT INTO lobby_revocations (player_id, not_before, expires_at) VALUES ($1, $2, $3) "
            "ON CONFLICT (player_id) DO UPDATE SET not_before = GREATEST(lobby_revocations.not_before, "
            "EXCLUDED.not_before), expires_at = GREATEST(lobby_revocations.expires_at, EXCLUDED.expires_at)",
            player_id,
            not_before,
            expires_at,
        )

    async def revocations(self, now: datetime) -> list[tuple[str, datetime]]:
        """Every revocation still in force (a token it refuses may not have expired yet)."""
        await self.conn.execute("DELETE FROM lobby_revocations WHERE expires_at <= $1", now)
        rows = await self.conn.fetch("SELECT player_id, not_before FROM lobby_revocations WHERE expires_at > $1", now)
        return [(r["player_id"], r["not_before"]) for r in rows]

    async def sanction(
        self,
        player_id: str,
        muted_until: datetime | None = None,
        banned_until: datetime | None = None,
        warn: bool = False,
    ) -> None:
        await self.conn.execute(
            "UPDATE lobby_players SET muted_until = COALESCE($2, muted_until), "
            "banned_until = COALESCE($3, banned_until), warnings = warnings + $4 WHERE player_id = $1",
            player_id,
            muted_until,
            banned_until,
            1 if warn else 0,
        )

    async def ban_device(self, device_id: str, until: datetime) -> None:
        await self.conn.execute(
            "INSERT INTO lobby_device_bans (device_id, banned_until) VALUES ($1, $2) "
            "ON CONFLICT (device_id) DO UPDATE SET banned_until = GREATEST(lobby_device_bans.banned_until, $2)",
            device_id,
            until,
        )

    # ------------------------------------------------------------ daily quotas

    async def take_quotas(self, day: date, quotas: Sequence[tuple[str, str, int]]) -> tuple[str, int] | None:
        """One more use of each ``(kind, holder, limit)`` on ``day``, all or none: None when each
        had room, else the ``(kind, limit)`` that had none (the uses already taken are given back).
        Each row stays locked to the end of the unit, so concurrent takers queue on it."""
        taken: list[tuple[str, str]] = []
        for kind, holder, limit in quotas:
            used = await self.conn.fetchval(
                "INSERT INTO lobby_quotas AS q (kind, holder, day, used) VALUES ($1, $2, $3, 1) "
                "ON CONFLICT (kind, holder, day) DO UPDATE SET used = q.used + 1 WHERE q.used < $4 "
                "RETURNING used",
                kind,
                holder,
                day,
                limit,
            )
            if used is None or used > limit:
                if used is not None:
                    taken.append((kind, holder))
                await self.give_back_quotas(day, taken)
                return kind, limit
            taken.append((kind, holder))
        return None

    async def give_back_quotas(self, day: date, quotas: Sequence[tuple[str, str]]) -> None:
        for kind, holder in quotas:
            await self.conn.execute(
                "UPDATE lobby_quotas SET used = used - 1 WHERE kind = $1 AND holder = $2 AND day = $3",
                kind,
                holder,
                day,
            )

    async def quota_used(self, kind: str, holder: str, day: date) -> int:
        used = await self.conn.fetchval(
            "SELECT used FROM lobby_quotas WHERE kind = $1 AND holder = $2 AND day = $3", kind, holder, day
        )
        return int(used or 0)

    async def forget_quotas(self, before: date) -> int:
        """Drop the quota rows of days before ``before`` (they hold device ids and addresses)."""
        done = await self.conn.execute("DELETE FROM lobby_quotas WHERE day < $1", before)
        return int(done.split()[-1])

    # ------------------------------------------------------------ the ledger

    async def post(
        self,
        key: str,
        kind: str,
        entries: Sequence[tuple[str, int]],
        now: datetime,
        table_id: str = "",
        memo: dict[str, Any] | None = None,
    ) -> bool:
        """One double-entry transaction: the amounts sum to zero, no account but the bank goes
        below zero. ``key`` makes it idempotent: a key already posted posts nothing (False)."""
        merged: dict[str, int] = {}
        for account, amount in entries:
            merged[account] = merged.get(account, 0) + amount
        if sum(merged.values()) != 0:
            raise ValueError(f"transaction {key} does not balance: {merged}")
        inserted = await self.conn.fetchval(
            "INSERT INTO lobby_transactions (txn_key, kind, table_id, memo, created_at) "
            "VALUES ($1, $2, $3, $4::jsonb, $5) ON CONFLICT (txn_key) DO NOTHING RETURNING 1",
            key,
            kind,
            table_id,
            json.dumps(memo or {}),
            now,
        )
        if not inserted:
            return False
        accounts = sorted(a for a, v in merged.items() if v)
        if not accounts:
            return True
        await self.conn.execute(
            "INSERT INTO lobby_accounts (account) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING", accounts
        )
        rows = await self.conn.fetch(
            "SELECT account, balance, may_go_negative FROM lobby_accounts WHERE account = ANY($1::text[]) "
            "ORDER BY account FOR UPDATE",
            accounts,
        )
        after: list[int] = []
        for r in rows:
            new = r["balance"] + merged[r["account"]]
            if new < 0 and not r["may_go_negative"]:
                raise InsufficientChips(r["account"], r["balance"], -merged[r["account"]])
            after.append(new)
        names = [r["account"] for r in rows]
        await self.conn.execute(
            "UPDATE lobby_accounts a SET balance = d.balance "
            "FROM unnest($1::text[], $2::bigint[]) AS d(account, balance) WHERE a.account = d.account",
            names,
            after,
        )
        await self.conn.execute(
            "INSERT INTO lobby_entries (txn_key, account, amount, balance_after) "
            "SELECT $1, d.account, d.amount, d.balance FROM unnest($2::text[], $3::bigint[], $4::bigint[]) "
            "AS d(account, amount, balance)",
            key,
            names,
            [merged[n] for n in names],
            after,
        )
        return True

    async def balances(self, accounts: Sequence[str], lock: bool = False) -> dict[str, int]:
        sql = "SELECT account, balance FROM lobby_accounts WHERE account = ANY($1::text[]) ORDER BY account"
        rows = await self.conn.fetch(sql + (" FOR UPDATE" if lock else ""), sorted(accounts))
        found = {r["account"]: r["balance"] for r in rows}
        return {a: found.get(a, 0) for a in accounts}

    async def posted(self, key: str) -> bool:
        return bool(await self.conn.fetchval("SELECT 1 FROM lobby_transactions WHERE txn_key = $1", key))

    async def entries(self, account: str, limit: int) -> list[EntryRow]:
        rows = await self.conn.fetch(
            "SELECT t.kind, e.amount, e.balance_after, t.table_id, t.created_at FROM lobby_entries e "
            "JOIN lobby_transactions t ON t.txn_key = e.txn_key WHERE e.account = $1 "
            "ORDER BY e.entry_id DESC LIMIT $2",
            account,
            limit,
        )
        return [EntryRow(r["kind"], r["amount"], r["balance_after"], r["table_id"], r["created_at"]) for r in rows]

    # ------------------------------------------------------------ tables and seats

    async def insert_table(self, row: TableRow) -> None:
        await self.conn.execute(
            "INSERT INTO lobby_tables (table_id, game, options, stake, private, invite_code, creator_id, status, "
            "created_at) VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8, $9)",
            row.table_id,
            row.game,
            json.dumps(row.options),
            row.stake,
            row.private,
            row.invite_code,
            row.creator_id,
            row.status,
            row.created_at,
        )

    async def table(self, table_id: str, lock: bool = False) -> TableRow | None:
        sql = f"SELECT {_TABLE_COLS} FROM lobby_tables WHERE table_id = $1" + (" FOR UPDATE" if lock else "")
        r = await self.conn.fetchrow(sql, table_id)
        return _table(r) if r else None

    async def table_by_invite(self, code: str) -> TableRow | None:
        r = await self.conn.fetchrow(f"SELECT {_TABLE_COLS} FROM lobby_tables WHERE invite_code = $1", code)
        return _table(r) if r else None

    async def open_tables_of(self, creator_id: str) -> int:
        """Tables ``creator_id`` opened that are waiting, starting or being played."""
        return int(
            await self.conn.fetchval(
                "SELECT count(*) FROM lobby_tables WHERE creator_id = $1 "
                "AND status IN ('WAITING', 'STARTING', 'PLAYING')",
                creator_id,
            )
        )

    async def tables(
        self,
        statuses: Sequence[str],
        game: str | None,
        limit: int,
        offset: int = 0,
        public_only: bool = True,
        options: dict[str, Any] | None = None,
    ) -> list[TableRow]:
        rows = await self.conn.fetch(
            f"SELECT {_TABLE_COLS} FROM lobby_tables WHERE status = ANY($1::text[]) "
            "AND ($2::text IS NULL OR game = $2) AND (NOT $3 OR NOT private) "
            "AND ($4::jsonb IS NULL OR options = $4::jsonb) "
            "ORDER BY created_at, table_id LIMIT $5 OFFSET $6",
            list(statuses),
            game,
            public_only,
            json.dumps(options) if options is not None else None,
            limit,
            offset,
        )
        return [_table(r) for r in rows]

    async def set_status(self, table_id: str, status: str, now: datetime, result: dict[str, Any] | None = None) -> None:
        await self.conn.execute(
            "UPDATE lobby_tables SET status = $2, "
            "started_at = CASE WHEN $2 = 'STARTING' THEN $3 ELSE started_at END, "
            "ended_at = CASE WHEN $2 IN ('FINISHED', 'CANCELLED') THEN $3 ELSE ended_at END, "
            "result = COALESCE($4::jsonb, result) WHERE table_id = $1",
            table_id,
            status,
            now,
            json.dumps(result) if result is not None else None,
        )

    async def set_creator(self, table_id: str, creator_id: str) -> None:
        await self.conn.execute("UPDATE lobby_tables SET creator_id = $2 WHERE table_id = $1", table_id, creator_id)

    async def seats(self, table_id: str) -> list[SeatRow]:
        rows = await self.conn.fetch(
            "SELECT s.seat, s.player_id, COALESCE(p.display_name, '') AS display_name, s.device_id, s.stake_held, "
            "s.left_at IS NOT NULL AS left FROM lobby_seats s LEFT JOIN lobby_players p ON p.player_id = s.player_id "
            "WHERE s.table_id = $1 ORDER BY s.seat",
            table_id,
        )
        return [
            SeatRow(r["seat"], r["player_id"], r["display_name"], r["device_id"], r["stake_held"], r["left"])
            for r in rows
        ]

    async def seats_of_tables(self, table_ids: Sequence[str]) -> dict[str, list[SeatRow]]:
        rows = await self.conn.fetch(
            "SELECT s.table_id, s.seat, s.player_id, COALESCE(p.display_name, '') AS display_name, s.device_id, "
            "s.stake_held, s.left_at IS NOT NULL AS left FROM lobby_seats s "
            "LEFT JOIN lobby_players p ON p.player_id = s.player_id WHERE s.table_id = ANY($1::text[]) "
            "ORDER BY s.table_id, s.seat",
            list(table_ids),
        )
        out: dict[str, list[SeatRow]] = {t: [] for t in table_ids}
        for r in rows:
            out[r["table_id"]].append(
                SeatRow(r["seat"], r["player_id"], r["display_name"], r["device_id"], r["stake_held"], r["left"])
            )
        return out

    async def insert_seat(self, table_id: str, seat: int, player_id: str | None, device_id: str = "") -> None:
        try:
            async with self.conn.transaction():
                await self.conn.execute(
                    "INSERT INTO lobby_seats (table_id, seat, player_id, device_id) VALUES ($1, $2, $3, $4)",
                    table_id,
                    seat,
                    player_id,
                    device_id,
                )
        except asyncpg.UniqueViolationError as exc:
            raise UniqueTaken(exc.constraint_name or "") from None

    async def delete_seats(self, table_id: str, player_ids: Sequence[str]) -> None:
        await self.conn.execute(
            "DELETE FROM lobby_seats WHERE table_id = $1 AND player_id = ANY($2::text[])", table_id, list(player_ids)
        )

    async def hold_stakes(self, table_id: str, stake: int) -> None:
        await self.conn.execute(
            "UPDATE lobby_seats SET stake_held = $2 WHERE table_id = $1 AND player_id IS NOT NULL", table_id, stake
        )

    async def mark_left(self, table_id: str, player_id: str, now: datetime) -> None:
        await self.conn.execute(
            "UPDATE lobby_seats SET left_at = $3 WHERE table_id = $1 AND player_id = $2", table_id, player_id, now
        )

    async def waiting_tables_of(self, player_id: str) -> list[str]:
        rows = await self.conn.fetch(
            "SELECT t.table_id FROM lobby_seats s JOIN lobby_tables t ON t.table_id = s.table_id "
            "WHERE s.player_id = $1 AND t.status = 'WAITING' ORDER BY t.table_id",
            player_id,
        )
        return [r["table_id"] for r in rows]

    # ------------------------------------------------------------ chat

    async def insert_message(self, channel: str, player_id: str, text: str, text_key: str, now: datetime) -> MessageRow:
        r = await self.conn.fetchrow(
            "WITH m AS (INSERT INTO lobby_messages (channel, player_id, text, text_key, sent_at) "
            "VALUES ($1, $2, $3, $4, $5) RETURNING *) "
            "SELECT m.message_id, m.channel, m.player_id, p.display_name, m.text, m.sent_at "
            "FROM m JOIN lobby_players p ON p.player_id = m.player_id",
            channel,
            player_id,
            text,
            text_key,
            now,
        )
        return _message(r)

    async def recent_messages(self, player_id: str, since: datetime) -> list[tuple[str, datetime]]:
        rows = await self.conn.fetch(
            "SELECT text_key, sent_at FROM lobby_messages WHERE player_id = $1 AND sent_at > $2 ORDER BY sent_at",
            player_id,
            since,
        )
        return [(r["text_key"], r["sent_at"]) for r in rows]

    async def messages(self, channel: str, after_id: int, limit: int, viewer: str) -> list[MessageRow]:
        rows = await self.conn.fetch(
            _MESSAGE_SELECT + "WHERE m.channel = $1 AND m.message_id > $2 AND NOT EXISTS ("
            "SELECT 1 FROM lobby_mutes u WHERE u.player_id = $4 AND u.muted_id = m.player_id) "
            "ORDER BY m.message_id LIMIT $3",
            channel,
            after_id,
            limit,
            viewer,
        )
        return [_message(r) for r in rows]

    async def messages_by_id(self, ids: Sequence[int]) -> list[MessageRow]:
        rows = await self.conn.fetch(_MESSAGE_SELECT + "WHERE m.message_id = ANY($1::bigint[])", list(ids))
        return [_message(r) for r in rows]

    async def messages_around(self, channel: str, message_id: int, span: int) -> list[MessageRow]:
        rows = await self.conn.fetch(
            "(" + _MESSAGE_SELECT + "WHERE m.channel = $1 AND m.message_id <= $2 ORDER BY m.message_id DESC "
            "LIMIT $3) UNION (" + _MESSAGE_SELECT + "WHERE m.channel = $1 AND m.message_id > $2 "
            "ORDER BY m.message_id LIMIT $3) ORDER BY message_id",
            channel,
            message_id,
            span,
        )
        return [_message(r) for r in rows]

    async def latest_messages_of(self, player_id: str, limit: int) -> list[MessageRow]:
        rows = await self.conn.fetch(
            "SELECT * FROM (" + _MESSAGE_SELECT + "WHERE m.player_id = $1 ORDER BY m.message_id DESC LIMIT $2) x "
            "ORDER BY message_id",
            player_id,
            limit,
        )
        return [_message(r) for r in rows]

    async def mute(self, player_id: str, muted_id: str, now: datetime) -> None:
        await self.conn.execute(
            "INSERT INTO lobby_mutes (player_id, muted_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            player_id,
            muted_id,
            now,
        )

    async def unmute(self, player_id: str, muted_id: str) -> None:
        await self.conn.execute("DELETE FROM lobby_mutes WHERE player_id = $1 AND muted_id = $2", player_id, muted_id)

    # ------------------------------------------------------------ reports

    async def insert_report(
        self,
        reporter_id: str,
        player_id: str,
        reason: str,
        details: str,
        message_ids: Sequence[int],
        table_id: str,
        now: datetime,
    ) -> int:
        report_id: int = await self.conn.fetchval(
            "INSERT INTO lobby_reports (reporter_id, player_id, reason, details, message_ids, table_id, created_at) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING report_id",
            reporter_id,
            player_id,
            reason,
            details,
            list(message_ids),
            table_id,
            now,
        )
        return report_id

    async def open_report_exists(self, reporter_id: str, player_id: str) -> bool:
        return bool(
            await self.conn.fetchval(
                "SELECT 1 FROM lobby_reports WHERE reporter_id = $1 AND player_id = $2 AND status = 'OPEN'",
                reporter_id,
                player_id,
            )
        )

    async def report(self, report_id: int, lock: bool = False) -> ReportRow | None:
        if lock:
            await self.conn.execute("SELECT 1 FROM lobby_reports WHERE report_id = $1 FOR UPDATE", report_id)
        r = await self.conn.fetchrow(_REPORT_SELECT + "WHERE r.report_id = $1", report_id)
        return _report(r) if r else None

    async def reports(self, include_resolved: bool, limit: int) -> list[ReportRow]:
        rows = await self.conn.fetch(
            _REPORT_SELECT + "WHERE $1 OR r.status = 'OPEN' ORDER BY (r.status = 'OPEN') DESC, r.report_id LIMIT $2",
            include_resolved,
            limit,
        )
        return [_report(r) for r in rows]

    async def earlier_reports(self, player_id: str, before_id: int) -> int:
        n: int = await self.conn.fetchval(
            "SELECT count(*) FROM lobby_reports WHERE player_id = $1 AND report_id < $2", player_id, before_id
        )
        return n

    async def resolve_report(
        self, report_id: int, action: str, minutes: int, note: str, admin_id: str, now: datetime
    ) -> None:
        await self.conn.execute(
            "UPDATE lobby_reports SET status = 'RESOLVED', action = $2, duration_minutes = $3, note = $4, "
            "resolved_by = $5, resolved_at = $6 WHERE report_id = $1",
            report_id,
            action,
            minutes,
            note,
            admin_id,
            now,
        )


async def migrate_schema(conn: asyncpg.Connection) -> str:
    """The lobby tables' migrations (``okey migrate``; the service also applies them at start)."""
    applied = await migrate(conn, MIGRATIONS, scope=SCOPE)
    return f"{len(applied)} applied"


async def _no_reset(_conn: asyncpg.Connection) -> None:
    return None


class LobbyStore:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @classmethod
    async def connect(cls, dsn: str, min_size: int = 2, max_size: int = 10) -> LobbyStore:
        pool = await asyncpg.create_pool(dsn, min_size=min_size, max_size=max_size, reset=_no_reset)
        assert pool is not None
        async with pool.acquire() as conn:
            await migrate_schema(conn)
        return cls(pool)

    async def close(self) -> None:
        await self.pool.close()

    @asynccontextmanager
    async def unit(self) -> AsyncIterator[Tx]:
        async with self.pool.acquire() as conn, conn.transaction():
            yield Tx(conn)

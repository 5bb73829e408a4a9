"""The chips ledger (``lobby_accounts``, ``lobby_transactions``, ``lobby_entries``): double entry,
one idempotent posting per key, no account but the bank below zero.

Accounts are locked sorted by name (``bank`` < ``house`` < ``player:*`` < ``pot:*``), after the
table rows and quota rows a unit locks (see store.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .errors import InsufficientChips
from .repository import Repository

__all__ = ["LedgerRepo", "EntryRow", "SettlementRow", "BANK", "HOUSE", "player_account", "pot_account"]

SCOPE = "lobby"
BANK = "bank"  # where granted chips come from: the only account below zero (-chips in circulation)
HOUSE = "house"  # remainders of uneven splits, and shares won by bots or by players who left


def player_account(player_id: str) -> str:
    return f"player:{player_id}"


def pot_account(table_id: str) -> str:
    return f"pot:{table_id}"


@dataclass(frozen=True, slots=True)
class EntryRow:
    kind: str
    amount: int
    balance_after: int
    table_id: str
    time: datetime


@dataclass(frozen=True, slots=True)
class SettlementRow:
    """A match's settlement record (``lobby_settlements``, one per table): ``record`` is the
    JSON ledger.py writes (each seat's pay-in, hand prizes, payout, refund and why)."""

    table_id: str
    status: str
    record: dict[str, Any]
    updated_at: datetime


class LedgerRepo(Repository):
    async def open_account(self, account: str) -> None:
        await self.conn.execute("INSERT INTO lobby_accounts (account) VALUES ($1) ON CONFLICT DO NOTHING", account)

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

    async def settlement(self, table_id: str) -> SettlementRow | None:
        r = await self.conn.fetchrow(
            "SELECT table_id, status, record::text AS record, updated_at FROM lobby_settlements WHERE table_id = $1",
            table_id,
        )
        return SettlementRow(r["table_id"], r["status"], json.loads(r["record"]), r["updated_at"]) if r else None

    async def put_settlement(self, table_id: str, status: str, record: dict[str, Any], now: datetime) -> None:
        """Write the match's record (the caller holds the table's row lock, as every posting of
        the match does, so no two writers race)."""
        await self.conn.execute(
            "INSERT INTO lobby_settlements (table_id, status, record, created_at, updated_at) "
            "VALUES ($1, $2, $3::jsonb, $4, $4) ON CONFLICT (table_id) DO UPDATE "
            "SET status = EXCLUDED.status, record = EXCLUDED.record, updated_at = EXCLUDED.updated_at",
            table_id,
            status,
            json.dumps(record),
            now,
        )

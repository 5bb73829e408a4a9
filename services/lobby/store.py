"""The lobby's PostgreSQL schema (tables prefixed ``lobby_``, migrated with ``okey migrate`` or at
the service's start) and its unit of work. Each subdomain keeps its SQL in its own repository
(players_repo, ledger_repo, tables_repo, chat_repo, reports_repo, staff_repo, friends_repo,
notifications_repo, tournaments_repo); a ``Unit`` is one transaction
on one connection that gives every repository that same connection, so a use case that touches
several subdomains (a ban frees seats, a match start holds stakes) commits or fails as one.

Lock order, kept by every unit so no two deadlock: quick play's advisory lock (taken before any
unit, by ``LobbyStore.serialized``), a pair of players' advisory lock (friends: the first thing
a unit that takes it does), table rows, then tournament rows, then quota rows (in the order of
the list given to :meth:`PlayersRepo.take_quotas`: a device's before an address's, accounts
before chip grants), then ledger accounts sorted by name (``bank`` < ``house`` < ``player:*`` <
``pot:*`` < ``tournament:*``)."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import asyncpg
from okeyplatform.consumer import migrate_consumer_versions
from okeyplatform.eventstore import migrate, open_pool

from .chat_repo import ChatRepo
from .erasure_repo import ErasureRepo
from .friends_repo import FriendsRepo
from .ledger_repo import LedgerRepo
from .logins_repo import LoginsRepo
from .notifications_repo import NotificationsRepo
from .players_repo import PlayersRepo
from .reports_repo import ReportsRepo
from .staff_repo import StaffRepo
from .tables_repo import TablesRepo
from .tournaments_repo import TournamentsRepo

__all__ = ["LobbyStore", "Unit", "MIGRATIONS", "SCOPE", "migrate_schema"]

SCOPE = "lobby"

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
    (
        5,
        # Device credentials (issue 19.1): the random secret a client keeps signs it in to the
        # same account again. Only its SHA-256 is stored (the secret is 256 random bits, so a
        # slow password hash would add nothing); a stolen table of hashes signs nobody in.
        """
        CREATE TABLE lobby_device_credentials (
            secret_hash  BYTEA PRIMARY KEY,
            player_id    TEXT NOT NULL REFERENCES lobby_players (player_id) ON DELETE CASCADE,
            created_at   TIMESTAMPTZ NOT NULL,
            last_used_at TIMESTAMPTZ NOT NULL
        );
        CREATE INDEX lobby_device_credentials_player ON lobby_device_credentials (player_id);
        """,
    ),
    (
        6,
        # Sessions (issue 19.2): each sign-in starts a family of refresh tokens; a refresh uses
        # one (used_at) and adds the next. Only the tokens' SHA-256 is stored. A token used a
        # second time is a stolen copy: its whole family is revoked.
        """
        CREATE TABLE lobby_sessions (
            token_hash BYTEA PRIMARY KEY,
            family_id  TEXT NOT NULL,
            player_id  TEXT NOT NULL REFERENCES lobby_players (player_id) ON DELETE CASCADE,
            issued_at  TIMESTAMPTZ NOT NULL,
            expires_at TIMESTAMPTZ NOT NULL,
            used_at    TIMESTAMPTZ,
            revoked_at TIMESTAMPTZ
        );
        CREATE INDEX lobby_sessions_family ON lobby_sessions (family_id);
        CREATE INDEX lobby_sessions_player ON lobby_sessions (player_id);
        CREATE INDEX lobby_sessions_expires ON lobby_sessions (expires_at);
        """,
    ),
    (
        7,
        # Linked logins (issue 19.3): an e-mail and an argon2id password hash per account, with
        # the failures that lock it for a while; one-time link codes (hashed) that open the
        # account on another device; a public id per device credential (list, unlink) that each
        # session keeps, so unlinking a device ends that device's sessions.
        """
        CREATE TABLE lobby_logins (
            player_id     TEXT PRIMARY KEY REFERENCES lobby_players (player_id) ON DELETE CASCADE,
            email_key     TEXT NOT NULL UNIQUE,
            email         TEXT NOT NULL,
            password_hash TEXT NOT NULL,
            failures      INT NOT NULL DEFAULT 0,
            locked_until  TIMESTAMPTZ,
            linked_at     TIMESTAMPTZ NOT NULL
        );
        CREATE TABLE lobby_link_codes (
            code_hash  BYTEA PRIMARY KEY,
            player_id  TEXT NOT NULL REFERENCES lobby_players (player_id) ON DELETE CASCADE,
            created_at TIMESTAMPTZ NOT NULL,
            expires_at TIMESTAMPTZ NOT NULL
        );
        CREATE INDEX lobby_link_codes_player ON lobby_link_codes (player_id);
        ALTER TABLE lobby_device_credentials ADD COLUMN device_ref TEXT;
        UPDATE lobby_device_credentials SET device_ref = 'd-' || encode(substr(secret_hash, 1, 8), 'hex');
        ALTER TABLE lobby_device_credentials ALTER COLUMN device_ref SET NOT NULL;
        CREATE UNIQUE INDEX lobby_device_credentials_ref ON lobby_device_credentials (device_ref);
        ALTER TABLE lobby_sessions ADD COLUMN device_ref TEXT NOT NULL DEFAULT '';
        """,
    ),
    (
        8,
        # Deleted accounts (issue 19.4): the player's row stays as a tombstone (the ledger, the
        # seats, the reports and the event log name the opaque id), with no name, no device and
        # deleted_at; lobby_erasures remembers what the other services still have to forget.
        """
        ALTER TABLE lobby_players ADD COLUMN deleted_at TIMESTAMPTZ;
        CREATE TABLE lobby_erasures (
            player_id       TEXT PRIMARY KEY REFERENCES lobby_players (player_id),
            requested_at    TIMESTAMPTZ NOT NULL,
            scoring_done_at TIMESTAMPTZ
        );
        CREATE INDEX lobby_erasures_pending ON lobby_erasures (requested_at) WHERE scoring_done_at IS NULL;
        """,
    ),
    (
        9,
        # Staff roles (issue 22.1): a player who is a moderator or an admin; sign-in and refresh
        # put the role in the token. The audit log: every staff action, who, what, whom, when, why.
        """
        CREATE TABLE lobby_staff (
            player_id  TEXT PRIMARY KEY REFERENCES lobby_players (player_id),
            role       TEXT NOT NULL CHECK (role IN ('moderator', 'admin')),
            granted_by TEXT NOT NULL,
            granted_at TIMESTAMPTZ NOT NULL
        );
        CREATE TABLE lobby_audit (
            audit_id   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            at         TIMESTAMPTZ NOT NULL,
            actor_id   TEXT NOT NULL,
            actor_role TEXT NOT NULL,
            action     TEXT NOT NULL,
            target_id  TEXT NOT NULL DEFAULT '',
            reason     TEXT NOT NULL DEFAULT '',
            detail     JSONB NOT NULL DEFAULT '{}'
        );
        CREATE INDEX lobby_audit_target ON lobby_audit (target_id, audit_id);
        """,
    ),
    (
        11,
        # The report queue (issue 39.6): each report's severity (from its reason) and how many
        # players have an open report against the same player, so a page of the queue is read by
        # an index in its order (most severe, most reporters, newest) after the last one's key;
        # the open reports of one reporter (ALREADY_REPORTED) and against one player (recounted
        # at each report and resolve) by indexes of their own. (10 is the login throttle's.)
        """
        ALTER TABLE lobby_reports ADD COLUMN severity SMALLINT NOT NULL DEFAULT 0;
        ALTER TABLE lobby_reports ADD COLUMN reporters INT NOT NULL DEFAULT 1;
        UPDATE lobby_reports SET severity = CASE reason WHEN 'PERSONAL_INFO' THEN 5 WHEN 'ABUSE' THEN 4
            WHEN 'COLLUSION' THEN 3 WHEN 'ADVERTISING' THEN 2 ELSE 1 END;
        UPDATE lobby_reports r SET reporters = c.n
            FROM (SELECT player_id, count(DISTINCT reporter_id)::int AS n FROM lobby_reports
                  WHERE status = 'OPEN' GROUP BY player_id) c
            WHERE r.player_id = c.player_id AND r.status = 'OPEN';
        CREATE INDEX lobby_reports_queue ON lobby_reports (severity, reporters, report_id) WHERE status = 'OPEN';
        CREATE INDEX lobby_reports_all ON lobby_reports ((status = 'OPEN'), severity, reporters, report_id);
        CREATE INDEX lobby_reports_target_open ON lobby_reports (player_id) WHERE status = 'OPEN';
        CREATE INDEX lobby_reports_reporter_open ON lobby_reports (reporter_id, player_id) WHERE status = 'OPEN';
        DROP INDEX lobby_reports_status;
        """,
    ),
    (
        10,
        # Accounts a thief cannot keep (issue 39): failed e-mail logins are throttled per
        # (e-mail, address) and per address, keyed by hashes, so an unknown e-mail is counted as
        # a known one is; the addresses an account signed in from (hashed) are its known ones,
        # which strangers elsewhere cannot lock out. The per-login failure columns are no longer
        # read (lobby_login_throttle holds the counts).
        """
        CREATE TABLE lobby_login_throttle (
            key          BYTEA PRIMARY KEY,
            failures     INT NOT NULL,
            locked_until TIMESTAMPTZ,
            last_at      TIMESTAMPTZ NOT NULL
        );
        CREATE INDEX lobby_login_throttle_last ON lobby_login_throttle (last_at);
        CREATE TABLE lobby_known_addresses (
            player_id    TEXT NOT NULL REFERENCES lobby_players (player_id) ON DELETE CASCADE,
            address_hash BYTEA NOT NULL,
            last_at      TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (player_id, address_hash)
        );
        """,
    ),
    (
        12,
        # One settlement record per match (issue 40.1): each seat's pay-in, hand prizes, payout
        # and refund, and why, written in the transaction of the ledger postings it describes
        # (ledger.py); GetSettlement reads it. (10 and 11 are above.)
        """
        CREATE TABLE lobby_settlements (
            table_id   TEXT PRIMARY KEY,
            status     TEXT NOT NULL,
            record     JSONB NOT NULL,
            created_at TIMESTAMPTZ NOT NULL,
            updated_at TIMESTAMPTZ NOT NULL
        );
        """,
    ),
    (
        13,
        # Quick emotes at a table (issue 44.6): a message is a text, or an emote (the number of
        # okey.v1.Emote, their one list; its text and text_key are ''). An erased player's emotes
        # are NULLed as their texts are emptied, and chat lists skip both.
        """
        ALTER TABLE lobby_messages ADD COLUMN emote SMALLINT CHECK (emote > 0);
        """,
    ),
    (
        14,
        # Friends, blocks and notifications (issue 44.3, 44.4). A friendship is one row per pair,
        # its two ids in order (player_a < player_b), so two requests crossing become one row; a
        # request is one row per direction; a block is one player's. A notification is one row
        # per recipient (its kind, who sent it, the table and, for an invitation to a private
        # table, its invite code), read_at once read. FindPlayers searches names by prefix, any
        # case, through an index on lower(display_name).
        """
        CREATE TABLE lobby_friends (
            player_a TEXT NOT NULL REFERENCES lobby_players (player_id),
            player_b TEXT NOT NULL REFERENCES lobby_players (player_id),
            since    TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (player_a, player_b),
            CONSTRAINT lobby_friends_ordered CHECK (player_a < player_b)
        );
        CREATE INDEX lobby_friends_b ON lobby_friends (player_b);
        CREATE TABLE lobby_friend_requests (
            from_id TEXT NOT NULL REFERENCES lobby_players (player_id),
            to_id   TEXT NOT NULL REFERENCES lobby_players (player_id),
            sent_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (from_id, to_id),
            CHECK (from_id <> to_id)
        );
        CREATE INDEX lobby_friend_requests_to ON lobby_friend_requests (to_id, sent_at);
        CREATE TABLE lobby_blocks (
            player_id  TEXT NOT NULL REFERENCES lobby_players (player_id),
            blocked_id TEXT NOT NULL REFERENCES lobby_players (player_id),
            created_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (player_id, blocked_id)
        );
        CREATE INDEX lobby_blocks_blocked ON lobby_blocks (blocked_id);
        CREATE TABLE lobby_notifications (
            notification_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            player_id       TEXT NOT NULL REFERENCES lobby_players (player_id),
            kind            TEXT NOT NULL,
            from_id         TEXT NOT NULL DEFAULT '',
            table_id        TEXT NOT NULL DEFAULT '',
            invite_code     TEXT NOT NULL DEFAULT '',
            created_at      TIMESTAMPTZ NOT NULL,
            read_at         TIMESTAMPTZ
        );
        CREATE INDEX lobby_notifications_player ON lobby_notifications (player_id, notification_id);
        CREATE INDEX lobby_notifications_unread ON lobby_notifications (player_id, notification_id)
            WHERE read_at IS NULL;
        CREATE INDEX lobby_notifications_created ON lobby_notifications (created_at);
        CREATE INDEX lobby_notifications_from ON lobby_notifications (from_id) WHERE from_id <> '';
        CREATE INDEX lobby_players_name_prefix ON lobby_players (lower(display_name) text_pattern_ops)
            WHERE deleted_at IS NULL;
        """,
    ),
    (
        15,
        # Tournaments (issue 45.2): each one's event log, its one truth (tournament_model.py
        # folds it), and a summary row that lists and locks it, written with each append.
        """
        CREATE TABLE lobby_tournaments (
            tournament_id TEXT PRIMARY KEY,
            name          TEXT NOT NULL,
            status        TEXT NOT NULL,
            version       INT NOT NULL,
            registered    INT NOT NULL,
            created_at    TIMESTAMPTZ NOT NULL,
            starts_at     TIMESTAMPTZ,
            started_at    TIMESTAMPTZ,
            ended_at      TIMESTAMPTZ
        );
        CREATE INDEX lobby_tournaments_status ON lobby_tournaments (status, starts_at);
        CREATE TABLE lobby_tournament_events (
            tournament_id TEXT NOT NULL REFERENCES lobby_tournaments (tournament_id),
            version       INT NOT NULL,
            kind          TEXT NOT NULL,
            data          JSONB NOT NULL,
            at            TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (tournament_id, version)
        );
        """,
    ),
    (
        16,
        # Tournament registrations as rows (issue 45.2), kept with the `registered` and
        # `unregistered` events: a player's tournaments not yet ended are counted
        # (Limits.tournaments_per_player), and one device registers one account per tournament.
        """
        CREATE TABLE lobby_tournament_players (
            tournament_id TEXT NOT NULL REFERENCES lobby_tournaments (tournament_id),
            player_id     TEXT NOT NULL REFERENCES lobby_players (player_id),
            device_id     TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (tournament_id, player_id)
        );
        CREATE INDEX lobby_tournament_players_player ON lobby_tournament_players (player_id);
        CREATE UNIQUE INDEX lobby_tournament_players_one_per_device
            ON lobby_tournament_players (tournament_id, device_id) WHERE device_id <> '';
        """,
    ),
    (
        17,
        # Faces (issue 47.3): the okey.v1.Avatar number a player picked (SetAvatar); NULL until
        # they pick one, meaning the default of their player id (avatars.default_avatar).
        """
        ALTER TABLE lobby_players ADD COLUMN avatar SMALLINT;
        """,
    ),
]


class Unit:
    """One unit of work: the repositories of every subdomain on the unit's one connection, inside
    its one transaction (``async with store.unit() as uow``)."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn
        self.players = PlayersRepo(conn)
        self.logins = LoginsRepo(conn)
        self.erasure = ErasureRepo(conn)
        self.ledger = LedgerRepo(conn)
        self.tables = TablesRepo(conn)
        self.chat = ChatRepo(conn)
        self.reports = ReportsRepo(conn)
        self.staff = StaffRepo(conn)
        self.friends = FriendsRepo(conn)
        self.notifications = NotificationsRepo(conn)
        self.tournaments = TournamentsRepo(conn)


async def migrate_schema(conn: asyncpg.Connection) -> str:
    """The lobby tables' migrations (``okey migrate``; the service also applies them at start),
    with the consumers' applied-version record, which the lobby's event consumer writes."""
    applied = await migrate(conn, MIGRATIONS, scope=SCOPE)
    await migrate_consumer_versions(conn)
    return f"{len(applied)} applied"


class LobbyStore:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        # (recipient, notification id) of each notification a committed unit added
        self.on_notified: Callable[[list[tuple[str, int]]], Awaitable[None]] | None = None

    @classmethod
    async def connect(cls, dsn: str, min_size: int = 2, max_size: int = 10) -> LobbyStore:
        return cls(await open_pool(dsn, migrate_schema, min_size, max_size))

    async def close(self) -> None:
        await self.pool.close()

    @asynccontextmanager
    async def unit(self, within: Unit | None = None) -> AsyncIterator[Unit]:
        """A new unit of work; or, ``within`` one already open (the event consumer's, whose
        transaction also records the applied version), that one: its caller commits it. Once a
        new unit has committed, the notifications it added are handed to ``on_notified`` (their
        live delivery); a notification of a ``within`` unit reaches its streams by their poll."""
        if within is not None:
            yield within
            return
        async with self.pool.acquire() as conn, conn.transaction():
            uow = Unit(conn)
            yield uow
        added = uow.notifications.added
        if added and self.on_notified is not None:
            await self.on_notified(added)

    @asynccontextmanager
    async def serialized(self, key: str, wait_s: float = 2.0) -> AsyncIterator[bool]:
        """One holder at a time of ``key``, across every lobby replica (a PostgreSQL session
        advisory lock), for a use case whose steps are several units of work (quick play's
        search, then its sit). A waiter holds no connection (it tries again every 20 ms), so
        waiters cannot starve the holder's units of connections; after ``wait_s`` it goes on
        unserialized (yields False) rather than fail."""
        lock_id = int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big", signed=True)
        deadline = time.monotonic() + wait_s
        conn = None
        while conn is None:
            candidate = await self.pool.acquire()
            try:
                got = await candidate.fetchval("SELECT pg_try_advisory_lock($1)", lock_id)
            except BaseException:  # cancelled, perhaps holding it: a closed session holds no lock
                candidate.terminate()
                await self.pool.release(candidate)
                raise
            if got:
                conn = candidate
                break
            await self.pool.release(candidate)
            if time.monotonic() >= deadline:
                break
            await asyncio.sleep(0.02)
        if conn is None:
            yield False
            return
        try:
            yield True
        finally:
            try:
                await conn.execute("SELECT pg_advisory_unlock($1)", lock_id)
            except BaseException:  # not unlocked: the session ends, and its lock with it
                conn.terminate()
                raise
            finally:
                await self.pool.release(conn)

"""Table use cases: create a table, act for a seat, read views and events, fire due timers."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import random
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from okeycore.commands import Command, CreateTable, SetConnection, StartHand
from okeycore.errors import RuleViolation
from okeycore.events import Event, TableCreated, event_to_dict
from okeycore.games import Engine, Shuffle, engine_for
from okeycore.kernel.automations import Shuffler
from okeycore.options import TableOptions
from okeyplatform import metrics as M
from okeyplatform.auth import Identity, is_staff
from okeyplatform.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied, ResourceExhausted
from okeyplatform.eventstore import DuplicateCommand, EventStore, NewEvent, StoredEvent, VersionConflict
from okeyplatform.logs import get_logger
from okeyplatform.tracing import internal_span

__all__ = ["TableApp", "RuleError", "TableNotFound", "Forbidden", "ActResult", "Loaded", "seeded_shuffle"]

TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_VERSION = 2**31 - 1  # okey_events.version is an INT
_RNG = secrets.SystemRandom()


class RuleError(FailedPrecondition):
    """A command refused by the rules; ``code`` (the ErrorInfo reason) is the stable reason."""

    def __init__(self, violation: RuleViolation) -> None:
        super().__init__(violation.message, violation.code)
        self.code = violation.code


class TableNotFound(NotFound):
    default_reason = "TABLE_NOT_FOUND"


class Forbidden(PermissionDenied):
    """Not the caller's to do: most often a seat that is not the caller's."""

    default_reason = "NOT_YOUR_SEAT"


@dataclass
class Loaded:
    state: Any
    engine: Engine
    # The views read of this state, by seat (None: a spectator's): a view's ``allowed`` keeps the
    # answers of the rules' checks it was asked, so GetView called again at the same version asks
    # the rules nothing again (issue 39.8). Gone with the state when the table moves on.
    views: dict[int | None, Any] = field(default_factory=dict, repr=False, compare=False)
    hints: dict[int, Any] = field(default_factory=dict, repr=False, compare=False)

    def view(self, seat: int | None) -> Any:
        """``seat``'s view of this state, built once."""
        got = self.views.get(seat)
        if got is None:
            got = self.views[seat] = self.engine.view(self.state, seat)
        return got

    def seat_hints(self, seat: int) -> Any:
        """``seat``'s hints (from its own view only), worked out once for this state."""
        got = self.hints.get(seat)
        if got is None:
            got = self.hints[seat] = self.engine.hints(self.view(seat))
        return got


@dataclass
class _CatchUp:
    """One table's catch-ups with the store for readers (``min_version``): one at a time, and
    ``started`` counts them, so a reader that waited behind one begun after it arrived takes that
    one's answer instead of reading again (issue 39.8)."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    started: int = 0  # reads begun
    done: int = 0  # the last read that answered (its number in ``started``)


@dataclass
class ActResult:
    version: int
    events: list[tuple[StoredEvent, Event]]
    duplicate: bool = False


@dataclass
class _Watchers:
    queues: set[asyncio.Queue[list[tuple[StoredEvent, Event]]]] = field(default_factory=set)


def seeded_shuffle(seed: str, key: str) -> Shuffle:
    """A deal that ``seed`` and ``key`` (``"<table id>:<hand>"``) decide: the order from a
    ``random.Random`` seeded with HMAC-SHA256(seed, key), the salt from HMAC-SHA256(seed, key +
    ":salt"). Predictable by design: OKEY_INSECURE_DEAL_SEED, for tests only. The commitment is
    made of it as of any deal, so ``okey verify-deal`` checks it the same way."""
    digest = hmac.new(seed.encode(), key.encode(), hashlib.sha256).digest()
    order = list(range(106))
    random.Random(digest).shuffle(order)  # predictable on purpose (tests only)
    salt = hmac.new(seed.encode(), f"{key}:salt".encode(), hashlib.sha256).hexdigest()[:32]
    return Shuffle(tuple(order), salt)


def _now_ms() -> int:
    return int(time.time() * 1000)


class TableApp:
    """The table service's use cases over an event store. One writer per table is kept by the
    store's version check; within a process a lock per table avoids needless conflicts."""

    def __init__(
        self,
        store: EventStore,
        grace_ms: int = 3000,
        clock: Callable[[], int] = _now_ms,
        cache_size: int = 20_000,
        max_tables_per_player: int = 0,
        deal_seed: str = "",
    ) -> None:
        self.store = store
        # OKEY_INSECURE_DEAL_SEED: tests only. Set, every deal is derived from it, the table id and
        # the hand number, so anyone who knows it knows every rack; empty, deals are secure [C-DEAL-3].
        self.deal_seed = deal_seed
        self.max_tables_per_player = max_tables_per_player  # open tables a player made themself; 0: no cap
        self.grace_ms = grace_ms
        self.clock = clock
        self.cache_size = cache_size
        self._cache: OrderedDict[str, Loaded] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}
        self._catch_ups: dict[str, _CatchUp] = {}
        self._watchers: dict[str, _Watchers] = {}
        self.watching = asyncio.Event()  # set while any Watch stream of this replica is open
        self.log = get_logger(component="table-app")

    # ------------------------------------------------------------ loading

    def _lock(self, table_id: str) -> asyncio.Lock:
        lock = self._locks.get(table_id)
        if lock is None:
            lock = self._locks[table_id] = asyncio.Lock()
        return lock

    async def load(self, table_id: str, fresh: bool = False, min_version: int = 0) -> Loaded:
        """The table from the cache; with ``fresh``, or when the cached table is older than
        ``min_version``, caught up with the store first (another replica may have written since)."""
        hit = self._cache.get(table_id)
        if hit is not None:
            self._cache.move_to_end(table_id)
            if not fresh and hit.state.version >= min_version:
                return hit
            if not fresh:
                return await self._catch_up(table_id, hit, min_version)
            loaded, _ = await self._advance(table_id, hit)
            return loaded
        stored = await self.store.read_stream(table_id)
        if not stored:
            raise TableNotFound(f"no table {table_id!r}")
        first = stored[0].event()
        options: TableOptions = first.options  # type: ignore[attr-defined]
        engine = engine_for(options.game)
        state = engine.fold(None, (e.event() for e in stored))
        loaded = Loaded(state, engine)
        self._remember(table_id, loaded)
        return loaded

    async def _catch_up(self, table_id: str, hit: Loaded, min_version: int) -> Loaded:
        """A reader's ``min_version`` past the cached table: one read of the store, never a wait
        for a version to come (one past the table's last is answered with the latest). Readers of
        one table read one at a time, and those that queued behind a read begun after they
        arrived take its answer: however many ask at once (a far-future ``min_version`` in a
        loop), a table costs at most one read in flight and one queued (issue 39.8)."""
        c = self._catch_ups.get(table_id)
        if c is None:
            c = self._catch_ups[table_id] = _CatchUp()
        arrived = c.started
        async with c.lock:
            now = self._cache.get(table_id, hit)
            if now.state.version >= min_version or c.done > arrived:
                return now  # a read begun after this reader arrived has answered it
            c.started += 1
            gen = c.started
            loaded, _ = await self._advance(table_id, now)
            c.done = gen
            return loaded

    async def _advance(self, table_id: str, hit: Loaded) -> tuple[Loaded, list[tuple[StoredEvent, Event]]]:
        """A cached table caught up with the store: the events written since (by another
        replica), folded in and remembered. Returns the table and those events."""
        pairs = _pairs(await self.store.read_stream(table_id, after_version=hit.state.version))
        if not pairs:
            return hit, pairs
        loaded = Loaded(hit.engine.fold(hit.state, (ev for _, ev in pairs)), hit.engine)
        self._remember(table_id, loaded)
        return loaded, pairs

    def _remember(self, table_id: str, loaded: Loaded) -> None:
        self._cache[table_id] = loaded
        self._cache.move_to_end(table_id)
        while len(self._cache) > self.cache_size:
            old, _ = self._cache.popitem(last=False)
            self._locks.pop(old, None)
            self._catch_ups.pop(old, None)

    # ------------------------------------------------------------ writing

    def _shuffle(self) -> Shuffle:
        """The host's randomness for a deal the engine declares due."""
        order = list(range(106))
        _RNG.shuffle(order)  # [C-DEAL-3]: a cryptographically secure shuffle
        return Shuffle(tuple(order), secrets.token_hex(16))

    def _shuffler(self, table_id: str, state: Any) -> Shuffler:
        """The shuffle for the deal due after ``state``: the secure one, or with a deal seed
        (tests only) the one the seed, the table id and the hand give."""
        if not self.deal_seed:
            return self._shuffle
        key = f"{table_id}:{state.hand + 1}" if state is not None else f"{table_id}:1"
        if state is not None and getattr(state, "voided", False):
            key = f"{table_id}:{state.hand}:again:{state.version}"  # a void hand dealt again, same number
        seed = self.deal_seed
        return lambda: seeded_shuffle(seed, key)

    async def _commit(
        self,
        table_id: str,
        loaded: Loaded | None,
        engine: Engine,
        events: list[Event],
        command_id: str | None,
        traceparent: str | None = None,
    ) -> ActResult:
        state = loaded.state if loaded else None
        version = state.version if state is not None else 0
        now = self.clock()
        new: list[NewEvent] = []
        s = state
        applied: list[Event] = []
        pending = list(events)
        while pending:
            for e in pending:
                s = engine.evolve(s, e)
                applied.append(e)
                new.append(NewEvent(e.type, _data(e), s.hand, s.bot_seats))
            pending = engine.follow_ups(s, now, self._shuffler(table_id, s))  # the next deal [P-BREAK-3]
        due = engine.due_at(s)
        t0 = time.perf_counter()
        res = await self.store.append(table_id, version, new, command_id, due, traceparent)
        M.TABLE_APPEND.observe(time.perf_counter() - t0)
        self._remember(table_id, Loaded(s, engine))
        _count_events(s.options.game.value, applied)
        pairs = list(zip(res.events, applied, strict=True))
        self._notify(table_id, pairs)
        return ActResult(res.last_version, pairs)

    async def create_table(
        self,
        table_id: str,
        options: TableOptions,
        players: tuple[str, ...],
        identity: Identity | None = None,
        command_id: str = "",
        traceparent: str | None = None,
        public: bool = False,
    ) -> tuple[str, int]:
        """Open a table; ``public`` (a service's only: the lobby lists it) is recorded on its
        TableCreated, and makes its replays anyone's once its match has ended [D-12]. A player
        (not the lobby's or the bots' service credential) may only open one where no seat is
        someone else's: they take at most one seat and bots ("") the rest, as the web client
        does without a lobby. Seating other players is the lobby's work: otherwise anyone could
        seat anyone, or themselves at every seat and play all the hands into the leaderboards.

        A table's id is chosen by the server, never by a player (a lobby table's public id
        would otherwise be theirs to take); a service may name it (the lobby's own ids). A
        ``command_id`` makes a retry safe: the same caller with the same command id gets the id
        of the table it made. An existing id is "already created" only for the same creation
        (same caller, command id, options and seats); anything else is ``TABLE_EXISTS``."""
        caller = identity.subject if identity is not None else "system"
        if identity is not None and identity.role != "service":
            if table_id:
                raise Forbidden(
                    "a table's id is chosen by the server: leave table_id empty (give a command_id to retry safely)",
                    "TABLE_ID_NOT_ALLOWED",
                )
            if any(p and p != identity.subject for p in players):
                raise Forbidden(
                    "a player may only seat themself (and bots, with empty ids); the lobby seats others",
                    "SEATS_NOT_YOURS",
                )
            if players.count(identity.subject) > 1:
                raise Forbidden("a player may take only one seat at a table", "SEATS_NOT_YOURS")
            if public:
                raise Forbidden("only the lobby lists a table as public", "PUBLIC_NOT_ALLOWED")
        if len(command_id) > 128:
            raise InvalidArgument("command_id: at most 128 characters")
        cap = self.max_tables_per_player
        if identity is not None and identity.role != "service" and cap > 0:
            open_now = await self.store.count_live_with_command(f"create:{caller}:")
            if open_now >= cap:
                raise ResourceExhausted(
                    f"you have {open_now} tables in play that you opened yourself (at most {cap}): "
                    "finish or leave one first",
                    "TOO_MANY_TABLES",
                )
        if not table_id:
            table_id = _table_id_for(caller, command_id) if command_id else _random_table_id()
        if not TABLE_ID.fullmatch(table_id):
            raise InvalidArgument("table_id: letters, digits, '-' and '_' only, at most 64")
        engine = engine_for(options.game)
        got = engine.decide(None, CreateTable(table_id=table_id, options=options, players=players, public=public))
        if isinstance(got, RuleViolation):
            raise RuleError(got)
        key = f"create:{caller}:{command_id}"
        async with self._lock(table_id):
            try:
                res = await self._commit(table_id, None, engine, got, key, traceparent)
            except (VersionConflict, DuplicateCommand):
                return await self._same_creation(table_id, key, got[0])
        self.log.info("table_created", table_id=table_id, game=options.game.value, version=res.version)
        return table_id, res.version

    async def _same_creation(self, table_id: str, key: str, created: Event) -> tuple[str, int]:
        """``table_id`` exists: the same creation retried gets its first version; any other
        is refused, so nobody takes over a table that is someone else's."""
        stored = await self.store.read_stream(table_id, limit=1)
        first = stored[0].event() if stored else None
        mine = await self.store.find_command(table_id, key)
        same = (
            mine is not None
            and isinstance(first, TableCreated)
            and isinstance(created, TableCreated)
            and (first.options, first.players) == (created.options, created.players)
        )
        if not same:
            raise RuleError(
                RuleViolation("TABLE_EXISTS", f"table {table_id!r} already exists and is not this request's creation")
            )
        self.log.info("table_create_retried", table_id=table_id)
        assert mine is not None
        return table_id, mine[1]  # the creation's last version, as the first answer said

    async def act(
        self,
        table_id: str,
        command_id: str,
        make: Callable[[int], Command],
        identity: Identity | None = None,
        seat: int | None = None,
        traceparent: str | None = None,
    ) -> ActResult:
        """Decide and append one command. Conflicts with another writer are re-decided on the
        fresh state; a command id seen before returns its first result and appends nothing.
        Command ids are the caller's own: scoped to the caller (player or service identity) and
        the seat, so nobody can spend another caller's id, the timer's or the bots'.
        ``traceparent``, the caller's trace context, is stored with the events appended."""
        if not command_id or len(command_id) > 128:
            raise InvalidArgument("command_id is required (at most 128 characters)")
        if not TABLE_ID.fullmatch(table_id):
            raise TableNotFound(f"no table {table_id[:64]!r}")  # no table has such an id: no lock is made for it
        try:
            key = _command_key(identity, seat, command_id)
            return await self._act(table_id, key, make, identity, seat, traceparent)
        except TableNotFound:
            lock = self._locks.get(table_id)
            if lock is not None and not lock.locked() and table_id not in self._cache:
                del self._locks[table_id]  # a lock per unknown table id would pile up for ever
            raise

    async def _act(
        self,
        table_id: str,
        command_id: str,
        make: Callable[[int], Command],
        identity: Identity | None,
        seat: int | None,
        traceparent: str | None = None,
    ) -> ActResult:
        log = self.log.bind(table_id=table_id, command_id=command_id, seat=seat)
        async with self._lock(table_id):
            fresh = False
            for _attempt in range(8):
                loaded = await self.load(table_id, fresh=fresh)
                if identity is not None and seat is not None:
                    self.authorize(loaded, identity, seat)
                command = make(self.clock())
                if identity is not None:
                    _edge_only(command, identity)
                game = loaded.state.options.game.value
                kind = type(command).__name__
                t0 = time.perf_counter()
                with internal_span("okey.table", "decide", **{"okey.game": game, "okey.command": kind}):
                    got = loaded.engine.decide(loaded.state, command)
                M.child(M.TABLE_DECIDE, game).observe(time.perf_counter() - t0)
                if isinstance(got, RuleViolation) or not got:
                    # A refusal, or nothing to append (a connection the table already knows
                    # [D-11]): a retry gets its first result, and only the table as it is in the
                    # store says so (the cache may be behind another replica's writes).
                    earlier = await self.store.find_command(table_id, command_id)
                    if earlier is not None:
                        M.child(M.TABLE_COMMANDS, game, kind, "duplicate").inc()
                        return await self._replay_result(table_id, earlier)
                    if not fresh:
                        fresh = True
                        continue
                    if not got:  # accepted; nothing is written
                        M.child(M.TABLE_COMMANDS, game, kind, "applied").inc()
                        return ActResult(loaded.state.version, [])
                    log.info("command_refused", code=got.code, hand=loaded.state.hand)
                    M.child(M.TABLE_COMMANDS, game, kind, "refused").inc()
                    raise RuleError(got)
                try:
                    res = await self._commit(table_id, loaded, loaded.engine, got, command_id, traceparent)
                except VersionConflict:
                    log.info("version_conflict", attempt=_attempt)
                    M.TABLE_CONFLICTS.inc()
                    fresh = True
                    continue
                except DuplicateCommand as dup:
                    M.child(M.TABLE_COMMANDS, game, kind, "duplicate").inc()
                    return await self._replay_result(table_id, (dup.first, dup.last))
                log.debug("command_applied", version=res.version, hand=loaded.state.hand, events=len(res.events))
                M.child(M.TABLE_COMMANDS, game, kind, "applied").inc()
                return res
        M.child(M.TABLE_COMMANDS, game, kind, "conflict").inc()
        raise RuleError(RuleViolation("BUSY", "the table is too busy right now; try again"))

    async def _replay_result(self, table_id: str, versions: tuple[int, int]) -> ActResult:
        first, last = versions
        stored = await self.store.read_stream(table_id, after_version=first - 1, limit=last - first + 1)
        return ActResult(last, _pairs(stored), duplicate=True)

    def authorize(self, loaded: Loaded, identity: Identity, seat: int) -> None:
        players: tuple[str, ...] = loaded.state.players
        if not 0 <= seat < len(players):
            raise InvalidArgument(f"seat must be 0..{len(players) - 1}")
        if identity.role == "service":
            return  # the lobby's and the bots' credential: bot, autopilot and timed-out seats
        # Staff (a moderator, an admin) are not players: at the table they watch as a spectator (no seat
        # given) and may neither see a rack nor move for a seat before the hand ends.
        if players[seat] != identity.subject or is_staff(identity):
            raise Forbidden(f"seat {seat} is not yours")

    async def fire_timer(self, table_id: str) -> ActResult | None:
        """A due timer: the command the engine says the clock triggers now (the turn's TimeOut,
        its ForceMove after the grace [C-TIME-1], the deal at the break's end [P-BREAK-3]).
        Idempotent across replicas through the command id."""
        loaded = await self.load(table_id, fresh=True)
        s, engine = loaded.state, loaded.engine
        now = self.clock()
        due = engine.due_at(s)
        shuffle = self._shuffler(table_id, s)
        command = engine.on_due(s, now, shuffle, self.grace_ms) if due is not None else None
        if command is None:
            # Not due (a move arrived meanwhile, another replica's stale claim), or nothing to
            # wait for: put the timer where the state says.
            await self.store.set_timer(table_id, due)
            return None
        M.child(M.TIMERS_FIRED, "break" if isinstance(command, StartHand) else "turn").inc()
        M.TIMER_LATENESS.observe(max(0, now - due) / 1000)
        try:
            return await self.act(table_id, f"timer:{s.version}", lambda now_ms: replace(command, now_ms=now_ms))
        except RuleError as err:
            self.log.info("timer_noop", table_id=table_id, code=err.code)
            return None

    # ------------------------------------------------------------ watching

    def subscribe(self, table_id: str) -> asyncio.Queue[list[tuple[StoredEvent, Event]]]:
        q: asyncio.Queue[list[tuple[StoredEvent, Event]]] = asyncio.Queue()
        self._watchers.setdefault(table_id, _Watchers()).queues.add(q)
        self.watching.set()
        return q

    def unsubscribe(self, table_id: str, q: asyncio.Queue[list[tuple[StoredEvent, Event]]]) -> None:
        w = self._watchers.get(table_id)
        if w:
            w.queues.discard(q)
            if not w.queues:
                self._watchers.pop(table_id, None)
                if not self._watchers:
                    self.watching.clear()

    def watched(self, table_id: str) -> bool:
        """Does a Watch stream of this replica follow ``table_id``?"""
        return table_id in self._watchers

    async def catch_up(self, table_id: str, version: int | None = None) -> None:
        """Another replica appended to ``table_id`` up to ``version`` (its NOTIFY): bring the
        cache up to it and hand the new events to this replica's watchers now, not at their
        next poll of the store. What this replica wrote itself is already here: skipped."""
        if not self.watched(table_id):
            return
        hit = self._cache.get(table_id)
        if hit is not None and version is not None and hit.state.version >= version:
            return
        async with self._lock(table_id):
            hit = self._cache.get(table_id)
            if hit is None:
                self._notify(table_id, [])  # not cached here: the watchers read the store themselves
                return
            if version is not None and hit.state.version >= version:
                return  # a command of ours caught up meanwhile
            _, pairs = await self._advance(table_id, hit)
            if pairs:
                self._notify(table_id, pairs)

    def _notify(self, table_id: str, pairs: list[tuple[StoredEvent, Event]]) -> None:
        w = self._watchers.get(table_id)
        if w:
            for q in w.queues:
                q.put_nowait(pairs)

    async def events(
        self, table_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[tuple[StoredEvent, Event]]:
        after_version = min(max(after_version, 0), MAX_VERSION)  # a client's int64 in the store's int column
        stored = await self.store.read_stream(table_id, after_version=after_version, limit=limit)
        if not stored and after_version == 0:
            raise TableNotFound(f"no table {table_id!r}")
        return _pairs(stored)


_HAND_FINISH = {"HandEnded": "won", "HandEnded101": "won", "HandVoided": "voided"}


def _count_events(game: str, events: list[Event]) -> None:
    """The appended events in the table's metrics: by kind; hands by finish; matches."""
    for e in events:
        kind = e.type
        M.child(M.TABLE_EVENTS, game, kind).inc()
        finish = _HAND_FINISH.get(kind)
        if finish is not None:
            if finish == "won" and getattr(e, "reason", None) == "DECK_EXHAUSTED":
                finish = "exhausted"
            M.child(M.TABLE_HANDS, game, finish).inc()
        elif kind == "MatchEnded":
            M.child(M.TABLE_MATCHES, game).inc()


EDGE_COMMANDS = (SetConnection,)
"""Commands only the edge sends, with a service credential: whether a person is connected [D-11]."""


def _edge_only(command: Command, identity: Identity) -> None:
    """A person (a player, staff) may not send the edge's commands: PERMISSION_DENIED SERVICE_ONLY."""
    if isinstance(command, EDGE_COMMANDS) and identity.role != "service":
        raise Forbidden(
            f"only a service may send {type(command).__name__}: the edge says who is connected", "SERVICE_ONLY"
        )


def _command_key(identity: Identity | None, seat: int | None, command_id: str) -> str:
    """Where a command id is remembered: the table's own system commands (the timer; no caller)
    in ``sys:``, every caller's in its own space by role, subject and seat."""
    if identity is None:
        return f"sys:{command_id}"
    return f"{identity.role}:{identity.subject}:{'-' if seat is None else seat}:{command_id}"


def _random_table_id() -> str:
    return secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")


def _table_id_for(caller: str, command_id: str) -> str:
    """The id of the table one caller's creation command makes: the same for a retry, never
    one a player could aim at another caller's table (players name no ids)."""
    digest = hashlib.sha256(f"{caller}\x00{command_id}".encode()).hexdigest()
    return "t" + digest[:24]


def _pairs(stored: list[StoredEvent]) -> list[tuple[StoredEvent, Event]]:
    """Stored events with the engine's events they hold."""
    return [(e, e.event()) for e in stored]


def _data(event: Event) -> dict[str, Any]:
    d = event_to_dict(event)
    d.pop("type")
    return d

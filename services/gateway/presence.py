"""Presence at the edge: which players this replica holds (:class:`Tracker`), the board merged
from every replica over NATS core (okeyplatform.presence), and the disconnected-seat signal the
table gets from it [D-11] (:class:`SeatNotifier`, in seats.py); :class:`Presence` puts them together.

A player is ONLINE while a stream of theirs is open here or their last call came within
``online_s`` (60 s), AWAY until ``offline_s`` (5 min) after it, then OFFLINE; closing their last
stream with no recent call makes them OFFLINE at once. Any stream counts (a table's watch, the
lobby's notifications). AT_TABLE (with the table) while a watch of their own seat is open:
counted from its first message, so a watch the table refuses never counts; a watch with no seat
(a spectator's) lists its table among those the player watches, from its first message too. A
service's token is nobody's presence.

[D-11]: when the last watch of a seat closes on every replica and none opens within
``grace_s`` (2 s), the replica that held it tells the table ``set_connection{connected: false}``;
a dead replica's seats are told at once by the live replica with the lowest id, once its silence
(3 s) has made it dead. A watch of a seat whose view says ``disconnected`` tells the table
``connected: true``. Command ids come from the moment the seat was left (the holder's clock, the
same on every board) or the version the watch saw, so two replicas deciding the same append once."""

from __future__ import annotations

import asyncio
import secrets
import socket
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from google.protobuf.message import DecodeError, Message
from okey.v1 import table_service_pb2 as pb
from okeyplatform import metrics as M
from okeyplatform.bus import connect_nats, pause
from okeyplatform.logs import get_logger
from okeyplatform.presence import (
    BEAT_S,
    DEAD_AFTER_S,
    SUBJECTS,
    Beat,
    Board,
    Change,
    PlayerPresence,
    SeatKey,
    State,
    decode,
    encode_beats,
    encode_player,
)

from .app import Caller
from .seats import Act, SeatNotifier, table_act

__all__ = ["Presence", "Tracker", "Stream", "SeatNotifier", "Watch", "WATCH_PATH", "replica_id", "table_act", "GRACE_S"]

WATCH_PATH = "/okey.v1.TableService/Watch"
_M = TypeVar("_M", bound=Message)
_K = TypeVar("_K")
GRACE_S = 2.0
"""How long a seat may have no watch before the table is told it is disconnected [D-11]."""
ONLINE_S = 60.0
OFFLINE_S = 300.0
TICK_S = 0.25
KEEP_S = 10.0
"""How long a board keeps a vacancy another replica is to tell: if that replica dies meanwhile,
this one may have to tell it instead."""

log = get_logger(component="presence")


def replica_id() -> str:
    """This process's id among the gateway replicas: the host's name (a pod's) and a random part,
    so a restarted process is a new replica."""
    return f"{socket.gethostname()}-{secrets.token_hex(3)}"


def _wall_ms() -> int:
    return time.time_ns() // 1_000_000


# ------------------------------------------------------------------ this replica's players


@dataclass(eq=False)
class Stream:
    """One open stream of a player on this replica; ``seat`` once its table let it watch one,
    ``spectating`` (the table) once its table let it watch as a spectator."""

    player: str
    seat: SeatKey | None = None
    open: bool = True
    spectating: str = ""


@dataclass
class _Held:
    streams: int = 0
    seats: dict[SeatKey, int] = field(default_factory=dict)  # open watches per seat; the last is the latest
    watching: dict[str, int] = field(default_factory=dict)  # open spectators' watches per table
    last_call: float | None = None
    told: PlayerPresence | None = None


class Tracker:
    """The players whose connections this replica holds. Every change of a player's account is
    handed to ``on_change`` (once, at the moment it happens; :meth:`tick` makes the changes time
    makes). ``clock`` (monotonic seconds) and ``wall_ms`` (unix ms) are injectable."""

    def __init__(
        self,
        on_change: Callable[[PlayerPresence], None],
        clock: Callable[[], float] = time.monotonic,
        wall_ms: Callable[[], int] = _wall_ms,
        online_s: float = ONLINE_S,
        offline_s: float = OFFLINE_S,
    ) -> None:
        self.on_change = on_change
        self.clock = clock
        self.wall_ms = wall_ms
        self.online_s = online_s
        self.offline_s = offline_s
        self._players: dict[str, _Held] = {}

    def __len__(self) -> int:
        return len(self._players)

    def call(self, player: str) -> None:
        """A call of ``player``'s went through (not a stream's opening: a stream counts while open)."""
        held = self._players.setdefault(player, _Held())
        held.last_call = self.clock()
        self._update(player, held)

    def opened(self, player: str) -> Stream:
        held = self._players.setdefault(player, _Held())
        held.streams += 1
        self._update(player, held)
        return Stream(player)

    def seated(self, stream: Stream, table_id: str, seat: int) -> None:
        """The stream's table let it watch ``seat`` (its first message came)."""
        held = self._players.get(stream.player)
        if not stream.open or stream.seat is not None or held is None:
            return
        stream.seat = (table_id, seat)
        held.seats[stream.seat] = held.seats.pop(stream.seat, 0) + 1
        self._update(stream.player, held)

    def spectating(self, stream: Stream, table_id: str) -> None:
        """The stream's table let it watch ``table_id`` as a spectator (its first message came)."""
        held = self._players.get(stream.player)
        if not stream.open or stream.spectating or stream.seat is not None or held is None or not table_id:
            return
        stream.spectating = table_id
        held.watching[table_id] = held.watching.get(table_id, 0) + 1
        self._update(stream.player, held)

    def closed(self, stream: Stream) -> None:
        held = self._players.get(stream.player)
        if not stream.open or held is None:
            return
        stream.open = False
        held.streams -= 1
        if stream.seat is not None:
            _drop(held.seats, stream.seat)
        if stream.spectating:
            _drop(held.watching, stream.spectating)
        self._update(stream.player, held)

    def spectators(self) -> int:
        """Spectators' watches open on this replica (streams, not players)."""
        return sum(sum(h.watching.values()) for h in self._players.values())

    def tick(self) -> None:
        """The changes time makes: ONLINE to AWAY to OFFLINE for a player with no stream open."""
        for player, held in list(self._players.items()):
            if held.streams == 0:
                self._update(player, held)

    def presence(self, player: str) -> PlayerPresence:
        held = self._players.get(player)
        return held.told if held is not None and held.told is not None else PlayerPresence(player, State.OFFLINE)

    def held(self) -> list[PlayerPresence]:
        """Every player this replica holds (none OFFLINE), as last told."""
        return [h.told for h in self._players.values() if h.told is not None and h.told.state is not State.OFFLINE]

    def _state(self, held: _Held) -> tuple[State, str]:
        if held.seats:
            return State.AT_TABLE, next(reversed(held.seats))[0]
        if held.streams > 0:
            return State.ONLINE, ""
        if held.last_call is not None:
            quiet = self.clock() - held.last_call
            if quiet < self.online_s:
                return State.ONLINE, ""
            if quiet < self.offline_s:
                return State.AWAY, ""
        return State.OFFLINE, ""

    def _update(self, player: str, held: _Held) -> None:
        state, table_id = self._state(held)
        seats, watching = tuple(held.seats), tuple(held.watching)
        told = held.told
        if state is State.OFFLINE and held.streams == 0:
            del self._players[player]
        if told is not None and (told.state, told.table_id, told.seats, told.watching) == (
            state,
            table_id,
            seats,
            watching,
        ):
            return
        if told is None and state is State.OFFLINE:
            return
        held.told = PlayerPresence(player, state, table_id, seats, self.wall_ms(), watching)
        self.on_change(held.told)


def _drop(counts: dict[_K, int], key: _K) -> None:
    """One fewer of ``key`` (gone at none)."""
    left = counts.get(key, 0) - 1
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


# ------------------------------------------------------------------ one watch


def _parsed(cls: type[_M], item: bytes | Message) -> _M | None:
    """``item`` as a ``cls`` message: itself (the WebSocket route's), decoded from the gRPC
    proxy's bytes, or None (another message, bytes that do not decode)."""
    if isinstance(item, cls):
        return item
    if isinstance(item, bytes):
        try:
            return cls.FromString(item)
        except DecodeError:
            return None
    return None


class Watch:
    """Presence's side of one open stream: :meth:`item` for each message it passes on, and
    :meth:`close` once at its end. A stream of nobody's (no token, a service's) is this no-op."""

    def item(self, item: bytes | Message) -> None:
        pass

    def close(self) -> None:
        pass


class _PlayerWatch(Watch):
    def __init__(self, presence: Presence, stream: Stream, seat: SeatKey | None, spectating: str = "") -> None:
        self.presence = presence
        self.stream = stream
        self.seat = seat  # the seat it asks to watch (TableService.Watch only)
        self.spectating = spectating  # the table it asks to watch as a spectator, until it may
        self.counted = False

    def item(self, item: bytes | Message) -> None:
        if self.spectating:
            # Its first message: the table let it in (a refused watch never counts).
            self.presence.tracker.spectating(self.stream, self.spectating)
            self.spectating = ""
            self.counted = True
            M.GATEWAY_SPECTATORS.inc()
            return
        if self.seat is None:
            return
        msg = _parsed(pb.WatchResponse, item)
        if msg is None:
            return
        view = msg.snapshot if msg.HasField("snapshot") else msg.view
        table_id, seat = self.seat
        if self.stream.seat is None:
            self.presence.tracker.seated(self.stream, table_id, seat)
        if view.phase == pb.PHASE_MATCH_OVER:
            self.presence.over(table_id, seat)
            self.seat = None  # nothing left to tell this table
            return
        for s in view.seats:
            if s.seat == seat:
                if s.disconnected:
                    self.presence.back(table_id, seat, view.version)
                return

    def close(self) -> None:
        if self.counted and self.stream.open:
            M.GATEWAY_SPECTATORS.dec()
        self.presence.tracker.closed(self.stream)


# ------------------------------------------------------------------ together


class Presence:
    """This replica's presence (see the module's text): the edge calls :meth:`call` for each call
    it lets through and :meth:`watch` for each stream; :meth:`lookup` answers from the merged
    board. Run as a background task of the gateway (:meth:`run`): the clock's tick (every 0.25 s)
    and, with ``nats_url``, the beats and the board's messages. Without NATS the board holds this
    replica's players only, and the table is still told about the seats it held."""

    def __init__(
        self,
        replica: str | None = None,
        nats_url: str | None = None,
        act: Act | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_ms: Callable[[], int] = _wall_ms,
        grace_s: float = GRACE_S,
        dead_after_s: float = DEAD_AFTER_S,
        beat_s: float = BEAT_S,
    ) -> None:
        self.replica = replica or replica_id()
        self.nats_url = nats_url or None
        self.clock = clock
        self.wall_ms = wall_ms
        self.grace_s = grace_s
        self.beat_s = beat_s
        self.board = Board(self.replica, dead_after_s, clock())
        self.tracker = Tracker(self._changed, clock, wall_ms)
        self.notifier = SeatNotifier(act) if act is not None else None
        self._outbox: deque[tuple[str, bytes]] = deque(maxlen=10_000)  # beats mend what overflows
        self._listed: dict[str, bytes] = {}  # each player held here as the beat lists it
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()
        self._over: dict[SeatKey, None] = {}  # seats whose match a watch here saw end (the latest 10,000)
        self._echo_at = clock()  # when our own beat last came back: the bus delivers to us
        self._deaf = False
        self._seq = 0

    # ------------------------------------------------------------ the edge's calls

    @staticmethod
    def _player(caller: Caller) -> str | None:
        who = caller.identity
        return who.subject if who is not None and not who.is_service else None

    def call(self, caller: Caller) -> None:
        player = self._player(caller)
        if player is not None:
            self.tracker.call(player)

    def watch(self, caller: Caller, path: str, request: bytes | Message) -> Watch:
        """A stream of ``caller``'s opened (``request``: its request, the message or its bytes)."""
        player = self._player(caller)
        if player is None:
            return Watch()
        seat: SeatKey | None = None
        spectating = ""
        if path == WATCH_PATH:
            req = _parsed(pb.WatchRequest, request)
            if req is not None and req.HasField("seat") and req.table_id:
                seat = (req.table_id, req.seat)
            elif req is not None:
                spectating = req.table_id
        return _PlayerWatch(self, self.tracker.opened(player), seat, spectating)

    def lookup(self, players: list[str], asker: str = "") -> list[dict[str, str]]:
        """The merged board's answer for each of ``players``: the state of anyone, but the table
        of an AT_TABLE only for ``asker`` themselves (a friend's table comes from the lobby's
        ListFriends, which knows who is a friend; a stranger learns none)."""
        out = []
        for player in players:
            state, table_id = self.board.state_of(player)
            out.append({"playerId": player, "state": state.name, "tableId": table_id if player == asker else ""})
        return out

    def spectators(self, table_id: str, excluding: str = "") -> int:
        """The distinct players who watch ``table_id`` as spectators on every live replica."""
        return self.board.spectators(table_id, excluding)

    def over(self, table_id: str, seat: int) -> None:
        """A watch of the seat saw its match end: the table is not told when that watch closes."""
        self._over[(table_id, seat)] = None
        if len(self._over) > 10_000:
            del self._over[next(iter(self._over))]

    def back(self, table_id: str, seat: int, version: int) -> None:
        """A watch of the seat is open and its view (at ``version``) says disconnected."""
        if self.notifier is None or version <= self.notifier.connected_at.get((table_id, seat), 0):
            return
        self.notifier.tell(table_id, seat, True, f"presence:connected:v{version}")

    # ------------------------------------------------------------ the clock

    def tick(self) -> None:
        """One step of the clock: the changes time makes here, the dead replicas, and the
        vacant seats due to be told."""
        now = self.clock()
        self.tracker.tick()
        if self.nats_url is not None:
            deaf = now - self._echo_at >= self.board.dead_after_s
            if deaf and not self._deaf:
                log.warning("presence_bus_silent", replica=self.replica)
            if not deaf and self._deaf:
                self.board.refresh(now)  # the others' silence while we heard nothing says nothing
            self._deaf = deaf
            if not deaf:
                for dead in self.board.expire(now):
                    log.info("presence_replica_dead", replica=dead)
        for seat, v in list(self.board.vacancies.items()):
            due = v.seen + (0.0 if v.died else self.grace_s)
            if now < due:
                continue
            if seat in self._over:
                del self.board.vacancies[seat]  # a match over has no connection to tell
                continue
            live = self.board.live
            teller = v.holder if self.board.is_live(v.holder) else live[0]
            if teller == self.replica:
                del self.board.vacancies[seat]
                if self.notifier is not None:
                    self.notifier.tell(seat[0], seat[1], False, f"presence:disconnected:{v.since_ms}")
            elif now >= due + KEEP_S:
                del self.board.vacancies[seat]

    def _changed(self, presence: PlayerPresence) -> None:
        self.board.apply(self.replica, presence, self.clock())
        if self.nats_url is not None:
            if presence.state is State.OFFLINE:
                self._listed.pop(presence.player, None)
            else:
                self._listed[presence.player] = presence.encode()
            self._outbox.append(encode_player(self.replica, presence))
            self._wake.set()

    # ------------------------------------------------------------ the bus

    def on_message(self, subject: str, data: bytes) -> None:
        got = decode(subject, data)
        if got is None:
            return
        now = self.clock()
        if isinstance(got, Beat) and got.replica == self.replica:
            self._echo_at = now
            return
        if got.replica == self.replica:
            return
        if isinstance(got, Change):
            self.board.apply(got.replica, got.presence, now)
        else:
            self.board.apply_beat(got, now)

    def beat(self) -> list[tuple[str, bytes]]:
        """This replica's next beat, every part (subject and body)."""
        self._seq += 1
        return list(encode_beats(self.replica, self.wall_ms(), self._seq, list(self._listed.values())))

    async def run(self) -> None:
        ticking = asyncio.create_task(self._ticking())
        try:
            if self.nats_url is None:
                log.info("presence_local_only", replica=self.replica)
                await self._stop.wait()
            else:
                while not self._stop.is_set():
                    try:
                        await self._bus(self.nats_url)
                    except Exception as exc:  # presence must outlive a bad moment of the bus
                        log.error("presence_bus_failed", error=repr(exc))
                        await pause(self._stop, 1.0)
        finally:
            ticking.cancel()
            if self.notifier is not None:
                await self.notifier.close()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    async def _ticking(self) -> None:
        while not self._stop.is_set():
            try:
                self.tick()
            except Exception as exc:  # a bug here must not stop presence for good
                log.error("presence_tick_failed", error=repr(exc))
            await asyncio.sleep(TICK_S)

    async def _bus(self, url: str) -> None:
        async def on_message(msg: Any) -> None:
            self.on_message(msg.subject, msg.data)

        nc = await connect_nats(url, self._stop, "presence")
        if nc is None:
            return
        try:
            await nc.subscribe(SUBJECTS, cb=on_message)
            log.info("presence_shared", replica=self.replica)
            next_beat = 0.0
            while not self._stop.is_set():
                # In the order made: every change, then a beat that lists the state after them.
                while self._outbox:
                    await self._publish(nc, *self._outbox.popleft())
                if self.clock() >= next_beat:
                    next_beat = self.clock() + self.beat_s
                    for subject, body in self.beat():
                        await self._publish(nc, subject, body)
                if self._outbox:
                    continue
                self._wake.clear()
                try:
                    await asyncio.wait_for(self._wake.wait(), timeout=max(0.0, next_beat - self.clock()))
                except TimeoutError:
                    pass
        finally:
            await nc.close()

    @staticmethod
    async def _publish(nc: Any, subject: str, body: bytes) -> None:
        try:
            await nc.publish(subject, body)
        except Exception as exc:  # NATS away and its buffer full: the next beats say it again
            log.debug("presence_not_published", subject=subject, error=repr(exc))

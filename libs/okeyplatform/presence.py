"""Who is connected, as the gateway replicas tell it over NATS core: the states, the subjects,
the messages, and the board that merges every live replica's account into one answer per player.

Presence is not kept anywhere (no JetStream, no database): each gateway replica knows the players
whose connections it holds, publishes every change of one of them on
``okey.presence.player.<player>`` and, every second, a beat on ``okey.presence.replica.<replica>``
listing all of them. A :class:`Board` fed by those messages (``okey.presence.>``) holds each live
replica's players; a replica unheard of for ``dead_after_s`` (3 s) is dead and its players go with
it. A player's state is the best any live replica gives: AT_TABLE > ONLINE > AWAY > OFFLINE.

A board also follows the seats being watched, for the edge's disconnected-seat signal [D-11]:
when the last watch of a seat closes on every replica (or dies with its replica), the seat is a
:class:`Vacancy` until a watch of it opens again. And the tables watched by spectators (a watch
with no seat), so that the edge counts a table's distinct spectators over every live replica
(:meth:`Board.spectators`): a player's account lists them under ``watching`` only when there are
some, so a beat costs nothing more for the players who watch none, and a replica that does not
know the field is read as watching nothing."""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "State",
    "SeatKey",
    "PlayerPresence",
    "Beat",
    "Change",
    "Vacancy",
    "Board",
    "SUBJECTS",
    "player_subject",
    "replica_subject",
    "encode_player",
    "encode_beats",
    "decode",
    "BEAT_S",
    "DEAD_AFTER_S",
]

SUBJECTS = "okey.presence.>"
PLAYER_PREFIX = "okey.presence.player."
REPLICA_PREFIX = "okey.presence.replica."
BEAT_S = 1.0
"""Every replica beats this often."""
DEAD_AFTER_S = 3.0
"""A replica unheard of for this long is dead: its players are no longer connected anywhere."""
BEAT_CHUNK = 1000
"""Players a beat message lists at most (a replica with more sends its beat in parts), so that a
message stays far below NATS's 1 MiB payload limit."""


class State(enum.IntEnum):
    """A player's presence, in the order the best wins."""

    OFFLINE = 0
    AWAY = 1  # no request for a minute, no open stream
    ONLINE = 2  # an open stream, or a request within the last minute
    AT_TABLE = 3  # a watch of their own seat is open


SeatKey = tuple[str, int]
"""(table id, seat)."""


@dataclass(frozen=True, slots=True)
class PlayerPresence:
    """One replica's account of one player: the state, the table of an AT_TABLE (the seat
    watched last), every seat it holds a watch of, the tables it watches as a spectator, and when
    that account last changed (unix ms on the replica's clock)."""

    player: str
    state: State
    table_id: str = ""
    seats: tuple[SeatKey, ...] = ()
    at_ms: int = 0
    watching: tuple[str, ...] = ()

    def encode(self) -> bytes:
        """As a beat lists it (a replica keeps each player's, made once per change)."""
        return json.dumps(self.to_json(), separators=(",", ":")).encode()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "state": self.state.name, "at_ms": self.at_ms}
        if self.table_id:
            out["table_id"] = self.table_id
        if self.seats:
            out["seats"] = [[t, s] for t, s in self.seats]
        if self.watching:
            out["watching"] = list(self.watching)
        return out

    @staticmethod
    def from_json(item: Any) -> PlayerPresence | None:
        """None for anything that is not a player's account (a newer replica's message we cannot
        read is skipped, not fatal)."""
        if not isinstance(item, dict):
            return None
        player, state, at_ms = item.get("player"), item.get("state"), item.get("at_ms", 0)
        if not isinstance(player, str) or not player or not isinstance(state, str) or not isinstance(at_ms, int):
            return None
        if state not in State.__members__:
            return None
        table_id = item.get("table_id", "")
        seats: list[SeatKey] = []
        for pair in item.get("seats") or ():
            if isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) and type(pair[1]) is int:
                seats.append((pair[0], pair[1]))
        listed = item.get("watching")
        watching = tuple(t for t in listed if isinstance(t, str) and t) if isinstance(listed, list) else ()
        table = table_id if isinstance(table_id, str) else ""
        return PlayerPresence(player, State[state], table, tuple(seats), at_ms, tuple(dict.fromkeys(watching)))


@dataclass(frozen=True, slots=True)
class Beat:
    """A replica's list of the players it holds (not OFFLINE), part ``part`` of ``parts`` of its
    beat number ``seq``: each as the JSON object it came as (``entries``), which a board compares
    with the one it holds before reading it (most of a beat is what the last one said)."""

    replica: str
    at_ms: int
    seq: int
    entries: tuple[Any, ...] = ()
    part: int = 0
    parts: int = 1

    @staticmethod
    def of(replica: str, at_ms: int, seq: int, players: Iterable[PlayerPresence]) -> Beat:
        """A beat in one part (tests, tools)."""
        return Beat(replica, at_ms, seq, tuple(p.to_json() for p in players))

    @property
    def players(self) -> list[PlayerPresence]:
        return [p for p in map(PlayerPresence.from_json, self.entries) if p is not None]


@dataclass(frozen=True, slots=True)
class Change:
    """One player's account changed at ``replica``."""

    replica: str
    presence: PlayerPresence


_SUBJECT_SAFE = re.compile(r"[A-Za-z0-9_\-]+")


def _token(text: str) -> str:
    """``text`` as one subject token: a player id with a dot, a space or a wildcard in it would
    otherwise be several tokens, or a pattern."""
    if _SUBJECT_SAFE.fullmatch(text):
        return text
    return "".join(c if _SUBJECT_SAFE.fullmatch(c) else f"%{ord(c):02X}" for c in text)


def player_subject(player: str) -> str:
    return PLAYER_PREFIX + _token(player)


def replica_subject(replica: str) -> str:
    return REPLICA_PREFIX + _token(replica)


def encode_player(replica: str, presence: PlayerPresence) -> tuple[str, bytes]:
    """The subject and the body of one player's change."""
    body = presence.to_json() | {"replica": replica}
    return player_subject(presence.player), json.dumps(body, separators=(",", ":")).encode()


def encode_beats(
    replica: str, at_ms: int, seq: int, players: Iterable[PlayerPresence | bytes]
) -> Iterator[tuple[str, bytes]]:
    """The subject and body of each part of one beat (one part when it lists none); a player
    may come encoded already (:meth:`PlayerPresence.encode`)."""
    everyone = [p if isinstance(p, bytes) else p.encode() for p in players]
    chunks = [everyone[i : i + BEAT_CHUNK] for i in range(0, len(everyone), BEAT_CHUNK)] or [[]]
    subject = replica_subject(replica)
    name = json.dumps(replica)
    for i, chunk in enumerate(chunks):
        head = f'{{"replica":{name},"at_ms":{int(at_ms)},"seq":{int(seq)},"part":{i},"parts":{len(chunks)},"players":['
        yield subject, head.encode() + b",".join(chunk) + b"]}"


def decode(subject: str, data: bytes) -> Change | Beat | None:
    """A presence message, or None when it is not one we can read."""
    try:
        got = json.loads(data)
    except ValueError:
        return None
    if not isinstance(got, dict) or not isinstance(got.get("replica"), str) or not got["replica"]:
        return None
    replica: str = got["replica"]
    if subject.startswith(PLAYER_PREFIX):
        presence = PlayerPresence.from_json(got)
        return Change(replica, presence) if presence is not None else None
    if subject.startswith(REPLICA_PREFIX):
        numbers = [got.get(k) for k in ("at_ms", "seq", "part", "parts")]
        if not all(type(v) is int for v in numbers):
            return None
        at_ms, seq, part, parts = (int(v) for v in numbers)  # type: ignore[arg-type]
        if not 0 <= part < parts:
            return None
        listed = got.get("players")
        return Beat(replica, at_ms, seq, tuple(listed) if isinstance(listed, list) else (), part, parts)
    return None


@dataclass(frozen=True, slots=True)
class Vacancy:
    """A seat no live replica holds a watch of any more: whose it was (``player``), the replica
    that held the last watch (``holder``), since when (unix ms, the holder's clock: the same
    number on every board, so a command made from it is the same everywhere), when this board saw
    it (``seen``, its monotonic clock) and whether it went with a dead replica (``died``)."""

    seat: SeatKey
    player: str
    holder: str
    since_ms: int
    seen: float
    died: bool


@dataclass
class _Replica:
    seen: float  # monotonic, this board's clock
    at_ms: int = 0  # its last beat's moment (its clock)
    players: dict[str, PlayerPresence] = field(default_factory=dict)
    said: dict[str, Any] = field(default_factory=dict)  # each player's account as the JSON it came as
    assembling: tuple[int, set[int], dict[str, Any]] | None = None  # a beat in parts: player -> entry


class Board:
    """Every live replica's players, merged (see the module's text). ``replica`` is this board's
    own replica: fed directly (:meth:`apply`), never dead. Times are the caller's monotonic
    clock (seconds), so a test drives it without sleeping."""

    def __init__(self, replica: str, dead_after_s: float = DEAD_AFTER_S, now: float = 0.0) -> None:
        self.replica = replica
        self.dead_after_s = dead_after_s
        self._replicas: dict[str, _Replica] = {replica: _Replica(now)}
        self._holders: dict[SeatKey, dict[str, str]] = {}  # seat -> {replica: player}
        self._spectators: dict[str, dict[str, set[str]]] = {}  # table -> {player: replicas watching}
        self.vacancies: dict[SeatKey, Vacancy] = {}

    # ------------------------------------------------------------ what it knows

    @property
    def live(self) -> list[str]:
        """The live replicas' ids, sorted (this one included)."""
        return sorted(self._replicas)

    def is_live(self, replica: str) -> bool:
        return replica in self._replicas

    def state_of(self, player: str) -> tuple[State, str]:
        """The best state any live replica gives ``player``, and its table when AT_TABLE (of
        several, the one whose account changed last)."""
        best: PlayerPresence | None = None
        for r in self._replicas.values():
            p = r.players.get(player)
            if p is not None and (best is None or (p.state, p.at_ms) > (best.state, best.at_ms)):
                best = p
        if best is None:
            return State.OFFLINE, ""
        return best.state, best.table_id if best.state is State.AT_TABLE else ""

    def holders(self, seat: SeatKey) -> dict[str, str]:
        """The replicas holding a watch of ``seat``, with the player of each."""
        return dict(self._holders.get(seat, {}))

    def spectators(self, table_id: str, excluding: str = "") -> int:
        """How many distinct players watch ``table_id`` as spectators on the live replicas
        (``excluding`` one of them: a player already watching is not one more)."""
        watchers = self._spectators.get(table_id)
        if not watchers:
            return 0
        return len(watchers) - (excluding in watchers)

    def players_of(self, replica: str) -> dict[str, PlayerPresence]:
        r = self._replicas.get(replica)
        return dict(r.players) if r is not None else {}

    # ------------------------------------------------------------ what it is told

    def apply(self, replica: str, presence: PlayerPresence, now: float) -> None:
        """``replica``'s new account of one player (OFFLINE: it holds the player no more)."""
        r = self._seen(replica, now)
        if replica != self.replica:
            r.said[presence.player] = presence.to_json()
        self._put(r, replica, presence, now)

    def apply_beat(self, beat: Beat, now: float) -> None:
        """A part of a beat: the replica is alive; once every part of one beat has come, its
        list replaces what the board held of that replica (a change missed is mended here)."""
        r = self._seen(beat.replica, now)
        if beat.replica == self.replica:
            return
        seq, parts, listed = r.assembling if r.assembling and r.assembling[0] == beat.seq else (beat.seq, set(), {})
        parts.add(beat.part)
        for entry in beat.entries:
            if isinstance(entry, dict) and isinstance(entry.get("player"), str):
                listed[entry["player"]] = entry
        if len(parts) < beat.parts:
            r.assembling = (seq, parts, listed)
            return
        r.assembling = None
        r.at_ms = beat.at_ms
        for player in list(r.players):
            if player not in listed:
                gone = r.players[player]
                r.said.pop(player, None)
                self._put(r, beat.replica, PlayerPresence(player, State.OFFLINE, at_ms=beat.at_ms), now, gone)
        for player, entry in listed.items():
            if r.said.get(player) == entry:
                continue  # as the board has it already: most of every beat
            p = PlayerPresence.from_json(entry)
            if p is not None:
                r.said[player] = entry
                self._put(r, beat.replica, p, now)

    def expire(self, now: float) -> list[str]:
        """Forget the replicas unheard of for ``dead_after_s``: their players are no longer
        connected through them, and the seats only they held become vacancies at once (their
        silence was the grace). Returns the dead replicas' ids."""
        dead = [rid for rid, r in self._replicas.items() if rid != self.replica and now - r.seen >= self.dead_after_s]
        for rid in dead:
            r = self._replicas[rid]
            for player, p in list(r.players.items()):
                since = r.at_ms or p.at_ms  # its last beat: the same moment on every board that heard it
                self._put(r, rid, PlayerPresence(player, State.OFFLINE, at_ms=since), now, p, died=True)
            del self._replicas[rid]
        return dead

    def refresh(self, now: float) -> None:
        """Count every replica as heard of now: after this board's own connection was down, their
        silence meanwhile says nothing about them."""
        for r in self._replicas.values():
            r.seen = now

    # ------------------------------------------------------------ inside

    def _seen(self, replica: str, now: float) -> _Replica:
        r = self._replicas.get(replica)
        if r is None:
            r = self._replicas[replica] = _Replica(now)
        elif replica != self.replica:
            r.seen = now
        return r

    def _put(
        self,
        r: _Replica,
        replica: str,
        presence: PlayerPresence,
        now: float,
        old: PlayerPresence | None = None,
        died: bool = False,
    ) -> None:
        old = old or r.players.get(presence.player)
        if presence.state is State.OFFLINE:
            r.players.pop(presence.player, None)
            r.said.pop(presence.player, None)
        else:
            r.players[presence.player] = presence
        before = set(old.seats) if old is not None else set()
        after = set(presence.seats)
        for seat in before - after:
            holders = self._holders.get(seat)
            if holders is None:
                continue
            holders.pop(replica, None)
            if not holders:
                del self._holders[seat]
                self.vacancies[seat] = Vacancy(seat, presence.player, replica, presence.at_ms, now, died)
        for seat in after - before:
            self._holders.setdefault(seat, {})[replica] = presence.player
            self.vacancies.pop(seat, None)
        was = set(old.watching) if old is not None else set()
        now_watching = set(presence.watching) if presence.state is not State.OFFLINE else set()
        for table_id in was - now_watching:
            watchers = self._spectators.get(table_id, {})
            replicas = watchers.get(presence.player)
            if replicas is not None:
                replicas.discard(replica)
                if not replicas:
                    del watchers[presence.player]
            if not watchers:
                self._spectators.pop(table_id, None)
        for table_id in now_watching - was:
            self._spectators.setdefault(table_id, {}).setdefault(presence.player, set()).add(replica)

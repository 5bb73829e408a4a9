"""A tournament as an event-sourced aggregate (issue 45.2): its spec, its events, the fold that
rebuilds its state from them and the decisions that say which events a command or a table's end
adds. Pure: no I/O, no clock, no randomness (round 1's draw is a hash of the tournament's id), so
the lobby's unit of work (tournaments.py) and ``okey replay --verify`` fold the same events to the
same standings.

The events, each a JSON object with ``kind``:

| kind | what | carries |
|---|---|---|
| ``created`` | an admin created it | ``spec``, ``by`` |
| ``registered`` / ``unregistered`` | a player's entry fee went in / came back | ``player``, ``seed`` |
| ``started`` | registration closed; the pool is fixed | ``players`` (by seed), ``pool`` |
| ``round_started`` | a round seats its tables | ``round`` |
| ``table_assigned`` | one table of the round | ``round``, ``index``, ``table_id``, ``seats`` ("" a bot) |
| ``table_finished`` | its match ended (MatchEnded) | ``table_id``, ``scores``, ``winners``, ``places`` |
| ``withdrew`` | a player left a tournament table | ``player``, ``round`` |
| ``round_ended`` | every table of the round finished | ``round``, ``out`` (knockout: the players out) |
| ``finished`` | the standings are final, prizes paid | ``standings``, ``prizes``, ``house`` |
| ``cancelled`` | cancelled before it finished, fees refunded | ``reason``, ``refunds`` |
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import combinations
from typing import Any

from okeycore.options import Game, OptionsError, TableOptions
from okeycore.ranking import competition_ranks

from .errors import Refused

__all__ = [
    "KNOCKOUT",
    "SWISS",
    "REGISTERING",
    "RUNNING",
    "FINISHED",
    "CANCELLED",
    "TIE_BREAKS",
    "SEATS",
    "PLACE_POINTS",
    "SIZE_MIN",
    "SIZE_MAX",
    "Spec",
    "SpecError",
    "Decline",
    "Entry",
    "Table",
    "State",
    "fold",
    "apply",
    "standings",
    "opponents_points",
    "applied",
    "prize_amounts",
    "planned_rounds",
    "table_id_for",
    "created",
    "register",
    "unregister",
    "start",
    "table_finished",
    "withdraw",
    "cancel",
]

KNOCKOUT, SWISS = "KNOCKOUT", "SWISS"
REGISTERING, RUNNING, FINISHED, CANCELLED = "REGISTERING", "RUNNING", "FINISHED", "CANCELLED"
SCORE, OPPONENTS, FIRSTS = "SCORE", "OPPONENTS", "FIRSTS"
TIE_BREAKS = (SCORE, OPPONENTS, FIRSTS)
SEATS = 4  # a tournament table's seats: a short table gets bots
PLACE_POINTS = (3, 2, 1, 0)  # SWISS: match points for 1st..4th at a table
PAIRING = 2
"""The SWISS seating rule a new tournament is created with (its spec keeps it, so a tournament
is always replayed by the rule it was played by): 1, neighbours in the standings together; 2,
then swaps between neighbouring tables that seat fewer people together again (:func:`_fewer_rematches`)."""
SIZE_MIN, SIZE_MAX = 8, 256
SWISS_ROUNDS = (2, 9)
DEFAULT_PRIZES = (50, 30, 20)
NAME_MAX = 40


class SpecError(ValueError):
    """A spec no tournament can have; the message says which field and why."""


class Decline(Refused):
    """A command the tournament's state refuses now (FAILED_PRECONDITION), with a stable reason."""


@dataclass(frozen=True)
class Spec:
    name: str
    options: dict[str, Any]  # TableOptions.to_dict()
    size: int
    min_players: int
    starts_at: datetime | None  # None: a sit-and-go
    entry_fee: int
    prize_percent: tuple[int, ...]
    format: str
    swiss_rounds: int
    advance_per_table: int
    tie_breaks: tuple[str, ...]
    pairing: int = PAIRING  # the SWISS seating rule (PAIRING); 1 for a spec stored before it had one

    @property
    def table_options(self) -> TableOptions:
        return TableOptions.from_dict(self.options, stored=True)

    @property
    def higher_is_better(self) -> bool:
        """Classic counts points left (more is better); 101 counts penalty points."""
        return self.table_options.game is Game.OKEY

    def validated(self, max_fee: int) -> Spec:
        """The spec with its defaults filled in, or SpecError naming the first field that cannot be."""
        name = " ".join(self.name.split())
        if not 3 <= len(name) <= NAME_MAX:
            raise SpecError(f"name must be 3 to {NAME_MAX} characters")
        try:
            options = self.table_options.validated()
        except OptionsError as exc:
            raise SpecError(f"options: {exc}") from None
        if options.seat_count != SEATS or options.partners or options.duel:
            raise SpecError("options: a tournament table has four seats, neither partners nor duel")
        if options.stake or options.hand_prize:
            raise SpecError("options: a tournament table has no stake and no hand prize (the entry fee is the stake)")
        if not SIZE_MIN <= self.size <= SIZE_MAX:
            raise SpecError(f"size must be between {SIZE_MIN} and {SIZE_MAX}")
        least = self.min_players or SIZE_MIN
        if self.starts_at is None:
            least = self.size
        elif not SIZE_MIN <= least <= self.size:
            raise SpecError(f"min_players must be between {SIZE_MIN} and size ({self.size})")
        if not 0 <= self.entry_fee <= max_fee:
            raise SpecError(f"entry_fee must be between 0 and {max_fee:,}")
        prizes = tuple(self.prize_percent) or DEFAULT_PRIZES
        if any(not 1 <= p <= 100 for p in prizes) or sum(prizes) > 100:
            raise SpecError("prize_percent: each share 1..100, summing to at most 100")
        if len(prizes) > least:
            raise SpecError(
                f"prize_percent pays {len(prizes)} places; at most {least} (the fewest players it starts with)"
            )
        if self.format not in (KNOCKOUT, SWISS):
            raise SpecError("format must be KNOCKOUT or SWISS")
        rounds = self.swiss_rounds or 3
        if self.format == SWISS and not SWISS_ROUNDS[0] <= rounds <= SWISS_ROUNDS[1]:
            raise SpecError(f"swiss_rounds must be between {SWISS_ROUNDS[0]} and {SWISS_ROUNDS[1]}")
        advance = self.advance_per_table or 2
        if advance not in (1, 2):
            raise SpecError("advance_per_table must be 1 or 2")
        ties = tuple(self.tie_breaks) or TIE_BREAKS
        if any(t not in TIE_BREAKS for t in ties) or len(set(ties)) != len(ties):
            raise SpecError(f"tie_breaks: each of {', '.join(TIE_BREAKS)} at most once")
        return replace(
            self,
            name=name,
            options=options.to_dict(),
            min_players=least,
            prize_percent=prizes,
            swiss_rounds=rounds if self.format == SWISS else 0,
            advance_per_table=advance if self.format == KNOCKOUT else 0,
            tie_breaks=ties,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "options": self.options,
            "size": self.size,
            "min_players": self.min_players,
            "starts_at": self.starts_at.isoformat() if self.starts_at else None,
            "entry_fee": self.entry_fee,
            "prize_percent": list(self.prize_percent),
            "format": self.format,
            "swiss_rounds": self.swiss_rounds,
            "advance_per_table": self.advance_per_table,
            "tie_breaks": list(self.tie_breaks),
            "pairing": self.pairing,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Spec:
        return cls(
            name=d["name"],
            options=d["options"],
            size=d["size"],
            min_players=d["min_players"],
            starts_at=datetime.fromisoformat(d["starts_at"]) if d.get("starts_at") else None,
            entry_fee=d["entry_fee"],
            prize_percent=tuple(d["prize_percent"]),
            format=d["format"],
            swiss_rounds=d["swiss_rounds"],
            advance_per_table=d["advance_per_table"],
            tie_breaks=tuple(d["tie_breaks"]),
            pairing=d.get("pairing", 1),  # stored before the rule had a number: the first rule
        )


@dataclass
class Entry:
    """A registered player's line: what the standings rank by."""

    player_id: str
    seed: int
    match_points: int = 0
    score: int = 0  # in the game's direction: more is better (101's penalty points negated)
    firsts: int = 0
    met: list[str] = field(default_factory=list)  # the people met at the tables, once per table
    reached: int = 0  # the last round the player was seated in
    last_place: int = 0  # the place at that round's table
    out_in_round: int = 0  # KNOCKOUT: out after this round
    withdrew: bool = False
    prize: int = 0


@dataclass
class Table:
    round: int
    index: int
    table_id: str
    seats: tuple[str, ...]  # player ids, "" a bot
    finished: bool = False
    scores: tuple[int, ...] = ()
    places: tuple[int, ...] = ()


@dataclass
class State:
    tournament_id: str
    spec: Spec
    created_by: str
    status: str = REGISTERING
    version: int = 0
    entries: dict[str, Entry] = field(default_factory=dict)  # registered now, by player
    next_seed: int = 1
    pool: int = 0
    round: int = 0
    tables: dict[str, Table] = field(default_factory=dict)  # by table id, in the order assigned
    final: list[str] = field(default_factory=list)  # the final standings (FINISHED)
    house: int = 0
    refunds: dict[str, int] = field(default_factory=dict)
    cancelled_reason: str = ""

    def in_round(self, round_: int) -> list[Table]:
        return [t for t in self.tables.values() if t.round == round_]

    def in_play(self) -> list[Entry]:
        """The players the next round seats: not withdrawn, and (KNOCKOUT) not out."""
        return [e for e in self.entries.values() if not e.withdrew and not e.out_in_round]

    def table_of(self, player_id: str) -> Table | None:
        """The player's table in the current round."""
        return next((t for t in self.in_round(self.round) if player_id in t.seats), None)


# ------------------------------------------------------------------ the fold


def fold(tournament_id: str, events: Sequence[dict[str, Any]]) -> State:
    """The state after ``events`` (the first one ``created``)."""
    first = events[0]
    if first["kind"] != "created":
        raise ValueError(f"tournament {tournament_id}: the first event is {first['kind']!r}, not 'created'")
    state = State(tournament_id, Spec.from_dict(first["spec"]), first.get("by", ""))
    state.version = 1
    for ev in events[1:]:
        apply(state, ev)
    return state


def apply(state: State, ev: dict[str, Any]) -> None:
    """One event onto ``state`` (in place)."""
    kind = ev["kind"]
    state.version += 1
    if kind == "registered":
        state.entries[ev["player"]] = Entry(ev["player"], ev["seed"])
        state.next_seed = max(state.next_seed, ev["seed"] + 1)
    elif kind == "unregistered":
        state.entries.pop(ev["player"], None)
    elif kind == "started":
        state.status = RUNNING
        state.pool = ev["pool"]
    elif kind == "round_started":
        state.round = ev["round"]
    elif kind == "table_assigned":
        seats = tuple(ev["seats"])
        state.tables[ev["table_id"]] = Table(ev["round"], ev["index"], ev["table_id"], seats)
        for p in seats:
            if p in state.entries:
                state.entries[p].reached = ev["round"]
    elif kind == "table_finished":
        _table_finished(state, ev)
    elif kind == "withdrew":
        if ev["player"] in state.entries:
            state.entries[ev["player"]].withdrew = True
    elif kind == "round_ended":
        for p in ev.get("out", []):
            if p in state.entries:
                state.entries[p].out_in_round = ev["round"]
    elif kind == "finished":
        state.status = FINISHED
        state.final = list(ev["standings"])
        state.house = ev["house"]
        for p, chips in ev["prizes"]:
            state.entries[p].prize = chips
    elif kind == "cancelled":
        state.status = CANCELLED
        state.cancelled_reason = ev["reason"]
        state.refunds = {p: chips for p, chips in ev["refunds"]}
    elif kind != "created":
        raise ValueError(f"unknown tournament event {kind!r}")


def _table_finished(state: State, ev: dict[str, Any]) -> None:
    table = state.tables[ev["table_id"]]
    table.finished = True
    table.scores = tuple(ev["scores"])
    table.places = tuple(ev["places"])
    sign = 1 if state.spec.higher_is_better else -1
    people = [p for p in table.seats if p in state.entries]
    for seat, p in enumerate(table.seats):
        e = state.entries.get(p)
        if e is None:
            continue
        place = table.places[seat]
        e.last_place = place
        e.match_points += PLACE_POINTS[min(place, SEATS) - 1]
        e.score += sign * table.scores[seat]
        e.firsts += place == 1
        e.met.extend(o for o in people if o != p)


# ------------------------------------------------------------------ ranking and prizes


def opponents_points(state: State, e: Entry) -> int:
    """The match points of the people ``e`` met (Buchholz; one who unregistered counts none)."""
    return sum(state.entries[o].match_points for o in e.met if o in state.entries)


def _ties(state: State, e: Entry) -> tuple[int, ...]:
    """The spec's tie-breaks for ``e``, each as "smaller sorts first"."""
    out = []
    for t in state.spec.tie_breaks:
        if t == SCORE:
            out.append(-e.score)
        elif t == OPPONENTS:
            out.append(-opponents_points(state, e))
        else:
            out.append(-e.firsts)
    return tuple(out)


def standings(state: State) -> list[Entry]:
    """Every registered player, ranked: the final order once finished; before, as it stands.
    KNOCKOUT: the further a player got, the better, then the place at that round's table;
    SWISS: match points. Then the spec's tie-breaks, then the registration order. A player who
    withdrew ranks below every player who did not."""
    if state.final:
        return [state.entries[p] for p in state.final]
    if state.spec.format == KNOCKOUT:

        def key(e: Entry) -> tuple[int, ...]:
            return (e.withdrew, -e.reached, e.last_place or SEATS + 1, *_ties(state, e), e.seed)

    else:

        def key(e: Entry) -> tuple[int, ...]:
            return (e.withdrew, -e.match_points, *_ties(state, e), e.seed)

    return sorted(state.entries.values(), key=key)


def prize_amounts(pool: int, percents: Sequence[int]) -> tuple[list[int], int]:
    """Chips per place (rounded down) and what is left to the house."""
    prizes = [pool * p // 100 for p in percents]
    return prizes, pool - sum(prizes)


def planned_rounds(spec: Spec, players: int) -> int:
    """SWISS: its rounds; KNOCKOUT: the rounds ``players`` need to reach the final table."""
    if spec.format == SWISS:
        return spec.swiss_rounds
    rounds, n = 1, players
    while n > SEATS:
        n = min(n - 1, math.ceil(n / SEATS) * spec.advance_per_table)
        rounds += 1
    return rounds


def table_id_for(tournament_id: str, round_: int, index: int) -> str:
    """A round's table id: the same tournament and round always seat the same ids."""
    return f"{tournament_id}-{round_}-{index + 1}"


# ------------------------------------------------------------------ decisions


def created(spec: Spec, by: str) -> dict[str, Any]:
    return {"kind": "created", "spec": spec.to_dict(), "by": by}


def register(state: State, player_id: str) -> list[dict[str, Any]]:
    if state.status != REGISTERING:
        raise Decline("Kayıtlar kapandı. (Registration is closed.)", "NOT_REGISTERING")
    if player_id in state.entries:
        raise Decline("Bu turnuvaya zaten kayıtlısın. (You are registered already.)", "ALREADY_REGISTERED")
    if len(state.entries) >= state.spec.size:
        raise Decline("Turnuva dolu, yer kalmadı. (The tournament is full.)", "TOURNAMENT_FULL")
    events = [{"kind": "registered", "player": player_id, "seed": state.next_seed}]
    if state.spec.starts_at is None and len(state.entries) + 1 == state.spec.size:
        after = applied(state, events)
        events += start(after)
    return events


def unregister(state: State, player_id: str) -> list[dict[str, Any]]:
    if state.status != REGISTERING:
        raise Decline("Turnuva başladı; kayıt silinemez. (It has started.)", "NOT_REGISTERING")
    entry = state.entries.get(player_id)
    if entry is None:
        raise Decline("Bu turnuvaya kayıtlı değilsin. (You are not registered.)", "NOT_REGISTERED")
    return [{"kind": "unregistered", "player": player_id, "seed": entry.seed}]


def start(state: State) -> list[dict[str, Any]]:
    """Close registration and seat round 1; a scheduled tournament short of players is cancelled."""
    players = [e.player_id for e in sorted(state.entries.values(), key=lambda e: e.seed)]
    if len(players) < state.spec.min_players:
        return cancel(state, f"too few players: {len(players)} of at least {state.spec.min_players}")
    events: list[dict[str, Any]] = [
        {"kind": "started", "players": players, "pool": state.spec.entry_fee * len(players)}
    ]
    return events + _seat_round(applied(state, events), 1)


def _seat_round(state: State, round_: int) -> list[dict[str, Any]]:
    """The round's tables: ``ceil(n / 4)`` of them, their sizes differing by at most one. Round 1
    draws the order by a hash of the tournament's id; later rounds seat by standing: SWISS puts
    neighbours in the standings together (and, by the spec's ``pairing`` 2, then seats fewer
    people together again), KNOCKOUT spreads them (snake order)."""
    field_ = state.in_play()
    if round_ == 1:
        order = sorted(field_, key=lambda e: hashlib.sha256(f"{state.tournament_id}:{e.seed}".encode()).digest())
    else:
        playing = {e.player_id for e in field_}
        order = [e for e in standings(state) if e.player_id in playing]
    n = len(order)
    count = math.ceil(n / SEATS)
    groups: list[list[str]] = [[] for _ in range(count)]
    if state.spec.format == SWISS:
        sizes = [n // count + (1 if i < n % count else 0) for i in range(count)]
        at = 0
        for i, size in enumerate(sizes):
            groups[i] = [e.player_id for e in order[at : at + size]]
            at += size
        if round_ > 1 and state.spec.pairing >= 2:
            groups = _fewer_rematches(groups, [e.player_id for e in order], state.entries)
    else:
        for k, e in enumerate(order):
            lap, i = divmod(k, count)
            groups[i if lap % 2 == 0 else count - 1 - i].append(e.player_id)
    events: list[dict[str, Any]] = [{"kind": "round_started", "round": round_}]
    for i, group in enumerate(groups):
        seats = group + [""] * (SEATS - len(group))
        tid = table_id_for(state.tournament_id, round_, i)
        events.append({"kind": "table_assigned", "round": round_, "index": i + 1, "table_id": tid, "seats": seats})
    return events


def _fewer_rematches(groups: list[list[str]], order: list[str], entries: dict[str, Entry]) -> list[list[str]]:
    """SWISS tables seated by standing, changed by swaps of one player between neighbouring tables
    while a swap seats fewer pairs who have met before together (a pair met twice counts twice).
    Of the swaps that gain, the most gaining is made, then the one between players closest in
    the standings, then the first from the top. Every swap lowers the count, so it ends; the
    tables' sizes, and each table's seats in standing order, stay."""
    rank = {p: i for i, p in enumerate(order)}
    met = {p: Counter(entries[p].met) for p in order}

    def repeats(group: Sequence[str]) -> int:
        return sum(met[a][b] for a, b in combinations(group, 2))

    tables = [list(g) for g in groups]
    swapped = True
    while swapped:
        swapped = False
        for i in range(len(tables) - 1):
            upper, lower = tables[i], tables[i + 1]
            now = repeats(upper) + repeats(lower)
            if now == 0:
                continue
            best: tuple[int, int, int, int] | None = None  # (-gain, distance, x, y)
            for x, a in enumerate(upper):
                for y, b in enumerate(lower):
                    up = [*upper[:x], b, *upper[x + 1 :]]
                    down = [*lower[:y], a, *lower[y + 1 :]]
                    gain = now - repeats(up) - repeats(down)
                    if gain > 0:
                        key = (-gain, abs(rank[a] - rank[b]), x, y)
                        if best is None or key < best:
                            best = key
            if best is not None:
                _, _, x, y = best
                upper[x], lower[y] = lower[y], upper[x]
                upper.sort(key=rank.__getitem__)
                lower.sort(key=rank.__getitem__)
                swapped = True
    return tables


def table_finished(state: State, table_id: str, scores: Sequence[int], winners: Sequence[int]) -> list[dict[str, Any]]:
    """A tournament table's MatchEnded: its result, and when it was the round's last, the round's
    end and what follows (the next round, or the end). Nothing for a table already recorded or
    not of the running round (a redelivery)."""
    table = state.tables.get(table_id)
    if state.status != RUNNING or table is None or table.finished or table.round != state.round:
        return []
    places = competition_ranks(list(scores), set(winners), higher_is_better=state.spec.higher_is_better)
    events: list[dict[str, Any]] = [
        {
            "kind": "table_finished",
            "table_id": table_id,
            "scores": list(scores),
            "winners": list(winners),
            "places": list(places),
        }
    ]
    after = applied(state, events)
    if all(t.finished for t in after.in_round(after.round)):
        events += _round_ended(after)
    return events


def _round_ended(state: State) -> list[dict[str, Any]]:
    round_ = state.round
    out: list[str] = []
    if state.spec.format == KNOCKOUT:
        tables = state.in_round(round_)
        final = len(tables) == 1
        for t in tables:
            people = [state.entries[p] for p in t.seats if p in state.entries and not state.entries[p].withdrew]
            people.sort(key=lambda e: (e.last_place, *_ties(state, e), e.seed))
            keep = len(people) if final else state.spec.advance_per_table
            out += [e.player_id for e in people[keep:]]
    events: list[dict[str, Any]] = [{"kind": "round_ended", "round": round_, "out": out}]
    after = applied(state, events)
    left = after.in_play()
    done = len(after.in_round(round_)) == 1 if state.spec.format == KNOCKOUT else round_ >= state.spec.swiss_rounds
    if done or len(left) < 2:
        return events + _finish(after)
    return events + _seat_round(after, round_ + 1)


def _finish(state: State) -> list[dict[str, Any]]:
    ranked = standings(state)
    amounts, house = prize_amounts(state.pool, state.spec.prize_percent)
    prizes: list[list[Any]] = []
    for place, chips in enumerate(amounts):
        if place < len(ranked) and not ranked[place].withdrew:
            prizes.append([ranked[place].player_id, chips])
        else:
            house += chips  # a place no player who stayed in reached
    return [{"kind": "finished", "standings": [e.player_id for e in ranked], "prizes": prizes, "house": house}]


def withdraw(state: State, player_id: str, table_id: str) -> list[dict[str, Any]]:
    """A player who left their table of the round being played: in no later round, no prize.
    Nothing for a SeatLeft at another table, or at a table whose match already ended."""
    e = state.entries.get(player_id)
    table = state.tables.get(table_id)
    if state.status != RUNNING or e is None or e.withdrew or table is None:
        return []
    if table.round != state.round or table.finished or player_id not in table.seats:
        return []
    return [{"kind": "withdrew", "player": player_id, "round": state.round}]


def cancel(state: State, reason: str) -> list[dict[str, Any]]:
    if state.status in (FINISHED, CANCELLED):
        raise Decline("Turnuva çoktan bitti. (The tournament is over.)", "NOT_RUNNING")
    refunds = [[e.player_id, state.spec.entry_fee] for e in sorted(state.entries.values(), key=lambda e: e.seed)]
    return [{"kind": "cancelled", "reason": reason, "refunds": [r for r in refunds if r[1]]}]


def applied(state: State, events: Sequence[dict[str, Any]]) -> State:
    """``state`` with ``events`` applied, on a copy (the decisions look ahead without changing it)."""
    copy = State(
        state.tournament_id,
        state.spec,
        state.created_by,
        state.status,
        state.version,
        {p: replace(e, met=list(e.met)) for p, e in state.entries.items()},
        state.next_seed,
        state.pool,
        state.round,
        {k: replace(t) for k, t in state.tables.items()},
        list(state.final),
        state.house,
        dict(state.refunds),
        state.cancelled_reason,
    )
    for ev in events:
        apply(copy, ev)
    return copy

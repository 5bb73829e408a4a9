"""The ``coaching_notes`` table of ``okey export --all`` (issue 46): okeycore's coaching notes
(``okeycore.coaching.coach``) of every hand that ended, one row per note, and the
``missed-finishes`` question ``okey analytics`` asks of them.

``NoteRows`` keeps each table's log as okeycore events while its match is in play (a draw or a
discard as its stored JSON, decoded only when a hand ends) and, at each hand's end (finished,
deck-exhausted or voided), coaches the hand from that log, as ``okey serve``'s replays do. The
cost is bounded per hand by ``coach``'s own ``limit`` (notes) and ``budget`` (questions to the
solver); a hand that hit either is counted in ``truncated``. A hand the coach cannot judge (a
log it refuses) is counted in ``failed`` and writes no row; the table's other rows are written
as ever.

A note is written only once its hand has ended, when the hand's end reveals the deal to anyone
(the deal order and salt of the fairness proof), so the table shows what a spectator could work
out by then."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from okeycore import okey101
from okeycore.coaching import coach
from okeycore.events import HandEnded, MatchEnded, SeatLeft, TableCreated, event_from_dict

from .datasets import PlayerIds, Row, tile_code

__all__ = ["COACH_BUDGET", "COACH_LIMIT", "NoteRows", "MISSED_FINISHES_SQL", "MISSED_FINISHES_NOTE"]

COACH_LIMIT = 200
"""Notes per hand at most (``coach``'s ``limit``)."""
COACH_BUDGET = 5000
"""Questions to the solver per hand at most (``coach``'s ``budget``)."""

_HAND_ENDS = frozenset({HandEnded.type, okey101.HandEnded101.type, okey101.HandVoided.type})


@dataclass(slots=True)
class _Log:
    game: str
    bot_level: str
    players: tuple[str | None, ...]  # opaque ids, None for a bot seat
    events: list[tuple[int, Any]] = field(default_factory=list)  # (version, Event) or (version, (kind, text))
    decoded: int = 0  # events[:decoded] are all okeycore events
    left: dict[int, int] = field(default_factory=dict)  # seat -> the version of its SeatLeft
    folded: tuple[Any, int] | None = None  # the state after the last hand coached (Coaching.after)


class NoteRows:
    """Folds tables' events as they are read, in version order, and adds a ``coaching_notes``
    row to ``rows`` for every note of every hand that ends (``quiet``: an event an earlier run
    wrote, kept for the fold, no row)."""

    def __init__(self, ids: PlayerIds, rows: list[Row], limit: int = COACH_LIMIT, budget: int = COACH_BUDGET) -> None:
        self.ids = ids
        self.rows = rows
        self.limit, self.budget = limit, budget
        self.tables: dict[str, _Log] = {}
        self.hands = 0  # hands coached
        self.notes = 0
        self.truncated = 0  # hands whose notes stopped at the limit or the budget
        self.failed: dict[str, str] = {}  # table -> why a hand of it could not be coached (the last one)
        self.seconds = 0.0  # spent in coach()

    def forget(self, table_id: str) -> None:
        self.tables.pop(table_id, None)

    def feed_move(self, table_id: str, version: int, kind: str, text: str) -> None:
        """A draw or a discard, as its stored JSON: decoded only if a hand's end needs it."""
        log = self.tables.get(table_id)
        if log is not None:
            log.events.append((version, (kind, text)))

    def feed(
        self, table_id: str, version: int, kind: str, data: dict[str, Any], at: datetime, quiet: bool = False
    ) -> None:
        """Any event of the table (``data``: its stored fields)."""
        log = self.tables.get(table_id)
        if log is None:
            if kind != TableCreated.type:
                return  # a table met in the middle (parked, or of another game): not coached
            ev = event_from_dict({"type": kind, **data})
            assert isinstance(ev, TableCreated)
            n = ev.options.seat_count
            log = self.tables[table_id] = _Log(
                game=ev.options.game.value,
                bot_level=ev.options.bot_level.value,
                players=tuple(self.ids(p) for p in (*ev.players, *[""] * n)[:n]),
            )
            log.events.append((version, ev))
            log.decoded = 1
            return
        if kind == MatchEnded.type:
            del self.tables[table_id]
            return
        if kind == SeatLeft.type:
            log.left.setdefault(int(data["seat"]), version)
        log.events.append((version, (kind, data)))
        if kind in _HAND_ENDS and not quiet:
            self._coach(table_id, log, int(data["hand"]), at)

    def _coach(self, table_id: str, log: _Log, hand: int, at: datetime) -> None:
        t0 = time.perf_counter()
        try:
            events = log.events
            for i in range(log.decoded, len(events)):
                version, (kind, raw) = events[i]
                fields = json.loads(raw) if isinstance(raw, str) else raw
                events[i] = (version, event_from_dict({"type": kind, **fields}))
            log.decoded = len(events)
            got = coach(events, hand, limit=self.limit, budget=self.budget, before=log.folded)
            log.folded = got.after
        except (KeyError, ValueError, TypeError, IndexError, AssertionError) as exc:
            self.failed[table_id] = f"hand {hand}: {type(exc).__name__}: {exc}"
            self.tables.pop(table_id, None)  # its log cannot be trusted further
            return
        finally:
            self.seconds += time.perf_counter() - t0
        self.hands += 1
        self.truncated += got.truncated
        self.notes += len(got.notes)
        for note in got.notes:
            self.rows.append(self.row(table_id, log, hand, note, at))

    @staticmethod
    def row(table_id: str, log: _Log, hand: int, note: Any, at: datetime) -> Row:
        seat = note.seat
        player = log.players[seat] if 0 <= seat < len(log.players) else None
        left = log.left.get(seat)
        bot = player is None or (left is not None and left < note.version)
        return (
            table_id,
            hand,
            note.version,
            seat,
            player,
            log.bot_level if bot else None,
            log.game,
            note.kind,
            note.hindsight,
            [tile_code(t) for t in note.tiles],
            note.points,
            note.turns,
            at,
        )


# ------------------------------------------------------------------ okey analytics missed-finishes

MISSED_FINISHES_SQL = """
WITH created AS (
  SELECT table_id, version AS v, data FROM events WHERE type = 'TableCreated'
), left_seats AS (
  SELECT table_id, CAST(json_extract(data, '$.seat') AS INTEGER) AS seat, min(version) AS v
  FROM events WHERE type = 'SeatLeft' GROUP BY ALL
), ends AS (
  SELECT table_id, hand, max(version) AS v FROM events WHERE type IN ('HandEnded', 'HandEnded101') GROUP BY ALL
), finishes AS (
  SELECT h.game,
         CASE WHEN json_extract_string(c.data, '$.players[' || h.finisher || ']') IS NULL
                   OR l.v < e.v
              THEN 'bot ' || (h.options::JSON ->> 'bot_level') ELSE 'person' END AS player,
         count(*) AS finished
  FROM hands h
  JOIN created c USING (table_id)
  LEFT JOIN ends e ON e.table_id = h.table_id AND e.hand = h.hand
  LEFT JOIN left_seats l ON l.table_id = h.table_id AND l.seat = h.finisher
  WHERE h.outcome = 'FINISHED'
  GROUP BY ALL
), missed AS (
  SELECT game, CASE WHEN bot_level IS NULL THEN 'person' ELSE 'bot ' || bot_level END AS player,
         count(*) AS missed
  FROM coaching_notes WHERE kind = 'MISSED_FINISH' AND NOT hindsight
  GROUP BY ALL
)
SELECT CASE game WHEN 'OKEY' THEN 'classic' WHEN 'OKEY101' THEN '101' ELSE game END AS game, player,
       coalesce(missed, 0) + coalesce(finished, 0) AS possible,
       coalesce(finished, 0) AS finished,
       coalesce(missed, 0) AS missed,
       round(100.0 * coalesce(missed, 0) / nullif(coalesce(missed, 0) + coalesce(finished, 0), 0), 1) AS missed_pct
FROM finishes FULL OUTER JOIN missed USING (game, player)
ORDER BY game, player
"""
"""Per game and player kind (``person``, or ``bot LEVEL`` by the table's bot_level): the turns a
finish was possible (missed + finished), the finishes, the missed finishes and their share."""

MISSED_FINISHES_NOTE = (
    "possible = finished + missed: the turns the coach saw a finish the seat could see (its "
    "MISSED_FINISH notes, hindsight ones left out) plus the hands the seat finished (a finish is "
    "possible by definition); okeycore.coaching judges no other turn, so a turn with no finish in "
    "reach is in neither. A seat a bot played after its player left counts as a bot from that "
    "event on. Only hands coached by the export are in `missed` (exports since issue 46)."
)

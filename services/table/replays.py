"""Replays of finished hands [D-12] (issue 46): who may read one, the hand's events in full, the
deal's fairness proof checked, and okeycore's coaching notes, computed once per hand on this
replica (an LRU of ``CACHED`` hands) within okeycore's own bounds (``coach``'s limit and budget),
in a worker thread so the event loop keeps serving moves.

Access, decided here from the log itself: the players of the table (TableCreated.players) once
that hand has ended; anyone once the match has ended when the lobby opened the table public
(TableCreated.public); staff who inspect tables and services likewise once the hand has ended.
Nothing of a hand in progress, ever (HAND_NOT_ENDED to its players, REPLAY_NOT_ALLOWED to the rest)."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from okeycore.coaching import Coaching, coach
from okeycore.events import Event, MatchEnded, TableCreated
from okeycore.fairness import verify_commitment
from okeycore.kernel.events import HandEnd, HandStarted
from okeyplatform.auth import Identity, can
from okeyplatform.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from okeyplatform.eventstore import StoredEvent

__all__ = ["Replay", "Replays", "CACHED"]

CACHED = 512  # hands whose notes a replica keeps


@dataclass(frozen=True)
class Replay:
    created: TableCreated
    started: HandStarted
    ended: Event  # the game's hand end (HandEnded, HandEnded101) or HandVoided
    pairs: list[tuple[StoredEvent, Event]]  # the hand's events, HandStarted to its end
    order: tuple[int, ...]
    salt: str
    verified: bool
    coaching: Coaching


def _hand_of(event: Event) -> int | None:
    hand = getattr(event, "hand", None)
    return hand if isinstance(hand, int) else None


class Replays:
    def __init__(self) -> None:
        self._notes: OrderedDict[tuple[str, int], Coaching] = OrderedDict()

    async def replay(self, pairs: Sequence[tuple[StoredEvent, Event]], hand: int, who: Identity) -> Replay:
        """``pairs``: the table's whole log so far."""
        if hand < 1:
            raise InvalidArgument("hand: 1 for the first hand")
        created = pairs[0][1]
        if not isinstance(created, TableCreated):
            raise NotFound("no such table", "TABLE_NOT_FOUND")
        player = who.subject in created.players and bool(who.subject)
        trusted = who.is_service or can(who, "tables.inspect")
        match_over = any(isinstance(e, MatchEnded) for _, e in pairs)
        if not (player or trusted or (created.public and match_over)):
            raise PermissionDenied(
                "Bu elin kaydını yalnız masanın oyuncuları görebilir; herkese açık bir masanınkini maç "
                "bitince herkes. (Only the table's players may replay its hands; a public table's, "
                "anyone once its match has ended.)",
                "REPLAY_NOT_ALLOWED",
            )
        starts = [i for i, (_, e) in enumerate(pairs) if isinstance(e, HandStarted) and e.hand == hand]
        if not starts:
            raise NotFound(f"the table has no hand {hand}", "HAND_NOT_FOUND")
        start = starts[-1]  # a voided 101 hand is dealt again under its number [O-PEN-4]: the last deal
        end = next((i for i in range(start + 1, len(pairs)) if _is_end(pairs[i][1], hand)), None)
        if end is None:
            raise FailedPrecondition(
                "Bu el sürüyor; bitince izlenebilir. (This hand is being played: replay it once it ends.)",
                "HAND_NOT_ENDED",
            )
        started = pairs[start][1]
        assert isinstance(started, HandStarted)
        ended = pairs[end][1]
        order = tuple(getattr(ended, "order", ()) or ())
        salt = str(getattr(ended, "salt", "") or "")
        verified = bool(started.commitment) and verify_commitment(started.commitment, order, salt)
        key = (created.table_id, hand)
        notes = self._notes.get(key)
        if notes is None:
            log = [(st.version, ev) for st, ev in pairs[: end + 1]]
            notes = await asyncio.to_thread(coach, log, hand)
            self._notes[key] = notes
            while len(self._notes) > CACHED:
                self._notes.popitem(last=False)
        self._notes.move_to_end(key)
        return Replay(created, started, ended, list(pairs[start : end + 1]), order, salt, verified, notes)


def _is_end(event: Event, hand: int) -> bool:
    """The end of ``hand``: the game's hand end, or a 101 hand voided."""
    return (isinstance(event, HandEnd) or event.type == "HandVoided") and _hand_of(event) == hand

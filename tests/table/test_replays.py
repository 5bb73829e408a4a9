"""Who may replay a hand, and what a replay holds [D-12] (services/table/replays.py), on the log of
a real okeycore match: the table's players once that hand has ended; anyone once the match has
ended when the lobby opened the table public; staff and services once the hand has ended; never a
hand in progress, to anyone. A replay holds every rack as dealt and every event of the hand, from
its deal to its end."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest
from okeycore.classic.strategy import STRATEGIES
from okeycore.events import Event, HandStarted, MatchEnded, TableCreated
from okeycore.kernel.events import HandEnd
from okeycore.options import Game, TableOptions
from okeycore.simulate import Simulator
from okeyplatform.auth import Identity
from okeyplatform.errors import AppError
from okeyplatform.eventstore import StoredEvent

from services.table.replays import Replays

PLAYERS = ("p-ayse", "p-mehmet", "", "")
AYSE, STRANGER = Identity("p-ayse", "player"), Identity("p-yabanci", "player")
STAFF, SERVICE = Identity("m-1", "moderator"), Identity("svc-lobby", "service")


def _match(seed: int = 7) -> list[Event]:
    options = TableOptions(game=Game.OKEY, match_points=4, hand_break_seconds=0)
    sim = Simulator(options, [STRATEGIES["greedy"](seed=s) for s in range(4)], seed, players=PLAYERS)
    return sim.play_match().events


def _log(events: list[Event], public: bool = False) -> list[tuple[StoredEvent, Event]]:
    created = events[0]
    assert isinstance(created, TableCreated)
    events = [replace(created, public=public), *events[1:]]
    pairs, hand = [], 0
    for v, e in enumerate(events, start=1):
        if isinstance(e, HandStarted):
            hand = e.hand
        stored = StoredEvent("t-replay", v, e.type, {}, hand, v, (1, v), datetime.now(UTC))
        pairs.append((stored, e))
    return pairs


def _cut_mid_hand(pairs: list[tuple[StoredEvent, Event]], hand: int) -> list[tuple[StoredEvent, Event]]:
    """The log as it stood a few moves into ``hand``."""
    start = next(i for i, (_, e) in enumerate(pairs) if isinstance(e, HandStarted) and e.hand == hand)
    return pairs[: start + 5]


async def _refused(pairs: list[tuple[StoredEvent, Event]], hand: int, who: Identity) -> str:
    with pytest.raises(AppError) as err:
        await Replays().replay(pairs, hand, who)
    return err.value.reason


async def test_a_player_replays_an_ended_hand_with_every_rack_as_dealt():
    """[D-12] the table's players, once the hand has ended: the racks dealt, the hand's events."""
    events = _match()
    assert any(isinstance(e, MatchEnded) for e in events)
    pairs = _log(events)
    r = await Replays().replay(pairs, 1, AYSE)
    started = next(e for e in events if isinstance(e, HandStarted) and e.hand == 1)
    assert r.started == started and r.started.racks == started.racks
    kinds = [e for _, e in r.pairs]
    assert kinds[0] == started and isinstance(kinds[-1], HandEnd) and kinds[-1].hand == 1
    assert all(st.hand == 1 for st, _ in r.pairs)


async def test_a_hand_in_progress_reaches_no_one():
    """[D-12] never a hand in progress: its players hear it is not over, everyone else is refused,
    even staff and services, even at a public table."""
    pairs = _cut_mid_hand(_log(_match(), public=True), 2)
    assert await _refused(pairs, 2, AYSE) == "HAND_NOT_ENDED"
    assert await _refused(pairs, 2, STAFF) == "HAND_NOT_ENDED"
    assert await _refused(pairs, 2, SERVICE) == "HAND_NOT_ENDED"
    assert await _refused(pairs, 2, STRANGER) == "REPLAY_NOT_ALLOWED"
    assert (await Replays().replay(pairs, 1, AYSE)).started.hand == 1  # the hand before it has ended


async def test_a_stranger_replays_only_a_public_table_and_only_once_its_match_ended():
    """[D-12] for a public table, anyone once its match has ended; a private one, never."""
    events = _match()
    assert await _refused(_log(events, public=False), 1, STRANGER) == "REPLAY_NOT_ALLOWED"
    public = _log(events, public=True)
    assert (await Replays().replay(public, 1, STRANGER)).started.hand == 1
    over = next(i for i, (_, e) in enumerate(public) if isinstance(e, MatchEnded))
    before_end = public[:over]  # every hand but the match's end
    assert await _refused(before_end, 1, STRANGER) == "REPLAY_NOT_ALLOWED"
    assert (await Replays().replay(before_end, 1, AYSE)).started.hand == 1


async def test_staff_and_services_replay_ended_hands_and_bad_hands_are_named():
    pairs = _log(_match())
    assert (await Replays().replay(pairs, 1, STAFF)).started.hand == 1
    assert (await Replays().replay(pairs, 1, SERVICE)).started.hand == 1
    assert await _refused(pairs, 99, AYSE) == "HAND_NOT_FOUND"
    assert await _refused(pairs, 0, AYSE) == "INVALID_ARGUMENT"

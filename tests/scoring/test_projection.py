"""The projection and the log verifier as pure code: scripted matches with hand-computed
scores, every event type accounted for, unknown types refused, changed results caught."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import okeycore.okey101  # noqa: F401  (registers the 101 events; an import error must fail, not skip)
import pytest
from okeycore.events import EVENT_TYPES, HandEnded, event_to_dict
from okeycore.options import RULES_VERSION
from okeytools.replay import LogVerifier
from scoring_helpers import match_a, match_b, simulated

from services.scoring.projection import HANDLED, IGNORED, Projection, UnknownEventType

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def project(*scripts: object) -> Projection:
    p = Projection()
    for sc in scripts:
        for v, e in enumerate(sc.events, 1):  # type: ignore[attr-defined]
            p.apply(sc.table_id, v, NOW, e)  # type: ignore[attr-defined]
    return p


def test_every_okeycore_event_type_is_either_projected_or_known_to_change_no_score() -> None:
    classes = set(EVENT_TYPES.values())
    assert classes <= HANDLED | IGNORED, classes - HANDLED - IGNORED
    assert not HANDLED & IGNORED


def test_the_log_s_json_and_the_decoded_events_project_alike() -> None:
    """``okey replay`` projects the log's JSON (apply_stored), the live projector decoded events
    (apply): the same rows either way."""
    live, stored = Projection(), Projection()
    for sc in (match_a(), match_b()):
        for v, e in enumerate(sc.events, 1):
            live.apply(sc.table_id, v, NOW, e)
            data = event_to_dict(e)
            stored.apply_stored(sc.table_id, v, NOW, data.pop("type"), data)
    assert live.changes == stored.changes and live.tables == stored.tables


def test_C_SC_2_to_6_hand_results_of_a_scripted_match_are_the_hand_computed_ones() -> None:
    p = project(match_a())
    hands = [(h.seq, h.finisher, h.finish_kinds, h.multiplier, h.deltas, h.total, h.scores) for h in p.changes.hands]
    assert hands == [
        (1, 0, ["OKEY", "PAIRS"], 4, [0, -8, -8, -8], [-1, -9, -8, -9], [19, 11, 12, 11]),
        (2, 1, ["NORMAL"], 1, [-2, 0, -2, -2], [-2, -2, -2, -2], [17, 9, 10, 9]),
        (3, 2, ["OKEY"], 2, [-4, -4, 0, -4], [-4, -4, 0, -4], [13, 5, 10, 5]),
        (4, -1, [], 0, [0, 0, 0, 0], [0, 0, 0, 0], [13, 5, 10, 5]),
        (5, 0, ["OKEY", "PAIRS"], 4, [0, -8, -8, -8], [0, -8, -8, -8], [13, -3, 2, -3]),
    ]
    first, second = p.changes.hands[0], p.changes.hands[1]
    assert first.shows == [{"seat": 2, "deltas": [-1, -1, 0, -1]}] and first.indicator == [-1, -1, 0, -1]
    assert second.penalty_events == [{"seat": 1, "points": 2, "reason": "INVALID_FINISH"}]
    assert second.penalties == [0, 2, 0, 0]
    assert p.changes.hands[3].outcome == "DECK_EXHAUSTED"
    (match,) = p.changes.matches
    assert (match.scores, match.winners, match.pot, match.payout, match.remainder) == ([13, -3, 2, -3], [0], 40, 40, 0)
    assert [(s.seat, s.rank, s.winner, s.payout) for s in p.changes.seats] == [
        (0, 1, True, 40),
        (1, 3, False, 0),
        (2, 2, False, 0),
        (3, 3, False, 0),
    ]
    # the bot in seat 3 gets no stats
    assert sorted(p.changes.players) == [("ali", "OKEY"), ("ayse", "OKEY"), ("mehmet", "OKEY")]


def test_C_SC_7_and_C_SC_9_co_winners_each_get_a_win_and_the_pot_splits_rounding_down() -> None:
    p = project(match_a(), match_b())
    (_, b) = p.changes.matches
    assert (b.winners, b.pot, b.payout, b.remainder) == ([0, 1, 2], 20, 6, 2)
    stats = {k[0]: c for k, c in p.changes.players.items()}
    assert {k: (c.matches, c.wins, c.score_sum, c.chips_won) for k, c in stats.items()} == {
        "ali": (2, 2, 15, 46),
        "ayse": (2, 1, -1, 6),
        "mehmet": (2, 1, 4, 6),
        "zeynep": (1, 0, 0, 0),
    }
    ali, ayse, mehmet = stats["ali"], stats["ayse"], stats["mehmet"]
    assert (ali.hands_played, ali.hands_won, ali.won_normal, ali.won_okey, ali.won_pairs) == (8, 3, 1, 2, 2)
    assert (ayse.hands_won, ayse.won_normal, ayse.penalty_points) == (2, 2, 2)
    assert (mehmet.hands_won, mehmet.won_okey, mehmet.indicator_shows) == (2, 1, 1)
    week = {k: (c.matches, c.wins) for k, c in p.changes.weekly.items()}
    monday = datetime(2026, 11, 23, tzinfo=UTC).date()
    assert week[(monday, "OKEY", "ali")] == (2, 2)


def test_an_unknown_event_type_is_refused_with_the_table_version_and_type() -> None:
    sc = match_b()
    p = Projection()
    p.apply("t", 1, NOW, sc.events[0])
    with pytest.raises(UnknownEventType) as err:
        p.apply_stored("t", 2, NOW, "MeteorStrike", {"seat": 1})
    assert "unknown event type 'MeteorStrike'" in str(err.value) and "version 2" in str(err.value)
    assert p.version("t") == 1


def test_log_verifier_agrees_with_recorded_matches_and_names_a_changed_result() -> None:
    a = match_a()
    sims = [simulated(f"sim-{i}", i, ("p", "q", "", "r"), penalties=True, stake=3) for i in range(3)]
    v = LogVerifier()
    for table_id, events in [(a.table_id, a.events)] + [(f"sim-{i}", ev) for i, ev in enumerate(sims)]:
        for n, e in enumerate(events, 1):
            v.feed(table_id, n, event_to_dict(e))
    assert v.finish() == []
    assert v.checked["hand ends"] >= 5 + 3 and v.checked["match ends"] == 4 and v.checked["indicator shows"] >= 1
    # one changed number anywhere in a result fails, naming the table, version and field
    events = list(a.events)
    i = next(k for k, e in enumerate(events) if isinstance(e, HandEnded) and e.hand == 3)
    events[i] = replace(events[i], deltas=(-4, -4, 0, -5))  # type: ignore[arg-type]
    bad = LogVerifier()
    for n, e in enumerate(events, 1):
        bad.feed("match-a", n, event_to_dict(e))
    problems = bad.finish()
    assert problems and f"table match-a version {i + 1}" in problems[0] and "HandEnded.deltas" in problems[0]


def test_log_verifier_re_decides_okey_101_hand_ends() -> None:
    from scoring_helpers import simulated_101

    v = LogVerifier()
    for i in range(2):
        events = simulated_101(f"t101-{i}", 10 + i, ("p", "q", "r", ""), rounds=3, stake=5)
        for n, e in enumerate(events, 1):
            v.feed(f"t101-{i}", n, event_to_dict(e))
    assert v.finish() == []
    assert v.checked["hand ends"] >= 6 and v.checked["match ends"] == 2


def _old_101_log_with_a_free_take_back_discard() -> list[object]:
    """A 101 table created under rules version 1 (before [O-PEN-1] counted the okey take-back):
    seat 0 opens R11-okey-R13, seat 1 discards the R12 that could take the okey back, unpenalised."""
    from okeycore import okey101 as O
    from okeycore.commands import Discard, Draw
    from okeycore.events import TableCreated
    from okeycore.options import Game, TableOptions
    from okeycore.testing import Table

    t = Table(TableOptions(game=Game.OKEY101, seats=2), table_id="old101")
    t.state = replace(t.state, rules_version=1)
    created = t.events[0]
    assert isinstance(created, TableCreated)
    t.events[0] = replace(created, rules_version=1)
    t.deal(
        [
            "R11 K2 R13 Y11 Y12 Y13 B11 B12 B13 R1 R2 R3 Y1 Y2 Y3 B1 B2 B3 R5 R6 K9 K7",
            "R1 R4 R4 R7 R7 K1 R12 Y2 Y5 Y8 Y8 Y11 Y13 B3 B6 B6 B7 B13 K5 K8 K11",
        ],
        "K1",
        "R5 K13",
    )
    melds = tuple(tuple(t.tile(0, c) for c in m.split()) for m in ("R11 K2 R13", "Y11 Y12 Y13", "B11 B12 B13"))
    t.apply(O.OpenMelds(seat=0, melds=melds))
    t.apply(Discard(seat=0, tile=t.tile(0, "K7")))
    t.apply(Draw(seat=1))
    t.apply(Discard(seat=1, tile=t.tile(1, "R12")))
    return list(t.events)


def test_log_verifier_keeps_an_old_tables_rules_and_reports_what_todays_rules_would_decide() -> None:
    events = _old_101_log_with_a_free_take_back_discard()
    # Written as the code before rules versions wrote it: no rules_version in TableCreated, and
    # the options of both games in its options.
    first = event_to_dict(events[0])  # type: ignore[arg-type]
    del first["rules_version"]
    first["options"] |= {"match_points": 20, "partners": False, "discard_history": "ALL", "deck_end": "DEAD_HAND"}
    v = LogVerifier()
    for n, e in enumerate(events, 1):
        v.feed("old101", n, first if n == 1 else event_to_dict(e))  # type: ignore[arg-type]
    assert v.finish() == []  # the old table is decided under the rules it was created under
    assert v.checked["discards"] == 2
    assert v.rules_difference_count == 1
    (note,) = v.rules_differences
    assert f"rules version 1, now {RULES_VERSION}" in note and "seat 1's discard" in note and "PenaltyApplied" in note
    # The same log claiming today's rules is corrupt: the penalty is missing. (Every discard is
    # re-decided, so a penalty dropped mid-hand is caught, not only at a hand's end.)
    created = events[0]
    new = [replace(created, rules_version=RULES_VERSION), *events[1:]]  # type: ignore[type-var]
    bad = LogVerifier()
    for n, e in enumerate(new, 1):
        bad.feed("new101", n, event_to_dict(e))  # type: ignore[arg-type]
    problems = bad.finish()
    assert problems and "seat 1's discard" in problems[0] and "PenaltyApplied" in problems[0]
    assert bad.rules_difference_count == 0


def _counts(p: Projection, player: str) -> tuple[int, int]:
    c = p.changes.players.get((player, "OKEY"))
    return (c.matches, c.wins) if c is not None else (0, 0)


def test_15_6_only_matches_between_people_count_for_the_leaderboards_and_no_win_a_bot_played_out() -> None:
    """Leaderboard farming: a player alone with bots (a duel's side seats, an all-bot table),
    or on autopilot at the end, collects no ranked win; their hands still count in their stats."""
    from okeycore.events import MatchEnded, TurnTimedOut

    solo = simulated("solo", 11, ("ali", "", "", ""))
    p = Projection()
    for v, e in enumerate(solo, 1):
        p.apply("solo", v, NOW, e)
    end = solo[-1]
    assert isinstance(end, MatchEnded)
    assert _counts(p, "ali") == (0, 0)  # practice, not ranked
    assert p.changes.players[("ali", "OKEY")].hands_played > 0  # the hands are still the player's stats
    assert any(s.player_id == "ali" for s in p.changes.seats)  # and the result is recorded
    # Two people: ranked. The same match where the winner was on autopilot at the end: no win.
    pair = simulated("pair", 11, ("ali", "ayse", "", ""))
    winners = pair[-1].winners  # type: ignore[attr-defined]
    humans = [s for s in winners if s in (0, 1)]
    p = Projection()
    for v, e in enumerate(pair, 1):
        p.apply("pair", v, NOW, e)
    assert _counts(p, "ali")[0] == 1 and _counts(p, "ayse")[0] == 1
    assert sum(_counts(p, who)[1] for who in ("ali", "ayse")) == len(humans)
    if humans:
        seat = humans[0]
        napping = [*pair[:-1], TurnTimedOut(seat, 3, True, 0), pair[-1]]
        p = Projection()
        for v, e in enumerate(napping, 1):
            p.apply("nap", v, NOW, e)
        assert _counts(p, ("ali", "ayse")[seat]) == (1, 0)  # played, not won: a bot played it out


def test_D_10_a_player_who_left_mid_match_loses_it_and_the_others_results_are_unchanged() -> None:
    """[C-LEAVE-1] [D-10]: a leaver's match counts as a loss (never a win, even when the bot that
    played on won it); the other players' results are the MatchEnded's, unchanged."""
    from okeycore.events import MatchEnded, SeatLeft

    players = ("ali", "ayse", "veli", "can")
    match = simulated("left", 11, players)
    end = match[-1]
    assert isinstance(end, MatchEnded)
    # The match as it ended; then the same match where a winning seat's player left in the middle.
    base = Projection()
    for v, e in enumerate(match, 1):
        base.apply("left", v, NOW, e)
    seat = end.winners[0]
    leaver = players[seat]
    middle = len(match) // 2
    left = [*match[:middle], SeatLeft(seat, leaver), *match[middle:]]
    p = Projection()
    for v, e in enumerate(left, 1):
        p.apply("left", v, NOW, e)
    assert p.tables["left"].left_seats == [seat]
    assert _counts(base, leaver) == (1, 1)
    assert _counts(p, leaver) == (1, 0)  # a loss, not a win
    row = next(s for s in p.changes.seats if s.seat == seat)
    assert row.player_id == leaver and not row.winner and row.payout == 0
    for other in players:
        if other != leaver:
            assert _counts(p, other) == _counts(base, other)
    assert p.changes.matches[-1].winners == base.changes.matches[-1].winners  # the table's result stands

"""Issue 45.1: the skill rating checked against data. Bots of known levels play simulated
matches (okeycore's simulators, as tests/core/test_compiled.py plays them); the projection
turns each match into its finishing places and rating.py folds them, as the live projector
and ``okey replay`` do. The bots are rated as if they were people (the farming rules are the
projection's, and not what this checks): the ratings must order hard (the strong strategy) >
normal (greedy) > easy."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import okeycore.okey101  # noqa: F401  (registers the 101 events)
import pytest
from okeycore.events import Event, TableCreated
from okeycore.levels import CLASSIC_LEVELS, LEVELS_101
from okeycore.okey101.simulate import Simulator101
from okeycore.options import BotLevel, Game, TableOptions
from okeycore.simulate import Simulator

from services.scoring.projection import Projection
from services.scoring.rating import Ratings

START = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
# Four seats, three levels: the fourth seat is a second NORMAL bot, its own player. Each match
# seats the four in another order (the starter and the turn order matter in Okey).
PLAYERS = {"hard": BotLevel.HARD, "normal": BotLevel.NORMAL, "easy": BotLevel.EASY, "normal-2": BotLevel.NORMAL}
ORDERS = [
    ("hard", "normal", "easy", "normal-2"),
    ("normal", "easy", "normal-2", "hard"),
    ("easy", "normal-2", "hard", "normal"),
    ("normal-2", "hard", "normal", "easy"),
    ("hard", "easy", "normal", "normal-2"),
    ("easy", "hard", "normal-2", "normal"),
]
MATCHES = {Game.OKEY: 36, Game.OKEY101: 48}  # enough to separate the levels, each game under ~8 s


def _match(game: Game, seed: int) -> list[Event]:
    seated = ORDERS[seed % len(ORDERS)]
    if game is Game.OKEY:
        bots = [CLASSIC_LEVELS[PLAYERS[p]](seed * 4 + i) for i, p in enumerate(seated)]
        sim = Simulator(TableOptions(match_points=8, hand_break_seconds=0), bots, seed, table_id=f"c{seed}")
        events = sim.play_match().events
    else:
        opts = TableOptions(game=Game.OKEY101, seats=4, rounds=3, hand_break_seconds=0)
        bots101 = [LEVELS_101[PLAYERS[p]](seed * 4 + i) for i, p in enumerate(seated)]
        events = Simulator101(opts, bots101, seed, table_id=f"o{seed}").play_match().events
    first = events[0]
    assert isinstance(first, TableCreated)
    return [replace(first, players=seated), *events[1:]]


@pytest.mark.parametrize("game", [Game.OKEY, Game.OKEY101], ids=lambda g: g.value)
def test_the_rating_orders_bots_of_known_levels_hard_above_normal_above_easy(game: Game) -> None:
    proj = Projection()
    for seed in range(MATCHES[game]):
        table_id = f"{game.value}-{seed}"
        for version, event in enumerate(_match(game, seed), 1):
            proj.apply(table_id, version, START + timedelta(minutes=seed), event)
    rated = proj.changes.rated
    assert len(rated) == MATCHES[game]  # every match ended and was rated
    ratings = Ratings()
    for m in rated:
        ratings.apply(m)
    skill = {p: ratings.get(p, game.value) for p in PLAYERS}
    assert all(s.matches == MATCHES[game] for s in skill.values())
    assert skill["hard"].mu > skill["normal"].mu > skill["easy"].mu, skill
    assert skill["hard"].mu > skill["normal-2"].mu > skill["easy"].mu, skill
    assert skill["hard"].display > skill["normal"].display > skill["easy"].display, skill

    # the same matches folded again give the same bits (a rebuild equals the live projection)
    again = Ratings()
    for m in rated:
        again.apply(m)
    assert again.skills == ratings.skills and again.rows == ratings.rows

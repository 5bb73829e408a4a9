"""The bots ask the table to check only ``okeycore.classic.bots.ALLOWED_ASKED`` of a view's ``allowed``
(``AllowedQuery``): every strategy of both games, at every level, asks about no other name."""

from __future__ import annotations

import pytest
from okeycore.classic.bots import ALLOWED_ASKED
from okeycore.classic.strategy import STRATEGIES
from okeycore.kernel.view import Allowed
from okeycore.levels import CLASSIC_LEVELS, LEVELS_101
from okeycore.okey101.strategy import STRATEGIES_101
from okeycore.options import Game, TableOptions
from okeycore.simulate import Simulator

CLASSIC = [*STRATEGIES.values(), *CLASSIC_LEVELS.values()]
OKEY101 = [*STRATEGIES_101.values(), *LEVELS_101.values()]


@pytest.mark.parametrize(("game", "makers"), [(Game.OKEY, CLASSIC), (Game.OKEY101, OKEY101)], ids=["okey", "okey101"])
def test_every_strategy_asks_allowed_only_about_the_names_the_bots_ask_the_table_for(
    game: Game, makers: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: set[str] = set()
    contains = Allowed.__contains__
    names = Allowed.names

    def spy_contains(self: Allowed, name: object) -> bool:
        asked.add(str(name))
        return contains(self, name)

    def spy_names(self: Allowed) -> tuple[str, ...]:
        asked.add("*every name*")
        return names(self)

    monkeypatch.setattr(Allowed, "__contains__", spy_contains)
    monkeypatch.setattr(Allowed, "names", spy_names)
    options = TableOptions() if game is Game.OKEY else TableOptions(game=Game.OKEY101)
    for seed in range(4):
        # every strategy at every seat in turn, against the others
        seats = [makers[(seed + i) % len(makers)](seed * 4 + i) for i in range(4)]
        Simulator(options, seats, seed=seed).play_match(max_hands=2)
    if game is Game.OKEY:  # the classic ones do ask (101's read the view alone)
        assert {"ShowIndicator", "DeclarePairs"} <= asked, "the spy is not in place"
    assert asked <= ALLOWED_ASKED, asked - ALLOWED_ASKED

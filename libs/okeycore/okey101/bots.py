"""Bot strategies for Okey 101. A strategy decides from one seat's view only (RULES.md section 7)."""

from __future__ import annotations

import random
from typing import Protocol

from ..classic.bots import usefulness
from ..commands import Command, Discard, Draw, TakeDiscard
from ..melds import MeldKind
from ..okey101 import (
    PAIR_OPENER_ADDS,
    AddTile,
    Opening,
    ReturnSideTile,
    SeatView101,
    Stage,
    TakeOkey,
    add_options,
    is_real_okey,
    pair_opening,
    penalty_reason,
    run_opening,
    take_option,
)
from ..okey101.scoring import tile_points
from ..racks import effective_table

__all__ = ["Strategy101", "GreedyBot101", "STRATEGIES_101"]


class Strategy101(Protocol):
    """``act`` returns the seat's next command on its turn; it is asked again after every
    accepted command until the turn passes."""

    name: str

    def act(self, view: SeatView101) -> Command: ...


class GreedyBot101:
    """A simple baseline: opens as soon as it can (runs before pairs), lays and adds whatever it
    can, takes okeys back, takes the side tile only to lay it at once, and discards the least
    useful tile that costs no penalty."""

    name = "greedy101"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def act(self, view: SeatView101) -> Command:
        seat = view.seat
        assert seat is not None
        if view.stage is Stage.DRAW:
            if view.side_tile >= 0 and self._side_move(view, view.side_tile) is not None:
                return TakeDiscard(seat=seat)
            return Draw(seat=seat)
        if view.held_side_tile >= 0:
            use = self._side_move(view, view.held_side_tile)
            if use is not None:
                return use
            if view.can_return_side:
                return ReturnSideTile(seat=seat)
        me = view.seats[seat]
        move = self._open(view) if me.opening is Opening.NONE else self._table_move(view)
        if move is not None:
            return move
        return Discard(seat=seat, tile=self._discard(view))

    # ---------------------------------------------------------------- moves

    def _side_move(self, view: SeatView101, side: int) -> Command | None:
        """A move that lays ``side`` now (it is in the rack, or would be after taking it)."""
        seat = view.seat
        assert seat is not None
        rack = view.rack if side in view.rack else (*view.rack, side)
        me = view.seats[seat]
        if me.opening is Opening.NONE:
            runs = run_opening(rack, view.indicator, view.options.wrap, view.run_threshold, prefer=side)
            if runs.enough and any(side in m for m in runs.melds):
                return runs.command(seat)
            return None
        if len(rack) < 2:
            return None
        for i, meld in enumerate(view.melds):
            if not self._may_add(view, meld.kind):
                continue
            if meld.kind is not MeldKind.PAIR and add_options(meld, side, view.indicator, view.options.wrap):
                return AddTile(seat=seat, tile=side, meld=i)
            if take_option(meld, side, view.indicator) is not None:
                return TakeOkey(seat=seat, tile=side, meld=i)
        return None

    def _may_add(self, view: SeatView101, kind: MeldKind) -> bool:
        """Within a pair opener's allowance on runs and groups [O-ADD-3]."""
        seat = view.seat
        assert seat is not None
        if view.seats[seat].opening is not Opening.PAIRS or kind is MeldKind.PAIR:
            return True
        return view.run_adds < PAIR_OPENER_ADDS

    def _open(self, view: SeatView101) -> Command | None:
        seat = view.seat
        assert seat is not None
        runs = run_opening(view.rack, view.indicator, view.options.wrap, view.run_threshold)
        if runs.enough:
            return runs.command(seat)
        pairs = pair_opening(view.rack, view.indicator, view.pair_threshold)
        if pairs.enough:
            return pairs.command(seat)
        return None

    def _table_move(self, view: SeatView101) -> Command | None:
        seat = view.seat
        assert seat is not None
        me = view.seats[seat]
        rack = view.rack
        ind = view.indicator
        wrap = view.options.wrap
        if me.opening is Opening.RUNS and len(rack) >= 4:
            runs = run_opening(rack, ind, wrap, 0)
            if runs.melds:
                return runs.command(seat)
        pairs_open = any(m.kind is MeldKind.PAIR for m in view.melds)
        if (me.opening is Opening.PAIRS or pairs_open) and len(rack) >= 3:
            pairs = pair_opening(rack, ind, 1)
            if pairs.melds:
                return pairs.command(seat)
        if len(rack) >= 2:
            # Plain tiles first; an okey is added only where nothing else goes.
            for t in sorted(rack, key=lambda t: is_real_okey(t, ind)):
                for i, meld in enumerate(view.melds):
                    kind_ok = meld.kind is not MeldKind.PAIR and self._may_add(view, meld.kind)
                    if kind_ok and add_options(meld, t, ind, wrap):
                        return AddTile(seat=seat, tile=t, meld=i)
        for t in rack:
            for i, meld in enumerate(view.melds):
                if self._may_add(view, meld.kind) and take_option(meld, t, ind) is not None:
                    return TakeOkey(seat=seat, tile=t, meld=i)
        return None

    def _discard(self, view: SeatView101) -> int:
        rack = view.rack
        if len(rack) == 1:
            return rack[0]  # the finishing tile [O-TURN-1]
        ind = view.indicator
        table = effective_table(ind)
        effs = [table[t] for t in rack]

        def cost(i: int) -> tuple[bool, int, int, float]:
            t = rack[i]
            penalised = penalty_reason(t, len(rack), view.melds, ind, view.options, view.rules_version) is not None
            return (penalised, usefulness(effs, i), -tile_points(t, ind), self.rng.random())

        return rack[min(range(len(rack)), key=cost)]


STRATEGIES_101: dict[str, type[GreedyBot101]] = {"greedy101": GreedyBot101}

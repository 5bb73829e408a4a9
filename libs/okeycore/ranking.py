"""Places in a match's final standings: standard competition ranking ("1, 2, 2, 4")."""

from __future__ import annotations

from collections.abc import Collection, Sequence

__all__ = ["competition_ranks"]


def competition_ranks(keys: Sequence[int], winners: Collection[int], higher_is_better: bool = True) -> tuple[int, ...]:
    """Each seat's place: the match's winners share 1 [C-SC-7] [O-DEAL-3]; any other seat is 1 +
    the number of seats placed before it (every winner, and every seat with a better key), so
    shared places skip the places they fill: keys 10, 8, 8, 5 rank 1, 2, 2, 4. ``keys`` are what
    decides (a team's sum at a partners table; 101 totals with ``higher_is_better=False``)."""

    def better(a: int, b: int) -> bool:
        return a > b if higher_is_better else a < b

    out = []
    for s, key in enumerate(keys):
        if s in winners:
            out.append(1)
        else:
            out.append(1 + sum(1 for o, k in enumerate(keys) if o != s and (o in winners or better(k, key))))
    return tuple(out)

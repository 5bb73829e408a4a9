"""Table options: the rule variants a table is opened with (RULES.md section 5)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from enum import Enum, StrEnum
from typing import Any

__all__ = [
    "Game",
    "IndicatorScoring",
    "DiscardHistory",
    "PairsDeclaration",
    "DeckEnd",
    "Mode101",
    "TableOptions",
    "OptionsError",
]


class OptionsError(ValueError):
    """An option value or a combination of options no table can be opened with."""


class Game(StrEnum):
    OKEY = "OKEY"
    OKEY101 = "OKEY101"


class IndicatorScoring(StrEnum):
    OTHERS_MINUS_1 = "OTHERS_MINUS_1"
    SHOWER_PLUS_1 = "SHOWER_PLUS_1"


class DiscardHistory(StrEnum):
    ALL = "ALL"
    PAIRS_ONLY = "PAIRS_ONLY"


class PairsDeclaration(StrEnum):
    MARKER = "MARKER"
    BINDING = "BINDING"


class DeckEnd(StrEnum):
    DEAD_HAND = "DEAD_HAND"
    LAST_CHANCE = "LAST_CHANCE"


class Mode101(StrEnum):
    PLAIN = "PLAIN"
    FOLDING = "FOLDING"


_CLASSIC_ONLY = (
    "match_points",
    "indicator",
    "indicator_scoring",
    "colored",
    "partners",
    "duel",
    "penalties",
    "discard_history",
    "pairs_declaration",
    "deck_end",
)
_OKEY101_ONLY = ("seats", "wrap", "mode", "rounds", "discard_penalty", "hand_prize")


@dataclass(frozen=True, slots=True)
class TableOptions:
    """Every option of RULES.md section 5, defaults first. ``validated()`` checks one game's set."""

    game: Game = Game.OKEY
    match_points: int = 20
    indicator: bool = True
    indicator_scoring: IndicatorScoring = IndicatorScoring.OTHERS_MINUS_1
    colored: bool = False
    partners: bool = False
    duel: bool = False
    penalties: bool = False
    discard_history: DiscardHistory = DiscardHistory.ALL
    pairs_declaration: PairsDeclaration = PairsDeclaration.MARKER
    deck_end: DeckEnd = DeckEnd.DEAD_HAND
    turn_seconds: int = 20
    seats: int = 4
    wrap: bool = False
    mode: Mode101 = Mode101.PLAIN
    rounds: int = 5
    discard_penalty: bool = True
    stake: int = 0
    hand_prize: int = 0

    @property
    def seat_count(self) -> int:
        return 4 if self.game is Game.OKEY else self.seats

    @property
    def wraps(self) -> bool:
        """12-13-1 runs: always in classic Okey, the ``wrap`` option in 101 [M-RUN-2]."""
        return True if self.game is Game.OKEY else self.wrap

    def validated(self) -> TableOptions:
        """Return self, or raise OptionsError naming the first option that cannot be."""
        if not 5 <= self.turn_seconds <= 120:
            raise OptionsError("turn_seconds must be between 5 and 120")
        if self.stake < 0:
            raise OptionsError("stake cannot be negative")
        if self.game is Game.OKEY:
            if not 1 <= self.match_points <= 1000:
                raise OptionsError("match_points must be between 1 and 1000")
            if self.partners and self.duel:
                raise OptionsError(
                    "a table is either partners (two teams of two) or duel (two players and two bots), not both"
                )
            if self.seats != 4:
                raise OptionsError("classic Okey is always played by 4 seats; 'seats' is an OKEY101 option")
            if self.hand_prize:
                raise OptionsError("hand_prize is an OKEY101 option")
        else:
            if self.seats not in (2, 4):
                raise OptionsError("an Okey 101 table has 2 or 4 seats")
            if self.rounds not in (3, 5, 7, 9, 11):
                raise OptionsError("rounds must be 3, 5, 7, 9 or 11")
            if self.hand_prize < 0:
                raise OptionsError("hand_prize cannot be negative")
            if self.partners or self.duel or self.colored or self.penalties:
                raise OptionsError("partners, duel, colored and penalties are classic Okey options")
        return self

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = v.value if isinstance(v, Enum) else v
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableOptions:
        """Build options from plain values (JSON), rejecting unknown names and bad values."""
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise OptionsError(f"unknown table option(s): {', '.join(unknown)}")
        opts = cls()
        changes: dict[str, Any] = {}
        for name, raw in data.items():
            current = getattr(opts, name)
            if isinstance(current, Enum):
                try:
                    changes[name] = type(current)(raw)
                except ValueError:
                    allowed = ", ".join(m.value for m in type(current))
                    raise OptionsError(f"{name} must be one of {allowed}, got {raw!r}") from None
            elif isinstance(current, bool):
                if not isinstance(raw, bool):
                    raise OptionsError(f"{name} must be true or false, got {raw!r}")
                changes[name] = raw
            else:
                if isinstance(raw, bool) or not isinstance(raw, int):
                    raise OptionsError(f"{name} must be a whole number, got {raw!r}")
                changes[name] = raw
        return replace(opts, **changes)

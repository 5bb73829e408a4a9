"""Table options: the rule variants a table is opened with (RULES.md section 5)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from enum import Enum, StrEnum
from typing import Any

__all__ = [
    "Game",
    "IndicatorScoring",
    "IndicatorTiming",
    "DiscardHistory",
    "PairsDeclaration",
    "DeckEnd",
    "Mode101",
    "BotLevel",
    "BotPace",
    "TableOptions",
    "OptionsError",
    "COMMON_OPTIONS",
    "CLASSIC_OPTIONS",
    "OKEY101_OPTIONS",
    "options_of",
    "RULES_VERSION",
    "BOUNDS",
    "CHOICES",
    "MAX_CHIPS",
    "OptionKind",
    "OptionSpec",
    "OPTION_SPECS",
]

MAX_CHIPS = 1_000_000_000
"""The most chips a table may take from a seat (``stake``) or a hand may pay (``hand_prize``):
sums over a match stay far inside int64 wherever they are stored."""

BOUNDS: dict[str, tuple[int, int]] = {
    "match_points": (1, 1000),
    "turn_seconds": (5, 120),
    "hand_break_seconds": (0, 30),
    "stake": (0, MAX_CHIPS),
    "hand_prize": (0, MAX_CHIPS),
}
"""The inclusive range of every whole-number option (RULES.md section 5). The table service
enforces them (the authority); the lobby's kinder messages and the protos' docs follow this table,
and clients read it from ``TableService.GetOptionSpec`` (:data:`OPTION_SPECS`)."""

CHOICES: dict[str, tuple[int, ...]] = {
    "seats": (2, 4),
    "rounds": (3, 5, 7, 9, 11),
}
"""The whole-number options that take listed values only (RULES.md section 5, [O-DEAL-2]),
checked by ``validated()`` as :data:`BOUNDS` are."""

RULES_VERSION = 3
"""The version of the rules a new table is created under, recorded in ``TableCreated``. A table
keeps the rules it was created under, so a log replays as it was decided. 1: before the referee's
audit; 2: a discard that could take an okey back is penalised [O-PEN-1], and a FOLDING opening is
everything laid in the opening turn [O-OPEN-3]; 3: a break of ``hand_break_seconds`` between
hands while a person is seated [P-BREAK-1] (a table of version 2 or less deals at once)."""


class OptionsError(ValueError):
    """An option value or a combination of options no table can be opened with."""


class Game(StrEnum):
    OKEY = "OKEY"
    OKEY101 = "OKEY101"


class IndicatorScoring(StrEnum):
    OTHERS_MINUS_1 = "OTHERS_MINUS_1"
    SHOWER_PLUS_1 = "SHOWER_PLUS_1"


class IndicatorTiming(StrEnum):
    BEFORE_FIRST_MOVE = "BEFORE_FIRST_MOVE"  # before one's own first move, also off turn (source 000)
    FIRST_TURN = "FIRST_TURN"  # only on one's own first turn, before drawing (source 002)


class DiscardHistory(StrEnum):
    ALL = "ALL"
    PAIRS_ONLY = "PAIRS_ONLY"


class PairsDeclaration(StrEnum):
    MARKER = "MARKER"
    BINDING = "BINDING"


class DeckEnd(StrEnum):
    DEAD_HAND = "DEAD_HAND"
    LAST_CHANCE = "LAST_CHANCE"


class BotLevel(StrEnum):
    """How well the bots at a table play (issue 21): EASY misses the side tile and pairs and
    keeps bad tiles, NORMAL plays the greedy baseline, HARD the strongest strategy."""

    HARD = "HARD"
    NORMAL = "NORMAL"
    EASY = "EASY"


class BotPace(StrEnum):
    """How fast the bots at a table move: AUTO is HUMAN while a person is seated and INSTANT at
    an all-bot table; HUMAN waits as a person thinks (about 0.8-2.5 s a decision)."""

    AUTO = "AUTO"
    HUMAN = "HUMAN"
    INSTANT = "INSTANT"


class Mode101(StrEnum):
    PLAIN = "PLAIN"
    FOLDING = "FOLDING"


# The options of each game, in the order of RULES.md section 5 (the lobby card's order too).
COMMON_OPTIONS = ("turn_seconds", "hand_break_seconds", "stake", "bot_level", "bot_pace")
CLASSIC_OPTIONS = (
    "match_points",
    "indicator",
    "indicator_scoring",
    "indicator_timing",
    "colored",
    "partners",
    "duel",
    "penalties",
    "discard_history",
    "pairs_declaration",
    "deck_end",
    "turn_seconds",
    "hand_break_seconds",
    "stake",
    "bot_level",
    "bot_pace",
)
OKEY101_OPTIONS = (
    "turn_seconds",
    "hand_break_seconds",
    "seats",
    "wrap",
    "mode",
    "rounds",
    "discard_penalty",
    "stake",
    "hand_prize",
    "bot_level",
    "bot_pace",
)


def options_of(game: Game) -> tuple[str, ...]:
    """The options a table of ``game`` is opened with; any other option is refused [D-9]."""
    return CLASSIC_OPTIONS if game is Game.OKEY else OKEY101_OPTIONS


@dataclass(frozen=True, slots=True)
class TableOptions:
    """Every option of RULES.md section 5, defaults first. ``validated()`` checks one game's set."""

    game: Game = Game.OKEY
    match_points: int = 20
    indicator: bool = True
    indicator_scoring: IndicatorScoring = IndicatorScoring.OTHERS_MINUS_1
    indicator_timing: IndicatorTiming = IndicatorTiming.BEFORE_FIRST_MOVE
    colored: bool = False
    partners: bool = False
    duel: bool = False
    penalties: bool = False
    discard_history: DiscardHistory = DiscardHistory.ALL
    pairs_declaration: PairsDeclaration = PairsDeclaration.MARKER
    deck_end: DeckEnd = DeckEnd.DEAD_HAND
    turn_seconds: int = 20
    hand_break_seconds: int = 6  # the break between hands while a person is seated [P-BREAK-1]
    seats: int = 4
    wrap: bool = False
    mode: Mode101 = Mode101.PLAIN
    rounds: int = 5
    discard_penalty: bool = True
    stake: int = 0
    hand_prize: int = 0
    bot_level: BotLevel = BotLevel.HARD
    bot_pace: BotPace = BotPace.AUTO

    @property
    def seat_count(self) -> int:
        return 4 if self.game is Game.OKEY else self.seats

    @property
    def wraps(self) -> bool:
        """12-13-1 runs: always in classic Okey, the ``wrap`` option in 101 [M-RUN-2]."""
        return True if self.game is Game.OKEY else self.wrap

    def validated(self) -> TableOptions:
        """Return self, or raise OptionsError naming the first option that cannot be: a value out
        of range, an option of the other game set to anything but its default [D-9], or a
        combination no table can be opened with [C-PAIR-3]."""
        for name, (low, high) in BOUNDS.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise OptionsError(f"{name} must be between {low:,} and {high:,}, got {value:,}")
        own = set(options_of(self.game))
        default = TableOptions()
        for f in fields(self):
            if f.name != "game" and f.name not in own and getattr(self, f.name) != getattr(default, f.name):
                raise OptionsError(_foreign(f.name, self.game))
        if self.game is Game.OKEY:
            if self.partners and self.duel:
                raise OptionsError(
                    "a table is either partners (two teams of two) or duel (two players and two bots), not both"
                )
            if self.discard_history is DiscardHistory.PAIRS_ONLY and self.pairs_declaration is PairsDeclaration.MARKER:
                raise OptionsError(
                    "discard_history=PAIRS_ONLY needs pairs_declaration=BINDING: declaring pairs opens the whole "
                    "history, so it binds the declarer to seven pairs [C-PAIR-3]; choose pairs_declaration=BINDING "
                    "or discard_history=ALL"
                )
        for name, allowed in CHOICES.items():
            value = getattr(self, name)
            if name in own and value not in allowed:
                listed = ", ".join(str(v) for v in allowed[:-1]) + f" or {allowed[-1]}"
                raise OptionsError(f"{name}: a table has {listed} {name}, got {value}")
        return self

    def to_dict(self) -> dict[str, Any]:
        """The game and the options of its game (plain values, RULES.md section 5 order)."""
        out: dict[str, Any] = {"game": self.game.value}
        for name in options_of(self.game):
            v = getattr(self, name)
            out[name] = v.value if isinstance(v, Enum) else v
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, stored: bool = False) -> TableOptions:
        """Build options from plain values (JSON), refusing unknown names, bad values and the
        options of the other game [D-9]. ``stored``: data written before [D-9] held every option
        of both games; there the other game's options are dropped (they never had an effect)."""
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
        game = changes.get("game", opts.game)
        own = set(options_of(game))
        foreign = [n for n in changes if n != "game" and n not in own]
        if stored:
            for n in foreign:
                del changes[n]
        elif foreign:
            raise OptionsError(_foreign(foreign[0], game))
        return replace(opts, **changes)


def _foreign(name: str, game: Game) -> str:
    other = "classic Okey (OKEY)" if game is Game.OKEY101 else "Okey 101 (OKEY101)"
    this = "an Okey 101" if game is Game.OKEY101 else "a classic Okey"
    return f"{name} is an option of {other}, not of {this} table [D-9]; leave it out"


class OptionKind(StrEnum):
    """What values an option takes: a whole number in :data:`BOUNDS`, true or false, one member of
    an enum, or one of the listed :data:`CHOICES`."""

    INT = "INT"
    BOOL = "BOOL"
    ENUM = "ENUM"
    CHOICE = "CHOICE"


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option as a client draws it: its games, its kind, its default and the values it may
    take (``bounds`` for INT, ``choices`` for CHOICE, the enum's members for ENUM)."""

    name: str
    games: tuple[Game, ...]
    kind: OptionKind
    default: int | bool | Enum
    bounds: tuple[int, int] | None = None
    choices: tuple[int, ...] = ()
    values: tuple[Enum, ...] = ()


def _spec(name: str, default: Any) -> OptionSpec:
    games = tuple(g for g in Game if name in options_of(g))
    if isinstance(default, Enum):
        return OptionSpec(name, games, OptionKind.ENUM, default, values=tuple(type(default)))
    if isinstance(default, bool):
        return OptionSpec(name, games, OptionKind.BOOL, default)
    if name in CHOICES:
        return OptionSpec(name, games, OptionKind.CHOICE, default, choices=CHOICES[name])
    return OptionSpec(name, games, OptionKind.INT, default, bounds=BOUNDS[name])


OPTION_SPECS: tuple[OptionSpec, ...] = tuple(
    _spec(f.name, getattr(TableOptions(), f.name)) for f in fields(TableOptions) if f.name != "game"
)
"""Every option of RULES.md section 5 (``TableOptions``' order, which keeps each game's order of
:func:`options_of`), read from this module's tables and defaults: what ``GetOptionSpec`` serves,
so a client draws its form and its cards from the rules rather than from a copy."""

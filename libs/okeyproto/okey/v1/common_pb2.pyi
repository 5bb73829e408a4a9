from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Game(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_UNSPECIFIED: _ClassVar[Game]
    GAME_OKEY: _ClassVar[Game]
    GAME_OKEY101: _ClassVar[Game]

class IndicatorScoring(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INDICATOR_SCORING_UNSPECIFIED: _ClassVar[IndicatorScoring]
    INDICATOR_SCORING_OTHERS_MINUS_1: _ClassVar[IndicatorScoring]
    INDICATOR_SCORING_SHOWER_PLUS_1: _ClassVar[IndicatorScoring]

class IndicatorTiming(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INDICATOR_TIMING_UNSPECIFIED: _ClassVar[IndicatorTiming]
    INDICATOR_TIMING_BEFORE_FIRST_MOVE: _ClassVar[IndicatorTiming]
    INDICATOR_TIMING_FIRST_TURN: _ClassVar[IndicatorTiming]

class DiscardHistory(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DISCARD_HISTORY_UNSPECIFIED: _ClassVar[DiscardHistory]
    DISCARD_HISTORY_ALL: _ClassVar[DiscardHistory]
    DISCARD_HISTORY_PAIRS_ONLY: _ClassVar[DiscardHistory]

class PairsDeclaration(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAIRS_DECLARATION_UNSPECIFIED: _ClassVar[PairsDeclaration]
    PAIRS_DECLARATION_MARKER: _ClassVar[PairsDeclaration]
    PAIRS_DECLARATION_BINDING: _ClassVar[PairsDeclaration]

class DeckEnd(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECK_END_UNSPECIFIED: _ClassVar[DeckEnd]
    DECK_END_DEAD_HAND: _ClassVar[DeckEnd]
    DECK_END_LAST_CHANCE: _ClassVar[DeckEnd]

class BotLevel(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOT_LEVEL_UNSPECIFIED: _ClassVar[BotLevel]
    BOT_LEVEL_HARD: _ClassVar[BotLevel]
    BOT_LEVEL_NORMAL: _ClassVar[BotLevel]
    BOT_LEVEL_EASY: _ClassVar[BotLevel]

class BotPace(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOT_PACE_UNSPECIFIED: _ClassVar[BotPace]
    BOT_PACE_AUTO: _ClassVar[BotPace]
    BOT_PACE_HUMAN: _ClassVar[BotPace]
    BOT_PACE_INSTANT: _ClassVar[BotPace]

class Mode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MODE_UNSPECIFIED: _ClassVar[Mode]
    MODE_PLAIN: _ClassVar[Mode]
    MODE_FOLDING: _ClassVar[Mode]
GAME_UNSPECIFIED: Game
GAME_OKEY: Game
GAME_OKEY101: Game
INDICATOR_SCORING_UNSPECIFIED: IndicatorScoring
INDICATOR_SCORING_OTHERS_MINUS_1: IndicatorScoring
INDICATOR_SCORING_SHOWER_PLUS_1: IndicatorScoring
INDICATOR_TIMING_UNSPECIFIED: IndicatorTiming
INDICATOR_TIMING_BEFORE_FIRST_MOVE: IndicatorTiming
INDICATOR_TIMING_FIRST_TURN: IndicatorTiming
DISCARD_HISTORY_UNSPECIFIED: DiscardHistory
DISCARD_HISTORY_ALL: DiscardHistory
DISCARD_HISTORY_PAIRS_ONLY: DiscardHistory
PAIRS_DECLARATION_UNSPECIFIED: PairsDeclaration
PAIRS_DECLARATION_MARKER: PairsDeclaration
PAIRS_DECLARATION_BINDING: PairsDeclaration
DECK_END_UNSPECIFIED: DeckEnd
DECK_END_DEAD_HAND: DeckEnd
DECK_END_LAST_CHANCE: DeckEnd
BOT_LEVEL_UNSPECIFIED: BotLevel
BOT_LEVEL_HARD: BotLevel
BOT_LEVEL_NORMAL: BotLevel
BOT_LEVEL_EASY: BotLevel
BOT_PACE_UNSPECIFIED: BotPace
BOT_PACE_AUTO: BotPace
BOT_PACE_HUMAN: BotPace
BOT_PACE_INSTANT: BotPace
MODE_UNSPECIFIED: Mode
MODE_PLAIN: Mode
MODE_FOLDING: Mode

class Tile(_message.Message):
    __slots__ = ("id", "code")
    ID_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    id: int
    code: str
    def __init__(self, id: _Optional[int] = ..., code: _Optional[str] = ...) -> None: ...

class TileGroup(_message.Message):
    __slots__ = ("tiles",)
    TILES_FIELD_NUMBER: _ClassVar[int]
    tiles: _containers.RepeatedCompositeFieldContainer[Tile]
    def __init__(self, tiles: _Optional[_Iterable[_Union[Tile, _Mapping]]] = ...) -> None: ...

class TableOptions(_message.Message):
    __slots__ = ("game", "match_points", "indicator", "indicator_scoring", "colored", "partners", "duel", "penalties", "discard_history", "pairs_declaration", "deck_end", "turn_seconds", "seats", "wrap", "mode", "rounds", "discard_penalty", "stake", "hand_prize", "indicator_timing", "hand_break_seconds", "bot_level", "bot_pace")
    GAME_FIELD_NUMBER: _ClassVar[int]
    MATCH_POINTS_FIELD_NUMBER: _ClassVar[int]
    INDICATOR_FIELD_NUMBER: _ClassVar[int]
    INDICATOR_SCORING_FIELD_NUMBER: _ClassVar[int]
    COLORED_FIELD_NUMBER: _ClassVar[int]
    PARTNERS_FIELD_NUMBER: _ClassVar[int]
    DUEL_FIELD_NUMBER: _ClassVar[int]
    PENALTIES_FIELD_NUMBER: _ClassVar[int]
    DISCARD_HISTORY_FIELD_NUMBER: _ClassVar[int]
    PAIRS_DECLARATION_FIELD_NUMBER: _ClassVar[int]
    DECK_END_FIELD_NUMBER: _ClassVar[int]
    TURN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    WRAP_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PENALTY_FIELD_NUMBER: _ClassVar[int]
    STAKE_FIELD_NUMBER: _ClassVar[int]
    HAND_PRIZE_FIELD_NUMBER: _ClassVar[int]
    INDICATOR_TIMING_FIELD_NUMBER: _ClassVar[int]
    HAND_BREAK_SECONDS_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    BOT_PACE_FIELD_NUMBER: _ClassVar[int]
    game: Game
    match_points: int
    indicator: bool
    indicator_scoring: IndicatorScoring
    colored: bool
    partners: bool
    duel: bool
    penalties: bool
    discard_history: DiscardHistory
    pairs_declaration: PairsDeclaration
    deck_end: DeckEnd
    turn_seconds: int
    seats: int
    wrap: bool
    mode: Mode
    rounds: int
    discard_penalty: bool
    stake: int
    hand_prize: int
    indicator_timing: IndicatorTiming
    hand_break_seconds: int
    bot_level: BotLevel
    bot_pace: BotPace
    def __init__(self, game: _Optional[_Union[Game, str]] = ..., match_points: _Optional[int] = ..., indicator: _Optional[bool] = ..., indicator_scoring: _Optional[_Union[IndicatorScoring, str]] = ..., colored: _Optional[bool] = ..., partners: _Optional[bool] = ..., duel: _Optional[bool] = ..., penalties: _Optional[bool] = ..., discard_history: _Optional[_Union[DiscardHistory, str]] = ..., pairs_declaration: _Optional[_Union[PairsDeclaration, str]] = ..., deck_end: _Optional[_Union[DeckEnd, str]] = ..., turn_seconds: _Optional[int] = ..., seats: _Optional[int] = ..., wrap: _Optional[bool] = ..., mode: _Optional[_Union[Mode, str]] = ..., rounds: _Optional[int] = ..., discard_penalty: _Optional[bool] = ..., stake: _Optional[int] = ..., hand_prize: _Optional[int] = ..., indicator_timing: _Optional[_Union[IndicatorTiming, str]] = ..., hand_break_seconds: _Optional[int] = ..., bot_level: _Optional[_Union[BotLevel, str]] = ..., bot_pace: _Optional[_Union[BotPace, str]] = ...) -> None: ...

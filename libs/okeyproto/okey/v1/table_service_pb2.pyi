from okey.v1 import common_pb2 as _common_pb2
from okey.v1 import events_pb2 as _events_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CoachingKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COACHING_KIND_UNSPECIFIED: _ClassVar[CoachingKind]
    COACHING_KIND_MISSED_FINISH: _ClassVar[CoachingKind]
    COACHING_KIND_GAVE_FINISH: _ClassVar[CoachingKind]
    COACHING_KIND_MISSED_OPENING: _ClassVar[CoachingKind]
    COACHING_KIND_OKEY_HELD: _ClassVar[CoachingKind]
    COACHING_KIND_PENALISED_DISCARD: _ClassVar[CoachingKind]

class OptionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OPTION_KIND_UNSPECIFIED: _ClassVar[OptionKind]
    OPTION_KIND_INT: _ClassVar[OptionKind]
    OPTION_KIND_BOOL: _ClassVar[OptionKind]
    OPTION_KIND_ENUM: _ClassVar[OptionKind]
    OPTION_KIND_CHOICE: _ClassVar[OptionKind]

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_NEW: _ClassVar[Phase]
    PHASE_PLAYING: _ClassVar[Phase]
    PHASE_HAND_OVER: _ClassVar[Phase]
    PHASE_MATCH_OVER: _ClassVar[Phase]

class Stage(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STAGE_UNSPECIFIED: _ClassVar[Stage]
    STAGE_DRAW: _ClassVar[Stage]
    STAGE_DISCARD: _ClassVar[Stage]
    STAGE_LAST_CHANCE: _ClassVar[Stage]
    STAGE_LAST_CHANCE_TAKEN: _ClassVar[Stage]
    STAGE_PLAY: _ClassVar[Stage]
COACHING_KIND_UNSPECIFIED: CoachingKind
COACHING_KIND_MISSED_FINISH: CoachingKind
COACHING_KIND_GAVE_FINISH: CoachingKind
COACHING_KIND_MISSED_OPENING: CoachingKind
COACHING_KIND_OKEY_HELD: CoachingKind
COACHING_KIND_PENALISED_DISCARD: CoachingKind
OPTION_KIND_UNSPECIFIED: OptionKind
OPTION_KIND_INT: OptionKind
OPTION_KIND_BOOL: OptionKind
OPTION_KIND_ENUM: OptionKind
OPTION_KIND_CHOICE: OptionKind
PHASE_UNSPECIFIED: Phase
PHASE_NEW: Phase
PHASE_PLAYING: Phase
PHASE_HAND_OVER: Phase
PHASE_MATCH_OVER: Phase
STAGE_UNSPECIFIED: Stage
STAGE_DRAW: Stage
STAGE_DISCARD: Stage
STAGE_LAST_CHANCE: Stage
STAGE_LAST_CHANCE_TAKEN: Stage
STAGE_PLAY: Stage

class PlayRequest(_message.Message):
    __slots__ = ("id", "act", "view", "traceparent", "timeout_ms", "batch")
    ID_FIELD_NUMBER: _ClassVar[int]
    ACT_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    TRACEPARENT_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    id: int
    act: ActRequest
    view: GetViewRequest
    traceparent: str
    timeout_ms: int
    batch: _containers.RepeatedCompositeFieldContainer[PlayRequest]
    def __init__(self, id: _Optional[int] = ..., act: _Optional[_Union[ActRequest, _Mapping]] = ..., view: _Optional[_Union[GetViewRequest, _Mapping]] = ..., traceparent: _Optional[str] = ..., timeout_ms: _Optional[int] = ..., batch: _Optional[_Iterable[_Union[PlayRequest, _Mapping]]] = ...) -> None: ...

class PlayResponse(_message.Message):
    __slots__ = ("id", "act", "view", "error", "batch")
    ID_FIELD_NUMBER: _ClassVar[int]
    ACT_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    id: int
    act: ActResponse
    view: GetViewResponse
    error: PlayError
    batch: _containers.RepeatedCompositeFieldContainer[PlayResponse]
    def __init__(self, id: _Optional[int] = ..., act: _Optional[_Union[ActResponse, _Mapping]] = ..., view: _Optional[_Union[GetViewResponse, _Mapping]] = ..., error: _Optional[_Union[PlayError, _Mapping]] = ..., batch: _Optional[_Iterable[_Union[PlayResponse, _Mapping]]] = ...) -> None: ...

class PlayError(_message.Message):
    __slots__ = ("code", "reason", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: int
    reason: str
    message: str
    def __init__(self, code: _Optional[int] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class GetReplayRequest(_message.Message):
    __slots__ = ("table_id", "hand")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    hand: int
    def __init__(self, table_id: _Optional[str] = ..., hand: _Optional[int] = ...) -> None: ...

class CoachingNote(_message.Message):
    __slots__ = ("version", "seat", "kind", "text", "hindsight", "tiles", "points", "turns")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    HINDSIGHT_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    version: int
    seat: int
    kind: CoachingKind
    text: str
    hindsight: bool
    tiles: _containers.RepeatedCompositeFieldContainer[_common_pb2.Tile]
    points: int
    turns: int
    def __init__(self, version: _Optional[int] = ..., seat: _Optional[int] = ..., kind: _Optional[_Union[CoachingKind, str]] = ..., text: _Optional[str] = ..., hindsight: _Optional[bool] = ..., tiles: _Optional[_Iterable[_Union[_common_pb2.Tile, _Mapping]]] = ..., points: _Optional[int] = ..., turns: _Optional[int] = ...) -> None: ...

class Replay(_message.Message):
    __slots__ = ("table_id", "hand", "options", "players", "starter", "indicator", "racks", "deck", "events", "commitment", "order", "salt", "verified", "notes", "notes_truncated", "okey")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    STARTER_FIELD_NUMBER: _ClassVar[int]
    INDICATOR_FIELD_NUMBER: _ClassVar[int]
    RACKS_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    SALT_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    NOTES_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    OKEY_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    hand: int
    options: _common_pb2.TableOptions
    players: _containers.RepeatedScalarFieldContainer[str]
    starter: int
    indicator: _common_pb2.Tile
    racks: _containers.RepeatedCompositeFieldContainer[_common_pb2.TileGroup]
    deck: _containers.RepeatedCompositeFieldContainer[_common_pb2.Tile]
    events: _containers.RepeatedCompositeFieldContainer[_events_pb2.TableEvent]
    commitment: str
    order: _containers.RepeatedCompositeFieldContainer[_common_pb2.Tile]
    salt: str
    verified: bool
    notes: _containers.RepeatedCompositeFieldContainer[CoachingNote]
    notes_truncated: bool
    okey: _common_pb2.Tile
    def __init__(self, table_id: _Optional[str] = ..., hand: _Optional[int] = ..., options: _Optional[_Union[_common_pb2.TableOptions, _Mapping]] = ..., players: _Optional[_Iterable[str]] = ..., starter: _Optional[int] = ..., indicator: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., racks: _Optional[_Iterable[_Union[_common_pb2.TileGroup, _Mapping]]] = ..., deck: _Optional[_Iterable[_Union[_common_pb2.Tile, _Mapping]]] = ..., events: _Optional[_Iterable[_Union[_events_pb2.TableEvent, _Mapping]]] = ..., commitment: _Optional[str] = ..., order: _Optional[_Iterable[_Union[_common_pb2.Tile, _Mapping]]] = ..., salt: _Optional[str] = ..., verified: _Optional[bool] = ..., notes: _Optional[_Iterable[_Union[CoachingNote, _Mapping]]] = ..., notes_truncated: _Optional[bool] = ..., okey: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ...) -> None: ...

class GetReplayResponse(_message.Message):
    __slots__ = ("replay",)
    REPLAY_FIELD_NUMBER: _ClassVar[int]
    replay: Replay
    def __init__(self, replay: _Optional[_Union[Replay, _Mapping]] = ...) -> None: ...

class GetOptionSpecRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetOptionSpecResponse(_message.Message):
    __slots__ = ("options",)
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    options: _containers.RepeatedCompositeFieldContainer[OptionSpec]
    def __init__(self, options: _Optional[_Iterable[_Union[OptionSpec, _Mapping]]] = ...) -> None: ...

class OptionSpec(_message.Message):
    __slots__ = ("name", "json_name", "games", "kind", "min", "max", "choices", "enum_values", "default_int", "default_bool", "default_enum", "enum_prefix")
    NAME_FIELD_NUMBER: _ClassVar[int]
    JSON_NAME_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    ENUM_VALUES_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_INT_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_BOOL_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_ENUM_FIELD_NUMBER: _ClassVar[int]
    ENUM_PREFIX_FIELD_NUMBER: _ClassVar[int]
    name: str
    json_name: str
    games: _containers.RepeatedScalarFieldContainer[_common_pb2.Game]
    kind: OptionKind
    min: int
    max: int
    choices: _containers.RepeatedScalarFieldContainer[int]
    enum_values: _containers.RepeatedScalarFieldContainer[str]
    default_int: int
    default_bool: bool
    default_enum: str
    enum_prefix: str
    def __init__(self, name: _Optional[str] = ..., json_name: _Optional[str] = ..., games: _Optional[_Iterable[_Union[_common_pb2.Game, str]]] = ..., kind: _Optional[_Union[OptionKind, str]] = ..., min: _Optional[int] = ..., max: _Optional[int] = ..., choices: _Optional[_Iterable[int]] = ..., enum_values: _Optional[_Iterable[str]] = ..., default_int: _Optional[int] = ..., default_bool: _Optional[bool] = ..., default_enum: _Optional[str] = ..., enum_prefix: _Optional[str] = ...) -> None: ...

class GetHintsRequest(_message.Message):
    __slots__ = ("table_id", "seat")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat: int
    def __init__(self, table_id: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class GetHintsResponse(_message.Message):
    __slots__ = ("hints",)
    HINTS_FIELD_NUMBER: _ClassVar[int]
    hints: Hints
    def __init__(self, hints: _Optional[_Union[Hints, _Mapping]] = ...) -> None: ...

class Hints(_message.Message):
    __slots__ = ("runs", "pairs", "tiles")
    RUNS_FIELD_NUMBER: _ClassVar[int]
    PAIRS_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    runs: Arrangement
    pairs: Arrangement
    tiles: _containers.RepeatedCompositeFieldContainer[TileHint]
    def __init__(self, runs: _Optional[_Union[Arrangement, _Mapping]] = ..., pairs: _Optional[_Union[Arrangement, _Mapping]] = ..., tiles: _Optional[_Iterable[_Union[TileHint, _Mapping]]] = ...) -> None: ...

class Codes(_message.Message):
    __slots__ = ("codes",)
    CODES_FIELD_NUMBER: _ClassVar[int]
    codes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, codes: _Optional[_Iterable[str]] = ...) -> None: ...

class Arrangement(_message.Message):
    __slots__ = ("melds", "kinds", "stands_for", "values", "total", "enough")
    MELDS_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    STANDS_FOR_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    ENOUGH_FIELD_NUMBER: _ClassVar[int]
    melds: _containers.RepeatedCompositeFieldContainer[_common_pb2.TileGroup]
    kinds: _containers.RepeatedScalarFieldContainer[_events_pb2.MeldKind]
    stands_for: _containers.RepeatedCompositeFieldContainer[Codes]
    values: _containers.RepeatedScalarFieldContainer[int]
    total: int
    enough: bool
    def __init__(self, melds: _Optional[_Iterable[_Union[_common_pb2.TileGroup, _Mapping]]] = ..., kinds: _Optional[_Iterable[_Union[_events_pb2.MeldKind, str]]] = ..., stands_for: _Optional[_Iterable[_Union[Codes, _Mapping]]] = ..., values: _Optional[_Iterable[int]] = ..., total: _Optional[int] = ..., enough: _Optional[bool] = ...) -> None: ...

class TileHint(_message.Message):
    __slots__ = ("tile", "penalised", "addable", "takes_okey", "finishes", "add_to", "take_from")
    TILE_FIELD_NUMBER: _ClassVar[int]
    PENALISED_FIELD_NUMBER: _ClassVar[int]
    ADDABLE_FIELD_NUMBER: _ClassVar[int]
    TAKES_OKEY_FIELD_NUMBER: _ClassVar[int]
    FINISHES_FIELD_NUMBER: _ClassVar[int]
    ADD_TO_FIELD_NUMBER: _ClassVar[int]
    TAKE_FROM_FIELD_NUMBER: _ClassVar[int]
    tile: _common_pb2.Tile
    penalised: bool
    addable: bool
    takes_okey: bool
    finishes: bool
    add_to: _containers.RepeatedCompositeFieldContainer[MeldFit]
    take_from: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, tile: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., penalised: _Optional[bool] = ..., addable: _Optional[bool] = ..., takes_okey: _Optional[bool] = ..., finishes: _Optional[bool] = ..., add_to: _Optional[_Iterable[_Union[MeldFit, _Mapping]]] = ..., take_from: _Optional[_Iterable[int]] = ...) -> None: ...

class MeldFit(_message.Message):
    __slots__ = ("meld", "at_start")
    MELD_FIELD_NUMBER: _ClassVar[int]
    AT_START_FIELD_NUMBER: _ClassVar[int]
    meld: int
    at_start: bool
    def __init__(self, meld: _Optional[int] = ..., at_start: _Optional[bool] = ...) -> None: ...

class SeatAssignment(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class CreateTableRequest(_message.Message):
    __slots__ = ("table_id", "options", "seats", "command_id", "public")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    options: _common_pb2.TableOptions
    seats: _containers.RepeatedCompositeFieldContainer[SeatAssignment]
    command_id: str
    public: bool
    def __init__(self, table_id: _Optional[str] = ..., options: _Optional[_Union[_common_pb2.TableOptions, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[SeatAssignment, _Mapping]]] = ..., command_id: _Optional[str] = ..., public: _Optional[bool] = ...) -> None: ...

class CreateTableResponse(_message.Message):
    __slots__ = ("table_id", "version")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    version: int
    def __init__(self, table_id: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class DrawCommand(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TakeDiscardCommand(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DiscardCommand(_message.Message):
    __slots__ = ("tile_id",)
    TILE_ID_FIELD_NUMBER: _ClassVar[int]
    tile_id: int
    def __init__(self, tile_id: _Optional[int] = ...) -> None: ...

class FinishCommand(_message.Message):
    __slots__ = ("tile_id", "arrangement")
    TILE_ID_FIELD_NUMBER: _ClassVar[int]
    ARRANGEMENT_FIELD_NUMBER: _ClassVar[int]
    tile_id: int
    arrangement: _containers.RepeatedCompositeFieldContainer[TileIds]
    def __init__(self, tile_id: _Optional[int] = ..., arrangement: _Optional[_Iterable[_Union[TileIds, _Mapping]]] = ...) -> None: ...

class TileIds(_message.Message):
    __slots__ = ("ids",)
    IDS_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, ids: _Optional[_Iterable[int]] = ...) -> None: ...

class ShowIndicatorCommand(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DeclarePairsCommand(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TurnToOkeyCommand(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PassCommand(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TakeBackCommand(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ActRequest(_message.Message):
    __slots__ = ("table_id", "command_id", "seat", "return_view", "allowed_query", "return_next_view", "draw", "take_discard", "discard", "finish", "show_indicator", "declare_pairs", "turn_to_okey", "take_back", "open_melds", "add_tile", "take_okey", "return_side_tile", "leave_seat", "ready", "set_connection")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RETURN_VIEW_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_QUERY_FIELD_NUMBER: _ClassVar[int]
    RETURN_NEXT_VIEW_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    TAKE_DISCARD_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    FINISH_FIELD_NUMBER: _ClassVar[int]
    SHOW_INDICATOR_FIELD_NUMBER: _ClassVar[int]
    DECLARE_PAIRS_FIELD_NUMBER: _ClassVar[int]
    TURN_TO_OKEY_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    TAKE_BACK_FIELD_NUMBER: _ClassVar[int]
    OPEN_MELDS_FIELD_NUMBER: _ClassVar[int]
    ADD_TILE_FIELD_NUMBER: _ClassVar[int]
    TAKE_OKEY_FIELD_NUMBER: _ClassVar[int]
    RETURN_SIDE_TILE_FIELD_NUMBER: _ClassVar[int]
    LEAVE_SEAT_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    SET_CONNECTION_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    command_id: str
    seat: int
    return_view: bool
    allowed_query: AllowedQuery
    return_next_view: bool
    draw: DrawCommand
    take_discard: TakeDiscardCommand
    discard: DiscardCommand
    finish: FinishCommand
    show_indicator: ShowIndicatorCommand
    declare_pairs: DeclarePairsCommand
    turn_to_okey: TurnToOkeyCommand
    take_back: TakeBackCommand
    open_melds: OpenMeldsCommand
    add_tile: AddTileCommand
    take_okey: TakeOkeyCommand
    return_side_tile: ReturnSideTileCommand
    leave_seat: LeaveSeatCommand
    ready: ReadyCommand
    set_connection: SetConnectionCommand
    def __init__(self, table_id: _Optional[str] = ..., command_id: _Optional[str] = ..., seat: _Optional[int] = ..., return_view: _Optional[bool] = ..., allowed_query: _Optional[_Union[AllowedQuery, _Mapping]] = ..., return_next_view: _Optional[bool] = ..., draw: _Optional[_Union[DrawCommand, _Mapping]] = ..., take_discard: _Optional[_Union[TakeDiscardCommand, _Mapping]] = ..., discard: _Optional[_Union[DiscardCommand, _Mapping]] = ..., finish: _Optional[_Union[FinishCommand, _Mapping]] = ..., show_indicator: _Optional[_Union[ShowIndicatorCommand, _Mapping]] = ..., declare_pairs: _Optional[_Union[DeclarePairsCommand, _Mapping]] = ..., turn_to_okey: _Optional[_Union[TurnToOkeyCommand, _Mapping]] = ..., take_back: _Optional[_Union[TakeBackCommand, _Mapping]] = ..., open_melds: _Optional[_Union[OpenMeldsCommand, _Mapping]] = ..., add_tile: _Optional[_Union[AddTileCommand, _Mapping]] = ..., take_okey: _Optional[_Union[TakeOkeyCommand, _Mapping]] = ..., return_side_tile: _Optional[_Union[ReturnSideTileCommand, _Mapping]] = ..., leave_seat: _Optional[_Union[LeaveSeatCommand, _Mapping]] = ..., ready: _Optional[_Union[ReadyCommand, _Mapping]] = ..., set_connection: _Optional[_Union[SetConnectionCommand, _Mapping]] = ..., **kwargs) -> None: ...

class OpenMeldsCommand(_message.Message):
    __slots__ = ("melds", "kinds")
    MELDS_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    melds: _containers.RepeatedCompositeFieldContainer[TileIds]
    kinds: _containers.RepeatedScalarFieldContainer[_events_pb2.MeldKind]
    def __init__(self, melds: _Optional[_Iterable[_Union[TileIds, _Mapping]]] = ..., kinds: _Optional[_Iterable[_Union[_events_pb2.MeldKind, str]]] = ...) -> None: ...

class AddTileCommand(_message.Message):
    __slots__ = ("tile_id", "meld", "at_start")
    TILE_ID_FIELD_NUMBER: _ClassVar[int]
    MELD_FIELD_NUMBER: _ClassVar[int]
    AT_START_FIELD_NUMBER: _ClassVar[int]
    tile_id: int
    meld: int
    at_start: bool
    def __init__(self, tile_id: _Optional[int] = ..., meld: _Optional[int] = ..., at_start: _Optional[bool] = ...) -> None: ...

class TakeOkeyCommand(_message.Message):
    __slots__ = ("tile_id", "meld")
    TILE_ID_FIELD_NUMBER: _ClassVar[int]
    MELD_FIELD_NUMBER: _ClassVar[int]
    tile_id: int
    meld: int
    def __init__(self, tile_id: _Optional[int] = ..., meld: _Optional[int] = ...) -> None: ...

class ReturnSideTileCommand(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LeaveSeatCommand(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ReadyCommand(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SetConnectionCommand(_message.Message):
    __slots__ = ("connected",)
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    connected: bool
    def __init__(self, connected: _Optional[bool] = ...) -> None: ...

class ActResponse(_message.Message):
    __slots__ = ("version", "events", "duplicate", "view", "next_view")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    NEXT_VIEW_FIELD_NUMBER: _ClassVar[int]
    version: int
    events: _containers.RepeatedCompositeFieldContainer[_events_pb2.TableEvent]
    duplicate: bool
    view: SeatView
    next_view: SeatView
    def __init__(self, version: _Optional[int] = ..., events: _Optional[_Iterable[_Union[_events_pb2.TableEvent, _Mapping]]] = ..., duplicate: _Optional[bool] = ..., view: _Optional[_Union[SeatView, _Mapping]] = ..., next_view: _Optional[_Union[SeatView, _Mapping]] = ...) -> None: ...

class GetViewRequest(_message.Message):
    __slots__ = ("table_id", "seat", "min_version", "allowed_query")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MIN_VERSION_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_QUERY_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat: int
    min_version: int
    allowed_query: AllowedQuery
    def __init__(self, table_id: _Optional[str] = ..., seat: _Optional[int] = ..., min_version: _Optional[int] = ..., allowed_query: _Optional[_Union[AllowedQuery, _Mapping]] = ...) -> None: ...

class AllowedQuery(_message.Message):
    __slots__ = ("names",)
    NAMES_FIELD_NUMBER: _ClassVar[int]
    names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, names: _Optional[_Iterable[str]] = ...) -> None: ...

class GetViewResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: SeatView
    def __init__(self, view: _Optional[_Union[SeatView, _Mapping]] = ...) -> None: ...

class GetEventsRequest(_message.Message):
    __slots__ = ("table_id", "seat", "after_version", "limit")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AFTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat: int
    after_version: int
    limit: int
    def __init__(self, table_id: _Optional[str] = ..., seat: _Optional[int] = ..., after_version: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class GetEventsResponse(_message.Message):
    __slots__ = ("events",)
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_events_pb2.TableEvent]
    def __init__(self, events: _Optional[_Iterable[_Union[_events_pb2.TableEvent, _Mapping]]] = ...) -> None: ...

class WatchRequest(_message.Message):
    __slots__ = ("table_id", "seat", "after_version")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AFTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat: int
    after_version: int
    def __init__(self, table_id: _Optional[str] = ..., seat: _Optional[int] = ..., after_version: _Optional[int] = ...) -> None: ...

class WatchResponse(_message.Message):
    __slots__ = ("snapshot", "event", "view")
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    snapshot: SeatView
    event: _events_pb2.TableEvent
    view: SeatView
    def __init__(self, snapshot: _Optional[_Union[SeatView, _Mapping]] = ..., event: _Optional[_Union[_events_pb2.TableEvent, _Mapping]] = ..., view: _Optional[_Union[SeatView, _Mapping]] = ...) -> None: ...

class SeatPublic(_message.Message):
    __slots__ = ("seat", "tiles", "pile", "pile_size", "score", "declared_pairs", "turned_to_okey", "autopilot", "rack", "player_id", "penalties", "opening", "opening_value", "left", "disconnected")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    PILE_FIELD_NUMBER: _ClassVar[int]
    PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    DECLARED_PAIRS_FIELD_NUMBER: _ClassVar[int]
    TURNED_TO_OKEY_FIELD_NUMBER: _ClassVar[int]
    AUTOPILOT_FIELD_NUMBER: _ClassVar[int]
    RACK_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PENALTIES_FIELD_NUMBER: _ClassVar[int]
    OPENING_FIELD_NUMBER: _ClassVar[int]
    OPENING_VALUE_FIELD_NUMBER: _ClassVar[int]
    LEFT_FIELD_NUMBER: _ClassVar[int]
    DISCONNECTED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    tiles: int
    pile: _containers.RepeatedCompositeFieldContainer[_common_pb2.Tile]
    pile_size: int
    score: int
    declared_pairs: bool
    turned_to_okey: bool
    autopilot: bool
    rack: _containers.RepeatedCompositeFieldContainer[_common_pb2.Tile]
    player_id: str
    penalties: int
    opening: _events_pb2.Opening
    opening_value: int
    left: bool
    disconnected: bool
    def __init__(self, seat: _Optional[int] = ..., tiles: _Optional[int] = ..., pile: _Optional[_Iterable[_Union[_common_pb2.Tile, _Mapping]]] = ..., pile_size: _Optional[int] = ..., score: _Optional[int] = ..., declared_pairs: _Optional[bool] = ..., turned_to_okey: _Optional[bool] = ..., autopilot: _Optional[bool] = ..., rack: _Optional[_Iterable[_Union[_common_pb2.Tile, _Mapping]]] = ..., player_id: _Optional[str] = ..., penalties: _Optional[int] = ..., opening: _Optional[_Union[_events_pb2.Opening, str]] = ..., opening_value: _Optional[int] = ..., left: _Optional[bool] = ..., disconnected: _Optional[bool] = ...) -> None: ...

class SeatView(_message.Message):
    __slots__ = ("table_id", "version", "options", "phase", "hand", "seat", "rack", "indicator", "okey", "deck_count", "turn", "stage", "deadline_ms", "timed_out", "indicator_shown", "side_tile", "seats", "last_hand", "result", "melds", "run_threshold", "pair_threshold", "held_side_tile", "can_return_side", "table_moved", "run_adds", "last_hand101", "last_void", "rules_version", "moved", "allowed", "break_due_ms", "ready", "last_hand_indicator", "last_hand_okey", "last_hand_breakdown")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RACK_FIELD_NUMBER: _ClassVar[int]
    INDICATOR_FIELD_NUMBER: _ClassVar[int]
    OKEY_FIELD_NUMBER: _ClassVar[int]
    DECK_COUNT_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    STAGE_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TIMED_OUT_FIELD_NUMBER: _ClassVar[int]
    INDICATOR_SHOWN_FIELD_NUMBER: _ClassVar[int]
    SIDE_TILE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    LAST_HAND_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    RUN_THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    PAIR_THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    HELD_SIDE_TILE_FIELD_NUMBER: _ClassVar[int]
    CAN_RETURN_SIDE_FIELD_NUMBER: _ClassVar[int]
    TABLE_MOVED_FIELD_NUMBER: _ClassVar[int]
    RUN_ADDS_FIELD_NUMBER: _ClassVar[int]
    LAST_HAND101_FIELD_NUMBER: _ClassVar[int]
    LAST_VOID_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    MOVED_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_FIELD_NUMBER: _ClassVar[int]
    BREAK_DUE_MS_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    LAST_HAND_INDICATOR_FIELD_NUMBER: _ClassVar[int]
    LAST_HAND_OKEY_FIELD_NUMBER: _ClassVar[int]
    LAST_HAND_BREAKDOWN_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    version: int
    options: _common_pb2.TableOptions
    phase: Phase
    hand: int
    seat: int
    rack: _containers.RepeatedCompositeFieldContainer[_common_pb2.Tile]
    indicator: _common_pb2.Tile
    okey: _common_pb2.Tile
    deck_count: int
    turn: int
    stage: Stage
    deadline_ms: int
    timed_out: bool
    indicator_shown: bool
    side_tile: _common_pb2.Tile
    seats: _containers.RepeatedCompositeFieldContainer[SeatPublic]
    last_hand: _events_pb2.HandEnded
    result: _events_pb2.MatchEnded
    melds: _containers.RepeatedCompositeFieldContainer[_events_pb2.TableMeld]
    run_threshold: int
    pair_threshold: int
    held_side_tile: _common_pb2.Tile
    can_return_side: bool
    table_moved: bool
    run_adds: int
    last_hand101: _events_pb2.HandEnded101
    last_void: _events_pb2.HandVoided
    rules_version: int
    moved: bool
    allowed: _containers.RepeatedScalarFieldContainer[str]
    break_due_ms: int
    ready: _containers.RepeatedScalarFieldContainer[int]
    last_hand_indicator: _common_pb2.Tile
    last_hand_okey: _common_pb2.Tile
    last_hand_breakdown: HandBreakdown
    def __init__(self, table_id: _Optional[str] = ..., version: _Optional[int] = ..., options: _Optional[_Union[_common_pb2.TableOptions, _Mapping]] = ..., phase: _Optional[_Union[Phase, str]] = ..., hand: _Optional[int] = ..., seat: _Optional[int] = ..., rack: _Optional[_Iterable[_Union[_common_pb2.Tile, _Mapping]]] = ..., indicator: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., okey: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., deck_count: _Optional[int] = ..., turn: _Optional[int] = ..., stage: _Optional[_Union[Stage, str]] = ..., deadline_ms: _Optional[int] = ..., timed_out: _Optional[bool] = ..., indicator_shown: _Optional[bool] = ..., side_tile: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[SeatPublic, _Mapping]]] = ..., last_hand: _Optional[_Union[_events_pb2.HandEnded, _Mapping]] = ..., result: _Optional[_Union[_events_pb2.MatchEnded, _Mapping]] = ..., melds: _Optional[_Iterable[_Union[_events_pb2.TableMeld, _Mapping]]] = ..., run_threshold: _Optional[int] = ..., pair_threshold: _Optional[int] = ..., held_side_tile: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., can_return_side: _Optional[bool] = ..., table_moved: _Optional[bool] = ..., run_adds: _Optional[int] = ..., last_hand101: _Optional[_Union[_events_pb2.HandEnded101, _Mapping]] = ..., last_void: _Optional[_Union[_events_pb2.HandVoided, _Mapping]] = ..., rules_version: _Optional[int] = ..., moved: _Optional[bool] = ..., allowed: _Optional[_Iterable[str]] = ..., break_due_ms: _Optional[int] = ..., ready: _Optional[_Iterable[int]] = ..., last_hand_indicator: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., last_hand_okey: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., last_hand_breakdown: _Optional[_Union[HandBreakdown, _Mapping]] = ...) -> None: ...

class ScoreLine(_message.Message):
    __slots__ = ("seat", "points", "reason", "tiles")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    points: int
    reason: str
    tiles: int
    def __init__(self, seat: _Optional[int] = ..., points: _Optional[int] = ..., reason: _Optional[str] = ..., tiles: _Optional[int] = ...) -> None: ...

class HandBreakdown(_message.Message):
    __slots__ = ("hand", "lines", "changes", "totals")
    HAND_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    hand: int
    lines: _containers.RepeatedCompositeFieldContainer[ScoreLine]
    changes: _containers.RepeatedScalarFieldContainer[int]
    totals: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, hand: _Optional[int] = ..., lines: _Optional[_Iterable[_Union[ScoreLine, _Mapping]]] = ..., changes: _Optional[_Iterable[int]] = ..., totals: _Optional[_Iterable[int]] = ...) -> None: ...

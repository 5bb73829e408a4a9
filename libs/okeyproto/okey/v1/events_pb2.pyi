import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from okey.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DrawSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DRAW_SOURCE_UNSPECIFIED: _ClassVar[DrawSource]
    DRAW_SOURCE_DECK: _ClassVar[DrawSource]
    DRAW_SOURCE_DISCARD: _ClassVar[DrawSource]

class HandEndReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HAND_END_REASON_UNSPECIFIED: _ClassVar[HandEndReason]
    HAND_END_REASON_FINISHED: _ClassVar[HandEndReason]
    HAND_END_REASON_DECK_EXHAUSTED: _ClassVar[HandEndReason]

class MeldKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MELD_KIND_UNSPECIFIED: _ClassVar[MeldKind]
    MELD_KIND_RUN: _ClassVar[MeldKind]
    MELD_KIND_GROUP: _ClassVar[MeldKind]
    MELD_KIND_PAIR: _ClassVar[MeldKind]

class Opening(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OPENING_UNSPECIFIED: _ClassVar[Opening]
    OPENING_NONE: _ClassVar[Opening]
    OPENING_RUNS: _ClassVar[Opening]
    OPENING_PAIRS: _ClassVar[Opening]
DRAW_SOURCE_UNSPECIFIED: DrawSource
DRAW_SOURCE_DECK: DrawSource
DRAW_SOURCE_DISCARD: DrawSource
HAND_END_REASON_UNSPECIFIED: HandEndReason
HAND_END_REASON_FINISHED: HandEndReason
HAND_END_REASON_DECK_EXHAUSTED: HandEndReason
MELD_KIND_UNSPECIFIED: MeldKind
MELD_KIND_RUN: MeldKind
MELD_KIND_GROUP: MeldKind
MELD_KIND_PAIR: MeldKind
OPENING_UNSPECIFIED: Opening
OPENING_NONE: Opening
OPENING_RUNS: Opening
OPENING_PAIRS: Opening

class TableEvent(_message.Message):
    __slots__ = ("table_id", "version", "hand", "time", "kind", "to_move", "traceparent", "bot_seats", "table_created", "hand_started", "tile_drawn", "tile_returned", "tile_discarded", "indicator_shown", "pairs_declared", "turned_to_okey", "turn_timed_out", "autopilot_ended", "penalty_applied", "hand_ended", "match_ended", "melds_opened", "tile_added", "okey_taken", "hand_ended101", "hand_voided", "seat_left", "break_started", "seat_ready", "seat_disconnected", "seat_reconnected")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    TRACEPARENT_FIELD_NUMBER: _ClassVar[int]
    BOT_SEATS_FIELD_NUMBER: _ClassVar[int]
    TABLE_CREATED_FIELD_NUMBER: _ClassVar[int]
    HAND_STARTED_FIELD_NUMBER: _ClassVar[int]
    TILE_DRAWN_FIELD_NUMBER: _ClassVar[int]
    TILE_RETURNED_FIELD_NUMBER: _ClassVar[int]
    TILE_DISCARDED_FIELD_NUMBER: _ClassVar[int]
    INDICATOR_SHOWN_FIELD_NUMBER: _ClassVar[int]
    PAIRS_DECLARED_FIELD_NUMBER: _ClassVar[int]
    TURNED_TO_OKEY_FIELD_NUMBER: _ClassVar[int]
    TURN_TIMED_OUT_FIELD_NUMBER: _ClassVar[int]
    AUTOPILOT_ENDED_FIELD_NUMBER: _ClassVar[int]
    PENALTY_APPLIED_FIELD_NUMBER: _ClassVar[int]
    HAND_ENDED_FIELD_NUMBER: _ClassVar[int]
    MATCH_ENDED_FIELD_NUMBER: _ClassVar[int]
    MELDS_OPENED_FIELD_NUMBER: _ClassVar[int]
    TILE_ADDED_FIELD_NUMBER: _ClassVar[int]
    OKEY_TAKEN_FIELD_NUMBER: _ClassVar[int]
    HAND_ENDED101_FIELD_NUMBER: _ClassVar[int]
    HAND_VOIDED_FIELD_NUMBER: _ClassVar[int]
    SEAT_LEFT_FIELD_NUMBER: _ClassVar[int]
    BREAK_STARTED_FIELD_NUMBER: _ClassVar[int]
    SEAT_READY_FIELD_NUMBER: _ClassVar[int]
    SEAT_DISCONNECTED_FIELD_NUMBER: _ClassVar[int]
    SEAT_RECONNECTED_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    version: int
    hand: int
    time: _timestamp_pb2.Timestamp
    kind: str
    to_move: int
    traceparent: str
    bot_seats: int
    table_created: TableCreated
    hand_started: HandStarted
    tile_drawn: TileDrawn
    tile_returned: TileReturned
    tile_discarded: TileDiscarded
    indicator_shown: IndicatorShown
    pairs_declared: PairsDeclared
    turned_to_okey: TurnedToOkey
    turn_timed_out: TurnTimedOut
    autopilot_ended: AutopilotEnded
    penalty_applied: PenaltyApplied
    hand_ended: HandEnded
    match_ended: MatchEnded
    melds_opened: MeldsOpened
    tile_added: TileAdded
    okey_taken: OkeyTaken
    hand_ended101: HandEnded101
    hand_voided: HandVoided
    seat_left: SeatLeft
    break_started: BreakStarted
    seat_ready: SeatReady
    seat_disconnected: SeatDisconnected
    seat_reconnected: SeatReconnected
    def __init__(self, table_id: _Optional[str] = ..., version: _Optional[int] = ..., hand: _Optional[int] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., kind: _Optional[str] = ..., to_move: _Optional[int] = ..., traceparent: _Optional[str] = ..., bot_seats: _Optional[int] = ..., table_created: _Optional[_Union[TableCreated, _Mapping]] = ..., hand_started: _Optional[_Union[HandStarted, _Mapping]] = ..., tile_drawn: _Optional[_Union[TileDrawn, _Mapping]] = ..., tile_returned: _Optional[_Union[TileReturned, _Mapping]] = ..., tile_discarded: _Optional[_Union[TileDiscarded, _Mapping]] = ..., indicator_shown: _Optional[_Union[IndicatorShown, _Mapping]] = ..., pairs_declared: _Optional[_Union[PairsDeclared, _Mapping]] = ..., turned_to_okey: _Optional[_Union[TurnedToOkey, _Mapping]] = ..., turn_timed_out: _Optional[_Union[TurnTimedOut, _Mapping]] = ..., autopilot_ended: _Optional[_Union[AutopilotEnded, _Mapping]] = ..., penalty_applied: _Optional[_Union[PenaltyApplied, _Mapping]] = ..., hand_ended: _Optional[_Union[HandEnded, _Mapping]] = ..., match_ended: _Optional[_Union[MatchEnded, _Mapping]] = ..., melds_opened: _Optional[_Union[MeldsOpened, _Mapping]] = ..., tile_added: _Optional[_Union[TileAdded, _Mapping]] = ..., okey_taken: _Optional[_Union[OkeyTaken, _Mapping]] = ..., hand_ended101: _Optional[_Union[HandEnded101, _Mapping]] = ..., hand_voided: _Optional[_Union[HandVoided, _Mapping]] = ..., seat_left: _Optional[_Union[SeatLeft, _Mapping]] = ..., break_started: _Optional[_Union[BreakStarted, _Mapping]] = ..., seat_ready: _Optional[_Union[SeatReady, _Mapping]] = ..., seat_disconnected: _Optional[_Union[SeatDisconnected, _Mapping]] = ..., seat_reconnected: _Optional[_Union[SeatReconnected, _Mapping]] = ...) -> None: ...

class TableCreated(_message.Message):
    __slots__ = ("table_id", "options", "rules_version", "players", "public")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    options: _common_pb2.TableOptions
    rules_version: int
    players: _containers.RepeatedScalarFieldContainer[str]
    public: bool
    def __init__(self, table_id: _Optional[str] = ..., options: _Optional[_Union[_common_pb2.TableOptions, _Mapping]] = ..., rules_version: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., public: _Optional[bool] = ...) -> None: ...

class HandStarted(_message.Message):
    __slots__ = ("hand", "starter", "racks", "indicator", "deck", "deadline_ms", "commitment", "order", "salt")
    HAND_FIELD_NUMBER: _ClassVar[int]
    STARTER_FIELD_NUMBER: _ClassVar[int]
    RACKS_FIELD_NUMBER: _ClassVar[int]
    INDICATOR_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    SALT_FIELD_NUMBER: _ClassVar[int]
    hand: int
    starter: int
    racks: _containers.RepeatedCompositeFieldContainer[_common_pb2.TileGroup]
    indicator: _common_pb2.Tile
    deck: _containers.RepeatedCompositeFieldContainer[_common_pb2.Tile]
    deadline_ms: int
    commitment: str
    order: _containers.RepeatedCompositeFieldContainer[_common_pb2.Tile]
    salt: str
    def __init__(self, hand: _Optional[int] = ..., starter: _Optional[int] = ..., racks: _Optional[_Iterable[_Union[_common_pb2.TileGroup, _Mapping]]] = ..., indicator: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., deck: _Optional[_Iterable[_Union[_common_pb2.Tile, _Mapping]]] = ..., deadline_ms: _Optional[int] = ..., commitment: _Optional[str] = ..., order: _Optional[_Iterable[_Union[_common_pb2.Tile, _Mapping]]] = ..., salt: _Optional[str] = ...) -> None: ...

class TileDrawn(_message.Message):
    __slots__ = ("seat", "tile", "source")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    tile: _common_pb2.Tile
    source: DrawSource
    def __init__(self, seat: _Optional[int] = ..., tile: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., source: _Optional[_Union[DrawSource, str]] = ...) -> None: ...

class TileReturned(_message.Message):
    __slots__ = ("seat", "tile")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    tile: _common_pb2.Tile
    def __init__(self, seat: _Optional[int] = ..., tile: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ...) -> None: ...

class TileDiscarded(_message.Message):
    __slots__ = ("seat", "tile", "next_seat", "deadline_ms")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    NEXT_SEAT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    tile: _common_pb2.Tile
    next_seat: int
    deadline_ms: int
    def __init__(self, seat: _Optional[int] = ..., tile: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., next_seat: _Optional[int] = ..., deadline_ms: _Optional[int] = ...) -> None: ...

class IndicatorShown(_message.Message):
    __slots__ = ("seat", "tile", "deltas")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    DELTAS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    tile: _common_pb2.Tile
    deltas: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., tile: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., deltas: _Optional[_Iterable[int]] = ...) -> None: ...

class PairsDeclared(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class TurnedToOkey(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class TurnTimedOut(_message.Message):
    __slots__ = ("seat", "consecutive", "autopilot", "grace_deadline_ms")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CONSECUTIVE_FIELD_NUMBER: _ClassVar[int]
    AUTOPILOT_FIELD_NUMBER: _ClassVar[int]
    GRACE_DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    consecutive: int
    autopilot: bool
    grace_deadline_ms: int
    def __init__(self, seat: _Optional[int] = ..., consecutive: _Optional[int] = ..., autopilot: _Optional[bool] = ..., grace_deadline_ms: _Optional[int] = ...) -> None: ...

class AutopilotEnded(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class PenaltyApplied(_message.Message):
    __slots__ = ("seat", "points", "reason")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    points: int
    reason: str
    def __init__(self, seat: _Optional[int] = ..., points: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class HandEnded(_message.Message):
    __slots__ = ("hand", "reason", "finisher", "final_tile", "arrangement", "okey_finish", "pairs_finish", "colored_finish", "multiplier", "deltas", "racks", "deck", "order", "salt")
    HAND_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FINISHER_FIELD_NUMBER: _ClassVar[int]
    FINAL_TILE_FIELD_NUMBER: _ClassVar[int]
    ARRANGEMENT_FIELD_NUMBER: _ClassVar[int]
    OKEY_FINISH_FIELD_NUMBER: _ClassVar[int]
    PAIRS_FINISH_FIELD_NUMBER: _ClassVar[int]
    COLORED_FINISH_FIELD_NUMBER: _ClassVar[int]
    MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    DELTAS_FIELD_NUMBER: _ClassVar[int]
    RACKS_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    SALT_FIELD_NUMBER: _ClassVar[int]
    hand: int
    reason: HandEndReason
    finisher: int
    final_tile: _common_pb2.Tile
    arrangement: _containers.RepeatedCompositeFieldContainer[_common_pb2.TileGroup]
    okey_finish: bool
    pairs_finish: bool
    colored_finish: bool
    multiplier: int
    deltas: _containers.RepeatedScalarFieldContainer[int]
    racks: _containers.RepeatedCompositeFieldContainer[_common_pb2.TileGroup]
    deck: _containers.RepeatedCompositeFieldContainer[_common_pb2.Tile]
    order: _containers.RepeatedCompositeFieldContainer[_common_pb2.Tile]
    salt: str
    def __init__(self, hand: _Optional[int] = ..., reason: _Optional[_Union[HandEndReason, str]] = ..., finisher: _Optional[int] = ..., final_tile: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., arrangement: _Optional[_Iterable[_Union[_common_pb2.TileGroup, _Mapping]]] = ..., okey_finish: _Optional[bool] = ..., pairs_finish: _Optional[bool] = ..., colored_finish: _Optional[bool] = ..., multiplier: _Optional[int] = ..., deltas: _Optional[_Iterable[int]] = ..., racks: _Optional[_Iterable[_Union[_common_pb2.TileGroup, _Mapping]]] = ..., deck: _Optional[_Iterable[_Union[_common_pb2.Tile, _Mapping]]] = ..., order: _Optional[_Iterable[_Union[_common_pb2.Tile, _Mapping]]] = ..., salt: _Optional[str] = ...) -> None: ...

class MatchEnded(_message.Message):
    __slots__ = ("scores", "winners", "pot", "payout", "remainder")
    SCORES_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    PAYOUT_FIELD_NUMBER: _ClassVar[int]
    REMAINDER_FIELD_NUMBER: _ClassVar[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    pot: int
    payout: int
    remainder: int
    def __init__(self, scores: _Optional[_Iterable[int]] = ..., winners: _Optional[_Iterable[int]] = ..., pot: _Optional[int] = ..., payout: _Optional[int] = ..., remainder: _Optional[int] = ...) -> None: ...

class TableMeld(_message.Message):
    __slots__ = ("owner", "kind", "tiles", "stands_for")
    OWNER_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    STANDS_FOR_FIELD_NUMBER: _ClassVar[int]
    owner: int
    kind: MeldKind
    tiles: _containers.RepeatedCompositeFieldContainer[_common_pb2.Tile]
    stands_for: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, owner: _Optional[int] = ..., kind: _Optional[_Union[MeldKind, str]] = ..., tiles: _Optional[_Iterable[_Union[_common_pb2.Tile, _Mapping]]] = ..., stands_for: _Optional[_Iterable[str]] = ...) -> None: ...

class MeldsOpened(_message.Message):
    __slots__ = ("seat", "melds", "opening", "first", "value")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    OPENING_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    melds: _containers.RepeatedCompositeFieldContainer[TableMeld]
    opening: Opening
    first: bool
    value: int
    def __init__(self, seat: _Optional[int] = ..., melds: _Optional[_Iterable[_Union[TableMeld, _Mapping]]] = ..., opening: _Optional[_Union[Opening, str]] = ..., first: _Optional[bool] = ..., value: _Optional[int] = ...) -> None: ...

class TileAdded(_message.Message):
    __slots__ = ("seat", "tile", "meld", "at_start", "stands_for")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    MELD_FIELD_NUMBER: _ClassVar[int]
    AT_START_FIELD_NUMBER: _ClassVar[int]
    STANDS_FOR_FIELD_NUMBER: _ClassVar[int]
    seat: int
    tile: _common_pb2.Tile
    meld: int
    at_start: bool
    stands_for: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., tile: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., meld: _Optional[int] = ..., at_start: _Optional[bool] = ..., stands_for: _Optional[_Iterable[str]] = ...) -> None: ...

class OkeyTaken(_message.Message):
    __slots__ = ("seat", "tile", "okey", "meld", "stands_for")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    OKEY_FIELD_NUMBER: _ClassVar[int]
    MELD_FIELD_NUMBER: _ClassVar[int]
    STANDS_FOR_FIELD_NUMBER: _ClassVar[int]
    seat: int
    tile: _common_pb2.Tile
    okey: _common_pb2.Tile
    meld: int
    stands_for: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., tile: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., okey: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., meld: _Optional[int] = ..., stands_for: _Optional[_Iterable[str]] = ...) -> None: ...

class HandEnded101(_message.Message):
    __slots__ = ("hand", "reason", "finisher", "final_tile", "okey_finish", "pair_finish", "elden", "multiplier", "points", "penalties", "deltas", "totals", "chips", "racks", "deck", "order", "salt")
    HAND_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FINISHER_FIELD_NUMBER: _ClassVar[int]
    FINAL_TILE_FIELD_NUMBER: _ClassVar[int]
    OKEY_FINISH_FIELD_NUMBER: _ClassVar[int]
    PAIR_FINISH_FIELD_NUMBER: _ClassVar[int]
    ELDEN_FIELD_NUMBER: _ClassVar[int]
    MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    PENALTIES_FIELD_NUMBER: _ClassVar[int]
    DELTAS_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    CHIPS_FIELD_NUMBER: _ClassVar[int]
    RACKS_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    SALT_FIELD_NUMBER: _ClassVar[int]
    hand: int
    reason: HandEndReason
    finisher: int
    final_tile: _common_pb2.Tile
    okey_finish: bool
    pair_finish: bool
    elden: bool
    multiplier: int
    points: _containers.RepeatedScalarFieldContainer[int]
    penalties: _containers.RepeatedScalarFieldContainer[int]
    deltas: _containers.RepeatedScalarFieldContainer[int]
    totals: _containers.RepeatedScalarFieldContainer[int]
    chips: _containers.RepeatedScalarFieldContainer[int]
    racks: _containers.RepeatedCompositeFieldContainer[_common_pb2.TileGroup]
    deck: _containers.RepeatedCompositeFieldContainer[_common_pb2.Tile]
    order: _containers.RepeatedCompositeFieldContainer[_common_pb2.Tile]
    salt: str
    def __init__(self, hand: _Optional[int] = ..., reason: _Optional[_Union[HandEndReason, str]] = ..., finisher: _Optional[int] = ..., final_tile: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., okey_finish: _Optional[bool] = ..., pair_finish: _Optional[bool] = ..., elden: _Optional[bool] = ..., multiplier: _Optional[int] = ..., points: _Optional[_Iterable[int]] = ..., penalties: _Optional[_Iterable[int]] = ..., deltas: _Optional[_Iterable[int]] = ..., totals: _Optional[_Iterable[int]] = ..., chips: _Optional[_Iterable[int]] = ..., racks: _Optional[_Iterable[_Union[_common_pb2.TileGroup, _Mapping]]] = ..., deck: _Optional[_Iterable[_Union[_common_pb2.Tile, _Mapping]]] = ..., order: _Optional[_Iterable[_Union[_common_pb2.Tile, _Mapping]]] = ..., salt: _Optional[str] = ...) -> None: ...

class HandVoided(_message.Message):
    __slots__ = ("hand", "penalties", "racks", "deck", "order", "salt")
    HAND_FIELD_NUMBER: _ClassVar[int]
    PENALTIES_FIELD_NUMBER: _ClassVar[int]
    RACKS_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    SALT_FIELD_NUMBER: _ClassVar[int]
    hand: int
    penalties: _containers.RepeatedScalarFieldContainer[int]
    racks: _containers.RepeatedCompositeFieldContainer[_common_pb2.TileGroup]
    deck: _containers.RepeatedCompositeFieldContainer[_common_pb2.Tile]
    order: _containers.RepeatedCompositeFieldContainer[_common_pb2.Tile]
    salt: str
    def __init__(self, hand: _Optional[int] = ..., penalties: _Optional[_Iterable[int]] = ..., racks: _Optional[_Iterable[_Union[_common_pb2.TileGroup, _Mapping]]] = ..., deck: _Optional[_Iterable[_Union[_common_pb2.Tile, _Mapping]]] = ..., order: _Optional[_Iterable[_Union[_common_pb2.Tile, _Mapping]]] = ..., salt: _Optional[str] = ...) -> None: ...

class SeatLeft(_message.Message):
    __slots__ = ("seat", "player")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ...) -> None: ...

class BreakStarted(_message.Message):
    __slots__ = ("hand", "due_ms")
    HAND_FIELD_NUMBER: _ClassVar[int]
    DUE_MS_FIELD_NUMBER: _ClassVar[int]
    hand: int
    due_ms: int
    def __init__(self, hand: _Optional[int] = ..., due_ms: _Optional[int] = ...) -> None: ...

class SeatReady(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class SeatDisconnected(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class SeatReconnected(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

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

class HandOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HAND_OUTCOME_UNSPECIFIED: _ClassVar[HandOutcome]
    HAND_OUTCOME_FINISHED: _ClassVar[HandOutcome]
    HAND_OUTCOME_DECK_EXHAUSTED: _ClassVar[HandOutcome]
    HAND_OUTCOME_VOIDED: _ClassVar[HandOutcome]

class FinishKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FINISH_KIND_UNSPECIFIED: _ClassVar[FinishKind]
    FINISH_KIND_NORMAL: _ClassVar[FinishKind]
    FINISH_KIND_OKEY: _ClassVar[FinishKind]
    FINISH_KIND_PAIRS: _ClassVar[FinishKind]
    FINISH_KIND_COLORED: _ClassVar[FinishKind]
    FINISH_KIND_ELDEN: _ClassVar[FinishKind]

class LeaderboardPeriod(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LEADERBOARD_PERIOD_UNSPECIFIED: _ClassVar[LeaderboardPeriod]
    LEADERBOARD_PERIOD_ALL_TIME: _ClassVar[LeaderboardPeriod]
    LEADERBOARD_PERIOD_WEEKLY: _ClassVar[LeaderboardPeriod]

class LeaderboardOrder(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LEADERBOARD_ORDER_UNSPECIFIED: _ClassVar[LeaderboardOrder]
    LEADERBOARD_ORDER_WINS: _ClassVar[LeaderboardOrder]
    LEADERBOARD_ORDER_RATING: _ClassVar[LeaderboardOrder]
HAND_OUTCOME_UNSPECIFIED: HandOutcome
HAND_OUTCOME_FINISHED: HandOutcome
HAND_OUTCOME_DECK_EXHAUSTED: HandOutcome
HAND_OUTCOME_VOIDED: HandOutcome
FINISH_KIND_UNSPECIFIED: FinishKind
FINISH_KIND_NORMAL: FinishKind
FINISH_KIND_OKEY: FinishKind
FINISH_KIND_PAIRS: FinishKind
FINISH_KIND_COLORED: FinishKind
FINISH_KIND_ELDEN: FinishKind
LEADERBOARD_PERIOD_UNSPECIFIED: LeaderboardPeriod
LEADERBOARD_PERIOD_ALL_TIME: LeaderboardPeriod
LEADERBOARD_PERIOD_WEEKLY: LeaderboardPeriod
LEADERBOARD_ORDER_UNSPECIFIED: LeaderboardOrder
LEADERBOARD_ORDER_WINS: LeaderboardOrder
LEADERBOARD_ORDER_RATING: LeaderboardOrder

class Rating(_message.Message):
    __slots__ = ("display", "mu", "sigma", "matches")
    DISPLAY_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    display: int
    mu: float
    sigma: float
    matches: int
    def __init__(self, display: _Optional[int] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., matches: _Optional[int] = ...) -> None: ...

class RatingChange(_message.Message):
    __slots__ = ("before", "after", "change")
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    before: int
    after: int
    change: int
    def __init__(self, before: _Optional[int] = ..., after: _Optional[int] = ..., change: _Optional[int] = ...) -> None: ...

class IndicatorShow(_message.Message):
    __slots__ = ("seat", "deltas")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DELTAS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    deltas: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., deltas: _Optional[_Iterable[int]] = ...) -> None: ...

class Penalty(_message.Message):
    __slots__ = ("seat", "points", "reason")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    points: int
    reason: str
    def __init__(self, seat: _Optional[int] = ..., points: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class HandRecord(_message.Message):
    __slots__ = ("seq", "hand", "version", "outcome", "finisher", "finisher_player_id", "finish_kinds", "final_tile", "multiplier", "deltas", "points", "indicator", "penalties", "total", "scores", "indicator_shows", "penalty_events", "chips", "ended_at")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    FINISHER_FIELD_NUMBER: _ClassVar[int]
    FINISHER_PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    FINISH_KINDS_FIELD_NUMBER: _ClassVar[int]
    FINAL_TILE_FIELD_NUMBER: _ClassVar[int]
    MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    DELTAS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    INDICATOR_FIELD_NUMBER: _ClassVar[int]
    PENALTIES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    INDICATOR_SHOWS_FIELD_NUMBER: _ClassVar[int]
    PENALTY_EVENTS_FIELD_NUMBER: _ClassVar[int]
    CHIPS_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    seq: int
    hand: int
    version: int
    outcome: HandOutcome
    finisher: int
    finisher_player_id: str
    finish_kinds: _containers.RepeatedScalarFieldContainer[FinishKind]
    final_tile: _common_pb2.Tile
    multiplier: int
    deltas: _containers.RepeatedScalarFieldContainer[int]
    points: _containers.RepeatedScalarFieldContainer[int]
    indicator: _containers.RepeatedScalarFieldContainer[int]
    penalties: _containers.RepeatedScalarFieldContainer[int]
    total: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    indicator_shows: _containers.RepeatedCompositeFieldContainer[IndicatorShow]
    penalty_events: _containers.RepeatedCompositeFieldContainer[Penalty]
    chips: _containers.RepeatedScalarFieldContainer[int]
    ended_at: _timestamp_pb2.Timestamp
    def __init__(self, seq: _Optional[int] = ..., hand: _Optional[int] = ..., version: _Optional[int] = ..., outcome: _Optional[_Union[HandOutcome, str]] = ..., finisher: _Optional[int] = ..., finisher_player_id: _Optional[str] = ..., finish_kinds: _Optional[_Iterable[_Union[FinishKind, str]]] = ..., final_tile: _Optional[_Union[_common_pb2.Tile, _Mapping]] = ..., multiplier: _Optional[int] = ..., deltas: _Optional[_Iterable[int]] = ..., points: _Optional[_Iterable[int]] = ..., indicator: _Optional[_Iterable[int]] = ..., penalties: _Optional[_Iterable[int]] = ..., total: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ..., indicator_shows: _Optional[_Iterable[_Union[IndicatorShow, _Mapping]]] = ..., penalty_events: _Optional[_Iterable[_Union[Penalty, _Mapping]]] = ..., chips: _Optional[_Iterable[int]] = ..., ended_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SeatStanding(_message.Message):
    __slots__ = ("seat", "player_id", "score", "rank", "winner", "payout", "rating")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    PAYOUT_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    score: int
    rank: int
    winner: bool
    payout: int
    rating: RatingChange
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., score: _Optional[int] = ..., rank: _Optional[int] = ..., winner: _Optional[bool] = ..., payout: _Optional[int] = ..., rating: _Optional[_Union[RatingChange, _Mapping]] = ...) -> None: ...

class MatchResult(_message.Message):
    __slots__ = ("table_id", "game", "standings", "winners", "pot", "payout", "remainder", "hands", "ended_at", "practice")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    PAYOUT_FIELD_NUMBER: _ClassVar[int]
    REMAINDER_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    PRACTICE_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    game: _common_pb2.Game
    standings: _containers.RepeatedCompositeFieldContainer[SeatStanding]
    winners: _containers.RepeatedScalarFieldContainer[int]
    pot: int
    payout: int
    remainder: int
    hands: int
    ended_at: _timestamp_pb2.Timestamp
    practice: bool
    def __init__(self, table_id: _Optional[str] = ..., game: _Optional[_Union[_common_pb2.Game, str]] = ..., standings: _Optional[_Iterable[_Union[SeatStanding, _Mapping]]] = ..., winners: _Optional[_Iterable[int]] = ..., pot: _Optional[int] = ..., payout: _Optional[int] = ..., remainder: _Optional[int] = ..., hands: _Optional[int] = ..., ended_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., practice: _Optional[bool] = ...) -> None: ...

class GetMatchResultRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class GetMatchResultResponse(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: MatchResult
    def __init__(self, result: _Optional[_Union[MatchResult, _Mapping]] = ...) -> None: ...

class ListHandsRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class ListHandsResponse(_message.Message):
    __slots__ = ("hands", "game", "players", "version", "match_over")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    MATCH_OVER_FIELD_NUMBER: _ClassVar[int]
    hands: _containers.RepeatedCompositeFieldContainer[HandRecord]
    game: _common_pb2.Game
    players: _containers.RepeatedScalarFieldContainer[str]
    version: int
    match_over: bool
    def __init__(self, hands: _Optional[_Iterable[_Union[HandRecord, _Mapping]]] = ..., game: _Optional[_Union[_common_pb2.Game, str]] = ..., players: _Optional[_Iterable[str]] = ..., version: _Optional[int] = ..., match_over: _Optional[bool] = ...) -> None: ...

class FinishCount(_message.Message):
    __slots__ = ("kind", "hands")
    KIND_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    kind: FinishKind
    hands: int
    def __init__(self, kind: _Optional[_Union[FinishKind, str]] = ..., hands: _Optional[int] = ...) -> None: ...

class PlayerStats(_message.Message):
    __slots__ = ("player_id", "game", "matches", "wins", "average_score", "hands_played", "hands_won", "hands_won_by_finish", "chips_won", "indicator_shows", "penalty_points", "rating")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    AVERAGE_SCORE_FIELD_NUMBER: _ClassVar[int]
    HANDS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    HANDS_WON_FIELD_NUMBER: _ClassVar[int]
    HANDS_WON_BY_FINISH_FIELD_NUMBER: _ClassVar[int]
    CHIPS_WON_FIELD_NUMBER: _ClassVar[int]
    INDICATOR_SHOWS_FIELD_NUMBER: _ClassVar[int]
    PENALTY_POINTS_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    game: _common_pb2.Game
    matches: int
    wins: int
    average_score: float
    hands_played: int
    hands_won: int
    hands_won_by_finish: _containers.RepeatedCompositeFieldContainer[FinishCount]
    chips_won: int
    indicator_shows: int
    penalty_points: int
    rating: Rating
    def __init__(self, player_id: _Optional[str] = ..., game: _Optional[_Union[_common_pb2.Game, str]] = ..., matches: _Optional[int] = ..., wins: _Optional[int] = ..., average_score: _Optional[float] = ..., hands_played: _Optional[int] = ..., hands_won: _Optional[int] = ..., hands_won_by_finish: _Optional[_Iterable[_Union[FinishCount, _Mapping]]] = ..., chips_won: _Optional[int] = ..., indicator_shows: _Optional[int] = ..., penalty_points: _Optional[int] = ..., rating: _Optional[_Union[Rating, _Mapping]] = ...) -> None: ...

class GetPlayerStatsRequest(_message.Message):
    __slots__ = ("player_id", "game")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    game: _common_pb2.Game
    def __init__(self, player_id: _Optional[str] = ..., game: _Optional[_Union[_common_pb2.Game, str]] = ...) -> None: ...

class GetPlayerStatsResponse(_message.Message):
    __slots__ = ("stats",)
    STATS_FIELD_NUMBER: _ClassVar[int]
    stats: _containers.RepeatedCompositeFieldContainer[PlayerStats]
    def __init__(self, stats: _Optional[_Iterable[_Union[PlayerStats, _Mapping]]] = ...) -> None: ...

class LeaderboardEntry(_message.Message):
    __slots__ = ("rank", "player_id", "wins", "matches", "average_score", "rating", "rating_change", "rated_matches")
    RANK_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    AVERAGE_SCORE_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    RATING_CHANGE_FIELD_NUMBER: _ClassVar[int]
    RATED_MATCHES_FIELD_NUMBER: _ClassVar[int]
    rank: int
    player_id: str
    wins: int
    matches: int
    average_score: float
    rating: int
    rating_change: int
    rated_matches: int
    def __init__(self, rank: _Optional[int] = ..., player_id: _Optional[str] = ..., wins: _Optional[int] = ..., matches: _Optional[int] = ..., average_score: _Optional[float] = ..., rating: _Optional[int] = ..., rating_change: _Optional[int] = ..., rated_matches: _Optional[int] = ...) -> None: ...

class GetLeaderboardRequest(_message.Message):
    __slots__ = ("game", "period", "week", "page_size", "page_token", "order")
    GAME_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    WEEK_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    game: _common_pb2.Game
    period: LeaderboardPeriod
    week: str
    page_size: int
    page_token: str
    order: LeaderboardOrder
    def __init__(self, game: _Optional[_Union[_common_pb2.Game, str]] = ..., period: _Optional[_Union[LeaderboardPeriod, str]] = ..., week: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., order: _Optional[_Union[LeaderboardOrder, str]] = ...) -> None: ...

class GetLeaderboardResponse(_message.Message):
    __slots__ = ("entries", "next_page_token", "week_start", "mine")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    WEEK_START_FIELD_NUMBER: _ClassVar[int]
    MINE_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[LeaderboardEntry]
    next_page_token: str
    week_start: str
    mine: LeaderboardEntry
    def __init__(self, entries: _Optional[_Iterable[_Union[LeaderboardEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., week_start: _Optional[str] = ..., mine: _Optional[_Union[LeaderboardEntry, _Mapping]] = ...) -> None: ...

class ForgetPlayerRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class ForgetPlayerResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

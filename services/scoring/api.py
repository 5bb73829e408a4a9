"""ScoringService over gRPC: translate, authorise, call one use case, translate back."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import grpc
from google.protobuf.timestamp_pb2 import Timestamp
from okey.v1 import common_pb2
from okey.v1 import scoring_service_pb2 as pb
from okey.v1 import scoring_service_pb2_grpc as pb_grpc
from okeyplatform.auth import Identity, identity_from_metadata
from okeyplatform.contract import tile_pb
from okeyplatform.errors import InvalidArgument

from .app import LeaderEntry, ScoringApp, average
from .projection import Counters, FinishKind, HandRow, MatchRow, SeatRow, is_ranked
from .rating import MatchRatingRow, RatingRow

__all__ = ["ScoringServicer", "SERVICE_NAME"]

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["ScoringService"].full_name

_GAMES = {common_pb2.GAME_OKEY: "OKEY", common_pb2.GAME_OKEY101: "OKEY101"}
_GAME_PB = {v: k for k, v in _GAMES.items()}
_OUTCOMES = {
    "FINISHED": pb.HAND_OUTCOME_FINISHED,
    "DECK_EXHAUSTED": pb.HAND_OUTCOME_DECK_EXHAUSTED,
    "VOIDED": pb.HAND_OUTCOME_VOIDED,
}
_KINDS = {
    FinishKind.NORMAL: pb.FINISH_KIND_NORMAL,
    FinishKind.OKEY: pb.FINISH_KIND_OKEY,
    FinishKind.PAIRS: pb.FINISH_KIND_PAIRS,
    FinishKind.COLORED: pb.FINISH_KIND_COLORED,
    FinishKind.ELDEN: pb.FINISH_KIND_ELDEN,
}
_WON_FIELDS = (
    (FinishKind.NORMAL, "won_normal"),
    (FinishKind.OKEY, "won_okey"),
    (FinishKind.PAIRS, "won_pairs"),
    (FinishKind.COLORED, "won_colored"),
    (FinishKind.ELDEN, "won_elden"),
)


def _identity(context: grpc.aio.ServicerContext[Any, Any]) -> Identity:
    return identity_from_metadata(context.invocation_metadata())  # type: ignore[arg-type]


def _ts(moment: datetime) -> Timestamp:
    ts = Timestamp()
    ts.FromDatetime(moment)
    return ts


def _game(value: int, required: bool) -> str | None:
    if value == common_pb2.GAME_UNSPECIFIED and not required:
        return None
    if value not in _GAMES:
        raise InvalidArgument("game is required: GAME_OKEY or GAME_OKEY101")
    return _GAMES[value]


def hand_pb(h: HandRow) -> pb.HandRecord:
    return pb.HandRecord(
        seq=h.seq,
        hand=h.hand,
        version=h.version,
        outcome=_OUTCOMES.get(h.outcome, pb.HAND_OUTCOME_UNSPECIFIED),
        finisher=h.finisher,
        finisher_player_id=h.finisher_player,
        finish_kinds=[_KINDS[k] for k in h.finish_kinds],
        final_tile=tile_pb(h.final_tile),
        multiplier=h.multiplier,
        deltas=h.deltas,
        points=h.points,
        indicator=h.indicator,
        penalties=h.penalties,
        total=h.total,
        scores=h.scores,
        indicator_shows=[pb.IndicatorShow(seat=s["seat"], deltas=s["deltas"]) for s in h.shows],
        penalty_events=[pb.Penalty(seat=p["seat"], points=p["points"], reason=p["reason"]) for p in h.penalty_events],
        chips=h.chips,
        ended_at=_ts(h.ended_at),
    )


def _change_pb(r: MatchRatingRow | None) -> pb.RatingChange | None:
    if r is None:
        return None
    return pb.RatingChange(before=r.display_before, after=r.display_after, change=r.display_after - r.display_before)


def match_pb(m: MatchRow, seats: list[SeatRow], ratings: dict[int, MatchRatingRow] | None = None) -> pb.MatchResult:
    rated = ratings or {}
    return pb.MatchResult(
        table_id=m.table_id,
        game=_GAME_PB.get(m.game, common_pb2.GAME_UNSPECIFIED),
        standings=[
            pb.SeatStanding(
                seat=s.seat,
                player_id=s.player_id,
                score=s.score,
                rank=s.rank,
                winner=s.winner,
                payout=s.payout,
                rating=_change_pb(rated.get(s.seat)),
            )
            for s in seats
        ],
        winners=m.winners,
        pot=m.pot,
        payout=m.payout,
        remainder=m.remainder,
        hands=m.hands,
        ended_at=_ts(m.ended_at),
        practice=not is_ranked(m.players),  # what the projection decided: no leaderboard, no match stats
    )


def rating_pb(r: RatingRow | None) -> pb.Rating | None:
    if r is None:
        return None
    return pb.Rating(display=r.display, mu=r.mu, sigma=r.sigma, matches=r.matches)


def stats_pb(player_id: str, game: str, c: Counters, rating: RatingRow | None = None) -> pb.PlayerStats:
    return pb.PlayerStats(
        player_id=player_id,
        game=_GAME_PB.get(game, common_pb2.GAME_UNSPECIFIED),
        matches=c.matches,
        wins=c.wins,
        average_score=average(c.score_sum, c.matches),
        hands_played=c.hands_played,
        hands_won=c.hands_won,
        hands_won_by_finish=[pb.FinishCount(kind=_KINDS[k], hands=getattr(c, f)) for k, f in _WON_FIELDS],
        chips_won=c.chips_won,
        indicator_shows=c.indicator_shows,
        penalty_points=c.penalty_points,
        rating=rating_pb(rating),
    )


def entry_pb(e: LeaderEntry) -> pb.LeaderboardEntry:
    return pb.LeaderboardEntry(
        rank=e.rank,
        player_id=e.player_id,
        wins=e.wins,
        matches=e.matches,
        average_score=e.average_score,
        rating=e.rating,
        rating_change=e.rating_change,
        rated_matches=e.rated_matches,
    )


class ScoringServicer(pb_grpc.ScoringServiceServicer):
    def __init__(self, app: ScoringApp) -> None:
        self.app = app

    async def GetMatchResult(self, request: pb.GetMatchResultRequest, context: Any) -> pb.GetMatchResultResponse:
        _identity(context)
        if not request.table_id:
            raise InvalidArgument("table_id is required")
        match, seats, ratings = await self.app.match_result(request.table_id)
        return pb.GetMatchResultResponse(result=match_pb(match, seats, ratings))

    async def ListHands(self, request: pb.ListHandsRequest, context: Any) -> pb.ListHandsResponse:
        _identity(context)
        if not request.table_id:
            raise InvalidArgument("table_id is required")
        table, hands = await self.app.hands(request.table_id)
        return pb.ListHandsResponse(
            hands=[hand_pb(h) for h in hands],
            game=_GAME_PB.get(table.game, common_pb2.GAME_UNSPECIFIED),
            players=table.players,
            version=table.version,
            match_over=table.ended_at is not None,
        )

    async def GetPlayerStats(self, request: pb.GetPlayerStatsRequest, context: Any) -> pb.GetPlayerStatsResponse:
        _identity(context)
        got = await self.app.player_stats(request.player_id, _game(request.game, required=False))
        return pb.GetPlayerStatsResponse(stats=[stats_pb(request.player_id, g, c, r) for g, c, r in got])

    async def ForgetPlayer(self, request: pb.ForgetPlayerRequest, context: Any) -> pb.ForgetPlayerResponse:
        await self.app.forget_player(_identity(context), request.player_id)
        return pb.ForgetPlayerResponse()

    async def GetLeaderboard(self, request: pb.GetLeaderboardRequest, context: Any) -> pb.GetLeaderboardResponse:
        who = _identity(context)
        game = _game(request.game, required=True)
        assert game is not None
        weekly = request.period == pb.LEADERBOARD_PERIOD_WEEKLY
        by_rating = request.order == pb.LEADERBOARD_ORDER_RATING
        page = await self.app.leaderboard(
            game,
            weekly,
            request.week,
            request.page_size,
            request.page_token,
            by_rating=by_rating,
            me="" if who.is_service else who.subject,  # a service is on no board
        )
        return pb.GetLeaderboardResponse(
            entries=[entry_pb(e) for e in page.entries],
            next_page_token=page.next_page_token,
            week_start=page.week_start.isoformat() if page.week_start else "",
            mine=entry_pb(page.mine) if page.mine else None,
        )

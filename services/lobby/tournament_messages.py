"""Tournaments as okey.v1 messages (api.py's tournament handlers): the spec both ways, and a
tournament as its caller sees it, with the standings, prizes and rounds the server computed."""

from __future__ import annotations

from datetime import UTC
from typing import Any

from okey.v1 import lobby_service_pb2 as pb
from okeycore.options import TableOptions
from okeyplatform.contract import options_from_pb, options_pb

from . import tournament_model as tm
from .errors import Invalid
from .messages import _ts
from .tournaments import TournamentView

__all__ = ["spec_from_pb", "tournament_pb", "status_name"]


def _enum_name(enum: Any, value: int, prefix: str, field: str) -> str:
    """An enum value's name without its prefix; INVALID_TOURNAMENT for a number the enum lacks."""
    try:
        return str(enum.Name(value)).removeprefix(prefix)
    except ValueError:
        raise Invalid(f"{field}: {value} is not a value of {enum.DESCRIPTOR.name}", "INVALID_TOURNAMENT") from None


def spec_from_pb(msg: pb.TournamentSpec) -> tm.Spec:
    """The spec as sent (validated by the use case, which fills the defaults in)."""
    starts_at = None
    if msg.HasField("starts_at"):
        try:
            starts_at = msg.starts_at.ToDatetime(tzinfo=UTC)
        except (ValueError, OverflowError):
            raise Invalid("starts_at is not a time", "INVALID_TOURNAMENT") from None
    return tm.Spec(
        name=msg.name,
        options=options_from_pb(msg.options).to_dict(),
        size=msg.size,
        min_players=msg.min_players,
        starts_at=starts_at,
        entry_fee=msg.entry_fee,
        prize_percent=tuple(msg.prize_percent),
        format=_enum_name(pb.TournamentFormat, msg.format, "TOURNAMENT_FORMAT_", "format"),
        swiss_rounds=msg.swiss_rounds,
        advance_per_table=msg.advance_per_table,
        tie_breaks=tuple(_enum_name(pb.TieBreak, t, "TIE_BREAK_", "tie_breaks") for t in msg.tie_breaks),
    )


def status_name(status: int) -> str:
    """A TournamentStatus as the model names it ('' for unspecified)."""
    if status == 0:
        return ""
    try:
        return str(pb.TournamentStatus.Name(status)).removeprefix("TOURNAMENT_STATUS_")
    except ValueError:
        raise Invalid(f"status: {status} is not a TournamentStatus", "INVALID_ARGUMENT") from None


def _spec_pb(spec: tm.Spec) -> pb.TournamentSpec:
    return pb.TournamentSpec(
        name=spec.name,
        options=options_pb(TableOptions.from_dict(spec.options, stored=True)),
        size=spec.size,
        min_players=spec.min_players,
        starts_at=_ts(spec.starts_at),
        entry_fee=spec.entry_fee,
        prize_percent=list(spec.prize_percent),
        format=pb.TournamentFormat.Value(f"TOURNAMENT_FORMAT_{spec.format}"),
        swiss_rounds=spec.swiss_rounds,
        advance_per_table=spec.advance_per_table,
        tie_breaks=[pb.TieBreak.Value(f"TIE_BREAK_{t}") for t in spec.tie_breaks],
    )


def tournament_pb(view: TournamentView, full: bool = True) -> pb.Tournament:
    """``full``: with the standings and rounds (GetTournament); a list leaves them out."""
    s = view.state
    prizes = view.prizes
    mine = s.entries.get(view.viewer)
    my_table = s.table_of(view.viewer) if mine is not None and s.status == tm.RUNNING else None
    msg = pb.Tournament(
        tournament_id=s.tournament_id,
        spec=_spec_pb(s.spec),
        status=pb.TournamentStatus.Value(f"TOURNAMENT_STATUS_{s.status}"),
        registered=len(s.entries),
        pool=s.pool if s.status != tm.REGISTERING else s.spec.entry_fee * len(s.entries),
        prizes=prizes,
        round=s.round,
        rounds=view.rounds,
        registered_me=mine is not None and not mine.withdrew,
        my_table_id=my_table.table_id if my_table is not None and not my_table.finished else "",
        version=s.version,
        created_at=_ts(view.created_at),
        started_at=_ts(view.started_at),
        finished_at=_ts(view.finished_at),
        cancelled_reason=s.cancelled_reason,
    )
    if not full:
        return msg
    finished = s.status == tm.FINISHED
    for place, e in enumerate(view.standings, start=1):
        opponents = tm.opponents_points(s, e)
        prize = e.prize if finished else (prizes[place - 1] if place <= len(prizes) and not e.withdrew else 0)
        msg.standings.add(
            player_id=e.player_id,
            display_name=view.names.get(e.player_id, ""),
            seed=e.seed,
            place=place,
            match_points=e.match_points,
            score=e.score,
            opponents=opponents,
            firsts=e.firsts,
            out_in_round=e.out_in_round,
            withdrew=e.withdrew,
            prize=prize,
        )
    for r in range(1, s.round + 1):
        tables = s.in_round(r)
        rnd = msg.rounds_played.add(round=r, ended=all(t.finished for t in tables))
        for t in tables:
            rnd.tables.add(
                round=r,
                index=t.index,
                table_id=t.table_id,
                player_ids=list(t.seats),
                finished=t.finished,
                places=list(t.places),
                scores=list(t.scores),
            )
    return msg

"""okeycore values <-> okey.v1 protobuf messages.

Events and views map field by field, by name: an okeycore event ``TileDrawn`` becomes the
``TileDrawn`` message in the ``tile_drawn`` slot of a ``TableEvent``. Where the message field
is a ``Tile`` (or ``TileGroup``) the tile ids become Tile messages (id + code); a hidden tile
(-1) keeps id -1 and an empty code."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import fields
from datetime import datetime
from enum import Enum
from typing import Any

from google.protobuf.message import Message
from okey.v1 import common_pb2, events_pb2, table_service_pb2
from okeycore.events import Event
from okeycore.options import OptionsError, TableOptions
from okeycore.tiles import TILE_COUNT, face_of_id

__all__ = [
    "tile_pb",
    "tiles_pb",
    "event_pb",
    "options_pb",
    "options_from_pb",
    "view_pb",
    "snake",
]

_SNAKE = re.compile(r"(?<!^)(?=[A-Z])")


def snake(name: str) -> str:
    return _SNAKE.sub("_", name).lower()


def tile_pb(tid: int) -> common_pb2.Tile:
    if 0 <= tid < TILE_COUNT:
        return common_pb2.Tile(id=tid, code=str(face_of_id(tid)))
    return common_pb2.Tile(id=-1, code="")


def tiles_pb(ids: Sequence[int]) -> list[common_pb2.Tile]:
    return [tile_pb(t) for t in ids]


def _enum_number(msg: Message, field_name: str, value: Enum) -> int:
    enum_type = msg.DESCRIPTOR.fields_by_name[field_name].enum_type
    prefix = snake(enum_type.name).upper()
    return int(enum_type.values_by_name[f"{prefix}_{value.value}"].number)


def _fill(msg: Message, obj: Any) -> Message:
    """Copy a dataclass into a message field by field (names must match; extras are skipped)."""
    names = msg.DESCRIPTOR.fields_by_name
    for f in fields(obj):
        if f.name not in names:
            continue
        v = getattr(obj, f.name)
        fd = names[f.name]
        if v is None:
            continue
        mt = fd.message_type.name if fd.message_type is not None else ""
        repeated = fd.is_repeated
        if mt == "Tile" and not repeated:
            getattr(msg, f.name).CopyFrom(tile_pb(v))
        elif mt == "Tile":
            getattr(msg, f.name).extend(tiles_pb(v))
        elif mt == "TileGroup":
            target = getattr(msg, f.name)
            for group in v:
                target.add().tiles.extend(tiles_pb(group))
        elif isinstance(v, TableOptions):
            getattr(msg, f.name).CopyFrom(options_pb(v))
        elif isinstance(v, Enum):
            setattr(msg, f.name, _enum_number(msg, f.name, v))
        elif isinstance(v, tuple):
            if fd.message_type is not None:
                target = getattr(msg, f.name)
                for item in v:
                    _fill(target.add(), item)
            else:
                getattr(msg, f.name).extend(v)
        elif hasattr(v, "__dataclass_fields__"):
            _fill(getattr(msg, f.name), v)
        else:
            setattr(msg, f.name, v)
    return msg


def event_pb(table_id: str, version: int, hand: int, time: datetime | None, event: Event) -> events_pb2.TableEvent:
    env = events_pb2.TableEvent(table_id=table_id, version=version, hand=hand)
    if time is not None:
        env.time.FromDatetime(time)
    slot = snake(event.type)
    _fill(getattr(env, slot), event)
    return env


# ------------------------------------------------------------------ options

_OPTION_ENUMS = {
    "game": "GAME",
    "indicator_scoring": "INDICATOR_SCORING",
    "discard_history": "DISCARD_HISTORY",
    "pairs_declaration": "PAIRS_DECLARATION",
    "deck_end": "DECK_END",
    "mode": "MODE",
}


def options_pb(opts: TableOptions) -> common_pb2.TableOptions:
    msg = common_pb2.TableOptions()
    for name, value in opts.to_dict().items():
        if name in _OPTION_ENUMS:
            setattr(
                msg,
                name,
                common_pb2.DESCRIPTOR.enum_types_by_name[_enum_name(name)]
                .values_by_name[f"{_OPTION_ENUMS[name]}_{value}"]
                .number,
            )
        else:
            setattr(msg, name, value)
    return msg


def _enum_name(option: str) -> str:
    return "".join(p.capitalize() for p in option.split("_"))


def options_from_pb(msg: common_pb2.TableOptions) -> TableOptions:
    """Set fields only; an unset enum or optional takes the default. Raises OptionsError."""
    data: dict[str, Any] = {}
    for fd, value in msg.ListFields():
        if fd.name in _OPTION_ENUMS:
            name = fd.enum_type.values_by_number[value].name if value in fd.enum_type.values_by_number else None
            if name is None:
                raise OptionsError(f"{fd.name}: unknown value {value}")
            data[fd.name] = name[len(_OPTION_ENUMS[fd.name]) + 1 :]
        else:
            data[fd.name] = value
    if "game" not in data:
        raise OptionsError("options.game is required: GAME_OKEY or GAME_OKEY101")
    return TableOptions.from_dict(data).validated()


# ------------------------------------------------------------------ views


def view_pb(view: Any, players: Sequence[str] = ()) -> table_service_pb2.SeatView:
    msg = table_service_pb2.SeatView()
    _fill(msg, view)
    if getattr(view, "seat", None) is not None:
        msg.seat = view.seat
    okey = getattr(view, "okey", None)
    if okey is not None and getattr(view, "indicator", -1) >= 0:
        msg.okey.CopyFrom(common_pb2.Tile(id=-1, code=str(okey)))
    if getattr(view, "side_tile", -1) < 0:
        msg.ClearField("side_tile")
    for i, seat in enumerate(msg.seats):
        if i < len(players):
            seat.player_id = players[i]
    return msg


def _ids(tiles: Any) -> tuple[int, ...]:
    return tuple(t.id for t in tiles)


def _enum_back(enum_cls: Any, msg: Message, field_name: str) -> Any:
    fd = msg.DESCRIPTOR.fields_by_name[field_name]
    name = fd.enum_type.values_by_number[getattr(msg, field_name)].name
    return enum_cls(name[len(snake(fd.enum_type.name).upper()) + 1 :])


def classic_view_from_pb(msg: table_service_pb2.SeatView) -> Any:
    """A classic SeatView message back into okeycore's SeatView (what a bot decides from)."""
    from okeycore.classic import Phase, SeatPublic, SeatView, Stage
    from okeycore.events import HandEndReason

    seats = tuple(
        SeatPublic(
            seat=s.seat,
            tiles=s.tiles,
            pile=_ids(s.pile),
            pile_size=s.pile_size,
            score=s.score,
            declared_pairs=s.declared_pairs,
            turned_to_okey=s.turned_to_okey,
            autopilot=s.autopilot,
            rack=_ids(s.rack) if len(s.rack) else None,
        )
        for s in msg.seats
    )
    last_hand = None
    if msg.HasField("last_hand"):
        from okeycore.events import HandEnded

        h = msg.last_hand
        last_hand = HandEnded(
            hand=h.hand,
            reason=_enum_back(HandEndReason, h, "reason"),
            finisher=h.finisher,
            final_tile=h.final_tile.id,
            arrangement=tuple(_ids(g.tiles) for g in h.arrangement),
            okey_finish=h.okey_finish,
            pairs_finish=h.pairs_finish,
            colored_finish=h.colored_finish,
            multiplier=h.multiplier,
            deltas=tuple(h.deltas),
            racks=tuple(_ids(g.tiles) for g in h.racks),
            deck=_ids(h.deck),
        )
    result = None
    if msg.HasField("result"):
        from okeycore.events import MatchEnded

        r = msg.result
        result = MatchEnded(tuple(r.scores), tuple(r.winners), r.pot, r.payout, r.remainder)
    return SeatView(
        table_id=msg.table_id,
        version=msg.version,
        options=options_from_pb(msg.options),
        phase=_enum_back(Phase, msg, "phase"),
        hand=msg.hand,
        seat=msg.seat if msg.HasField("seat") else None,
        rack=_ids(msg.rack),
        indicator=msg.indicator.id if msg.HasField("indicator") else -1,
        deck_count=msg.deck_count,
        turn=msg.turn,
        stage=_enum_back(Stage, msg, "stage"),
        deadline_ms=msg.deadline_ms,
        timed_out=msg.timed_out,
        indicator_shown=msg.indicator_shown,
        side_tile=msg.side_tile.id if msg.HasField("side_tile") else -1,
        seats=seats,
        last_hand=last_hand,
        result=result,
    )

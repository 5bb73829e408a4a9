"""okeycore values <-> okey.v1 protobuf messages: options, seat views, hints, tiles.

Views map field by field, by name. Where the message field is a ``Tile`` (or ``TileGroup``) the
tile ids become Tile messages (id + code); a hidden tile (-1) keeps id -1 and an empty code.
Events and their envelope are ``okeyplatform.contract``'s, an event inside a view too (a seat
view's last hand, the match result)."""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import fields
from enum import Enum
from typing import Any

from google.protobuf.message import Message
from okey.v1 import common_pb2, table_service_pb2
from okeycore.events import Event
from okeycore.kernel.view import Allowed
from okeycore.options import TableOptions
from okeycore.tiles import TILE_COUNT, face_of_id

from .contract import event_from_message, event_into
from .optionsconv import options_from_pb, options_pb, snake

__all__ = [
    "hints_pb",
    "tile_pb",
    "tiles_pb",
    "options_pb",
    "options_from_pb",
    "view_pb",
    "snake",
]


_TILE_PB = [common_pb2.Tile(id=t, code=str(face_of_id(t))) for t in range(TILE_COUNT)]
_NO_TILE = common_pb2.Tile(id=-1, code="")


def tile_pb(tid: int) -> common_pb2.Tile:
    """The tile's message (one made once per tile: a caller copies it into its own)."""
    return _TILE_PB[tid] if 0 <= tid < TILE_COUNT else _NO_TILE


def tiles_pb(ids: Sequence[int]) -> list[common_pb2.Tile]:
    return [_TILE_PB[t] if 0 <= t < TILE_COUNT else _NO_TILE for t in ids]


@functools.cache
def _enum_numbers(message: str, field_name: str) -> dict[str, int]:
    """A message field's enum values by their okeycore name (``TileDrawn``'s ``DRAW`` ...)."""
    desc = table_service_pb2.DESCRIPTOR.pool.FindMessageTypeByName(message)
    enum_type = desc.fields_by_name[field_name].enum_type
    prefix = snake(enum_type.name).upper() + "_"
    return {v.name[len(prefix) :]: int(v.number) for v in enum_type.values}


def _enum_number(msg: Message, field_name: str, value: Enum) -> int:
    return _enum_numbers(msg.DESCRIPTOR.full_name, field_name)[value.value]


@functools.lru_cache(maxsize=4096)
def _options_msg(opts: TableOptions) -> common_pb2.TableOptions:
    """A table's options as a message, made once per distinct options (they never change)."""
    return options_pb(opts)


_EVENT_BYTES: OrderedDict[int, tuple[Event, bytes]] = OrderedDict()


def _event_bytes(event: Event, message: type[Message]) -> bytes:
    """An event a view carries (the last hand's end), as its message's bytes, encoded once per
    event object: the same one is in every view of its table until the next hand ends."""
    key = id(event)
    got = _EVENT_BYTES.get(key)
    if got is not None and got[0] is event:
        return got[1]
    msg = message()
    event_into(msg, event)
    data = msg.SerializeToString()
    _EVENT_BYTES[key] = (event, data)  # the event is kept with it: its id stays its own
    if len(_EVENT_BYTES) > 4096:
        _EVENT_BYTES.popitem(last=False)
    return data


def _fill(msg: Message, obj: Any, renames: dict[str, str] | None = None) -> Message:
    """Copy a dataclass into a message field by field (names must match, or be renamed by
    ``renames``; fields the message lacks are skipped). How each field goes in is worked out
    once per (class, message type) (:func:`_fill_plan`)."""
    plan = _fill_plan(type(obj), msg.DESCRIPTOR, tuple(sorted(renames.items())) if renames else ())
    for attr, put in plan:
        v = getattr(obj, attr)
        if v is not None:
            put(msg, v)
    return msg


_Put = Callable[[Message, Any], None]


@functools.cache
def _fill_plan(cls: Any, descriptor: Any, renames: tuple[tuple[str, str], ...]) -> tuple[tuple[str, _Put], ...]:
    rename = dict(renames)
    names = descriptor.fields_by_name
    plan = []
    for f in fields(cls):
        name = rename.get(f.name, f.name)
        fd = names.get(name)
        if fd is not None:
            plan.append((f.name, _putter(fd, name)))
    return tuple(plan)


def _putter(fd: Any, name: str) -> _Put:
    """How a value goes into the message field ``fd`` (its kind known from the descriptor; a
    message field's value decides between an event, options and a nested dataclass)."""
    mt = fd.message_type.name if fd.message_type is not None else ""
    repeated = fd.is_repeated

    def put(msg: Message, v: Any) -> None:
        if isinstance(v, Allowed):
            v = v.names()  # asked of the engine now: the wire carries the answer
        if mt == "Tile" and not repeated:
            getattr(msg, name).CopyFrom(tile_pb(v))
        elif mt == "Tile":
            getattr(msg, name).extend(tiles_pb(v))
        elif mt == "TileGroup":
            target = getattr(msg, name)
            for group in v:
                target.add().tiles.extend(tiles_pb(group))
        elif isinstance(v, TableOptions):
            getattr(msg, name).CopyFrom(_options_msg(v))
        elif isinstance(v, Enum):
            setattr(msg, name, _enum_number(msg, name, v))
        elif isinstance(v, tuple) and fd.enum_type is not None:
            enum_type = fd.enum_type
            prefix = snake(enum_type.name).upper() + "_"
            getattr(msg, name).extend(enum_type.values_by_name[prefix + x.value].number for x in v)
        elif isinstance(v, tuple) and mt == "Codes":
            target = getattr(msg, name)
            for codes in v:
                target.add().codes.extend(codes)
        elif isinstance(v, tuple):
            if fd.message_type is not None:
                target = getattr(msg, name)
                for item in v:
                    _fill(target.add(), item)
            else:
                getattr(msg, name).extend(v)
        elif isinstance(v, Event):
            getattr(msg, name).MergeFromString(_event_bytes(v, type(getattr(msg, name))))
        elif hasattr(v, "__dataclass_fields__"):
            _fill(getattr(msg, name), v)
        else:
            setattr(msg, name, v)

    return put


# ------------------------------------------------------------------ views


def view_pb(view: Any, players: Sequence[str] = ()) -> table_service_pb2.SeatView:
    msg = table_service_pb2.SeatView()
    last = getattr(view, "last_hand", None)
    renames = {"last_hand": "last_hand101"} if last is not None and type(last).__name__ == "HandEnded101" else None
    _fill(msg, view, renames)
    if getattr(view, "seat", None) is not None:
        msg.seat = view.seat
    okey = getattr(view, "okey", None)
    if okey is not None and getattr(view, "indicator", -1) >= 0:
        msg.okey.CopyFrom(common_pb2.Tile(id=-1, code=str(okey)))
    last_okey = getattr(view, "last_hand_okey", None)
    if last_okey is not None:
        msg.last_hand_okey.CopyFrom(common_pb2.Tile(id=-1, code=str(last_okey)))
    else:
        msg.ClearField("last_hand_indicator")
    if getattr(view, "side_tile", -1) < 0:
        msg.ClearField("side_tile")
    if getattr(view, "held_side_tile", -1) < 0:
        msg.ClearField("held_side_tile")
    for i, seat in enumerate(msg.seats):
        if i < len(players):
            seat.player_id = players[i]
    return msg


def _ids(tiles: Any) -> tuple[int, ...]:
    return tuple(t.id for t in tiles)


def classic_view_from_pb(msg: table_service_pb2.SeatView) -> Any:
    """A classic SeatView message back into okeycore's SeatView (what a bot decides from)."""
    from okeycore.classic import SeatView

    return from_pb(SeatView, msg)


def from_pb(cls: Any, msg: Message, renames: dict[str, str] | None = None) -> Any:
    """The inverse of ``_fill`` for a dataclass ``cls``: field by field, by name (type hints
    say how: Tile -> id, TileGroup -> tuple of ids, enums by name, nested dataclasses). How each
    field converts is worked out once per (class, message type) (:func:`_plan`): a bot turns
    one view a decision back into okeycore's, and reading the type hints every time was most of it."""
    plan = _plan(cls, msg.DESCRIPTOR, tuple(sorted(renames.items())) if renames else ())
    return cls(**{field_name: convert(msg, getattr(msg, name)) for field_name, name, convert in plan})


_Convert = Callable[[Message, Any], Any]


@functools.cache
def _plan(cls: Any, descriptor: Any, renames: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str, _Convert], ...]:
    """(dataclass field, message field, converter) for each field of ``cls`` the message has."""
    rename = dict(renames)
    names = descriptor.fields_by_name
    plan = []
    for field_name, hint in _hints(cls):
        name = rename.get(field_name, field_name)
        fd = names.get(name)
        if fd is not None:
            plan.append((field_name, name, _converter(hint, fd, name)))
    return tuple(plan)


@functools.cache
def _hints(cls: Any) -> tuple[tuple[str, Any], ...]:
    """A dataclass's fields with their resolved type hints: resolving them (``get_type_hints``
    evaluates every annotation) cost more than the rest of a view's conversion, once per call."""
    import typing

    hints = typing.get_type_hints(cls)
    return tuple((f.name, hints[f.name]) for f in fields(cls))


@functools.lru_cache(maxsize=4096)
def _options_of(data: bytes) -> Any:
    """A table's options from their message's bytes: every view of a table carries the same
    options, and TableOptions (frozen) can be shared; converting and validating them was a third
    of a view's conversion."""
    return options_from_pb(common_pb2.TableOptions.FromString(data))


def _enum_members(enum_cls: Any, enum_type: Any) -> dict[int, Any]:
    """A proto enum's numbers to okeycore's members (``PHASE_PLAYING`` -> Phase.PLAYING)."""
    prefix = len(snake(enum_type.name).upper()) + 1
    out = {}
    for v in enum_type.values:
        try:
            out[v.number] = enum_cls(v.name[prefix:])
        except ValueError:
            continue  # the proto's UNSPECIFIED zero value has no okeycore member
    return out


def _converter(hint: Any, fd: Any, name: str) -> _Convert:
    """How a message field of descriptor ``fd`` becomes a value of type ``hint``."""
    import types
    import typing

    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        inner = _converter(next(a for a in args if a is not type(None)), fd, name)
        if not fd.is_repeated and (fd.message_type is not None or fd.has_presence):
            return lambda msg, value: inner(msg, value) if msg.HasField(name) else None  # a spectator's seat
        if fd.is_repeated and type(None) in args:
            return lambda msg, value: inner(msg, value) if len(value) else None
        return inner
    mt = fd.message_type.name if fd.message_type is not None else ""
    if mt == "Tile":
        if fd.is_repeated:
            return lambda msg, value: tuple(t.id for t in value)
        return lambda msg, value: value.id if msg.HasField(name) else -1
    if mt == "TileGroup":
        return lambda msg, value: tuple(tuple(t.id for t in g.tiles) for g in value)
    if mt == "TableOptions":
        return lambda msg, value: _options_of(value.SerializeToString(deterministic=True))
    if isinstance(hint, type) and issubclass(hint, Enum):
        members = _enum_members(hint, fd.enum_type)
        return lambda msg, value: members[value]
    if origin is tuple:
        item = args[0]
        if hasattr(item, "__dataclass_fields__"):
            return lambda msg, value: tuple(from_pb(item, v) for v in value)
        if isinstance(item, type) and issubclass(item, Enum):
            members = _enum_members(item, fd.enum_type)
            return lambda msg, value: tuple(members[v] for v in value)
        return lambda msg, value: tuple(value)
    if isinstance(hint, type) and issubclass(hint, Event):
        return lambda msg, value: event_from_message(hint, value)
    if hasattr(hint, "__dataclass_fields__"):
        return lambda msg, value: from_pb(hint, value)
    return lambda msg, value: value


def view101_from_pb(msg: table_service_pb2.SeatView) -> Any:
    """A 101 SeatView message back into okeycore's SeatView101 (what a 101 bot decides from)."""
    from okeycore import okey101

    v = from_pb(okey101.SeatView101, msg, {"last_hand": "last_hand101"})
    return v


def seat_view_from_pb(msg: table_service_pb2.SeatView) -> Any:
    """The okeycore view of either game."""
    if msg.options.game == common_pb2.GAME_OKEY101:
        return view101_from_pb(msg)
    return classic_view_from_pb(msg)


def hints_pb(hints: Any) -> table_service_pb2.Hints:
    msg = table_service_pb2.Hints()
    _fill(msg, hints)
    return msg

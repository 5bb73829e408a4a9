"""The okey.v1 contract: okeycore values <-> okey.v1 messages, and the TableEvent envelope.

The one mapper between okeycore and the wire. Events, seat views, hints and options map to
their messages field by field, by name, through one plan per (dataclass, message) built once
from the dataclass's type hints and the message's descriptor (:func:`_plan`), so encoding and
decoding are a loop over a short list; okeycore's option spec goes out as ``GetOptionSpec``
answers it (:func:`option_spec_pb`). The same rules hold everywhere: where the message field
is a ``Tile`` (or ``TileGroup``) a tile id becomes a Tile (id + code) and a hidden tile (-1)
keeps id -1 and an empty code (:func:`tile_pb`, the one tile table); an okeycore enum member is
the buf-prefixed proto value of its name (``DrawSource.DECK`` <-> ``DRAW_SOURCE_DECK``,
:func:`enum_codec`, the one enum lookup). An event's plan is strict: every field of the
dataclass must have its message field (a field the contract cannot carry is an error, not a
silent loss: the first step of issue 16 found three); a view's skips what the message lacks.

What leaves the table service goes through here: the relay's NATS messages, GetEvents and
Watch, ``okey export``. The envelope is ``okey.v1.TableEvent`` (table id, version, hand, time,
kind, the seat to move, trace context, and the event in its oneof slot: the okeycore event
``TileDrawn`` is the ``TileDrawn`` message in the ``tile_drawn`` slot). On NATS the envelope is
binary with ``Content-Type: application/x-protobuf; messageType=okey.v1.TableEvent``. A stream
written before (JSON of the Python dict form, no content type) is read too:
:func:`decode_envelope` upcasts it."""

from __future__ import annotations

import asyncio
import functools
import json
import re
import types
import typing
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from enum import Enum
from typing import Any

import okeycore.games  # noqa: F401  (registers the Okey 101 events with the codec)
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from okey.v1 import common_pb2, events_pb2, table_service_pb2
from okeycore.classic import public_event as _spectator
from okeycore.events import EVENT_TYPES, Event, event_from_dict, to_move
from okeycore.okey101 import SeatView101
from okeycore.options import OPTION_SPECS, Game, OptionKind, OptionsError, OptionSpec, TableOptions
from okeycore.tiles import TILE_COUNT, face_of_id

from .eventstore import BadEnvelope, StoredEvent, UnknownEvent, UnreadableEvent
from .logs import get_logger
from .tracing import valid_traceparent

__all__ = [
    "CONTENT_TYPE",
    "Envelope",
    "BadEnvelope",
    "UnreadableEvent",
    "UnknownEvent",
    "snake",
    "tile_pb",
    "face_pb",
    "tiles_pb",
    "enum_codec",
    "options_pb",
    "options_from_pb",
    "option_spec_pb",
    "from_pb",
    "event_pb",
    "event_from_pb",
    "view_pb",
    "seat_view_from_pb",
    "classic_view_from_pb",
    "view101_from_pb",
    "hints_pb",
    "envelope_pb",
    "envelope_from_pb",
    "encode_envelope",
    "decode_envelope",
    "nats_headers",
    "envelope_json",
    "valid_traceparent",
    "PLAY_BATCH_HEADER",
    "PLAY_BATCH_METADATA",
    "PLAY_BATCH_MAX",
    "unbatched",
    "ready_batch",
]

CONTENT_TYPE = "application/x-protobuf; messageType=okey.v1.TableEvent"
"""The NATS ``Content-Type`` header of a table event (the envelope, binary)."""

PLAY_BATCH_HEADER = "okey-play-batch"
"""TableService.Play's batches (table_service.proto): a caller that opens the stream with this
metadata set to ``1`` takes answers several to a message; a table service that answers it in its
initial metadata takes requests so."""

PLAY_BATCH_METADATA = (PLAY_BATCH_HEADER, "1")
"""The metadata both sides of a Play stream send to say they batch."""

PLAY_BATCH_MAX = 64
"""The most requests (or answers) one Play message carries, itself included; a message with more
ends its stream (INVALID_ARGUMENT BATCH_TOO_LARGE), before any of them is handled."""


def unbatched(message: Any) -> list[Any]:
    """What one Play message (a PlayRequest or a PlayResponse) carries: itself, then its
    ``batch``, taken off it."""
    if not message.batch:
        return [message]
    more = list(message.batch)
    message.ClearField("batch")
    return [message, *more]


def ready_batch(queue: asyncio.Queue[Any], batching: bool) -> tuple[list[Any], bool]:
    """What else waits in ``queue`` now to go in one Play message with the item just taken (at
    most PLAY_BATCH_MAX - 1 of them, none when not ``batching``), and whether the queue's end
    (None) was among them."""
    more: list[Any] = []
    while batching and len(more) < PLAY_BATCH_MAX - 1 and not queue.empty():
        item = queue.get_nowait()
        if item is None:
            return more, True
        more.append(item)
    return more, False


@dataclass(frozen=True, slots=True)
class Envelope:
    """A table event as a consumer receives it: ``event`` is the okeycore event (as a spectator
    may see it, when it came from NATS); ``to_move`` the seat that must (or may have to) move
    after it, -1 for none."""

    table_id: str
    version: int
    hand: int
    time: datetime
    kind: str
    to_move: int
    traceparent: str | None
    event: Event
    bot_seats: int | None = None  # the seats a bot plays after it (a mask); None: not known


_SNAKE = re.compile(r"(?<!^)(?=[A-Z])")


def snake(name: str) -> str:
    """A Python class name as protobuf's field name of it (``TileDrawn`` -> ``tile_drawn``)."""
    return _SNAKE.sub("_", name).lower()


# ------------------------------------------------------------------ tiles

_TILES = [common_pb2.Tile(id=t, code=str(face_of_id(t))) for t in range(TILE_COUNT)]
_HIDDEN = common_pb2.Tile(id=-1, code="")


def tile_pb(tid: int) -> common_pb2.Tile:
    """The tile's message, made once per tile (a caller copies it into its own); a hidden tile
    (-1) has id -1 and an empty code."""
    return _TILES[tid] if 0 <= tid < TILE_COUNT else _HIDDEN


def tiles_pb(ids: Sequence[int]) -> list[common_pb2.Tile]:
    return [_TILES[t] if 0 <= t < TILE_COUNT else _HIDDEN for t in ids]


def face_pb(face: object) -> common_pb2.Tile:
    """A face that is no one tile (the okey a view names): its code, id -1."""
    return common_pb2.Tile(id=-1, code=str(face))


# ------------------------------------------------------------------ enums


@functools.cache
def _enum_values(enum_type: Any) -> tuple[dict[str, int], dict[int, str]]:
    """A proto enum's values by okeycore's name and back, by the buf style's prefix
    (``DRAW_SOURCE_DECK`` is ``DECK`` of ``DrawSource``); the zero ``*_UNSPECIFIED`` has none."""
    prefix = len(snake(enum_type.name)) + 1
    by_name = {v.name[prefix:]: int(v.number) for v in enum_type.values if v.number != 0}
    return by_name, {n: name for name, n in by_name.items()}


@functools.cache
def enum_codec(enum_cls: type[Enum], enum_type: Any) -> tuple[dict[Any, int], dict[int, Any]]:
    """An okeycore enum's members to the proto enum's numbers and back (``DrawSource.DECK`` <->
    ``DRAW_SOURCE_DECK``): the one enum lookup of the contract and its callers."""
    by_name, _ = _enum_values(enum_type)
    to_number = {m: by_name[str(m.value)] for m in enum_cls if str(m.value) in by_name}
    return to_number, {n: m for m, n in to_number.items()}


# ------------------------------------------------------------------ options


def options_pb(opts: TableOptions) -> common_pb2.TableOptions:
    """The options as their message: the game and the options of its game."""
    msg = common_pb2.TableOptions()
    names = _OPTION_FIELDS
    for name, value in opts.to_dict().items():
        fd = names[name]
        setattr(msg, name, _enum_values(fd.enum_type)[0][value] if fd.enum_type is not None else value)
    return msg


_OPTION_FIELDS = common_pb2.TableOptions.DESCRIPTOR.fields_by_name


def _options_dict(msg: common_pb2.TableOptions) -> dict[str, Any]:
    """The set fields of an options message as plain values (enums by okeycore's name)."""
    data: dict[str, Any] = {}
    for fd, value in msg.ListFields():
        if fd.enum_type is not None:
            name = _enum_values(fd.enum_type)[1].get(value)
            if name is None:
                raise OptionsError(f"{fd.name}: unknown value {value}")
            data[fd.name] = name
        else:
            data[fd.name] = value
    return data


def options_from_pb(msg: common_pb2.TableOptions) -> TableOptions:
    """A caller's options (CreateTable, the lobby): set fields only; an unset enum or optional
    takes the default; a set option of the other game is refused [D-9]; every bound checked.
    Raises OptionsError."""
    data = _options_dict(msg)
    if "game" not in data:
        raise OptionsError("options.game is required: GAME_OKEY or GAME_OKEY101")
    return TableOptions.from_dict(data).validated()


@functools.lru_cache(maxsize=4096)
def _stored_options(data: bytes) -> TableOptions:
    """Options the table service wrote (an event, a view) as they were, with no bounds check (an
    old table keeps the options it had); by their bytes, since every view of a table carries the
    same ones and converting them was a third of a view's conversion."""
    return TableOptions.from_dict(_options_dict(common_pb2.TableOptions.FromString(data)), stored=True)


@functools.lru_cache(maxsize=4096)
def _options_msg(opts: TableOptions) -> common_pb2.TableOptions:
    """A table's options as a message, made once per distinct options (they never change)."""
    return options_pb(opts)


def _enum_name(fd: Any, member: Enum) -> str:
    """An okeycore enum member as the proto enum value's name of the options field ``fd``."""
    return str(fd.enum_type.values_by_number[_enum_values(fd.enum_type)[0][str(member.value)]].name)


def _option_spec_msg(spec: OptionSpec) -> table_service_pb2.OptionSpec:
    fd = _OPTION_FIELDS[spec.name]
    games, _ = enum_codec(Game, common_pb2.Game.DESCRIPTOR)
    kinds, _ = enum_codec(OptionKind, table_service_pb2.OptionKind.DESCRIPTOR)
    msg = table_service_pb2.OptionSpec(
        name=spec.name,
        json_name=fd.json_name,
        games=[games[g] for g in spec.games],
        kind=kinds[spec.kind],
        choices=spec.choices,
        enum_values=[_enum_name(fd, v) for v in spec.values],
    )
    if spec.values:
        msg.enum_prefix = _enum_name(fd, spec.values[0]).removesuffix(str(spec.values[0].value))
    if spec.bounds is not None:
        msg.min, msg.max = spec.bounds
    if isinstance(spec.default, Enum):
        msg.default_enum = _enum_name(fd, spec.default)
    elif isinstance(spec.default, bool):
        msg.default_bool = spec.default
    else:
        msg.default_int = spec.default
    return msg


@functools.cache
def option_spec_pb() -> table_service_pb2.GetOptionSpecResponse:
    """okeycore's option spec (:data:`okeycore.options.OPTION_SPECS`) as ``GetOptionSpec``
    answers it, made once (a caller copies it): names and JSON names from the ``TableOptions``
    message, enums by its value names."""
    return table_service_pb2.GetOptionSpecResponse(options=[_option_spec_msg(s) for s in OPTION_SPECS])


# ------------------------------------------------------------------ the plan: dataclass <-> message

_Put = Callable[[Message, Any], None]
_Get = Callable[[Message], Any]


@functools.cache
def _plan(cls: Any, descriptor: Any, renames: tuple[tuple[str, str], ...] = ()) -> tuple[tuple[str, _Put, _Get], ...]:
    """(dataclass field, how it goes in, how it comes out) for each field of ``cls`` that the
    message ``descriptor`` has (``renames``: a dataclass field under another message name). The
    plan of an event and of what an event holds (a message of events.proto) is strict: a field
    its message lacks is a TypeError, not a silent loss."""
    strict = descriptor.file is events_pb2.DESCRIPTOR
    rename = dict(renames)
    hints = typing.get_type_hints(cls)  # once per plan: it evaluates every annotation
    plan = []
    for f in fields(cls):
        fd = descriptor.fields_by_name.get(rename.get(f.name, f.name))
        if fd is None:
            if strict:
                raise TypeError(f"{descriptor.full_name} has no field {f.name!r} for {cls.__name__}.{f.name}")
            continue
        put, get = _field(hints[f.name], fd, strict)
        plan.append((f.name, put, get))
    return tuple(plan)


def into_pb(msg: Message, obj: Any, renames: tuple[tuple[str, str], ...] = ()) -> Message:
    """A dataclass into its message, field by field (a None field stays unset)."""
    for attr, put, _ in _plan(type(obj), msg.DESCRIPTOR, renames):
        v = getattr(obj, attr)
        if v is not None:
            put(msg, v)
    return msg


def from_pb(cls: Any, msg: Message, renames: tuple[tuple[str, str], ...] = ()) -> Any:
    """The inverse of :func:`into_pb`: a dataclass ``cls`` from its message."""
    return cls(**{attr: get(msg) for attr, _, get in _plan(cls, msg.DESCRIPTOR, renames)})


def _field(hint: Any, fd: Any, strict: bool) -> tuple[_Put, _Get]:
    """How a value of type ``hint`` goes into the message field ``fd`` and back."""
    name = fd.name
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):  # X | None, or a view's tuple | Allowed
        put, get = _field(next(a for a in args if a is not type(None)), fd, strict)
        if type(None) not in args:
            return put, get
        if not fd.is_repeated and (fd.message_type is not None or fd.has_presence):
            return put, (lambda m: get(m) if m.HasField(name) else None)  # a spectator's seat
        if fd.is_repeated:
            return put, (lambda m: get(m) if len(getattr(m, name)) else None)
        return put, get
    mt = fd.message_type.name if fd.message_type is not None else ""
    if mt == "Tile" and not fd.is_repeated:
        return (
            (lambda m, v: getattr(m, name).CopyFrom(tile_pb(v))),
            (lambda m: getattr(m, name).id if m.HasField(name) else -1),
        )
    if mt == "Tile":
        return (lambda m, v: getattr(m, name).extend(tiles_pb(v))), (lambda m: tuple([t.id for t in getattr(m, name)]))
    if mt == "TileGroup":

        def put_groups(m: Message, v: Any) -> None:
            target = getattr(m, name)
            for group in v:
                target.add().tiles.extend(tiles_pb(group))

        return put_groups, (lambda m: tuple([tuple([t.id for t in g.tiles]) for g in getattr(m, name)]))
    if hint is TableOptions:
        return (
            (lambda m, v: getattr(m, name).CopyFrom(_options_msg(v))),
            (lambda m: _stored_options(getattr(m, name).SerializeToString(deterministic=True))),
        )
    if isinstance(hint, type) and issubclass(hint, Enum):
        to_number, from_number = enum_codec(hint, fd.enum_type)
        return (lambda m, v: setattr(m, name, to_number[v])), (lambda m: from_number[getattr(m, name)])
    if isinstance(hint, type) and issubclass(hint, Event) and fd.message_type is not None:
        event_cls = hint
        return (
            (lambda m, v: (t := getattr(m, name)).MergeFromString(_event_bytes(v, type(t)))),
            (lambda m: from_pb(event_cls, getattr(m, name))),
        )
    if origin is tuple and fd.is_repeated:
        item = args[0]
        if isinstance(item, type) and issubclass(item, Enum):
            to_number, from_number = enum_codec(item, fd.enum_type)
            return (
                (lambda m, v: getattr(m, name).extend([to_number[x] for x in v])),
                (lambda m: tuple([from_number[x] for x in getattr(m, name)])),
            )
        if mt == "Codes":

            def put_codes(m: Message, v: Any) -> None:
                target = getattr(m, name)
                for codes in v:
                    target.add().codes.extend(codes)

            return put_codes, (lambda m: tuple([tuple(c.codes) for c in getattr(m, name)]))
        if fd.message_type is not None and hasattr(item, "__dataclass_fields__"):

            def put_items(m: Message, v: Any) -> None:
                target = getattr(m, name)
                for x in v:
                    into_pb(target.add(), x)

            return put_items, (lambda m: tuple([from_pb(item, x) for x in getattr(m, name)]))
        if fd.message_type is None:
            return (lambda m, v: getattr(m, name).extend(v)), (lambda m: tuple(getattr(m, name)))
    if hasattr(hint, "__dataclass_fields__") and fd.message_type is not None and not fd.is_repeated:
        return (lambda m, v: into_pb(getattr(m, name), v)), (lambda m: from_pb(hint, getattr(m, name)))
    if not strict or (hint in (int, str, bool) and fd.message_type is None and not fd.is_repeated):
        return (lambda m, v: setattr(m, name, v)), (lambda m: getattr(m, name))
    raise TypeError(f"no mapping of {hint!r} to the message field {fd.full_name}")


_EVENT_BYTES: OrderedDict[int, tuple[Event, bytes]] = OrderedDict()


def _event_bytes(event: Event, message: type[Message]) -> bytes:
    """An event a view carries (the last hand's end), as its message's bytes, encoded once per
    event object: the same one is in every view of its table until the next hand ends."""
    key = id(event)
    got = _EVENT_BYTES.get(key)
    if got is not None and got[0] is event:
        return got[1]
    data = into_pb(message(), event).SerializeToString()
    _EVENT_BYTES[key] = (event, data)  # the event is kept with it: its id stays its own
    if len(_EVENT_BYTES) > 4096:
        _EVENT_BYTES.popitem(last=False)
    return data


# ------------------------------------------------------------------ events


def _slot(event_cls: type[Event]) -> str:
    """The envelope's oneof slot of an event class (``TileDrawn`` -> ``tile_drawn``)."""
    slot = _SLOTS.get(event_cls)
    if slot is None:
        slot = snake(event_cls.type)
        fd = events_pb2.TableEvent.DESCRIPTOR.fields_by_name.get(slot)
        if fd is None or fd.containing_oneof is None:
            raise TypeError(f"okey.v1.TableEvent has no {slot!r} for the event {event_cls.type}")
        _SLOTS[event_cls] = slot
    return slot


_SLOTS: dict[type[Event], str] = {}


def event_pb(event: Event, envelope: events_pb2.TableEvent | None = None) -> events_pb2.TableEvent:
    """``event`` in its slot of ``envelope`` (a new, otherwise empty one by default)."""
    env = envelope if envelope is not None else events_pb2.TableEvent()
    into_pb(getattr(env, _slot(type(event))), event)
    return env


def event_from_pb(envelope: events_pb2.TableEvent) -> Event:
    """The inverse of :func:`event_pb`: the okeycore event in the envelope's oneof. Raises
    KeyError for an empty or unknown slot, ValueError/OptionsError for a value okeycore refuses."""
    slot = envelope.WhichOneof("event")
    if slot is None:
        raise KeyError("the envelope carries no event")
    cls = _BY_SLOT.get(slot)
    if cls is None:
        _BY_SLOT.update({snake(c.type): c for c in EVENT_TYPES.values()})  # registered since (okey101)
        cls = _BY_SLOT[slot]
    event: Event = from_pb(cls, getattr(envelope, slot))
    return event


_BY_SLOT: dict[str, type[Event]] = {}


# ------------------------------------------------------------------ views and hints

_RENAMES: dict[type, tuple[tuple[str, str], ...]] = {SeatView101: (("last_hand", "last_hand101"),)}
"""A 101 view's last hand is the ``last_hand101`` field (its own message)."""


def view_pb(view: Any, players: Sequence[str] = ()) -> table_service_pb2.SeatView:
    """A seat's view (either game's) as the SeatView message; ``players`` name the seats."""
    msg = table_service_pb2.SeatView()
    into_pb(msg, view, _RENAMES.get(type(view), ()))
    if view.seat is not None:
        msg.seat = view.seat
    okey = getattr(view, "okey", None)
    if okey is not None and view.indicator >= 0:
        msg.okey.CopyFrom(face_pb(okey))
    last_okey = getattr(view, "last_hand_okey", None)
    if last_okey is not None:
        msg.last_hand_okey.CopyFrom(face_pb(last_okey))
    else:
        msg.ClearField("last_hand_indicator")
    if view.side_tile < 0:
        msg.ClearField("side_tile")
    if getattr(view, "held_side_tile", -1) < 0:
        msg.ClearField("held_side_tile")
    for i, seat in enumerate(msg.seats):
        if i < len(players):
            seat.player_id = players[i]
    return msg


def classic_view_from_pb(msg: table_service_pb2.SeatView) -> Any:
    """A classic SeatView message back into okeycore's SeatView (what a bot decides from)."""
    from okeycore.classic import SeatView

    return from_pb(SeatView, msg)


def view101_from_pb(msg: table_service_pb2.SeatView) -> SeatView101:
    """A 101 SeatView message back into okeycore's SeatView101 (what a 101 bot decides from)."""
    view: SeatView101 = from_pb(SeatView101, msg, _RENAMES[SeatView101])
    return view


def seat_view_from_pb(msg: table_service_pb2.SeatView) -> Any:
    """The okeycore view of either game."""
    if msg.options.game == common_pb2.GAME_OKEY101:
        return view101_from_pb(msg)
    return classic_view_from_pb(msg)


def hints_pb(hints: Any) -> table_service_pb2.Hints:
    msg = table_service_pb2.Hints()
    into_pb(msg, hints)
    return msg


# ------------------------------------------------------------------ the envelope


def envelope_pb(
    stored: StoredEvent,
    event: Event | None = None,
    seat: int | None = None,
    private: bool = False,
    public: Callable[[Event, int | None], Event] = _spectator,
) -> events_pb2.TableEvent:
    """The envelope of a stored event with the event as ``seat`` may see it (None: a spectator;
    ``public`` is the game's redaction, classic's by default: both games redact alike), or in
    full with ``private``. ``event`` is the stored event decoded, when the caller has it.

    An event its message cannot hold (a number past int64 in a log written before the bounds)
    goes out without its event, with its kind, so a consumer sets that table aside and every
    other table goes on; the relay never stops on one event."""
    env = events_pb2.TableEvent(
        table_id=stored.stream_id,
        version=stored.version,
        hand=stored.hand,
        kind=stored.type,
        traceparent=stored.traceparent or "",
    )
    if stored.bot_seats is not None:
        env.bot_seats = stored.bot_seats
    _set_time(env.time, stored.recorded_at)
    try:
        full = event if event is not None else stored.event()
        env.to_move = to_move(full)
        shown = full if private else public(full, seat)
        slot = _slot(type(shown))
        try:
            into_pb(getattr(env, slot), shown)
        except BaseException:
            env.ClearField(slot)
            raise
    except (KeyError, ValueError, TypeError, OverflowError) as exc:
        env.to_move = -1
        get_logger(component="contract").error(
            "event_not_encodable", table_id=stored.stream_id, version=stored.version, kind=stored.type, error=repr(exc)
        )
    return env


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _set_time(ts: Any, at: datetime) -> None:
    """Timestamp.FromDatetime, exactly and without its generic conversions (the relay's hot path)."""
    d = (at if at.tzinfo else at.replace(tzinfo=UTC)) - _EPOCH
    ts.seconds = d.days * 86400 + d.seconds
    ts.nanos = d.microseconds * 1000


def encode_envelope(stored: StoredEvent, event: Event | None = None) -> bytes:
    """What the relay publishes for a stored event: the spectator's envelope, binary."""
    return envelope_pb(stored, event).SerializeToString()


def nats_headers(stored: StoredEvent) -> dict[str, str]:
    """The NATS headers of a stored event's message: de-duplication id, content type and, when
    the command behind it carried one, its trace context."""
    headers = {"Nats-Msg-Id": f"{stored.stream_id}:{stored.version}", "Content-Type": CONTENT_TYPE}
    if stored.traceparent:
        headers["traceparent"] = stored.traceparent
    return headers


def envelope_from_pb(msg: events_pb2.TableEvent) -> Envelope:
    """A TableEvent (from NATS, GetEvents, Watch or an export line) as a typed Envelope. Raises
    UnknownEvent / UnreadableEvent naming the table and version."""
    kind = msg.kind
    slot = msg.WhichOneof("event")
    if slot is None:
        if kind and kind not in EVENT_TYPES:
            raise UnknownEvent(
                f"unknown event type {kind!r} at table {msg.table_id!r} version {msg.version}",
                msg.table_id,
                msg.version,
                kind,
            )
        raise UnreadableEvent(
            f"the {kind or 'unnamed'} event at table {msg.table_id!r} version {msg.version} came without its "
            "content (it could not be encoded, or the message is not an event)",
            msg.table_id,
            msg.version,
            kind,
        )
    try:
        event = event_from_pb(msg)
    except (KeyError, ValueError, TypeError, OptionsError) as exc:
        raise UnreadableEvent(
            f"cannot read the {kind or slot} event at table {msg.table_id!r} version {msg.version}: {exc!r}",
            msg.table_id,
            msg.version,
            kind or slot,
        ) from None
    return Envelope(
        table_id=msg.table_id,
        version=int(msg.version),
        hand=int(msg.hand),
        time=msg.time.ToDatetime(tzinfo=UTC),
        kind=event.type,
        to_move=int(msg.to_move) if msg.HasField("to_move") else to_move(event),
        traceparent=msg.traceparent or None,
        event=event,
        bot_seats=int(msg.bot_seats) if msg.HasField("bot_seats") else None,
    )


def _header(headers: Mapping[str, str] | None, name: str) -> str | None:
    if not headers:
        return None
    got = headers.get(name)
    if got is not None:
        return got
    lower = name.lower()
    return next((v for k, v in headers.items() if k.lower() == lower), None)


def decode_envelope(data: bytes, headers: Mapping[str, str] | None = None) -> Envelope:
    """A message of the table subjects as an Envelope: the protobuf envelope (its content type),
    or the JSON a relay wrote before the contract (no content type; a JSON object body):
    ``{"table_id", "version", "hand", "recorded_at", "event": {"type", ...}}``, upcast with
    okeycore's own decoder. Raises BadEnvelope (or UnreadableEvent / UnknownEvent, which name
    the table and version)."""
    content_type = _header(headers, "Content-Type")
    if content_type is None:
        legacy = data[:1] == b"{"
    else:
        base = content_type.split(";", 1)[0].strip().lower()
        if base not in ("application/x-protobuf", "application/json"):
            raise BadEnvelope(f"a table event has content type {content_type!r}: {data[:100]!r}")
        legacy = base == "application/json"
    if legacy:
        return _from_legacy_json(data, headers)
    msg = events_pb2.TableEvent()
    try:
        msg.ParseFromString(data)
    except DecodeError as exc:
        raise BadEnvelope(f"a message on the table subjects is not an okey.v1.TableEvent: {exc}") from None
    if not msg.table_id or msg.version <= 0:
        raise BadEnvelope(f"a table event without a table id or version: {data[:100]!r}")
    # The header is the relay's publish span (okeyplatform.tracing), a child of the stored one.
    published = valid_traceparent(_header(headers, "traceparent")) if headers else None
    if published:
        msg.traceparent = published
    return envelope_from_pb(msg)


def _from_legacy_json(data: bytes, headers: Mapping[str, str] | None) -> Envelope:
    try:
        env = json.loads(data)
        table_id, version = env["table_id"], int(env["version"])
        body = env["event"]
        if not isinstance(table_id, str) or not table_id or not isinstance(body, dict):
            raise TypeError("table_id must be a string and event an object")
        at = datetime.fromisoformat(env["recorded_at"])
        hand = int(env.get("hand", 0))
    except (ValueError, KeyError, TypeError) as exc:
        raise BadEnvelope(f"a message on the table subjects is not a table event: {exc!r}: {data[:200]!r}") from None
    kind = str(body.get("type"))
    if kind not in EVENT_TYPES:
        message = f"unknown event type {kind!r} at table {table_id!r} version {version}"
        raise UnknownEvent(message, table_id, version, kind)
    try:
        event = event_from_dict(body)
    except (KeyError, ValueError, TypeError) as exc:
        raise UnreadableEvent(
            f"cannot read the {kind!r} event at table {table_id!r} version {version}: {exc!r}", table_id, version, kind
        ) from None
    return Envelope(
        table_id=table_id,
        version=version,
        hand=hand,
        time=at if at.tzinfo else at.replace(tzinfo=UTC),
        kind=kind,
        to_move=to_move(event),
        traceparent=valid_traceparent(_header(headers, "traceparent")),
        event=event,
    )


def envelope_json(msg: events_pb2.TableEvent) -> str:
    """One line of protobuf's JSON mapping of an envelope (``okey export``): field names in
    lowerCamelCase, int64 as strings, enums by name, as the gateway writes them; but every field
    of the event written out, zeros too (a tile with id 0, seat 0), so a reader without the
    protos (jq, a notebook) need not know the defaults."""
    as_dict = json_format.MessageToDict(msg, always_print_fields_with_no_presence=True)
    return json.dumps(as_dict, separators=(",", ":"), ensure_ascii=False)

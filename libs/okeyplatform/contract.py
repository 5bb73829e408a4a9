"""The table-event contract: okeycore events <-> okey.v1 messages, and the TableEvent envelope.

One place builds and reads what leaves the table service: the relay's NATS messages, GetEvents
and Watch, ``okey export``. The envelope is ``okey.v1.TableEvent`` (table id, version, hand,
time, kind, the seat to move, trace context, and the event in its oneof slot). Events map to
their messages field by field, by name: the okeycore event ``TileDrawn`` is the ``TileDrawn``
message in the ``tile_drawn`` slot; where the message field is a ``Tile`` (or ``TileGroup``) a
tile id becomes a Tile (id + code), a hidden tile (-1) keeps id -1 and an empty code. The
mapping of each event class is worked out once from its fields and the message's descriptor,
so encoding and decoding are a loop over a short list, not a walk over type hints.

On NATS the envelope is binary with ``Content-Type: application/x-protobuf;
messageType=okey.v1.TableEvent``. A stream written before (JSON of the Python dict form, no
content type) is read too: :func:`decode_envelope` upcasts it."""

from __future__ import annotations

import json
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from enum import Enum
from typing import Any

import okeycore.games  # noqa: F401  (registers the Okey 101 events with the codec)
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from okey.v1 import common_pb2, events_pb2
from okeycore.classic import public_event as _spectator
from okeycore.events import EVENT_TYPES, Event, event_from_dict, to_move
from okeycore.options import OptionsError, TableOptions
from okeycore.tiles import TILE_COUNT, face_of_id

from .eventstore import BadEnvelope, StoredEvent, UnknownEvent, UnreadableEvent
from .logs import get_logger
from .optionsconv import options_pb, snake
from .tracing import valid_traceparent

__all__ = [
    "CONTENT_TYPE",
    "Envelope",
    "BadEnvelope",
    "UnreadableEvent",
    "UnknownEvent",
    "event_pb",
    "event_from_pb",
    "event_into",
    "event_from_message",
    "envelope_pb",
    "envelope_from_pb",
    "encode_envelope",
    "decode_envelope",
    "nats_headers",
    "envelope_json",
    "valid_traceparent",
]

CONTENT_TYPE = "application/x-protobuf; messageType=okey.v1.TableEvent"
"""The NATS ``Content-Type`` header of a table event (the envelope, binary)."""


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


# ------------------------------------------------------------------ events <-> messages

_TILES = [common_pb2.Tile(id=t, code=str(face_of_id(t))) for t in range(TILE_COUNT)]
_HIDDEN = common_pb2.Tile(id=-1, code="")


def _tile(tid: int) -> common_pb2.Tile:
    return _TILES[tid] if 0 <= tid < TILE_COUNT else _HIDDEN


def _set_tile(target: Any, tid: int) -> None:
    target.CopyFrom(_tile(tid))


def _tile_id(msg: Message, name: str) -> int:
    return int(getattr(msg, name).id) if msg.HasField(name) else -1


_Encode = Callable[[Message, Any], None]
_Decode = Callable[[Message], Any]


def _field_codec(hint: Any, fd: Any) -> tuple[_Encode, _Decode]:
    """How one dataclass field goes into its message field and back, from the field's type hint
    and the message field's descriptor."""
    name = fd.name
    mt = fd.message_type.name if fd.message_type is not None else ""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if mt == "Tile" and not fd.is_repeated:
        return (lambda m, v: _set_tile(getattr(m, name), v)), (lambda m: _tile_id(m, name))
    if mt == "Tile":
        return (
            (lambda m, v: getattr(m, name).extend([_tile(t) for t in v])),
            (lambda m: tuple([t.id for t in getattr(m, name)])),
        )
    if mt == "TileGroup":

        def put_groups(m: Message, v: Any) -> None:
            target = getattr(m, name)
            for group in v:
                target.add().tiles.extend([_tile(t) for t in group])

        return put_groups, (lambda m: tuple([tuple([t.id for t in g.tiles]) for g in getattr(m, name)]))
    if hint is TableOptions:
        return (lambda m, v: getattr(m, name).CopyFrom(options_pb(v))), (lambda m: _options(getattr(m, name)))
    if isinstance(hint, type) and issubclass(hint, Enum):
        to_number, from_number = _enum_maps(hint, fd)
        return (lambda m, v: setattr(m, name, to_number[v])), (lambda m: from_number[getattr(m, name)])
    if origin is tuple and fd.is_repeated:
        inner = args[0]
        if isinstance(inner, type) and issubclass(inner, Enum):
            to_number, from_number = _enum_maps(inner, fd)
            return (
                (lambda m, v: getattr(m, name).extend([to_number[x] for x in v])),
                (lambda m: tuple([from_number[x] for x in getattr(m, name)])),
            )
        if fd.message_type is not None and hasattr(inner, "__dataclass_fields__"):
            put, get = _codec(inner, fd.message_type)

            def put_items(m: Message, v: Any) -> None:
                target = getattr(m, name)
                for item in v:
                    put(target.add(), item)

            return put_items, (lambda m: tuple([get(x) for x in getattr(m, name)]))
        if fd.message_type is None:
            return (lambda m, v: getattr(m, name).extend(v)), (lambda m: tuple(getattr(m, name)))
    if hasattr(hint, "__dataclass_fields__") and fd.message_type is not None and not fd.is_repeated:
        put, get = _codec(hint, fd.message_type)
        return (lambda m, v: put(getattr(m, name), v)), (lambda m: get(getattr(m, name)))
    if hint in (int, str, bool) and fd.message_type is None and not fd.is_repeated:
        return (lambda m, v: setattr(m, name, v)), (lambda m: getattr(m, name))
    raise TypeError(f"no mapping of {hint!r} to the message field {fd.full_name}")


def _enum_maps(enum_cls: type[Enum], fd: Any) -> tuple[dict[Any, int], dict[int, Any]]:
    """``DrawSource.DECK`` <-> ``DRAW_SOURCE_DECK``'s number (the buf style's prefixed names)."""
    prefix = snake(fd.enum_type.name).upper() + "_"
    to_number = {m: fd.enum_type.values_by_name[prefix + str(m.value)].number for m in enum_cls}
    return to_number, {n: m for m, n in to_number.items()}


def _codec(cls: Any, descriptor: Any) -> tuple[_Encode, _Decode]:
    """The encoder and decoder of a dataclass and its message, built once: every field of the
    dataclass must have its message field (a field the contract cannot carry is an error, not
    a silent loss: the first step of issue 16 found three)."""
    cached = _CODECS.get(cls)
    if cached is not None:
        return cached
    hints = typing.get_type_hints(cls)
    plan: list[tuple[str, _Encode, _Decode]] = []
    for f in fields(cls):
        fd = descriptor.fields_by_name.get(f.name)
        if fd is None:
            raise TypeError(f"{descriptor.full_name} has no field {f.name!r} for {cls.__name__}.{f.name}")
        put, get = _field_codec(hints[f.name], fd)
        plan.append((f.name, put, get))

    def encode(msg: Message, obj: Any) -> None:
        for name, put, _ in plan:
            put(msg, getattr(obj, name))

    def decode(msg: Message) -> Any:
        return cls(**{name: get(msg) for name, _, get in plan})

    _CODECS[cls] = (encode, decode)
    return encode, decode


_CODECS: dict[Any, tuple[_Encode, _Decode]] = {}


def _options(msg: common_pb2.TableOptions) -> TableOptions:
    """Stored options as they were (no bounds check: an old table keeps the options it had)."""
    data: dict[str, Any] = {}
    for fd, value in msg.ListFields():
        if fd.enum_type is not None:
            data[fd.name] = fd.enum_type.values_by_number[value].name[len(snake(fd.enum_type.name)) + 1 :]
        else:
            data[fd.name] = value
    return TableOptions.from_dict(data, stored=True)


def _slot(event_cls: type[Event]) -> str:
    return snake(event_cls.type)


_SLOT_FIELDS = events_pb2.TableEvent.DESCRIPTOR.fields_by_name


def _event_codec(event_cls: type[Event]) -> tuple[str, _Encode, _Decode]:
    got = _EVENT_CODECS.get(event_cls)
    if got is None:
        slot = _slot(event_cls)
        fd = _SLOT_FIELDS.get(slot)
        if fd is None or fd.containing_oneof is None:
            raise TypeError(f"okey.v1.TableEvent has no {slot!r} for the event {event_cls.type}")
        put, get = _codec(event_cls, fd.message_type)
        got = _EVENT_CODECS[event_cls] = (slot, put, get)
    return got


_EVENT_CODECS: dict[type[Event], tuple[str, _Encode, _Decode]] = {}


def event_pb(event: Event, envelope: events_pb2.TableEvent | None = None) -> events_pb2.TableEvent:
    """``event`` in its slot of ``envelope`` (a new, otherwise empty one by default)."""
    env = envelope if envelope is not None else events_pb2.TableEvent()
    slot, put, _ = _event_codec(type(event))
    put(getattr(env, slot), event)
    return env


def event_into(msg: Message, event: Event) -> None:
    """``event`` into a message of its type outside the envelope (a seat view's last hand)."""
    put, _ = _codec(type(event), msg.DESCRIPTOR)
    put(msg, event)


def event_from_message(cls: type[Event], msg: Message) -> Event:
    """The inverse of :func:`event_into`."""
    _, get = _codec(cls, msg.DESCRIPTOR)
    event: Event = get(msg)
    return event


def _class_of_slot() -> dict[str, type[Event]]:
    return {_slot(cls): cls for cls in EVENT_TYPES.values()}


def event_from_pb(envelope: events_pb2.TableEvent) -> Event:
    """The inverse of :func:`event_pb`: the okeycore event in the envelope's oneof. Raises
    KeyError for an empty or unknown slot, ValueError/OptionsError for a value okeycore refuses."""
    slot = envelope.WhichOneof("event")
    if slot is None:
        raise KeyError("the envelope carries no event")
    cls = _BY_SLOT.get(slot)
    if cls is None:
        _BY_SLOT.update(_class_of_slot())  # an event module registered since (okey101)
        cls = _BY_SLOT[slot]
    _, _, get = _event_codec(cls)
    event: Event = get(getattr(envelope, slot))
    return event


_BY_SLOT: dict[str, type[Event]] = {}


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
        slot, put, _ = _event_codec(type(shown))
        try:
            put(getattr(env, slot), shown)
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

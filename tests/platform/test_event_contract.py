"""The okey.v1 event messages are the contract of every engine event: each event type has its
message in the TableEvent envelope, and every field survives a round trip through protobuf's
binary form and its JSON mapping (issue 16's first step: before this, TableCreated lost its
players and HandStarted its deal order and salt). The envelope is what NATS carries, GetEvents
and Watch return and ``okey export`` writes (okeyplatform.contract): every event goes through
it and back, in full and as a spectator sees it, and the JSON an older relay published is read
as the same envelope."""

from __future__ import annotations

import json
import typing
from dataclasses import fields, is_dataclass, replace
from datetime import UTC, datetime
from enum import Enum
from typing import Any

import pytest
from google.protobuf import json_format
from okey.v1 import events_pb2
from okeycore.classic import public_event
from okeycore.events import EVENT_TYPES, DrawSource, Event, MatchEnded, TileDiscarded, TileDrawn, event_to_dict, to_move
from okeycore.games import ENGINES
from okeycore.options import TableOptions
from okeyplatform.contract import (
    CONTENT_TYPE,
    BadEnvelope,
    Envelope,
    UnknownEvent,
    UnreadableEvent,
    decode_envelope,
    encode_envelope,
    envelope_from_pb,
    envelope_json,
    envelope_pb,
    event_from_pb,
    event_pb,
    nats_headers,
    snake,
)
from okeyplatform.eventstore import StoredEvent


def _sample(hint: Any, name: str, depth: int = 0) -> Any:
    """A value of ``hint`` that is valid wherever it lands (a tile id, a seat, a face code)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is TableOptions:
        return TableOptions(match_points=9)
    if origin is typing.Union or (origin is not None and type(None) in args):
        return _sample(next(a for a in args if a is not type(None)), name, depth)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return list(hint)[-1]
    if origin is tuple:
        inner = args[0]
        if name in ("stands_for",):
            return ("R5", "R6", "R7")
        if name == "players":
            return ("p-1", "", "p-3", "")
        return tuple(_sample(inner, name, depth + 1) for _ in range(2))
    if is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        return hint(**{f.name: _sample(hints[f.name], f.name, depth + 1) for f in fields(hint)})
    if hint is bool:
        return True
    if hint is int:
        return 7
    if hint is str:
        return "R5" if name.endswith("code") else f"{name}-x"
    raise AssertionError(f"no sample for {hint!r} ({name})")


def _event(cls: type[Event]) -> Event:
    hints = typing.get_type_hints(cls)
    return cls(**{f.name: _sample(hints[f.name], f.name) for f in fields(cls)})  # type: ignore[call-arg]


@pytest.mark.parametrize("name", sorted(EVENT_TYPES))
def test_every_event_type_has_its_message_and_round_trips_with_no_field_lost(name: str) -> None:
    cls = EVENT_TYPES[name]
    event = _event(cls)
    slot = snake(name)
    assert slot in events_pb2.TableEvent.DESCRIPTOR.fields_by_name, f"TableEvent has no {slot}"
    message_fields = events_pb2.TableEvent.DESCRIPTOR.fields_by_name[slot].message_type.fields_by_name
    assert {f.name for f in fields(cls)} <= set(message_fields), f"{name}: fields without a message field"
    env = event_pb(event)
    assert env.WhichOneof("event") == slot
    binary = events_pb2.TableEvent.FromString(env.SerializeToString())
    assert event_from_pb(binary) == event
    parsed = json_format.Parse(json_format.MessageToJson(env), events_pb2.TableEvent())
    assert event_from_pb(parsed) == event


AT = datetime(2026, 12, 1, 19, 21, 46, 400445, tzinfo=UTC)
TRACE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def _stored(event: Event, version: int = 3, traceparent: str | None = TRACE) -> StoredEvent:
    data = event_to_dict(event)
    kind = data.pop("type")
    return StoredEvent("t-1", version, kind, data, 2, 40, (9, 40), AT, traceparent)


def _expected(event: Event, shown: Event, traceparent: str | None = TRACE) -> Envelope:
    return Envelope("t-1", 3, 2, AT, event.type, to_move(event), traceparent, shown)


@pytest.mark.parametrize("name", sorted(EVENT_TYPES))
def test_every_event_type_goes_through_the_envelope_and_back_binary_and_json_in_full_and_redacted(
    name: str,
) -> None:
    """What NATS carries (binary, with its headers), what export writes (JSON), in full (a private
    export) and as a spectator sees it (the relay, GetEvents without a seat): every envelope field
    and every field of the event come back."""
    event = _event(EVENT_TYPES[name])
    st = _stored(event)
    spectator = public_event(event, None)
    for engine in ENGINES.values():  # both games redact alike: the relay uses classic's
        assert engine.public_event(event, None) == spectator
    headers = nats_headers(st)
    assert headers == {"Nats-Msg-Id": "t-1:3", "Content-Type": CONTENT_TYPE, "traceparent": TRACE}
    got = decode_envelope(encode_envelope(st), headers)
    assert got == _expected(event, spectator)
    assert decode_envelope(encode_envelope(st, event), headers) == got  # the decoded event, if the caller has it
    for private in (False, True):
        env = envelope_pb(st, private=private)
        want = _expected(event, event if private else spectator)
        assert env.kind == name and env.HasField("to_move") and env.to_move == to_move(event)
        assert envelope_from_pb(events_pb2.TableEvent.FromString(env.SerializeToString())) == want
        line = envelope_json(env)
        assert "\n" not in line and json.loads(line)["kind"] == name
        assert envelope_from_pb(json_format.Parse(line, events_pb2.TableEvent())) == want
        assert envelope_from_pb(json_format.Parse(json_format.MessageToJson(env), events_pb2.TableEvent())) == want
    # a seat's own view of the event (Watch, GetEvents with a seat)
    for seat in (0, 7):
        env = envelope_pb(st, event, seat=seat)
        assert envelope_from_pb(env).event == public_event(event, seat)


@pytest.mark.parametrize("name", sorted(EVENT_TYPES))
def test_an_event_in_the_json_an_older_relay_published_is_read_as_the_same_envelope(name: str) -> None:
    """The upcast of a stream written before the protobuf contract: no content type, the JSON of
    ``{"table_id", "version", "hand", "recorded_at", "event"}`` (tests/fixtures/old_log has a
    whole recorded log; this checks every event type)."""
    event = _event(EVENT_TYPES[name])
    spectator = public_event(event, None)
    old = {"table_id": "t-1", "version": 3, "hand": 2, "recorded_at": AT.isoformat(), "event": event_to_dict(spectator)}
    data = json.dumps(old, separators=(",", ":")).encode()
    want = _expected(event, spectator, None)
    assert decode_envelope(data, {"Nats-Msg-Id": "t-1:3"}) == want
    assert decode_envelope(data, None) == want
    assert decode_envelope(data, {"traceparent": TRACE}) == replace(want, traceparent=TRACE)
    new = _stored(event, traceparent=None)
    assert decode_envelope(encode_envelope(new), nats_headers(new)) == want


def test_to_move_is_the_seat_okeycore_names_for_each_event() -> None:
    """The bots read the envelope's to_move instead of a table of their own."""
    for cls in EVENT_TYPES.values():
        if cls.to_move_field:
            assert cls.to_move_field in {f.name for f in fields(cls)}, cls
    assert to_move(TileDiscarded(seat=1, tile=5, next_seat=2, deadline_ms=0)) == 2
    assert to_move(TileDiscarded(seat=1, tile=5, next_seat=-1, deadline_ms=0)) == -1  # the discard ended the hand
    assert to_move(MatchEnded((1, 2), (0,), 0, 0, 0)) == -1
    draw = TileDrawn(seat=0, tile=5, source=DrawSource.DECK)
    env = envelope_pb(_stored(draw))
    assert env.HasField("to_move") and env.to_move == 0  # seat 0 is there, not a default left out
    assert json.loads(envelope_json(env))["toMove"] == 0


def test_an_event_its_message_cannot_hold_goes_out_without_it_and_names_its_table() -> None:
    """A log written before the bounds may hold a number past int64: the relay must not stop on
    it (every table would), so it publishes the envelope without the event; a consumer learns
    which table and version to set aside."""
    huge = MatchEnded((1, 2, 3, 4), (0,), 2**66, 2**65, 0)
    env = envelope_pb(_stored(huge))
    assert env.WhichOneof("event") is None and env.kind == "MatchEnded" and env.version == 3
    with pytest.raises(UnreadableEvent) as err:
        decode_envelope(env.SerializeToString(), {"Content-Type": CONTENT_TYPE})
    assert (err.value.table_id, err.value.version, err.value.kind) == ("t-1", 3, "MatchEnded")
    # a stored row okeycore cannot read at all goes out the same way
    bad = StoredEvent("t-1", 4, "TileDrawn", {"seat": 1}, 1, 41, (9, 41), AT)
    with pytest.raises(UnreadableEvent):
        decode_envelope(encode_envelope(bad), nats_headers(bad))


def test_an_unknown_event_type_and_a_message_that_is_no_envelope_are_refused_by_name() -> None:
    newer = events_pb2.TableEvent(table_id="t-1", version=5, kind="MeteorStrike").SerializeToString()
    with pytest.raises(UnknownEvent, match="MeteorStrike") as err:
        decode_envelope(newer, {"Content-Type": CONTENT_TYPE})
    assert (err.value.table_id, err.value.version) == ("t-1", 5)
    old = json.dumps({"table_id": "t", "version": 2, "hand": 0, "recorded_at": AT.isoformat(), "event": {"type": "X"}})
    with pytest.raises(UnknownEvent, match="'X'"):
        decode_envelope(old.encode())
    for data, headers in [
        (b"\xff\xff", {"Content-Type": CONTENT_TYPE}),
        (b"{not json", None),
        (b'{"version": 1}', None),
        (events_pb2.TableEvent(version=1).SerializeToString(), {"Content-Type": CONTENT_TYPE}),
        (b"{}", {"Content-Type": "text/plain"}),
    ]:
        with pytest.raises(BadEnvelope):
            decode_envelope(data, headers)

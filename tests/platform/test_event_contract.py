"""The okey.v1 event messages are the contract of every engine event: each event type has its
message in the TableEvent envelope, and every field survives a round trip through protobuf's
binary form and its JSON mapping (issue 16's first step: before this, TableCreated lost its
players and HandStarted its deal order and salt)."""

from __future__ import annotations

import typing
from dataclasses import fields, is_dataclass
from enum import Enum
from typing import Any

import pytest
from google.protobuf import json_format
from okey.v1 import events_pb2
from okeycore.events import EVENT_TYPES, Event
from okeycore.options import TableOptions
from okeyplatform.protoconv import event_pb, from_pb, snake


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


# Engine events whose okey.v1 message is still to be written (protos/ is the lead's): strict, so
# the mark must go the day the message exists.
AWAITING_MESSAGE = {"SeatLeft": "okey.v1 SeatLeft (seat int, player string) is added with the merge of issue 16"}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=AWAITING_MESSAGE[n]))
        if n in AWAITING_MESSAGE
        else n
        for n in sorted(EVENT_TYPES)
    ],
)
def test_every_event_type_has_its_message_and_round_trips_with_no_field_lost(name: str) -> None:
    cls = EVENT_TYPES[name]
    event = _event(cls)
    slot = snake(name)
    assert slot in events_pb2.TableEvent.DESCRIPTOR.fields_by_name, f"TableEvent has no {slot}"
    message_fields = events_pb2.TableEvent.DESCRIPTOR.fields_by_name[slot].message_type.fields_by_name
    assert {f.name for f in fields(cls)} <= set(message_fields), f"{name}: fields without a message field"
    env = event_pb("t-1", 3, 1, None, event)
    binary = events_pb2.TableEvent.FromString(env.SerializeToString())
    assert from_pb(cls, getattr(binary, binary.WhichOneof("event"))) == event
    parsed = json_format.Parse(json_format.MessageToJson(env), events_pb2.TableEvent())
    assert from_pb(cls, getattr(parsed, parsed.WhichOneof("event"))) == event

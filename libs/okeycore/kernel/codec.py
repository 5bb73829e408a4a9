"""Events to plain JSON-ready dicts and back: the stored form of every event of both games."""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, Field, fields
from enum import Enum
from typing import Any

from ..options import TableOptions
from .events import Event

__all__ = ["event_to_dict", "decode_event"]


def _encode(v: Any) -> Any:
    if isinstance(v, Enum):
        return v.value
    if isinstance(v, TableOptions):
        return v.to_dict()
    if isinstance(v, tuple):
        return [x if type(x) is int else _encode(x) for x in v]  # a rack, a deck: ints, fast
    if hasattr(v, "__dataclass_fields__"):
        return {f.name: _encode(getattr(v, f.name)) for f in fields(v)}
    return v


_PLAIN = (int, str, bool, float)
_NAMES: dict[type[Any], tuple[str, ...]] = {}


def event_to_dict(event: Event) -> dict[str, Any]:
    """JSON-ready form: ``{"type": ..., field: value, ...}`` in field order (stored logs hold it)."""
    cls = type(event)
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = tuple(f.name for f in fields(event))
    out: dict[str, Any] = {"type": event.type}
    for name in names:
        v = getattr(event, name)
        # A plain value is its own JSON form (an Enum of ours is a StrEnum: its value, encoded).
        out[name] = v if type(v) in _PLAIN else _encode(v)
    return out


Convert = Callable[[Any], Any]


def _converter(hint: Any) -> Convert | None:
    """How a stored value of type ``hint`` becomes the field's value; None when it already is
    (a number, a string, a bool)."""
    if hint is TableOptions:
        return _options
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint
    if typing.get_origin(hint) is tuple:
        inner = _converter(typing.get_args(hint)[0])
        if inner is None:
            return tuple
        return lambda v: tuple([inner(x) for x in v])
    if isinstance(hint, type) and hasattr(hint, "__dataclass_fields__"):
        return _decoder(hint, all_required=True)
    return None


def _options(v: Any) -> TableOptions:
    return TableOptions.from_dict(v, stored=True)


def _decoder(cls: type[Any], all_required: bool = False) -> Callable[[Mapping[str, Any]], Any]:
    """The decoder of one dataclass, its fields' hints resolved once: a stored event is decoded
    once per event a replay or an export reads. A field added later with a default may be
    missing from an older stored event (``all_required``: not in a nested value)."""
    hints = typing.get_type_hints(cls)
    spec = [(f.name, _converter(hints[f.name]), all_required or not _has_default(f)) for f in fields(cls)]

    def decode(data: Mapping[str, Any]) -> Any:
        kwargs = {}
        for name, convert, required in spec:
            if name in data:
                v = data[name]
                kwargs[name] = v if convert is None else convert(v)
            elif required:
                raise KeyError(name)
        return cls(**kwargs)

    return decode


_DECODERS: dict[type[Event], Callable[[Mapping[str, Any]], Any]] = {}


def decode_event(types: Mapping[str, type[Event]], data: dict[str, Any]) -> Event:
    """Inverse of :func:`event_to_dict` over the registry ``types``; raises KeyError/ValueError
    on unknown types or fields."""
    name = data.get("type")
    cls = types.get(str(name))
    if cls is None:
        raise ValueError(f"unknown event type {name!r}")
    decode = _DECODERS.get(cls)
    if decode is None:
        decode = _DECODERS[cls] = _decoder(cls)
    event: Event = decode(data)
    return event


def _has_default(f: Field[Any]) -> bool:
    return f.default is not MISSING or f.default_factory is not MISSING

"""Events to plain JSON-ready dicts and back: the stored form of every event of both games."""

from __future__ import annotations

import typing
from collections.abc import Mapping
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
        return [_encode(x) for x in v]
    if hasattr(v, "__dataclass_fields__"):
        return {f.name: _encode(getattr(v, f.name)) for f in fields(v)}
    return v


def event_to_dict(event: Event) -> dict[str, Any]:
    """JSON-ready form: ``{"type": ..., field: value, ...}`` in field order (stored logs hold it)."""
    out: dict[str, Any] = {"type": event.type}
    for f in fields(event):
        out[f.name] = _encode(getattr(event, f.name))
    return out


def _decode(hint: Any, v: Any) -> Any:
    origin = typing.get_origin(hint)
    if hint is TableOptions:
        return TableOptions.from_dict(v, stored=True)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(v)
    if origin is tuple:
        args = typing.get_args(hint)
        inner = args[0]
        return tuple(_decode(inner, x) for x in v)
    if isinstance(hint, type) and hasattr(hint, "__dataclass_fields__"):
        hints = typing.get_type_hints(hint)
        return hint(**{f.name: _decode(hints[f.name], v[f.name]) for f in fields(hint)})
    return v


_HINTS: dict[type[Event], dict[str, Any]] = {}


def decode_event(types: Mapping[str, type[Event]], data: dict[str, Any]) -> Event:
    """Inverse of :func:`event_to_dict` over the registry ``types``; raises KeyError/ValueError
    on unknown types or fields."""
    name = data.get("type")
    cls = types.get(str(name))
    if cls is None:
        raise ValueError(f"unknown event type {name!r}")
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    # A field added later with a default may be missing from an older stored event.
    return cls(
        **{f.name: _decode(hints[f.name], data[f.name]) for f in fields(cls) if f.name in data or not _has_default(f)}
    )


def _has_default(f: Field[Any]) -> bool:
    return f.default is not MISSING or f.default_factory is not MISSING

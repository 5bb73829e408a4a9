"""Table options <-> their okey.v1 message, and the protobuf field-name rule (``snake``).

The lowest layer of the protobuf conversion: the event contract (``contract``) and the view
conversion (``protoconv``) both build on it, so neither imports the other in a circle."""

from __future__ import annotations

import re
from typing import Any

from okey.v1 import common_pb2
from okeycore.options import OptionsError, TableOptions

__all__ = ["options_pb", "options_from_pb", "snake"]

_SNAKE = re.compile(r"(?<!^)(?=[A-Z])")


def snake(name: str) -> str:
    """A Python class name as protobuf's field name of it (``TileDrawn`` -> ``tile_drawn``)."""
    return _SNAKE.sub("_", name).lower()


_OPTION_ENUMS = {
    "game": "GAME",
    "indicator_scoring": "INDICATOR_SCORING",
    "indicator_timing": "INDICATOR_TIMING",
    "discard_history": "DISCARD_HISTORY",
    "pairs_declaration": "PAIRS_DECLARATION",
    "deck_end": "DECK_END",
    "mode": "MODE",
    "bot_level": "BOT_LEVEL",
    "bot_pace": "BOT_PACE",
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
    """Set fields only; an unset enum or optional takes the default; a set option of the other
    game is refused [D-9]. Raises OptionsError."""
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

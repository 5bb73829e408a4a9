"""The players' faces (issue 47.3): okey.v1.Avatar is their one list (number -> name,
UNSPECIFIED left out). A player's row keeps the one they picked (``lobby_players.avatar``), NULL
until they pick one: their face is then the default of their player id, stable for ever."""

from __future__ import annotations

import hashlib

from okey.v1.lobby_service_pb2 import Avatar

__all__ = ["AVATARS", "default_avatar", "face"]

AVATARS: dict[int, str] = {v.number: v.name for v in Avatar.DESCRIPTOR.values if v.number != 0}
_NUMBERS = sorted(AVATARS)


def default_avatar(player_id: str) -> int:
    """The face of a player who never picked one: a hash of the id onto the set (not Python's
    hash(), which changes between runs)."""
    digest = hashlib.sha256(player_id.encode()).digest()
    return _NUMBERS[int.from_bytes(digest[:4], "big") % len(_NUMBERS)]


def face(player_id: str | None, picked: int | None, deleted: bool = False) -> int:
    """The face shown for a player: the one picked if the set still has it, else the default;
    none (0) for a bot, an open seat or a deleted account."""
    if not player_id or deleted:
        return 0
    return picked if picked in AVATARS else default_avatar(player_id)

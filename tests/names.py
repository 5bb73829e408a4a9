"""Display names for tests that need a new player each run.

A random hex suffix is not a safe name: the lobby's name check reads digits as letters
(``a55`` is a word it refuses), so about one name in 400 was refused and failed its test at
random. ``unique_name`` draws a suffix and keeps the first one the lobby's own check accepts.
"""

from __future__ import annotations

import uuid

from services.lobby.moderation import NameRejected, check_display_name


def unique_name(prefix: str) -> str:
    """``prefix`` and a 4-character suffix, different each call, that the lobby accepts."""
    for _ in range(100):
        name = f"{prefix} {uuid.uuid4().hex[:4]}"
        try:
            check_display_name(name)
        except NameRejected:
            continue
        return name
    raise AssertionError(f"no acceptable name starts with {prefix!r}: the prefix itself is refused")

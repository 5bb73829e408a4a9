"""Tests that play several hands as persons get past the break between hands [P-BREAK-3] the way
people do: every person seated says Ready, and the next hand is dealt at once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from okeycore.commands import Ready
from okeyplatform.client import TableClient

__all__ = ["ready_all"]


async def ready_all(clients: Sequence[TableClient | None], table_id: str, view: Any) -> bool:
    """During a break (``view.break_due_ms``), Ready from every seat in ``clients`` not ready
    yet (None: a bot's seat); returns whether there was a break."""
    if not view.break_due_ms:
        return False
    for seat, client in enumerate(clients):
        if client is not None and seat not in view.ready:
            await client.act(table_id, Ready(seat=seat))
    return True

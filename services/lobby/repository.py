"""What every lobby repository shares: the unit of work's connection (each repository of a unit
runs on it, inside the unit's transaction) and an insert that reports a taken unique key."""

from __future__ import annotations

from typing import Any

import asyncpg

from .errors import UniqueTaken

__all__ = ["Repository"]


class Repository:
    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn

    async def insert_unique(self, sql: str, *args: Any) -> None:
        """Run an INSERT in a savepoint: a unique key already taken raises ``UniqueTaken`` (naming
        the constraint) and the unit goes on, as if the row had never been tried."""
        try:
            async with self.conn.transaction():
                await self.conn.execute(sql, *args)
        except asyncpg.UniqueViolationError as exc:
            raise UniqueTaken(exc.constraint_name or "") from None

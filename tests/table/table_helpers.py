"""Helpers shared by the table-service tests."""

from __future__ import annotations

import json

import nats
from okeyplatform.relay import table_subject


async def jetstream_versions(url: str, table_id: str, expected: int, timeout: float = 20.0) -> list[int]:
    """The versions of ``table_id``'s events on JetStream, in the order they are stored: up to
    ``expected`` of them, or as many as came before ``timeout`` seconds passed without one."""
    nc = await nats.connect(url)
    try:
        js = nc.jetstream()
        sub = await js.subscribe(table_subject(table_id), ordered_consumer=True)
        versions: list[int] = []
        try:
            while len(versions) < expected:
                msg = await sub.next_msg(timeout=timeout)
                versions.append(int(json.loads(msg.data)["version"]))
        except nats.errors.TimeoutError:
            pass
        await sub.unsubscribe()
        return versions
    finally:
        await nc.close()

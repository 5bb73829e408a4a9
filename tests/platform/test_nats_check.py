"""``okeyplatform.bus.check_nats``: the check ``okey up`` and ``okey serve`` make before any
service starts. A NATS URL that cannot work is told at its first failed try, not at the end of
the waiting window (nats-py alone would keep trying a refused port until the window closed)."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest
from okeyplatform.bus import NatsUnreachable, check_nats


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed when the block ends: nobody listens there


@pytest.mark.parametrize("url", ["refused", "notaurl"])
def test_a_refused_or_unresolvable_nats_is_told_at_once_with_its_cause(url: str) -> None:
    target = f"nats://okey:sekret@127.0.0.1:{_closed_port()}" if url == "refused" else url
    t0 = time.monotonic()
    with pytest.raises(NatsUnreachable) as got:
        asyncio.run(check_nats(target, within_s=20.0))
    took = time.monotonic() - t0
    assert took < 10.0, f"told after {took:.1f} s: the window was waited out"
    text = str(got.value)
    assert "OKEY_NATS_URL" in text and "sekret" not in text
    assert ("refused" in text.lower() or "111" in text) if url == "refused" else "notaurl" in text


def test_a_nats_that_never_answers_is_told_when_the_window_closes() -> None:
    with socket.socket() as listener:  # accepts (the kernel's backlog) and never speaks
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        port = listener.getsockname()[1]
        t0 = time.monotonic()
        with pytest.raises(NatsUnreachable) as got:
            asyncio.run(check_nats(f"nats://127.0.0.1:{port}", within_s=0.5))
        assert time.monotonic() - t0 < 5.0
    assert "OKEY_NATS_URL" in str(got.value)

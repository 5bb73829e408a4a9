"""Revocations over a real NATS: the lobby's publisher answers and publishes, a service's
follower loads the list and then every new revocation; token checks refuse what it learnt."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime

import pytest
from okeyplatform.auth import TokenError, issue_token, revoke, verify_token
from okeyplatform.revocations import RevocationFollower, RevocationPublisher


async def _refused(token: str, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            verify_token(token)
        except TokenError as exc:
            assert "revoked" in str(exc)
            return True
        await asyncio.sleep(0.05)
    return False


async def test_a_follower_loads_the_list_then_follows_each_revocation(nats_url: str) -> None:
    old, new, other = (f"p-{uuid.uuid4().hex[:8]}" for _ in range(3))
    before_list = issue_token(old)
    await asyncio.sleep(0.01)
    listed = [(old, time.time())]

    async def list_fn() -> list[tuple[str, float]]:
        return listed

    publisher = RevocationPublisher(nats_url, list_fn)
    follower = RevocationFollower(nats_url, retry_s=0.2)
    follower.start()  # before the lobby answers: it keeps asking
    await asyncio.sleep(0.5)
    assert not follower.loaded.is_set()
    verify_token(before_list)  # nothing known yet
    publisher.start()
    try:
        await asyncio.wait_for(follower.loaded.wait(), 10)
        assert await _refused(before_list)
        # A revocation published now reaches the follower at once; others' tokens are untouched.
        token, untouched = issue_token(new), issue_token(other)
        await asyncio.sleep(0.01)
        await publisher.publish(new, time.time())
        assert await _refused(token, within=2.0)
        verify_token(untouched)
        # A token issued after the revocation (signing in again) is accepted.
        await asyncio.sleep(0.01)
        verify_token(issue_token(new))
    finally:
        await follower.stop()
        await publisher.stop()


def test_a_revocation_only_moves_forward_and_cuts_by_the_moment_of_issue() -> None:
    from okeyplatform.auth import revoke, revoked_before

    who = f"p-{uuid.uuid4().hex[:8]}"
    early = issue_token(who)
    time.sleep(0.01)
    cut = time.time()
    time.sleep(0.01)
    late = issue_token(who)
    revoke(who, cut)
    revoke(who, cut - 100)  # an older message arriving late changes nothing
    assert revoked_before(who) == cut
    with pytest.raises(TokenError, match="revoked"):
        verify_token(early)
    assert verify_token(late).subject == who


def test_a_revocation_cuts_between_tokens_issued_a_moment_apart() -> None:
    """A token issued just before a revocation is refused, one issued just after is not, however
    close in time (iat is kept to the microsecond; to the millisecond, rounding let a token
    issued half a millisecond before a revocation through). The cut is a microsecond, as the
    lobby's (a datetime's timestamp)."""
    for _ in range(200):
        subject = f"p-{uuid.uuid4().hex[:8]}"
        before = issue_token(subject)
        cut = datetime.now(UTC).timestamp()
        revoke(subject, cut)
        while time.time() < cut + 2e-6:  # the next microsecond, past a float's rounding
            pass
        after = issue_token(subject)
        with pytest.raises(TokenError, match="revoked"):
            verify_token(before)
        assert verify_token(after).subject == subject

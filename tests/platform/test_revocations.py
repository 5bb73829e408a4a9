"""Revocations over a real NATS: the lobby's publisher answers and publishes, a service's
follower loads the list and then every new revocation; token checks refuse what it learnt."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
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


async def _until(cond: Callable[[], bool], what: str, within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while not cond():
        assert time.monotonic() < deadline, f"not within {within:.0f} s: {what}"
        await asyncio.sleep(0.02)


async def test_a_follower_loads_the_list_then_follows_each_revocation(nats_url: str) -> None:
    old, new, other = (f"p-{uuid.uuid4().hex[:8]}" for _ in range(3))
    # The tokens are issued at the test's moments (t0, t0 + 2) around the revocations' (t0 + 1):
    # no pause is needed to order them.
    t0 = time.time()
    before_list = issue_token(old, now=t0)
    listed = [(old, t0 + 1)]

    async def list_fn() -> list[tuple[str, float]]:
        return listed

    publisher = RevocationPublisher(nats_url, list_fn)
    follower = RevocationFollower(nats_url, retry_s=0.2)
    follower.start()  # before the lobby answers: it keeps asking
    await _until(lambda: follower.unanswered >= 2, "the follower asked for the list twice, unanswered")
    assert not follower.loaded.is_set()
    verify_token(before_list)  # nothing known yet
    publisher.start()
    try:
        await asyncio.wait_for(follower.loaded.wait(), 10)
        assert await _refused(before_list)
        # A revocation published now reaches the follower at once; others' tokens are untouched.
        token, untouched = issue_token(new, now=t0), issue_token(other, now=t0)
        await publisher.publish(new, t0 + 1)
        assert await _refused(token, within=2.0)
        verify_token(untouched)
        # A token issued after the revocation (signing in again) is accepted.
        verify_token(issue_token(new, now=t0 + 2))
    finally:
        await follower.stop()
        await publisher.stop()


def test_a_revocation_only_moves_forward_and_cuts_by_the_moment_of_issue() -> None:
    from okeyplatform.auth import revoke, revoked_before

    who = f"p-{uuid.uuid4().hex[:8]}"
    t0 = time.time()
    early = issue_token(who, now=t0)
    cut = t0 + 1
    late = issue_token(who, now=t0 + 2)
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
    lobby's (a datetime's timestamp). On the real clock: its rounding is what is tested."""
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

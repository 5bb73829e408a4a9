"""Token expiry on an injected clock: the moment a token stops being accepted, and a service's
cache of verified tokens never outliving it (tests/resilience/test_bad_input.py replays an
expired token against every running service on the real clock)."""

from __future__ import annotations

import base64
import json
import uuid

import pytest
from okeyplatform.auth import RECHECK_S, TokenError, identity_from_metadata, issue_token, verify_token


def _exp(token: str) -> int:
    exp = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))["exp"]
    assert isinstance(exp, int)
    return exp


def test_a_token_is_accepted_up_to_its_expiry_and_refused_after_it() -> None:
    token = issue_token(f"p-{uuid.uuid4().hex[:8]}", ttl_s=600)
    exp = _exp(token)
    assert verify_token(token, now=exp - 599).expires_at == exp
    assert verify_token(token, now=exp).expires_at == exp
    with pytest.raises(TokenError, match="expired"):
        verify_token(token, now=exp + 0.001)


def test_a_cached_token_is_verified_again_once_it_has_expired() -> None:
    """A service verifies a token once and remembers it for RECHECK_S, but never past the
    token's expiry: a token used while valid and replayed after it is refused."""
    token = issue_token(f"p-{uuid.uuid4().hex[:8]}", ttl_s=600)
    exp = _exp(token)
    metadata = [("authorization", f"Bearer {token}")]
    first = exp - RECHECK_S / 2  # its minute in the cache would run past the expiry
    assert identity_from_metadata(metadata, now=first).expires_at == exp
    assert identity_from_metadata(metadata, now=exp).expires_at == exp  # still valid: from the cache
    with pytest.raises(TokenError, match="expired"):
        identity_from_metadata(metadata, now=exp + 0.5)

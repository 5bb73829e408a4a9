"""Provably fair deals: a hand's deal is committed to before play and revealed at its end."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

__all__ = ["deal_commitment", "verify_commitment"]


def deal_commitment(order: Sequence[int], salt: str) -> str:
    """SHA-256 (hex) of the deal order and the salt: ``"3,17,...,42:" + salt`` in UTF-8."""
    text = ",".join(str(t) for t in order) + ":" + salt
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def verify_commitment(commitment: str, order: Sequence[int], salt: str) -> bool:
    return bool(commitment) and deal_commitment(order, salt) == commitment

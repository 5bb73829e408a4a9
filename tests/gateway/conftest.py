"""The table service and the gateway as processes (``make_module_stack`` of tests/conftest.py),
shared by a module's tests: each test names its own tables. The gateway's rate limits are
raised (1000 a second) so that tests are never throttled by one another."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from gateway_helpers import GatewayStack
from okeytools.stack import Stack


@pytest.fixture(scope="module")
def stack(make_module_stack: Callable[..., Stack]) -> GatewayStack:
    env = {"OKEY_TIMEOUT_GRACE_MS": "300", "OKEY_RATE_LIMIT": "1000", "OKEY_RATE_BURST": "1000"}
    return GatewayStack(make_module_stack(("table", "gateway"), env=env, label="gateway"))

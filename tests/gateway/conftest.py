"""The table service and the gateway as processes (``make_module_stack`` of tests/conftest.py),
shared by a module's tests: each test names its own tables. The gateway's rate limits are
raised (1000 a second) so that tests are never throttled by one another. ``browser``: one
headless Chromium (Debian's, through Playwright, as test_browser.py finds them) per test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from gateway_helpers import GatewayStack
from okeytools.stack import Stack
from test_browser import ARTIFACTS, CHROMIUM_ARGS, _chromium, _playwright


@pytest.fixture(scope="module")
def stack(make_module_stack: Callable[..., Stack]) -> GatewayStack:
    env = {"OKEY_TIMEOUT_GRACE_MS": "300", "OKEY_RATE_LIMIT": "1000", "OKEY_RATE_BURST": "1000"}
    return GatewayStack(make_module_stack(("table", "gateway"), env=env, label="gateway"))


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    chromium = _chromium()
    async_playwright = _playwright()
    ARTIFACTS.mkdir(exist_ok=True)
    async with async_playwright() as pw:
        b = await pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            await b.close()

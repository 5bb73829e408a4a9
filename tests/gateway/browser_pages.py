"""A page of the web client signed in as a new guest, for the browser tests that start there."""

from __future__ import annotations

from typing import Any


async def signed_in(browser: Any, http_address: str, name: str, **context: Any) -> tuple[Any, Any, list[str]]:
    """A new Turkish context and page, signed in as guest ``name`` and at the lobby, with the page's
    uncaught errors collected. ``bypass_csp``: the page's CSP (script-src 'self') would refuse the
    injected axe-core script. ``context``: more of Playwright's context options (viewport, ...)."""
    ctx = await browser.new_context(locale="tr-TR", bypass_csp=True, **context)
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(f"http://{http_address}/")
    await page.wait_for_selector("#screen-signin:not([hidden])")
    await page.fill("#signin-name", name)
    await page.click("#signin-submit")
    await page.wait_for_selector("#screen-lobby:not([hidden])")
    return ctx, page, errors

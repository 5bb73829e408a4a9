"""The moderators' page in a real browser (issue 22.2): a player granted the moderator role (by
an admin token minted from the token secret, as ``okey admin grant`` does) signs in again and
finds the page; it shows the report with the reported message in its chat context and the
table's events; the moderator mutes one player for an hour and bans another, each with a
reason, the reports leave the open queue, the audit trail shows both, and the banned player's
token is refused. A player sees no such page, nor
does the moderator once the role is revoked (their token is refused, the next one a player's).
Debian's Chromium through Playwright, as test_browser.py. Screenshots go to artifacts/."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
from okeyplatform.auth import issue_token
from okeytools import stack as okeystack
from test_browser import ARTIFACTS, CHROMIUM_ARGS, _chromium, _playwright

TIMEOUT_MS = 15_000
ME_JS = "() => okeyApp.state.me && okeyApp.state.me.id"
LOBBY = "/api/okey.v1.LobbyService/"


def _ok(http: httpx.Client, path: str, body: dict[str, Any], token: str = "") -> dict[str, Any]:
    r = http.post(path, json=body, headers={"authorization": f"Bearer {token}"} if token else {})
    assert r.status_code == 200, (path, r.text)
    out: dict[str, Any] = r.json()
    return out


def _reported_at_a_table(
    http: httpx.Client, rude_name: str = "Huysuz", said: str = "kaybedeceksin çaylak", victim_name: str = "Mert"
) -> tuple[dict[str, Any], str, int]:
    """A rude player at a practice table says something; another player reports it, naming the
    table. Returns the rude player's sign-in, the table id and the report id."""
    rude = _ok(http, LOBBY + "SignInGuest", {"displayName": rude_name, "deviceId": f"dev-{rude_name}"})
    victim = _ok(http, LOBBY + "SignInGuest", {"displayName": victim_name, "deviceId": f"dev-{victim_name}"})
    rude_id = rude["player"]["playerId"]
    table_id = _ok(
        http,
        "/api/okey.v1.TableService/CreateTable",
        {"options": {"game": "GAME_OKEY", "matchPoints": 1}, "seats": [{"playerId": rude_id}, {}, {}, {}]},
        rude["token"],
    )["tableId"]
    sent = _ok(http, LOBBY + "SendMessage", {"text": said}, rude["token"])["message"]
    report = _ok(
        http,
        LOBBY + "ReportPlayer",
        {
            "playerId": rude_id,
            "reason": "REPORT_REASON_ABUSE",
            "details": "masada laf atıyor",
            "messageIds": [sent["messageId"]],
            "tableId": table_id,
        },
        victim["token"],
    )
    return rude, table_id, int(report["reportId"])


async def test_a_moderator_sees_a_report_bans_with_a_reason_and_sees_the_audit_entry(
    make_stack: Callable[..., okeystack.Stack],
) -> None:
    env = {"OKEY_RATE_LIMIT": "1000", "OKEY_RATE_BURST": "1000"}
    st = make_stack(("table", "lobby", "gateway"), env=env, label="staff-page", private_nats=True)
    base = f"http://{st.http_address}"
    root = issue_token("cli:test", "admin", ttl_s=300)
    async_playwright = _playwright()
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    with httpx.Client(base_url=base, timeout=10) as http:
        rude, table_id, report_id = _reported_at_a_table(http)
        loud, _, loud_report = _reported_at_a_table(http, "Sinirli", "sus artık", "Deniz")
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=_chromium(), headless=True, args=CHROMIUM_ARGS)
            try:
                ctx = await browser.new_context(viewport={"width": 1280, "height": 900}, locale="tr-TR")
                page = await ctx.new_page()
                page.on("pageerror", lambda e: errors.append(str(e)))
                await page.goto(base + "/")
                await page.wait_for_selector("#screen-signin:not([hidden])")
                await page.fill("#signin-name", "Nazlı")
                await page.click("#signin-submit")
                await page.wait_for_selector("#screen-lobby:not([hidden])")
                assert await page.is_hidden("#staff-open")  # a player has no moderators' page
                me = await page.evaluate(ME_JS)

                # Made a moderator; the next sign-in carries the role (the lobby's store says so).
                _ok(http, LOBBY + "GrantRole", {"playerId": me, "role": "moderator", "reason": "yeni"}, root)
                await page.click("#sign-out")
                await page.wait_for_selector("#signout-dialog[open]")
                await page.click("#signout-confirm")
                await page.wait_for_selector("#signin-again:not([hidden])", timeout=TIMEOUT_MS)
                await page.click("#signin-again-go")
                await page.wait_for_selector("#staff-open:not([hidden])", timeout=TIMEOUT_MS)
                await page.click("#staff-open")
                await page.wait_for_selector("#screen-staff:not([hidden])", timeout=TIMEOUT_MS)

                card = page.locator(f'.report-card[data-report-id="{report_id}"]')
                await card.wait_for(timeout=TIMEOUT_MS)
                text = await card.text_content() or ""
                assert "Huysuz" in text and "Mert" in text and "masada laf atıyor" in text, text
                assert (await card.locator(".report-chat li.reported").text_content() or "").endswith(
                    "kaybedeceksin çaylak"
                )
                await card.locator(".report-table summary").click()  # the table's events, as a spectator
                await card.locator(".report-events li", has_text="TableCreated").wait_for(timeout=TIMEOUT_MS)
                assert table_id in (await card.locator(".report-table summary").text_content() or "")

                # Mute for an hour, with a reason: the report leaves the queue, the trail has it.
                muted = page.locator(f'.report-card[data-report-id="{loud_report}"]')
                await muted.locator(".resolve-action").select_option("MUTE")
                await muted.locator(".resolve-minutes").fill("60")
                await muted.locator(".resolve-reason").fill("küfürlü sohbet")
                await muted.locator(".resolve-form button[type=submit]").click()
                await muted.wait_for(state="detached", timeout=TIMEOUT_MS)
                row = page.locator('#staff-audit tbody tr[data-action="MUTE"]')
                await row.wait_for(timeout=TIMEOUT_MS)
                cells = [c.strip() for c in await row.locator("td").all_text_contents()]
                assert cells[1] == f"{me} (moderator)" and cells[2] == "Susturuldu", cells
                assert cells[3] == loud["player"]["playerId"] and cells[4] == "küfürlü sohbet", cells
                assert f'"report_id":{loud_report}' in cells[5] and '"minutes":60' in cells[5], cells

                # Ban with a reason: none given is refused on the page, before any call.
                await card.locator(".resolve-action").select_option("BAN")
                await card.locator(".resolve-form button[type=submit]").click()
                assert "gerekçe" in (await card.locator(".error").text_content() or "").lower()
                await card.locator(".resolve-reason").fill("masada hakaret, tekrar eden")
                await page.screenshot(path=str(ARTIFACTS / "staff-page-report.png"), full_page=True)
                await card.locator(".resolve-form button[type=submit]").click()
                await page.wait_for_selector(f'.report-card[data-report-id="{report_id}"]', state="detached")
                assert "Açık şikâyet yok" in (await page.text_content("#staff-reports") or "")

                row = page.locator('#staff-audit tbody tr[data-action="BAN"]')
                await row.wait_for(timeout=TIMEOUT_MS)
                cells = [c.strip() for c in await row.locator("td").all_text_contents()]
                assert cells[1] == f"{me} (moderator)" and cells[2] == "Yasaklandı", cells
                assert cells[3] == rude["player"]["playerId"] and cells[4] == "masada hakaret, tekrar eden", cells
                assert f'"report_id":{report_id}' in cells[5], cells
                granted = page.locator('#staff-audit tbody tr[data-action="GRANT_ROLE"]')
                assert "cli:test (admin)" in (await granted.text_content() or "")
                await page.check("#staff-all")  # the resolved report is there, with its outcome
                resolved = page.locator(f'.report-card.resolved[data-report-id="{report_id}"]')
                await resolved.wait_for(timeout=TIMEOUT_MS)
                assert "Yasakla" in (await resolved.locator(".report-resolved").text_content() or "")
                await page.screenshot(path=str(ARTIFACTS / "staff-page-audit.png"), full_page=True)

                # The role taken away: the page learns it from its notifications stream (which the
                # revocation ends) or from its next call, whichever comes first; the session's next
                # token is a player's, and the page goes back to the lobby without the link.
                _ok(http, LOBBY + "RevokeRole", {"playerId": me, "reason": "görev bitti"}, root)
                await page.evaluate(
                    "() => { const b = document.querySelector('#staff-refresh'); if (b && b.offsetParent) b.click(); }"
                )
                await page.wait_for_selector("#screen-lobby:not([hidden])", timeout=TIMEOUT_MS)
                assert await page.is_hidden("#staff-open")
                assert await page.evaluate("() => JSON.parse(atob(okeyApp.state.token.split('.')[1])).role") == "player"
            finally:
                await browser.close()

        # The ban took effect: the rude player's token is refused (the revocation travels by NATS).
        deadline = time.monotonic() + 10
        while True:
            r = http.post(LOBBY + "GetChips", json={}, headers={"authorization": f"Bearer {rude['token']}"})
            if r.status_code == 401 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert r.status_code == 401, r.text
    assert not errors, errors

"""Staff roles (issue 22.1) on the lobby's use cases over a real PostgreSQL, with the real clock
(a revocation cuts tokens by the time they were issued): a role granted reaches the token at
sign-in and refresh; a moderator works the report queue and bans, but grants no roles and moves
no chips; a role taken away ends every token carrying it at once; chips adjustments are ledger
postings against the bank; every staff action is in the audit log."""

from __future__ import annotations

import pytest
from lobby_helpers import FakeTables
from okeyplatform.auth import PERMISSIONS, Identity, TokenError, can, is_staff, verify_token

from services.lobby.app import LobbyApp
from services.lobby.errors import Forbidden, Invalid, NotFound, Refused
from services.lobby.players import SignedIn
from services.lobby.store import LobbyStore

ROOT = Identity("cli:test", "admin")  # what `okey admin` mints from the token secret


@pytest.fixture
def app(lobby_store: LobbyStore, fake_tables: FakeTables) -> LobbyApp:
    return LobbyApp(lobby_store, fake_tables)  # the real clock


async def _again(app: LobbyApp, s: SignedIn) -> Identity:
    """Sign the same account in again (its device credential) and read the new token."""
    return verify_token((await app.sign_in("", "", device_secret=s.device_secret)).token)


def test_what_each_staff_role_may_do_is_one_table() -> None:
    mod, admin, player = Identity("m", "moderator"), Identity("a", "admin"), Identity("p", "player")
    assert PERMISSIONS["moderator"] < PERMISSIONS["admin"]
    assert can(mod, "reports.resolve") and can(mod, "players.sanction") and can(mod, "audit.read")
    assert not can(mod, "roles.grant") and not can(mod, "chips.adjust")
    assert can(admin, "roles.grant") and can(admin, "chips.adjust")
    assert not any(can(player, a) for a in PERMISSIONS["admin"])
    assert not can(Identity("lobby", "service"), "reports.read")
    assert is_staff(mod) and is_staff(admin) and not is_staff(player)
    with pytest.raises(ValueError):
        can(admin, "reports.raed")  # a typo is a bug, not a refusal


async def test_a_granted_moderator_gets_the_role_in_the_token_and_works_the_queue(app: LobbyApp) -> None:
    mod_s = await app.sign_in("Ibrahim", "dev-mod")
    victim = verify_token((await app.sign_in("Kurban", "dev-v")).token)
    offender = verify_token((await app.sign_in("Kaba", "dev-o")).token)
    assert verify_token(mod_s.token).role == "player"

    await app.grant_role(ROOT, mod_s.player.player_id, "moderator", "yeni görevli")
    mod = await _again(app, mod_s)
    assert mod.role == "moderator"
    assert verify_token((await app.refresh_session(mod_s.session.refresh_token)).token).role == "moderator"
    assert (await app.profile(mod, "")).staff_role == "moderator"
    assert (await app.profile(victim, mod.subject)).staff_role == ""  # nobody else's to see

    msg = await app.send_message(offender, "", "selam")
    report_id = await app.report(victim, offender.subject, "ABUSE", "tehdit", [msg.message_id], "")
    [(report, context, _)] = await app.reports(mod, False, 50)
    assert report.report_id == report_id and [m.text for m in context] == ["selam"]
    resolved, _, _ = await app.resolve_report(mod, report_id, "BAN", 60, "tehdit etti")
    assert resolved.status == "RESOLVED" and resolved.resolved_by == mod.subject
    with pytest.raises(TokenError):  # the ban ended the offender's tokens at once
        _revoked(offender)

    # A moderator grants no roles and moves no chips; a player does neither, nor reads the queue.
    for call in (
        app.grant_role(mod, victim.subject, "moderator", ""),
        app.adjust_chips(mod, victim.subject, 100, "hediye"),
        app.staff(mod),
    ):
        with pytest.raises(Forbidden) as denied:
            await call
        assert denied.value.reason == "ADMIN_ONLY"
    with pytest.raises(Forbidden) as denied:
        await app.reports(victim, False, 50)
    assert denied.value.reason == "STAFF_ONLY"

    log = await app.audit_log(mod, 50)
    assert [(a.action, a.target_id, a.actor_id) for a in log] == [
        ("BAN", offender.subject, mod.subject),
        ("GRANT_ROLE", mod.subject, ROOT.subject),
    ]
    assert log[0].reason == "tehdit etti" and log[0].detail == {"report_id": report_id, "minutes": 60}
    assert log[0].actor_role == "moderator" and log[1].detail == {"role": "moderator", "before": ""}
    assert [a.action for a in await app.audit_log(mod, 50, offender.subject)] == ["BAN"]


def _revoked(who: Identity) -> None:
    """Raise TokenError when ``who``'s token (as issued) is refused now."""
    from okeyplatform.auth import _not_revoked

    _not_revoked(who.subject, who.issued_at)


async def test_a_revoked_role_ends_the_tokens_that_carry_it_and_a_refresh_is_a_players(app: LobbyApp) -> None:
    s = await app.sign_in("Eski Dost", "dev-x")
    await app.grant_role(ROOT, s.player.player_id, "admin", "")
    admin_s = await app.sign_in("", "", device_secret=s.device_secret)
    admin = verify_token(admin_s.token)
    assert admin.role == "admin" and await app.staff(admin)

    assert await app.revoke_role(ROOT, admin.subject, "görevi bitti") == "admin"
    with pytest.raises(TokenError, match="revoked"):  # within the token's lifetime, not after it
        verify_token(admin_s.token)
    with pytest.raises(TokenError):
        _revoked(admin)
    # The session goes on: its refresh carries the role the store gives now (none).
    nxt = verify_token((await app.refresh_session(admin_s.session.refresh_token)).token)
    assert nxt.role == "player"
    with pytest.raises(Forbidden):
        await app.audit_log(nxt, 10)
    with pytest.raises(Refused) as again:
        await app.revoke_role(ROOT, admin.subject, "")
    assert again.value.reason == "NOT_STAFF"
    assert [a.action for a in await app.audit_log(ROOT, 10, admin.subject)] == ["REVOKE_ROLE", "GRANT_ROLE"]

    # Lowering an admin to moderator ends the admin tokens too.
    await app.grant_role(ROOT, admin.subject, "admin", "")
    high_s = await app.sign_in("", "", device_secret=s.device_secret)
    await app.grant_role(ROOT, admin.subject, "moderator", "yetki azaltıldı")
    with pytest.raises(TokenError):
        verify_token(high_s.token)
    assert (await _again(app, s)).role == "moderator"


async def test_chips_adjustments_are_ledger_postings_against_the_bank(app: LobbyApp, lobby_store: LobbyStore) -> None:
    s = await app.sign_in("Jetonlu", "dev-c")
    who = verify_token(s.token)
    balance, _ = await app.chips(who, 1)
    async with lobby_store.unit() as uow:
        bank_before = (await uow.ledger.balances(["bank"]))["bank"]

    assert await app.adjust_chips(ROOT, who.subject, 250, "turnuva ödülü") == balance + 250
    assert await app.adjust_chips(ROOT, who.subject, -50, "hatalı ödeme") == balance + 200
    _, entries = await app.chips(who, 5)
    assert [(e.kind, e.amount) for e in entries[:2]] == [("adjustment", -50), ("adjustment", 250)]
    async with lobby_store.unit() as uow:
        assert (await uow.ledger.balances(["bank"]))["bank"] == bank_before - 200

    with pytest.raises(Refused) as short:  # never below zero: the ledger refuses, nothing is written
        await app.adjust_chips(ROOT, who.subject, -(balance + 201), "fazla")
    assert short.value.reason == "INSUFFICIENT_CHIPS"
    with pytest.raises(Invalid) as why:
        await app.adjust_chips(ROOT, who.subject, 10, "  ")
    assert why.value.reason == "REASON_REQUIRED"
    with pytest.raises(Invalid):
        await app.adjust_chips(ROOT, who.subject, 0, "sıfır")
    [a, b] = await app.audit_log(ROOT, 10, who.subject)
    assert (a.action, a.detail["amount"], a.reason) == ("ADJUST_CHIPS", -50, "hatalı ödeme")
    assert b.detail["amount"] == 250 and b.detail["txn"].startswith("adjust:")


async def test_a_direct_ban_and_unban_are_audited_and_take_effect(app: LobbyApp) -> None:
    mod_s = await app.sign_in("Nilufer", "dev-n")
    await app.grant_role(ROOT, mod_s.player.player_id, "moderator", "")
    mod = await _again(app, mod_s)
    s = await app.sign_in("Hileci", "dev-h")
    target = verify_token(s.token)

    with pytest.raises(Invalid) as why:
        await app.ban(mod, target.subject, 0, "")
    assert why.value.reason == "REASON_REQUIRED"
    await app.ban(mod, target.subject, 0, "ikinci hesapla anlaşmalı oyun")
    with pytest.raises(TokenError):
        verify_token(s.token)
    with pytest.raises(Forbidden) as banned:
        await app.sign_in("", "", device_secret=s.device_secret)
    assert banned.value.reason == "BANNED"

    await app.unban(mod, target.subject, "itiraz haklı çıktı")
    assert verify_token((await app.sign_in("", "", device_secret=s.device_secret)).token).role == "player"
    with pytest.raises(Refused) as not_banned:
        await app.unban(mod, target.subject, "yine")
    assert not_banned.value.reason == "NOT_BANNED"
    log = await app.audit_log(mod, 10, target.subject)
    assert [(a.action, a.reason) for a in log] == [
        ("UNBAN", "itiraz haklı çıktı"),
        ("BAN", "ikinci hesapla anlaşmalı oyun"),
    ]


async def test_a_grant_names_a_staff_role_and_a_player_the_lobby_knows(app: LobbyApp) -> None:
    s = await app.sign_in("Adayoyuncu", "dev-a")
    with pytest.raises(Invalid):
        await app.grant_role(ROOT, s.player.player_id, "player", "")  # not a staff role
    with pytest.raises(Invalid):
        await app.grant_role(ROOT, s.player.player_id, "service", "")
    with pytest.raises(NotFound) as missing:
        await app.grant_role(ROOT, "p-nobody", "moderator", "")
    assert missing.value.reason == "PLAYER_NOT_FOUND"
    assert await app.staff(ROOT) == []
    assert await app.audit_log(ROOT, 10) == []  # nothing done, nothing written
    assert verify_token((await app.sign_in("", "", device_secret=s.device_secret)).token).role == "player"


async def _staff_member(app: LobbyApp, name: str, role: str) -> Identity:
    s = await app.sign_in(name, f"dev-{name}")
    await app.grant_role(ROOT, s.player.player_id, role, "")
    return await _again(app, s)


def test_rank_puts_the_token_secret_s_holder_above_every_admin() -> None:
    from services.lobby.staff import rank

    ranks = [rank(Identity(s, r)) for s, r in (("p-1", "player"), ("p-2", "moderator"), ("p-3", "admin"))]
    assert ranks == sorted(ranks) and len(set(ranks)) == 3
    assert rank(ROOT) > rank(Identity("p-3", "admin"))
    assert rank(Identity("cli:x", "moderator")) == rank(Identity("p-2", "moderator"))  # only an admin token
    assert rank(Identity("lobby", "service")) == 0


async def test_staff_sanction_only_staff_below_them_and_refusals_are_audited(app: LobbyApp) -> None:
    admin, admin2 = await _staff_member(app, "Ayse", "admin"), await _staff_member(app, "Fatma", "admin")
    mod, mod2 = await _staff_member(app, "Mehmet", "moderator"), await _staff_member(app, "Ali", "moderator")
    player = verify_token((await app.sign_in("Oyuncu", "dev-p")).token)

    async def outranked(call: object) -> None:
        with pytest.raises(Forbidden) as denied:
            await call  # type: ignore[misc]
        assert denied.value.reason == "OUTRANKED"

    # A moderator on an admin or a moderator; an admin on an admin: refused, nothing done.
    await outranked(app.ban(mod, admin.subject, 0, "darbe"))
    await outranked(app.ban(mod, mod2.subject, 0, "x"))
    await outranked(app.ban(admin, admin2.subject, 0, "x"))
    await outranked(app.unban(mod, mod2.subject, "x"))
    _revoked(admin)  # the admin's token still works
    report_id = await app.report(player, admin.subject, "ABUSE", "", [], "")
    for action, minutes in (("BAN", 0), ("MUTE", 30), ("WARN", 0), ("DISMISS", 0)):
        await outranked(app.resolve_report(mod, report_id, action, minutes, "x"))
    [(still, _, _)] = await app.reports(mod, False, 50)
    assert still.report_id == report_id and still.status == "OPEN"
    profile = (await app.profile(ROOT, admin.subject)).player
    assert profile.banned_until is None and profile.muted_until is None and profile.warnings == 0
    # Roles: an admin gives or takes only the moderator's; the operator any.
    await outranked(app.grant_role(admin, player.subject, "admin", "x"))
    await outranked(app.grant_role(admin, admin2.subject, "moderator", "x"))
    await outranked(app.revoke_role(admin, admin2.subject, "x"))
    await app.grant_role(admin, player.subject, "moderator", "yardımcı")
    assert await app.revoke_role(admin, player.subject, "bitti") == "moderator"

    refused = [a for a in await app.audit_log(ROOT, 100) if a.action == "REFUSED"]
    assert len(refused) == 11
    ban = refused[-1]
    assert (ban.actor_id, ban.actor_role, ban.reason) == (mod.subject, "moderator", "darbe")
    assert ban.target_id == admin.subject
    assert ban.detail == {"attempted": "BAN", "target_role": "admin", "refusal": "OUTRANKED", "minutes": 0}
    grant = refused[2]
    assert grant.detail["attempted"] == "GRANT_ROLE" and grant.detail["role"] == "admin"

    # Above them: an admin sanctions a moderator, the operator an admin.
    await app.ban(admin, mod2.subject, 60, "yetki kötüye")
    await app.unban(admin, mod2.subject, "itiraz")
    await app.resolve_report(ROOT, report_id, "WARN", 0, "uyarı")
    await app.ban(ROOT, admin2.subject, 0, "devir")
    await app.unban(ROOT, admin2.subject, "geri")
    assert await app.revoke_role(ROOT, admin2.subject, "bitti") == "admin"


async def test_39_5_an_admin_moves_no_chips_of_an_admin_nor_their_own(app: LobbyApp) -> None:
    """Chips are a sanction too: staff of the caller's rank (the caller included) are out of reach,
    the refusal is audited and nothing is posted; an admin adjusts a moderator's, the operator an
    admin's."""
    admin, admin2 = await _staff_member(app, "Selin", "admin"), await _staff_member(app, "Derya", "admin")
    mod = await _staff_member(app, "Kerem", "moderator")
    before = {x.subject: (await app.chips(x, 1))[0] for x in (admin, admin2, mod)}
    for target, amount in ((admin2.subject, -100), (admin.subject, 1_000_000)):
        with pytest.raises(Forbidden) as denied:
            await app.adjust_chips(admin, target, amount, "kendime")
        assert denied.value.reason == "OUTRANKED"
    assert {x.subject: (await app.chips(x, 1))[0] for x in (admin, admin2)} == {
        admin.subject: before[admin.subject],
        admin2.subject: before[admin2.subject],
    }
    refused = [a for a in await app.audit_log(ROOT, 100) if a.action == "REFUSED"]
    assert [(a.target_id, a.detail["attempted"], a.detail["amount"]) for a in refused[:2]] == [
        (admin.subject, "ADJUST_CHIPS", 1_000_000),
        (admin2.subject, "ADJUST_CHIPS", -100),
    ]
    assert await app.adjust_chips(admin, mod.subject, 50, "ödül") == before[mod.subject] + 50
    assert await app.adjust_chips(ROOT, admin2.subject, 10, "düzeltme") == before[admin2.subject] + 10

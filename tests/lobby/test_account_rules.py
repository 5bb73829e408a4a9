"""Accounts a thief cannot keep (issue 39.1-39.4), on the lobby's use cases over a real
PostgreSQL with the lobby's clock moved by the test: every way in ends together (sign-out
everywhere, a refresh reuse, a password change), sensitive changes need a recent proof, an
unlinked device's tokens are revoked, devices page, and failed logins lock neither the owner's
known addresses nor tell which e-mails have accounts. tests/resilience/test_account_takeover.py
plays the attacks through the public gateway on the whole stack."""

from __future__ import annotations

import pytest
from lobby_helpers import Clock, proven
from okeyplatform.auth import Identity, device_key, verify_token

from services.lobby.app import LobbyApp
from services.lobby.errors import Flood, Forbidden, Invalid, Refused, Unauthenticated
from services.lobby.players import SignedIn

PASSWORD = "kirmizi-yedi-okey"


def _who(token: str) -> Identity:
    return verify_token(token)


async def _device_signs_in(app: LobbyApp, s: SignedIn) -> bool:
    try:
        await app.sign_in("", "", device_secret=s.device_secret)
    except Unauthenticated as e:
        assert e.reason == "DEVICE_UNKNOWN"
        return False
    return True


async def test_39_2_sensitive_changes_need_a_recent_proof_not_a_bearer_token(app: LobbyApp, clock: Clock) -> None:
    s = await app.sign_in("Kanitli", "d")
    refreshed = await app.refresh_session(s.session.refresh_token)
    # Neither a session's access token (stolen) nor a refreshed one (a stolen refresh token) carries a proof.
    thief = _who(refreshed.token)
    assert thief.authenticated_at == 0 and _who(s.token).authenticated_at == 0
    calls = {
        "LinkEmail": lambda w: app.link_email(w, "hirsiz@example.com", PASSWORD),
        "UnlinkEmail": lambda w: app.unlink_email(w),
        "CreateLinkCode": lambda w: app.create_link_code(w),
        "UnlinkDevice": lambda w: app.unlink_device(w, s.device_ref),
        "SignOutEverywhere": lambda w: app.sign_out_everywhere(w),
        "DeleteAccount": lambda w: app.delete_account(w, "Kanitli"),
    }
    for who in (thief, _who(s.token)):
        for name, call in calls.items():
            with pytest.raises(Refused) as refused:
                await call(who)
            assert refused.value.reason == "REAUTH_REQUIRED", name
    # Reauthenticate with this device's credential: a short-lived token that carries the proof,
    # for this device; it holds for five minutes, then a new one is needed.
    owner = _who(await app.reauthenticate(thief, s.device_secret, ""))
    assert owner.credential == s.device_ref and owner.authenticated_at == clock.now.timestamp()
    assert owner.expires_at - owner.issued_at <= 300
    await app.create_link_code(owner)
    clock.advance(minutes=5, seconds=1)
    with pytest.raises(Refused) as stale:
        await app.create_link_code(owner)
    assert stale.value.reason == "REAUTH_REQUIRED"
    owner = await proven(app, s)
    await app.link_email(owner, "kanitli@example.com", PASSWORD)
    # Another device's credential proves nothing for this one; no proof at all is invalid.
    other = await app.sign_in_link_code((await app.create_link_code(owner))[0])
    with pytest.raises(Unauthenticated) as foreign:
        await app.reauthenticate(thief, other.device_secret, "")
    assert foreign.value.reason == "PROOF_FAILED"
    stranger = await app.sign_in("Yabanci", "x")
    with pytest.raises(Unauthenticated) as not_mine:
        await app.reauthenticate(thief, stranger.device_secret, "")
    assert not_mine.value.reason == "PROOF_FAILED"
    with pytest.raises(Invalid):
        await app.reauthenticate(thief, "", "")
    # The password proves it too; a wrong one is a failed login.
    with pytest.raises(Unauthenticated) as wrong:
        await app.reauthenticate(thief, "", "yanlis-sifre-bu")
    assert wrong.value.reason == "LOGIN_FAILED"
    assert _who(await app.reauthenticate(thief, "", PASSWORD)).authenticated_at == clock.now.timestamp()


async def test_39_2_the_owner_removes_an_email_login(app: LobbyApp) -> None:
    s = await app.sign_in("Epostasiz", "d")
    who = await proven(app, s)
    await app.link_email(who, "birakilan@example.com", PASSWORD)
    await app.unlink_email(who)
    with pytest.raises(Unauthenticated) as gone:
        await app.sign_in_email("birakilan@example.com", PASSWORD)
    assert gone.value.reason == "LOGIN_FAILED"
    with pytest.raises(Refused) as none:
        await app.unlink_email(who)
    assert none.value.reason == "NOT_LINKED"
    await app.link_email(who, "yeni@example.com", PASSWORD)  # and links another
    assert (await app.devices(who))[1] == "yeni@example.com"


async def test_39_1_sign_out_everywhere_ends_every_way_in_but_this_device(app: LobbyApp) -> None:
    s = await app.sign_in("Herkes Cikar", "d")
    owner = await proven(app, s)
    second = await app.sign_in_link_code((await app.create_link_code(owner))[0])
    third = await app.sign_in_link_code((await app.create_link_code(owner))[0])
    pending, _ = await app.create_link_code(owner)
    fresh = await app.sign_out_everywhere(owner)
    assert not await _device_signs_in(app, second) and not await _device_signs_in(app, third)
    assert await _device_signs_in(app, s)  # the device the owner asked from stays
    for ended in (s.session, second.session, third.session):
        with pytest.raises(Unauthenticated):
            await app.refresh_session(ended.refresh_token)
    with pytest.raises(Unauthenticated):
        await app.sign_in_link_code(pending)
    assert owner.subject in dict(await app.revocations())  # every service refuses the old tokens
    assert await app.refresh_session(fresh.refresh_token)  # the caller's new session works
    assert _who(fresh.token).credential == s.device_ref
    devices, _, _ = await app.devices(owner)
    assert [d.device_ref for d in devices] == [s.device_ref]


async def test_39_1_a_reused_refresh_token_ends_the_devices_linked_since_that_session_began(
    app: LobbyApp, clock: Clock
) -> None:
    older = await app.sign_in("Calinan", "d")  # a device linked before the stolen session
    s = await app.sign_in("", "", device_secret=older.device_secret)
    clock.advance(seconds=30)
    # The thief refreshes the stolen token; a device is linked since that session began (as a
    # thief who got hold of a proof could).
    stolen = await app.refresh_session(s.session.refresh_token)
    thief = _who(stolen.token)
    thief_device = await app.sign_in_link_code((await app.create_link_code(await proven(app, s)))[0])
    clock.advance(seconds=30)
    # The owner's tab uses the same refresh token: a reuse.
    with pytest.raises(Unauthenticated) as reused:
        await app.refresh_session(s.session.refresh_token)
    assert reused.value.reason == "REFRESH_REUSED"
    assert not await _device_signs_in(app, thief_device)
    assert await _device_signs_in(app, s)  # the session's own device (its credential was not in it)
    with pytest.raises(Unauthenticated):
        await app.refresh_session(stolen.refresh_token)
    with pytest.raises(Unauthenticated):
        await app.refresh_session(thief_device.session.refresh_token)
    assert thief.subject in dict(await app.revocations())


async def test_39_3_a_password_change_ends_a_device_a_phished_password_opened(app: LobbyApp) -> None:
    s = await app.sign_in("Oltali", "d")
    owner = await proven(app, s)
    await app.link_email(owner, "oltali@example.com", PASSWORD)
    phished = await app.sign_in_email("oltali@example.com", PASSWORD, "10.9.9.9")
    fresh = await app.change_password(owner, PASSWORD, "yepyeni-bir-sifre")
    assert not await _device_signs_in(app, phished)
    assert await _device_signs_in(app, s)
    assert _who(fresh.token).credential == s.device_ref
    with pytest.raises(Unauthenticated):
        await app.refresh_session(phished.session.refresh_token)


async def test_39_4_an_unlinked_device_is_revoked_everywhere_and_devices_page(app: LobbyApp, clock: Clock) -> None:
    s = await app.sign_in("Cok Cihaz", "d")
    owner = await proven(app, s)
    other = await app.sign_in_link_code((await app.create_link_code(owner))[0])
    assert _who(other.token).credential == other.device_ref
    await app.unlink_device(owner, other.device_ref)
    revoked = dict(await app.revocations())
    assert device_key(owner.subject, other.device_ref) in revoked  # its tokens, at every service
    assert owner.subject not in revoked  # the owner's own tokens go on
    # 120 more devices: paging reaches each once, newest use first.
    for _ in range(120):
        clock.advance(seconds=1)
        await app.sign_in_link_code((await app.create_link_code(owner))[0])
        owner = await proven(app, s)
    clock.advance(seconds=1)
    await app.sign_in("", "", device_secret=s.device_secret)  # this device used last
    seen: list[str] = []
    token = ""
    pages = 0
    while True:
        page, _, token = await app.devices(owner, 50, token)
        seen += [d.device_ref for d in page]
        pages += 1
        if not token:
            break
    assert pages == 3 and len(seen) == 121 == len(set(seen))
    assert seen[0] == s.device_ref  # used last
    with pytest.raises(Invalid):
        await app.devices(owner, 201)
    with pytest.raises(Invalid):
        await app.devices(owner, 10, "not a token")


async def test_39_5_strangers_cannot_lock_the_owner_out_nor_tell_a_known_email(app: LobbyApp, clock: Clock) -> None:
    s = await app.sign_in("Kilitsiz", "d")
    await app.link_email(await proven(app, s), "kilitsiz@example.com", PASSWORD)
    home = "198.51.100.7"
    assert (await app.sign_in_email("kilitsiz@example.com", PASSWORD, home)).returning  # a known address now

    async def attempt(email: str, address: str) -> str:
        try:
            await app.sign_in_email(email, "yanlis-sifre-1", address)
        except (Unauthenticated, Flood) as e:
            return e.reason
        return "OK"

    # Strangers at 30 addresses, 5 wrong passwords each, for the known and for an unknown e-mail:
    # the same answers, in the same order.
    known: list[str] = []
    unknown: list[str] = []
    for i in range(30):
        for _ in range(6):
            known.append(await attempt("kilitsiz@example.com", f"203.0.113.{i}"))
            unknown.append(await attempt("kimse-yok@example.com", f"203.0.113.{i}"))
    assert known == unknown
    assert known[:5] == ["LOGIN_FAILED"] * 5 and known[5] == "LOGIN_LOCKED"  # per e-mail and address
    assert "LOGIN_LOCKED" in known[6:12] and known[-1] == "LOGIN_LOCKED"  # over 20: locked for strangers
    # The owner, at home, is not locked out.
    assert (await app.sign_in_email("kilitsiz@example.com", PASSWORD, home)).returning
    # A new address of the owner's is, for now (the device credential still signs in).
    with pytest.raises(Flood):
        await app.sign_in_email("kilitsiz@example.com", PASSWORD, "192.0.2.55")
    assert await _device_signs_in(app, s)
    # One address guessing across many e-mails is locked per address.
    flood = [await attempt(f"x{i}@example.com", "192.0.2.99") for i in range(60)]
    assert flood[:50] == ["LOGIN_FAILED"] * 50 and set(flood[50:]) == {"LOGIN_LOCKED"}
    # An hour on, the counts are over and the stranger's address may try again.
    clock.advance(hours=2)
    assert await attempt("kilitsiz@example.com", "192.0.2.55") == "LOGIN_FAILED"


async def test_39_1_a_ban_ends_every_session_and_code_and_no_device_signs_in_while_it_lasts(
    app: LobbyApp, clock: Clock
) -> None:
    operator = Identity("cli:test", "admin")
    s = await app.sign_in("Cezali", "d-cezali")
    owner = await proven(app, s)
    other = await app.sign_in_link_code((await app.create_link_code(owner))[0])
    pending, _ = await app.create_link_code(owner)
    await app.ban(operator, s.player.player_id, 60, "küfür")
    for session in (s.session, other.session):
        with pytest.raises(Unauthenticated):
            await app.refresh_session(session.refresh_token)
    assert s.player.player_id in dict(await app.revocations())
    with pytest.raises(Unauthenticated):  # the code made before the ban is gone with it
        await app.sign_in_link_code(pending)
    for device in (s, other):  # nothing signs in while the ban lasts...
        with pytest.raises(Forbidden):
            await app.sign_in("", "", device_secret=device.device_secret)
    clock.advance(minutes=61)
    assert await _device_signs_in(app, s) and await _device_signs_in(app, other)  # ...and the owner is back after

    # A ban for good, then an upheld appeal: the devices sign the owner in again.
    await app.ban(operator, s.player.player_id, 0, "tekrar")
    with pytest.raises(Forbidden):
        await app.sign_in("", "", device_secret=s.device_secret)
    await app.unban(operator, s.player.player_id, "itiraz kabul")
    assert await _device_signs_in(app, s)

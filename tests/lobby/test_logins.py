"""Linked logins (issue 19.3) on the lobby's use cases over a real PostgreSQL, the lobby's clock
moved by the test: an e-mail and password open the account on another device, passwords follow
OWASP (length, common, personal; argon2id; the same answer for an unknown e-mail; a lockout with
backoff), a password change ends every session, a link code works once and expires, and a
device can be listed and unlinked."""

from __future__ import annotations

import pytest
from lobby_helpers import Clock, proven
from okeyplatform.auth import verify_token

from services.lobby.app import LobbyApp
from services.lobby.errors import Exists, Flood, Invalid, Refused, Unauthenticated

PASSWORD = "kirmizi-yedi-okey"


async def test_an_email_and_password_open_the_account_on_another_device(app: LobbyApp, clock: Clock) -> None:
    first = await app.sign_in("Iki Cihaz", "phone")
    who = await proven(app, first)
    await app.link_email(who, "  Iki.Cihaz@Example.COM ", PASSWORD)
    stored = await app.store.pool.fetchval("SELECT password_hash FROM lobby_logins")
    assert stored.startswith("$argon2id$") and PASSWORD not in stored

    other = await app.sign_in_email("iki.cihaz@example.com", PASSWORD)  # any case
    assert other.player.player_id == first.player.player_id and other.returning
    assert other.device_secret != first.device_secret and other.device_ref != first.device_ref
    devices, email, more = await app.devices(who)
    assert more == ""  # one page
    assert {d.device_ref for d in devices} == {first.device_ref, other.device_ref}
    assert email == "Iki.Cihaz@Example.COM"

    # Unlinking the first device: its credential and its sessions end; the other goes on.
    await app.unlink_device(await proven(app, other), first.device_ref)
    with pytest.raises(Unauthenticated) as gone:
        await app.sign_in("", "", device_secret=first.device_secret)
    assert gone.value.reason == "DEVICE_UNKNOWN"
    with pytest.raises(Unauthenticated) as ended:
        await app.refresh_session(first.session.refresh_token)
    assert ended.value.reason == "REFRESH_INVALID"
    assert await app.refresh_session(other.session.refresh_token)
    with pytest.raises(Invalid) as nope:
        await app.unlink_device(who, "d-0000000000000000")
    assert nope.value.reason == "DEVICE_NOT_FOUND"


@pytest.mark.parametrize(
    ("password", "why"),
    [
        ("kisa1", "length"),
        ("x" * 129, "length"),
        ("Galatasaray", "common"),
        ("password123", "common"),
        ("Sifreci1", "personal"),
    ],
)
async def test_weak_passwords_are_refused_with_why(app: LobbyApp, password: str, why: str) -> None:
    s = await app.sign_in("Sifreci", "d")
    with pytest.raises(Invalid) as weak:
        await app.link_email(await proven(app, s), "s@example.com", password)
    assert weak.value.reason == "WEAK_PASSWORD" and weak.value.metadata["why"] == why


async def test_an_email_links_once_and_to_one_account(app: LobbyApp) -> None:
    a, b = await app.sign_in("Birinci", "d1"), await app.sign_in("Ikinci", "d2")
    pa, pb = await proven(app, a), await proven(app, b)
    await app.link_email(pa, "ortak@example.com", PASSWORD)
    with pytest.raises(Exists) as taken:
        await app.link_email(pb, "ORTAK@example.com", PASSWORD)
    assert taken.value.reason == "EMAIL_TAKEN"
    with pytest.raises(Refused) as again:
        await app.link_email(pa, "baska@example.com", PASSWORD)
    assert again.value.reason == "ALREADY_LINKED"
    for bad in ("not-an-email", "a@b", "two@@example.com", "space @example.com"):
        with pytest.raises(Invalid) as invalid:
            await app.link_email(pb, bad, PASSWORD)
        assert invalid.value.reason == "INVALID_EMAIL"


async def test_wrong_passwords_lock_the_login_with_backoff(app: LobbyApp, clock: Clock) -> None:
    s = await app.sign_in("Kilitli", "d")
    await app.link_email(await proven(app, s), "kilit@example.com", PASSWORD)
    for _ in range(5):
        with pytest.raises(Unauthenticated) as unknown:
            await app.sign_in_email("kimse@example.com", PASSWORD)
        with pytest.raises(Unauthenticated) as wrong:
            await app.sign_in_email("kilit@example.com", "yanlis-sifre")
        assert wrong.value.reason == "LOGIN_FAILED"
        assert wrong.value.message == unknown.value.message  # nothing tells the e-mail is known
    with pytest.raises(Flood) as locked:  # even the right password, while locked
        await app.sign_in_email("kilit@example.com", PASSWORD)
    assert locked.value.reason == "LOGIN_LOCKED" and int(locked.value.metadata["retry_after_s"]) <= 61
    with pytest.raises(Flood) as locked_too:  # an unknown e-mail locks the same: no oracle
        await app.sign_in_email("kimse@example.com", PASSWORD)
    assert locked_too.value.reason == "LOGIN_LOCKED"
    assert locked_too.value.metadata == locked.value.metadata
    clock.advance(seconds=61)
    with pytest.raises(Unauthenticated):  # the sixth failure locks for 2 minutes
        await app.sign_in_email("kilit@example.com", "yanlis-sifre")
    clock.advance(seconds=60)
    with pytest.raises(Flood):
        await app.sign_in_email("kilit@example.com", PASSWORD)
    clock.advance(seconds=61)
    assert (await app.sign_in_email("kilit@example.com", PASSWORD)).player.player_id == s.player.player_id
    with pytest.raises(Unauthenticated):  # the count started again: one failure does not lock
        await app.sign_in_email("kilit@example.com", "yanlis-sifre")
    assert (await app.sign_in_email("kilit@example.com", PASSWORD)).returning


async def test_a_password_change_ends_every_session(app: LobbyApp) -> None:
    s = await app.sign_in("Degistiren", "d")
    who = await proven(app, s)
    await app.link_email(who, "degis@example.com", PASSWORD)
    elsewhere = await app.sign_in_email("degis@example.com", PASSWORD)
    with pytest.raises(Unauthenticated) as wrong:
        await app.change_password(who, "not-the-password", "yepyeni-bir-sifre")
    assert wrong.value.reason == "LOGIN_FAILED"
    fresh = await app.change_password(who, PASSWORD, "yepyeni-bir-sifre")
    for old in (s.session.refresh_token, elsewhere.session.refresh_token):
        with pytest.raises(Unauthenticated) as ended:
            await app.refresh_session(old)
        assert ended.value.reason == "REFRESH_INVALID"
    assert await app.refresh_session(fresh.refresh_token)
    with pytest.raises(Unauthenticated) as device_gone:  # and the other device's credential
        await app.sign_in("", "", device_secret=elsewhere.device_secret)
    assert device_gone.value.reason == "DEVICE_UNKNOWN"
    revoked = dict(await app.revocations())
    assert who.subject in revoked  # every service refuses the old access tokens
    with pytest.raises(Unauthenticated):
        await app.sign_in_email("degis@example.com", PASSWORD)
    assert (await app.sign_in_email("degis@example.com", "yepyeni-bir-sifre")).returning


async def test_a_link_code_works_once_and_expires(app: LobbyApp, clock: Clock) -> None:
    s = await app.sign_in("Kodlu", "d")
    who = await proven(app, s)
    code, expires = await app.create_link_code(who)
    assert len(code) == 11 and code[5] == "-" and (expires - clock.now).total_seconds() == 600
    used = await app.sign_in_link_code(code.lower().replace("-", " "))  # as people type it
    assert used.player.player_id == s.player.player_id and used.device_ref != s.device_ref
    with pytest.raises(Unauthenticated) as twice:
        await app.sign_in_link_code(code)
    assert twice.value.reason == "LINK_CODE_INVALID"

    late, _ = await app.create_link_code(who)
    clock.advance(minutes=10, seconds=1)
    with pytest.raises(Unauthenticated) as expired:
        await app.sign_in_link_code(late)
    assert expired.value.reason == "LINK_CODE_INVALID"

    # The sign-in's proof is old now: a code needs a new one (this device's credential).
    with pytest.raises(Refused) as stale:
        await app.create_link_code(who)
    assert stale.value.reason == "REAUTH_REQUIRED"
    who = verify_token(await app.reauthenticate(who, s.device_secret, ""))

    replaced, _ = await app.create_link_code(who)
    newer, _ = await app.create_link_code(who)  # a new code replaces the last
    with pytest.raises(Unauthenticated):
        await app.sign_in_link_code(replaced)
    assert (await app.sign_in_link_code(newer)).returning
    with pytest.raises(Invalid):
        await app.sign_in_link_code("short")

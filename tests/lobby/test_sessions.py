"""Sessions (issue 19.2) on the lobby's use cases over a real PostgreSQL, with the lobby's clock
moved by the test: refresh tokens rotate, one used twice ends its session (but not within the
race window of two tabs), they expire, sign-out and bans end them, and expired rows are pruned."""

from __future__ import annotations

import pytest
from lobby_helpers import Clock
from okeyplatform.auth import verify_token

from services.lobby.app import LobbyApp
from services.lobby.errors import Raced, Unauthenticated


async def test_a_refresh_token_is_good_once_and_a_second_use_ends_the_session(app: LobbyApp, clock: Clock) -> None:
    s = await app.sign_in("Yenilenen", "dev-r")
    first = s.session
    nxt = await app.refresh_session(first.refresh_token)
    assert nxt.refresh_token != first.refresh_token
    assert verify_token(nxt.token).subject == s.player.player_id
    assert (nxt.expires_at - clock.now).total_seconds() == 15 * 60  # short-lived access
    assert (nxt.refresh_expires_at - clock.now).days == 30

    # Two tabs at once: the second use a moment later gets no tokens and ends nothing.
    clock.advance(seconds=2)
    with pytest.raises(Raced) as raced:
        await app.refresh_session(first.refresh_token)
    assert raced.value.reason == "REFRESH_RACED" and raced.value.status.name == "ABORTED"
    third = await app.refresh_session(nxt.refresh_token)

    # Past the race window it is a stolen copy: the family ends, the newest token with it.
    clock.advance(seconds=11)
    with pytest.raises(Unauthenticated) as reused:
        await app.refresh_session(first.refresh_token)
    assert reused.value.reason == "REFRESH_REUSED"
    with pytest.raises(Unauthenticated) as ended:
        await app.refresh_session(third.refresh_token)
    assert ended.value.reason == "REFRESH_INVALID"
    # The account is fine: its device credential starts a new session.
    again = await app.sign_in("", "", device_secret=s.device_secret)
    assert again.player.player_id == s.player.player_id
    assert (await app.refresh_session(again.session.refresh_token)).token


async def test_refresh_tokens_expire_end_at_sign_out_and_are_pruned(app: LobbyApp, clock: Clock) -> None:
    s = await app.sign_in("Suresi Dolan", "dev-e")
    clock.advance(days=30, seconds=1)
    with pytest.raises(Unauthenticated) as expired:
        await app.refresh_session(s.session.refresh_token)
    assert expired.value.reason == "REFRESH_INVALID"
    assert await app.forget_old_quotas() >= 1  # the expired row is gone
    with pytest.raises(Unauthenticated):
        await app.refresh_session(s.session.refresh_token)

    out = await app.sign_in("Cikan Oyuncu", "dev-o")
    await app.sign_out(verify_token(out.token))
    with pytest.raises(Unauthenticated) as ended:
        await app.refresh_session(out.session.refresh_token)
    assert ended.value.reason == "REFRESH_INVALID"

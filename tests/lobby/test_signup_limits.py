"""Sock puppets [issue 15.7]: new guest accounts and the daily chips per device id and per client
address (the gateway's ``x-okey-client-addr``) per Turkish day."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from lobby_helpers import Clock, FakeTables, Stack, chips_of
from okey.v1 import lobby_service_pb2 as pb
from okeyplatform.auth import CLIENT_ADDRESS_KEY, Identity, verify_token
from okeyplatform.grpcserver import error_reason

from services.lobby.app import LobbyApp
from services.lobby.errors import Exists, Flood
from services.lobby.main import limits_from_env
from services.lobby.policy import Limits, next_day_start
from services.lobby.store import LobbyStore


async def _sign_in(app: LobbyApp, name: str, device: str, address: str = "") -> tuple[Identity, int]:
    _, token, _, granted = await app.sign_in_guest(name, device, address)
    return verify_token(token), granted


async def test_one_device_opens_three_accounts_a_day_and_gets_the_daily_chips_once(app: LobbyApp, clock: Clock) -> None:
    made = [await _sign_in(app, f"Kukla{i}", "phone-1") for i in range(3)]
    assert [g for _, g in made] == [1000, 0, 0]
    with pytest.raises(Flood) as err:
        await app.sign_in_guest("Kukla3", "phone-1")
    assert err.value.status.name == "RESOURCE_EXHAUSTED" and err.value.reason == "TOO_MANY_ACCOUNTS"
    assert "cihaz" in err.value.message and "per device" in err.value.message  # Turkish and English
    second = made[1][0]
    with pytest.raises(Flood) as err:  # the device's chips of the day went to the first account
        await app.claim_daily_chips(second)
    assert err.value.reason == "DAILY_CHIPS_TAKEN" and "device" in err.value.message
    profile = await app.profile(second, "")
    assert profile.chips == 0 and profile.next_daily_chips_at == next_day_start(clock.now)
    assert (await app.claim_daily_chips(made[0][0]))[0] == 0  # the first had them: 0, as before
    # the next day in Turkey: three more accounts, and one account of the device gets the chips
    clock.now = next_day_start(clock.now)
    assert (await _sign_in(app, "Kukla3", "phone-1"))[1] == 1000
    with pytest.raises(Flood):
        await app.claim_daily_chips(second)
    assert sum([await chips_of(app, who) for who, _ in made]) == 1000


async def test_one_address_opens_ten_accounts_a_day_and_five_get_the_daily_chips(app: LobbyApp, clock: Clock) -> None:
    made = [await _sign_in(app, f"Ev{i}", f"dev-{i}", "198.51.100.7") for i in range(10)]
    assert [g for _, g in made] == [1000] * 5 + [0] * 5
    with pytest.raises(Flood) as err:
        await app.sign_in_guest("Ev10", "dev-10", "198.51.100.7")
    assert err.value.reason == "TOO_MANY_ACCOUNTS" and "per address" in err.value.message
    with pytest.raises(Flood) as err:
        await app.claim_daily_chips(made[7][0], "198.51.100.7")
    assert err.value.reason == "DAILY_CHIPS_TAKEN" and "per address" in err.value.message
    # from another address the same account claims them (a phone that left the café's Wi-Fi)
    assert (await app.claim_daily_chips(made[7][0], "203.0.113.1"))[0] == 1000
    # another address, and calls without one (not through the gateway), are not limited by it
    assert (await _sign_in(app, "Komsu", "dev-k", "198.51.100.8"))[1] == 1000
    inside = [await _sign_in(app, f"Ic{i}", f"in-{i}") for i in range(12)]
    assert all(g == 1000 for _, g in inside)
    clock.advance(days=1)
    assert (await _sign_in(app, "Ev10", "dev-10", "198.51.100.7"))[1] == 1000


async def test_concurrent_sign_ins_from_one_device_make_three_accounts_and_one_grant(
    app: LobbyApp, lobby_store: LobbyStore
) -> None:
    got = await asyncio.gather(
        *(app.sign_in_guest(f"Ayni{i}", "one-phone", "203.0.113.50") for i in range(8)), return_exceptions=True
    )
    made = [g for g in got if not isinstance(g, BaseException)]
    refused = [g for g in got if isinstance(g, BaseException)]
    assert len(made) == 3 and all(isinstance(e, Flood) and e.reason == "TOO_MANY_ACCOUNTS" for e in refused), got
    assert sorted(g[3] for g in made) == [0, 0, 1000]
    who = [verify_token(g[1]) for g in made]
    claims = await asyncio.gather(*(app.claim_daily_chips(w) for w in who for _ in range(3)), return_exceptions=True)
    assert all(isinstance(c, Flood) or c[0] == 0 for c in claims), claims
    assert sum([await chips_of(app, w) for w in who]) == 1000
    async with lobby_store.pool.acquire() as conn:
        used = dict(await conn.fetch("SELECT kind, used FROM lobby_quotas WHERE holder = 'one-phone'"))
    assert used == {"accounts:device": 3, "grants:device": 1}


async def test_a_sign_in_refused_for_its_name_uses_no_quota(app: LobbyApp) -> None:
    await app.sign_in_guest("Tekrar", "d-1", "192.0.2.1")
    for _ in range(5):
        with pytest.raises(Exists):
            await app.sign_in_guest("Tekrar", "d-2", "192.0.2.1")
    assert (await _sign_in(app, "Baska", "d-2", "192.0.2.1"))[1] == 1000


async def test_limits_are_configurable_and_zero_is_none(
    lobby_store: LobbyStore, fake_tables: FakeTables, clock: Clock
) -> None:
    limits = Limits(accounts_per_device=0, accounts_per_address=0, grants_per_device=0, grants_per_address=2)
    app = LobbyApp(lobby_store, fake_tables, clock=clock, limits=limits)
    made = [await _sign_in(app, f"Sinirsiz{i}", "shared", "192.0.2.9") for i in range(6)]
    assert [g for _, g in made] == [1000, 1000, 0, 0, 0, 0]
    env = {
        "OKEY_MAX_ACCOUNTS_PER_DEVICE": "2",
        "OKEY_MAX_ACCOUNTS_PER_ADDRESS": "50",
        "OKEY_DAILY_GRANTS_PER_DEVICE": "1",
        "OKEY_DAILY_GRANTS_PER_ADDRESS": "0",
    }
    got = limits_from_env(env)
    assert (got.accounts_per_device, got.accounts_per_address, got.grants_per_device, got.grants_per_address) == (
        2,
        50,
        1,
        0,
    )
    default = limits_from_env({})
    assert (default.accounts_per_device, default.accounts_per_address) == (3, 10)
    assert (default.grants_per_device, default.grants_per_address) == (1, 5)


async def test_past_days_quotas_are_forgotten(app: LobbyApp, clock: Clock, lobby_store: LobbyStore) -> None:
    await app.sign_in_guest("Dun", "old-phone", "192.0.2.77")
    clock.advance(days=1)
    await app.sign_in_guest("Bugun", "new-phone", "192.0.2.78")
    assert await app.forget_old_quotas() == 0  # yesterday's are kept for today
    clock.advance(days=1, hours=1)
    assert await app.forget_old_quotas() == 4  # the first day's: accounts and grants, device and address
    async with lobby_store.pool.acquire() as conn:
        assert await conn.fetchval("SELECT count(*) FROM lobby_quotas WHERE holder = 'old-phone'") == 0
        assert await conn.fetchval("SELECT count(*) FROM lobby_quotas WHERE holder = 'new-phone'") == 2


async def test_over_grpc_the_gateways_address_header_is_counted(stack: Stack) -> None:
    md = ((CLIENT_ADDRESS_KEY, "203.0.113.99"),)
    made = []
    for i in range(10):
        req = pb.SignInGuestRequest(display_name=f"Ag{i}", device_id=f"n{i}")
        made.append(await stack.stub.SignInGuest(req, metadata=md))
    assert [m.chips_granted for m in made] == [1000] * 5 + [0] * 5
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stack.stub.SignInGuest(pb.SignInGuestRequest(display_name="Ag10", device_id="n10"), metadata=md)
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and error_reason(err.value) == "TOO_MANY_ACCOUNTS"
    assert "(" in (err.value.details() or "") and "per address" in (err.value.details() or "")
    internal = await stack.stub.SignInGuest(pb.SignInGuestRequest(display_name="Ag10", device_id="n10"))
    assert internal.chips_granted == 1000  # without the gateway's header: no per-address limit
    auth = (("authorization", f"Bearer {made[-1].token}"), *md)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stack.stub.ClaimDailyChips(pb.ClaimDailyChipsRequest(), metadata=auth)
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and error_reason(err.value) == "DAILY_CHIPS_TAKEN"

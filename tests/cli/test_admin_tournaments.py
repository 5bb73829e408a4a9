"""``okey admin tournament`` (issue 45.2) as a person runs it, against a real ``okey up``: a
sit-and-go created (its id and the server's prizes printed), filled by guests so its first round
is seated, listed and shown (standings and tables); a scheduled one cancelled with every entry
fee refunded to the chip; the expected failures one line on stderr; a bad flag the subcommand's
usage; every subcommand's --help. The part against ``okey up`` (:func:`tournaments`) runs in
test_admin.py's ``okey up`` test, after the staff work: one start for both."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from okey_up import call
from okeytools.cli import main
from test_admin import _one_line_error, okey

LOBBY = "okey.v1.LobbyService/"


def _in_process(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``okey ARGS`` in this process (argparse's --help and usage errors need no lobby)."""
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    got = capsys.readouterr()
    return int(exited.value.code or 0), got.out, got.err


@pytest.mark.parametrize("sub", [[], ["create"], ["list"], ["show"], ["cancel"]], ids=" ".join)
def test_every_tournament_subcommand_has_help(sub: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _in_process(capsys, "admin", "tournament", *sub, "--help")
    assert code == 0
    assert "usage: okey admin tournament" + "".join(" " + s for s in sub) in out
    assert "--data-dir" in out or not sub


@pytest.mark.parametrize(
    "flags, word",
    [
        (["--game", "chess"], "--game"),
        (["--game", "okey", "--prizes", "50,x"], "--prizes"),
        (["--game", "okey", "--tie-breaks", "score,luck"], "--tie-breaks"),
        (["--game", "okey", "--starts-at", "tomorrow"], "--starts-at"),
        (["--game", "okey", "--sit-and-go", "--starts-at", "2030-01-01T20:00"], "not allowed with"),
        (["--game", "okey", "--bogus"], "--bogus"),
    ],
)
def test_a_bad_flag_prints_the_create_usage(flags: list[str], word: str, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--name", "Kupa", "--size", "8", "--fee", "10", "--format", "knockout"]
    code, _, err = _in_process(capsys, "admin", "tournament", "create", *base, *flags)
    assert code == 2
    assert err.startswith("usage: okey admin tournament create"), err
    assert word in err.splitlines()[-1], err


def _guest(http: httpx.Client, admin: str, name: str) -> dict[str, Any]:
    """A guest with 1,000 chips to pay entry fees with (one address gets few daily grants)."""
    g = call(http, LOBBY + "SignInGuest", {"displayName": name})
    have = int(call(http, LOBBY + "GetChips", {}, g["token"]).get("balance", 0))
    if have < 1000:
        body = {"playerId": g["player"]["playerId"], "amount": str(1000 - have), "reason": "test"}
        call(http, LOBBY + "AdjustChips", body, admin)
    return g


def tournaments(env: dict[str, str], http: httpx.Client) -> None:
    admin = okey(env, "admin", "token", "--ttl", "900").stdout.strip()
    assert "no tournaments yet" in okey(env, "admin", "tournament", "list").stdout
    # a sit-and-go of 8: the id first, then the summary with the server's prizes
    got = okey(
        env,
        *("admin", "tournament", "create", "--name", "Pazar Kupası", "--game", "okey", "--match-points", "3"),
        *("--size", "8", "--fee", "100", "--prizes", "60,40", "--format", "knockout", "--id", "pazar"),
    )
    assert got.returncode == 0, got.stderr
    lines = got.stdout.splitlines()
    assert lines[0] == "pazar" and lines[1].startswith("pazar  Pazar Kupası  REGISTERING"), got.stdout
    assert "sit-and-go: starts when 8 have registered" in got.stdout and "3 points" in got.stdout
    assert "1st 0 (60%), 2nd 0 (40%) (of the pool as it stands)" in got.stdout
    # the same again is safe; another spec under the id is refused, saying what to do
    assert okey(env, *got.args[3:]).returncode == 0
    refused = okey(
        env,
        *("admin", "tournament", "create", "--name", "Başka", "--game", "okey", "--size", "8"),
        *("--fee", "5", "--format", "swiss", "--id", "pazar"),
    )
    _one_line_error(refused, "okey admin tournament create:", "TOURNAMENT_EXISTS", "--id")
    _one_line_error(
        okey(
            env,
            *("admin", "tournament", "create", "--name", "Kupa", "--game", "okey", "--size", "4"),
            *("--fee", "5", "--format", "swiss"),
        ),
        "size must be between 8 and 256",
        "INVALID_TOURNAMENT",
        "--help",
    )

    guests = [_guest(http, admin, f"Oyuncu{i}") for i in range(8)]
    for g in guests:
        call(http, LOBBY + "RegisterTournament", {"tournamentId": "pazar", "entryFee": "100"}, g["token"])
    shown = okey(env, "admin", "tournament", "show", "pazar")
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert "pazar  Pazar Kupası  RUNNING" in out and "8 of 8 registered" in out and "pool 800" in out, out
    assert "1st 480 (60%), 2nd 320 (40%)" in out, out
    assert "place  name" in out and "points   score     prize" in out
    first = next(line for line in out.splitlines() if line.strip().startswith("1  Oyuncu"))
    assert first.split()[-1] == "480", first
    assert "round 1 (playing)" in out and "pazar-1-1  playing" in out and "pazar-1-2  playing" in out

    # a scheduled one, three of them registered, cancelled: each fee comes back
    starts = (datetime.now(UTC) + timedelta(days=2)).replace(microsecond=0)
    got = okey(
        env,
        *("admin", "tournament", "create", "--name", "Akşam Turnuvası", "--game", "101", "--size", "16"),
        *("--starts-at", starts.isoformat(), "--min-players", "8", "--fee", "50"),
        *("--format", "swiss", "--rounds", "2", "--tie-breaks", "firsts,score"),
    )
    assert got.returncode == 0, got.stderr
    evening = got.stdout.splitlines()[0]
    assert f"scheduled at {starts.strftime('%Y-%m-%d %H:%M:%S')}Z, at least 8 players" in got.stdout, got.stdout
    assert "SWISS, 2 rounds" in got.stdout and "tie-breaks firsts, score" in got.stdout
    players = guests[:3]  # one address opens at most 10 accounts a day
    before = [int(call(http, LOBBY + "GetChips", {}, p["token"]).get("balance", 0)) for p in players]
    for p in players:
        call(http, LOBBY + "RegisterTournament", {"tournamentId": evening, "entryFee": "50"}, p["token"])
    assert [int(call(http, LOBBY + "GetChips", {}, p["token"]).get("balance", 0)) for p in players] == [
        b - 50 for b in before
    ]

    listed = okey(env, "admin", "tournament", "list").stdout.splitlines()
    assert len(listed) == 2 and any(line.startswith("pazar  RUNNING") for line in listed), listed
    assert any(line.startswith(f"{evening}  REGISTERING  Akşam Turnuvası  3/16 registered") for line in listed)
    running = okey(env, "admin", "tournament", "list", "--status", "running").stdout.splitlines()
    assert [line.split()[0] for line in running] == ["pazar"]

    got = okey(env, "admin", "tournament", "cancel", evening, "--reason", "salon kapalı")
    assert got.returncode == 0, got.stderr
    assert f"tournament {evening} cancelled (salon kapalı): 3 entry fees of 50 chips refunded" in got.stdout
    for p, b in zip(players, before, strict=True):
        chips = call(http, LOBBY + "GetChips", {}, p["token"])
        assert int(chips.get("balance", 0)) == b and chips["entries"][0]["kind"] == "tournament_refund", chips
    shown = okey(env, "admin", "tournament", "show", evening).stdout
    assert "CANCELLED" in shown and "cancelled  salon kapalı" in shown
    assert "finished" not in okey(env, "admin", "tournament", "list", "--status", "finished").stdout.replace(
        "no finished tournaments", ""
    )
    _one_line_error(okey(env, "admin", "tournament", "cancel", evening, "--reason", "yine"), "NOT_RUNNING", "show")
    _one_line_error(okey(env, "admin", "tournament", "show", "yok-boyle"), "TOURNAMENT_NOT_FOUND", "list")
    assert okey(env, "admin", "tournament", "cancel", "pazar").returncode == 2  # --reason is required
    audit = okey(env, "admin", "audit").stdout
    assert "CANCEL_TOURNAMENT" in audit and "CREATE_TOURNAMENT" in audit

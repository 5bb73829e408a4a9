"""``okey admin``: the staff's work from a terminal, over the lobby's gRPC API (OKEY_LOBBY_ADDR).

How it authenticates: whoever holds the token secret can sign any token, so the command signs
itself a short-lived admin token with it (subject ``cli:<user>``, five minutes), from
OKEY_TOKEN_SECRET or else the ``token-secret`` file ``okey up`` keeps in its data directory.
That is also how the first admin is made (``okey admin grant PLAYER admin``). Every action it
takes is in the lobby's audit log under that subject. ``okey admin token`` prints such a token
once, for scripts.

Expected errors (no secret, the lobby away, a refusal) are one line on stderr, exit 2."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["add_admin_parser", "AdminError", "CLI_TOKEN_TTL_S"]

CLI_TOKEN_TTL_S = 300  # each command's own token
TOKEN_TTL_MAX_S = 24 * 3600  # the longest `okey admin token --ttl`


class AdminError(Exception):
    """An expected failure: its message is the one line the user reads."""


def _secret(args: argparse.Namespace) -> bytes:
    from .up import default_data_dir, stored_token_secret

    if os.environ.get("OKEY_TOKEN_SECRET"):
        return os.environ["OKEY_TOKEN_SECRET"].encode()
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    secret = stored_token_secret(data_dir)
    if secret is None:
        raise AdminError(
            f"no token secret: set OKEY_TOKEN_SECRET to the stack's, or pass --data-dir of the `okey up` "
            f"that runs it (none in {data_dir})"
        )
    return secret.encode()


def _subject() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return f"cli:{user}"


def _token(args: argparse.Namespace, role: str = "admin", ttl_s: int = CLI_TOKEN_TTL_S) -> str:
    from okeyplatform.auth import issue_token

    return issue_token(_subject(), role, ttl_s=ttl_s, secret=_secret(args))


def _lobby_addr() -> str:
    from .stack import DEFAULT_PORTS

    return os.environ.get("OKEY_LOBBY_ADDR") or f"127.0.0.1:{DEFAULT_PORTS['lobby']}"


def _refusal(err: Any) -> str:
    """An upstream refusal as one line: its message and stable reason."""
    import grpc
    from google.rpc import error_details_pb2
    from grpc_status import rpc_status

    if err.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        return f"the lobby at {_lobby_addr()} is not reachable: start the stack (okey up) or set OKEY_LOBBY_ADDR"
    reason = err.code().name
    st = rpc_status.from_call(err)
    if st is not None:
        for d in st.details:
            info = error_details_pb2.ErrorInfo()
            if d.Unpack(info):
                reason = info.reason
    return f"{err.details() or err.code().name} ({reason})"


def _call(args: argparse.Namespace, method: str, request: Any) -> Any:
    """One LobbyService call with the command's admin token; a refusal is an AdminError."""
    import grpc
    from okey.v1 import lobby_service_pb2_grpc as pb_grpc

    token = _token(args)

    async def go() -> Any:
        async with grpc.aio.insecure_channel(_lobby_addr()) as channel:
            stub = pb_grpc.LobbyServiceStub(channel)
            return await getattr(stub, method)(request, metadata=(("authorization", f"Bearer {token}"),), timeout=10)

    try:
        return asyncio.run(go())
    except grpc.aio.AioRpcError as err:
        raise AdminError(_refusal(err)) from None


def _ts(value: Any) -> str:
    return value.ToDatetime().strftime("%Y-%m-%d %H:%M:%S") + "Z" if value.seconds else "-"


def _print_json(message: Any) -> None:
    from google.protobuf import json_format

    print(json.dumps(json_format.MessageToDict(message), ensure_ascii=False, indent=2))


# ------------------------------------------------------------------ the subcommands


def _grant(args: argparse.Namespace) -> int:
    from okey.v1 import lobby_service_pb2 as pb

    _call(args, "GrantRole", pb.GrantRoleRequest(player_id=args.player, role=args.role, reason=args.reason))
    print(f"{args.player} is now {args.role} (from their next sign-in or refresh)")
    return 0


def _revoke(args: argparse.Namespace) -> int:
    from okey.v1 import lobby_service_pb2 as pb

    if args.role:
        staff = _call(args, "ListStaff", pb.ListStaffRequest()).staff
        has = next((s.role for s in staff if s.player_id == args.player), "")
        if has != args.role:
            raise AdminError(f"{args.player} is {has or 'not staff'}, not {args.role}: nothing was changed")
    role = _call(args, "RevokeRole", pb.RevokeRoleRequest(player_id=args.player, reason=args.reason)).role
    print(f"{args.player} is no longer {role}; their tokens are revoked")
    return 0


def _staff(args: argparse.Namespace) -> int:
    from okey.v1 import lobby_service_pb2 as pb

    got = _call(args, "ListStaff", pb.ListStaffRequest())
    if args.json:
        _print_json(got)
        return 0
    for s in got.staff:
        print(f"{s.player_id}  {s.role:<9}  {s.display_name}  (by {s.granted_by}, {_ts(s.granted_at)})")
    if not got.staff:
        print("no staff yet: okey admin grant PLAYER moderator|admin")
    return 0


def _token_cmd(args: argparse.Namespace) -> int:
    if not 60 <= args.ttl <= TOKEN_TTL_MAX_S:
        raise AdminError(f"--ttl: 60 to {TOKEN_TTL_MAX_S} seconds")
    print(_token(args, args.role, args.ttl))
    return 0


def _reports(args: argparse.Namespace) -> int:
    from okey.v1 import lobby_service_pb2 as pb

    got = _call(
        args,
        "ListReports",
        pb.ListReportsRequest(include_resolved=args.all, page_size=args.limit, page_token=args.page_token),
    )
    while args.all_pages and got.next_page_token:  # every page, one answer
        more = _call(
            args,
            "ListReports",
            pb.ListReportsRequest(include_resolved=args.all, page_size=args.limit, page_token=got.next_page_token),
        )
        got.reports.extend(more.reports)
        got.next_page_token = more.next_page_token
    if args.json:
        _print_json(got)
        return 0
    for r in got.reports:
        status = pb.ReportStatus.Name(r.status).removeprefix("REPORT_STATUS_")
        reason = pb.ReportReason.Name(r.reason).removeprefix("REPORT_REASON_")
        print(
            f"#{r.report_id} {status} {reason}: {r.player_name} ({r.player_id}) reported by {r.reporter_name}, "
            f"{_ts(r.created_at)}, {r.earlier_reports} earlier" + (f", table {r.table_id}" if r.table_id else "")
        )
        if r.details:
            print(f"    {r.details}")
        for m in r.context:
            mark = ">" if m.message_id in r.message_ids else " "
            print(f"  {mark} [{m.message_id}] {m.display_name}: {m.text}")
        if r.action:
            action = pb.ReportAction.Name(r.action).removeprefix("REPORT_ACTION_")
            print(f"    resolved: {action} by {r.resolved_by}: {r.note}")
    if not got.reports:
        print("no open reports" if not args.all else "no reports")
    if got.next_page_token:
        print(f"more: okey admin reports{' --all' if args.all else ''} --page-token {got.next_page_token}")
    return 0


def _resolve(args: argparse.Namespace) -> int:
    from okey.v1 import lobby_service_pb2 as pb

    request = pb.ResolveReportRequest(
        report_id=args.report,
        action=pb.ReportAction.Value(f"REPORT_ACTION_{args.action.upper()}"),
        duration_minutes=args.minutes,
        note=args.reason,
    )
    r = _call(args, "ResolveReport", request).report
    print(f"report #{r.report_id} resolved: {args.action.upper()} {r.player_name} ({r.player_id})")
    return 0


def _ban(args: argparse.Namespace) -> int:
    from okey.v1 import lobby_service_pb2 as pb

    req = pb.BanPlayerRequest(player_id=args.player, duration_minutes=args.minutes, reason=args.reason)
    got = _call(args, "BanPlayer", req)
    print(f"{args.player} is banned until {_ts(got.banned_until)}; their tokens are revoked")
    return 0


def _unban(args: argparse.Namespace) -> int:
    from okey.v1 import lobby_service_pb2 as pb

    _call(args, "UnbanPlayer", pb.UnbanPlayerRequest(player_id=args.player, reason=args.reason))
    print(f"{args.player} is no longer banned")
    return 0


def _chips_adjust(args: argparse.Namespace) -> int:
    from okey.v1 import lobby_service_pb2 as pb

    req = pb.AdjustChipsRequest(player_id=args.player, amount=args.amount, reason=args.reason)
    got = _call(args, "AdjustChips", req)
    print(f"{args.player}: {args.amount:+d} chips (a ledger entry against the bank); balance {got.balance}")
    return 0


def _audit(args: argparse.Namespace) -> int:
    from okey.v1 import lobby_service_pb2 as pb

    got = _call(args, "ListAuditLog", pb.ListAuditLogRequest(limit=args.limit, target_id=args.player))
    if args.json:
        _print_json(got)
        return 0
    for e in got.entries:
        detail = "" if e.detail in ("", "{}") else f" {e.detail}"
        print(
            f"{_ts(e.time)}  {e.actor_id} ({e.actor_role})  {e.action}  {e.target_id}{detail}"
            + (f"  - {e.reason}" if e.reason else "")
        )
    if not got.entries:
        print("the audit log is empty")
    return 0


# ------------------------------------------------------------------ tournaments

ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}
TOURNAMENT_STATUSES = ("registering", "running", "finished", "cancelled")
TIE_BREAK_NAMES = ("score", "opponents", "firsts")


def _ordinal(n: int) -> str:
    return ORDINALS.get(n, f"{n}th")


def _prize_shares(text: str) -> list[int]:
    """--prizes 50,30,20: the pool's percent per place."""
    try:
        shares = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: percents per place, 1st first, e.g. 50,30,20") from None
    if not shares:
        raise argparse.ArgumentTypeError("at least one place, e.g. 50,30,20")
    return shares


def _tie_breaks(text: str) -> list[str]:
    """--tie-breaks score,opponents,firsts."""
    names = [x.strip().lower() for x in text.split(",") if x.strip()]
    wrong = [n for n in names if n not in TIE_BREAK_NAMES]
    if wrong or not names:
        raise argparse.ArgumentTypeError(f"{text!r}: a comma-separated order of {', '.join(TIE_BREAK_NAMES)}")
    return names


def _starts_at(text: str) -> Any:
    """--starts-at: an ISO 8601 time; without an offset, UTC."""
    from datetime import UTC, datetime

    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: an ISO 8601 time, e.g. 2026-05-01T20:00:00+03:00") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _tournament_summary(t: Any) -> list[str]:
    """A tournament as a few lines: its rules, its field, its money (the server's figures)."""
    from okey.v1 import common_pb2 as cpb
    from okey.v1 import lobby_service_pb2 as pb

    spec = t.spec
    status = pb.TournamentStatus.Name(t.status).removeprefix("TOURNAMENT_STATUS_")
    fmt = pb.TournamentFormat.Name(spec.format).removeprefix("TOURNAMENT_FORMAT_")
    game = {cpb.GAME_OKEY: "okey", cpb.GAME_OKEY101: "101"}.get(spec.options.game, "?")
    rules = [f"{spec.options.match_points} points"] if spec.options.HasField("match_points") else []
    if spec.options.HasField("turn_seconds"):
        rules.append(f"{spec.options.turn_seconds} s a turn")
    if spec.HasField("starts_at"):
        start = f"scheduled at {_ts(spec.starts_at)}, at least {spec.min_players} players"
    else:
        start = f"sit-and-go: starts when {spec.size} have registered"
    if fmt == "KNOCKOUT":
        shape = f"KNOCKOUT, the best {spec.advance_per_table} of each table advance"
    else:
        shape = f"SWISS, {spec.swiss_rounds} rounds for match points"
    ties = ", ".join(pb.TieBreak.Name(x).removeprefix("TIE_BREAK_").lower() for x in spec.tie_breaks)
    prizes = ", ".join(
        f"{_ordinal(i)} {chips:,} ({pct}%)"
        for i, (chips, pct) in enumerate(zip(t.prizes, spec.prize_percent, strict=False), 1)
    )
    lines = [
        f"{t.tournament_id}  {spec.name}  {status}",
        f"  game       {game}" + (f" ({', '.join(rules)})" if rules else ""),
        f"  field      {t.registered} of {spec.size} registered; {start}",
        f"  format     {shape}; round {t.round} of {t.rounds}; tie-breaks {ties or '-'}",
        f"  entry fee  {spec.entry_fee:,} chips; pool {t.pool:,}",
        f"  prizes     {prizes or '-'}" + (" (of the pool as it stands)" if status == "REGISTERING" else ""),
        f"  created    {_ts(t.created_at)}; started {_ts(t.started_at)}; ended {_ts(t.finished_at)}",
    ]
    if t.cancelled_reason:
        lines.append(f"  cancelled  {t.cancelled_reason}")
    return lines


def _tournament_create(args: argparse.Namespace) -> int:
    from google.protobuf.timestamp_pb2 import Timestamp
    from okey.v1 import common_pb2 as cpb
    from okey.v1 import lobby_service_pb2 as pb

    options = cpb.TableOptions(game=cpb.GAME_OKEY101 if args.game == "101" else cpb.GAME_OKEY)
    if args.match_points is not None:
        options.match_points = args.match_points
    if args.turn_seconds is not None:
        options.turn_seconds = args.turn_seconds
    spec = pb.TournamentSpec(
        name=args.name,
        options=options,
        size=args.size,
        min_players=args.min_players,
        entry_fee=args.fee,
        prize_percent=args.prizes or [],
        format=pb.TournamentFormat.Value(f"TOURNAMENT_FORMAT_{args.format.upper()}"),
        swiss_rounds=args.rounds,
        advance_per_table=args.advance,
        tie_breaks=[pb.TieBreak.Value(f"TIE_BREAK_{x.upper()}") for x in args.tie_breaks or []],
    )
    if args.starts_at is not None:
        stamp = Timestamp()
        stamp.FromDatetime(args.starts_at)
        spec.starts_at.CopyFrom(stamp)
    try:
        t = _call(args, "CreateTournament", pb.CreateTournamentRequest(spec=spec, tournament_id=args.id)).tournament
    except AdminError as exc:
        if "INVALID_TOURNAMENT" in str(exc):
            raise AdminError(f"{exc}; fix that flag (okey admin tournament create --help)") from None
        if "TOURNAMENT_EXISTS" in str(exc):
            raise AdminError(f"{exc}; pick another --id, or see it: okey admin tournament show {args.id}") from None
        raise
    if args.json:
        _print_json(t)
        return 0
    print(t.tournament_id)
    for line in _tournament_summary(t):
        print(line)
    return 0


def _tournament_list(args: argparse.Namespace) -> int:
    from okey.v1 import lobby_service_pb2 as pb

    status = pb.TournamentStatus.Value(f"TOURNAMENT_STATUS_{args.status.upper()}") if args.status else 0
    got = _call(args, "ListTournaments", pb.ListTournamentsRequest(status=status, limit=args.limit))
    if args.json:
        _print_json(got)
        return 0
    for t in got.tournaments:
        st = pb.TournamentStatus.Name(t.status).removeprefix("TOURNAMENT_STATUS_")
        fmt = pb.TournamentFormat.Name(t.spec.format).removeprefix("TOURNAMENT_FORMAT_")
        when = f"starts {_ts(t.spec.starts_at)}" if t.spec.HasField("starts_at") else "sit-and-go"
        print(
            f"{t.tournament_id}  {st:<11}  {t.spec.name}  {t.registered}/{t.spec.size} registered  "
            f"fee {t.spec.entry_fee:,}  {fmt}  round {t.round}/{t.rounds}  {when}"
        )
    if not got.tournaments:
        print(
            f"no {args.status.lower()} tournaments"
            if args.status
            else "no tournaments yet: okey admin tournament create"
        )
    return 0


def _get_tournament(args: argparse.Namespace, tournament_id: str) -> Any:
    from okey.v1 import lobby_service_pb2 as pb

    try:
        return _call(args, "GetTournament", pb.GetTournamentRequest(tournament_id=tournament_id)).tournament
    except AdminError as exc:
        if "TOURNAMENT_NOT_FOUND" in str(exc):
            raise AdminError(f"{exc}; okey admin tournament list shows the tournaments' ids") from None
        raise


def _tournament_show(args: argparse.Namespace) -> int:
    t = _get_tournament(args, args.tournament)
    if args.json:
        _print_json(t)
        return 0
    for line in _tournament_summary(t):
        print(line)
    names = {e.player_id: e.display_name or e.player_id for e in t.standings}
    print()
    if t.standings:
        print(f"  {'place':>5}  {'name':<24}  {'points':>6}  {'score':>6}  {'prize':>8}")
        for e in t.standings:
            mark = " (withdrew)" if e.withdrew else (f" (out in round {e.out_in_round})" if e.out_in_round else "")
            print(
                f"  {e.place:>5}  {(names[e.player_id] + mark)[:24]:<24}  {e.match_points:>6}  {e.score:>6}  "
                f"{e.prize:>8,}"
            )
    else:
        print("  nobody has registered yet")
    for r in t.rounds_played:
        print()
        print(f"  round {r.round}" + (" (ended)" if r.ended else " (playing)"))
        for table in r.tables:
            seats = []
            for seat, player in enumerate(table.player_ids):
                who = names.get(player, player) if player else "bot"
                if table.finished:
                    who += f" {_ordinal(table.places[seat])}, {table.scores[seat]}"
                seats.append(who)
            state = "finished" if table.finished else "playing"
            print(f"    {table.table_id}  {state:<8}  " + " | ".join(seats))
    return 0


def _tournament_cancel(args: argparse.Namespace) -> int:
    from okey.v1 import lobby_service_pb2 as pb

    req = pb.CancelTournamentRequest(tournament_id=args.tournament, reason=args.reason)
    try:
        t = _call(args, "CancelTournament", req).tournament
    except AdminError as exc:
        if "TOURNAMENT_NOT_FOUND" in str(exc):
            raise AdminError(f"{exc}; okey admin tournament list shows the tournaments' ids") from None
        if "NOT_RUNNING" in str(exc):
            raise AdminError(f"{exc}; it is over already: okey admin tournament show {args.tournament}") from None
        raise
    fee = t.spec.entry_fee
    refunded = f"{t.registered} entry fees of {fee:,} chips refunded" if fee and t.registered else "no fees to refund"
    print(f"tournament {t.tournament_id} cancelled ({t.cancelled_reason}): {refunded}")
    return 0


def _run(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def wrapped(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except AdminError as exc:
            name = " ".join(filter(None, (args.admin_command, getattr(args, "tournament_command", None))))
            print(f"okey admin {name}: {exc}", file=sys.stderr)
            return 2

    return wrapped


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data-dir",
        help="the data directory of the `okey up` whose token-secret signs the command's token "
        "(default: OKEY_DATA_DIR or the per-user one; OKEY_TOKEN_SECRET wins when set)",
    )


def _reason(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument(
        "--reason",
        required=required,
        default="",
        help="why (kept in the audit log)" + ("" if required else "; optional"),
    )


def add_admin_parser(sub: Any) -> None:
    """``okey admin ...`` under the ``okey`` command's subparsers."""
    admin = sub.add_parser(
        "admin",
        help="staff work: roles, reports, bans, chips adjustments, tournaments, the audit log",
        description="Staff work over the lobby's gRPC API (OKEY_LOBBY_ADDR, default 127.0.0.1:50063), "
        "as an admin: each command signs itself a 5-minute admin token with the token secret "
        "(OKEY_TOKEN_SECRET, else the token-secret file of the `okey up` data directory). "
        "Every action is kept in the audit log under cli:<user>.",
    )
    cmds = admin.add_subparsers(dest="admin_command", required=True, metavar="<admin command>")
    waits: list[tuple[argparse.ArgumentParser, Callable[[argparse.Namespace], int]]] = []

    p = cmds.add_parser(
        "grant",
        help="make a player a moderator or an admin",
        description="Give a player a staff role; their next sign-in or refresh (within 15 minutes) carries it. "
        "A moderator works the reports queue and bans; an admin also grants roles and adjusts chips.",
    )
    p.add_argument("player", help="the player id (p-...)")
    p.add_argument("role", choices=["moderator", "admin"], help="the role")
    _reason(p, required=False)
    waits.append((p, _grant))

    p = cmds.add_parser(
        "revoke",
        help="take a player's staff role away (their tokens are revoked at once)",
        description="Take a player's staff role away: every token they hold is refused by every service at once; "
        "their next refresh gives a player's token. With ROLE, only if that is the role they have.",
    )
    p.add_argument("player", help="the player id")
    p.add_argument("role", nargs="?", choices=["moderator", "admin"], help="the role they must have")
    _reason(p, required=False)
    waits.append((p, _revoke))

    p = cmds.add_parser("staff", help="list the players with a staff role", description="List the staff.")
    p.add_argument("--json", action="store_true", help="protobuf's JSON mapping of the answer")
    waits.append((p, _staff))

    p = cmds.add_parser(
        "token",
        help="print a short-lived admin token for scripts (once)",
        description="Print a bearer token signed with the token secret, for scripts that call the API "
        "(the gateway's /api or the lobby's gRPC). It is not stored; keep it no longer than needed.",
    )
    p.add_argument("--ttl", type=int, default=900, help="its lifetime in seconds (default 900, at most 86400)")
    p.add_argument("--role", choices=["moderator", "admin"], default="admin", help="its role (default admin)")
    waits.append((p, _token_cmd))

    p = cmds.add_parser(
        "reports",
        help="the report queue with its chat context",
        description="The open reports a page at a time, most severe first (by reason), then those whose player "
        "more players reported, then the newest; each with the reported messages and those around them. "
        "The last line gives the next page's --page-token when there is one.",
    )
    p.add_argument("--all", action="store_true", help="resolved reports too (after the open ones)")
    p.add_argument("--limit", type=int, default=50, help="a page's size (default 50, at most 200)")
    p.add_argument("--page-token", default="", help="the page after this token (the last line of a page gives it)")
    p.add_argument("--all-pages", action="store_true", help="every page from there on, not only one")
    p.add_argument("--json", action="store_true", help="protobuf's JSON mapping of the answer")
    waits.append((p, _reports))

    p = cmds.add_parser(
        "resolve",
        help="resolve a report: dismiss, warn, mute or ban",
        description="Resolve an open report. MUTE needs --minutes (1 to 43200); BAN lasts --minutes "
        "(0, the default: for good). A ban revokes the player's tokens and frees their waiting seats.",
    )
    p.add_argument("report", type=int, help="the report id")
    p.add_argument("action", choices=["dismiss", "warn", "mute", "ban"], type=str.lower, help="what to do")
    p.add_argument("--minutes", type=int, default=0, help="how long a mute or ban lasts")
    _reason(p)
    waits.append((p, _resolve))

    p = cmds.add_parser(
        "ban",
        help="ban a player (and their device) without a report",
        description="Ban a player and their device; their tokens are revoked at every service at once.",
    )
    p.add_argument("player", help="the player id")
    p.add_argument("--minutes", type=int, default=0, help="how long (default 0: for good; at most 525600)")
    _reason(p)
    waits.append((p, _ban))

    p = cmds.add_parser("unban", help="lift a player's ban", description="Lift a player's ban and their device's.")
    p.add_argument("player", help="the player id")
    _reason(p)
    waits.append((p, _unban))

    chips = cmds.add_parser(
        "chips", help="chips adjustments", description="Chips adjustments: okey admin chips adjust --help."
    )
    chip_cmds = chips.add_subparsers(dest="chips_command", required=True, metavar="<chips command>")
    p = chip_cmds.add_parser(
        "adjust",
        help="add chips to a player or take some back, as a ledger entry against the bank",
        description="Post one ledger transaction between the bank and the player (kind 'adjustment', the reason "
        "in its memo): a positive AMOUNT gives chips, a negative one takes them back (never below zero). "
        "No balance is edited.",
    )
    p.add_argument("player", help="the player id")
    p.add_argument("amount", type=int, help="chips, e.g. 500 or -200")
    _reason(p)
    waits.append((p, _chips_adjust))

    p = cmds.add_parser(
        "audit",
        help="the audit log of staff actions, newest first",
        description="Every staff action: grants, revocations, report resolutions, bans, unbans, chips "
        "adjustments; who, what, whom, when and why.",
    )
    p.add_argument("--limit", type=int, default=50, help="at most this many (default 50, at most 500)")
    p.add_argument("--player", default="", help="only the actions on this player")
    p.add_argument("--json", action="store_true", help="protobuf's JSON mapping of the answer")
    waits.append((p, _audit))

    tour = cmds.add_parser(
        "tournament",
        help="create, list, show and cancel tournaments",
        description='Tournaments (docs/design.md, "Tournaments"): '
        "okey admin tournament create|list|show|cancel --help. "
        "Players register in the app; the lobby seats the rounds, ranks the standings and pays the prizes.",
    )
    tour_cmds = tour.add_subparsers(dest="tournament_command", required=True, metavar="<tournament command>")
    p = tour_cmds.add_parser(
        "create",
        help="create a tournament (a sit-and-go, or scheduled with --starts-at)",
        description="Create a tournament: its tables' game, its size, when it starts, its entry fee and prizes, "
        "its format. A sit-and-go (the default) starts when --size players have registered; with --starts-at "
        "it starts then with at least --min-players (else it is cancelled and every fee refunded). Prints the "
        "tournament's id and the server's summary, the prizes as the server computes them.",
    )
    p.add_argument("--name", required=True, help="what players see, 3 to 40 characters", metavar="NAME")
    p.add_argument("--game", required=True, choices=["okey", "101"], type=str.lower, help="the tables' game")
    p.add_argument("--match-points", type=int, help="the tables' match length (default: the game's)", metavar="N")
    p.add_argument("--turn-seconds", type=int, help="seconds a turn (default: the game's)", metavar="N")
    p.add_argument("--size", type=int, required=True, help="the most players, 8 to 256", metavar="N")
    p.add_argument("--min-players", type=int, default=0, help="scheduled: the fewest to start (default 8)", metavar="N")
    when = p.add_mutually_exclusive_group()
    when.add_argument(
        "--starts-at",
        type=_starts_at,
        help="when registration closes and round 1 starts (ISO 8601; no offset: UTC)",
        metavar="ISO8601",
    )
    when.add_argument("--sit-and-go", action="store_true", help="start when --size have registered (the default)")
    p.add_argument("--fee", type=int, required=True, help="the entry fee in chips (0 for a free one)", metavar="CHIPS")
    p.add_argument(
        "--prizes",
        type=_prize_shares,
        help="the pool's percent per place, 1st first (default 50,30,20)",
        metavar="50,30,20",
    )
    p.add_argument("--format", required=True, choices=["knockout", "swiss"], type=str.lower, help="the format")
    p.add_argument("--rounds", type=int, default=0, help="swiss: rounds to play, 2 to 9 (default 3)", metavar="N")
    p.add_argument(
        "--advance", type=int, default=0, choices=[1, 2], help="knockout: players each table sends on (default 2)"
    )
    p.add_argument(
        "--tie-breaks",
        type=_tie_breaks,
        help="what orders players level on points, e.g. score,opponents,firsts",
        metavar="score,opponents,firsts",
    )
    p.add_argument(
        "--id",
        default="",
        help="its id (3 to 40 of a-z, 0-9, '-'): makes the command safe to repeat",
        metavar="ID",
    )
    p.add_argument("--json", action="store_true", help="protobuf's JSON mapping of the answer")
    waits.append((p, _tournament_create))

    p = tour_cmds.add_parser(
        "list",
        help="the tournaments: registering and running first, then the newest ended",
        description="One line per tournament: id, status, name, players registered, fee, format, round.",
    )
    p.add_argument("--status", choices=TOURNAMENT_STATUSES, type=str.lower, help="only those in this status")
    p.add_argument("--limit", type=int, default=20, help="at most this many (default 20, at most 50)")
    p.add_argument("--json", action="store_true", help="protobuf's JSON mapping of the answer")
    waits.append((p, _tournament_list))

    p = tour_cmds.add_parser(
        "show",
        help="one tournament: its standings, rounds and tables",
        description="A tournament's summary, its standings as the server ranks them (place, name, match points, "
        "score, prize) and each round's tables with their places and scores.",
    )
    p.add_argument("tournament", help="the tournament id")
    p.add_argument("--json", action="store_true", help="protobuf's JSON mapping of the answer")
    waits.append((p, _tournament_show))

    p = tour_cmds.add_parser(
        "cancel",
        help="cancel a tournament that has not finished: every entry fee is refunded",
        description="Cancel a tournament before it finishes: every registered player's entry fee comes back "
        "(one ledger transaction); tables in play finish as practice. Kept in the audit log.",
    )
    p.add_argument("tournament", help="the tournament id")
    _reason(p)
    waits.append((p, _tournament_cancel))

    for parser, fn in waits:
        _common(parser)
        parser.set_defaults(func=_run(fn))

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


def _run(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def wrapped(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except AdminError as exc:
            print(f"okey admin {args.admin_command}: {exc}", file=sys.stderr)
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
        help="staff work: roles, reports, bans, chips adjustments, the audit log",
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

    for parser, fn in waits:
        _common(parser)
        parser.set_defaults(func=_run(fn))

"""The ``okey`` command: one entry point with a subcommand per job."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from okeycore.options import OptionsError

__all__ = ["main", "build_parser"]


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo, run_stack_demo

    return run_demo(args) if args.in_process else run_stack_demo(args)


def _cmd_solve(args: argparse.Namespace) -> int:
    from okeycore.solve import solve_line

    stream = open(args.file, encoding="utf-8") if args.file else sys.stdin  # noqa: SIM115
    try:
        for line in stream:
            if not line.strip():
                continue
            sys.stdout.write(solve_line(line) + "\n")
            sys.stdout.flush()
    finally:
        if stream is not sys.stdin:
            stream.close()
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from okeybench import BENCHES
    from okeybench.record import too_busy

    busy = too_busy(args)  # before the run: a crowded machine's figures are not recorded
    if busy:
        print(f"okey bench {args.name}: {busy}", file=sys.stderr)
        return 2
    run = BENCHES[args.name]
    return run(args)


def _bench_parser(sub: Any) -> None:
    """``okey bench NAME``: one subcommand per benchmark, each with only its own options."""
    from okeybench import BENCH_HELP, BENCHES, SEEDED

    bench = sub.add_parser(
        "bench",
        help="run a benchmark and print its figures",
        description="Run one of the benchmarks in bench/ and print its figures; "
        "okey bench NAME --help lists that benchmark's options.",
    )
    kinds = bench.add_subparsers(dest="name", required=True, metavar="NAME")
    parsers = {}
    for name in sorted(BENCHES):
        p = kinds.add_parser(
            name, help=BENCH_HELP[name], description=BENCH_HELP[name][0].upper() + BENCH_HELP[name][1:] + "."
        )
        p.add_argument("--quick", action="store_true", help="a short run, for a smoke test")
        if name in SEEDED:
            p.add_argument("--seed", type=int, default=1, help="seed for generated inputs (default 1)")
        p.add_argument(
            "--record",
            nargs="?",
            const="",
            default=None,
            metavar="FILE",
            help="write the figures into this bench's section of FILE (default: docs/benchmarks.md; "
            "or set OKEY_BENCH_RECORD=FILE); off unless asked",
        )
        p.set_defaults(func=_cmd_bench)
        parsers[name] = p
    table, soak = parsers["table"], parsers["soak"]
    from okeybench.common import INTERLEAVED_TABLES, MAX_INTERLEAVED_TABLES, QUICK_INTERLEAVED_TABLES

    parsers["bots"].add_argument(
        "--tables",
        type=int,
        default=None,
        help=f"tables one process decides for in the interleaved timing (default {INTERLEAVED_TABLES:,}; "
        f"--quick {QUICK_INTERLEAVED_TABLES}; at most {MAX_INTERLEAVED_TABLES:,})",
    )
    table.add_argument("--tables", type=int, default=None, help="run one level of this many tables")
    table.add_argument(
        "--offered",
        type=float,
        default=None,
        help="with --tables: moves/s offered in all (default 1000; 0: back to back)",
    )
    table.add_argument("--seconds", type=float, default=None, help="seconds per level (default 20; --quick 5)")
    table.add_argument(
        "--calls",
        choices=("unary", "stream"),
        default=None,
        help="with --tables: each move a unary Act (default), or on Play streams as the bots send them; "
        "without --tables both are run",
    )
    table.add_argument(
        "--observability",
        action="store_true",
        help="the CPU per move with metrics and 1%% tracing on against both off, alternating, same load "
        "(--tables default 100, --offered default 1000)",
    )
    table.add_argument(
        "--rounds", type=int, default=None, help="with --observability: rounds of off and on (default 5; --quick 1)"
    )
    soak.add_argument("--tables", type=int, default=None, help="concurrent all-bot tables (default 500; --quick 20)")
    soak.add_argument("--minutes", type=float, default=None, help="how long to run (default 10; --quick 0.5)")
    soak.add_argument(
        "--faults", action="store_true", help="kill and restart services, NATS and PostgreSQL during the run"
    )
    soak.add_argument(
        "--people",
        action="store_true",
        help="a simulated person at seat 0 of each table and the bots at a person's pace: prints the bots' "
        "delay beyond their think time",
    )
    soak.add_argument(
        "--nats-down-seconds", type=float, default=None, help="with --faults: how long NATS stays down (default 30)"
    )
    presence = parsers["presence"]
    presence.add_argument(
        "--players",
        default=None,
        metavar="N,N",
        help="players connected in all, one level each, comma separated (default 1000,10000; --quick 100,1000)",
    )
    presence.add_argument(
        "--replicas",
        default=None,
        metavar="N,N",
        help="gateway replicas the players are spread over, one level each with every --players "
        "(default 1,2,4; --quick 1,2)",
    )
    presence.add_argument(
        "--seconds", type=float, default=None, help="seconds measured per level (default 12; --quick 5)"
    )
    presence.add_argument(
        "--changes",
        type=float,
        default=None,
        help="presence changes per player per minute: a table joined or left (default 1)",
    )
    presence.add_argument(
        "--calls", type=float, default=None, help="calls per player per minute: a lobby refresh or a move (default 6)"
    )
    presence.add_argument(
        "--table-messages",
        type=float,
        default=None,
        help="messages a minute on a seat's watch while at a table (default 12: a table at 0.2 moves/s)",
    )
    parsers["replay"].add_argument(
        "--events", type=int, default=None, help="events in the generated log (default 1,000,000; --quick 20,000)"
    )
    parsers["replay"].add_argument(
        "--one-pass",
        action="store_true",
        help="also time the one-pass reader (okey replay before issue 48) on the same log: before and after",
    )
    parsers["envelope"].add_argument(
        "--events",
        type=int,
        default=None,
        help="events in the log to encode and decode (default 200,000; --quick less)",
    )


def _cmd_backup(args: argparse.Namespace) -> int:
    from .backup import run_backup

    return run_backup(args)


def _cmd_restore(args: argparse.Namespace) -> int:
    from .backup import run_restore

    return run_restore(args)


def _cmd_verify_deal(args: argparse.Namespace) -> int:
    from .verify import run_verify_deal

    return run_verify_deal(args)


def _cmd_replay(args: argparse.Namespace) -> int:
    from .replay import run_replay

    return run_replay(args)


def _cmd_export(args: argparse.Namespace) -> int:
    tables_mode = args.all or args.tables or args.game or args.since or args.until or args.out or args.format
    if tables_mode:
        if args.table or args.output:
            print(
                "okey export: give a TABLE (its events as JSON lines) or --all/--table ... --out DIR "
                "(analysis tables), not both",
                file=sys.stderr,
            )
            return 2
        from .export_all import run_export_all

        args.out = args.out or "okey-export"
        args.format = args.format or "parquet"
        return run_export_all(args)
    if not args.table:
        print("okey export: name a TABLE, or pass --all (see okey export --help)", file=sys.stderr)
        return 2
    from .export import run_export

    return run_export(args)


def _cmd_analytics(args: argparse.Namespace) -> int:
    from .analytics import run_analytics

    return run_analytics(args)


def _cmd_migrate(args: argparse.Namespace) -> int:
    from .up import run_migrate

    return run_migrate(args)


def _cmd_serve(args: argparse.Namespace) -> int:
    from .up import run_serve

    return run_serve(args)


def _cmd_up(args: argparse.Namespace) -> int:
    from .up import run_up

    return run_up(args)


def _cmd_top(args: argparse.Namespace) -> int:
    from .top import run_top

    return run_top(args)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, except that an argument a subcommand does not know is told by that
    subcommand: its usage and one error line, exit 2 [issue 41.6]. (argparse's own hands a
    subcommand's leftovers up to the top-level parser, which prints the top-level usage.) Every
    subcommand's parser is of this class: ``add_subparsers`` makes its parsers of the parent's."""

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras and self._is_subcommand:
            self.error("unrecognized arguments: " + " ".join(extras))
        return parsed, extras

    _is_subcommand = True


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="okey",
        description="Okey and Okey 101 backend: play, solve, benchmark.",
        epilog="Run 'okey <command> --help' for a command's options.",
    )
    p._is_subcommand = False  # the top level: parse_args tells its own leftovers
    sub = p.add_subparsers(dest="command", metavar="<command>")

    demo = sub.add_parser(
        "demo",
        help="start the stack, play a full bot match through the gateway, print the standings, stop",
        description="Self-contained: start PostgreSQL and NATS (embedded unless OKEY_DATABASE_URL / OKEY_NATS_URL "
        "are set) and every service, open a table whose seats are all bots, follow it through the gateway "
        "printing each hand, print the standings from the scoring service, and stop everything. "
        "With --in-process, play with okeycore alone in this process.",
    )
    demo.add_argument("--seed", type=int, default=None, help="seed for the shuffles and bots (default: random)")
    demo.add_argument(
        "--bots",
        default=None,
        help="one strategy per seat, comma separated: random, greedy, strong or easy (default: every seat the "
        "strategy of the table's bot_level: HARD strong, NORMAL greedy, EASY easy; in-process)",
    )
    demo.add_argument(
        "-o",
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a table option of the chosen game, e.g. -o partners=true -o match_points=10, or with --game 101 "
        "-o rounds=3 -o seats=2 (repeatable; see RULES.md section 5; another game's option is refused)",
    )
    demo.add_argument("--quiet", action="store_true", help="print only the final standings (in-process)")
    demo.add_argument(
        "--in-process",
        action="store_true",
        help="play in this process with okeycore alone (no servers): fast, and --bots picks the strategies",
    )
    demo.add_argument("--game", choices=["okey", "101"], default="okey", help="classic Okey (default) or Okey 101")
    demo.set_defaults(func=_cmd_demo)

    solve = sub.add_parser(
        "solve",
        help="answer solver requests, one JSON line in, one JSON line out",
        description='Read JSON lines like {"game":"OKEY","indicator":"B5","tiles":[...14 codes]} or '
        '{"game":"OKEY101","indicator":"B5","tiles":[...],"wrap":false} and answer each on its own line. '
        'A bad line is answered with {"error": "..."} and the next line is still read.',
    )
    solve.add_argument("file", nargs="?", help="read requests from this file instead of standard input")
    solve.set_defaults(func=_cmd_solve)

    _bench_parser(sub)

    verify = sub.add_parser(
        "verify-deal",
        help="check a finished hand's deal against the commitment published when it began",
        description="Check that a hand's revealed deal order and salt hash to the SHA-256 commitment "
        "announced in HandStarted, and that the order deals exactly the hand's racks, indicator and deck.",
    )
    verify.add_argument("table", help="the table id")
    verify.add_argument("hand", type=int, help="the hand number (1 for the first hand)")
    verify.add_argument("--database-url", help="PostgreSQL URL of the event store (default: OKEY_DATABASE_URL)")
    verify.set_defaults(func=_cmd_verify_deal)

    replay = sub.add_parser(
        "replay",
        help="rebuild the scoring projections from the event log (and verify it with okeycore)",
        description="Rebuild every scoring projection (hand and match results, player stats, leaderboards) "
        "from the PostgreSQL event log into fresh tables, compare them with the live ones and swap them in. "
        "With --verify, first re-run okeycore over every stream: a recorded result okeycore does not decide "
        "fails the command (exit 1) and nothing is swapped.",
    )
    replay.add_argument("--verify", action="store_true", help="re-decide every recorded result with okeycore first")
    replay.add_argument("--no-swap", action="store_true", help="build and compare, but keep the live projection")
    replay.add_argument("--database-url", help="PostgreSQL URL of the event log (default: OKEY_DATABASE_URL)")
    replay.add_argument(
        "--scoring-database-url",
        help="PostgreSQL URL of the scoring tables (default: OKEY_SCORING_DATABASE_URL, else the event log's)",
    )
    replay.add_argument("--page", type=int, default=5000, help="events read per query (default 5000)")
    replay.set_defaults(func=_cmd_replay)

    export = sub.add_parser(
        "export",
        help="write a table's events as JSON lines, or the whole log as analysis tables (--all)",
        description="okey export TABLE: a table's events, in order, as JSON lines: protobuf's JSON mapping of "
        "the TableEvent envelope (okey.v1) NATS carries: {tableId, version, hand, time, kind, toMove, <event>: "
        "{...}}. Events are as a spectator sees them (no dealt racks, no deck order, no deal order or salt, no "
        "deck draws) unless --with-private is given. "
        "okey export --all --out DIR: the whole log (or --table/--game/--since/--until) as the tables events, "
        "moves, hands, matches, seats and coaching_notes (okeycore's coaching notes of every hand that ended; "
        "--no-coaching leaves them out) (docs/analytics.md), Parquet or JSON lines, partitioned by day; the "
        "next run into DIR goes on where the last ended. Players are opaque ids; --with-private adds the "
        "dealt racks of finished hands (the racks table).",
    )
    export.add_argument("table", nargs="?", help="the table id (its events as JSON lines)")
    export.add_argument(
        "--with-private",
        action="store_true",
        help="TABLE: include the hidden information too; --all: add the dealt racks of finished hands",
    )
    export.add_argument("-o", "--output", help="TABLE: write to this file instead of standard output")
    export.add_argument("--database-url", help="PostgreSQL URL of the event log (default: OKEY_DATABASE_URL)")
    export.add_argument("--all", action="store_true", help="export the whole log as analysis tables into --out")
    export.add_argument(
        "--table", dest="tables", action="append", metavar="ID", help="only this table (repeatable; with --out)"
    )
    export.add_argument("--game", help="only tables of this game: OKEY or OKEY101")
    export.add_argument("--since", help="only rows recorded at or after this UTC date or time (2026-12-01)")
    export.add_argument("--until", help="only rows recorded before this UTC date or time")
    export.add_argument("--format", choices=("parquet", "jsonl"), help="file format of --all (default parquet)")
    export.add_argument("--out", help="the export directory (default ./okey-export); it keeps the cursor")
    export.add_argument("--page", type=int, default=20_000, help="--all: events read per query (default 20000)")
    export.add_argument(
        "--workers", type=int, help="--all: processes sharing the tables (default: 2, or 1 on one core)"
    )
    export.add_argument(
        "--no-coaching",
        action="store_true",
        help="--all: leave out the coaching_notes table (coaching every hand is most of the export's time)",
    )
    export.set_defaults(func=_cmd_export)

    analytics = sub.add_parser(
        "analytics",
        help="answer the standard questions over an export's tables with DuckDB",
        description="Run the standard questions (starter advantage, finish kinds, hand length, bots' wins by "
        "level, seat order, indicator shows, missed finishes by game and player kind) over the tables okey "
        "export --all wrote, and print them as tables; --question missed-finishes asks one of them; --sql "
        "runs your own query over the same views (events, moves, hands, matches, seats, coaching_notes).",
    )
    analytics.add_argument("dir", nargs="?", default="okey-export", help="the export directory (default ./okey-export)")
    analytics.add_argument(
        "--sql", help="run this query instead (views: events, moves, hands, matches, seats, coaching_notes)"
    )
    analytics.add_argument("--question", action="append", help="only this question (repeatable; see --list)")
    analytics.add_argument("--list", action="store_true", help="list the questions")
    analytics.set_defaults(func=_cmd_analytics)

    up = sub.add_parser(
        "up",
        help="run the whole stack: PostgreSQL, NATS and the services",
        description="Run PostgreSQL and NATS (embedded unless OKEY_DATABASE_URL / OKEY_NATS_URL are set) "
        "and every service, each in its own process, until Ctrl-C.",
    )
    where = up.add_mutually_exclusive_group()
    where.add_argument(
        "--data-dir",
        help="keep the embedded PostgreSQL and NATS data here between runs (default: OKEY_DATA_DIR, else "
        "$XDG_DATA_HOME/okey or ~/.local/share/okey; /var/lib/okey for root)",
    )
    where.add_argument(
        "--ephemeral",
        action="store_true",
        help="a throwaway run: data in a temporary directory, removed at the end, PostgreSQL with fsync off",
    )
    up.add_argument(
        "--for-seconds", type=float, default=0, help="stop by itself after this many seconds (0: run until Ctrl-C)"
    )
    up.set_defaults(func=_cmd_up)

    backup = sub.add_parser(
        "backup",
        help="write the whole database (event log, projections, players, chips) to one file",
        description="Dump the database with PostgreSQL's pg_dump (custom format): OKEY_DATABASE_URL when set, else "
        "the embedded server of the data directory (running under okey up, or started for the backup).",
    )
    backup.add_argument("file", help="the backup file to write")
    backup.add_argument(
        "--data-dir", help="the data directory okey up uses (default: OKEY_DATA_DIR or the per-user one)"
    )
    backup.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    backup.set_defaults(func=_cmd_backup)

    restore = sub.add_parser(
        "restore",
        help="bring a backup back into a fresh data directory",
        description="Restore a file okey backup wrote into the embedded PostgreSQL of a fresh data directory "
        "(never over one that holds a database); okey up --data-dir DIR then runs on it.",
    )
    restore.add_argument("file", help="the backup file to read")
    restore.add_argument("--data-dir", help="a fresh data directory (default: OKEY_DATA_DIR or the per-user one)")
    restore.set_defaults(func=_cmd_restore)

    serve = sub.add_parser(
        "serve",
        help="run one service in the foreground (as `okey up` and the container do)",
        description="Run one service; it reads OKEY_DATABASE_URL, OKEY_NATS_URL and its OKEY_<SERVICE>_ADDR.",
    )
    serve.add_argument("service", choices=["table", "scoring", "lobby", "bots", "gateway"], help="which service")
    serve.set_defaults(func=_cmd_serve)

    migrate = sub.add_parser(
        "migrate",
        help="apply every service's schema migrations to the database and exit",
        description="Apply the event store's and every service's schema migrations (each once, under an advisory "
        "lock) to OKEY_DATABASE_URL. Services also migrate at start; this is the release step (a Kubernetes Job).",
    )
    migrate.add_argument("--database-url", help="PostgreSQL URL (default: OKEY_DATABASE_URL)")
    migrate.set_defaults(func=_cmd_migrate)

    top = sub.add_parser(
        "top",
        help="a terminal view of a running stack from its metrics: per service rate, errors, p99, lag",
        description="Scrape every service's Prometheus metrics (OKEY_<SERVICE>_METRICS_ADDR, else the ports "
        "`okey up` uses on 127.0.0.1) every --interval seconds and show per service: up or down, RPCs/s, "
        "errors/s and their share, faults/s, p99 in ms, the relay's or the consumers' lag, the table's moves/s "
        "and events/s, the bots' decisions/s. Refreshes until Ctrl-C (exit 0). With --once or --json: two "
        "scrapes --interval apart, one answer; exit 0 when every service answered, 1 when one is down.",
    )
    top.add_argument("--once", action="store_true", help="print one table and exit")
    top.add_argument("--json", action="store_true", help="print one JSON object (services -> fields) and exit")
    top.add_argument(
        "--interval", type=float, default=1.0, metavar="SECONDS", help="seconds between scrapes (default 1)"
    )
    top.add_argument(
        "--services",
        default=None,
        metavar="A,B",
        help="only these, comma separated: table, scoring, lobby, bots, gateway (default: all)",
    )
    top.set_defaults(func=_cmd_top)

    from .collusion import add_review_parser  # okey review collusion

    add_review_parser(sub)

    from .admin import add_admin_parser  # okey admin ...

    add_admin_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code: int = args.func(args)
    except OptionsError as exc:
        print(f"okey {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        # A database or NATS that cannot be reached, from any subcommand: one line naming the
        # variable to check, not a traceback. (Their classes are read only here: ``okey solve``
        # and the other tools that need neither never import the event store or the bus.)
        for module, name in _UNREACHABLE:
            found = sys.modules.get(module)
            if found is not None and isinstance(exc, getattr(found, name)):
                print(f"okey {args.command}: {exc}", file=sys.stderr)
                return 2
        raise
    return code


_UNREACHABLE = (("okeyplatform.eventstore", "DatabaseUnreachable"), ("okeyplatform.bus", "NatsUnreachable"))


if __name__ == "__main__":
    raise SystemExit(main())

"""Reproducible benchmarks, run with ``okey bench <name>``; each prints its figures, and with
``--record`` (or ``OKEY_BENCH_RECORD``) writes them into its section of docs/benchmarks.md
(``okeybench.record``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def _solver(args: argparse.Namespace) -> int:
    from .solver import run

    return run(args)


def _table(args: argparse.Namespace) -> int:
    if getattr(args, "observability", False):
        from .observability import run as cost

        return cost(args)
    from .table import run

    return run(args)


def _replay(args: argparse.Namespace) -> int:
    from .replay import run

    return run(args)


def _bots(args: argparse.Namespace) -> int:
    from .bots import run

    return run(args)


def _envelope(args: argparse.Namespace) -> int:
    from .envelope import run

    return run(args)


def _soak(args: argparse.Namespace) -> int:
    from .soak import run

    return run(args)


def _presence(args: argparse.Namespace) -> int:
    from .presence import run

    return run(args)


BENCHES: dict[str, Callable[[argparse.Namespace], int]] = {
    "solver": _solver,
    "table": _table,
    "replay": _replay,
    "bots": _bots,
    "soak": _soak,
    "envelope": _envelope,
    "presence": _presence,
}


BENCH_HELP: dict[str, str] = {
    "solver": "finish checks, okey solve lines with their arrangements, decide+evolve, simulated hands per second",
    "table": "moves through gRPC, append and publish at N concurrent tables; --observability: what metrics and "
    "tracing cost",
    "replay": "rebuilding the scoring projections from the event log, exporting it to Parquet (okey export "
    "--all), and the live projection's lag",
    "bots": "the strategies against each other (strong, greedy, easy; classic and 101) and their decision times",
    "soak": "many concurrent all-bot tables through the gateway for minutes; --faults kills and restarts parts",
    "envelope": "encoding and decoding table events for NATS: the protobuf envelope against JSON",
    "presence": "the gateway's presence over NATS per connected player, by players and gateway replicas, and "
    "how soon a killed replica's players show OFFLINE",
}
"""One line per benchmark, for ``okey bench NAME --help`` (the modules load only when run)."""

SEEDED: frozenset[str] = frozenset({"solver", "table", "replay", "bots"})
"""The benchmarks whose generated inputs come from ``--seed``; the others' inputs are fixed, so
their ``--help`` offers no seed they would ignore."""

"""``okey bench bots``: how well the bot strategies play, and how fast the strong one decides.

Everything runs in-process with fixed seeds (``--seed``), so a run is reproducible:

- classic Okey, ``strong`` in one seat against three ``greedy`` seats (the strong seat moves
  round the table from match to match): the share of finished hands it wins (25% is parity);
- classic Okey, ``greedy`` in one seat against three ``random`` seats: the same share;
- Okey 101 (4 seats), ``strong`` against three ``greedy``: each side's average hand score
  (penalty points, lower is better) and their difference, strong minus greedy. Both sides play
  the same hands (the same deals), so the difference is paired: per hand, the strong seat's
  score minus the greedy seats' mean, and the interval of that mean (``diff_ci``; Welch's when
  two samples are not paired);
- the strong strategy's time per decision (p50, p99, max), classic and 101;
- the same for classic with many tables in one process (``--tables``, default 1,000), a decision
  of each in turn, as a bots worker plays its share of ``okey bench soak``: thousands of other
  decisions then come between two of one seat's, and the hand evaluation's memos serve them all.

Shares and means come with 95% confidence intervals (normal approximation).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from okeycore.classic import Stage
from okeycore.classic.strategy import strategy
from okeycore.kernel.state import Phase
from okeycore.levels import EasyBot
from okeycore.okey101 import HandEnded101
from okeycore.okey101.simulate import Simulator101
from okeycore.okey101.strategy import strategy101
from okeycore.options import Game, TableOptions
from okeycore.simulate import Simulator
from okeyplatform.aioloop import GC_THRESHOLDS, tune_gc

from .common import INTERLEAVED_TABLES, MAX_INTERLEAVED_TABLES, QUICK_INTERLEAVED_TABLES, Progress, machine, percentile
from .record import Section, Table, command_line, record

HANDS_PER_TABLE = 20
MARGIN_101 = 10.0
"""101: how much lower the strong seat's average hand score must be than greedy's (issue 21)."""


def _classic(name: str, seed: int) -> Any:
    """A classic strategy by name: okeycore's (random, greedy, strong) or the easy level's."""
    return EasyBot(seed) if name == "easy" else strategy(name, seed)


class _Timed:
    """A strategy whose decisions are timed. Anything else is the inner strategy's own: the
    simulator asks for ``off_turn`` only where a strategy has one (a 101 strategy has none)."""

    def __init__(self, inner: Any, times: list[float]) -> None:
        self.inner = inner
        self.name = inner.name
        self.times = times

    def act(self, view: Any) -> Any:
        t = time.perf_counter()
        cmd = self.inner.act(view)
        self.times.append(time.perf_counter() - t)
        return cmd

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def share_ci(wins: int, n: int) -> tuple[float, float]:
    """A share and the half-width of its 95% confidence interval."""
    if n == 0:
        return float("nan"), float("nan")
    p = wins / n
    return p, 1.96 * math.sqrt(p * (1 - p) / n)


def mean_ci(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return (values[0] if values else float("nan")), float("nan")
    return statistics.fmean(values), 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def diff_ci(a: list[float], b: list[float], paired: bool) -> tuple[float, float]:
    """Mean of ``a`` minus mean of ``b`` and the half-width of its 95% interval: from the per-item
    differences when the samples are paired (same hands), else Welch's (unequal variances)."""
    if paired:
        if len(a) != len(b):
            raise ValueError("paired samples must have the same length")
        return mean_ci([x - y for x, y in zip(a, b, strict=True)])
    if len(a) < 2 or len(b) < 2:
        return statistics.fmean(a) - statistics.fmean(b), float("nan")
    se = math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
    return statistics.fmean(a) - statistics.fmean(b), 1.96 * se


def classic_share(
    hero: str, others: str, hands: int, seed: int, times: list[float] | None, label: str
) -> tuple[int, int, int]:
    """(hands played, finished, won by the hero) with ``hero`` in one seat, ``others`` in three."""
    progress = Progress(label, hands)
    played = finished = won = 0
    table = 0
    while played < hands:
        seat = table % 4
        bots: list[Any] = [_classic(others, seed * 100_003 + table * 4 + i) for i in range(4)]
        hero_bot = _classic(hero, seed * 7_919 + table)
        bots[seat] = _Timed(hero_bot, times) if times is not None else hero_bot
        sim = Simulator(TableOptions(match_points=1000), bots, seed * 1_000_003 + table)
        for _ in range(min(HANDS_PER_TABLE, hands - played)):
            sim.play_hand()
            end = sim.record.state.last_hand
            assert end is not None
            played += 1
            if end.finisher >= 0:
                finished += 1
                won += end.finisher == seat
            progress.update(played)
        table += 1
    progress.done()
    return played, finished, won


def interleaved_times(tables: int, decisions: int, seed: int) -> dict[str, list[float]]:
    """The strong classic strategy at every seat of ``tables`` tables in this process, deciding one
    move of each table in turn (a hand that ends is dealt again): the time of each decision after
    the first fifth (the memos warming up), by stage: ``draw`` (take the side tile or draw) and
    ``discard`` (the rest: discard, finish, show, pairs)."""
    if tables < 1:
        raise ValueError(f"{tables} tables: no decision to time")
    progress = Progress(f"{tables:,} tables interleaved", decisions)
    sims = [
        Simulator(TableOptions(match_points=1000), [strategy("strong", seed * 4_001 + t * 4 + i) for i in range(4)], t)
        for t in range(tables)
    ]
    for sim in sims:
        sim.deal_random()
    times: dict[str, list[float]] = {"draw": [], "discard": []}
    warm = decisions // 5
    made = 0
    deals = 0
    while made < decisions:
        for k in range(len(sims)):
            sim = sims[k]
            if sim.state.phase is not Phase.PLAYING:
                deals += 1
                if sim.state.phase is Phase.MATCH_OVER:
                    bots = [strategy("strong", seed * 7_001 + deals * 4 + i) for i in range(4)]
                    sim = sims[k] = Simulator(TableOptions(match_points=1000), bots, tables + deals)
                sim.deal_random()
                continue
            seat = sim.state.turn
            view = sim.view(seat)
            t = time.perf_counter()
            cmd = sim.strategies[seat].act(view)
            took = time.perf_counter() - t
            made += 1
            if made > warm:
                times["draw" if view.stage is Stage.DRAW else "discard"].append(took)
            sim.apply(cmd)
            progress.update(made)
            if made >= decisions:
                break
    progress.done()
    return times


def okey101_scores(hands: int, seed: int, times: list[float]) -> tuple[list[float], list[float], list[float]]:
    """Per hand: the strong seat's score, the greedy seats' mean score, and their difference."""
    progress = Progress("101 strong vs greedy", hands)
    strong: list[float] = []
    greedy: list[float] = []
    diff: list[float] = []
    table = 0
    opts = TableOptions(game=Game.OKEY101, seats=4, rounds=11)
    while len(strong) < hands:
        seat = table % 4
        bots: list[Any] = [strategy101("greedy", seed * 100_003 + table * 4 + i) for i in range(4)]
        bots[seat] = _Timed(strategy101("strong", seed * 7_919 + table), times)
        sim = Simulator101(opts, bots, seed * 1_000_003 + table)
        while sim.state.phase is not Phase.MATCH_OVER and len(strong) < hands:
            sim.play_hand()
            end = sim.state.last_hand if sim.state.phase is not Phase.PLAYING else None
            if isinstance(end, HandEnded101) and not sim.state.voided:
                mine = float(end.deltas[seat])
                rest = statistics.fmean(float(end.deltas[i]) for i in range(4) if i != seat)
                strong.append(mine)
                greedy.append(rest)
                diff.append(mine - rest)
                progress.update(len(strong))
        table += 1
    progress.done()
    return strong, greedy, diff


def _times_line(label: str, times: list[float]) -> str:
    ts = sorted(times)
    return (
        f"  {label:<30} p50 {percentile(ts, 50) * 1e3:6.2f} ms   p99 {percentile(ts, 99) * 1e3:6.2f} ms   "
        f"max {ts[-1] * 1e3:6.1f} ms   ({len(ts):,} decisions)"
    )


def run(args: argparse.Namespace) -> int:
    quick = bool(getattr(args, "quick", False))
    seed = int(getattr(args, "seed", 1))
    asked = getattr(args, "tables", None)
    tables = asked if asked is not None else (QUICK_INTERLEAVED_TABLES if quick else INTERLEAVED_TABLES)
    if not 1 <= tables <= MAX_INTERLEAVED_TABLES:
        print(f"okey bench bots: --tables {tables}: give 1 to {MAX_INTERLEAVED_TABLES:,} tables", file=sys.stderr)
        return 2
    n_classic = 200 if quick else 2_000
    n_baseline = 100 if quick else 600
    n_101 = 100 if quick else 2_000
    out: Callable[[str], None] = lambda line: (sys.stdout.write(line + "\n"), sys.stdout.flush())  # noqa: E731
    out(f"okey bench bots{' --quick' if quick else ''} --seed {seed}")
    out(f"  machine: {machine()}")
    # Decide with the garbage collector as a bots worker has it (every service process tunes it
    # at its start): with CPython's own thresholds a tenth of the time went to collections.
    tune_gc()
    out(f"  garbage collector: as in a service process (thresholds {', '.join(map(str, GC_THRESHOLDS))})")
    started = time.perf_counter()

    classic_times: list[float] = []
    played, finished, won = classic_share("strong", "greedy", n_classic, seed, classic_times, "strong vs greedy")
    p, h = share_ci(won, finished)
    out("classic Okey, strong in one seat vs three greedy (parity 25%):")
    out(f"  hands {played:,}, finished {finished:,}, won by strong {won:,}: {p:.1%} ± {h:.1%} (95% CI)")
    rows = [
        (
            "classic: strong (1 seat) vs 3 greedy, share of finished hands won",
            ">= 40%",
            f"{p:.1%} ± {h:.1%} ({won:,} of {finished:,} finished)",
        )
    ]

    played, finished, won = classic_share("greedy", "easy", n_baseline, seed, None, "greedy vs easy")
    p, h = share_ci(won, finished)
    out("classic Okey, bot levels: greedy (NORMAL) in one seat vs three EASY (parity 25%):")
    out(f"  hands {played:,}, finished {finished:,}, won by greedy {won:,}: {p:.1%} ± {h:.1%} (95% CI)")
    rows.append(
        (
            "classic: greedy (NORMAL, 1 seat) vs 3 EASY, share of finished hands won",
            "> 40%",
            f"{p:.1%} ± {h:.1%} ({won:,} of {finished:,} finished)",
        )
    )

    played, finished, won = classic_share("greedy", "random", n_baseline, seed, None, "greedy vs random")
    p, h = share_ci(won, finished)
    out("classic Okey, greedy in one seat vs three random (parity 25%):")
    out(f"  hands {played:,}, finished {finished:,}, won by greedy {won:,}: {p:.1%} ± {h:.1%} (95% CI)")
    rows.append(
        ("classic: greedy (1 seat) vs 3 random", "clearly better", f"{p:.1%} ± {h:.1%} ({won:,} of {finished:,})")
    )

    times101: list[float] = []
    strong, greedy, _diff = okey101_scores(n_101, seed, times101)
    ms_, hs = mean_ci(strong)
    mg, hg = mean_ci(greedy)
    md, hd = diff_ci(strong, greedy, paired=True)  # the same hands: paired
    out("Okey 101 (4 seats), strong in one seat vs three greedy; average hand score, lower is better:")
    out(f"  hands {len(strong):,}: strong {ms_:.1f} ± {hs:.1f}, greedy {mg:.1f} ± {hg:.1f} (95% CI)")
    out(f"  strong minus greedy, paired per hand: {md:+.1f} ± {hd:.1f} (95% CI: {md - hd:+.1f} .. {md + hd:+.1f})")
    verdict = "lowest" if md < 0 else "not lowest"
    significant = "significant" if abs(md) > hd else "not significant"  # the interval excludes 0
    met = "met" if md <= -MARGIN_101 and md + hd < 0 else "not met"
    out(f"  target: strong at least {MARGIN_101:.0f} lower, the interval excluding 0: {met}")
    rows.append(
        (
            f"101, 4 seats, {len(strong):,} hands: average hand score, strong vs greedy (lower is better)",
            f"strong >= {MARGIN_101:.0f} lower, interval excludes 0",
            f"strong {ms_:.1f} ± {hs:.1f}, greedy {mg:.1f} ± {hg:.1f} "
            f"(difference, paired per hand, {md:+.1f} ± {hd:.1f}: {verdict}, {significant}; {met})",
        )
    )

    by_stage = interleaved_times(tables, 3_000 if quick else 20_000, seed)
    every = by_stage["draw"] + by_stage["discard"]
    means = {k: statistics.fmean(v) * 1e6 if v else float("nan") for k, v in by_stage.items()}
    mean_all = statistics.fmean(every) * 1e6

    out("strong strategy, time per decision:")
    out(_times_line("classic", classic_times))
    out(_times_line("Okey 101", times101))
    out(_times_line(f"classic, {tables:,} tables interleaved", every))
    out(
        f"  {'':<30} mean {mean_all:,.0f} us: at the draw {means['draw']:,.0f} us, "
        f"at the discard {means['discard']:,.0f} us"
    )
    seconds = time.perf_counter() - started
    out(f"  total run time {seconds:,.0f} s")
    c, o = sorted(classic_times), sorted(times101)
    rows.append(
        (
            "strong, time per decision",
            "p99 <= 50 ms",
            f"classic p50 {percentile(c, 50) * 1e3:.1f} ms, p99 {percentile(c, 99) * 1e3:.1f} ms "
            f"(max {c[-1] * 1e3:.0f} ms); 101 p50 {percentile(o, 50) * 1e3:.1f} ms, "
            f"p99 {percentile(o, 99) * 1e3:.1f} ms",
        )
    )
    rows.append(
        (
            f"strong, classic, {tables:,} tables interleaved in one process (a bots worker's load), "
            "mean time per decision",
            "(part of the bots' 1.5 ms a move)",
            f"{mean_all:,.0f} us: at the draw {means['draw']:,.0f} us, at the discard {means['discard']:,.0f} us "
            f"({len(every):,} decisions)",
        )
    )
    record(
        args,
        Section(
            "bots",
            command_line("bots", args),
            [Table(("measure", "target", "measured (95% intervals)"), rows)],
            in_process=True,
            notes=[
                f"{n_classic:,} classic hands strong vs greedy, {n_baseline:,} greedy vs random, {n_101:,} 101 hands,"
                f" {len(every):,} decisions timed at {tables:,} interleaved tables;"
                f" in-process, one core; {seconds:,.0f} s"
            ],
        ),
    )
    return 0

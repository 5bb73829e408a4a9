"""``okey bench solver``: finish checks, decide+evolve, and simulated hands per second."""

from __future__ import annotations

import argparse
import json
import random
import time

from okeycore import melds as M
from okeycore.classic import decide, evolve, finishing_tiles, rack_packed
from okeycore.classic.bots import GreedyBot, RandomBot, Strategy
from okeycore.kernel.state import Phase
from okeycore.options import TableOptions
from okeycore.racks import is_real_okey
from okeycore.simulate import Simulator
from okeycore.solve import solve_line
from okeycore.tiles import face_of_id

from .common import Progress, machine, ms, percentile, us
from .record import Section, Table, command_line, record


def _cold() -> None:
    """Forget the solver's transposition table, so every timed check starts cold."""
    for memo in M._COVER_MEMO.values():
        memo.clear()


def random_rack(rng: random.Random) -> tuple[list[int], int]:
    ids = list(range(106))
    rng.shuffle(ids)
    indicator = next(t for t in ids[15:] if t < 104)
    return ids[:15], indicator


def near_finish_rack(rng: random.Random) -> tuple[list[int], int]:
    """A 15-tile rack that cannot finish, one tile away from one that can: a random finishing
    rack (runs and groups of 14 tiles + 1) with one meld tile swapped for a random tile."""
    while True:
        ids = list(range(106))
        rng.shuffle(ids)
        indicator = next(t for t in ids if t < 104)
        pool = [t for t in ids if t != indicator]
        rack: list[int] = []
        used: set[int] = set()
        sizes = rng.choice([(3, 3, 4, 4), (3, 3, 3, 5), (3, 4, 7), (3, 3, 3, 3, 2)])
        if 2 in sizes:
            continue
        ok = True
        for size in sizes:
            meld = _random_meld(rng, size, used)
            if meld is None:
                ok = False
                break
            rack += meld
            used.update(meld)
        if not ok:
            continue
        spare = next(t for t in pool if t not in used)
        rack.append(spare)
        used.add(spare)
        i = rng.randrange(14)
        swap = next(t for t in pool if t not in used)
        rack[i] = swap
        x, j = rack_packed(rack, indicator)
        if not M.can_cover(x, j, 1, True):
            return rack, indicator


def _random_meld(rng: random.Random, size: int, used: set[int]) -> list[int] | None:
    for _ in range(50):
        if size <= 4 and rng.random() < 0.4:
            n = rng.randrange(13)
            colours = rng.sample(range(4), size)
            faces = [c * 13 + n for c in colours]
        else:
            c = rng.randrange(4)
            s = rng.randrange(0, 14 - size + 1)
            faces = [c * 13 + ((s + k) % 13) for k in range(size)]
        ids = []
        for f in faces:
            free = [t for t in (2 * f, 2 * f + 1) if t not in used and t not in ids]
            if not free:
                break
            ids.append(free[0])
        else:
            return ids
    return None


def winning_rack(rng: random.Random) -> tuple[list[int], int]:
    """14 tiles that finish by runs and groups, as :func:`near_finish_rack` builds them, and
    in half of them one tile given up for a real okey (which stands in for it)."""
    while True:
        ids = list(range(106))
        rng.shuffle(ids)
        indicator = next(t for t in ids if t < 104)
        rack: list[int] = []
        used = {indicator}
        for size in rng.choice([(3, 3, 4, 4), (3, 3, 3, 5), (3, 4, 7)]):
            meld = _random_meld(rng, size, used)
            if meld is None:
                break
            rack += meld
            used.update(meld)
        if len(rack) != 14:
            continue
        okeys = [t for t in range(104) if is_real_okey(t, indicator) and t not in used]
        if okeys and rng.random() < 0.5:
            rack[rng.randrange(14)] = okeys[0]
        return rack, indicator


def near_winning_rack(rng: random.Random) -> tuple[list[int], int]:
    """A :func:`winning_rack` with one tile swapped for a random tile: one tile from a finish."""
    rack, indicator = winning_rack(rng)
    free = [t for t in range(106) if t != indicator and t not in rack]
    rack[rng.randrange(14)] = rng.choice(free)
    return rack, indicator


def solve_lines(racks: list[tuple[list[int], int]]) -> list[str]:
    """The classic ``okey solve`` request line of each rack."""
    return [
        json.dumps({"game": "OKEY", "indicator": str(face_of_id(ind)), "tiles": [str(face_of_id(t)) for t in rack]})
        for rack, ind in racks
    ]


def _time_solve(lines: list[str], label: str) -> tuple[list[float], int]:
    """Each line through the classic line protocol (answer and arrangement), cold memo; the
    sorted times and how many answers carried a runs-and-groups arrangement."""
    times: list[float] = []
    melds = 0
    prog = Progress(label, len(lines))
    for i, line in enumerate(lines):
        _cold()
        t0 = time.perf_counter()
        answer = solve_line(line)
        times.append(time.perf_counter() - t0)
        melds += '"melds": true' in answer
        prog.update(i + 1)
    prog.done()
    times.sort()
    return times, melds


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def run_solve(args: argparse.Namespace, rng: random.Random) -> list[tuple[str, str, str]]:
    """`okey solve`'s classic line protocol, arrangements included; returns its rows."""
    n = 300 if args.quick else 3000
    rows = []
    print(f"\nclassic `okey solve` line protocol, {n:,} lines each, arrangement included (cold memo each line)")
    for name, make in (("winning", winning_rack), ("near-winning", near_winning_rack)):
        times, melds = _time_solve(solve_lines([make(rng) for _ in range(n)]), f"solve, {name} racks")
        p50, mean, p99 = us(percentile(times, 50)), us(_mean(times)), us(percentile(times, 99))
        print(f"  {name + ' racks:':<20}p50 {p50}  mean {mean}  p99 {p99}   ({melds:,} finish by runs and groups)")
        rows.append(
            (
                f"`okey solve` classic line with its arrangement, {n:,} {name} 14-tile racks "
                f"({melds:,} finish by melds), cold memo",
                "",
                f"p50 {p50}, mean {mean}, p99 {p99}",
            )
        )
    return rows


def _time_checks(racks: list[tuple[list[int], int]], label: str) -> tuple[list[float], list[float]]:
    cover: list[float] = []
    which: list[float] = []
    prog = Progress(label, len(racks))
    for i, (rack, indicator) in enumerate(racks):
        _cold()
        t0 = time.perf_counter()
        x, j = rack_packed(rack, indicator)
        M.can_cover(x, j, 1, True)
        t1 = time.perf_counter()
        cover.append(t1 - t0)
        _cold()
        t0 = time.perf_counter()
        finishing_tiles(rack, indicator)
        which.append(time.perf_counter() - t0)
        prog.update(i + 1)
    prog.done()
    cover.sort()
    which.sort()
    return cover, which


def _moves(seed: int, matches: int) -> list[float]:
    """decide + evolve time of every command in greedy-bot matches."""
    times: list[float] = []
    prog = Progress("decide+evolve", matches)
    for m in range(matches):
        sim = Simulator(TableOptions(), [GreedyBot(seed + m * 4 + i) for i in range(4)], seed + m)
        orig = sim.apply

        def timed(cmd, _orig=orig, _sim=sim):  # type: ignore[no-untyped-def]
            state = _sim.record.state
            t0 = time.perf_counter()
            got = decide(state, cmd)
            if not isinstance(got, list):
                raise RuntimeError(str(got))
            for e in got:
                state = evolve(state, e)
            times.append(time.perf_counter() - t0)
            return _orig(cmd)

        sim.apply = timed  # type: ignore[method-assign]
        sim.play_match(max_hands=30)
        prog.update(m + 1)
    prog.done()
    times.sort()
    return times


def _hands_per_second(kind: str, seed: int, seconds: float) -> tuple[float, int, float]:
    hands = 0
    moves = 0
    t0 = time.perf_counter()
    m = 0
    while time.perf_counter() - t0 < seconds:
        bots: list[Strategy] = [(GreedyBot if kind == "greedy" else RandomBot)(seed + m * 4 + i) for i in range(4)]
        sim = Simulator(TableOptions(), bots, seed + m)
        for _ in range(5):
            sim.play_hand()
            if sim.record.state.phase is Phase.MATCH_OVER:
                break
        hands += sim.record.hands
        moves += sim.record.moves
        m += 1
    dt = time.perf_counter() - t0
    return hands / dt, hands, moves / hands if hands else 0.0


def run(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    n_random = 2000 if args.quick else 20000
    n_near = 300 if args.quick else 3000
    rows: list[tuple[str, str, str]] = []
    print(f"okey bench solver  (seed {args.seed}{', quick' if args.quick else ''})")
    print(f"machine: {machine()}")
    racks = [random_rack(rng) for _ in range(n_random)]
    cover, which = _time_checks(racks, "random racks")
    print(f"\nfinish check, {n_random:,} random 15-tile racks (cold solver memo each time)")
    print(
        f"  can it finish:      median {us(percentile(cover, 50))}  p99 {us(percentile(cover, 99))}"
        "   target: median <= 50 us"
    )
    print(f"  which tiles finish: median {us(percentile(which, 50))}  p99 {us(percentile(which, 99))}")
    rows.append(
        (
            f"finish check (can it finish), {n_random:,} random 15-tile racks, cold memo",
            "median <= 50 us",
            f"median {us(percentile(cover, 50))}, p99 {us(percentile(cover, 99))}",
        )
    )
    which_random = which
    near = [near_finish_rack(rng) for _ in range(n_near)]
    cover, which = _time_checks(near, "near-finish racks")
    print(f"\nfinish check, {n_near:,} racks one tile away from a finish (cold)")
    print(
        f"  can it finish:      median {us(percentile(cover, 50))}  p99 {us(percentile(cover, 99))}"
        f"   max {us(cover[-1])}   target: p99 <= 1 ms"
    )
    print(f"  which tiles finish: median {us(percentile(which, 50))}  p99 {us(percentile(which, 99))}")
    rows.append(
        (
            f"finish check, {n_near:,} racks one tile away from a finish, cold memo",
            "p99 <= 1 ms",
            f"median {us(percentile(cover, 50))}, p99 {us(percentile(cover, 99))}, max {us(cover[-1])}",
        )
    )
    rows.append(
        (
            "which tiles finish (all discards), random / near-finish racks",
            "",
            f"median {us(percentile(which_random, 50))} / {us(percentile(which, 50))}, "
            f"p99 {us(percentile(which_random, 99))} / {us(percentile(which, 99))}",
        )
    )
    rows += run_solve(args, random.Random(args.seed + 14))
    times = _moves(args.seed, 3 if args.quick else 20)
    print(f"\ndecide + evolve, {len(times):,} commands from greedy-bot matches")
    print(f"  median {us(percentile(times, 50))}  p99 {us(percentile(times, 99))}   target: median <= 50 us")
    rows.append(
        (
            f"`decide` + `evolve` of one move ({len(times):,} commands of greedy-bot matches)",
            "median <= 50 us",
            f"median {us(percentile(times, 50))}, p99 {us(percentile(times, 99))}",
        )
    )
    secs = 2.0 if args.quick else 10.0
    print(f"\nsimulated classic hands in-process, one core, {secs:.0f} s each (bots decide from their seat view)")
    rates: dict[str, tuple[float, float]] = {}
    for kind in ("greedy", "random"):
        rate, hands, mph = _hands_per_second(kind, args.seed, secs)
        rates[kind] = (rate, mph)
        print(
            f"  {kind:<6} bots: {rate:,.1f} hands/s  ({hands} hands, {mph:.0f} moves per hand)   target: >= 100 hands/s"
        )
    rows.append(
        (
            f"simulated classic hands, bots deciding from their views, one core, {secs:.0f} s",
            ">= 100 hands/s",
            f"greedy {rates['greedy'][0]:,.1f} hands/s ({rates['greedy'][1]:.0f} moves per hand); "
            f"random {rates['random'][0]:,.1f}",
        )
    )
    rows += run_101(args)
    record(
        args,
        Section(
            "solver",
            command_line("solver", args),
            [Table(("measure", "target", "measured"), rows)],
            in_process=True,
            notes=["in-process, one core; no servers"],
        ),
    )
    return 0


# ------------------------------------------------------------ Okey 101


def random_rack_101(rng: random.Random) -> tuple[list[int], int]:
    """A starter's 22 tiles and an indicator from one shuffle."""
    ids = list(range(106))
    rng.shuffle(ids)
    indicator = next(t for t in ids[22:] if t < 104)
    return ids[:22], indicator


def _time_openings_101(racks: list[tuple[list[int], int]], wrap: bool) -> list[float]:
    """The best run opening of each rack (melds, okey values, sum), as the hints compute it."""
    from okeycore.okey101 import run_opening

    times: list[float] = []
    prog = Progress(f"101 openings, wrap {'on' if wrap else 'off'}", len(racks))
    for i, (rack, indicator) in enumerate(racks):
        t0 = time.perf_counter()
        run_opening(rack, indicator, wrap, 101)
        times.append(time.perf_counter() - t0)
        prog.update(i + 1)
    prog.done()
    times.sort()
    return times


def _hands_per_second_101(seats: int, seed: int, seconds: float) -> tuple[float, int, float]:
    from okeycore.okey101.bots import GreedyBot101
    from okeycore.okey101.simulate import Simulator101
    from okeycore.options import Game

    hands = 0
    moves = 0
    t0 = time.perf_counter()
    m = 0
    while time.perf_counter() - t0 < seconds:
        opts = TableOptions(game=Game.OKEY101, seats=seats)
        sim = Simulator101(opts, [GreedyBot101(seed + m * 4 + i) for i in range(seats)], seed + m)
        sim.play_match()
        hands += sim.record.deals
        moves += sim.record.moves
        m += 1
    dt = time.perf_counter() - t0
    return hands / dt, hands, moves / hands if hands else 0.0


def run_101(args: argparse.Namespace) -> list[tuple[str, str, str]]:
    """The 101 part; returns its rows for the record (measure, target, measured)."""
    rng = random.Random(args.seed + 101)
    n = 300 if args.quick else 3000
    racks = [random_rack_101(rng) for _ in range(n)]
    print(f"\nbest 101 opening, {n:,} random 22-tile racks (runs and groups leaving a tile, with the ids)")
    got: list[list[float]] = []
    for wrap in (False, True):
        times = _time_openings_101(racks, wrap)
        got.append(times)
        print(
            f"  wrap {'on ' if wrap else 'off'}: median {ms(percentile(times, 50))}  p99 {ms(percentile(times, 99))}"
            f"   max {ms(times[-1])}   target: median <= 2 ms, p99 <= 20 ms"
        )
    off, on = got
    rows = [
        (
            f"best 101 opening, {n:,} random 22-tile racks, wrap off / on",
            "median <= 2 ms, p99 <= 20 ms",
            f"median {ms(percentile(off, 50))} / {ms(percentile(on, 50))}, "
            f"p99 {ms(percentile(off, 99))} / {ms(percentile(on, 99))}",
        )
    ]
    secs = 2.0 if args.quick else 10.0
    print(f"\nsimulated 101 hands in-process, one core, {secs:.0f} s each (greedy 101 bots, from their seat view)")
    rates = []
    for seats in (4, 2):
        rate, hands, mph = _hands_per_second_101(seats, args.seed, secs)
        rates.append(rate)
        print(
            f"  {seats} seats: {rate:,.1f} hands/s  ({hands} hands, {mph:.0f} moves per hand)   target: >= 20 hands/s"
        )
    rows.append(
        (
            f"simulated 101 hands, greedy 101 bots, one core, {secs:.0f} s, 4 / 2 seats",
            ">= 20 hands/s",
            f"{rates[0]:,.1f} / {rates[1]:,.1f} hands/s",
        )
    )
    return rows

"""``okey bench solver``: finish checks, decide+evolve, simulated hands per second, and `okey solve` lines per case."""

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
from okeycore.tiles import okey_face as okey_face_of

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
    rows += run_solve_lines(args)
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


# ------------------------------------------------------------ `okey solve` lines per case, both games

CLASSIC_TARGET = 120e-6  # a classic line with its arrangement (issue 48)
OPENING_TARGET = 2.5e-3  # a 101 line: the best opening, its melds, the pairs (issue 48)


def _okey_face_index(indicator: int) -> int:
    return okey_face_of(face_of_id(indicator)).index


def _ids_of(faces: list[int], used: set[int], indicator: int) -> list[int] | None:
    """A free tile id for each face (the okey's face given as a fake okey, which plays it
    [T-FAKE-1]), marked used; None when a face has no copy left."""
    okey = _okey_face_index(indicator)
    out = []
    for f in faces:
        free = [t for t in ((104, 105) if f == okey else (2 * f, 2 * f + 1)) if t not in used]
        if not free:
            return None
        used.add(free[0])
        out.append(free[0])
    return out


def _meld_faces(rng: random.Random, size: int, wrap: bool = True) -> list[int]:
    if size <= 4 and rng.random() < 0.45:
        n = rng.randrange(13)
        return [c * 13 + n for c in rng.sample(range(4), size)]
    c = rng.randrange(4)
    s = rng.randrange(0, (14 if wrap else 13) - size + 1)
    return [c * 13 + (s + k) % 13 for k in range(size)]


def _fill(
    rng: random.Random, rack: list[int], used: set[int], n: int, indicator: int, faces: list[int] | None = None
) -> None:
    """Tiles up to ``n``: from ``faces`` while they have copies left (a few hundred tries), then any."""
    for _ in range(400 if faces else 0):
        if len(rack) >= n:
            return
        got = _ids_of([rng.choice(faces)], used, indicator) if faces else None
        if got:
            rack += got
    while len(rack) < n:
        t = rng.randrange(106)
        if t not in used:
            used.add(t)
            rack.append(t)


def _with_okeys(rng: random.Random, rack: list[int], used: set[int], indicator: int, k: int) -> None:
    """Up to ``k`` tiles of the rack given up for real okeys."""
    for t in [t for t in range(104) if is_real_okey(t, indicator) and t not in used][:k]:
        i = rng.randrange(len(rack))
        used.discard(rack[i])
        rack[i] = t
        used.add(t)


def _swap(rng: random.Random, rack: list[int], used: set[int]) -> None:
    i = rng.randrange(len(rack))
    t = rng.choice([t for t in range(106) if t not in used])
    used.discard(rack[i])
    rack[i] = t
    used.add(t)


def hard_classic_line(rng: random.Random) -> str:
    """A classic request harder than a random rack: runs and groups of 14 tiles with 0-2 okeys
    and fake okeys standing in, finishing or one or two tiles away; dense racks of a few colours
    over a few numbers (many overlapping runs and groups); twins (seven pairs or nearly)."""
    while True:
        indicator = rng.randrange(104)
        used = {indicator}
        rack: list[int] = []
        kind = rng.choice(["win", "win", "near", "near", "near2", "dense", "dense", "pairs", "random"])
        if kind in ("win", "near", "near2"):
            for size in rng.choice([(3, 3, 4, 4), (3, 3, 3, 5), (3, 4, 7), (3, 3, 8), (4, 5, 5), (3, 5, 6)]):
                rack += _ids_of(_meld_faces(rng, size), used, indicator) or []
            if len(rack) != 14:
                continue
            _with_okeys(rng, rack, used, indicator, rng.choice([0, 1, 1, 2, 2]))
            for _ in range({"win": 0, "near": 1, "near2": 2}[kind]):
                _swap(rng, rack, used)
        elif kind == "dense":
            colours = rng.sample(range(4), rng.choice([1, 2, 2, 3]))
            lo, width = rng.randrange(13), rng.choice([5, 6, 7, 8])
            faces = [c * 13 + (lo + k) % 13 for c in colours for k in range(width)]
            _fill(rng, rack, used, 14 - rng.choice([0, 1, 2]), indicator, faces)
            rack += [t for t in range(104) if is_real_okey(t, indicator) and t not in used][: 14 - len(rack)]
            used.update(rack)
            _fill(rng, rack, used, 14, indicator)
        elif kind == "pairs":
            while len(rack) < 14:
                f = rng.randrange(53)
                twins = [104, 105] if f == 52 else [2 * f, 2 * f + 1]
                if not used.intersection(twins):
                    rack += twins
                    used.update(twins)
            _with_okeys(rng, rack, used, indicator, rng.choice([0, 1, 2]))
            if rng.random() < 0.5:
                _swap(rng, rack, used)
        else:
            _fill(rng, rack, used, 14, indicator)
        rng.shuffle(rack)
        return json.dumps(
            {"game": "OKEY", "indicator": str(face_of_id(indicator)), "tiles": [str(face_of_id(t)) for t in rack]}
        )


def hard_101_line(rng: random.Random) -> str:
    """A 101 request of 21-22 tiles harder than a random deal: dense racks of 2-4 colours over
    5-9 numbers (twins, overlapping runs and groups), or racks built of melds, or random; 0-2
    okeys and fake okeys standing in; wrap on or off."""
    indicator = rng.randrange(104)
    n = rng.choice([21, 22])
    wrap = rng.random() < 0.5
    kind = rng.choice(["dense", "dense", "dense", "melds", "melds", "random"])
    used = {indicator}
    rack: list[int] = []
    if kind == "dense":
        colours = rng.sample(range(4), rng.choice([2, 3, 3, 4]))
        lo, width = rng.randrange(13), rng.choice([5, 6, 7, 8, 9])
        _fill(
            rng,
            rack,
            used,
            n - rng.choice([0, 0, 1, 2, 3]),
            indicator,
            [c * 13 + (lo + k) % 13 for c in colours for k in range(width)],
        )
    elif kind == "melds":
        for _ in range(50):
            if len(rack) >= n - 2:
                break
            got = _ids_of(_meld_faces(rng, rng.choice([3, 3, 4, 4, 5, 6]), wrap), used, indicator)
            if got and len(rack) + len(got) <= n:
                rack += got
    _fill(rng, rack, used, n, indicator)
    _with_okeys(rng, rack, used, indicator, rng.choice([0, 1, 1, 2, 2]))
    rng.shuffle(rack)
    codes = [str(face_of_id(t)) for t in rack]
    return json.dumps({"game": "OKEY101", "indicator": str(face_of_id(indicator)), "tiles": codes, "wrap": wrap})


def lines_101(racks: list[tuple[list[int], int]], wrap: bool) -> list[str]:
    """The OKEY101 ``okey solve`` request line of each rack."""
    return [
        json.dumps(
            {
                "game": "OKEY101",
                "indicator": str(face_of_id(ind)),
                "tiles": [str(face_of_id(t)) for t in rack],
                "wrap": wrap,
            }
        )
        for rack, ind in racks
    ]


def _before_best_points(
    x: int, j: int, wrap: bool, okey_face: object = None, must_leave: bool = True
) -> tuple[int, list[M.Meld]]:
    """101's best opening as `okey solve` found it before issue 48: the plain memoised search
    of every meld (``melds._maximise`` scoring points), which the fast one must equal."""
    total, descs = M._maximise(x, j, wrap, lambda _size, pts: pts, must_leave)
    return total, [M._describe(d, None) for d in descs]


def _cpu_per_line(lines: list[str], label: str, before: bool) -> list[float]:
    """CPU time (``time.process_time``) of each line through `okey solve`'s line protocol, the
    classic memo cold; ``before``: 101 lines with the search of before issue 48 (answers checked
    equal). Sorted."""
    fast = M.best_points
    times: list[float] = []
    prog = Progress(label, len(lines))
    try:
        if before:
            M.best_points = _before_best_points  # type: ignore[assignment]
        for i, line in enumerate(lines):
            _cold()
            t0 = time.process_time()
            solve_line(line)
            times.append(time.process_time() - t0)
            prog.update(i + 1)
    finally:
        M.best_points = fast  # type: ignore[assignment]
    prog.done()
    times.sort()
    return times


def _same_answers(lines: list[str]) -> int:
    """How many 101 lines answer differently with the search of before issue 48 (should be 0)."""
    fast = M.best_points
    now = [solve_line(line) for line in lines]
    try:
        M.best_points = _before_best_points  # type: ignore[assignment]
        old = [solve_line(line) for line in lines]
    finally:
        M.best_points = fast  # type: ignore[assignment]
    return sum(a != b for a, b in zip(now, old, strict=True))


def _figures(times: list[float], target: float) -> tuple[str, str]:
    unit = us if target < 1e-3 else ms
    mean = _mean(times)
    return (
        f"p50 {unit(percentile(times, 50))}, mean {unit(mean)}, p99 {unit(percentile(times, 99))}",
        "met" if mean <= target else "NOT met",
    )


def run_solve_lines(args: argparse.Namespace) -> list[tuple[str, str, str]]:
    """Per-case CPU of `okey solve` lines of both games, on the bench's own racks and on a hard
    generated set, against issue 48's targets; 101 before (the old search) and after, in this
    same run, interleaved in rounds so that a busy machine weighs on both alike."""
    n = 200 if args.quick else 2000
    rng = random.Random(args.seed + 48)
    own_classic = solve_lines([(winning_rack if i % 2 else near_winning_rack)(rng) for i in range(n)])
    racks = [random_rack_101(rng) for _ in range(n)]
    own_101 = lines_101(racks[: n // 2], False) + lines_101(racks[n // 2 :], True)
    hard_classic = [hard_classic_line(rng) for _ in range(n)]
    hard_101 = [hard_101_line(rng) for _ in range(n)]
    rounds = 1 if args.quick else 3
    print(
        f"\n`okey solve` lines, CPU per case (time.process_time), {n:,} lines a set, best of {rounds} round(s);"
        " targets: classic mean <= 120 us with the arrangement, 101 mean <= 2.5 ms"
    )
    sets = [
        ("classic, bench racks (winning / near-winning)", own_classic, CLASSIC_TARGET, False),
        ("classic, hard set", hard_classic, CLASSIC_TARGET, False),
        ("101, bench racks (22 random tiles, wrap off / on)", own_101, OPENING_TARGET, True),
        ("101, hard set", hard_101, OPENING_TARGET, True),
    ]
    best: dict[tuple[str, bool], list[float]] = {}
    for r in range(rounds):
        for name, lines, _target, has_before in sets:
            for before in (True, False) if has_before else (False,):
                times = _cpu_per_line(lines, f"{name}{', before' if before else ''}, round {r + 1}", before)
                key = (name, before)
                if key not in best or _mean(times) < _mean(best[key]):
                    best[key] = times
    rows = []
    for name, lines, target, has_before in sets:
        now, met = _figures(best[name, False], target)
        goal = f"mean <= {'120 us' if target == CLASSIC_TARGET else '2.5 ms'}"
        if has_before:
            was, _ = _figures(best[name, True], target)
            diff = _same_answers(lines)
            print(f"  {name}:\n    before {was}\n    after  {now}   {goal}: {met}   ({diff} answers differ)")
            rows.append((f"`okey solve` {name}, {n:,} lines, per case: before issue 48", goal, was))
            rows.append(
                (f"`okey solve` {name}, {n:,} lines, per case: now ({diff} answers differ)", goal, f"{now} ({met})")
            )
        else:
            print(f"  {name}:\n    now    {now}   {goal}: {met}")
            rows.append((f"`okey solve` {name}, {n:,} lines with the arrangement, per case", goal, f"{now} ({met})"))
    return rows

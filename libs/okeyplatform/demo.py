"""``okey demo``: a full classic match between four bots, played in-process."""

from __future__ import annotations

import argparse
import secrets
import sys

from okeycore.bots import STRATEGIES, Strategy
from okeycore.classic import ClassicState
from okeycore.events import Event, HandEnded, HandEndReason, IndicatorShown, MatchEnded, PenaltyApplied
from okeycore.options import OptionsError
from okeycore.simulate import Simulator
from okeycore.tiles import face_of_id

from .cli import parse_options


def _tile(t: int) -> str:
    return str(face_of_id(t))


def _describe_hand(e: HandEnded, state: ClassicState) -> str:
    scores = " ".join(f"{s.score:>4}" for s in state.seats)
    if e.reason is HandEndReason.DECK_EXHAUSTED:
        return f"hand {e.hand:>3}: deck exhausted, no points            scores {scores}"
    kinds = [k for k, on in (("okey", e.okey_finish), ("pairs", e.pairs_finish), ("colored", e.colored_finish)) if on]
    kind = "+".join(kinds) or "normal"
    return (
        f"hand {e.hand:>3}: seat {e.finisher} finished ({kind}, x{e.multiplier}) with {_tile(e.final_tile):<3}"
        f" scores {scores}"
    )


def run_demo(args: argparse.Namespace) -> int:
    try:
        options = parse_options(args.option)
    except OptionsError as exc:
        print(f"okey demo: {exc}", file=sys.stderr)
        return 2
    names = [n.strip() for n in args.bots.split(",")]
    if len(names) != 4 or any(n not in STRATEGIES for n in names):
        print(f"okey demo: --bots takes four of {', '.join(sorted(STRATEGIES))}, comma separated", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    bots: list[Strategy] = [STRATEGIES[n](seed * 4 + i) for i, n in enumerate(names)]
    out = sys.stdout
    out.write(f"classic Okey demo, seed {seed}: {', '.join(f'seat {i} {n}' for i, n in enumerate(names))}\n")
    shown = ", ".join(f"{k}={v}" for k, v in options.to_dict().items() if k not in ("game",))
    out.write(f"table options: {shown}\n")

    def on_event(state: ClassicState, e: Event) -> None:
        if args.quiet:
            return
        if isinstance(e, HandEnded):
            out.write(_describe_hand(e, state) + "\n")
        elif isinstance(e, IndicatorShown):
            out.write(f"          seat {e.seat} shows the indicator twin {_tile(e.tile)}\n")
        elif isinstance(e, PenaltyApplied):
            out.write(f"          seat {e.seat} penalised {e.points} ({e.reason})\n")

    sim = Simulator(options, bots, seed, table_id="demo", on_event=on_event)
    record = sim.play_match()
    result = record.state.result
    if not isinstance(result, MatchEnded):
        print("okey demo: the match did not end within the hand limit", file=sys.stderr)
        return 1
    out.write(f"\nmatch over after {record.hands} hands, {record.moves} moves\n")
    order = sorted(range(4), key=lambda s: -result.scores[s])
    for rank, s in enumerate(order, 1):
        mark = "  winner" if s in result.winners else ""
        out.write(f"  {rank}. seat {s} ({names[s]:<6}) {result.scores[s]:>4}{mark}\n")
    if options.partners:
        out.write(
            f"  teams: seats 0+2 = {result.scores[0] + result.scores[2]}, "
            f"seats 1+3 = {result.scores[1] + result.scores[3]}\n"
        )
    if result.pot:
        out.write(f"  pot {result.pot}: {result.payout} to each winner, {result.remainder} rounded away\n")
    return 0

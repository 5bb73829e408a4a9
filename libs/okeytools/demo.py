"""``okey demo``: a full bot match of classic Okey or Okey 101, in-process or through the stack."""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Sequence
from typing import TextIO

from okeycore.bots import Strategy
from okeycore.classic import ClassicState
from okeycore.events import Event, HandEnded, HandEndReason, IndicatorShown, MatchEnded, PenaltyApplied
from okeycore.okey101 import HandEnded101, HandVoided, Okey101State
from okeycore.options import OptionsError, TableOptions
from okeycore.ranking import competition_ranks
from okeycore.simulate import Simulator
from okeycore.simulate101 import Simulator101
from okeycore.strategy import STRATEGIES
from okeycore.strategy101 import STRATEGIES_101, strategy101
from okeycore.tiles import face_of_id


def parse_options(pairs: Sequence[str], game: str = "OKEY") -> TableOptions:
    """``okey demo -o``: ``["partners=true", "match_points=10"]`` -> TableOptions, with readable errors."""
    data: dict[str, object] = {"game": game}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep:
            raise OptionsError(f"options are name=value, got {pair!r}")
        value: object = raw
        low = raw.lower()
        if low in ("true", "on", "yes"):
            value = True
        elif low in ("false", "off", "no"):
            value = False
        elif raw.lstrip("-").isdigit():
            value = int(raw)
        data[name.strip()] = value
    return TableOptions.from_dict(data).validated()


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
    game = "OKEY101" if args.game == "101" else "OKEY"
    try:
        options = parse_options(args.option, game)
    except OptionsError as exc:
        print(f"okey demo: {exc}", file=sys.stderr)
        return 2
    seats = options.seat_count
    names = [n.strip() for n in (args.bots or ",".join(["greedy"] * seats)).split(",")]
    known = STRATEGIES if game == "OKEY" else STRATEGIES_101
    if len(names) != seats or any(n not in known for n in names):
        print(
            f"okey demo: --bots takes {seats} of {', '.join(sorted(known))}, comma separated (one per seat)",
            file=sys.stderr,
        )
        return 2
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    out = sys.stdout
    title = "classic Okey" if game == "OKEY" else f"Okey 101 ({seats} seats)"
    out.write(f"{title} demo, seed {seed}: {', '.join(f'seat {i} {n}' for i, n in enumerate(names))}\n")
    shown = ", ".join(f"{k}={v}" for k, v in options.to_dict().items() if k != "game")
    out.write(f"table options: {shown}\n")
    if game == "OKEY101":
        return _demo_101(args, options, names, seed, out)

    bots: list[Strategy] = [STRATEGIES[n](seed * 4 + i) for i, n in enumerate(names)]

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
    scores = list(result.scores)
    keys = [scores[s] + scores[(s + 2) % 4] for s in range(4)] if options.partners else scores
    if options.partners:
        out.write(f"  teams: seats 0+2 = {scores[0] + scores[2]}, seats 1+3 = {scores[1] + scores[3]}\n")
    return _standings(out, names, result, keys, higher_is_better=True)


def _standings(out: TextIO, names: list[str], result: MatchEnded, keys: list[int], higher_is_better: bool) -> int:
    """Places as standard competition ranking (1, 2, 2, 4), best first, and the pot."""
    winners = set(result.winners)
    ranks = competition_ranks(keys, winners, higher_is_better)
    for s in sorted(range(len(keys)), key=lambda s: (ranks[s], s)):
        mark = "  winner" if s in winners else ""
        out.write(f"  {ranks[s]}. seat {s} ({names[s]:<6}) {result.scores[s]:>4}{mark}\n")
    if result.pot:
        out.write(f"  pot {result.pot}: {result.payout} to each winner, {result.remainder} rounded away\n")
    return 0


def _demo_101(args: argparse.Namespace, options: TableOptions, names: list[str], seed: int, out: TextIO) -> int:
    """An Okey 101 match between in-process bots: each hand's finish and points, then the standings."""

    def on_event(state: Okey101State, e: Event) -> None:
        if args.quiet:
            return
        if isinstance(e, HandEnded101):
            who = f"seat {e.finisher} finished" if e.finisher >= 0 else "deck exhausted"
            out.write(f"hand {e.hand:>3}: {who:<18} points {list(e.deltas)}  totals {list(e.totals)}\n")
        elif isinstance(e, HandVoided):
            out.write(f"hand {e.hand:>3}: every seat opened pairs, dealt again [O-PEN-4]\n")
        elif isinstance(e, PenaltyApplied):
            out.write(f"          seat {e.seat} penalised +{e.points} ({e.reason})\n")

    bots = [strategy101(n, seed * 4 + i) for i, n in enumerate(names)]
    sim = Simulator101(options, bots, seed, table_id="demo101", on_event=on_event)
    record = sim.play_match()
    result = record.state.result
    if not isinstance(result, MatchEnded):
        print("okey demo: the match did not end within the deal limit", file=sys.stderr)
        return 1
    out.write(f"\nmatch over after {record.state.hand} hands ({record.deals} deals), {record.moves} moves\n")
    return _standings(out, names, result, list(result.scores), higher_is_better=False)


# ------------------------------------------------------------------ the demo through the stack


def run_stack_demo(args: argparse.Namespace) -> int:
    """Start what is needed (embedded PostgreSQL and NATS unless configured, every service),
    open a table whose four seats are bots, follow it through the gateway until the match
    ends, print the standings from the scoring service, and stop everything."""
    import asyncio
    import tempfile
    import time
    from pathlib import Path

    from .embedded import EmbeddedServerError, resolve_infra
    from .stack import Stack

    try:
        options = parse_options(args.option, "OKEY101" if args.game == "101" else "OKEY")
    except OptionsError as exc:
        print(f"okey demo: {exc}", file=sys.stderr)
        return 2
    out = sys.stdout
    t0 = time.monotonic()
    out.write("okey demo: starting PostgreSQL, NATS and the services ...\n")
    out.flush()
    try:
        infra = resolve_infra()
    except EmbeddedServerError as exc:
        print(f"okey demo: {exc}", file=sys.stderr)
        return 2
    logs = Path(tempfile.mkdtemp(prefix="okey-demo-logs-"))
    with infra:
        stack = Stack(infra.database_url, infra.nats_url, log_dir=logs, extra_env={"OKEY_LOG_LEVEL": "WARNING"})
        try:
            stack.start()
        except Exception as exc:
            stack.stop()
            print(f"okey demo: a service did not start: {exc}\n  logs: {logs}", file=sys.stderr)
            return 1
        try:
            out.write(
                f"  gateway grpc://{stack.address('gateway')}  http://{stack.http_address}  "
                f"(ready in {time.monotonic() - t0:.1f} s; service logs in {logs})\n"
            )
            code = asyncio.run(_follow_match(stack.address("gateway"), options, args, out))
        finally:
            out.write("okey demo: stopping ...\n")
            stack.stop()
    out.write(f"okey demo: done in {time.monotonic() - t0:.1f} s\n")
    return code


async def _follow_match(gateway: str, options: object, args: argparse.Namespace, out: object) -> int:
    import asyncio
    import secrets as _secrets

    import grpc
    from okey.v1 import scoring_service_pb2 as spb
    from okey.v1 import scoring_service_pb2_grpc as spb_grpc
    from okey.v1 import table_service_pb2 as tpb
    from okeyplatform.auth import issue_token
    from okeyplatform.client import TableClient

    assert hasattr(out, "write")
    token = issue_token("demo-spectator", "player")
    client = TableClient(gateway, token)
    seats = 2 if getattr(options, "seat_count", 4) == 2 else 4
    try:
        # The server names the table (a player never does); the command id makes a retry safe.
        created = await client.create_table(options, ("",) * seats, command_id=f"demo-{_secrets.token_hex(4)}")  # type: ignore[arg-type]
        table_id = created.table_id
        out.write(f"table {table_id}: {seats} bot seats, played by the bots service\n\n")
        last = 0
        done = False
        while not done:
            try:
                async for msg in client.watch(table_id, None, last):
                    if msg.HasField("snapshot"):
                        continue
                    last = msg.event.version
                    which = msg.event.WhichOneof("event")
                    if which == "hand_ended":
                        out.write(_hand_line(msg.event.hand_ended, msg.view) + "\n")
                    elif which == "hand_ended101":
                        h = msg.event.hand_ended101
                        who = f"seat {h.finisher} finished" if h.finisher >= 0 else "deck exhausted"
                        out.write(f"hand {h.hand:>3}: {who:<18} points {list(h.deltas)}  totals {list(h.totals)}\n")
                    elif which == "hand_voided":
                        out.write(f"hand {msg.event.hand_voided.hand:>3}: every seat opened pairs, dealt again\n")
                    elif which == "match_ended":
                        done = True
                        break
            except grpc.aio.AioRpcError as err:
                if err.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
                    raise
                await asyncio.sleep(0.5)  # reconnect from the last version seen
        scoring = spb_grpc.ScoringServiceStub(client.channel)
        result = None
        for _ in range(100):  # the projection follows the event log within moments
            try:
                result = (
                    await scoring.GetMatchResult(spb.GetMatchResultRequest(table_id=table_id), metadata=client.metadata)
                ).result
                break
            except grpc.aio.AioRpcError as err:
                # not projected yet (NOT_FOUND), or the projection is still before MatchEnded
                if err.code() not in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION):
                    raise
                await asyncio.sleep(0.1)
        if result is None:
            out.write("the scoring service has not projected the match result yet\n")
            return 1
        out.write(f"\nmatch over after {result.hands} hands (standings from the scoring service)\n")
        for s in sorted(result.standings, key=lambda s: (s.rank, s.seat)):
            mark = "  winner" if s.winner else ""
            out.write(f"  {s.rank}. seat {s.seat}  {s.score:>5}{mark}\n")
        _ = tpb
        return 0
    finally:
        await client.close()


def _hand_line(h: object, view: object) -> str:
    from okey.v1 import events_pb2

    assert isinstance(h, events_pb2.HandEnded)
    scores = " ".join(f"{s.score:>4}" for s in view.seats)  # type: ignore[attr-defined]
    if h.reason == events_pb2.HAND_END_REASON_DECK_EXHAUSTED:
        return f"hand {h.hand:>3}: deck exhausted, no points            scores {scores}"
    kinds = [k for k, on in (("okey", h.okey_finish), ("pairs", h.pairs_finish), ("colored", h.colored_finish)) if on]
    return (
        f"hand {h.hand:>3}: seat {h.finisher} finished ({'+'.join(kinds) or 'normal'}, others -{2 * h.multiplier}) "
        f"with {h.final_tile.code:<3} scores {scores}"
    )

"""``okey demo``: a full bot match of classic Okey or Okey 101, in-process or through the stack."""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TextIO

from okeycore.classic import ClassicState
from okeycore.classic.strategy import STRATEGIES
from okeycore.events import Event, HandEnded, MatchEnded
from okeycore.kernel.lines import HandBreakdown, ScoreLine
from okeycore.levels import CLASSIC_LEVELS, LEVELS_101
from okeycore.okey101 import HandEnded101, HandVoided, Okey101State
from okeycore.okey101.simulate import Simulator101
from okeycore.okey101.strategy import STRATEGIES_101
from okeycore.options import BotLevel, OptionsError, TableOptions
from okeycore.ranking import competition_ranks
from okeycore.simulate import Simulator
from okeycore.tiles import face_of_id

DEMO_DEFAULTS: dict[str, dict[str, object]] = {"OKEY101": {"seats": 2}}
"""Where the demo's table differs from a table's defaults, in both demos (``-o`` still wins).
A 4-seat 101 deck holds 20 tiles after the deal, five draws a seat [O-DEAL-1]: even the HARD
bots open and lay out before it runs out in only about 2 hands of 5, and a deck-out shows no
finish at all. At 2 seats 62 tiles remain and nearly every hand ends with a finish (issue 41.5)."""


def parse_options(pairs: Sequence[str], game: str = "OKEY") -> TableOptions:
    """``okey demo -o``: ``["partners=true", "match_points=10"]`` -> TableOptions, with readable errors."""
    data: dict[str, object] = {"game": game, **DEMO_DEFAULTS.get(game, {})}
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


# ------------------------------------------------------------------ the bots and their level


def strategies(game: str) -> dict[str, Callable[[int], object]]:
    """Every strategy a demo seat may play in ``game`` ("OKEY", "OKEY101"), by name, each built
    from a seed: okeycore's registry and the EASY level's beginner."""
    known: dict[str, Callable[[int], object]] = dict(STRATEGIES if game == "OKEY" else STRATEGIES_101)
    known["easy"] = (CLASSIC_LEVELS if game == "OKEY" else LEVELS_101)[BotLevel.EASY]
    return known


def level_strategy(game: str, level: BotLevel) -> str:
    """The name of the strategy the bots service plays at ``level`` (okeycore.levels)."""
    played = (CLASSIC_LEVELS if game == "OKEY" else LEVELS_101)[level]
    return next(name for name, make in strategies(game).items() if make is played)


def level_of(game: str, names: Sequence[str]) -> BotLevel | None:
    """The level whose strategy every seat plays, or None (seats of different levels, or random)."""
    return next((lv for lv in BotLevel if all(n == level_strategy(game, lv) for n in names)), None)


def _header(out: TextIO, head: str, names: Sequence[str], options: TableOptions, level: BotLevel | None) -> None:
    """The seats and the options, the level being what the seats play (one source: ``names``)."""
    out.write(f"{head}: {', '.join(f'seat {i} {n}' for i, n in enumerate(names))}\n")
    shown = {k: v for k, v in options.to_dict().items() if k != "game"}
    shown["bot_level"] = level.value if level else "mixed (--bots)"
    out.write(f"table options: {', '.join(f'{k}={v}' for k, v in shown.items())}\n")


# ------------------------------------------------------------------ a hand's lines (both demos)

REASONS: dict[str, str] = {
    "FINISHED": "finished",
    "OTHER_FINISHED": "another seat finished",
    "PARTNER_FINISHED": "the partner finished",
    "INDICATOR_SHOWN": "showed the indicator",
    "INDICATOR_OTHER": "another seat showed the indicator",
    "DECK_EXHAUSTED": "the deck ran out",
    "INVALID_FINISH": "penalty: an invalid finish",
    "OKEY_DISCARDED": "penalty: discarded an okey",
    "NOT_OPENED": "did not open",
    "TILES_LEFT": "for {n} left",
    "PAIRS_TILES_LEFT": "for {n} left, doubled (opened with pairs)",
    "OKEY_HELD": "for {n} held, 101 each",
    "HAND_POINTS": "hand points",
    "ADDABLE_TILE_DISCARDED": "penalty: discarded a tile that fit a meld",
    "OKEY_TAKER_DISCARDED": "penalty: discarded a tile that could take the okey",
}
"""What each reason of a breakdown line says (okeycore's LINE_REASONS; the web client's
handend.line.* strings say the same)."""


def _signed(points: int) -> str:
    return f"+{points}" if points > 0 else str(points)


def _why(line: ScoreLine) -> str:
    tiles = f"{line.tiles} okey" if line.reason == "OKEY_HELD" else f"{line.tiles} tile{'s' * (line.tiles != 1)}"
    return REASONS.get(line.reason, line.reason.lower().replace("_", " ")).format(n=tiles)


def hand_report(e: Event, b: HandBreakdown | None, names: Sequence[str]) -> list[str]:
    """The lines both demos print for a hand's end (none for another event): what ended it, then
    one line a seat from the rules' breakdown ``b`` (what the end-of-hand screen draws): its
    change, its total after the hand, and its rows, which add up to the change. Nothing is
    added up here: an indicator shown and a penalty are rows of the hand they moved."""
    if isinstance(e, HandVoided):
        return [f"hand {e.hand:>3}: every seat opened pairs, dealt again [O-PEN-4]"]
    if not isinstance(e, HandEnded | HandEnded101):
        return []
    if e.finisher < 0:
        head = "the deck ran out"
    else:
        if isinstance(e, HandEnded):
            on = (("okey", e.okey_finish), ("pairs", e.pairs_finish), ("colored", e.colored_finish))
        else:
            on = (("okey", e.okey_finish), ("pairs", e.pair_finish), ("elden", e.elden))
        kind = ", ".join(k for k, yes in on if yes) or "normal"
        tile = f" with {_tile(e.final_tile)}" if e.final_tile >= 0 else ""
        head = f"seat {e.finisher} finished ({kind}, x{e.multiplier}){tile}"
    out = [f"hand {e.hand:>3}: {head}"]
    if b is None or b.hand != e.hand:
        return [*out, "  (no breakdown of this hand's points)"]
    for s, total in enumerate(b.totals):
        rows = "; ".join(f"{_signed(line.points)} {_why(line)}" for line in b.lines if line.seat == s)
        out.append(f"  seat {s} {names[s]:<6} {_signed(b.changes[s]):>5}  total {total:>4}  ({rows})")
    return out


def stack_hand_report(msg: object, names: Sequence[str]) -> list[str]:
    """:func:`hand_report` of a Watch message: its event and its view's breakdown, converted
    back to okeycore's (the server demo prints hands with the in-process demo's printer)."""
    from okey.v1 import table_service_pb2 as tpb
    from okeyplatform.contract import event_from_pb, from_pb

    assert isinstance(msg, tpb.WatchResponse)
    if msg.event.WhichOneof("event") not in ("hand_ended", "hand_ended101", "hand_voided"):
        return []
    view = msg.view
    b = from_pb(HandBreakdown, view.last_hand_breakdown) if view.HasField("last_hand_breakdown") else None
    return hand_report(event_from_pb(msg.event), b, names)


def run_demo(args: argparse.Namespace) -> int:
    game = "OKEY101" if args.game == "101" else "OKEY"
    try:
        options = parse_options(args.option, game)
    except OptionsError as exc:
        print(f"okey demo: {exc}", file=sys.stderr)
        return 2
    seats = options.seat_count
    # One source for what the seats play and what the header says: the names. Without --bots,
    # every seat plays the strategy of the table's bot_level, as the bots service would.
    known = strategies(game)
    default = level_strategy(game, options.bot_level)
    names = [n.strip() for n in (args.bots or ",".join([default] * seats)).split(",")]
    if len(names) != seats or any(n not in known for n in names):
        print(
            f"okey demo: --bots takes {seats} of {', '.join(sorted(known))}, comma separated (one per seat)",
            file=sys.stderr,
        )
        return 2
    level = level_of(game, names)
    if level is not None:
        options = replace(options, bot_level=level)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    out = sys.stdout
    title = "classic Okey" if game == "OKEY" else f"Okey 101 ({seats} seats)"
    _header(out, f"{title} demo, seed {seed}", names, options, level)
    bots = [known[n](seed * 4 + i) for i, n in enumerate(names)]
    if game == "OKEY101":
        return _demo_101(args, options, names, bots, seed, out)

    def on_event(state: ClassicState, e: Event) -> None:
        if not args.quiet:
            out.writelines(line + "\n" for line in hand_report(e, state.last_breakdown, names))

    sim = Simulator(options, bots, seed, table_id="demo", on_event=on_event)  # type: ignore[arg-type]
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


def _demo_101(
    args: argparse.Namespace, options: TableOptions, names: list[str], bots: list[object], seed: int, out: TextIO
) -> int:
    """An Okey 101 match between in-process bots: each hand's finish and points, then the standings."""

    def on_event(state: Okey101State, e: Event) -> None:
        if not args.quiet:
            out.writelines(line + "\n" for line in hand_report(e, state.last_breakdown, names))

    sim = Simulator101(options, bots, seed, table_id="demo101", on_event=on_event)  # type: ignore[arg-type]
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
    open a table whose seats are all bots, follow it through the gateway until the match ends
    (each hand printed as the in-process demo prints it), print the standings from the scoring
    service, and stop everything."""
    import asyncio
    import shutil
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
    # The services' logs, kept only when the run fails (and then named); a good run leaves
    # nothing in the temporary directory [issue 41.4].
    logs = Path(tempfile.mkdtemp(prefix="okey-demo-logs-"))
    code = 1
    try:
        with infra:
            # OKEY_BOTS_STRATEGY empty: the table's bot_level picks the bots, as the demo prints.
            env = {"OKEY_LOG_LEVEL": "WARNING", "OKEY_BOTS_STRATEGY": ""}
            stack = Stack(infra.database_url, infra.nats_url, log_dir=logs, extra_env=env)
            try:
                stack.start()
            except Exception as exc:
                stack.stop()
                print(f"okey demo: a service did not start: {exc}", file=sys.stderr)
                return 1
            try:
                out.write(
                    f"  gateway grpc://{stack.address('gateway')}  http://{stack.http_address}  "
                    f"(ready in {time.monotonic() - t0:.1f} s)\n"
                )
                code = asyncio.run(_follow_match(stack.address("gateway"), options, args, out))
            finally:
                out.write("okey demo: stopping ...\n")
                stack.stop()
    finally:
        if code == 0:
            shutil.rmtree(logs, ignore_errors=True)
        else:
            out.flush()
            print(f"okey demo: the services' logs are kept in {logs}", file=sys.stderr)
    out.write(f"okey demo: done in {time.monotonic() - t0:.1f} s\n")
    return code


async def _follow_match(gateway: str, options: TableOptions, args: argparse.Namespace, out: TextIO) -> int:
    import asyncio
    import secrets as _secrets

    import grpc
    from okey.v1 import scoring_service_pb2 as spb
    from okey.v1 import scoring_service_pb2_grpc as spb_grpc
    from okeyplatform.auth import issue_token
    from okeyplatform.client import TableClient

    token = issue_token("demo-spectator", "player")
    client = TableClient(gateway, token)
    seats = options.seat_count
    try:
        # The server names the table (a player never does); the command id makes a retry safe.
        created = await client.create_table(options, ("",) * seats, command_id=f"demo-{_secrets.token_hex(4)}")
        table_id = created.table_id
        # The bots service plays every seat at the table's bot_level (its OKEY_BOTS_STRATEGY is unset).
        names = [level_strategy(options.game.value, options.bot_level)] * seats
        _header(out, f"table {table_id}, played by the bots service", names, options, options.bot_level)
        out.write("\n")
        last = 0
        done = False
        while not done:
            try:
                async for msg in client.watch(table_id, None, last):
                    if msg.HasField("snapshot"):
                        continue
                    last = msg.event.version
                    which = msg.event.WhichOneof("event")
                    if which in ("hand_ended", "hand_ended101", "hand_voided"):
                        out.writelines(line + "\n" for line in stack_hand_report(msg, names))
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
            out.write(f"  {s.rank}. seat {s.seat} ({names[s.seat]:<6}) {s.score:>4}{mark}\n")
        return 0
    finally:
        await client.close()

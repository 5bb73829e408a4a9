"""Okey 101's own deciders on the kernel: drawing, the side tile, opening, adding, taking okeys,
discarding and the hand's end. What can be formed is ``melds``; what a hand is worth is
``scoring``; this module owns the turn, the table melds and the match.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import melds as M
from ..errors import RuleViolation
from ..kernel.automations import FollowUps, follow_ups_of
from ..kernel.commands import Command, Discard, Draw, TakeDiscard
from ..kernel.dealing import DealSpec
from ..kernel.events import DrawSource, Event, HandEndReason, PenaltyApplied, TileDiscarded, TileDrawn
from ..kernel.state import Phase
from ..kernel.table import (
    DISCARD,
    Deciders,
    Decision,
    Dispatcher,
    GameRules,
    check_turn,
    deadline,
    is_int,
    match_ended,
    revealed,
    violation,
    with_argument,
)
from ..melds import MeldKind
from ..options import Game
from ..racks import effective, is_real_okey
from ..tiles import face_of_id
from .commands import AddTile, OpenMelds, ReturnSideTile, TakeOkey
from .events import HandEnded101, HandVoided, MeldsOpened, OkeyTaken, TableMeld, TileAdded, TileReturned
from .evolve import fold
from .openings import pair_opening, run_opening
from .scoring import FLAT_PENALTY, Opening, match_winners, score_exhausted, score_finish
from .side import side_first, side_use
from .state import PAIR_OPENER_ADDS, Okey101State, Stage
from .table_melds import add_options, arrange, codes, group_needs_fourth, penalty_reason, take_option

__all__ = ["DEAL", "DECIDERS", "RULES", "decide", "can", "allowed", "follow_ups"]

DEAL = DealSpec(starter_tiles=22, other_tiles=21)
"""The starter 22 tiles, the others 21; 62 stay in the deck at 2 seats, 20 at 4 [O-DEAL-1]."""
DECIDERS: Deciders[Okey101State] = Deciders()


def _drew(state: Okey101State) -> RuleViolation | None:
    """After the turn's draw: the stage for table moves and the discard."""
    if state.stage is not Stage.PLAY:
        return violation("MUST_DRAW_FIRST", "draw from the deck or take the side tile first [O-TURN-1]")
    return None


def _next_deal(state: Okey101State) -> tuple[int, int]:
    """The next seat starts the next hand [C-DEAL-2]; a void hand is dealt again by the same
    starter, under the same number [O-PEN-4]."""
    if state.voided:
        return state.starter, state.hand
    return (state.starter + 1) % len(state.seats), state.hand + 1


@DECIDERS(Draw, needs=check_turn, seat=True)
def _draw(state: Okey101State, cmd: Draw) -> Decision:
    if state.stage is not Stage.DRAW:
        return violation("ALREADY_DREW", "you have drawn this turn: lay, add or discard")
    if not state.deck:  # pragma: no cover - the hand ends when the deck runs out
        return violation("DECK_EMPTY", "the deck is empty")
    return [TileDrawn(cmd.seat, state.deck[0], DrawSource.DECK)]


@DECIDERS(TakeDiscard, needs=check_turn, seat=True)
def _take_discard(state: Okey101State, cmd: TakeDiscard) -> Decision:
    if state.stage is not Stage.DRAW:
        return violation(
            "ALREADY_DREW", "you have drawn this turn; after a deck draw the side tile is out of reach [O-SIDE-4]"
        )
    if not state.deck:  # pragma: no cover - the hand ends when the deck runs out
        return violation("DECK_EMPTY", "the side tile may be taken only while the deck has tiles [O-SIDE-1]")
    pile = state.seats[state.left_of(cmd.seat)].pile
    if not pile:
        return violation("NO_DISCARD_TO_TAKE", "the seat on your left has no discard to take")
    return [TileDrawn(cmd.seat, pile[-1], DrawSource.DISCARD)]  # even before opening [O-SIDE-1]


@DECIDERS(ReturnSideTile, needs=check_turn, seat=True)
def _return_side(state: Okey101State, cmd: ReturnSideTile) -> Decision:
    if not state.side_unused:
        return violation("NO_SIDE_TILE", "you hold no side tile to put back")
    if not state.side_returnable:
        return violation(
            "CANNOT_RETURN_SIDE_TILE", "after opening or adding the side tile can no longer be put back [O-SIDE-5]"
        )
    return [TileReturned(cmd.seat, state.side_tile)]  # no penalty; the time runs on [O-SIDE-2]


def _table_move(state: Okey101State, events: list[Event]) -> Decision:
    """Accept a table move unless it leaves the side tile in the rack with no way left to lay it
    this turn [O-SIDE-2] (so a turn can never get stuck)."""
    after = fold(state, events)
    if after.side_unused and side_use(after) is None:
        return violation(
            "SIDE_TILE_NOT_USED",
            "the side tile must be laid this turn, in an opening or an add; after this move it could not be [O-SIDE-2]",
        )
    if all(s.opening is Opening.PAIRS for s in after.seats):
        seats = after.seats
        events.append(HandVoided(after.hand, tuple(s.penalties for s in seats), **revealed(after)))  # [O-PEN-4]
    return events


def _open_forms(state: Okey101State, seat: int) -> Iterator[Command]:
    """The best run and pair lay-downs of the rack: the opening previews, without a threshold
    once the seat has opened [O-OPEN-3]."""
    me = state.seats[seat]
    opened = me.opening is not Opening.NONE
    ind = state.indicator
    side = state.side_tile if state.side_unused else -1
    runs = run_opening(me.rack, ind, state.options.wrap, 1 if opened else state.run_threshold, prefer=side)
    if runs.enough:
        yield runs.command(seat)
    pairs = pair_opening(me.rack, ind, 1 if opened else state.pair_threshold, prefer=side)
    if pairs.enough:
        yield pairs.command(seat)


def _add_forms(state: Okey101State, seat: int) -> Iterator[Command]:
    """Each rack tile on each run or group it fits [O-ADD-1]."""
    ind, wrap = state.indicator, state.options.wrap
    for t in state.seats[seat].rack:
        for i, meld in enumerate(state.melds):
            if add_options(meld, t, ind, wrap):
                yield AddTile(seat=seat, tile=t, meld=i)


def _take_forms(state: Okey101State, seat: int) -> Iterator[Command]:
    """Each rack tile on each meld whose okey it stands for [O-OKEY-1]."""
    for t in state.seats[seat].rack:
        for i, meld in enumerate(state.melds):
            if take_option(meld, t, state.indicator) is not None:
                yield TakeOkey(seat=seat, tile=t, meld=i)


@DECIDERS(OpenMelds, needs=check_turn, seat=with_argument("NO_MELDS", _open_forms))
def _open_melds(state: Okey101State, cmd: OpenMelds) -> Decision:
    bad = _drew(state)
    if bad:
        return bad
    me = state.seats[cmd.seat]
    if not cmd.melds:
        return violation("NO_MELDS", "name at least one meld to lay down")
    if not isinstance(cmd.melds, tuple | list) or not all(
        isinstance(m, tuple | list) and all(is_int(t) for t in m) for m in cmd.melds
    ):
        return violation("INVALID_MELD", "each meld is a list of tile ids")
    if cmd.kinds and (len(cmd.kinds) != len(cmd.melds) or not all(isinstance(k, MeldKind) for k in cmd.kinds)):
        return violation("INVALID_MELD", "give a kind for every meld, or none")
    flat = [t for m in cmd.melds for t in m]
    if len(set(flat)) != len(flat):
        return violation("DUPLICATE_TILE", "a tile can be laid only once")
    missing = [t for t in flat if t not in me.rack]
    if missing:
        return violation("TILE_NOT_IN_RACK", f"tile {missing[0]!r} is not in your rack")
    if len(me.rack) - len(flat) < 1:
        return violation("MUST_KEEP_A_TILE", "keep at least one tile to end the turn with a discard [O-OPEN-5]")
    ind = state.indicator
    swap = next((t for t in flat if side_first(state, t, flat) != t), -1)
    named = [tuple(state.side_tile if t == swap else t for t in m) for m in cmd.melds]
    laid: list[TableMeld] = []
    for i, tiles in enumerate(named):
        try:
            meld = M.interpret_meld(
                [effective(t, ind) for t in tiles], state.options.wrap, cmd.kinds[i] if cmd.kinds else None
            )
        except M.MeldError as exc:
            return violation("INVALID_MELD", f"meld {i + 1}: {exc}")
        laid.append(TableMeld(cmd.seat, meld.kind, arrange(tiles, meld, ind), codes(meld.stands_for)))
    pairs = [m.kind is MeldKind.PAIR for m in laid]
    if any(pairs) and not all(pairs):
        return violation("MIXED_MELDS", "lay pairs and runs/groups separately")
    is_pairs = all(pairs)
    value = len(laid) if is_pairs else sum(m.value for m in laid)
    first = me.opening is Opening.NONE
    if first:
        opening = Opening.PAIRS if is_pairs else Opening.RUNS
        if is_pairs and value < state.pair_threshold:
            return violation(
                "TOO_FEW_PAIRS", f"a pair opening needs {state.pair_threshold} pairs, got {value} [O-OPEN-2] [O-OPEN-3]"
            )
        if not is_pairs and value < state.run_threshold:
            return violation(
                "BELOW_THRESHOLD", f"an opening needs {state.run_threshold} points, got {value} [O-OPEN-1] [O-OPEN-3]"
            )
    else:
        opening = me.opening
        if opening is Opening.PAIRS and not is_pairs:
            return violation("PAIR_OPENER_NO_RUNS", "a pair opener may lay new pairs, not runs or groups [O-ADD-2]")
        if opening is Opening.RUNS and is_pairs and not any(m.kind is MeldKind.PAIR for m in state.melds):
            return violation(
                "NO_PAIRS_ON_TABLE", "a run opener may lay pairs once pairs are open on the table [O-ADD-2]"
            )
    return _table_move(state, [MeldsOpened(cmd.seat, tuple(laid), opening, first, value)])


def _meld_move(state: Okey101State, seat: int, tile: int, meld: int) -> RuleViolation | None:
    """Checks shared by adding a tile and taking an okey."""
    bad = _drew(state)
    if bad:
        return bad
    me = state.seats[seat]
    if not is_int(tile) or tile not in me.rack:
        return violation("TILE_NOT_IN_RACK", f"tile {tile!r} is not in your rack")
    if me.opening is Opening.NONE:
        return violation("NOT_OPENED", "open your hand before adding to the table [O-ADD-1] [O-OKEY-1]")
    if not is_int(meld) or not 0 <= meld < len(state.melds):
        return violation("NO_SUCH_MELD", f"there is no meld {meld!r} on the table")
    target = state.melds[meld]
    if me.opening is Opening.PAIRS and target.kind is not MeldKind.PAIR and state.run_adds >= PAIR_OPENER_ADDS:
        return violation(
            "ADD_LIMIT_REACHED", "a pair opener adds at most 2 tiles per turn to runs and groups [O-ADD-3]"
        )
    return None


@DECIDERS(AddTile, needs=check_turn, seat=with_argument("TILE_NOT_IN_RACK", _add_forms))
def _add_tile(state: Okey101State, cmd: AddTile) -> Decision:
    bad = _meld_move(state, cmd.seat, cmd.tile, cmd.meld)
    if bad:
        return bad
    tile = side_first(state, cmd.tile)
    target = state.melds[cmd.meld]
    if target.kind is MeldKind.PAIR:
        return violation("CANNOT_ADD_TO_PAIR", "a pair takes no more tiles; its okey can be taken back [O-OKEY-1]")
    if len(state.seats[cmd.seat].rack) <= 1:
        return violation("MUST_KEEP_A_TILE", "keep at least one tile to end the turn with a discard [O-OPEN-5]")
    opts = add_options(target, tile, state.indicator, state.options.wrap)
    if cmd.at_start is not None:
        opts = [o for o in opts if o[0] == cmd.at_start]
    if not opts:
        return violation("TILE_DOES_NOT_FIT", f"tile {tile} does not fit meld {cmd.meld}")
    at_start, faces = opts[0]
    return _table_move(state, [TileAdded(cmd.seat, tile, cmd.meld, at_start, faces)])


@DECIDERS(TakeOkey, needs=check_turn, seat=with_argument("TILE_NOT_IN_RACK", _take_forms))
def _take_okey(state: Okey101State, cmd: TakeOkey) -> Decision:
    bad = _meld_move(state, cmd.seat, cmd.tile, cmd.meld)
    if bad:
        return bad
    tile = side_first(state, cmd.tile)
    target = state.melds[cmd.meld]
    if not any(is_real_okey(t, state.indicator) for t in target.tiles):
        return violation("NO_OKEY_IN_MELD", f"meld {cmd.meld} holds no okey")
    if group_needs_fourth(target, tile, state.indicator):
        return violation("GROUP_NEEDS_FOURTH", "add the group's fourth colour first, then take the okey [O-OKEY-1]")
    got = take_option(target, tile, state.indicator)
    if got is None:
        return violation("TILE_DOES_NOT_FIT", f"tile {tile} is not the tile the okey stands for [O-OKEY-1]")
    okey, faces = got
    return _table_move(state, [OkeyTaken(cmd.seat, tile, okey, cmd.meld, faces)])


@DECIDERS(Discard, needs=check_turn, seat=DISCARD)
def _discard(state: Okey101State, cmd: Discard) -> Decision:
    bad = _drew(state)
    if bad:
        return bad
    if not is_int(cmd.tile) or cmd.tile not in state.seats[cmd.seat].rack:
        return violation("TILE_NOT_IN_RACK", f"tile {cmd.tile!r} is not in your rack")
    if state.side_unused:
        if face_of_id(cmd.tile) == face_of_id(state.side_tile):
            return violation(
                "SIDE_TILE_DISCARD",
                "you may not discard the side tile, nor its twin, without opening or adding this turn [O-SIDE-3]",
            )
        return violation(
            "SIDE_TILE_NOT_USED",
            "lay the side tile in your opening or an add this turn, or put it back [O-SIDE-2]",
        )
    return _discard_events(state, cmd.seat, cmd.tile, cmd.now_ms)


def _discard_events(state: Okey101State, seat: int, tile: int, now_ms: int) -> list[Event]:
    """Every turn ends with a discard [O-TURN-1]; the last tile finishes the hand."""
    if len(state.seats[seat].rack) == 1:
        ev: list[Event] = [TileDiscarded(seat, tile, -1, 0)]
        return ev + _finish_events(fold(state, ev), seat, tile)
    reason = penalty_reason(
        tile, len(state.seats[seat].rack), state.melds, state.indicator, state.options, state.rules_version
    )
    last = not state.deck
    events: list[Event] = [
        TileDiscarded(seat, tile, -1 if last else (seat + 1) % state.seat_count, 0 if last else deadline(state, now_ms))
    ]
    if reason:
        events.append(PenaltyApplied(seat, FLAT_PENALTY, reason))  # [O-PEN-1] [O-PEN-2]
    if last:
        after = fold(state, events)
        points = score_exhausted([s.rack for s in after.seats], [s.opening for s in after.seats], after.indicator)
        events += _hand_end(after, HandEndReason.DECK_EXHAUSTED, -1, -1, False, False, False, 1, points)  # [D-2]
    return events


def _finish_events(state: Okey101State, seat: int, tile: int) -> list[Event]:
    """The seat discarded its last tile (the finishing tile is exempt from penalties [O-PEN-3])."""
    others_open = any(s.opening is not Opening.NONE for i, s in enumerate(state.seats) if i != seat)
    elden = state.opened_now and not others_open  # one single opening, nobody else open [O-SC-2]
    sc = score_finish(
        seat, tile, [s.rack for s in state.seats], [s.opening for s in state.seats], state.indicator, elden
    )
    return _hand_end(
        state, HandEndReason.FINISHED, seat, tile, sc.okey_finish, sc.pair_finish, sc.elden, sc.multiplier, sc.points
    )


def _hand_end(
    state: Okey101State,
    reason: HandEndReason,
    finisher: int,
    final_tile: int,
    okey_finish: bool,
    pair_finish: bool,
    elden: bool,
    multiplier: int,
    points: tuple[int, ...],
) -> list[Event]:
    opts = state.options
    n = state.seat_count
    penalties = tuple(s.penalties for s in state.seats)
    deltas = tuple(p + q for p, q in zip(points, penalties, strict=True))
    totals = tuple(s.score + d for s, d in zip(state.seats, deltas, strict=True))
    prize = opts.hand_prize if finisher >= 0 else 0
    chips = tuple(prize * (n - 1) if s == finisher else -prize for s in range(n))  # [O-DEAL-3]
    end = HandEnded101(
        hand=state.hand,
        reason=reason,
        finisher=finisher,
        final_tile=final_tile,
        okey_finish=okey_finish,
        pair_finish=pair_finish,
        elden=elden,
        multiplier=multiplier,
        points=points,
        penalties=penalties,
        deltas=deltas,
        totals=totals,
        chips=chips,
        **revealed(state),
    )
    if state.hand < opts.rounds:  # [O-DEAL-2]
        return [end]
    return [end, match_ended(totals, match_winners(totals), opts.stake * n)]  # [O-DEAL-3]


def _after_time_out(state: Okey101State) -> list[Event]:
    """A side tile that can still be put back goes back, and a deck draw completes the turn [O-SIDE-6]."""
    if state.side_unused and state.side_returnable:
        return [TileReturned(state.turn, state.side_tile), TileDrawn(state.turn, state.deck[0], DrawSource.DECK)]
    return []


def _forced_move(state: Okey101State, now_ms: int) -> Decision:
    """The minimal legal move when nobody played a timed-out turn: draw from the deck (putting a
    returnable side tile back first [O-SIDE-6]), lay a side tile that can no longer go back, then
    discard the drawn tile or another tile that costs no penalty where there is one."""
    seat = state.turn
    events: list[Event] = []
    s = state
    drawn = -1

    def run(c: Command) -> RuleViolation | None:
        nonlocal s
        got = decide(s, c)
        if isinstance(got, RuleViolation):  # pragma: no cover - an engine bug
            return got
        events.extend(got)
        s = fold(s, got)
        return None

    steps: list[Command] = []
    if s.side_unused and s.side_returnable:
        steps.append(ReturnSideTile(seat=seat))
    if s.stage is Stage.DRAW or steps:
        drawn = s.deck[0]
        steps.append(Draw(seat=seat))
    for c in steps:
        bad = run(c)
        if bad:
            return bad
    if s.side_unused:
        use = side_use(s)
        if use is None:  # pragma: no cover - table moves never leave it unusable
            return violation("SIDE_TILE_NOT_USED", "the side tile cannot be laid")
        bad = run(use)
        if bad:
            return bad
    if s.phase is not Phase.PLAYING:  # pragma: no cover
        return events
    rack = s.seats[seat].rack
    safe = [t for t in rack if not penalty_reason(t, len(rack), s.melds, s.indicator, s.options, s.rules_version)]
    choice = drawn if drawn in safe else (safe[-1] if safe else rack[-1])
    bad = run(Discard(seat=seat, tile=choice, now_ms=now_ms))
    return bad or events


# A void hand is dealt again [O-PEN-4]; a returnable side tile goes back when time runs out [O-SIDE-6].
RULES: GameRules[Okey101State] = GameRules(
    Game.OKEY101, "Okey 101", DEAL, DECIDERS, _forced_move, next_deal=_next_deal, after_time_out=_after_time_out
)
_DISPATCH = Dispatcher(RULES)
decide, can, allowed = _DISPATCH.decide, _DISPATCH.can, _DISPATCH.allowed
"""Okey 101's ``decide``, ``can`` and ``allowed``: the kernel's dispatcher on the deciders above."""
follow_ups: FollowUps[Okey101State] = follow_ups_of(decide)
"""What follows a command by itself: the next deal, with the host's shuffle (``kernel.automations``)."""

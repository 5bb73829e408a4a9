"""How far a rack is from a finish, and which unseen tiles bring it closer: the bots' hand evaluation.

A rack is ``d`` tiles away from a run-and-group finish when ``d`` of its tiles must be exchanged
for the right ones before 14 of them lie in melds. The search packs the rack like the solver
(``melds``: two bits per effective face, okeys counted apart) and, taking the lowest tile first,
either drops it or puts it in a *block*: tiles of the rack that become a run or a group once
some *wild slots* are filled (a gap in a run, a missing colour, a short meld's missing end).
A finish has exactly 14 places, so blocks are chosen to keep the most rack tiles within 14
places, wild slots included; every place a kept tile does not fill is a tile still to draw.
Okeys fill wild slots for free. Results are memoised process-wide (transposition tables).

Three searches share the memos: the count alone (``keep``: no ties kept, it stops at a known
bound), whether a count is reached (``nearer``: it stops at the first arrangement), and the
full result (``solve``: waits and spare places too, the union over every best arrangement),
which searches only the branches that reach the best count. A strong bot weighs every discard
of a 15-tile rack from one full search of it (``meld_distances``, ``waits_without``): a copy
that some best arrangement leaves out costs nothing, and the waits without it come from that
search's best branches.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from .racks import effective_table
from .tiles import TILE_COUNT

__all__ = [
    "FINISH_SIZE",
    "solve",
    "keep",
    "waits",
    "meld_distance",
    "meld_distances",
    "nearer",
    "waits_without",
    "pair_distance",
    "pair_distances",
    "Visible",
    "near_faces",
    "tile_count",
]

FINISH_SIZE = 14
"""Tiles that lie in melds at a classic finish [C-FIN-1]."""

_LOW = int("01" * 64, 2)
_HIGH = _LOW << 1
_M26 = (1 << 26) - 1
# The memos (transposition tables), process-wide, each cleared when over its limit: full results
# (``_solve``), counts alone (``_keep_capped``), bounds on counts (``_reach``), results without a
# face (``_without``), and blocks by the bits they depend on. A strong bot's decision adds about
# 100, 60, 20 and 6 of the first four (simulated games), so the limits keep the last ~2,500
# decisions' work, in about 60 MB.
_MEMO: dict[int, tuple[int, int, int, int]] = {}
_MEMO_LIMIT = 20_000
_KEEP: dict[int, int] = {}
_KEEP_LIMIT = 250_000
_BOUND: dict[int, tuple[int, int]] = {}
_BOUND_LIMIT = 150_000
_FACE: dict[int, tuple[int, int]] = {}
_FACE_LIMIT = 50_000
_BLOCKS: dict[int, tuple[tuple[int, int, int, int, int], ...]] = {}
_BLOCKS_LIMIT = 100_000
# The exact counts of the racks a discard leaves (``meld_distances``), apart from the search's
# memos: a seat's next draw asks for its rack's count again, and with many tables in one process
# thousands of other decisions come in between, enough to clear the big memos (about 200 counts
# a decision) several times. These are about 7 a decision: the limit keeps ~14,000 decisions'.
_KEPT: dict[int, int] = {}
_KEPT_LIMIT = 100_000

Block = tuple[int, int, int, int, int]
"""(the other rack tiles it takes, as packed counts; rack tiles in it; wild slots it needs; the
faces that would fill a wild slot; the faces that would lengthen it), faces as 52-bit masks."""

Solved = tuple[int, int, int]
"""(most tiles kept; faces that would keep one more in some best arrangement; most spare places)."""

Full = tuple[int, int, int, int]
"""``Solved`` and the faces (packed, bit ``2f``) some best arrangement leaves out."""


def tile_count(x: int) -> int:
    """Tiles in a packed rack (each face's two-bit count summed)."""
    return (x & _LOW).bit_count() + 2 * (x & _HIGH).bit_count()


def _near_mask(f: int, wrap: bool) -> int:
    c, n0 = divmod(f, 13)
    m = 0
    for d in (-2, -1, 1, 2):
        k = n0 + d
        if wrap:
            k %= 13
        if 0 <= k < 13:
            m |= 1 << (c * 13 + k)
    for c2 in range(4):
        if c2 != c:
            m |= 1 << (c2 * 13 + n0)
    return m


def _run_block(c: int, lo: int, hi: int, taken: int, r: int, gaps: int, wrap_end: bool, wrap: bool) -> Block:
    """A run block of colour ``c`` over numbers ``lo..hi`` (0-based; with ``wrap_end`` a 1 follows
    ``hi`` = 12); ``gaps`` is the mask of the wild places inside it."""
    base = c * 13
    length = hi - lo + 1 + wrap_end
    below = 1 << (base + lo - 1) if lo >= 1 else 0
    above = 0
    if not wrap_end:
        if hi <= 11:
            above = 1 << (base + hi + 1)
        elif wrap and lo >= 1:
            above = 1 << base  # the 1 after 13 [M-RUN-2]
    ends = below | above
    w = gaps.bit_count()
    if length >= 3:
        return (taken, r, w, gaps, ends)
    return (taken, r, w + 1, gaps | ends, ends)


def _make_blocks(xr: int, f: int, wrap: bool) -> tuple[Block, ...]:
    c, n0 = divmod(f, 13)
    near = _near_mask(f, wrap)
    out: list[Block] = [(0, 1, 2, near, near)]  # the tile alone, two wild slots beside it
    # Groups: the same number in other colours (lower colours are already used up) [M-GRP-1].
    others = [c2 for c2 in range(c + 1, 4) if (xr >> (2 * (c2 * 13 + n0))) & 3]
    for mask in range(1, 1 << len(others)):
        taken = 0
        used = {c}
        for i, c2 in enumerate(others):
            if mask >> i & 1:
                taken += 1 << (2 * (c2 * 13 + n0))
                used.add(c2)
        r = len(used)
        missing = 0
        for c2 in range(4):
            if c2 not in used:
                missing |= 1 << (c2 * 13 + n0)
        w = max(0, 3 - r)
        out.append((taken, r, w, missing if w else 0, missing))
    base = c * 13
    # Runs upward from the tile: each later place a rack tile or a wild slot (at most two) [M-RUN-1].
    stack = [(n0 + 1, 0, 1, 0)]
    while stack:
        p, taken, r, gaps = stack.pop()
        if p > 12:
            continue
        if (xr >> (2 * (base + p))) & 3:
            nt = taken + (1 << (2 * (base + p)))
            out.append(_run_block(c, n0, p, nt, r + 1, gaps, False, wrap))
            stack.append((p + 1, nt, r + 1, gaps))
        if gaps.bit_count() < 2:
            stack.append((p + 1, taken, r, gaps | (1 << (base + p))))
    if wrap and n0 == 0:
        # The 1 after 13, at a run's end only [M-RUN-2]: places 13, 12, ... downward.
        stack = [(12, 0, 1, 0)]
        while stack:
            p, taken, r, gaps = stack.pop()
            if p < 1:
                continue
            if (xr >> (2 * (base + p))) & 3:
                nt = taken + (1 << (2 * (base + p)))
                out.append(_run_block(c, p, 12, nt, r + 1, gaps, True, wrap))
                stack.append((p - 1, nt, r + 1, gaps))
            if gaps.bit_count() < 2:
                stack.append((p - 1, taken, r, gaps | (1 << (base + p))))
    out.sort(key=lambda b: (-b[1], b[2]))
    return tuple(out)


_BLOCK_KEY = tuple(
    (26 * (f // 13), 2 * (f % 13), sum(3 << (26 * c2) for c2 in range(f // 13 + 1, 4))) for f in range(52)
)
"""Per face: where its colour's counts start, where its number is, the other colours' counts
there (shifted down by the number) that a group could take."""


def _blocks(xr: int, f: int, wrap: bool) -> tuple[Block, ...]:
    """Blocks holding the lowest tile ``f``; they depend only on ``f``'s colour and number, so
    they are cached by those bits."""
    sc, sn, groups = _BLOCK_KEY[f]
    key = (((((xr >> sn) & groups) << 26 | (xr >> sc) & _M26) << 7 | f) << 1) | wrap
    hit = _BLOCKS.get(key)
    if hit is None:
        if len(_BLOCKS) > _BLOCKS_LIMIT:
            _BLOCKS.clear()
        hit = _BLOCKS[key] = _make_blocks(xr, f, wrap)
    return hit


def _solve(x: int, places: int, wrap: bool, kept: int = -1) -> Full:
    """``solve`` and, fourth, the faces some best arrangement leaves out (packed: bit ``2f``).

    The most tiles kept comes first, from the search for the count alone (``_keep_capped``);
    then only the branches that reach it (``_reach``) are searched for waits, spare places and
    faces left out: the union over every best arrangement, as a search keeping ties finds.
    ``kept``, when known (not -1), is the most tiles kept."""
    if x == 0 or places < 3:
        return (0, 0, places, (x | x >> 1) & _LOW)
    key = (x << 6) | (places << 1) | wrap
    hit = _MEMO.get(key)
    if hit is not None:
        return hit
    if len(_MEMO) > _MEMO_LIMIT:
        _MEMO.clear()
    room = (x & _LOW).bit_count() + 2 * (x & _HIGH).bit_count()
    best = kept if kept >= 0 else _keep_capped(x, places, wrap, room if room < places else places)
    low = ((x & -x).bit_length() - 1) >> 1
    one = 1 << (2 * low)
    xr = x - one
    waits = 0
    spare = -1
    left = 0
    if _reach(xr, places, wrap, best):  # the tile left out (xr keeps at most best)
        _, waits, spare, left = _solve(xr, places, wrap, best)
        left |= one
    # Tiles of y = xr - taken: tiles(x) - r; a block keeps at most its place count.
    for taken, r, w, fill, ends in _blocks(xr, low, wrap):
        need = r + w
        if need > places:
            continue
        rest = places - need
        if r + (room - r if room - r < rest else rest) < best:
            continue
        y = xr - taken
        if not _reach(y, rest, wrap, best - r):  # y keeps at most best - r
            continue
        _, m, s, lo = _solve(y, rest, wrap, best - r)
        waits |= m | fill | (ends if s >= 1 else 0)
        if s > spare:
            spare = s
        left |= lo
    out = (best, waits, spare, left)
    _MEMO[key] = out
    return out


def solve(x: int, places: int, wrap: bool) -> Solved:
    """The most tiles of packed rack ``x`` (okeys left out) that blocks fitting in ``places`` can
    hold; the faces that, added, would let one more be held (they fill a wild slot, or lengthen a
    block into a spare place, in some best arrangement); and the most places left spare."""
    best, waits, spare, _ = _solve(x, places, wrap)
    return (best, waits, spare)


def _keep_capped(x: int, places: int, wrap: bool, cap: int) -> int:
    """``keep(x, places, wrap)`` when it is known to be at most ``cap``: a search for the most
    tiles alone (no ties kept; blocks holding the most tiles first, leaving the tile out last),
    which stops as soon as it reaches ``cap``."""
    if x == 0 or places < 3:
        return 0
    key = (x << 6) | (places << 1) | wrap
    got = _KEEP.get(key)
    if got is not None:
        return got
    hit = _MEMO.get(key)
    if hit is not None:
        return hit[0]
    return _keep_search(x, places, wrap, cap, key)


def _keep_search(x: int, places: int, wrap: bool, cap: int, key: int) -> int:
    """``_keep_capped`` for a rack of 3 places or more that neither memo holds (``key``: its key)."""
    if len(_KEEP) > _KEEP_LIMIT:
        _KEEP.clear()
    low = ((x & -x).bit_length() - 1) >> 1
    xr = x - (1 << (2 * low))
    room = (x & _LOW).bit_count() + 2 * (x & _HIGH).bit_count()
    if room < cap:
        cap = room
    if places < cap:
        cap = places
    best = 0
    for taken, r, w, _fill, _ends in _blocks(xr, low, wrap):
        need = r + w
        if need > places:
            continue
        # Tiles kept at most: r + min(room - r, rest), that is min(room, places - w); cap <= room.
        bound = places - w
        if bound > cap:
            bound = cap
        if bound <= best:
            continue
        v = r + _keep_capped(xr - taken, places - need, wrap, bound - r)  # each memo looked up once
        if v > best:
            best = v
            if best >= cap:
                break
    if best < cap:
        bound = room - 1 if room - 1 < places else places  # the tile left out
        if bound > cap:
            bound = cap
        if bound > best:
            v = _keep_capped(xr, places, wrap, bound)
            if v > best:
                best = v
    _KEEP[key] = best
    return best


def _reach(x: int, places: int, wrap: bool, t: int) -> bool:
    """Whether ``keep(x, places, wrap) >= t``: a search that stops at the first arrangement
    keeping ``t`` (blocks holding the most tiles tried first), and remembers what it proved."""
    if t <= 0:
        return True
    if x == 0 or places < 3:
        return False
    key = (x << 6) | (places << 1) | wrap
    got = _KEEP.get(key)
    if got is not None:
        return got >= t
    known = _BOUND.get(key)
    if known is not None:
        lo, hi = known
        if lo >= t:
            return True
        if hi < t:
            return False
    else:
        hit = _MEMO.get(key)
        if hit is not None:
            return hit[0] >= t
        lo, hi = 0, places
    if len(_BOUND) > _BOUND_LIMIT:
        _BOUND.clear()
    low = ((x & -x).bit_length() - 1) >> 1
    xr = x - (1 << (2 * low))
    room = (xr & _LOW).bit_count() + 2 * (xr & _HIGH).bit_count() + 1
    if room < t or places < t:
        _BOUND[key] = (lo, t - 1)
        return False
    slack = places - t  # a block keeps t at most when it needs more wild slots: r + min(room - r, rest) < t
    for taken, r, w, _fill, _ends in _blocks(xr, low, wrap):
        if w > slack or r + w > places:
            continue
        if _reach(xr - taken, places - r - w, wrap, t - r):
            _BOUND[key] = (t, hi)
            return True
    if _reach(xr, places, wrap, t):
        _BOUND[key] = (t, hi)
        return True
    _BOUND[key] = (lo, t - 1)
    return False


def _without(x: int, places: int, wrap: bool, e: int) -> tuple[int, int]:
    """``solve(x - e, places, wrap)``'s waits and spare, for a face ``e`` of ``x`` that some best
    arrangement of ``x`` leaves out. The best arrangements of ``x`` less one ``e`` are those of
    ``x`` that leave an ``e`` out, so this walks only the best branches of ``x``'s search (its
    memo) whose rest can still leave an ``e`` out."""
    one = 1 << (2 * e)
    if places < 3 or x == one:
        return (0, places)
    key = (((x << 6) | (places << 1) | wrap) << 6) | e
    hit = _FACE.get(key)
    if hit is not None:
        return hit
    if len(_FACE) > _FACE_LIMIT:
        _FACE.clear()
    low = ((x & -x).bit_length() - 1) >> 1
    xr = x - (1 << (2 * low))
    if low == e:
        out = _solve(xr, places, wrap)[1:3]
        _FACE[key] = out
        return out
    best = _solve(x, places, wrap)[0]
    waits = 0
    spare = -1
    if _reach(xr, places, wrap, best) and _solve(xr, places, wrap, best)[3] & one:
        waits, spare = _without(xr, places, wrap, e)
    room = (xr & _LOW).bit_count() + 2 * (xr & _HIGH).bit_count() + 1
    for taken, r, w, fill, ends in _blocks(xr, low, wrap):
        need = r + w
        if need > places:
            continue
        rest = places - need
        y = xr - taken
        if not (y >> (2 * e)) & 3 or r + (room - r if room - r < rest else rest) < best:
            continue
        if not _reach(y, rest, wrap, best - r) or not _solve(y, rest, wrap, best - r)[3] & one:
            continue
        m, sp = _without(y, rest, wrap, e)
        waits |= m | fill | (ends if sp >= 1 else 0)
        if sp > spare:
            spare = sp
    out = (waits, spare)
    _FACE[key] = out
    return out


def keep(x: int, places: int, wrap: bool) -> int:
    """Most tiles of packed rack ``x`` (okeys left out) that blocks fitting in ``places`` can hold."""
    kept = _KEPT.get((x << 6) | (places << 1) | wrap)
    if kept is not None:
        return kept
    tiles = (x & _LOW).bit_count() + 2 * (x & _HIGH).bit_count()
    return _keep_capped(x, places, wrap, tiles if tiles < places else places)


def _waits(kept: int, mask: int, spare: int, j: int, size: int) -> int:
    if min(kept, size - j) >= size - j:
        return 0
    if spare >= 3:
        return (1 << 52) - 1
    return mask


def waits(x: int, j: int, wrap: bool = True, size: int = FINISH_SIZE) -> int:
    """The faces (a 52-bit mask) that, drawn, bring a ``size``-tile rack one exchange closer to a
    finish by runs and groups; every face when the rack has room for a new meld."""
    kept, mask, spare, _ = _solve(x, size, wrap)
    return _waits(kept, mask, spare, j, size)


def waits_without(x: int, j: int, e: int, wrap: bool = True, size: int = FINISH_SIZE) -> int:
    """``waits(x - e, j, wrap, size)``: the waits of the rack without one copy of face ``e``,
    from the search of ``x`` (shared by every discard) when some best arrangement leaves an
    ``e`` out."""
    one = 1 << (2 * e)
    kept, _, _, left = _solve(x, size, wrap)
    if not left & one:
        return waits(x - one, j, wrap, size)
    mask, spare = _without(x, size, wrap, e)
    return _waits(kept, mask, spare, j, size)


def meld_distance(x: int, j: int, wrap: bool = True, size: int = FINISH_SIZE) -> int:
    """Tiles still to exchange before ``size`` tiles of the rack (``x`` packed, ``j`` okeys) lie
    in runs and groups. For a 15-tile rack this is the distance after the best discard; 0 means
    it finishes now. An okey fills any wild slot, and a spare okey any meld's end."""
    kept = min(keep(x, size, wrap), size - j)
    return max(0, size - j - kept)


def nearer(x: int, j: int, d: int, wrap: bool = True, size: int = FINISH_SIZE) -> bool:
    """Whether ``meld_distance(x, j, wrap, size) < d``: a search that stops at the first
    arrangement near enough."""
    cap = size - j
    return d > 0 and (cap - d + 1 <= 0 or _reach(x, size, wrap, cap - d + 1))


def meld_distances(x: int, j: int, faces: Iterable[int], wrap: bool = True, size: int = FINISH_SIZE) -> dict[int, int]:
    """``meld_distance(x - e, j)`` for each face ``e`` of ``faces`` (each in ``x``): the rack
    without one copy of each. A copy some best arrangement of ``x`` leaves out costs nothing, so
    one search of ``x`` answers those. Without any other, the rack keeps fewer: one fewer when a
    search that stops at the first such arrangement finds one (nearly always), else what the
    search for the count alone finds. Each count is exact, so it is remembered as the count of
    that rack: the rack a bot keeps after its discard is counted again at its next draw (``keep``
    looks in a memo of these counts alone, which outlives the search's)."""
    kept, _, _, left = _solve(x, size, wrap)
    cap = size - j
    out: dict[int, int] = {}
    if len(_KEEP) > _KEEP_LIMIT:
        _KEEP.clear()
    if len(_KEPT) > _KEPT_LIMIT:
        _KEPT.clear()
    for e in faces:
        one = 1 << (2 * e)
        if left & one:
            k = kept
        elif _reach(x - one, size, wrap, kept - 1):
            k = kept - 1
        else:
            k = _keep_capped(x - one, size, wrap, kept - 2)
        if x != one:
            key = ((x - one) << 6) | (size << 1) | wrap
            _KEEP[key] = _KEPT[key] = k
        out[e] = max(0, cap - min(k, cap))
    return out


def _pairs_and_singles(x: int) -> tuple[int, int]:
    """How many pairs and how many single copies the packed rack ``x`` holds."""
    pairs = 0
    singles = 0
    y = x
    while y:
        low = ((y & -y).bit_length() - 1) >> 1
        cnt = (y >> (2 * low)) & 3
        pairs += cnt // 2
        singles += cnt % 2
        y &= ~(3 << (2 * low))
    return pairs, singles


def _pairs_missing(pairs: int, singles: int, j: int) -> int:
    """Pairs still missing from seven when ``j`` okeys complete singles first, then pair up."""
    used = min(j, singles)
    return max(0, 7 - (pairs + used + (j - used) // 2))


def pair_distance(x: int, j: int) -> int:
    """Pairs still missing from seven [C-FIN-2]: okeys complete singles, two okeys pair up."""
    return _pairs_missing(*_pairs_and_singles(x), j)


def pair_distances(x: int, j: int, faces: Iterable[int]) -> dict[int, int]:
    """``pair_distance(x - e, j)`` for each face ``e`` of ``faces`` (each in ``x``): the rack
    without one copy of each, from one count of its pairs and singles."""
    pairs, singles = _pairs_and_singles(x)
    out: dict[int, int] = {}
    for e in faces:
        cnt = (x >> (2 * e)) & 3
        # one copy less: a pair becomes a single, a single goes
        out[e] = _pairs_missing(pairs - cnt // 2 + (cnt - 1) // 2, singles - cnt % 2 + (cnt - 1) % 2, j)
    return out


@functools.cache
def _every_face(indicator: int) -> tuple[int, ...]:
    """Copies of each effective face in the whole set (index 52: wild okeys), under ``indicator``."""
    table = effective_table(indicator)
    counts = [0] * 53
    for t in range(TILE_COUNT):
        e = table[t]
        counts[52 if e < 0 else e] += 1
    return tuple(counts)


class Visible:
    """Tiles a seat can account for (its rack, visible discards, the indicator) and so how many
    of each effective face are still unseen: in other racks or the deck. Index 52 counts wild okeys."""

    __slots__ = ("total_unseen", "unseen")

    def __init__(self, indicator: int, seen: Iterable[int]) -> None:
        table = effective_table(indicator)
        unseen = list(_every_face(indicator))
        for t in seen:
            if 0 <= t < TILE_COUNT:
                e = table[t]
                unseen[52 if e < 0 else e] -= 1
        self.unseen = [max(0, u) for u in unseen]
        self.total_unseen = sum(self.unseen)

    def of(self, face: int) -> int:
        """Unseen copies of an effective face index (-1 for the okey)."""
        return self.unseen[52 if face < 0 else face]


def near_faces(faces: Sequence[int], wrap: bool = True) -> list[int]:
    """Effective faces that could share a run or a group with one of ``faces``: the same colour
    within two numbers (13 and 1 are neighbours with ``wrap``), or the same number."""
    out: set[int] = set()
    for f in faces:
        if f < 0:
            continue
        c, n0 = divmod(f, 13)
        for d in (-2, -1, 0, 1, 2):
            m = n0 + d
            if wrap:
                m %= 13
            if 0 <= m < 13:
                out.add(c * 13 + m)
        for c2 in range(4):
            out.add(c2 * 13 + n0)
    return sorted(out)

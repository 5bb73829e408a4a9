"""What can be formed from tiles: runs, groups, pairs, finish checks and best arrangements.

The solver works on *effective faces* (a fake okey already turned into the okey's face
[T-FAKE-1]) and a count of wild okeys [T-OKEY-2]. A multiset of faces is packed into one int,
two bits per face (colour-major index 0..51), so states are cheap to hash and memoise.
The search always takes the lowest remaining tile and tries every meld it can belong to whose
other real tiles are all higher; real tiles are preferred to okeys where both fit, which loses
nothing because an okey can stand wherever the real tile would have gone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations

from .tiles import Colour, Face, face_from_index

__all__ = [
    "MeldKind",
    "Meld",
    "Packed",
    "pack",
    "can_cover",
    "find_cover",
    "best_cover",
    "best_points",
    "count_pairs",
    "interpret_meld",
    "MeldError",
]

NEG = -(10**9)


class MeldError(ValueError):
    """A proposed meld that is not a run, a group or a pair."""


class MeldKind(StrEnum):
    RUN = "RUN"  # seri [M-RUN-1]
    GROUP = "GROUP"  # per [M-GRP-1]
    PAIR = "PAIR"  # çift [M-PAIR-1]


@dataclass(frozen=True, slots=True)
class Meld:
    """A meld as laid down. ``stands_for[i]`` is the face tile ``i`` plays as (an okey's
    represented face, a fake okey's okey face, else the tile's own face)."""

    kind: MeldKind
    stands_for: tuple[Face, ...]
    jokers: tuple[bool, ...]

    @property
    def value(self) -> int:
        """Sum of the faces the tiles stand for; a 1 after 13 counts 1 [M-RUN-3]."""
        return sum(f.number for f in self.stands_for)

    def __len__(self) -> int:
        return len(self.stands_for)


# ---------------------------------------------------------------- packing

Packed = tuple[int, int]
"""(two-bit counts of effective faces, number of wild okeys)."""


def pack(effective: Sequence[Face | None]) -> Packed:
    """Pack effective faces (None = wild okey) into the solver's state."""
    x = 0
    j = 0
    for f in effective:
        if f is None:
            j += 1
        else:
            x += 1 << (2 * f.index)
    return x, j


def _count(x: int, f: int) -> int:
    return (x >> (2 * f)) & 3


# ---------------------------------------------------------------- meld options

# An option: (residual counts, residual jokers, value of the meld, description).
# Description: ("G", number, real colours tuple, jokers) or ("R", colour, start, end, joker positions).
Option = tuple[int, int, int, tuple[object, ...]]


def _options(xr: int, f: int, j: int, wrap: bool) -> Iterator[Option]:
    """Every meld holding the lowest tile ``f`` (already removed from ``xr``)."""
    c, n0 = divmod(f, 13)
    n = n0 + 1
    # Groups: other colours of the same number; lower colours are already used up.
    reals = [c2 for c2 in range(c + 1, 4) if (xr >> (2 * (c2 * 13 + n0))) & 3]
    for size in range(len(reals) + 1):
        for sub in combinations(reals, size):
            m = 1 + size
            for k in range(max(0, 3 - m), min(j, 4 - m) + 1):
                y = xr
                for c2 in sub:
                    y -= 1 << (2 * (c2 * 13 + n0))
                yield y, j - k, n * (m + k), ("G", n, (c, *sub), k)
    base = c * 13
    # Runs with the tile at its own position, okeys possibly leading.
    for k0 in range(min(j, n - 1) + 1):
        s = n - k0
        jj = j - k0
        y = xr
        jpos = tuple(range(s, n))
        length = k0 + 1
        value = sum(range(s, n + 1))
        p = n
        while True:
            if length >= 3:
                yield y, jj, value, ("R", c, s, p, jpos)
            p += 1
            if p <= 13:
                bit = 1 << (2 * (base + p - 1))
                if y & (3 << (2 * (base + p - 1))):
                    y -= bit
                elif jj:
                    jj -= 1
                    jpos = (*jpos, p)
                else:
                    break
                value += p
            elif p == 14 and wrap and s >= 2:
                # The 1 after 13 is lower in order, so it is already used: only an okey fits.
                if not jj:
                    break
                jj -= 1
                jpos = (*jpos, p)
                value += 1
            else:
                break
            length += 1
    # A 1 standing after 13 at the end of a wrapped run [M-RUN-2].
    if wrap and n == 1:
        y = xr
        jj = j
        jpos2: tuple[int, ...] = ()
        value = 1
        length = 1
        for p in range(13, 1, -1):
            fi = base + p - 1
            if y & (3 << (2 * fi)):
                y -= 1 << (2 * fi)
            elif jj:
                jj -= 1
                jpos2 = (p, *jpos2)
            else:
                break
            value += p
            length += 1
            if length >= 3:
                yield y, jj, value, ("R", c, p, 14, jpos2)


def _describe(desc: tuple[object, ...], okey_face: Face | None) -> Meld:
    if desc[0] == "G":
        _, n, colours, k = desc
        assert isinstance(n, int) and isinstance(colours, tuple) and isinstance(k, int)
        free = [c for c in range(4) if c not in colours][:k]
        faces = tuple(face_from_index(c * 13 + n - 1) for c in (*colours, *free))
        return Meld(MeldKind.GROUP, faces, (False,) * len(colours) + (True,) * k)
    _, c, s, e, jpos = desc
    assert isinstance(c, int) and isinstance(s, int) and isinstance(e, int) and isinstance(jpos, tuple)
    base = c * 13 - 1
    faces = tuple(face_from_index(base + (p if p <= 13 else 1)) for p in range(s, e + 1))
    return Meld(MeldKind.RUN, faces, tuple(p in jpos for p in range(s, e + 1)))


# ---------------------------------------------------------------- searches


# Subsets of r group partners by size, then as combinations() gives them (the order of _options).
_SUBSETS = tuple(tuple(sorted(range(1 << r), key=lambda m: (m.bit_count(), m))) for r in range(4))


def _residuals(xr: int, f: int, j: int, wrap: bool) -> dict[tuple[int, int], None]:
    """The distinct (counts, okeys) left after each meld holding the lowest tile ``f``; the
    lean twin of :func:`_options` for yes/no searches. A dict used as an ordered set: in the
    order :func:`_options` yields them, so reversed it goes from the melds that take the most
    tiles (long runs, groups of four) to those that take the fewest, which finds covers sooner."""
    out: dict[tuple[int, int], None] = {}
    c, n0 = divmod(f, 13)
    n = n0 + 1
    sh = [2 * (c2 * 13 + n0) for c2 in range(c + 1, 4)]
    reals = [b for b in sh if (xr >> b) & 3]
    r = len(reals)
    for mask in _SUBSETS[r]:
        y = xr
        m = 1
        for i in range(r):
            if mask >> i & 1:
                y -= 1 << reals[i]
                m += 1
        for k in range(max(0, 3 - m), min(j, 4 - m) + 1):
            out[y, j - k] = None
    base2 = 2 * c * 13
    for k0 in range(min(j, n - 1) + 1):
        jj = j - k0
        y = xr
        length = k0 + 1
        p = n
        while True:
            if length >= 3:
                out[y, jj] = None
            p += 1
            if p <= 13:
                b = base2 + 2 * (p - 1)
                if (y >> b) & 3:
                    y -= 1 << b
                elif jj:
                    jj -= 1
                else:
                    break
            elif p == 14 and wrap and k0 < n - 1:
                if not jj:
                    break
                jj -= 1
            else:
                break
            length += 1
    if wrap and n == 1:
        y = xr
        jj = j
        length = 1
        for p in range(13, 1, -1):
            b = base2 + 2 * (p - 1)
            if (y >> b) & 3:
                y -= 1 << b
            elif jj:
                jj -= 1
            else:
                break
            length += 1
            if length >= 3:
                out[y, jj] = None
    return out


_M26 = (1 << 26) - 1
_LOW = int("01" * 64, 2)  # the low bit of every two-bit slot
_M128 = (1 << 128) - 1
_SLOT0 = sum(1 << (32 * c) for c in range(4))  # slot 0 of each colour
_FACES = sum(((1 << 26) - 1) << (32 * c + 2) for c in range(4))  # slots 1..13 of each colour


def _layout(bits: int, wrap: bool) -> int:
    """Spread 52 two-bit face slots into four colours of 16 slots (32 bits) each, position p
    at slot p, with the 1 repeated at slot 14 when ``wrap``; slots 0 and 15 stay empty."""
    out = (
        ((bits & _M26) << 2)
        | (((bits >> 26) & _M26) << 34)
        | (((bits >> 52) & _M26) << 66)
        | (((bits >> 78) & _M26) << 98)
    )
    if wrap:
        out |= (out & (_SLOT0 << 2)) << 26  # the low bit of slot 1 again at slot 14
    return out


def _isolated(x: int, j: int, wrap: bool) -> int:
    """How many tiles fit no meld at all with the other tiles and ``j`` okeys (0 when j >= 2).
    Bit-parallel over all colours: run neighbours are shifts within a colour (the empty
    padding slots stop them bleeding), group partners are rotations by a whole colour."""
    if j >= 2:
        return 0
    m = _layout((x | (x >> 1)) & _LOW, wrap)
    a = ((m << 32) | (m >> 96)) & _M128
    b = ((m << 64) | (m >> 64)) & _M128
    d = ((m << 96) | (m >> 32)) & _M128
    if j == 0:
        ok = ((m << 2) & (m >> 2)) | ((m >> 2) & (m >> 4)) | ((m << 2) & (m << 4))
        ok |= (a & b) | (a & d) | (b & d)
    else:
        ok = (m << 2) | (m >> 2) | (m << 4) | (m >> 4) | a | b | d
    if wrap:
        ok |= (ok >> 26) & (_SLOT0 << 2)  # a 1 that fits after 13 fits
    bad = m & ~ok & _FACES
    if not bad:
        return 0
    dbl = _layout(x & (x >> 1) & _LOW, False)
    return bad.bit_count() + (bad & dbl).bit_count()


# Answers depend only on the state, so one table serves every call in the process (a
# transposition table); it is dropped whole when it grows past the limit. A state found
# coverable with no skips left holds, instead of True, the state its first meld leaves: the
# cover :func:`find_cover` follows.
Cover = bool | tuple[int, int]
_COVER_MEMO: dict[bool, dict[int, Cover]] = {False: {}, True: {}}
_COVER_MEMO_LIMIT = 2_000_000


def _cover_search(wrap: bool) -> Callable[[int, int, int], bool]:
    """The can-cover search, ``rec(x, j, skips)``, memoised in the process-wide table."""
    memo = _COVER_MEMO[wrap]
    if len(memo) > _COVER_MEMO_LIMIT:
        memo.clear()

    def rec(x: int, j: int, skips: int) -> bool:
        if x == 0:
            return j <= skips
        key = (x << 8) | (j << 4) | skips  # j and skips below 16: no two states share a key
        hit = memo.get(key)
        if hit is not None:
            return hit is not False
        low = ((x & -x).bit_length() - 1) >> 1
        xr = x - (1 << (2 * low))
        res: Cover = False
        if j < 2 and _isolated(x, j, wrap) > skips:
            pass
        elif skips and rec(xr, j, skips - 1):
            res = True
        else:  # biggest melds first: a cover, when there is one, is found sooner
            for y, jj in reversed(_residuals(xr, low, j, wrap)):
                if rec(y, jj, skips):
                    res = True if skips else (y, jj)
                    break
        memo[key] = res
        return res is not False

    return rec


def can_cover(x: int, j: int, skips: int, wrap: bool) -> bool:
    """Can every tile but at most ``skips`` (okeys included) be laid in runs and groups?"""
    if not (0 <= j < 16 and 0 <= skips < 16):
        raise ValueError("can_cover takes 0..15 okeys and skips")
    if x == 0:
        return j <= skips
    if _isolated(x, j, wrap) > skips:
        return False  # tiles that fit no meld at all must be among the skipped ones
    return _cover_search(wrap)(x, j, skips)


def find_cover(x: int, j: int, wrap: bool) -> list[Meld] | None:
    """Every tile, okeys included, laid in runs and groups, or None when they cannot all be
    (exactly when :func:`can_cover` with no skips says no). The melds are read off the search
    that decides it, which keeps for each state it finds coverable what its first meld leaves:
    the arrangement costs about what the check does."""
    if not 0 <= j < 16:
        raise ValueError("find_cover takes 0..15 okeys")
    if x == 0:
        return [] if j == 0 else None
    rec = _cover_search(wrap)
    if not rec(x, j, 0):  # its first step drops racks with a tile that fits no meld (_isolated)
        return None
    memo = _COVER_MEMO[wrap]
    melds: list[Meld] = []
    while x:
        child = memo[(x << 8) | (j << 4)]  # what the search laid first from here
        assert isinstance(child, tuple)
        low = ((x & -x).bit_length() - 1) >> 1
        y, jj = child
        melds.append(_cover_meld(low, x - (1 << (2 * low)) - y, j - jj, wrap))
        x, j = y, jj
    return melds


# Run positions 1..14 of each colour as faces (position p at index p - 1; 14 is the 1 after
# 13), and each position's number.
_RUN_FACES = tuple(tuple(face_from_index(13 * c + p % 13) for p in range(14)) for c in range(4))
_POS_NUMBER = (0, *range(1, 14), 1)


def _cover_meld(low: int, taken: int, k: int, wrap: bool) -> Meld:
    """The meld a cover search laid for its lowest tile ``low``: with it the real tiles
    ``taken`` (packed, one of each face) and ``k`` okeys. A group when they share a number,
    else a run: the okeys fill its gaps, then stand where they are worth most [M-OKEY-1]."""
    c, n0 = divmod(low, 13)
    faces = [low]
    same_number = True
    t = taken
    while t:
        f = ((t & -t).bit_length() - 1) >> 1
        faces.append(f)
        same_number = same_number and f % 13 == n0
        t -= 1 << (2 * f)
    size = len(faces) + k
    if same_number and size <= 4:
        colours = [f // 13 for f in faces]
        colours += [c2 for c2 in range(4) if c2 not in colours][:k]
        stands = tuple([face_from_index(c2 * 13 + n0) for c2 in colours])
        return Meld(MeldKind.GROUP, stands, (False,) * len(faces) + (True,) * k)
    low_n, high_n = n0 + 1, faces[-1] - 13 * c + 1  # the real numbers' range
    s = min(low_n, 14 - size)  # the highest window of positions s..e holding them all
    if s < 1 or s + size - 1 < high_n:
        # Only with the 1 after 13 [M-RUN-2]: then the 1 is at 14 and the lowest real is faces[1].
        s = 15 - size
        assert wrap and low_n == 1 and s >= 2 and s <= faces[1] - 13 * c + 1, (faces, k)
    nums = 0  # bit n: number n is a real tile of the run
    for f in faces:
        nums |= 2 << (f - 13 * c)
    e = s + size - 1
    jokers = tuple([not nums >> _POS_NUMBER[p] & 1 for p in range(s, e + 1)])
    return Meld(MeldKind.RUN, _RUN_FACES[c][s - 1 : e], jokers)


def _maximise(
    x: int, j: int, wrap: bool, value: Callable[[int, int], int], must_leave: bool
) -> tuple[int, list[tuple[object, ...]]]:
    """Best total over disjoint melds; ``value(tiles, points)`` scores one meld. With
    ``must_leave`` at least one tile (an okey counts) stays out of the melds."""
    memo: dict[int, int] = {}

    def rec(x: int, j: int, left: int) -> int:
        if x == 0:
            return 0 if (left or j or not must_leave) else NEG
        key = (x << 3) | (j << 1) | left
        hit = memo.get(key)
        if hit is not None:
            return hit
        low = ((x & -x).bit_length() - 1) >> 1
        xr = x - (1 << (2 * low))
        best = rec(xr, j, 1)
        for y, jj, pts, d in _options(xr, low, j, wrap):
            size = len(d[2]) + d[3] if d[0] == "G" else d[3] - d[2] + 1  # type: ignore[operator, arg-type]
            v = value(size, pts)
            if v + best <= best and v <= 0:
                continue
            r = rec(y, jj, left)
            if r > NEG and v + r > best:
                best = v + r
        memo[key] = best
        return best

    return _walk(x, j, wrap, value, rec)


def _walk(
    x: int, j: int, wrap: bool, value: Callable[[int, int], int], rec: Callable[[int, int, int], int]
) -> tuple[int, list[tuple[object, ...]]]:
    """The best total ``rec(x, j, 0)`` and one arrangement reaching it, read off ``rec`` (exact
    values of each state, ``left`` 1 once a tile stays out): at each lowest tile, leaving it
    out when that keeps the total, else the first meld of :func:`_options` that does."""
    total = rec(x, j, 0)
    melds: list[tuple[object, ...]] = []
    if total <= NEG:
        return NEG, melds
    left = 0
    while x:
        low = ((x & -x).bit_length() - 1) >> 1
        xr = x - (1 << (2 * low))
        target = rec(x, j, left)
        if rec(xr, j, 1) == target:
            x, left = xr, 1
            continue
        for y, jj, pts, d in _options(xr, low, j, wrap):
            size = len(d[2]) + d[3] if d[0] == "G" else d[3] - d[2] + 1  # type: ignore[operator, arg-type]
            r = rec(y, jj, left)
            if r > NEG and value(size, pts) + r == target:
                melds.append(d)
                x, j = y, jj
                break
        else:  # pragma: no cover - the memo guarantees a matching option
            raise AssertionError("solver reconstruction lost its way")
    return total, melds


def _points(_size: int, pts: int) -> int:
    return pts


# For each face, one copy of its number in each higher colour (a group's possible partners).
_GROUP_BITS = tuple(tuple(1 << (2 * (c2 * 13 + f % 13)) for c2 in range(f // 13 + 1, 4)) for f in range(52))
# For r partners present: each subset (as positions) with the group's size so far (the tile + it).
_GROUP_PICKS = tuple(
    tuple((tuple(i for i in range(r) if mask >> i & 1), 1 + mask.bit_count()) for mask in range(1 << r))
    for r in range(4)
)


def _points_search(wrap: bool, must_leave: bool) -> Callable[[int, int, int], int]:
    """``rec(x, j, left)`` of :func:`_maximise` scoring points: the same exact values, found
    faster. The states with a tile left out (``left`` 1, or no ``must_leave``) need keep none,
    so one lean search serves them: its meld options inlined, the memo read before a call, and
    a lowest tile left out taking its twin with it (a meld with the twin is a meld with it, so
    the states between are never searched). A state that must still leave a tile is searched
    only where leaving the lowest one out falls short of that lean search's best, and only
    through melds whose children could beat it. :func:`_walk` reads the melds off as before."""
    memo1: dict[int, int] = {j: 0 for j in range(16)}  # (x << 4) | j -> best; no tiles: nothing
    memo0: dict[int, int] = {}

    def value(x: int, j: int) -> int:
        got = memo1.get((x << 4) | j)
        return got if got is not None else free(x, j)

    def free(x: int, j: int) -> int:
        """Highest points over disjoint melds of x and j okeys, nothing required to stay
        (x not 0, and not in the memo: the callers look there first)."""
        low = ((x & -x).bit_length() - 1) >> 1
        bit = 1 << (2 * low)
        xr = x - bit
        # Left out, the tile leaves its twin out too: a meld with the twin is one with it.
        skip = xr - bit if x & (bit << 1) else xr
        got = memo1.get((skip << 4) | j)
        best = got if got is not None else free(skip, j)
        c, n0 = divmod(low, 13)
        n = n0 + 1
        # Groups: the number's tiles of higher colours (lower ones are already used up).
        reals = [b for b in _GROUP_BITS[low] if xr & (3 * b)]
        r = len(reals)
        if r + j >= 2:
            for sub, m in _GROUP_PICKS[r]:
                y = xr
                for i in sub:
                    y -= reals[i]
                for k in range(3 - m if m < 3 else 0, (j if j < 4 - m else 4 - m) + 1):
                    got = memo1.get((y << 4) | (j - k))
                    t = n * (m + k) + (got if got is not None else free(y, j - k))
                    if t > best:
                        best = t
        # Runs holding the tile at its own number, okeys possibly leading.
        base2 = 26 * c
        for k0 in range((j if j < n0 else n0) + 1):
            jj = j - k0
            y = xr
            length = k0 + 1
            value = (k0 + 1) * (2 * n - k0) // 2
            p = n
            while True:
                if length >= 3:
                    got = memo1.get((y << 4) | jj)
                    t = value + (got if got is not None else free(y, jj))
                    if t > best:
                        best = t
                p += 1
                if p <= 13:
                    bit = 1 << (base2 + 2 * p - 2)
                    if y & (3 * bit):
                        y -= bit
                    elif jj:
                        jj -= 1
                    else:
                        break
                    value += p
                elif p == 14 and wrap and k0 < n0:
                    if not jj:
                        break
                    jj -= 1
                    value += 1
                else:
                    break
                length += 1
        # A 1 standing after 13 at the end of a wrapped run [M-RUN-2].
        if wrap and n == 1:
            y = xr
            jj = j
            value = 1
            length = 1
            for p in range(13, 1, -1):
                bit = 1 << (base2 + 2 * p - 2)
                if y & (3 * bit):
                    y -= bit
                elif jj:
                    jj -= 1
                else:
                    break
                value += p
                length += 1
                if length >= 3:
                    got = memo1.get((y << 4) | jj)
                    t = value + (got if got is not None else free(y, jj))
                    if t > best:
                        best = t
        memo1[(x << 4) | j] = best
        return best

    def bound(x: int, j: int) -> int:
        """As :func:`free`, with at least one tile (an okey counts) left out of the melds."""
        if x == 0:
            return 0 if j else NEG
        key = (x << 4) | j
        hit = memo0.get(key)
        if hit is not None:
            return hit
        low = ((x & -x).bit_length() - 1) >> 1
        xr = x - (1 << (2 * low))
        best = value(xr, j)
        top = value(x, j)  # nothing with a tile left out does better
        if best < top:
            for y, jj, pts, _ in _options(xr, low, j, wrap):
                if pts + value(y, jj) <= best:
                    continue
                r = bound(y, jj)
                if r > NEG and pts + r > best:
                    best = pts + r
                    if best == top:
                        break
        memo0[key] = best
        return best

    def rec(x: int, j: int, left: int) -> int:
        return value(x, j) if left or not must_leave else bound(x, j)

    return rec


def best_cover(
    x: int, j: int, wrap: bool, okey_face: Face | None = None, must_leave: bool = False
) -> tuple[int, list[Meld]]:
    """Most tiles that fit in disjoint runs and groups, and one arrangement that does it."""
    total, descs = _maximise(x, j, wrap, lambda size, _pts: size, must_leave)
    return total, [_describe(d, okey_face) for d in descs]


def best_points(
    x: int, j: int, wrap: bool, okey_face: Face | None = None, must_leave: bool = True
) -> tuple[int, list[Meld]]:
    """Highest sum of tile values over disjoint runs and groups, an okey counting as the tile it
    stands for [O-OPEN-1]; by default at least one tile stays in hand [O-OPEN-5]."""
    if not 0 <= j < 16:
        raise ValueError("best_points takes 0..15 okeys")
    total, descs = _walk(x, j, wrap, _points, _points_search(wrap, must_leave))
    return total, [_describe(d, okey_face) for d in descs]


def count_pairs(x: int, j: int) -> int:
    """Most disjoint pairs: identical faces, an okey completing any tile, two okeys [M-PAIR-1]."""
    pairs = ((x >> 1) & _LOW).bit_count()  # a face's count // 2 is its high bit (counts are 0..3)
    singles = (x & _LOW).bit_count()  # and count % 2 its low bit
    used = min(j, singles)
    return pairs + used + (j - used) // 2


def pair_melds(x: int, j: int) -> list[Meld]:
    """The pairs of :func:`count_pairs`, as melds (okeys complete singles first)."""
    out: list[Meld] = []
    singles: list[Face] = []
    y = x
    while y:
        low = ((y & -y).bit_length() - 1) >> 1
        cnt = (y >> (2 * low)) & 3
        face = face_from_index(low)
        for _ in range(cnt // 2):
            out.append(Meld(MeldKind.PAIR, (face, face), (False, False)))
        if cnt % 2:
            singles.append(face)
        y &= ~(3 << (2 * low))
    for face in singles[:j]:
        out.append(Meld(MeldKind.PAIR, (face, face), (False, True)))
    rest = j - min(j, len(singles))
    if rest >= 2:
        # Two okeys form a pair; what they stand for does not matter, so they stand for each other.
        out.append(Meld(MeldKind.PAIR, (Face(Colour.R, 1), Face(Colour.R, 1)), (True, True)))
    return out


# ---------------------------------------------------------------- one proposed meld


def interpret_meld(effective: Sequence[Face | None], wrap: bool, kind: MeldKind | None = None) -> Meld:
    """Read a meld as a player laid it out, in order; None marks a wild okey. Where an okey
    could stand for several tiles the order fixes it, and failing that the highest value
    [M-OKEY-1]. Raises MeldError with the reason when it is not a run, group or pair."""
    tiles = list(effective)
    reals = [f for f in tiles if f is not None]
    if any(f.is_fake for f in reals):
        raise MeldError("a fake okey must be given as the face it plays")
    size = len(tiles)
    if kind in (None, MeldKind.PAIR) and size == 2:
        if len(reals) == 2 and reals[0] != reals[1]:
            raise MeldError("a pair is two tiles of the same colour and number [M-PAIR-1]")
        face = reals[0] if reals else Face(Colour.R, 1)
        return Meld(MeldKind.PAIR, (face, face), tuple(f is None for f in tiles))
    if size < 3:
        raise MeldError("a run or a group has at least three tiles [M-RUN-1] [M-GRP-1]")
    if not reals:
        raise MeldError("a meld needs at least one tile that is not an okey")
    errors: list[str] = []
    if kind in (None, MeldKind.GROUP):
        numbers = {f.number for f in reals}
        colours = [f.colour for f in reals]
        if size > 4:
            errors.append("a group has at most four tiles [M-GRP-1]")
        elif len(numbers) != 1:
            errors.append("a group's tiles share one number [M-GRP-1]")
        elif len(set(colours)) != len(colours):
            errors.append("a group's tiles are all of different colours [M-GRP-1]")
        else:
            n = reals[0].number
            free = [c for c in Colour if c not in colours]
            fi = iter(free)
            faces = tuple(f if f is not None else Face(next(fi), n) for f in tiles)
            return Meld(MeldKind.GROUP, faces, tuple(f is None for f in tiles))
    if kind in (None, MeldKind.RUN):
        run = _interpret_run(tiles, reals, wrap)
        if run is not None:
            return run
        errors.append(
            "a run is three or more consecutive numbers of one colour"
            + (" (13-1 only at the end) [M-RUN-2]" if wrap else " [M-RUN-1]")
        )
    raise MeldError("; ".join(errors))


def _interpret_run(tiles: list[Face | None], reals: list[Face], wrap: bool) -> Meld | None:
    if len({f.colour for f in reals}) != 1:
        return None
    colour = reals[0].colour
    assert colour is not None
    size = len(tiles)
    top = 14 if wrap else 13
    starts: list[int] = []
    # As laid out: the first real tile fixes every position.
    i0 = next(i for i, f in enumerate(tiles) if f is not None)
    r0 = tiles[i0]
    assert r0 is not None
    for num in {r0.number, 14 if r0.number == 1 else r0.number}:
        starts.append(num - i0)
    ordered = [s for s in starts if _fits(tiles, s, top)]
    if ordered:
        s = max(ordered)
        faces = tuple(Face(colour, p if p <= 13 else 1) for p in range(s, s + size))
        return Meld(MeldKind.RUN, faces, tuple(f is None for f in tiles))
    # Any order: the real numbers must fit a window; okeys fill the gaps, highest window first.
    nums = sorted(f.number for f in reals)
    for s in range(top - size + 1, 0, -1):
        window = {p if p <= 13 else 1 for p in range(s, s + size)}
        if s == 1 and top == 14 and size >= 14:
            continue
        if len(set(nums)) == len(nums) and set(nums) <= window and len(window) == size:
            faces = tuple(Face(colour, p if p <= 13 else 1) for p in range(s, s + size))
            reals_left = set(nums)
            jok = tuple((p if p <= 13 else 1) not in reals_left for p in range(s, s + size))
            return Meld(MeldKind.RUN, faces, jok)
    return None


def _fits(tiles: list[Face | None], s: int, top: int) -> bool:
    if s < 1 or s + len(tiles) - 1 > top:
        return False
    if s == 1 and s + len(tiles) - 1 >= 14:
        return False  # a run never passes 1 in the middle [M-RUN-2]
    for i, f in enumerate(tiles):
        if f is None:
            continue
        p = s + i
        if (p if p <= 13 else 1) != f.number:
            return False
    return True

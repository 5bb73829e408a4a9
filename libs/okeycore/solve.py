"""The solver's line protocol behind ``okey solve`` (ARCHITECTURE.md section 5)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from . import melds as M
from .tiles import Face, TileError, all_faces, face_from_index, okey_face, parse_face

__all__ = ["SolveError", "solve_request", "solve_line"]


class SolveError(ValueError):
    """A request line the solver cannot answer; the message says what to fix."""


_INDEX = {str(f): i for i, f in enumerate(all_faces())}  # tile code -> face index (52: the fake okey)


def _index(code: object) -> int:
    i = _INDEX.get(code) if isinstance(code, str) else None
    if i is None:  # not a plain code: parse_face reads the rest ("r7", " B5") or says what is wrong
        try:
            i = parse_face(code).index
        except TileError as exc:
            raise SolveError(str(exc)) from None
    return i


def _faces(req: dict[str, Any], sizes: Sequence[int]) -> tuple[Face, M.Packed]:
    """The okey's face, and the tiles packed for the solver (a fake okey plays the okey's face
    [T-FAKE-1], a real okey is wild [T-OKEY-2])."""
    ind_code = req.get("indicator")
    tiles = req.get("tiles")
    if not isinstance(ind_code, str):
        raise SolveError('"indicator" must be a tile code such as "B5"')
    if not isinstance(tiles, list):
        raise SolveError('"tiles" must be a list of tile codes')
    if len(tiles) not in sizes:
        want = " or ".join(str(n) for n in sizes) if len(sizes) < 4 else f"{min(sizes)} to {max(sizes)}"
        raise SolveError(f"expected {want} tiles, got {len(tiles)}")
    indicator = _index(ind_code)
    faces = [_INDEX.get(t, -1) if type(t) is str else -1 for t in tiles]
    if -1 in faces:
        faces = [_index(t) for t in tiles]  # the first tile that is not a plain code says why
    if indicator == 52:
        raise SolveError("the indicator is never a fake okey [T-IND-1]")
    counts = [0] * 53
    for f in faces:
        counts[f] += 1
    counts[indicator] += 1
    if max(counts) > 2:
        for f in [*faces, indicator]:  # the first face named too often
            if counts[f] > 2:
                extra = " (the indicator is one of them)" if f == indicator else ""
                raise SolveError(
                    f"{counts[f]} copies of {face_from_index(f)}{extra}: the set has only two of each tile"
                )
    okey = okey_face(face_from_index(indicator))
    wild = okey.index
    x = 0
    j = 0
    for f in faces:
        if f == wild:
            j += 1
        else:
            x += 1 << (2 * (wild if f == 52 else f))
    return okey, (x, j)


def _codes(melds: Sequence[M.Meld], okey: Face) -> list[list[str]]:
    """Each meld's tile codes: a real okey as its own face, whatever it stands for; a plain tile
    with the okey's face can only be a fake okey, so ``F``."""
    wild = str(okey)
    out: list[list[str]] = []
    for m in melds:
        row: list[str] = []
        for face, joker in zip(m.stands_for, m.jokers, strict=True):
            if joker:
                row.append(wild)
            else:
                code = str(face)  # one code a face: comparing codes is comparing faces, cheaper
                row.append("F" if code == wild else code)
        out.append(row)
    return out


def solve_request(req: Any) -> dict[str, Any]:
    """Answer one decoded request; raises SolveError on a bad request."""
    if not isinstance(req, dict):
        raise SolveError("each line must be a JSON object")
    game = req.get("game")
    if game == "OKEY":
        okey, (x, j) = _faces(req, (14,))
        cover = M.find_cover(x, j, True)  # the check's own search gives the melds [C-FIN-1]
        melds_ok = cover is not None
        pairs_ok = M.count_pairs(x, j) >= 7
        arrangement: list[list[str]] | None = None
        if cover is not None:
            arrangement = _codes(cover, okey)
        elif pairs_ok:
            arrangement = _codes(M.pair_melds(x, j), okey)
        return {"melds": melds_ok, "pairs": pairs_ok, "arrangement": arrangement}
    if game == "OKEY101":
        wrap = req.get("wrap", False)
        if not isinstance(wrap, bool):
            raise SolveError('"wrap" must be true or false')
        okey, (x, j) = _faces(req, range(1, 23))
        points, melds = M.best_points(x, j, wrap, must_leave=True)
        pairs = min(M.count_pairs(x, j), (len(req["tiles"]) - 1) // 2)
        return {"points": max(points, 0), "pairs": pairs, "melds": _codes(melds, okey)}
    raise SolveError('"game" must be "OKEY" or "OKEY101"')


def solve_line(line: str) -> str:
    """One JSON line in, one JSON line out; errors become ``{"error": ...}``."""
    try:
        req = json.loads(line)
    except json.JSONDecodeError as exc:
        return json.dumps({"error": f"not valid JSON: {exc.msg} at column {exc.colno}"})
    try:
        return json.dumps(solve_request(req))
    except SolveError as exc:
        return json.dumps({"error": str(exc)})

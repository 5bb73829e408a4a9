"""The solver's line protocol behind ``okey solve`` (ARCHITECTURE.md section 5)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from . import melds as M
from .tiles import Face, TileError, effective_face, okey_face, parse_face

__all__ = ["SolveError", "solve_request", "solve_line"]


class SolveError(ValueError):
    """A request line the solver cannot answer; the message says what to fix."""


def _faces(req: dict[str, Any], sizes: Sequence[int]) -> tuple[Face, Face, list[Face]]:
    ind_code = req.get("indicator")
    tiles = req.get("tiles")
    if not isinstance(ind_code, str):
        raise SolveError('"indicator" must be a tile code such as "B5"')
    if not isinstance(tiles, list):
        raise SolveError('"tiles" must be a list of tile codes')
    if len(tiles) not in sizes:
        want = " or ".join(str(n) for n in sizes) if len(sizes) < 4 else f"{min(sizes)} to {max(sizes)}"
        raise SolveError(f"expected {want} tiles, got {len(tiles)}")
    try:
        indicator = parse_face(ind_code)
        faces = [parse_face(t) for t in tiles]
    except TileError as exc:
        raise SolveError(str(exc)) from None
    if indicator.is_fake:
        raise SolveError("the indicator is never a fake okey [T-IND-1]")
    counts: dict[Face, int] = {}
    for f in [*faces, indicator]:
        counts[f] = counts.get(f, 0) + 1
    for f, n in counts.items():
        if n > 2:
            extra = " (the indicator is one of them)" if f == indicator else ""
            raise SolveError(f"{n} copies of {f}{extra}: the set has only two of each tile")
    return indicator, okey_face(indicator), faces


def _codes(melds: Sequence[M.Meld], okey: Face) -> list[list[str]]:
    out = []
    for meld in melds:
        row = []
        for face, joker in zip(meld.stands_for, meld.jokers, strict=True):
            if joker:
                row.append(str(okey))  # the real okey tile, whatever it stands for
            elif face == okey:
                row.append("F")  # a plain tile with the okey's face can only be a fake okey
            else:
                row.append(str(face))
        out.append(row)
    return out


def solve_request(req: Any) -> dict[str, Any]:
    """Answer one decoded request; raises SolveError on a bad request."""
    if not isinstance(req, dict):
        raise SolveError("each line must be a JSON object")
    game = req.get("game")
    if game == "OKEY":
        _, okey, faces = _faces(req, (14,))
        x, j = M.pack([effective_face(f, okey) for f in faces])
        melds_ok = M.can_cover(x, j, 0, True)
        pairs_ok = M.count_pairs(x, j) >= 7
        arrangement: list[list[str]] | None = None
        if melds_ok:
            arrangement = _codes(M.best_cover(x, j, True)[1], okey)
        elif pairs_ok:
            arrangement = _codes(M.pair_melds(x, j), okey)
        return {"melds": melds_ok, "pairs": pairs_ok, "arrangement": arrangement}
    if game == "OKEY101":
        wrap = req.get("wrap", False)
        if not isinstance(wrap, bool):
            raise SolveError('"wrap" must be true or false')
        _, okey, faces = _faces(req, range(1, 23))
        x, j = M.pack([effective_face(f, okey) for f in faces])
        points, melds = M.best_points(x, j, wrap, must_leave=True)
        pairs = min(M.count_pairs(x, j), (len(faces) - 1) // 2)
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

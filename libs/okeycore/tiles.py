"""Tiles, notation, the 106-tile set with physical ids, the indicator and the okey."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum

__all__ = [
    "Colour",
    "Face",
    "FAKE",
    "TILE_COUNT",
    "TileError",
    "all_faces",
    "effective_face",
    "face_code",
    "face_from_index",
    "face_of_id",
    "ids_of_face",
    "is_fake_id",
    "okey_face",
    "parse_face",
    "parse_faces",
    "resolve_ids",
]

TILE_COUNT = 106
"""Four colours x 13 numbers x 2 copies, plus two fake okeys [T-SET]."""


class TileError(ValueError):
    """A tile code or a tile collection that cannot exist."""


class Colour(IntEnum):
    """Tile colours in the engine's fixed order: kırmızı, sarı, mavi, siyah."""

    R = 0
    Y = 1
    B = 2
    K = 3


_LETTERS = "".join(c.name for c in Colour)  # a colour's letter by its value, cheaper than .name


@dataclass(frozen=True, slots=True, order=True)
class Face:
    """What is printed on a tile: a colour and a number, or the fake okey (``F``)."""

    colour: Colour | None
    number: int

    @property
    def is_fake(self) -> bool:
        return self.colour is None

    @property
    def index(self) -> int:
        """0..51 for coloured faces (colour-major), 52 for the fake okey."""
        if self.colour is None:
            return 52
        return int(self.colour) * 13 + self.number - 1

    def __str__(self) -> str:
        return "F" if self.colour is None else f"{_LETTERS[self.colour]}{self.number}"

    def next(self) -> Face:
        """The face one above, 13 wrapping to 1 [T-OKEY-1]."""
        if self.colour is None:
            raise TileError("the fake okey has no next face")
        return Face(self.colour, 1 if self.number == 13 else self.number + 1)


FAKE = Face(None, 0)


def _face_table() -> tuple[Face, ...]:
    return tuple(Face(c, n) for c in Colour for n in range(1, 14)) + (FAKE,)


_FACES = _face_table()
_BY_CODE = {str(f): f for f in _FACES}


def all_faces() -> tuple[Face, ...]:
    """The 52 coloured faces in index order, then the fake okey."""
    return _FACES


def face_from_index(index: int) -> Face:
    return _FACES[index]


def parse_face(code: object) -> Face:
    """``"R7"`` -> Face(R, 7); ``"F"`` -> the fake okey. Raises TileError with a readable reason,
    whatever ``code`` is (it comes from outside: a request, a file), so it takes any object: a
    compiled build (``okeycore.native``) checks a ``str`` parameter's type itself, with a
    TypeError of its own, before the function could say what is wrong."""
    if not isinstance(code, str):
        raise TileError(f"a tile code must be a string, got {code!r}")
    face = _BY_CODE.get(code.strip().upper())
    if face is None:
        raise TileError(
            f"unknown tile code {code!r}: use a colour letter R, Y, B or K and a number 1-13 (e.g. R7), or F"
        )
    return face


def parse_faces(codes: Iterable[str]) -> list[Face]:
    return [parse_face(c) for c in codes]


def face_code(face: Face) -> str:
    return str(face)


# Physical ids: coloured face index i has ids 2i and 2i+1; the fake okeys are 104 and 105.
def face_of_id(tile_id: int) -> Face:
    if not 0 <= tile_id < TILE_COUNT:
        raise TileError(f"tile id {tile_id} is outside 0..{TILE_COUNT - 1}")
    return _FACES[tile_id // 2]


def ids_of_face(face: Face) -> tuple[int, int]:
    i = face.index
    return (2 * i, 2 * i + 1)


def is_fake_id(tile_id: int) -> bool:
    return tile_id >= 104


def okey_face(indicator: Face) -> Face:
    """The okey is the indicator's colour, one number higher, 13 -> 1 [T-OKEY-1]."""
    if indicator.is_fake:
        raise TileError("the indicator is never a fake okey [T-IND-1]")
    return indicator.next()


def effective_face(face: Face, okey: Face) -> Face | None:
    """What a tile plays as: None for a real okey (wild [T-OKEY-2]); the okey's face for a fake
    okey [T-FAKE-1]; otherwise its own face."""
    if face == okey:
        return None
    if face.is_fake:
        return okey
    return face


def resolve_ids(faces: Sequence[Face], exclude: Iterable[int] = ()) -> list[int]:
    """Give each face a distinct physical tile id; raises when more copies are asked for than
    exist (three R5s, three fakes, or a face also used by ``exclude``, e.g. the indicator)."""
    used = set(exclude)
    out: list[int] = []
    for face in faces:
        pair = (104, 105) if face.is_fake else ids_of_face(face)
        for tid in pair:
            if tid not in used:
                used.add(tid)
                out.append(tid)
                break
        else:
            raise TileError(f"too many copies of {face}: the set has only two")
    return out

"""Every command of both games: the kernel's (any table) and each game's own seat commands."""

from __future__ import annotations

from .classic.commands import DeclarePairs, Finish, Pass, ShowIndicator, TurnToOkey
from .kernel.commands import (
    Command,
    CreateTable,
    Discard,
    Draw,
    ForceMove,
    LeaveSeat,
    Ready,
    SetConnection,
    StartHand,
    TakeBack,
    TakeDiscard,
    TimeOut,
)
from .okey101.commands import AddTile, OpenMelds, ReturnSideTile, TakeOkey

__all__ = [
    "Command",
    "CreateTable",
    "StartHand",
    "Draw",
    "TakeDiscard",
    "Discard",
    "Finish",
    "ShowIndicator",
    "DeclarePairs",
    "TurnToOkey",
    "Pass",
    "TimeOut",
    "ForceMove",
    "TakeBack",
    "LeaveSeat",
    "Ready",
    "SetConnection",
    "OpenMelds",
    "AddTile",
    "TakeOkey",
    "ReturnSideTile",
]

"""Which of okeycore's modules a build may compile to C, and which are compiled in this process.

The bots' search (``handeval``), the strategies that call it and the tile and meld code under
them are the hot paths of a bots worker and of the solver. A wheel built with ``OKEY_COMPILE=1``
compiles exactly the modules of ``COMPILED`` with mypyc, from these same sources (the build reads
this list: ``setup.py``), so there is one implementation, type-checked, and the pure-Python
modules stay the reference that every other install runs. The decisions are the same either way
(tests/core/test_compiled.py builds such a wheel and compares). This module imports nothing of
the package's, so the build reads it without importing the package.
"""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["COMPILED", "compiled_modules", "describe"]

COMPILED: tuple[str, ...] = ("tiles", "melds", "handeval", "classic.strategy", "okey101.strategy")
"""The modules (under ``okeycore``) that ``OKEY_COMPILE=1`` compiles, in one mypyc group. A class
of a compiled module cannot be subclassed by an interpreted one (mypyc refuses it when the
subclass is made), so ``racks`` stays out: ``okey101.openings.OpeningPreview`` extends its
``Arrangement``. tests/core/test_compiled.py plays both games on the compiled build to catch
another such case."""

_EXTENSION_SUFFIXES = (".so", ".pyd")


def compiled_modules() -> list[str]:
    """Those of ``COMPILED`` that this process imports (or would import) as compiled extension
    modules. Found from where each import would load from, without importing them: a service
    that never decides a bot's move (the gateway, the lobby) says its build at start without
    loading the strategies for it."""
    out: list[str] = []
    for name in COMPILED:
        loaded = sys.modules.get(f"okeycore.{name}")
        origin = getattr(loaded, "__file__", None) if loaded else _origin(f"okeycore.{name}")
        if str(origin or "").endswith(_EXTENSION_SUFFIXES):
            out.append(name)
    return out


def _origin(module: str) -> str | None:
    spec = importlib.util.find_spec(module)
    return spec.origin if spec else None


def describe() -> str:
    """One line for logs and benchmark headers: how okeycore's hot modules run here."""
    got = compiled_modules()
    if len(got) == len(COMPILED):
        return f"okeycore compiled by mypyc: {len(got)} modules"
    if not got:
        return "okeycore pure Python"
    return f"okeycore partly compiled ({', '.join(got)} of {len(COMPILED)} modules)"

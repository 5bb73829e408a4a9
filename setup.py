"""The compiled modules of an ``OKEY_COMPILE=1`` build (build_backend/okey_build.py); everything
else about the package is in pyproject.toml."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from setuptools import setup

HERE = Path(__file__).resolve().parent


def compiled_extensions() -> list[Any]:
    """mypyc's extension modules for ``okeycore.native.COMPILED``, when ``OKEY_COMPILE`` asks."""
    if os.environ.get("OKEY_COMPILE", "") in ("", "0"):
        return []
    from mypyc.build import mypycify

    names: dict[str, Any] = {}
    exec((HERE / "libs" / "okeycore" / "native.py").read_text(encoding="utf-8"), names)
    sources = [f"libs/okeycore/{name}.py" for name in names["COMPILED"]]
    return mypycify(sources, opt_level="3", group_name="okeycore")


setup(ext_modules=compiled_extensions())

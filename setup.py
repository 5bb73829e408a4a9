"""The compiled modules of an ``OKEY_COMPILE=1`` build (build_backend/okey_build.py); everything
else about the package is in pyproject.toml."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from setuptools import setup

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "build_backend"))  # where the build runs it, the backend's path already
from okey_build import compiling  # noqa: E402 (the one reading of OKEY_COMPILE)


def compiled_extensions() -> list[Any]:
    """mypyc's extension modules for ``okeycore.native.COMPILED``, when ``OKEY_COMPILE`` asks."""
    if not compiling():
        return []
    from mypyc.build import mypycify

    names: dict[str, Any] = {}
    exec((HERE / "libs" / "okeycore" / "native.py").read_text(encoding="utf-8"), names)
    sources = [f"libs/okeycore/{name.replace('.', '/')}.py" for name in names["COMPILED"]]
    return mypycify(sources, opt_level="3", group_name="okeycore")


setup(ext_modules=compiled_extensions())

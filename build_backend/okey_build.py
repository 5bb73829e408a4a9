"""The project's build backend: setuptools', plus mypyc when ``OKEY_COMPILE=1`` asks for it.

``OKEY_COMPILE=1 pip install .`` (or ``python -m build --wheel``) compiles okeycore's hot modules
(``okeycore.native.COMPILED``) with mypyc; this backend adds mypy to that build's requirements
only then, so every other install needs nothing more than setuptools. setup.py compiles only in
the hook that builds the wheel: setuptools runs it for the requirements and the metadata too,
before mypy is there. An editable install never compiles: a compiled module beside its source
would be imported instead of it and hide every later edit, so the variable is ignored there, with
a note.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Iterator
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import build_sdist, get_requires_for_build_sdist  # noqa: F401 (hooks a front end may call)

MYPY = "mypy>=1.10"

Settings = dict[str, Any] | None


def compiling() -> bool:
    """Whether ``OKEY_COMPILE`` asks for the compiled modules (set, and not ``0``)."""
    return os.environ.get("OKEY_COMPILE", "") not in ("", "0")


@contextlib.contextmanager
def _pure() -> Iterator[None]:
    """setup.py without the compiled modules, for the hooks that run it before (or without) mypy."""
    saved = os.environ.get("OKEY_COMPILE")
    os.environ["OKEY_COMPILE"] = "0"
    try:
        yield
    finally:
        if saved is None:
            del os.environ["OKEY_COMPILE"]
        else:
            os.environ["OKEY_COMPILE"] = saved


def get_requires_for_build_wheel(config_settings: Settings = None) -> list[str]:
    extra = [MYPY] if compiling() else []
    with _pure():
        return [*_setuptools.get_requires_for_build_wheel(config_settings), *extra]


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Settings = None) -> str:
    with _pure():
        return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_wheel(wheel_directory: str, config_settings: Settings = None, metadata_directory: str | None = None) -> str:
    # setuptools builds in ./build and packs all of build/lib: an earlier build's compiled modules
    # would land in a pure wheel (and a pure build's absence of them is no better), so each wheel
    # starts from an empty build directory.
    shutil.rmtree("build", ignore_errors=True)
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def get_requires_for_build_editable(config_settings: Settings = None) -> list[str]:
    if compiling():
        print(
            "okey: OKEY_COMPILE is ignored by an editable install (a compiled module would hide "
            "later edits of its source); `OKEY_COMPILE=1 pip install .` builds the compiled one",
            file=sys.stderr,
        )
    with _pure():
        return _setuptools.get_requires_for_build_editable(config_settings)


def prepare_metadata_for_build_editable(metadata_directory: str, config_settings: Settings = None) -> str:
    with _pure():
        return _setuptools.prepare_metadata_for_build_editable(metadata_directory, config_settings)


def build_editable(
    wheel_directory: str, config_settings: Settings = None, metadata_directory: str | None = None
) -> str:
    with _pure():
        return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)

"""Setup shared by the okeycore tests.

``tests/conftest.py`` makes pytest put ``tests/`` on ``sys.path`` (prepend import mode), and
there this very directory, ``tests/okeycore``, would be found first as an empty namespace
package shadowing the real ``okeycore`` (which the editable install serves from ``libs/``).
Import the real package before any test module asks for it.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

_TESTS = Path(__file__).resolve().parent.parent


def _import_real_okeycore() -> None:
    loaded = sys.modules.get("okeycore")
    if loaded is not None and getattr(loaded, "__file__", None):
        return
    for name in [m for m in sys.modules if m == "okeycore" or m.startswith("okeycore.")]:
        del sys.modules[name]
    saved = sys.path[:]
    sys.path[:] = [p for p in saved if Path(p or ".").resolve() != _TESTS]
    try:
        importlib.import_module("okeycore")
    finally:
        sys.path[:] = saved


_import_real_okeycore()

"""The compiled build (``OKEY_COMPILE=1``) decides and solves exactly as the pure-Python modules.

A wheel is built here the way an image builds it (the project's build backend, mypyc on
``okeycore.native.COMPILED``), unpacked, and a subprocess that imports okeycore from it plays
whole matches (classic: strong, greedy and easy seats; 101: strong against greedy) and solves
racks through ``okey solve``'s line protocol. Its digest of every event and answer must equal
the same run's on the pure modules. Also: an editable install ignores ``OKEY_COMPILE`` (a
compiled module beside its source would hide every later edit).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from okeycore import native

ROOT = Path(__file__).resolve().parents[2]

# Plays and solves, and prints how okeycore runs with a digest of everything it saw.
PLAY = r"""
import hashlib, json, random
from okeycore import native
from okeycore.levels import CLASSIC_LEVELS
from okeycore.options import BotLevel, Game, TableOptions
from okeycore.simulate import Simulator
from okeycore.okey101.simulate import Simulator101
from okeycore.solve import solve_line
from okeycore.classic.strategy import strategy
from okeycore.okey101.strategy import strategy101
from okeycore.tiles import all_faces

digest = hashlib.sha256()
moves = 0
for seed in range(6):
    bots = [strategy("strong", seed * 4), strategy("greedy", seed * 4 + 1),
            CLASSIC_LEVELS[BotLevel.EASY](seed * 4 + 2), strategy("strong", seed * 4 + 3)]
    record = Simulator(TableOptions(match_points=4), bots, seed).play_match(max_hands=6)
    moves += len(record.events)
    digest.update(repr(record.events).encode())
for seed in range(3):
    bots = [strategy101("strong", seed * 4)] + [strategy101("greedy", seed * 4 + i) for i in (1, 2, 3)]
    record = Simulator101(TableOptions(game=Game.OKEY101, seats=4, rounds=3), bots, seed).play_match(max_deals=2)
    moves += len(record.events)
    digest.update(repr(record.events).encode())
codes = [str(f) for f in all_faces()]
tiles = codes[:52] * 2 + [codes[52]] * 2
rng = random.Random(7)
for i in range(400):
    game, size = ("OKEY", 14) if i % 2 else ("OKEY101", 21)
    indicator = rng.choice(codes[:52])
    rest = list(tiles)
    rest.remove(indicator)
    line = json.dumps({"game": game, "indicator": indicator, "tiles": rng.sample(rest, size)})
    answer = solve_line(line)
    assert "error" not in answer, answer
    digest.update(answer.encode())
# Requests a person gets wrong: the same readable errors (a compiled function checks a parameter's
# annotation itself, so one that takes outside input must take any object: tiles.parse_face).
for bad in (5, None, ["R5"], 7.5, "Z9"):
    for req in ({"indicator": "R5", "tiles": [bad] + ["B1"] * 13}, {"indicator": bad, "tiles": ["B1"] * 14}):
        answer = solve_line(json.dumps({"game": "OKEY", **req}))
        assert "error" in answer, answer
        digest.update(answer.encode())
print(json.dumps({"build": native.describe(), "compiled": native.compiled_modules(),
                  "events": moves, "digest": digest.hexdigest()}))
"""


def _play(pythonpath: str | None) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run([sys.executable, "-c", PLAY], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _wheel(dest: Path, compiled: bool) -> Path:
    """The project's wheel, built into ``dest`` by the project's build backend (with the test
    environment's setuptools and mypy: no download)."""
    env = {k: v for k, v in os.environ.items() if k != "OKEY_COMPILE"}
    if compiled:
        env["OKEY_COMPILE"] = "1"
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    build = subprocess.run([*pip, "-w", str(dest), str(ROOT)], env=env, capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-3000:]
    (wheel,) = dest.glob("okey_backend-*.whl")
    return wheel


def _build_inputs() -> str:
    """A digest of everything the compiled build is made from: okeycore's sources, the build
    backend and the project's metadata, and the versions of Python, mypy, setuptools and the C
    compiler. Two builds from the same inputs are the same build."""
    import hashlib

    import mypy.version
    import setuptools

    h = hashlib.sha256()
    files = sorted((ROOT / "libs" / "okeycore").rglob("*.py")) + [
        ROOT / "build_backend" / "okey_build.py",
        ROOT / "pyproject.toml",
    ]
    for f in files:
        h.update(f.relative_to(ROOT).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    cc = subprocess.run([os.environ.get("CC", "cc"), "--version"], capture_output=True, text=True).stdout
    h.update(f"{sys.version}|{mypy.version.__version__}|{setuptools.__version__}|{cc}".encode())
    return h.hexdigest()[:32]


def _cache_root() -> Path:
    """Where built okeycore sites are kept between runs on this machine (``OKEY_TEST_CACHE``, else
    ``~/.cache/okey-backend/tests``)."""
    own = os.environ.get("OKEY_TEST_CACHE")
    return Path(own) if own else Path.home() / ".cache" / "okey-backend" / "tests"


@pytest.fixture(scope="module")
def compiled_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """okeycore as an ``OKEY_COMPILE=1`` wheel installs it, unpacked in a folder of its own.

    The build (mypyc and the C compiler: half a minute to a minute and a half of CPU) is kept
    on this machine under the digest of its inputs (:func:`_build_inputs`): a run whose sources,
    backend and tools are those of an earlier run's build reuses it, and any change builds
    anew. ``OKEY_TEST_CACHE=off`` always builds."""
    if shutil.which(os.environ.get("CC", "cc")) is None:
        pytest.skip("no C compiler here: the compiled build needs one (gcc or clang)")
    cache = None if os.environ.get("OKEY_TEST_CACHE") == "off" else _cache_root() / f"compiled-{_build_inputs()}"
    if cache is not None and (cache / "okeycore").is_dir():
        return cache
    wheel = _wheel(tmp_path_factory.mktemp("dist"), compiled=True)
    site = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    if cache is None:
        return site
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        for old in cache.parent.glob("compiled-*"):  # one build kept: the latest inputs'
            shutil.rmtree(old, ignore_errors=True)
        staged = Path(shutil.copytree(site, cache.parent / f".{cache.name}.{os.getpid()}"))
        staged.rename(cache)  # whole or not at all: a reader never sees half a site
    except OSError:
        return site  # a cache that cannot be written costs a build next time, nothing else
    return cache


@pytest.fixture(scope="module")
def compiled_play(compiled_site: Path) -> dict[str, object]:
    """What the compiled build plays and answers (one run, which both tests below read)."""
    return _play(str(compiled_site))


def test_the_compiled_build_compiles_every_listed_module(compiled_play: dict[str, object]) -> None:
    assert compiled_play["compiled"] == list(native.COMPILED)
    assert compiled_play["build"] == f"okeycore compiled by mypyc: {len(native.COMPILED)} modules"


def test_compiled_and_pure_modules_make_the_same_moves_and_answers(compiled_play: dict[str, object]) -> None:
    pure = _play(None)
    compiled = compiled_play
    assert pure["compiled"] == [], "the tests run on the pure modules (an editable install)"
    assert pure["events"] == compiled["events"] and int(str(pure["events"])) > 500
    assert pure["digest"] == compiled["digest"]


def test_a_pure_wheel_carries_no_compiled_module(compiled_site: Path, tmp_path: Path) -> None:
    """Without ``OKEY_COMPILE`` the wheel is pure Python, even right after a compiled build left
    its modules in the build directory (the backend starts each wheel from an empty one; with
    the compiled build kept from an earlier run, after that run's)."""
    wheel = _wheel(tmp_path, compiled=False)
    assert wheel.name.endswith("-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as zf:
        assert not [n for n in zf.namelist() if n.endswith((".so", ".pyd", ".c"))]


def test_describe_names_the_pure_build_here() -> None:
    assert native.compiled_modules() == []
    assert native.describe() == "okeycore pure Python"

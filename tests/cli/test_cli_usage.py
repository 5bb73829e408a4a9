"""Issue 41.6: an unknown flag is told by the command it was given to. ``okey demo --bogus``
prints the demo's usage (not the top-level one) and one error line naming the flag, exit 2; so
does every subcommand and nested subcommand, enumerated from the parser itself (a new one is
covered without touching this file)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterator

import pytest
from okeytools.cli import build_parser, main

BOGUS = "--no-such-flag-41"


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:  # type: ignore[type-arg]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def _walk(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    sub = _subparsers(parser)
    if sub is None:
        return
    for name, child in sub.choices.items():
        yield (*path, name), child
        yield from _walk(child, (*path, name))


def _value(action: argparse.Action) -> str:
    if action.choices:
        return str(next(iter(action.choices)))
    if action.type in (int, float):
        return "1"
    return "x"


def _fill(parser: argparse.ArgumentParser) -> list[str]:
    """Arguments the parser requires, with values it accepts: its positionals, its required
    options, and for a parser of subcommands its first subcommand with that one's own."""
    out: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            name, child = next(iter(action.choices.items()))
            out += [name, *_fill(child)]
        elif not action.option_strings:
            if action.nargs in ("?", "*", argparse.REMAINDER):
                continue
            count = action.nargs if isinstance(action.nargs, int) else 1
            out += [_value(action)] * count
        elif action.required:
            out.append(action.option_strings[0])
            if action.nargs != 0:
                out.append(_value(action))
    return out


COMMANDS = sorted(_walk(build_parser()))


def test_the_parser_has_nested_subcommands_to_check() -> None:
    paths = {path for path, _ in COMMANDS}
    assert {("demo",), ("up",), ("bench", "table"), ("admin", "chips", "adjust"), ("review", "collusion")} <= paths


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=[" ".join(p) for p, _ in COMMANDS])
def test_an_unknown_flag_prints_that_subcommand_s_usage_and_one_error_line(
    path: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    parser = dict(COMMANDS)[path]
    # The flag right after the command's own name, then what the command needs (a nested
    # subcommand and its arguments): the unknown flag is this command's, not a deeper one's.
    argv = [*path, BOGUS, *_fill(parser)]
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    got = capsys.readouterr()
    assert stopped.value.code == 2, (argv, got.err)
    assert got.out == ""
    prog = "okey " + " ".join(path)
    assert got.err.startswith(f"usage: {prog} "), (argv, got.err)
    errors = [line for line in got.err.splitlines() if "error:" in line]
    assert errors == [f"{prog}: error: unrecognized arguments: {BOGUS}"], (argv, got.err)
    assert got.err.endswith(errors[0] + "\n")


def test_okey_demo_bogus_as_a_user_runs_it() -> None:
    got = subprocess.run(
        [sys.executable, "-m", "okeytools.cli", "demo", "--bogus"], capture_output=True, text=True, timeout=60
    )
    assert got.returncode == 2
    assert got.stderr.startswith("usage: okey demo "), got.stderr
    assert got.stderr.strip().splitlines()[-1] == "okey demo: error: unrecognized arguments: --bogus"
    assert "--in-process" in got.stderr  # the demo's own options, not the list of commands


def test_an_unknown_flag_of_okey_itself_still_prints_the_top_level_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([BOGUS])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("usage: okey ")
        and err.strip().splitlines()[-1] == f"okey: error: unrecognized arguments: {BOGUS}"
    )

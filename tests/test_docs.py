"""The README is a front door and docs/ holds the rest: the README stays short, every link in the
docs leads somewhere, every image is a small PNG in the repository, the configuration table
lists exactly the variables the code reads, and the documented ``okey solve`` examples are what
the solver answers."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest
from okeycore.solve import solve_line

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")

# OKEY_ strings in the code that are not settings: the stream's name, and the flag the table
# service's parent sets for the workers it starts (SO_REUSEPORT), never set by hand.
NOT_SETTINGS = {"OKEY_TABLES", "OKEY_REUSE_PORT"}
# okeycore's reasons of a hand's breakdown line, which `okey demo` words (okeytools/demo.py).
NOT_SETTINGS |= {"OKEY_DISCARDED", "OKEY_HELD", "OKEY_TAKER_DISCARDED"}


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = "".join(c for c in text if c in " -" or unicodedata.category(c)[0] in "LN")
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {_slug(m) for m in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def test_the_readme_is_a_front_door_of_150_to_250_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert 150 <= len(lines) <= 250, len(lines)
    for page in ("design", "operations", "security", "rules-and-engine", "benchmarks"):
        assert f"](docs/{page}.md)" in README.read_text(encoding="utf-8"), f"the README links docs/{page}.md"


@pytest.mark.parametrize("doc", [README, *PAGES], ids=lambda p: p.name)
def test_every_link_leads_to_a_file_and_heading_that_exist(doc: Path) -> None:
    text = re.sub(r"```.*?```", "", doc.read_text(encoding="utf-8"), flags=re.S)
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto
        path, _, anchor = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        assert file.exists(), f"{doc.name}: {target} leads nowhere"
        if anchor and file.suffix == ".md":
            assert anchor in _anchors(file), f"{doc.name}: no heading #{anchor} in {file.name}"


# issue 42 item 6: the docs stand on their own. A link is a file of the repository or a public
# web address; nothing beside the checkout (../shared), no absolute path, no file:// address.
ANY_LINK = re.compile(r"\]\(([^)\s]+)\)")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)", re.M)  # [name]: target


@pytest.mark.parametrize("doc", [README, *PAGES], ids=lambda p: p.name)
def test_every_link_stays_inside_the_repository(doc: Path) -> None:
    text = re.sub(r"```.*?```", "", doc.read_text(encoding="utf-8"), flags=re.S)
    for target in ANY_LINK.findall(text) + REFERENCE.findall(text):
        scheme = re.match(r"([a-z][a-z0-9+.-]*):", target, re.I)
        if scheme:
            assert scheme.group(1).lower() in ("http", "https", "mailto"), f"{doc.name}: {target} is no public address"
            continue
        path = target.partition("#")[0]
        assert not path.startswith(("/", "~", "\\")), f"{doc.name}: {target} is an absolute path"
        if path:
            file = (doc.parent / path).resolve()
            assert file.is_relative_to(ROOT), f"{doc.name}: {target} leaves the repository"


RULE_ID = re.compile(r"\[((?:[TMCOP]-[A-Z]+|D)-\d+)\]")


def _rule_ids() -> list[str]:
    """The ids of tests/core/rule_ids.txt (section headers and comments left out)."""
    lines = (ROOT / "tests" / "core" / "rule_ids.txt").read_text(encoding="utf-8").splitlines()
    return [s for s in (line.strip() for line in lines) if s and not s.startswith(("#", "["))]


def test_docs_rules_states_every_rule_id_and_no_other() -> None:
    """docs/rules.md is the rules in the repository's own words: every id of rule_ids.txt is
    stated there as [ID], and it cites no id that rule_ids.txt does not list."""
    ids = _rule_ids()
    assert len(ids) >= 80, len(ids)  # the search finds the ids
    cited = set(RULE_ID.findall((ROOT / "docs" / "rules.md").read_text(encoding="utf-8")))
    assert not set(ids) - cited, f"not in docs/rules.md: {sorted(set(ids) - cited)}"
    assert not cited - set(ids), f"docs/rules.md cites ids rule_ids.txt does not list: {sorted(cited - set(ids))}"


IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")


@pytest.mark.parametrize("doc", [README, *PAGES], ids=lambda p: p.name)
def test_every_image_shows_a_small_png_that_exists(doc: Path) -> None:
    """An image link leads to a PNG in the repository (docs/images/), with words for a screen
    reader, and is small enough for a front page (under 150 KB)."""
    text = re.sub(r"```.*?```", "", doc.read_text(encoding="utf-8"), flags=re.S)
    for alt, target in IMAGE.findall(text):
        file = (doc.parent / target).resolve()
        assert file.is_file() and file.is_relative_to(ROOT), f"{doc.name}: image {target} is not in the repository"
        assert file.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{doc.name}: {target} is not a PNG"
        assert file.stat().st_size < 150_000, f"{doc.name}: {target} is {file.stat().st_size} bytes"
        assert alt.strip(), f"{doc.name}: {target} has no alt text"


def test_the_readme_shows_the_lobby_a_move_the_table_and_the_end_of_hand_screen() -> None:
    shown = {Path(t).name for _, t in IMAGE.findall(README.read_text(encoding="utf-8"))}
    assert shown == {"lobby.png", "table-move.png", "table.png", "end-of-hand.png"}, shown


def _settings_read_by_the_code() -> set[str]:
    roots = [p for p in (ROOT / "libs").iterdir() if p.is_dir() and p.name not in ("okeycore", "okeyproto")]
    roots += [ROOT / "services", ROOT / "tools", ROOT / "bench", ROOT / "build_backend"]
    found: set[str] = set()
    for root in roots:
        for path in root.rglob("*.py"):
            found.update(re.findall(r"[\"'](OKEY_[A-Z0-9_]*[A-Z0-9])[\"']", path.read_text(encoding="utf-8")))
    return found - NOT_SETTINGS


def test_the_configuration_table_lists_every_variable_the_code_reads_and_no_other() -> None:
    text = README.read_text(encoding="utf-8")
    table = text[text.index("## Configuration") :]
    table = table[: table.index("\n## ")]
    documented = {
        v for row in table.splitlines() if row.startswith("| `") for v in re.findall(r"`(OKEY_\w+)`", row.split("|")[1])
    }
    read = _settings_read_by_the_code()
    assert not read - documented, f"read by the code but not in the README's table: {sorted(read - documented)}"
    assert not documented - read, f"in the README's table but read by no code: {sorted(documented - read)}"


def test_the_okey_solve_examples_in_the_docs_are_what_the_solver_answers() -> None:
    text = (ROOT / "docs" / "rules-and-engine.md").read_text(encoding="utf-8")
    examples = re.findall(r"^\$ echo '(.+)' \| okey solve\n(.+)$", text, re.M)
    assert len(examples) >= 2
    for request, answer in examples:
        assert json.loads(solve_line(request)) == json.loads(answer), request


# ------------------------------------------------------------------ issue 41: commands as written

FENCED = re.compile(r"^( *)```(\w*)\n(.*?)^\1```$", re.M | re.S)


def _blocks(text: str) -> list[str]:
    """Every fenced code block's text, its indentation (a block inside a list item) taken off."""
    return ["".join(line[len(indent) :] for line in body.splitlines(True)) for indent, _, body in FENCED.findall(text)]


def _test_command() -> str:
    """The README's second command: the block that installs `.[dev]` and runs pytest."""
    found = [b.strip() for b in _blocks(README.read_text(encoding="utf-8")) if "'.[dev]'" in b and "pytest" in b]
    assert len(found) == 1, found
    return found[0]


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    """`.ci/run` holds the README's test command as a line of its own, and installs or runs
    nothing else (no pip upgrade the README does not do)."""
    command = _test_command()
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert command in lines, f".ci/run does not run the README's command {command!r}"
    # a command that runs pip, pytest or python (not the word in a message)
    invokes = re.compile(r"(?:^|&&|;|\|\|?)\s*(?:\S*/)?(?:pip3?|pytest|python3?)(?:\s|$)")
    runs = [line for line in lines if not line.startswith("#") and invokes.search(line)]
    assert runs == [command], runs


def test_the_readme_says_how_okey_and_grpcurl_get_on_the_path() -> None:
    """After the install into .venv, the README puts .venv/bin on the PATH before its first bare
    `okey`, `grpcurl` or `pytest` outside a `.venv/bin/` path."""
    text = README.read_text(encoding="utf-8")
    activate = text.find(". .venv/bin/activate")
    assert activate >= 0, "the README says `. .venv/bin/activate`"
    for tool in ("okey", "grpcurl"):
        bare = re.search(rf"(?<![/\w.-]){tool} ", text[text.index("## The two commands") :])
        assert bare, tool
        first = text.index("## The two commands") + bare.start()
        assert activate < first, f"`{tool}` is used bare before the README says how it gets on the PATH"

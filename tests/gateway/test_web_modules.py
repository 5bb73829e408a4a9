"""The web client is native ES modules the gateway serves as they are (no build step): index.html
loads its entry module, every module is served with a JavaScript content type, every import
between them resolves to a served file that exports the imported names, and no module grows
back into the one-function file the client once was (at most ~600 lines of code each)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urljoin, urlparse

import httpx
import pytest

from services.gateway.main import Gateway

WEB = Path(__file__).resolve().parents[2] / "services" / "gateway" / "web"
MAX_CODE_LINES = 600
JS_TYPES = ("text/javascript", "application/javascript")

SCRIPT_TAG = re.compile(r"<script\b([^>]*)>", re.I)
STATIC_IMPORT = re.compile(r"""^\s*(?:import|export)\s+(?:([\w$\s{},*]+?)\s+from\s+)?["']([^"']+)["']""", re.M)
DYNAMIC_IMPORT = re.compile(r"""\bimport\(\s*["']([^"']+)["']\s*\)""")
EXPORTED = re.compile(r"^export\s+(?:async\s+)?(?:function\*?|const|let|var|class)\s+([\w$]+)", re.M)
# A line of a string table ("key": "text", or the wrapped text of one) is data, not code.
STRING_LINE = re.compile(r"""^\s*(?:"[^"]+":\s*)?(?:"(?:\\.|[^"\\])*")?\s*,?\s*$""")


def _attr(attrs: str, name: str) -> str | None:
    m = re.search(rf"""\b{name}\s*=\s*["']([^"']*)["']""", attrs)
    return m.group(1) if m else None


def _imports(source: str) -> list[tuple[list[str], str]]:
    """(imported names, specifier) of each static and dynamic import or re-export."""
    found: list[tuple[list[str], str]] = []
    for m in STATIC_IMPORT.finditer(source):
        clause, spec = m.group(1) or "", m.group(2)
        braces = re.search(r"\{([^}]*)\}", clause)
        names = [n.split(" as ")[0].strip() for n in braces.group(1).split(",") if n.strip()] if braces else []
        found.append((names, spec))
    found.extend(([], spec) for spec in DYNAMIC_IMPORT.findall(source))
    return found


def _code_lines(source: str) -> int:
    return sum(1 for line in source.splitlines() if not STRING_LINE.match(line))


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    """The gateway alone: the web client is static files; no service behind it is needed."""
    gw = Gateway("127.0.0.1:0", "127.0.0.1:0", environ={"OKEY_TABLE_ADDR": "127.0.0.1:9"})
    await gw.start()
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{gw.http_port}", timeout=10) as client:
            yield client
    finally:
        await gw.stop(grace_s=1.0)


async def test_every_module_is_served_as_javascript_and_every_import_resolves(http: httpx.AsyncClient) -> None:
    page = await http.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    scripts = SCRIPT_TAG.findall(page.text)
    assert scripts, "index.html loads no script"
    entries = []
    for attrs in scripts:
        assert _attr(attrs, "type") == "module", f"a classic script in index.html: <script{attrs}>"
        src = _attr(attrs, "src")
        assert src, "an inline script (the CSP allows only the client's own files)"
        entries.append(urljoin(str(page.url), src))

    seen: dict[str, str] = {}  # path -> source, as served
    wanted: list[tuple[str, list[str], str]] = [(url, [], "index.html") for url in entries]
    while wanted:
        url, names, importer = wanted.pop()
        path = urlparse(url).path
        if path not in seen:
            r = await http.get(path)
            assert r.status_code == 200, f"{importer} imports {path}: HTTP {r.status_code}"
            assert r.headers["content-type"].split(";")[0].strip() in JS_TYPES, (path, r.headers["content-type"])
            seen[path] = r.text
            for imported, spec in _imports(r.text):
                assert spec.startswith(("./", "../", "/")), f"{path} imports {spec!r}: a bare name needs a build step"
                wanted.append((urljoin(url, spec), imported, path))
        exported = set(EXPORTED.findall(seen[path]))
        missing = [n for n in names if n not in exported]
        assert not missing, f"{importer} imports {missing} from {path}, which does not export them"

    on_disk = {"/" + p.relative_to(WEB).as_posix() for p in WEB.rglob("*.js")}
    assert set(seen) == on_disk, f"modules nothing imports: {sorted(on_disk - set(seen))}"
    for path, source in seen.items():
        assert source == (WEB / path.lstrip("/")).read_text(encoding="utf-8"), f"{path} is not served as written"


def test_no_module_is_the_one_function_file_again() -> None:
    """Every module stays small enough to read: at most ~600 lines of code (string tables are data)."""
    sizes = {p.name: _code_lines(p.read_text(encoding="utf-8")) for p in sorted(WEB.rglob("*.js"))}
    assert len(sizes) >= 8, sizes  # api, state, table, rack, lobby, chat, i18n, the entry
    too_big = {name: n for name, n in sizes.items() if n > MAX_CODE_LINES}
    assert not too_big, f"modules over {MAX_CODE_LINES} lines of code: {too_big}; split them by concern"
    for p in WEB.rglob("*.js"):
        assert not re.search(r"^\(\s*(?:\(\s*\)\s*=>|function)", p.read_text(encoding="utf-8"), re.M), (
            f"{p.name} wraps its code in one function: a module has its own scope"
        )


def test_the_string_table_rule_counts_only_strings_as_data() -> None:
    """The line count above leaves out string-table lines only, never code."""
    assert _code_lines('    "a.b": "text {x}",\n    "c":\n      "wrapped, text",\n\n  },\n') == 1  # the brace
    assert _code_lines('const x = "a";\nfoo("b");\n  return "c";\n') == 3


def test_every_element_id_of_the_page_is_unique() -> None:
    # Two screens once both had a #code-input: the second one's form could never be filled.
    ids = re.findall(r'\sid="([^"]+)"', (WEB / "index.html").read_text(encoding="utf-8"))
    twice = sorted({i for i in ids if ids.count(i) > 1})
    assert not twice, f"ids used more than once in index.html: {twice}"


def test_every_reason_of_a_hand_breakdown_has_its_text_in_both_languages() -> None:
    """The end-of-hand screen draws the rules' lines by reason (handend.line.<REASON>, issue 40):
    every reason either game's scoring can give has a Turkish and an English string."""
    from okeycore.classic.scoring import LINE_REASONS as CLASSIC
    from okeycore.okey101.scoring import LINE_REASONS as OKEY101
    from refusal_codes import strings

    for lang in ("tr", "en"):
        table = strings(lang)
        missing = sorted(r for r in {*CLASSIC, *OKEY101} if not table.get(f"handend.line.{r}"))
        assert not missing, f"breakdown reasons without a handend.line.<REASON> string ({lang}): {missing}"


def test_40_1_the_client_computes_no_prize_it_draws_the_lobby_s() -> None:
    """Issue 40.1, one truth for money and points: the chips a match moved are the lobby's
    settlement record (settlement.js draws GetSettlement, the result screen shows it) and what
    can be won at a table is the lobby's quote (LobbyTable.quote, QuotePot). No module reads a
    payout from the table's or the scoring service's result, nor multiplies or splits a stake."""
    sources = {p.name: p.read_text(encoding="utf-8") for p in sorted(WEB.glob("*.js")) if p.name != "i18n.js"}
    for name, src in sources.items():
        if name != "settlement.js":  # the record's own fields, drawn as they are
            assert not re.search(r"\.payout\b|\bpayout\s*:", src), f"{name} reads or computes a payout"
        code = re.sub(r"(?:^|\s)//.*$", "", src, flags=re.M)  # the comments may speak of stakes
        assert not re.search(r"stake\)?\s*\*|\*\s*(?:num\()?[\w.]*stake\b", code, re.I), (
            f"{name} multiplies a stake: the pot and the prize are the lobby's"
        )
    assert "showSettlement" in sources["results.js"] and "GetSettlement" in sources["settlement.js"]
    assert "QuotePot" in sources["wallet.js"] and "maxWin" in sources["wallet.js"]


def test_45_the_client_computes_no_rating_it_draws_the_scoring_service_s() -> None:
    """Issue 45, the skill rating: the rating, its change and the ranks are the scoring service's
    numbers (Rating.display, SeatStanding.rating's before/after/change, LeaderboardEntry's rank,
    rating and rating_change), drawn as they are. No module reads the model's mu or sigma, nor
    subtracts a rating from another, nor ranks a board itself."""
    sources = {p.name: p.read_text(encoding="utf-8") for p in sorted(WEB.glob("*.js")) if p.name != "i18n.js"}
    for name, src in sources.items():
        code = re.sub(r"(?:^|\s)//.*$", "", src, flags=re.M)
        assert not re.search(r"\.(?:mu|sigma)\b", code), f"{name} reads the rating model's mu or sigma"
        assert not re.search(r"\.after\b[^;\n]*-[^;\n]*\.before\b|\.display\b\s*[-+*/]", code), (
            f"{name} computes a rating change: the scoring service gives it"
        )
    board = sources["leaderboard.js"]
    assert "LEADERBOARD_ORDER_RATING" in board and "e.rank" in board and ".sort(" not in board
    assert "ratingCell" in sources["results.js"] and "ratingLines" in sources["profile.js"]

"""Issue 43.4: docs/api.md lists every reason code a client can meet, as the services' source
makes them (refusal_codes.py reads them), with the web client's English text for each. Run this
file (``python tests/gateway/test_api_doc.py``) to write the table again."""

from __future__ import annotations

import re

from refusal_codes import ROOT, scan, strings

API_DOC = ROOT / "docs" / "api.md"
BEGIN, END = "<!-- reason codes: begin -->", "<!-- reason codes: end -->"


def reason_table() -> str:
    """The markdown table of every reason code, its English text and where it is made."""
    en = strings("en")
    rows = ["| reason | what the web client says (EN) | made in |", "|---|---|---|"]
    for code, files in sorted(scan().codes.items()):
        text = re.sub(r"\s+", " ", en.get(f"err.{code}", "")).replace("|", "\\|")
        where = ", ".join(sorted(f"`{f}`" if "/" in f else "gRPC status" for f in files))
        rows.append(f"| `{code}` | {text} | {where} |")
    return "\n".join(rows)


def _section(text: str) -> str:
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[start:end].strip()


def test_api_md_lists_every_reason_code_the_code_makes() -> None:
    text = API_DOC.read_text(encoding="utf-8")
    assert _section(text) == reason_table(), (
        "docs/api.md's reason codes differ from the code's: run `python tests/gateway/test_api_doc.py`"
    )


def write() -> None:
    text = API_DOC.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    API_DOC.write_text(text[:start] + "\n" + reason_table() + "\n" + text[end:], encoding="utf-8")


if __name__ == "__main__":  # python tests/gateway/test_api_doc.py (its folder is on sys.path then)
    write()

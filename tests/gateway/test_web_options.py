"""The web client's table form follows okeycore's option spec: every option of RULES.md
section 5 of each game, each whole number with okeycore's bounds (one truth: okeycore.options)."""

from __future__ import annotations

import re
from pathlib import Path

from okeycore.options import BOUNDS, CLASSIC_OPTIONS, OKEY101_OPTIONS

APP_JS = Path(__file__).resolve().parents[2] / "services" / "gateway" / "web" / "app.js"


def _options() -> dict[str, str]:
    text = APP_JS.read_text(encoding="utf-8")
    block = text[text.index("const OPTIONS = [") : text.index("];", text.index("const OPTIONS = ["))]
    return {m.group(1): m.group(0) for m in re.finditer(r'\{ name: "(\w+)".*?\}', block, re.S)}


def test_the_web_form_offers_each_games_options_and_no_other() -> None:
    opts = _options()
    for game, names in (("OKEY", CLASSIC_OPTIONS), ("OKEY101", OKEY101_OPTIONS)):
        offered = [n for n, spec in opts.items() if f'"{game}"' in spec.split("games:")[1].split("]")[0]]
        assert offered == list(names), game


def test_the_web_forms_number_bounds_are_okeycores() -> None:
    opts = _options()
    for name, (low, high) in BOUNDS.items():
        spec = opts[name]
        got = (int(re.search(r"min: (\d+)", spec).group(1)), int(re.search(r"max: (\d+)", spec).group(1)))  # type: ignore[union-attr]
        assert got == (low, high), name


def test_the_event_log_has_a_line_for_every_event_the_envelope_can_carry_in_both_languages() -> None:
    """The client names an event by the envelope's kind (no list of its own): each oneof member of
    okey.v1.TableEvent needs its ``ev.<member>`` text in Turkish and English (a draw has two, from
    the deck and from the side; TableCreated is not logged)."""
    from okey.v1 import events_pb2

    text = (APP_JS.parent / "i18n.js").read_text(encoding="utf-8")
    en = text.index("\n  en: {")
    languages = {"tr": text[:en], "en": text[en:]}
    for member in events_pb2.TableEvent.DESCRIPTOR.oneofs_by_name["event"].fields:
        kind = member.json_name
        if kind == "tableCreated":
            continue
        keys = [f"ev.{kind}.deck", f"ev.{kind}.side"] if kind == "tileDrawn" else [f"ev.{kind}"]
        for lang, block in languages.items():
            for key in keys:
                assert f'"{key}":' in block, f"{lang}: no {key}"
    assert "EVENT_KINDS" not in APP_JS.read_text(encoding="utf-8")

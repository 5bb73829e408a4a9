"""Issue 18.5: every refusal a player can meet has a TR and an EN message in the web client's
i18n.js, by its reason code. The codes are read from the services' source (refusal_codes.py), so
a new reason code without a translation fails here; the messages show no rule ids, no tile ids
and (on the TR side) none of the English the servers write."""

from __future__ import annotations

import re

import pytest
from refusal_codes import RULE_ID, TILE_ID, Found, english_in, english_words, scan, strings


@pytest.fixture(scope="module")
def found() -> Found:
    return scan()


def test_the_scan_finds_the_codes_of_every_layer(found: Found) -> None:
    """The scan is not empty by mistake: a code of each layer is found where it is made."""
    where = found.codes
    assert "libs/okeycore/okey101/rules.py" in where["TILE_DOES_NOT_FIT"]  # a 101 rule
    assert "libs/okeycore/classic/rules.py" in where["INVALID_FINISH"]  # a classic rule
    assert "libs/okeycore/kernel/table.py" in where["NOT_YOUR_TURN"]  # the kernel
    assert "services/table/app.py" in where["BUSY"] and "services/table/app.py" in where["TOO_MANY_TABLES"]
    assert "services/lobby/moderation.py" in where["PROFANITY"]  # a key of the verdicts' _MESSAGES
    assert "services/lobby/moderation.py" in where["INVALID_NAME"]  # NameRejected
    assert "services/lobby/players.py" in where["NAME_TAKEN"]
    assert "services/scoring/app.py" in where["MATCH_IN_PROGRESS"]  # a default_reason
    assert "services/gateway/api.py" in where["RATE_LIMITED"]
    assert "services/gateway/api.py" in where["REQUEST_TOO_LARGE"]
    assert "DEADLINE_EXCEEDED" in where  # a gRPC status without a reason of its own
    assert len(where) >= 100, len(where)


def test_every_reason_is_made_from_a_literal_or_a_known_forwarder(found: Found) -> None:
    assert not found.unknown, (
        "a reason passed from a variable the scan does not know (add it to FORWARDED in "
        f"tests/gateway/refusal_codes.py with where its codes come from): {found.unknown}"
    )


@pytest.mark.parametrize("lang", ["tr", "en"])
def test_every_reason_code_has_a_message(found: Found, lang: str) -> None:
    table = strings(lang)
    missing = {c: sorted(files) for c, files in sorted(found.codes.items()) if f"err.{c}" not in table}
    assert not missing, f"reason codes without an err.<CODE> string in i18n.js ({lang}): {missing}"


def test_tr_and_en_have_the_same_refusal_keys_and_placeholders() -> None:
    tr, en = strings("tr"), strings("en")
    ours = re.compile(r"^(err|refusal|fits)\.")
    assert {k for k in tr if ours.match(k)} == {k for k in en if ours.match(k)}
    for k, text in tr.items():
        if ours.match(k):
            assert set(re.findall(r"\{(\w+)\}", text)) == set(re.findall(r"\{(\w+)\}", en[k])), k


def test_no_refusal_message_shows_rule_ids_tile_ids_or_the_servers_english(found: Found) -> None:
    words = english_words(found)
    assert {"tile", "meld", "discard", "opening"} <= words  # the servers' English is what is looked for
    for lang in ("tr", "en"):
        for k, text in strings(lang).items():
            if k.startswith("err."):
                assert not RULE_ID.search(text) and not TILE_ID.search(text), (lang, k, text)
                assert "{message}" not in text, f"{k} ({lang}) repeats the server's message"
    english = {k: english_in(v, words) for k, v in strings("tr").items() if k.startswith(("err.", "refusal.", "fits."))}
    assert not {k: v for k, v in english.items() if v}, english

"""Every TR and EN string of the web client (services/gateway/web/i18n.js) that is a sentence is a
whole one [issue 40, item 7].

What is a sentence: a message, help or error text (keys ``err.*``, ``*.help``, ``*.confirm``,
``*.text``), any string that ends with terminal punctuation in either language, and any string of
seven words or more or of more than one clause (a ``;``) — except the few labels in LABELS
(option values, a tagline, a list of shortcuts), and the event log's and the stage line's lines
(LINES: one per row, they end without a full stop but are still whole).

Whole, by a heuristic that catches a sentence cut off before its verb:
- a sentence ends with ``.``, ``!``, ``?`` or ``…`` in both languages (lines excepted);
- Turkish (a verb-final language): the last word of each sentence and each ``;`` clause is not a
  word that waits for a verb — an object in the accusative after a possessive or a vowel
  ("toplamını", "masayı"), a conjunction or postposition ("ve", "ile", "için"). A nominal
  predicate ("Masa dolu.") or an imperative ("tekrar dene.") passes;
- English: the last word of each sentence is not an article, "of", "and", "or", "by" or a possessive;
- a number in brackets straight after a verb ("açtı ({value})": opened with 1 point? one meld?)
  says what it counts.
"""

from __future__ import annotations

import re

from refusal_codes import strings

TR = strings("tr")
EN = strings("en")

MESSAGE_KEY = re.compile(r"^err\.|\.(help|confirm|text)$")
TERMINAL = re.compile(r"[.!?…][)\"”’»]*$")
# Labels that are long or have a clause but are not sentences: what a select offers, a tagline,
# an aria label that names a drop zone, a list of shortcut keys, a prompt before a typed name.
LABELS = {
    "app.tagline",
    "create.fill",
    "lobby.fill",
    "table.pile.mine",
    "table.shortcuts",
    "account.delete.confirm",
    "opt.bot_level.EASY",
    "opt.deck_end.LAST_CHANCE",
    "opt.discard_history.PAIRS_ONLY",
    "opt.indicator_timing.BEFORE_FIRST_MOVE",
    "opt.indicator_timing.FIRST_TURN",
    "opt.mode.FOLDING",
    "opt.pairs_declaration.BINDING",
}
# Lines of a list (the event log, the reasons in the end-of-hand and result tables) and of a
# status line or heading: whole, without a full stop.
LINE_KEY = re.compile(
    r"^ev\.|^table\.stage\.|^table\.heldSide$|^result\.(voided|deck)$|^handend\.(countdown|readyDone|deckScored)$"
    r"|^handend\.(line|why)\.|^settle\.why\."
)

# Turkish last words that wait for a verb.
TR_CONNECTORS = {"ve", "ile", "ya", "veya", "ama", "fakat", "için", "gibi", "kadar", "göre", "diye", "ki", "de", "da"}
TR_NOT_ACCUSATIVE = {"iyi", "kolayı"}  # -yi/-yı words that are not an object
TR_OBJECT = re.compile(r"(?:[ıiuü]n[ıiuü]|[aeıioöuü]y[ıiuü])$")
EN_FUNCTION = {"the", "a", "an", "of", "and", "or", "by", "your", "their", "its"}
# A number in brackets straight after a verb ("açtı ({value})", "opened ({value})").
BARE_NUMBER = re.compile(r"(?:[dt][ıiuü]|ed) \(\{(?:n|value|points|count)\}\)")


def is_sentence(key: str) -> bool:
    if key in LABELS:
        return False
    tr, en = TR[key], EN[key]
    words = re.findall(r"\w+", re.sub(r"\{\w+\}", " ", tr))
    return bool(
        MESSAGE_KEY.search(key)
        or LINE_KEY.search(key)
        or TERMINAL.search(tr.strip())
        or TERMINAL.search(en.strip())
        or len(words) >= 7
        or "; " in tr
    )


def _segments(s: str) -> list[str]:
    """The sentences and ``;`` clauses of ``s``, bracketed asides and a closing ``: {param}`` left out."""
    s = re.sub(r"\s*\([^()]*\)", "", s)
    s = re.sub(r"[“”\"«»]", "", s)
    out = []
    for seg in re.split(r"[.;!?…]+(?:\s|$)", s):
        seg = re.sub(r":\s*(?:\{\w+\}|[\d+/ ]+)\s*$", "", seg.strip())
        if seg:
            out.append(seg)
    return out


def _last_word(seg: str) -> str:
    words = re.findall(r"[A-Za-zÇĞİÖŞÜçğıöşüâîû]+(?:['’][a-zçğıöşü]+)?", seg)
    return words[-1].replace("İ", "i").replace("I", "ı").lower() if words else ""


def turkish_without_predicate(s: str) -> list[str]:
    """The last words of the sentences of ``s`` that wait for a verb."""
    bad = []
    for seg in _segments(s):
        w = _last_word(seg)
        base = re.split(r"['’]", w)[0] if w else w
        if not w:
            continue
        if base in TR_CONNECTORS or (TR_OBJECT.search(w) and base not in TR_NOT_ACCUSATIVE):
            bad.append(w)
    return bad


def english_without_end(s: str) -> list[str]:
    return [w for w in (_last_word(seg) for seg in _segments(s)) if w in EN_FUNCTION]


def test_the_heuristic_tells_a_cut_sentence_from_a_whole_one() -> None:
    cut = "Deste bitti, kimse bitiremedi: açmayan 202 yazar, açan elinde kalan taşların toplamını"
    assert turkish_without_predicate(cut) == ["toplamını"]
    assert turkish_without_predicate(cut + " yazar.") == []
    assert turkish_without_predicate("Bot 4 taşı masaya ve") == ["ve"]
    for whole in (
        "Masa dolu.",
        "Oturumun sona erdi; yeniden giriş yap.",
        "Sıra sende!",
        "{name} ceza aldı: {points}",
        "Bu şifre olmaz: 8-128 karakter olsun.",
        "13'ten sonra 1 gelebilir (yalnız serinin sonunda).",
    ):
        assert turkish_without_predicate(whole) == [], whole
    assert english_without_end("who opened the sum of the") == ["the"]
    assert english_without_end("The hand is over.") == []
    assert is_sentence("err.TABLE_FULL") and is_sentence("handend.deck101") and not is_sentence("act.draw")


def test_every_sentence_is_whole_in_turkish_and_english() -> None:
    assert set(TR) == set(EN)
    sentences = [k for k in TR if is_sentence(k)]
    assert len(sentences) > 250, len(sentences)
    problems: dict[str, str] = {}
    for k in sentences:
        tr, en = TR[k].strip(), EN[k].strip()
        if not LINE_KEY.search(k):
            if not TERMINAL.search(tr):
                problems[k + " (tr)"] = f"no full stop: {tr!r}"
            if not TERMINAL.search(en):
                problems[k + " (en)"] = f"no full stop: {en!r}"
        if words := turkish_without_predicate(tr):
            problems[k + " (tr)"] = f"no verb after {words}: {tr!r}"
        if words := english_without_end(en):
            problems[k + " (en)"] = f"ends on {words}: {en!r}"
    assert not problems, "\n".join(f"{k}: {v}" for k, v in sorted(problems.items()))


def test_a_number_in_brackets_says_what_it_counts() -> None:
    """'Bot 4 açtı (1)' read as "opened with 1 point": a bare {n} in brackets has no unit."""
    bare = {
        f"{k} ({lang})": s
        for lang, table in (("tr", TR), ("en", EN))
        for k, s in table.items()
        if BARE_NUMBER.search(s)
    }
    assert not bare, bare


def test_badges_and_flags_come_from_the_string_table() -> None:
    """The seat flags (ÇİFT, OKEY, the autopilot's) are strings of both tables, not words in the
    code: the autopilot badge was the English "AUTO" on a TR page."""
    assert TR["table.flag.autopilot.short"] != EN["table.flag.autopilot.short"]
    for key in (
        "table.flag.autopilot.short",
        "table.flag.pairs.short",
        "table.flag.okey.short",
        "table.flag.left.short",
    ):
        assert key in TR and key in EN, key
    from refusal_codes import ROOT

    board = (ROOT / "services" / "gateway" / "web" / "board.js").read_text(encoding="utf-8")
    literal = re.findall(r'class: "flag [^"]*"[^)]*\}, "([^"]+)"\)', board)
    assert not literal, f"flags written in the code: {literal}"

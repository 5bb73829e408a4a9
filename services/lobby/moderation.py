"""The house rules for chat and display names (Salonda herkes misafir): what is refused and why.

Pure functions over text; the word lists are data in wordlists.py. A message is read the way
a person would read it: Turkish lower case (``I`` -> ``ı``, ``İ`` -> ``i``), ı/i ş/s ç/c ğ/g
ö/o ü/u folded to ASCII, leetspeak (``$1kt1r``), repeated letters (``siiiktir``), letters of
other scripts that look Latin, invisible characters, and separators inside a word
(``a.m.k``) or between single letters (``a m k``) - while words that merely contain a bad
substring (``eksiktir``, ``sıkıldım``, ``Scunthorpe``, ``boks``) pass.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from . import wordlists as W

__all__ = [
    "Verdict",
    "NameRejected",
    "check_message",
    "check_display_name",
    "name_key",
    "fold",
    "turkish_lower",
    "RULE_RESPECT",
    "RULE_PRIVACY",
    "RULE_NO_ADS",
]

RULE_RESPECT = "Saygı önce gelir: küfür, hakaret, taciz yok."
RULE_PRIVACY = "Telefon, adres gibi kişisel bilgi paylaşma, isteme."
RULE_NO_ADS = "Reklam, bağlantı ve satış yok."

MAX_TOKEN = 48  # longer "words" are checked in pieces, so a pattern never scans a huge token


@dataclass(frozen=True, slots=True)
class Verdict:
    """Why a message was not sent: a stable ``reason`` and the ``message`` the sender reads."""

    reason: str
    message: str


_MESSAGES = {
    "PROFANITY": f"Mesajın gönderilmedi: küfür var. {RULE_RESPECT} (Not sent: no profanity.)",
    "INSULT": f"Mesajın gönderilmedi: hakaret var. {RULE_RESPECT} (Not sent: no insults.)",
    "PERSONAL_INFO": (
        f"Mesajın gönderilmedi: kişisel bilgi (telefon, e-posta, adres) var. {RULE_PRIVACY} "
        "(Not sent: no personal information.)"
    ),
    "LINK": f"Mesajın gönderilmedi: bağlantı var. {RULE_NO_ADS} (Not sent: no links.)",
    "ADVERTISING": f"Mesajın gönderilmedi: reklam ya da satış var. {RULE_NO_ADS} (Not sent: no advertising.)",
}


def verdict(reason: str) -> Verdict:
    return Verdict(reason, _MESSAGES[reason])


# ------------------------------------------------------------------ normalising

_FOLD = str.maketrans({"ı": "i", "ş": "s", "ç": "c", "ğ": "g", "ö": "o", "ü": "u"})
_HOMO = str.maketrans(W.HOMOGLYPHS)
_EDGE = ".,;:!?\"'()[]{}<>…“”‘’«»-_~"
_SEP = re.escape(W.SEPARATORS)


def turkish_lower(text: str) -> str:
    """Lower case the Turkish way (``I`` -> ``ı``, ``İ`` -> ``i``), after NFKC (full-width
    letters, ligatures), without invisible characters, with look-alike letters made Latin."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")  # zero-width, soft hyphen
    text = text.replace("I", "ı").replace("İ", "i").lower()
    return text.translate(_HOMO)


def fold(text: str) -> str:
    """Turkish letters to ASCII and accents dropped (``şöför`` -> ``sofor``, ``kâr`` -> ``kar``);
    expects ``turkish_lower`` text."""
    text = unicodedata.normalize("NFD", text.translate(_FOLD))
    return unicodedata.normalize("NFC", "".join(c for c in text if not unicodedata.combining(c)))


def _letter(c: str, first: bool) -> str:
    chars = c + W.LEET.get(c, "") + ("" if first else "*")
    return "[" + re.escape(chars) + "]"


def _word_pattern(word: str, leet: bool = True) -> str:
    """A regex for one listed word: each letter may be a look-alike (leetspeak), repeated
    (``siiik``; a double letter in the word must stay double), and separated from the next by
    separators; the words of a phrase by spaces."""
    out: list[str] = []
    for wi, w in enumerate(word.split()):
        if wi:
            out.append(r"\s+")
        runs: list[tuple[str, int]] = []
        for c in w:
            if runs and runs[-1][0] == c:
                runs[-1] = (c, runs[-1][1] + 1)
            else:
                runs.append((c, 1))
        for ri, (c, n) in enumerate(runs):
            cls = _letter(c, wi == 0 and ri == 0) if leet else "[" + re.escape(c) + "]"
            unit = f"[{_SEP}]*{cls}"
            out.append(cls if wi == 0 and ri == 0 else unit)
            out.append(f"(?:{unit}){{{n - 1}}}(?:{unit})*" if n > 1 else f"(?:{unit})*")
    return "".join(out)


def _compile(words: Iterable[str], leet: bool = True) -> re.Pattern[str]:
    """One alternation of the words' patterns, longest first; the caller anchors it."""
    forms = sorted({fold(w) if leet else w for w in words}, key=len, reverse=True)
    return re.compile("(?:" + "|".join(_word_pattern(w, leet) for w in forms) + ")")


@dataclass(frozen=True)
class _Matcher:
    """A category's words compiled: ``word`` must match the whole word, ``stem`` its start,
    ``infix`` anywhere."""

    reason: str
    word: re.Pattern[str]
    stem: re.Pattern[str]
    infix: re.Pattern[str] | None = None
    unfolded: re.Pattern[str] | None = None

    def folded_hit(self, folded: str) -> bool:
        if self.word.fullmatch(folded) or self.stem.match(folded):
            return True
        return bool(self.infix and self.infix.search(folded))

    def unfolded_hit(self, lowered: str) -> bool:
        return bool(self.unfolded and self.unfolded.fullmatch(lowered))


_PROFANITY = _Matcher(
    "PROFANITY",
    _compile(W.PROFANITY_WORD),
    _compile(W.PROFANITY_STEM),
    _compile(W.PROFANITY_INFIX),
    _compile(W.PROFANITY_UNFOLDED, leet=False),
)
_INSULT = _Matcher("INSULT", _compile(W.INSULT_WORD), _compile(W.INSULT_STEM))
_MATCHERS = (_PROFANITY, _INSULT)
# Stems of more than one word ("geri zekal"), matched over the message's words in a row.
_PHRASE_STEMS = tuple(
    (m, re.compile(r"(?:^|\s)" + _compile(phrases).pattern))
    for m, phrases in (
        (_PROFANITY, [w for w in W.PROFANITY_STEM if " " in w]),
        (_INSULT, [w for w in W.INSULT_STEM if " " in w]),
    )
    if phrases
)


def _is_clean(lowered: str) -> bool:
    return lowered in W.CLEAN_WORDS or lowered.startswith(W.CLEAN_STEMS)


def _tokens(lowered: str) -> list[str]:
    out = []
    for raw in lowered.split():
        t = raw.strip(_EDGE)
        if t:
            out.append(t[:MAX_TOKEN])
    return out


_PART_SPLIT = re.compile(r"[^\w@$!|(<+&^°ø€§µ*]+")


def _candidates(tokens: list[str]) -> Iterator[str]:
    """Every way a bad word may hide in the message's words: each word whole and in pieces
    (``selam,amk``), runs of single letters joined (``a m k``), and a short word joined to
    its neighbour (``oros pu``, ``f uck``)."""
    for t in tokens:
        yield t
        parts = [p for p in _PART_SPLIT.split(t) if p]
        if len(parts) > 1:
            yield from parts
    run: list[str] = []
    for t in [*tokens, ""]:
        if len(t) == 1:
            run.append(t)
            continue
        if len(run) >= 2:
            yield "".join(run)
        run = []
    for a, b in itertools.pairwise(tokens):
        if min(len(a), len(b)) <= 3:
            yield a + b


def _bad_words(lowered: str) -> str | None:
    tokens = _tokens(lowered)
    for cand in _candidates(tokens):
        if _is_clean(cand):
            continue
        folded = fold(cand)
        for m in _MATCHERS:
            if m.unfolded_hit(cand) or m.folded_hit(folded):
                return m.reason
    folded_text = fold(" ".join(tokens))
    for m, phrases in _PHRASE_STEMS:
        if phrases.search(folded_text):
            return m.reason
    return None


# ------------------------------------------------------------------ personal information

_D = r"[\s.\-/()]*"  # what people put between the digits of a phone number
_PHONE_TR = re.compile(
    rf"(?<!\d)(?:(?:\+|00)?9{_D}0{_D}|0{_D})?\(?5\d{_D}\d\)?{_D}\d{_D}\d{_D}\d{_D}\d{_D}\d{_D}\d{_D}\d(?!\d)"
)
_PHONE_TR_LANDLINE = re.compile(
    rf"(?<!\d)(?:(?:\+|00)?9{_D}0{_D}|0{_D})\(?[2-4]\d{_D}\d\)?{_D}\d{_D}\d{_D}\d{_D}\d{_D}\d{_D}\d{_D}\d(?!\d)"
)
_PHONE_INTL = re.compile(r"(?<![\w])\+\s*\d(?:[\s.\-()]*\d){7,}")
_LETTER_O = re.compile(r"(?<=\d)o|o(?=\d)")  # "O532 ..." written with a letter O
_EMAIL = re.compile(r"[\w.+\-]+\s*@\s*[\w\-]+(?:\s*\.\s*[a-z]{2,})+")
_TLD_ALL = "|".join(re.escape(t) for t in (*W.TLDS, *W.SHORT_TLDS))
_DOT = r"\s*(?:\.|\[\s*(?:\.|dot|nokta)\s*\]|\(\s*(?:\.|dot|nokta)\s*\)|\s(?:dot|nokta)\s)\s*"
_AT = r"\s*(?:@|\[\s*(?:at|et)\s*\]|\(\s*(?:at|et)\s*\)|\{\s*(?:at|et)\s*\}|<\s*(?:at|et)\s*>|\s(?:at|et)\s)\s*"
_EMAIL_SPELLED = re.compile(rf"\b[\w.+\-]+{_AT}[\w\-]+{_DOT}(?:{_TLD_ALL})\b")
_MAIL_PROVIDER = re.compile(rf"\b(?:{'|'.join(W.MAIL_PROVIDERS)}){_DOT}(?:{_TLD_ALL})\b")
_CONTACT = re.compile(r"\b(?:" + "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in W.CONTACT_SOLICITATION) + r")\b")
_ADDR_WORD = re.compile(r"\b(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in W.ADDRESS_WORDS) + r")\b")
_ADDR_ABBR = re.compile(r"\b(?:" + "|".join(W.ADDRESS_ABBREVIATIONS) + r")\s*[.:]")
_HOUSE_NUMBER = re.compile(r"\b\d{1,5}(?:\s*/\s*\d{1,4})?[a-z]?\b\.?")


def _spelled_digits(folded_tokens: list[str]) -> bool:
    """Seven or more digits in a row read out as words or written apart (``beş üç iki ...``)."""
    run = 0
    for t in folded_tokens:
        if t in W.DIGIT_WORDS or (t.isdigit() and len(t) <= 4):
            run += 1 if t in W.DIGIT_WORDS else len(t)
            if run >= 7 and any(x in W.DIGIT_WORDS for x in folded_tokens):
                return True
        else:
            run = 0
    return False


def _address(folded: str) -> bool:
    words = [m.span() for m in _ADDR_WORD.finditer(folded)] + [m.span() for m in _ADDR_ABBR.finditer(folded)]
    if len(words) >= 2:
        return True
    if not words:
        return False
    start, end = words[0]
    # A house number right after the word ("Gül Sokak 5", "No: 12"), or a numbered street
    # before it ("1453. Sokak", "221 Baker Street").
    after = folded[end : end + 8]
    before = folded[max(0, start - 20) : start]
    return bool(re.match(r"\s*\d", after) or re.search(r"\d{1,5}\.?\s+(?:[a-z]+\s+)?$", before))


def _one_long_number(text: str) -> bool:
    """Ten or more digits written as one number (a phone, identity, card or account number):
    in one go or in at most four groups, or with a group of four or more digits. A list of
    small numbers (scores: ``20 18 16 14 12``) is not one."""
    for m in re.finditer(r"\d[\d\s.\-]*\d", text):
        groups = re.split(r"[\s.\-]+", m.group())
        if sum(len(g) for g in groups) >= 10 and (len(groups) <= 4 or any(len(g) >= 4 for g in groups)):
            return True
    return False


def _personal_info(folded: str) -> bool:
    digits = _LETTER_O.sub("0", folded)
    if any(p.search(digits) for p in (_PHONE_TR, _PHONE_TR_LANDLINE, _PHONE_INTL)) or _one_long_number(digits):
        return True
    if _spelled_digits(folded.split()):
        return True
    if _EMAIL.search(folded) or _EMAIL_SPELLED.search(folded) or _MAIL_PROVIDER.search(folded):
        return True
    return bool(_CONTACT.search(folded)) or _address(folded)


# ------------------------------------------------------------------ links and advertising

_URL = re.compile(r"\b(?:https?\s*:\s*/\s*/|www\s*\.|hxxps?://)", re.IGNORECASE)
_DOMAIN = re.compile(
    rf"\b[a-z0-9][a-z0-9\-]*{_DOT}(?:{'|'.join(W.TLDS)})\b(?!\.[a-z])"  # site.com, site nokta com
    r"|\b[a-z0-9\-]+\.(?:com|net|org)\.[a-z]{2}\b"  # site.com.tr
)
_SHORT_DOMAIN = re.compile(rf"\b[a-z0-9][a-z0-9\-]*\.(?:{'|'.join(W.SHORT_TLDS)})/\S")
_HOSTS = re.compile(r"(?:" + "|".join(re.escape(h) for h in W.LINK_HOSTS) + r")")
_ADS = re.compile(r"\b(?:" + "|".join(re.escape(p).replace(r"\ ", r"[\s.\-_]+") for p in W.AD_PHRASES) + r")\b")


def _link(folded: str) -> bool:
    return bool(_URL.search(folded) or _DOMAIN.search(folded) or _SHORT_DOMAIN.search(folded) or _HOSTS.search(folded))


# ------------------------------------------------------------------ the checks


def check_message(text: str) -> Verdict | None:
    """None when the message keeps the house rules, else why not (the first rule it breaks:
    profanity, insults, personal information, links, advertising)."""
    lowered = turkish_lower(text)
    bad = _bad_words(lowered)
    if bad:
        return verdict(bad)
    folded = " ".join(fold(lowered).split())
    if _personal_info(folded):
        return verdict("PERSONAL_INFO")
    if _link(folded):
        return verdict("LINK")
    if _ADS.search(folded):
        return verdict("ADVERTISING")
    return None


# ------------------------------------------------------------------ display names


class NameRejected(ValueError):
    """A display name that cannot be used; ``reason`` is stable, the message readable."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


NAME_MIN, NAME_MAX = 3, 20
_NAME_LETTERS = "A-Za-zÇĞİÖŞÜçğıöşüÂÎÛâîû"
_NAME = re.compile(rf"^[{_NAME_LETTERS}][{_NAME_LETTERS}0-9]*(?:[ ._\-][{_NAME_LETTERS}0-9]+)*$")
_NAME_SEPARATORS = re.compile(r"[ ._\-]")
_CAMEL = re.compile(r"(?<=[a-zçğıöşüâîû0-9])(?=[A-ZÇĞİÖŞÜÂÎÛ])")
_LEET_NAME = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g"})
_LONG_STEMS = tuple(w for w in (*W.PROFANITY_STEM, *W.INSULT_STEM) if len(w) >= 5 and " " not in w)
_LONG_STEM_RE = _compile(_LONG_STEMS)


def name_key(name: str) -> str:
    """What makes two names the same: case (the Turkish way), Turkish letters and separators
    do not count (``Ayşe_Nur`` = ``AYSE NUR`` = ``ayşenur``)."""
    return _NAME_SEPARATORS.sub("", fold(turkish_lower(name)))


def check_display_name(name: str) -> str:
    """The name as it will be shown (trimmed, spaces collapsed), or NameRejected."""
    shown = " ".join(unicodedata.normalize("NFC", name).split())
    if not NAME_MIN <= len(shown) <= NAME_MAX:
        raise NameRejected(
            "INVALID_NAME",
            f"Ad {NAME_MIN}-{NAME_MAX} karakter olmalı. (A name has {NAME_MIN} to {NAME_MAX} characters.)",
        )
    if not _NAME.match(shown):
        raise NameRejected(
            "INVALID_NAME",
            "Ad bir harfle başlar; harf, rakam ve aralarında tek boşluk, '.', '_' ya da '-' olabilir. "
            "(A name starts with a letter and has letters, digits and single spaces, '.', '_' or '-' between them.)",
        )
    if sum(c.isdigit() for c in shown) > 4:
        raise NameRejected("INVALID_NAME", "Adda en çok 4 rakam olabilir. (At most 4 digits in a name.)")
    parts = [p for p in _NAME_SEPARATORS.split(shown) if p]
    lowered_parts = [turkish_lower(p) for p in parts]
    pieces = {turkish_lower(c) for p in parts for c in _CAMEL.split(p) if c}  # "AliMod" -> ali, mod
    joined = "".join(lowered_parts)
    folded_joined = fold(joined)
    if (
        _bad_words(" ".join(lowered_parts))
        or _bad_words(joined)
        or any(_bad_words(p) for p in pieces)
        or (not _is_clean(joined) and _LONG_STEM_RE.search(folded_joined))
    ):
        raise NameRejected("INVALID_NAME", "Bu ad kullanılamaz: " + RULE_RESPECT + " (This name is not allowed.)")
    plain = folded_joined.translate(_LEET_NAME)
    plain_pieces = {fold(p).translate(_LEET_NAME) for p in pieces | set(lowered_parts)}
    if any(w in plain for w in W.STAFF_WORDS) or plain_pieces & set(W.STAFF_TOKENS):
        raise NameRejected(
            "INVALID_NAME",
            "Bu ad yöneticileri ya da sistemi taklit ediyor. (A name may not pass for the staff or the system.)",
        )
    return shown

"""The house rules for chat and display names (Salonda herkes misafir): what is refused and why.

Pure functions over text; the word lists are data in wordlists.py. A message is read the way a
person would read it: normalised before matching, much as Unicode TR39 makes a skeleton.

1. Enclosed letters and digits NFKC leaves alone (🅢 🅰 🇸 ❶) become the letter or digit they
   show, parenthesized ones (⒮) the bare letter, a stand-alone accent (´ ¨) a separator; then
   NFKC (full-width, mathematical, circled and squared letters, ligatures).
2. Invisible characters are dropped: format characters (zero-width space and joiners, direction
   marks and overrides, soft hyphen, word joiner, invisible operators, BOM, tags), combining
   marks NFKC did not join to a letter (variation selectors, strike-through and enclosing
   decorations), controls, unassigned and private-use characters. Blanks that Python does not
   count as space (braille blank, Hangul fillers) and the narrow spaces are read both ways:
   dropped, and as a space.
3. Look-alike letters become Latin: Cyrillic, Greek, Armenian, Cherokee, Lisu and Canadian
   syllabic look-alikes (``wordlists.CONFUSABLES``), Latin letters with a hook, a stroke or a bar
   and small capitals (ƒ ł ꜱ ᴀ, from their Unicode names), and their accented forms; Arabic-Indic
   digits become digits.
4. Turkish lower case (``I`` -> ``ı``, ``İ`` -> ``i``), then ı/i ş/s ç/c ğ/g ö/o ü/u folded to ASCII.
   A capital I among small letters is also read as l (``saIak``), a small l among capitals as I
   (``SlKTlR``), and text after a right-to-left override also as shown (reversed).

Each word is then matched in several shapes: leetspeak (``$1kt1r``), repeated letters
(``siiiktir``), separators inside it (``a.m.k``), single letters apart (``a m k``) or with any
punctuation between them (``a+m+k``, ``s(a)l(a)k``, ``s|a|l|a|k``), digits glued to its ends
(``salak123``), and, for listed words of four consonants or more, written without vowels
(``şrfsz``, ``sktr``) - while words that merely contain a bad substring (``eksiktir``,
``sıkıldım``, ``Scunthorpe``, ``boks``) pass. A word is also compared by its phonetic key
(``wordlists.SOUNDS_*``): spellings Turkish does not use read as the Turkish sound (``siqtir``,
``pezewenk``, ``phuck``, ``pich``), and, against listed words of five letters or more, the
sounds Turkish itself swaps (b/p d/t z/s g/k c/j, sh for ş: ``orozbu``, ``sikdir``, ``kahbe``,
``kaltağı``, ``sherefsiz``), but not where an everyday word has the same key (``bıçak``,
``sürdük``, ``sığınak``) nor in two words glued together. Phone numbers are found whatever stands between
their digits (``0 5 3 2 ...``), with O or l for 0 or 1. A display name may not pass for the staff,
also with ``rn`` read as m, ``vv`` as w, ``cl`` as d, 0 as o and 1, l or I as i (``Adrnin``).

What it cannot do: know every look-alike (the table is a subset of TR39's confusables), read
words split by real spaces into long pieces (``sere fsiz``), vowel-less spellings with some vowels
left (``şrfsız``) or of short words (``slk``), paired sound swaps in short words (``pok``, ``bic``)
or vowel swaps (``oruspu``), or meaning: a new spelling needs a list entry.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

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
_EDGE = ".,;:!?\"'()[]{}<>…“”‘’«»-_~"
_SEP = re.escape(W.SEPARATORS)
_NUMBERS = (
    "ZERO ONE TWO THREE FOUR FIVE SIX SEVEN EIGHT NINE TEN ELEVEN TWELVE THIRTEEN FOURTEEN FIFTEEN SIXTEEN "
    "SEVENTEEN EIGHTEEN NINETEEN TWENTY"
).split()
_ENCLOSED_NAME = re.compile(
    rf"(?:LATIN (?P<case>CAPITAL|SMALL) LETTER|REGIONAL INDICATOR SYMBOL LETTER) (?P<letter>[A-Z])$"
    rf"|(?:DIGIT|NUMBER) (?P<number>{'|'.join(_NUMBERS)})$"
)
_LATIN_NAME = re.compile(
    r"LATIN (?P<case>CAPITAL|SMALL) LETTER (?:DOTLESS |BARRED )?(?P<letter>[A-Z])(?: WITH .+| BAR)?"
    r"|LATIN (?:LETTER )?SMALL CAPITAL (?:LETTER )?(?P<small>[A-Z])(?: WITH .+)?"
)


def _enclosed() -> dict[int, str]:
    """Enclosed letters and digits (🅢 🅰 🇸 ⒮ Ⓢ 🄢 ❶ ⓫): the letter or number they show, read from
    their Unicode names; before NFKC, which leaves the negative ones alone and turns ⒮ into (s)."""
    table: dict[int, str] = {}
    for cp in itertools.chain(range(0x2460, 0x2500), range(0x2776, 0x2794), range(0x1F100, 0x1F200)):
        m = _ENCLOSED_NAME.search(unicodedata.name(chr(cp), ""))
        if m and m["number"]:
            table[cp] = str(_NUMBERS.index(m["number"]))
        elif m:
            table[cp] = m["letter"].lower() if m["case"] == "SMALL" else m["letter"]
    return table


def _confusables() -> dict[int, str]:
    """Every character that shows as a Latin letter or digit: wordlists.CONFUSABLES; Latin letters
    with a hook, a stroke or a bar, small capitals and dotless letters (ƒ ł ꜱ ᴀ ȷ) read from their
    Unicode names (not ı, a Turkish letter); and the accented forms of all these (Cyrillic ӧ ї,
    Greek ά), as the Latin letter with the same accent."""
    table = {ord(k): v for k, v in W.CONFUSABLES.items()}
    for lo, hi in (
        (0xC0, 0x2B0),
        (0x1D00, 0x1DC0),
        (0x1E00, 0x1F00),
        (0x2C60, 0x2C80),
        (0xA720, 0xA800),
        (0xAB30, 0xAB70),
    ):
        for cp in range(lo, hi):
            c = chr(cp)
            m = _LATIN_NAME.fullmatch(unicodedata.name(c, ""))
            if m and c != "ı" and not unicodedata.decomposition(c):
                table[cp] = (
                    m["small"].lower() if m["small"] else m["letter"] if m["case"] == "CAPITAL" else m["letter"].lower()
                )
    for cp in itertools.chain(range(0x100, 0x2000), range(0x2C00, 0x2E00), range(0xA640, 0xA6A0)):
        d = unicodedata.normalize("NFD", chr(cp))
        if cp not in table and len(d) > 1 and ord(d[0]) in table:
            table[cp] = table[ord(d[0])] + d[1:]
    return table


_CONFUSE = _confusables()
_ENCLOSED = _enclosed()
# Accents written on their own (´ ¨ ˘ ¸): NFKC makes them a space and a combining mark, which
# would split the word ("pezeve´n´k"); read them as a separator instead.
_SPACING_ACCENTS = {
    cp: "`"
    for cp in itertools.chain(range(0xA0, 0x400), range(0x1F00, 0x2000), range(0x3000, 0x3100), range(0xFE00, 0x10000))
    if (nf := unicodedata.normalize("NFKC", chr(cp)))[:1] == " " and len(nf) > 1
}
_BLANKS = frozenset(W.BLANKS)
_BLANK_DROPPED = str.maketrans(_ENCLOSED | _SPACING_ACCENTS | dict.fromkeys(map(ord, W.BLANKS), None))
_BLANK_SPACE = str.maketrans(_ENCLOSED | _SPACING_ACCENTS | dict.fromkeys(map(ord, W.BLANKS), " "))
_HIDDEN = frozenset(("Cc", "Cf", "Cn", "Co", "Cs", "Mn", "Me"))
_RLO = re.compile("\u202e([^\u202c\n]*)\u202c?")


def _visible(c: str) -> bool:
    """Not a format or control character (zero-width space and joiners, direction marks, soft
    hyphen, tags), nor a combining mark NFKC did not join to its letter (variation selectors,
    strike-through and enclosing decorations), nor an unassigned or private one."""
    if c.isascii():
        return c.isprintable() or c.isspace()
    return unicodedata.category(c) not in _HIDDEN or c.isspace()


def _shown(text: str, blanks: dict[int, str | None]) -> str:
    """The letters a reader sees, case kept: enclosed letters and blanks first (NFKC would turn
    ⒮ into (s)), then NFKC, without invisible characters, look-alikes made Latin."""
    text = unicodedata.normalize("NFKC", text.translate(blanks))
    text = "".join(c for c in text if _visible(c))
    return unicodedata.normalize("NFC", text.translate(_CONFUSE))


def _lower(text: str) -> str:
    text = text.replace("I", "ı").replace("İ", "i").lower()
    return unicodedata.normalize("NFC", text.translate(_CONFUSE))


def turkish_lower(text: str) -> str:
    """The text as a reader sees it, in Turkish lower case (``I`` -> ``ı``, ``İ`` -> ``i``): after
    NFKC (full-width, mathematical, circled letters, ligatures), enclosed letters NFKC leaves
    (🅢, 🇸) read as letters, invisible characters and decorations dropped, blanks (braille
    blank, Hangul fillers, narrow spaces) dropped, look-alike letters of other scripts made Latin."""
    return _lower(_shown(text, _BLANK_DROPPED))


# A capital I among small letters stands for an l ("saIak"), a small l among capitals for an I
# ("SlKTlR"): in most fonts they look the same.
_I_OR_L = re.compile(
    r"(?<=[a-zçğıöşü])I|I(?=[a-zçğıöşü])|(?<=[A-ZÇĞİÖŞÜ])l(?![a-zçğıöşü])|(?<![a-zçğıöşü])l(?=[A-ZÇĞİÖŞÜ])"
)


def _swap_i_l(shown: str) -> str:
    return _I_OR_L.sub(lambda m: "l" if m.group() == "I" else "I", shown)


def _readings(text: str) -> list[str]:
    """The ways a message may be read, each as ``turkish_lower``: with its blanks dropped, and as
    spaces when it has any; as shown when a right-to-left override reverses part of it; and each
    of these with a capital I among small letters read as l and a small l among capitals as I."""
    shown = [_shown(text, _BLANK_DROPPED)]
    if not _BLANKS.isdisjoint(text):
        shown.append(_shown(text, _BLANK_SPACE))
    if "\u202e" in text:
        shown.append(_shown(_RLO.sub(lambda m: m.group(1)[::-1], text), _BLANK_DROPPED))
    shown += [_swap_i_l(s) for s in shown]
    return list(dict.fromkeys(_lower(s) for s in shown))


def fold(text: str) -> str:
    """Turkish letters to ASCII and accents dropped (``şöför`` -> ``sofor``, ``kâr`` -> ``kar``);
    expects ``turkish_lower`` text."""
    text = unicodedata.normalize("NFD", text.translate(_FOLD))
    return unicodedata.normalize("NFC", "".join(c for c in text if not unicodedata.combining(c)))


def _letter(c: str, first: bool, leet: dict[str, str]) -> str:
    chars = c + leet.get(c, "") + ("" if first else "*")
    return "[" + re.escape(chars) + "]"


def _word_units(word: str, leet: bool = True, table: dict[str, str] = W.LEET) -> list[str]:
    """The regex for one listed word, as a list of pieces (one per letter run; the words of a
    phrase joined by spaces): each letter may be a look-alike (leetspeak), repeated (``siiik``;
    a double letter in the word must stay double), and separated from the next by separators."""
    out: list[str] = []
    for wi, w in enumerate(word.split()):
        runs: list[tuple[str, int]] = []
        for c in w:
            if runs and runs[-1][0] == c:
                runs[-1] = (c, runs[-1][1] + 1)
            else:
                runs.append((c, 1))
        for ri, (c, n) in enumerate(runs):
            cls = _letter(c, wi == 0 and ri == 0, table) if leet else "[" + re.escape(c) + "]"
            unit = f"[{_SEP}]*{cls}"
            head = (r"\s+" if wi and not ri else "") + (cls if wi == 0 and ri == 0 else unit)
            out.append(head + (f"(?:{unit}){{{n - 1}}}(?:{unit})*" if n > 1 else f"(?:{unit})*"))
    return out


def _alternation(words: list[list[str]]) -> str:
    """The words' pieces as one alternation with their common beginnings written once (a trie):
    ``sik|sikik|siktir`` as ``sik(?:ik|tir)?``. It matches exactly the strings the plain
    alternation matches (the order of alternatives only picks which one matches, and every use
    here asks only whether one does); and it compiles in a fraction of the time, which every
    lobby start pays."""
    trie: dict[str, Any] = {}
    for units in words:
        node = trie
        for u in units:
            node = node.setdefault(u, {})
        node[""] = {}  # the word ends here

    def emit(node: dict[str, Any]) -> str:
        alts = [u + emit(child) for u, child in node.items() if u]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 and "" not in node else "(?:" + "|".join(alts) + ")"
        return body + ("?" if "" in node else "")

    return emit(trie)


def _compile(
    words: Iterable[str], leet: bool = True, digits_after: bool = False, table: dict[str, str] = W.LEET
) -> re.Pattern[str]:
    """One alternation of the words' patterns (:func:`_alternation`); the caller anchors it. With
    ``digits_after``, words of three letters or more may have digits glued on (``salak123``).
    ``table`` is the leetspeak read for each letter. No words: a pattern that never matches."""
    forms = sorted({fold(w) if leet else w for w in words})
    tail = r"\d*"
    units = [_word_units(w, leet, table) + ([tail] if digits_after and len(w) >= 3 else []) for w in forms]
    return re.compile(_alternation(units) if units else "(?!)")


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
    _compile(W.PROFANITY_WORD, digits_after=True),
    _compile(W.PROFANITY_STEM),
    _compile(W.PROFANITY_INFIX),
    _compile(W.PROFANITY_UNFOLDED, leet=False),
)
_INSULT = _Matcher("INSULT", _compile(W.INSULT_WORD, digits_after=True), _compile(W.INSULT_STEM))
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


# ------------------------------------------------------------------ phonetic keys


@dataclass(frozen=True)
class _Sounds:
    """Sound classes (``wordlists.SOUNDS_*``): ``key`` writes each spelling of a folded word as
    the sound it stands for (``siqdir`` -> ``siktir``), single letters first, then the two-letter
    spellings (so ``azzhole`` is read as ``asshole`` and then as ``assole``, as the listed word
    is); ``leet`` is the leetspeak a sound may be written in (that of all its spellings: 8 for b
    is read for p when b is read as p)."""

    letters: dict[int, str]
    digraphs: tuple[tuple[str, str], ...]
    leet: dict[str, str]

    @classmethod
    def of(cls, *tables: tuple[tuple[str, str], ...]) -> _Sounds:
        table = dict(itertools.chain.from_iterable(tables))
        leet = dict(W.LEET)
        for spelt, sound in table.items():
            if len(spelt) == 1 and len(sound) == 1:
                leet[sound] = "".join(dict.fromkeys(leet.get(sound, "") + W.LEET.get(spelt, "")))
        return cls(
            {ord(k): v for k, v in table.items() if len(k) == 1},
            tuple((k, v) for k, v in table.items() if len(k) > 1),
            leet,
        )

    def key(self, folded: str) -> str:
        text = folded.translate(self.letters)
        for spelt, sound in self.digraphs:
            text = text.replace(spelt, sound)
        return text

    def matchers(self, min_len: int = 0) -> tuple[_Matcher, ...]:
        """The categories' words by their keys (those of at least ``min_len`` letters), compiled
        once; a phrase is left to the words as listed."""

        def keys(*lists: tuple[str, ...]) -> list[str]:
            out = (self.key(fold(w)) for words in lists for w in words if " " not in w)
            return [k for k in out if len(k) >= min_len]

        def compiled(*lists: tuple[str, ...], digits_after: bool = False) -> re.Pattern[str]:
            return _compile(keys(*lists), digits_after=digits_after, table=self.leet)

        return (
            _Matcher(
                "PROFANITY",
                compiled(W.PROFANITY_WORD, digits_after=True),
                compiled(W.PROFANITY_STEM),
                compiled(W.PROFANITY_INFIX),
            ),
            _Matcher("INSULT", compiled(W.INSULT_WORD, digits_after=True), compiled(W.INSULT_STEM)),
        )


# Spellings Turkish does not use (q w x ph ch), read in every listed word; with them the sounds
# Turkish itself swaps (b/p d/t z/s g/k ...), read only against the longer listed words.
_SOUND = _Sounds.of(W.SOUNDS_ALWAYS)
_SOUND_PAIRED = _Sounds.of(W.SOUNDS_ALWAYS, W.SOUNDS_PAIRED)
_SOUND_MATCHERS = _SOUND.matchers()
_PAIRED_MATCHERS = _SOUND_PAIRED.matchers(W.SOUNDS_PAIRED_MIN)


def _sounds_like(folded: str) -> str | None:
    """The reason when a word is a listed word spelt by its sound (``siqtir``, ``pezewenk``,
    ``orozbu``, ``sikdir``, ``ipne``): the word's key is a listed word's key. The key of the
    spellings Turkish does not use is read only when the word has one (``aq`` is listed, ``ak``
    is white); the paired sounds only against listed words long enough to tell them apart. The
    caller leaves out two words glued together (``taş hak``, ``da sağ``, ``tasa xd``: ``tasak``)."""
    if folded.startswith(W.SOUNDS_CLEAN):
        return None
    sound = _SOUND.key(folded)
    if sound != folded:
        for m in _SOUND_MATCHERS:
            if m.folded_hit(sound):
                return m.reason
    key = _SOUND_PAIRED.key(folded)
    if len(key) < W.SOUNDS_PAIRED_MIN:  # shorter than any word it is read against
        return None
    return next((m.reason for m in _PAIRED_MATCHERS if m.folded_hit(key)), None)


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
_PUNCT_RUN = re.compile(r"[\W_]+")
_GLUED = re.compile(r"^[\d\W_]+|[\d\W_]+$")


def _shapes(word: str) -> Iterator[str]:
    """A word as written and as it may be meant: without the digits or marks glued to its ends
    (``salak123``); in pieces (``selam,amk``); its single letters with the punctuation between
    them dropped (``a+m+k``, ``s(a)l(a)k``, ``s|a|l|a|k``); every other character when all those
    between are punctuation (``$|a|l|a|k``)."""
    bare = _GLUED.sub("", word)
    for w in (word, bare) if bare != word and len(bare) >= 3 else (word,):
        yield w
        parts = [p for p in _PART_SPLIT.split(w) if p]
        if len(parts) > 1:
            yield from parts
        letters = [p for p in _PUNCT_RUN.split(w) if p]
        if len(letters) >= 2 and all(len(p) == 1 for p in letters):
            yield "".join(letters)
        if len(w) >= 3 and len(w) % 2 and not any(c.isalnum() for c in w[1::2]):
            yield w[::2]


def _written(tokens: list[str]) -> Iterator[tuple[str, bool]]:
    """The message's words and runs of single characters joined (``a m k``, ``s | a | l``); then,
    marked as glued, the runs with the word before or after them (``s a lak``, ``a m k123``) and
    a short word joined to its neighbour (``oros pu``, ``f uck``)."""
    yield from ((t, False) for t in tokens)
    glued: list[str] = []
    run: list[str] = []
    for i, t in enumerate([*tokens, ""]):
        if len(t) == 1:
            run.append(t)
            continue
        if len(run) >= 2:
            joined = "".join(run)
            yield joined, False
            glued.append(joined + t)
            if i > len(run):
                glued.append(tokens[i - len(run) - 1] + joined)
        run = []
    glued += (a + b for a, b in itertools.pairwise(tokens) if min(len(a), len(b)) <= 3)
    yield from ((g, True) for g in glued)


def _candidates(tokens: list[str]) -> Iterator[tuple[str, bool]]:
    """Every way a bad word may hide in the message's words (``_written``, each in its
    ``_shapes``), each once, and whether it is two words glued together."""
    seen: set[str] = set()
    for written, glued in _written(tokens):
        for shape in _shapes(written):
            if shape not in seen:
                seen.add(shape)
                yield shape, glued


_VOWELS = frozenset("aeiou")
_SKELETON_LEET = str.maketrans(
    {"5": "s", "$": "s", "§": "s", "7": "t", "+": "t", "8": "b", "9": "g", "6": "g", "2": "z", "q": "k"}
)
_REPEATS = re.compile(r"(.)\1+")


def _consonants(word: str) -> str:
    return _REPEATS.sub(r"\1", "".join(c for c in word if c not in _VOWELS))


_CLEAN_SKELETONS = frozenset(_SOUND.key(s) for s in W.CLEAN_SKELETONS)  # "twts" (tweets) is "tvts"


def _skeletons(*lists: tuple[tuple[str, ...], str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for words, reason in lists:
        for w in words:
            skeleton = _consonants(_SOUND.key(fold(w)))
            if " " not in w and len(skeleton) >= W.SKELETON_MIN and skeleton not in _CLEAN_SKELETONS:
                out.setdefault(skeleton, reason)
    return out


# The consonants of the listed words long enough to tell them (``srfsz`` is only "şerefsiz"):
# a whole vowel-less word, or its start for a stem.
_SKELETON_WORDS = _skeletons((W.PROFANITY_WORD, "PROFANITY"), (W.INSULT_WORD, "INSULT"))
_SKELETON_STEMS = _skeletons(
    (W.PROFANITY_STEM, "PROFANITY"), (W.PROFANITY_INFIX, "PROFANITY"), (W.INSULT_STEM, "INSULT")
)


def _vowelless(folded: str) -> str | None:
    """The reason when a word written without vowels (``şrfsz``, ``sktr``) has the consonants of a
    listed word (or begins with a stem's), both by their keys of the spellings Turkish does not
    use (``pzwnk``)."""
    word = _SOUND.key(folded.translate(_SKELETON_LEET))
    if not (word.isascii() and word.isalpha()) or not _VOWELS.isdisjoint(word):
        return None
    word = _REPEATS.sub(r"\1", word)
    if len(word) < W.SKELETON_MIN or word in _CLEAN_SKELETONS:
        return None
    if word in _SKELETON_WORDS:
        return _SKELETON_WORDS[word]
    return next((r for s, r in _SKELETON_STEMS.items() if word.startswith(s)), None)


def _bad_words(lowered: str) -> str | None:
    tokens = _tokens(lowered)
    for cand, glued in _candidates(tokens):
        if _is_clean(cand):
            continue
        folded = fold(cand)
        for m in _MATCHERS:
            if m.unfolded_hit(cand) or m.folded_hit(folded):
                return m.reason
        reason = (None if glued else _sounds_like(folded)) or _vowelless(folded)
        if reason:
            return reason
    folded_text = fold(" ".join(tokens))
    for m, phrases in _PHRASE_STEMS:
        if phrases.search(folded_text):
            return m.reason
    return None


# ------------------------------------------------------------------ personal information

_D = r"[\s.\-_/\\()\[\]|*+~]*"  # what people put between the digits of a phone number
_PHONE_TR = re.compile(
    rf"(?<!\d)(?:(?:\+|00)?9{_D}0{_D}|0{_D})?\(?5{_D}\d{_D}\d\)?{_D}\d{_D}\d{_D}\d{_D}\d{_D}\d{_D}\d{_D}\d(?!\d)"
)
_PHONE_TR_LANDLINE = re.compile(
    rf"(?<!\d)(?:(?:\+|00)?9{_D}0{_D}|0{_D})\(?[2-4]{_D}\d{_D}\d\)?{_D}\d{_D}\d{_D}\d{_D}\d{_D}\d{_D}\d{_D}\d(?!\d)"
)
_PHONE_INTL = re.compile(r"(?<![\w])\+\s*\d(?:[\s.\-()]*\d){7,}")
_LETTER_O = re.compile(r"(?<=\d)o|o(?=\d)")  # "O532 ..." written with a letter O
_LETTER_ONE = re.compile(r"(?<![a-z])[il](?=\d)|(?<=\d)[il](?![a-z])")  # "0532 l23 ...": an l or I for a 1
_SINGLE_DIGITS = re.compile(r"(?<!\w)\d(?:[^\w\n]{1,3}\d(?!\w))+")  # "0,5,3,2,...": one digit at a time
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
    digits = _LETTER_ONE.sub("1", _LETTER_O.sub("0", folded))
    joined = _SINGLE_DIGITS.sub(lambda m: re.sub(r"\D", "", m.group()), digits)
    if any(p.search(d) for p in (_PHONE_TR, _PHONE_TR_LANDLINE, _PHONE_INTL) for d in {digits, joined}):
        return True
    if _one_long_number(digits):
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
    profanity, insults, personal information, links, advertising), in any of its readings."""
    readings = _readings(text)
    for lowered in readings:
        bad = _bad_words(lowered)
        if bad:
            return verdict(bad)
    for folded in (" ".join(fold(lowered).split()) for lowered in readings):
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
_LOOKS_LIKE = (("rn", "m"), ("vv", "w"), ("cl", "d"))  # letter pairs that pass for one letter


def _staff_forms(folded: str) -> set[str]:
    """A folded name as staff words would be looked for in it: leetspeak read (``Y0net1c1``), l
    read as i (``Yonetlcl``), and also with ``rn`` read as m, ``vv`` as w, ``cl`` as d (``Adrnin``)."""
    plain = folded.translate(_LEET_NAME)
    looks = plain
    for pair, letter in _LOOKS_LIKE:
        looks = looks.replace(pair, letter)
    return {plain, plain.replace("l", "i"), looks, looks.replace("l", "i")}


_STAFF_WORDS = {f for w in W.STAFF_WORDS for f in _staff_forms(w)}
_STAFF_TOKENS = {f for w in W.STAFF_TOKENS for f in _staff_forms(w)}


def name_key(name: str) -> str:
    """What makes two names the same: case (the Turkish way), Turkish letters and separators
    do not count (``Ayşe_Nur`` = ``AYSE NUR`` = ``ayşenur``)."""
    return _NAME_SEPARATORS.sub("", fold(turkish_lower(name)))


def _check_name_words(shown: str) -> None:
    """NameRejected when the name's words, whole, joined or in camel-case pieces, are bad or pass
    for the staff."""
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
    forms = _staff_forms(folded_joined)
    piece_forms = {f for p in pieces | set(lowered_parts) for f in _staff_forms(fold(p))}
    if any(w in f for w in _STAFF_WORDS for f in forms) or piece_forms & _STAFF_TOKENS:
        raise NameRejected(
            "INVALID_NAME",
            "Bu ad yöneticileri ya da sistemi taklit ediyor. (A name may not pass for the staff or the system.)",
        )


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
    for seen in dict.fromkeys((shown, _swap_i_l(shown))):  # "SaIak": a capital I for an l
        _check_name_words(seen)
    return shown

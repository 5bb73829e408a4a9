"""The house rules' word lists (Salonda herkes misafir): data only, read by moderation.py.

Words are written as players write them, Turkish or English; moderation folds both the lists
and every message the same way (Turkish lower case, ı/i ş/s ç/c ğ/g ö/o ü/u to ASCII,
leetspeak, repeated letters, separators), so ``serefsiz`` here also catches ``$3r3fs1zzz``
and ``Ş.E.R.E.F.S.İ.Z``.

How an entry matches a word of a message:

- ``*_WORD``: the whole word is this form (short words whose letters also begin innocent
  words: ``pic`` but not ``picnic``, ``bok`` but not ``boks``);
- ``*_STEM``: the word begins with it (Turkish adds suffixes: ``orospu`` -> ``orospular``);
  an entry with a space is a phrase, its words in a row (``geri zekal``);
- ``PROFANITY_INFIX``: anywhere inside a word (only stems no innocent word contains;
  ``siktir`` is not one: ``eksiktir``);
- ``PROFANITY_UNFOLDED``: only as written with its Turkish letters, because the ASCII
  spelling is an innocent word (``göt`` / English ``got``).

``CLEAN_*`` are innocent words written with Turkish letters that fold onto a listed one
(``sık sık`` "often" folds to ``sik sik``); a word of a message written that way is let through.

The letter tricks at the end (``LEET``, ``SEPARATORS``, ``CONFUSABLES``, ``BLANKS``, the
vowel-less ``SKELETON_MIN`` and ``CLEAN_SKELETONS``, the sound classes ``SOUNDS_*``) are how
moderation reads disguised text.
"""

from __future__ import annotations

__all__ = [
    "PROFANITY_WORD",
    "PROFANITY_STEM",
    "PROFANITY_INFIX",
    "PROFANITY_UNFOLDED",
    "INSULT_WORD",
    "INSULT_STEM",
    "CLEAN_WORDS",
    "CLEAN_STEMS",
    "STAFF_WORDS",
    "STAFF_TOKENS",
    "LEET",
    "SEPARATORS",
    "CONFUSABLES",
    "BLANKS",
    "SKELETON_MIN",
    "CLEAN_SKELETONS",
    "SOUNDS_ALWAYS",
    "SOUNDS_PAIRED",
    "SOUNDS_PAIRED_MIN",
    "SOUNDS_CLEAN",
    "ADDRESS_WORDS",
    "ADDRESS_ABBREVIATIONS",
    "CONTACT_SOLICITATION",
    "MAIL_PROVIDERS",
    "DIGIT_WORDS",
    "TLDS",
    "SHORT_TLDS",
    "LINK_HOSTS",
    "AD_PHRASES",
]

# fmt: off

# ------------------------------------------------------------------ küfür (profanity)

PROFANITY_WORD: tuple[str, ...] = (
    # Turkish
    "amk", "amq", "aq", "mk", "amina", "oc",
    "sik", "sike", "sikim", "sikimi", "sikimin", "sikime", "sikin", "sikini", "sikik", "sikikler",
    "sikiyim", "siktim", "siktin", "sikti",
    "pic", "pici", "picin", "picler", "piclik", "picligi",
    "bok", "boku", "boka", "boktan", "boklu", "bokunu", "bokum",
    "pust", "pustu", "pustlar", "yarak",
    # English
    "ass", "arse", "dick", "dicks", "cock", "cocks", "pussy", "pussies", "twat", "twats", "tits",
    "fag", "fags", "faggot", "faggots", "nigger", "niggers", "nigga", "niggas", "prick", "pricks",
    "stfu", "wtf", "fck", "fuk", "sht",
)

PROFANITY_STEM: tuple[str, ...] = (
    # Turkish
    "orospu", "siktir", "sikeyim", "sikerim", "siktig", "sikimsonik", "aminak", "amcik",
    "yarrak", "yarrag", "yaragi", "hassiktir", "kodumun", "kodugumun", "pezevenk", "kahpe",
    "kaltak", "fahise", "surtuk", "kevase", "kancik", "dalyarak", "tasak", "ibne", "gavat",
    "yavsak", "ananisik", "anani sik", "bacini sik",
    "ipne",  # ibne by its sound: too short for SOUNDS_PAIRED, and no everyday word begins so
    # English
    "fuck", "motherfuck", "shit", "bitch", "asshole", "arsehole", "bastard", "cunt", "whore",
    "slut", "wank", "dickhead", "cocksuck", "douche", "bullshit", "dumbass", "jackass",
)

PROFANITY_INFIX: tuple[str, ...] = (
    "fuck", "orospu", "pezevenk", "yarrak", "sikeyim", "sikerim", "aminakoy",
)

PROFANITY_UNFOLDED: tuple[str, ...] = (
    "göt", "götü", "götün", "götüne", "götünü", "göte", "götten", "götüm", "götler", "götveren",
    "götlek", "oç", "sıç", "sıçayım", "sıçarım", "sıçtı",
)

# ------------------------------------------------------------------ hakaret (insults)

INSULT_WORD: tuple[str, ...] = (
    "aptal", "aptalsin", "aptalsiniz", "aptallar", "aptalin", "aptala",
    "salak", "salaksin", "salaksiniz", "salaklar", "salaga", "salagin", "salaklik",
    "embesil", "idiot", "idiots", "moron", "morons", "retard", "retards", "stupid", "loser", "losers",
)

INSULT_STEM: tuple[str, ...] = (
    "serefsiz", "haysiyetsiz", "namussuz", "gerizekal", "geri zekal", "dangalak", "ahmak",
    "beyinsiz", "hoduk", "soysuz", "essoglu", "essek oglu", "itoglu", "it oglu", "kopekoglu",
    "kopek oglu", "dingil", "mal misin", "mal misiniz", "idiotic", "retarded", "imbecile", "cretin",
)

# ------------------------------------------------------------------ innocent look-alikes

CLEAN_WORDS: frozenset[str] = frozenset({
    "sık", "sıktı", "sıktım", "sıktın", "sıktık", "sıktınız", "sıktılar", "sıkar", "sıkarım", "sıkın",
    "sıkma", "sıkmak", "sikke", "sikkeler", "şike", "şık", "öç",
    "book", "books",  # not "bok" with its o repeated
})
CLEAN_STEMS: tuple[str, ...] = (
    "sıkı", "sıkış", "sıkıl", "sıkça", "sıklık", "sıklaş", "sıkkın", "şike", "cunta",  # a junta
)

# ------------------------------------------------------------------ staff impersonation (display names)

# Anywhere in a name (folded, leetspeak read, separators dropped).
STAFF_WORDS: tuple[str, ...] = (
    "admin", "moderator", "moderater", "yonetici", "yonetim", "yetkili", "destek", "support",
    "sistem", "system", "official", "operator", "gamemaster", "okeyteam", "okeyekibi", "staff",
)
# Only as a whole part of a name ("Ali_Mod", "AliMod", but not "Modern").
STAFF_TOKENS: tuple[str, ...] = ("mod", "gm", "resmi", "ekip", "team", "root", "sysop")

# ------------------------------------------------------------------ letter tricks

# Characters that stand for a letter. '*' may also hide any letter but the first. (A capital I
# among small letters is read as an l, "saIak", and a small l among capitals as an I, by moderation.)
LEET: dict[str, str] = {
    "a": "@4^", "b": "8", "c": "(<", "e": "3€&", "g": "96", "i": "1!|", "l": "1|",
    "o": "0°ø", "s": "5$§", "t": "7+", "u": "vµ", "k": "q", "z": "2",
}
# What may stand between the letters of one word: "s.i.k.t.i.r", "a-m-k", "f_u_c_k". (Any other
# punctuation between single letters, "a+m+k", "s(a)l(a)k", "s|a|l|a|k", is read by moderation.)
SEPARATORS = ".,-_~'\"`´:;/\\=#?·•)]}>[{%"

# Look-alikes of Latin letters in other scripts (Unicode TR39 confusables whose skeleton is a
# Latin letter): Cyrillic, Greek, Armenian, Cherokee, Lisu, Canadian syllabics, and the letters
# and digits that pass for l or 1. Read before lower-casing, so the case is the one they look
# like (Cyrillic "І" looks like "I", which Turkish lower-cases to "ı"). Mathematical, full-width,
# circled and squared letters need no entry (NFKC); negative circled and squared letters, and
# Latin letters with a hook, a stroke or a bar and small capitals (ƒ, ł, ꜱ, ᴀ), are read from
# their Unicode names in moderation.py.
_LOOK_ALIKES: dict[str, str] = {
    "A": "АΑᎪꓮᗩ", "a": "аɑα", "B": "ВΒᏴꓐᗷ", "b": "Ььв", "C": "СᏟꓚᑕ", "c": "сς", "D": "Ꭰꓓᗪ",
    "d": "ԁꓒ", "E": "ЕΕᎬꓰᗴ", "e": "еєε", "F": "ꓝᖴϜ", "G": "ԌᏀꓖ", "g": "ɡց", "H": "НΗᎻꓧᕼ",
    "h": "һհн", "I": "ІΙӀꓲ", "i": "іɩι", "J": "ЈᎫꓙᒍ", "j": "јϳյ", "K": "КΚᏦꓗ", "k": "κк",
    "L": "ᏞꓡᒪԼ", "l": "ӏǀƖוןا", "M": "МΜᎷꓟᗰ", "m": "м", "N": "ΝꓠᑎͶ", "n": "ոռпηπ",
    "O": "ОΟՕꓳ", "o": "оοσօ", "P": "РΡᏢꓑᑭ", "p": "рρ", "Q": "Ԛ", "q": "ԛզգ", "R": "Ꭱꓣᖇ",
    "r": "гᴦ", "S": "ЅՏᏚꓢᔕ", "s": "ѕ", "T": "ТΤᎢꓔ", "t": "τт", "U": "Սꓴᑌ", "u": "սμυ",
    "V": "ѴᏙꓦᐯ", "v": "νѵ", "W": "ԜᏔꓪᗯ", "w": "ԝѡաω", "X": "ХΧꓫ", "x": "хχ", "Y": "ҮΥꓬ",
    "y": "уүγ", "Z": "ΖᏃꓜᘔ", "|": "∣│",
    "0": "٠۰", "1": "١۱", "2": "٢۲", "3": "Зз٣۳", "4": "٤۴", "5": "٥۵", "6": "٦۶", "7": "٧۷",
    "8": "٨۸", "9": "٩۹",
}
CONFUSABLES: dict[str, str] = {c: latin for latin, chars in _LOOK_ALIKES.items() for c in chars}

# Characters that show as a blank but are no space to Python ("s⠀a⠀l⠀a⠀k", braille blank, Hangul
# fillers) and the narrow spaces: a message is read both with them as spaces and without them.
# (Zero-width and format characters, variation selectors and combining decorations are dropped.)
BLANKS = "\u2800\u3164\u115f\u1160\uffa0\U0001d159\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f"

# Vowel-less spellings ("şrfsz" for "şerefsiz") are read by the words' consonants, for listed
# words with at least this many (after repeats are merged), except these clean abbreviations.
SKELETON_MIN = 4
CLEAN_SKELETONS: frozenset[str] = frozenset({"sklr", "twts", "crtn"})  # sıkılır, tweets, certain

# Phonetic spellings ("siqtir", "pezewenk", "orozbu", "sikdir", "kahbe", "ipne"): moderation
# compares a word of a message and every listed word by their phonetic key, each spelling on the
# left of these tables written as the sound on the right (in folded text, so ş is already s and
# ç is c). The lists' keys are made once, at import.
#
# Spellings Turkish does not use, for the Turkish sound: read in every listed word, and in a
# message's word only when it has one (the listed "aq" is "ak" by its key, but "ak", white, has
# no q, so it passes).
SOUNDS_ALWAYS: tuple[tuple[str, str], ...] = (
    ("q", "k"), ("w", "v"), ("x", "ks"), ("ph", "f"), ("ch", "c"),
)
# Sounds Turkish itself swaps (kitap/kitabı, kanat/kanadı, renk/rengi) and players swap to hide a
# word: innocent short words differ by just these (biç/piç, büst/puşt, zıt/shit, kot/kod), so they
# are read only against listed words of at least SOUNDS_PAIRED_MIN letters in their key.
SOUNDS_PAIRED: tuple[tuple[str, str], ...] = (
    ("b", "p"), ("d", "t"), ("z", "s"), ("sh", "s"), ("j", "c"), ("g", "k"),
)
SOUNDS_PAIRED_MIN = 5
# Everyday words whose key is that of a listed word (found against Turkish and English word
# frequency lists): a word beginning with one of these (folded) is not read by its key, only as
# written (sürdük "we drove" / sürtük, sığın / sikin, büst / puşt, abdal / aptal, Boğdan / boktan,
# brick / prick, tick / dick, touch / douche).
SOUNDS_CLEAN: tuple[str, ...] = (
    "surduk", "surdug", "sigin", "bust", "abdal", "bogdan", "brick", "tick", "touch",
)

# ------------------------------------------------------------------ kişisel bilgi (personal information)

# Words of a street address (folded). An address: one of them next to a house number, or two.
ADDRESS_WORDS: tuple[str, ...] = (
    "mahallesi", "mahalle", "sokak", "sokagi", "cadde", "caddesi", "bulvari", "bulvar",
    "apartmani", "apartman", "daire", "blok", "sitesi", "posta kodu", "street", "avenue", "road",
    "lane", "boulevard", "apartment",
)
# Abbreviations that count only with a dot or a colon after them: "Mah.", "Sk.", "Cad.", "No:5", "D:3".
ADDRESS_ABBREVIATIONS: tuple[str, ...] = ("mah", "mh", "sok", "sk", "cad", "cd", "blv", "apt", "no", "d")

# Asking for, or offering, a way to reach someone outside the game (folded phrases).
CONTACT_SOLICITATION: tuple[str, ...] = (
    "numarani", "numaran ne", "numarami", "numaram", "telefonunu", "telefonun", "telefon numara",
    "tel no", "cep no", "adresini", "adresin", "adresim", "nerede oturuyorsun", "nerde oturuyosun",
    "evin nerede", "whatsapp", "watsap", "vatsap", "telegram", "instagram", "insta", "snapchat",
    "discord", "facebook", "tiktok", "e-posta", "eposta", "mail adres", "mailini", "mailim",
    "your number", "my number", "phone number", "your address", "my address", "where do you live",
    "tc kimlik", "kimlik no",
)

MAIL_PROVIDERS: tuple[str, ...] = (
    "gmail", "hotmail", "yahoo", "outlook", "yandex", "icloud", "mynet", "protonmail", "msn",
)

# A phone number read out digit by digit: "sıfır beş üç iki ...".
DIGIT_WORDS: dict[str, str] = {
    "sifir": "0", "bir": "1", "iki": "2", "uc": "3", "dort": "4", "bes": "5", "alti": "6",
    "yedi": "7", "sekiz": "8", "dokuz": "9", "zero": "0", "one": "1", "two": "2", "three": "3",
    "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
}

# ------------------------------------------------------------------ reklam, bağlantı, satış (ads, links, sales)

# A word, a dot and one of these is a web address ("site.com", "site nokta com").
TLDS: tuple[str, ...] = (
    "com", "net", "org", "info", "biz", "xyz", "app", "site", "online", "shop", "store", "link",
    "club", "bet", "casino", "live", "pro", "top", "win", "vip", "tv", "ly",
)
# Too short to tell from a typo after a full stop ("geldim.de"): a link only with a path or
# after another domain part ("site.com.tr", "x.io/abc").
SHORT_TLDS: tuple[str, ...] = ("tr", "io", "gg", "me", "co", "de", "uk", "eu", "ru", "us")
LINK_HOSTS: tuple[str, ...] = ("bit.ly", "t.me", "discord.gg", "wa.me", "tinyurl", "goo.gl", "youtu.be")

# Folded phrases, matched as whole words.
AD_PHRASES: tuple[str, ...] = (
    "deneme bonusu", "bedava bonus", "bonus veren", "yatirim bonusu", "bahis sitesi", "bahis",
    "iddaa", "casino", "kumarhane", "canli bahis", "slot oyna", "freespin", "free spin",
    "ucuz chip", "ucuz cip", "ucuz jeton", "chip satilir", "cip satilir", "jeton satilir",
    "chip satisi", "cip satisi", "jeton satisi", "chip satiyorum", "cip satiyorum", "jeton satiyorum",
    "satilik", "satiyorum", "indirim kodu", "promosyon kodu", "takipci", "abone ol", "abone olun",
    "kanalima", "linke tikla", "linke tiklayin", "tiklayin", "profilimdeki link", "dm at", "dmden yaz",
    "buy chips", "cheap chips", "sell chips", "selling chips", "promo code", "discount code",
    "subscribe to", "follow me", "click here", "visit my",
)

# fmt: on

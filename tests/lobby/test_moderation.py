"""The house rules (seed 000, "Salonda herkes misafir") as the chat filter and the name check
apply them: each rule with messages it must stop, including the usual letter tricks, and clean
Turkish sentences it must let through (words that merely contain a bad substring)."""

from __future__ import annotations

import pytest

from services.lobby.moderation import NameRejected, check_display_name, check_message, name_key

# ------------------------------------------------------------------ must be stopped

PROFANITY = [
    "siktir git",
    "s.i.k.t.i.r",  # separators
    "s-i-k-t-i-r lan",
    "s1kt1r",  # leetspeak
    "$iktir",
    "siiiiiiktir",  # repeated letters
    "SİKTİR",  # Turkish upper case
    "SIKTIR",  # dotless I: the ı/i folding
    "sıktir",
    "ѕiktir",  # a Cyrillic ѕ
    "s\u200biktir",  # a zero-width space
    "ｓｉｋｔｉｒ",  # full-width letters
    "orospu çocuğu",
    "0r0spu",
    "o r o s p u",  # single letters
    "oros pu",  # a split word
    "amk",
    "a.m.k",
    "AMK",
    "a m k",
    "amq",
    "aq",
    "selam,amk",
    "amına koyayım",
    "ananı sikeyim",
    "piç",
    "p1ç",
    "göt",
    "gööööt",
    "yarrak",
    "y4rr4k",
    "pezevenk",
    "kahpe",
    "fuck",
    "f*ck you",
    "f.u.c.k",
    "fvck",
    "youfuckingidiot",
    "sh1t",
    "b1tch",
    "a$$hole",
    "motherfucker",
]

INSULTS = [
    "şerefsiz",
    "serefsizsin",
    "$3r3fs1zzz",
    "Ş.E.R.E.F.S.İ.Z",
    "gerizekalı",
    "geri zekalı",
    "salak",
    "aptalsın",
    "dangalak",
    "ahmak herif",
    "mal mısın sen",
    "idiot",
    "you stupid",
]

PERSONAL_INFO = [
    "beni ara 0532 123 45 67",
    "05321234567",
    "+90 532 123 45 67",
    "+905321234567",
    "(0532) 123 45 67",
    "0 (532) 123-45-67",
    "532 123 4567",
    "0212 555 12 34",  # a landline
    "O532 123 45 67",  # a letter O for the zero
    "call me +1 415 555 0100",
    "sıfır beş üç iki bir iki üç dört beş altı",  # read out digit by digit
    "mailim ali@gmail.com",
    "ali @ gmail . com",
    "ali [at] gmail [dot] com",
    "ali (at) hotmail nokta com",
    "ali.veli gmail nokta com",
    "numaranı verir misin",  # asking for it breaks the rule too
    "whatsapp'tan yaz",
    "instagram hesabım",
    "adresim ne biliyor musun",
    "Çiçek Mah. Gül Sk. No:5 D:3",
    "Atatürk Caddesi No: 12",
    "Gül Sokak 5 numarada oturuyorum",
    "1453. Sokak",
    "221 Baker Street",
    "TC kimlik 12345678901",
    "TR12 0006 1005 1978 6457 8413 26",
]

LINKS = [
    "http://example.com",
    "https://okey.example.org/masa",
    "www.okeyhile.com",
    "siteme gir okeyhile.com",
    "okeyhile nokta com",
    "okeyhile.com.tr",
    "site[.]com",
    "t.me/okeyhile",
    "bit.ly/xyz",
]

ADVERTISING = [
    "ucuz chip satılır",
    "ucuz çip",
    "chip satıyorum",
    "deneme bonusu veren site",
    "bahis sitesi",
    "kanalıma abone olun",
    "takipçi lazım mı",
    "selling chips cheap",
]


@pytest.mark.parametrize("text", PROFANITY)
def test_profanity_is_refused_with_the_reason(text: str) -> None:
    got = check_message(text)
    assert got is not None and got.reason == "PROFANITY", got
    assert "küfür" in got.message and "Saygı önce gelir" in got.message


@pytest.mark.parametrize("text", INSULTS)
def test_insults_are_refused(text: str) -> None:
    got = check_message(text)
    assert got is not None and got.reason == "INSULT", got
    assert "hakaret" in got.message


@pytest.mark.parametrize("text", PERSONAL_INFO)
def test_personal_information_is_refused(text: str) -> None:
    got = check_message(text)
    assert got is not None and got.reason == "PERSONAL_INFO", got
    assert "kişisel bilgi" in got.message


@pytest.mark.parametrize("text", LINKS)
def test_links_are_refused(text: str) -> None:
    got = check_message(text)
    assert got is not None and got.reason == "LINK", got
    assert "bağlantı" in got.message


@pytest.mark.parametrize("text", ADVERTISING)
def test_advertising_and_sales_are_refused(text: str) -> None:
    got = check_message(text)
    assert got is not None and got.reason == "ADVERTISING", got
    assert "Reklam" in got.message


# ------------------------------------------------------------------ must pass

CLEAN = [
    "Bu el eksiktir",  # contains "siktir"
    "Çok sıkıldım, bir el daha?",  # folds to "sikildim"
    "Sık sık buraya gelirim",  # folds to "sik sik"
    "SIK SIK gelirim",
    "sıkıntı yok, sıkıştım kaldım",
    "sıktım",
    "Sikke koleksiyonu",
    "Şike yok bu masada",
    "Ama kimse gelmedi",
    "Amcam gelecek, amaç kazanmak",
    "Malı götürdü",  # starts like "göt"
    "I got it",  # "göt" folded
    "Boks maçı",  # starts like "bok"
    "picnic ve picture",  # start like "piç"
    "Scunthorpe United",
    "Hitchcock filmi",
    "Assist yaptım, class, passport",
    "Amsterdam güzel",
    "Dikkat et, ağzına sağlık",
    "iyi oyunlar, kolay gelsin",
    "Ankara'da hava nasıl?",
    "Göstergeyi gösterdim, 1 puan",
    "iki kat yazdı, çift gidiyorum",
    "okeye döndüm, şişko değilim",
    "R7 K8 B9 Y10 elimde",
    "20 18 16 14 12 puanlar",  # scores, not a phone number
    "taşı at sonra gel",  # "at" is not an e-mail trick
    "mail at bana dedi, gmail çalışmıyor",
    "10 numara oyun",
    "sokakta oynuyorduk",
    "Bağdat Caddesi'nde buluşalım mı",
    "saat 5.30'da başlarız",
    "Okey 101 oynayalım",
    "helal olsun, bol şans",
    "geldim.de",
    "reklam yapma lütfen",
    "bahse girerim kazanırsın",
    "el bitti. Sonra?",
    "I am ok, am I late?",
    "ışık, çocuk, oğlum, ağabey",
    "kodum çalışmıyor",
    "Ahmet34 iyi oynadı",
]


@pytest.mark.parametrize("text", CLEAN)
def test_clean_turkish_and_english_sentences_pass(text: str) -> None:
    assert check_message(text) is None


# ------------------------------------------------------------------ display names


@pytest.mark.parametrize(
    "name", ["Ali", "Ayşe Nur", "ÇağlarÖz", "Şükrü_55", "ılgın.gök", "Modern", "Resmiye", "sıkıntı"]
)
def test_valid_display_names(name: str) -> None:
    assert check_display_name(name) == name


@pytest.mark.parametrize(
    "name",
    [
        "Al",  # too short
        "Abdurrahmangazisultan",  # 21: too long
        "1Ali",  # starts with a digit
        "Ali__Veli",  # two separators in a row
        "Ali!",  # not an allowed character
        "Ali😀",
        "Ali0532123",  # more than four digits (a phone number)
        "Orospu",
        "xSiktirx",
        "Şerefsiz_1",
        "FuckYou",
        "Admin",  # staff
        "Ali_Mod",
        "AliMod",
        "Y0net1c1",  # "yönetici" in leetspeak
        "Moderatör",
        "Destek Ekibi",
    ],
)
def test_invalid_display_names_are_refused_with_a_reason(name: str) -> None:
    with pytest.raises(NameRejected) as err:
        check_display_name(name)
    assert err.value.reason == "INVALID_NAME" and err.value.message


def test_names_that_read_the_same_share_a_key() -> None:
    assert name_key("Ayşe_Nur") == name_key("AYSE NUR") == name_key("ayşe.nur") == name_key("AYŞENUR")
    assert name_key("Işık") == name_key("isik")
    assert name_key("Ali") != name_key("Veli")


def test_spaces_are_collapsed_in_a_name() -> None:
    assert check_display_name("  Ali   Veli ") == "Ali Veli"

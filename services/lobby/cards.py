"""What a table's lobby card says about its rules: every option of its game, as a player reads
it ("Masayı açan kuralları seçer; lobide her masanın kartında yazar")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from okeycore.options import (
    CLASSIC_OPTIONS,
    OKEY101_OPTIONS,
    DeckEnd,
    DiscardHistory,
    Game,
    IndicatorScoring,
    IndicatorTiming,
    Mode101,
    PairsDeclaration,
    TableOptions,
    options_of,
)

__all__ = ["RuleLine", "rule_lines", "CLASSIC_OPTIONS", "OKEY101_OPTIONS", "human_seats", "is_practice"]


@dataclass(frozen=True, slots=True)
class RuleLine:
    option: str
    value: str
    label: str


def _onoff(v: bool) -> str:
    return "on" if v else "off"


def _label(option: str, o: TableOptions) -> str:
    labels: dict[str, str] = {
        "match_points": f"Masa puanı {o.match_points}: herkes {o.match_points} ile başlar, puanlar aşağı sayar",
        "indicator": "Göstergeli" if o.indicator else "Göstergesiz",
        "indicator_scoring": "Gösterge: diğerlerinin puanından 1 düşer"
        if o.indicator_scoring is IndicatorScoring.OTHERS_MINUS_1
        else "Gösterge: gösteren 1 puan kazanır",
        "indicator_timing": "Gösterge ilk hamleden önce, sıra beklemeden gösterilir"
        if o.indicator_timing is IndicatorTiming.BEFORE_FIRST_MOVE
        else "Gösterge yalnız kendi ilk sırasında, taş çekmeden gösterilir",
        "colored": "Renkli: sarı ya da mavi taşla bitiş iki kat" if o.colored else "Renksiz",
        "partners": "Eşli: karşılıklı oturanlar ortak" if o.partners else "Eşsiz: herkes kendi için",
        "duel": "Düello: iki oyuncu karşı karşıya, yanlarda botlar" if o.duel else "Düello değil",
        "penalties": "Cezalı: geçersiz bitiş ve bitmeden okey atmak −2" if o.penalties else "Cezasız",
        "discard_history": "Taş geçmişi herkese açık"
        if o.discard_history is DiscardHistory.ALL
        else "Taş geçmişi yalnız çifte gidenlere ve okeye dönenlere açık; "
        "çifte gidenin bildirimden sonra attıkları herkese açık",
        "pairs_declaration": "Çifte gitmek: masada bir işaret"
        if o.pairs_declaration is PairsDeclaration.MARKER
        else "Çifte gitmek bağlayıcı: yalnız yedi çiftle biter, atılan taşlar açık",
        "deck_end": "Deste biterse el puansız biter"
        if o.deck_end is DeckEnd.DEAD_HAND
        else "Deste biterse son şans: yandan yalnız bitmek için alınır",
        "turn_seconds": f"Hamle süresi {o.turn_seconds} saniye",
        "hand_break_seconds": f"Eller arasında {o.hand_break_seconds} saniye mola; herkes hazırsa hemen dağıtılır"
        if o.hand_break_seconds
        else "Eller arasında mola yok",
        "seats": f"{o.seats} kişilik",
        "wrap": "12-13-1 serisi geçerli" if o.wrap else "13'ten sonra 1 gelmez",
        "mode": "Katlamalı" if o.mode is Mode101.FOLDING else "Düz",
        "rounds": f"{o.rounds} el",
        "discard_penalty": "İşler taş (okeyi alabilecek taş da) atmak +101 ceza"
        if o.discard_penalty
        else "İşler taş cezası yok",
        "stake": f"Giriş {o.stake} jeton; ödül kazananlara eşit bölünür" if o.stake else "Jetonsuz masa",
        "hand_prize": f"El ödülü {o.hand_prize} jeton: eli bitirene her oyuncudan" if o.hand_prize else "El ödülü yok",
        "bot_level": {"EASY": "Botlar kolay", "NORMAL": "Botlar orta", "HARD": "Botlar zor"}[o.bot_level.value],
        "bot_pace": {
            "AUTO": "Botlar insan varken düşünerek oynar",
            "HUMAN": "Botlar düşünerek oynar",
            "INSTANT": "Botlar hemen oynar",
        }[o.bot_pace.value],
    }
    return labels[option]


def rule_lines(options: TableOptions) -> list[RuleLine]:
    """Every option of the table's game with its value and a label, for the lobby card."""
    values = options.to_dict()
    out = []
    for name in options_of(options.game):
        v = values[name]
        value = _onoff(v) if isinstance(v, bool) else str(v)
        out.append(RuleLine(name, value, _label(name, options)))
    return out


def human_seats(options: TableOptions) -> tuple[int, ...]:
    """The seats people may take: at a duel table only 0 and 2, bots sit in 1 and 3 [C-SC-8]."""
    if options.game is Game.OKEY and options.duel:
        return (0, 2)
    return tuple(range(options.seat_count))


def is_practice(players: Iterable[str | None], waiting: bool = False, viewer: str = "") -> bool:
    """Is the table's match practice, unranked (security.md, 6: fewer than two different people
    at the table; the scoring service's ``is_ranked`` is the same rule)? ``players``: the seats'
    player ids (None or "" for a bot or an open seat, a seat left still counts: its player
    started the match). A ``waiting`` table is judged as it would start now with the ``viewer``
    seated: a one-person table is practice to the one who waits there, not to a second person."""
    people = {p for p in players if p}
    if waiting and viewer:
        people.add(viewer)
    return len(people) < 2

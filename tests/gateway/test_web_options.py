"""The table options' spec is okeycore's, served: ``TableService.GetOptionSpec`` answers every
option of RULES.md section 5 with its games, kind, bounds or values and default as okeycore
defines and enforces them (one truth: okeycore.options), every text a client draws for one is in
the web client's string table in both languages, and the web client keeps no copy of the spec
(its create form and cards are drawn from the answer: test_browser_options.py)."""

from __future__ import annotations

import re
from dataclasses import fields, replace
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from okey.v1 import common_pb2
from okey.v1 import table_service_pb2 as pb
from okeycore.options import (
    BOUNDS,
    CHOICES,
    CLASSIC_OPTIONS,
    MAX_CHIPS,
    OKEY101_OPTIONS,
    Game,
    OptionsError,
    TableOptions,
    options_of,
)
from okeyplatform.auth import TokenError
from okeyplatform.contract import options_from_pb

from services.table.api import TableServicer

WEB = Path(__file__).resolve().parents[2] / "services" / "gateway" / "web"
APP_JS = WEB / "app.js"


class _Anonymous:
    """A call's context with no metadata: no token."""

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return ()


async def _served() -> pb.GetOptionSpecResponse:
    """The servicer's answer, as every route (gRPC, Connect, /api) forwards it; it needs no
    table and no token."""
    servicer = TableServicer(app=None)  # type: ignore[arg-type]
    return await servicer.GetOptionSpec(pb.GetOptionSpecRequest(), _Anonymous())


async def test_a_token_that_comes_is_checked_none_is_needed() -> None:
    class BadToken:
        def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
            return (("authorization", "Bearer v1.forged.x"),)

    servicer = TableServicer(app=None)  # type: ignore[arg-type]
    with pytest.raises(TokenError):
        await servicer.GetOptionSpec(pb.GetOptionSpecRequest(), BadToken())
    assert (await _served()).options


def _default_of(spec: pb.OptionSpec) -> Any:
    return getattr(spec, spec.WhichOneof("default") or "default_int")


def _games(name: str) -> list[int]:
    return [common_pb2.Game.Value(f"GAME_{g.value}") for g in Game if name in options_of(g)]


def _valid(game: Game, **changes: Any) -> bool:
    try:
        replace(TableOptions(game=game), **changes).validated()
    except OptionsError:
        return False
    return True


async def test_the_spec_is_every_option_of_okeycore_in_the_rules_order() -> None:
    spec = await _served()
    names = [o.name for o in spec.options]
    assert names == [f.name for f in fields(TableOptions) if f.name != "game"]
    for game, own in ((Game.OKEY, CLASSIC_OPTIONS), (Game.OKEY101, OKEY101_OPTIONS)):
        wire = common_pb2.Game.Value(f"GAME_{game.value}")
        assert [o.name for o in spec.options if wire in o.games] == list(own), game  # [D-9]
    for o in spec.options:
        assert list(o.games) == _games(o.name), o.name
        assert o.json_name == common_pb2.TableOptions.DESCRIPTOR.fields_by_name[o.name].json_name


async def test_the_spec_s_bounds_choices_values_and_defaults_are_those_okeycore_enforces() -> None:
    """Not only equal to okeycore's tables: each bound is where ``validated()`` (the table
    service's check) starts refusing, each listed value is accepted and no other, each enum
    value is one ``options_from_pb`` reads, and each default is what an unset field becomes."""
    default = TableOptions()
    for o in (await _served()).options:
        game = Game.OKEY if common_pb2.GAME_OKEY in o.games else Game.OKEY101
        kind = pb.OptionKind.Name(o.kind)
        value = getattr(default, o.name)
        if kind == "OPTION_KIND_INT":
            assert (o.min, o.max) == BOUNDS[o.name], o.name
            assert _valid(game, **{o.name: o.min}) and _valid(game, **{o.name: o.max}), o.name
            assert not _valid(game, **{o.name: o.min - 1}) and not _valid(game, **{o.name: o.max + 1}), o.name
            assert _default_of(o) == value
        elif kind == "OPTION_KIND_CHOICE":
            assert tuple(o.choices) == CHOICES[o.name] and not o.HasField("min"), o.name
            assert all(_valid(game, **{o.name: v}) for v in o.choices), o.name
            others = set(range(min(o.choices) - 1, max(o.choices) + 2)) - set(o.choices)
            assert not any(_valid(game, **{o.name: v}) for v in others), o.name
            assert _default_of(o) == value
        elif kind == "OPTION_KIND_BOOL":
            assert isinstance(value, bool) and o.WhichOneof("default") == "default_bool", o.name
            assert o.default_bool is value
        else:
            assert kind == "OPTION_KIND_ENUM" and isinstance(value, Enum), o.name
            assert [o.enum_prefix + m.value for m in type(value)] == list(o.enum_values), o.name
            assert o.default_enum == o.enum_prefix + value.value, o.name
            for name in o.enum_values:
                data = {"game": f"GAME_{game.value}", o.json_name: name, **_needs(name)}
                got = options_from_pb(json_format.ParseDict(data, common_pb2.TableOptions()))
                assert getattr(got, o.name).value == name.removeprefix(o.enum_prefix), name
        # an unset field is the spec's default: the options of a message with the game alone
        bare = options_from_pb(common_pb2.TableOptions(game=common_pb2.Game.Value(f"GAME_{game.value}")))
        assert getattr(bare, o.name) == value, o.name


def _needs(value: str) -> dict[str, str]:
    """What a value cannot go without: PAIRS_ONLY history, a binding declaration [C-PAIR-3]."""
    return {"pairsDeclaration": "PAIRS_DECLARATION_BINDING"} if value == "DISCARD_HISTORY_PAIRS_ONLY" else {}


async def test_every_option_has_its_texts_in_both_languages_and_the_client_keeps_no_copy() -> None:
    """Labels live only in i18n.js: each option's name and help, and each enum value's text, in
    Turkish and English; the help of a bounded option takes its bounds from the spec."""
    text = (WEB / "i18n.js").read_text(encoding="utf-8")
    en = text.index("\n  en: {")
    languages = {"tr": text[:en], "en": text[en:]}
    for o in (await _served()).options:
        keys = [f"opt.{o.name}", f"opt.{o.name}.help"]
        keys += [f"opt.{o.name}.{v.removeprefix(o.enum_prefix)}" for v in o.enum_values]
        for lang, block in languages.items():
            for key in keys:
                assert f'"{key}":' in block, f"{lang}: no {key}"
            help_text = re.search(rf'"opt\.{o.name}\.help":\s*"([^"]*)"', block)
            assert help_text, (lang, o.name)
            assert not re.search(rf"\b{o.max}\b", help_text.group(1)) or o.max == 0, (lang, o.name, "a bound copied")
    code = {p.name: p.read_text(encoding="utf-8") for p in WEB.glob("*.js") if p.name != "i18n.js"}
    assert "const OPTIONS" not in code["app.js"]
    for name, source in code.items():
        # the old copy's shape ({ name: "match_points", ..., min: 1, max: 1000 }), the chips' cap,
        # or a list of the rules' values ([5, 3, 7, 9, 11]) written in the client
        assert not re.search(r'name:\s*"(' + "|".join(CLASSIC_OPTIONS + OKEY101_OPTIONS) + ')"', source), name
        assert str(MAX_CHIPS) not in source, name
        for values in CHOICES.values():
            listed = r"\[\s*" + r"\s*,\s*".join(rf"{v}" for v in values) + r"\s*\]"
            assert not re.search(listed, source), name


@pytest.mark.parametrize("game", [Game.OKEY, Game.OKEY101])
def test_the_options_each_game_takes_are_the_tables_of_okeycore(game: Game) -> None:
    """Every whole-number option has its bounds or its listed values (the spec needs one)."""
    default = TableOptions(game=game)
    for name in options_of(game):
        v = getattr(default, name)
        if isinstance(v, int) and not isinstance(v, bool):
            assert (name in BOUNDS) != (name in CHOICES), name


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

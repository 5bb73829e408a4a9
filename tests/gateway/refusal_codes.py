"""Every reason code the services can send a player, read from their source (not a list kept by
hand, so a new code shows up here by itself), and the English of the messages they send with it.

A reason is where the code puts one: ``violation("CODE", ...)`` / ``RuleViolation("CODE", ...)``
(okeycore's rules and the table service), an ``AppError`` subclass raised with a reason (its second
argument or ``reason=``) or declaring ``default_reason``, the lobby's ``NameRejected("CODE", ...)``
and moderation verdicts (the keys of ``_MESSAGES``), the gateway's ``_error(status, code,
"REASON", ...)``, and the gRPC status names (the gateway's reason when a status carries none). A
reason passed on from a variable must be one of ``FORWARDED`` (each forwards codes found above),
so a new way of making a reason cannot slip past."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parents[2]
SOURCES = (
    "libs/okeycore",
    "libs/okeyplatform",
    "services/table",
    "services/lobby",
    "services/scoring",
    "services/gateway",
    "services/bots",
)
CODE = re.compile(r"^[A-Z][A-Z0-9_]+$")
FIRST_ARG = {"violation", "RuleViolation", "NameRejected", "verdict", "Verdict"}
# Reasons passed on, not made: (file, the argument's source) -> where its codes come from.
FORWARDED = {
    ("libs/okeycore/kernel/table.py", "code"): "violation(code, message) itself",
    ("services/lobby/chat.py", "verdict.reason"): "moderation verdicts (_MESSAGES)",
    ("services/lobby/moderation.py", "reason"): "verdict(reason): the keys of _MESSAGES",
    ("services/lobby/moderation.py", "bad"): "verdict(bad): a word list's reason, a key of _MESSAGES",
    ("services/lobby/players.py", "exc.reason"): "NameRejected(...)",
    ("services/gateway/api.py", "err.reason"): "an AppError's reason",
    ("services/gateway/api.py", "_error_info(err)[0]"): "an upstream's ErrorInfo reason, or the status name",
    ("services/gateway/api.py", "reason"): "an upstream's ErrorInfo reason, or the status name (_error_info)",
}


@dataclass
class Found:
    codes: dict[str, set[str]] = field(default_factory=dict)  # code -> files
    messages: list[str] = field(default_factory=list)  # the literal text of the messages sent
    unknown: list[str] = field(default_factory=list)  # non-literal reasons not in FORWARDED


def _name(f: ast.expr) -> str:
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _consts(e: ast.AST) -> list[str]:
    return [
        c.value for c in ast.walk(e) if isinstance(c, ast.Constant) and isinstance(c.value, str) and CODE.match(c.value)
    ]


def _text(e: ast.AST) -> str:
    return " ".join(c.value for c in ast.walk(e) if isinstance(c, ast.Constant) and isinstance(c.value, str))


def scan() -> Found:
    trees = {
        p.relative_to(ROOT).as_posix(): ast.parse(p.read_text(encoding="utf-8"))
        for s in SOURCES
        for p in sorted((ROOT / s).rglob("*.py"))
    }
    errors = {"AppError"}
    grew = True
    while grew:  # AppError's subclasses, across the services
        grew = False
        for tree in trees.values():
            for n in ast.walk(tree):
                if isinstance(n, ast.ClassDef) and n.name not in errors and any(_name(b) in errors for b in n.bases):
                    errors.add(n.name)
                    grew = True
    out = Found()

    def add(codes: list[str], path: str) -> None:
        for c in codes:
            out.codes.setdefault(c, set()).add(path)

    for path, tree in trees.items():
        for n in ast.walk(tree):
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) for t in n.targets):
                names = {t.id for t in n.targets if isinstance(t, ast.Name)}
                if "default_reason" in names:
                    add(_consts(n.value), path)
                if "_MESSAGES" in names and isinstance(n.value, ast.Dict):
                    keys = [k.value for k in n.value.keys if isinstance(k, ast.Constant)]
                    add([k for k in keys if isinstance(k, str)], path)
                    out.messages.extend(_text(v) for v in n.value.values)
            if not isinstance(n, ast.Call):
                continue
            f = _name(n.func)
            reason: ast.expr | None = None
            message: ast.expr | None = None
            if f in FIRST_ARG:
                reason = n.args[0] if n.args else None
                message = n.args[1] if len(n.args) > 1 else None
            elif f in errors:
                kw = [k.value for k in n.keywords if k.arg == "reason"]
                reason = kw[0] if kw else (n.args[1] if len(n.args) > 1 else None)
                message = n.args[0] if n.args else None
            elif f == "_error":
                reason = n.args[2] if len(n.args) > 2 else None
                message = n.args[3] if len(n.args) > 3 else None
            else:
                continue
            if message is not None:
                out.messages.append(_text(message))
            if reason is None:
                continue
            codes = _consts(reason)
            if not codes and (path, ast.unparse(reason)) not in FORWARDED:
                out.unknown.append(f"{path}:{n.lineno}: {ast.unparse(n)[:120]}")
            add(codes, path)
    for status in grpc.StatusCode:
        if status is not grpc.StatusCode.OK:
            out.codes.setdefault(status.name, set()).add("grpc.StatusCode")
    return out


STRING = re.compile(r'^\s*"([^"]+)":\s*"((?:\\.|[^"\\])*)",?\s*$', re.M)


def strings(lang: str) -> dict[str, str]:
    """One language's table of services/gateway/web/i18n.js (``tr: { ... }`` or ``en: { ... }``)."""
    src = (ROOT / "services" / "gateway" / "web" / "i18n.js").read_text(encoding="utf-8")
    start = src.index(f"\n  {lang}: {{")
    end = src.index("\n  },", start)
    return {k: json.loads(f'"{v}"') for k, v in STRING.findall(src[start:end])}


TURKISH_LETTERS = re.compile("[çğıöşüÇĞİÖŞÜ]")
# Words of the servers' messages that are Turkish too ("okey"), or the Turkish half of the
# lobby's bilingual "TR (EN)" messages that sits in brackets ("telefon, e-posta, adres"; "yyyy").
NOT_ENGLISH = {"okey", "telefon", "posta", "adres", "yyyy"}


def english_words(found: Found) -> set[str]:
    """The English words (4 letters or more) of the messages the services send; of a bilingual
    lobby message ("Türkçe (English)") only the part in brackets."""
    words: set[str] = set()
    for m in found.messages:
        parts = re.findall(r"\(([^()]*)\)", m) if TURKISH_LETTERS.search(m) else [m]
        for p in parts:
            words |= {w.lower() for w in re.findall(r"\b[A-Za-z]{4,}\b", p)}
    return words - NOT_ENGLISH


RULE_ID = re.compile(r"\[[A-Z]+-[A-Z0-9-]+\]")
TILE_ID = re.compile(r"\btile \d+", re.I)


def english_in(text: str, words: set[str]) -> list[str]:
    """The words of ``words`` that ``text`` contains (placeholders such as {tile} left out)."""
    plain = re.sub(r"\{\w+\}", " ", text).lower()
    return sorted(w for w in words if re.search(rf"\b{w}\b", plain))


# Words that are not English on a TR page although the EN table or the servers use them: proper
# nouns and the games' own words.
TR_PAGE_ALLOWED = {"okey", "bot", "bots", "seri", "diz", "elden"}
# English a page can show without the EN table having it: short badges and what a broken
# template prints.
COMMON_ENGLISH = {"auto", "ok", "new", "yes", "cancel", "close", "loading", "error", "undefined", "null", "nan"}
WORD = re.compile(r"[A-Za-zÇĞİÖŞÜçğıöşüâîû]+")


def english_vocabulary() -> set[str]:
    """The English a TR page must not show: the words (3 letters or more) of the EN string table
    and of the servers' messages, and COMMON_ENGLISH, less every word of the TR string table
    (a word both languages use, such as "Okey" or "Bot", is not English there) and the allowed."""
    tr_words = {w.lower() for s in strings("tr").values() for w in WORD.findall(re.sub(r"\{\w+\}", " ", s))}
    en_words = {
        w.lower() for s in strings("en").values() for w in re.findall(r"\b[A-Za-z]{3,}\b", re.sub(r"\{\w+\}", " ", s))
    }
    return (en_words | english_words(scan()) | COMMON_ENGLISH) - tr_words - NOT_ENGLISH - TR_PAGE_ALLOWED

"""Every rule id of RULES.md sections 1-3 (tiles, melds, classic Okey) has a test named after it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
RULES = HERE.parents[2] / "shared" / "RULES.md"  # beside the repository, when it is there

CLASSIC_RULE_IDS = (
    "T-IND-1 T-OKEY-1 T-OKEY-2 T-FAKE-1 T-FAKE-2 "
    "M-RUN-1 M-RUN-2 M-RUN-3 M-GRP-1 M-PAIR-1 M-OKEY-1 "
    "C-SEAT-1 C-DEAL-1 C-DEAL-2 C-DEAL-3 C-TURN-1 C-TURN-2 C-TURN-3 "
    "C-FIN-1 C-FIN-2 C-FIN-3 C-FIN-4 C-IND-1 C-IND-2 C-PAIR-1 "
    "C-DON-1 C-DON-2 C-DON-3 C-DON-4 C-TIME-1 C-TIME-2 C-LEAVE-1 "
    "C-DECK-1 C-DECK-2 C-DECK-3 "
    "C-SC-1 C-SC-2 C-SC-3 C-SC-4 C-SC-5 C-SC-6 C-SC-7 C-SC-8 C-SC-9"
).split()


def _test_names() -> set[str]:
    names: set[str] = set()
    for path in HERE.glob("test_*.py"):
        names.update(re.findall(r"^def (test_\w+)\(", path.read_text(encoding="utf-8"), re.M))
    return names


@pytest.mark.parametrize("rule", CLASSIC_RULE_IDS)
def test_each_classic_rule_id_has_a_test_named_after_it(rule: str) -> None:
    prefix = "test_" + rule.replace("-", "_") + "_"
    assert any(name.startswith(prefix) for name in _test_names()), f"no test named {prefix}..."


def test_the_rule_id_list_matches_rules_md_sections_1_to_3() -> None:
    if not RULES.exists():
        pytest.skip(f"{RULES} is not beside this checkout")
    text = RULES.read_text(encoding="utf-8")
    classic = text[: text.index("## 4.")]
    found = sorted(set(re.findall(r"\[([TMC]-[A-Z]+-\d+)\]", classic)))
    assert found == sorted(CLASSIC_RULE_IDS)

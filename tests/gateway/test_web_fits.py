"""The web client's fits.js names the meld a rack tile fits (issue 18.5) by reading the melds'
faces as okeycore does; the table service decides. This test keeps the two readings one: for
melds laid as the rules lay them (runs, groups and pairs, with real and fake okeys, with and
without 12-13-1), where each of the 106 tiles can be added (start or end) and whether it takes
the okey back must be what okeycore/okey101/table_melds.py add_options and take_option say. The
module runs in Chromium, imported by the page the gateway serves."""

from __future__ import annotations

import random
import shutil
import tempfile
from typing import Any

from okeycore import melds as M
from okeycore.okey101.events import TableMeld
from okeycore.okey101.table_melds import add_options, arrange, codes, take_option
from okeycore.racks import effective, is_real_okey
from okeycore.tiles import TILE_COUNT, face_of_id, okey_face
from test_browser import CHROMIUM_ARGS, _chromium, _playwright

from services.gateway.main import Gateway

KIND = {M.MeldKind.RUN: "MELD_KIND_RUN", M.MeldKind.GROUP: "MELD_KIND_GROUP", M.MeldKind.PAIR: "MELD_KIND_PAIR"}
COMPARE_JS = """async (cases) => {
  const f = await import('/fits.js');
  return cases.map((c) => c.codes.map((code) => [
    f.addOptions(c.meld, code, c.okey, c.wrap).map((o) => o.atStart), f.takesOkey(c.meld, code, c.okey)]));
}"""


def _melds(rng: random.Random, indicator: int, wrap: bool, want: int) -> list[TableMeld]:
    """Valid table melds under this indicator, as OpenMelds lays them."""
    okeys = [t for t in range(TILE_COUNT) if is_real_okey(t, indicator)]
    out: list[TableMeld] = []
    tries = 0
    while len(out) < want and tries < 200_000:
        tries += 1
        kind = rng.choice(["run", "group", "pair"])
        base = rng.randrange(104)
        face = face_of_id(base)
        if kind == "run":
            n = rng.choice([3, 3, 4, 5, 6, 13])
            start = rng.randint(1, 13)
            tiles = []
            for k in range(n):
                num = start + k
                if num > 13:
                    num = num - 13 if wrap else 99
                if num > 13:
                    break
                tiles.append(2 * (int(face.colour or 0) * 13 + num - 1) + rng.randint(0, 1))
        elif kind == "group":
            cols = rng.sample(range(4), rng.randint(3, 4))
            tiles = [2 * (c * 13 + face.number - 1) + rng.randint(0, 1) for c in cols]
        else:
            tiles = [base, base ^ 1]
        if rng.random() < 0.35 and tiles:
            tiles[rng.randrange(len(tiles))] = rng.choice(okeys)
        if rng.random() < 0.1:
            tiles[rng.randrange(len(tiles))] = rng.choice([104, 105])
        if len(set(tiles)) != len(tiles):
            continue
        try:
            meld = M.interpret_meld([effective(t, indicator) for t in tiles], wrap)
        except M.MeldError:
            continue
        out.append(TableMeld(0, meld.kind, arrange(tiles, meld, indicator), codes(meld.stands_for)))
    return out


def _cases() -> tuple[list[dict[str, Any]], list[list[list[Any]]]]:
    rng = random.Random(18_5)
    cases, expected = [], []
    all_codes = [str(face_of_id(t)) for t in range(TILE_COUNT)]
    for indicator in (0, 25, 50, 77, 102):  # R1, R13, Y12 ... (a 13 indicator makes 1 the okey)
        okey = str(okey_face(face_of_id(indicator)))
        for wrap in (False, True):
            for m in _melds(rng, indicator, wrap, 40):
                js_meld = {
                    "kind": KIND[m.kind],
                    "tiles": [{"id": t, "code": str(face_of_id(t))} for t in m.tiles],
                    "standsFor": list(m.stands_for),
                }
                cases.append({"meld": js_meld, "codes": all_codes, "okey": okey, "wrap": wrap})
                expected.append(
                    [
                        [[a for a, _ in add_options(m, t, indicator, wrap)], take_option(m, t, indicator) is not None]
                        for t in range(TILE_COUNT)
                    ]
                )
    return cases, expected


async def test_fits_js_reads_the_melds_as_okeycore_does() -> None:
    cases, expected = _cases()
    kinds = {c["meld"]["kind"] for c in cases}
    assert kinds == set(KIND.values()) and len(cases) >= 300, (kinds, len(cases))
    assert any(any(x[1] for x in row) for row in expected), "no case takes an okey back"
    assert any(any(x[0] == [True] for x in row) for row in expected), "no case adds at a run's start"
    gw = Gateway("127.0.0.1:0", "127.0.0.1:0", environ={"OKEY_TABLE_ADDR": "127.0.0.1:9"})
    await gw.start()
    profile = tempfile.mkdtemp(prefix="okey-chromium-")
    try:
        async with _playwright()() as pw:
            ctx = await pw.chromium.launch_persistent_context(
                profile, executable_path=_chromium(), headless=True, args=CHROMIUM_ARGS
            )
            try:
                page = await ctx.new_page()
                await page.goto(f"http://127.0.0.1:{gw.http_port}/")
                got = await page.evaluate(COMPARE_JS, cases)
            finally:
                await ctx.close()
    finally:
        await gw.stop(grace_s=1.0)
        shutil.rmtree(profile, ignore_errors=True)
    wrong = [
        (c["meld"]["standsFor"], c["okey"], c["wrap"], c["codes"][t], got[i][t], expected[i][t])
        for i, c in enumerate(cases)
        for t in range(TILE_COUNT)
        if got[i][t] != expected[i][t]
    ]
    assert not wrong, f"{len(wrong)} differ, e.g. (faces, okey, wrap, tile, fits.js, okeycore): {wrong[:8]}"

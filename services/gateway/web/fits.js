// Okey 101: which meld on the table a rack tile fits, so that the add and take-okey controls
// and the + and <-> markers appear only where they can be used, and say where. Whether a move is
// allowed at all is the table service's answer (the view's `allowed`, from okeycore's `can`, and
// the hints' addable / takesOkey per tile); this only names the meld, reading the melds' faces
// (`standsFor`) the way okeycore/okey101/table_melds.py add_options and take_option do.
import { S, is101, tileHint } from "./state.js";
import { tr } from "./i18n.js";
import { codeOfTile, meldText, playerTileName } from "./refusals.js";

function faceOf(code) {
  if (!code || code === "F") return null;
  return { colour: code[0], number: Number(code.slice(1)) };
}

// What a tile plays as: null for a real okey (it stands for any tile), the okey's face for a fake.
function effective(code, okey) {
  if (code === okey) return null;
  return faceOf(code === "F" ? okey : code);
}

const same = (a, b) => !!a && !!b && a.colour === b.colour && a.number === b.number;

function faces(m) {
  const codes = (m.standsFor || []).length ? m.standsFor : (m.tiles || []).map((x) => x.code);
  return codes.map(faceOf);
}

/** Where a tile of `code` can be added to meld `m`: [{atStart}] (the high end of a run first). */
export function addOptions(m, code, okey, wrap) {
  const eff = effective(code, okey);
  const f = faces(m);
  if (!f.length || f.some((x) => !x)) return [];
  const kind = String(m.kind || "");
  if (kind === "MELD_KIND_GROUP") {
    if (f.length >= 4) return [];
    const used = new Set(f.filter((x, i) => ((m.tiles || [])[i] || {}).code !== okey).map((x) => x.colour));
    if (eff && (eff.number !== f[0].number || used.has(eff.colour))) return [];
    return [{ atStart: false }];
  }
  if (kind !== "MELD_KIND_RUN") return [];
  const colour = f[0].colour;
  const start = f[0].number;
  const end = start + f.length - 1;
  const out = [];
  if (end <= 12 || (end === 13 && wrap && start >= 2)) {
    const next = { colour, number: end <= 12 ? end + 1 : 1 };
    if (!eff || same(eff, next)) out.push({ atStart: false });
  }
  if (start >= 2 && (!eff || same(eff, { colour, number: start - 1 }))) out.push({ atStart: true });
  return out;
}

/** Can a tile of `code` take an okey back from meld `m`? */
export function takesOkey(m, code, okey) {
  const eff = effective(code, okey);
  if (!eff) return false;
  const tiles = m.tiles || [];
  const okeys = tiles.map((x, i) => (x.code === okey ? i : -1)).filter((i) => i >= 0);
  if (!okeys.length) return false;
  const kind = String(m.kind || "");
  if (kind === "MELD_KIND_PAIR" && okeys.length === 2) return true;
  const f = faces(m);
  if (kind === "MELD_KIND_GROUP" && f.length < 4) return false;
  return okeys.some((i) => same(f[i], eff));
}

/** The hint of a rack tile as far as it can be used now: addable / takesOkey only when the
 * table service allows the move (allowed, and the tile's hint when the hints have come) and a
 * meld takes it, with the melds named; `addTo` [{meld, atStart}], `takeFrom` [meld]. */
export function usableHint(t, id) {
  const v = t.view;
  const hint = tileHint(t, id);
  const out = { ...(hint || {}), addable: false, takesOkey: false, addTo: [], takeFrom: [] };
  const okey = v.okey ? v.okey.code : "";
  const code = codeOfTile(id);
  const may = new Set(v.allowed || []);
  if (!code || !okey) return out;
  const wrap = !!(v.options && v.options.wrap);
  (v.melds || []).forEach((m, i) => {
    if (may.has("AddTile") && (!hint || hint.addable)) for (const o of addOptions(m, code, okey, wrap)) out.addTo.push({ meld: i, atStart: o.atStart });
    if (may.has("TakeOkey") && (!hint || hint.takesOkey) && takesOkey(m, code, okey)) out.takeFrom.push(i);
  });
  const named = (idx) => [...new Set(idx)].map((i) => `(${meldText(i)})`).join(" ");
  if (out.addTo.length) {
    out.addable = true;
    out.addLabel = tr("fits.mark.add", { tile: playerTileName(code), melds: named(out.addTo.map((x) => x.meld)) });
  }
  if (out.takeFrom.length) {
    out.takesOkey = true;
    out.takeLabel = tr("fits.mark.take", { tile: playerTileName(code), melds: named(out.takeFrom) });
  }
  return out;
}

/** The hint the rack draws a tile's markers from: at a 101 table the usable one (app.js hands
 * this to rack.js, which does not import the modules above it). */
export function rackHint(t, id) {
  return t && t.view && is101(t.view) ? usableHint(t, id) : tileHint(t, id);
}

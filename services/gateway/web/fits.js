// Okey 101: the add and take-okey controls and the + and <-> markers appear only where they can
// be used, and say where. Both answers are the table service's: whether a move is allowed at all
// (the view's `allowed`, from okeycore's `can`) and where a tile fits (the hints' `addTo` and
// `takeFrom` per tile, from okeycore's add_options and take_option). This module only joins them
// and names the melds; it decides no rule itself.
import { is101, tileHint } from "./state.js";
import { tr } from "./i18n.js";
import { codeOfTile, meldText, playerTileName } from "./refusals.js";

/** The hint of a rack tile as far as it can be used now: addable / takesOkey only when the
 * table service allows the move (allowed, and the tile's hint when the hints have come) and a
 * meld takes it, with the melds named; `addTo` [{meld, atStart}], `takeFrom` [meld]. */
export function usableHint(t, id) {
  const v = t.view;
  const hint = tileHint(t, id);
  const out = { ...(hint || {}), addable: false, takesOkey: false, addTo: [], takeFrom: [] };
  const code = codeOfTile(id);
  const may = new Set(v.allowed || []);
  if (!code || !hint) return out; // no markers before the hints have come
  const melds = (v.melds || []).length;
  if (may.has("AddTile")) {
    for (const f of hint.addTo || []) {
      const meld = Number(f.meld || 0); // protobuf's JSON leaves 0 and false out
      if (meld < melds) out.addTo.push({ meld, atStart: !!f.atStart });
    }
  }
  if (may.has("TakeOkey")) for (const m of hint.takeFrom || []) if (Number(m) < melds) out.takeFrom.push(Number(m));
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

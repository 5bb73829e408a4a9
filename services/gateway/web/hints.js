// The hints panel: Seri Diz / Çift Diz (lay the rack out as the table service's best runs or
// pairs), the classic totals, and Okey 101's opening preview.
import { $, h, num, patch } from "./dom.js";
import { tr } from "./i18n.js";
import { S, is101, me } from "./state.js";
import { arrangeBy, autoArrangeNow, isOkey, tileEl, tileName } from "./rack.js";
import { stageFromHints } from "./melds.js";

export function renderHints(v) {
  const t = S.t;
  const body = $("#hints-body");
  if (t.seat === null) { $("#hints-panel").hidden = true; return; }
  $("#hints-panel").hidden = false;
  const hints = t.hints;
  const parts = [];
  parts.push(h("div", { class: "row wrap" },
    h("button", { type: "button", id: "seri-diz", "data-focus": "seri", disabled: !hints, title: tr("hints.seri.help"), onclick: () => arrangeBy("runs") }, tr("hints.seri")),
    h("button", { type: "button", id: "cift-diz", "data-focus": "cift", disabled: !hints, title: tr("hints.cift.help"), onclick: () => arrangeBy("pairs") }, tr("hints.cift"))));
  if (hints) {
    const runs = hints.runs || {};
    const pairs = hints.pairs || {};
    if (!is101(v)) {
      parts.push(h("p", {}, tr("hints.classic.runs", { total: num(runs.total), enough: runs.enough ? tr("hints.enough.finish") : "" })));
      parts.push(h("p", {}, tr("hints.classic.pairs", { total: num(pairs.total), enough: pairs.enough ? tr("hints.enough.finish") : "" })));
    } else {
      const opened = String(me(v).opening || "OPENING_NONE") !== "OPENING_NONE";
      const preview = h("div", { class: "preview" }, h("h4", {}, tr("hints.opening")));
      const runLine = h("p", { class: runs.enough ? "ok" : "" },
        tr("hints.opening.runs", { total: num(runs.total), need: num(v.runThreshold) || 101 }), " — ",
        runs.enough ? tr("hints.opening.enough") : tr("hints.opening.short"));
      const pairLine = h("p", { class: pairs.enough ? "ok" : "" },
        tr("hints.opening.pairs", { total: num(pairs.total), need: num(v.pairThreshold) || 5 }), " — ",
        pairs.enough ? tr("hints.opening.enough") : tr("hints.opening.short"));
      const meldList = h("ul", { class: "preview-melds" }, ((runs.melds || []).map((m, i) => h("li", {},
        h("span", { class: "meld-tiles" }, (m.tiles || []).map((x) => tileEl(x, { small: true }))),
        " = ", num((runs.values || [])[i]),
        (runs.standsFor || [])[i] && (m.tiles || []).some((x) => isOkey(x.code) || x.code === "F")
          ? h("span", { class: "help" }, " (", ((runs.standsFor[i].codes) || []).map(tileName).join(", "), ")") : null))));
      preview.append(runLine, meldList, pairLine,
        h("div", { class: "row wrap" },
          h("button", { type: "button", "data-focus": "stage-runs", disabled: !(runs.melds || []).length, onclick: () => stageFromHints("runs") }, tr("act.stage.runs")),
          h("button", { type: "button", "data-focus": "stage-pairs", disabled: !(pairs.melds || []).length, onclick: () => stageFromHints("pairs") }, tr("act.stage.pairs"))));
      if (!opened || (runs.melds || []).length) parts.push(preview);
    }
  }
  parts.push(h("details", { class: "legend" }, h("summary", {}, tr("hints.legend")),
    h("ul", {}, ["finishes", "penalised", "addable", "takes"].map((k) => h("li", {}, tr("hints.mark." + k))))));
  patch(body, ...parts);
  // Fresh hints (or a drag's end) may be what a draw's Otomatik diz waited for: after this render.
  if (t.autoArrange) queueMicrotask(() => autoArrangeNow(t));
}

// The end-of-hand screen, shown during the table's break between hands [P-BREAK-1]: the
// finisher's tiles laid out in melds with THAT hand's indicator and okey (the view's
// lastHandIndicator / lastHandOkey, never the next hand's), each seat's points and why, a
// countdown to the next deal (the view's breakDueMs) and the Ready button [P-BREAK-2]. The break
// itself is the table service's: this screen only shows it. The points are the rules' own: the
// view's lastHandBreakdown has one line per change of a seat's score (seat, points, reason) and
// each seat's total after the hand; this screen draws them and adds up nothing (issue 40).
import { $, h, num } from "./dom.js";
import { currentLang, tr } from "./i18n.js";
import { S, go, is101, seatName } from "./state.js";
import { act } from "./actions.js";
import { hasMethod } from "./api.js";
import { tileEl } from "./rack.js";

const fmt = (d) => (d > 0 ? "+" + d : String(d));

function dialog() {
  let d = $("#handend");
  if (!d) {
    d = h("dialog", { id: "handend", class: "handend", "aria-labelledby": "handend-title" });
    $("#screen-table").append(d);
  }
  return d;
}

/** Show, refresh or hide the screen for the open table's view (called on every render). */
export function renderHandEnd(v) {
  const d = dialog();
  const t = S.t;
  const due = num(v && v.breakDueMs);
  if (!t || !v || v.phase !== "PHASE_HAND_OVER" || !due) {
    if (d.open) d.close();
    return;
  }
  // busy: Hazır is disabled while a command is in flight, so the screen is drawn again when it comes back
  const key = `${t.id}:${num(v.version)}:${currentLang()}:${t.busy}`;
  if (d.dataset.key !== key) {
    d.dataset.key = key;
    d.replaceChildren(...content(t, v));
  }
  if (!d.open) {
    d.show(); // not modal: the table, its chat and log stay usable behind it
    const b = d.querySelector("#handend-ready");
    if (b && !b.disabled) b.focus({ preventScroll: true });
  }
  tickHandEnd();
}

function content(t, v) {
  const hand = num(v.hand);
  const okey = v.lastHandOkey && v.lastHandOkey.code ? v.lastHandOkey.code : "";
  const tiles = (xs) => h("span", { class: "meld-tiles" }, (xs || []).map((x) => tileEl(x, { small: true, okey })));
  const out = [h("h3", { id: "handend-title" }, tr("handend.title", { hand }))];
  const indicator = v.lastHandIndicator && v.lastHandIndicator.code ? v.lastHandIndicator : null;
  if (indicator) {
    out.push(h("p", { class: "handend-okey" }, tr("handend.indicator"), " ", tileEl(indicator, { small: true, okey }),
      " ", tr("handend.okey"), " ", tileEl({ id: -1, code: okey }, { small: true, okey })));
  }
  const lh = is101(v) ? v.lastHand101 : v.lastHand;
  if (!lh || num(lh.hand) !== hand) return out; // a voided 101 hand: the side panel says so
  const finished = lh.reason === "HAND_END_REASON_FINISHED";
  const finisher = finished ? num(lh.finisher) : -1;
  const kinds = is101(v)
    ? [lh.okeyFinish && tr("result.finished.okey"), lh.pairFinish && tr("result.finished.pairs"), lh.elden && tr("result.finished.elden")]
    : [lh.okeyFinish && tr("result.finished.okey"), lh.pairsFinish && tr("result.finished.pairs"), lh.coloredFinish && tr("result.finished.colored")];
  const how = kinds.filter(Boolean);
  out.push(h("p", { class: "handend-what" }, finished
    ? tr("result.finished", { name: seatName(finisher) }) + (how.length ? ` (${how.join(", ")})` : "")
    : deckLine(v, lh)));
  if (num(lh.multiplier) > 1) out.push(h("p", {}, tr("result.multiplier", { n: num(lh.multiplier) })));
  if (finished) {
    // The finisher's melds: the finishing arrangement (classic), its melds on the table (101).
    const groups = is101(v)
      ? (v.melds || []).filter((m) => num(m.owner) === finisher).map((m) => m.tiles)
      : (lh.arrangement || []).map((g) => g.tiles);
    out.push(h("div", { class: "arrangement handend-melds", "aria-label": tr("handend.melds", { name: seatName(finisher) }) },
      groups.map(tiles), lh.finalTile && lh.finalTile.code ? h("span", { class: "final" }, "→ ", tileEl(lh.finalTile, { small: true, okey })) : null));
  }
  out.push(scoreTable(v, lh, finisher));
  // The hand just ended is replayable by its players at once [D-12] (replay.js).
  if (hasMethod("TableService", "GetReplay")) {
    out.push(h("p", { class: "handend-replay" }, h("button", { type: "button", id: "handend-replay",
      onclick: () => go(`#/replay/${t.id}/${hand}`) }, tr("replay.watch"))));
  }
  out.push(h("p", { id: "handend-countdown", class: "handend-countdown", role: "timer", "aria-live": "off" }));
  out.push(readyLine(t, v));
  return out;
}

// What a hand whose deck ran out actually scored [C-DECK-1] [D-2] (issue 18.6: a 101 hand was
// said to score nothing while every seat was charged).
function deckLine(v, lh) {
  const b = breakdownOf(v, num(lh.hand)); // the indicator shown [C-DECK-2] moved points too
  const moved = ((b ? b.changes : lh.deltas) || []).some((d) => num(d) !== 0);
  if (!moved) return tr("result.deck");
  return is101(v) ? tr("handend.deck101") : tr("handend.deckScored");
}

/** The rules' breakdown of hand ``hand``, if the view carries it (not before the first hand). */
function breakdownOf(v, hand) {
  const b = v && v.lastHandBreakdown;
  return b && num(b.hand) === hand ? b : null;
}

/** One line's text: its reason's string (the tiles it counts as {n}). */
const lineText = (line) => tr(`handend.line.${line.reason}`, { n: num(line.tiles) });

// One row per line of the rules' breakdown, grouped by seat: the seat's name and its total after
// the hand span its rows. A view without a breakdown (a table service older than it) shows the
// event's deltas and totals as they are, without reasons.
function scoreTable(v, lh, finisher) {
  const n = (v.seats || []).length;
  const cols = ["handend.col.seat", "handend.col.points", "handend.col.why", "handend.col.total"];
  const b = breakdownOf(v, num(lh.hand));
  const rows = [];
  for (let i = 0; i < n; i++) {
    const lines = b ? (b.lines || []).filter((x) => num(x.seat) === i) : [{ seat: i, points: (lh.deltas || [])[i], reason: "" }];
    const total = b ? num((b.totals || [])[i]) : is101(v) ? num((lh.totals || [])[i]) : num(((v.seats || [])[i] || {}).score);
    lines.forEach((line, k) => {
      const cells = [h("td", { class: "pts", "data-points": String(num(line.points)) }, fmt(num(line.points))),
        h("td", { class: "why" }, line.reason ? lineText(line) : "")];
      const span = String(lines.length);
      rows.push(h("tr", { class: i === finisher ? "winner handend-line" : "handend-line", "data-seat": String(i), "data-reason": line.reason || "" },
        k === 0 ? h("th", { scope: "row", rowspan: span }, seatName(i)) : null,
        ...cells,
        k === 0 ? h("td", { class: "total", rowspan: span, "data-total": String(total) }, total) : null));
    });
  }
  return h("table", { class: "mini handend-scores" },
    h("caption", { class: "sr-only" }, tr("result.deltas")),
    h("thead", {}, h("tr", {}, cols.map((k) => h("th", { scope: "col" }, tr(k))))),
    h("tbody", {}, rows));
}

function readyLine(t, v) {
  const ready = new Set((v.ready || []).map(num));
  const persons = (v.seats || []).filter((s) => s.playerId && !s.left).length;
  const may = new Set(v.allowed || []);
  const line = h("p", { class: "handend-ready" });
  if (t.seat !== null && may.has("Ready")) {
    line.append(h("button", { type: "button", id: "handend-ready", class: "primary", disabled: t.busy ? "" : null,
      onclick: () => act("ready") }, tr("handend.ready")));
  } else if (t.seat !== null && ready.has(t.seat)) {
    line.append(h("span", { class: "done" }, tr("handend.readyDone")));
  }
  if (persons > 1) line.append(" ", h("span", { class: "help" }, tr("handend.readyCount", { n: ready.size, of: persons })));
  return line;
}

/** The countdown, from the table service's breakDueMs (the table's timer deals then). */
export function tickHandEnd() {
  const el = $("#handend-countdown");
  const t = S.t;
  if (!el || !t || !t.view) return;
  const left = Math.max(0, num(t.view.breakDueMs) - Date.now());
  const s = Math.ceil(left / 1000);
  el.textContent = s > 0 ? tr("handend.countdown", { s }) : tr("handend.dealing");
  el.dataset.seconds = String(s);
}

setInterval(tickHandEnd, 250);

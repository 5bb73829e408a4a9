// Results: the last hand's panel, the scoring service's hand-by-hand table, and the final
// standings dialog (the scoring service's, or the view's when it is not running), with each
// rated seat's rating change as the scoring service gives it (rating.js).
import { $, h, num, sleep } from "./dom.js";
import { tr } from "./i18n.js";
import { S, is101, seatName } from "./state.js";
import { api, hasMethod, serviceMissing } from "./api.js";
import { tileEl } from "./rack.js";
import { showSettlement } from "./settlement.js";
import { ratedSeats, ratingCell, unratedNote } from "./rating.js";

export function renderLastHand(v) {
  const okey = v.lastHandOkey && v.lastHandOkey.code ? v.lastHandOkey.code : undefined; // that hand's okey (issue 18.6)
  const panel = $("#lasthand-panel");
  const body = $("#lasthand-body");
  const lh = v.lastHand;
  const lh101 = v.lastHand101;
  const lv = v.lastVoid;
  const parts = [];
  const n = (v.seats || []).length;
  const deltaTable = (deltas, label) => h("table", { class: "mini" },
    h("caption", { class: "sr-only" }, label),
    h("tbody", {}, Array.from({ length: n }, (_, i) => h("tr", {}, h("th", { scope: "row" }, seatName(i)), h("td", {}, fmtDelta(num((deltas || [])[i])))))));
  if (lh101 && num(lh101.hand) >= num(lh && lh.hand) && num(lh101.hand) >= num(lv && lv.hand)) {
    const finished = lh101.reason === "HAND_END_REASON_FINISHED";
    const kinds = [lh101.okeyFinish && tr("result.finished.okey"), lh101.pairFinish && tr("result.finished.pairs"), lh101.elden && tr("result.finished.elden")].filter(Boolean);
    parts.push(h("p", {}, tr("table.hand", { hand: num(lh101.hand) }), ": ",
      finished ? tr("result.finished", { name: seatName(num(lh101.finisher)) }) + (kinds.length ? ` (${kinds.join(", ")})` : "")
        : (lh101.deltas || []).some((d) => num(d) !== 0) ? tr("handend.deck101") : tr("result.deck")));
    if (num(lh101.multiplier) > 1) parts.push(h("p", {}, tr("result.multiplier", { n: num(lh101.multiplier) })));
    parts.push(deltaTable(handChanges(v, lh101), tr("result.deltas")));
  } else if (lv && num(lv.hand) >= num(lh && lh.hand)) {
    parts.push(h("p", {}, tr("result.voided")));
  } else if (lh) {
    const finished = lh.reason === "HAND_END_REASON_FINISHED";
    const kinds = [lh.okeyFinish && tr("result.finished.okey"), lh.pairsFinish && tr("result.finished.pairs"), lh.coloredFinish && tr("result.finished.colored")].filter(Boolean);
    parts.push(h("p", {}, tr("table.hand", { hand: num(lh.hand) }), ": ",
      finished ? tr("result.finished", { name: seatName(num(lh.finisher)) }) + (kinds.length ? ` (${kinds.join(", ")})` : "") : tr("result.deck")));
    if (finished && (lh.arrangement || []).length) {
      parts.push(h("div", { class: "arrangement" }, (lh.arrangement || []).map((g) => h("span", { class: "meld-tiles" }, (g.tiles || []).map((x) => tileEl(x, { small: true, okey })))),
        lh.finalTile ? h("span", { class: "final" }, "→ ", tileEl(lh.finalTile, { small: true, okey })) : null));
    }
    if (num(lh.multiplier) > 1) parts.push(h("p", {}, tr("result.multiplier", { n: num(lh.multiplier) })));
    parts.push(deltaTable(handChanges(v, lh), tr("result.deltas")));
  }
  panel.hidden = !parts.length;
  body.replaceChildren(...parts);
}

function fmtDelta(d) { return d > 0 ? "+" + d : String(d); }

// Each seat's change of that hand as the rules give it (the view's lastHandBreakdown: the
// indicator and the penalties included, issue 40); the hand end's own deltas for a view without it.
function handChanges(v, lh) {
  const b = v.lastHandBreakdown;
  return b && num(b.hand) === num(lh.hand) ? b.changes : lh.deltas;
}

export async function refreshHands(t) {
  if (!hasMethod("ScoringService", "ListHands")) return;
  try {
    const r = await api("ScoringService", "ListHands", { tableId: t.id });
    if (S.t !== t) return;
    t.hands = r;
    renderHands();
  } catch { /* the scoring service is optional */ }
}

export function renderHands() {
  const t = S.t;
  const panel = $("#hands-panel");
  if (!t || !t.hands || !t.view) { panel.hidden = true; return; }
  const hands = t.hands.hands || [];
  panel.hidden = false;
  const n = (t.view.seats || []).length;
  if (!hands.length) { $("#hands-body").replaceChildren(h("p", { class: "help" }, tr("result.hands.none"))); return; }
  const replays = hasMethod("TableService", "GetReplay");
  $("#hands-body").replaceChildren(h("p", { class: "help" }, tr("result.hands.help")), h("table", { class: "mini hands" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), Array.from({ length: n }, (_, i) => h("th", { scope: "col" }, seatName(i))))),
    h("tbody", {}, hands.map((hr) => h("tr", {},
      // Each hand listed has ended: its number opens its replay (replay.js), the share link's
      // address; in the number's own cell, so the narrow panel gains no column.
      h("th", { scope: "row" }, replays ? h("a", { href: `#/replay/${t.id}/${num(hr.hand)}`, class: "replay-link",
        "data-hand": num(hr.hand), "aria-label": tr("replay.watchHand", { hand: num(hr.hand) }) }, `▶ ${num(hr.hand)}`)
        : num(hr.hand)),
      Array.from({ length: n }, (_, i) => h("td", {}, fmtDelta(num((hr.total || [])[i])), h("span", { class: "help" }, ` (${num((hr.scores || [])[i])})`))))))));
}

export async function showFinal(t) {
  const chips = h("section", { id: "result-chips", class: "result-chips" });
  const settling = showSettlement(t, chips);
  let result = null;
  if (hasMethod("ScoringService", "GetMatchResult")) {
    for (let i = 0; i < 12 && S.t === t; i++) {
      try {
        const r = await api("ScoringService", "GetMatchResult", { tableId: t.id });
        result = r.result || null;
        break;
      } catch (e) {
        if (serviceMissing(e)) break;
        await sleep(500); // the projection catches up with the table
      }
    }
  }
  if (S.t !== t) return;
  const v = t.view;
  const n = (v.seats || []).length;
  let rows;
  let source;
  if (result && (result.standings || []).length) {
    source = tr("result.source.scoring");
    rows = result.standings.map((s) => ({ seat: num(s.seat), score: num(s.score), rank: num(s.rank), winner: !!s.winner, rating: s.rating || null }));
  } else {
    source = tr("result.source.view");
    const res = v.result || {};
    const scores = res.scores || (v.seats || []).map((s) => num(s.score));
    const winners = new Set((res.winners || []).map(num));
    const low = is101(v);
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (low ? num(scores[a]) - num(scores[b]) : num(scores[b]) - num(scores[a])));
    // Standard competition ranking, as the scoring service ranks: 1, 2, 2, 4.
    const better = (a, b) => (low ? num(scores[a]) < num(scores[b]) : num(scores[a]) > num(scores[b]));
    const rank = (i) => (winners.has(i) ? 1 : 1 + order.filter((j) => j !== i && (winners.has(j) || better(j, i))).length);
    rows = order.map((i) => ({ seat: i, score: num(scores[i]), rank: rank(i), winner: winners.has(i) }));
  }
  rows.sort((a, b) => a.rank - b.rank || a.seat - b.seat);
  const iWon = rows.some((r) => r.winner && r.seat === t.seat);
  // Practice (unranked, fewer than two people): the scoring service's word, else the lobby card's.
  const practice = result ? !!result.practice : !!(t.card && t.card.practice);
  // The rating column when the scoring service rated a seat: its before, after and change.
  const rated = ratedSeats(result) > 0;
  const cols = ["result.rank", "result.player", "result.score", "result.winner", rated && "rating.col"].filter(Boolean);
  $("#result-body").replaceChildren(
    iWon ? h("p", { class: "won" }, tr("result.youwon")) : "",
    practice ? h("p", { class: "practice notice" }, tr("practice.result")) : "",
    h("table", { class: "standings" },
      h("thead", {}, h("tr", {}, cols.map((k) => h("th", { scope: "col" }, tr(k))))),
      h("tbody", {}, rows.map((r) => h("tr", { class: r.winner ? "winner" : "", "data-seat": r.seat },
        h("td", {}, r.rank), h("th", { scope: "row" }, seatName(r.seat)), h("td", {}, r.score),
        h("td", {}, r.winner ? "★" : ""), rated ? ratingCell(r.rating) : null)))),
    unratedNote(result),
    h("p", { class: "help" }, source),
    chips); // the chips: the lobby's settlement record, never computed here (issue 40.1)
  const d = $("#result-dialog");
  if (!d.open) d.showModal();
  await settling;
}


// Watching a table (issue 44.7): the "İzleyici" banner while the page has no seat at the open
// table (a spectator's watch, or a seat left: the rack is hidden, see rack.js and board.js), and
// the number of spectators the gateway counts at the table (GET /api/presence?tables=<id>),
// asked every SPECTATORS_POLL_MS while a table is open and shown to everyone at it, as an eye
// and the count, while someone watches. A watch the gateway refuses (INVITE_REQUIRED, BLOCKED,
// SPECTATORS_FULL) ends with the refusal's text on the board (live.js asks watchRefused()).
import { $, h } from "./dom.js";
import { tr } from "./i18n.js";
import { S } from "./state.js";
import { errText, getPresence } from "./api.js";

export const SPECTATORS_POLL_MS = 5000;
// The gateway's refusals of a spectator's watch: final (asking again gets the same answer).
const FINAL = new Set(["INVITE_REQUIRED", "BLOCKED", "SPECTATORS_FULL"]);

/** Is this error of a table's watch a refusal to let the page watch at all? */
export function watchRefused(t, error) {
  return t.seat === null && FINAL.has(error && error.reason);
}

/** The board says why the page may not watch, with the way back to the lobby. */
export function showRefusal(t, error) {
  t.refused = error;
  clearInterval(t.spectatorsTimer); // nothing more to count for a page that may not watch
  $("#spectator-banner").hidden = true;
  $("#board").replaceChildren(h("div", { class: "watch-refused", role: "alert" },
    h("p", { class: "error" }, errText(error, { watch: true })),
    h("button", { type: "button", class: "primary", onclick: () => { location.hash = "#/lobby"; } }, tr("table.back"))));
}

/** The banner (no seat: a spectator) and the count, as the open table stands. */
export function renderSpectators(t) {
  $("#spectator-banner").hidden = !(t && t.seat === null && !t.refused);
  const el = $("#table-spectators");
  const n = t ? t.spectators : null;
  el.hidden = !n; // nobody watching (or not counted): no eye
  if (el.hidden) return;
  $(".spectators-n", el).textContent = String(n);
  el.setAttribute("aria-label", tr("watch.count", { n }));
  el.title = tr("watch.count", { n });
}

async function poll(t) {
  if (S.t !== t || document.hidden) return;
  try {
    const r = await getPresence({ tables: t.id });
    const row = (r.tables || []).find((x) => (x.tableId || x.table_id) === t.id);
    if (S.t !== t) return;
    t.spectators = row ? Number(row.spectators || 0) : null;
  } catch { t.spectators = null; } // an older gateway, or none counted: no eye
  renderSpectators(t);
}

/** Count the open table's spectators until it is left (stopSpectators). */
export function watchSpectators(t) {
  clearInterval(t.spectatorsTimer);
  t.spectators = null;
  poll(t);
  t.spectatorsTimer = setInterval(() => poll(t), SPECTATORS_POLL_MS);
}

export function stopSpectators(t) {
  if (t) clearInterval(t.spectatorsTimer);
  $("#spectator-banner").hidden = true;
  $("#table-spectators").hidden = true;
}

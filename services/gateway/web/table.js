// The table screen: opening a table (its card, view, recent events, watch and chat), leaving
// it, rendering every part of it, the turn timer, and the keyboard shortcuts.
import { $, h, num, sleep, store, withTileIds } from "./dom.js";
import { hasString, tr } from "./i18n.js";
import { S, is101, isMyTurn, mySeatAt, newTable, seatName, setRenderer, show, stage } from "./state.js";
import { api, errText, hasMethod } from "./api.js";
import { arrangeBy, bindRack, renderRack, tileName } from "./rack.js";
import { applyView, connectWatch } from "./live.js";
import { logEvent, renderLog } from "./log.js";
import { doDiscard, doDraw, doFinish, doTake, renderActions } from "./actions.js";
import { renderBoard } from "./board.js";
import { renderMelds } from "./melds.js";
import { renderHints } from "./hints.js";
import { refreshHands, renderHands, renderLastHand } from "./results.js";
import { startChat, stopChat } from "./chat.js";
import { renderHandEnd } from "./handend.js";
import { tableLabel } from "./rooms.js";
import { optionSpec } from "./options.js";
import { renderSpectators, showRefusal, stopSpectators, watchSpectators } from "./spectators.js";
import { bindSound, timerSound } from "./sound.js";
import { motionRendered } from "./motion.js";

export function leaveTable() {
  const t = S.t;
  if (!t) return;
  t.closing = true;
  clearTimeout(t.wsTimer);
  clearTimeout(t.hintsTimer);
  if (t.ws) { try { t.ws.close(1000); } catch { /* closed already */ } }
  stopChat("table");
  stopSpectators(t);
  S.t = null;
  document.body.classList.remove("my-turn");
  const d = $("#result-dialog");
  if (d.open) d.close();
  const he = $("#handend");
  if (he && he.open) he.close();
}

export async function enterTable(id, seat) {
  if (S.t && S.t.id === id && (seat === null || S.t.seat === seat)) { show("table"); renderTable(); return; }
  leaveTable();
  const t = newTable(id, seat);
  S.t = t;
  show("table");
  document.title = `${tr("app.title")} — ${tableLabel({ tableId: id })}`;
  $("#table-title").textContent = tableLabel({ tableId: id });
  $("#board").replaceChildren(h("p", { class: "loading" }, tr("table.loading")));
  $("#rack").replaceChildren();
  $("#actions").replaceChildren();
  $("#event-log").replaceChildren();
  await loadCard(t);
  if (t.seat === null) {
    const known = store.get("okey.seat." + id);
    t.seat = known !== null ? Number(known) : null;
  }
  for (let i = 0; ; i++) {
    if (S.t !== t) return;
    try {
      const body = { tableId: id };
      if (t.seat !== null) body.seat = t.seat;
      const r = await api("TableService", "GetView", body);
      applyView(r.view, null);
      break;
    } catch (e) {
      // A lobby table is opened on the table service a moment after its last seat is taken.
      if ((e.code === "NOT_FOUND" || e.code === "UNAVAILABLE") && i < 40) { await sleep(300); continue; }
      if (e.code === "PERMISSION_DENIED" && t.seat !== null) { t.seat = null; continue; }
      $("#board").replaceChildren(h("p", { class: "error" }, errText(e, { watch: t.seat === null })));
      return;
    }
  }
  if (t.seat !== null) store.set("okey.seat." + id, String(t.seat));
  await loadHistory(t);
  connectWatch(t);
  watchSpectators(t);
  startChat("table", id);
  refreshHands(t);
}

// The latest events before the page came, for the log; later ones arrive over the watch.
async function loadHistory(t) {
  if (!hasMethod("TableService", "GetEvents")) return;
  try {
    const body = { tableId: t.id, afterVersion: Math.max(0, t.version - 40), limit: 40 };
    if (t.seat !== null) body.seat = t.seat;
    const r = await api("TableService", "GetEvents", body);
    if (S.t !== t) return;
    for (const ev of r.events || []) if (num(ev.version) <= t.version) logEvent(t, withTileIds(ev), true);
    renderLog(t);
  } catch { /* the log is a help */ }
}

async function loadCard(t) {
  if (S.lobbyDown || !hasMethod("LobbyService", "GetTableCard")) return;
  try {
    // A private table's card is its seated players' and those with its code; a friend watching it
    // has the card ListFriends gave (no code), for the names.
    const known = S.watchCard && S.watchCard.tableId === t.id ? S.watchCard : null;
    const r = await api("LobbyService", "GetTableCard", { tableId: t.id }).catch((e) => { if (known) return { table: known }; throw e; });
    t.card = r.table || null;
    for (const s of (t.card && t.card.seats) || []) {
      if (s.displayName) t.names[num(s.seat)] = s.displayName;
    }
    if (t.seat === null && t.card) t.seat = mySeatAt(t.card);
  } catch { /* names fall back to seat numbers */ }
}

export function renderTable() {
  const t = S.t;
  if (!t || !t.view) return;
  if (t.refused) { showRefusal(t, t.refused); return; }
  const v = t.view;
  const active = document.activeElement;
  const focusKey = active && active.dataset ? active.dataset.focus : null;
  $("#table-title").textContent = tableLabel({ tableId: t.id });
  $("#table-practice").hidden = !(t.card && t.card.practice); // the lobby's word: unranked
  $("#table-hand").textContent = is101(v)
    ? tr("table.hand101", { hand: num(v.hand), rounds: num(v.options && v.options.rounds) || 5 })
    : tr("table.hand", { hand: num(v.hand) });
  const ts = $("#turn-status");
  if (v.phase === "PHASE_MATCH_OVER") ts.textContent = tr("table.phase.MATCH_OVER");
  else if (v.phase === "PHASE_HAND_OVER") ts.textContent = tr("table.phase.HAND_OVER");
  else ts.textContent = isMyTurn(v) ? tr("table.turn.yours") : tr("table.turn.other", { name: seatName(num(v.turn)) });
  ts.classList.toggle("mine", isMyTurn(v));
  document.body.classList.toggle("my-turn", isMyTurn(v));
  let line = isMyTurn(v) && hasString("table.stage." + stage(v)) ? tr("table.stage." + stage(v)) : "";
  if (v.heldSideTile && v.heldSideTile.code) line += (line ? " — " : "") + tr("table.heldSide", { tile: tileName(v.heldSideTile.code) });
  $("#stage-line").textContent = line;
  renderBoard(v);
  renderMelds(v);
  renderRack(v);
  renderActions();
  renderHints(v);
  renderLastHand(v);
  renderHandEnd(v);
  renderHands();
  renderLog(t);
  renderSpectators(t);
  tick();
  motionRendered(); // the next frame notes where the tiles are, for the next move's flight [issue 47.1]
  if (focusKey) {
    const el = document.querySelector(`[data-focus="${focusKey}"]`);
    if (el && !el.disabled) el.focus({ preventScroll: true });
    else if (focusKey.startsWith("slot-")) { const r = $("#rack [tabindex='0']"); if (r) r.focus({ preventScroll: true }); }
  }
}

function tick() {
  const t = S.t;
  const el = $("#timer");
  if (!t || !t.view || t.view.phase !== "PHASE_PLAYING" || !num(t.view.deadlineMs)) { el.textContent = ""; timerSound(false, 0); return; }
  const left = Math.max(0, num(t.view.deadlineMs) - Date.now());
  const s = Math.ceil(left / 1000);
  timerSound(isMyTurn(t.view) && !$("#screen-table").hidden, s); // the last seconds of my turn [issue 47.2]
  el.textContent = tr("table.timer", { s });
  el.setAttribute("aria-label", tr("table.timer.aria", { s }));
  el.classList.toggle("low", s <= 5);
  // A view's options carry every option of its game; the rules' default only if one had none.
  const total = (num(t.view.options && t.view.options.turnSeconds) || num(optionSpec("turn_seconds")?.def)) * 1000;
  const fill = $(".seat-panel.turn .turn-fill");
  if (fill) fill.style.width = `${Math.min(100, (100 * left) / total)}%`;
}


function onGlobalKey(e) {
  if (!S.t || $("#screen-table").hidden || e.ctrlKey || e.metaKey || e.altKey) return;
  const tag = (e.target.tagName || "").toLowerCase();
  if (tag === "input" || tag === "textarea" || tag === "select" || $("dialog[open]")) return;
  const v = S.t.view;
  if (!v) return;
  const k = e.key.toLowerCase();
  if (k === "d") { e.preventDefault(); doDraw(); }
  else if (k === "t") { e.preventDefault(); doTake(); }
  else if (k === "x") { e.preventDefault(); doDiscard(); }
  else if (k === "f" && !is101(v)) { e.preventDefault(); doFinish(); }
  else if (k === "r" && S.t.hints) { e.preventDefault(); arrangeBy("runs"); }
  else if (k === "p" && S.t.hints) { e.preventDefault(); arrangeBy("pairs"); }
  else if (k === "escape" && S.t.selected.length) { S.t.selected = []; renderTable(); }
}


export function bindTable() {
  setRenderer(renderTable);
  bindRack();
  bindSound();
  $("#back-lobby").addEventListener("click", () => { location.hash = "#/lobby"; });
  $("#result-close").addEventListener("click", () => $("#result-dialog").close());
  $("#result-lobby").addEventListener("click", () => { $("#result-dialog").close(); location.hash = "#/lobby"; });
  document.addEventListener("keydown", onGlobalKey);
  setInterval(tick, 250);
}

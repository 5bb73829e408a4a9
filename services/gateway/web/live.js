// The open table kept current: the WebSocket watch (resumed from the last version seen, with
// backoff), a GetView when the watch is down, each new view applied to the state, and the hints
// fetched again when what they were computed for has changed.
import { $, announce, num, store, toast, withTileIds } from "./dom.js";
import { tr } from "./i18n.js";
import { S, hintsKey, isMyTurn, render } from "./state.js";
import { api, errText, hasMethod, openWatch, unauthorized } from "./api.js";
import { syncRack } from "./rack.js";
import { logEvent } from "./log.js";
import { refreshHands, showFinal } from "./results.js";
import { refreshChipsSoon } from "./wallet.js";
import { showRefusal, watchRefused } from "./spectators.js";
import { motionAfter, motionBefore } from "./motion.js";
import { soundFor } from "./sound.js";

function setConn(state) {
  const el = $("#conn");
  el.hidden = false;
  el.className = "conn " + state;
  el.textContent = tr("conn." + state);
  el.dataset.i18n = "conn." + state; // so that it follows a language switch ("Canlı" on an EN page) [issue 18.5]
}

export function connectWatch(t) {
  if (t.closing || S.t !== t) return;
  setConn(t.attempts ? "reconnecting" : "connecting");
  let ws;
  try { ws = openWatch(t.id, t.seat, t.version); } catch { scheduleReconnect(t); return; }
  t.ws = ws;
  ws.onmessage = (m) => {
    if (t.ws !== ws) return;
    let d;
    try { d = JSON.parse(m.data); } catch { return; }
    t.received++;
    if (d.error) {
      if (d.error.reason === "BAD_TOKEN" || d.error.code === "UNAUTHENTICATED") { renewAndReconnect(t); return; }
      if (watchRefused(t, d.error)) { showRefusal(t, d.error); $("#conn").hidden = true; return; } // not to be asked again
      toast(errText(d.error));
      return;
    }
    if (d.snapshot) {
      t.attempts = 0;
      t.live = true;
      setConn("live");
      if (num(d.snapshot.version) >= t.version) applyView(d.snapshot, null);
      return;
    }
    if (d.event && d.view) {
      const v = num(d.event.version);
      if (v <= t.version) { t.dups++; return; }
      if (v > t.version + 1) t.gaps++;
      applyView(d.view, d.event);
    }
  };
  ws.onclose = (ev) => {
    if (t.ws !== ws) return;
    t.ws = null;
    t.live = false;
    if (t.closing || S.t !== t || t.refused) return;
    if (ev.code === 4401) { renewAndReconnect(t); return; }
    scheduleReconnect(t);
  };
}

// The watch's token was refused: a renewed session watches on; an ended one signs out.
async function renewAndReconnect(t) {
  if (await unauthorized()) scheduleReconnect(t);
}

function scheduleReconnect(t) {
  setConn("reconnecting");
  const delay = Math.min(5000, 250 * 2 ** t.attempts);
  t.attempts++;
  clearTimeout(t.wsTimer);
  t.wsTimer = setTimeout(() => connectWatch(t), delay);
}

export async function refreshView(t) {
  try {
    const body = { tableId: t.id };
    if (t.seat !== null) body.seat = t.seat;
    const r = await api("TableService", "GetView", body);
    if (S.t === t && num(r.view.version) > t.version) applyView(r.view, null);
  } catch { /* the watch will catch up */ }
}

// Several events often come in one frame (a bot's draw and discard, a deal, a catch-up): the table
// is drawn once a frame, not once an event [issue 47]. A hidden tab has no frames: a timer draws it.
let drawQueued = false;
function drawSoon() {
  if (drawQueued) return;
  drawQueued = true;
  const draw = () => { if (drawQueued) { drawQueued = false; render(); } };
  requestAnimationFrame(draw);
  setTimeout(draw, 100);
}

export function applyView(view, event) {
  const t = S.t;
  if (!t || !view) return;
  withTileIds(view);
  if (event) withTileIds(event);
  const prev = t.view;
  const motion = motionBefore(t, event); // where a moving tile comes from, measured before the redraw [issue 47.1]
  if (t.seat !== null && ((view.seats || [])[t.seat] || {}).left) seatGone(t);
  t.view = view;
  t.version = num(view.version);
  syncRack(t);
  if (event && event.handStarted) { t.hints = null; t.hintsKey = ""; } // a deal (also a void hand's new deal): no last hand's hints [issue 18.9]
  if (event) logEvent(t, event);
  if (t.dragging) t.pending = true;
  else { drawSoon(); motionAfter(motion, prev, view); }
  const mine = isMyTurn(view);
  const turnCame = mine && (!prev || !isMyTurn(prev) || num(prev.hand) !== num(view.hand));
  if (turnCame) announce(tr("ev.yourTurn"));
  if (event) soundFor(t, event, turnCame); // [issue 47.2]
  scheduleHints(t);
  if (view.phase === "PHASE_MATCH_OVER" && !t.resultShown) { t.resultShown = true; showFinal(t); }
  if (event && (event.handEnded || event.handEnded101 || event.handVoided || event.matchEnded)) refreshHands(t);
  if (event && event.handEnded101 && (event.handEnded101.chips || []).some((c) => num(c))) refreshChipsSoon(); // a hand prize moved chips
}

// The seat was left (a bot plays it now): the page watches on as a spectator and asks nothing
// more as that seat (no hints, no view or watch as it: the table refuses them).
export function seatGone(t) {
  clearTimeout(t.hintsTimer);
  store.del("okey.seat." + t.id);
  t.seat = null;
  t.hints = null;
  t.hintsKey = "";
  t.selected = [];
}

function scheduleHints(t) {
  if (t.seat === null || t.leaving || !t.view || t.view.phase !== "PHASE_PLAYING" || !hasMethod("TableService", "GetHints")) return;
  const key = hintsKey(t);
  if (key === t.hintsKey) return;
  clearTimeout(t.hintsTimer);
  t.hintsTimer = setTimeout(async () => {
    if (S.t !== t || t.seat === null || t.leaving) return;
    try {
      const r = await api("TableService", "GetHints", { tableId: t.id, seat: t.seat });
      // Hints asked for an earlier view (the last hand's, when a new hand was dealt meanwhile)
      // are dropped: the next request is already scheduled [issue 18.9].
      if (S.t !== t || hintsKey(t) !== key) return;
      t.hints = withTileIds(r.hints || {});
      t.hintsKey = key;
      if (!t.dragging) render();
    } catch { /* hints are a help, not a need */ }
  }, 150);
}


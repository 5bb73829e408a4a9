// Acting at the table: the commands the seat sends (TableService.Act with a fresh command id)
// and the action toolbar, whose buttons are the engine's answer (the view's `allowed`).
import { $, h, num, patch, toast, uid } from "./dom.js";
import { tr } from "./i18n.js";
import { S, go, is101, me, render, selectedOne, tileById } from "./state.js";
import { api, errText } from "./api.js";
import { playerTileName } from "./refusals.js";
import { refreshView, seatGone } from "./live.js";
import { forgetTable } from "./resume.js";
import { noteDraw } from "./rack.js";

export async function act(name, body = {}) {
  const t = S.t;
  if (!t || t.seat === null || t.busy) return null;
  t.busy = true;
  renderActions();
  try {
    const r = await api("TableService", "Act", { tableId: t.id, commandId: uid(), seat: t.seat, [name]: body });
    if (!t.live) refreshView(t);
    return r;
  } catch (e) {
    toast(errText(e, { command: name, body }));
    return null;
  } finally {
    t.busy = false;
    // The hand's last move can come back after the watch brought the hand's end: the
    // end-of-hand screen, drawn while busy, needs its Hazır enabled again.
    if (S.t === t) { if (t.view && t.view.phase === "PHASE_HAND_OVER") render(); else renderActions(); }
  }
}

// Leaving mid-match [C-LEAVE-1] [D-10] cannot be undone: a bot plays the seat to the end, the
// stake stays in the pot and the match counts as a loss, so the player confirms it first.
async function doLeave() {
  if (!window.confirm(tr("act.leave_seat.confirm"))) return;
  const t = S.t;
  if (t) { t.leaving = true; clearTimeout(t.hintsTimer); } // no hints asked while the leave is on its way
  const r = await act("leaveSeat");
  if (!r) { if (t) t.leaving = false; return; }
  if (t) seatGone(t); // nothing more is asked as the seat: no hints, no view as it
  forgetTable(); // opening the site no longer comes back here
  toast(tr("act.leave_seat.done"), "info");
  go("#/lobby"); // the lobby (not "back to my table": the lobby may not have heard of the leave yet)
}

// A draw (the deck or the side pile): Otomatik diz lays the rack out after it, unless the rack
// was moved by hand meanwhile [issue 47.4].
async function draw(name) {
  const t = S.t;
  const moves = t ? t.rackMoves || 0 : 0;
  const r = await act(name);
  if (r && t && S.t === t && (t.rackMoves || 0) === moves) noteDraw(t, num(r.version));
  return r;
}
export function doDraw() { return draw("draw"); }
export function doTake() { return draw("takeDiscard"); }
export async function doDiscard(id = selectedOne()) {
  if (id === null || id === undefined) return;
  const r = await act("discard", { tileId: id });
  if (r && S.t) S.t.selected = S.t.selected.filter((x) => x !== id);
}
export async function doFinish(id = selectedOne()) {
  if (id === null || id === undefined) return;
  const r = await act("finish", { tileId: id });
  if (r && S.t) S.t.selected = [];
}

function actionButton(key, onclick, enabled, opts = {}) {
  return h("button", {
    type: "button", class: opts.primary ? "primary" : "", "data-act": key, "data-focus": "act-" + key,
    disabled: !enabled || S.t.busy, onclick, title: opts.title,
  }, opts.label || tr("act." + key));
}

export function renderActions() {
  const t = S.t;
  const box = $("#actions");
  if (!t || !t.view || t.seat === null) { box.replaceChildren(); return; }
  const v = t.view;
  const one = selectedOne();
  const pub = me(v);
  const side = v.sideTile && num(v.sideTile.id) >= 0 && v.sideTile.code;
  const rackCodes = (v.rack || []).map((x) => x.code);
  const okeyCode = v.okey ? v.okey.code : "";
  // What the seat may send now is the engine's answer (the view's allowed, from okeycore's
  // can); the client adds only what needs a tile picked first.
  const may = new Set(v.allowed || []);
  const items = [];
  items.push(actionButton("draw", doDraw, may.has("Draw")));
  items.push(actionButton("take_discard", doTake, !!side && may.has("TakeDiscard")));
  const canDiscard = one !== null && may.has("Discard");
  items.push(actionButton("discard", () => doDiscard(), canDiscard, { primary: canDiscard }));
  if (!is101(v)) {
    items.push(actionButton("finish", () => doFinish(), one !== null && may.has("Finish")));
    if (may.has("ShowIndicator")) items.push(actionButton("show_indicator", () => act("showIndicator"), true));
    if (!pub.declaredPairs) items.push(actionButton("declare_pairs", () => act("declarePairs"), may.has("DeclarePairs")));
    if (!pub.turnedToOkey && rackCodes.includes(okeyCode)) {
      // Only a hand that could finish right now may turn to okey [C-DON-1]: can says so.
      items.push(actionButton("turn_to_okey", () => act("turnToOkey"), may.has("TurnToOkey")));
    }
    if (may.has("Pass")) items.push(actionButton("pass", () => act("pass"), true));
  } else if (v.canReturnSide) {
    items.push(actionButton("return_side", () => act("returnSideTile"), may.has("ReturnSideTile")));
  }
  if (may.has("TakeBack")) items.push(actionButton("take_back", () => act("takeBack"), true, { primary: true }));
  if (may.has("LeaveSeat")) items.push(actionButton("leave_seat", doLeave, true));
  if (t.selected.length) items.push(actionButton("deselect", () => { t.selected = []; render(); }, true));
  patch(box, ...items);
  const sel = $("#selection-line");
  sel.textContent = t.selected.length
    ? tr("act.selected", { tiles: t.selected.map((id) => { const x = tileById(t, id); return x ? playerTileName(x.code) : ""; }).join(", ") })
    : "";
}


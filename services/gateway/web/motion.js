// The table's motion [issue 47.1]: a drawn tile travels from the deck or the side pile to the rack
// (another seat's: to that seat), a discard from the rack (or the seat) to its pile, a pulse on
// the seat whose turn it is, a flash at a hand's end (gold for an okey finish). FLIP without
// layout thrash: where things were is what the last painted frame showed (read once a frame, in
// requestAnimationFrame, after a redraw); an event is looked up there, the table is redrawn at
// once, and in the next frame the targets are read, then a clone set on each target is moved back
// to its source with a transform and animated home. Only transforms and opacity, each under
// 300 ms; the real DOM is already the new one (the clone is decoration: aria-hidden, inert, no
// pointer events), so input is never held. `prefers-reduced-motion: reduce` turns it all off.
import { num } from "./dom.js";

const FLY_MS = 260;
const PULSE_MS = 280;
const FLASH_MS = 290;
const ID = "okey-motion"; // every animation of this module carries it (tests count them)

let started = 0;
let worstMs = 0; // the longest this module's own work took for one event (measuring, cloning, starting)
const reduce = typeof matchMedia === "function" ? matchMedia("(prefers-reduced-motion: reduce)") : null;

/** Whether motion plays: the browser animates and the person has not asked for reduced motion. */
export function motionOn() {
  return !(reduce && reduce.matches) && typeof Element !== "undefined" && typeof Element.prototype.animate === "function";
}

/** For tests: how many animations this module started, and how many clones fly now. */
export function motionStats() {
  return { started, worstMs, flying: document.querySelectorAll(".motion-layer .fly").length };
}

function layer() {
  let el = document.getElementById("motion-layer");
  if (!el) {
    el = document.createElement("div");
    el.id = "motion-layer";
    el.className = "motion-layer";
    el.setAttribute("aria-hidden", "true");
    el.inert = true;
    document.body.append(el);
  }
  return el;
}

function animate(el, frames, ms, easing = "ease-out") {
  const a = el.animate(frames, { duration: ms, easing });
  a.id = ID;
  started++;
  return a;
}

const kindOf = (ev) => (ev && ev.kind ? ev.kind.charAt(0).toLowerCase() + ev.kind.slice(1) : "");
const rectOf = (el) => (el ? el.getBoundingClientRect() : null);
const seen = (r) => !!r && r.width > 0 && r.height > 0;
const pileTop = (seat) => document.querySelector(`#board [data-pile="${seat}"] > .tile`);
const seatPanel = (seat) => document.querySelector(`#board .seat-panel[data-seat="${seat}"]`);

// ------------------------------------------------------------------ where things were (the last frame)

let last = { deck: null, piles: {}, panels: {}, rack: {} };
let queue = []; // the events' plans waiting for the next frame
let pulseSeat = -1;
let frame = 0;

function snapshot() {
  const boxes = (sel, key) => {
    const out = {};
    for (const el of document.querySelectorAll(sel)) out[el.getAttribute(key)] = el.getBoundingClientRect();
    return out;
  };
  const piles = {};
  for (const el of document.querySelectorAll("#board [data-pile] > .tile")) piles[el.parentElement.dataset.pile] = el.getBoundingClientRect();
  last = { deck: rectOf(document.querySelector("#deck .tile")), piles, panels: boxes("#board .seat-panel[data-seat]", "data-seat"), rack: boxes("#rack [data-tile]", "data-tile") };
}

/**
 * What an event moves, with where it comes from as the last frame showed it (no layout is read):
 * {kind, seat, mine, id, from} or null. `t` is the open table (its view still the previous one).
 */
export function motionBefore(t, ev) {
  if (!ev || !motionOn() || t.dragging || document.hidden) return null;
  const kind = kindOf(ev);
  const e = ev[kind] || {};
  const seat = num(e.seat);
  const n = ((t.view && t.view.seats) || []).length || 4;
  if (kind === "tileDrawn") {
    const from = e.source === "DRAW_SOURCE_DISCARD" ? last.piles[(seat + n - 1) % n] : last.deck;
    return { kind, seat, mine: seat === t.seat, id: e.tile && e.tile.code ? num(e.tile.id) : null, from };
  }
  if (kind === "tileDiscarded") {
    const mine = seat === t.seat;
    const from = mine && e.tile ? last.rack[num(e.tile.id)] : last.panels[seat];
    return { kind, seat, mine, from, centred: !mine };
  }
  if (kind === "handEnded" || kind === "handEnded101" || kind === "handVoided") return { kind: "handEnd", okey: !!e.okeyFinish };
  return null;
}

// ------------------------------------------------------------------ after the redraw: fly, pulse, flash

// A clone of `target` set where it is now, starting where `from` was (its centre, its size);
// the real tile waits under it (an opacity animation with no fill: back when it ends or is redrawn).
function fly(target, to, from, centred = false) {
  // from a seat's panel: a tile of the target's size at the panel's middle
  if (centred) from = { left: from.left + (from.width - to.width) / 2, top: from.top + (from.height - to.height) / 2, width: to.width, height: to.height };
  const clone = target.cloneNode(true);
  for (const a of ["id", "data-focus", "data-tile", "data-slot", "draggable", "aria-pressed", "aria-label", "title", "role"]) clone.removeAttribute(a);
  clone.classList.remove("selected");
  clone.tabIndex = -1;
  launch(clone, to, from);
  animate(target, [{ opacity: 0 }, { opacity: 0 }], FLY_MS, "linear");
}

// A face-down tile (a tile no one here may see) from `from` to the middle of `box`, the size it had.
function flyBack(from, box) {
  const el = document.createElement("span");
  el.className = "tile back";
  const to = { left: box.left + (box.width - from.width) / 2, top: box.top + (box.height - from.height) / 2, width: from.width, height: from.height };
  launch(el, to, from, 0.35);
}

function launch(el, to, from, endOpacity = 1) {
  el.classList.add("fly");
  el.setAttribute("aria-hidden", "true");
  el.style.left = `${to.left}px`;
  el.style.top = `${to.top}px`;
  el.style.width = `${to.width}px`;
  el.style.height = `${to.height}px`;
  layer().append(el);
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const s = Math.max(0.4, Math.min(2.5, from.width / to.width));
  const a = animate(el, [{ transform: `translate(${dx}px, ${dy}px) scale(${s})`, opacity: 0.9 }, { transform: "none", opacity: endOpacity }], FLY_MS, "cubic-bezier(.2,.7,.3,1)");
  const done = () => el.remove();
  a.onfinish = done;
  a.oncancel = done;
}

function flash(okey) {
  const el = document.createElement("div");
  el.className = "fly flash" + (okey ? " okey" : "");
  layer().append(el);
  const a = animate(el, [{ opacity: 0 }, { opacity: okey ? 0.75 : 0.5, offset: 0.35 }, { opacity: 0 }], FLASH_MS, "ease-in-out");
  a.onfinish = () => el.remove();
  a.oncancel = () => el.remove();
}

/** After an event's redraw: its plan and the turn's pulse wait for the next frame. */
export function motionAfter(plan, prev, view) {
  if (!motionOn() || document.hidden) return;
  if (plan && queue.length < 12) queue.push(plan);
  const turnNow = view && view.phase === "PHASE_PLAYING" ? num(view.turn) : -1;
  const turnBefore = prev && prev.phase === "PHASE_PLAYING" ? num(prev.turn) : -1;
  // the turn moved (not the table's first view: opening a table is no move)
  if (prev && turnNow >= 0 && (turnNow !== turnBefore || num(prev.hand) !== num(view.hand))) pulseSeat = turnNow;
  motionRendered();
}

/** The table was redrawn (any redraw): the next frame reads where things are now. */
export function motionRendered() {
  if (!frame && motionOn()) frame = requestAnimationFrame(run);
}

// Once a frame after a redraw: every read first (the targets, then where everything is for the
// next events), then every write (the clones, the animations).
function run() {
  frame = 0;
  const t0 = performance.now();
  const jobs = queue.splice(0).map((p) => {
    let target = null;
    if (p.kind === "tileDrawn") target = p.mine ? (p.id !== null ? document.querySelector(`#rack [data-tile="${p.id}"]`) : null) : seatPanel(p.seat);
    else if (p.kind === "tileDiscarded") target = pileTop(p.seat);
    return { p, target, to: rectOf(target) };
  });
  const panel = pulseSeat >= 0 ? seatPanel(pulseSeat) : null;
  pulseSeat = -1;
  snapshot();
  if (!motionOn() || document.hidden) return;
  for (const { p, target, to } of jobs) {
    if (p.kind === "handEnd") flash(p.okey);
    else if (!target || !seen(to) || !seen(p.from)) continue;
    else if (p.kind === "tileDrawn" && !p.mine) flyBack(p.from, to);
    else fly(target, to, p.from, p.centred);
  }
  if (panel) animate(panel, [{ transform: "scale(1)" }, { transform: "scale(1.045)" }, { transform: "scale(1)" }], PULSE_MS, "ease-in-out");
  worstMs = Math.max(worstMs, performance.now() - t0);
}

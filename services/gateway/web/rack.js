// The rack: tile drawing (every tile on the page is drawn here), the client-side order of the
// rack's 30 slots (kept per hand in local storage), and the rack's input: click to select and
// move, arrow keys (Shift to carry a tile), drag and drop; and Otomatik diz (issue 47.4).
import { $, h, num, patch, store } from "./dom.js";
import { tr } from "./i18n.js";
import { S, arrangementIds, hintsKey, is101, isMyTurn, rackIds, render, tileById, tileHint } from "./state.js";

const ROW = 15; // slots per rack row
const ROWS = 2;
const SLOTS = ROW * ROWS;
const COLOURS = { R: "R", Y: "Y", B: "B", K: "K" };

// ------------------------------------------------------------------ tiles

export function face(code) {
  if (!code) return null;
  if (code === "F") return { fake: true };
  return { colour: code[0], number: Number(code.slice(1)) };
}

// The okey's code: the open hand's, or `okey` when given (a finished hand's result, issue 18.6).
function okeyCode(okey) {
  if (okey !== undefined) return okey;
  return S.t && S.t.view && S.t.view.okey ? S.t.view.okey.code : "";
}

export function tileName(code, okeyOf) {
  const f = face(code);
  if (!f) return tr("tile.hidden");
  if (f.fake) {
    const okey = okeyCode(okeyOf);
    return okey ? tr("tile.fake.as", { face: tileName(okey) }) : tr("tile.fake");
  }
  return `${tr("colour." + f.colour)} ${f.number}`;
}

export function isOkey(code, okeyOf) {
  const okey = okeyCode(okeyOf);
  return !!code && code !== "F" && code === okey;
}

// A tile as an element: a button when `button`, else a span. Markers come from the hints;
// `okey` (a code) draws it with another hand's okey than the open one.
export function tileEl(tile, opts = {}) {
  const code = tile && tile.code ? tile.code : "";
  const f = face(code);
  const cls = ["tile"];
  if (!f) cls.push("back");
  else if (f.fake) cls.push("fake");
  else cls.push("c-" + (COLOURS[f.colour] || "K"));
  const okey = isOkey(code, opts.okey);
  if (okey) cls.push("okey");
  if (opts.small) cls.push("small");
  if (opts.extra) cls.push(opts.extra);
  let label = tileName(code, opts.okey);
  if (okey) label += `, ${tr("tile.okey")}`;
  const marks = [];
  const hint = opts.hint;
  if (hint) {
    if (hint.finishes) marks.push(["✓", "fin", tr("hints.mark.finishes")]);
    if (hint.penalised) marks.push(["!", "pen", tr("hints.mark.penalised")]);
    if (hint.addable) marks.push(["+", "add", hint.addLabel || tr("hints.mark.addable")]);
    if (hint.takesOkey) marks.push(["↔", "take", hint.takeLabel || tr("hints.mark.takes")]);
  }
  if (marks.length) label += ". " + marks.map((m) => m[2]).join("; ");
  const okeyFace = f && f.fake && okeyCode(opts.okey) ? face(okeyCode(opts.okey)) : null;
  const body = [];
  if (!f) body.push(h("span", { class: "n", "aria-hidden": "true" }, ""));
  else if (f.fake) {
    body.push(h("span", { class: "n", "aria-hidden": "true" }, "♣"));
    if (okeyFace) body.push(h("span", { class: "as c-" + okeyFace.colour, "aria-hidden": "true" }, okeyFace.number));
  } else {
    body.push(h("span", { class: "n", "aria-hidden": "true" }, f.number));
    body.push(h("span", { class: "dot", "aria-hidden": "true" }));
  }
  if (okey) body.push(h("span", { class: "star", "aria-hidden": "true" }, "★"));
  if (marks.length) {
    body.push(h("span", { class: "marks", "aria-hidden": "true" }, marks.map((m) => h("span", { class: "mk " + m[1] }, m[0]))));
  }
  const attrs = { class: cls.join(" "), "aria-label": label, title: opts.title || label };
  if (tile && tile.id !== undefined) attrs["data-tile"] = tile.id;
  if (opts.button) {
    attrs.type = "button";
    Object.assign(attrs, opts.attrs || {});
    return h("button", attrs, body);
  }
  attrs.role = "img";
  Object.assign(attrs, opts.attrs || {});
  return h("span", attrs, body);
}

// ------------------------------------------------------------------ the rack order (client side)

export function syncRack(t) {
  const v = t.view;
  const key = `okey.rack.${t.id}.${num(v.hand)}`;
  const ids = rackIds(v);
  const have = new Set(ids);
  if (t.rackKey !== key) {
    t.rackKey = key;
    t.staged = [];
    t.selected = [];
    t.hints = null; // a new hand: the last hand's hints must not show until this hand's come [issue 18.9]
    let saved = null;
    try { saved = JSON.parse(store.get(key) || "null"); } catch { saved = null; }
    t.slots = Array.isArray(saved) && saved.length === SLOTS ? saved : new Array(SLOTS).fill(null);
  }
  for (let i = 0; i < SLOTS; i++) if (t.slots[i] !== null && !have.has(t.slots[i])) t.slots[i] = null;
  t.staged = t.staged.map((m) => ({ ...m, ids: m.ids.filter((x) => have.has(x)) })).filter((m) => m.ids.length);
  t.selected = t.selected.filter((x) => have.has(x));
  const placed = new Set(t.slots.filter((x) => x !== null));
  const fresh = ids.filter((x) => !placed.has(x));
  if (fresh.length) {
    const empty = t.slots.every((x) => x === null);
    if (empty) {
      // A new deal: the server's order, one row after the other.
      fresh.forEach((id, i) => { t.slots[i] = id; });
    } else {
      // A drawn tile goes right after the last tile, or into the first free slot.
      let last = -1;
      for (let i = 0; i < SLOTS; i++) if (t.slots[i] !== null) last = i;
      for (const id of fresh) {
        let at = t.slots.indexOf(null, last + 1);
        if (at < 0) at = t.slots.indexOf(null);
        t.slots[at] = id;
        last = at;
      }
    }
  }
  saveRack(t);
}

function saveRack(t) { if (t.rackKey) store.set(t.rackKey, JSON.stringify(t.slots)); }

// A move by hand: the draw's pending Otomatik diz must not undo it [issue 47.4].
function movedByHand(t) {
  t.rackMoves = (t.rackMoves || 0) + 1;
  t.autoArrange = null;
}

function moveTile(t, id, target) {
  const from = t.slots.indexOf(id);
  if (from < 0 || target < 0 || target >= SLOTS || from === target) return;
  movedByHand(t);
  t.slots[from] = null;
  if (t.slots[target] === null) { t.slots[target] = id; }
  else {
    // Slide the tiles between the target and the nearest gap, as on a real rack.
    let r = target;
    while (r < SLOTS && t.slots[r] !== null) r++;
    if (r < SLOTS) {
      for (let k = r; k > target; k--) t.slots[k] = t.slots[k - 1];
    } else {
      let l = target;
      while (l >= 0 && t.slots[l] !== null) l--;
      for (let k = l; k < target; k++) t.slots[k] = t.slots[k + 1];
    }
    t.slots[target] = id;
  }
  saveRack(t);
}

function swapSlots(t, a, b) {
  if (b < 0 || b >= SLOTS) return;
  movedByHand(t);
  [t.slots[a], t.slots[b]] = [t.slots[b], t.slots[a]];
  saveRack(t);
}

// Lay melds out on the rack, each on one row where it fits, a gap between them; the rest after.
export function arrange(t, melds) {
  const inMelds = new Set(melds.flat());
  const rest = t.slots.filter((x) => x !== null && !inMelds.has(x));
  const have = new Set(rackIds(t.view));
  const groups = melds.map((m) => m.filter((x) => have.has(x))).filter((m) => m.length);
  if (rest.length) groups.push(rest);
  const tryLayout = (gap) => {
    const slots = new Array(SLOTS).fill(null);
    let pos = 0;
    for (const g of groups) {
      const rowEnd = (Math.floor(pos / ROW) + 1) * ROW;
      if (gap && pos % ROW !== 0 && pos + g.length > rowEnd && g.length <= ROW) pos = rowEnd;
      for (const id of g) {
        if (pos >= SLOTS) return null;
        slots[pos++] = id;
      }
      if (gap) pos++;
    }
    return slots;
  };
  const slots = tryLayout(true) || tryLayout(false);
  if (slots) { t.slots = slots; saveRack(t); }
  render();
}

// ------------------------------------------------------------------ Seri Diz / Çift Diz, Otomatik diz [issue 47.4]
// Otomatik diz (a switch on the rack, remembered on this device): after each draw of mine (the
// deck or the side pile), once the view after it and its hints (the table service's GetHints)
// are in, the rack is laid out once as the last pressed of Seri Diz / Çift Diz (Seri at first)
// lays it out. Not while a tile is dragged (after the drag), and not after a move by hand made
// since the draw. The client computes no arrangement: it is the hints' runs or pairs.

const AUTO_KEY = "okey.rack.auto";
const CHOICE_KEY = "okey.rack.choice";

/** Whether Otomatik diz is on (this device). */
export function autoArrangeOn() { return store.get(AUTO_KEY) === "1"; }
/** What Otomatik diz lays out: "runs" (Seri Diz, the default) or "pairs" (Çift Diz), the last pressed. */
export function arrangeChoice() { return store.get(CHOICE_KEY) === "pairs" ? "pairs" : "runs"; }

/** Seri Diz ("runs") or Çift Diz ("pairs") pressed: lay the rack out by the hints, and remember the choice. */
export function arrangeBy(kind) {
  const t = S.t;
  if (!t || !t.hints) return;
  store.set(CHOICE_KEY, kind === "pairs" ? "pairs" : "runs");
  t.autoArrange = null; // laid out by hand: this draw's is done
  arrange(t, arrangementIds(t.hints[kind]));
}

/** My draw was accepted (the table at `version` after it): lay the rack out once its hints are in. */
export function noteDraw(t, version) {
  if (!autoArrangeOn() || !t.view) return;
  t.autoArrange = { version, hand: num(t.view.hand) };
  autoArrangeNow(t);
}

/** The pending Otomatik diz, when the view after the draw and its hints are here (else later). */
export function autoArrangeNow(t) {
  const a = t.autoArrange;
  if (!a || S.t !== t || t.dragging || !t.view) return;
  const v = t.view;
  if (num(v.version) < a.version && num(v.hand) === a.hand) return; // the draw's view is still on its way
  if (!autoArrangeOn() || num(v.hand) !== a.hand || !isMyTurn(v)) { t.autoArrange = null; return; }
  if (!t.hints || t.hintsKey !== hintsKey(t)) return; // its hints are still on their way
  t.autoArrange = null;
  arrange(t, arrangementIds(t.hints[arrangeChoice()]));
}

function bindAutoArrange() {
  const box = $("#auto-arrange");
  if (!box) return;
  box.checked = autoArrangeOn();
  box.addEventListener("change", () => {
    if (box.checked) store.set(AUTO_KEY, "1"); else store.del(AUTO_KEY);
    if (!box.checked && S.t) S.t.autoArrange = null;
  });
}

// ------------------------------------------------------------------ drawing the rack

// Where a rack tile's markers come from (set at boot: fits.js's rackHint, which knows the melds).
let hintOf = tileHint;
/** Set how a rack tile's hint is read: (t, id) => hint. */
export function setRackHints(fn) { hintOf = fn; }

export function renderRack(v) {
  const t = S.t;
  const rack = $("#rack");
  rack.classList.toggle("spectator", t.seat === null);
  if (t.seat === null) { rack.replaceChildren(); return; }
  const staged = new Set(t.staged.flatMap((m) => m.ids));
  const rows = [];
  if (t.focus >= SLOTS) t.focus = SLOTS - 1;
  for (let r = 0; r < ROWS; r++) {
    const cells = [];
    for (let c = 0; c < ROW; c++) {
      const i = r * ROW + c;
      const id = t.slots[i];
      const tile = id !== null && !staged.has(id) ? tileById(t, id) : null;
      const tab = i === t.focus ? "0" : "-1";
      let inner;
      if (tile) {
        inner = tileEl(tile, {
          button: true,
          hint: hintOf(t, id),
          attrs: { tabindex: tab, draggable: "true", "aria-pressed": String(t.selected.includes(id)), "data-slot": i, "data-focus": "slot-" + i },
        });
        if (t.selected.includes(id)) inner.classList.add("selected");
      } else {
        inner = h("button", { type: "button", class: "slot-empty", tabindex: tab, "data-slot": i, "data-focus": "slot-" + i, "aria-label": tr("table.rack.empty") });
      }
      cells.push(h("div", { role: "gridcell", class: "slot", "data-slot": i }, inner));
    }
    rows.push(h("div", { role: "row", class: "rack-row" }, cells));
  }
  patch(rack, ...rows);
}

// ------------------------------------------------------------------ input: clicks, keys, drag and drop

export function dragTile(e) {
  const d = e.dataTransfer ? e.dataTransfer.getData("text/plain") : "";
  const m = /^tile:(\d+)$/.exec(d || "");
  return m ? Number(m[1]) : null;
}

// The open table, the rack button and its slot an event is about, or null.
function slotOf(e) {
  const t = S.t;
  const btn = t ? e.target.closest("button[data-slot]") : null;
  return btn ? { t, btn, slot: Number(btn.dataset.slot) } : null;
}

function onRackClick(e) {
  const at = slotOf(e);
  if (!at) return;
  const { t, btn, slot } = at;
  t.focus = slot;
  if (btn.dataset.tile !== undefined) {
    const id = Number(btn.dataset.tile);
    if (t.selected.includes(id)) t.selected = t.selected.filter((x) => x !== id);
    else if (is101(t.view)) t.selected = t.selected.concat([id]);
    else t.selected = [id];
  } else if (t.selected.length) {
    moveTile(t, t.selected[0], slot);
  }
  render();
}

function onRackKey(e) {
  const at = slotOf(e);
  if (!at) return;
  const { t, btn, slot } = at;
  const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -ROW, ArrowDown: ROW, Home: -slot % ROW, End: ROW - 1 - (slot % ROW) }[e.key];
  if (step === undefined) return;
  e.preventDefault();
  const target = Math.max(0, Math.min(SLOTS - 1, slot + step));
  if (e.shiftKey && btn.dataset.tile !== undefined) {
    swapSlots(t, slot, target);
  }
  t.focus = target;
  renderRack(t.view);
  const el = $(`#rack [data-slot="${target}"]`);
  if (el && el.tagName === "BUTTON") el.focus();
  else { const b = $(`#rack button[data-slot="${target}"]`); if (b) b.focus(); }
}

function onDragStart(e) {
  const btn = e.target.closest("button[data-tile]");
  if (!btn || !S.t) return;
  S.t.dragging = true;
  e.dataTransfer.setData("text/plain", "tile:" + btn.dataset.tile);
  e.dataTransfer.effectAllowed = "move";
  btn.classList.add("dragging");
}

function onDragEnd() {
  const t = S.t;
  if (!t) return;
  t.dragging = false;
  if (t.pending) { t.pending = false; }
  render();
}

function onRackDrop(e) {
  const t = S.t;
  const cell = e.target.closest("[data-slot]");
  if (!t || !cell) return;
  e.preventDefault();
  const id = dragTile(e);
  if (id === null) return;
  moveTile(t, id, Number(cell.dataset.slot));
  t.dragging = false;
  render();
}

// The rack's listeners, once at boot (the rack re-renders its buttons, the container stays).
export function bindRack() {
  const rack = $("#rack");
  rack.addEventListener("click", onRackClick);
  rack.addEventListener("keydown", onRackKey);
  rack.addEventListener("dragstart", onDragStart);
  rack.addEventListener("dragend", onDragEnd);
  rack.addEventListener("dragover", (e) => { if (e.target.closest("[data-slot]")) e.preventDefault(); });
  rack.addEventListener("drop", onRackDrop);
  bindAutoArrange();
}

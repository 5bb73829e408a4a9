// The replay of a finished hand [D-12] (issue 46): #/replay/<tableId>/<hand>, which is also the
// share link. TableService.GetReplay gives the racks as dealt, the hand's events with nothing
// hidden, the deal's fairness proof (checked by the server) and the coaching notes; this screen
// folds the events the simple way (a draw puts the tile in the seat's rack, a discard moves it to
// the seat's pile, 101's melds go to the table) and shows every rack face up at each step. It
// computes no score and no prize: the hand's end shows the server's HandEnded numbers as they are.
import { $, h, num, toast, withTileIds } from "./dom.js";
import { currentLang, tr } from "./i18n.js";
import { S, show } from "./state.js";
import { api, errText, hasMethod } from "./api.js";
import { tileEl, tileName } from "./rack.js";

const SPEEDS = [1, 2, 4];
const STEP_MS = 1000; // one move a second at 1x

// The open replay: what GetReplay gave, each step's state (after events[i]), the step shown.
const R = { key: "", rp: null, steps: [], at: 0, timer: null, speed: 1, names: {}, back: "", error: null, loading: false };

/** Where a finished hand's replay is (the share link). */
export function replayHash(tableId, hand) { return `#/replay/${tableId}/${hand}`; }

// ------------------------------------------------------------------ folding the events

const kindOf = (ev) => (ev.kind ? ev.kind.charAt(0).toLowerCase() + ev.kind.slice(1) : "");
// The events that are no seat's move (every other one has its seat, 0 left out of the JSON).
const SEATLESS = new Set(["tableCreated", "handEnded", "handEnded101", "handVoided", "matchEnded", "breakStarted"]);
const without = (tiles, id) => { const i = tiles.findIndex((x) => x.id === id); if (i >= 0) tiles.splice(i, 1); return tiles; };

function clone(st) {
  return {
    racks: st.racks.map((r) => r.slice()), piles: st.piles.map((p) => p.slice()),
    melds: st.melds.map((m) => ({ ...m, tiles: m.tiles.slice() })), deck: st.deck, from: { ...st.from },
    flags: st.flags.map((f) => ({ ...f })), end: null, final: st.final, moved: null, seat: -1,
  };
}

// One event's visible effect on the state (a copy of the state before it).
function apply(st, ev, n) {
  const k = kindOf(ev);
  const e = ev[k] || {};
  const seat = num(e.seat);
  const tile = e.tile && e.tile.code ? e.tile : null;
  st.seat = k === "handStarted" ? num(e.starter) : SEATLESS.has(k) ? -1 : seat; // whose move it is
  if (k === "handStarted") {
    const dealt = (e.racks || []).map((r) => (r.tiles || []).filter((x) => x.code));
    if (dealt.length === n && dealt.every((r) => r.length)) st.racks = dealt;
    if ((e.deck || []).length) st.deck = e.deck.length;
  } else if (k === "tileDrawn" && tile) {
    if (e.source === "DRAW_SOURCE_DISCARD") {
      let from = st.piles.findIndex((p) => p.length && p[p.length - 1].id === tile.id);
      if (from < 0) from = (seat + n - 1) % n;
      without(st.piles[from], tile.id);
      st.from[tile.id] = from;
    } else st.deck = Math.max(0, st.deck - 1);
    st.racks[seat].push(tile);
    st.moved = tile.id;
  } else if (k === "tileReturned" && tile) {
    without(st.racks[seat], tile.id);
    st.piles[st.from[tile.id] !== undefined ? st.from[tile.id] : (seat + n - 1) % n].push(tile);
    st.moved = tile.id;
  } else if (k === "tileDiscarded" && tile) {
    without(st.racks[seat], tile.id);
    st.piles[seat].push(tile);
    st.moved = tile.id;
  } else if (k === "indicatorShown") st.flags[seat].indicator = true;
  else if (k === "pairsDeclared") st.flags[seat].pairs = true;
  else if (k === "turnedToOkey") st.flags[seat].okey = true;
  else if (k === "meldsOpened") {
    for (const m of e.melds || []) {
      for (const x of m.tiles || []) without(st.racks[seat], x.id);
      st.melds.push({ owner: seat, kind: m.kind || "", tiles: (m.tiles || []).slice() });
    }
    st.flags[seat].opened = String(e.opening || "").replace("OPENING_", "");
  } else if (k === "tileAdded" && tile) {
    without(st.racks[seat], tile.id);
    const m = st.melds[num(e.meld)];
    if (m) { if (e.atStart) m.tiles.unshift(tile); else m.tiles.push(tile); }
    st.moved = tile.id;
  } else if (k === "okeyTaken" && tile) {
    without(st.racks[seat], tile.id);
    const m = st.melds[num(e.meld)];
    const okey = e.okey && e.okey.code ? e.okey : null;
    if (m && okey) { const i = m.tiles.findIndex((x) => x.id === okey.id); if (i >= 0) m.tiles[i] = tile; else m.tiles.push(tile); }
    if (okey) st.racks[seat].push(okey);
    st.moved = tile.id;
  } else if (k === "handEnded" || k === "handEnded101" || k === "handVoided") {
    st.end = { kind: k, e };
    const fin = e.finalTile && e.finalTile.code ? e.finalTile : null;
    if (fin && e.reason === "HAND_END_REASON_FINISHED") { without(st.racks[num(e.finisher)], fin.id); st.final = fin; }
  }
  return st;
}

function fold(rp) {
  const n = (rp.racks || []).length || 4;
  let st = {
    racks: (rp.racks || []).map((r) => (r.tiles || []).slice()), piles: Array.from({ length: n }, () => []), melds: [],
    deck: (rp.deck || []).length, from: {}, flags: Array.from({ length: n }, () => ({})), end: null, final: null, moved: null, seat: -1,
  };
  return (rp.events || []).map((ev) => { st = apply(clone(st), ev, n); return st; });
}

// ------------------------------------------------------------------ names and texts

function okeyOf(rp) {
  return (rp && rp.okey && rp.okey.code) || ""; // the server names the hand's okey (Replay.okey)
}

function seatLabel(i) {
  const p = ((R.rp && R.rp.players) || [])[i] || "";
  if (p && S.me && p === S.me.id) return tr("table.you");
  if (R.names[i]) return R.names[i];
  return p ? tr("table.seat", { n: i + 1 }) : tr("table.bot", { n: i + 1 });
}

function tileText(t) {
  if (!t || !t.code) return "";
  return t.code === okeyOf(R.rp) ? tr("refusal.tile.okey") : t.code === "F" ? tr("refusal.tile.fake") : tileName(t.code, okeyOf(R.rp));
}

function stepText(i) {
  const ev = (R.rp.events || [])[i];
  if (!ev) return "";
  const k = kindOf(ev);
  const e = ev[k] || {};
  let key = "ev." + k;
  if (k === "tileDrawn") key = e.source === "DRAW_SOURCE_DISCARD" ? "ev.tileDrawn.side" : "ev.tileDrawn.deck";
  const opening = String(e.opening || "").replace("OPENING_", "");
  if (k === "meldsOpened" && (opening === "RUNS" || opening === "PAIRS")) key = `ev.meldsOpened.${e.first ? "" : "more."}${opening}`;
  const seat = k === "handStarted" ? num(e.starter) : num(e.seat);
  const p = { name: seatLabel(seat), tile: tileText(e.tile), points: num(e.points), value: num(e.value), hand: num(e.hand) || num(ev.hand) };
  // A tile drawn from the deck is shown in a replay (nothing is hidden): the line names it.
  const line = tr(key, p);
  return k === "tileDrawn" && e.source !== "DRAW_SOURCE_DISCARD" && p.tile ? `${line}: ${p.tile}` : line;
}

// A note's text is Turkish then English in brackets: the page's language's part.
function noteText(note) {
  const s = String(note.text || "");
  const m = s.match(/^([\s\S]*?)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*$/);
  if (!m) return s;
  return currentLang() === "en" ? m[2] : m[1];
}

const kindName = (k) => tr("replay.kind." + String(k || "").replace("COACHING_KIND_", ""));

// ------------------------------------------------------------------ the screen

/** Open the replay of ``hand`` at ``tableId`` (the router's #/replay/<id>/<hand>). */
export async function showReplay(tableId, hand, back) {
  show("replay");
  const key = `${tableId}/${hand}`;
  if (back) R.back = back;
  document.title = `${tr("app.title")} — ${tr("replay.title", { hand })}`;
  if (R.key === key && (R.rp || R.loading)) { renderReplay(); return; }
  stop();
  Object.assign(R, { key, rp: null, steps: [], at: 0, names: {}, error: null, loading: true, tableId, hand });
  renderReplay();
  try {
    if (!hasMethod("TableService", "GetReplay")) throw Object.assign(new Error("missing"), { reason: "UNKNOWN_METHOD", code: "UNIMPLEMENTED" });
    const r = await api("TableService", "GetReplay", { tableId, hand });
    if (R.key !== key) return;
    R.rp = withTileIds(r.replay || {});
    R.steps = fold(R.rp);
    R.at = 0;
  } catch (e) {
    if (R.key !== key) return;
    R.error = e;
  }
  R.loading = false;
  renderReplay();
  loadNames(key);
}

async function loadNames(key) {
  if (!R.rp || S.lobbyDown || !hasMethod("LobbyService", "GetTableCard")) return;
  try {
    const r = await api("LobbyService", "GetTableCard", { tableId: R.tableId });
    if (R.key !== key) return;
    for (const s of (r.table && r.table.seats) || []) if (s.displayName) R.names[num(s.seat)] = s.displayName;
    renderReplay();
  } catch { /* seat numbers will do */ }
}

function goTo(i) {
  if (!R.steps.length) return;
  R.at = Math.max(0, Math.min(R.steps.length - 1, i));
  if (R.at >= R.steps.length - 1) stop();
  renderReplay();
}

function stop() { clearInterval(R.timer); R.timer = null; }

function togglePlay() {
  if (R.timer) { stop(); renderReplay(); return; }
  if (R.at >= R.steps.length - 1) R.at = 0;
  R.timer = setInterval(() => {
    if ($("#screen-replay").hidden) { stop(); return; }
    goTo(R.at + 1);
  }, STEP_MS / R.speed);
  renderReplay();
}

function setSpeed(x) {
  R.speed = SPEEDS.includes(x) ? x : 1;
  if (R.timer) { stop(); togglePlay(); } else renderReplay();
}

/** Draw the replay screen for R (also on a language switch). */
export function renderReplay() {
  const scr = $("#screen-replay");
  if (!scr || scr.hidden) return;
  $("#replay-title").textContent = tr("replay.title", { hand: R.hand || "" });
  const body = $("#replay-body");
  scr.dataset.step = R.steps.length ? String(R.at) : "";
  if (R.loading) { body.replaceChildren(h("p", { class: "loading" }, tr("table.loading"))); return; }
  if (R.error || !R.rp) {
    body.replaceChildren(h("p", { class: "error", role: "alert", id: "replay-error", "data-reason": (R.error && R.error.reason) || "" }, errText(R.error || {}, {})));
    return;
  }
  const focus = document.activeElement && document.activeElement.id;
  const st = R.steps[R.at] || { racks: [], piles: [], melds: [], flags: [] };
  body.replaceChildren(
    h("div", { class: "replay-layout" },
      h("div", { class: "replay-main" }, controls(), stepLine(), moveNotes(), board(st), endPanel(st)),
      h("aside", { class: "replay-side" }, notesPanel(), fairnessPanel())));
  if (focus) { const el = document.getElementById(focus); if (el && !el.disabled) el.focus({ preventScroll: true }); }
}

// The controls' icons, drawn (a font may lack the media symbols ⏮ ⏭ ⏯).
const ICONS = {
  start: "M5 5h2.5v14H5zM19 5v14L8.5 12z", prev: "M17 5v14L6 12z", next: "M7 5v14l11-7z",
  end: "M16.5 5H19v14h-2.5zM5 5v14l10.5-7z", play: "M6 4v16l14-8z", pause: "M6 5h4.5v14H6zM13.5 5H18v14h-4.5z",
};
function icon(name) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "20");
  svg.setAttribute("height", "20");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("fill", "currentColor");
  path.setAttribute("d", ICONS[name]);
  svg.append(path);
  return svg;
}

function controls() {
  const last = R.steps.length - 1;
  const btn = (id, name, label, fn, off) => h("button", { type: "button", id, class: "replay-btn", "aria-label": tr(label), title: tr(label), disabled: off, onclick: fn }, icon(name));
  const playing = !!R.timer;
  const playLabel = tr(playing ? "replay.pause" : "replay.play");
  return h("div", { class: "replay-controls", role: "toolbar", "aria-label": tr("replay.controls") },
    btn("replay-start", "start", "replay.start", () => goTo(0), R.at <= 0),
    btn("replay-prev", "prev", "replay.prev", () => goTo(R.at - 1), R.at <= 0),
    h("button", { type: "button", id: "replay-play", class: "replay-btn primary replay-play", "data-playing": String(playing), title: playLabel, onclick: togglePlay },
      icon(playing ? "pause" : "play"), " ", h("span", { class: "replay-play-text" }, playLabel)),
    btn("replay-next", "next", "replay.next", () => goTo(R.at + 1), R.at >= last),
    btn("replay-end", "end", "replay.end", () => goTo(last), R.at >= last),
    h("label", { for: "replay-speed", class: "replay-speed-label" }, tr("replay.speed")),
    h("select", { id: "replay-speed", onchange: (e) => setSpeed(Number(e.target.value)) },
      SPEEDS.map((x) => h("option", { value: String(x), selected: x === R.speed }, `${x}x`))));
}

function stepLine() {
  // read out at each step taken by hand, not at each step of a playback
  return h("p", { id: "replay-step", class: "replay-step", "aria-live": R.timer ? "off" : "polite" },
    h("span", { class: "badge" }, tr("replay.step", { n: R.at, of: R.steps.length - 1 })), " ", stepText(R.at));
}

function board(st) {
  const okey = okeyOf(R.rp);
  const n = st.racks.length;
  const seats = Array.from({ length: n }, (_, i) => {
    const f = st.flags[i] || {};
    const flags = [f.pairs && tr("table.flag.pairs.short"), f.okey && tr("table.flag.okey.short"), f.indicator && tr("replay.flag.indicator")].filter(Boolean);
    const pile = st.piles[i] || [];
    const top = pile.length ? pile[pile.length - 1] : null;
    const on = st.seat === i;
    return h("section", { class: `replay-seat${on ? " turn" : ""}`, "data-seat": i, "aria-label": seatLabel(i) },
      h("div", { class: "seat-name" }, h("strong", {}, seatLabel(i)), flags.map((x) => h("span", { class: "flag" }, x)),
        h("span", { class: "help" }, " ", tr("table.tiles", { n: st.racks[i].length }))),
      h("div", { class: "replay-row" },
        h("div", { class: "replay-rack", role: "group", "aria-label": tr("replay.rack", { name: seatLabel(i) }), "data-rack": i },
          st.racks[i].map((x) => tileEl(x, { small: true, okey, extra: x.id === st.moved ? "moved" : undefined }))),
        h("div", { class: "pile replay-pile", role: "group", "aria-label": tr("table.pile", { name: seatLabel(i) }), "data-pile": i, "data-count": pile.length },
          top ? tileEl(top, { small: true, okey, extra: top.id === st.moved ? "moved" : undefined }) : h("span", { class: "pile-empty" }, tr("table.pile.empty")),
          pile.length > 1 ? h("span", { class: "pile-count", "aria-hidden": "true" }, pile.length) : null)));
  });
  const ind = R.rp.indicator && R.rp.indicator.code ? R.rp.indicator : null;
  const center = h("div", { class: "replay-center" },
    h("figure", { class: "center-item" }, h("figcaption", { class: "cap" }, tr("table.indicator")), ind ? tileEl(ind, { small: true, okey }) : h("span", { class: "tile small back" })),
    h("figure", { class: "center-item" }, h("figcaption", { class: "cap" }, tr("table.okey")), okey ? tileEl({ code: okey }, { small: true, okey, extra: "okey-face" }) : h("span", { class: "tile small back" })),
    h("p", { class: "center-item deck-count" }, tr("table.deck.count", { n: st.deck })),
    st.final ? h("figure", { class: "center-item" }, h("figcaption", { class: "cap" }, tr("replay.final")), tileEl(st.final, { small: true, okey })) : null);
  const melds = st.melds.length
    ? h("ol", { class: "melds replay-melds", "aria-label": tr("replay.melds") }, st.melds.map((m, i) => {
      const kind = String(m.kind || "").replace("MELD_KIND_", "");
      return h("li", { class: "meld", "data-meld": i },
        h("span", { class: "meld-owner" }, seatLabel(m.owner), kind ? ` · ${tr("melds.kind." + kind)}` : ""),
        h("span", { class: "meld-tiles" }, m.tiles.map((x) => tileEl(x, { small: true, okey }))));
    }))
    : null;
  return h("div", { id: "replay-board", class: "replay-board", role: "region", "aria-label": tr("table.board") }, center, seats, melds);
}

function notesAt(i) {
  const v = num(((R.rp.events || [])[i] || {}).version);
  return (R.rp.notes || []).filter((x) => num(x.version) === v);
}

function noteItem(note, extra) {
  return [h("strong", {}, seatLabel(num(note.seat)), ": ", kindName(note.kind)),
    note.hindsight ? h("span", { class: "badge hindsight" }, tr("replay.hindsight")) : null,
    " ", h("span", { class: "note-text" }, noteText(note)), extra];
}

function moveNotes() {
  const here = notesAt(R.at);
  return h("div", { id: "replay-move-notes", class: "replay-move-notes", "aria-live": "polite", hidden: !here.length },
    here.map((x) => h("p", { class: "note", "data-kind": x.kind, "data-version": num(x.version) }, noteItem(x))));
}

function notesPanel() {
  const notes = R.rp.notes || [];
  const index = new Map((R.rp.events || []).map((ev, i) => [num(ev.version), i]));
  const cur = num(((R.rp.events || [])[R.at] || {}).version);
  return h("section", { class: "panel", "aria-labelledby": "replay-notes-title" },
    h("h3", { id: "replay-notes-title" }, tr("replay.notes")),
    notes.length ? h("p", { class: "help" }, tr("replay.notes.help")) : h("p", { class: "help" }, tr("replay.notes.none")),
    h("ol", { id: "replay-notes", class: "replay-notes" }, notes.map((x, k) => {
      const at = index.get(num(x.version));
      return h("li", { class: num(x.version) === cur ? "current" : "" },
        h("button", { type: "button", class: "link replay-note", id: `replay-note-${k}`, "data-kind": x.kind, "data-version": num(x.version),
          "data-seat": num(x.seat), "aria-current": num(x.version) === cur ? "step" : null, disabled: at === undefined,
          onclick: () => { stop(); goTo(at); } }, noteItem(x)));
    })),
    R.rp.notesTruncated ? h("p", { class: "help" }, tr("replay.notes.truncated")) : null);
}

function fairnessPanel() {
  const rp = R.rp;
  const ok = !!rp.verified;
  const cmd = `okey verify-deal ${rp.tableId || R.tableId} ${num(rp.hand) || R.hand}`;
  return h("section", { class: "panel replay-fair", "aria-labelledby": "replay-fair-title" },
    h("h3", { id: "replay-fair-title" }, tr("replay.fair")),
    h("p", { id: "replay-verified", class: ok ? "verified ok" : "verified bad", "data-verified": String(ok) }, tr(ok ? "replay.verified" : "replay.unverified")),
    h("p", { class: "help" }, tr("replay.fair.help")),
    h("dl", { class: "replay-proof" },
      h("dt", {}, tr("replay.commitment")), h("dd", {}, h("code", { id: "replay-commitment" }, rp.commitment || "—")),
      h("dt", {}, tr("replay.salt")), h("dd", {}, h("code", { id: "replay-salt" }, rp.salt || "—")),
      h("dt", {}, tr("replay.order")), h("dd", {}, tr("replay.order.count", { n: (rp.order || []).length }))),
    h("p", { class: "help" }, tr("replay.verify.help")),
    h("p", {}, h("code", { id: "replay-verify-cmd" }, cmd)));
}

// The hand's end as the server wrote it: who finished, and each seat's numbers from the event.
function endPanel(st) {
  if (!st.end) return null;
  const { kind, e } = st.end;
  const n = st.racks.length;
  const rows = [];
  const cols = kind === "handEnded101" ? ["points", "penalties", "deltas", "totals"] : kind === "handVoided" ? ["penalties"] : ["deltas"];
  for (let i = 0; i < n; i++) {
    rows.push(h("tr", { "data-seat": i }, h("th", { scope: "row" }, seatLabel(i)),
      cols.map((c) => h("td", { "data-col": c }, num((e[c] || [])[i])))));
  }
  const finished = e.reason === "HAND_END_REASON_FINISHED";
  const what = kind === "handVoided" ? tr("result.voided") : finished ? tr("result.finished", { name: seatLabel(num(e.finisher)) }) : tr("result.deck");
  return h("section", { id: "replay-end-panel", class: "panel", "aria-labelledby": "replay-end-title" },
    h("h3", { id: "replay-end-title" }, tr("replay.ended")),
    h("p", {}, what),
    num(e.multiplier) > 1 ? h("p", {}, tr("result.multiplier", { n: num(e.multiplier) })) : null,
    h("table", { class: "mini" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, tr("handend.col.seat")), cols.map((c) => h("th", { scope: "col" }, tr("replay.col." + c))))),
      h("tbody", {}, rows)));
}

async function share() {
  const url = location.href.split("#")[0] + replayHash(R.tableId, R.hand);
  try {
    await navigator.clipboard.writeText(url);
    toast(tr("replay.shared"), "info");
  } catch {
    toast(tr("replay.shareManual", { url }), "info");
  }
}

function onKey(e) {
  const scr = $("#screen-replay");
  if (!scr || scr.hidden || !R.steps.length || e.ctrlKey || e.metaKey || e.altKey || $("dialog[open]")) return;
  const tag = (e.target.tagName || "").toLowerCase();
  if (tag === "input" || tag === "textarea" || tag === "select") return;
  const to = { ArrowLeft: R.at - 1, ArrowRight: R.at + 1, Home: 0, End: R.steps.length - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  stop();
  goTo(to);
}

/** The screen's listeners, once at boot. */
export function bindReplay() {
  $("#replay-back").addEventListener("click", () => { stop(); location.hash = R.back || "#/lobby"; R.back = ""; });
  $("#replay-share").addEventListener("click", share);
  document.addEventListener("keydown", onKey);
}

/** For tests: the replay shown and its step. */
export function replayState() { return { key: R.key, at: R.at, steps: R.steps.length, playing: !!R.timer, speed: R.speed }; }

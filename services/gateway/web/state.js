// The client's state: who is signed in, what the gateway offers, the lobby's tables, the open
// table (its view, rack order, selection, hints, log), and the questions every screen asks of it.
// Modules change the state and then call render(); the table screen registers the renderer, so
// no module below it needs to import it.
import { $, num } from "./dom.js";
import { tr } from "./i18n.js";

export const S = {
  token: null,
  me: null, // {id, name, chips}
  methods: null, // Set of "/okey.v1.X/Y" the gateway offers, or null when unknown
  lobbyDown: false,
  tables: [],
  myTables: [], // the lobby's ListMyTables: tables I sit at that wait or are played (seating.js)
  waitingAt: new Set(), // tables where I sit and wait for the start
  t: null, // the open table
  chats: {},
  lobbyTimer: null,
  watchCard: null, // the lobby card a spectator came from (a friend's table): the seats' names
};

/** A fresh record for the table being opened (S.t). */
export function newTable(id, seat) {
  return {
    id, seat, view: null, version: 0, ws: null, wsTimer: null, attempts: 0, closing: false, live: false,
    names: {}, card: null, slots: [], rackKey: "", selected: [], staged: [], hints: null, hintsKey: "",
    hintsTimer: null, log: [], resultShown: false, busy: false, focus: 0, dragging: false, pending: false,
    gaps: 0, dups: 0, received: 0, hands: null, handsVersion: -1,
  };
}

// ------------------------------------------------------------------ re-rendering the table

let renderer = () => {};
/** The table screen's renderer (set once at boot). */
export function setRenderer(fn) { renderer = fn; }
/** Re-render the open table after a change to its state. */
export function render() { renderer(); }

// ------------------------------------------------------------------ screens and navigation

export function show(name) {
  for (const s of ["signin", "lobby", "table", "staff", "tournaments", "replay"]) $("#screen-" + s).hidden = s !== name;
  if (name !== "lobby") clearInterval(S.lobbyTimer);
  if (name !== "table") $("#conn").hidden = true;
}

// Navigate: a new hash routes through hashchange; the same hash routes now (the router listens
// to hashchange, so the same hash sends one itself).
export function go(hash) {
  if (location.hash === hash) window.dispatchEvent(new HashChangeEvent("hashchange"));
  else location.hash = hash;
}

// ------------------------------------------------------------------ questions about the view

export function isMyTurn(v) {
  const t = S.t;
  return !!(t && v && t.seat !== null && v.phase === "PHASE_PLAYING" && num(v.turn) === t.seat);
}
export function stage(v) { return String((v && v.stage) || "").replace("STAGE_", ""); }
export function is101(v) { return v && v.options && v.options.game === "GAME_OKEY101"; }
export function me(v) { const t = S.t; return t && t.seat !== null ? (v.seats || [])[t.seat] || {} : {}; }
export function rackIds(view) { return (view.rack || []).map((x) => x.id); }
export function tileById(t, id) { return (t.view.rack || []).find((x) => x.id === id) || null; }
export function selectedOne() { const t = S.t; return t && t.selected.length === 1 ? t.selected[0] : null; }

/** The seat I hold at a lobby table card, or null (a seat I left is not mine: a bot plays it). */
export function mySeatAt(table) {
  const s = (table.seats || []).find((x) => x.playerId && S.me && x.playerId === S.me.id && !x.left);
  return s ? num(s.seat) : null;
}

export function seatName(seat) {
  const t = S.t;
  if (!t) return String(seat + 1);
  if (seat === t.seat) return tr("table.you");
  if (t.names[seat]) return t.names[seat];
  const pub = t.view && (t.view.seats || [])[seat];
  if (pub && !pub.playerId) return tr("table.bot", { n: seat + 1 });
  return tr("table.seat", { n: seat + 1 });
}

// ------------------------------------------------------------------ hints (the table service's GetHints)

/** What the hints were computed for: when it changes, the hints are stale. */
export function hintsKey(t) {
  const v = t.view;
  return JSON.stringify([rackIds(v).slice().sort((a, b) => a - b), (v.melds || []).map((m) => (m.tiles || []).map((x) => x.id)), v.stage, num(v.turn), num(v.hand)]);
}

export function tileHint(t, id) {
  if (!t.hints || !t.hints.tiles) return null;
  const x = t.hints.tiles.find((th) => th.tile && th.tile.id === id);
  return x || null;
}

export function arrangementIds(arr) { return ((arr && arr.melds) || []).map((m) => (m.tiles || []).map((x) => x.id)); }

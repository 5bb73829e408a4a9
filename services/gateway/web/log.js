// The table's event log: one line per event, named by the envelope's kind, kept as seats and tile
// codes so that it follows a language switch.
import { $, announce, h, num, patch } from "./dom.js";
import { tr } from "./i18n.js";
import { seatName } from "./state.js";
import { tileName } from "./rack.js";

// The event's slot in a TableEvent is its `kind` ("TileDrawn") in lowerCamelCase ("tileDrawn"),
// protobuf's JSON name of the oneof member: no list of event names to keep up to date here.
function eventKind(ev) {
  return ev.kind ? ev.kind.charAt(0).toLowerCase() + ev.kind.slice(1) : "";
}

// Entries keep seats and tile codes, so the log follows a language switch.
export function logEvent(t, ev, quiet = false) {
  const kind = eventKind(ev);
  if (!kind || kind === "tableCreated" || ev[kind] === undefined) return;
  const e = ev[kind] || {};
  let key = "ev." + kind;
  if (kind === "tileDrawn") key = e.source === "DRAW_SOURCE_DISCARD" ? "ev.tileDrawn.side" : "ev.tileDrawn.deck";
  // An opening says what its number counts: points (runs, groups) or pairs; a later laying says it adds.
  const opening = String(e.opening || "").replace("OPENING_", "");
  if (kind === "meldsOpened" && (opening === "RUNS" || opening === "PAIRS")) key = `ev.meldsOpened.${e.first ? "" : "more."}${opening}`;
  const seat = kind === "handStarted" ? num(e.starter) : num(e.seat);
  // The okey is named as the buttons name it ("Okey"): the entry keeps whether the tile was the hand's okey.
  const tile = e.tile && e.tile.code ? e.tile.code : "";
  const okey = t.view && t.view.okey && t.view.okey.code ? t.view.okey.code : "";
  const entry = { key, seat, tile, okey: !!tile && tile !== "F" && tile === okey, points: num(e.points), value: num(e.value), hand: num(e.hand), version: num(ev.version) };
  t.log.push(entry);
  if (t.log.length > 60) t.log.shift();
  if (!quiet && (kind === "handEnded" || kind === "handEnded101" || kind === "handVoided")) announce(logText(entry));
}

// A tile as the buttons and refusals name it (refusals.js playerTileName): "Okey", "Sahte okey", "Mavi 2".
function tileText(x) {
  if (!x.tile) return "";
  if (x.okey) return tr("refusal.tile.okey");
  return x.tile === "F" ? tr("refusal.tile.fake") : tileName(x.tile);
}

function logText(x) {
  return tr(x.key, { name: seatName(x.seat), tile: tileText(x), points: x.points, value: x.value, hand: x.hand });
}

export function renderLog(t) {
  const ol = $("#event-log");
  patch(ol, ...t.log.slice().reverse().slice(0, 30).map((x) => h("li", { "data-version": x.version }, logText(x))));
}


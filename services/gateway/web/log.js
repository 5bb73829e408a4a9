// The table's event log: one line per event, named by the envelope's kind, kept as seats and tile
// codes so that it follows a language switch.
import { $, announce, h, num } from "./dom.js";
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
  const seat = kind === "handStarted" ? num(e.starter) : num(e.seat);
  const entry = { key, seat, tile: e.tile && e.tile.code ? e.tile.code : "", points: num(e.points), value: num(e.value), hand: num(e.hand), version: num(ev.version) };
  t.log.push(entry);
  if (t.log.length > 60) t.log.shift();
  if (!quiet && (kind === "handEnded" || kind === "handEnded101" || kind === "handVoided")) announce(logText(entry));
}

function logText(x) {
  return tr(x.key, { name: seatName(x.seat), tile: x.tile ? tileName(x.tile) : "", points: x.points, value: x.value, hand: x.hand });
}

export function renderLog(t) {
  const ol = $("#event-log");
  ol.replaceChildren(...t.log.slice().reverse().slice(0, 30).map((x) => h("li", { "data-version": x.version }, logText(x))));
}


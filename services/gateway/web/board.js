// The board around the rack: each seat's panel (name, flags, tiles, score, report), its discard
// pile (the left neighbour's top tile can be taken; my pile takes a dropped tile), and the
// centre (deck, indicator, okey).
import { $, h, listen, num, patch } from "./dom.js";
import { tr } from "./i18n.js";
import { S, is101, isMyTurn, seatName, stage } from "./state.js";
import { hasMethod } from "./api.js";
import { dragTile, tileEl, tileName } from "./rack.js";
import { doDiscard, doDraw, doTake } from "./actions.js";
import { openReport } from "./chat.js";
import { seatBubble } from "./emotes.js";
import { playerTileName } from "./refusals.js";
import { avatarEl, myAvatar } from "./avatars.js";

function positions(count, mine) {
  const base = mine === null ? 0 : mine;
  if (count === 2) return { bottom: base, top: (base + 1) % 2 };
  return { bottom: base, right: (base + 1) % 4, top: (base + 2) % 4, left: (base + 3) % 4 };
}

function leftSeat(v) {
  const n = (v.seats || []).length || 4;
  const t = S.t;
  return t.seat === null ? null : (t.seat + n - 1) % n;
}

function flags(pub, v) {
  const out = [];
  if (pub.declaredPairs) out.push(h("span", { class: "flag pairs", title: tr("table.flag.pairs") }, tr("table.flag.pairs.short")));
  if (pub.turnedToOkey) out.push(h("span", { class: "flag okey", title: tr("table.flag.okey") }, tr("table.flag.okey.short")));
  if (pub.left) out.push(h("span", { class: "flag left", title: tr("table.flag.left") }, tr("table.flag.left.short")));
  else if (pub.autopilot) out.push(h("span", { class: "flag auto", title: tr("table.flag.autopilot") }, tr("table.flag.autopilot.short")));
  // [D-11]: the edge told the table this person has no connection.
  if (pub.disconnected && !pub.left) out.push(h("span", { class: "flag offline", title: tr("table.flag.disconnected") }, tr("table.flag.disconnected.short")));
  if (is101(v)) {
    const o = String(pub.opening || "OPENING_NONE").replace("OPENING_", "");
    if (o === "RUNS" || o === "PAIRS") out.push(h("span", { class: "flag opened" }, tr("table.flag.opened." + o, { n: num(pub.openingValue) })));
    else out.push(h("span", { class: "flag notopened" }, tr("table.flag.notopened")));
  }
  return out.map((f) => { f.setAttribute("aria-label", f.title || f.textContent); return f; });
}

/** The face of the seat's player: the lobby card's (LobbySeat.avatar), mine as last picked. */
function seatFace(seat, playerId) {
  const card = S.t && S.t.card;
  const s = card && (card.seats || []).find((x) => num(x.seat) === seat && x.playerId === playerId);
  return playerId ? avatarEl(myAvatar(playerId, s && s.avatar)) : null;
}

function renderSeat(v, seat, where) {
  const t = S.t;
  const pub = (v.seats || [])[seat] || {};
  const turn = v.phase === "PHASE_PLAYING" && num(v.turn) === seat;
  const name = seatName(seat);
  const panel = h("section", { class: `seat-panel ${turn ? "turn" : ""} ${seat === t.seat ? "me" : ""}`, "aria-label": name, "data-seat": seat, "data-player": pub.playerId || null },
    h("div", { class: "seat-name" }, h("span", { class: "seat-no", "aria-hidden": "true" }, seat + 1), " ", seatFace(seat, pub.playerId), h("strong", {}, name), " ", flags(pub, v)),
    h("div", { class: "seat-meta" },
      tr("table.tiles", { n: num(pub.tiles) }), " · ",
      is101(v) ? tr("table.penalty", { n: num(pub.score) }) : tr("table.score", { n: num(pub.score) }),
      is101(v) && num(pub.penalties) ? ` (+${num(pub.penalties)})` : ""),
    turn ? h("div", { class: "turn-bar", "aria-hidden": "true" }, h("span", { class: "turn-fill" })) : null);
  if (pub.playerId && S.me && pub.playerId !== S.me.id && hasMethod("LobbyService", "ReportPlayer")) {
    panel.append(h("button", { type: "button", class: "link small", onclick: () => openReport(pub.playerId, t.names[seat]) }, tr("chat.report")));
  }
  if ((pub.rack || []).length) {
    panel.append(h("div", { class: "revealed" }, pub.rack.map((x) => tileEl(x, { small: true }))));
  }
  const bubble = seatBubble(pub.playerId); // a quick emote of the seat's player, for a few seconds
  if (bubble) panel.append(bubble);
  return h("div", { class: "seat-area pos-" + where }, panel, renderPile(v, seat));
}

function renderPile(v, seat) {
  const t = S.t;
  const pub = (v.seats || [])[seat] || {};
  const pile = pub.pile || [];
  const top = pile.length ? pile[pile.length - 1] : null;
  const name = seatName(seat);
  const mine = seat === t.seat;
  const side = v.sideTile && num(v.sideTile.id) >= 0 && v.sideTile.code ? v.sideTile : null;
  const takeable = !mine && side && seat === leftSeat(v) && isMyTurn(v);
  const box = h("div", {
    class: `pile ${mine ? "mine dropzone" : ""} ${takeable ? "takeable" : ""}`,
    "aria-label": mine ? tr("table.pile.mine") : tr("table.pile", { name }),
    role: "group",
    "data-pile": seat,
  });
  if (top) {
    if (takeable) {
      // Named as the buttons name it ("Okey"), with the face the tile shows when that differs, so the
      // name holds the visible number (axe: label-content-name-mismatch)
      const named = playerTileName(top.code), shown = tileName(top.code);
      const what = named === shown ? named : `${named} (${shown})`;
      box.append(tileEl(top, { button: true, attrs: { id: "take-side", "data-focus": "take-side", title: `${tr("table.pile.take")}: ${what}` } }));
      listen(box.firstChild, "click", () => doTake());
      box.firstChild.setAttribute("aria-label", `${tr("act.take_discard")}: ${what}`);
    } else box.append(tileEl(top));
  } else box.append(h("span", { class: "pile-empty" }, tr("table.pile.empty")));
  const count = num(pub.pileSize);
  if (count) box.append(h("span", { class: "pile-count", "aria-hidden": "true" }, count));
  if (pile.length > 1) {
    box.append(h("div", { class: "pile-history", "aria-label": tr("table.pile.history") }, pile.slice(0, -1).reverse().slice(0, 20).map((x) => tileEl(x, { small: true }))));
  }
  if (mine) {
    listen(box, "dragover", (e) => { e.preventDefault(); box.classList.add("over"); });
    listen(box, "dragleave", () => box.classList.remove("over"));
    listen(box, "drop", (e) => {
      e.preventDefault();
      box.classList.remove("over");
      const id = dragTile(e);
      if (id !== null) doDiscard(id);
    });
  }
  return box;
}

function renderCenter(v) {
  const canDraw = isMyTurn(v) && stage(v) === "DRAW" && num(v.deckCount) > 0;
  const deck = h("button", {
    type: "button", id: "deck", class: "deck", "data-focus": "deck", disabled: !canDraw,
    "aria-label": tr("table.deck.draw", { n: num(v.deckCount) }), onclick: () => doDraw(),
  }, h("span", { class: "tile back", "aria-hidden": "true" }), h("span", { class: "deck-count" }, tr("table.deck.count", { n: num(v.deckCount) })));
  const ind = v.indicator && v.indicator.code ? v.indicator : null;
  const okey = v.okey && v.okey.code ? v.okey : null;
  return h("div", { class: "center" },
    h("div", { class: "center-item" }, h("span", { class: "cap" }, tr("table.deck")), deck),
    h("figure", { class: "center-item" }, h("figcaption", { class: "cap" }, tr("table.indicator")), ind ? tileEl(ind) : h("span", { class: "tile back" })),
    h("figure", { class: "center-item" }, h("figcaption", { class: "cap" }, tr("table.okey")), okey ? tileEl({ code: okey.code }, { extra: "okey-face" }) : h("span", { class: "tile back" })));
}

export function renderBoard(v) {
  const t = S.t;
  const n = (v.seats || []).length || 4;
  const pos = positions(n, t.seat);
  const board = $("#board");
  board.className = "board seats-" + n + (t.seat === null ? " spectator" : "");
  board.setAttribute("aria-label", tr("table.board"));
  const parts = [];
  for (const where of ["top", "left", "right"]) if (pos[where] !== undefined) parts.push(renderSeat(v, pos[where], where));
  parts.push(renderCenter(v));
  parts.push(renderSeat(v, pos.bottom, "bottom"));
  patch(board, ...parts);
}


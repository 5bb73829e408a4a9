// Sitting down with people (issue 18.2, 18.3): "My tables" (the lobby's ListMyTables: every
// table I sit at that waits or is played, private ones with their invite code and a share
// link), the waiting room of each (its seats filling, by name; fill with bots, cancel or
// leave), joining with an invite code (typed, or the #/join/CODE link), and quick play
// (QuickPlay: the waiting table with the most people at that game and stake, else a new one
// that waits for people). Every sit with a stake asks first (wallet.js).
import { $, h, num, toast, announce } from "./dom.js";
import { tr } from "./i18n.js";
import { S, go, mySeatAt } from "./state.js";
import { api, errText, hasMethod } from "./api.js";
import { confirmStake, quotePot, refreshChips } from "./wallet.js";
import { practiceNote, stakeText, tableLabel } from "./rooms.js";
import { presenceDot, presenceSoon } from "./presence.js";
import { invitePicker } from "./invite.js";
import { avatarEl, myAvatar } from "./avatars.js";

let onChange = () => {}; // the lobby's refresh, set by bindSeating

export const statusName = (s) => String(s || "").replace("LOBBY_TABLE_STATUS_", "");
export const gameName = (g) => String(g || "GAME_OKEY").replace("GAME_", "");

/** The link that opens this page and joins the table with the code. */
export function shareLink(code) {
  return `${location.origin}${location.pathname}#/join/${encodeURIComponent(code)}`;
}

/** My tables from the lobby (S.myTables); a table I waited at that has started opens by itself. */
export async function refreshMyTables() {
  if (!hasMethod("LobbyService", "ListMyTables")) { S.myTables = []; return false; }
  const r = await api("LobbyService", "ListMyTables", {});
  S.myTables = r.tables || [];
  for (const t of S.myTables) {
    const seat = mySeatAt(t);
    if (seat === null) continue;
    const status = statusName(t.status);
    if (status === "WAITING") S.waitingAt.add(t.tableId);
    else if (S.waitingAt.has(t.tableId) && (status === "PLAYING" || status === "STARTING")) {
      S.waitingAt.delete(t.tableId);
      refreshChips();
      go(`#/table/${t.tableId}/${seat}`);
      return true;
    }
  }
  return false;
}

/** One seat of a table card: its number, who sits there (me marked, the others with their
 * presence dot), left or open. */
export function seatLine(s) {
  const mine = S.me && s.playerId === S.me.id;
  const who = s.bot ? tr("lobby.seat.bot") : s.playerId ? (s.displayName || tr("player.deleted")) : tr("lobby.seat.open");
  const dot = s.playerId && !s.bot && !s.left && !mine ? [presenceDot(s.playerId), " "] : [];
  return h("li", { class: s.playerId ? "taken" : s.bot ? "bot" : "open" },
    h("span", { class: "seat-no" }, num(s.seat) + 1), " ", dot, avatarEl(myAvatar(s.playerId, s.avatar)), who, mine ? ` (${tr("table.you")})` : "",
    s.left ? ` (${tr("lobby.seat.left")})` : "");
}

function inviteBox(t) {
  const link = shareLink(t.inviteCode);
  const linkId = "share-" + t.tableId;
  return h("div", { class: "invite" },
    h("p", {}, tr("seating.code"), " ", h("strong", { class: "invite-code", "data-code": t.inviteCode }, t.inviteCode.replace(/(.{4})(?=.)/g, "$1 "))),
    h("label", { for: linkId }, tr("seating.link")),
    h("div", { class: "row" },
      h("input", { id: linkId, class: "share-link", readonly: true, value: link, onfocus: (e) => e.target.select() }),
      h("button", { type: "button", onclick: () => copyLink(link, linkId) }, tr("seating.copy"))));
}

async function copyLink(link, id) {
  try {
    await navigator.clipboard.writeText(link);
    toast(tr("seating.copied"), "info");
  } catch {
    const el = document.getElementById(id);
    if (el) { el.focus(); el.select(); }
    toast(tr("seating.copy.manual"), "info");
  }
}

/** The "My tables" panel: one waiting room (or a way back to the table) per table. */
export function renderMyTables() {
  const panel = $("#my-tables-panel");
  const box = $("#my-tables");
  if (!panel || !box) return;
  const mine = S.myTables || [];
  panel.hidden = !mine.length;
  box.replaceChildren();
  for (const t of mine) {
    const id = t.tableId;
    const status = statusName(t.status);
    const seat = mySeatAt(t);
    const people = (t.seats || []).filter((s) => s.playerId && !s.left).length;
    const creator = S.me && t.creatorId === S.me.id;
    const actions = h("div", { class: "card-actions row" });
    if (status !== "WAITING") {
      actions.append(h("button", { type: "button", class: "primary", onclick: () => go(`#/table/${id}/${seat === null ? 0 : seat}`) }, tr("lobby.open")));
    } else {
      if (creator) actions.append(h("button", { type: "button", class: "primary", onclick: () => fillWithBots(id) }, tr("lobby.fill")));
      const alone = people <= 1;
      actions.append(h("button", { type: "button", class: alone && creator ? "danger" : "", onclick: () => leaveWaiting(id, alone && creator) },
        tr(alone && creator ? "seating.cancel" : "lobby.leave")));
    }
    const titleId = "mine-" + id;
    box.append(h("article", { class: "card mine", "aria-labelledby": titleId, dataset: { table: id } },
      h("header", { class: "row spread" },
        h("h4", { id: titleId }, tableLabel(t), " · ", tr("game." + gameName(t.game)), t.visibility === "TABLE_VISIBILITY_PRIVATE" ? ` · ${tr("lobby.private")}` : ""),
        h("span", { class: "badge status-" + status.toLowerCase() }, tr("status." + status))),
      h("p", { class: "card-meta" },
        num(t.stake) ? tr("lobby.stake", { stake: num(t.stake) }) : tr("seating.nostake"),
        " · ", status === "WAITING" ? tr("seating.waiting", { taken: num(t.seatsTaken), count: num(t.seatCount) }) : tr("lobby.seats", { taken: num(t.seatsTaken), count: num(t.seatCount) })),
      h("ul", { class: "card-seats waiting-seats", "aria-label": tr("seating.seats") }, (t.seats || []).map(seatLine)),
      practiceNote(t),
      t.inviteCode && status === "WAITING" ? inviteBox(t) : null,
      status === "WAITING" && num(t.seatsTaken) < num(t.seatCount) ? invitePicker(t) : null,
      actions));
  }
  presenceSoon();
}

export async function fillWithBots(id) {
  try {
    const r = await api("LobbyService", "FillWithBots", { tableId: id });
    S.waitingAt.delete(id);
    refreshChips();
    const seat = mySeatAt(r.table || {});
    go(`#/table/${id}/${seat === null ? 0 : seat}`);
  } catch (e) { toast(errText(e)); onChange(); }
}

export async function leaveWaiting(id, cancel) {
  try {
    await api("LobbyService", "LeaveTable", { tableId: id });
    S.waitingAt.delete(id);
    announce(tr(cancel ? "seating.cancelled" : "seating.left"));
  } catch (e) { toast(errText(e)); }
  onChange();
}

/** After a sit: to the table when the match started, else the waiting room shows it. */
function seated(table, seat, started) {
  refreshChips();
  const status = statusName(table && table.status);
  if (started || status === "PLAYING" || status === "STARTING") { go(`#/table/${table.tableId}/${num(seat)}`); return; }
  S.waitingAt.add(table.tableId);
  announce(tr("seating.seated", { taken: num(table.seatsTaken), count: num(table.seatCount) }));
  onChange();
}

/** A waiting table's card quote (the lobby's: what the pot holds once people take every seat). */
function waitingQuote(card) {
  return card.quote ? { ...card.quote, full: statusName(card.status) === "WAITING" } : null;
}

/** Sit at a listed table (its card says the stake: asked first); a private one's card carries
 * its invite code when an invitation brought it. */
export async function joinListed(t) {
  if (!(await confirmStake(t.stake, tr("game." + gameName(t.game)), waitingQuote(t)))) return;
  try {
    const body = { tableId: t.tableId };
    if (t.inviteCode) body.inviteCode = t.inviteCode;
    const r = await api("LobbyService", "JoinTable", body);
    seated(r.table, r.seat, r.started);
  } catch (e) { toast(errText(e)); onChange(); }
}

/** Sit at the free seat of a friend's waiting table (JoinFriend; its card says the stake: asked first). */
export async function joinFriend(friend) {
  const t = friend.table || {};
  if (!(await confirmStake(t.stake, tr("game." + gameName(t.game)), waitingQuote(t)))) return;
  try {
    const r = await api("LobbyService", "JoinFriend", { playerId: friend.playerId });
    seated(r.table, r.seat, r.started);
  } catch (e) { toast(errText(e)); onChange(); }
}

/** Join a private table by its invite code: its card first (the stake to confirm), then the seat. */
export async function joinByCode(raw) {
  const code = String(raw || "").toUpperCase().replace(/[^A-Z0-9]/g, "");
  const err = $("#code-error");
  if (err) err.hidden = true;
  if (!code) return;
  try {
    const card = (await api("LobbyService", "GetTableCard", { inviteCode: code })).table;
    const seat = mySeatAt(card);
    if (seat !== null) { seated(card, seat, false); return; }
    if (statusName(card.status) !== "WAITING") throw { reason: "NOT_WAITING", message: "" };
    if (!(await confirmStake(card.stake, tr("seating.joinwhat", { game: tr("game." + gameName(card.game)), taken: num(card.seatsTaken), count: num(card.seatCount) }), waitingQuote(card)))) return;
    const r = await api("LobbyService", "JoinTable", { tableId: card.tableId, inviteCode: code });
    if ($("#code-input")) $("#code-input").value = "";
    seated(r.table, r.seat, r.started);
  } catch (e) {
    const text = e.reason === "TABLE_NOT_FOUND" ? tr("seating.badcode") : errText(e);
    if (err) { err.textContent = text; err.hidden = false; } else toast(text);
  }
}

/** No lobby: open the table on the table service directly, the player in seat 0, bots elsewhere (no chips). */
export async function openWithoutLobby(options) {
  const count = options.game === "GAME_OKEY101" ? num(options.seats || 4) : 4;
  const seats = [{ playerId: S.me.id }];
  for (let i = 1; i < count; i++) seats.push({ playerId: "" });
  const r = await api("TableService", "CreateTable", { options, seats });
  go(`#/table/${r.tableId}/0`);
}

/** Quick play at the chosen game and stake (asked first); the stake box goes back to none after. */
export async function quickPlay() {
  const game = $("#quick-game").value;
  const stake = num($("#quick-stake").value);
  const btn = $("#quick-play");
  if (S.lobbyDown || !hasMethod("LobbyService", "QuickPlay")) { // no lobby, no people and no chips: bots
    btn.disabled = true;
    try { await openWithoutLobby({ game: "GAME_" + game }); } catch (e) { toast(errText(e)); } finally { btn.disabled = false; }
    return;
  }
  const quote = await quotePot({ game: "GAME_" + game, stake }, false);
  if (!(await confirmStake(stake, tr("game." + game), quote && { ...quote, full: true }))) return;
  btn.disabled = true;
  try {
    const r = await api("LobbyService", "QuickPlay", { options: { game: "GAME_" + game, stake } });
    $("#quick-stake").value = "0";
    if (r.returnedToSeat === "IN_PLAY") { offerToLeave(r, game, stake); return; }
    quickSeated(r);
  } catch (e) { toast(errText(e)); } finally { btn.disabled = false; }
}

function quickSeated(r) {
  const counts = { table: tableLabel(r.table), taken: num(r.table.seatsTaken), count: num(r.table.seatCount) };
  const waiting = statusName(r.table.status) === "WAITING";
  // The lobby's word that the table is practice (alone there: started with bots it is unranked),
  // said as the player lands, before any match starts there (its card says it too).
  const practice = r.table.practice ? " " + tr(waiting ? "practice.waiting" : "practice.card") : "";
  if (r.opened) toast(tr("seating.quick.opened") + practice, "info");
  else if (r.returnedToSeat === "WAITING") toast(tr("seating.quick.waiting", counts) + practice, "info");
  else if (waiting) toast(tr("seating.quick.found", counts) + practice, "info");
  else if (practice) toast(practice.trim(), "info");
  seated(r.table, r.seat, r.started);
}

// Quick play took the player back to a match they still play (the lobby's returned_to_seat),
// not the game and stake asked: say so, and offer to leave that seat and quick-play as asked.
function offerToLeave(r, game, stake) {
  const dialog = $("#quick-return-dialog");
  const back = () => seated(r.table, r.seat, true);
  if (!dialog || typeof dialog.showModal !== "function") { back(); return; }
  $("#quick-return-text").textContent = tr("quick.return.text", {
    table: tableLabel(r.table), game: tr("game." + gameName(r.table.game)), stake: stakeText(r.table.stake),
  });
  const done = (then) => {
    $("#quick-return-back").onclick = null;
    $("#quick-return-leave").onclick = null;
    dialog.onclose = null;
    if (dialog.open) dialog.close();
    then();
  };
  $("#quick-return-back").onclick = () => done(back);
  $("#quick-return-leave").onclick = () => done(() => leaveThenQuickPlay(r.table.tableId, game, stake));
  dialog.onclose = () => done(() => onChange()); // Escape: stay in the lobby, seated as before
  dialog.showModal();
  $("#quick-return-back").focus();
}

async function leaveThenQuickPlay(tableId, game, stake) {
  const btn = $("#quick-play");
  btn.disabled = true;
  try {
    await api("LobbyService", "LeaveTable", { tableId });
    announce(tr("quick.return.left"));
    const r = await api("LobbyService", "QuickPlay", { options: { game: "GAME_" + game, stake } });
    if (r.returnedToSeat === "IN_PLAY") { offerToLeave(r, game, stake); return; } // another match still on
    quickSeated(r);
  } catch (e) { toast(errText(e)); onChange(); } finally { btn.disabled = false; }
}

export function bindSeating(refresh) {
  onChange = refresh;
  $("#code-form").addEventListener("submit", (e) => { e.preventDefault(); joinByCode($("#code-input").value); });
  $("#quick-play").addEventListener("click", quickPlay);
}

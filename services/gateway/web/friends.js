// The friends panel (issue 44.7), a drawer the top bar opens on every screen: my friends with a
// presence dot each and the table they sit at ("Katıl" while it waits with a free seat, "İzle"
// once it plays), the requests to me (accept, decline) and from me (take back), the players I
// blocked, and a search by name (FindPlayers, from 2 letters, debounced) to ask someone. Removing
// a friend, blocking and unblocking ask first. The limits shown ("12/200") are ListFriends'.
import { $, h, num } from "./dom.js";
import { tr } from "./i18n.js";
import { S, go, mySeatAt } from "./state.js";
import { api, errText, hasMethod } from "./api.js";
import { F, friendCall, hasFriends, loadFriends, onFriendsChange } from "./social.js";
import { presenceDot, presenceSoon } from "./presence.js";
import { gameName, joinFriend, statusName } from "./seating.js";
import { tableLabel } from "./rooms.js";
import { avatarEl } from "./avatars.js";

export const SEARCH_MIN = 2; // FindPlayers' shortest prefix
const SEARCH_DELAY_MS = 300;
// While the panel is open the list is asked again now and then: a friend's table changes with
// no notification (they sit down, their match starts).
export const FRIENDS_POLL_MS = 15000;
let pollTimer = null;
let found = []; // the last search's players (FoundPlayer)
let searchTimer = null;
let searchSeq = 0;

const panel = () => $("#friends-panel");
export const friendsOpen = () => !panel().hidden;

function showError(text) {
  const el = $("#friends-error");
  el.textContent = text || "";
  el.hidden = !text;
}

// Ask first (remove, block, unblock): the confirmation dialog, true when confirmed.
function askConfirm(text, ok) {
  const dialog = $("#confirm-dialog");
  $("#confirm-text").textContent = text;
  $("#confirm-ok").textContent = ok;
  dialog.returnValue = "";
  return new Promise((done) => {
    dialog.addEventListener("close", () => done(dialog.returnValue === "ok"), { once: true });
    dialog.showModal();
  });
}

// One friend call from the panel: its refusal shown in the panel, in the page's language.
async function act(method, playerId, after) {
  showError("");
  try {
    const r = await friendCall(method, playerId);
    if (after) after(r);
    return r;
  } catch (e) {
    showError(errText(e));
    return null;
  }
}

async function confirmThen(key, name, ok, method, playerId) {
  if (await askConfirm(tr(key, { name }), tr(ok))) await act(method, playerId);
}

function button(label, onclick, extra = {}) {
  return h("button", { type: "button", class: "small", onclick, ...extra }, label);
}

// ------------------------------------------------------------------ the rows

/** A friend's table as the row says it, and the way in: "Katıl", "İzle" or back to my seat. */
function friendTable(f) {
  const t = f.table;
  if (!t || !t.tableId) return [];
  const status = statusName(t.status);
  const seats = tr("lobby.seats", { taken: num(t.seatsTaken), count: num(t.seatCount) });
  const line = h("span", { class: "person-table" },
    `${tableLabel(t)} · ${tr("game." + gameName(t.game))} · ${tr("status." + status)} · ${seats}`);
  const mine = mySeatAt(t);
  const out = [line];
  if (mine !== null && status !== "WAITING") {
    out.push(button(tr("lobby.open"), () => { closeFriends(); go(`#/table/${t.tableId}/${mine}`); }));
  } else if (mine === null && status === "WAITING" && num(t.seatsTaken) < num(t.seatCount) && t.visibility !== "TABLE_VISIBILITY_PRIVATE") {
    out.push(button(tr("friends.join"), () => joinFriend(f), { class: "small primary", "aria-label": tr("friends.join.who", { name: f.displayName }) }));
  } else if (mine === null && (status === "PLAYING" || status === "STARTING")) {
    const watch = () => { S.watchCard = t; closeFriends(); go(`#/table/${t.tableId}`); };
    out.push(button(tr("friends.watch"), watch, { "aria-label": tr("friends.watch.who", { name: f.displayName }) }));
  }
  return out;
}

function friendRow(f) {
  return h("li", { class: "person", dataset: { player: f.playerId } },
    presenceDot(f.playerId), " ", avatarEl(f.avatar), h("span", { class: "person-name" }, f.displayName),
    h("span", { class: "person-actions row wrap" },
      friendTable(f),
      button(tr("friends.remove"), () => confirmThen("friends.remove.confirm", f.displayName, "friends.remove", "RemoveFriend", f.playerId), { class: "small link" }),
      button(tr("friends.block"), () => confirmThen("friends.block.confirm", f.displayName, "friends.block", "BlockPlayer", f.playerId), { class: "small link" })));
}

function incomingRow(r) {
  return h("li", { class: "person", dataset: { player: r.playerId } },
    avatarEl(r.avatar), h("span", { class: "person-name" }, r.displayName),
    h("span", { class: "person-actions row wrap" },
      button(tr("friends.accept"), () => act("AcceptFriendRequest", r.playerId), { class: "small primary" }),
      button(tr("friends.decline"), () => act("DeclineFriendRequest", r.playerId)),
      button(tr("friends.block"), () => confirmThen("friends.block.confirm", r.displayName, "friends.block", "BlockPlayer", r.playerId), { class: "small link" })));
}

function outgoingRow(r) {
  return h("li", { class: "person", dataset: { player: r.playerId } },
    avatarEl(r.avatar), h("span", { class: "person-name" }, r.displayName),
    h("span", { class: "person-actions row wrap" }, button(tr("friends.cancel"), () => act("CancelFriendRequest", r.playerId))));
}

function blockedRow(b) {
  return h("li", { class: "person", dataset: { player: b.playerId } },
    h("span", { class: "person-name" }, b.displayName),
    h("span", { class: "person-actions row wrap" },
      button(tr("friends.unblock"), () => confirmThen("friends.unblock.confirm", b.displayName, "friends.unblock", "UnblockPlayer", b.playerId))));
}

function foundRow(p) {
  const state = p.friend ? "friends.found.friend" : p.requestPending ? "friends.found.pending" : "";
  const ask = () => act("SendFriendRequest", p.playerId, (r) => {
    if (r && r.accepted) p.friend = true; else p.requestPending = true; // the lobby's answer
    renderFound();
  });
  return h("li", { class: "person", dataset: { player: p.playerId } },
    avatarEl(p.avatar), h("span", { class: "person-name" }, p.displayName),
    h("span", { class: "person-actions row wrap" },
      state ? h("span", { class: "help" }, tr(state))
        : button(tr("friends.add"), ask, { class: "small primary", "aria-label": tr("friends.add.who", { name: p.displayName }) }),
      button(tr("friends.block"), () => confirmThen("friends.block.confirm", p.displayName, "friends.block", "BlockPlayer", p.playerId), { class: "small link" })));
}

// ------------------------------------------------------------------ drawing the panel

function list(id, items, row, empty) {
  const el = $(id);
  el.replaceChildren(...(items.length ? items.map(row) : empty ? [h("li", { class: "empty" }, tr(empty))] : []));
}

function renderFound() {
  const q = $("#friends-search").value.trim();
  list("#friends-found", found, foundRow, q.length >= SEARCH_MIN ? "friends.found.none" : "");
}

/** The friends button's count (requests waiting for me) and, when open, the panel. */
export function renderFriends() {
  const btn = $("#friends-open");
  btn.hidden = !S.token || !hasFriends();
  const waiting = F.incoming.length;
  $("#friends-badge").textContent = waiting ? String(waiting) : "";
  $("#friends-badge").hidden = !waiting;
  btn.setAttribute("aria-label", waiting ? tr("friends.open.requests", { n: waiting }) : tr("friends.open"));
  if (!friendsOpen()) return;
  $("#friends-limit").textContent = F.friendsMax ? `${F.friends.length}/${F.friendsMax}` : String(F.friends.length);
  $("#friends-pending-limit").textContent = F.pendingMax ? `${F.outgoing.length}/${F.pendingMax}` : "";
  list("#friends-list", F.friends, friendRow, F.loaded ? "friends.none" : "friends.loading");
  list("#friends-incoming", F.incoming, incomingRow, "");
  $("#friends-incoming-box").hidden = !F.incoming.length;
  list("#friends-outgoing", F.outgoing, outgoingRow, "");
  $("#friends-outgoing-box").hidden = !F.outgoing.length;
  list("#friends-blocked", F.blocked, blockedRow, "");
  $("#friends-blocked-box").hidden = !F.blocked.length;
  $("#friends-blocked-count").textContent = `(${F.blocked.length})`;
  renderFound();
  presenceSoon();
}

// ------------------------------------------------------------------ searching

async function search() {
  const q = $("#friends-search").value.trim();
  const seq = ++searchSeq;
  if (q.length < SEARCH_MIN || !hasMethod("LobbyService", "FindPlayers")) { found = []; renderFound(); return; }
  try {
    const r = await api("LobbyService", "FindPlayers", { prefix: q });
    if (seq !== searchSeq) return; // a later search is on its way
    found = r.players || [];
    showError("");
  } catch (e) {
    if (seq !== searchSeq) return;
    found = [];
    showError(errText(e));
  }
  renderFound();
}

// ------------------------------------------------------------------ opening and closing

export function openFriends() {
  if (!S.token || !hasFriends()) return;
  const other = $("#notif-panel");
  if (other && !other.hidden) $("#notif-open").click(); // one drawer at a time
  panel().hidden = false;
  $("#friends-open").setAttribute("aria-expanded", "true");
  showError("");
  renderFriends();
  loadFriends().catch((e) => showError(errText(e)));
  clearInterval(pollTimer);
  pollTimer = setInterval(() => { if (!document.hidden) loadFriends().catch(() => {}); }, FRIENDS_POLL_MS);
  $("#friends-search").focus();
}

export function closeFriends() {
  clearInterval(pollTimer);
  if (panel().hidden) return;
  panel().hidden = true;
  $("#friends-open").setAttribute("aria-expanded", "false");
  if (panel().contains(document.activeElement)) $("#friends-open").focus();
}

export function bindFriends() {
  $("#friends-open").addEventListener("click", () => (friendsOpen() ? closeFriends() : openFriends()));
  $("#friends-close").addEventListener("click", closeFriends);
  panel().addEventListener("keydown", (e) => {
    if (e.key === "Escape" && !$("dialog[open]")) { e.preventDefault(); closeFriends(); }
  });
  $("#friends-search-form").addEventListener("submit", (e) => { e.preventDefault(); clearTimeout(searchTimer); search(); });
  $("#friends-search").addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(search, SEARCH_DELAY_MS);
  });
  onFriendsChange(renderFriends);
}

/** Signed out: the panel closes and forgets the search. */
export function resetFriendsPanel() {
  closeFriends();
  found = [];
  $("#friends-search").value = "";
  renderFriends();
}

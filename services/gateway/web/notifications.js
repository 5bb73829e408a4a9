// Notifications (issue 44.7): while signed in the page keeps one WatchNotifications stream (the
// list first with ListNotifications, then the stream from its newest id on; reconnecting from the
// last id seen, with backoff; closed on sign-out). Each new one shows a toast with what can be
// done with it (a friend request: accept; an invitation "X seni masasına çağırıyor": join; a
// table starting: go to it; a tournament's table, "Turnuva masan hazır": open it), and the bell
// in the top bar holds the unread count (the lobby's) and the list, marked read when opened. An
// expired invitation is shown as such, not joinable.
import { $, announce, h, num, toast } from "./dom.js";
import { hasString, tr } from "./i18n.js";
import { S, go, mySeatAt } from "./state.js";
import { api, errText, hasMethod, openStream, unauthorized } from "./api.js";
import { F, friendCall, loadFriends } from "./social.js";
import { gameName, joinListed } from "./seating.js";
import { tableLabel } from "./rooms.js";
import { openMyTable } from "./tournaments.js";

export const TOAST_MS = 12000; // how long a notification's toast stays
const KIND = "NOTIFICATION_KIND_";
const N = { on: false, ws: null, timer: null, attempts: 0, openedAt: 0, after: 0, list: [], unread: 0 };

const kindOf = (n) => String(n.kind || "").replace(KIND, "");
const expired = (n) => !!n.expired || (n.expiresAt && Date.parse(n.expiresAt) <= Date.now());
// A table starting that is the caller's table of a tournament's round (issue 45.3).
const tournamentTable = (n) => kindOf(n) === "TABLE_STARTING" && !!(n.table && n.table.tournamentId);

/** The notification as a sentence in the page's language. */
function text(n) {
  const key = "notif." + kindOf(n) + (tournamentTable(n) ? ".tournament" : "");
  return tr(hasString(key) ? key : "notif.other", { name: n.fromDisplayName || tr("player.deleted") });
}

/** The table a notification carries, as a line: "Masa 482 · Okey · 1/4". */
function tableLine(n) {
  const t = n.table;
  if (!t || !t.tableId) return null;
  return h("span", { class: "notif-table" },
    `${tableLabel(t)} · ${tr("game." + gameName(t.game))} · ${tr("lobby.seats", { taken: num(t.seatsTaken), count: num(t.seatCount) })}`);
}

// ------------------------------------------------------------------ what can be done with one

/** Sit at the table of an invitation: JoinTable with its table and, for a private one, its code. */
async function joinInvited(n) {
  if ($("#screen-lobby").hidden) go("#/lobby"); // the waiting room is the lobby's
  await joinListed(n.table);
}

async function accept(n) {
  try {
    await friendCall("AcceptFriendRequest", n.fromPlayerId);
    announce(tr("notif.accepted", { name: n.fromDisplayName }));
  } catch (e) { toast(errText(e)); }
}

/** The buttons of a notification (in a toast, ``fresh``, or the list); ``done`` after one is used. */
function actions(n, done, fresh) {
  const kind = kindOf(n);
  const t = n.table || {};
  const out = [];
  // In the list, a request answered already (the lobby's list says) is not offered again.
  const waiting = fresh || !F.loaded || F.incoming.some((r) => r.playerId === n.fromPlayerId);
  if (kind === "FRIEND_REQUEST" && waiting) {
    out.push(h("button", { type: "button", class: "small primary", onclick: () => { done(); accept(n); } }, tr("friends.accept")));
  } else if (kind === "TABLE_INVITE" && !expired(n)) {
    out.push(h("button", { type: "button", class: "small primary", onclick: () => { done(); joinInvited(n); } }, tr("friends.join")));
  } else if (tournamentTable(n) && t.tableId) {
    out.push(h("button", { type: "button", class: "small primary", onclick: () => { done(); openMyTable(t.tableId, mySeatAt(t)); } }, tr("tn.myTable")));
  } else if (kind === "TABLE_STARTING" && t.tableId) {
    const seat = mySeatAt(t);
    out.push(h("button", { type: "button", class: "small primary", onclick: () => { done(); go(`#/table/${t.tableId}${seat === null ? "" : "/" + seat}`); } }, tr("notif.goTable")));
  }
  return out;
}

// ------------------------------------------------------------------ toasts

function showToast(n) {
  const box = $("#notices");
  const el = h("div", { class: "notice-toast kind-" + kindOf(n).toLowerCase() + (tournamentTable(n) ? " tournament" : ""), role: "status",
    dataset: { notification: num(n.notificationId), tournament: tournamentTable(n) ? n.table.tournamentId : "" } });
  const close = () => { clearTimeout(timer); el.remove(); };
  const timer = setTimeout(close, TOAST_MS);
  el.append(...[
    h("p", { class: "notif-text" }, text(n)),
    tableLine(n),
    h("div", { class: "row wrap" }, actions(n, close, true),
      h("button", { type: "button", class: "small link", onclick: close }, tr("notif.dismiss"))),
  ].filter(Boolean));
  box.append(el);
  while (box.childElementCount > 4) box.firstElementChild.remove();
}

// ------------------------------------------------------------------ the bell and its list

function renderBell() {
  const btn = $("#notif-open");
  btn.hidden = !S.token || !hasMethod("LobbyService", "ListNotifications");
  const badge = $("#notif-badge");
  badge.textContent = N.unread ? String(N.unread) : "";
  badge.hidden = !N.unread;
  btn.setAttribute("aria-label", N.unread ? tr("notif.open.unread", { n: N.unread }) : tr("notif.open"));
}

function itemEl(n) {
  const old = expired(n) && kindOf(n) === "TABLE_INVITE";
  return h("li", { class: "notif" + (n.read ? "" : " unread") + (old ? " expired" : ""), dataset: { notification: num(n.notificationId) } },
    h("p", { class: "notif-text" }, text(n)),
    tableLine(n),
    old ? h("span", { class: "badge expired" }, tr("notif.expired")) : null,
    h("div", { class: "row wrap" }, actions(n, () => {}, false)));
}

export function renderNotifications() {
  renderBell();
  const panel = $("#notif-panel");
  if (panel.hidden) return;
  const items = N.list.map(itemEl);
  $("#notif-list").replaceChildren(...(items.length ? items : [h("li", { class: "empty" }, tr("notif.none"))]));
}

async function markRead() {
  const newest = N.list.length ? num(N.list[0].notificationId) : 0;
  if (!N.unread || !newest) return;
  try {
    const r = await api("LobbyService", "MarkNotificationsRead", { upToNotificationId: newest });
    N.unread = num(r.unread);
    for (const n of N.list) if (num(n.notificationId) <= newest) n.read = true;
  } catch { /* still unread */ }
  renderBell();
}

async function openList() {
  const other = $("#friends-panel");
  if (!other.hidden) $("#friends-close").click(); // one drawer at a time
  $("#notif-panel").hidden = false;
  $("#notif-open").setAttribute("aria-expanded", "true");
  await loadList();
  renderNotifications();
  $("#notif-close").focus();
  markRead();
}

function closeList() {
  const panel = $("#notif-panel");
  if (panel.hidden) return;
  panel.hidden = true;
  $("#notif-open").setAttribute("aria-expanded", "false");
  if (panel.contains(document.activeElement)) $("#notif-open").focus();
}

// ------------------------------------------------------------------ the stream

async function loadList() {
  if (!hasMethod("LobbyService", "ListNotifications")) return;
  try {
    const r = await api("LobbyService", "ListNotifications", { limit: 50 });
    N.list = r.notifications || [];
    N.unread = num(r.unread);
    for (const n of N.list) N.after = Math.max(N.after, num(n.notificationId));
  } catch { /* the bell stays as it was */ }
  renderNotifications();
}

function arrived(n, unread) {
  const id = num(n.notificationId);
  if (id <= N.after) return; // seen already (a reconnect's repeat)
  N.after = id;
  N.list = [n, ...N.list.filter((x) => num(x.notificationId) !== id)].slice(0, 100);
  N.unread = num(unread);
  const kind = kindOf(n);
  if (kind === "FRIEND_REQUEST" || kind === "FRIEND_ACCEPTED") loadFriends().catch(() => {});
  showToast(n);
  renderNotifications();
}

function connect() {
  if (!N.on || !S.token) return;
  let ws;
  try { ws = openStream("LobbyService", "WatchNotifications", { afterNotificationId: String(N.after) }); } catch { retry(); return; }
  N.ws = ws;
  N.openedAt = Date.now();
  ws.onmessage = (m) => {
    if (N.ws !== ws) return;
    let d;
    try { d = JSON.parse(m.data); } catch { return; }
    if (d.error) {
      if (d.error.reason === "BAD_TOKEN" || d.error.code === "UNAUTHENTICATED") { N.ws = null; ws.close(); renew(); }
      return;
    }
    if (d.notification) arrived(d.notification, d.unread);
    else { N.unread = num(d.unread); renderBell(); } // the stream's first message: the unread count alone
  };
  ws.onclose = (ev) => {
    if (N.ws !== ws) return;
    N.ws = null;
    if (!N.on) return;
    if (ev.code === 4401) { renew(); return; }
    if (Date.now() - N.openedAt > 10000) N.attempts = 0; // it was up a while: start the backoff again
    retry();
  };
}

async function renew() { if (await unauthorized()) retry(); }

function retry() {
  clearTimeout(N.timer);
  const delay = Math.min(30000, 500 * 2 ** N.attempts);
  N.attempts++;
  N.timer = setTimeout(connect, delay);
}

/** Signed in: the list, then the stream (once; a second call does nothing). */
export async function startNotifications() {
  if (N.on || !S.token || !hasMethod("LobbyService", "WatchNotifications")) { renderBell(); return; }
  N.on = true;
  loadFriends().catch(() => {}); // the friends button's count of requests waiting
  await loadList();
  if (N.on) connect();
}

/** Signed out: the stream closes, and nothing of the last player's list stays. */
export function stopNotifications() {
  N.on = false;
  clearTimeout(N.timer);
  const ws = N.ws;
  N.ws = null;
  if (ws) { try { ws.close(1000); } catch { /* closed already */ } }
  Object.assign(N, { attempts: 0, after: 0, list: [], unread: 0 });
  closeList();
  $("#notices").replaceChildren();
  renderBell();
}

/** Is the stream open (for tests: a notification sent now comes live)? */
export function notificationsLive() { return !!(N.ws && N.ws.readyState === WebSocket.OPEN); }

export function bindNotifications() {
  $("#notif-open").addEventListener("click", () => ($("#notif-panel").hidden ? openList() : closeList()));
  $("#notif-close").addEventListener("click", closeList);
  $("#notif-panel").addEventListener("keydown", (e) => { if (e.key === "Escape") { e.preventDefault(); closeList(); } });
}

// "Davet et" in a waiting room (issue 44.7): while a table I sit at waits with a free seat, a
// disclosure lists my friends (online ones first, each with their presence dot) and invites one
// (LobbyService.InviteToTable: the friend gets a TABLE_INVITE notification). The lobby decides
// who may be invited (NOT_FRIENDS, ALREADY_SEATED, TOO_MANY_INVITES ...); its refusal is shown.
import { h } from "./dom.js";
import { tr } from "./i18n.js";
import { api, errText, hasMethod } from "./api.js";
import { F, hasFriends, loadFriends } from "./social.js";
import { presenceDot, presenceOf, presenceSoon } from "./presence.js";

const open = new Set(); // tables whose picker is open: it stays open through the lobby's redraws
const invited = new Set(); // "<table>:<player>" invited from this page
const notes = new Map(); // table -> the last refusal's text
const RANK = { ONLINE: 0, AT_TABLE: 1, AWAY: 2, OFFLINE: 3 };

function rank(f) { const r = RANK[presenceOf(f.playerId)]; return r === undefined ? 4 : r; }

async function invite(t, f, list) {
  notes.delete(t.tableId);
  try {
    await api("LobbyService", "InviteToTable", { tableId: t.tableId, playerId: f.playerId });
    invited.add(`${t.tableId}:${f.playerId}`);
  } catch (e) {
    notes.set(t.tableId, errText(e));
  }
  fill(list, t);
}

function fill(list, t) {
  const seated = new Set((t.seats || []).map((s) => s.playerId).filter(Boolean));
  const friends = F.friends.filter((f) => !seated.has(f.playerId)).sort((a, b) => rank(a) - rank(b));
  const note = notes.get(t.tableId);
  list.replaceChildren(
    note ? h("p", { class: "error", role: "alert" }, note) : null,
    friends.length ? null : h("p", { class: "help" }, tr(F.loaded ? "invite.nofriends" : "friends.loading")),
    h("ul", { class: "people" }, friends.map((f) => {
      const done = invited.has(`${t.tableId}:${f.playerId}`);
      return h("li", { class: "person", dataset: { player: f.playerId } },
        presenceDot(f.playerId), " ", h("span", { class: "person-name" }, f.displayName),
        h("button", {
          type: "button", class: "small", disabled: done, "aria-label": tr("invite.who", { name: f.displayName }),
          onclick: () => invite(t, f, list),
        }, tr(done ? "invite.sent" : "invite.go")));
    })));
  presenceSoon();
}

/** The waiting room's "invite a friend" disclosure (null when the lobby has no friends). */
export function invitePicker(t) {
  if (!hasFriends() || !hasMethod("LobbyService", "InviteToTable")) return null;
  const id = t.tableId;
  const list = h("div", { class: "invite-list" });
  const box = h("details", { class: "invite-friends", dataset: { invite: id } },
    h("summary", {}, tr("invite.open")), list);
  box.open = open.has(id);
  if (box.open) fill(list, t);
  box.addEventListener("toggle", () => {
    if (!box.open) { open.delete(id); return; }
    open.add(id);
    fill(list, t);
    loadFriends().then(() => { if (box.isConnected) fill(list, t); }).catch(() => {});
  });
  return box;
}

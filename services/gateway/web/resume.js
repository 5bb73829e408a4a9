// Back to the table: opening the site (no #/... in the address) while seated at a match being
// played goes to that table, not the lobby [issue 18.9]. The table is the one this browser last
// sat at (kept in local storage, checked with the table service's GetView that the seat is still
// the player's and the match still being played), or else one the lobby lists with the player in
// it and in play (ListTables). The lobby button (#/lobby) still shows the lobby.
import { num, store } from "./dom.js";
import { S, mySeatAt } from "./state.js";
import { api, hasMethod } from "./api.js";

const KEY = "okey.current";

/** Remember the open table when the player sits at it (called after a table is entered). */
export function rememberTable() {
  const t = S.t;
  if (!t || t.seat === null || !t.view) return;
  if (t.view.phase === "PHASE_MATCH_OVER") { forgetTable(); return; }
  store.set(KEY, JSON.stringify({ id: t.id, seat: t.seat, player: S.me ? S.me.id : "" }));
}

/** Forget it (the player left the seat, or the match is over). */
export function forgetTable() { store.del(KEY); }

function inPlay(view, seat) {
  const pub = (view.seats || [])[seat] || {};
  return view.phase !== "PHASE_MATCH_OVER" && !pub.left;
}

async function remembered() {
  let known = null;
  try { known = JSON.parse(store.get(KEY) || "null"); } catch { known = null; }
  if (!known || !known.id || typeof known.seat !== "number") return null;
  if (known.player && S.me && known.player !== S.me.id) { forgetTable(); return null; }
  try {
    const r = await api("TableService", "GetView", { tableId: known.id, seat: known.seat });
    if (r.view && inPlay(r.view, known.seat)) return `#/table/${known.id}/${known.seat}`;
  } catch { /* not this player's seat any more, or no such table */ }
  forgetTable();
  return null;
}

async function listed() {
  if (S.lobbyDown || !hasMethod("LobbyService", "ListTables")) return null;
  try {
    const r = await api("LobbyService", "ListTables", { includePlaying: true, pageSize: 100 });
    for (const t of r.tables || []) {
      const seat = mySeatAt(t);
      if (seat !== null && String(t.status || "").endsWith("PLAYING")) return `#/table/${t.tableId}/${num(seat)}`;
    }
  } catch { /* the lobby is optional */ }
  return null;
}

/** The address of the table the player is seated at in a match being played, or null. */
export async function currentTable() {
  return (await remembered()) || (await listed());
}

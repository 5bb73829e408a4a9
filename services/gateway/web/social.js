// The friends list as the lobby keeps it (issue 44.3): ListFriends' friends (each with the table
// they sit at), the requests both ways, the blocked players and the lobby's limits, kept in F, and
// the calls that change it. Every change asks for the list again, so what the panel draws is
// always the lobby's answer; whoever draws it listens with onFriendsChange().
import { num } from "./dom.js";
import { S } from "./state.js";
import { api, hasMethod } from "./api.js";

export const F = {
  loaded: false, friends: [], incoming: [], outgoing: [], blocked: [], friendsMax: 0, pendingMax: 0,
};

const listeners = new Set();
let loading = null;

/** Call ``fn`` after each answer of ListFriends. */
export function onFriendsChange(fn) { listeners.add(fn); }

/** Does this deployment's lobby have friends at all? */
export function hasFriends() { return hasMethod("LobbyService", "ListFriends"); }

/** Ask the lobby for the list (one call at a time; a second caller shares the first's answer). */
export function loadFriends() {
  if (!S.token || !hasFriends()) return Promise.resolve(false);
  if (loading) return loading;
  loading = (async () => {
    try {
      const r = await api("LobbyService", "ListFriends", {});
      Object.assign(F, {
        loaded: true, friends: r.friends || [], incoming: r.incoming || [], outgoing: r.outgoing || [],
        blocked: r.blocked || [], friendsMax: num(r.friendsMax), pendingMax: num(r.pendingMax),
      });
      for (const fn of listeners) fn();
      return true;
    } finally {
      loading = null;
    }
  })();
  return loading;
}

/** One of the friend calls for a player (SendFriendRequest, AcceptFriendRequest, BlockPlayer ...),
 * then the list again; the call's answer (a refusal is thrown, the list asked all the same). */
export async function friendCall(method, playerId) {
  try {
    return await api("LobbyService", method, { playerId });
  } finally {
    loadFriends().catch(() => {});
  }
}

export const isFriend = (playerId) => F.friends.some((f) => f.playerId === playerId);

/** Signed out: nothing of the last player's list stays. */
export function resetFriends() {
  Object.assign(F, { loaded: false, friends: [], incoming: [], outgoing: [], blocked: [], friendsMax: 0, pendingMax: 0 });
  for (const fn of listeners) fn();
}

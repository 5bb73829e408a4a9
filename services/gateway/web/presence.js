// Who is online (issue 44.7): a dot for each player the screen shows (a friend in the friends
// panel, a person seated on a lobby card), read from the gateway's presence board
// (GET /api/presence?players=..). The dots on the screen are asked for at once, in one call, every
// PRESENCE_POLL_MS while some are visible (the lobby, or the friends panel open) and the tab is
// shown: a hidden screen asks nothing. The state is the gateway's; the page only draws it.
import { $$, h } from "./dom.js";
import { tr } from "./i18n.js";
import { S } from "./state.js";
import { getPresence } from "./api.js";

export const PRESENCE_POLL_MS = 15000;
const MAX_ASKED = 100; // the gateway's MAX_PRESENCE_PLAYERS
const STATES = new Set(["ONLINE", "AT_TABLE", "AWAY", "OFFLINE"]);
const known = new Map(); // playerId -> the board's state, as last asked
let timer = null;
let soon = null;
let busy = false;

/** A player's state as last asked ("ONLINE", "AT_TABLE", "AWAY", "OFFLINE"), or "" when not asked yet. */
export function presenceOf(playerId) { return known.get(playerId) || ""; }

function paint(el) {
  const state = known.get(el.dataset.presence) || "UNKNOWN";
  el.className = "presence presence-" + state.toLowerCase();
  const label = tr("presence." + state);
  el.title = label;
  el.setAttribute("aria-label", label);
}

/** The dot of a player: its colour and label follow each answer of the board. */
export function presenceDot(playerId) {
  const el = h("span", { role: "img", dataset: { presence: playerId } });
  paint(el);
  return el;
}

function visibleIds() {
  const ids = new Set();
  for (const el of $$("[data-presence]")) if (el.getClientRects().length) ids.add(el.dataset.presence);
  return [...ids].slice(0, MAX_ASKED);
}

/** Ask the board for every visible dot and repaint them all (nothing visible: nothing asked). */
export async function pollPresence() {
  if (!S.token || document.hidden || busy) return;
  const ids = visibleIds();
  if (!ids.length) return;
  busy = true;
  try {
    const r = await getPresence({ players: ids.join(",") });
    for (const p of r.players || []) if (STATES.has(p.state)) known.set(p.playerId, p.state);
    for (const el of $$("[data-presence]")) paint(el);
  } catch { /* the dots keep their last state */ } finally {
    busy = false;
  }
}

/** Some dots were drawn: ask soon when one of them has never been asked, else wait for the poll. */
export function presenceSoon() {
  if (!timer || soon) return;
  if (!visibleIds().some((id) => !known.has(id))) return;
  soon = setTimeout(() => { soon = null; pollPresence(); }, 250);
}

/** Poll while signed in (from the sign-in on); each poll asks only for what is visible. */
export function keepPresence() {
  if (timer) return;
  timer = setInterval(pollPresence, PRESENCE_POLL_MS);
  presenceSoon();
}

export function stopPresence() {
  clearInterval(timer);
  clearTimeout(soon);
  timer = null;
  soon = null;
  known.clear();
}

/** The dots' labels in the page's language. */
export function relabelPresence() { for (const el of $$("[data-presence]")) paint(el); }

// Sessions: the access token is short-lived (15 minutes), so it is renewed with the session's
// refresh token a minute before it expires, and once more when a call finds it refused. A
// refresh token is good for one use (using one twice ends the session: REFRESH_REUSED), so the
// tabs of this browser take turns (Web Locks) and a tab that waited uses the token another tab
// already got instead of spending the old refresh token again. A tab's copy of the storage can
// lag behind another tab's write by a moment, so a refresh the lobby calls REFRESH_RACED (the
// token was spent a moment ago: by another tab) looks at the storage again and tries once more.
import { store } from "./dom.js";
import { S } from "./state.js";

const EARLY_MS = 60_000;
let timer = null;
let onEnded = () => {};

/** What to do when the lobby refuses the refresh token: the session has ended (set at boot: sign out). */
export function whenSessionEnds(fn) { onEnded = fn; }

/** A bearer token's claims (its payload; the signature is the services' to check), or null. */
export function decodeToken(token) {
  const parts = String(token || "").trim().split(".");
  if (parts.length !== 3) return null;
  try {
    const b64 = parts[1].replace(/-/g, "+").replace(/_/g, "/");
    const json = decodeURIComponent(escape(atob(b64 + "===".slice((b64.length + 3) % 4))));
    const claims = JSON.parse(json);
    return claims && claims.sub ? claims : null;
  } catch {
    return null;
  }
}

function expiresAt(token) {
  const claims = decodeToken(token);
  return claims && claims.exp ? claims.exp * 1000 : 0;
}

/** Keep what a sign-in or a refresh returned: the refresh token, and the renewal's timer. */
export function keepSession(r) {
  if (r && r.refreshToken) store.set("okey.refresh", r.refreshToken);
  scheduleRefresh();
}

/** Renew the access token a minute before it expires (nothing to do without a refresh token). */
export function scheduleRefresh() {
  clearTimeout(timer);
  const exp = expiresAt(S.token);
  if (!exp || !store.get("okey.refresh")) return;
  timer = setTimeout(() => { refreshSession(); }, Math.max(1000, exp - Date.now() - EARLY_MS));
}

export function endSession() {
  clearTimeout(timer);
  store.del("okey.refresh");
}

// A renewed token may carry another role (a staff role granted or taken away): the page listens.
function renewed() { window.dispatchEvent(new Event("okey-token-renewed")); }

/** A new access token from the refresh token; false when the session has ended. */
export async function refreshSession() {
  const run = async (attempt = 0) => {
    const stored = store.get("okey.token");
    if (stored && stored !== S.token && expiresAt(stored) - Date.now() > EARLY_MS / 2) {
      S.token = stored; // another tab refreshed while this one waited
      scheduleRefresh();
      renewed();
      return true;
    }
    const held = store.get("okey.refresh");
    if (!held) return false;
    let r;
    try {
      r = await fetch("/api/okey.v1.LobbyService/RefreshSession", {
        method: "POST",
        headers: { "content-type": "application/json" }, // no bearer token: it may have expired
        body: JSON.stringify({ refreshToken: held }),
      });
    } catch {
      clearTimeout(timer);
      timer = setTimeout(() => { refreshSession(); }, 5000); // offline: try again soon
      return false;
    }
    if (r.status === 409 && attempt < 5) {
      // REFRESH_RACED: another tab spent this token a moment ago; its new one is on its way here
      await new Promise((done) => setTimeout(done, 200 * (attempt + 1)));
      return run(attempt + 1);
    }
    if (!r.ok) { endSession(); onEnded(); return false; } // ended (signed out elsewhere, expired, reused)
    const data = await r.json();
    S.token = data.token;
    store.set("okey.token", data.token);
    keepSession(data);
    renewed();
    return true;
  };
  return navigator.locks ? navigator.locks.request("okey-refresh", () => run()) : run();
}

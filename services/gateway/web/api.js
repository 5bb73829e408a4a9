// The gateway's API: POST /api/<service>/<Method> (protobuf's JSON mapping) with the bearer
// token, the list of methods the gateway offers (GET /api), and the WebSocket of a table's watch.
import { S } from "./state.js";
import { hasString, tr } from "./i18n.js";
import { refreshSession } from "./session.js";
import { refusalText } from "./refusals.js";

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || (body && body.reason) || `HTTP ${status}`);
    this.status = status;
    this.code = (body && body.code) || "";
    this.reason = (body && body.reason) || "";
    this.metadata = (body && body.metadata) || {};
  }
}

let onUnauthorized = () => {};
/** What to do when the gateway refuses the token and the session cannot renew it (set at boot: sign out). */
export function whenUnauthorized(fn) { onUnauthorized = fn; }

// What a page without a session may still ask (the calls that need no token): the sign-in
// page's, and the table options' spec the create form is drawn from.
const NO_TOKEN = new Set(["LobbyService/SignInGuest", "LobbyService/SignInEmail", "LobbyService/SignInWithLinkCode",
  "TableService/GetOptionSpec"]);
/** The token was refused (by an API call or the watch): renew it, else sign out; true when renewed. */
export async function unauthorized() {
  if (await refreshSession()) return true;
  onUnauthorized();
  return false;
}

/**
 * One call of the gateway's API. ``token``: send this token instead of the session's (a proof
 * token for one sensitive call, see account.js); such a call is not renewed and retried.
 */
export async function api(service, method, body = {}, retried = false, token = null) {
  if (!token && !S.token && !NO_TOKEN.has(`${service}/${method}`)) {
    // The session ended (or was never there): a poll, a timer or a late await asks nothing more
    // of the gateway, whose answer would be a refusal; the sign-in page is showing.
    throw new ApiError(401, { code: "UNAUTHENTICATED", reason: "BAD_TOKEN" });
  }
  const headers = { "content-type": "application/json" };
  if (token || S.token) headers.authorization = "Bearer " + (token || S.token);
  let r;
  try {
    r = await fetch(`/api/okey.v1.${service}/${method}`, { method: "POST", headers, body: JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, { code: "UNAVAILABLE", reason: "NETWORK", message: String(e) });
  }
  let data = {};
  try { data = await r.json(); } catch { data = {}; }
  if (!r.ok) {
    const err = new ApiError(r.status, data);
    if (err.reason === "BAD_TOKEN" && S.token && !token) {
      // an expired access token: renew it and send the call once more
      if (!retried && (await unauthorized())) return api(service, method, body, true);
    }
    throw err;
  }
  return data;
}

/** Ask the gateway which methods it offers (S.methods stays null when it does not say). */
export async function loadMethods() {
  try {
    const r = await fetch("/api");
    if (r.ok) S.methods = new Set(((await r.json()).rpcs || []).map((x) => x.path));
  } catch { S.methods = null; }
}

export function hasMethod(service, method) {
  return !S.methods || S.methods.has(`/okey.v1.${service}/${method}`);
}

// The service behind the method is not part of this deployment or not running.
export function serviceMissing(e) {
  return e && (e.reason === "UNKNOWN_METHOD" || e.code === "UNAVAILABLE" || e.code === "UNIMPLEMENTED");
}

/** A refusal in the page's language, by its reason code (refusals.js); ``ctx`` is what was sent. */
export function errText(e, ctx) { return refusalText(e, ctx); }

/** A server stream of the gateway's as a WebSocket: /ws/okey.v1.<service>/<method>?<params>&token=.. */
export function openStream(service, method, params) {
  const q = new URLSearchParams({ ...params, token: S.token || "" });
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return new WebSocket(`${scheme}//${location.host}/ws/okey.v1.${service}/${method}?${q}`);
}

/** The live watch of a table from afterVersion on (a snapshot first, then each event with its view);
 * without a seat, a spectator's (the gateway asks the lobby's AuthorizeWatch first). */
export function openWatch(tableId, seat, afterVersion) {
  const params = { tableId, afterVersion: String(afterVersion) };
  if (seat !== null) params.seat = String(seat);
  return openStream("TableService", "Watch", params);
}

/** The gateway's presence board: GET /api/presence?players=a,b (each player's state) or
 * ?tables=t (each table's spectators), for a signed-in caller. */
export async function getPresence(params) {
  if (!S.token) throw new ApiError(401, { code: "UNAUTHENTICATED", reason: "BAD_TOKEN" });
  let r;
  try {
    r = await fetch(`/api/presence?${new URLSearchParams(params)}`, { headers: { authorization: "Bearer " + S.token } });
  } catch (e) {
    throw new ApiError(0, { code: "UNAVAILABLE", reason: "NETWORK", message: String(e) });
  }
  let data = {};
  try { data = await r.json(); } catch { data = {}; }
  if (!r.ok) throw new ApiError(r.status, data);
  return data;
}

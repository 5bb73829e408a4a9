// Signing in and out: the guest sign-in through the lobby service, "continue as" with the device
// credential the first sign-in returned (kept in local storage, never forgotten by signing out),
// a pasted token when the lobby is not running, the token kept in local storage, and the name and
// chips in the top bar.
import { $, num, store } from "./dom.js";
import { tr } from "./i18n.js";
import { S, go, show } from "./state.js";
import { api, errText, hasMethod, serviceMissing } from "./api.js";
import { leaveTable } from "./table.js";
import { decodeToken, endSession, keepSession, scheduleRefresh } from "./session.js";
import { staffRole } from "./staff.js";
import { stopChat } from "./chat.js";
import { dailyFrom, stopChips } from "./wallet.js";
import { stopNotifications } from "./notifications.js";
import { resetFriendsPanel } from "./friends.js";
import { resetFriends } from "./social.js";
import { stopPresence } from "./presence.js";
import { dailyRefusal } from "./profile.js";

export function useToken(token, name, chips) {
  const claims = decodeToken(token);
  if (!claims) return false;
  S.token = token.trim();
  S.me = { id: claims.sub, name: name || store.get("okey.name") || claims.sub, chips };
  store.set("okey.token", S.token);
  if (name) store.set("okey.name", name);
  renderWho();
  scheduleRefresh();
  return true;
}

export function signOut(message) {
  leaveTable();
  stopChat("lobby");
  stopChips();
  stopNotifications();
  stopPresence();
  $("#welcome-note").hidden = true;
  S.token = null;
  S.me = null;
  resetFriends();
  resetFriendsPanel();
  store.del("okey.token");
  endSession();
  renderWho();
  location.hash = "";
  showSignin(message);
}

export function renderWho() {
  const who = $("#who");
  if (!S.me) { who.hidden = true; return; }
  who.hidden = false;
  $("#who-name").textContent = tr("signin.as", { name: S.me.name });
  $("#staff-open").hidden = !staffRole(); // the moderators' page, for staff accounts
  $("#who-chips").textContent = S.me.chips !== undefined && S.me.chips !== null ? tr("signin.chips", { chips: S.me.chips }) : "";
}

async function signIn(ev) {
  ev.preventDefault();
  const name = $("#signin-name").value.trim();
  const err = $("#signin-error");
  err.hidden = true;
  if (!hasMethod("LobbyService", "SignInGuest")) { showNoLobby(); return; }
  const btn = $("#signin-submit");
  btn.disabled = true;
  btn.textContent = tr("signin.busy");
  try {
    const r = await api("LobbyService", "SignInGuest", { displayName: name, deviceId: store.get("okey.device") || "" });
    signedIn(r, name);
  } catch (e) {
    if (serviceMissing(e)) showNoLobby();
    else { err.textContent = errText(e, { name }); err.hidden = false; $("#signin-name").focus(); }
  } finally {
    btn.disabled = false;
    btn.textContent = tr("signin.submit");
  }
}

function signedIn(r, name) {
  if (r.deviceId) store.set("okey.device", r.deviceId);
  if (r.deviceSecret) store.set("okey.deviceSecret", r.deviceSecret);
  if (r.deviceRef) store.set("okey.deviceRef", r.deviceRef);
  const shown = r.player ? r.player.displayName : name;
  if (shown) store.set("okey.accountName", shown);
  useToken(r.token, shown, r.player ? num(r.player.chips) : undefined);
  keepSession(r);
  if (r.player) { S.me.nextDaily = r.player.nextDailyChipsAt || ""; dailyFrom(r.player); }
  // A new account without the day's chips (its device or network had them) is told why, and
  // what it can do, at once: the profile's answer, which the claim gives too.
  const note = $("#welcome-note");
  const why = !r.returning && !num(r.chipsGranted) ? dailyRefusal() : "";
  note.textContent = why ? `${tr("welcome.nochips")} ${why}` : "";
  note.hidden = !why;
  // a share link (an invitation, a hand's replay) waits for the sign-in; else the router shows
  // the lobby, or the table this player sits at in play (resume.js)
  go(/^#\/(join|replay)\//.test(location.hash) ? location.hash : "");
}

async function signInAgain() {
  const err = $("#signin-again-error");
  err.hidden = true;
  const btn = $("#signin-again-go");
  btn.disabled = true;
  try {
    signedIn(await api("LobbyService", "SignInGuest", { deviceSecret: store.get("okey.deviceSecret") }));
  } catch (e) {
    if (serviceMissing(e)) { showNoLobby(); return; }
    // An account the lobby does not know any more: say so above the new-account form.
    const shown = e && e.reason === "DEVICE_UNKNOWN" ? $("#signin-error") : err;
    if (shown !== err) { forgetAccount(); renderAgain(); $("#signin-name").focus(); }
    shown.textContent = errText(e);
    shown.hidden = false;
  } finally {
    btn.disabled = false;
  }
}

function forgetAccount() {
  store.del("okey.deviceSecret");
  store.del("okey.accountName");
}

// "Continue as <name>" when this device keeps an account; the new-account form otherwise.
function renderAgain() {
  const known = store.get("okey.deviceSecret");
  const name = store.get("okey.accountName") || "";
  $("#signin-again").hidden = !known;
  $("#signin-form").hidden = !!known;
  if (known) $("#signin-again-go").textContent = tr("signin.again", { name });
}

function showNoLobby() {
  $("#nolobby").hidden = false;
  $("#token-box").open = true;
  $("#token-input").focus();
}

function signInWithToken(ev) {
  ev.preventDefault();
  const err = $("#token-error");
  if (!useToken($("#token-input").value)) { err.textContent = tr("signin.token.bad"); err.hidden = false; return; }
  err.hidden = true;
  go("#/lobby");
}

export function showSignin(message) {
  show("signin");
  const err = $("#signin-error");
  if (message) { err.textContent = message; err.hidden = false; } else err.hidden = true;
  if (S.methods && !hasMethod("LobbyService", "SignInGuest")) showNoLobby();
  renderAgain();
  (store.get("okey.deviceSecret") ? $("#signin-again-go") : $("#signin-name")).focus();
}

// The account from another device: a linked e-mail and password, or a link code that device
// showed. Either gives this device a credential of its own ("Continue as" from then on).
function otherDeviceForm(form, method, body, errEl) {
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const err = $(errEl);
    err.hidden = true;
    const btn = form.querySelector("button[type=submit]");
    btn.disabled = true;
    try {
      const r = await api("LobbyService", method, body());
      signedIn(r.signedIn || {}, "");
      form.reset();
    } catch (e) {
      err.textContent = errText(e);
      err.hidden = false;
    } finally {
      btn.disabled = false;
    }
  });
}

export function bindSignin() {
  $("#signin-form").addEventListener("submit", signIn);
  otherDeviceForm($("#email-form"), "SignInEmail", () => ({ email: $("#email-input").value.trim(), password: $("#password-input").value }), "#email-error");
  otherDeviceForm($("#link-code-form"), "SignInWithLinkCode", () => ({ code: $("#link-code-input").value.trim() }), "#link-code-error");
  $("#token-form").addEventListener("submit", signInWithToken);
  $("#signin-again-go").addEventListener("click", signInAgain);
  $("#signin-new").addEventListener("click", () => {
    if (!confirm(tr("signin.new.confirm", { name: store.get("okey.accountName") || "" }))) return;
    forgetAccount();
    renderAgain();
    $("#signin-name").focus();
  });
  const dialog = $("#signout-dialog");
  $("#sign-out").addEventListener("click", () => {
    // Say how to come back before signing out (the device keeps its credential).
    $("#signout-text").textContent = tr("signout.text", { name: (S.me && S.me.name) || store.get("okey.accountName") || "" });
    dialog.showModal();
  });
  dialog.addEventListener("close", async () => {
    if (dialog.returnValue !== "out") return;
    // Revoke the token at every service (not only forget it here); a failure is no reason to stay signed in.
    if (S.token && !S.lobbyDown) { try { await api("LobbyService", "SignOut", {}); } catch { /* signed out anyway */ } }
    signOut();
  });
}

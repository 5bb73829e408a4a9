// The account dialog, one click from the top bar (issue 19.3, 19.5, 39): link an e-mail and a
// password (or change the password, or remove the e-mail), a one-time link code to type on
// another device, the account's devices a page at a time, any of which can be removed, and
// "sign out everywhere". A sensitive change is sent with a proof token of its own: this device's
// credential, shown to the lobby (Reauthenticate) just before, never a bearer token alone.
import { $, h, store, toast } from "./dom.js";
import { currentLang, tr } from "./i18n.js";
import { S } from "./state.js";
import { ApiError, api, errText } from "./api.js";
import { keepSession } from "./session.js";
import { signOut, useToken } from "./signin.js";

function when(ts) {
  const d = ts ? new Date(ts) : null;
  return d && !isNaN(d) ? d.toLocaleString(currentLang() === "en" ? "en-GB" : "tr-TR", { dateStyle: "short", timeStyle: "short" }) : "";
}

/** A sensitive call, sent with a proof token: this device's credential proves it is the owner. */
async function proven(method, body = {}) {
  const secret = store.get("okey.deviceSecret");
  if (!secret) throw new ApiError(401, { code: "UNAUTHENTICATED", reason: "PROOF_FAILED" });
  const p = await api("LobbyService", "Reauthenticate", { deviceSecret: secret });
  return api("LobbyService", method, body, true, p.token);
}

let nextPage = "";

function deviceItem(d, mine) {
  const label = tr("account.device", { created: when(d.createdAt), used: when(d.lastUsedAt) });
  const li = h("li", { class: "device", dataset: { ref: d.deviceRef } }, label);
  const current = d.current || d.deviceRef === mine;
  if (current) li.append(" · ", h("strong", {}, tr("account.device.this")));
  const btn = h("button", { type: "button", class: "link" }, tr("account.device.unlink"));
  btn.addEventListener("click", () => unlink(d.deviceRef, current));
  li.append(" ", btn);
  return li;
}

async function render(more = false) {
  const r = await api("LobbyService", "ListDevices", more ? { pageToken: nextPage } : {});
  const email = r.email || "";
  $("#account-email-state").textContent = email ? tr("account.email.linked", { email }) : tr("account.email.none");
  $("#link-email-form").hidden = !!email;
  $("#change-password-form").hidden = !email;
  $("#unlink-email").hidden = !email;
  const mine = store.get("okey.deviceRef");
  const list = $("#device-list");
  if (!more) list.replaceChildren();
  for (const d of r.devices || []) list.append(deviceItem(d, mine));
  nextPage = r.nextPageToken || "";
  $("#devices-more").hidden = !nextPage;
}

async function unlinkEmail() {
  const out = $("#account-email-result");
  try {
    await proven("UnlinkEmail");
    out.textContent = tr("account.email.removed");
    await render();
  } catch (e) {
    out.textContent = errText(e);
  }
}

async function signOutEverywhere() {
  const out = $("#everywhere-result");
  try {
    const r = await proven("SignOutEverywhere");
    useToken(r.token, S.me && S.me.name);
    keepSession(r);
    await render();
    out.textContent = tr("account.everywhere.done");
  } catch (e) {
    out.textContent = errText(e);
  }
}

async function unlink(ref, mine) {
  try {
    await proven("UnlinkDevice", { deviceRef: ref });
    toast(tr("account.device.unlinked"));
    if (mine) {
      // this device forgot itself: nothing to continue as
      store.del("okey.deviceSecret");
      store.del("okey.deviceRef");
      $("#account-dialog").close();
      signOut();
      return;
    }
    await render();
  } catch (e) {
    toast(errText(e));
  }
}

async function linkEmail(ev) {
  ev.preventDefault();
  const out = $("#account-email-result");
  try {
    await proven("LinkEmail", { email: $("#link-email").value.trim(), password: $("#link-password").value });
    $("#link-email-form").reset();
    out.textContent = tr("account.email.done");
    await render();
  } catch (e) {
    out.textContent = errText(e);
  }
}

async function changePassword(ev) {
  ev.preventDefault();
  const out = $("#account-email-result");
  try {
    const r = await api("LobbyService", "ChangePassword", {
      currentPassword: $("#current-password").value,
      newPassword: $("#new-password").value,
    });
    useToken(r.token, S.me && S.me.name);
    keepSession(r);
    $("#change-password-form").reset();
    out.textContent = tr("account.password.changed");
  } catch (e) {
    out.textContent = errText(e);
  }
}

async function createCode() {
  try {
    const r = await proven("CreateLinkCode");
    $("#link-code").textContent = tr("account.code.shown", { code: r.code, when: when(r.expiresAt) });
  } catch (e) {
    $("#link-code").textContent = errText(e);
  }
}

async function deleteAccount(ev) {
  ev.preventDefault();
  const err = $("#delete-account-error");
  err.hidden = true;
  try {
    await proven("DeleteAccount", { confirmName: $("#delete-confirm").value });
  } catch (e) {
    err.textContent = errText(e);
    err.hidden = false;
    return;
  }
  // Nothing of the account is left to continue as.
  for (const k of ["okey.deviceSecret", "okey.deviceRef", "okey.accountName", "okey.name"]) store.del(k);
  $("#account-dialog").close();
  signOut(tr("account.deleted"));
}

export function bindAccount() {
  $("#delete-account-form").addEventListener("submit", deleteAccount);
  $("#account-open").addEventListener("click", async () => {
    $("#account-email-result").textContent = "";
    $("#link-code").textContent = "";
    $("#everywhere-result").textContent = "";
    $("#delete-confirm-label").textContent = tr("account.delete.confirm", { name: (S.me && S.me.name) || "" });
    $("#account-delete").open = false;
    try { await render(); } catch (e) { toast(errText(e)); return; }
    $("#account-dialog").showModal();
  });
  $("#account-close").addEventListener("click", () => $("#account-dialog").close());
  $("#link-email-form").addEventListener("submit", linkEmail);
  $("#change-password-form").addEventListener("submit", changePassword);
  $("#link-code-create").addEventListener("click", createCode);
  $("#unlink-email").addEventListener("click", unlinkEmail);
  $("#sign-out-everywhere").addEventListener("click", signOutEverywhere);
  $("#devices-more").addEventListener("click", async () => {
    try { await render(true); } catch (e) { toast(errText(e)); }
  });
}

// Chat (the lobby's and the open table's, polled from the lobby service), muting a player, and
// the report dialog. A table's chat carries its quick emotes too (emotes.js).
import { $, h, num, toast } from "./dom.js";
import { tr, translateStatic } from "./i18n.js";
import { S } from "./state.js";
import { api, errText, hasMethod, serviceMissing } from "./api.js";
import { emoteLine, emoteName, hideEmotesOf, mountEmotes, relabelEmotes, showEmote } from "./emotes.js";
import { avatarEl, myAvatar } from "./avatars.js";

// How often a chat asks for new messages: a table's emote reaches the other seats within this.
export const CHAT_POLL_MS = 2500;

function chatSlot(kind) { return $(`.chat-slot[data-chat="${kind}"]`); }

export function startChat(kind, tableId) {
  const old = S.chats[kind];
  if (old) { clearInterval(old.timer); }
  const slot = chatSlot(kind);
  slot.replaceChildren($("#chat-template").content.cloneNode(true));
  translateStatic(slot);
  const input = $(".chat-input", slot);
  input.id = "chat-input-" + kind;
  $("label", slot).setAttribute("for", input.id);
  const c = { kind, tableId, after: 0, messages: [], timer: null, note: "", slot };
  S.chats[kind] = c;
  $(".chat-form", slot).addEventListener("submit", (ev) => { ev.preventDefault(); sendChat(c); });
  if (kind === "table") mountEmotes(slot, tableId, () => pollChat(c), (e) => { c.note = errText(e); renderChat(c); });
  if (!hasMethod("LobbyService", "ListMessages")) { c.note = tr("chat.unavailable"); renderChat(c); return; }
  pollChat(c);
  c.timer = setInterval(() => pollChat(c), CHAT_POLL_MS);
}

export function stopChat(kind) {
  const c = S.chats[kind];
  if (c) { clearInterval(c.timer); delete S.chats[kind]; }
}

async function pollChat(c) {
  if (S.chats[c.kind] !== c || c.busy) return;
  c.busy = true;
  try {
    const r = await api("LobbyService", "ListMessages", { tableId: c.tableId, afterMessageId: c.after, limit: 50 });
    const msgs = r.messages || [];
    if (msgs.length) {
      c.messages = c.messages.concat(msgs).slice(-100);
      c.after = num(msgs[msgs.length - 1].messageId);
      // The emotes sent since the chat opened show at their seats; the earlier ones only in the log.
      if (c.loaded) for (const m of msgs) if (emoteName(m.emote)) showEmote(m);
    }
    c.loaded = true;
    if (c.note) c.note = "";
    if (msgs.length || c.rendered === undefined) renderChat(c);
  } catch (e) {
    c.note = serviceMissing(e) ? tr("chat.unavailable") : errText(e);
    if (e.reason === "NOT_SEATED") {
      // A spectator (or a seat left): the table's chat is the seated people's; no form to fill.
      c.note = tr("chat.seatedOnly");
      const form = $(".chat-form", c.slot);
      if (form) form.hidden = true;
    }
    renderChat(c);
    if (serviceMissing(e) || e.reason === "NOT_SEATED") clearInterval(c.timer);
  } finally {
    c.busy = false;
  }
}

function renderChat(c) {
  const log = $(".chat-log", c.slot);
  if (!log) return;
  c.rendered = true;
  log.replaceChildren();
  if (!c.messages.length) log.append(h("li", { class: "empty" }, tr("chat.none")));
  for (const m of c.messages) {
    const mine = S.me && m.playerId === S.me.id;
    const emote = emoteName(m.emote);
    const item = h("li", { class: (mine ? "mine" : "") + (emote ? " emote" : "") },
      avatarEl(myAvatar(m.playerId, m.avatar)), h("strong", {}, m.displayName || m.playerId), ": ", emote ? emoteLine(m) : m.text);
    if (!mine && m.playerId) {
      // An emote is a fixed phrase: no evidence for a report (the lobby takes texts only).
      item.append(" ", h("span", { class: "msg-actions" },
        emote ? null : h("button", { type: "button", class: "link", onclick: () => openReport(m.playerId, m.displayName, [num(m.messageId)]) }, tr("chat.report")),
        h("button", { type: "button", class: "link", onclick: () => mute(m.playerId, m.displayName) }, tr("chat.mute"))));
    }
    log.append(item);
  }
  log.scrollTop = log.scrollHeight;
  relabelEmotes(c.slot);
  const note = $(".chat-note", c.slot);
  note.textContent = c.note;
  note.hidden = !c.note;
}

async function sendChat(c) {
  const input = $(".chat-input", c.slot);
  const text = input.value.trim();
  if (!text) return;
  try {
    await api("LobbyService", "SendMessage", { tableId: c.tableId, text });
    input.value = "";
    pollChat(c);
  } catch (e) {
    c.note = serviceMissing(e) ? tr("chat.unavailable") : errText(e);
    if (e.reason === "NOT_SEATED") {
      // A spectator (or a seat left): the table's chat is the seated people's; no form to fill.
      c.note = tr("chat.seatedOnly");
      const form = $(".chat-form", c.slot);
      if (form) form.hidden = true;
    }
    renderChat(c);
  }
}

async function mute(playerId, name) {
  try {
    await api("LobbyService", "MutePlayer", { playerId });
    toast(tr("chat.muted", { name: name || playerId }), "info");
    for (const c of Object.values(S.chats)) { c.messages = c.messages.filter((m) => m.playerId !== playerId); renderChat(c); }
    hideEmotesOf(playerId);
  } catch (e) { toast(errText(e)); }
}

const REPORT_REASONS = ["ABUSE", "PERSONAL_INFO", "ADVERTISING", "COLLUSION", "STALLING", "OTHER"];
let reportTarget = null;

export function renderReportReasons() {
  const sel = $("#report-reason");
  const v = sel.value;
  sel.replaceChildren(...REPORT_REASONS.map((r) => h("option", { value: r }, tr("report.reason." + r))));
  if (v) sel.value = v;
}

export function openReport(playerId, name, messageIds = []) {
  if (!hasMethod("LobbyService", "ReportPlayer")) { toast(tr("chat.unavailable")); return; }
  reportTarget = { playerId, name: name || playerId, messageIds };
  $("#report-who").textContent = tr("report.player", { name: reportTarget.name });
  $("#report-details").value = "";
  $("#report-error").hidden = true;
  $("#report-dialog").showModal();
}

async function sendReport(ev) {
  ev.preventDefault();
  if (!reportTarget) return;
  try {
    const r = await api("LobbyService", "ReportPlayer", {
      playerId: reportTarget.playerId,
      reason: "REPORT_REASON_" + $("#report-reason").value,
      details: $("#report-details").value.trim(),
      messageIds: reportTarget.messageIds,
      tableId: S.t ? S.t.id : "",
    });
    $("#report-dialog").close();
    toast(tr("report.sent", { id: r.reportId }), "info");
  } catch (e) {
    const err = $("#report-error");
    err.textContent = errText(e);
    err.hidden = false;
  }
}

// Every chat follows a language switch.
export function renderChats() {
  for (const c of Object.values(S.chats)) renderChat(c);
}

export function bindReport() {
  $("#report-form").addEventListener("submit", sendReport);
  $("#report-cancel").addEventListener("click", () => $("#report-dialog").close());
}

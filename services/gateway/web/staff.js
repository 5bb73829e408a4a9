// The moderators' page (#/staff), for staff accounts (a token whose role is moderator or admin;
// the lobby checks every call, this only decides what to show): the report queue with each
// report's chat context and its table's events, resolve (dismiss / warn / mute / ban) with a
// reason, a direct ban, and the audit trail of every staff action. The queue comes a page at a
// time (most severe first, then most reporters, then newest); "more" reads the next page.
import { $, h, num, toast } from "./dom.js";
import { tr } from "./i18n.js";
import { S, show } from "./state.js";
import { api, errText } from "./api.js";
import { decodeToken } from "./session.js";

const ACTIONS = ["DISMISS", "WARN", "MUTE", "BAN"];
const STAFF_ROLES = ["moderator", "admin"];

/** The signed-in account's staff role ("moderator", "admin"), "" for a player. */
export function staffRole() {
  const claims = decodeToken(S.token);
  return claims && STAFF_ROLES.includes(claims.role) ? claims.role : "";
}

const when = (ts) => (ts ? new Date(ts).toLocaleString() : "");
const reportAction = (a) => String(a || "").replace("REPORT_ACTION_", "");

export async function showStaff() {
  show("staff");
  document.title = `${tr("app.title")} — ${tr("staff.title")}`;
  await Promise.all([loadReports(), loadAudit()]);
}

const PAGE_SIZE = 50;
let nextPage = ""; // the next page's token of the queue shown ("" after the last)

// The queue's first page (more: the page after the one shown, appended to it).
async function loadReports(more = false) {
  const list = $("#staff-reports");
  const err = $("#staff-error");
  const button = $("#staff-more");
  try {
    const body = { includeResolved: $("#staff-all").checked, pageSize: PAGE_SIZE, pageToken: more ? nextPage : "" };
    const r = await api("LobbyService", "ListReports", body);
    err.hidden = true;
    const reports = r.reports || [];
    if (more) list.append(...reports.map(reportCard));
    else list.replaceChildren(...reports.map(reportCard));
    if (!more && !reports.length) list.append(h("li", { class: "empty" }, tr("staff.none")));
    nextPage = r.nextPageToken || "";
    button.hidden = !nextPage;
  } catch (e) {
    err.textContent = errText(e);
    err.hidden = false;
  }
}

function reportCard(r) {
  const id = num(r.reportId);
  const reason = String(r.reason || "").replace("REPORT_REASON_", "");
  const marked = new Set((r.messageIds || []).map(String));
  const open = r.status === "REPORT_STATUS_OPEN";
  const head = h("p", { class: "report-head" },
    h("strong", {}, `#${id} · ${tr("report.reason." + reason)}`), " ",
    tr("staff.reported", { name: r.playerName || r.playerId, by: r.reporterName || r.reporterId }), " ",
    h("span", { class: "muted" }, `${when(r.createdAt)} · ${tr("staff.earlier", { n: num(r.earlierReports) })}`));
  const chat = h("ol", { class: "report-chat", "aria-label": tr("staff.chat") },
    (r.context || []).map((m) => h("li", { class: marked.has(String(m.messageId)) ? "reported" : "" },
      h("strong", {}, m.displayName || m.playerId), ": ", m.text)));
  const card = h("li", { class: "report-card" + (open ? "" : " resolved"), dataset: { reportId: String(id) } },
    head, r.details ? h("p", { class: "report-details" }, r.details) : null,
    (r.context || []).length ? chat : h("p", { class: "muted" }, tr("staff.nochat")),
    r.tableId ? tableEvents(r.tableId) : null,
    open ? resolveForm(r) : h("p", { class: "report-resolved" },
      tr("staff.resolved", { action: tr("staff.action." + reportAction(r.action)), by: r.resolvedBy || "" }),
      r.note ? ` — ${r.note}` : ""));
  return card;
}

// A table's events, as a spectator sees them (the table service's GetEvents), read when opened.
function tableEvents(tableId) {
  const list = h("ol", { class: "report-events" });
  const box = h("details", { class: "report-table" }, h("summary", {}, tr("staff.events", { table: tableId })), list);
  box.addEventListener("toggle", async () => {
    if (!box.open || box.dataset.loaded) return;
    box.dataset.loaded = "1";
    try {
      const r = await api("TableService", "GetEvents", { tableId, limit: 1000 });
      const events = (r.events || []).slice(-60);
      list.replaceChildren(...events.map((e) =>
        h("li", {}, `v${num(e.version)} · ${tr("staff.hand", { n: num(e.hand) })} · ${e.kind || ""} · ${when(e.time)}`)));
      if (!events.length) list.append(h("li", { class: "empty" }, tr("staff.noevents")));
    } catch (e) {
      list.replaceChildren(h("li", { class: "error" }, errText(e)));
    }
  });
  return box;
}

function resolveForm(r) {
  const id = num(r.reportId);
  const action = h("select", { id: `resolve-action-${id}`, class: "resolve-action" },
    ACTIONS.map((a) => h("option", { value: a }, tr("staff.action." + a))));
  const minutes = h("input", { id: `resolve-minutes-${id}`, class: "resolve-minutes", type: "number", min: 0, max: 525600, value: 0 });
  const reason = h("input", { id: `resolve-reason-${id}`, class: "resolve-reason", type: "text", maxlength: 500, "aria-required": "true" });
  const err = h("p", { class: "error", role: "alert", hidden: true });
  const form = h("form", { class: "resolve-form row wrap" },
    h("label", { for: action.id }, tr("staff.action")), action,
    h("label", { for: minutes.id }, tr("staff.minutes")), minutes,
    h("label", { for: reason.id }, tr("staff.reason")), reason,
    h("button", { type: "submit", class: "primary" }, tr("staff.apply")), err);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const body = { reportId: id, action: "REPORT_ACTION_" + action.value, durationMinutes: num(minutes.value), note: reason.value.trim() };
    if (!body.note) { err.textContent = tr("err.REASON_REQUIRED"); err.hidden = false; reason.focus(); return; }
    await staffCall("ResolveReport", body, err, tr("staff.done.resolve", { id }));
  });
  const ban = h("button", { type: "button", class: "report-ban" }, tr("staff.ban.player", { name: r.playerName || r.playerId }));
  ban.addEventListener("click", async () => {
    const why = reason.value.trim();
    if (!why) { err.textContent = tr("err.REASON_REQUIRED"); err.hidden = false; reason.focus(); return; }
    const body = { playerId: r.playerId, durationMinutes: num(minutes.value), reason: why };
    await staffCall("BanPlayer", body, err, tr("staff.done.ban", { name: r.playerName || r.playerId }));
  });
  return h("div", { class: "report-actions" }, form, ban);
}

// A staff action, then the queue and the audit trail again; a refusal shown by the form.
async function staffCall(method, body, err, done) {
  try {
    await api("LobbyService", method, body);
    err.hidden = true;
    toast(done, "info");
  } catch (e) {
    err.textContent = errText(e);
    err.hidden = false;
    return;
  }
  await Promise.all([loadReports(), loadAudit()]);
}

async function loadAudit() {
  const body = $("#staff-audit tbody");
  try {
    const r = await api("LobbyService", "ListAuditLog", { limit: 100 });
    const rows = (r.entries || []).map((e) => h("tr", { dataset: { action: e.action } },
      h("td", {}, when(e.time)), h("td", {}, `${e.actorId} (${e.actorRole})`),
      h("td", {}, tr("staff.audit." + e.action)), h("td", {}, e.targetId || ""),
      h("td", {}, e.reason || ""), h("td", { class: "muted" }, e.detail && e.detail !== "{}" ? e.detail : "")));
    body.replaceChildren(...rows);
    if (!rows.length) body.append(h("tr", {}, h("td", { colspan: 6, class: "empty" }, tr("staff.audit.none"))));
  } catch (e) {
    body.replaceChildren(h("tr", {}, h("td", { colspan: 6, class: "error" }, errText(e))));
  }
}

export function bindStaff() {
  $("#staff-open").addEventListener("click", () => { location.hash = "#/staff"; });
  $("#staff-refresh").addEventListener("click", () => showStaff());
  $("#staff-all").addEventListener("change", () => loadReports());
  $("#staff-more").addEventListener("click", () => loadReports(true));
  $("#staff-back").addEventListener("click", () => { location.hash = "#/lobby"; });
}

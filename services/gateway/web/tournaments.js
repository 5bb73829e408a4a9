// The tournaments page (issue 45.3). #/tournaments lists the lobby's tournaments (ListTournaments):
// upcoming (registering), running and finished, each with its game, format, size and the people
// registered, its entry fee, the prize table as the server computed it (Tournament.prizes) and its
// start (a time, or "dolunca başlar": a sit-and-go). #/tournament/<id> is one (GetTournament):
// registering (a dialog states the fee and the caller's chips; RegisterTournament sends the fee
// shown), unregistering before the start, the standings and each round's tables. The open view
// polls every 2 s while the tab is visible and redraws only when the tournament's version changed;
// the poll stops when the view closes or the tab is hidden. "Masana git" opens the caller's table
// of the round as "My tables" opens a table. Places, points and prizes are the server's: the page
// orders and computes none of them.
import { $, announce, h, num } from "./dom.js";
import { currentLang, hasString, tr } from "./i18n.js";
import { S, go, mySeatAt, show } from "./state.js";
import { api, errText, hasMethod } from "./api.js";
import { refreshChips, setChips } from "./wallet.js";
import { gameName } from "./seating.js";
import { leaveTable } from "./table.js";

const DETAIL_POLL_MS = 2000;
const LIST_POLL_MS = 10000;
// The list's groups, in the page's order: which statuses each holds.
const GROUPS = [
  ["upcoming", ["REGISTERING"]],
  ["running", ["RUNNING"]],
  ["finished", ["FINISHED", "CANCELLED"]],
];
// The open view: the tournament's id ("" for the list), the last answer, the version drawn.
const V = { id: "", t: null, version: null, list: null, timer: null, busy: false, draws: 0 };

const statusOf = (t) => String((t && t.status) || "").replace("TOURNAMENT_STATUS_", "") || "UNSPECIFIED";
const formatOf = (spec) => String((spec && spec.format) || "").replace("TOURNAMENT_FORMAT_", "");
const specOf = (t) => (t && t.spec) || {};

function when(ts) {
  if (!ts) return "";
  const d = new Date(ts);
  if (Number.isNaN(d.getTime())) return "";
  return d.toLocaleString(currentLang() === "en" ? "en-GB" : "tr-TR", { dateStyle: "medium", timeStyle: "short" });
}

function showError(text) {
  const el = $("#tn-error");
  el.textContent = text || "";
  el.hidden = !text;
}

// ------------------------------------------------------------------ what a tournament says

function statusBadge(t) {
  const s = statusOf(t);
  return h("span", { class: "badge tn-status status-" + s.toLowerCase(), dataset: { status: s } },
    tr(hasString("tn.status." + s) ? "tn.status." + s : "tn.status.UNSPECIFIED"));
}

/** Game, format, registered/size, fee and start, as one line of facts. */
function facts(t) {
  const spec = specOf(t);
  const status = statusOf(t);
  const format = formatOf(spec);
  const fee = num(spec.entryFee);
  let start = null; // a time, "dolunca başlar" (a sit-and-go), or nothing (cancelled before it began)
  if (status !== "REGISTERING" && t.startedAt) start = tr("tn.started", { when: when(t.startedAt) });
  else if (spec.startsAt) start = tr("tn.starts", { when: when(spec.startsAt) });
  else if (status === "REGISTERING") start = tr("tn.sitngo");
  const parts = [
    h("strong", { class: "tn-game" }, tr("game." + gameName(spec.options && spec.options.game))),
    h("span", { class: "tn-format" }, hasString("tn.format." + format) ? tr("tn.format." + format) : tr("tn.format.KNOCKOUT")),
    h("span", { class: "tn-size", dataset: { registered: String(num(t.registered)), size: String(num(spec.size)) } },
      tr("tn.size", { registered: num(t.registered), size: num(spec.size) })),
    h("span", { class: "tn-fee" + (fee ? "" : " free"), dataset: { fee: String(fee) } }, fee ? tr("tn.fee", { fee }) : tr("tn.free")),
    start && h("span", { class: "tn-start" }, start),
  ].filter(Boolean);
  if (status === "FINISHED" && t.finishedAt) parts.push(h("span", { class: "tn-finished" }, tr("tn.finished", { when: when(t.finishedAt) })));
  if (status === "RUNNING" && num(t.rounds)) parts.push(h("span", { class: "tn-round" }, tr("tn.round.of", { round: num(t.round), rounds: num(t.rounds) })));
  const out = [];
  parts.forEach((p, i) => { if (i) out.push(" · "); out.push(p); });
  return h("p", { class: "card-meta tn-facts" }, out);
}

/** The prize table as the server gives it: chips per place, 1st first. */
function prizeList(t, labelId) {
  const prizes = t.prizes || [];
  if (!prizes.length) return h("p", { class: "tn-prizes empty" }, tr("tn.prizes.none"));
  return h("div", { class: "tn-prizes" },
    h("span", { class: "tn-prizes-title", id: labelId }, tr("tn.prizes")),
    h("ol", { class: "tn-prize-list", "aria-labelledby": labelId },
      prizes.map((p, i) => h("li", { dataset: { place: String(i + 1), prize: String(num(p)) } },
        tr("tn.prize.line", { place: i + 1, prize: num(p) })))));
}

// ------------------------------------------------------------------ the list

function card(t) {
  const id = t.tournamentId;
  const titleId = "tn-card-" + id;
  return h("article", { class: "card tn-card", "aria-labelledby": titleId, dataset: { tournament: id, status: statusOf(t) } },
    h("header", { class: "row spread" }, h("h4", { id: titleId }, specOf(t).name || id), statusBadge(t)),
    facts(t),
    t.registeredMe ? h("p", { class: "tn-mine" }, tr("tn.registered.me")) : null,
    prizeList(t, "tn-prizes-" + id),
    h("div", { class: "card-actions row" },
      h("button", { type: "button", class: "primary", "aria-describedby": titleId, onclick: () => go(`#/tournament/${id}`) }, tr("tn.open"))));
}

function renderList() {
  const all = V.list || [];
  for (const [group, statuses] of GROUPS) {
    const box = $(`#tn-${group}`);
    const shown = all.filter((t) => statuses.includes(statusOf(t)));
    box.replaceChildren(...(shown.length ? shown.map(card) : [h("p", { class: "empty" }, tr(`tn.${group}.none`))]));
  }
}

async function loadList() {
  if (!hasMethod("LobbyService", "ListTournaments")) { showError(tr("tn.unavailable")); V.list = []; renderList(); return; }
  try {
    const r = await api("LobbyService", "ListTournaments", { limit: 50 });
    if (V.id) return; // a tournament opened meanwhile
    V.list = r.tournaments || [];
    showError("");
    renderList();
  } catch (e) {
    if (!V.id) { showError(errText(e)); if (!V.list) { V.list = []; renderList(); } }
  }
}

/** #/tournaments: the list. */
export async function showTournaments() {
  leaveTable();
  show("tournaments");
  document.title = `${tr("app.title")} — ${tr("tn.title")}`;
  V.id = "";
  V.t = null;
  V.version = null;
  $("#tn-list").hidden = false;
  $("#tn-detail").hidden = true;
  $("#tn-all").hidden = true;
  showError("");
  if (!V.list) renderList(); // "none" until the answer
  startPoll();
  await loadList();
}

// ------------------------------------------------------------------ one tournament

/** The players' names: the standings' (a bot's seat is ""). */
function namesOf(t) {
  const m = new Map();
  for (const e of t.standings || []) m.set(e.playerId, e.displayName || tr("player.deleted"));
  return m;
}

function standings(t) {
  const rows = t.standings || [];
  const head = h("h4", { id: "tn-standings-title" }, tr("tn.standings"));
  if (!rows.length) return h("section", { class: "tn-standings", "aria-labelledby": "tn-standings-title" }, head, h("p", { class: "empty" }, tr("tn.standings.none")));
  const cols = ["tn.col.place", "tn.col.player", "tn.col.points", "tn.col.score", "tn.col.prize", "tn.col.state"];
  const body = rows.map((e) => {
    const me = S.me && e.playerId === S.me.id;
    const state = e.withdrew ? tr("tn.withdrew") : num(e.outInRound) ? tr("tn.out", { round: num(e.outInRound) }) : "";
    return h("tr", { class: me ? "me" : "", dataset: {
      player: e.playerId, place: String(num(e.place)), points: String(num(e.matchPoints)), score: String(num(e.score)),
      prize: String(num(e.prize)), out: String(num(e.outInRound)), withdrew: String(!!e.withdrew) } },
    h("td", {}, num(e.place)),
    h("th", { scope: "row" }, e.displayName || tr("player.deleted"), me ? ` (${tr("table.you")})` : ""),
    h("td", {}, num(e.matchPoints)),
    h("td", {}, num(e.score)),
    h("td", { class: "tn-prize" }, num(e.prize) ? tr("tn.chips", { n: num(e.prize) }) : "—"),
    h("td", { class: "tn-state" + (state ? " out" : "") }, state));
  });
  return h("section", { class: "tn-standings", "aria-labelledby": "tn-standings-title" }, head,
    h("div", { class: "tn-scroll" },
      h("table", { class: "stats tn-standings-table" },
        h("thead", {}, h("tr", {}, cols.map((k) => h("th", { scope: "col" }, tr(k))))),
        h("tbody", {}, body))));
}

function tableBox(tb, i, names) {
  const finished = !!tb.finished;
  const places = tb.places || [];
  const scores = tb.scores || [];
  const titleId = "tn-table-" + tb.tableId;
  const mine = S.me && (tb.playerIds || []).includes(S.me.id);
  return h("li", { class: "tn-table" + (mine ? " mine" : "") + (finished ? " finished" : ""), "aria-labelledby": titleId,
    dataset: { table: tb.tableId, finished: String(finished) } },
  h("p", { class: "tn-table-title row spread" },
    h("strong", { id: titleId }, tr("tn.table", { n: i + 1 })),
    h("span", { class: "badge " + (finished ? "status-finished" : "status-playing") }, tr(finished ? "tn.table.done" : "tn.table.playing"))),
  h("ol", { class: "tn-seats" }, (tb.playerIds || []).map((pid, seat) => {
    const name = pid ? names.get(pid) || tr("player.deleted") : tr("lobby.seat.bot");
    const place = finished ? num(places[seat]) : 0;
    return h("li", { class: (pid ? "" : "bot") + (S.me && pid === S.me.id ? " me" : ""), dataset: { seat: String(seat), player: pid || "", place: String(place) } },
      place ? h("span", { class: "tn-place" }, tr("tn.place", { place })) : null, place ? " " : null,
      name, S.me && pid === S.me.id ? ` (${tr("table.you")})` : "",
      finished ? h("span", { class: "tn-score" }, " · ", tr("tn.score", { score: num(scores[seat]) })) : null);
  })));
}

function rounds(t) {
  const played = t.roundsPlayed || [];
  const head = h("h4", { id: "tn-rounds-title" }, tr("tn.rounds"));
  if (!played.length) return h("section", { class: "tn-rounds", "aria-labelledby": "tn-rounds-title" }, head, h("p", { class: "empty" }, tr("tn.rounds.none")));
  const names = namesOf(t);
  return h("section", { class: "tn-rounds", "aria-labelledby": "tn-rounds-title" }, head,
    played.map((r) => {
      const id = "tn-round-" + num(r.round);
      return h("section", { class: "tn-round", "aria-labelledby": id, dataset: { round: String(num(r.round)), ended: String(!!r.ended) } },
        h("h5", { id }, tr("tn.round", { round: num(r.round) }), " · ", tr(r.ended ? "tn.round.ended" : "tn.round.playing")),
        h("ol", { class: "tn-tables" }, (r.tables || []).map((tb, i) => tableBox(tb, i, names))));
    }));
}

function actions(t) {
  const status = statusOf(t);
  const box = h("div", { class: "card-actions row wrap tn-actions" });
  if (t.myTableId) {
    box.append(h("button", { type: "button", class: "primary", id: "tn-my-table", dataset: { table: t.myTableId },
      onclick: () => openMyTable(t.myTableId, seatIn(t, t.myTableId)) }, tr("tn.myTable")));
  }
  if (status === "REGISTERING" && !t.registeredMe) {
    box.append(h("button", { type: "button", class: "primary", id: "tn-register", onclick: () => register() }, tr("tn.register")));
  }
  if (status === "REGISTERING" && t.registeredMe) {
    box.append(h("span", { class: "tn-mine" }, tr("tn.registered.me")),
      h("button", { type: "button", id: "tn-unregister", onclick: () => unregister() }, tr("tn.unregister")));
  }
  return box.childElementCount ? box : null;
}

/** The caller's seat at a table of the tournament's rounds, from its player ids; null if none. */
function seatIn(t, tableId) {
  for (const r of t.roundsPlayed || []) {
    for (const tb of r.tables || []) {
      if (tb.tableId !== tableId) continue;
      const seat = (tb.playerIds || []).indexOf(S.me && S.me.id);
      if (seat >= 0) return seat;
    }
  }
  return null;
}

function drawDetail() {
  const t = V.t;
  const spec = specOf(t);
  const status = statusOf(t);
  document.title = `${tr("app.title")} — ${spec.name || tr("tn.title")}`;
  const box = $("#tn-detail");
  V.draws++;
  box.dataset.version = String(V.version);
  box.dataset.draws = String(V.draws);
  box.dataset.status = status;
  box.dataset.tournament = t.tournamentId;
  $("#tn-detail-body").replaceChildren(...[
    h("header", { class: "row spread" }, h("h3", { id: "tn-name" }, spec.name || t.tournamentId), statusBadge(t)),
    facts(t),
    status === "CANCELLED" ? h("p", { class: "notice" }, tr("tn.cancelled"), t.cancelledReason ? ` ${t.cancelledReason}` : "") : null,
    actions(t),
    h("section", { class: "tn-prize-table", "aria-labelledby": "tn-detail-prizes" },
      prizeList(t, "tn-detail-prizes"),
      num(t.pool) ? h("p", { class: "help tn-pool", dataset: { pool: String(num(t.pool)) } }, tr("tn.pool", { pool: num(t.pool) })) : null),
    standings(t),
    rounds(t),
  ].filter(Boolean));
}

/** A tournament as the lobby answered: drawn when its version is not the one drawn. */
function took(t) {
  if (!t || t.tournamentId !== V.id) return;
  V.t = t;
  const v = String(num(t.version));
  if (v === V.version) return; // nothing happened since: no redraw
  V.version = v;
  drawDetail();
}

async function refreshDetail() {
  const id = V.id;
  if (!id || V.busy) return;
  V.busy = true;
  try {
    const r = await api("LobbyService", "GetTournament", { tournamentId: id });
    if (id === V.id) { showError(""); took(r.tournament); }
  } catch (e) {
    if (id === V.id) showError(errText(e));
  } finally {
    V.busy = false;
  }
}

/** #/tournament/<id>: one tournament, polled while open. */
export async function showTournament(id) {
  leaveTable();
  show("tournaments");
  $("#tn-list").hidden = true;
  $("#tn-detail").hidden = false;
  $("#tn-all").hidden = false;
  if (V.id !== id) {
    V.id = id;
    V.t = null;
    V.version = null;
    showError("");
    $("#tn-detail-body").replaceChildren(h("p", { class: "empty" }, tr("friends.loading")));
  }
  startPoll();
  await refreshDetail();
}

// ------------------------------------------------------------------ registering

/** The dialog that states the fee and the caller's chips; true to register. */
async function confirmFee(fee, name) {
  const dialog = $("#tn-dialog");
  const chips = await refreshChips();
  const have = chips !== null ? chips : S.me && S.me.chips !== undefined ? num(S.me.chips) : null;
  const short = have !== null && have < fee;
  $("#tn-dialog-what").textContent = name;
  $("#tn-dialog-text").textContent = fee ? tr("tn.register.confirm", { fee }) : tr("tn.register.free.confirm");
  $("#tn-dialog-text").dataset.fee = String(fee);
  const line = $("#tn-dialog-chips");
  line.textContent = have === null ? tr("stake.chips.unknown") : short ? tr("tn.register.short", { chips: have, fee })
    : tr("tn.register.chips", { chips: have, after: have - fee });
  line.className = short ? "error" : "";
  line.dataset.chips = have === null ? "" : String(have);
  const ok = $("#tn-dialog-ok");
  ok.disabled = short;
  return new Promise((resolve) => {
    const done = (yes) => {
      ok.onclick = null;
      $("#tn-dialog-cancel").onclick = null;
      dialog.onclose = null;
      if (dialog.open) dialog.close();
      resolve(yes);
    };
    ok.onclick = () => done(true);
    $("#tn-dialog-cancel").onclick = () => done(false);
    dialog.onclose = () => done(false); // Escape
    dialog.showModal();
    (short ? $("#tn-dialog-cancel") : ok).focus();
  });
}

async function register() {
  const t = V.t;
  if (!t) return;
  const fee = num(specOf(t).entryFee); // the fee the dialog states is the fee sent
  if (!(await confirmFee(fee, specOf(t).name || ""))) return;
  try {
    const r = await api("LobbyService", "RegisterTournament", { tournamentId: t.tournamentId, entryFee: fee });
    setChips(r.balance); // the chips after the fee, as the lobby says them
    showError("");
    announce(tr("tn.registered.done", { name: specOf(t).name || "" }));
    took(r.tournament);
  } catch (e) {
    showError(errText(e));
    refreshDetail(); // the fee, the field or the status changed: show what is now
  }
}

async function unregister() {
  const t = V.t;
  if (!t) return;
  try {
    const r = await api("LobbyService", "UnregisterTournament", { tournamentId: t.tournamentId });
    setChips(r.balance);
    showError("");
    announce(tr("tn.unregistered.done", { name: specOf(t).name || "" }));
    took(r.tournament);
  } catch (e) {
    showError(errText(e));
    refreshDetail();
  }
}

// ------------------------------------------------------------------ going to the table

/** Open a table of mine as "My tables" does: my seat from ListMyTables (else ``seat``). */
export async function openMyTable(tableId, seat = null) {
  let at = seat;
  if (hasMethod("LobbyService", "ListMyTables")) {
    try {
      const r = await api("LobbyService", "ListMyTables", {});
      const t = (r.tables || []).find((x) => x.tableId === tableId);
      if (t && mySeatAt(t) !== null) at = mySeatAt(t);
    } catch { /* the seat given, then */ }
  }
  go(`#/table/${tableId}/${at === null ? 0 : at}`);
}

// ------------------------------------------------------------------ the poll

/** Is a view of this page open (the detail when V.id), in a visible tab, signed in? */
function viewOpen() {
  if (!S.token || document.hidden || $("#screen-tournaments").hidden) return false;
  return V.id ? location.hash === `#/tournament/${V.id}` : location.hash === "#/tournaments";
}

function stopPoll() { clearInterval(V.timer); V.timer = null; }

function startPoll() {
  stopPoll();
  if (document.hidden) return;
  V.timer = setInterval(() => {
    if (!viewOpen()) { stopPoll(); return; }
    if (V.id) refreshDetail();
    else loadList();
  }, V.id ? DETAIL_POLL_MS : LIST_POLL_MS);
}

/** Is the page polling (for tests: it stops when the view closes or the tab is hidden)? */
export function tournamentPolling() { return V.timer !== null; }

/** Draw again in the page's language. */
export function renderTournaments() {
  if ($("#screen-tournaments").hidden) return;
  if (V.id && V.t) drawDetail();
  else if (!V.id) renderList();
}

export function bindTournaments() {
  $("#tournaments-open").addEventListener("click", () => go("#/tournaments"));
  $("#tn-back").addEventListener("click", () => go("#/lobby"));
  $("#tn-all").addEventListener("click", () => go("#/tournaments"));
  $("#tn-refresh").addEventListener("click", () => (V.id ? refreshDetail() : loadList()));
  // The view closes with its hash: the poll stops then, not at its next tick.
  window.addEventListener("hashchange", () => {
    if (location.hash !== (V.id ? `#/tournament/${V.id}` : "#/tournaments")) stopPoll();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) { stopPoll(); return; }
    if (viewOpen() && !V.timer) { startPoll(); if (V.id) refreshDetail(); else loadList(); }
  });
}

// The lobby screen. Its first screen (issue 47.5): the big "Hemen oyna" (quick play at the room
// picked), my own tables first (seating.js draws their waiting rooms and opens a table I wait at
// when it starts), my friends' tables (ListFriends, social.js), and the rooms as tiles with the
// lobby's counts of people playing and waiting (ListRooms, every 10 s while the lobby is shown).
// Then, one tap away: the tables (the lobby service's list, refreshed every 5 s), the rooms bar
// that filters them and their readable cards (rooms.js), joining them, the rating leaderboard's
// panel (leaderboard.js), the short create-table form (the common choices, the rest under "more
// options") drawn from the rules' option spec (options.js), and a table by its id.
import { $, $$, h, num, toast } from "./dom.js";
import { tr } from "./i18n.js";
import { S, go, mySeatAt, show } from "./state.js";
import { api, errText, hasMethod, serviceMissing } from "./api.js";
import { leaveTable } from "./table.js";
import { startChat } from "./chat.js";
import { confirmStake, keepChipsCurrent, quotePot, quotePractice } from "./wallet.js";
import { creatorName, fullRules, headlineRules, inRoom, practiceNote, renderRoomTiles, renderRooms, servedStakes, setServedRooms, stakeText, tableLabel } from "./rooms.js";
import { bindSeating, fillWithBots, openWithoutLobby, gameName, joinFriend, joinListed, leaveWaiting, refreshMyTables, renderMyTables, seatLine, statusName } from "./seating.js";
import { F, loadFriends, onFriendsChange } from "./social.js";
import { helpText, loadOptionSpec, optionsOf, valueText } from "./options.js";
import { presenceSoon } from "./presence.js";
import { refreshRanks } from "./leaderboard.js";

// The options in the create form's short part (the match's length, the seats, the stake): a
// choice of layout; every other option of the spec is under "more options".
const SHORT = new Set(["match_points", "seats", "rounds", "stake"]);
const LIFE_MS = 10000; // the rooms' counts and my friends' tables, asked again while the lobby is shown
let lifeTimer = null;

export function showLobby() {
  leaveTable();
  show("lobby");
  document.title = tr("app.title");
  renderCreateOptions();
  // The spec did not come at boot (the table service was away): the form comes with it.
  loadOptionSpec().then((here) => { if (here && !$("#create-options").childElementCount) renderCreateOptions(); });
  resetStake();
  refreshLobby();
  keepChipsCurrent();
  clearInterval(S.lobbyTimer);
  S.lobbyTimer = setInterval(refreshLobby, 5000);
  refreshLife();
  clearInterval(lifeTimer);
  lifeTimer = setInterval(refreshLife, LIFE_MS);
  startChat("lobby", "");
  refreshRanks();
}

async function refreshLobby() {
  const note = $("#lobby-unavailable");
  if (!hasMethod("LobbyService", "ListTables")) { S.lobbyDown = true; note.hidden = false; renderTables(); return; }
  try {
    // Playing tables always come, so a seated player finds their table again; the box filters the rest.
    const r = await api("LobbyService", "ListTables", { includePlaying: true, pageSize: 100 });
    const all = r.tables || [];
    const showPlaying = $("#include-playing").checked;
    S.lobbyDown = false;
    // My tables (private ones too) are in their own panel, with their waiting rooms.
    const own = hasMethod("LobbyService", "ListMyTables");
    if (await refreshMyTables()) return; // a table I waited at started: gone to it
    S.tables = all.filter((t) => (own ? mySeatAt(t) === null : true) && (showPlaying || statusName(t.status) === "WAITING" || mySeatAt(t) !== null));
    note.hidden = true;
    renderMyTables();
    renderTables(); // with my friends' tables: a table of mine is not a friend's card
  } catch (e) {
    if (serviceMissing(e)) { S.lobbyDown = true; note.hidden = false; S.tables = []; renderTables(); }
    else toast(errText(e));
  }
}

export function renderTables() {
  renderLife();
  const box = $("#tables");
  box.replaceChildren();
  renderRooms($("#rooms"), pickRoom);
  $("#rooms").hidden = S.lobbyDown; // no lobby, no list to filter
  const shown = S.tables.filter((t) => inRoom(t));
  if (!shown.length) {
    const text = S.lobbyDown ? "" : tr(S.tables.length ? "rooms.none" : "lobby.none");
    box.append(h("p", { class: "empty" }, text));
    return;
  }
  for (const t of shown) box.append(tableCard(t));
  presenceSoon();
}

/** The first screen drawn from what the lobby last said (the language switch redraws it too). */
function renderLife() {
  const tiles = $("#room-tiles");
  renderRoomTiles(tiles, pickRoom);
  $("#rooms-panel").hidden = S.lobbyDown || tiles.hidden;
  renderFriendTables();
}

// A room chosen: the list shows its tables, and quick play and the create form take its game
// and stake (shown, so nothing is chosen silently; every stake is still confirmed).
function pickRoom(r) {
  if (r.game) {
    $("#quick-game").value = r.game;
    if ($("#create-game").value !== r.game) { $("#create-game").value = r.game; renderCreateOptions(); }
  }
  if (r.stake !== "") $("#quick-stake").value = r.stake;
  renderTables();
}

// ------------------------------------------------------------------ the first screen's life

/** The rooms' counts (ListRooms) and my friends' tables (ListFriends), drawn as they come; the
 * timer stops when the lobby is left, and nothing is asked while the page is hidden. */
async function refreshLife() {
  if ($("#screen-lobby").hidden) { clearInterval(lifeTimer); lifeTimer = null; return; }
  if (document.hidden) return;
  await Promise.all([refreshRoomCounts(), loadFriends().catch(() => false)]);
  syncQuickStakes();
  renderTables(); // the bar's counts, the tiles and the friends' tables
}

async function refreshRoomCounts() {
  if (S.lobbyDown || !hasMethod("LobbyService", "ListRooms")) return;
  try { setServedRooms((await api("LobbyService", "ListRooms", {})).rooms); } catch { /* the counts stay as they were */ }
}

// Quick play offers the stakes of the lobby's rooms (the page's list only until they come).
function syncQuickStakes() {
  const sel = $("#quick-stake");
  const stakes = servedStakes();
  if (!sel || !stakes.length || $$("option", sel).map((o) => o.value).join() === stakes.join()) return;
  const value = sel.value;
  sel.replaceChildren(...stakes.map((v) => (v === "0"
    ? h("option", { value: v, "data-i18n": "seating.nostake" }, tr("seating.nostake")) : h("option", { value: v }, v))));
  sel.value = stakes.includes(value) ? value : "0";
}

/** My friends' tables as cards (one per table, naming the friends at it), but not my own. */
function renderFriendTables() {
  const panel = $("#friends-tables-panel");
  const box = $("#friends-tables");
  if (!panel || !box) return;
  const mine = new Set((S.myTables || []).map((t) => t.tableId));
  const at = new Map();
  for (const f of F.friends) {
    const t = f.table;
    if (!t || !t.tableId || mine.has(t.tableId)) continue;
    if (!at.has(t.tableId)) at.set(t.tableId, { t, friends: [] });
    at.get(t.tableId).friends.push(f);
  }
  panel.hidden = !at.size;
  box.replaceChildren(...[...at.values()].map(friendCard));
}

function friendCard({ t, friends }) {
  const id = t.tableId;
  const status = statusName(t.status);
  const titleId = "friend-table-" + id;
  const names = friends.map((f) => f.displayName).join(", ");
  const actions = h("div", { class: "card-actions row" });
  const seat = mySeatAt(t);
  if (seat !== null) {
    actions.append(h("button", { type: "button", class: "primary", onclick: () => go(`#/table/${id}/${seat}`) }, tr("lobby.open")));
  } else if (status === "WAITING" && num(t.seatsTaken) < num(t.seatCount) && t.visibility !== "TABLE_VISIBILITY_PRIVATE") {
    actions.append(h("button", { type: "button", class: "primary", "aria-describedby": titleId, onclick: () => joinFriend(friends[0]) }, tr("friends.join")));
  } else if (status === "PLAYING" || status === "STARTING") {
    actions.append(h("button", { type: "button", "aria-describedby": titleId, onclick: () => { S.watchCard = t; go(`#/table/${id}`); } }, tr("friends.watch")));
  }
  return h("article", { class: "card friend", "aria-labelledby": titleId, dataset: { table: id } },
    h("header", { class: "row spread" },
      h("h4", { id: titleId }, tableLabel(t), " · ", tr("game." + gameName(t.game))),
      h("span", { class: "badge status-" + status.toLowerCase() }, tr("status." + status))),
    h("p", { class: "card-meta" },
      h("strong", { class: "card-friends" }, tr("life.friendsAt", { names })), " · ",
      num(t.stake) ? tr("rooms.stake", { stake: stakeText(t.stake) }) : tr("rooms.nostake"),
      " · ", tr("lobby.seats", { taken: num(t.seatsTaken), count: num(t.seatCount) })),
    actions);
}

/** "Tüm masalar", "Masa aç": the rest of the lobby, one tap away (scrolled to, its heading focused). */
function jumpTo(sel) {
  const el = $(sel);
  if (!el) return;
  el.scrollIntoView({ block: "start" });
  el.focus({ preventScroll: true });
}

/** A table's card: its name, game and stake, who sits where, the rules that matter, a way in. */
function tableCard(t) {
  const id = t.tableId;
  const status = statusName(t.status);
  const mine = mySeatAt(t);
  const game = gameName(t.game);
  const titleId = "card-" + id;
  const actions = h("div", { class: "card-actions row" });
  if (mine !== null && (status === "PLAYING" || status === "STARTING" || status === "FINISHED")) {
    actions.append(h("button", { type: "button", class: "primary", onclick: () => { location.hash = `#/table/${id}/${mine}`; } }, tr("lobby.open")));
  }
  if (mine !== null && status === "WAITING") {
    if (t.creatorId === S.me.id) {
      actions.append(h("button", { type: "button", class: "primary", onclick: () => fillWithBots(id) }, tr("lobby.fill")));
    }
    actions.append(h("button", { type: "button", onclick: () => leaveWaiting(id, false) }, tr("lobby.leave")));
  }
  if (mine === null && status === "WAITING") {
    actions.append(h("button", { type: "button", class: "primary", "aria-describedby": titleId, onclick: () => joinListed(t) }, tr("lobby.join")));
  }
  if (mine === null && (status === "PLAYING" || status === "STARTING")) { // as a spectator: no seat, no rack
    actions.append(h("button", { type: "button", "aria-describedby": titleId, onclick: () => { location.hash = `#/table/${id}`; } }, tr("friends.watch")));
  }
  const creator = creatorName(t);
  return h("article", { class: "card", "aria-labelledby": titleId, dataset: { table: id } },
    h("header", { class: "row spread" },
      h("h4", { id: titleId }, tableLabel(t)),
      h("span", { class: "badge status-" + status.toLowerCase() }, tr("status." + status))),
    h("p", { class: "card-meta" },
      h("strong", { class: "card-game" }, tr("game." + game)), " · ",
      h("span", { class: "card-stake" + (num(t.stake) ? "" : " free") }, num(t.stake) ? tr("rooms.stake", { stake: stakeText(t.stake) }) : tr("rooms.nostake")),
      " · ", tr("lobby.seats", { taken: num(t.seatsTaken), count: num(t.seatCount) }),
      creator ? " · " + tr("rooms.by", { name: creator }) : "",
      t.visibility === "TABLE_VISIBILITY_PRIVATE" ? " · " + tr("lobby.private") : "",
      t.inviteCode ? " · " + tr("lobby.invite", { code: t.inviteCode }) : ""),
    h("ul", { class: "card-seats", "aria-label": tr("seating.seats") }, (t.seats || []).map(seatLine)),
    h("ul", { class: "card-headline", "aria-label": tr("rooms.headline") }, headlineRules(t).map((r) => h("li", {}, r))),
    practiceNote(t),
    fullRules(t),
    actions);
}

// ------------------------------------------------------------------ creating a table

// The short form holds the SHORT options of the game's spec; every other one is under "more
// options" (#create-more, a closed <details>). Bounds, values and defaults are the spec's.
export function renderCreateOptions() {
  const box = $("#create-options");
  const short = $("#create-short");
  if (!box || !short) return;
  const game = $("#create-game").value;
  const previous = {};
  for (const el of $$("[data-opt]", $("#create-form"))) previous[el.dataset.opt] = el.type === "checkbox" ? el.checked : el.value;
  box.replaceChildren();
  short.replaceChildren();
  for (const o of optionsOf(game)) (SHORT.has(o.name) ? short : box).append(optionField(o, previous[o.name]));
  $("#create-form").onchange = syncCreateConstraints;
  syncCreateConstraints();
  syncPracticeAhead();
}

// Next to "fill with bots": whether the table these options open would be practice (unranked),
// before anyone sits. The lobby says it (QuotePot's count of people, wallet.quotePractice); the
// last answer wins, and nothing is said when the lobby cannot say.
let practiceAsk = 0;
async function syncPracticeAhead() {
  const note = $("#create-practice");
  if (!note) return;
  const ask = ++practiceAsk;
  const game = $("#create-game").value;
  const practice = await quotePractice(readOptions(game), $("#create-fill").checked);
  if (ask !== practiceAsk) return;
  note.hidden = practice !== true;
}

function optionField(o, previous) {
  const id = "opt-" + o.name;
  const helpId = id + "-help";
  let input;
  if (o.kind === "bool") {
    input = h("input", { type: "checkbox", id, "data-opt": o.name, "aria-describedby": helpId });
    input.checked = previous !== undefined ? previous : o.def;
  } else if (o.kind === "int") {
    input = h("input", { type: "number", id, "data-opt": o.name, min: o.min, max: o.max, step: 1, inputmode: "numeric", "aria-describedby": helpId,
      list: o.name === "stake" ? "stake-choices" : null });
    input.value = previous !== undefined ? previous : o.def;
  } else {
    const values = o.kind === "enum" ? o.values : o.choices;
    input = h("select", { id, "data-opt": o.name, "aria-describedby": helpId },
      values.map((v) => h("option", { value: String(v) }, valueText(o, v))));
    input.value = previous !== undefined ? previous : String(o.def);
  }
  return h("div", { class: "option " + (o.kind === "bool" ? "bool" : "") },
    h("label", { for: id }, tr("opt." + o.name)),
    input,
    h("p", { id: helpId, class: "help" }, helpText(o), " ", h("span", { class: "def" }, "(" + tr("create.default", { value: valueText(o) }) + ")")));
}

// Combinations the rules refuse are not offered: PAIRS_ONLY history needs a binding pairs
// declaration [C-PAIR-3] (the server refuses the other one with INVALID_OPTIONS all the same).
function syncCreateConstraints() {
  const hist = $('[data-opt="discard_history"]');
  const decl = $('[data-opt="pairs_declaration"]');
  if (!hist || !decl) return;
  const pairsOnly = hist.value === "PAIRS_ONLY";
  const marker = decl.querySelector('option[value="MARKER"]');
  if (marker) marker.disabled = pairsOnly;
  if (pairsOnly && decl.value === "MARKER") decl.value = "BINDING";
  let note = $("#opt-pairs-note");
  if (!note) {
    note = h("p", { id: "opt-pairs-note", class: "help note", role: "status" });
    decl.after(note);
  }
  note.textContent = pairsOnly ? tr("opt.pairs_declaration.needs_binding") : "";
  note.hidden = !pairsOnly;
}

function readOptions(game) {
  const options = { game: "GAME_" + game };
  for (const o of optionsOf(game)) {
    const el = $(`[data-opt="${o.name}"]`);
    if (!el) continue;
    if (o.kind === "bool") options[o.json] = el.checked;
    else if (o.kind === "enum") options[o.json] = o.prefix + el.value;
    else options[o.json] = Number(el.value);
  }
  return options;
}

// The stake (and 101's hand prize) go back to none after a sit and when the lobby opens: a stake
// is chosen, and confirmed, each time, never kept from the last table (issue 18.4).
function resetStake() {
  for (const name of ["stake", "hand_prize"]) {
    const el = $(`[data-opt="${name}"]`);
    if (el) el.value = "0";
  }
}

async function createTable(ev) {
  if (ev) ev.preventDefault();
  const game = $("#create-game").value;
  const options = readOptions(game);
  const fill = $("#create-fill").checked;
  const err = $("#create-error");
  err.hidden = true;
  const quote = S.lobbyDown ? null : await quotePot(options, fill); // what can be won: the lobby's
  if (!S.lobbyDown && !(await confirmStake(options.stake, tr("game." + game), quote && { ...quote, full: !fill }))) return;
  const btn = $("#create-submit");
  btn.disabled = true;
  btn.textContent = tr("create.busy");
  try {
    if (!S.lobbyDown && hasMethod("LobbyService", "OpenTable")) {
      try {
        const r = await api("LobbyService", "OpenTable", {
          options, visibility: $("#create-visibility").value, fillWithBots: fill,
        });
        const id = r.table.tableId;
        resetStake();
        keepChipsCurrent();
        if (fill) location.hash = `#/table/${id}/${num(r.seat)}`;
        else { S.waitingAt.add(id); await refreshLobby(); $("#my-tables-panel").scrollIntoView({ block: "nearest" }); }
        return;
      } catch (e) {
        if (!serviceMissing(e)) throw e;
        S.lobbyDown = true;
        $("#lobby-unavailable").hidden = false;
      }
    }
    await openWithoutLobby(options);
  } catch (e) {
    err.textContent = errText(e);
    err.hidden = false;
  } finally {
    btn.disabled = false;
    btn.textContent = tr("create.submit");
  }
}

export function bindLobby() {
  $("#lobby-refresh").addEventListener("click", refreshLobby);
  $("#include-playing").addEventListener("change", refreshLobby);
  $("#create-game").addEventListener("change", renderCreateOptions);
  $("#create-form").addEventListener("submit", (e) => createTable(e));
  $("#create-form").addEventListener("change", (e) => { if (e.target.id !== "create-game") syncPracticeAhead(); });
  bindSeating(refreshLobby);
  onFriendsChange(() => { if (!$("#screen-lobby").hidden) renderFriendTables(); });
  document.addEventListener("visibilitychange", () => { if (!document.hidden && lifeTimer) refreshLife(); });
  for (const b of $$("[data-jump]")) b.addEventListener("click", () => jumpTo(b.dataset.jump));
  $("#byid-form").addEventListener("submit", (e) => { e.preventDefault(); location.hash = `#/table/${$("#byid-input").value.trim()}`; });
}

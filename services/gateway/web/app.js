// The Okey web client's entry point (index.html loads it as a module; native ES modules, no
// build step): it holds the table-option spec the create form is drawn from, wires the screens'
// listeners, routes by the URL's hash, and boots. What each module owns: docs/design.md,
// "The web client".
import { $, $$, store, toast } from "./dom.js";
import { setLang, tr, translateStatic } from "./i18n.js";
import { S, hintsKey } from "./state.js";
import { errText, loadMethods, whenUnauthorized } from "./api.js";
import { bindSignin, renderWho, showSignin, signOut, useToken } from "./signin.js";
import { decodeToken, refreshSession, whenSessionEnds } from "./session.js";
import { bindLobby, renderCreateOptions, renderTables, showLobby } from "./lobby.js";
import { bindTable, enterTable, renderTable } from "./table.js";
import { bindReport, renderChats, renderReportReasons } from "./chat.js";
import { joinByCode, renderMyTables } from "./seating.js";
import { keepChipsCurrent } from "./wallet.js";
import { bindProfile } from "./profile.js";
import { bindAccount } from "./account.js";
import { setRackHints } from "./rack.js";
import { rackHint } from "./fits.js";
import { currentTable, rememberTable } from "./resume.js";
import { tableLabel } from "./rooms.js";
import { bindStaff, showStaff, staffRole } from "./staff.js";

// Every option of RULES.md section 5, in that order: its JSON name, its games, its kind;
// `short`: in the create form's short part (the rest is under "more options").
const OPTIONS = [
  { name: "match_points", json: "matchPoints", games: ["OKEY"], type: "int", min: 1, max: 1000, def: 20, short: true },
  { name: "indicator", json: "indicator", games: ["OKEY"], type: "bool", def: true },
  { name: "indicator_scoring", json: "indicatorScoring", games: ["OKEY"], type: "enum", prefix: "INDICATOR_SCORING_",
    values: ["OTHERS_MINUS_1", "SHOWER_PLUS_1"] },
  { name: "indicator_timing", json: "indicatorTiming", games: ["OKEY"], type: "enum", prefix: "INDICATOR_TIMING_",
    values: ["BEFORE_FIRST_MOVE", "FIRST_TURN"] },
  { name: "colored", json: "colored", games: ["OKEY"], type: "bool", def: false },
  { name: "partners", json: "partners", games: ["OKEY"], type: "bool", def: false },
  { name: "duel", json: "duel", games: ["OKEY"], type: "bool", def: false },
  { name: "penalties", json: "penalties", games: ["OKEY"], type: "bool", def: false },
  { name: "discard_history", json: "discardHistory", games: ["OKEY"], type: "enum", prefix: "DISCARD_HISTORY_",
    values: ["ALL", "PAIRS_ONLY"] },
  { name: "pairs_declaration", json: "pairsDeclaration", games: ["OKEY"], type: "enum", prefix: "PAIRS_DECLARATION_",
    values: ["MARKER", "BINDING"] },
  { name: "deck_end", json: "deckEnd", games: ["OKEY"], type: "enum", prefix: "DECK_END_", values: ["DEAD_HAND", "LAST_CHANCE"] },
  { name: "turn_seconds", json: "turnSeconds", games: ["OKEY", "OKEY101"], type: "int", min: 5, max: 120, def: 20 },
  { name: "hand_break_seconds", json: "handBreakSeconds", games: ["OKEY", "OKEY101"], type: "int", min: 0, max: 30, def: 6 },
  { name: "seats", json: "seats", games: ["OKEY101"], type: "choice", values: [4, 2], short: true },
  { name: "wrap", json: "wrap", games: ["OKEY101"], type: "bool", def: false },
  { name: "mode", json: "mode", games: ["OKEY101"], type: "enum", prefix: "MODE_", values: ["PLAIN", "FOLDING"] },
  { name: "rounds", json: "rounds", games: ["OKEY101"], type: "choice", values: [5, 3, 7, 9, 11], short: true },
  { name: "discard_penalty", json: "discardPenalty", games: ["OKEY101"], type: "bool", def: true },
  { name: "stake", json: "stake", games: ["OKEY", "OKEY101"], type: "int", min: 0, max: 1000000000, def: 0, short: true },
  { name: "hand_prize", json: "handPrize", games: ["OKEY101"], type: "int", min: 0, max: 1000000000, def: 0 },
  { name: "bot_level", json: "botLevel", games: ["OKEY", "OKEY101"], type: "enum", prefix: "BOT_LEVEL_",
    values: ["HARD", "NORMAL", "EASY"] },
  { name: "bot_pace", json: "botPace", games: ["OKEY", "OKEY101"], type: "enum", prefix: "BOT_PACE_",
    values: ["AUTO", "HUMAN", "INSTANT"] },
];

// Every string on the page follows a language switch: the static ones and each screen's.
function applyLang() {
  translateStatic();
  document.title = S.t ? `${tr("app.title")} — ${tableLabel({ tableId: S.t.id })}` : tr("app.title");
  renderWho();
  renderCreateOptions();
  renderReportReasons();
  if (!$("#screen-lobby").hidden) { renderMyTables(); renderTables(); }
  if (S.t && !$("#screen-table").hidden) renderTable();
  if (!$("#screen-staff").hidden) showStaff();
  renderChats();
}

// #/table/<id>/<seat>: a table; #/join/<code>: a friend's share link (signed out, the sign-in
// keeps the hash and comes back here); #/staff: the moderators' page (staff accounts only);
// anything else: the lobby.
async function route() {
  if (!S.token) { showSignin(); return; }
  keepChipsCurrent();
  const join = location.hash.match(/^#\/join\/([A-Za-z0-9-]{1,40})$/);
  if (join) {
    history.replaceState(null, "", "#/lobby");
    showLobby();
    joinByCode(join[1]);
    return;
  }
  if (location.hash === "#/staff" && staffRole()) { await showStaff(); return; }
  const m = location.hash.match(/^#\/table\/([A-Za-z0-9_-]+)(?:\/(\d+))?/);
  if (m) {
    await enterTable(m[1], m[2] !== undefined ? Number(m[2]) : null);
    if (S.t && S.t.id === m[1]) rememberTable();
    return;
  }
  // Opening the site while seated at a match in play goes to that table [issue 18.9].
  const bare = !location.hash || location.hash === "#" || location.hash === "#/";
  if (bare) {
    const to = await currentTable();
    const still = !location.hash || location.hash === "#" || location.hash === "#/";
    if (to && still && S.token) { location.replace(to); return; }
  }
  showLobby();
}

async function boot() {
  for (const b of $$(".lang button")) b.addEventListener("click", () => { setLang(b.dataset.lang); applyLang(); });
  // The first refusal of an ended session (a refused refresh, a token that cannot be renewed)
  // signs out once: every poll, timer and watch stops, and the sign-in page offers "continue as".
  const ended = () => { if (S.token) signOut(tr("signin.expired")); };
  whenUnauthorized(ended);
  whenSessionEnds(ended);
  bindSignin();
  bindLobby(OPTIONS);
  bindTable();
  setRackHints(rackHint);
  bindReport();
  bindProfile();
  bindAccount();
  bindStaff();
  window.addEventListener("hashchange", route);
  window.addEventListener("okey-token-renewed", () => {
    renderWho(); // the moderators' link follows the token's role
    if (!$("#screen-staff").hidden && !staffRole()) showLobby();
  });
  applyLang();
  await loadMethods();
  const token = store.get("okey.token");
  const claims = decodeToken(token);
  if (claims && (!claims.exp || claims.exp * 1000 > Date.now())) useToken(token);
  else if (claims && (await refreshSession())) useToken(S.token); // expired while away: the session renews it
  route();
}

// For tests and debugging: the state, and a way to drop the live connection (it resumes).
window.okeyApp = {
  state: S,
  dropSocket() { if (S.t && S.t.ws) S.t.ws.close(4000, "test"); },
  version() { return S.t ? S.t.version : 0; },
  // Show a refusal as the page shows one, by its reason code ({reason, code, message}, and what
  // was sent: {command, body} or {name}); returns the text (the refusal test scans every code).
  showRefusal(err, ctx) { const text = errText(err, ctx); toast(text); return text; },
  hintsFresh() { return !!(S.t && S.t.view && S.t.hints && S.t.hintsKey === hintsKey(S.t)); },
};

// A module runs after the document is parsed (modules are deferred).
boot();

// The Okey web client's entry point (index.html loads it as a module; native ES modules, no
// build step): it wires the screens' listeners, routes by the URL's hash, and boots, asking
// first for the rules' option spec the create form and the cards are drawn from (options.js).
// What each module owns: docs/design.md, "The web client".
import { $, $$, store, toast } from "./dom.js";
import { setLang, tr, translateStatic } from "./i18n.js";
import { S, hintsKey } from "./state.js";
import { errText, loadMethods, whenUnauthorized } from "./api.js";
import { bindSignin, renderWho, showSignin, signOut, useToken } from "./signin.js";
import { decodeToken, refreshSession, whenSessionEnds } from "./session.js";
import { bindLobby, renderCreateOptions, renderTables, showLobby } from "./lobby.js";
import { bindTable, enterTable, leaveTable, renderTable } from "./table.js";
import { bindReport, renderChats, renderReportReasons } from "./chat.js";
import { joinByCode, renderMyTables } from "./seating.js";
import { keepChipsCurrent } from "./wallet.js";
import { bindProfile } from "./profile.js";
import { bindRanks, refreshRanks } from "./leaderboard.js";
import { bindAccount } from "./account.js";
import { setRackHints } from "./rack.js";
import { rackHint } from "./fits.js";
import { currentTable, rememberTable } from "./resume.js";
import { tableLabel } from "./rooms.js";
import { bindStaff, showStaff, staffRole } from "./staff.js";
import { loadOptionSpec } from "./options.js";
import { bindFriends, renderFriends } from "./friends.js";
import { bindNotifications, notificationsLive, renderNotifications, startNotifications } from "./notifications.js";
import { keepPresence, relabelPresence } from "./presence.js";
import { bindTournaments, renderTournaments, showTournament, showTournaments, tournamentPolling } from "./tournaments.js";
import { bindReplay, renderReplay, replayState, showReplay } from "./replay.js";

// Every string on the page follows a language switch: the static ones and each screen's.
function applyLang() {
  translateStatic();
  document.title = S.t ? `${tr("app.title")} — ${tableLabel({ tableId: S.t.id })}` : tr("app.title");
  renderWho();
  renderCreateOptions();
  renderReportReasons();
  if (!$("#screen-lobby").hidden) { renderMyTables(); renderTables(); refreshRanks(); }
  if (S.t && !$("#screen-table").hidden) renderTable();
  if (!$("#screen-staff").hidden) showStaff();
  renderReplay();
  renderTournaments();
  renderChats();
  renderFriends();
  renderNotifications();
  relabelPresence();
}

// #/table/<id>/<seat>: a table; #/join/<code>: a friend's share link (signed out, the sign-in
// keeps the hash and comes back here); #/staff: the moderators' page (staff accounts only);
// #/tournaments, #/tournament/<id>: the tournaments; #/replay/<id>/<hand>: a finished hand's
// replay (its share link; back to the table it was opened from); anything else: the lobby.
async function route() {
  if (!S.token) { showSignin(); return; }
  keepChipsCurrent();
  // Signed in: the notifications' stream (once), the friends button, and the presence dots' poll.
  startNotifications();
  renderFriends();
  keepPresence();
  const join = location.hash.match(/^#\/join\/([A-Za-z0-9-]{1,40})$/);
  if (join) {
    history.replaceState(null, "", "#/lobby");
    showLobby();
    joinByCode(join[1]);
    return;
  }
  if (location.hash === "#/staff" && staffRole()) { await showStaff(); return; }
  if (location.hash === "#/tournaments") { await showTournaments(); return; }
  const tn = location.hash.match(/^#\/tournament\/([A-Za-z0-9_-]{1,64})$/);
  if (tn) { await showTournament(tn[1]); return; }
  const rp = location.hash.match(/^#\/replay\/([A-Za-z0-9_-]{1,64})\/(\d{1,4})$/);
  if (rp) {
    const back = S.t && S.t.id === rp[1] ? `#/table/${S.t.id}${S.t.seat !== null ? "/" + S.t.seat : ""}` : "";
    leaveTable();
    await showReplay(rp[1], Number(rp[2]), back);
    return;
  }
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
    // Gone elsewhere meanwhile (the moderators' page, a table: that hash's own route shows it),
    // or signed out: the lobby must not be drawn over it.
    if (!still || !S.token) return;
    if (to) { location.replace(to); return; }
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
  bindLobby();
  bindTable();
  setRackHints(rackHint);
  bindReport();
  bindProfile();
  bindRanks();
  bindAccount();
  bindStaff();
  bindFriends();
  bindNotifications();
  bindTournaments();
  bindReplay();
  window.addEventListener("hashchange", route);
  window.addEventListener("okey-avatar-changed", applyLang); // a face picked: every screen redraws
  window.addEventListener("okey-token-renewed", () => {
    renderWho(); // the moderators' link follows the token's role
    if (!$("#screen-staff").hidden && !staffRole()) showLobby();
  });
  applyLang();
  const spec = loadOptionSpec(); // needs no token: asked while the methods and the session are
  await loadMethods();
  const token = store.get("okey.token");
  const claims = decodeToken(token);
  if (claims && (!claims.exp || claims.exp * 1000 > Date.now())) useToken(token);
  else if (claims && (await refreshSession())) useToken(S.token); // expired while away: the session renews it
  if (await spec) renderCreateOptions();
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
  notificationsLive,
  tournamentPolling,
  replay: replayState,
  hintsFresh() { return !!(S.t && S.t.view && S.t.hints && S.t.hintsKey === hintsKey(S.t)); },
};

// A module runs after the document is parsed (modules are deferred).
boot();

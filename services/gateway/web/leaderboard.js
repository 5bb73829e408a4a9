// The leaderboard by skill rating (issue 45): the scoring service's GetLeaderboard with
// order RATING, one game and one period (this week: by the week's change; all time: by rating),
// the top 10 with names through the lobby's GetPlayer. Drawn in the lobby's own panel (its game
// and period switches kept on the device) and in the profile dialog. The ranks, ratings and
// changes are the server's; the page orders and counts nothing. When the caller is not among
// the rows shown, their own place (the response's `mine`) is a last row below them.
import { $, $$, h, num, store } from "./dom.js";
import { tr } from "./i18n.js";
import { S } from "./state.js";
import { api, errText, hasMethod } from "./api.js";
import { changeText, ratingText } from "./rating.js";

const TOP = 10;
const names = new Map(); // player id -> display name

async function nameOf(id) {
  if (names.has(id)) return names.get(id);
  let name = id;
  try {
    const r = await api("LobbyService", "GetPlayer", { playerId: id });
    name = (r.player && r.player.displayName) || id;
  } catch { /* the id, then */ }
  names.set(id, name);
  return name;
}

/** Fill ``box`` with one board: ``game`` GAME_OKEY or GAME_OKEY101, ``period`` a LeaderboardPeriod,
 * the top ``size`` rows (then the caller's own, when not among them). */
export async function drawBoard(box, game, period, size = TOP) {
  const ask = `${game}/${period}`;
  box.dataset.asking = ask; // a later switch wins over an earlier answer
  if (!hasMethod("ScoringService", "GetLeaderboard")) { box.replaceChildren(h("p", { class: "help" }, tr("profile.noscoring"))); return; }
  let entries, mine;
  try {
    const r = await api("ScoringService", "GetLeaderboard", { game, period, order: "LEADERBOARD_ORDER_RATING", pageSize: size });
    entries = r.entries || [];
    mine = r.mine && r.mine.playerId && !entries.some((e) => e.playerId === r.mine.playerId) ? r.mine : null;
  } catch (e) {
    if (box.dataset.asking === ask) box.replaceChildren(h("p", { class: "error" }, errText(e)));
    return;
  }
  const weekly = period === "LEADERBOARD_PERIOD_WEEKLY";
  const values = (e) => [
    h("td", { class: "rating-value" }, ratingText(e.rating)),
    h("td", {}, weekly ? changeText(e.ratingChange) : num(e.ratedMatches))];
  const data = (e) => ({ player: e.playerId, rank: String(num(e.rank)), rating: String(num(e.rating)), change: String(num(e.ratingChange)) });
  const rows = await Promise.all(entries.map(async (e) => {
    const isMe = S.me && e.playerId === S.me.id;
    return h("tr", { class: isMe ? "me" : "", dataset: data(e) },
      h("td", {}, num(e.rank)),
      h("th", { scope: "row" }, await nameOf(e.playerId), isMe ? ` (${tr("table.you")})` : ""),
      ...values(e));
  }));
  // the caller beyond the top: their own place, as the server ranks it
  const own = mine && h("tfoot", { "aria-label": tr("board.mine.label") },
    h("tr", { class: "me mine", dataset: data(mine) },
      h("td", {}, num(mine.rank)),
      h("th", { scope: "row" }, tr("board.mine")),
      ...values(mine)));
  if (box.dataset.asking !== ask) return;
  if (!rows.length) { box.replaceChildren(h("p", { class: "help" }, tr("board.empty"))); return; }
  const cols = ["board.rank", "board.player", "rating.col", weekly ? "rating.week" : "rating.matches"];
  box.replaceChildren(h("table", { class: "stats leaders", dataset: { game, period } },
    h("thead", {}, h("tr", {}, cols.map((k) => h("th", { scope: "col" }, tr(k))))),
    h("tbody", {}, rows), own));
}

// ------------------------------------------------------------------ the lobby's panel

const choice = { game: "GAME_OKEY", period: "LEADERBOARD_PERIOD_WEEKLY" };

function pressButtons() {
  for (const b of $$("#ranks-panel [data-game]")) b.setAttribute("aria-pressed", String(b.dataset.game === choice.game));
  for (const b of $$("#ranks-panel [data-period]")) b.setAttribute("aria-pressed", String(b.dataset.period === choice.period));
}

/** Draw the lobby's panel again (the lobby opens, a switch, the language). */
export function refreshRanks() {
  const box = $("#ranks-board");
  if (!box || !S.token) return;
  pressButtons();
  drawBoard(box, choice.game, choice.period);
}

export function bindRanks() {
  const kept = (store.get("okey.ranks") || "").split("/");
  if (["GAME_OKEY", "GAME_OKEY101"].includes(kept[0])) choice.game = kept[0];
  if (["LEADERBOARD_PERIOD_WEEKLY", "LEADERBOARD_PERIOD_ALL_TIME"].includes(kept[1])) choice.period = kept[1];
  for (const b of $$("#ranks-panel button[data-game], #ranks-panel button[data-period]")) {
    b.addEventListener("click", () => {
      if (b.dataset.game) choice.game = b.dataset.game;
      if (b.dataset.period) choice.period = b.dataset.period;
      store.set("okey.ranks", `${choice.game}/${choice.period}`);
      refreshRanks();
    });
  }
  pressButtons();
}

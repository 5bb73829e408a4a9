// The profile dialog, one click from the top bar on every screen (issue 18.4): the name and
// chips, the daily chips (the lobby's ClaimDailyChips, once a Turkish day), the player's rating
// per game and stats (the scoring service's GetPlayerStats) and the rating leaderboard
// (leaderboard.js).
import { $, h, num, toast } from "./dom.js";
import { currentLang, tr } from "./i18n.js";
import { S } from "./state.js";
import { api, errText, hasMethod } from "./api.js";
import { refreshChips } from "./wallet.js";
import { drawBoard } from "./leaderboard.js";
import { gameText, ratingLines } from "./rating.js";
import { renderAvatarPicker } from "./avatars.js";

function when(ts) {
  if (!ts) return "";
  const d = new Date(ts);
  return isNaN(d) ? "" : d.toLocaleString(currentLang() === "en" ? "en-GB" : "tr-TR", { dateStyle: "short", timeStyle: "short" });
}

/** Why the day's chips cannot be had now, in words, when another account had them (the lobby's
 * answer: the same check its claim makes); "" when they can, or this account had them. */
export function dailyRefusal() {
  const why = S.me && S.me.dailyReason;
  if (why !== "DEVICE" && why !== "ADDRESS") return "";
  return tr("daily.reason." + why, { limit: num(S.me.dailyLimit), when: when(S.me.nextDaily) });
}

function renderHead() {
  $("#profile-name").textContent = S.me ? S.me.name : "";
  $("#profile-chips").textContent = S.me && S.me.chips !== undefined ? tr("signin.chips", { chips: num(S.me.chips) }) : "";
  const next = S.me && S.me.nextDaily ? new Date(S.me.nextDaily) : null;
  const ready = !next || next <= new Date();
  const refused = dailyRefusal();
  $("#daily-next").textContent = refused || (ready ? tr("daily.ready") : tr("daily.next", { when: when(S.me.nextDaily) }));
  $("#daily-claim").disabled = !!refused; // the claim would say the same: nothing to press
}

async function claimDaily() {
  const btn = $("#daily-claim");
  btn.disabled = true;
  try {
    const r = await api("LobbyService", "ClaimDailyChips", {});
    if (S.me) { S.me.chips = num(r.balance); S.me.nextDaily = r.nextClaimAt || ""; }
    const got = num(r.granted);
    $("#daily-result").textContent = got ? tr("daily.granted", { chips: got, balance: num(r.balance) }) : tr("daily.already", { when: when(r.nextClaimAt) });
    await refreshChips();
    renderHead();
  } catch (e) {
    $("#daily-result").textContent = errText(e);
    if (e.reason === "DAILY_CHIPS_TAKEN") { await refreshChips(); renderHead(); return; } // the lobby's why
  } finally {
    if (!dailyRefusal()) btn.disabled = false;
  }
}

async function renderStats() {
  const box = $("#profile-stats");
  box.replaceChildren();
  if (!hasMethod("ScoringService", "GetPlayerStats")) { box.append(h("p", { class: "help" }, tr("profile.noscoring"))); return; }
  try {
    const r = await api("ScoringService", "GetPlayerStats", { playerId: S.me.id });
    const stats = r.stats || [];
    box.append(h("h4", {}, tr("rating.title")), ratingLines(stats), h("p", { class: "help" }, tr("rating.help")));
    if (!stats.length) { box.append(h("p", { class: "help" }, tr("profile.nostats"))); return; }
    box.append(h("table", { class: "stats" },
      h("thead", {}, h("tr", {}, ["profile.game", "profile.matches", "profile.wins", "profile.hands", "profile.handsWon", "profile.chipsWon"]
        .map((k) => h("th", { scope: "col" }, tr(k))))),
      h("tbody", {}, stats.map((s) => h("tr", {},
        h("th", { scope: "row" }, gameText(s.game)),
        h("td", {}, num(s.matches)), h("td", {}, num(s.wins)), h("td", {}, num(s.handsPlayed)),
        h("td", {}, num(s.handsWon)), h("td", {}, num(s.chipsWon)))))));
  } catch (e) {
    if (e.reason === "PLAYER_NOT_FOUND") box.append(h("h4", {}, tr("rating.title")), ratingLines([]), h("p", { class: "help" }, tr("profile.nostats")));
    else box.append(h("p", { class: "error" }, errText(e)));
  }
}

const renderBoard = () => drawBoard($("#leaderboard"), $("#board-game").value, $("#board-period").value);

export async function openProfile() {
  const dialog = $("#profile-dialog");
  if (!S.me) return;
  $("#daily-result").textContent = "";
  $("#avatar-result").textContent = "";
  renderHead();
  renderAvatarPicker(); // the face and the grid to pick one (avatars.js)
  dialog.showModal();
  await refreshChips();
  renderHead();
  renderAvatarPicker();
  await Promise.all([renderStats(), renderBoard()]);
}

export function bindProfile() {
  $("#profile-open").addEventListener("click", () => openProfile().catch((e) => toast(errText(e))));
  $("#profile-close").addEventListener("click", () => $("#profile-dialog").close());
  $("#daily-claim").addEventListener("click", claimDaily);
  $("#board-game").addEventListener("change", renderBoard);
  $("#board-period").addEventListener("change", renderBoard);
}

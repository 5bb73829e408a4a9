// The chips: the count in the top bar kept current (the lobby's GetPlayer on every screen, after
// every sit, and every 15 s while signed in, so a pot paid at the table shows without a
// reload), and the stake confirmation every sit at a table with a stake goes through
// (issue 18.4): a dialog with the stake, the chips now and the chips left after sitting.
import { $, num, store } from "./dom.js";
import { tr } from "./i18n.js";
import { S } from "./state.js";
import { api, hasMethod } from "./api.js";
import { renderWho } from "./signin.js";
import { avatarFrom } from "./avatars.js";

const EVERY_MS = 15000;
let timer = null;

/** The caller's chips from the lobby (GetPlayer); the top bar follows. Null when unknown. */
export async function refreshChips() {
  if (!S.token || !S.me || S.lobbyDown || !hasMethod("LobbyService", "GetPlayer")) return null;
  try {
    const r = await api("LobbyService", "GetPlayer", {});
    if (r.player && S.me) {
      S.me.name = r.player.displayName || S.me.name;
      S.me.chips = num(r.player.chips);
      S.me.nextDaily = r.player.nextDailyChipsAt || "";
      dailyFrom(r.player);
      store.set("okey.name", S.me.name);
      renderWho();
      return S.me.chips;
    }
  } catch { /* the count stays as it was */ }
  return null;
}

/** Keep the lobby's answer about the day's chips (PlayerProfile): why they cannot be had now, if so. */
export function dailyFrom(player) {
  if (!S.me || !player) return;
  S.me.dailyReason = player.dailyChipsReason || "";
  S.me.dailyLimit = num(player.dailyChipsLimit);
  avatarFrom(player); // the caller's face, from the same profile
}

/** Stop refreshing the chips (signed out); keepChipsCurrent starts again. */
export function stopChips() { clearInterval(timer); timer = null; }

/** The chips as the lobby just said them (a settlement's balance, read with its record). */
export function setChips(chips) {
  if (!S.me) return;
  S.me.chips = num(chips);
  renderWho();
}

/** A posting is on its way (a hand prize): ask the lobby again in a moment, and once more later. */
export function refreshChipsSoon() {
  for (const ms of [700, 2500]) setTimeout(() => { if (S.token) refreshChips(); }, ms);
}

/** Refresh the chips now and every 15 s from here on (once started, it keeps going while signed in). */
export function keepChipsCurrent() {
  refreshChips();
  if (timer) return;
  timer = setInterval(() => { if (S.token) refreshChips(); }, EVERY_MS);
}

/**
 * Ask before sitting at a table with a stake: resolves true to sit, false not to. A table
 * without a stake costs nothing and needs no question. The count is fetched first, so the
 * dialog shows what the lobby holds now, not what the page remembered.
 */
export async function confirmStake(stake, what = "", quote = null) {
  stake = num(stake);
  if (stake <= 0) return true;
  const dialog = $("#stake-dialog");
  if (!dialog || typeof dialog.showModal !== "function") return window.confirm(tr("stake.confirm.title") + ": " + stake);
  const chips = await refreshChips();
  const have = chips !== null ? chips : (S.me && S.me.chips !== undefined ? num(S.me.chips) : null);
  $("#stake-amount").textContent = tr("stake.amount", { stake });
  $("#stake-what").textContent = what;
  $("#stake-what").hidden = !what;
  showQuote(quote);
  const short = have !== null && have < stake;
  $("#stake-chips").textContent = have === null ? tr("stake.chips.unknown")
    : short ? tr("stake.short", { chips: have, stake })
    : tr("stake.chips", { chips: have, after: have - stake });
  $("#stake-chips").className = short ? "error" : "";
  const ok = $("#stake-ok");
  ok.disabled = short;
  return new Promise((resolve) => {
    const done = (yes) => {
      ok.onclick = null;
      $("#stake-cancel").onclick = null;
      dialog.onclose = null;
      if (dialog.open) dialog.close();
      resolve(yes);
    };
    ok.onclick = () => done(true);
    $("#stake-cancel").onclick = () => done(false);
    dialog.onclose = () => done(false); // Escape
    dialog.showModal();
    (short ? $("#stake-cancel") : ok).focus();
  });
}

// What can be won at the table, as the lobby computed it (LobbyTable.quote, QuotePot): drawn,
// never computed here. ``quote.full``: the pot when people take every seat (a waiting table).
function showQuote(quote) {
  const el = $("#stake-win");
  if (!el) return;
  const q = quote || {};
  el.hidden = !num(q.pot);
  if (el.hidden) { el.textContent = ""; return; }
  const lines = [tr("stake.win", { max: num(q.maxWin), pot: num(q.pot), people: num(q.people), stake: num(q.stake) })];
  if (num(q.bots)) lines.push(tr("stake.win.bots", { bots: num(q.bots) }));
  if (q.full) lines.push(tr("stake.win.full"));
  if (q.practice) lines.push(tr("practice.ahead")); // the lobby's word (quotePractice): unranked
  if (num(q.handPrize)) lines.push(tr("stake.win.prize", { prize: num(q.handPrize) }));
  el.textContent = lines.join(" ");
  el.dataset.max = String(num(q.maxWin));
  el.dataset.pot = String(num(q.pot));
}

/** The lobby's quote for a table not opened yet (QuotePot); null when it cannot say. With
 * ``practice`` (quotePractice): whether that match would be unranked. */
export async function quotePot(options, fillWithBots) {
  return num(options.stake) ? askQuote(options, fillWithBots) : null;
}

/** Would a table opened with ``options`` (with bots in the empty seats or not) be practice, as
 * the lobby's QuotePot says (asked with any stake, 0 too)? null when it cannot say. */
export async function quotePractice(options, fillWithBots) {
  const q = await askQuote(options, fillWithBots);
  return q ? q.practice : null;
}

// The lobby's QuotePot, or null. Practice (unranked) is the lobby's word: PotQuote.practice
// (cards.is_practice, docs/design.md); protobuf's JSON leaves a false one out.
async function askQuote(options, fillWithBots) {
  if (!S.token || S.lobbyDown || !hasMethod("LobbyService", "QuotePot")) return null;
  try {
    const q = (await api("LobbyService", "QuotePot", { options, fillWithBots })).quote;
    return q ? { ...q, practice: !!q.practice } : null;
  } catch { return null; }
}

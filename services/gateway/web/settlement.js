// The chips of a finished match as the lobby's ledger moved them (issue 40.1): GetSettlement's
// record drawn as it is (each seat's stake, hand prizes, payout, refund and net, and why), and
// the caller's balance from the same read put in the top bar. The page computes no prize: every
// number here is the lobby's.
import { h, num, sleep } from "./dom.js";
import { tr } from "./i18n.js";
import { S, seatName } from "./state.js";
import { api, hasMethod, serviceMissing } from "./api.js";
import { setChips } from "./wallet.js";

const FINAL = new Set(["SETTLEMENT_STATUS_SETTLED", "SETTLEMENT_STATUS_REFUNDED"]);
const TRIES = 40; // every 500 ms: the lobby settles when the match's end reaches it

const signed = (x) => (num(x) > 0 ? "+" + num(x) : String(num(x)));

function why(line, seatLine) {
  const key = "settle.why." + line.code + (!seatLine && line.code === "REFUND" ? ".match" : "");
  const amount = seatLine ? signed(line.amount) : num(line.amount);
  return tr(key, { amount, count: num(line.count), hand: num(line.hand) });
}

/** Fill ``box`` with the match's settlement (asked until the lobby has settled it). */
export async function showSettlement(t, box) {
  if (!box) return;
  if (!S.token || S.lobbyDown || !hasMethod("LobbyService", "GetSettlement")) { box.hidden = true; return; }
  box.hidden = false;
  box.replaceChildren(h("p", { class: "help" }, tr("settle.wait")));
  let r = null;
  for (let i = 0; i < TRIES && S.t === t; i++) {
    try {
      r = await api("LobbyService", "GetSettlement", { tableId: t.id });
      if (FINAL.has((r.settlement || {}).status)) break;
    } catch (e) {
      // not a lobby table (opened on the table service), or not the caller's: nothing to show
      if (serviceMissing(e) || e.reason === "TABLE_NOT_FOUND" || e.reason === "NOT_SEATED") { box.hidden = true; return; }
    }
    await sleep(500);
  }
  if (S.t !== t) return;
  if (!r) { box.hidden = true; return; }
  drawSettlement(t, box, r.settlement || {}, r.balance);
}

function drawSettlement(t, box, s, balance) {
  setChips(num(balance)); // the top bar agrees with the ledger, without a reload
  const seats = s.seats || [];
  const mine = seats.find((x) => num(x.seat) === t.seat && !x.bot);
  const moved = seats.some((x) => num(x.paidIn) || num(x.handPrizes) || num(x.payout) || num(x.refund));
  const parts = [h("h3", {}, tr("settle.title"))];
  // no chips moved (a match without a stake has no record to wait for): that alone is said
  if (!moved) parts.push(h("p", { class: "help" }, tr("settle.none")));
  else {
    if (!FINAL.has(s.status)) parts.push(h("p", { class: "help" }, tr("settle.wait")));
    if (mine) parts.push(h("p", { class: "settle-mine", "data-net": num(mine.net) }, tr("settle.mine", { net: signed(mine.net) })));
    parts.push(h("table", { class: "mini settlement" },
      h("thead", {}, h("tr", {}, ["settle.seat", "settle.paidin", "settle.handprizes", "settle.payout", "settle.refund", "settle.net", "settle.why"]
        .map((k) => h("th", { scope: "col" }, tr(k))))),
      h("tbody", {}, seats.map((x) => h("tr", { "data-seat": num(x.seat), "data-net": num(x.net), "data-payout": num(x.payout), "data-paidin": num(x.paidIn) },
        h("th", { scope: "row" }, seatName(num(x.seat))),
        h("td", {}, num(x.paidIn)), h("td", {}, signed(x.handPrizes)), h("td", {}, num(x.payout)), h("td", {}, num(x.refund)),
        h("td", { class: "net" }, signed(x.net)),
        h("td", { class: "why" }, (x.why || []).map((l) => why(l, true)).join("; ")))))));
    parts.push(h("ul", { class: "settle-why" }, (s.why || []).map((l) => h("li", {}, why(l, false)))));
  }
  parts.push(h("p", { id: "settle-balance", "data-chips": num(balance) }, tr("settle.balance", { chips: num(balance) })));
  box.replaceChildren(...parts);
}

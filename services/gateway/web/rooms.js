// The lobby's rooms and its readable table cards (issue 18.7, 47.5): the rooms by game and stake
// as the lobby lists them (ListRooms: Okey / Okey 101 × no stake, 100, 500, 1K, 5K, the lists
// below only until it answers), drawn as tiles with the lobby's counts of people playing and
// waiting, and as the bar that filters the table list; a table's readable name ("Masa 482",
// and who opened it), the two or three rules that matter on its card, and every rule behind a
// disclosure one click away, read against the rules' option spec (what is usual is the spec's
// default). No option key or table id is shown, and no count is made here: each is the lobby's.
import { $$, h, num, store } from "./dom.js";
import { hasString, tr } from "./i18n.js";
import { optionSpec, optionsOf, ruleValue, valueText } from "./options.js";

export const ROOM_GAMES = ["", "OKEY", "OKEY101"]; // "": every game
export const ROOM_STAKES = ["", "0", "100", "500", "1000", "5000"]; // "": every stake (until ListRooms answers)

// ListRooms' rooms, in its order: {game, stake, playing, waiting, tables}, the counts the lobby's.
let served = [];
const uniq = (xs) => [...new Set(xs)];
const roomGames = () => (served.length ? ["", ...uniq(served.map((r) => r.game))] : ROOM_GAMES);
const roomStakes = () => (served.length ? ["", ...uniq(served.map((r) => r.stake))] : ROOM_STAKES);

const room = { game: "", stake: "" };
try { Object.assign(room, JSON.parse(store.get("okey.room") || "{}")); } catch { /* a bad value: every room */ }
if (!ROOM_GAMES.includes(room.game)) room.game = "";
if (!ROOM_STAKES.includes(room.stake)) room.stake = "";

const rulesOpen = new Set(); // cards whose full rules are open survive the lobby's redraw

const gameOf = (t) => String(t.game || "GAME_OKEY").replace("GAME_", "");

/** The room chosen in the lobby: {game, stake} ("" for every one). */
export function currentRoom() { return { ...room }; }

/** Choose a room (either part; undefined keeps it); it is remembered on this device. */
export function setRoom(next) {
  if (next.game !== undefined && roomGames().includes(next.game)) room.game = next.game;
  if (next.stake !== undefined && roomStakes().includes(next.stake)) room.stake = next.stake;
  store.set("okey.room", JSON.stringify(room));
}

/** The lobby's rooms (ListRooms' answer) become the rooms drawn; [] (no answer) keeps the last. */
export function setServedRooms(rooms) {
  if (!rooms || !rooms.length) return;
  served = rooms.map((r) => ({
    game: gameOf(r), stake: String(num(r.stake)),
    playing: num(r.peoplePlaying), waiting: num(r.peopleWaiting), tables: num(r.tablesWaiting),
  }));
}

/** The stakes the lobby's rooms offer, from none up ("0", "100", ...). */
export const servedStakes = () => roomStakes().filter((v) => v !== "");

/** The lobby's room of a game and a stake, with its counts, or undefined. */
const servedRoom = (r) => served.find((x) => x.game === r.game && x.stake === r.stake);

/** Is the table in the room (game and stake)? A stake of no room shows under "every stake". */
export function inRoom(t, r = room) {
  return (!r.game || gameOf(t) === r.game) && (r.stake === "" || String(num(t.stake)) === r.stake);
}

/** A stake as the rooms say it: 1000 → "1K", 0 → "Jetonsuz". */
export function stakeText(stake) {
  const n = num(stake);
  if (!n) return tr("rooms.nostake");
  return n >= 1000 && n % 1000 === 0 ? `${n / 1000}K` : String(n);
}

/** A table's number, read from its id (stable, not unique: the seats' names tell two apart). */
export function tableNumber(id) {
  const hex = String(id || "").replace(/[^0-9a-f]/gi, "").slice(0, 6) || "0";
  return (parseInt(hex, 16) % 900) + 100;
}

/** A table's readable name: "Masa 482" (the table screen says the same). */
export function tableLabel(t) { return tr("table.title", { id: tableNumber(t.tableId) }); }

/** Who opened the table, when they sit at it (the card has their name), else "". */
export function creatorName(t) {
  const s = (t.seats || []).find((x) => x.playerId && x.playerId === t.creatorId);
  return s ? (s.displayName || "") : "";
}

function ruleMap(t) {
  const m = {};
  for (const r of t.rules || []) m[r.option] = String(r.value);
  return m;
}

// The rules a card may name, in the order that matters most: first those that differ from the
// usual table (the spec's default), then those of USUAL that do not, which every table of the
// game says when nothing differs. Which ones matter is the card's choice; what is usual, the rules'.
const NOTABLE = {
  OKEY: ["partners", "duel", "colored", "indicator", "penalties", "deck_end", "discard_history", "pairs_declaration"],
  OKEY101: ["seats", "mode", "wrap", "discard_penalty"],
};
const USUAL = { OKEY: ["indicator"], OKEY101: ["mode", "seats"] };

/** Is the table's value of ``name`` the rules' default? null when the spec or the value is missing. */
function isDefault(m, name) {
  const o = optionSpec(name);
  return o && m[name] !== undefined ? m[name] === ruleValue(o) : null;
}

/** The two or three rules a card shows, as short phrases ("20 puan", "Eşli", "Hamle 30 sn"). */
export function headlineRules(t) {
  const game = gameOf(t);
  const m = ruleMap(t);
  const out = [];
  const say = (opt) => { if (hasString(`rooms.rule.${opt}.${m[opt]}`)) out.push(tr(`rooms.rule.${opt}.${m[opt]}`)); };
  if (game === "OKEY" && m.match_points) out.push(tr("rooms.rule.points", { n: m.match_points }));
  if (game === "OKEY101" && m.rounds) out.push(tr("rooms.rule.rounds", { n: m.rounds }));
  for (const opt of NOTABLE[game] || []) if (isDefault(m, opt) === false) say(opt);
  if (game === "OKEY101" && num(m.hand_prize)) out.push(tr("rooms.rule.hand_prize", { n: m.hand_prize }));
  if (isDefault(m, "turn_seconds") === false) out.push(tr("rooms.rule.turn", { n: m.turn_seconds }));
  for (const opt of USUAL[game] || []) if (isDefault(m, opt)) say(opt);
  if (isDefault(m, "turn_seconds")) out.push(tr("rooms.rule.turn", { n: m.turn_seconds }));
  return out.slice(0, 3);
}

/** The table's rules as players read them, in the rules' order: "Eşli: Açık" (texts: i18n's). */
function ruleTexts(t) {
  const m = ruleMap(t);
  const known = optionsOf(gameOf(t)).filter((o) => m[o.name] !== undefined);
  if (known.length) return known.map((o) => `${tr("opt." + o.name)}: ${valueText(o, m[o.name])}`);
  // No spec yet (the table service did not answer): the lobby's values, worded as i18n can.
  return (t.rules || []).map((r) => {
    const title = hasString("opt." + r.option) ? tr("opt." + r.option) : tr("rooms.rule");
    const value = r.value === "on" || r.value === "off" ? tr("opt." + r.value)
      : hasString(`opt.${r.option}.${r.value}`) ? tr(`opt.${r.option}.${r.value}`) : r.value;
    return `${title}: ${value}`;
  });
}

/** The lobby's word that the table is practice (unranked: fewer than two people), or null. */
export function practiceNote(t) {
  if (!t.practice) return null;
  const waiting = String(t.status || "").endsWith("WAITING");
  return h("p", { class: "card-practice notice" }, tr(waiting ? "practice.waiting" : "practice.card"));
}

/** Every rule of the table behind a disclosure; it stays open through the lobby's redraws. */
export function fullRules(t) {
  const id = t.tableId;
  const box = h("details", { class: "card-rules", dataset: { rules: id } },
    h("summary", {}, tr("rooms.allRules")),
    h("ul", { class: "rules" }, ruleTexts(t).map((text) => h("li", {}, text))));
  box.open = rulesOpen.has(id);
  box.addEventListener("toggle", () => { if (box.open) rulesOpen.add(id); else rulesOpen.delete(id); });
  return box;
}

/** The rooms bar: game and stake. A button that names one room (a game and a stake) says how
 * many tables wait there, as the lobby counted them; "every game" or "every stake" says none. */
export function renderRooms(box, onPick) {
  if (!box) return;
  const group = (label, values, key, name) => h("div", { class: "room-group", role: "group", "aria-label": label },
    values.map((v) => {
      const one = servedRoom({ ...room, [key]: v });
      return h("button", {
        type: "button", class: "room", "aria-pressed": String(room[key] === v), dataset: { room: key, value: v || "all" },
        onclick: () => { setRoom({ [key]: v }); onPick({ ...room }); },
      }, name(v), one ? [" ", h("span", { class: "room-count" }, `(${one.tables})`)] : null);
    }));
  box.replaceChildren(
    group(tr("rooms.games"), roomGames(), "game", (v) => (v ? tr("game." + v) : tr("rooms.allGames"))),
    group(tr("rooms.stakes"), roomStakes(), "stake", (v) => (v === "" ? tr("rooms.allStakes") : stakeText(v))));
}

/** The rooms as tiles (the lobby's first screen): each game at each stake with the lobby's
 * counts ("3 oynuyor · 2 bekliyor"); a tap chooses the room, as the bar does. A redraw with the
 * same rooms changes the tiles in place, so a focused tile keeps its focus. */
export function renderRoomTiles(box, onPick) {
  if (!box) return;
  const key = (r) => `${r.game}/${r.stake}`;
  if ($$("button", box).map((b) => b.dataset.room).join() !== served.map(key).join()) {
    box.replaceChildren(...served.map((r) => h("li", {}, h("button", {
      type: "button", class: "room-tile", dataset: { room: key(r), game: r.game, stake: r.stake },
      onclick: () => { setRoom({ game: r.game, stake: r.stake }); onPick({ ...room }); },
    }, h("span", { class: "tile-game" }), h("span", { class: "tile-stake" + (num(r.stake) ? "" : " free") }), h("span", { class: "tile-counts" })))));
  }
  for (const [i, b] of $$("button", box).entries()) {
    const r = served[i];
    b.setAttribute("aria-pressed", String(room.game === r.game && room.stake === r.stake));
    b.querySelector(".tile-game").textContent = tr("game." + r.game);
    b.querySelector(".tile-stake").textContent = stakeText(r.stake);
    b.querySelector(".tile-counts").textContent = tr("life.counts", { playing: r.playing, waiting: r.waiting });
  }
  box.hidden = !served.length;
}

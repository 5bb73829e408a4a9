// The skill rating as the scoring service gives it (issue 45): a player's rating per game in the
// profile (GetPlayerStats' `rating`), and each rated seat's change on the result screen
// (GetMatchResult's `standings[].rating`). Every number is the server's, drawn as it is: the page
// formats them and computes no rating, change or rank.
import { h, num } from "./dom.js";
import { currentLang, tr } from "./i18n.js";

export const GAMES = ["GAME_OKEY", "GAME_OKEY101"];

/** A rating as players read it in the page's language: 1.512 (TR), 1,512 (EN). */
export const ratingText = (x) => num(x).toLocaleString(currentLang() === "en" ? "en-GB" : "tr-TR");

/** A change with its sign (+18, -7, 0), the server's number. */
export const changeText = (x) => (num(x) > 0 ? "+" + ratingText(x) : ratingText(x));

/** The game's name: Okey, Okey 101. */
export const gameText = (game) => tr("game." + String(game || "GAME_OKEY").replace("GAME_", ""));

/** The profile's lines: per game, the rating and its rated matches, or "not rated yet". */
export function ratingLines(stats) {
  const byGame = new Map((stats || []).map((s) => [s.game || "GAME_OKEY", s.rating]));
  return h("ul", { id: "profile-rating", class: "rating-lines" }, GAMES.map((game) => {
    const r = byGame.get(game);
    return h("li", { dataset: { game, rating: r ? String(num(r.display)) : "", matches: r ? String(num(r.matches)) : "" } },
      h("span", { class: "rating-game" }, gameText(game)), ": ",
      r ? [h("strong", { class: "rating-value" }, ratingText(r.display)), " · ", tr("rating.matches.n", { n: num(r.matches) })]
        : h("span", { class: "help" }, tr("rating.none")));
  }));
}

/** One seat's cell of the standings: "1.512 → 1.530 (+18)", empty when the seat was not rated. */
export function ratingCell(rc) {
  if (!rc) return h("td", { class: "rating" });
  return h("td", { class: "rating", dataset: { before: String(num(rc.before)), after: String(num(rc.after)), change: String(num(rc.change)) } },
    tr("rating.change", { before: ratingText(rc.before), after: ratingText(rc.after), change: changeText(rc.change) }));
}

/** Does the scoring service's result rate anyone? (null when it gave no result) */
export function ratedSeats(result) {
  return result ? (result.standings || []).filter((s) => s.rating).length : null;
}

/** The line under the standings for a ranked match that rated nobody (a win a bot played out). */
export function unratedNote(result) {
  if (!result || result.practice || ratedSeats(result)) return "";
  return h("p", { id: "result-unrated", class: "help" }, tr("rating.unrated"));
}

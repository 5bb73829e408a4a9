// Refusals as players read them: every reason code the services define (a rule the table
// service's engine refuses, the lobby's, the gateway's) has a TR and an EN message in i18n.js
// ("err.<REASON>"), and a tile in it is named as players name it ("Kırmızı 7", "Sahte okey",
// "Okey") from what the client knows: the command it sent (the tile id, the meld index, the melds
// it opened with), its rack, the melds on the table and the side tile it holds. The server's
// message (English, with rule ids and tile ids) is never shown; only the numbers in it that the
// client cannot know (which of the opened melds, what they were worth) are read.
// tests/gateway/test_refusals.py checks that no reason code is left without a translation.
import { hasString, tr } from "./i18n.js";
import { S, is101 } from "./state.js";
import { isOkey, tileName } from "./rack.js";

/** A tile as players name it: "Okey", "Sahte okey", "Kırmızı 7". */
export function playerTileName(code) {
  if (!code) return tr("tile.hidden");
  if (isOkey(code)) return tr("refusal.tile.okey");
  if (code === "F") return tr("refusal.tile.fake");
  return tileName(code);
}

/** The code of a tile id the client knows: on its rack, in a meld on the table, the side tile. */
export function codeOfTile(id) {
  const v = S.t && S.t.view;
  if (!v || id === null || id === undefined) return "";
  const all = [...(v.rack || []), ...(v.melds || []).flatMap((m) => m.tiles || [])];
  if (v.heldSideTile) all.push(v.heldSideTile);
  for (const s of v.seats || []) all.push(...(s.pile || []));
  const x = all.find((t) => t && t.id === id);
  return x ? x.code || "" : "";
}

function tilesText(ids) {
  return ids.map((id) => playerTileName(codeOfTile(id))).join(", ");
}

/** A meld on the table as the refusal names it: its tiles, in order. */
export function meldText(index) {
  const v = S.t && S.t.view;
  const m = v && (v.melds || [])[index];
  return m ? (m.tiles || []).map((x) => playerTileName(x.code)).join(", ") : "";
}

// The one number of a server message the client cannot know (e.g. "meld 2: ...", "got 57").
function numberAfter(message, word) {
  const m = new RegExp(`\\b${word} (\\d+)\\b`).exec(String(message || ""));
  return m ? Number(m[1]) : null;
}

// The display-name rules of the lobby (services/lobby/moderation.py check_display_name), only to
// say which one a refused name broke; the lobby decides.
const NAME_MIN = 3;
const NAME_MAX = 20;
const NAME_LETTERS = "A-Za-zÇĞİÖŞÜçğıöşüÂÎÛâîû";
const NAME_RE = new RegExp(`^[${NAME_LETTERS}][${NAME_LETTERS}0-9]*(?:[ ._\\-][${NAME_LETTERS}0-9]+)*$`);

function nameVariant(name) {
  const shown = String(name || "").normalize("NFC").split(/\s+/).filter(Boolean).join(" ");
  if (shown.length < NAME_MIN || shown.length > NAME_MAX) return "length";
  if (!NAME_RE.test(shown)) return "chars";
  if ((shown.match(/[0-9]/g) || []).length > 4) return "digits";
  return "";
}

// What the message of each reason is filled with: {variant} picks "err.<REASON>.<variant>" when
// the client knows enough for it, else "err.<REASON>" stays general.
function details(reason, e, ctx) {
  const v = S.t && S.t.view;
  const body = ctx.body || {};
  const p = { min: NAME_MIN, max: NAME_MAX };
  const tile = body.tileId !== undefined ? playerTileName(codeOfTile(body.tileId)) : "";
  const meld = body.meld !== undefined ? meldText(body.meld) : "";
  const side = v && v.heldSideTile && v.heldSideTile.code ? playerTileName(v.heldSideTile.code) : "";
  switch (reason) {
    case "TILE_DOES_NOT_FIT":
      if (tile && meld) return { ...p, tile, meld, variant: ctx.command === "takeOkey" ? "take" : "add" };
      break;
    case "NO_OKEY_IN_MELD":
    case "CANNOT_ADD_TO_PAIR":
    case "GROUP_NEEDS_FOURTH":
      if (meld) return { ...p, tile, meld, variant: "meld" };
      break;
    case "INVALID_FINISH":
      if (tile) return { ...p, tile, variant: "tile" };
      break;
    case "SIDE_TILE_DISCARD":
    case "SIDE_TILE_NOT_USED":
    case "CANNOT_RETURN_SIDE_TILE":
      if (side) return { ...p, tile: side, variant: "tile" };
      break;
    case "INVALID_MELD": {
      const n = numberAfter(e.message, "meld");
      const melds = body.melds || [];
      if (n && melds[n - 1] && (melds[n - 1].ids || []).length) return { ...p, n, tiles: tilesText(melds[n - 1].ids), variant: "n" };
      break;
    }
    case "BELOW_THRESHOLD":
    case "TOO_FEW_PAIRS": {
      const need = reason === "BELOW_THRESHOLD" ? Number((v && v.runThreshold) || 101) : Number((v && v.pairThreshold) || 5);
      const got = numberAfter(e.message, "got");
      return { ...p, need, got: got === null ? "" : got, variant: got === null ? "" : "got" };
    }
    case "INVALID_NAME":
      return { ...p, variant: nameVariant(ctx.name) };
    case "WEAK_PASSWORD":
      return { ...p, variant: (e.metadata && e.metadata.why) || "" };
    case "BLOCKED":
    case "INVITE_REQUIRED":
      if (ctx.watch) return { ...p, variant: "watch" }; // the gateway refused a spectator's watch
      break;
    case "NOT_YOUR_TURN":
      if (v && is101(v) === false && ctx.command === "showIndicator") return { ...p, variant: "indicator" };
      break;
    default:
  }
  return p;
}

/** The text of a refusal (an ApiError, or the watch's error) in the page's language. ``ctx``:
 * what the client sent, {command, body} of a table command or {name} of a sign-in. */
export function refusalText(e, ctx = {}) {
  if (!e) return "";
  const reason = e.reason || e.code || "";
  if (reason === "NETWORK") return tr("err.network");
  const p = details(reason, e, ctx);
  if (p.variant && hasString(`err.${reason}.${p.variant}`)) return tr(`err.${reason}.${p.variant}`, p);
  if (reason && hasString("err." + reason)) return tr("err." + reason, p);
  if (e.code && hasString("err." + e.code)) return tr("err." + e.code, p);
  return tr("err.generic", { reason: reason || "?" });
}

// Quick emotes at the table (issue 44.6): the palette under the table chat, sending one
// (LobbyService.SendEmote), and the bubble an emote shows at its sender's seat for a few seconds.
// The set is the proto enum okey.v1.Emote: its JSON names ("EMOTE_<NAME>") come and go on the
// wire, and the client holds only their texts, i18n's emote.<NAME> (with emote.<NAME>.icon), so the
// palette is the names i18n has a text for. No free text: nothing here to moderate.
import { $, h, num } from "./dom.js";
import { hasString, stringKeys, tr } from "./i18n.js";
import { S } from "./state.js";
import { api, hasMethod } from "./api.js";

const PREFIX = "EMOTE_";
export const EMOTE_SHOW_MS = 3000; // how long a bubble stays at the seat

/** The emote's name without the enum's prefix ("EMOTE_<NAME>" -> "<NAME>"), or "" for none (a text). */
export function emoteName(value) {
  const v = String(value || "");
  if (!v || v === PREFIX + "UNSPECIFIED" || v === "0") return "";
  return v.startsWith(PREFIX) ? v.slice(PREFIX.length) : v;
}

/** The names of the palette, in the enum's order: those i18n has a text for. */
function names() {
  return stringKeys("emote.").map((k) => k.slice("emote.".length)).filter((n) => /^[A-Z][A-Z0-9_]*$/.test(n));
}

/** An emote as a player reads it: its icon (hidden from screen readers) and its phrase. */
export function emoteLabel(value) {
  const n = emoteName(value);
  const known = hasString("emote." + n);
  const icon = known && hasString(`emote.${n}.icon`) ? tr(`emote.${n}.icon`) : "";
  const text = known ? tr("emote." + n) : tr("emote.other");
  const phrase = h("span", { class: "emote-text" }, text);
  return icon ? [h("span", { class: "emote-icon", "aria-hidden": "true" }, icon), " ", phrase] : [phrase];
}

function emoteText(value) {
  const n = emoteName(value);
  return hasString("emote." + n) ? tr("emote." + n) : tr("emote.other");
}

// ------------------------------------------------------------------ the bubble at the seat

/** The open table's bubbles: playerId -> {id, emote, until}. */
function bubbles() {
  const t = S.t;
  if (!t) return null;
  if (!t.emotes) t.emotes = new Map();
  return t.emotes;
}

function bubbleEl(playerId, b) {
  const name = (S.me && playerId === S.me.id) ? tr("table.you") : b.name;
  return h("div", { class: "emote-bubble", role: "img", "aria-label": tr("emote.bubble", { name, text: emoteText(b.emote) }), "data-message": b.id },
    emoteLabel(b.emote));
}

/** The bubble board.js puts in a seat's panel while the seat's player has one showing, or null. */
export function seatBubble(playerId) {
  const all = bubbles();
  const b = playerId && all ? all.get(playerId) : null;
  return b && b.until > Date.now() ? bubbleEl(playerId, b) : null;
}

function panelOf(playerId) {
  return document.querySelector(`#board .seat-panel[data-player="${CSS.escape(playerId)}"]`);
}

/** An emote message, sent or received (ChatMessage): its bubble at the sender's seat, once. */
export function showEmote(m) {
  const all = bubbles();
  if (!all || !emoteName(m.emote) || !m.playerId) return;
  const id = num(m.messageId);
  const old = all.get(m.playerId);
  if (old && old.id >= id) return;
  const b = { id, emote: m.emote, name: m.displayName || m.playerId, until: Date.now() + EMOTE_SHOW_MS };
  all.set(m.playerId, b);
  const panel = panelOf(m.playerId);
  if (panel) {
    const prev = $(".emote-bubble", panel);
    if (prev) prev.remove();
    panel.append(bubbleEl(m.playerId, b));
  }
  setTimeout(() => {
    if (all.get(m.playerId) !== b) return;
    all.delete(m.playerId);
    const p = panelOf(m.playerId);
    const el = p && $(".emote-bubble", p);
    if (el) el.remove();
  }, EMOTE_SHOW_MS);
}

/** A player muted: their bubble goes too. */
export function hideEmotesOf(playerId) {
  const all = bubbles();
  if (all) all.delete(playerId);
  const p = panelOf(playerId);
  const el = p && $(".emote-bubble", p);
  if (el) el.remove();
}

// ------------------------------------------------------------------ the palette

/**
 * The emote button and its palette in a table chat's form, for a seated player. ``sent(message)``
 * is told each emote the lobby took; ``refused(error)`` each refusal (FLOOD, MUTED ...).
 */
export function mountEmotes(slot, tableId, sent, refused) {
  if (!hasMethod("LobbyService", "SendEmote") || !S.t || S.t.seat === null) return;
  const form = $(".chat-form", slot);
  const list = names();
  if (!form || !list.length) return;
  const paletteId = "emote-palette-" + tableId;
  const toggle = h("button", {
    type: "button", class: "emote-toggle", id: "emote-toggle", title: tr("emote.open"), "aria-label": tr("emote.open"),
    "aria-haspopup": "true", "aria-expanded": "false", "aria-controls": paletteId,
  }, h("span", { "aria-hidden": "true" }, "☺"));
  const palette = h("div", { class: "emote-palette", id: paletteId, role: "group", "aria-label": tr("emote.palette"), hidden: true });
  const close = (focus) => {
    palette.hidden = true;
    toggle.setAttribute("aria-expanded", "false");
    if (focus) toggle.focus();
  };
  const send = async (name) => {
    close(true);
    try {
      const r = await api("LobbyService", "SendEmote", { tableId, emote: PREFIX + name });
      if (r.message) { showEmote(r.message); sent(r.message); }
    } catch (e) { refused(e); }
  };
  palette.append(...list.map((n) => h("button", {
    type: "button", class: "emote-choice", "data-emote": n, onclick: () => send(n),
  }, emoteLabel(PREFIX + n))));
  palette.addEventListener("keydown", (e) => {
    const items = [...palette.querySelectorAll("button")];
    const i = items.indexOf(document.activeElement);
    if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); close(true); }
    else if ((e.key === "ArrowRight" || e.key === "ArrowDown") && i >= 0) { e.preventDefault(); items[(i + 1) % items.length].focus(); }
    else if ((e.key === "ArrowLeft" || e.key === "ArrowUp") && i >= 0) { e.preventDefault(); items[(i + items.length - 1) % items.length].focus(); }
  });
  toggle.addEventListener("click", () => {
    const open = palette.hidden;
    palette.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
    if (open) palette.querySelector("button").focus();
  });
  form.prepend(toggle);
  form.after(palette);
}

/** The palette's texts in the page's language (the chat calls this as it renders). */
export function relabelEmotes(slot) {
  const toggle = $(".emote-toggle", slot);
  if (!toggle) return;
  toggle.title = tr("emote.open");
  toggle.setAttribute("aria-label", tr("emote.open"));
  const palette = $(".emote-palette", slot);
  palette.setAttribute("aria-label", tr("emote.palette"));
  for (const b of palette.querySelectorAll("button[data-emote]")) b.replaceChildren(...emoteLabel(PREFIX + b.dataset.emote));
}

/** The emote line of the chat log: the phrase, marked as an emote. */
export function emoteLine(m) {
  return h("span", { class: "emote-line" }, emoteLabel(m.emote));
}

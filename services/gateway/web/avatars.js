// Faces (issue 47.3): the picture beside a player's name at the seat, on the lobby's cards, in
// chat, in the friends list and in the profile, where the player picks one (LobbyService.SetAvatar).
// The set is the proto enum okey.v1.Avatar: its JSON names ("AVATAR_<NAME>") come on the wire with
// each player (PlayerProfile, LobbySeat, Friend, ChatMessage, FoundPlayer), and a player who never
// picked one has the lobby's default for their id. The client keeps only a drawing per name
// (DRAWINGS, inline SVG on a coloured disc) and its words (i18n's avatar.<NAME>); it decides
// nothing: the picker offers what it can draw, and the lobby refuses any other name.
import { $, h, toast } from "./dom.js";
import { tr } from "./i18n.js";
import { S } from "./state.js";
import { api, errText, hasMethod } from "./api.js";

const PREFIX = "AVATAR_";
const NS = "http://www.w3.org/2000/svg";

// Each drawing: the disc's colour and the shapes on it, in a 40 x 40 box. Our own simple shapes.
const DRAWINGS = {
  TULIP: ["#fde2e7", '<path d="M19.3 26h1.4v9h-1.4z" fill="#2f7d32"/><path d="M20 33c-3-1-6-4-6-7 3 0 5 3 6 7z" fill="#43a047"/>'
    + '<path d="M12 11l4 5 4-7 4 7 4-5v9c0 4-3.6 7-8 7s-8-3-8-7z" fill="#d62839"/>'],
  TEA: ["#fff3d6", '<ellipse cx="20" cy="32" rx="10" ry="2.5" fill="#b0bec5"/>'
    + '<path d="M13 9h14l-2.2 7c-.8 2.4-.8 3.6 0 6L26 30H14l1.2-8c.8-2.4.8-3.6 0-6z" fill="#e3f2fd" stroke="#78909c" stroke-width="1"/>'
    + '<path d="M14.6 14h10.8l-1.4 2.2c-.6 2.4-.6 3.6 0 6l.9 6.8h-9.8l.9-6.8c.6-2.4.6-3.6 0-6z" fill="#b5451b"/>'],
  CAT: ["#e8eaf6", '<path d="M10 13l3-7 6 6h2l6-6 3 7v9c0 6-4.5 10-10 10s-10-4-10-10z" fill="#5d4037"/>'
    + '<circle cx="15.5" cy="19" r="2" fill="#ffeb3b"/><circle cx="24.5" cy="19" r="2" fill="#ffeb3b"/>'
    + '<path d="M18.5 24h3L20 26z" fill="#f48fb1"/><path d="M8 24h7M8 27h7M25 24h7M25 27h7" stroke="#d7ccc8" stroke-width=".8"/>'],
  FISH: ["#d6f0ff", '<path d="M6 20c4-7 14-9 22-2l6-5v14l-6-5c-8 7-18 5-22-2z" fill="#ff8f00"/>'
    + '<circle cx="12.5" cy="18.5" r="1.8" fill="#263238"/><path d="M19 14c2 3 2 9 0 12" stroke="#ef6c00" stroke-width="1.4" fill="none"/>'],
  SUN: ["#ffe0b2", '<g stroke="#f57c00" stroke-width="2.4" stroke-linecap="round"><path d="M20 4v5M20 31v5M4 20h5M31 20h5'
    + 'M8.7 8.7l3.5 3.5M27.8 27.8l3.5 3.5M8.7 31.3l3.5-3.5M27.8 12.2l3.5-3.5"/></g><circle cx="20" cy="20" r="8" fill="#ffb300"/>'],
  MOON: ["#1a237e", '<path d="M24 8.7A12 12 0 1 0 24 31.3A13 13 0 0 1 24 8.7z" fill="#fff59d"/>'
    + '<circle cx="29" cy="13" r="1.2" fill="#fff"/><circle cx="31" cy="24" r=".9" fill="#fff"/>'],
  STAR: ["#ede7f6", '<path d="M20 6l4.1 8.6 9.4 1.2-6.9 6.5 1.8 9.3L20 27l-8.4 4.6 1.8-9.3-6.9-6.5 9.4-1.2z" fill="#fbc02d" stroke="#f57f17" stroke-width="1"/>'],
  ANCHOR: ["#e0f2f1", '<g stroke="#0d47a1" stroke-width="2.6" fill="none" stroke-linecap="round"><circle cx="20" cy="9.5" r="3"/>'
    + '<path d="M20 12.5V33M14 17h12M9 23c1 6 6 10 11 10s10-4 11-10"/></g><path d="M6 24l3-4 3 4zM28 24l3-4 3 4z" fill="#0d47a1"/>'],
  KITE: ["#e1f5fe", '<path d="M20 5l9 11-9 14-9-14z" fill="#e53935"/><path d="M20 5v25M11 16h18" stroke="#fff" stroke-width="1.2"/>'
    + '<path d="M20 30c-2 2 2 3 0 5" stroke="#6d4c41" stroke-width="1.2" fill="none"/>'
    + '<path d="M17 33l2 1-2 1zM23 35l-2-1 2-1z" fill="#fdd835"/>'],
  OWL: ["#efebe9", '<path d="M11 10l4 3h10l4-3v16c0 5-4 8-9 8s-9-3-9-8z" fill="#8d6e63"/>'
    + '<circle cx="15.5" cy="18" r="4" fill="#fff"/><circle cx="24.5" cy="18" r="4" fill="#fff"/>'
    + '<circle cx="15.5" cy="18" r="1.8" fill="#212121"/><circle cx="24.5" cy="18" r="1.8" fill="#212121"/>'
    + '<path d="M18.5 22h3L20 25z" fill="#ffa000"/><path d="M15 28c3 2 7 2 10 0" stroke="#d7ccc8" stroke-width="1.2" fill="none"/>'],
  FOX: ["#fff8e1", '<path d="M8 8l7 7h10l7-7-1 13-11 12L9 21z" fill="#ef6c00"/>'
    + '<path d="M9 21l11 12 11-12-6 1-5 3-5-3z" fill="#fff"/><circle cx="15.5" cy="19" r="1.6" fill="#212121"/>'
    + '<circle cx="24.5" cy="19" r="1.6" fill="#212121"/><circle cx="20" cy="31" r="1.6" fill="#212121"/>'],
  LEAF: ["#e8f5e9", '<path d="M9 31C9 17 17 9 32 8c0 15-8 23-23 23z" fill="#43a047"/>'
    + '<path d="M9 31L27 13M15 25h6M19 21v-5" stroke="#c8e6c9" stroke-width="1.4" fill="none" stroke-linecap="round"/>'],
};

/** The face's name without the enum's prefix ("AVATAR_<NAME>" -> "<NAME>"), or "" for none. */
export function avatarName(value) {
  const v = String(value || "");
  if (!v || v === PREFIX + "UNSPECIFIED" || v === "0") return "";
  return v.startsWith(PREFIX) ? v.slice(PREFIX.length) : v;
}

/** The face as a player reads it: "Lale" / "Tulip" (a name this client cannot draw: "A face"). */
export function avatarText(value) {
  const n = avatarName(value);
  return DRAWINGS[n] ? tr("avatar." + n) : tr("avatar.other");
}

/** The drawing of a face (PlayerProfile.avatar, LobbySeat.avatar, ...) as an inline SVG with
 * role="img" and its name, or null for none (an open seat, a bot, a deleted player). A name this
 * client has no drawing for is a plain disc. `big`: the profile's size. */
const drawn = new Map(); // each face drawn once (its markup parsed once), then copied: a table redraws its seats often

export function avatarEl(value, big = false) {
  const n = avatarName(value);
  if (!n) return null;
  const label = tr("avatar.label", { avatar: avatarText(value) });
  const key = `${n}|${big}|${label}`;
  let svg = drawn.get(key);
  if (!svg) {
    const [bg, shapes] = DRAWINGS[n] || ["#cfd8dc", ""];
    svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", "0 0 40 40");
    svg.setAttribute("class", "avatar" + (big ? " big" : ""));
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", label);
    svg.setAttribute("focusable", "false");
    svg.dataset.avatar = n;
    svg.innerHTML = `<circle cx="20" cy="20" r="20" fill="${bg}"/>${shapes}`; // our own markup, no player data
    drawn.set(key, svg);
  }
  return svg.cloneNode(true);
}

/** The face of the signed-in player as the lobby last said it (a seat, a chat line of theirs
 * follow a pick at once, before the next list comes). */
export function myAvatar(playerId, value) {
  return S.me && playerId && playerId === S.me.id && S.me.avatar ? S.me.avatar : value;
}

/** Keep the caller's own face from a PlayerProfile (GetPlayer, SignIn, SetAvatar). */
export function avatarFrom(player) {
  if (S.me && player && player.avatar) S.me.avatar = player.avatar;
}

// ------------------------------------------------------------------ the picker in the profile

/** The profile's own face and the grid of every face this client draws to pick from. */
export function renderAvatarPicker() {
  const box = $("#profile-avatar");
  if (!box) return;
  const mine = S.me ? avatarName(S.me.avatar) : "";
  const can = hasMethod("LobbyService", "SetAvatar");
  const face = avatarEl(S.me && S.me.avatar, true);
  const shown = $("#profile-face");
  if (shown) shown.replaceChildren(...(face ? [face] : []));
  box.hidden = !can;
  if (!can) return;
  const grid = h("div", { class: "avatar-grid", role: "group", "aria-labelledby": "avatar-title" },
    Object.keys(DRAWINGS).map((n) => h("button", {
      type: "button", class: "avatar-pick" + (n === mine ? " chosen" : ""), "aria-pressed": n === mine ? "true" : "false",
      "aria-label": tr("avatar." + n), title: tr("avatar." + n), "data-avatar": n, onclick: () => pick(n),
    }, avatarEl(PREFIX + n))));
  for (const svg of grid.querySelectorAll("svg")) { svg.setAttribute("aria-hidden", "true"); svg.removeAttribute("role"); svg.removeAttribute("aria-label"); }
  $("#avatar-grid").replaceChildren(grid);
}

async function pick(n) {
  const status = $("#avatar-result");
  try {
    const r = await api("LobbyService", "SetAvatar", { avatar: PREFIX + n });
    avatarFrom(r.profile); // the page follows the lobby's answer, not the button pressed
    status.textContent = tr("avatar.saved", { avatar: avatarText(S.me && S.me.avatar) });
    renderAvatarPicker();
    const pressed = $(`#avatar-grid [data-avatar="${n}"]`);
    if (pressed) pressed.focus();
    window.dispatchEvent(new Event("okey-avatar-changed")); // app.js redraws the screens
  } catch (e) {
    status.textContent = errText(e);
    toast(errText(e));
  }
}

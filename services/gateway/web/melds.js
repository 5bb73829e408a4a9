// Okey 101's melds on the table (adding a tile at either end, taking an okey back) and the
// staging panel where the player builds the melds to open with.
import { $, h, num } from "./dom.js";
import { tr } from "./i18n.js";
import { S, arrangementIds, is101, isMyTurn, render, seatName, selectedOne, stage, tileById, tileHint } from "./state.js";
import { dragTile, isOkey, tileEl, tileName } from "./rack.js";
import { act } from "./actions.js";

function stageSelected() {
  const t = S.t;
  if (!t || !t.selected.length) return;
  const order = t.slots.filter((x) => x !== null && t.selected.includes(x));
  t.staged.push({ ids: order, kind: null });
  t.selected = [];
  render();
}

export function stageFromHints(which) {
  const t = S.t;
  if (!t || !t.hints || !t.hints[which]) return;
  const arr = t.hints[which];
  t.staged = arrangementIds(arr).map((ids, i) => ({ ids, kind: (arr.kinds || [])[i] || null }));
  t.selected = [];
  render();
}

async function openStaged() {
  const t = S.t;
  if (!t || !t.staged.length) return;
  const melds = t.staged.map((m) => ({ ids: m.ids }));
  const body = { melds };
  if (t.staged.every((m) => m.kind && m.kind !== "MELD_KIND_UNSPECIFIED")) body.kinds = t.staged.map((m) => m.kind);
  const r = await act("openMelds", body);
  if (r && S.t === t) { t.staged = []; render(); }
}

async function addTo(meld, atStart) {
  const id = selectedOne();
  if (id === null) return;
  const r = await act("addTile", { tileId: id, meld, atStart });
  if (r && S.t) S.t.selected = [];
}

async function takeOkey(meld) {
  const id = selectedOne();
  if (id === null) return;
  const r = await act("takeOkey", { tileId: id, meld });
  if (r && S.t) S.t.selected = [];
}

function meldText(m) { return (m.tiles || []).map((x) => tileName(x.code)).join(", "); }

export function renderMelds(v) {
  const t = S.t;
  const area = $("#melds-area");
  if (!is101(v)) { area.hidden = true; $("#staging").hidden = true; return; } // no 101 staging at a classic table [issue 18.5]
  area.hidden = false;
  const melds = v.melds || [];
  const one = selectedOne();
  const canPlay = isMyTurn(v) && stage(v) === "PLAY" && one !== null;
  const hint = one !== null ? tileHint(t, one) : null;
  const list = h("ol", { class: "melds" });
  melds.forEach((m, i) => {
    const kind = String(m.kind || "").replace("MELD_KIND_", "");
    const hasOkey = (m.tiles || []).some((x) => isOkey(x.code));
    const item = h("li", { class: "meld", "data-meld": i, "aria-label": `${seatName(num(m.owner))}: ${kind ? tr("melds.kind." + kind) : ""} ${meldText(m)}` },
      h("span", { class: "meld-owner" }, seatName(num(m.owner)), kind ? ` · ${tr("melds.kind." + kind)}` : ""),
      h("span", { class: "meld-tiles" }, (m.tiles || []).map((x) => tileEl(x, { small: true }))));
    if (canPlay) {
      const acts = h("span", { class: "meld-actions" },
        h("button", { type: "button", class: "small", onclick: () => addTo(i, true), "data-focus": `meld-${i}-start` }, tr("act.add_start")),
        h("button", { type: "button", class: "small", onclick: () => addTo(i, false), "data-focus": `meld-${i}-end` }, tr("act.add_end")));
      if (hasOkey && (!hint || hint.takesOkey)) acts.append(h("button", { type: "button", class: "small", onclick: () => takeOkey(i), "data-focus": `meld-${i}-okey` }, tr("act.take_okey")));
      item.append(acts);
    }
    item.addEventListener("dragover", (e) => { if (isMyTurn(v)) { e.preventDefault(); item.classList.add("over"); } });
    item.addEventListener("dragleave", () => item.classList.remove("over"));
    item.addEventListener("drop", (e) => {
      e.preventDefault();
      item.classList.remove("over");
      const id = dragTile(e);
      if (id !== null) { t.selected = [id]; addTo(i, false); }
    });
    list.append(item);
  });
  area.replaceChildren(
    h("h3", {}, tr("melds.title"), " ", h("span", { class: "help" }, tr("melds.threshold", { runs: num(v.runThreshold) || 101, pairs: num(v.pairThreshold) || 5 }))),
    melds.length ? list : h("p", { class: "help" }, tr("melds.none")));
  // staging (opening and new melds)
  const st = $("#staging");
  st.hidden = t.seat === null;
  const stagedList = h("ol", { class: "melds staged" }, t.staged.map((m) => h("li", { class: "meld" },
    m.kind ? h("span", { class: "meld-owner" }, tr("melds.kind." + String(m.kind).replace("MELD_KIND_", ""))) : null,
    h("span", { class: "meld-tiles" }, m.ids.map((id) => tileById(t, id)).filter(Boolean).map((x) => tileEl(x, { small: true }))))));
  const turnPlay = isMyTurn(v) && stage(v) === "PLAY";
  st.replaceChildren(
    h("h3", {}, tr("melds.staged")),
    t.staged.length ? stagedList : h("p", { class: "help" }, tr("melds.staged.none")),
    h("div", { class: "row wrap" },
      h("button", { type: "button", "data-focus": "stage", disabled: !t.selected.length, onclick: stageSelected }, tr("act.stage")),
      h("button", { type: "button", "data-focus": "unstage", disabled: !t.staged.length, onclick: () => { t.staged = []; render(); } }, tr("act.unstage")),
      h("button", { type: "button", class: "primary", "data-act": "open", "data-focus": "open", disabled: !t.staged.length || !turnPlay || t.busy, onclick: openStaged }, tr("act.open"))));
}

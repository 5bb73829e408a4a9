// Okey 101's melds on the table (adding a tile at either end, taking an okey back) and the
// staging panel where the player builds the melds to open with.
import { $, h, listen, num, patch } from "./dom.js";
import { tr } from "./i18n.js";
import { S, arrangementIds, is101, isMyTurn, render, seatName, selectedOne, stage, tileById } from "./state.js";
import { dragTile, tileEl, tileName } from "./rack.js";
import { act } from "./actions.js";
import { usableHint } from "./fits.js";
import { playerTileName } from "./refusals.js";

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
  const body = { tileId: id, meld };
  if (atStart !== undefined) body.atStart = atStart;
  const r = await act("addTile", body);
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
  // The add and take-okey controls only where the selected tile can be used: the table service
  // allows the move and the meld takes the tile (fits.js) [issue 18.5].
  const use = canPlay ? usableHint(t, one) : null;
  const name = one !== null ? playerTileName((tileById(t, one) || {}).code) : "";
  const list = h("ol", { class: "melds" });
  melds.forEach((m, i) => {
    const kind = String(m.kind || "").replace("MELD_KIND_", "");
    const adds = use ? use.addTo.filter((x) => x.meld === i) : [];
    const takes = !!use && use.takeFrom.includes(i);
    const item = h("li", { class: `meld ${adds.length || takes ? "fits" : ""}`, "data-meld": i, "aria-label": `${seatName(num(m.owner))}: ${kind ? tr("melds.kind." + kind) : ""} ${meldText(m)}` },
      h("span", { class: "meld-owner" }, seatName(num(m.owner)), kind ? ` · ${tr("melds.kind." + kind)}` : ""),
      h("span", { class: "meld-tiles" }, (m.tiles || []).map((x) => tileEl(x, { small: true }))));
    if (adds.length || takes) {
      const acts = h("span", { class: "meld-actions" },
        adds.map((x) => h("button", { type: "button", class: "small", "data-add": x.atStart ? "start" : "end", onclick: () => addTo(i, x.atStart), "data-focus": `meld-${i}-${x.atStart ? "start" : "end"}` },
          tr(x.atStart ? "fits.add_start" : "fits.add_end", { tile: name }))),
        takes ? h("button", { type: "button", class: "small", "data-take": "okey", onclick: () => takeOkey(i), "data-focus": `meld-${i}-okey` }, tr("fits.take_okey", { tile: name })) : null);
      item.append(acts);
    }
    listen(item, "dragover", (e) => { if (isMyTurn(v)) { e.preventDefault(); item.classList.add("over"); } });
    listen(item, "dragleave", () => item.classList.remove("over"));
    listen(item, "drop", (e) => {
      e.preventDefault();
      item.classList.remove("over");
      const id = dragTile(e);
      if (id === null) return;
      t.selected = [id];
      const fit = usableHint(t, id).addTo.find((x) => x.meld === i);
      addTo(i, fit ? fit.atStart : undefined);
    });
    list.append(item);
  });
  patch(area,
    h("h3", {}, tr("melds.title"), " ", h("span", { class: "help" }, tr("melds.threshold", { runs: num(v.runThreshold) || 101, pairs: num(v.pairThreshold) || 5 }))),
    melds.length ? list : h("p", { class: "help" }, tr("melds.none")));
  // staging (opening and new melds)
  const st = $("#staging");
  st.hidden = t.seat === null;
  const stagedList = h("ol", { class: "melds staged" }, t.staged.map((m) => h("li", { class: "meld" },
    m.kind ? h("span", { class: "meld-owner" }, tr("melds.kind." + String(m.kind).replace("MELD_KIND_", ""))) : null,
    h("span", { class: "meld-tiles" }, m.ids.map((id) => tileById(t, id)).filter(Boolean).map((x) => tileEl(x, { small: true }))))));
  const turnPlay = isMyTurn(v) && stage(v) === "PLAY";
  patch(st,
    h("h3", {}, tr("melds.staged")),
    t.staged.length ? stagedList : h("p", { class: "help" }, tr("melds.staged.none")),
    h("div", { class: "row wrap" },
      h("button", { type: "button", "data-focus": "stage", disabled: !t.selected.length, onclick: stageSelected }, tr("act.stage")),
      h("button", { type: "button", "data-focus": "unstage", disabled: !t.staged.length, onclick: () => { t.staged = []; render(); } }, tr("act.unstage")),
      h("button", { type: "button", class: "primary", "data-act": "open", "data-focus": "open", disabled: !t.staged.length || !turnPlay || t.busy, onclick: openStaged }, tr("act.open"))));
}

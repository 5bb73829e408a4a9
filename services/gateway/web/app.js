// The Okey web client: guest sign-in, lobby, and a table played over the gateway's HTTP/JSON API
// (POST /api/<service>/<Method>) with live updates from the WebSocket watch, resumed from the
// last version seen. Plain browser JavaScript, no build step.
"use strict";

(() => {
  const STRINGS = window.OKEY_I18N;
  const ROW = 15; // slots per rack row
  const ROWS = 2;
  const SLOTS = ROW * ROWS;
  const COLOURS = { R: "R", Y: "Y", B: "B", K: "K" };

  // Every option of RULES.md section 5, in that order: its JSON name, its games, its kind.
  const OPTIONS = [
    { name: "match_points", json: "matchPoints", games: ["OKEY"], type: "int", min: 1, max: 1000, def: 20 },
    { name: "indicator", json: "indicator", games: ["OKEY"], type: "bool", def: true },
    { name: "indicator_scoring", json: "indicatorScoring", games: ["OKEY"], type: "enum", prefix: "INDICATOR_SCORING_",
      values: ["OTHERS_MINUS_1", "SHOWER_PLUS_1"] },
    { name: "indicator_timing", json: "indicatorTiming", games: ["OKEY"], type: "enum", prefix: "INDICATOR_TIMING_",
      values: ["BEFORE_FIRST_MOVE", "FIRST_TURN"] },
    { name: "colored", json: "colored", games: ["OKEY"], type: "bool", def: false },
    { name: "partners", json: "partners", games: ["OKEY"], type: "bool", def: false },
    { name: "duel", json: "duel", games: ["OKEY"], type: "bool", def: false },
    { name: "penalties", json: "penalties", games: ["OKEY"], type: "bool", def: false },
    { name: "discard_history", json: "discardHistory", games: ["OKEY"], type: "enum", prefix: "DISCARD_HISTORY_",
      values: ["ALL", "PAIRS_ONLY"] },
    { name: "pairs_declaration", json: "pairsDeclaration", games: ["OKEY"], type: "enum", prefix: "PAIRS_DECLARATION_",
      values: ["MARKER", "BINDING"] },
    { name: "deck_end", json: "deckEnd", games: ["OKEY"], type: "enum", prefix: "DECK_END_", values: ["DEAD_HAND", "LAST_CHANCE"] },
    { name: "turn_seconds", json: "turnSeconds", games: ["OKEY", "OKEY101"], type: "int", min: 5, max: 120, def: 20 },
    { name: "seats", json: "seats", games: ["OKEY101"], type: "choice", values: [4, 2] },
    { name: "wrap", json: "wrap", games: ["OKEY101"], type: "bool", def: false },
    { name: "mode", json: "mode", games: ["OKEY101"], type: "enum", prefix: "MODE_", values: ["PLAIN", "FOLDING"] },
    { name: "rounds", json: "rounds", games: ["OKEY101"], type: "choice", values: [5, 3, 7, 9, 11] },
    { name: "discard_penalty", json: "discardPenalty", games: ["OKEY101"], type: "bool", def: true },
    { name: "stake", json: "stake", games: ["OKEY", "OKEY101"], type: "int", min: 0, max: 1000000000, def: 0 },
    { name: "hand_prize", json: "handPrize", games: ["OKEY101"], type: "int", min: 0, max: 1000000000, def: 0 },
  ];

  // ------------------------------------------------------------------ small helpers

  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
  const num = (x) => Number(x || 0);
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const store = {
    get(k) { try { return localStorage.getItem(k); } catch { return null; } },
    set(k, v) { try { localStorage.setItem(k, v); } catch { /* private mode */ } },
    del(k) { try { localStorage.removeItem(k); } catch { /* private mode */ } },
  };

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "text") el.textContent = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(el.dataset, v);
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  // Protobuf's JSON mapping leaves out zero values: tile 0 (the first R1) arrives as {code: "R1"}.
  function withTileIds(x) {
    if (Array.isArray(x)) { for (const y of x) withTileIds(y); return x; }
    if (x && typeof x === "object") {
      if (typeof x.code === "string" && x.id === undefined) x.id = 0;
      for (const k in x) if (x[k] && typeof x[k] === "object") withTileIds(x[k]);
    }
    return x;
  }

  function uid() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return "c" + Date.now().toString(36) + Math.random().toString(36).slice(2, 12);
  }

  // ------------------------------------------------------------------ state

  const S = {
    lang: store.get("okey.lang") || ((navigator.language || "tr").toLowerCase().startsWith("en") ? "en" : "tr"),
    token: null,
    me: null, // {id, name, chips}
    methods: null, // Set of "/okey.v1.X/Y" the gateway offers, or null when unknown
    lobbyDown: false,
    tables: [],
    waitingAt: new Set(), // tables where I sit and wait for the start
    t: null, // the open table
    chats: {},
    lobbyTimer: null,
  };

  // ------------------------------------------------------------------ i18n

  function tr(key, params) {
    const table = STRINGS[S.lang] || STRINGS.tr;
    let s = table[key];
    if (s === undefined) s = STRINGS.tr[key] !== undefined ? STRINGS.tr[key] : key;
    if (params) s = s.replace(/\{(\w+)\}/g, (_, p) => (params[p] !== undefined ? String(params[p]) : ""));
    return s;
  }
  const hasString = (key) => STRINGS[S.lang][key] !== undefined;

  function applyLang() {
    document.documentElement.lang = S.lang;
    for (const el of $$("[data-i18n]")) el.textContent = tr(el.dataset.i18n);
    for (const el of $$("[data-i18n-aria]")) el.setAttribute("aria-label", tr(el.dataset.i18nAria));
    for (const el of $$("[data-i18n-placeholder]")) el.setAttribute("placeholder", tr(el.dataset.i18nPlaceholder));
    for (const b of $$(".lang button")) b.setAttribute("aria-pressed", String(b.dataset.lang === S.lang));
    document.title = S.t ? `${tr("app.title")} — ${tr("table.title", { id: S.t.id })}` : tr("app.title");
    renderWho();
    renderCreateOptions();
    renderReportReasons();
    if (!$("#screen-lobby").hidden) renderTables();
    if (S.t && !$("#screen-table").hidden) renderTable();
    for (const c of Object.values(S.chats)) renderChat(c);
  }

  function setLang(lang) {
    S.lang = lang;
    store.set("okey.lang", lang);
    applyLang();
  }

  // ------------------------------------------------------------------ tiles

  function face(code) {
    if (!code) return null;
    if (code === "F") return { fake: true };
    return { colour: code[0], number: Number(code.slice(1)) };
  }

  function tileName(code) {
    const f = face(code);
    if (!f) return tr("tile.hidden");
    if (f.fake) {
      const okey = S.t && S.t.view && S.t.view.okey ? S.t.view.okey.code : "";
      return okey ? tr("tile.fake.as", { face: tileName(okey) }) : tr("tile.fake");
    }
    return `${tr("colour." + f.colour)} ${f.number}`;
  }

  function isOkey(code) {
    const okey = S.t && S.t.view && S.t.view.okey ? S.t.view.okey.code : "";
    return !!code && code !== "F" && code === okey;
  }

  // A tile as an element: a button when `button`, else a span. Markers come from the hints.
  function tileEl(tile, opts = {}) {
    const code = tile && tile.code ? tile.code : "";
    const f = face(code);
    const cls = ["tile"];
    if (!f) cls.push("back");
    else if (f.fake) cls.push("fake");
    else cls.push("c-" + (COLOURS[f.colour] || "K"));
    if (isOkey(code)) cls.push("okey");
    if (opts.small) cls.push("small");
    if (opts.extra) cls.push(opts.extra);
    let label = tileName(code);
    if (isOkey(code)) label += `, ${tr("tile.okey")}`;
    const marks = [];
    const hint = opts.hint;
    if (hint) {
      if (hint.finishes) marks.push(["✓", "fin", tr("hints.mark.finishes")]);
      if (hint.penalised) marks.push(["!", "pen", tr("hints.mark.penalised")]);
      if (hint.addable) marks.push(["+", "add", tr("hints.mark.addable")]);
      if (hint.takesOkey) marks.push(["↔", "take", tr("hints.mark.takes")]);
    }
    if (marks.length) label += ". " + marks.map((m) => m[2]).join("; ");
    const okeyFace = f && f.fake && S.t && S.t.view && S.t.view.okey ? face(S.t.view.okey.code) : null;
    const body = [];
    if (!f) body.push(h("span", { class: "n", "aria-hidden": "true" }, ""));
    else if (f.fake) {
      body.push(h("span", { class: "n", "aria-hidden": "true" }, "♣"));
      if (okeyFace) body.push(h("span", { class: "as c-" + okeyFace.colour, "aria-hidden": "true" }, okeyFace.number));
    } else {
      body.push(h("span", { class: "n", "aria-hidden": "true" }, f.number));
      body.push(h("span", { class: "dot", "aria-hidden": "true" }));
    }
    if (isOkey(code)) body.push(h("span", { class: "star", "aria-hidden": "true" }, "★"));
    if (marks.length) {
      body.push(h("span", { class: "marks", "aria-hidden": "true" }, marks.map((m) => h("span", { class: "mk " + m[1] }, m[0]))));
    }
    const attrs = { class: cls.join(" "), "aria-label": label, title: opts.title || label };
    if (tile && tile.id !== undefined) attrs["data-tile"] = tile.id;
    if (opts.button) {
      attrs.type = "button";
      Object.assign(attrs, opts.attrs || {});
      return h("button", attrs, body);
    }
    attrs.role = "img";
    Object.assign(attrs, opts.attrs || {});
    return h("span", attrs, body);
  }

  // ------------------------------------------------------------------ API

  class ApiError extends Error {
    constructor(status, body) {
      super((body && body.message) || (body && body.reason) || `HTTP ${status}`);
      this.status = status;
      this.code = (body && body.code) || "";
      this.reason = (body && body.reason) || "";
    }
  }

  async function api(service, method, body = {}) {
    const headers = { "content-type": "application/json" };
    if (S.token) headers.authorization = "Bearer " + S.token;
    let r;
    try {
      r = await fetch(`/api/okey.v1.${service}/${method}`, { method: "POST", headers, body: JSON.stringify(body) });
    } catch (e) {
      throw new ApiError(0, { code: "UNAVAILABLE", reason: "NETWORK", message: String(e) });
    }
    let data = {};
    try { data = await r.json(); } catch { data = {}; }
    if (!r.ok) {
      const err = new ApiError(r.status, data);
      if (err.reason === "BAD_TOKEN" && S.token) signOut(tr("signin.expired"));
      throw err;
    }
    return data;
  }

  function hasMethod(service, method) {
    return !S.methods || S.methods.has(`/okey.v1.${service}/${method}`);
  }

  // The service behind the method is not part of this deployment or not running.
  function serviceMissing(e) {
    return e && (e.reason === "UNKNOWN_METHOD" || e.code === "UNAVAILABLE" || e.code === "UNIMPLEMENTED");
  }

  function errText(e) {
    if (!e) return "";
    if (e.reason === "NETWORK") return tr("err.network");
    if (e.reason && hasString("err." + e.reason)) return tr("err." + e.reason, { message: e.message });
    if (e.code && hasString("err." + e.code)) return tr("err." + e.code, { message: e.message });
    return tr("err.generic", { message: e.message || e.reason || String(e) });
  }

  let toastTimer = null;
  function toast(text, kind = "error") {
    const el = $("#toast");
    el.textContent = text;
    el.className = "toast " + kind;
    el.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { el.hidden = true; }, 5000);
  }

  function announce(text) {
    const el = $("#sr-live");
    el.textContent = "";
    setTimeout(() => { el.textContent = text; }, 30);
  }

  // ------------------------------------------------------------------ auth

  function decodeToken(token) {
    const parts = String(token || "").trim().split(".");
    if (parts.length !== 3) return null;
    try {
      const b64 = parts[1].replace(/-/g, "+").replace(/_/g, "/");
      const json = decodeURIComponent(escape(atob(b64 + "===".slice((b64.length + 3) % 4))));
      const claims = JSON.parse(json);
      return claims && claims.sub ? claims : null;
    } catch {
      return null;
    }
  }

  function useToken(token, name, chips) {
    const claims = decodeToken(token);
    if (!claims) return false;
    S.token = token.trim();
    S.me = { id: claims.sub, name: name || store.get("okey.name") || claims.sub, chips };
    store.set("okey.token", S.token);
    if (name) store.set("okey.name", name);
    renderWho();
    return true;
  }

  function signOut(message) {
    leaveTable();
    S.token = null;
    S.me = null;
    store.del("okey.token");
    renderWho();
    location.hash = "";
    showSignin(message);
  }

  function renderWho() {
    const who = $("#who");
    if (!S.me) { who.hidden = true; return; }
    who.hidden = false;
    $("#who-name").textContent = tr("signin.as", { name: S.me.name });
    $("#who-chips").textContent = S.me.chips !== undefined && S.me.chips !== null ? tr("signin.chips", { chips: S.me.chips }) : "";
  }

  async function signIn(ev) {
    ev.preventDefault();
    const name = $("#signin-name").value.trim();
    const err = $("#signin-error");
    err.hidden = true;
    if (!hasMethod("LobbyService", "SignInGuest")) { showNoLobby(); return; }
    const btn = $("#signin-submit");
    btn.disabled = true;
    btn.textContent = tr("signin.busy");
    try {
      const r = await api("LobbyService", "SignInGuest", { displayName: name, deviceId: store.get("okey.device") || "" });
      if (r.deviceId) store.set("okey.device", r.deviceId);
      useToken(r.token, r.player ? r.player.displayName : name, r.player ? num(r.player.chips) : undefined);
      go("#/lobby");
    } catch (e) {
      if (serviceMissing(e)) showNoLobby();
      else { err.textContent = errText(e); err.hidden = false; $("#signin-name").focus(); }
    } finally {
      btn.disabled = false;
      btn.textContent = tr("signin.submit");
    }
  }

  function showNoLobby() {
    $("#nolobby").hidden = false;
    $("#token-box").open = true;
    $("#token-input").focus();
  }

  function signInWithToken(ev) {
    ev.preventDefault();
    const err = $("#token-error");
    if (!useToken($("#token-input").value)) { err.textContent = tr("signin.token.bad"); err.hidden = false; return; }
    err.hidden = true;
    go("#/lobby");
  }

  // ------------------------------------------------------------------ screens and routing

  function show(name) {
    for (const s of ["signin", "lobby", "table"]) $("#screen-" + s).hidden = s !== name;
    if (name !== "lobby") clearInterval(S.lobbyTimer);
    if (name !== "table") $("#conn").hidden = true;
  }

  function showSignin(message) {
    show("signin");
    const err = $("#signin-error");
    if (message) { err.textContent = message; err.hidden = false; } else err.hidden = true;
    if (S.methods && !hasMethod("LobbyService", "SignInGuest")) showNoLobby();
    $("#signin-name").focus();
  }

  // Navigate: a new hash routes through hashchange; the same hash routes now.
  function go(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  }

  function route() {
    if (!S.token) { showSignin(); return; }
    const m = location.hash.match(/^#\/table\/([A-Za-z0-9_-]+)(?:\/(\d+))?/);
    if (m) enterTable(m[1], m[2] !== undefined ? Number(m[2]) : null);
    else showLobby();
  }

  // ------------------------------------------------------------------ lobby

  function showLobby() {
    leaveTable();
    show("lobby");
    document.title = tr("app.title");
    renderCreateOptions();
    refreshLobby();
    refreshMe();
    clearInterval(S.lobbyTimer);
    S.lobbyTimer = setInterval(refreshLobby, 5000);
    startChat("lobby", "");
  }

  async function refreshMe() {
    if (!hasMethod("LobbyService", "GetPlayer")) return;
    try {
      const r = await api("LobbyService", "GetPlayer", {});
      if (r.player && S.me) {
        S.me.name = r.player.displayName || S.me.name;
        S.me.chips = num(r.player.chips);
        store.set("okey.name", S.me.name);
        renderWho();
      }
    } catch { /* the lobby is optional */ }
  }

  async function refreshLobby() {
    const note = $("#lobby-unavailable");
    if (!hasMethod("LobbyService", "ListTables")) { S.lobbyDown = true; note.hidden = false; renderTables(); return; }
    try {
      // Playing tables always come, so a seated player finds their table again; the box filters the rest.
      const r = await api("LobbyService", "ListTables", { includePlaying: true, pageSize: 100 });
      const all = r.tables || [];
      const showPlaying = $("#include-playing").checked;
      S.tables = all.filter((t) => showPlaying || statusName(t.status) === "WAITING" || mySeatAt(t) !== null);
      S.lobbyDown = false;
      // A table I was waiting at has started: go and sit at it.
      for (const t of all) {
        const seat = mySeatAt(t);
        if (seat === null) continue;
        const status = statusName(t.status);
        if (status === "WAITING") S.waitingAt.add(t.tableId);
        else if (S.waitingAt.has(t.tableId) && (status === "PLAYING" || status === "STARTING")) {
          S.waitingAt.delete(t.tableId);
          location.hash = `#/table/${t.tableId}/${seat}`;
          return;
        }
      }
      note.hidden = true;
      renderTables();
    } catch (e) {
      if (serviceMissing(e)) { S.lobbyDown = true; note.hidden = false; S.tables = []; renderTables(); }
      else toast(errText(e));
    }
  }

  function statusName(s) { return String(s || "").replace("LOBBY_TABLE_STATUS_", ""); }
  function gameName(g) { return String(g || "GAME_OKEY").replace("GAME_", ""); }

  function ruleText(rule) {
    if (S.lang === "tr" && rule.label) return rule.label;
    const title = tr("opt." + rule.option);
    let value = rule.value;
    if (value === "on" || value === "off") value = tr("opt." + value);
    else if (hasString(`opt.${rule.option}.${value}`)) value = tr(`opt.${rule.option}.${value}`);
    return `${title}: ${value}`;
  }

  function mySeatAt(table) {
    const s = (table.seats || []).find((x) => x.playerId && S.me && x.playerId === S.me.id);
    return s ? num(s.seat) : null;
  }

  function renderTables() {
    const box = $("#tables");
    box.replaceChildren();
    if (!S.tables.length) {
      box.append(h("p", { class: "empty" }, S.lobbyDown ? "" : tr("lobby.none")));
      return;
    }
    for (const t of S.tables) {
      const id = t.tableId;
      const status = statusName(t.status);
      const mine = mySeatAt(t);
      const game = gameName(t.game);
      const titleId = "card-" + id;
      const seats = h("ul", { class: "card-seats" }, (t.seats || []).map((s) => {
        const who = s.bot ? tr("lobby.seat.bot") : s.playerId ? (s.displayName || s.playerId) : tr("lobby.seat.open");
        return h("li", { class: s.playerId ? "taken" : s.bot ? "bot" : "open" },
          h("span", { class: "seat-no" }, num(s.seat) + 1), " ", who, s.left ? ` (${tr("lobby.seat.left")})` : "");
      }));
      const actions = h("div", { class: "card-actions row" });
      if (mine !== null && (status === "PLAYING" || status === "STARTING" || status === "FINISHED")) {
        actions.append(h("button", { type: "button", class: "primary", onclick: () => { location.hash = `#/table/${id}/${mine}`; } }, tr("lobby.open")));
      }
      if (mine !== null && status === "WAITING") {
        if (t.creatorId === S.me.id) {
          actions.append(h("button", { type: "button", class: "primary", onclick: () => fillWithBots(id) }, tr("lobby.fill")));
        }
        actions.append(h("button", { type: "button", onclick: () => leaveLobbyTable(id) }, tr("lobby.leave")));
      }
      if (mine === null && status === "WAITING") {
        actions.append(h("button", { type: "button", class: "primary", onclick: () => joinTable(id) }, tr("lobby.join")));
      }
      box.append(h("article", { class: "card", "aria-labelledby": titleId },
        h("header", { class: "row spread" },
          h("h4", { id: titleId }, `${tr("game." + game)} · ${id}`),
          h("span", { class: "badge status-" + status.toLowerCase() }, tr("status." + status))),
        h("p", { class: "card-meta" },
          tr("lobby.seats", { taken: num(t.seatsTaken), count: num(t.seatCount) }),
          num(t.stake) ? " · " + tr("lobby.stake", { stake: t.stake }) : "",
          t.visibility === "TABLE_VISIBILITY_PRIVATE" ? " · " + tr("lobby.private") : "",
          t.inviteCode ? " · " + tr("lobby.invite", { code: t.inviteCode }) : ""),
        seats,
        h("ul", { class: "rules", "aria-label": tr("create.rules") }, (t.rules || []).map((r) => h("li", { title: r.label || "" }, ruleText(r)))),
        actions));
    }
  }

  async function fillWithBots(id) {
    try {
      const r = await api("LobbyService", "FillWithBots", { tableId: id });
      const seat = mySeatAt(r.table || {});
      location.hash = `#/table/${id}/${seat === null ? 0 : seat}`;
    } catch (e) { toast(errText(e)); }
  }

  async function joinTable(id) {
    try {
      const r = await api("LobbyService", "JoinTable", { tableId: id });
      if (r.started) location.hash = `#/table/${id}/${num(r.seat)}`;
      else refreshLobby();
    } catch (e) { toast(errText(e)); }
  }

  async function leaveLobbyTable(id) {
    try { await api("LobbyService", "LeaveTable", { tableId: id }); } catch (e) { toast(errText(e)); }
    refreshLobby();
  }

  // ------------------------------------------------------------------ creating a table

  function renderCreateOptions() {
    const box = $("#create-options");
    if (!box) return;
    const game = $("#create-game").value;
    const previous = {};
    for (const el of $$("[data-opt]", box)) previous[el.dataset.opt] = el.type === "checkbox" ? el.checked : el.value;
    box.replaceChildren();
    for (const o of OPTIONS) {
      if (!o.games.includes(game)) continue;
      const id = "opt-" + o.name;
      const helpId = id + "-help";
      let input;
      if (o.type === "bool") {
        input = h("input", { type: "checkbox", id, "data-opt": o.name, "aria-describedby": helpId });
        input.checked = previous[o.name] !== undefined ? previous[o.name] : o.def;
      } else if (o.type === "int") {
        input = h("input", { type: "number", id, "data-opt": o.name, min: o.min, max: o.max, step: 1, inputmode: "numeric", "aria-describedby": helpId });
        input.value = previous[o.name] !== undefined ? previous[o.name] : o.def;
      } else {
        input = h("select", { id, "data-opt": o.name, "aria-describedby": helpId },
          o.values.map((v) => h("option", { value: String(v) }, o.type === "enum" ? tr(`opt.${o.name}.${v}`) : String(v))));
        if (previous[o.name] !== undefined) input.value = previous[o.name];
      }
      const def = o.type === "bool" ? tr(o.def ? "opt.on" : "opt.off")
        : o.type === "enum" ? tr(`opt.${o.name}.${o.values[0]}`) : String(o.type === "choice" ? o.values[0] : o.def);
      box.append(h("div", { class: "option " + (o.type === "bool" ? "bool" : "") },
        h("label", { for: id }, h("code", { class: "opt-name" }, o.name), " ", tr("opt." + o.name)),
        input,
        h("p", { id: helpId, class: "help" }, tr(`opt.${o.name}.help`), " ", h("span", { class: "def" }, "(" + tr("create.default", { value: def }) + ")"))));
    }
    box.onchange = syncCreateConstraints;
    syncCreateConstraints();
  }

  // Combinations the rules refuse are not offered: PAIRS_ONLY history needs a binding pairs
  // declaration [C-PAIR-3] (the server refuses the other one with INVALID_OPTIONS all the same).
  function syncCreateConstraints() {
    const hist = $('[data-opt="discard_history"]');
    const decl = $('[data-opt="pairs_declaration"]');
    if (!hist || !decl) return;
    const pairsOnly = hist.value === "PAIRS_ONLY";
    const marker = decl.querySelector('option[value="MARKER"]');
    if (marker) marker.disabled = pairsOnly;
    if (pairsOnly && decl.value === "MARKER") decl.value = "BINDING";
    let note = $("#opt-pairs-note");
    if (!note) {
      note = h("p", { id: "opt-pairs-note", class: "help note", role: "status" });
      decl.after(note);
    }
    note.textContent = pairsOnly ? tr("opt.pairs_declaration.needs_binding") : "";
    note.hidden = !pairsOnly;
  }

  function readOptions(game) {
    const options = { game: "GAME_" + game };
    for (const o of OPTIONS) {
      if (!o.games.includes(game)) continue;
      const el = $(`[data-opt="${o.name}"]`);
      if (!el) continue;
      if (o.type === "bool") options[o.json] = el.checked;
      else if (o.type === "int") options[o.json] = Number(el.value);
      else if (o.type === "choice") options[o.json] = Number(el.value);
      else options[o.json] = o.prefix + el.value;
    }
    return options;
  }

  async function createTable(ev, quick = false) {
    if (ev) ev.preventDefault();
    const game = $("#create-game").value;
    const options = quick ? { game: "GAME_" + game } : readOptions(game);
    const fill = quick ? true : $("#create-fill").checked;
    const err = $("#create-error");
    err.hidden = true;
    const btn = $("#create-submit");
    btn.disabled = true;
    btn.textContent = tr("create.busy");
    try {
      if (!S.lobbyDown && hasMethod("LobbyService", "OpenTable")) {
        try {
          const r = await api("LobbyService", "OpenTable", {
            options, visibility: quick ? "TABLE_VISIBILITY_PUBLIC" : $("#create-visibility").value, fillWithBots: fill,
          });
          const id = r.table.tableId;
          if (fill) location.hash = `#/table/${id}/${num(r.seat)}`;
          else refreshLobby();
          return;
        } catch (e) {
          if (!serviceMissing(e)) throw e;
          S.lobbyDown = true;
          $("#lobby-unavailable").hidden = false;
        }
      }
      // No lobby: open the table on the table service directly, the player in seat 0, bots elsewhere.
      const count = game === "OKEY101" ? num(options.seats || 4) : 4;
      const seats = [{ playerId: S.me.id }];
      for (let i = 1; i < count; i++) seats.push({ playerId: "" });
      const r = await api("TableService", "CreateTable", { options, seats });
      location.hash = `#/table/${r.tableId}/0`;
    } catch (e) {
      err.textContent = errText(e);
      err.hidden = false;
    } finally {
      btn.disabled = false;
      btn.textContent = tr("create.submit");
    }
  }

  // ------------------------------------------------------------------ chat and reports

  function chatSlot(kind) { return $(`.chat-slot[data-chat="${kind}"]`); }

  function startChat(kind, tableId) {
    const old = S.chats[kind];
    if (old) { clearInterval(old.timer); }
    const slot = chatSlot(kind);
    slot.replaceChildren($("#chat-template").content.cloneNode(true));
    for (const el of $$("[data-i18n]", slot)) el.textContent = tr(el.dataset.i18n);
    const input = $(".chat-input", slot);
    input.id = "chat-input-" + kind;
    $("label", slot).setAttribute("for", input.id);
    input.setAttribute("placeholder", tr("chat.placeholder"));
    const c = { kind, tableId, after: 0, messages: [], timer: null, note: "", slot };
    S.chats[kind] = c;
    $(".chat-form", slot).addEventListener("submit", (ev) => { ev.preventDefault(); sendChat(c); });
    if (!hasMethod("LobbyService", "ListMessages")) { c.note = tr("chat.unavailable"); renderChat(c); return; }
    pollChat(c);
    c.timer = setInterval(() => pollChat(c), 2500);
  }

  function stopChat(kind) {
    const c = S.chats[kind];
    if (c) { clearInterval(c.timer); delete S.chats[kind]; }
  }

  async function pollChat(c) {
    if (S.chats[c.kind] !== c || c.busy) return;
    c.busy = true;
    try {
      const r = await api("LobbyService", "ListMessages", { tableId: c.tableId, afterMessageId: c.after, limit: 50 });
      const msgs = r.messages || [];
      if (msgs.length) {
        c.messages = c.messages.concat(msgs).slice(-100);
        c.after = num(msgs[msgs.length - 1].messageId);
      }
      if (c.note) c.note = "";
      if (msgs.length || c.rendered === undefined) renderChat(c);
    } catch (e) {
      c.note = serviceMissing(e) ? tr("chat.unavailable") : errText(e);
      renderChat(c);
      if (serviceMissing(e) || e.reason === "NOT_SEATED") clearInterval(c.timer);
    } finally {
      c.busy = false;
    }
  }

  function renderChat(c) {
    const log = $(".chat-log", c.slot);
    if (!log) return;
    c.rendered = true;
    log.replaceChildren();
    if (!c.messages.length) log.append(h("li", { class: "empty" }, tr("chat.none")));
    for (const m of c.messages) {
      const mine = S.me && m.playerId === S.me.id;
      const item = h("li", { class: mine ? "mine" : "" },
        h("strong", {}, m.displayName || m.playerId), ": ", m.text);
      if (!mine && m.playerId) {
        item.append(" ", h("span", { class: "msg-actions" },
          h("button", { type: "button", class: "link", onclick: () => openReport(m.playerId, m.displayName, [num(m.messageId)]) }, tr("chat.report")),
          h("button", { type: "button", class: "link", onclick: () => mute(m.playerId, m.displayName) }, tr("chat.mute"))));
      }
      log.append(item);
    }
    log.scrollTop = log.scrollHeight;
    const note = $(".chat-note", c.slot);
    note.textContent = c.note;
    note.hidden = !c.note;
  }

  async function sendChat(c) {
    const input = $(".chat-input", c.slot);
    const text = input.value.trim();
    if (!text) return;
    try {
      await api("LobbyService", "SendMessage", { tableId: c.tableId, text });
      input.value = "";
      pollChat(c);
    } catch (e) {
      c.note = serviceMissing(e) ? tr("chat.unavailable") : errText(e);
      renderChat(c);
    }
  }

  async function mute(playerId, name) {
    try {
      await api("LobbyService", "MutePlayer", { playerId });
      toast(tr("chat.muted", { name: name || playerId }), "info");
      for (const c of Object.values(S.chats)) { c.messages = c.messages.filter((m) => m.playerId !== playerId); renderChat(c); }
    } catch (e) { toast(errText(e)); }
  }

  const REPORT_REASONS = ["ABUSE", "PERSONAL_INFO", "ADVERTISING", "COLLUSION", "STALLING", "OTHER"];
  let reportTarget = null;

  function renderReportReasons() {
    const sel = $("#report-reason");
    const v = sel.value;
    sel.replaceChildren(...REPORT_REASONS.map((r) => h("option", { value: r }, tr("report.reason." + r))));
    if (v) sel.value = v;
  }

  function openReport(playerId, name, messageIds = []) {
    if (!hasMethod("LobbyService", "ReportPlayer")) { toast(tr("chat.unavailable")); return; }
    reportTarget = { playerId, name: name || playerId, messageIds };
    $("#report-who").textContent = tr("report.player", { name: reportTarget.name });
    $("#report-details").value = "";
    $("#report-error").hidden = true;
    $("#report-dialog").showModal();
  }

  async function sendReport(ev) {
    ev.preventDefault();
    if (!reportTarget) return;
    try {
      const r = await api("LobbyService", "ReportPlayer", {
        playerId: reportTarget.playerId,
        reason: "REPORT_REASON_" + $("#report-reason").value,
        details: $("#report-details").value.trim(),
        messageIds: reportTarget.messageIds,
        tableId: S.t ? S.t.id : "",
      });
      $("#report-dialog").close();
      toast(tr("report.sent", { id: r.reportId }), "info");
    } catch (e) {
      const err = $("#report-error");
      err.textContent = errText(e);
      err.hidden = false;
    }
  }

  // ------------------------------------------------------------------ the table: state

  function newTable(id, seat) {
    return {
      id, seat, view: null, version: 0, ws: null, wsTimer: null, attempts: 0, closing: false, live: false,
      names: {}, card: null, slots: [], rackKey: "", selected: [], staged: [], hints: null, hintsKey: "",
      hintsTimer: null, log: [], resultShown: false, busy: false, focus: 0, dragging: false, pending: false,
      gaps: 0, dups: 0, received: 0, hands: null, handsVersion: -1,
    };
  }

  function leaveTable() {
    const t = S.t;
    if (!t) return;
    t.closing = true;
    clearTimeout(t.wsTimer);
    clearTimeout(t.hintsTimer);
    if (t.ws) { try { t.ws.close(1000); } catch { /* closed already */ } }
    stopChat("table");
    S.t = null;
    document.body.classList.remove("my-turn");
    const d = $("#result-dialog");
    if (d.open) d.close();
  }

  async function enterTable(id, seat) {
    if (S.t && S.t.id === id && (seat === null || S.t.seat === seat)) { show("table"); renderTable(); return; }
    leaveTable();
    const t = newTable(id, seat);
    S.t = t;
    show("table");
    document.title = `${tr("app.title")} — ${tr("table.title", { id })}`;
    $("#table-title").textContent = tr("table.title", { id });
    $("#board").replaceChildren(h("p", { class: "loading" }, tr("table.loading")));
    $("#rack").replaceChildren();
    $("#actions").replaceChildren();
    $("#event-log").replaceChildren();
    await loadCard(t);
    if (t.seat === null) {
      const known = store.get("okey.seat." + id);
      t.seat = known !== null ? Number(known) : null;
    }
    for (let i = 0; ; i++) {
      if (S.t !== t) return;
      try {
        const body = { tableId: id };
        if (t.seat !== null) body.seat = t.seat;
        const r = await api("TableService", "GetView", body);
        applyView(r.view, null);
        break;
      } catch (e) {
        // A lobby table is opened on the table service a moment after its last seat is taken.
        if ((e.code === "NOT_FOUND" || e.code === "UNAVAILABLE") && i < 40) { await sleep(300); continue; }
        if (e.code === "PERMISSION_DENIED" && t.seat !== null) { t.seat = null; continue; }
        $("#board").replaceChildren(h("p", { class: "error" }, errText(e)));
        return;
      }
    }
    if (t.seat !== null) store.set("okey.seat." + id, String(t.seat));
    await loadHistory(t);
    connectWatch(t);
    startChat("table", id);
    refreshHands(t);
  }

  // The latest events before the page came, for the log; later ones arrive over the watch.
  async function loadHistory(t) {
    if (!hasMethod("TableService", "GetEvents")) return;
    try {
      const body = { tableId: t.id, afterVersion: Math.max(0, t.version - 40), limit: 40 };
      if (t.seat !== null) body.seat = t.seat;
      const r = await api("TableService", "GetEvents", body);
      if (S.t !== t) return;
      for (const ev of r.events || []) if (num(ev.version) <= t.version) logEvent(t, withTileIds(ev), true);
      renderLog(t);
    } catch { /* the log is a help */ }
  }

  async function loadCard(t) {
    if (S.lobbyDown || !hasMethod("LobbyService", "GetTableCard")) return;
    try {
      const r = await api("LobbyService", "GetTableCard", { tableId: t.id });
      t.card = r.table || null;
      for (const s of (t.card && t.card.seats) || []) {
        if (s.displayName) t.names[num(s.seat)] = s.displayName;
      }
      if (t.seat === null && t.card) t.seat = mySeatAt(t.card);
    } catch { /* names fall back to seat numbers */ }
  }

  function seatName(seat) {
    const t = S.t;
    if (!t) return String(seat + 1);
    if (seat === t.seat) return tr("table.you");
    if (t.names[seat]) return t.names[seat];
    const pub = t.view && (t.view.seats || [])[seat];
    if (pub && !pub.playerId) return tr("table.bot", { n: seat + 1 });
    return tr("table.seat", { n: seat + 1 });
  }

  // ------------------------------------------------------------------ the table: live updates

  function wsUrl(t) {
    const q = new URLSearchParams({ tableId: t.id, afterVersion: String(t.version), token: S.token || "" });
    if (t.seat !== null) q.set("seat", String(t.seat));
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws/okey.v1.TableService/Watch?${q}`;
  }

  function setConn(state) {
    const el = $("#conn");
    el.hidden = false;
    el.className = "conn " + state;
    el.textContent = tr("conn." + state);
  }

  function connectWatch(t) {
    if (t.closing || S.t !== t) return;
    setConn(t.attempts ? "reconnecting" : "connecting");
    let ws;
    try { ws = new WebSocket(wsUrl(t)); } catch { scheduleReconnect(t); return; }
    t.ws = ws;
    ws.onmessage = (m) => {
      if (t.ws !== ws) return;
      let d;
      try { d = JSON.parse(m.data); } catch { return; }
      t.received++;
      if (d.error) {
        if (d.error.reason === "BAD_TOKEN" || d.error.code === "UNAUTHENTICATED") { signOut(tr("signin.expired")); return; }
        toast(errText(d.error));
        return;
      }
      if (d.snapshot) {
        t.attempts = 0;
        t.live = true;
        setConn("live");
        if (num(d.snapshot.version) >= t.version) applyView(d.snapshot, null);
        return;
      }
      if (d.event && d.view) {
        const v = num(d.event.version);
        if (v <= t.version) { t.dups++; return; }
        if (v > t.version + 1) t.gaps++;
        applyView(d.view, d.event);
      }
    };
    ws.onclose = (ev) => {
      if (t.ws !== ws) return;
      t.ws = null;
      t.live = false;
      if (t.closing || S.t !== t) return;
      if (ev.code === 4401) { signOut(tr("signin.expired")); return; }
      scheduleReconnect(t);
    };
  }

  function scheduleReconnect(t) {
    setConn("reconnecting");
    const delay = Math.min(5000, 250 * 2 ** t.attempts);
    t.attempts++;
    clearTimeout(t.wsTimer);
    t.wsTimer = setTimeout(() => connectWatch(t), delay);
  }

  async function refreshView(t) {
    try {
      const body = { tableId: t.id };
      if (t.seat !== null) body.seat = t.seat;
      const r = await api("TableService", "GetView", body);
      if (S.t === t && num(r.view.version) > t.version) applyView(r.view, null);
    } catch { /* the watch will catch up */ }
  }

  function applyView(view, event) {
    const t = S.t;
    if (!t || !view) return;
    withTileIds(view);
    if (event) withTileIds(event);
    const prev = t.view;
    t.view = view;
    t.version = num(view.version);
    syncRack(t);
    if (event) logEvent(t, event);
    if (t.dragging) t.pending = true;
    else renderTable();
    const mine = isMyTurn(view);
    if (mine && (!prev || !isMyTurn(prev) || num(prev.hand) !== num(view.hand))) announce(tr("ev.yourTurn"));
    scheduleHints(t);
    if (view.phase === "PHASE_MATCH_OVER" && !t.resultShown) { t.resultShown = true; showFinal(t); }
    if (event && (event.handEnded || event.handEnded101 || event.handVoided || event.matchEnded)) refreshHands(t);
  }

  // ------------------------------------------------------------------ the table: the rack order (client side)

  function rackIds(view) { return (view.rack || []).map((x) => x.id); }

  function syncRack(t) {
    const v = t.view;
    const key = `okey.rack.${t.id}.${num(v.hand)}`;
    const ids = rackIds(v);
    const have = new Set(ids);
    if (t.rackKey !== key) {
      t.rackKey = key;
      t.staged = [];
      t.selected = [];
      let saved = null;
      try { saved = JSON.parse(store.get(key) || "null"); } catch { saved = null; }
      t.slots = Array.isArray(saved) && saved.length === SLOTS ? saved : new Array(SLOTS).fill(null);
    }
    for (let i = 0; i < SLOTS; i++) if (t.slots[i] !== null && !have.has(t.slots[i])) t.slots[i] = null;
    t.staged = t.staged.map((m) => ({ ...m, ids: m.ids.filter((x) => have.has(x)) })).filter((m) => m.ids.length);
    t.selected = t.selected.filter((x) => have.has(x));
    const placed = new Set(t.slots.filter((x) => x !== null));
    const fresh = ids.filter((x) => !placed.has(x));
    if (fresh.length) {
      const empty = t.slots.every((x) => x === null);
      if (empty) {
        // A new deal: the server's order, one row after the other.
        fresh.forEach((id, i) => { t.slots[i] = id; });
      } else {
        // A drawn tile goes right after the last tile, or into the first free slot.
        let last = -1;
        for (let i = 0; i < SLOTS; i++) if (t.slots[i] !== null) last = i;
        for (const id of fresh) {
          let at = t.slots.indexOf(null, last + 1);
          if (at < 0) at = t.slots.indexOf(null);
          t.slots[at] = id;
          last = at;
        }
      }
    }
    saveRack(t);
  }

  function saveRack(t) { if (t.rackKey) store.set(t.rackKey, JSON.stringify(t.slots)); }

  function tileById(t, id) { return (t.view.rack || []).find((x) => x.id === id) || null; }

  function moveTile(t, id, target) {
    const from = t.slots.indexOf(id);
    if (from < 0 || target < 0 || target >= SLOTS || from === target) return;
    t.slots[from] = null;
    if (t.slots[target] === null) { t.slots[target] = id; }
    else {
      // Slide the tiles between the target and the nearest gap, as on a real rack.
      let r = target;
      while (r < SLOTS && t.slots[r] !== null) r++;
      if (r < SLOTS) {
        for (let k = r; k > target; k--) t.slots[k] = t.slots[k - 1];
      } else {
        let l = target;
        while (l >= 0 && t.slots[l] !== null) l--;
        for (let k = l; k < target; k++) t.slots[k] = t.slots[k + 1];
      }
      t.slots[target] = id;
    }
    saveRack(t);
  }

  function swapSlots(t, a, b) {
    if (b < 0 || b >= SLOTS) return;
    [t.slots[a], t.slots[b]] = [t.slots[b], t.slots[a]];
    saveRack(t);
  }

  // Lay melds out on the rack, each on one row where it fits, a gap between them; the rest after.
  function arrange(t, melds) {
    const inMelds = new Set(melds.flat());
    const rest = t.slots.filter((x) => x !== null && !inMelds.has(x));
    const have = new Set(rackIds(t.view));
    const groups = melds.map((m) => m.filter((x) => have.has(x))).filter((m) => m.length);
    if (rest.length) groups.push(rest);
    const tryLayout = (gap) => {
      const slots = new Array(SLOTS).fill(null);
      let pos = 0;
      for (const g of groups) {
        const rowEnd = (Math.floor(pos / ROW) + 1) * ROW;
        if (gap && pos % ROW !== 0 && pos + g.length > rowEnd && g.length <= ROW) pos = rowEnd;
        for (const id of g) {
          if (pos >= SLOTS) return null;
          slots[pos++] = id;
        }
        if (gap) pos++;
      }
      return slots;
    };
    const slots = tryLayout(true) || tryLayout(false);
    if (slots) { t.slots = slots; saveRack(t); }
    renderTable();
  }

  // ------------------------------------------------------------------ the table: hints

  function hintsKey(t) {
    const v = t.view;
    return JSON.stringify([rackIds(v).slice().sort((a, b) => a - b), (v.melds || []).map((m) => (m.tiles || []).map((x) => x.id)), v.stage, num(v.turn), num(v.hand)]);
  }

  function scheduleHints(t) {
    if (t.seat === null || !t.view || t.view.phase !== "PHASE_PLAYING" || !hasMethod("TableService", "GetHints")) return;
    const key = hintsKey(t);
    if (key === t.hintsKey) return;
    clearTimeout(t.hintsTimer);
    t.hintsTimer = setTimeout(async () => {
      if (S.t !== t) return;
      try {
        const r = await api("TableService", "GetHints", { tableId: t.id, seat: t.seat });
        if (S.t !== t) return;
        t.hints = withTileIds(r.hints || {});
        t.hintsKey = key;
        if (!t.dragging) renderTable();
      } catch { /* hints are a help, not a need */ }
    }, 150);
  }

  function tileHint(t, id) {
    if (!t.hints || !t.hints.tiles) return null;
    const x = t.hints.tiles.find((th) => th.tile && th.tile.id === id);
    return x || null;
  }

  function arrangementIds(arr) { return ((arr && arr.melds) || []).map((m) => (m.tiles || []).map((x) => x.id)); }

  // ------------------------------------------------------------------ the table: acting

  function isMyTurn(v) {
    const t = S.t;
    return !!(t && v && t.seat !== null && v.phase === "PHASE_PLAYING" && num(v.turn) === t.seat);
  }
  function stage(v) { return String((v && v.stage) || "").replace("STAGE_", ""); }
  function is101(v) { return v && v.options && v.options.game === "GAME_OKEY101"; }
  function me(v) { const t = S.t; return t && t.seat !== null ? (v.seats || [])[t.seat] || {} : {}; }

  async function act(name, body = {}) {
    const t = S.t;
    if (!t || t.seat === null || t.busy) return null;
    t.busy = true;
    renderActions();
    try {
      const r = await api("TableService", "Act", { tableId: t.id, commandId: uid(), seat: t.seat, [name]: body });
      if (!t.live) refreshView(t);
      return r;
    } catch (e) {
      toast(errText(e));
      return null;
    } finally {
      t.busy = false;
      if (S.t === t) renderActions();
    }
  }

  function selectedOne() { const t = S.t; return t && t.selected.length === 1 ? t.selected[0] : null; }

  // Leaving mid-match [C-LEAVE-1] [D-10] cannot be undone: a bot plays the seat to the end, the
  // stake stays in the pot and the match counts as a loss, so the player confirms it first.
  async function doLeave() {
    if (!window.confirm(tr("act.leave_seat.confirm"))) return;
    const r = await act("leaveSeat");
    if (!r) return;
    toast(tr("act.leave_seat.done"), "info");
    location.hash = "";
    showLobby();
  }

  function doDraw() { return act("draw"); }
  function doTake() { return act("takeDiscard"); }
  async function doDiscard(id = selectedOne()) {
    if (id === null || id === undefined) return;
    const r = await act("discard", { tileId: id });
    if (r && S.t) S.t.selected = S.t.selected.filter((x) => x !== id);
  }
  async function doFinish(id = selectedOne()) {
    if (id === null || id === undefined) return;
    const r = await act("finish", { tileId: id });
    if (r && S.t) S.t.selected = [];
  }

  function stageSelected() {
    const t = S.t;
    if (!t || !t.selected.length) return;
    const order = t.slots.filter((x) => x !== null && t.selected.includes(x));
    t.staged.push({ ids: order, kind: null });
    t.selected = [];
    renderTable();
  }

  function stageFromHints(which) {
    const t = S.t;
    if (!t || !t.hints || !t.hints[which]) return;
    const arr = t.hints[which];
    t.staged = arrangementIds(arr).map((ids, i) => ({ ids, kind: (arr.kinds || [])[i] || null }));
    t.selected = [];
    renderTable();
  }

  async function openStaged() {
    const t = S.t;
    if (!t || !t.staged.length) return;
    const melds = t.staged.map((m) => ({ ids: m.ids }));
    const body = { melds };
    if (t.staged.every((m) => m.kind && m.kind !== "MELD_KIND_UNSPECIFIED")) body.kinds = t.staged.map((m) => m.kind);
    const r = await act("openMelds", body);
    if (r && S.t === t) { t.staged = []; renderTable(); }
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

  // ------------------------------------------------------------------ the table: rendering

  function positions(count, mine) {
    const base = mine === null ? 0 : mine;
    if (count === 2) return { bottom: base, top: (base + 1) % 2 };
    return { bottom: base, right: (base + 1) % 4, top: (base + 2) % 4, left: (base + 3) % 4 };
  }

  function leftSeat(v) {
    const n = (v.seats || []).length || 4;
    const t = S.t;
    return t.seat === null ? null : (t.seat + n - 1) % n;
  }

  function flags(pub, v) {
    const out = [];
    if (pub.declaredPairs) out.push(h("span", { class: "flag pairs", title: tr("table.flag.pairs") }, "ÇİFT"));
    if (pub.turnedToOkey) out.push(h("span", { class: "flag okey", title: tr("table.flag.okey") }, "OKEY"));
    if (pub.left) out.push(h("span", { class: "flag left", title: tr("table.flag.left") }, tr("table.flag.left.short")));
    else if (pub.autopilot) out.push(h("span", { class: "flag auto", title: tr("table.flag.autopilot") }, "AUTO"));
    if (is101(v)) {
      const o = String(pub.opening || "OPENING_NONE").replace("OPENING_", "");
      if (o === "RUNS" || o === "PAIRS") out.push(h("span", { class: "flag opened" }, tr("table.flag.opened." + o, { n: num(pub.openingValue) })));
      else out.push(h("span", { class: "flag notopened" }, tr("table.flag.notopened")));
    }
    return out.map((f) => { f.setAttribute("aria-label", f.title || f.textContent); return f; });
  }

  function renderSeat(v, seat, where) {
    const t = S.t;
    const pub = (v.seats || [])[seat] || {};
    const turn = v.phase === "PHASE_PLAYING" && num(v.turn) === seat;
    const name = seatName(seat);
    const panel = h("section", { class: `seat-panel ${turn ? "turn" : ""} ${seat === t.seat ? "me" : ""}`, "aria-label": name, "data-seat": seat },
      h("div", { class: "seat-name" }, h("span", { class: "seat-no", "aria-hidden": "true" }, seat + 1), " ", h("strong", {}, name), " ", flags(pub, v)),
      h("div", { class: "seat-meta" },
        tr("table.tiles", { n: num(pub.tiles) }), " · ",
        is101(v) ? tr("table.penalty", { n: num(pub.score) }) : tr("table.score", { n: num(pub.score) }),
        is101(v) && num(pub.penalties) ? ` (+${num(pub.penalties)})` : ""),
      turn ? h("div", { class: "turn-bar", "aria-hidden": "true" }, h("span", { class: "turn-fill" })) : null);
    if (pub.playerId && S.me && pub.playerId !== S.me.id && hasMethod("LobbyService", "ReportPlayer")) {
      panel.append(h("button", { type: "button", class: "link small", onclick: () => openReport(pub.playerId, t.names[seat]) }, tr("chat.report")));
    }
    if ((pub.rack || []).length) {
      panel.append(h("div", { class: "revealed" }, pub.rack.map((x) => tileEl(x, { small: true }))));
    }
    return h("div", { class: "seat-area pos-" + where }, panel, renderPile(v, seat));
  }

  function renderPile(v, seat) {
    const t = S.t;
    const pub = (v.seats || [])[seat] || {};
    const pile = pub.pile || [];
    const top = pile.length ? pile[pile.length - 1] : null;
    const name = seatName(seat);
    const mine = seat === t.seat;
    const side = v.sideTile && num(v.sideTile.id) >= 0 && v.sideTile.code ? v.sideTile : null;
    const takeable = !mine && side && seat === leftSeat(v) && isMyTurn(v);
    const box = h("div", {
      class: `pile ${mine ? "mine dropzone" : ""} ${takeable ? "takeable" : ""}`,
      "aria-label": mine ? tr("table.pile.mine") : tr("table.pile", { name }),
      role: "group",
      "data-pile": seat,
    });
    if (top) {
      if (takeable) {
        box.append(tileEl(top, { button: true, attrs: { id: "take-side", "data-focus": "take-side", title: `${tr("table.pile.take")}: ${tileName(top.code)}` } }));
        box.firstChild.addEventListener("click", () => doTake());
        box.firstChild.setAttribute("aria-label", `${tr("act.take_discard")}: ${tileName(top.code)}`);
      } else box.append(tileEl(top));
    } else box.append(h("span", { class: "pile-empty" }, tr("table.pile.empty")));
    const count = num(pub.pileSize);
    if (count) box.append(h("span", { class: "pile-count", "aria-hidden": "true" }, count));
    if (pile.length > 1) {
      box.append(h("div", { class: "pile-history", "aria-label": tr("table.pile.history") }, pile.slice(0, -1).reverse().slice(0, 20).map((x) => tileEl(x, { small: true }))));
    }
    if (mine) {
      box.addEventListener("dragover", (e) => { e.preventDefault(); box.classList.add("over"); });
      box.addEventListener("dragleave", () => box.classList.remove("over"));
      box.addEventListener("drop", (e) => {
        e.preventDefault();
        box.classList.remove("over");
        const id = dragTile(e);
        if (id !== null) doDiscard(id);
      });
    }
    return box;
  }

  function dragTile(e) {
    const d = e.dataTransfer ? e.dataTransfer.getData("text/plain") : "";
    const m = /^tile:(\d+)$/.exec(d || "");
    return m ? Number(m[1]) : null;
  }

  function renderCenter(v) {
    const canDraw = isMyTurn(v) && stage(v) === "DRAW" && num(v.deckCount) > 0;
    const deck = h("button", {
      type: "button", id: "deck", class: "deck", "data-focus": "deck", disabled: !canDraw,
      "aria-label": tr("table.deck.draw", { n: num(v.deckCount) }), onclick: () => doDraw(),
    }, h("span", { class: "tile back", "aria-hidden": "true" }), h("span", { class: "deck-count" }, tr("table.deck.count", { n: num(v.deckCount) })));
    const ind = v.indicator && v.indicator.code ? v.indicator : null;
    const okey = v.okey && v.okey.code ? v.okey : null;
    return h("div", { class: "center" },
      h("div", { class: "center-item" }, h("span", { class: "cap" }, tr("table.deck")), deck),
      h("figure", { class: "center-item" }, h("figcaption", { class: "cap" }, tr("table.indicator")), ind ? tileEl(ind) : h("span", { class: "tile back" })),
      h("figure", { class: "center-item" }, h("figcaption", { class: "cap" }, tr("table.okey")), okey ? tileEl({ code: okey.code }, { extra: "okey-face" }) : h("span", { class: "tile back" })));
  }

  function renderBoard(v) {
    const t = S.t;
    const n = (v.seats || []).length || 4;
    const pos = positions(n, t.seat);
    const board = $("#board");
    board.className = "board seats-" + n + (t.seat === null ? " spectator" : "");
    board.setAttribute("aria-label", tr("table.board"));
    const parts = [];
    for (const where of ["top", "left", "right"]) if (pos[where] !== undefined) parts.push(renderSeat(v, pos[where], where));
    parts.push(renderCenter(v));
    parts.push(renderSeat(v, pos.bottom, "bottom"));
    board.replaceChildren(...parts);
  }

  function renderRack(v) {
    const t = S.t;
    const rack = $("#rack");
    rack.classList.toggle("spectator", t.seat === null);
    if (t.seat === null) { rack.replaceChildren(); return; }
    const staged = new Set(t.staged.flatMap((m) => m.ids));
    const rows = [];
    if (t.focus >= SLOTS) t.focus = SLOTS - 1;
    for (let r = 0; r < ROWS; r++) {
      const cells = [];
      for (let c = 0; c < ROW; c++) {
        const i = r * ROW + c;
        const id = t.slots[i];
        const tile = id !== null && !staged.has(id) ? tileById(t, id) : null;
        const tab = i === t.focus ? "0" : "-1";
        let inner;
        if (tile) {
          inner = tileEl(tile, {
            button: true,
            hint: tileHint(t, id),
            attrs: { tabindex: tab, draggable: "true", "aria-pressed": String(t.selected.includes(id)), "data-slot": i, "data-focus": "slot-" + i },
          });
          if (t.selected.includes(id)) inner.classList.add("selected");
        } else {
          inner = h("button", { type: "button", class: "slot-empty", tabindex: tab, "data-slot": i, "data-focus": "slot-" + i, "aria-label": tr("table.rack.empty") });
        }
        cells.push(h("div", { role: "gridcell", class: "slot", "data-slot": i }, inner));
      }
      rows.push(h("div", { role: "row", class: "rack-row" }, cells));
    }
    rack.replaceChildren(...rows);
  }

  function actionButton(key, onclick, enabled, opts = {}) {
    return h("button", {
      type: "button", class: opts.primary ? "primary" : "", "data-act": key, "data-focus": "act-" + key,
      disabled: !enabled || S.t.busy, onclick, title: opts.title,
    }, opts.label || tr("act." + key));
  }

  function renderActions() {
    const t = S.t;
    const box = $("#actions");
    if (!t || !t.view || t.seat === null) { box.replaceChildren(); return; }
    const v = t.view;
    const one = selectedOne();
    const pub = me(v);
    const side = v.sideTile && num(v.sideTile.id) >= 0 && v.sideTile.code;
    const rackCodes = (v.rack || []).map((x) => x.code);
    const okeyCode = v.okey ? v.okey.code : "";
    // What the seat may send now is the engine's answer (the view's allowed, from okeycore's
    // can); the client adds only what needs a tile picked first.
    const may = new Set(v.allowed || []);
    const items = [];
    items.push(actionButton("draw", doDraw, may.has("Draw")));
    items.push(actionButton("take_discard", doTake, !!side && may.has("TakeDiscard")));
    const canDiscard = one !== null && may.has("Discard");
    items.push(actionButton("discard", () => doDiscard(), canDiscard, { primary: canDiscard }));
    if (!is101(v)) {
      items.push(actionButton("finish", () => doFinish(), one !== null && may.has("Finish")));
      if (may.has("ShowIndicator")) items.push(actionButton("show_indicator", () => act("showIndicator"), true));
      if (!pub.declaredPairs) items.push(actionButton("declare_pairs", () => act("declarePairs"), may.has("DeclarePairs")));
      if (!pub.turnedToOkey && rackCodes.includes(okeyCode)) {
        // Only a hand that could finish right now may turn to okey [C-DON-1]: can says so.
        items.push(actionButton("turn_to_okey", () => act("turnToOkey"), may.has("TurnToOkey")));
      }
      if (may.has("Pass")) items.push(actionButton("pass", () => act("pass"), true));
    } else if (v.canReturnSide) {
      items.push(actionButton("return_side", () => act("returnSideTile"), may.has("ReturnSideTile")));
    }
    if (may.has("TakeBack")) items.push(actionButton("take_back", () => act("takeBack"), true, { primary: true }));
    if (may.has("LeaveSeat")) items.push(actionButton("leave_seat", doLeave, true));
    if (t.selected.length) items.push(actionButton("deselect", () => { t.selected = []; renderTable(); }, true));
    box.replaceChildren(...items);
    const sel = $("#selection-line");
    sel.textContent = t.selected.length
      ? tr("act.selected", { tiles: t.selected.map((id) => { const x = tileById(t, id); return x ? tileName(x.code) : ""; }).join(", ") })
      : "";
  }

  function meldText(m) { return (m.tiles || []).map((x) => tileName(x.code)).join(", "); }

  function renderMelds(v) {
    const t = S.t;
    const area = $("#melds-area");
    if (!is101(v)) { area.hidden = true; return; }
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
        h("button", { type: "button", "data-focus": "unstage", disabled: !t.staged.length, onclick: () => { t.staged = []; renderTable(); } }, tr("act.unstage")),
        h("button", { type: "button", class: "primary", "data-act": "open", "data-focus": "open", disabled: !t.staged.length || !turnPlay || t.busy, onclick: openStaged }, tr("act.open"))));
  }

  function renderHints(v) {
    const t = S.t;
    const body = $("#hints-body");
    if (t.seat === null) { $("#hints-panel").hidden = true; return; }
    $("#hints-panel").hidden = false;
    const hints = t.hints;
    const parts = [];
    parts.push(h("div", { class: "row wrap" },
      h("button", { type: "button", id: "seri-diz", "data-focus": "seri", disabled: !hints, title: tr("hints.seri.help"), onclick: () => arrange(t, arrangementIds(hints && hints.runs)) }, tr("hints.seri")),
      h("button", { type: "button", id: "cift-diz", "data-focus": "cift", disabled: !hints, title: tr("hints.cift.help"), onclick: () => arrange(t, arrangementIds(hints && hints.pairs)) }, tr("hints.cift"))));
    if (hints) {
      const runs = hints.runs || {};
      const pairs = hints.pairs || {};
      if (!is101(v)) {
        parts.push(h("p", {}, tr("hints.classic.runs", { total: num(runs.total), enough: runs.enough ? tr("hints.enough.finish") : "" })));
        parts.push(h("p", {}, tr("hints.classic.pairs", { total: num(pairs.total), enough: pairs.enough ? tr("hints.enough.finish") : "" })));
      } else {
        const opened = String(me(v).opening || "OPENING_NONE") !== "OPENING_NONE";
        const preview = h("div", { class: "preview" }, h("h4", {}, tr("hints.opening")));
        const runLine = h("p", { class: runs.enough ? "ok" : "" },
          tr("hints.opening.runs", { total: num(runs.total), need: num(v.runThreshold) || 101 }), " — ",
          runs.enough ? tr("hints.opening.enough") : tr("hints.opening.short"));
        const pairLine = h("p", { class: pairs.enough ? "ok" : "" },
          tr("hints.opening.pairs", { total: num(pairs.total), need: num(v.pairThreshold) || 5 }), " — ",
          pairs.enough ? tr("hints.opening.enough") : tr("hints.opening.short"));
        const meldList = h("ul", { class: "preview-melds" }, ((runs.melds || []).map((m, i) => h("li", {},
          h("span", { class: "meld-tiles" }, (m.tiles || []).map((x) => tileEl(x, { small: true }))),
          " = ", num((runs.values || [])[i]),
          (runs.standsFor || [])[i] && (m.tiles || []).some((x) => isOkey(x.code) || x.code === "F")
            ? h("span", { class: "help" }, " (", ((runs.standsFor[i].codes) || []).join(" "), ")") : null))));
        preview.append(runLine, meldList, pairLine,
          h("div", { class: "row wrap" },
            h("button", { type: "button", "data-focus": "stage-runs", disabled: !(runs.melds || []).length, onclick: () => stageFromHints("runs") }, tr("act.stage.runs")),
            h("button", { type: "button", "data-focus": "stage-pairs", disabled: !(pairs.melds || []).length, onclick: () => stageFromHints("pairs") }, tr("act.stage.pairs"))));
        if (!opened || (runs.melds || []).length) parts.push(preview);
      }
    }
    parts.push(h("details", { class: "legend" }, h("summary", {}, tr("hints.legend")),
      h("ul", {}, ["finishes", "penalised", "addable", "takes"].map((k) => h("li", {}, tr("hints.mark." + k))))));
    body.replaceChildren(...parts);
  }

  function renderLastHand(v) {
    const panel = $("#lasthand-panel");
    const body = $("#lasthand-body");
    const lh = v.lastHand;
    const lh101 = v.lastHand101;
    const lv = v.lastVoid;
    const parts = [];
    const n = (v.seats || []).length;
    const deltaTable = (deltas, label) => h("table", { class: "mini" },
      h("caption", { class: "sr-only" }, label),
      h("tbody", {}, Array.from({ length: n }, (_, i) => h("tr", {}, h("th", { scope: "row" }, seatName(i)), h("td", {}, fmtDelta(num((deltas || [])[i])))))));
    if (lh101 && num(lh101.hand) >= num(lh && lh.hand) && num(lh101.hand) >= num(lv && lv.hand)) {
      const finished = lh101.reason === "HAND_END_REASON_FINISHED";
      const kinds = [lh101.okeyFinish && tr("result.finished.okey"), lh101.pairFinish && tr("result.finished.pairs"), lh101.elden && tr("result.finished.elden")].filter(Boolean);
      parts.push(h("p", {}, tr("table.hand", { hand: num(lh101.hand) }), ": ",
        finished ? tr("result.finished", { name: seatName(num(lh101.finisher)) }) + (kinds.length ? ` (${kinds.join(", ")})` : "") : tr("result.deck")));
      if (num(lh101.multiplier) > 1) parts.push(h("p", {}, tr("result.multiplier", { n: num(lh101.multiplier) })));
      parts.push(deltaTable(lh101.deltas, tr("result.deltas")));
    } else if (lv && num(lv.hand) >= num(lh && lh.hand)) {
      parts.push(h("p", {}, tr("result.voided")));
    } else if (lh) {
      const finished = lh.reason === "HAND_END_REASON_FINISHED";
      const kinds = [lh.okeyFinish && tr("result.finished.okey"), lh.pairsFinish && tr("result.finished.pairs"), lh.coloredFinish && tr("result.finished.colored")].filter(Boolean);
      parts.push(h("p", {}, tr("table.hand", { hand: num(lh.hand) }), ": ",
        finished ? tr("result.finished", { name: seatName(num(lh.finisher)) }) + (kinds.length ? ` (${kinds.join(", ")})` : "") : tr("result.deck")));
      if (finished && (lh.arrangement || []).length) {
        parts.push(h("div", { class: "arrangement" }, (lh.arrangement || []).map((g) => h("span", { class: "meld-tiles" }, (g.tiles || []).map((x) => tileEl(x, { small: true })))),
          lh.finalTile ? h("span", { class: "final" }, "→ ", tileEl(lh.finalTile, { small: true })) : null));
      }
      if (num(lh.multiplier) > 1) parts.push(h("p", {}, tr("result.multiplier", { n: num(lh.multiplier) })));
      parts.push(deltaTable(lh.deltas, tr("result.deltas")));
    }
    panel.hidden = !parts.length;
    body.replaceChildren(...parts);
  }

  function fmtDelta(d) { return d > 0 ? "+" + d : String(d); }

  async function refreshHands(t) {
    if (!hasMethod("ScoringService", "ListHands")) return;
    try {
      const r = await api("ScoringService", "ListHands", { tableId: t.id });
      if (S.t !== t) return;
      t.hands = r;
      renderHands();
    } catch { /* the scoring service is optional */ }
  }

  function renderHands() {
    const t = S.t;
    const panel = $("#hands-panel");
    if (!t || !t.hands || !t.view) { panel.hidden = true; return; }
    const hands = t.hands.hands || [];
    panel.hidden = false;
    const n = (t.view.seats || []).length;
    if (!hands.length) { $("#hands-body").replaceChildren(h("p", { class: "help" }, tr("result.hands.none"))); return; }
    $("#hands-body").replaceChildren(h("p", { class: "help" }, tr("result.hands.help")), h("table", { class: "mini hands" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), Array.from({ length: n }, (_, i) => h("th", { scope: "col" }, seatName(i))))),
      h("tbody", {}, hands.map((hr) => h("tr", {},
        h("th", { scope: "row" }, num(hr.hand)),
        Array.from({ length: n }, (_, i) => h("td", {}, fmtDelta(num((hr.total || [])[i])), h("span", { class: "help" }, ` (${num((hr.scores || [])[i])})`))))))));
  }

  function renderTable() {
    const t = S.t;
    if (!t || !t.view) return;
    const v = t.view;
    const active = document.activeElement;
    const focusKey = active && active.dataset ? active.dataset.focus : null;
    $("#table-title").textContent = tr("table.title", { id: t.id });
    $("#table-hand").textContent = is101(v)
      ? tr("table.hand101", { hand: num(v.hand), rounds: num(v.options && v.options.rounds) || 5 })
      : tr("table.hand", { hand: num(v.hand) });
    const ts = $("#turn-status");
    if (v.phase === "PHASE_MATCH_OVER") ts.textContent = tr("table.phase.MATCH_OVER");
    else if (v.phase === "PHASE_HAND_OVER") ts.textContent = tr("table.phase.HAND_OVER");
    else ts.textContent = isMyTurn(v) ? tr("table.turn.yours") : tr("table.turn.other", { name: seatName(num(v.turn)) });
    ts.classList.toggle("mine", isMyTurn(v));
    document.body.classList.toggle("my-turn", isMyTurn(v));
    let line = isMyTurn(v) && hasString("table.stage." + stage(v)) ? tr("table.stage." + stage(v)) : "";
    if (v.heldSideTile && v.heldSideTile.code) line += (line ? " — " : "") + tr("table.heldSide", { tile: tileName(v.heldSideTile.code) });
    $("#stage-line").textContent = line;
    renderBoard(v);
    renderMelds(v);
    renderRack(v);
    renderActions();
    renderHints(v);
    renderLastHand(v);
    renderHands();
    renderLog(t);
    tick();
    if (focusKey) {
      const el = document.querySelector(`[data-focus="${focusKey}"]`);
      if (el && !el.disabled) el.focus({ preventScroll: true });
      else if (focusKey.startsWith("slot-")) { const r = $("#rack [tabindex='0']"); if (r) r.focus({ preventScroll: true }); }
    }
  }

  // ------------------------------------------------------------------ the event log

  // The event's slot in a TableEvent is its `kind` ("TileDrawn") in lowerCamelCase ("tileDrawn"),
  // protobuf's JSON name of the oneof member: no list of event names to keep up to date here.
  function eventKind(ev) {
    return ev.kind ? ev.kind.charAt(0).toLowerCase() + ev.kind.slice(1) : "";
  }

  // Entries keep seats and tile codes, so the log follows a language switch.
  function logEvent(t, ev, quiet = false) {
    const kind = eventKind(ev);
    if (!kind || kind === "tableCreated" || ev[kind] === undefined) return;
    const e = ev[kind] || {};
    let key = "ev." + kind;
    if (kind === "tileDrawn") key = e.source === "DRAW_SOURCE_DISCARD" ? "ev.tileDrawn.side" : "ev.tileDrawn.deck";
    const seat = kind === "handStarted" ? num(e.starter) : num(e.seat);
    const entry = { key, seat, tile: e.tile && e.tile.code ? e.tile.code : "", points: num(e.points), value: num(e.value), hand: num(e.hand), version: num(ev.version) };
    t.log.push(entry);
    if (t.log.length > 60) t.log.shift();
    if (!quiet && (kind === "handEnded" || kind === "handEnded101" || kind === "handVoided")) announce(logText(entry));
  }

  function logText(x) {
    return tr(x.key, { name: seatName(x.seat), tile: x.tile ? tileName(x.tile) : "", points: x.points, value: x.value, hand: x.hand });
  }

  function renderLog(t) {
    const ol = $("#event-log");
    ol.replaceChildren(...t.log.slice().reverse().slice(0, 30).map((x) => h("li", { "data-version": x.version }, logText(x))));
  }

  // ------------------------------------------------------------------ the final standings

  async function showFinal(t) {
    let result = null;
    if (hasMethod("ScoringService", "GetMatchResult")) {
      for (let i = 0; i < 12 && S.t === t; i++) {
        try {
          const r = await api("ScoringService", "GetMatchResult", { tableId: t.id });
          result = r.result || null;
          break;
        } catch (e) {
          if (serviceMissing(e)) break;
          await sleep(500); // the projection catches up with the table
        }
      }
    }
    if (S.t !== t) return;
    const v = t.view;
    const n = (v.seats || []).length;
    let rows;
    let source;
    if (result && (result.standings || []).length) {
      source = tr("result.source.scoring");
      rows = result.standings.map((s) => ({ seat: num(s.seat), score: num(s.score), rank: num(s.rank), winner: !!s.winner, payout: num(s.payout) }));
    } else {
      source = tr("result.source.view");
      const res = v.result || {};
      const scores = res.scores || (v.seats || []).map((s) => num(s.score));
      const winners = new Set((res.winners || []).map(num));
      const low = is101(v);
      const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (low ? num(scores[a]) - num(scores[b]) : num(scores[b]) - num(scores[a])));
      // Standard competition ranking, as the scoring service ranks: 1, 2, 2, 4.
      const better = (a, b) => (low ? num(scores[a]) < num(scores[b]) : num(scores[a]) > num(scores[b]));
      const rank = (i) => (winners.has(i) ? 1 : 1 + order.filter((j) => j !== i && (winners.has(j) || better(j, i))).length);
      rows = order.map((i) => ({ seat: i, score: num(scores[i]), rank: rank(i), winner: winners.has(i), payout: winners.has(i) ? num(res.payout) : 0 }));
    }
    rows.sort((a, b) => a.rank - b.rank || a.seat - b.seat);
    const iWon = rows.some((r) => r.winner && r.seat === t.seat);
    $("#result-body").replaceChildren(
      iWon ? h("p", { class: "won" }, tr("result.youwon")) : "",
      h("table", { class: "standings" },
        h("thead", {}, h("tr", {}, ["result.rank", "result.player", "result.score", "result.winner", "result.payout"].map((k) => h("th", { scope: "col" }, tr(k))))),
        h("tbody", {}, rows.map((r) => h("tr", { class: r.winner ? "winner" : "" },
          h("td", {}, r.rank), h("th", { scope: "row" }, seatName(r.seat)), h("td", {}, r.score),
          h("td", {}, r.winner ? "★" : ""), h("td", {}, r.payout || ""))))),
      h("p", { class: "help" }, source));
    const d = $("#result-dialog");
    if (!d.open) d.showModal();
  }

  // ------------------------------------------------------------------ the timer

  function tick() {
    const t = S.t;
    const el = $("#timer");
    if (!t || !t.view || t.view.phase !== "PHASE_PLAYING" || !num(t.view.deadlineMs)) { el.textContent = ""; return; }
    const left = Math.max(0, num(t.view.deadlineMs) - Date.now());
    const s = Math.ceil(left / 1000);
    el.textContent = tr("table.timer", { s });
    el.setAttribute("aria-label", tr("table.timer.aria", { s }));
    el.classList.toggle("low", s <= 5);
    const total = (num(t.view.options && t.view.options.turnSeconds) || 20) * 1000;
    const fill = $(".seat-panel.turn .turn-fill");
    if (fill) fill.style.width = `${Math.min(100, (100 * left) / total)}%`;
  }

  // ------------------------------------------------------------------ input: rack clicks, drag and drop, keys

  function onRackClick(e) {
    const t = S.t;
    if (!t) return;
    const btn = e.target.closest("button[data-slot]");
    if (!btn) return;
    const slot = Number(btn.dataset.slot);
    t.focus = slot;
    if (btn.dataset.tile !== undefined) {
      const id = Number(btn.dataset.tile);
      if (t.selected.includes(id)) t.selected = t.selected.filter((x) => x !== id);
      else if (is101(t.view)) t.selected = t.selected.concat([id]);
      else t.selected = [id];
    } else if (t.selected.length) {
      moveTile(t, t.selected[0], slot);
    }
    renderTable();
  }

  function onRackKey(e) {
    const t = S.t;
    if (!t) return;
    const btn = e.target.closest("button[data-slot]");
    if (!btn) return;
    const slot = Number(btn.dataset.slot);
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -ROW, ArrowDown: ROW, Home: -slot % ROW, End: ROW - 1 - (slot % ROW) }[e.key];
    if (step === undefined) return;
    e.preventDefault();
    const target = Math.max(0, Math.min(SLOTS - 1, slot + step));
    if (e.shiftKey && btn.dataset.tile !== undefined) {
      swapSlots(t, slot, target);
    }
    t.focus = target;
    renderRack(t.view);
    const el = $(`#rack [data-slot="${target}"]`);
    if (el && el.tagName === "BUTTON") el.focus();
    else { const b = $(`#rack button[data-slot="${target}"]`); if (b) b.focus(); }
  }

  function onDragStart(e) {
    const btn = e.target.closest("button[data-tile]");
    if (!btn || !S.t) return;
    S.t.dragging = true;
    e.dataTransfer.setData("text/plain", "tile:" + btn.dataset.tile);
    e.dataTransfer.effectAllowed = "move";
    btn.classList.add("dragging");
  }

  function onDragEnd() {
    const t = S.t;
    if (!t) return;
    t.dragging = false;
    if (t.pending) { t.pending = false; }
    renderTable();
  }

  function onRackDrop(e) {
    const t = S.t;
    const cell = e.target.closest("[data-slot]");
    if (!t || !cell) return;
    e.preventDefault();
    const id = dragTile(e);
    if (id === null) return;
    moveTile(t, id, Number(cell.dataset.slot));
    t.dragging = false;
    renderTable();
  }

  function onGlobalKey(e) {
    if (!S.t || $("#screen-table").hidden || e.ctrlKey || e.metaKey || e.altKey) return;
    const tag = (e.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select" || $("dialog[open]")) return;
    const v = S.t.view;
    if (!v) return;
    const k = e.key.toLowerCase();
    if (k === "d") { e.preventDefault(); doDraw(); }
    else if (k === "t") { e.preventDefault(); doTake(); }
    else if (k === "x") { e.preventDefault(); doDiscard(); }
    else if (k === "f" && !is101(v)) { e.preventDefault(); doFinish(); }
    else if (k === "r" && S.t.hints) { e.preventDefault(); arrange(S.t, arrangementIds(S.t.hints.runs)); }
    else if (k === "p" && S.t.hints) { e.preventDefault(); arrange(S.t, arrangementIds(S.t.hints.pairs)); }
    else if (k === "escape" && S.t.selected.length) { S.t.selected = []; renderTable(); }
  }

  // ------------------------------------------------------------------ start

  function bindStatic() {
    for (const b of $$(".lang button")) b.addEventListener("click", () => setLang(b.dataset.lang));
    $("#signin-form").addEventListener("submit", signIn);
    $("#token-form").addEventListener("submit", signInWithToken);
    $("#sign-out").addEventListener("click", async () => {
      // Revoke the token at every service (not only forget it here); a failure is no reason to stay signed in.
      if (S.token && !S.lobbyDown) { try { await api("LobbyService", "SignOut", {}); } catch { /* signed out anyway */ } }
      signOut();
    });
    $("#lobby-refresh").addEventListener("click", refreshLobby);
    $("#include-playing").addEventListener("change", refreshLobby);
    $("#create-game").addEventListener("change", renderCreateOptions);
    $("#create-form").addEventListener("submit", (e) => createTable(e));
    $("#quick-play").addEventListener("click", () => createTable(null, true));
    $("#byid-form").addEventListener("submit", (e) => { e.preventDefault(); location.hash = `#/table/${$("#byid-input").value.trim()}`; });
    $("#back-lobby").addEventListener("click", () => { location.hash = "#/lobby"; });
    $("#result-close").addEventListener("click", () => $("#result-dialog").close());
    $("#result-lobby").addEventListener("click", () => { $("#result-dialog").close(); location.hash = "#/lobby"; });
    $("#report-form").addEventListener("submit", sendReport);
    $("#report-cancel").addEventListener("click", () => $("#report-dialog").close());
    const rack = $("#rack");
    rack.addEventListener("click", onRackClick);
    rack.addEventListener("keydown", onRackKey);
    rack.addEventListener("dragstart", onDragStart);
    rack.addEventListener("dragend", onDragEnd);
    rack.addEventListener("dragover", (e) => { if (e.target.closest("[data-slot]")) e.preventDefault(); });
    rack.addEventListener("drop", onRackDrop);
    document.addEventListener("keydown", onGlobalKey);
    window.addEventListener("hashchange", route);
    setInterval(tick, 250);
  }

  async function boot() {
    bindStatic();
    applyLang();
    try {
      const r = await fetch("/api");
      if (r.ok) S.methods = new Set(((await r.json()).rpcs || []).map((x) => x.path));
    } catch { S.methods = null; }
    const token = store.get("okey.token");
    const claims = decodeToken(token);
    if (claims && (!claims.exp || claims.exp * 1000 > Date.now())) useToken(token);
    route();
  }

  // For tests and debugging: the state, and a way to drop the live connection (it resumes).
  window.okeyApp = {
    state: S,
    dropSocket() { if (S.t && S.t.ws) S.t.ws.close(4000, "test"); },
    version() { return S.t ? S.t.version : 0; },
    hintsFresh() { return !!(S.t && S.t.view && S.t.hints && S.t.hintsKey === hintsKey(S.t)); },
  };

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();

// Small DOM and browser helpers every module uses: element lookup and creation, local storage,
// the toast and the screen-reader line. No state of the game here.

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
export const num = (x) => Number(x || 0);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const store = {
  get(k) { try { return localStorage.getItem(k); } catch { return null; } },
  set(k, v) { try { localStorage.setItem(k, v); } catch { /* private mode */ } },
  del(k) { try { localStorage.removeItem(k); } catch { /* private mode */ } },
};

export function h(tag, attrs, ...children) {
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
export function withTileIds(x) {
  if (Array.isArray(x)) { for (const y of x) withTileIds(y); return x; }
  if (x && typeof x === "object") {
    if (typeof x.code === "string" && x.id === undefined) x.id = 0;
    for (const k in x) if (x[k] && typeof x[k] === "object") withTileIds(x[k]);
  }
  return x;
}

export function uid() {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
  return "c" + Date.now().toString(36) + Math.random().toString(36).slice(2, 12);
}

let toastTimer = null;
export function toast(text, kind = "error") {
  const el = $("#toast");
  el.textContent = text;
  el.className = "toast " + kind;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, 5000);
}

export function announce(text) {
  const el = $("#sr-live");
  el.textContent = "";
  setTimeout(() => { el.textContent = text; }, 30);
}

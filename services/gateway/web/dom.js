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
    else if (k.startsWith("on")) listen(el, k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** addEventListener that marks the element: patch() never keeps a node with a listener of its own
 * (its closure may hold what the last redraw knew), it puts the new one in. */
export function listen(el, type, fn) {
  el.addEventListener(type, fn);
  el.okeyListens = true;
  return el;
}

/**
 * `parent.replaceChildren(...children)` that keeps what did not change [issue 47]: each old node
 * the new one matches (same tag, no listener of its own) stays, with the new one's attributes and
 * children patched in; text nodes take the new text. A redraw of the table then touches only what
 * moved, so the browser restyles and lays out only that: a full replace on each event was most of
 * a frame's time (58-76 ms on a phone's viewport). The DOM ends equal to what a replace gives.
 */
export function patch(parent, ...children) {
  const kids = [];
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    kids.push(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  for (let i = 0; i < kids.length; i++) {
    const old = parent.childNodes[i];
    if (!old) parent.append(kids[i]);
    else if (!sync(old, kids[i])) old.replaceWith(kids[i]);
  }
  while (parent.childNodes.length > kids.length) parent.lastChild.remove();
  return parent;
}

function sync(old, nu) {
  if (old === nu) return true;
  if (old.nodeType !== nu.nodeType) return false;
  if (old.nodeType === Node.TEXT_NODE) { if (old.data !== nu.data) old.data = nu.data; return true; }
  if (old.nodeType !== Node.ELEMENT_NODE || old.tagName !== nu.tagName || old.okeyListens || nu.okeyListens) return false;
  for (const a of Array.from(old.attributes)) if (!nu.hasAttribute(a.name)) old.removeAttribute(a.name);
  for (const a of Array.from(nu.attributes)) if (old.getAttribute(a.name) !== a.value) old.setAttribute(a.name, a.value);
  patch(old, ...Array.from(nu.childNodes));
  return true;
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

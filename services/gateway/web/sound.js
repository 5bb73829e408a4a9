// The table's sounds [issue 47.2], made in the browser with Web Audio (short synthesized tones
// and noise bursts, no files): a draw, a discard, your turn, the last seconds of your timer, a
// finish. The mute switch (#sound-toggle, aria-pressed) is remembered per device in local
// storage. Nothing plays before the page was touched: the AudioContext is created (or resumed)
// only in the first pointer or key gesture, as browsers' autoplay rules ask.
import { $, num, store } from "./dom.js";

const KEY = "okey.sound.muted";
let ctx = null;
let gestured = false;
let played = 0; // sounds played (tests)
let lastTick = -1;

/** Whether the sounds are muted on this device. */
export function muted() { return store.get(KEY) === "1"; }

/** For tests: whether an AudioContext exists, whether the page was touched, sounds played. */
export function soundStats() { return { context: !!ctx, gestured, played, muted: muted(), state: ctx ? ctx.state : "" }; }

function unlock() {
  gestured = true;
  if (muted()) return; // created on the first gesture after unmuting
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!AC) return;
  try {
    if (!ctx) ctx = new AC();
    if (ctx.state === "suspended") ctx.resume().catch(() => {});
  } catch { ctx = null; }
}

function tone(freq, ms, { type = "sine", gain = 0.12, at = 0, slide = 0 } = {}) {
  const t0 = ctx.currentTime + at;
  const o = ctx.createOscillator();
  const g = ctx.createGain();
  o.type = type;
  o.frequency.setValueAtTime(freq, t0);
  if (slide) o.frequency.exponentialRampToValueAtTime(Math.max(40, freq + slide), t0 + ms / 1000);
  g.gain.setValueAtTime(0.0001, t0);
  g.gain.exponentialRampToValueAtTime(gain, t0 + 0.008);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + ms / 1000);
  o.connect(g).connect(ctx.destination);
  o.start(t0);
  o.stop(t0 + ms / 1000 + 0.02);
}

// A short filtered noise burst: a tile set down on the table.
function click(ms, { gain = 0.25, freq = 1800, at = 0 } = {}) {
  const t0 = ctx.currentTime + at;
  const len = Math.max(1, Math.floor((ctx.sampleRate * ms) / 1000));
  const buf = ctx.createBuffer(1, len, ctx.sampleRate);
  const d = buf.getChannelData(0);
  for (let i = 0; i < len; i++) d[i] = (Math.random() * 2 - 1) * (1 - i / len) ** 3;
  const src = ctx.createBufferSource();
  src.buffer = buf;
  const f = ctx.createBiquadFilter();
  f.type = "bandpass";
  f.frequency.value = freq;
  const g = ctx.createGain();
  g.gain.value = gain;
  src.connect(f).connect(g).connect(ctx.destination);
  src.start(t0);
}

const SOUNDS = {
  draw: (soft) => click(45, { gain: soft ? 0.12 : 0.3, freq: 2400 }),
  discard: (soft) => { click(60, { gain: soft ? 0.15 : 0.4, freq: 1200 }); tone(180, 70, { type: "triangle", gain: soft ? 0.04 : 0.1 }); },
  turn: () => { tone(660, 110, { gain: 0.1 }); tone(880, 150, { gain: 0.1, at: 0.1 }); },
  tick: () => tone(1320, 50, { type: "square", gain: 0.04 }),
  finish: () => { [523, 659, 784, 1047].forEach((f, i) => tone(f, 200, { type: "triangle", gain: 0.1, at: i * 0.08 })); },
};

/** Play a sound by name (quieter when `soft`): nothing when muted or before the first gesture. */
export function play(name, soft = false) {
  if (muted() || !gestured || !ctx || ctx.state !== "running" || !SOUNDS[name]) return;
  try { SOUNDS[name](soft); played++; } catch { /* a sound is a nicety */ }
}

const kindOf = (ev) => (ev && ev.kind ? ev.kind.charAt(0).toLowerCase() + ev.kind.slice(1) : "");

/** The sounds of an event applied to the open table `t` (`mine`: it is my turn now and was not). */
export function soundFor(t, ev, turnCame) {
  const kind = kindOf(ev);
  const e = (ev && ev[kind]) || {};
  if (kind === "tileDrawn") play("draw", num(e.seat) !== t.seat);
  else if (kind === "tileDiscarded") play("discard", num(e.seat) !== t.seat);
  else if (kind === "handEnded" || kind === "handEnded101") { if (e.reason !== "HAND_END_REASON_DECK_EXHAUSTED") play("finish"); }
  if (turnCame) play("turn");
}

/** The turn timer's last seconds (5 to 1) of my turn: one tick a second. */
export function timerSound(mine, s) {
  if (!mine || s > 5 || s < 1) { lastTick = -1; return; }
  if (s === lastTick) return;
  lastTick = s;
  play("tick");
}

function renderToggle() {
  const b = $("#sound-toggle");
  if (!b) return;
  b.setAttribute("aria-pressed", String(muted()));
}

/** The mute switch and the first-gesture unlock, once at boot. */
export function bindSound() {
  for (const type of ["pointerdown", "keydown", "touchend"]) document.addEventListener(type, unlock, { capture: true, passive: true });
  const b = $("#sound-toggle");
  if (b) {
    b.addEventListener("click", () => {
      if (muted()) store.del(KEY); else store.set(KEY, "1");
      renderToggle();
      if (!muted()) { unlock(); play("draw"); }
    });
  }
  renderToggle();
}

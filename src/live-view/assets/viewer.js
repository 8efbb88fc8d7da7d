// Vessel live view. Draws the session's tab from the frames the server sends over one WebSocket
// and, when the session allows it, sends the person's mouse, touch and keyboard input back.
// Plain ES module, no dependencies: it is served as is from this origin (the page's CSP allows
// nothing else). The protocol is described in src/live-view/protocol.ts; the input it sends is
// viewer-input.js's.

import { installInput } from "./viewer-input.js";
import { forgetToken, sessionOf, takeToken, tokenExpiry } from "./viewer-token.js";

const $ = (id) => document.getElementById(id);
const ui = {
  state: $("state"),
  remaining: $("remaining"),
  mode: $("mode"),
  keyboard: $("keyboard"),
  paste: $("paste"),
  done: $("done"),
  doneStatus: $("done-status"),
  instructions: $("instructions"),
  tabs: $("tabs"),
  stage: $("stage"),
  screen: $("screen"),
  keys: $("keys"),
  overlay: $("overlay"),
  overlayTitle: $("overlay-title"),
  overlayText: $("overlay-text"),
};
const ctx = ui.screen.getContext("2d", { alpha: false });
// Nothing to show before the first frame (a default canvas would be a black box).
ui.screen.width = ui.screen.height = 0;

/** Close codes after which reconnecting cannot help (protocol.ts). */
const FINAL_CODES = new Set([1008, 1011, 4403, 4404, 4410, 4429]);

let ws = null;
let token = null;
let interactive = false;
let ended = false;
let attempts = 0;
let expiresAt = 0;
let clockOffset = 0;
let lastEnd = null;

// The frame on show: its bitmap, number (for acks and input) and the page's viewport in CSS px.
let bitmap = null;
let frame = { seq: 0, cssW: 0, cssH: 0 };
let newestDrawn = -1;
// Counters on the canvas (data-frames drawn, data-bytes of JPEG received): what a benchmark or a
// curious person can read without reaching into this module.
let framesDrawn = 0;
let jpegBytes = 0;

// ------------------------------------------------------------------------------------------------
// Connection

function send(msg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
}

function connect() {
  setState(attempts > 0 ? "reconnecting" : "connecting");
  lastEnd = null;
  // Each connection numbers its frames from 1.
  newestDrawn = -1;
  // The session id (not a credential) lets whichever node receives the socket relay it to the one
  // running the session's browser; the token still goes in the first message only.
  const session = sessionOf(token);
  ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/live-view/socket${session ? `?session=${session}` : ""}`);
  ws.binaryType = "arraybuffer";
  ws.onopen = () => {
    // The token goes in the first message, never in the socket's address (access logs).
    send({ t: "auth", token, ...canvasSize() });
  };
  ws.onmessage = (ev) => {
    if (typeof ev.data === "string") onMessage(JSON.parse(ev.data));
    else onFrame(ev.data);
  };
  ws.onclose = (ev) => onClose(ev.code);
}

function onMessage(m) {
  switch (m.t) {
    case "hello":
      attempts = 0;
      interactive = m.interactive === true;
      expiresAt = Date.parse(m.expiresAt);
      clockOffset = Date.parse(m.now) - Date.now();
      ui.instructions.textContent = m.instructions || "";
      ui.instructions.hidden = !m.instructions;
      ui.mode.hidden = interactive;
      ui.done.hidden = !interactive;
      ui.paste.hidden = !interactive;
      // Touch screens only open their keyboard for a focused field: taps on the picture do not
      // (that would pop it up on every tap), this button does.
      ui.keyboard.hidden = !interactive || !matchMedia("(pointer: coarse)").matches;
      ui.screen.classList.toggle("interactive", interactive);
      setState("live");
      tick();
      return;
    case "tabs":
      return renderTabs(m.tabs, m.active);
    case "done":
      ui.done.disabled = false;
      return showDoneStatus(m.ok ? "Done sent. You can close this page." : m.message, !m.ok);
    case "end":
      lastEnd = m;
      return;
  }
}

function onClose(code) {
  ws = null;
  if (ended) return;
  if (FINAL_CODES.has(code)) return end(lastEnd?.message ?? "The live view was closed.");
  if (tokenExpiry(token) && tokenExpiry(token) <= Date.now() + clockOffset) {
    return end("This link has expired. Ask for a fresh link.");
  }
  // Anything else (a network drop, the server restarting) is worth another try while the link is valid.
  const delay = Math.min(10000, 500 * 2 ** attempts);
  attempts++;
  setState("reconnecting", lastEnd?.message);
  setTimeout(connect, delay);
}

function end(message) {
  ended = true;
  ui.tabs.hidden = true;
  forgetToken();
  setState("ended");
  ui.done.hidden = ui.paste.hidden = ui.keyboard.hidden = true;
  ui.remaining.hidden = true;
  // A "Done sent" stays: the session usually ends because the person's Done let the work go on.
  if (ui.doneStatus.classList.contains("problem")) ui.doneStatus.hidden = true;
  ui.overlayTitle.textContent = "This live view has ended";
  ui.overlayText.textContent = message;
  ui.overlay.hidden = false;
  ui.screen.classList.remove("interactive");
  document.title = "Live view ended · Vessel";
}

const stateWords = { connecting: "Connecting…", live: "Live", reconnecting: "Reconnecting…", ended: "Ended" };
function setState(state, detail) {
  ui.state.dataset.state = state;
  ui.state.textContent = stateWords[state];
  ui.state.title = detail || "";
}

// ------------------------------------------------------------------------------------------------
// Frames: u32 number, u16 CSS width, u16 CSS height, then the JPEG. Each frame starts decoding as
// it arrives (decoding runs off the main thread, so a few overlap; the server sends at most a few
// ahead); a decoded frame is drawn unless a newer one already was. Acks are cumulative.

function onFrame(buffer) {
  if (buffer.byteLength < 9) return;
  const view = new DataView(buffer);
  jpegBytes += buffer.byteLength - 8;
  ui.screen.dataset.bytes = String(jpegBytes);
  const seq = view.getUint32(0);
  const cssW = view.getUint16(4);
  const cssH = view.getUint16(6);
  createImageBitmap(new Blob([new Uint8Array(buffer, 8)], { type: "image/jpeg" })).then(
    (bmp) => {
      if (seq > newestDrawn) {
        newestDrawn = seq;
        bitmap?.close();
        bitmap = bmp;
        frame = { seq, cssW, cssH };
        draw();
        ui.screen.dataset.frames = String(++framesDrawn);
      } else {
        bmp.close();
      }
      send({ t: "ack", n: seq });
    },
    // A frame that does not decode is skipped; the next one replaces it.
    () => send({ t: "ack", n: seq }),
  );
}

/** Where the frame is drawn inside the canvas, in CSS px: as large as fits, centred, aspect kept. */
function imageRect() {
  const w = ui.screen.clientWidth;
  const h = ui.screen.clientHeight;
  if (!bitmap) return { x: 0, y: 0, w, h, scale: 1 };
  const scale = Math.min(w / bitmap.width, h / bitmap.height);
  const dw = bitmap.width * scale;
  const dh = bitmap.height * scale;
  return { x: (w - dw) / 2, y: (h - dh) / 2, w: dw, h: dh };
}

/**
 * The canvas holds the frame at its own size and CSS fits it to the stage (object-fit: contain),
 * so drawing is a plain copy: the server already sized the frame to the stage in device pixels,
 * and whatever scaling is left happens in the browser's compositor.
 */
function draw() {
  if (!bitmap) return;
  const c = ui.screen;
  if (c.width !== bitmap.width || c.height !== bitmap.height) {
    c.width = bitmap.width;
    c.height = bitmap.height;
  }
  ctx.drawImage(bitmap, 0, 0);
}

function canvasSize() {
  const dpr = Math.min(4, Math.max(0.5, window.devicePixelRatio || 1));
  return { w: Math.max(1, Math.round(ui.stage.clientWidth)), h: Math.max(1, Math.round(ui.stage.clientHeight)), dpr };
}

let sizeTimer = 0;
new ResizeObserver(() => {
  const { w, h, dpr } = canvasSize();
  // The screencast is re-sized to the stage, once the resizing settles.
  clearTimeout(sizeTimer);
  sizeTimer = setTimeout(() => send({ t: "size", w, h, dpr }), 200);
}).observe(ui.stage);

// ------------------------------------------------------------------------------------------------
// Tabs, time left, Done

function renderTabs(tabs, active) {
  ui.tabs.replaceChildren(
    ...tabs.map((tab) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "tab";
      const blank = (v) => !v || v === "about:blank";
      b.textContent = !blank(tab.title) ? tab.title : !blank(tab.url) ? tab.url : "New tab";
      b.title = tab.url;
      b.dataset.id = tab.id;
      if (tab.id === active) b.setAttribute("aria-current", "page");
      b.addEventListener("click", () => send({ t: "tab", id: tab.id }));
      return b;
    }),
  );
  ui.tabs.hidden = tabs.length === 0;
}

function tick() {
  if (ended || !expiresAt) return;
  const left = Math.max(0, Math.round((expiresAt - (Date.now() + clockOffset)) / 1000));
  const m = Math.floor(left / 60);
  const s = String(left % 60).padStart(2, "0");
  ui.remaining.textContent = `${m}:${s} left`;
  ui.remaining.title = "Time left before the session ends";
  ui.remaining.classList.toggle("low", left <= 60);
  ui.remaining.hidden = false;
}
setInterval(tick, 1000);

function showDoneStatus(text, problem = false) {
  ui.doneStatus.textContent = text;
  ui.doneStatus.classList.toggle("problem", problem);
  ui.doneStatus.hidden = false;
}

ui.done.addEventListener("click", () => {
  if (!ws || ws.readyState !== WebSocket.OPEN) return showDoneStatus("Not connected right now; try again in a moment.", true);
  ui.done.disabled = true;
  showDoneStatus("Sending…");
  send({ t: "done" });
});

installInput({
  ui,
  send,
  imageRect,
  showDoneStatus,
  canInput: () => interactive && !ended && ws !== null,
  interactive: () => interactive,
  frame: () => frame,
});

// ------------------------------------------------------------------------------------------------

token = takeToken();
if (!token) {
  end("Open the full link you were given: it ends with ?token=….");
  ui.overlayTitle.textContent = "This page needs its full link";
} else {
  connect();
}

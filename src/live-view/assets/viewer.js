// Vessel live view. Draws the session's tab from the frames the server sends over one WebSocket
// and, when the session allows it, sends the person's mouse, touch and keyboard input back.
// Plain ES module, no dependencies: it is served as is from this origin (the page's CSP allows
// nothing else). The protocol is described in src/live-view/protocol.ts.

const $ = (id) => document.getElementById(id);
const ui = {
  state: $("state"), remaining: $("remaining"), mode: $("mode"), keyboard: $("keyboard"), paste: $("paste"), done: $("done"),
  doneStatus: $("done-status"), instructions: $("instructions"), tabs: $("tabs"), stage: $("stage"),
  screen: $("screen"), keys: $("keys"), overlay: $("overlay"), overlayTitle: $("overlay-title"), overlayText: $("overlay-text"),
};
const ctx = ui.screen.getContext("2d", { alpha: false });
// Nothing to show before the first frame (a default canvas would be a black box).
ui.screen.width = ui.screen.height = 0;

const TOKEN_KEY = "vessel.liveView.token";
/** Close codes after which reconnecting cannot help (protocol.ts). */
const FINAL_CODES = new Set([1008, 1011, 4403, 4404, 4410, 4429]);
const MAX_TEXT = 10000;

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
// The link's token: taken from the address once, then kept for this tab only, so the address bar,
// history and any bookmark stop carrying it and a reload still works while the token is valid.

function takeToken() {
  const fromUrl = new URLSearchParams(location.search).get("token");
  if (fromUrl) {
    try { sessionStorage.setItem(TOKEN_KEY, fromUrl); } catch { /* private mode: memory only */ }
    history.replaceState(null, "", "/live-view");
    return fromUrl;
  }
  try { return sessionStorage.getItem(TOKEN_KEY); } catch { return null; }
}

function forgetToken() {
  try { sessionStorage.removeItem(TOKEN_KEY); } catch { /* nothing kept */ }
}

function tokenClaims(t) {
  try {
    return JSON.parse(atob(t.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
  } catch {
    return {};
  }
}

/** When the token stops opening the view (its `exp`); the server decides, this only avoids hopeless retries. */
function tokenExpiry(t) {
  const { exp } = tokenClaims(t);
  return typeof exp === "number" ? exp * 1000 : 0;
}

/** The session the token is for (its `sub`): named in the socket's address so any node can route it. */
function sessionOf(t) {
  const { sub } = tokenClaims(t);
  return typeof sub === "string" && /^ses_[0-9A-Za-z]+$/.test(sub) ? sub : "";
}

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

// ------------------------------------------------------------------------------------------------
// Input (interactive sessions only; the server ignores it otherwise). Positions are sent as
// fractions of the frame as displayed, with the frame's number, so they land right at any size.

const canInput = () => interactive && !ended && ws !== null;
const mods = (e) => (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
const buttonNames = ["left", "middle", "right", "back", "forward"];

function position(e) {
  const box = ui.screen.getBoundingClientRect();
  const r = imageRect();
  const x = (e.clientX - box.left - r.x) / r.w;
  const y = (e.clientY - box.top - r.y) / r.h;
  return { x, y, inside: x >= 0 && x <= 1 && y >= 0 && y <= 1 };
}

const clamp01 = (v) => Math.min(1, Math.max(0, v));
let pendingMove = null;
let pendingWheel = null;
let flushScheduled = false;

function scheduleFlush() {
  if (flushScheduled) return;
  flushScheduled = true;
  requestAnimationFrame(flush);
}

/** Moves and wheel turns are sent at most once per display frame, the latest (or summed) one. */
function flush() {
  flushScheduled = false;
  if (pendingMove) send(pendingMove);
  if (pendingWheel) send(pendingWheel);
  pendingMove = pendingWheel = null;
}

let lastDown = { at: 0, x: 0, y: 0, button: -1, count: 0 };
let touch = null;

ui.screen.addEventListener("pointerdown", (e) => {
  if (!canInput()) return;
  e.preventDefault();
  const p = position(e);
  if (!p.inside) return;
  ui.screen.setPointerCapture(e.pointerId);
  if (e.pointerType === "touch") {
    touch = { id: e.pointerId, x: e.clientX, y: e.clientY, startX: e.clientX, startY: e.clientY, p, scrolling: false };
    return;
  }
  ui.keys.focus({ preventScroll: true });
  flush();
  const now = performance.now();
  const again = e.button === lastDown.button && now - lastDown.at < 500 && Math.hypot(e.clientX - lastDown.x, e.clientY - lastDown.y) < 5;
  lastDown = { at: now, x: e.clientX, y: e.clientY, button: e.button, count: again ? Math.min(3, lastDown.count + 1) : 1 };
  send({ t: "mouse", e: "down", x: p.x, y: p.y, b: buttonNames[e.button] ?? "left", bs: e.buttons & 31, c: lastDown.count, m: mods(e), f: frame.seq });
});

ui.screen.addEventListener("pointermove", (e) => {
  if (!canInput()) return;
  if (e.pointerType === "touch") return touchMove(e);
  const p = position(e);
  pendingMove = { t: "mouse", e: "move", x: clamp01(p.x), y: clamp01(p.y), b: buttonNames[lastDown.button] ?? "none", bs: e.buttons & 31, c: 0, m: mods(e), f: frame.seq };
  scheduleFlush();
});

ui.screen.addEventListener("pointerup", (e) => {
  if (!canInput()) return;
  if (e.pointerType === "touch") return touchEnd(e);
  flush();
  const p = position(e);
  send({ t: "mouse", e: "up", x: clamp01(p.x), y: clamp01(p.y), b: buttonNames[e.button] ?? "left", bs: e.buttons & 31, c: Math.max(1, lastDown.count), m: mods(e), f: frame.seq });
});

// A finger drag scrolls the page (as on a phone), a tap clicks.
function touchMove(e) {
  if (!touch || touch.id !== e.pointerId) return;
  if (!touch.scrolling && Math.hypot(e.clientX - touch.startX, e.clientY - touch.startY) > 8) touch.scrolling = true;
  if (!touch.scrolling) return;
  const r = imageRect();
  const perCss = frame.cssW > 0 ? r.w / frame.cssW : 1; // displayed px per remote CSS px
  const dx = (touch.x - e.clientX) / perCss;
  const dy = (touch.y - e.clientY) / perCss;
  touch.x = e.clientX;
  touch.y = e.clientY;
  pendingWheel = pendingWheel
    ? { ...pendingWheel, dx: pendingWheel.dx + dx, dy: pendingWheel.dy + dy }
    : { t: "wheel", x: clamp01(touch.p.x), y: clamp01(touch.p.y), dx, dy, m: 0, f: frame.seq };
  scheduleFlush();
}

function touchEnd(e) {
  if (!touch || touch.id !== e.pointerId) return;
  const { p, scrolling } = touch;
  touch = null;
  if (scrolling) return;
  const at = { x: p.x, y: p.y, f: frame.seq, m: 0, c: 1, b: "left" };
  send({ t: "mouse", e: "down", ...at, bs: 1 });
  send({ t: "mouse", e: "up", ...at, bs: 0 });
}

ui.screen.addEventListener("pointercancel", () => (touch = null));
ui.screen.addEventListener("contextmenu", (e) => { if (interactive) e.preventDefault(); });

ui.screen.addEventListener(
  "wheel",
  (e) => {
    if (!canInput()) return;
    e.preventDefault();
    const unit = e.deltaMode === 1 ? 40 : e.deltaMode === 2 ? 800 : 1;
    const p = position(e);
    pendingWheel = pendingWheel
      ? { ...pendingWheel, dx: pendingWheel.dx + e.deltaX * unit, dy: pendingWheel.dy + e.deltaY * unit }
      : { t: "wheel", x: clamp01(p.x), y: clamp01(p.y), dx: e.deltaX * unit, dy: e.deltaY * unit, m: mods(e), f: frame.seq };
    pendingWheel.dx = Math.max(-10000, Math.min(10000, pendingWheel.dx));
    pendingWheel.dy = Math.max(-10000, Math.min(10000, pendingWheel.dy));
    scheduleFlush();
  },
  { passive: false },
);

// Keyboard: a hidden textarea holds the focus, so IMEs, dead keys and phone keyboards work. Keys
// are forwarded as key events (shortcuts, Enter, Tab, arrows); composed text arrives as text.
const held = new Map();

function keyMessage(e, type) {
  const printable = [...e.key].length === 1;
  const altGr = e.ctrlKey && e.altKey;
  const text = type === "down" && printable && !e.metaKey && (!e.ctrlKey || altGr) ? e.key : undefined;
  return {
    t: "key", e: type, key: e.key.slice(0, 32), code: (e.code || "").slice(0, 32), kc: e.keyCode & 255,
    ...(text ? { text } : {}), m: text && altGr ? mods(e) & ~3 : mods(e), loc: e.location & 3, rep: e.repeat,
  };
}

ui.keys.addEventListener("keydown", (e) => {
  if (!canInput()) return;
  // Mid-composition (IME) or a phone keyboard (keyCode 229): the text comes with compositionend/input.
  if (e.isComposing || e.keyCode === 229 || !e.key || e.key === "Unidentified" || e.key === "Dead") return;
  // Ctrl/Cmd+V: let the browser paste, then the text is inserted (the session's clipboard is not ours).
  if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "v") return;
  e.preventDefault();
  const msg = keyMessage(e, "down");
  held.set(e.code || e.key, msg);
  send(msg);
});

ui.keys.addEventListener("keyup", (e) => {
  const down = held.get(e.code || e.key);
  if (!down) return;
  held.delete(e.code || e.key);
  e.preventDefault();
  if (canInput()) send({ ...keyMessage(e, "up"), key: down.key, code: down.code, kc: down.kc });
});

// Leaving the page with a key down must not leave it down in the session.
ui.keys.addEventListener("blur", () => {
  for (const down of held.values()) send({ ...down, e: "up", rep: false, text: undefined });
  held.clear();
});

function sendText(s) {
  if (!canInput() || !s) return;
  send({ t: "text", s: s.slice(0, MAX_TEXT) });
}

ui.keys.addEventListener("compositionend", (e) => {
  sendText(e.data);
  ui.keys.value = "";
});

ui.keys.addEventListener("input", (e) => {
  if (e.isComposing) return;
  if (e.inputType === "insertText" || e.inputType === "insertReplacementText") sendText(e.data);
  else if (e.inputType === "deleteContentBackward") press("Backspace", "Backspace", 8);
  else if (e.inputType === "insertLineBreak") press("Enter", "Enter", 13);
  ui.keys.value = "";
});

function press(key, code, kc) {
  send({ t: "key", e: "down", key, code, kc, m: 0, loc: 0, rep: false });
  send({ t: "key", e: "up", key, code, kc, m: 0, loc: 0, rep: false });
}

ui.keys.addEventListener("paste", (e) => {
  e.preventDefault();
  sendText(e.clipboardData?.getData("text/plain") ?? "");
});

ui.keyboard.addEventListener("click", () => ui.keys.focus({ preventScroll: true }));

// The Paste button: for phones, and for people who do not think of the keyboard shortcut.
ui.paste.addEventListener("click", async () => {
  try {
    sendText(await navigator.clipboard.readText());
    ui.keys.focus({ preventScroll: true });
  } catch {
    showDoneStatus("This browser did not share its clipboard; paste with Ctrl+V (⌘V) after clicking into the page.", true);
  }
});

// ------------------------------------------------------------------------------------------------

token = takeToken();
if (!token) {
  end("Open the full link you were given: it ends with ?token=….");
  ui.overlayTitle.textContent = "This page needs its full link";
} else {
  connect();
}

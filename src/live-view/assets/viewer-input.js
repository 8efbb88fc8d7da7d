// Vessel live view: the person's mouse, touch and keyboard input, sent to the session when it is
// interactive (the server ignores it otherwise). Positions are sent as fractions of the frame as
// displayed, with the frame's number, so they land right at any size. viewer.js installs it.

const MAX_TEXT = 10000;
const mods = (e) => (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
const buttonNames = ["left", "middle", "right", "back", "forward"];
const clamp01 = (v) => Math.min(1, Math.max(0, v));

/**
 * `v`: what the viewer shares: its elements (`ui`), `send`, `imageRect`, `showDoneStatus`, and
 * `canInput()`, `interactive()`, `frame()` read at each event (they change as the view runs).
 */
export function installInput(v) {
  const { ui, send, imageRect, showDoneStatus } = v;
  const canInput = v.canInput;

  function position(e) {
    const box = ui.screen.getBoundingClientRect();
    const r = imageRect();
    const x = (e.clientX - box.left - r.x) / r.w;
    const y = (e.clientY - box.top - r.y) / r.h;
    return { x, y, inside: x >= 0 && x <= 1 && y >= 0 && y <= 1 };
  }

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
    send({ t: "mouse", e: "down", x: p.x, y: p.y, b: buttonNames[e.button] ?? "left", bs: e.buttons & 31, c: lastDown.count, m: mods(e), f: v.frame().seq });
  });

  ui.screen.addEventListener("pointermove", (e) => {
    if (!canInput()) return;
    if (e.pointerType === "touch") return touchMove(e);
    const p = position(e);
    pendingMove = {
      t: "mouse",
      e: "move",
      x: clamp01(p.x),
      y: clamp01(p.y),
      b: buttonNames[lastDown.button] ?? "none",
      bs: e.buttons & 31,
      c: 0,
      m: mods(e),
      f: v.frame().seq,
    };
    scheduleFlush();
  });

  ui.screen.addEventListener("pointerup", (e) => {
    if (!canInput()) return;
    if (e.pointerType === "touch") return touchEnd(e);
    flush();
    const p = position(e);
    send({
      t: "mouse",
      e: "up",
      x: clamp01(p.x),
      y: clamp01(p.y),
      b: buttonNames[e.button] ?? "left",
      bs: e.buttons & 31,
      c: Math.max(1, lastDown.count),
      m: mods(e),
      f: v.frame().seq,
    });
  });

  // A finger drag scrolls the page (as on a phone), a tap clicks.
  function touchMove(e) {
    if (!touch || touch.id !== e.pointerId) return;
    if (!touch.scrolling && Math.hypot(e.clientX - touch.startX, e.clientY - touch.startY) > 8) touch.scrolling = true;
    if (!touch.scrolling) return;
    const r = imageRect();
    const perCss = v.frame().cssW > 0 ? r.w / v.frame().cssW : 1; // displayed px per remote CSS px
    const dx = (touch.x - e.clientX) / perCss;
    const dy = (touch.y - e.clientY) / perCss;
    touch.x = e.clientX;
    touch.y = e.clientY;
    pendingWheel = pendingWheel
      ? { ...pendingWheel, dx: pendingWheel.dx + dx, dy: pendingWheel.dy + dy }
      : { t: "wheel", x: clamp01(touch.p.x), y: clamp01(touch.p.y), dx, dy, m: 0, f: v.frame().seq };
    scheduleFlush();
  }

  function touchEnd(e) {
    if (!touch || touch.id !== e.pointerId) return;
    const { p, scrolling } = touch;
    touch = null;
    if (scrolling) return;
    const at = { x: p.x, y: p.y, f: v.frame().seq, m: 0, c: 1, b: "left" };
    send({ t: "mouse", e: "down", ...at, bs: 1 });
    send({ t: "mouse", e: "up", ...at, bs: 0 });
  }

  ui.screen.addEventListener("pointercancel", () => (touch = null));
  ui.screen.addEventListener("contextmenu", (e) => {
    if (v.interactive()) e.preventDefault();
  });

  ui.screen.addEventListener(
    "wheel",
    (e) => {
      if (!canInput()) return;
      e.preventDefault();
      const unit = e.deltaMode === 1 ? 40 : e.deltaMode === 2 ? 800 : 1;
      const p = position(e);
      pendingWheel = pendingWheel
        ? { ...pendingWheel, dx: pendingWheel.dx + e.deltaX * unit, dy: pendingWheel.dy + e.deltaY * unit }
        : { t: "wheel", x: clamp01(p.x), y: clamp01(p.y), dx: e.deltaX * unit, dy: e.deltaY * unit, m: mods(e), f: v.frame().seq };
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
      t: "key",
      e: type,
      key: e.key.slice(0, 32),
      code: (e.code || "").slice(0, 32),
      kc: e.keyCode & 255,
      ...(text ? { text } : {}),
      m: text && altGr ? mods(e) & ~3 : mods(e),
      loc: e.location & 3,
      rep: e.repeat,
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
}

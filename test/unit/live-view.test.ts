import { describe, expect, test } from "vitest";
import { cssViewport, toCdpInput, toCssPixels, type FrameMetadata } from "../../src/live-view/input.ts";
import { AuthMessage, ClientMessage, MAX_FRAME_SIDE, MAX_TEXT, frameBounds, parseMessage } from "../../src/live-view/protocol.ts";
import { RateLimit } from "../../src/live-view/rate-limit.ts";

const plain: FrameMetadata = { offsetTop: 0, pageScaleFactor: 1, deviceWidth: 800, deviceHeight: 600 };
const parse = (m: unknown) => parseMessage(ClientMessage, JSON.stringify(m));

describe("viewer positions to CSS pixels", () => {
  test("a fraction of the frame is the same spot of the viewport, whatever size the viewer draws it", () => {
    expect(toCssPixels(plain, 0.8, 0.7166667)).toEqual({ x: 640, y: 430 });
    expect(toCssPixels(plain, 0, 0)).toEqual({ x: 0, y: 0 });
    expect(toCssPixels(plain, 1, 1)).toEqual({ x: 800, y: 600 });
  });

  test("pinch zoom: the frame shows fewer CSS pixels, so a position maps to a smaller one", () => {
    const zoomed = { ...plain, pageScaleFactor: 2 };
    expect(toCssPixels(zoomed, 0.5, 0.2)).toEqual({ x: 200, y: 60 });
    expect(cssViewport(zoomed)).toEqual({ width: 400, height: 300 });
  });

  test("browser chrome above the page (offsetTop) is not part of the page", () => {
    const withBar = { ...plain, deviceHeight: 656, offsetTop: 56 };
    expect(toCssPixels(withBar, 0, 56 / 656)).toEqual({ x: 0, y: 0 });
    expect(toCssPixels(withBar, 0, 0)).toEqual({ x: 0, y: 0 });
    expect(cssViewport(withBar)).toEqual({ width: 800, height: 600 });
  });

  test("positions outside the frame are pinned to its edge", () => {
    expect(toCssPixels(plain, -0.4, 1.4)).toEqual({ x: 0, y: 600 });
  });
});

describe("input messages to CDP", () => {
  const key = (m: Record<string, unknown>) => {
    const msg = parse({ t: "key", e: "down", ...m });
    if (!msg || msg.t !== "key") throw new Error("not a key message");
    return toCdpInput(msg, undefined)!.params;
  };

  test("a printable key types its text; a shortcut types nothing", () => {
    expect(key({ key: "a", code: "KeyA", kc: 65, text: "a" })).toMatchObject({ type: "keyDown", text: "a", modifiers: 0 });
    expect(key({ key: "a", code: "KeyA", kc: 65, text: "a", m: 2 })).toMatchObject({ type: "rawKeyDown", modifiers: 2 });
    expect(key({ key: "a", code: "KeyA", kc: 65, text: "a", m: 2 })).not.toHaveProperty("text");
    expect(key({ key: "a", code: "KeyA", kc: 65, text: "a", m: 4 })).not.toHaveProperty("text");
  });

  test("AltGr (Ctrl+Alt) still types; Enter types a carriage return; Tab and arrows type nothing", () => {
    expect(key({ key: "@", code: "KeyQ", kc: 81, text: "@", m: 3 })).toMatchObject({ type: "keyDown", text: "@" });
    expect(key({ key: "Enter", code: "Enter", kc: 13 })).toMatchObject({ type: "keyDown", text: "\r", windowsVirtualKeyCode: 13 });
    expect(key({ key: "Tab", code: "Tab", kc: 9 })).toMatchObject({ type: "rawKeyDown", windowsVirtualKeyCode: 9 });
    expect(key({ key: "ArrowLeft", code: "ArrowLeft", kc: 37 })).not.toHaveProperty("text");
  });

  test("mouse buttons, click counts and the wheel", () => {
    const down = parse({ t: "mouse", e: "down", x: 0.5, y: 0.5, b: "left", bs: 1, c: 2, m: 8 });
    expect(toCdpInput(down as never, plain)!.params).toEqual({
      type: "mousePressed",
      x: 400,
      y: 300,
      button: "left",
      buttons: 1,
      clickCount: 2,
      modifiers: 8,
    });
    const move = parse({ t: "mouse", e: "move", x: 0.25, y: 0.5, b: "left", bs: 0 });
    expect(toCdpInput(move as never, plain)!.params).toMatchObject({ type: "mouseMoved", button: "none", clickCount: 0 });
    const wheel = parse({ t: "wheel", x: 0.5, y: 0.5, dx: 0, dy: 120 });
    expect(toCdpInput(wheel as never, plain)!.params).toMatchObject({ type: "mouseWheel", deltaY: 120 });
    // Without a frame there is nowhere to click.
    expect(toCdpInput(down as never, undefined)).toBeUndefined();
  });
});

describe("message shapes (everything from the page is untrusted)", () => {
  test("known shapes pass; unknown types, extra fields and wrong values do not", () => {
    expect(parse({ t: "done" })).toEqual({ t: "done" });
    expect(parse({ t: "ack", n: 12 })).toEqual({ t: "ack", n: 12 });
    expect(parse({ t: "eval", code: "1" })).toBeUndefined();
    expect(parse({ t: "done", extra: 1 })).toBeUndefined();
    expect(parse({ t: "mouse", e: "down", x: "0.5", y: 0.5 })).toBeUndefined();
    expect(parse({ t: "mouse", e: "drag", x: 0.5, y: 0.5 })).toBeUndefined();
    expect(parse({ t: "wheel", x: 0.5, y: 0.5, dx: 0, dy: 1e9 })).toBeUndefined();
    expect(parse({ t: "key", e: "down", key: "x".repeat(33) })).toBeUndefined();
    expect(parse({ t: "tab", id: "x".repeat(65) })).toBeUndefined();
    expect(parseMessage(ClientMessage, "not json")).toBeUndefined();
  });

  test("text is bounded", () => {
    expect(parse({ t: "text", s: "x".repeat(MAX_TEXT) })).toBeDefined();
    expect(parse({ t: "text", s: "x".repeat(MAX_TEXT + 1) })).toBeUndefined();
    expect(parse({ t: "text", s: "" })).toBeUndefined();
  });

  test("the first message carries the token and the canvas size, nothing else", () => {
    expect(parseMessage(AuthMessage, JSON.stringify({ t: "auth", token: "abc", w: 800, h: 600, dpr: 2 }))).toBeDefined();
    expect(parseMessage(AuthMessage, JSON.stringify({ t: "auth", token: "abc", w: 800, h: 600 }))).toBeUndefined();
    expect(parseMessage(AuthMessage, JSON.stringify({ t: "auth", token: "x".repeat(5000), w: 800, h: 600, dpr: 1 }))).toBeUndefined();
  });

  test("frame bounds are the canvas in device pixels, within limits", () => {
    expect(frameBounds(640, 360, 2)).toEqual({ maxWidth: 1280, maxHeight: 720 });
    expect(frameBounds(20_000, 1, 8)).toEqual({ maxWidth: MAX_FRAME_SIDE, maxHeight: 16 });
  });
});

describe("rate limit", () => {
  test("a burst, then nothing until it refills", () => {
    const limit = new RateLimit(3, 0.001);
    expect([limit.take(), limit.take(), limit.take(), limit.take()]).toEqual([true, true, true, false]);
  });
});

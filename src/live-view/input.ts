import type { InputMessage } from "./protocol.ts";

/** What Chromium says about each screencast frame (Page.ScreencastFrameMetadata). */
export interface FrameMetadata {
  offsetTop: number;
  pageScaleFactor: number;
  deviceWidth: number;
  deviceHeight: number;
}

export interface CdpCommand {
  method: string;
  params: Record<string, unknown>;
}

/**
 * A position on the displayed frame (0..1 across, 0..1 down) as CSS pixels of the page's viewport,
 * which is what Input.dispatchMouseEvent takes. The frame covers deviceWidth × deviceHeight DIPs
 * (the top `offsetTop` of it is browser chrome, if any); Chromium multiplies the event's position
 * by the page scale (pinch zoom) on its way in, so we divide by it. Because the page only sends
 * fractions, a click lands on the same spot however large the viewer draws the frame.
 */
export function toCssPixels(meta: FrameMetadata, fx: number, fy: number): { x: number; y: number } {
  const scale = meta.pageScaleFactor > 0 ? meta.pageScaleFactor : 1;
  const clamp = (v: number) => Math.min(1, Math.max(0, v));
  const x = (clamp(fx) * meta.deviceWidth) / scale;
  const y = Math.max(0, clamp(fy) * meta.deviceHeight - meta.offsetTop) / scale;
  return { x: Math.round(x * 100) / 100, y: Math.round(y * 100) / 100 };
}

/** The viewport's size in CSS px (sent with each frame, so the page can turn a finger drag into a scroll). */
export function cssViewport(meta: FrameMetadata): { width: number; height: number } {
  const scale = meta.pageScaleFactor > 0 ? meta.pageScaleFactor : 1;
  return { width: Math.round(meta.deviceWidth / scale), height: Math.round((meta.deviceHeight - meta.offsetTop) / scale) };
}

const mouseTypes = { move: "mouseMoved", down: "mousePressed", up: "mouseReleased" } as const;

/** Keys whose press types a character although `key` names them (what a keyboard sends as text). */
const keyText: Record<string, string> = { Enter: "\r" };

/** One input message from the page as the CDP command that replays it in the session's tab. */
export function toCdpInput(msg: InputMessage, meta: FrameMetadata | undefined): CdpCommand | undefined {
  switch (msg.t) {
    case "mouse": {
      if (!meta) return undefined;
      const { x, y } = toCssPixels(meta, msg.x, msg.y);
      return {
        method: "Input.dispatchMouseEvent",
        params: {
          type: mouseTypes[msg.e],
          x,
          y,
          button: msg.e === "move" ? (msg.bs === 0 ? "none" : msg.b) : msg.b,
          buttons: msg.bs,
          clickCount: msg.e === "move" ? 0 : Math.max(1, msg.c),
          modifiers: msg.m,
        },
      };
    }
    case "wheel": {
      if (!meta) return undefined;
      const { x, y } = toCssPixels(meta, msg.x, msg.y);
      return { method: "Input.dispatchMouseEvent", params: { type: "mouseWheel", x, y, deltaX: msg.dx, deltaY: msg.dy, modifiers: msg.m } };
    }
    case "key": {
      // Ctrl or Meta make a shortcut (Ctrl+A selects, it types nothing); AltGr (Ctrl+Alt) still types.
      const shortcut = (msg.m & 4) !== 0 || ((msg.m & 2) !== 0 && (msg.m & 1) === 0);
      const text = msg.e === "down" && !shortcut ? (msg.text ?? keyText[msg.key]) : undefined;
      return {
        method: "Input.dispatchKeyEvent",
        params: {
          // Like Puppeteer: keyDown when the press types text, rawKeyDown when it does not.
          type: msg.e === "up" ? "keyUp" : text ? "keyDown" : "rawKeyDown",
          key: msg.key,
          code: msg.code,
          windowsVirtualKeyCode: msg.kc,
          nativeVirtualKeyCode: msg.kc,
          modifiers: msg.m,
          location: msg.loc,
          autoRepeat: msg.rep,
          isKeypad: msg.loc === 3,
          ...(text ? { text, unmodifiedText: text } : {}),
        },
      };
    }
    case "text":
      return { method: "Input.insertText", params: { text: msg.s } };
  }
}

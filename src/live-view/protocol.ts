import { z } from "zod";
import { CloseCode } from "../browser/close-codes.ts";

/**
 * The viewer socket's protocol (`/live-view/socket`). Everything the page sends is JSON text and
 * untrusted: each message is checked against these shapes and limits before anything acts on it.
 *
 * Page → server
 *   auth   {t, token, w, h, dpr}        first message, within AUTH_TIMEOUT_MS; w×h is the canvas in CSS px
 *   size   {t, w, h, dpr}               the canvas changed size
 *   ack    {t, n}                       frame n was drawn (or dropped): the link keeps up
 *   tab    {t, id}                      show another tab
 *   mouse  {t, e, x, y, b, bs, c, m, f} e: move|down|up; x, y in 0..1 of frame f as displayed
 *   wheel  {t, x, y, dx, dy, m, f}      deltas in the remote page's CSS px
 *   key    {t, e, key, code, kc, text?, m, loc, rep}   e: down|up
 *   text   {t, s}                       composed (IME) or pasted text, inserted as typed
 *   done   {t}                          the person clicked Done
 *
 * Server → page
 *   binary                              a frame: u32 n, u16 css width, u16 css height (big-endian), JPEG
 *   hello  {t, viewer, session, interactive, instructions, expiresAt, now}
 *   tabs   {t, tabs: [{id, title, url}], active}
 *   done   {t, ok, message?}            answer to each Done
 *   end    {t, reason, message}         then the socket closes with a code of browser/close-codes.ts:
 *                                       1001 and 1013 may be retried; 1008, 1011, 4403, 4404, 4410, 4429 are final
 */

/** The link is refused or was revoked (the owner closed the views, the session's API key was revoked). Final. */
export const CLOSE_REVOKED = CloseCode.revoked;
/** The link names no session of its workspace. Final. */
export const CLOSE_NO_SESSION = CloseCode.noSuchSession;
/** The session has ended. Final. */
export const CLOSE_ENDED = CloseCode.sessionEnded;
/** The page broke the protocol (bad message, no auth in time). Final. */
export const CLOSE_POLICY = CloseCode.policy;
/** Too many viewers on this session right now. Final (a person can reload later). */
export const CLOSE_FULL = CloseCode.full;
/** A fault on our side (browser unreachable, database or tokens uncheckable): the page may try again. */
export const CLOSE_RETRY = CloseCode.tryAgain;
/** The server is shutting down: the page may try again. */
export const CLOSE_GOING_AWAY = CloseCode.goingAway;

export const AUTH_TIMEOUT_MS = 5_000;
/** Largest message the page may send: a paste of MAX_TEXT characters fits. */
export const MAX_MESSAGE_BYTES = 64 * 1024;
export const MAX_TEXT = 10_000;
/** People watching one session at once; each costs a screencast (JPEG encoding in the browser). */
export const MAX_VIEWERS_PER_SESSION = 8;
/** Frame bounds for the screencast (device pixels); Chromium never scales frames up anyway. */
export const MIN_FRAME_SIDE = 16;
export const MAX_FRAME_SIDE = 4096;

const fraction = z.number().finite().min(-0.5).max(1.5);
const mods = z.number().int().min(0).max(15).default(0);
const dim = z.number().int().min(1).max(20_000);
const dpr = z.number().finite().min(0.25).max(8);
const frameNo = z.number().int().min(0).max(0xffffffff);

export const AuthMessage = z.strictObject({
  t: z.literal("auth"),
  token: z.string().min(1).max(4096),
  w: dim,
  h: dim,
  dpr,
});
export type AuthMessage = z.output<typeof AuthMessage>;

export const ClientMessage = z.discriminatedUnion("t", [
  z.strictObject({ t: z.literal("size"), w: dim, h: dim, dpr }),
  z.strictObject({ t: z.literal("ack"), n: frameNo }),
  z.strictObject({ t: z.literal("tab"), id: z.string().min(1).max(64) }),
  z.strictObject({
    t: z.literal("mouse"),
    e: z.enum(["move", "down", "up"]),
    x: fraction,
    y: fraction,
    b: z.enum(["none", "left", "middle", "right", "back", "forward"]).default("none"),
    bs: z.number().int().min(0).max(31).default(0),
    c: z.number().int().min(0).max(3).default(0),
    m: mods,
    f: frameNo.optional(),
  }),
  z.strictObject({
    t: z.literal("wheel"),
    x: fraction,
    y: fraction,
    dx: z.number().finite().min(-10_000).max(10_000),
    dy: z.number().finite().min(-10_000).max(10_000),
    m: mods,
    f: frameNo.optional(),
  }),
  z.strictObject({
    t: z.literal("key"),
    e: z.enum(["down", "up"]),
    key: z.string().min(1).max(32),
    code: z.string().max(32).default(""),
    kc: z.number().int().min(0).max(255).default(0),
    text: z.string().min(1).max(8).optional(),
    m: mods,
    loc: z.number().int().min(0).max(3).default(0),
    rep: z.boolean().default(false),
  }),
  z.strictObject({ t: z.literal("text"), s: z.string().min(1).max(MAX_TEXT) }),
  z.strictObject({ t: z.literal("done") }),
]);
export type ClientMessage = z.output<typeof ClientMessage>;
export type InputMessage = Extract<ClientMessage, { t: "mouse" | "wheel" | "key" | "text" }>;

export const inputTypes: ReadonlySet<string> = new Set(["mouse", "wheel", "key", "text"]);

export interface TabInfo {
  id: string;
  title: string;
  url: string;
}

/** Parses one text message; undefined when it is not JSON or not one of the shapes. */
export function parseMessage<T>(schema: z.ZodType<T>, raw: string): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** The screencast's bounds for a canvas: its size in device pixels, within sane limits. */
export function frameBounds(w: number, h: number, ratio: number): { maxWidth: number; maxHeight: number } {
  const side = (v: number) => Math.min(MAX_FRAME_SIDE, Math.max(MIN_FRAME_SIDE, Math.round(v * ratio)));
  return { maxWidth: side(w), maxHeight: side(h) };
}

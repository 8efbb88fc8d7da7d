import WebSocket from "ws";
import { eventually } from "./sessions.ts";

/**
 * Plain `ws` clients on a session's sockets, to see exactly how the server closes them (client
 * libraries such as Puppeteer report a disconnect, not its code).
 */
export interface ObservedSocket {
  ws: WebSocket;
  /** "open", or the HTTP status the handshake was refused with. */
  opened: Promise<"open" | number>;
  closed: Promise<{ code: number; reason: string }>;
  /** Text messages, parsed. */
  messages: Array<Record<string, unknown>>;
  /** The first message of type `t` (live view), within `ms`. */
  next(t: string, ms?: number): Promise<Record<string, unknown>>;
}

function observe(ws: WebSocket, onOpen: () => void = () => {}): ObservedSocket {
  const messages: Array<Record<string, unknown>> = [];
  ws.on("message", (data, isBinary) => {
    if (!isBinary) messages.push(JSON.parse(data.toString()) as Record<string, unknown>);
    // A live-view frame, acknowledged at once so frames keep coming.
    else ws.send(JSON.stringify({ t: "ack", n: (data as Buffer).readUInt32BE(0) }));
  });
  ws.on("error", () => {});
  const observed: ObservedSocket = {
    ws,
    messages,
    opened: new Promise((resolve) => {
      ws.once("open", () => {
        onOpen();
        resolve("open");
      });
      ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    }),
    closed: new Promise((resolve) => ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() }))),
    next: (t, ms = 15_000) =>
      eventually(
        async () => messages.find((m) => m.t === t),
        (m) => m !== undefined,
        ms,
      ) as Promise<Record<string, unknown>>,
  };
  return observed;
}

/** A CDP client on `connectUrl` (a session's connect_url). */
export function cdpSocket(connectUrl: string): ObservedSocket {
  return observe(new WebSocket(connectUrl, { perMessageDeflate: false }));
}

/**
 * A live viewer for `liveViewUrl` on the server at `baseUrl`, from the page's own origin, sending
 * its token as the first message (as the viewer page does).
 */
export function liveViewSocket(baseUrl: string, liveViewUrl: string): ObservedSocket {
  const url = new URL(liveViewUrl);
  const token = url.searchParams.get("token")!;
  const session = (JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { sub: string }).sub;
  const ws = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/live-view/socket?session=${session}`, { origin: url.origin });
  return observe(ws, () => ws.send(JSON.stringify({ t: "auth", token, w: 800, h: 600, dpr: 1 })));
}

/** Resolves with how `socket` closed, or rejects after `ms` (a bounded wait, not a timing assertion). */
export function closedWithin(socket: ObservedSocket, ms: number): Promise<{ code: number; reason: string }> {
  return Promise.race([
    socket.closed,
    new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error(`the socket was still open after ${ms} ms`)), ms).unref()),
  ]);
}

/**
 * Opens a CDP socket and asks the browser for its version: resolves with the socket once answered
 * (it really reaches the browser), or with the close code and reason it got instead.
 */
export function cdpServed(url: string): Promise<{ ws: WebSocket } | { code: number; reason: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once("open", () => ws.send(JSON.stringify({ id: 1, method: "Browser.getVersion" })));
    ws.on("message", (data) => {
      if ((JSON.parse(String(data)) as { id?: number }).id === 1) resolve({ ws });
    });
    ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() }));
    ws.once("unexpected-response", (_req, res) => reject(new Error(`handshake answered ${res.statusCode}`)));
    ws.once("error", () => {}); // the close above says what happened
  });
}

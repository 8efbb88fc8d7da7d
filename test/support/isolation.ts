import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import WebSocket from "ws";

/**
 * Tools for the isolation tests (test/e2e/isolation.test.ts): a raw CDP client that keeps every
 * frame it receives, a reader of what every page of a browser shows, a search for secrets in both,
 * a loopback listener that counts every connection made to it, and /proc readers for a browser's
 * processes, their listening sockets and their namespaces.
 */

export interface CdpAnswer {
  id: number;
  // What Chromium answers varies by method; the tests read it field by field.
  result?: any;
  error?: { code?: number; message?: string; data?: string };
  sessionId?: string;
  /** No answer carrying the id came in time. */
  timedOut?: true;
  /** The connection closed before the answer came. */
  closed?: true;
}

export type CdpMessage = Record<string, unknown> & { method?: string; params?: Record<string, unknown>; sessionId?: string };

/** A CDP client over a bare WebSocket: any message may be sent, nothing is hidden, every frame received is kept. */
export class RawCdp {
  /** Every text frame received, as received. */
  readonly received: string[] = [];
  readonly #pending = new Map<number, { resolve(answer: CdpAnswer): void; timer: NodeJS.Timeout }>();
  readonly #listeners = new Set<(message: CdpMessage) => void>();
  #next = 1;

  private constructor(private readonly ws: WebSocket) {
    ws.on("message", (data) => {
      const text = data.toString();
      this.received.push(text);
      let message: CdpMessage & { id?: unknown };
      try {
        message = JSON.parse(text) as CdpMessage & { id?: unknown };
      } catch {
        return;
      }
      if (typeof message.id === "number" && this.#pending.has(message.id)) {
        const pending = this.#pending.get(message.id)!;
        this.#pending.delete(message.id);
        clearTimeout(pending.timer);
        pending.resolve(message as unknown as CdpAnswer);
        return;
      }
      for (const listener of this.#listeners) listener(message);
    });
    ws.on("close", () => {
      for (const [id, pending] of this.#pending) {
        clearTimeout(pending.timer);
        pending.resolve({ id, closed: true });
      }
      this.#pending.clear();
    });
    ws.on("error", () => {});
  }

  static open(url: string, timeoutMs = 10_000): Promise<RawCdp> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: timeoutMs, maxPayload: 256 * 1024 * 1024 });
      ws.once("open", () => resolve(new RawCdp(ws)));
      ws.once("unexpected-response", (_req, res) => reject(new Error(`CDP handshake refused: ${res.statusCode}`)));
      ws.once("error", reject);
    });
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  nextId(): number {
    return this.#next++;
  }

  /** Sends one command; resolves with the answer carrying its id (or timedOut / closed), never rejects. */
  call(method: string, params: Record<string, unknown> = {}, sessionId?: string, timeoutMs = 10_000): Promise<CdpAnswer> {
    const id = this.nextId();
    return this.sendText(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }), id, timeoutMs);
  }

  /** Sends a hand-written message (say, with JSON escapes) whose id is `id`. */
  sendText(text: string, id: number, timeoutMs = 10_000): Promise<CdpAnswer> {
    return new Promise((resolve) => {
      if (!this.isOpen) return resolve({ id, closed: true });
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        resolve({ id, timedOut: true });
      }, timeoutMs);
      this.#pending.set(id, { resolve, timer });
      this.ws.send(text);
    });
  }

  /** The first event (a message without a pending id) that matches, or undefined after `timeoutMs`. */
  waitFor(match: (message: CdpMessage) => boolean, timeoutMs = 10_000): Promise<CdpMessage | undefined> {
    return new Promise((resolve) => {
      const listener = (message: CdpMessage) => {
        if (!match(message)) return;
        clearTimeout(timer);
        this.#listeners.delete(listener);
        resolve(message);
      };
      const timer = setTimeout(() => {
        this.#listeners.delete(listener);
        resolve(undefined);
      }, timeoutMs);
      this.#listeners.add(listener);
    });
  }

  close(): void {
    this.ws.terminate();
  }
}

// ---------------------------------------------------------------------------------------------
// Secrets: what must never reach a session.

export interface Secret {
  /** What it is, for failure messages (never the value itself). */
  name: string;
  value: string;
}

const base64ish = /^[A-Za-z0-9+/\r\n]+={0,2}$/;

/** Every string value in a JSON document (or the text itself when it is not JSON). */
function stringsOf(text: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [text];
  }
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") out.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk(parsed);
  return out;
}

/** The names of the secrets present in `text`: as they are, or inside any base64 string (IO.read, data URLs). */
export function secretsIn(text: string, secrets: readonly Secret[]): string[] {
  const found = new Set<string>();
  const check = (haystack: string) => {
    for (const s of secrets) if (haystack.includes(s.value)) found.add(s.name);
  };
  check(text);
  for (const value of stringsOf(text)) {
    const candidate = value.startsWith("data:") ? value.slice(value.indexOf(",") + 1) : value;
    if (candidate.length >= 12 && candidate.length % 4 === 0 && base64ish.test(candidate)) {
      check(Buffer.from(candidate, "base64").toString("latin1"));
    }
  }
  return [...found];
}

// ---------------------------------------------------------------------------------------------
// What the pages of a browser show.

export interface FrameView {
  targetId: string;
  targetType: string;
  targetUrl: string;
  /** The page's main frame (the first of its frame tree). */
  main: boolean;
  frameUrl: string;
  /** Set when the frame shows an error page for this address. */
  unreachableUrl?: string;
  /** location.href in the frame (chrome-error://chromewebdata/ for an error page). */
  href?: string;
  ready?: string;
  text: string;
  error?: string;
}

interface FrameTree {
  frame: { id: string; url: string; unreachableUrl?: string };
  childFrames?: FrameTree[];
}

const OBSERVE = `(() => ({ href: location.href, ready: document.readyState,
  text: document.documentElement ? (document.documentElement.innerText || document.documentElement.textContent || "") : "" }))()`;

function framesOf(tree: FrameTree): FrameTree["frame"][] {
  return [tree.frame, ...(tree.childFrames ?? []).flatMap(framesOf)];
}

/**
 * What every page and out-of-process frame of the browser shows right now, read over `cdp` the way
 * a CDP client reads it (flat attach, an isolated world per frame, innerText). A frame that cannot
 * be read is reported with `error` and empty text.
 */
export async function observePages(cdp: RawCdp): Promise<FrameView[]> {
  const views: FrameView[] = [];
  const targets = await cdp.call("Target.getTargets");
  const infos = (targets.result?.targetInfos ?? []) as Array<{ targetId: string; type: string; url: string }>;
  for (const info of infos) {
    if (info.type !== "page" && info.type !== "iframe") continue;
    const base = { targetId: info.targetId, targetType: info.type, targetUrl: info.url };
    const attached = await cdp.call("Target.attachToTarget", { targetId: info.targetId, flatten: true });
    const sessionId = attached.result?.sessionId as string | undefined;
    if (!sessionId) {
      views.push({ ...base, main: true, frameUrl: info.url, text: "", error: `attach: ${JSON.stringify(attached.error ?? attached)}` });
      continue;
    }
    try {
      const tree = await cdp.call("Page.getFrameTree", {}, sessionId);
      const frames = tree.result?.frameTree ? framesOf(tree.result.frameTree as FrameTree) : [];
      if (frames.length === 0) {
        const value = await cdp.call("Runtime.evaluate", { expression: OBSERVE, returnByValue: true }, sessionId);
        const v = value.result?.result?.value as { href: string; ready: string; text: string } | undefined;
        views.push({ ...base, main: true, frameUrl: info.url, ...(v ?? { text: "" }), ...(v ? {} : { error: JSON.stringify(value.error ?? value) }) });
        continue;
      }
      for (const [i, frame] of frames.entries()) {
        const view: FrameView = {
          ...base,
          main: i === 0,
          frameUrl: frame.url,
          text: "",
          ...(frame.unreachableUrl ? { unreachableUrl: frame.unreachableUrl } : {}),
        };
        const world = await cdp.call("Page.createIsolatedWorld", { frameId: frame.id, worldName: "vessel-observer" }, sessionId);
        const contextId = world.result?.executionContextId as number | undefined;
        const value = await cdp.call("Runtime.evaluate", { expression: OBSERVE, returnByValue: true, ...(contextId ? { contextId } : {}) }, sessionId);
        const v = value.result?.result?.value as { href: string; ready: string; text: string } | undefined;
        if (v) Object.assign(view, v);
        else view.error = JSON.stringify(value.error ?? world.error ?? value);
        views.push(view);
      }
    } finally {
      await cdp.call("Target.detachFromTarget", { sessionId });
    }
  }
  return views;
}

/** Hosts that are this machine (127.0.0.2 plays a public site in the tests, so it is not one of them). */
export function isThisMachine(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const { protocol, hostname } = new URL(url);
    if (!/^(https?|wss?):$/.test(protocol)) return false;
    return hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]" || hostname === "0.0.0.0" || hostname.endsWith(".localhost");
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// A service on loopback that no session may reach.

export interface TrapListener {
  port: number;
  url: string;
  wsUrl: string;
  /** Every connection and request it received, in order. */
  hits: string[];
  close(): Promise<void>;
}

/** An HTTP (and WebSocket) server on 127.0.0.1 that answers `secret` to anyone, with CORS open, and notes every TCP connection. */
export async function startTrapListener(secret: string): Promise<TrapListener> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "content-type": "text/html", "access-control-allow-origin": "*" });
    res.end(`<title>${secret}</title><p>${secret}</p>`);
  });
  server.on("connection", (socket: net.Socket) => hits.push(`tcp connection from ${socket.remoteAddress}:${socket.remotePort}`));
  server.on("upgrade", (req, socket) => {
    hits.push(`upgrade ${req.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/`,
    wsUrl: `ws://127.0.0.1:${port}/`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// A browser's processes, read from /proc.

interface Stat {
  pid: number;
  ppid: number;
  pgrp: number;
  state: string;
}

function stat(pid: number): Stat | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, ppid, pgrp] = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(ppid), pgrp: Number(pgrp), state: state ?? "?" };
  } catch {
    return undefined;
  }
}

function allStats(): Stat[] {
  return fs
    .readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .map((e) => stat(Number(e)))
    .filter((s): s is Stat => s !== undefined && s.state !== "Z" && s.state !== "X");
}

/** The live processes of a browser: `root` (a browser's pid, which leads its process group), its group, and all their descendants. */
export function processTree(root: number): number[] {
  const stats = allStats();
  const found = new Set<number>(stats.filter((s) => s.pid === root || s.pgrp === root).map((s) => s.pid));
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of stats) {
      if (!found.has(s.pid) && found.has(s.ppid)) {
        found.add(s.pid);
        grew = true;
      }
    }
  }
  return [...found].sort((a, b) => a - b);
}

/** The executable a process runs ("" once it is gone). */
export function executableOf(pid: number): string {
  try {
    return fs.readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return "";
  }
}

/** The namespace a process is in (`net`, `mnt`, `pid`, …), as the kernel names it, e.g. "net:[4026531840]". */
export function namespaceOf(pid: number | "self", kind: string): string | undefined {
  try {
    return fs.readlinkSync(`/proc/${pid}/ns/${kind}`);
  } catch {
    return undefined;
  }
}

export interface ListeningSocket {
  pid: number;
  /** As /proc shows it: hex address and port. */
  local: string;
  port: number;
  file: string;
}

/**
 * TCP sockets in LISTEN state that any of `pids` holds: the socket inodes in /proc/<pid>/fd matched
 * against the LISTEN rows of /proc/<pid>/net/tcp and tcp6 (the process's own network namespace,
 * whichever it is).
 */
export function listeningTcpSockets(pids: number[]): ListeningSocket[] {
  const out: ListeningSocket[] = [];
  for (const pid of pids) {
    const inodes = new Set<string>();
    let fds: string[] = [];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const link = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
        const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
        if (inode) inodes.add(inode);
      } catch {
        // closed meanwhile
      }
    }
    if (inodes.size === 0) continue;
    for (const file of ["tcp", "tcp6"]) {
      let rows: string[] = [];
      try {
        rows = fs.readFileSync(`/proc/${pid}/net/${file}`, "utf8").split("\n").slice(1);
      } catch {
        continue;
      }
      for (const row of rows) {
        const cols = row.trim().split(/\s+/);
        // cols[1] local address, cols[3] state (0A = LISTEN), cols[9] inode
        if (cols[3] === "0A" && cols[9] && inodes.has(cols[9])) {
          out.push({ pid, local: cols[1]!, port: Number.parseInt(cols[1]!.split(":")[1]!, 16), file });
        }
      }
    }
  }
  return out;
}

// What the benchmarks share: environment knobs, nearest-rank statistics and printing, a raw CDP
// client with as little of its own overhead as possible (no timers per message), and REST calls.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import WebSocket, { WebSocketServer } from "ws";
import type { CdpPipe } from "../src/browser/cdp/pipe/pipe.ts";

/** A non-negative number from the environment, or `fallback`. */
export const num = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number`);
  return value;
};

export const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
/** Nearest-rank percentile: with n < 20, p95 is the maximum (with n = 20, the second largest). */
export const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
export const median = (xs: number[]) => pct(xs, 50);
export const f = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");
export const pad = (s: string, n: number) => s.padEnd(n);
export const verdict = (ok: boolean) => (ok ? "goal met" : "GOAL NOT MET");

export type CdpEvent = { method: string; params: Record<string, unknown>; sessionId?: string };

/** A raw CDP client for measuring: one WebSocket (or one channel on a browser's pipe), flat sessions, no per-message timers. */
export class BenchCdp {
  #next = 1;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  /** The page session commands go to, once attached. */
  sessionId = "";
  onEvent: ((e: CdpEvent) => void) | undefined;

  private constructor(
    private readonly transport: {
      send(message: { id: number; method: string; params: Record<string, unknown>; sessionId?: string }): void;
      close(): Promise<void>;
    },
  ) {}

  #receive(data: Buffer | string): void {
    const msg = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { message: string } } & Partial<CdpEvent>;
    if (msg.id === undefined) {
      if (msg.method) this.onEvent?.(msg as CdpEvent);
      return;
    }
    const waiter = this.#pending.get(msg.id);
    if (!waiter) return;
    this.#pending.delete(msg.id);
    if (msg.error) waiter.reject(new Error(`CDP error: ${msg.error.message}`));
    else waiter.resolve(msg.result);
  }

  #closed(): void {
    for (const w of this.#pending.values()) w.reject(new Error("CDP connection closed"));
    this.#pending.clear();
  }

  static open(url: string): Promise<BenchCdp> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
      ws.once("open", () => {
        const cdp = new BenchCdp({
          send: (message) => ws.send(JSON.stringify(message)),
          close: () => {
            if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
            return new Promise((done) => {
              ws.once("close", () => done());
              ws.close();
              setTimeout(() => {
                ws.terminate();
                done();
              }, 2_000).unref();
            });
          },
        });
        ws.on("message", (data: Buffer) => cdp.#receive(data));
        ws.on("close", () => cdp.#closed());
        resolve(cdp);
      });
      ws.once("error", reject);
      ws.once("unexpected-response", (_req, res) => reject(new Error(`CDP upgrade refused: HTTP ${res.statusCode}`)));
    });
  }

  /** A client on a channel of its own on `pipe`, in this process (the process that launched the browser). */
  static async onPipe(pipe: CdpPipe): Promise<BenchCdp> {
    const channel = await pipe.open();
    const cdp = new BenchCdp({
      send: (message) => void channel.send(message),
      close: async () => channel.close(),
    });
    channel.onMessage = (data) => cdp.#receive(data);
    channel.onClose = () => cdp.#closed();
    return cdp;
  }

  send<T = unknown>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.transport.send(sessionId ? { id, method, params, sessionId } : { id, method, params });
    });
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

/** Closes one named client of `clients`, or all of them. */
export async function closeClients(clients: Map<string, BenchCdp>, name?: string): Promise<void> {
  const names = name === undefined ? [...clients.keys()] : [name];
  await Promise.all(
    names.map(async (n) => {
      await clients.get(n)?.close();
      clients.delete(n);
    }),
  );
}

/** One REST call with an API key; throws unless the status is `expect`. POSTs get a fresh Idempotency-Key. */
export async function api(method: string, url: string, key: string, expect: number, body?: unknown): Promise<unknown> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method === "POST") headers["idempotency-key"] = randomUUID();
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${method} ${url} answered ${res.status} (expected ${expect}): ${text.slice(0, 500)}`);
  return text ? (JSON.parse(text) as unknown) : null;
}

/**
 * The child side of a forked bench client: runs each request's handler and answers over IPC; when
 * the parent goes away (finished, crashed, interrupted) or a signal comes, `cleanup` closes what
 * the child started and it leaves.
 */
export function serveParent(handlers: Record<string, (args: never) => Promise<unknown>>, cleanup: () => Promise<void>): void {
  process.on("message", (msg: { id: number; op: string; args: unknown }) => {
    const handler = handlers[msg.op] as (args: unknown) => Promise<unknown>;
    handler(msg.args).then(
      (result) => process.send!({ id: msg.id, ok: true, result }),
      (err: unknown) => process.send!({ id: msg.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
    );
  });
  process.once("disconnect", () => {
    void cleanup().finally(() => process.exit(0));
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      void cleanup().finally(() => process.exit(1));
    });
  }
}

/** A bare TCP relay to 127.0.0.1:`port`, bytes piped both ways and nothing else: the floor for any proxy. */
export function bareRelay(port: number): net.Server {
  return net.createServer((client) => {
    const upstream = net.connect({ host: "127.0.0.1", port, noDelay: true });
    client.setNoDelay(true);
    client.pipe(upstream).pipe(client);
    const end = () => (client.destroy(), upstream.destroy());
    client.once("error", end).once("close", end);
    upstream.once("error", end).once("close", end);
  });
}

/**
 * A bare WebSocket relay to a channel of its own on a browser's pipe, in this process: each client
 * message parsed (a pipe carries no WebSocket frames, and a channel routes by session id) and sent
 * on, each browser message sent back as it came. No token, no policy, no shape checks, no tracking:
 * the floor for anything that relays a client to a browser without a DevTools port.
 */
export async function pipeRelay(pipe: CdpPipe): Promise<{ url: string; close(): Promise<void> }> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false, clientTracking: true, maxPayload: 256 * 1024 * 1024 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  server.on("connection", (client) => {
    const early: Buffer[] = [];
    let forward = (data: Buffer) => void early.push(data);
    client.on("message", (data: Buffer) => forward(data));
    pipe.open().then(
      (channel) => {
        if (client.readyState !== WebSocket.OPEN) return channel.close();
        channel.onMessage = (message) => client.send(message, { binary: false });
        channel.onClose = () => client.close();
        client.on("close", () => channel.close());
        forward = (data) => void channel.send(JSON.parse(data.toString("utf8")) as { id: number; method: string; params?: unknown; sessionId?: string });
        for (const data of early.splice(0)) forward(data);
      },
      () => client.terminate(),
    );
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}

/**
 * Whether a browser runs jailed: its browser process (the first Chromium found walking down from
 * `pid`, the process the pool launched) in a network namespace other than this process's
 * (bubblewrap's --unshare-net; Chromium's own sandbox gives only its renderers and zygotes one).
 * Read from /proc, so it says what is, whatever the configuration meant.
 */
export function jailOf(pid: number): string {
  const read = (file: string) => {
    try {
      return fs.readFileSync(file, "utf8");
    } catch {
      return undefined;
    }
  };
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = read(`/proc/${entry}/stat`);
    if (!stat) continue;
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const chain: string[] = [];
  for (let queue = [pid]; queue.length > 0; ) {
    const p = queue.shift()!;
    const comm = read(`/proc/${p}/comm`)?.trim() ?? "?";
    chain.push(comm);
    if (comm.startsWith("chrom") || comm.startsWith("headless")) {
      let theirs: string | undefined;
      try {
        theirs = fs.readlinkSync(`/proc/${p}/ns/net`);
      } catch {
        return `unknown (cannot read /proc/${p}/ns/net)`;
      }
      const jailed = theirs !== fs.readlinkSync("/proc/self/ns/net");
      return `${jailed ? "JAILED: its own network namespace" : "NOT jailed: this machine's network namespace"} (walked: ${chain.join(", ")})`;
    }
    queue.push(...(children.get(p) ?? []));
  }
  return `unknown (no Chromium process below pid ${pid})`;
}

// The client half of bench/sessions.ts, forked by it: puppeteer, the raw CDP clients, the REST calls,
// the tiny page server and the reference browsers (bench/reference-chromium.ts: Chromium with the
// pool's flags and a DevTools port, driven over its WebSocket) run here, so the load does not share
// the Vessel server's event loop (and its memory figures stay the server's own). Driven over the IPC
// channel; never run on its own.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import puppeteer from "puppeteer-core";
import { warmUpProfile } from "../src/browser/pool/warm-up.ts";
import { launchReference, type ReferenceChromium } from "./reference-chromium.ts";
import { api, BenchCdp, closeClients, serveParent } from "./support.ts";

/** Milliseconds per step of one lifecycle; `obtain` is POST /v1/sessions, a reference launch, or 0. */
export interface Phases {
  obtain: number;
  connect: number;
  newPage: number;
  goto: number;
  release: number;
  total: number;
}

export interface Ops {
  init: { args: { executablePath: string }; result: { pageUrl: string } };
  /** `body`: more of the create's body (browser settings, say); default just the region. */
  lifecycleVessel: { args: { baseUrl: string; key: string; body?: Record<string, unknown> }; result: Phases };
  lifecycleOnDemand: { args: Record<string, never>; result: Phases };
  lifecycleRunning: { args: Record<string, never>; result: Phases };
  /** A fresh browser launched and warmed up before the clock starts (what a session's spare is), then driven directly. */
  lifecycleFresh: { args: { settleMs: number }; result: Phases };
  /** A fresh reference Chromium (flags of the pool, plus a DevTools port) for raw CDP clients; closed by cdpClose/shutdown. */
  referenceLaunch: { args: Record<string, never>; result: { wsEndpoint: string; port: number } };
  createSession: { args: { baseUrl: string; key: string; body?: Record<string, unknown> }; result: { id: string; connectUrl: string } };
  /**
   * n creates sent together, each timed here, as a remote client sees it (timed in the server's
   * process, an answer would also wait for that busy loop to read the reply).
   */
  createTimed: { args: { baseUrl: string; key: string; n: number }; result: Array<{ id: string; ms: number }> };
  releaseSession: { args: { baseUrl: string; key: string; id: string }; result: null };
  /**
   * A raw CDP client on a browser endpoint (or, with `url` "pipe:reference", on a channel of the last
   * reference's pipe, from this process), attached (flat) to the browser's first page.
   */
  cdpOpen: { args: { name: string; url: string; loadPage?: boolean }; result: null };
  /** n sequential Runtime.evaluate("1+1"); each round trip in ms. */
  cdpSeq: { args: { name: string; n: number }; result: number[] };
  /** n Runtime.evaluate("1+1") sent at once; ms until the last answer. */
  cdpPipe: { args: { name: string; n: number }; result: number };
  /** Closes one client, or all of them. */
  cdpClose: { args: { name?: string }; result: null };
  shutdown: { args: Record<string, never>; result: null };
}
export type OpName = keyof Ops;
export interface RequestMsg {
  id: number;
  op: OpName;
  args: unknown;
}
export type ReplyMsg = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

const PAGE = "<!doctype html><html><head><title>bench</title></head><body><p>hello from the bench page</p></body></html>";
const dataRoot = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-bench-sessions-"));
let executablePath = "";
let pageUrl = "";
let pageServer: http.Server | undefined;
/** The "already running" browser: launched once, reused by every lifecycleRunning. */
let running: ReferenceChromium | undefined;
/** Browsers launched on demand that are not closed yet (only while an iteration runs or failed). */
const onDemand = new Set<ReferenceChromium>();
/** Reference browsers for the raw CDP clients of (b). */
const references = new Set<ReferenceChromium>();
let lastReference: ReferenceChromium | undefined;
const clients = new Map<string, BenchCdp>();
let launches = 0;
const launch = (kind: string) => launchReference({ executablePath, dataRoot, id: `${kind}-${launches++}` });

async function createSession(baseUrl: string, key: string, body: Record<string, unknown> = {}): Promise<{ id: string; connectUrl: string }> {
  const s = (await api("POST", `${baseUrl}/v1/sessions`, key, 201, { region: "us-east1", ...body })) as {
    id: string;
    status: string;
    connect_url: string | null;
  };
  if (s.status !== "RUNNING" || !s.connect_url) throw new Error(`session ${s.id} is ${s.status} without connect_url`);
  return { id: s.id, connectUrl: s.connect_url };
}

async function releaseSession(baseUrl: string, key: string, id: string): Promise<void> {
  await api("PATCH", `${baseUrl}/v1/sessions/${id}`, key, 204, { status: "REQUEST_RELEASE" });
}

/** connect → newPage → goto on a browser endpoint; returns the connected browser for the caller to end. */
async function drive(endpoint: string, t: Phases) {
  let mark = performance.now();
  const browser = await puppeteer.connect({ browserWSEndpoint: endpoint, protocolTimeout: 30_000 });
  t.connect = performance.now() - mark;
  mark = performance.now();
  const page = await browser.newPage();
  t.newPage = performance.now() - mark;
  mark = performance.now();
  const response = await page.goto(pageUrl, { timeout: 30_000 });
  if (!response?.ok()) throw new Error(`goto ${pageUrl}: ${response?.status() ?? "no response"}`);
  t.goto = performance.now() - mark;
  return { browser, page };
}

const phases = (): Phases => ({ obtain: 0, connect: 0, newPage: 0, goto: 0, release: 0, total: 0 });

const handlers: { [K in OpName]: (args: Ops[K]["args"]) => Promise<Ops[K]["result"]> } = {
  async init({ executablePath: exe }) {
    executablePath = exe;
    pageServer = http.createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-length": Buffer.byteLength(PAGE), "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : PAGE);
    });
    await new Promise<void>((resolve) => pageServer!.listen(0, "127.0.0.1", resolve));
    pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/`;
    running = await launch("running");
    return { pageUrl };
  },

  async lifecycleVessel({ baseUrl, key, body }) {
    const t = phases();
    const start = performance.now();
    const { id, connectUrl } = await createSession(baseUrl, key, body);
    t.obtain = performance.now() - start;
    try {
      const { browser } = await drive(connectUrl, t);
      const mark = performance.now();
      await browser.disconnect();
      await releaseSession(baseUrl, key, id);
      t.release = performance.now() - mark;
    } catch (err) {
      await releaseSession(baseUrl, key, id).catch(() => {});
      throw err;
    }
    t.total = performance.now() - start;
    return t;
  },

  async lifecycleOnDemand() {
    const t = phases();
    const start = performance.now();
    const chromium = await launch("ondemand");
    onDemand.add(chromium);
    try {
      t.obtain = performance.now() - start;
      const { browser } = await drive(chromium.wsEndpoint, t);
      const mark = performance.now();
      await browser.disconnect();
      await chromium.close();
      t.release = performance.now() - mark;
    } finally {
      await chromium.close();
      onDemand.delete(chromium);
    }
    t.total = performance.now() - start;
    return t;
  },

  async lifecycleRunning() {
    if (!running?.alive) throw new Error("the already-running browser is gone");
    const t = phases();
    const start = performance.now();
    const { browser, page } = await drive(running.wsEndpoint, t);
    const mark = performance.now();
    await page.close();
    await browser.disconnect();
    t.release = performance.now() - mark;
    t.total = performance.now() - start;
    return t;
  },

  async lifecycleFresh({ settleMs }) {
    const chromium = await launch("fresh");
    onDemand.add(chromium);
    try {
      // The pool's own warm-up, over the reference's pipe, before the clock.
      await warmUpProfile(chromium.cdp);
      await new Promise((r) => setTimeout(r, settleMs)); // as settled as the pool's spare
      const t = phases();
      const start = performance.now();
      const { browser } = await drive(chromium.wsEndpoint, t);
      const mark = performance.now();
      await browser.disconnect();
      // Closing the browser is left out, as Vessel closes a released session's browser after answering.
      t.release = performance.now() - mark;
      t.total = performance.now() - start;
      return t;
    } finally {
      await chromium.close();
      onDemand.delete(chromium);
    }
  },

  async referenceLaunch() {
    const chromium = await launch("reference");
    references.add(chromium);
    lastReference = chromium;
    return { wsEndpoint: chromium.wsEndpoint, port: chromium.port };
  },

  createSession: ({ baseUrl, key, body }) => createSession(baseUrl, key, body),
  createTimed: ({ baseUrl, key, n }) =>
    Promise.all(
      Array.from({ length: n }, async () => {
        const started = performance.now();
        const { id } = await createSession(baseUrl, key);
        return { id, ms: performance.now() - started };
      }),
    ),

  async releaseSession({ baseUrl, key, id }) {
    await releaseSession(baseUrl, key, id);
    return null;
  },

  async cdpOpen({ name, url, loadPage }) {
    if (clients.has(name)) throw new Error(`CDP client ${name} is already open`);
    const cdp = url === "pipe:reference" ? await BenchCdp.onPipe(lastReference!.cdp) : await BenchCdp.open(url);
    clients.set(name, cdp);
    const { targetInfos } = await cdp.send<{ targetInfos: Array<{ targetId: string; type: string }> }>("Target.getTargets");
    let targetId = targetInfos.find((t) => t.type === "page")?.targetId;
    targetId ??= (await cdp.send<{ targetId: string }>("Target.createTarget", { url: "about:blank" })).targetId;
    cdp.sessionId = (await cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true })).sessionId;
    if (loadPage) {
      await cdp.send("Page.navigate", { url: pageUrl }, cdp.sessionId);
      await cdp.send(
        "Runtime.evaluate",
        { expression: "new Promise((r) => document.readyState === 'complete' ? r(1) : addEventListener('load', () => r(1)))", awaitPromise: true },
        cdp.sessionId,
      );
    }
    const check = await cdp.send<{ result: { value: unknown } }>("Runtime.evaluate", { expression: "1+1" }, cdp.sessionId);
    if (check.result.value !== 2) throw new Error(`Runtime.evaluate("1+1") gave ${JSON.stringify(check.result)}`);
    return null;
  },

  async cdpSeq({ name, n }) {
    const cdp = clients.get(name);
    if (!cdp) throw new Error(`no CDP client ${name}`);
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await cdp.send("Runtime.evaluate", { expression: "1+1" }, cdp.sessionId);
      out.push(performance.now() - t);
    }
    return out;
  },

  async cdpPipe({ name, n }) {
    const cdp = clients.get(name);
    if (!cdp) throw new Error(`no CDP client ${name}`);
    const t = performance.now();
    const all: Promise<unknown>[] = [];
    for (let i = 0; i < n; i++) all.push(cdp.send("Runtime.evaluate", { expression: "1+1" }, cdp.sessionId));
    await Promise.all(all);
    return performance.now() - t;
  },

  async cdpClose({ name }) {
    await closeClients(clients, name);
    if (name === undefined) {
      await Promise.allSettled([...references].map((b) => b.close()));
      references.clear();
      lastReference = undefined;
    }
    return null;
  },

  async shutdown() {
    await cleanup();
    return null;
  },
};

async function cleanup(): Promise<void> {
  await Promise.allSettled([...clients.values()].map((c) => c.close()));
  clients.clear();
  await Promise.allSettled([running, ...onDemand, ...references].map((b) => b?.close()));
  running = undefined;
  onDemand.clear();
  references.clear();
  pageServer?.closeAllConnections();
  pageServer?.close();
  fs.rmSync(dataRoot, { recursive: true, force: true });
}

if (!process.send) throw new Error("bench/sessions-client.ts is forked by bench/sessions.ts; run that instead");
serveParent(handlers, cleanup);

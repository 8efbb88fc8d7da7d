// The client half of bench/sessions-policy.ts, forked by it: the fixture site (plain HTTP and, with
// openssl, HTTPS), the raw CDP clients and the REST calls run here, so the load does not share the
// Vessel servers' event loop. Driven over the IPC channel; never run on its own.
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { api, BenchCdp, closeClients, serveParent } from "./support.ts";
import { buildSite, selfSigned } from "./policy-site.ts";

export type Scheme = "http" | "https";

export interface PolicyOps {
  /** Starts the fixture site; the page's URL per scheme (https only when openssl is there). */
  init: { args: { host: string }; result: { urls: Partial<Record<Scheme, string>>; bytes: number; resources: number; httpsSkipped?: string } };
  createSession: { args: { baseUrl: string; key: string }; result: { id: string; connectUrl: string } };
  releaseSession: { args: { baseUrl: string; key: string; id: string }; result: null };
  /**
   * A raw CDP client on a session's connect_url, attached (flat) to its first page, with Page and
   * Network enabled, the cache disabled and certificate errors ignored (the HTTPS fixture is self-signed).
   */
  cdpOpen: { args: { name: string; url: string }; result: null };
  /** n sequential Runtime.evaluate("1+1"); each round trip in ms. */
  cdpSeq: { args: { name: string; n: number }; result: number[] };
  /** n Runtime.evaluate("1+1") sent at once; ms until the last answer. */
  cdpPipe: { args: { name: string; n: number }; result: number };
  /**
   * n loads of the fixture page (Page.navigate → Page.loadEventFired), each checked: every resource
   * finished, none failed. Each load's time in ms.
   */
  pageLoads: { args: { name: string; scheme: Scheme; n: number }; result: number[] };
  cdpClose: { args: { name?: string }; result: null };
  shutdown: { args: Record<string, never>; result: null };
}
export type PolicyOpName = keyof PolicyOps;
export interface PolicyRequestMsg {
  id: number;
  op: PolicyOpName;
  args: unknown;
}
export type PolicyReplyMsg = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

const site = buildSite();
const siteBytes = [...site.values()].reduce((n, r) => n + r.body.length, 0);

function serve(req: http.IncomingMessage, res: http.ServerResponse): void {
  const resource = site.get(new URL(req.url ?? "/", "http://x").pathname);
  if (!resource) {
    res.writeHead(404, { "content-length": 0, "cache-control": "no-store" }).end();
    return;
  }
  res.writeHead(200, { "content-type": resource.type, "content-length": resource.body.length, "cache-control": "no-store" });
  res.end(req.method === "HEAD" ? undefined : resource.body);
}

// ---------------------------------------------------------------------------------------------

const dataRoot = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-bench-policy-"));
const servers: http.Server[] = [];
const urls: Partial<Record<Scheme, string>> = {};
const clients = new Map<string, BenchCdp>();
const client = (name: string) => {
  const cdp = clients.get(name);
  if (!cdp) throw new Error(`no CDP client ${name}`);
  return cdp;
};

async function listen(server: http.Server, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, resolve);
  });
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

/** One load: navigate, wait for the load event, and check what the network did. */
async function loadOnce(cdp: BenchCdp, url: string): Promise<number> {
  const requests = new Set<string>();
  let finished = 0;
  const failed: string[] = [];
  let loaded!: () => void;
  const loadFired = new Promise<void>((resolve) => (loaded = resolve));
  cdp.onEvent = (e) => {
    if (e.sessionId !== cdp.sessionId) return;
    if (e.method === "Network.requestWillBeSent") requests.add(e.params.requestId as string);
    else if (e.method === "Network.loadingFinished" && requests.has(e.params.requestId as string)) finished++;
    else if (e.method === "Network.loadingFailed") failed.push(String(e.params.errorText));
    else if (e.method === "Page.loadEventFired") loaded();
  };
  const start = performance.now();
  const nav = await cdp.send<{ errorText?: string }>("Page.navigate", { url }, cdp.sessionId);
  if (nav.errorText) throw new Error(`navigate ${url}: ${nav.errorText}`);
  await Promise.race([loadFired, new Promise((_, reject) => setTimeout(() => reject(new Error(`no load event for ${url} within 30 s`)), 30_000).unref())]);
  const ms = performance.now() - start;
  cdp.onEvent = undefined;
  if (failed.length > 0) throw new Error(`loading ${url}: ${failed.length} requests failed (${failed.slice(0, 3).join(", ")})`);
  // The load event waits for every subresource, but loadingFinished may trail it by a message.
  if (finished < site.size) {
    const deadline = Date.now() + 2_000;
    cdp.onEvent = (e) => {
      if (e.sessionId === cdp.sessionId && e.method === "Network.loadingFinished" && requests.has(e.params.requestId as string)) finished++;
    };
    while (finished < site.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    cdp.onEvent = undefined;
    if (finished < site.size) throw new Error(`loading ${url}: ${finished} of ${site.size} resources finished`);
  }
  return ms;
}

let loadCounter = 0;

const handlers: { [K in PolicyOpName]: (args: PolicyOps[K]["args"]) => Promise<PolicyOps[K]["result"]> } = {
  async init({ host }) {
    const hostInUrl = host.includes(":") ? `[${host}]` : host;
    urls.http = `http://${hostInUrl}:${await listen(http.createServer(serve), host)}/`;
    const tls = selfSigned(dataRoot, host);
    if (typeof tls !== "string") urls.https = `https://${hostInUrl}:${await listen(https.createServer(tls, serve), host)}/`;
    return { urls, bytes: siteBytes, resources: site.size, ...(typeof tls === "string" ? { httpsSkipped: tls } : {}) };
  },

  async createSession({ baseUrl, key }) {
    const s = (await api("POST", `${baseUrl}/v1/sessions`, key, 201, { region: "us-east1" })) as { id: string; status: string; connect_url: string | null };
    if (s.status !== "RUNNING" || !s.connect_url) throw new Error(`session ${s.id} is ${s.status} without connect_url`);
    return { id: s.id, connectUrl: s.connect_url };
  },

  async releaseSession({ baseUrl, key, id }) {
    await api("PATCH", `${baseUrl}/v1/sessions/${id}`, key, 204, { status: "REQUEST_RELEASE" });
    return null;
  },

  async cdpOpen({ name, url }) {
    if (clients.has(name)) throw new Error(`CDP client ${name} is already open`);
    const cdp = await BenchCdp.open(url);
    clients.set(name, cdp);
    // Self-signed HTTPS fixture: accepted by both sides alike (a browser-wide setting).
    await cdp.send("Security.setIgnoreCertificateErrors", { ignore: true });
    const { targetInfos } = await cdp.send<{ targetInfos: Array<{ targetId: string; type: string }> }>("Target.getTargets");
    let targetId = targetInfos.find((t) => t.type === "page")?.targetId;
    targetId ??= (await cdp.send<{ targetId: string }>("Target.createTarget", { url: "about:blank" })).targetId;
    cdp.sessionId = (await cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true })).sessionId;
    await cdp.send("Page.enable", {}, cdp.sessionId);
    await cdp.send("Network.enable", {}, cdp.sessionId);
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true }, cdp.sessionId);
    const check = await cdp.send<{ result: { value: unknown } }>("Runtime.evaluate", { expression: "1+1" }, cdp.sessionId);
    if (check.result.value !== 2) throw new Error(`Runtime.evaluate("1+1") gave ${JSON.stringify(check.result)}`);
    return null;
  },

  async cdpSeq({ name, n }) {
    const cdp = client(name);
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await cdp.send("Runtime.evaluate", { expression: "1+1" }, cdp.sessionId);
      out.push(performance.now() - t);
    }
    return out;
  },

  async cdpPipe({ name, n }) {
    const cdp = client(name);
    const t = performance.now();
    const all: Promise<unknown>[] = [];
    for (let i = 0; i < n; i++) all.push(cdp.send("Runtime.evaluate", { expression: "1+1" }, cdp.sessionId));
    await Promise.all(all);
    return performance.now() - t;
  },

  async pageLoads({ name, scheme, n }) {
    const cdp = client(name);
    const base = urls[scheme];
    if (!base) throw new Error(`no ${scheme} fixture`);
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(await loadOnce(cdp, `${base}?load=${loadCounter++}`));
    // The last load checked once more in the page itself: scripts ran, images decoded.
    const probe = await cdp.send<{ result: { value: unknown } }>(
      "Runtime.evaluate",
      { expression: "[window.vendorReady > 0, window.appReady > 0, [...document.images].every((i) => i.complete && i.naturalWidth === 160)].join()" },
      cdp.sessionId,
    );
    if (probe.result.value !== "true,true,true") throw new Error(`the ${scheme} page did not load fully: ${JSON.stringify(probe.result)}`);
    return out;
  },

  async cdpClose({ name }) {
    await closeClients(clients, name);
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
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
  servers.length = 0;
  fs.rmSync(dataRoot, { recursive: true, force: true });
}

if (!process.send) throw new Error("bench/sessions-policy-client.ts is forked by bench/sessions-policy.ts; run that instead");
serveParent(handlers, cleanup);

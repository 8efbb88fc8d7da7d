import http from "node:http";
import type net from "node:net";
import { Writable } from "node:stream";
import { createClient, type Client } from "graphql-ws";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { runCli } from "@vessel/client/cli";
import { Vessel, type SessionLogEntry } from "@vessel/client";
import { openEntry, unwrapLogKey } from "../../src/crypto/session-log-crypto.ts";
import { createLogger } from "../../src/logger.ts";
import { endSession } from "../../src/services/sessions/sessions.ts";
import { bearer, seedUser, seedWorkspace, startTestApp, userAuth, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, eventually, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

/**
 * Issue 20, point 1 and its acceptance: a session's console messages, uncaught errors, navigations,
 * network requests and CDP methods, captured by the node, read back in order through REST, GraphQL,
 * the client library and the CLI; nothing secret in them anywhere; bounded; off when asked; another
 * workspace's are 404; deleted after their retention.
 */

type Entry = { seq: number; type: string; at: string } & Record<string, unknown>;
/** Every type: a read that names none leaves out `cdp` (issue 45). */
const ALL = "type=console,page_error,navigation,network,cdp";
interface LogList {
  items: Entry[];
  next_cursor: string | null;
  has_more: boolean;
}

// Planted secrets: none may appear in any answer, the server's log or the database.
const SECRETS = {
  query: "qtok-4f1c9a",
  password: "qpw-77e2b1",
  authorization: "authz-93ad5e",
  extraHeader: "xhdr-0b6d2f",
  setCookie: "setck-5e81c4",
  cookie: "docck-c2a9f7",
  puppeteerCookie: "ppck-18be3d",
  pageText: "stays-in-page-6a1d",
};

const PAGE_A = `<!doctype html><title>a</title><script>
console.log("hello from a", { n: 1 });
document.cookie = "pref=${SECRETS.cookie}; path=/";
(async () => {
  const r = await fetch("/missing?token=${SECRETS.query}&password=${SECRETS.password}&page=2", { headers: { Authorization: "Bearer ${SECRETS.authorization}" } });
  await r.text();
  window.__fetched = r.status;
  setTimeout(() => { window.__thrown = true; throw new Error("boom from a"); }, 150);
})();
</script>`;

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)));
}

describe.skipIf(!hasChromium)("session logs", () => {
  let t: TestApp;
  let ws: Seeded;
  let site: http.Server;
  let siteUrl: string;
  const serverLog: string[] = [];
  const browsers: Browser[] = [];

  beforeAll(async () => {
    site = http.createServer((req, res) => {
      const route = (req.url ?? "/").split("?")[0];
      if (route === "/a") {
        res.writeHead(200, { "content-type": "text/html", "set-cookie": `sid=${SECRETS.setCookie}; Path=/` });
        return void res.end(PAGE_A);
      }
      if (route === "/b") return void res.writeHead(200, { "content-type": "text/html" }).end("<title>b</title><p>b</p>");
      if (route === "/noisy") {
        return void res
          .writeHead(200, { "content-type": "text/html" })
          .end("<script>for (let i = 0; i < 300; i++) console.log('line ' + i); window.__done = true;</script>");
      }
      if (route === "/quiet") return void res.writeHead(200, { "content-type": "text/html" }).end("<p>quiet</p>");
      res.writeHead(404, { "content-type": "text/plain" }).end("not here");
    });
    siteUrl = `http://127.0.0.1:${await listen(site)}`;
    const sink = new Writable({ write: (chunk, _enc, done) => (serverLog.push(String(chunk)), done()) });
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "3", LOG_LEVEL: "debug" }, log: createLogger("debug", sink) });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => {
    await t?.stop();
    site?.close();
  });
  afterEach(async () => {
    for (const b of browsers.splice(0)) await b.disconnect().catch(() => {});
    const live = await t.app.deps.db.prisma.session.findMany({ where: { status: "RUNNING" }, select: { id: true } });
    for (const { id } of live) await endSession(t.app.deps, id, { status: "RELEASED", reason: "CLIENT_RELEASE" });
  });

  async function started(body: Record<string, unknown> = {}): Promise<{ id: string; browser: Browser }> {
    const { res, body: session } = await createSession(t, ws.key, { region: "us-east1", ...body });
    expect(res.status, JSON.stringify(session)).toBe(201);
    const browser = await puppeteer.connect({ browserWSEndpoint: session.connect_url!, defaultViewport: null });
    browsers.push(browser);
    return { id: session.id, browser };
  }

  async function logs(id: string, query = "", key = ws.key): Promise<{ status: number; body: LogList }> {
    const res = await fetch(`${t.url}/v1/sessions/${id}/logs${query}`, { headers: bearer(key) });
    return { status: res.status, body: (await res.json()) as LogList };
  }

  /** The scripted visit of the acceptance: console, a 404 fetch, an uncaught error, two navigations. */
  async function visit(browser: Browser): Promise<void> {
    const page = await browser.newPage();
    await page.setExtraHTTPHeaders({ "x-api-key": SECRETS.extraHeader });
    await page.setCookie({ name: "pc", value: SECRETS.puppeteerCookie, url: siteUrl });
    await page.goto(`${siteUrl}/a?token=${SECRETS.query}&password=${SECRETS.password}&ok=1`);
    await page.waitForFunction(() => (window as unknown as { __thrown?: boolean }).__thrown === true);
    await new Promise((r) => setTimeout(r, 100));
    await page.goto(`${siteUrl}/b`);
    await expect(page.goto("file:///etc/passwd")).rejects.toThrow(/Vessel policy/);
  }

  it("holds the console message, the 404, the uncaught error and both navigations in order, with their fields, and the CDP methods sent", async () => {
    const { id, browser } = await started();
    await visit(browser);
    await browser.disconnect();
    expect((await releaseSession(t, ws.key, id)).status).toBe(204);

    const { status, body } = await logs(id, `?limit=1000&${ALL}`);
    expect(status).toBe(200);
    expect(body.has_more).toBe(false);
    const items = body.items;
    expect(items.map((e) => e.seq)).toEqual(items.map((_, i) => i + 1));
    const times = items.map((e) => Date.parse(e.at));
    expect(times.every((n) => Number.isFinite(n))).toBe(true);

    const index = (pred: (e: Entry) => boolean, what: string) => {
      const i = items.findIndex(pred);
      expect(i, `${what} in ${JSON.stringify(items.map((e) => [e.type, e.url ?? e.text ?? e.method ?? e.message]))}`).toBeGreaterThanOrEqual(0);
      return i;
    };
    const navA = index((e) => e.type === "navigation" && String(e.url).includes("/a?"), "navigation to a");
    const hello = index((e) => e.type === "console" && e.text === "hello from a {n: 1}", "console message");
    const missing = index((e) => e.type === "network" && String(e.url).includes("/missing"), "the 404");
    const boom = index((e) => e.type === "page_error", "uncaught error");
    const navB = index((e) => e.type === "navigation" && String(e.url).endsWith("/b"), "navigation to b");
    expect([navA, hello, missing, boom, navB]).toEqual([...[navA, hello, missing, boom, navB]].sort((x, y) => x - y));

    const pageA = `${siteUrl}/a?token=[redacted]&password=[redacted]&ok=1`;
    expect(items[navA]).toMatchObject({ frame_id: expect.any(String), main_frame: true, same_document: false, url: pageA });
    expect(items[hello]).toMatchObject({ level: "log", source_url: pageA, line: expect.any(Number), column: expect.any(Number), page_url: pageA });
    expect(items[missing]).toMatchObject({
      method: "GET",
      url: `${siteUrl}/missing?token=[redacted]&password=[redacted]&page=2`,
      resource_type: "fetch",
      status: 404,
      status_text: "Not Found",
      mime_type: "text/plain",
      failure: null,
      from_cache: false,
      request_bytes: 0,
      page_url: pageA,
    });
    expect(items[missing]!.response_bytes).toBeGreaterThan(0);
    expect(items[missing]!.duration_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(String(items[missing]!.started_at))).toBeLessThanOrEqual(Date.parse(items[missing]!.at));
    expect(items[boom]).toMatchObject({ message: "Error: boom from a", source_url: pageA, page_url: pageA });
    expect(String(items[boom]!.stack)).toContain("boom from a");
    expect(items[navB]).toMatchObject({ main_frame: true, same_document: false, url: `${siteUrl}/b` });
    // The documents themselves, one entry per finished request.
    expect(items.some((e) => e.type === "network" && e.url === `${siteUrl}/b` && e.status === 200 && e.resource_type === "document")).toBe(true);

    const cdp = items.filter((e) => e.type === "cdp");
    const methods = cdp.map((e) => e.method);
    for (const m of ["Target.setAutoAttach", "Target.createTarget", "Network.setExtraHTTPHeaders", "Page.navigate", "Runtime.callFunctionOn"])
      expect(methods).toContain(m);
    for (const e of cdp) {
      const keys = e.refused
        ? ["at", "duration_ms", "method", "refused", "seq", "type"]
        : e.count
          ? ["at", "count", "duration_ms", "max_ms", "method", "seq", "total_ms", "type"]
          : ["at", "duration_ms", "method", "seq", "type"];
      expect(Object.keys(e).sort()).toEqual(keys);
    }
    const navigate = cdp.find((e) => e.method === "Page.navigate" && !e.refused)!;
    expect(navigate.duration_ms).toBeGreaterThan(0);
    expect(cdp.filter((e) => e.refused).map((e) => e.method)).toEqual(["Page.navigate"]);

    // Filters: by type (logs.truncated would come too), and reading on with the cursor or a seq.
    const consoleOnly = await logs(id, "?type=console,page_error");
    expect(new Set(consoleOnly.body.items.map((e) => e.type))).toEqual(new Set(["console", "page_error"]));
    const first = await logs(id, `?limit=3&${ALL}`);
    expect(first.body.items.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(first.body.has_more).toBe(true);
    const next = await logs(id, `?limit=3&cursor=${first.body.next_cursor}&${ALL}`);
    expect(next.body.items.map((e) => e.seq)).toEqual([4, 5, 6]);
    expect((await logs(id, `?after=5&limit=1&${ALL}`)).body.items.map((e) => e.seq)).toEqual([6]);
    const end = await logs(id, `?cursor=${(await logs(id, `?after=0&limit=1000&${ALL}`)).body.next_cursor}&wait=5`);
    expect(end.body).toMatchObject({ items: [], has_more: false });
    for (const q of ["?type=nope", "?wait=31", "?after=-1", "?cursor=abc", "?limit=0", "?limit=1001"]) expect((await logs(id, q)).status, q).toBe(400);

    // Every read is audited.
    await t.app.deps.audit.flush();
    const audited = await t.app.deps.db.prisma.auditEntry.count({ where: { action: "session.logs.read", target: id } });
    expect(audited).toBeGreaterThanOrEqual(5);
  });

  it("never keeps a credential header, a cookie or a credential query value: not in the answers, the server's log, or the database", async () => {
    const { id, browser } = await started();
    await visit(browser);
    const page = (await browser.pages()).at(-1)!;
    await page.evaluate((s) => localStorage.setItem("k", s), SECRETS.pageText);
    await browser.disconnect();
    await releaseSession(t, ws.key, id);

    const rest = JSON.stringify((await logs(id, `?limit=1000&${ALL}`)).body);
    expect(rest).toContain("[redacted]");
    const gql = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({ query: `query ($id: String!) { sessionLogs(id: $id, first: 1000) { items { seq type at data } } }`, variables: { id } }),
    });
    const gqlText = await gql.text();
    expect(gqlText).toContain("[redacted]");

    const sealed = await t.app.deps.db.prisma.sessionLogEntry.findMany({ where: { sessionId: id }, orderBy: { seq: "asc" } });
    expect(sealed.length).toBeGreaterThan(10);
    const keyRow = await t.app.deps.db.prisma.sessionLogKey.findUniqueOrThrow({ where: { sessionId: id } });
    const raw = Buffer.concat([...sealed.map((r) => Buffer.from(r.data)), Buffer.from(keyRow.wrappedKey)]);
    // Sealed: not even the page's own words are in the clear.
    expect(raw.includes("hello from a")).toBe(false);
    const dataKey = unwrapLogKey(t.app.deps.masterKey, id, keyRow.wrappedKey);
    const opened = sealed.map((r) => openEntry(dataKey, id, r.seq, r.data)).join("\n");
    expect(opened).toContain("hello from a");
    // An entry moved to another seq does not open.
    expect(() => openEntry(dataKey, id, sealed[1]!.seq, sealed[0]!.data)).toThrow();

    const everything = { rest, gql: gqlText, log: serverLog.join(""), raw: raw.toString("latin1"), opened };
    for (const [where, text] of Object.entries(everything)) {
      for (const [name, secret] of Object.entries(SECRETS)) expect(text.includes(secret), `${name} in ${where}`).toBe(false);
    }
  });

  it("stops at its bounds with one logs.truncated entry, and keeps nothing with logs: false", async () => {
    const bounded = await startTestApp({ env: { VESSEL_LOGS_MAX_ENTRIES: "100" } });
    try {
      const seeded = await seedWorkspace(bounded);
      const { body: s } = await createSession(bounded, seeded.key);
      const browser = await puppeteer.connect({ browserWSEndpoint: s.connect_url! });
      const page = await browser.newPage();
      await page.goto(`${siteUrl}/noisy`);
      await page.waitForFunction(() => (window as unknown as { __done?: boolean }).__done === true);
      await browser.disconnect();
      await releaseSession(bounded, seeded.key, s.id);
      const res = await fetch(`${bounded.url}/v1/sessions/${s.id}/logs?limit=1000&${ALL}`, { headers: bearer(seeded.key) });
      const { items } = (await res.json()) as LogList;
      expect(items).toHaveLength(100);
      expect(items.at(-1)).toMatchObject({ seq: 100, type: "logs.truncated", reason: "max_entries", max_entries: 100 });
      expect(items.filter((e) => e.type === "logs.truncated")).toHaveLength(1);
      const filtered = (await (await fetch(`${bounded.url}/v1/sessions/${s.id}/logs?type=navigation`, { headers: bearer(seeded.key) })).json()) as LogList;
      expect(filtered.items.at(-1)?.type).toBe("logs.truncated");
      expect(await bounded.app.deps.db.prisma.sessionLogKey.findUniqueOrThrow({ where: { sessionId: s.id } })).toMatchObject({ entries: 100, truncated: true });
      expect(await bounded.app.deps.db.prisma.sessionLogEntry.count({ where: { sessionId: s.id } })).toBe(100);
    } finally {
      await bounded.stop();
    }

    const { id, browser } = await started({ logs: false });
    const page = await browser.newPage();
    await page.goto(`${siteUrl}/noisy`);
    await browser.disconnect();
    const waited = Date.now();
    expect((await logs(id, "?wait=10")).body).toEqual({ items: [], next_cursor: null, has_more: false });
    expect(Date.now() - waited).toBeLessThan(3_000);
    await releaseSession(t, ws.key, id);
    expect((await logs(id)).body.items).toEqual([]);
    expect(await t.app.deps.db.prisma.sessionLogKey.count({ where: { sessionId: id } })).toBe(0);
    expect(await t.app.deps.db.prisma.sessionLogEntry.count({ where: { sessionId: id } })).toBe(0);
  });

  it("answers another workspace 404 (REST and GraphQL) and its members 200; the retention job deletes the logs", async () => {
    const { id, browser } = await started();
    await (await browser.newPage()).goto(`${siteUrl}/quiet`);
    await browser.disconnect();
    await releaseSession(t, ws.key, id);
    expect((await logs(id)).body.items.length).toBeGreaterThan(0);

    const other = await seedWorkspace(t);
    expect((await logs(id, "", other.key)).status).toBe(404);
    const gql = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...bearer(other.key), "content-type": "application/json" },
      body: JSON.stringify({ query: `{ sessionLogs(id: "${id}") { items { seq } } }` }),
    });
    expect(JSON.stringify(await gql.json())).toContain("NOT_FOUND");
    const member = await seedUser(t, ws.workspace.id, "MEMBER");
    const outsider = await seedUser(t, other.workspace.id, "OWNER");
    expect((await fetch(`${t.url}/v1/sessions/${id}/logs`, { headers: userAuth(member) })).status).toBe(200);
    expect((await fetch(`${t.url}/v1/sessions/${id}/logs`, { headers: userAuth(outsider) })).status).toBe(404);

    // Not expired yet: the job leaves it. Then its time is up (the key row says when).
    await t.app.jobs.runNow("purge-expired-session-logs");
    expect(await t.app.deps.db.prisma.sessionLogKey.count({ where: { sessionId: id } })).toBe(1);
    await t.app.deps.db.prisma.sessionLogKey.update({ where: { sessionId: id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await t.app.jobs.runNow("purge-expired-session-logs");
    expect(await t.app.deps.db.prisma.sessionLogKey.count({ where: { sessionId: id } })).toBe(0);
    expect(await t.app.deps.db.prisma.sessionLogEntry.count({ where: { sessionId: id } })).toBe(0);
    expect((await logs(id)).body.items).toEqual([]);
  });

  it("a long poll is answered by the entry it waits for; the GraphQL subscription streams the log and completes after the last entry", async () => {
    const { id, browser } = await started();
    const page = await browser.newPage();
    await page.goto(`${siteUrl}/quiet`);
    const before = await eventually(
      () => logs(id, "?type=console"),
      () => true,
    );
    const waiting = logs(id, `?type=console&wait=30${before.body.next_cursor ? `&cursor=${before.body.next_cursor}` : ""}`);
    await new Promise((r) => setTimeout(r, 300));
    const asked = Date.now();
    await page.evaluate(() => console.info("wake up"));
    const woken = await waiting;
    expect(woken.body.items.map((e) => [e.type, e.text, e.level])).toEqual([["console", "wake up", "info"]]);
    expect(Date.now() - asked).toBeLessThan(5_000);

    const client: Client = createClient({
      url: `${t.url.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: bearer(ws.key),
      lazy: true,
    });
    try {
      const received: Array<{ seq: number; type: string; data: string }> = [];
      const errors: unknown[] = [];
      const done = new Promise<void>((resolve) => {
        client.subscribe<{ sessionLogs: { seq: number; type: string; data: string } }>(
          { query: `subscription ($id: String!) { sessionLogs(id: $id) { seq type at data } }`, variables: { id } },
          {
            next: (v) => (v.errors ? errors.push(...v.errors) : v.data && received.push(v.data.sessionLogs)),
            error: (e) => (errors.push(e), resolve()),
            complete: () => resolve(),
          },
        );
      });
      await eventually(
        async () => received.length,
        (n) => n > 0,
      );
      await page.evaluate(() => console.warn("while subscribed"));
      await eventually(
        async () => received.some((e) => e.data.includes("while subscribed")),
        (found) => found,
      );
      await browser.disconnect();
      await releaseSession(t, ws.key, id);
      await done;
      expect(errors).toEqual([]);
      // Both without types: the same default (every type but cdp).
      const all = (await logs(id, "?limit=1000")).body.items;
      expect(received.map((e) => e.seq)).toEqual(all.map((e) => e.seq));
      expect(JSON.parse(received.find((e) => e.type === "console" && e.data.includes("while subscribed"))!.data)).toMatchObject({
        level: "warning",
        text: "while subscribed",
      });
    } finally {
      await client.dispose();
    }
  });

  it("the client library follows a session's log to its end, and the CLI prints it", async () => {
    const { id, browser } = await started();
    const vessel = new Vessel({ apiKey: ws.key, baseUrl: t.url });
    const followed: SessionLogEntry[] = [];
    const following = (async () => {
      for await (const e of vessel.sessions.logs(id, { follow: true, types: ["console", "navigation"] })) followed.push(e);
    })();
    const page = await browser.newPage();
    await page.goto(`${siteUrl}/quiet`);
    await page.evaluate(() => console.log("from the library"));
    await eventually(
      async () => followed.length,
      (n) => n >= 2,
    );
    await browser.disconnect();
    await releaseSession(t, ws.key, id);
    await following;
    expect(new Set(followed.map((e) => e.type))).toEqual(new Set(["console", "navigation"]));
    expect(followed.some((e) => e.type === "console" && e.text === "from the library")).toBe(true);

    const out: string[] = [];
    const io = {
      out: (s: string) => out.push(s),
      err: (s: string) => out.push(`ERR ${s}`),
      interactive: false,
      env: { VESSEL_API_KEY: ws.key, VESSEL_BASE_URL: t.url },
    };
    expect(await runCli(["sessions", "logs", id, "--type", "console"], io)).toBe(0);
    expect(out.join("\n")).toMatch(/console\s+\[log\] from the library/);
    out.length = 0;
    expect(await runCli(["sessions", "logs", id, "--json", "--follow", "--type", "console,page_error,navigation,network,cdp"], io)).toBe(0);
    const lines = out.map((l) => JSON.parse(l) as Entry);
    expect(lines.map((e) => e.seq)).toEqual(lines.map((_, i) => i + 1));
    expect(lines.some((e) => e.type === "cdp")).toBe(true);
  });
});

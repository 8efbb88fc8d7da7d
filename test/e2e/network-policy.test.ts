import http from "node:http";
import type { AddressInfo } from "node:net";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, eventually, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const executablePath = chromiumPath();
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

/** A service worker that fetches what it is sent and answers whether it got it. */
const serviceWorker = `self.addEventListener("message", (e) => {
  e.waitUntil(fetch(e.data).then((r) => r.ok, () => false).then((ok) => e.source.postMessage(ok)));
});`;

/** A page's service worker (registered on the first site, a secure context as localhost) fetches `url`: did it get it? */
async function serviceWorkerFetch(page: Page, url: string): Promise<boolean> {
  return page.evaluate(async (u: string) => {
    await navigator.serviceWorker.register("/sw.js");
    const registration = await navigator.serviceWorker.ready;
    return new Promise<boolean>((resolve) => {
      navigator.serviceWorker.addEventListener("message", (e) => resolve(e.data as boolean), { once: true });
      registration.active!.postMessage(u);
    });
  }, url);
}

/** A fixture site: a page, JSON (CORS-open), an image and a WebSocket that greets. */
async function site(): Promise<{ port: number; close(): Promise<void> }> {
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><rect width="1" height="1"/></svg>';
  const server = http.createServer((req, res) => {
    res.setHeader("access-control-allow-origin", "*");
    if (req.url?.startsWith("/data")) return res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    if (req.url === "/sw.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(serviceWorker);
    if (req.url?.startsWith("/pixel.svg")) return res.writeHead(200, { "content-type": "image/svg+xml" }).end(svg);
    res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>fixture</title><p>fixture</p>");
  });
  const wss = new WebSocketServer({ server });
  wss.on("connection", (socket) => socket.send("hello"));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

interface Reach {
  fetch: boolean;
  image: boolean;
  socket: boolean;
  navigation: boolean;
}

/** What a page (opened on `from`) reaches of `origin`: a fetch, an image, a WebSocket, and a navigation in a new tab. */
async function reach(browser: Browser, page: Page, origin: string): Promise<Reach> {
  const inPage = await page.evaluate(async (o: string) => {
    const fetched = await fetch(`${o}/data`).then(
      (r) => r.ok,
      () => false,
    );
    const image = await new Promise<boolean>((resolve) => {
      const img = new Image();
      img.onload = () => resolve(true);
      img.onerror = () => resolve(false);
      img.src = `${o}/pixel.svg?${Math.random()}`;
    });
    const socket = await new Promise<boolean>((resolve) => {
      const ws = new WebSocket(`${o.replace(/^http/, "ws")}/ws`);
      ws.onmessage = () => {
        resolve(true);
        ws.close();
      };
      ws.onerror = () => resolve(false);
    });
    return { fetch: fetched, image, socket };
  }, origin);
  const tab = await browser.newPage();
  const navigation = await tab.goto(`${origin}/page`).then(
    (r) => r?.ok() ?? false,
    () => false,
  );
  await tab.close();
  return { ...inPage, navigation };
}

const all = (v: boolean): Reach => ({ fetch: v, image: v, socket: v, navigation: v });

interface NetworkEntry {
  url: string | null;
  failure: string | null;
  rule?: string;
  rule_list?: string;
  policy?: string;
  resource_type: string | null;
}

describe.skipIf(!executablePath)("network rules per workspace and session (issue 47)", () => {
  let t: TestApp;
  let narrow: Seeded;
  let open: Seeded;
  let first: { port: number; close(): Promise<void> };
  let second: { port: number; close(): Promise<void> };
  let firstOrigin = "";
  let secondOrigin = "";
  const opened: Array<{ key: string; id: string; browser: Browser }> = [];

  const put = (key: string, body: unknown) =>
    fetch(`${t.url}/v1/workspace/network-policy`, {
      method: "PUT",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  async function session(key: string, body: Record<string, unknown> = {}): Promise<{ id: string; browser: Browser; page: Page }> {
    const { res, body: s } = await createSession(t, key, { region: "us-east1", logs: true, ...body });
    expect(res.status, JSON.stringify(s)).toBe(201);
    const browser = await puppeteer.connect({ browserWSEndpoint: s.connect_url!, defaultViewport: null });
    opened.push({ key, id: s.id, browser });
    const page = await browser.newPage();
    await page.goto(`${firstOrigin}/page`);
    return { id: s.id, browser, page };
  }

  const networkLog = async (key: string, id: string): Promise<NetworkEntry[]> =>
    ((await (await fetch(`${t.url}/v1/sessions/${id}/logs?type=network&limit=1000`, { headers: bearer(key) })).json()) as { items: NetworkEntry[] }).items;

  /** Every kind of request to the second site is in the log, refused by `policy`'s rule naming the first site. */
  async function refusalsLogged(key: string, id: string, policy: string): Promise<void> {
    const entries = await eventually(
      () => networkLog(key, id),
      (items) => {
        const refused = items.filter((e) => e.failure === "blocked-by-policy" && e.url?.includes(`127.0.0.1:${second.port}`));
        return ["/data", "/pixel.svg", "/page", "/ws"].every((p) => refused.some((e) => e.url!.includes(p)));
      },
      15_000,
    );
    for (const e of entries.filter((x) => x.failure === "blocked-by-policy")) {
      expect(e).toMatchObject({ rule: `localhost:${first.port}`, rule_list: "allow", policy });
    }
    // The first site's requests were not refused.
    expect(entries.some((e) => e.url?.includes(`localhost:${first.port}`) && e.failure === null)).toBe(true);
  }

  beforeAll(async () => {
    [first, second] = await Promise.all([site(), site()]);
    firstOrigin = `http://localhost:${first.port}`;
    secondOrigin = `http://127.0.0.1:${second.port}`;
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "4" } });
    [narrow, open] = await Promise.all([seedWorkspace(t), seedWorkspace(t)]);
  }, 60_000);
  afterEach(async () => {
    for (const o of opened.splice(0)) {
      await o.browser.disconnect();
      await releaseSession(t, o.key, o.id).catch(() => undefined);
    }
  });
  afterAll(async () => {
    await t?.stop();
    await Promise.all([first?.close(), second?.close()]);
  });

  it("sets, normalises and reads back a workspace's rules, and refuses a bad one naming it (422), changing nothing", async () => {
    const empty = await fetch(`${t.url}/v1/workspace/network-policy`, { headers: bearer(narrow.key) });
    expect(await empty.json()).toEqual({ allow: [], deny: [], updated_at: null });
    // A NUL is refused at the edge, as in any text (400).
    expect((await put(narrow.key, { allow: ["a\u0000b.com"] })).status).toBe(400);
    for (const [rule, list] of [
      ["evil\u202ecom.example", "allow"],
      ["*", "allow"],
      ["10.0.0.0/40", "deny"],
      ["x".repeat(300), "deny"],
    ] as const) {
      const res = await put(narrow.key, { allow: list === "allow" ? ["ok.example", rule] : [], deny: list === "deny" ? [rule] : [] });
      expect(res.status, rule.slice(0, 20)).toBe(422);
      const problem = (await res.json()) as { type: string; list: string; index: number; detail: string };
      expect(problem.type).toMatch(/\/errors\/invalid-network-rule$/);
      expect(problem).toMatchObject({ list, index: list === "allow" ? 1 : 0 });
    }
    expect((await put(narrow.key, { allow: Array.from({ length: 101 }, (_, i) => `h${i}.example`) })).status).toBe(400);
    expect((await put(narrow.key, { allow: [], deny: [], extra: 1 })).status).toBe(400);
    expect(await (await fetch(`${t.url}/v1/workspace/network-policy`, { headers: bearer(narrow.key) })).json()).toMatchObject({ allow: [], deny: [] });

    const set = await put(narrow.key, { allow: [`LOCALHOST:${first.port}`] });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ allow: [`localhost:${first.port}`], deny: [] });
    const read = (await (await fetch(`${t.url}/v1/workspace/network-policy`, { headers: bearer(narrow.key) })).json()) as {
      allow: string[];
      updated_at: string;
    };
    expect(read.allow).toEqual([`localhost:${first.port}`]);
    expect(Date.parse(read.updated_at)).not.toBeNaN();
    // GraphQL: the same operations (the open workspace's rules set and removed again).
    const gql = async (query: string) =>
      (await (
        await fetch(`${t.url}/graphql`, {
          method: "POST",
          headers: { ...bearer(open.key), "content-type": "application/json" },
          body: JSON.stringify({ query }),
        })
      ).json()) as { data?: Record<string, { allow: string[]; deny: string[] }>; errors?: Array<{ extensions: { code: string } }> };
    expect((await gql('mutation { setNetworkPolicy(allow: [], deny: ["*.Admin.example"]) { allow deny } }')).data?.setNetworkPolicy).toEqual({
      allow: [],
      deny: ["*.admin.example"],
    });
    expect((await gql("{ networkPolicy { deny } }")).data?.networkPolicy).toEqual({ deny: ["*.admin.example"] });
    expect((await gql('mutation { setNetworkPolicy(allow: ["a b"], deny: []) { allow } }')).errors?.[0]?.extensions.code).toBe("INVALID_NETWORK_RULE");
    expect((await gql("mutation { setNetworkPolicy(allow: [], deny: []) { allow deny } }")).data?.setNetworkPolicy).toEqual({ allow: [], deny: [] });
    // Audited as the workspace's change.
    expect(
      await t.app.deps.db.prisma.auditEntry.count({ where: { workspaceId: narrow.workspace.id, action: "workspace.network_policy_update" } }),
    ).toBeGreaterThan(0);
  });

  it("refuses and logs a page's navigation, fetch, image and WebSocket to the second site in the narrowed workspace; another workspace reaches both", async () => {
    const s = await session(narrow.key);
    expect(await reach(s.browser, s.page, firstOrigin)).toEqual(all(true));
    expect(await reach(s.browser, s.page, secondOrigin)).toEqual(all(false));
    await refusalsLogged(narrow.key, s.id, "workspace");
    // A service worker's requests leave through the same listener.
    expect(await serviceWorkerFetch(s.page, `${firstOrigin}/data?sw`)).toBe(true);
    expect(await serviceWorkerFetch(s.page, `${secondOrigin}/data?sw`)).toBe(false);
    await eventually(
      () => networkLog(narrow.key, s.id),
      (items) => items.some((e) => e.url === `${secondOrigin}/data?sw` && e.failure === "blocked-by-policy"),
      15_000,
    );
    const events = (await (await fetch(`${t.url}/v1/sessions/${s.id}/events?types=egress.refused`, { headers: bearer(narrow.key) })).json()) as {
      items: Array<{ data: { reason: string; rule?: string } }>;
    };
    expect(events.items.some((e) => e.data.reason === "blocked-by-policy" && e.data.rule === `localhost:${first.port}`)).toBe(true);

    const other = await session(open.key);
    expect(await reach(other.browser, other.page, firstOrigin)).toEqual(all(true));
    expect(await reach(other.browser, other.page, secondOrigin)).toEqual(all(true));
  });

  it("a create narrowing to the first site works the same, and a bad rule of its own is refused (422) before anything starts", async () => {
    const bad = await createSession(t, open.key, { region: "us-east1", network_policy: { allow: ["exa mple.com"] } });
    expect(bad.res.status).toBe(422);
    expect((bad.body as unknown as { type: string }).type).toMatch(/\/errors\/invalid-network-rule$/);

    const s = await session(open.key, { network_policy: { allow: [`localhost:${first.port}`] } });
    expect(await reach(s.browser, s.page, firstOrigin)).toEqual(all(true));
    expect(await reach(s.browser, s.page, secondOrigin)).toEqual(all(false));
    await refusalsLogged(open.key, s.id, "session");
    const wire = (await (await fetch(`${t.url}/v1/sessions/${s.id}`, { headers: bearer(open.key) })).json()) as { network_policy?: unknown };
    expect(wire.network_policy).toEqual({ allow: [`localhost:${first.port}`], deny: [] });
  });

  it("applies a rule change to a running session within 5 s", async () => {
    const s = await session(narrow.key);
    expect((await reach(s.browser, s.page, secondOrigin)).fetch).toBe(false);
    expect((await put(narrow.key, { allow: [], deny: [] })).status).toBe(200);
    const opened = await eventually(
      async () => (await reach(s.browser, s.page, secondOrigin)).fetch,
      (ok) => ok,
      5_000,
    );
    expect(opened).toBe(true);
    expect((await put(narrow.key, { deny: [`127.0.0.1:${second.port}`] })).status).toBe(200);
    await eventually(
      async () => (await reach(s.browser, s.page, secondOrigin)).fetch,
      (ok) => !ok,
      5_000,
    );
    expect((await reach(s.browser, s.page, firstOrigin)).fetch).toBe(true);
  });

  it("holds a CIDR deny against a host name that resolves into it", async () => {
    // localhost resolves to 127.0.0.1: denying the range refuses the name, whatever the allow list says of it.
    expect((await put(narrow.key, { allow: [`localhost:${first.port}`], deny: ["127.0.0.0/8"] })).status).toBe(200);
    const { res, body } = await createSession(t, narrow.key, { region: "us-east1", logs: true });
    expect(res.status).toBe(201);
    const browser = await puppeteer.connect({ browserWSEndpoint: body.connect_url!, defaultViewport: null });
    opened.push({ key: narrow.key, id: body.id, browser });
    const page = await browser.newPage();
    await expect(page.goto(`${firstOrigin}/page`)).rejects.toThrow(/ERR_SOCKS_CONNECTION_FAILED/);
    const entries = await eventually(
      () => networkLog(narrow.key, body.id),
      (items) => items.some((e) => e.url?.includes(`localhost:${first.port}/page`) && e.failure === "blocked-by-policy"),
      15_000,
    );
    const refused = entries.find((e) => e.url?.includes(`localhost:${first.port}/page`) && e.failure === "blocked-by-policy")!;
    expect(refused).toMatchObject({ rule: "127.0.0.0/8", rule_list: "deny", policy: "workspace" });
  });
});

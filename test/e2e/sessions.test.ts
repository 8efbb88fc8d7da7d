import fs from "node:fs/promises";
import { SignJWT, decodeProtectedHeader } from "jose";
import CDP from "chrome-remote-interface";
import { chromium } from "playwright-core";
import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { alive, createSession, eventually, getSession, handshake, releaseSession, startPageServer } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

describe.skipIf(!hasChromium)("sessions with real Chromium through the running server", () => {
  let t: TestApp;
  let ws: Seeded;
  let page: Awaited<ReturnType<typeof startPageServer>>;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_WARM: "1", VESSEL_BROWSER_CAPACITY: "4" } });
    ws = await seedWorkspace(t);
    page = await startPageServer();
  });
  afterAll(async () => {
    await t?.stop();
    await page?.close();
  });

  it("puppeteer-core: create, connect, open a loopback page, evaluate, screenshot, release, refused after", async () => {
    const { res, body } = await createSession(t, ws.key);
    expect(res.status).toBe(201);
    expect(body.status).toBe("RUNNING");
    expect(body.connect_url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/cdp\?token=/);
    const browser = await puppeteer.connect({ browserWSEndpoint: body.connect_url! });
    const tab = await browser.newPage();
    await tab.goto(page.url);
    expect(await tab.$eval("#greeting", (el) => el.textContent)).toBe("hello from loopback");
    expect(await tab.evaluate(() => 6 * 7)).toBe(42);
    const png = await tab.screenshot();
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    await fs.mkdir("test-results", { recursive: true });
    await fs.writeFile("test-results/session-puppeteer.png", png);

    const disconnected = new Promise<void>((r) => browser.once("disconnected", () => r()));
    expect((await releaseSession(t, ws.key, body.id)).status).toBe(204);
    await disconnected;
    expect((await getSession(t, ws.key, body.id)).status).toBe("RELEASED");
    expect(await handshake(body.connect_url!)).toBe(410);
    // Releasing again is fine.
    expect((await releaseSession(t, ws.key, body.id)).status).toBe(204);
  });

  it("playwright-core connectOverCDP works unchanged", async () => {
    const { body } = await createSession(t, ws.key);
    const browser = await chromium.connectOverCDP(body.connect_url!);
    const context = browser.contexts()[0] ?? (await browser.newContext());
    const tab = await context.newPage();
    await tab.goto(page.url);
    expect(await tab.textContent("#greeting")).toBe("hello from loopback");
    const closed = new Promise<void>((r) => browser.once("disconnected", () => r()));
    await releaseSession(t, ws.key, body.id);
    await closed;
    expect(await handshake(body.connect_url!)).toBe(410);
  });

  it("a client's browser.close() releases the session (not a crash), and the browser goes", async () => {
    const { body } = await createSession(t, ws.key);
    const lease = t.app.deps.runtime.endpoint(body.id)!;
    const browser = await puppeteer.connect({ browserWSEndpoint: body.connect_url! });
    await browser.close();
    const ended = await eventually(
      () => getSession(t, ws.key, body.id),
      (s) => s.status !== "RUNNING",
    );
    expect(ended).toMatchObject({ status: "RELEASED", end_reason: "client_release" });
    await eventually(
      async () => alive(lease.pid),
      (a) => !a,
    );
    expect(await handshake(body.connect_url!)).toBe(410);
  });

  it("chrome-remote-interface works unchanged", async () => {
    const { body } = await createSession(t, ws.key);
    const client = await CDP({ target: body.connect_url!, local: true });
    const { targetId } = (await client.send("Target.createTarget", { url: page.url })) as { targetId: string };
    const { sessionId } = (await client.send("Target.attachToTarget", { targetId, flatten: true })) as { sessionId: string };
    // Until the page has loaded (a fixed 300 ms was too short once in CI, on a loaded machine).
    const greeting = () =>
      client.send("Runtime.evaluate", { expression: "document.querySelector('#greeting')?.textContent ?? null", returnByValue: true }, sessionId) as Promise<{
        result: { value: string | null };
      }>;
    const evaluated = await eventually(greeting, (e) => e.result.value !== null);
    expect(evaluated.result.value).toBe("hello from loopback");
    await client.close();
    await releaseSession(t, ws.key, body.id);
  });

  it("GraphQL drives the same sessions: create, read, list, release", async () => {
    const gql = async (query: string) =>
      (await (
        await fetch(`${t.url}/graphql`, { method: "POST", headers: { ...bearer(ws.key), "content-type": "application/json" }, body: JSON.stringify({ query }) })
      ).json()) as {
        data: Record<string, { id: string; status: string; connectUrl: string | null; items?: Array<{ id: string }> }>;
      };
    const key = crypto.randomUUID();
    const created = await gql(`mutation { createSession(idempotencyKey: "${key}", input: { region: "us-east1" }) { id status connectUrl } }`);
    const session = created.data.createSession!;
    expect(session.status).toBe("RUNNING");
    const browser = await puppeteer.connect({ browserWSEndpoint: session.connectUrl! });
    expect(await (await browser.newPage()).evaluate(() => "through graphql")).toBe("through graphql");
    const replay = await gql(`mutation { createSession(idempotencyKey: "${key}", input: { region: "us-east1" }) { id } }`);
    expect(replay.data.createSession!.id).toBe(session.id);
    expect((await gql(`{ session(id: "${session.id}") { status } }`)).data.session!.status).toBe("RUNNING");
    const listed = await gql(`{ sessions(status: RUNNING, limit: 100) { items { id } } }`);
    expect(listed.data.sessions!.items!.map((i) => i.id)).toContain(session.id);
    const gone = new Promise<void>((r) => browser.once("disconnected", () => r()));
    await gql(`mutation { releaseSession(id: "${session.id}") }`);
    await gone;
    expect((await getSession(t, ws.key, session.id)).status).toBe("RELEASED");
  });

  it("serves the discovery endpoints with addresses that lead back through the proxy", async () => {
    const { body } = await createSession(t, ws.key);
    const token = new URL(body.connect_url!).searchParams.get("token")!;
    const version = (await (await fetch(`${t.url}/cdp/json/version?token=${token}`)).json()) as Record<string, string>;
    expect(version.Browser).toMatch(/Chrome|Chromium|HeadlessChrome/);
    expect(version.webSocketDebuggerUrl).toBe(body.connect_url);
    const list = (await (await fetch(`${t.url}/cdp/json/list?token=${token}`)).json()) as Array<{ webSocketDebuggerUrl: string; devtoolsFrontendUrl?: string }>;
    expect(list.length).toBeGreaterThan(0);
    for (const target of list) {
      expect(target.webSocketDebuggerUrl).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/cdp/devtools/page/[A-Za-z0-9-]+\\?token=`));
      expect(target.devtoolsFrontendUrl).toBeUndefined();
    }
    // A page target through the proxy speaks CDP.
    const pageWs = new WebSocket(list[0]!.webSocketDebuggerUrl);
    const answer = await new Promise<{ result: { result: { value: number } } }>((resolve, reject) => {
      pageWs.on("open", () => pageWs.send(JSON.stringify({ id: 1, method: "Runtime.evaluate", params: { expression: "20+22" } })));
      pageWs.on("message", (m) => resolve(JSON.parse(m.toString())));
      pageWs.on("error", reject);
    });
    expect(answer.result.result.value).toBe(42);
    pageWs.close();
    expect((await fetch(`${t.url}/cdp/json/version`)).status).toBe(401);
    await releaseSession(t, ws.key, body.id);
  });

  it("refuses forged, misused and foreign tokens without connecting upstream", async () => {
    const a = await createSession(t, ws.key, { region: "us-east1", live_view: { interactive: true } });
    const lease = t.app.deps.runtime.endpoint(a.body.id)!;
    const cdpToken = new URL(a.body.connect_url!).searchParams.get("token")!;
    const liveToken = new URL(a.body.live_view_url!).searchParams.get("token")!;
    const [h, p, sig] = cdpToken.split(".") as [string, string, string];
    const header = decodeProtectedHeader(cdpToken);
    const none = `${Buffer.from(JSON.stringify({ alg: "none", typ: header.typ, kid: header.kid })).toString("base64url")}.${p}.`;
    const tampered = `${h}.${p}.${sig.slice(0, -4)}${sig.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`;
    const hs256 = await new SignJWT(JSON.parse(Buffer.from(p, "base64url").toString()))
      .setProtectedHeader({ alg: "HS256", typ: header.typ, kid: header.kid })
      .sign(new TextEncoder().encode("guess"));
    const base = `${t.url.replace("http", "ws")}/cdp`;
    // The node's channels on the browser: the download guard's and the session's log capture. The
    // clients' channels (and the one opened ahead for the first) are the relay host's (browser/cdp/relay/host.ts).
    await vi.waitFor(() => expect(lease.cdp.channels).toBe(2), { timeout: 10_000, interval: 20 });
    const before = lease.cdp.channels;
    const cases: Array<[string, string, number]> = [
      ["no token", base, 401],
      ["live-view token on /cdp", `${base}?token=${liveToken}`, 401],
      ["alg none", `${base}?token=${none}`, 401],
      ["tampered signature", `${base}?token=${tampered}`, 401],
      ["HS256 confusion", `${base}?token=${hs256}`, 401],
      ["garbage", `${base}?token=not.a.jwt`, 401],
    ];
    for (const [what, url, status] of cases) expect(await handshake(url), what).toBe(status);
    expect(lease.cdp.channels).toBe(before);
    expect(t.app.deps.runtime.clientCount(a.body.id)).toBe(0);
    // The real token does connect (so the counter above could have moved): the first client over
    // the connection opened for it, the next over one of its own.
    const first = new WebSocket(`${base}?token=${cdpToken}`);
    await new Promise((resolve, reject) => first.once("open", resolve).once("error", reject));
    first.send(JSON.stringify({ id: 1, method: "Browser.getVersion" }));
    const answer = JSON.parse(String(await new Promise((resolve) => first.once("message", resolve)))) as { id: number; result: { product: string } };
    expect(answer).toMatchObject({ id: 1, result: { product: expect.stringMatching(/Chrome/) } });
    expect(lease.cdp.channels).toBe(before);
    expect(await handshake(`${base}?token=${cdpToken}`)).toBe("open");
    await vi.waitFor(() => expect(t.app.deps.runtime.clientCount(a.body.id)).toBe(1), { timeout: 5_000, interval: 20 });
    first.close();
    await releaseSession(t, ws.key, a.body.id);
  });

  it("a token reaches only its own session, and the Authorization header works as well as the query", async () => {
    const a = await createSession(t, ws.key);
    const b = await createSession(t, ws.key);
    const tokenA = new URL(a.body.connect_url!).searchParams.get("token")!;
    const browser = await puppeteer.connect({ browserWSEndpoint: `${t.url.replace("http", "ws")}/cdp`, headers: { authorization: `Bearer ${tokenA}` } });
    const pidA = t.app.deps.runtime.endpoint(a.body.id)!.pid;
    const pidB = t.app.deps.runtime.endpoint(b.body.id)!.pid;
    expect(pidA).not.toBe(pidB);
    // The browser this token reaches is A's: releasing B leaves it connected, releasing A ends it.
    await releaseSession(t, ws.key, b.body.id);
    expect(browser.connected).toBe(true);
    const gone = new Promise<void>((r) => browser.once("disconnected", () => r()));
    await releaseSession(t, ws.key, a.body.id);
    await gone;
  });

  it("keepalive returns new working addresses", async () => {
    const { body } = await createSession(t, ws.key);
    await new Promise((r) => setTimeout(r, 1100)); // tokens carry second-resolution times
    const res = await fetch(`${t.url}/v1/sessions/${body.id}:keepalive`, { method: "POST", headers: bearer(ws.key) });
    expect(res.status).toBe(200);
    const renewed = (await res.json()) as typeof body;
    expect(renewed.connect_url).not.toBe(body.connect_url);
    expect(renewed.live_view_url).not.toBe(body.live_view_url);
    const browser = await puppeteer.connect({ browserWSEndpoint: renewed.connect_url! });
    expect(await (await browser.newPage()).evaluate(() => 1 + 1)).toBe(2);
    await browser.disconnect();
    await releaseSession(t, ws.key, body.id);
    const after = await fetch(`${t.url}/v1/sessions/${body.id}:keepalive`, { method: "POST", headers: bearer(ws.key) });
    expect(after.status).toBe(409);
  });

  it("a Chromium that dies ends its session as FAILED / browser_crash", async () => {
    const { body } = await createSession(t, ws.key);
    const { pid } = t.app.deps.runtime.endpoint(body.id)!;
    process.kill(-pid, "SIGKILL");
    const ended = await eventually(
      () => getSession(t, ws.key, body.id),
      (s) => s.status !== "RUNNING",
    );
    expect(ended).toMatchObject({ status: "FAILED", end_reason: "browser_crash" });
    await eventually(
      async () => alive(pid),
      (a) => !a,
    );
  });

  it("the hard cap and the idle timeout end sessions", async () => {
    const capped = await createSession(t, ws.key, { region: "us-east1", timeout_seconds: 2 });
    const idle = await createSession(t, ws.key, { region: "us-east1", idle_timeout_seconds: 1 });
    // A connected client keeps a session from going idle.
    const busy = await createSession(t, ws.key, { region: "us-east1", idle_timeout_seconds: 1 });
    const client = await puppeteer.connect({ browserWSEndpoint: busy.body.connect_url! });
    expect(
      await eventually(
        () => getSession(t, ws.key, idle.body.id),
        (s) => s.status !== "RUNNING",
      ),
    ).toMatchObject({ status: "TIMED_OUT", end_reason: "idle_timeout" });
    expect(
      await eventually(
        () => getSession(t, ws.key, capped.body.id),
        (s) => s.status !== "RUNNING",
      ),
    ).toMatchObject({ status: "TIMED_OUT", end_reason: "timeout" });
    expect((await getSession(t, ws.key, busy.body.id)).status).toBe("RUNNING");
    await client.disconnect();
    expect(
      await eventually(
        () => getSession(t, ws.key, busy.body.id),
        (s) => s.status !== "RUNNING",
      ),
    ).toMatchObject({ end_reason: "idle_timeout" });
  });

  it("records every transition as a session event", async () => {
    const { body } = await createSession(t, ws.key);
    await releaseSession(t, ws.key, body.id);
    const events = await t.app.deps.db.prisma.sessionEvent.findMany({ where: { sessionId: body.id }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.type)).toEqual(["session.running", "session.released"]);
  });
});

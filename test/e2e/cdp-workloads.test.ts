import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import path from "node:path";
import CDP from "chrome-remote-interface";
import { chromium } from "playwright-core";
import puppeteer from "puppeteer-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { endSession } from "../../src/services/sessions/sessions.ts";
import { startRecordingRelay, type RecordingRelay } from "../support/cdp-recorder.ts";
import { seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, eventually } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

/**
 * Issue 17, acceptance: the CDP policy (an allow-list) refuses nothing that Puppeteer, Playwright
 * (connectOverCDP) and chrome-remote-interface send for ordinary work. Each client runs a full
 * workload against a session through the /cdp proxy (policy on), through a recording relay that
 * notes every method it sends and every error it gets back (test-results/cdp-workloads.json keeps
 * them). A workload fails on any step that fails, on any cdp.refused event on the session, and on
 * any answer that is a policy refusal.
 *
 * Uploads: a path given to Puppeteer's uploadFile is a path on the browser's machine, not the
 * client's, so a path outside the session's own folder is refused (the isolation tests check
 * that). The supported routes tested here are a file from the session's own folder (what it
 * downloaded) and, from anywhere, the bytes themselves: Playwright's setInputFiles with a buffer,
 * and for Puppeteer the same thing done by page script (a File in a DataTransfer).
 */

/** A policy refusal, however the policy words it (today: "Vessel.policy: <method> refused: <reason>"). */
const policyRefusal = /vessel|polic|refus|not allowed/i;

const FORM = `<!doctype html><meta charset="utf-8"><title>workload</title>
<h1 id="greeting">hello from the fixture</h1>
<input id="name" aria-label="Name"> <button id="go" onclick="document.getElementById('out').textContent = 'hello ' + document.getElementById('name').value">Go</button>
<p id="out"></p>
<input type="file" id="file">
<pre id="uploaded"></pre>
<a id="dl" href="/download" download>download</a>
<iframe src="/frame"></iframe>
<script>
document.getElementById("file").addEventListener("change", async (e) => {
  const f = e.target.files[0];
  document.getElementById("uploaded").textContent = f ? f.name + ":" + (await f.text()) : "none";
});
</script>`;

function listen(server: net.Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as net.AddressInfo).port)));
}

describe.skipIf(!hasChromium)("issue 17: Puppeteer, Playwright and chrome-remote-interface workloads pass the CDP policy", () => {
  let t: TestApp;
  let ws: Seeded;
  let site: http.Server;
  let siteUrl: string;
  let relays: RecordingRelay[] = [];
  const recorded: Record<string, { methods: string[]; errors: Array<{ method: string; message: string }> }> = {};

  beforeAll(async () => {
    site = http.createServer((req, res) => {
      const route = (req.url ?? "/").split("?")[0];
      if (route === "/download") {
        res.writeHead(200, { "content-type": "application/octet-stream", "content-disposition": 'attachment; filename="report.txt"' });
        return void res.end("report body");
      }
      if (route === "/frame") return void res.writeHead(200, { "content-type": "text/html" }).end("<p id=inner>inside the frame</p>");
      if (route === "/api") return void res.writeHead(200, { "content-type": "application/json" }).end('{"from":"server"}');
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(FORM);
    });
    siteUrl = `http://127.0.0.2:${await listen(site, "127.0.0.2")}`;
    t = await startTestApp({ env: { VESSEL_EGRESS_ALLOW: "127.0.0.2/32", VESSEL_CDP_POLICY: "on" } });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => {
    await t?.stop();
    site?.close();
    fs.mkdirSync("test-results", { recursive: true });
    fs.writeFileSync("test-results/cdp-workloads.json", `${JSON.stringify(recorded, null, 2)}\n`);
  });
  afterEach(async () => {
    for (const relay of relays) await relay.close();
    relays = [];
    const live = await t.app.deps.db.prisma.session.findMany({ where: { status: "RUNNING" }, select: { id: true } });
    for (const { id } of live) await endSession(t.app.deps, id, { status: "RELEASED", reason: "CLIENT_RELEASE" });
  });

  const api = (pathname: string) => fetch(`${t.url}${pathname}`, { headers: { authorization: `Bearer ${ws.key}` } });

  async function session(): Promise<{ id: string; connectUrl: string }> {
    const { res, body } = await createSession(t, ws.key, { region: "us-east1" });
    expect(res.status, JSON.stringify(body)).toBe(201);
    return { id: body.id, connectUrl: body.connect_url! };
  }

  async function relayFor(connectUrl: string, client: string): Promise<RecordingRelay> {
    const relay = await startRecordingRelay(connectUrl);
    relays.push(relay);
    recorded[client] = { methods: [], errors: [] };
    const keep = () => {
      recorded[client] = { methods: relay.recording.methods(), errors: relay.recording.errors };
    };
    const close = relay.close;
    relay.close = async () => {
      keep();
      await close();
    };
    return relay;
  }

  /** The session's downloads as the API lists them, once `name` has completed; and its bytes. */
  async function downloaded(id: string, name: string): Promise<string> {
    const items = await eventually(
      async () => ((await (await api(`/v1/sessions/${id}/downloads`)).json()) as { items: Array<{ id: string; name: string; state: string }> }).items,
      (list) => list.some((d) => d.name === name && d.state === "completed"),
      15_000,
    );
    const item = items.find((d) => d.name === name && d.state === "completed")!;
    const file = await api(`/v1/sessions/${id}/downloads/${item.id}`);
    expect(file.status).toBe(200);
    return file.text();
  }

  /** Nothing the clients sent was refused: no cdp.refused event on the session, no refusal among the answers. */
  async function expectNothingRefused(id: string, ...used: RecordingRelay[]): Promise<void> {
    await t.app.deps.events.flush();
    const events = (await t.app.deps.db.prisma.sessionEvent.findMany({ where: { sessionId: id, type: "cdp.refused" } })).map(
      (e) => e.data as Record<string, unknown>,
    );
    // Playwright's own download folder is replaced by the session's (README, Downloads): the call
    // succeeds, the proxy only notes it. Not a refusal; anything else is.
    const refusals = events.filter((e) => !(e.method === "Browser.setDownloadBehavior" && /replaced/i.test(String(e.reason))));
    expect(refusals, "no cdp.refused event on the session").toEqual([]);
    for (const relay of used) {
      expect(relay.recording.calls.length, "the relay saw the workload").toBeGreaterThan(10);
      expect(
        relay.recording.errors.filter((e) => policyRefusal.test(e.message)),
        "no command answered with a policy refusal",
      ).toEqual([]);
    }
  }

  it("Puppeteer: connect, newPage, goto, type and click, evaluate, screenshot, PDF, cookies, interception, uploads, a download, close", async () => {
    const s = await session();
    const relay = await relayFor(s.connectUrl, "puppeteer");
    const browser = await puppeteer.connect({ browserWSEndpoint: relay.url });
    try {
      const page = await browser.newPage();
      await page.setViewport({ width: 1024, height: 700 });
      await page.setUserAgent({ userAgent: "VesselWorkload/1.0" });
      await page.setExtraHTTPHeaders({ "x-workload": "1" });
      await page.evaluateOnNewDocument(() => {
        (window as unknown as { injected: boolean }).injected = true;
      });
      await page.exposeFunction("double", (n: number) => n * 2);
      const response = await page.goto(`${siteUrl}/form`, { waitUntil: "load" });
      expect(response?.status()).toBe(200);
      expect(await page.title()).toBe("workload");
      await page.waitForSelector("#name");
      await page.type("#name", "Ada");
      await page.click("#go");
      expect(await page.$eval("#out", (e) => e.textContent)).toBe("hello Ada");
      expect(await page.evaluate(() => 6 * 7)).toBe(42);
      expect(await page.evaluate(() => (window as unknown as { injected?: boolean }).injected)).toBe(true);
      expect(await page.evaluate(() => (window as unknown as { double(n: number): Promise<number> }).double(21))).toBe(42);
      const frame = page.frames().find((f) => f.url().endsWith("/frame"));
      expect(await frame?.$eval("#inner", (e) => e.textContent)).toBe("inside the frame");
      const png = await page.screenshot({ fullPage: true });
      expect(Buffer.from(png).subarray(1, 4).toString()).toBe("PNG");
      const pdf = await page.pdf();
      expect(Buffer.from(pdf).subarray(0, 4).toString()).toBe("%PDF");
      await browser.setCookie({ name: "seen", value: "yes", domain: "127.0.0.2", path: "/" });
      expect((await browser.cookies()).map((c) => c.name)).toContain("seen");

      // Interception: the page asks, the client answers.
      await page.setRequestInterception(true);
      page.on("request", (request) => {
        if (request.url().endsWith("/api")) void request.respond({ status: 200, contentType: "application/json", body: '{"from":"client"}' });
        else void request.continue();
      });
      expect(await page.evaluate(async () => (await fetch("/api")).json())).toEqual({ from: "client" });
      await page.setRequestInterception(false);

      // An upload of bytes, by page script (works whatever machine the client is on).
      await page.evaluate(() => {
        const transfer = new DataTransfer();
        transfer.items.add(new File(["uploaded body"], "hello.txt", { type: "text/plain" }));
        const input = document.querySelector<HTMLInputElement>("#file")!;
        input.files = transfer.files;
        input.dispatchEvent(new Event("change", { bubbles: true }));
      });
      await page.waitForFunction(() => document.querySelector("#uploaded")?.textContent === "hello.txt:uploaded body");

      // A download: into the session's folder, served by the API.
      await page.click("#dl");
      expect(await downloaded(s.id, "report.txt")).toBe("report body");
      // An upload by path, from the session's own folder (what the session downloaded).
      const folder = t.app.deps.runtime.endpoint(s.id)!.downloadsDir;
      const file = fs.readdirSync(folder).find((f) => fs.readFileSync(path.join(folder, f), "utf8") === "report body");
      expect(file, "the download is in the session's folder").toBeDefined();
      const input = await page.$("input#file");
      await input!.uploadFile(path.join(folder, file!));
      await page.waitForFunction((name) => document.querySelector("#uploaded")?.textContent === `${name}:report body`, {}, file!);

      // Another tab in a context of its own, then close.
      const context = await browser.createBrowserContext();
      const other = await context.newPage();
      await other.goto(`${siteUrl}/form`);
      expect(await other.$eval("#greeting", (e) => e.textContent)).toBe("hello from the fixture");
      await context.close();
      await page.close();
    } finally {
      await browser.disconnect();
    }
    await expectNothingRefused(s.id, relay);
  }, 90_000);

  it("Playwright (connectOverCDP): goto, fill and click, evaluate, screenshot, setInputFiles with a buffer, a download, a new context, close", async () => {
    const s = await session();
    const relay = await relayFor(s.connectUrl, "playwright");
    const browser = await chromium.connectOverCDP(relay.url);
    try {
      const context = browser.contexts()[0]!;
      await context.addInitScript(() => {
        (window as unknown as { injected: boolean }).injected = true;
      });
      const page = await context.newPage();
      await page.setViewportSize({ width: 1024, height: 700 });
      const response = await page.goto(`${siteUrl}/form`);
      expect(response?.status()).toBe(200);
      await page.fill("#name", "Grace");
      await page.click("#go");
      expect(await page.textContent("#out")).toBe("hello Grace");
      await page.getByRole("button", { name: "Go" }).click();
      expect(await page.evaluate(() => 6 * 7)).toBe(42);
      expect(await page.evaluate(() => (window as unknown as { injected?: boolean }).injected)).toBe(true);
      expect(await page.frameLocator("iframe").locator("#inner").textContent()).toBe("inside the frame");
      const png = await page.screenshot({ fullPage: true });
      expect(png.subarray(1, 4).toString()).toBe("PNG");
      await context.addCookies([{ name: "seen", value: "yes", url: siteUrl }]);
      expect((await context.cookies(siteUrl)).map((c) => c.name)).toContain("seen");

      await page.route("**/api", (route) => route.fulfill({ status: 200, contentType: "application/json", body: '{"from":"client"}' }));
      expect(await page.evaluate(async () => (await fetch("/api")).json())).toEqual({ from: "client" });
      await page.unroute("**/api");

      // An upload of bytes from the client, read back by the page.
      await page.setInputFiles("#file", { name: "hello.txt", mimeType: "text/plain", buffer: Buffer.from("uploaded body") });
      await page.waitForFunction(() => document.querySelector("#uploaded")?.textContent === "hello.txt:uploaded body");

      // A download: Playwright sees it, the API serves it.
      const [download] = await Promise.all([page.waitForEvent("download"), page.click("#dl")]);
      expect(download.suggestedFilename()).toBe("report.txt");
      expect(await downloaded(s.id, "report.txt")).toBe("report body");

      // A context of its own, then close.
      const own = await browser.newContext();
      const other = await own.newPage();
      await other.goto(`${siteUrl}/form`);
      expect(await other.textContent("#greeting")).toBe("hello from the fixture");
      await own.close();
      await page.close();
    } finally {
      await browser.close();
    }
    await expectNothingRefused(s.id, relay);
  }, 90_000);

  it("chrome-remote-interface: a target, a flat session, navigate, evaluate, screenshot, close", async () => {
    const s = await session();
    const relay = await relayFor(s.connectUrl, "chrome-remote-interface");
    const client = await CDP({ target: relay.url, local: true });
    try {
      await client.send("Target.setDiscoverTargets", { discover: true });
      const { targetId } = (await client.send("Target.createTarget", { url: "about:blank" })) as { targetId: string };
      const { sessionId } = (await client.send("Target.attachToTarget", { targetId, flatten: true })) as { sessionId: string };
      await client.send("Page.enable", {}, sessionId);
      await client.send("Runtime.enable", {}, sessionId);
      await client.send("Network.enable", {}, sessionId);
      const navigated = (await client.send("Page.navigate", { url: `${siteUrl}/form` }, sessionId)) as { errorText?: string };
      expect(navigated.errorText).toBeUndefined();
      const ready = async () =>
        ((await client.send("Runtime.evaluate", { expression: "document.readyState", returnByValue: true }, sessionId)) as { result: { value: string } }).result
          .value;
      await eventually(ready, (v) => v === "complete");
      const evaluated = (await client.send(
        "Runtime.evaluate",
        { expression: "document.querySelector('#greeting').textContent", returnByValue: true },
        sessionId,
      )) as {
        result: { value: string };
      };
      expect(evaluated.result.value).toBe("hello from the fixture");
      const shot = (await client.send("Page.captureScreenshot", { format: "png" }, sessionId)) as { data: string };
      expect(Buffer.from(shot.data, "base64").subarray(1, 4).toString()).toBe("PNG");
      const { cookies } = (await client.send("Network.getCookies", {}, sessionId)) as { cookies: unknown[] };
      expect(Array.isArray(cookies)).toBe(true);
      await client.send("Target.closeTarget", { targetId });
    } finally {
      await client.close();
    }
    await expectNothingRefused(s.id, relay);
  }, 60_000);

  it("two clients at once on one session: Puppeteer and Playwright both work, and one leaving does not disturb the other", async () => {
    const s = await session();
    const pptRelay = await relayFor(s.connectUrl, "puppeteer (with playwright)");
    const pwRelay = await relayFor(s.connectUrl, "playwright (with puppeteer)");
    const ppt = await puppeteer.connect({ browserWSEndpoint: pptRelay.url });
    const pw = await chromium.connectOverCDP(pwRelay.url);
    try {
      const [pptPage, pwPage] = await Promise.all([ppt.newPage(), pw.contexts()[0]!.newPage()]);
      await Promise.all([pptPage.goto(`${siteUrl}/form?client=puppeteer`), pwPage.goto(`${siteUrl}/form?client=playwright`)]);
      const [a, b] = await Promise.all([pptPage.evaluate(() => location.search), pwPage.evaluate(() => location.search)]);
      expect([a, b]).toEqual(["?client=puppeteer", "?client=playwright"]);
      const [shotA, shotB] = await Promise.all([pptPage.screenshot(), pwPage.screenshot()]);
      expect(Buffer.from(shotA).subarray(1, 4).toString()).toBe("PNG");
      expect(shotB.subarray(1, 4).toString()).toBe("PNG");
      // The same browser: each client sees the other's tab.
      await eventually(
        async () => (await ppt.pages()).map((p) => p.url()),
        (urls) => urls.some((u) => u.endsWith("?client=playwright")),
      );
      expect(
        pw
          .contexts()[0]!
          .pages()
          .map((p) => p.url()),
      ).toContain(`${siteUrl}/form?client=puppeteer`);
      // Interleaved work on both connections.
      for (let i = 0; i < 5; i++) {
        const [x, y] = await Promise.all([pptPage.evaluate((n) => n * 2, i), pwPage.evaluate((n) => n * 3, i)]);
        expect([x, y]).toEqual([i * 2, i * 3]);
      }
      await Promise.all([pptPage.type("#name", "Ada"), pwPage.fill("#name", "Grace")]);
      await Promise.all([pptPage.click("#go"), pwPage.click("#go")]);
      expect(await pptPage.$eval("#out", (e) => e.textContent)).toBe("hello Ada");
      expect(await pwPage.textContent("#out")).toBe("hello Grace");
      // Playwright leaves; Puppeteer carries on.
      await pwPage.close();
      await pw.close();
      expect(await pptPage.evaluate(() => document.title)).toBe("workload");
      const again = await ppt.newPage();
      await again.goto(`${siteUrl}/form`);
      expect(await again.$eval("#greeting", (e) => e.textContent)).toBe("hello from the fixture");
    } finally {
      await ppt.disconnect();
      await pw.close().catch(() => {});
    }
    await expectNothingRefused(s.id, pptRelay, pwRelay);
  }, 90_000);
});
